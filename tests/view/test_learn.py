"""The learn view (E): a search stepped through on the real map, the engine's own; drags re-run it;
"copy as code" gives a script that prints what the screen shows. And compare mode's drags."""

from __future__ import annotations

import contextlib
import io

import numpy as np
import pygame
import pytest

from sim.pathfinding import PathGrid, find_path
from sim.view.modes.learn import MIN_TILE
from tests.helpers import click, learn_query, open_learn, press, resize

STEP = 1 / 60


def post(t, **kw):
    pygame.event.post(pygame.event.Event(t, **kw))


def mouse_drag(app, cells, button=1, frames_between=1):
    """Press on the first cell, move through the others (a frame after each), release on the last."""
    pts = [tuple(int(v) for v in app.cam.to_screen(x, y)) for x, y in cells]
    held = tuple(int(button == b) for b in (1, 2, 3))
    post(pygame.MOUSEBUTTONDOWN, pos=pts[0], button=button, mod=0)
    app.frame(STEP)
    prev = pts[0]
    for p in pts[1:]:
        post(pygame.MOUSEMOTION, pos=p, rel=(p[0] - prev[0], p[1] - prev[1]), buttons=held)
        prev = p
        for _ in range(frames_between):
            app.frame(STEP)
    post(pygame.MOUSEBUTTONUP, pos=pts[-1], button=button, mod=0)
    app.frame(STEP)


def learn_a_query(make_app):
    """The island's learn view with a cow's query clicked in: ``(app, mode, species, start, goal)``."""
    app = make_app("maps/island.yaml", counts={"cow": 10, "bird": 5, "water": 5})
    mode = open_learn(app)
    sp = app.sim.species[mode.species]
    start, goal = learn_query(sp)
    click(app, start)
    click(app, goal)
    return app, mode, sp, start, goal


def test_the_learn_view_replays_the_engines_search_step_by_step(make_app):
    app, mode, sp, start, goal = learn_a_query(make_app)
    les = mode.lesson
    assert (les.start, les.goal) == (start, goal) and les.playing
    assert app.cam.tile >= MIN_TILE  # zoomed so a cell can be read
    ref = sp.grid.search(start, goal, diagonal=les.diagonal)
    assert les.total == ref.expanded
    press(app, pygame.K_SPACE)  # pause
    press(app, pygame.K_HOME)
    for k in range(1, 6):
        press(app, pygame.K_RIGHT)
        state = mode.state()
        assert state.step == k == int(state.closed.sum())
        same = sp.grid.search_state(start, goal, k, diagonal=les.diagonal)
        assert np.array_equal(state.order, same.order) and state.current == same.current and state.next == same.next
        assert np.array_equal(state.g, same.g) and np.array_equal(state.open, same.open)
    press(app, pygame.K_LEFT)
    assert mode.state().step == 4
    press(app, pygame.K_END)
    state = mode.state()
    assert state.done and state.status == "found" and state.result.cost == ref.cost
    assert np.array_equal(state.result.path, ref.path)
    # Every strategy: the same counts as the engine gives for it
    for n in range(1, 7):
        press(app, pygame.K_0 + n)
        assert app.messages.shown().text.startswith(f"{les.label}:")  # the hint names what now runs
        les.to_end()
        state = mode.state()
        if les.algorithm == "field":
            field = sp.grid.distance_field(goal, diagonal=les.diagonal)
            assert state.result.cost == float(field[start[1], start[0]]) == pytest.approx(ref.cost)
            assert state.closed[start[1], start[0]]  # grown until it settles the start
        else:
            o = les.options
            r = sp.grid.search(start, goal, algorithm=o.algorithm, weight=o.weight, diagonal=o.diagonal)
            assert (state.total, state.result.cost) == (r.expanded, r.cost), les.label
        app.frame(STEP)
        assert app.plan.has("learn") and app.plan.has("legend")  # the panel and its key are on screen


def test_dragging_the_goal_reruns_and_shows_the_finished_search_then_steps_again(make_app):
    app, mode, sp, start, goal = learn_a_query(make_app)
    les = mode.lesson
    # press on G, move it cell by cell: while held, each position shows its finished search
    pts = [goal]
    step = next(d for d in ((-1, 0), (1, 0), (0, -1), (0, 1)) if sp.grid.passable(goal[0] + d[0], goal[1] + d[1]))
    for k in (1, 2, 3):
        cell = (goal[0] + k * step[0], goal[1] + k * step[1])
        if not sp.grid.passable(*cell) or not sp.grid.search(start, cell).found:
            break
        pts.append(cell)
    screen = [tuple(int(v) for v in app.cam.to_screen(x, y)) for x, y in pts]
    post(pygame.MOUSEBUTTONDOWN, pos=screen[0], button=1, mod=0)
    app.frame(STEP)
    assert mode.drag == "goal"
    for cell, p in zip(pts[1:], screen[1:], strict=True):
        post(pygame.MOUSEMOTION, pos=p, rel=(1, 0), buttons=(1, 0, 0))
        app.frame(STEP)
        assert les.goal == cell
        state = mode.state()
        assert state.done and state.total == sp.grid.search(start, cell).expanded  # the finished search
    post(pygame.MOUSEBUTTONUP, pos=screen[-1], button=1, mod=0)
    app.frame(STEP)
    assert mode.drag is None and les.playing and mode.state().step <= 1  # stepping starts again


def test_painting_a_wall_reruns_and_undo_brings_the_search_back(make_app):
    app, mode, sp, start, goal = learn_a_query(make_app)
    before = mode.lesson.total
    path = sp.grid.search(start, goal).path
    cut = [tuple(int(v) for v in path[len(path) // 2 + d]) for d in (-1, 0, 1)]
    mouse_drag(app, cut)
    assert all(not sp.grid.passable(*c) for c in cut)  # walls where the path ran
    now = sp.grid.search(start, goal)
    state = mode.state()
    assert mode.lesson.total == now.expanded and np.array_equal(state.result.path, now.path)
    assert not {tuple(int(v) for v in p) for p in state.result.path} & set(cut)  # around the wall
    assert not any(state.closed[y, x] or state.open[y, x] for x, y in cut)  # never opened: walls
    press(app, pygame.K_z, pygame.KMOD_CTRL)  # undo the stroke
    app.frame(STEP)
    assert all(sp.grid.passable(*c) for c in cut) and mode.lesson.total == before


def test_opening_on_a_selected_animal_takes_itslearn_query(make_app):
    app = make_app("maps/island.yaml", counts={"cow": 30, "bird": 0, "water": 0})
    for _ in range(120):
        app.frame(STEP)
    a = app.sim.agents
    walking = [i for i in range(len(a.species)) if min(a.goal[i]) >= 0 and tuple(a.goal[i]) != tuple(a.cell[i])]
    assert walking
    i = walking[0]
    app.play.select(i)
    press(app, pygame.K_e)
    les = app.top.lesson
    assert les.start == tuple(int(v) for v in a.cell[i]) and les.goal == tuple(int(v) for v in a.goal[i])


def test_copy_as_code_prints_a_script_that_gives_what_the_screen_shows(make_app, tmp_path):
    app = learn_a_query(make_app)[0]
    press(app, pygame.K_SPACE)
    for _ in range(4):
        press(app, pygame.K_RIGHT)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        press(app, pygame.K_k)
    code = out.getvalue()
    assert "grid.search(" in code and "grid.search_state(" in code
    assert any(code.rstrip("\n") == m.text for m in app.messages)  # in the F2 log too
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(code, "snippet", "exec"), {})
    got = printed.getvalue().splitlines()
    said = [line.split("# on screen: ")[1] for line in code.splitlines() if "# on screen: " in line]
    assert [g.replace("(", "").replace(")", "").replace(",", "") for g in got] == \
        [s.replace("(", "").replace(")", "").replace(",", "") for s in said]  # fmt: skip


def test_compare_drags_rerun_every_strategy_and_show_a_bar_chart(make_app):
    app = make_app("maps/island.yaml", counts={"cow": 10, "bird": 5, "water": 5})
    app.frame(STEP)
    press(app, pygame.K_c)
    mode = app.top
    sp = app.sim.species[mode.cmp.species]
    start, goal = learn_query(sp, 10)
    click(app, start)
    click(app, goal)
    cmp = mode.cmp
    app.frame(STEP)
    assert app.plan.has("compare")
    header = next(p for p in app.plan.placed if p.name == "compare").lines
    assert any("cells expanded" in line and "path cost" in line for line in header)  # the bar chart
    panel = mode.panels[0]

    def at(cell):
        x = panel.place.x + (cell[0] - panel.region[0] + 0.5) * panel.scale
        y = panel.place.y + (cell[1] - panel.region[1] + 0.5) * panel.scale
        return int(x), int(y)

    new_goal = next(
        (goal[0] + dx, goal[1] + dy)
        for dx, dy in ((1, 0), (0, 1), (-1, 0), (0, -1), (1, 1))
        if sp.grid.passable(goal[0] + dx, goal[1] + dy)
    )
    post(pygame.MOUSEBUTTONDOWN, pos=at(goal), button=1, mod=0)
    app.frame(STEP)
    post(pygame.MOUSEMOTION, pos=at(new_goal), rel=(1, 1), buttons=(1, 0, 0))
    app.frame(STEP)
    assert cmp.goal == new_goal and cmp.done  # every strategy ran again, shown finished
    costs = np.array(sp.costs)
    for run in cmp.runs:
        if run.algorithm != "field":
            ref = find_path(costs, start, new_goal, algorithm=run.algorithm, weight=run.weight, diagonal=cmp.diagonal,
                            heuristic=cmp.heuristic)  # fmt: skip
            assert (run.result.expanded, run.result.cost) == (ref.expanded, ref.cost), run.label
    post(pygame.MOUSEBUTTONUP, pos=at(new_goal), button=1, mod=0)
    app.frame(STEP)
    assert cmp.playing and not cmp.done  # released: the replay starts again
    # a drag from an empty cell paints walls, and every strategy runs again on them
    path = cmp.runs[2].result.path  # A*'s
    panel = mode.panels[0]  # (re-laid out for the new query)
    a, b = (tuple(int(v) for v in path[len(path) // 2 + d]) for d in (0, 1))
    revision = app.sim.world.revision
    post(pygame.MOUSEBUTTONDOWN, pos=at(a), button=1, mod=0)
    app.frame(STEP)
    post(pygame.MOUSEMOTION, pos=at(b), rel=(1, 1), buttons=(1, 0, 0))
    app.frame(STEP)
    post(pygame.MOUSEBUTTONUP, pos=at(b), button=1, mod=0)
    app.frame(STEP)
    assert app.sim.world.revision != revision and not sp.grid.passable(*a) and not sp.grid.passable(*b)
    grid = PathGrid(np.array(sp.costs))
    assert cmp.runs[2].result.expanded == grid.search(start, new_goal, diagonal=cmp.diagonal,
                                                      heuristic=cmp.heuristic).expanded  # fmt: skip


def test_compare_figures_are_a_median_of_calls_with_nothing_compiled_inside_the_clock():
    """The figure a panel shows first is what a re-run shows (within the machine's noise): the
    grid's data and the kernel are made before the clock and the time is a median of calls."""
    from sim.instruments.compare import Comparison

    costs = np.ones((60, 80))
    costs[10:50, 40] = 0.0
    first = Comparison(species=0, start=(2, 30), goal=(77, 30))
    grid = PathGrid(costs)
    first.run(grid)
    again = Comparison(species=0, start=(2, 30), goal=(77, 30))
    again.run(grid)
    for a, b in zip(first.runs, again.runs, strict=True):
        assert (a.result.expanded, a.result.cost) == (b.result.expanded, b.result.cost)
        assert a.runs >= 3 and a.clean and b.clean  # medians, and no call in the clock compiled


def test_astar_with_landmarks_is_a_strategy_with_its_own_h(make_app):
    """Key 7: the same A*, with H learned from the map: never below the octile H, the same cost,
    fewer cells expanded; "copy as code" says heuristic="landmarks"."""
    app, mode, sp, start, goal = learn_a_query(make_app)
    les = mode.lesson
    press(app, pygame.K_END)
    plain = mode.state()
    press(app, pygame.K_7)
    press(app, pygame.K_END)
    assert les.label == "A* with landmarks"
    learned = mode.state()
    assert learned.result.cost == pytest.approx(plain.result.cost)
    assert learned.result.expanded <= plain.result.expanded
    assert np.all(learned.h >= plain.h - 1e-9)
    assert learned.result.expanded == sp.grid.search(start, goal, heuristic="landmarks").expanded
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        press(app, pygame.K_k)
    assert 'heuristic="landmarks"' in out.getvalue()


def test_the_landmarks_table_is_made_behind_the_progress_screen_once(make_app, monkeypatch):
    """Key 7 makes the landmarks' table as long work (a progress screen in a window: ~5 s on a 2048x2048
    map, where the window stood still), once for the grid as it is, not at every step or drag."""
    app, _mode, sp, _start, _goal = learn_a_query(make_app)
    asked = []
    run = app.files.long_work
    monkeypatch.setattr(app.files, "long_work", lambda label, work: (asked.append(label), run(label, work))[1])
    press(app, pygame.K_7)
    assert asked == ["learning the map's landmarks"]
    assert sp.grid.landmarks() is sp.grid.landmarks()  # made: the grid keeps it
    press(app, pygame.K_END)
    press(app, pygame.K_HOME)
    press(app, pygame.K_1)
    press(app, pygame.K_7)
    assert asked == ["learning the map's landmarks"]  # (the same grid, the same rule: not again)


def test_a_cells_g_h_and_f_never_overlap_at_any_zoom_that_shows_them():
    """At 32 px a cell, "2.5" and "9.3" side by side read as "2.59.3": H then goes a line lower,
    still clear of F and inside the cell (the digits' ink, a pixel apart at least)."""
    from sim.view.draw.learn_view import NUMBERS_AT, label_spots
    from sim.view.draw.panels import Text

    pygame.font.init()
    text = Text()

    def ink(label: str, size: int, at: tuple[int, int]) -> pygame.Rect:
        return text.render(label, (0, 0, 0), size).get_bounding_rect().move(at)

    values = ["0.8", "2.5", "9.3", "12", "140", "1234"]
    for t in range(NUMBERS_AT, 97, 4):
        small, big = max(8, t // 4 - 1), max(10, int(t * 0.34))
        f_label = text.render("12.3", (0, 0, 0), big)
        f_ink = f_label.get_bounding_rect().move(0, t - f_label.get_height())  # (as _numbers places F)
        for gv in values:
            for hv in values:
                gs, hs = text.font(small).size(gv), text.font(small).size(hv)
                g_at, h_at = label_spots(t, gs, hs)
                g_ink, h_ink = ink(gv, small, g_at), ink(hv, small, h_at)
                assert not g_ink.inflate(2, 2).colliderect(h_ink), (t, gv, hv, g_ink, h_ink)
                assert not h_ink.inflate(2, 2).colliderect(f_ink.move(h_ink.x - f_ink.x, 0)), (t, gv, hv)
                assert h_ink.left >= 0 and h_ink.right <= t, (t, gv, hv)


def test_copied_code_is_python_whatever_the_maps_name_and_the_folder_hold(make_app, tmp_path):
    """A map's name went into a comment as it was: a newline in it ended the comment, and what
    followed was code in the printed script; a quote in the folder's name broke the script."""
    import ast

    app, mode = learn_a_query(make_app)[:2]
    app.sim.world.name = "Evil\nraise SystemExit('ran code from a map name')"
    app.screenshot_dir = tmp_path / 'shots "quoted"\\'
    for open_mode in (None, pygame.K_c):
        if open_mode is not None:  # compare mode: the same, for every panel
            press(app, pygame.K_ESCAPE)
            press(app, open_mode)
            click(app, mode.lesson.start)
            click(app, mode.lesson.goal)
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            press(app, pygame.K_k)
        code = out.getvalue()
        assert code.startswith("#") and "np.load(" in code, code[:200]
        tree = ast.parse(code)
        assert not any(isinstance(node, ast.Raise) for node in ast.walk(tree))  # the name stayed in the comment
        with contextlib.redirect_stdout(io.StringIO()):
            exec(compile(tree, "snippet", "exec"), {})  # runs: the costs load from the quoted folder


@pytest.mark.parametrize("size", [(800, 500), (900, 560), (1280, 800)])
def test_what_the_cell_under_the_mouse_says_hides_none_of_the_search(make_app, size):
    """The learn view frames its query left of the right column; the hover panel (the cell under the
    mouse: its G, H, F or why it is not reached) goes in that column where it has room, else at the top
    or the foot of the left column, whichever keeps clear of what the search shows. At the top of the
    left column it had covered the cells around the start of a query as tall as the window."""
    app = make_app("maps/island.yaml", counts={"cow": 10, "bird": 5, "water": 5})
    resize(app, size)
    mode = open_learn(app)
    passable = app.sim.species[mode.species].grid.passable_mask()
    lay, tried, clear = app.plan.layout, 0, 0
    for dy in range(6, 30, 2):  # queries from short to taller than the window
        start = (70, 30)
        goal = next(((x, 30 + dy) for x in range(68, 76) if passable[30 + dy, x]), None)
        if not passable[30, 70] or goal is None:
            continue
        tried += 1
        click(app, start)
        click(app, goal)
        mode.lesson.to_end()
        # (the mouse over the start: a query too tall for the window is framed on it, the goal off screen)
        post(pygame.MOUSEMOTION, pos=tuple(int(v) for v in app.cam.to_screen(*start)), rel=(0, 0), buttons=(0, 0, 0))
        app.frame(STEP)
        hover = next(p.rect for p in app.plan.placed if p.name == "learn-cell")
        state, tile = mode.state(), app.cam.tile
        cells = [pygame.Rect(int(sx - tile / 2), int(sy - tile / 2), tile, tile) for sx, sy in
                 (app.cam.to_screen(int(x), int(y)) for y, x in
                  [*np.argwhere(state.open | state.closed), (start[1], start[0]), (goal[1], goal[0])])]  # fmt: skip
        shown = cells[0].unionall(cells[1:]).clip(lay.map)  # what the search shows, on screen
        top = pygame.Rect(lay.left.x, lay.left.y, hover.w, hover.h)
        foot = pygame.Rect(lay.left.x, lay.left.bottom - hover.h, hover.w, hover.h)
        if hover.x >= lay.right.x or not (top.colliderect(shown) and foot.colliderect(shown)):
            assert not hover.colliderect(shown), (size, dy, hover, shown)
            clear += 1
        else:  # (no place in the left column keeps clear: the top, as before)
            assert hover == top, (size, dy, hover)
        press(app, pygame.K_n)  # a new query
    assert tried >= 6 and clear >= tried // 2, (tried, clear)
