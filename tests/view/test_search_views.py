"""Seeing the search: inspector, strategy comparison, cost fields, heat map."""

from __future__ import annotations

import math

import numpy as np
import pygame
import pytest

from sim.instruments import compare, fields
from sim.instruments.recorder import HEAT_TIME_S
from sim.model.agents import Outcome, State
from sim.pathfinding import PathGrid, find_path
from tests.helpers import click, path_cost, press, pts

STEP = 1 / 60


def post(t, **kw):
    pygame.event.post(pygame.event.Event(t, **kw))


def shot(app) -> np.ndarray:
    app.draw()
    return pygame.surfarray.array3d(app.screen).copy()


def searched_walker(app):
    a = app.sim.agents
    cow = next(sp.index for sp in app.sim.species if sp.key == "cow")
    ok = np.flatnonzero((a.state == State.WALKING) & (a.last_outcome == Outcome.FOUND) & (a.species == cow))
    return int(ok[np.argmax(a.last_expanded[ok])])


def test_click_on_an_animal_selects_it_and_the_panel_reports_its_last_search(make_app):
    app = make_app("maps/tutorial.yaml", counts={"cow": 20, "bird": 0, "water": 0})
    for _ in range(90):
        app.frame(STEP)
    i = searched_walker(app)
    press(app, pygame.K_SPACE)  # pause so it stays under the cursor
    click(app, tuple(app.sim.agents.pos[i]), mod=pygame.KMOD_CTRL)
    assert app.play.selected == i
    a = app.sim.agents
    from sim.instruments.inspector import describe

    lines = describe(app.sim, i)
    assert lines[0] == f"cow #{i}"
    assert f"  expanded  {a.last_expanded[i]}" in lines and "  outcome   found" in lines
    assert lines[1].startswith("state   walking")
    # The footprint shown is that search's: as many closed cells as it expanded.
    assert (app.instruments.record > 0).sum() == a.last_expanded[i] == app.instruments.record_event.result.expanded
    # The next search of this animal is recorded live.
    press(app, pygame.K_SPACE)
    before = app.instruments.record_event
    for _ in range(60 * 8):
        app.frame(STEP)
        if app.instruments.record_event is not before:
            break
    assert app.instruments.record_event is not before and app.instruments.record_event.agent == i
    assert (app.instruments.record > 0).sum() == app.instruments.record_event.result.expanded


def test_inspect_tool_deselect_follow_and_escape(make_app):
    app = make_app("maps/tutorial.yaml", counts={"cow": 5, "bird": 0, "water": 0})
    app.frame(STEP)
    press(app, pygame.K_i)
    assert app.play.tool == "inspect"
    press(app, pygame.K_SPACE)
    click(app, tuple(app.sim.agents.pos[2]))
    assert app.play.selected == 2
    click(app, (0, 0))  # water, no animal there: deselects
    assert app.play.selected is None
    click(app, tuple(app.sim.agents.pos[1]))
    assert app.play.selected == 1
    # Esc closes the innermost thing open: the animal, then the inspect tool; then it asks.
    press(app, pygame.K_ESCAPE)
    assert app.play.selected is None and app.play.tool == "inspect" and app.running
    press(app, pygame.K_ESCAPE)
    assert app.play.tool == "paint" and app.top is app.play and app.running
    press(app, pygame.K_ESCAPE)
    assert type(app.top).__name__ == "ConfirmMode" and app.running  # "quit? (Esc again / Enter)"
    press(app, pygame.K_SPACE)  # any other key: no
    assert app.top is app.play and app.running
    press(app, pygame.K_ESCAPE)
    press(app, pygame.K_ESCAPE)  # Esc again: yes
    assert not app.running


def test_a_click_near_a_sprite_selects_its_animal_and_a_miss_says_so(make_app):
    # Sprites are drawn larger than a cell (and turn): a click on or just beside one picks its animal.
    from sim.view.draw.sprites import SpriteBank

    app = make_app("maps/island.yaml", counts={"cow": 1, "bird": 0, "water": 0})
    app.cam.zoom_to(8)
    app.frame(STEP)
    press(app, pygame.K_SPACE)
    press(app, pygame.K_i)
    sx, sy = app.cam.to_screen(*app.sim.agents.pos[0])
    edge = SpriteBank.size_for(app.cam.tile) / 2 + 5  # just beside it: beyond 10 px and a cell at tile 8
    assert edge > max(10, app.cam.tile)
    post(pygame.MOUSEBUTTONDOWN, pos=(int(sx + edge), int(sy)), button=1, mod=0)
    app.frame(STEP)
    assert app.play.selected == 0
    press(app, pygame.K_ESCAPE)
    assert app.play.selected is None
    post(pygame.MOUSEBUTTONDOWN, pos=(int(sx + 6 * edge), int(sy)), button=1, mod=0)
    app.frame(STEP)
    assert app.play.selected is None
    assert any(m[0].startswith("no animal within") for m in app.messages)


def test_camera_follows_the_selected_animal(make_app):
    app = make_app("maps/island.yaml", counts={"cow": 30, "bird": 0, "water": 0})
    app.cam.zoom_to(16, 640, 400)  # zoomed in: the map is much larger than the window
    a = app.sim.agents
    # At 16 px per cell the view is 80x50 cells: an animal can be centred while it stays more
    # than 40 cells (x) and 25 cells (y) from the edges. Cows walk at most 4.5 cells in 90 frames.
    assert app.cam.tile == 16
    central = np.flatnonzero((np.abs(a.pos[:, 0] - 80) < 30) & (np.abs(a.pos[:, 1] - 50) < 15))
    i = int(central[0])
    app.play.select(i)
    press(app, pygame.K_f)
    assert app.play.follow
    for _ in range(90):
        app.frame(STEP)
        x, y = app.cam.to_screen(*a.pos[i])
        assert abs(x - app.cam.view_w / 2) <= 1 and abs(y - app.cam.view_h / 2) <= 1
    app.play.select(None)
    assert not app.play.follow


def far_cells(sp):
    reg = sp.regions
    big = np.bincount(reg.ravel())[1:].argmax() + 1
    ys, xs = np.nonzero(reg == big)
    a, b = np.argmin(xs + ys), np.argmax(xs + ys)
    return (int(xs[a]), int(ys[a])), (int(xs[b]), int(ys[b]))


def compare_far_query(app, species_key=None):
    """Open the compare view (C), pick a species by its number key, and query between its two
    farthest cells: ``(cmp, species, start, goal)``."""
    app.frame(STEP)
    press(app, pygame.K_c)
    if species_key is not None:
        press(app, species_key)
    sp = app.sim.species[app.top.cmp.species]
    start, goal = far_cells(sp)
    click(app, start)
    click(app, goal)
    return app.top.cmp, sp, start, goal


def test_compare_mode_reports_what_find_path_gives(make_app):
    app = make_app("maps/fortress.yaml", counts={"cow": 10, "bird": 10, "water": 10})
    app.frame(STEP)
    press(app, pygame.K_c)
    assert app.top.cmp is not None and app.paused
    press(app, pygame.K_1)  # cows
    sp = app.sim.species[app.top.cmp.species]
    assert sp.key == "cow"
    start, goal = far_cells(sp)
    click(app, start)
    click(app, goal)
    cmp = app.top.cmp
    # Cows' costs differ by terrain: JPS+ gets no panel (the six re-flow), and the header says why
    assert [r.label for r in cmp.runs] == ["Dijkstra", "Greedy best-first", "A*", "Weighted A* (w=2)",
                                           "JPSW (weighted jump points)", "Distance field (from the goal)"]  # fmt: skip
    assert cmp.left_out == ["JPS+ needs one cost everywhere"]
    assert "water creatures (3)" in app.top.offer()

    def check():
        costs = np.array(sp.costs)
        for run in cmp.runs:
            if run.algorithm == "field":  # grown from the goal: the optimal cost, an optimal path down it
                assert run.result.cost == pytest.approx(cmp.runs[0].result.cost)
                assert tuple(run.result.path[0]) == start and tuple(run.result.path[-1]) == goal
                assert path_cost(costs, run.result.path, cmp.diagonal) == pytest.approx(run.result.cost)
                continue
            assert run.algorithm not in ("jps", "jps+") or cmp.diagonal == "no-corner-cutting"
            assert run.algorithm != "jps+" or PathGrid(costs).uniform
            assert run.runs >= 3 and run.clean  # a median of calls, none of them compiling
            ref = find_path(
                costs,
                start,
                goal,
                algorithm=run.algorithm,
                weight=run.weight,
                diagonal=cmp.diagonal,
                heuristic=cmp.heuristic,
            )
            assert (run.result.cost, run.result.expanded) == (pytest.approx(ref.cost), ref.expanded), run.label
        dijkstra_run, astar_run = cmp.runs[0].result, cmp.runs[2].result
        if cmp.heuristic in ("octile", "euclidean", "chebyshev", "zero", "landmarks"):  # admissible: A* is optimal
            assert astar_run.cost == pytest.approx(dijkstra_run.cost)
        else:  # Manhattan overestimates when diagonals are allowed: no guarantee, but never cheaper
            assert astar_run.cost >= dijkstra_run.cost - 1e-9
        assert astar_run.expanded < dijkstra_run.expanded  # A* saves work
        if cmp.diagonal != "no-corner-cutting":
            assert [w.split(" needs")[0] for w in cmp.left_out] == ["JPS", "JPS+"]

    check()
    press(app, pygame.K_d)  # one-obstacle
    press(app, pygame.K_e)  # manhattan
    press(app, pygame.K_EQUALS)  # weight 2.5
    assert (cmp.diagonal, cmp.heuristic, cmp.weight) == ("one-obstacle", "manhattan", 2.5)
    check()
    app.sim.paint(start[0] + 1, start[1], 0, 6)  # a rock that a right-drag would restore
    terrain = app.sim.world.terrain.copy()
    x, y = app.cam.to_screen(start[0] + 1, start[1])
    post(pygame.MOUSEBUTTONDOWN, pos=(int(x), int(y)), button=3, mod=0)
    post(pygame.MOUSEMOTION, pos=(int(x) + 40, int(y)), rel=(40, 0), buttons=(0, 0, 1))
    post(pygame.MOUSEBUTTONUP, pos=(int(x) + 40, int(y)), button=3, mod=0)
    app.frame(STEP)
    assert (app.sim.world.terrain == terrain).all()  # no painting while comparing
    app.sim.paint(start[0] + 1, start[1], 0, None)
    t = app.sim.time
    press(app, pygame.K_c)
    assert app.top is app.play and not app.paused
    app.frame(STEP)
    assert app.sim.time > t  # the simulation resumed


def test_replay_reveals_cells_in_the_kernels_expansion_order(make_app):
    app = make_app("maps/river.yaml", counts={"cow": 5, "bird": 5, "water": 5})
    cmp, sp, start, goal = compare_far_query(app, pygame.K_2)  # birds
    press(app, pygame.K_SPACE)  # pause the replay
    cmp.step = 0
    grid = PathGrid(np.array(sp.costs))
    for run in cmp.runs:
        if run.algorithm == "field":  # the settling order of the field from the goal, up to the start
            trace = np.zeros(grid.costs.size, dtype=np.int32)
            grid.distance_field(goal, diagonal=cmp.diagonal, trace=trace)
            assert (run.order == trace[: run.result.expanded]).all()
            assert run.order[-1] == start[1] * grid.width + start[0]
            continue
        record = np.zeros(grid.costs.shape, dtype=np.int32)
        grid.search(
            start,
            goal,
            algorithm=run.algorithm,
            weight=run.weight,
            diagonal=cmp.diagonal,
            heuristic=cmp.heuristic,
            record=record,
        )
        expected = np.argsort(np.where(record > 0, record, np.iinfo(np.int32).max).ravel())[: run.result.expanded]
        assert (run.order == expected).all(), run.label
    a_star = cmp.runs[2]
    cmp.step = 0
    seen: list[int] = []
    for _ in range(min(40, a_star.result.expanded)):
        press(app, pygame.K_RIGHT)  # one expansion per press
        seen = cmp.revealed(a_star).tolist()
    assert seen == a_star.order[: len(seen)].tolist() and len(seen) == min(40, a_star.result.expanded)


def test_after_a_new_query_or_species_the_replay_keys_step_nothing(make_app):
    # N (a new query) and 1-3 (a species) emptied the runs but left the replay's steps: the next
    # arrow key raised in the window (found by a random-event run of the demo, 2026-12-05).
    app = make_app("maps/river.yaml", counts={"cow": 5, "bird": 5, "water": 5})
    cmp, _sp, _start, _goal = compare_far_query(app, pygame.K_2)
    for forget in (pygame.K_n, pygame.K_1):
        assert cmp.runs and len(cmp.steps) == len(cmp.runs)
        press(app, pygame.K_RIGHT)
        press(app, forget)
        assert (cmp.runs, cmp.steps, cmp.start, cmp.goal, cmp.shown) == ([], [], None, None, None)
        for k in (pygame.K_RIGHT, pygame.K_LEFT, pygame.K_SPACE, pygame.K_r):
            press(app, k, pygame.KMOD_SHIFT if k == pygame.K_RIGHT else 0)
        assert cmp.runs == [] and cmp.step == 0.0 and not cmp.done
        sp = app.sim.species[cmp.species]
        start, goal = far_cells(sp)
        click(app, start)
        click(app, goal)
    assert app.sim.species[cmp.species].key == "cow" and cmp.runs and len(cmp.steps) == len(cmp.runs)


def test_the_panel_shown_alone_follows_its_strategy_when_the_rule_takes_panels_away(make_app):
    # One panel large (Tab), then D: a diagonal rule JPS does not serve takes its panels away. The
    # index shown alone pointed past the runs and the drawing raised (a random-event run, 2026-12-05).
    app = make_app("maps/river.yaml", counts={"cow": 5, "bird": 5, "water": 5})
    app.frame(STEP)
    press(app, pygame.K_c)
    press(app, pygame.K_TAB)  # no query yet: nothing to show alone
    assert app.top.cmp.shown is None
    press(app, pygame.K_c)  # (back: compare_far_query opens it again)
    cmp, _sp, _start, _goal = compare_far_query(app, pygame.K_2)  # birds: JPS and JPS+ panels too
    labels = [r.label for r in cmp.runs]
    for _ in range(labels.index("JPS+ (jump table)") + 1):
        press(app, pygame.K_TAB)
    assert cmp.runs[cmp.shown].algorithm == "jps+"
    press(app, pygame.K_d)  # never: JPS and JPS+ get no panel
    assert cmp.diagonal != "no-corner-cutting" and cmp.shown is None
    for _ in range(labels.index("Weighted A* (w=2)") + 1):
        press(app, pygame.K_TAB)
    assert cmp.runs[cmp.shown].label == "Weighted A* (w=2)"
    press(app, pygame.K_EQUALS)  # another weight: the same strategy, still alone
    press(app, pygame.K_d)
    assert cmp.runs[cmp.shown].label == "Weighted A* (w=2.5)"
    app.frame(STEP)


def test_cost_field_matches_each_species_cost_grid(make_app):
    app = make_app("maps/island.yaml")
    press(app, pygame.K_SPACE)
    for k in range(3):
        press(app, pygame.K_v)
        sp = app.sim.species[app.play.field_species]
        assert app.play.field_species == k
        rgb, alpha = fields.cost_field(sp.costs, sp.regions)
        assert ((alpha == 0) == (sp.costs <= 0)).all()
        # Cells inside their region: all 4 neighbours in it (the map's edge counts as outside).
        r = np.pad(sp.regions, 1, constant_values=-1)
        c = r[1:-1, 1:-1]
        inner = (sp.costs > 0) & (r[:-2, 1:-1] == c) & (r[2:, 1:-1] == c) & (r[1:-1, :-2] == c) & (r[1:-1, 2:] == c)
        # Same multiplier, same colour; a cheaper cell is greener than a costlier one.
        for m in np.unique(sp.costs[inner]):
            colours = rgb[inner & (sp.costs == m)]
            assert (colours == colours[0]).all()
        ms = np.unique(sp.costs[inner])
        if len(ms) > 1:
            cheap, dear = rgb[inner & (sp.costs == ms[0])][0], rgb[inner & (sp.costs == ms[-1])][0]
            assert cheap[1] > dear[1] and cheap[0] < dear[0]
        # What is on screen is that colouring: an inner cell's centre pixel shows its colour.
        ys, xs = np.nonzero(inner)
        y, x = ys[len(ys) // 2], xs[len(xs) // 2]
        img = shot(app)
        px, py = (int(v) for v in app.cam.to_screen(x, y))
        assert tuple(img[px, py]) == tuple(rgb[y, x])
    press(app, pygame.K_v)
    assert app.play.field_species is None


def test_heat_fades_over_about_ten_seconds_as_documented(make_app):
    """One expansion's mark is still drawn after a few seconds and gone after ten (README: "fading over about 10 s")."""
    app = make_app("maps/tutorial.yaml", counts={"cow": 0, "bird": 0, "water": 1})
    ins = app.instruments
    ins.enable_heat(True)
    ins.heat[5, 5] = 1.0  # one expansion, just now
    drawn = []
    for frame in range(60 * 12):
        ins.after_step(STEP)  # the simulation advances; nothing new is searched here
        if frame + 1 in (60 * 3, 60 * 5, 60 * 10, 60 * 12):
            _rgb, alpha = fields.heat_colours(ins.heat)
            drawn.append(alpha[5, 5] > 0)
    assert drawn == [True, True, False, False]


def test_heat_map_counts_the_expansions(make_app):
    app = make_app("maps/island.yaml")
    press(app, pygame.K_x)
    assert app.instruments.heat is not None
    app.instruments.heat[...] = 0
    app.frame(STEP)
    decay = math.exp(-STEP / HEAT_TIME_S)
    assert app.instruments.heat.sum() == pytest.approx(app.sim.stats.expanded * decay, rel=1e-5)
    for _ in range(120):
        app.frame(STEP)
    assert app.instruments.heat.max() > 1
    press(app, pygame.K_x)
    assert app.instruments.heat is None


def test_a_screenshot_of_each_mode_differs_from_the_plain_map(make_app):
    app = make_app("maps/island.yaml")
    for _ in range(120):
        app.frame(STEP)
    i = searched_walker(app)
    press(app, pygame.K_SPACE)
    plain = shot(app)

    def differs(img, least=2000):
        return int((np.abs(img.astype(int) - plain.astype(int)).sum(axis=2) > 30).sum()) >= least

    app.play.select(i)
    assert differs(shot(app))
    app.play.select(None)
    press(app, pygame.K_v)
    assert differs(shot(app), 50_000)
    press(app, pygame.K_v), press(app, pygame.K_v), press(app, pygame.K_v)
    app.instruments.enable_heat(True)
    app.user_paused = False
    for _ in range(60):
        app.frame(STEP)
    app.user_paused = True
    assert differs(shot(app))
    app.instruments.enable_heat(False)
    press(app, pygame.K_c)
    sp = app.sim.species[app.top.cmp.species]
    start, goal = far_cells(sp)
    click(app, start)
    click(app, goal)
    assert differs(shot(app), 50_000)


def test_birds_paths_are_pulled_straight_at_the_same_cost_and_compare_shows_both(make_app):
    app = make_app("maps/archipelago.yaml", counts={"cow": 0, "bird": 60, "water": 0})
    for _ in range(120):
        app.frame(STEP)
    bird = app.sim.species[1]
    a, w = app.sim.agents, app.sim.world.width
    walking = np.flatnonzero((a.state == State.WALKING) & (a.searches > 0))
    assert walking.size > 10
    lines = 0
    for i in walking:
        path = [(int(c % w), int(c // w)) for c in a.paths[i, : a.path_len[i]]]
        ref = bird.grid.search(path[0], path[-1], diagonal=bird.astar.diagonal)
        # the walked path is legal, as cheap as A*'s, and A*'s path pulled straight
        assert path_cost(np.array(bird.costs), path, bird.astar.diagonal) == pytest.approx(ref.cost, rel=1e-9)
        cells, ways = bird.grid.smooth_path(ref.path, diagonal=bird.astar.diagonal)
        assert pts(cells) == path
        if len(ways) == 2:  # one straight line: every cell within half a cell of it
            lines += 1
            (x0, y0), (x1, y1) = ways
            d = np.abs((x1 - x0) * (np.array(path)[:, 1] - y0) - (y1 - y0) * (np.array(path)[:, 0] - x0))
            assert (d / max(np.hypot(x1 - x0, y1 - y0), 1) <= 0.5 + 1e-9).all()
    assert lines > walking.size // 3  # over the sea most flights are one straight line
    press(app, pygame.K_c)
    press(app, pygame.K_2)  # birds
    start, goal = far_cells(bird)
    click(app, start)
    click(app, goal)
    a_star = app.top.cmp.runs[2]
    assert (
        tuple(a_star.straight[0]) == start
        and tuple(a_star.straight[-1]) == goal
        and len(a_star.straight) < len(a_star.result.path)
    )
    app.top.cmp.step = app.top.cmp.longest
    app.frame(STEP)


def test_a_compare_panels_figures_fit_its_width():
    """The figures line of a compare panel takes narrower gaps rather than running past the
    panel's edge (seen in a window at 1280 px: the timing was cut off)."""
    from sim.view.draw.panels import Text
    from sim.view.draw.search_views import fit_words

    pygame.font.init()
    font = Text().font(13)
    words = ["expanded 2950/4415", "cost 66.45", "length 59", "1.22 ms"]
    wide = fit_words(words, font, 2000)
    assert wide == "   ".join(words)
    snug = font.size("  ".join(words))[0]
    assert fit_words(words, font, snug) == "  ".join(words)
    assert fit_words(words, font, snug - 1) == " ".join(words)
    assert fit_words(words, font, 10) == " ".join(words)  # too narrow for any: the panel clips it


@pytest.mark.parametrize("size", [(1000, 640), (1280, 800), (1400, 900)])
def test_every_compare_panels_text_fits_in_the_windows_users_have(size):
    """Seven panels (JPS+ joined): at every window size the panels' figures and notes (the
    longest a query can print) stay inside them, on at most two lines."""
    from sim.instruments.compare import StrategyRun, strategies
    from sim.pathfinding import SearchResult
    from sim.view.draw.panels import Text
    from sim.view.draw.search_views import panel_grid, panel_lines

    pygame.font.init()
    font = Text().font(13)
    w, h = size
    n = len(strategies(2.0))
    assert n == 7
    cols, rows = panel_grid(n, w - 16, h - 150)  # the header above and the bars below take ~150 px
    width = (w - 16) // cols - 8 - 12
    assert cols * rows >= n and (h - 150) // rows >= 120  # room for a map under the text
    figures = ["expanded 99999/99999", "cost 9999.99", "length 9999", "9999.99 ms"]
    empty = np.zeros((1, 1), np.int32)
    plain = StrategyRun("A*", "astar", 1.0, SearchResult(True, [], 1.0, 1), 1.0, empty, empty[0])
    refused = StrategyRun("JPS+ (jump table)", "jps+", 1.0, SearchResult(False, [], math.inf, 0), 0.0, empty,
                          empty[0], note="not applicable here: needs diagonal rule no-corner-cutting")  # fmt: skip
    for run in (plain, refused):
        lines = panel_lines(run, figures, font, width)
        assert len(lines) <= 2 and all(font.size(line)[0] <= width for line in lines), (size, lines)


def test_compare_calls_each_strategys_kernel_before_its_clock(monkeypatch):
    """A kernel's first call in a process loads it from numba's cache (15-150 ms): compare mode
    makes that call untimed, on a tiny grid, once per strategy and options, so a panel's time
    is its search's. The timed search is the real grid's, after the tiny one."""
    monkeypatch.setattr(compare, "_WARMED", set())
    calls: list[tuple[int, str]] = []
    search, field = PathGrid.search, PathGrid.distance_field

    def logged_search(grid, *args, **kw):
        calls.append((grid.width, kw["options"].algorithm if "options" in kw else kw["algorithm"]))
        return search(grid, *args, **kw)

    def logged_field(grid, *args, **kw):
        calls.append((grid.width, "field"))
        return field(grid, *args, **kw)

    monkeypatch.setattr(PathGrid, "search", logged_search)
    monkeypatch.setattr(PathGrid, "distance_field", logged_field)
    costs = np.ones((20, 30))
    costs[5:15, 12] = 0.0
    cmp = compare.Comparison(species=0, start=(2, 10), goal=(27, 10))
    cmp.run(PathGrid(costs))
    for algorithm in ("dijkstra", "greedy", "astar", "jps", "jps+", "field"):
        mine = [w for w, a in calls if a == algorithm]
        assert mine[0] == 3 and 30 in mine[1:], (algorithm, mine)  # the tiny grid first, then the real one
    calls.clear()
    cmp.run(PathGrid(costs))
    assert all(w == 30 for w, _a in calls)  # warmed once per process


def test_compare_mode_shows_astar_with_landmarks(make_app):
    """E cycles the heuristic on to "landmarks": A* keeps Dijkstra's cost and expands fewer cells
    than with the octile distance; the jump point searches get no panel, and the header says why."""
    app = make_app("maps/fortress.yaml", counts={"cow": 10, "bird": 10, "water": 10})
    cmp, _sp, _start, _goal = compare_far_query(app, pygame.K_2)  # birds
    octile = {r.label: r.result for r in cmp.runs}
    while cmp.heuristic != "landmarks":
        press(app, pygame.K_e)
    runs = {r.label: r.result for r in cmp.runs}
    assert runs["A*"].cost == pytest.approx(runs["Dijkstra"].cost) == pytest.approx(octile["A*"].cost)
    assert runs["A*"].expanded < octile["A*"].expanded
    assert cmp.left_out[0] == "JPS has its own heuristic (landmarks: A* and greedy only; E)"
    assert not any(label.startswith("JPS") for label in runs)


def test_the_heat_maps_colours_are_the_ramps_and_a_window_coloured_alone_is_the_same():
    """Drawn each frame for the cells on screen only (a 2048x2048 map's heat map, coloured whole, took
    280 ms a frame) and through a 256-step table of the ramp: the window's colours are the whole map's
    at those cells, and each is the ramp's own colour within one step."""
    heat = (np.random.default_rng(3).random((60, 90)) ** 4 * 40).astype(np.float32)
    heat[heat < 0.2] = 0
    rgb, alpha = fields.heat_colours(heat)
    win_rgb, win_alpha = fields.heat_colours(heat[10:40, 20:70], float(heat.max()))
    assert np.array_equal(win_rgb, rgb[10:40, 20:70]) and np.array_equal(win_alpha, alpha[10:40, 20:70])
    scale = np.log1p(heat.astype(np.float64)) / np.log1p(float(heat.max()))
    assert np.abs(rgb.astype(int) - fields.ramp(scale)).max() <= 2  # (a channel moves at most ~1.4 a step)
    assert np.array_equal(alpha > 0, heat > 0.05) and alpha.max() <= 240 and alpha[heat > 0.05].min() >= 70


def test_a_comparisons_region_is_every_cell_a_strategy_touched_and_follows_the_query():
    """Made with the runs (not found again every frame): the cells any strategy touched or the
    endpoints, padded by 3 within the grid; a new query has its own; no query, none."""
    costs = np.ones((20, 30))
    costs[5:15, 12] = 0.0
    grid = PathGrid(costs)
    cmp = compare.Comparison(species=0, start=(2, 10), goal=(27, 10))
    for start, goal in (((2, 10), (27, 10)), ((25, 2), (28, 3))):
        cmp.start, cmp.goal = start, goal
        cmp.run(grid)
        ys, xs = np.nonzero(np.any([r.record != 0 for r in cmp.runs], axis=0))
        xs, ys = np.append(xs, [start[0], goal[0]]), np.append(ys, [start[1], goal[1]])
        want = (max(0, xs.min() - 3), max(0, ys.min() - 3), min(30, xs.max() + 4), min(20, ys.max() + 4))
        assert cmp.region == tuple(int(v) for v in want), (start, goal)
    cmp.clear()
    assert cmp.region is None


@pytest.mark.parametrize("depth", [32, 24])
def test_an_overlay_surface_has_its_colours_and_the_screens_channel_order(depth):
    # A per-cell overlay (heat map, cost field, a herd's field, the learn view) whose channels sat
    # where the screen's did not was blended pixel by pixel: 11.5 ms a full screen instead of 0.25.
    from sim.view.draw.search_views import cells_surface

    screen = pygame.Surface((16, 16), 0, depth)
    rgb = np.array([[[10, 20, 30], [200, 100, 0]], [[0, 0, 255], [7, 8, 9]]], np.uint8)
    alpha = np.array([[0, 99], [255, 1]], np.uint8)
    surf = cells_surface(rgb, alpha, screen)
    assert surf.get_size() == (2, 2)
    for y in range(2):
        for x in range(2):
            assert tuple(surf.get_at((x, y))) == (*rgb[y, x], alpha[y, x])
    if depth == 32:
        assert surf.get_shifts()[:3] == screen.get_shifts()[:3]
    del rgb, alpha  # the surface keeps its own pixels
    assert tuple(surf.get_at((1, 0))) == (200, 100, 0, 99)
