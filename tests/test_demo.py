"""The island demo, headless: invariants every frame, painting, keys, screenshots, determinism."""

from __future__ import annotations

import itertools
import json
import math
import subprocess
import sys

import numpy as np
import pygame
import pytest

from sim.config import load_config
from sim.maps import load_map, parse_map
from sim.model.agents import Outcome, State
from sim.model.planner import PARALLEL_ROUND
from sim.simulation import Simulation, species_counts
from sim.world.terrain import Terrain as T
from tests.conftest import ROOT
from tests.helpers import STEP, drag, key, remaining_steps_legal, step_allowed


def check_invariants(sim, last_search_at, log):
    a = sim.agents
    for sp in sim.species:
        mine = np.flatnonzero(a.species == sp.index)
        assert (sp.costs[a.cell[mine, 1], a.cell[mine, 0]] > 0).all(), f"{sp.key} on a cell it may not occupy"
        walking = mine[a.state[mine] == State.WALKING]
        nxt = a.paths[walking, a.path_pos[walking]]
        w = sim.world.width
        assert (sp.costs[nxt // w, nxt % w] > 0).all(), f"{sp.key} walking into a blocked cell"
        # Every step still ahead (from the cell it left) is legal on today's terrain.
        assert remaining_steps_legal(sim, sp, walking), f"{sp.key} path crosses painted terrain"
    queued = np.flatnonzero(a.state == State.QUEUED)
    waiting = sim.queue.items()
    assert sorted(waiting.tolist()) == sorted(queued.tolist()), "queue and QUEUED state disagree"
    assert len(np.unique(waiting)) == len(waiting), "an animal is queued twice"
    for batch in log:
        for j, i in enumerate(batch.agents.tolist()):
            prev = last_search_at.get(i, -math.inf)
            assert batch.time + 1e-9 >= prev + a.cooldown[i], f"animal {i} searched before its cooldown ran out"
            last_search_at[i] = batch.time
            costs = sim.species[batch.species].costs
            for p, q in itertools.pairwise(batch.path(j)):
                assert step_allowed(costs, p, q, sim.config.search.diagonal), f"illegal step {p}->{q}"
    log.clear()


def count_requests(sim) -> np.ndarray:
    """Requests per animal from now on (the queue's push is wrapped to count them)."""
    requests = np.zeros(sim.agents.n, dtype=np.int64)
    push = sim.queue.push

    def counting(agents):
        np.add.at(requests, agents, 1)
        push(agents)

    sim.queue.push = counting
    return requests


def test_headless_run_keeps_every_invariant_every_frame(make_app):
    # A small budget forces requests to wait for later frames.
    app = make_app(seed=42, budget_ms=0.15)
    sim = app.sim
    log = app.instruments.log = []
    last: dict[int, float] = {}
    requests = count_requests(sim)
    waited_frames = 0
    for _ in range(300):
        app.frame(STEP)
        waited_frames += sim.stats.waiting > 0
        check_invariants(sim, last, log)
        # Nothing lost, nothing served twice: each request was served once, or still waits.
        waiting = np.zeros(sim.agents.n, dtype=np.int64)
        waiting[sim.queue.items()] = 1
        assert (requests == sim.agents.searches + waiting).all()
    assert sim.agents.n == 500
    assert waited_frames > 0, "the budget never deferred a request; the test would prove nothing"
    assert sim.totals["searches"] > 500  # every animal searched at least once, most several times


def test_per_frame_budget_bounds_the_searches_in_a_frame(make_app):
    app = make_app(budget_ms=0.05, node_cost_us=1.0, call_cost_us=10.0)
    sim = app.sim
    log = app.instruments.log = []
    deferred = 0
    for _ in range(120):
        line = sim.queue.items().tolist()  # who waits, oldest first; this frame's requests join behind
        push = sim.queue.push
        sim.queue.push = lambda agents, push=push, line=line: (line.extend(np.asarray(agents).tolist()), push(agents))
        app.frame(STEP)
        sim.queue.push = push
        expanded_of = {int(i): int(e) for b in log for i, e in zip(b.agents, b.expanded, strict=True)}
        assert line[: len(expanded_of)] == [i for i in line if i in expanded_of]  # served oldest first
        charged = np.array([10.0 + 1.0 * expanded_of[i] for i in line[: len(expanded_of)]]) / 1000
        # Searches start only while the budget is not spent: all but the last fit in it ...
        assert charged[:-1].sum() < 0.05
        # ... and a frame leaves requests waiting only when its budget really was spent.
        if sim.stats.waiting:
            assert charged.sum() >= 0.05
        deferred += sim.stats.waiting > 0
        log.clear()
    assert deferred > 0


CORRIDOR = """
name: corridor
rows: |
  ##############################
  #............................#
  #............................#
  ###.######################.###
  #............................#
  #............................#
  ##############################
"""


def corridor_map(tmp_path):
    import yaml

    return parse_map(yaml.safe_load(CORRIDOR), tmp_path / "corridor.yaml", CORRIDOR.lstrip("\n"))


def test_painted_wall_across_a_corridor_makes_cows_reroute(make_app, tmp_path):
    app = make_app(corridor_map(tmp_path), counts={"cow": 1, "bird": 0, "water": 0}, cooldown_s=0.0)
    sim = app.sim
    a = sim.agents
    a.cell[0] = a.pos[0] = (2, 1)
    a.goal[0] = (2, 5)
    a.state[0] = State.REPLAN  # plan now
    app.frame(STEP)
    assert a.state[0] == State.WALKING
    first = [(c % 30, c // 30) for c in a.remaining_path(0)]
    assert (3, 3) in first  # through the left gap
    app.play.brush_radius = 0
    drag(app, [(1, 3), (3, 3), (5, 3)])  # wall off the left gap with the mouse
    app.frame(STEP)
    assert sim.world.terrain[3, 3] == T.ROCK
    assert sim.totals["replans"] + sim.stats.replans >= 1
    for _ in range(5):
        app.frame(STEP)
    new = [(c % 30, c // 30) for c in a.remaining_path(0)]
    assert (3, 3) not in new and (26, 3) in new  # round by the right gap
    for _ in range(60 * 30):
        app.frame(STEP)
        if a.state[0] != State.WALKING:
            break
    assert tuple(a.cell[0]) == (2, 5)


def test_animal_left_on_a_blocked_cell_moves_to_the_nearest_free_one(make_app):
    app = make_app("maps/tutorial.yaml", counts={"cow": 5, "bird": 0, "water": 0})
    sim = app.sim
    x, y = sim.agents.cell[0]
    sim.paint(int(x), int(y), 0, T.ROCK)
    nx, ny = sim.agents.cell[0]
    assert (nx, ny) != (x, y) and max(abs(nx - x), abs(ny - y)) == 1
    assert sim.species[sim.agents.species[0]].costs[ny, nx] > 0


def test_goal_in_another_region_fails_without_expanding(make_app, tmp_path):
    app = make_app(corridor_map(tmp_path), counts={"cow": 1, "bird": 0, "water": 0}, cooldown_s=0.0)
    sim = app.sim
    sim.paint(3, 3, 0, T.ROCK)
    sim.paint(26, 3, 0, T.ROCK)  # now top and bottom are separate regions
    log = app.instruments.log = []
    a = sim.agents
    a.cell[0] = a.pos[0] = (5, 1)
    a.goal[0] = (5, 5)
    a.state[0] = State.REPLAN
    app.frame(STEP)
    batch = log[0]
    assert batch.expanded[0] == 0 and batch.outcomes[0] == Outcome.OTHER_REGION
    assert a.last_outcome[0] == Outcome.OTHER_REGION and a.last_expanded[0] == 0
    assert sim.stats.failed == 1


def test_an_animal_with_nowhere_to_go_rests_again_and_the_others_queue(make_app, tmp_path):
    app = make_app(corridor_map(tmp_path), counts={"cow": 2, "bird": 0, "water": 0}, cooldown_s=0.0)
    sim = app.sim
    a = sim.agents
    a.cell[0] = a.pos[0] = (5, 1)
    for dx, dy in itertools.product((-1, 0, 1), repeat=2):  # walled in: its region is its own cell
        if (dx, dy) != (0, 0):
            sim.paint(5 + dx, 1 + dy, 0, T.ROCK)
    assert sim.species[0].regions[1, 5] != 0
    a.state[:] = State.IDLE
    a.idle_until[:] = 0.0
    a.next_search_at[:] = 0.0
    now = sim.time
    sim.planner.request(now)
    rest = sim.species[0].spec.idle_s[1]
    assert a.state[0] == State.IDLE and a.idle_until[0] == pytest.approx(now + rest)
    assert a.state[1] == State.QUEUED and a.requested_at[1] == now
    assert list(sim.planner.queue) == [1]


def test_ready_animals_are_grouped_by_species_in_order():
    from sim.model.planner import _ready

    rng = np.random.default_rng(3)
    n = 400
    state = rng.choice([State.IDLE, State.QUEUED, State.WALKING, State.REPLAN], size=n).astype(np.int8)
    idle_until, next_search_at = rng.random(n), rng.random(n)
    herd = (rng.random(n) < 0.1).astype(np.int16)
    species = rng.integers(0, 3, n).astype(np.int8)
    rows, idle_at, bounds = _ready(n, 0.5, state, idle_until, next_search_at, herd, species, 3)
    want = [i for i in range(n) if next_search_at[i] <= 0.5 and herd[i] == 0
            and (state[i] == State.REPLAN or (state[i] == State.IDLE and idle_until[i] <= 0.5))]  # fmt: skip
    assert rows.tolist() == want
    for s in range(3):
        mine = idle_at[bounds[s] : bounds[s + 1]]
        assert rows[mine].tolist() == [i for i in want if state[i] == State.IDLE and species[i] == s]


def test_keys(make_app):
    app = make_app("maps/tutorial.yaml")
    sim = app.sim
    n = sim.agents.n
    key(pygame.K_PLUS)
    app.frame(STEP)
    assert sim.agents.n == n + 50
    key(pygame.K_MINUS)
    key(pygame.K_MINUS)
    app.frame(STEP)
    assert sim.agents.n == n - 50
    key(pygame.K_SPACE)
    app.frame(STEP)
    t = sim.time
    app.frame(STEP)
    assert app.paused and sim.time == t
    key(pygame.K_SPACE)
    key(pygame.K_4)
    key(pygame.K_RIGHTBRACKET)
    key(pygame.K_p)
    key(pygame.K_F3)
    key(pygame.K_h)
    app.frame(STEP)
    play = app.play
    assert (play.brush, play.brush_radius, play.show_paths, app.show_overlay, app.show_help) == (T.GRASS, 2, 1, 1, 1)
    key(pygame.K_ESCAPE)  # closes help first
    app.frame(STEP)
    assert app.running and not app.show_help
    sim.paint(20, 12, 3, T.ROCK)
    key(pygame.K_r)
    app.frame(STEP)
    assert not (sim.world.terrain == sim.world.original).all()  # unsaved painting: R asks first
    key(pygame.K_RETURN)
    app.frame(STEP)
    assert (sim.world.terrain == sim.world.original).all()
    key(pygame.K_ESCAPE)  # closes the paths view (P), the innermost thing open
    app.frame(STEP)
    assert app.running and not play.show_paths
    key(pygame.K_ESCAPE)  # the plain play screen: asks
    app.frame(STEP)
    assert app.running
    key(pygame.K_ESCAPE)  # Esc again: quits
    app.frame(STEP)
    assert not app.running


def test_pan_and_zoom(make_app):
    app = make_app("maps/archipelago.yaml", counts={"cow": 10, "bird": 10, "water": 10})
    cam = app.cam
    assert cam.tile == cam.fit_tile()  # every map opens fitted: the whole map shows
    c0, r0, c1, r1 = cam.visible_cells()
    assert (c0, r0, c1, r1) == (0, 0, cam.world_w, cam.world_h)
    tile = cam.tile
    px, py = cam.to_screen(cam.world_w / 2, cam.world_h / 2)  # the map's centre: zooming there never clamps
    pygame.event.post(pygame.event.Event(pygame.MOUSEMOTION, pos=(int(px), int(py)), rel=(0, 0), buttons=(0, 0, 0)))
    under = cam.cell_at(int(px), int(py))
    for _ in range(3):
        pygame.event.post(pygame.event.Event(pygame.MOUSEWHEEL, x=0, y=1, flipped=False))
    app.frame(STEP)
    assert cam.tile > tile
    assert cam.cell_at(int(px), int(py)) == pytest.approx(under, abs=1 / tile)
    x0 = cam.x
    pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_RIGHT, mod=0))
    for _ in range(10):
        app.frame(STEP)
    pygame.event.post(pygame.event.Event(pygame.KEYUP, key=pygame.K_RIGHT, mod=0))
    app.frame(STEP)
    assert cam.x > x0
    x1 = cam.x
    pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=(200, 200), button=2))
    pygame.event.post(pygame.event.Event(pygame.MOUSEMOTION, pos=(300, 200), rel=(100, 0), buttons=(0, 1, 0)))
    pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONUP, pos=(300, 200), button=2))
    app.frame(STEP)
    assert cam.x == pytest.approx(x1 - 100)  # dragged right: the view moves left
    for _ in range(20):  # zooming out stops where the whole map shows
        pygame.event.post(pygame.event.Event(pygame.MOUSEWHEEL, x=0, y=-1, flipped=False))
    app.frame(STEP)
    assert cam.tile == cam.fit_tile()
    cam.zoom_to(16)
    key(pygame.K_HOME)
    app.frame(STEP)
    assert cam.tile == cam.fit_tile() and cam.visible_cells() == (0, 0, cam.world_w, cam.world_h)


def test_right_button_restores_the_original_terrain(make_app):
    app = make_app("maps/tutorial.yaml", counts={"cow": 0, "bird": 0, "water": 1})
    sim = app.sim
    cells = [(x, 12) for x in range(14, 26)]
    before = sim.world.terrain.copy()
    drag(app, cells, button=1)
    app.frame(STEP)
    assert (sim.world.terrain[12, 14:26] == T.ROCK).all()
    drag(app, cells, button=3)
    app.frame(STEP)
    assert (sim.world.terrain == before).all()


def test_screenshot_key_writes_a_png_that_is_not_one_flat_colour(make_app, tmp_path):
    app = make_app()
    app.frame(STEP)
    key(pygame.K_F12)
    app.frame(STEP)
    shots = list((tmp_path / "shots").glob("*.png"))
    assert len(shots) == 1
    img = pygame.surfarray.array3d(pygame.image.load(str(shots[0])))
    assert img.shape[:2] == app.screen.get_size()
    assert len(np.unique(img.reshape(-1, 3), axis=0)) > 20


def test_every_shipped_map_runs(make_app):
    for name in ("island", "tutorial", "river", "fortress", "archipelago"):
        app = make_app(f"maps/{name}.yaml", counts={"cow": 30, "bird": 30, "water": 30})
        sim = app.sim
        log = app.instruments.log = []
        last: dict[int, float] = {}
        start = sim.agents.pos.copy()
        for _ in range(200):  # first requests are spread over up to 2.5 s
            app.frame(STEP)
            check_invariants(sim, last, log)
        assert sim.agents.n == 90
        assert (sim.agents.searches > 0).mean() >= 0.95, name  # (nearly) every animal has asked for a path
        assert (np.abs(sim.agents.pos - start).max(axis=1) > 0.5).sum() >= 45, name  # and most of them walked it


def run_main(*args, timeout=240):
    return subprocess.run(
        [sys.executable, str(ROOT / "main.py"), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=ROOT,
        env={**__import__("os").environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"},
    )


def test_same_seed_same_checksum_and_json_figures(tmp_path):
    out = [
        run_main("--headless", "--frames", "150", "--agents", "300", "--seed", s, "--json", str(tmp_path / f"{i}.json"))
        for i, s in enumerate(("7", "7", "8"))
    ]
    for o in out:
        assert o.returncode == 0, o.stderr
    sums = [next(line for line in o.stdout.splitlines() if line.startswith("checksum:")) for o in out]
    assert sums[0] == sums[1] != sums[2]
    figures = json.loads((tmp_path / "0.json").read_text())
    for k in (
        "frames",
        "agents",
        "fps",
        "frame_ms_p50",
        "frame_ms_p95",
        "frame_ms_max",
        "search_ms_p50",
        "search_ms_p95",
        "search_ms_max",
        "searches_per_s",
        "expanded_per_s",
        "failed",
        "capped",
        "peak_rss_mb",
        "checksum",
        "series",
    ):
        assert k in figures
    assert figures["frames"] == 150 and figures["agents"] == 300
    assert len(figures["series"]["frame_ms"]) == 150 and figures["checksum"] == sums[0].split()[-1]


def test_every_map_opens_fitted_and_centred():
    from sim.view.camera import Camera

    small = Camera(1280, 800, 40, 25)
    small.start_view()
    assert small.tile == 32 and small.cell_at(640, 400) == pytest.approx((20, 12.5))
    island = Camera(1280, 800, 160, 100)
    island.start_view()
    assert island.tile == 8 and (island.x, island.y) == (0, 0)
    large = Camera(1280, 800, 1024, 768)
    large.start_view()
    assert large.tile == 1 and large.cell_at(640, 400) == pytest.approx((512, 384))
    large.zoom(-3, 640, 400)
    assert large.tile == 1  # never smaller than the fit
    large.resize(640, 400)  # a smaller window: the fit is smaller too
    assert large.tile == 1 and large.fit_tile() == 1


def test_overlay_history_covers_the_last_five_seconds(make_app):
    app = make_app("maps/tutorial.yaml")
    for _ in range(60 * 8):  # 8 s of frames
        app.frame(STEP)
    h = app.instruments.history
    assert h.times[-1] - h.times[0] <= 5.0 and h.times[-1] - h.times[0] >= 5.0 - 2 * STEP
    assert len(h.search_ms) == len(h.times) == pytest.approx(5 * 60, abs=2)
    plain = pygame.surfarray.array3d(app.screen).copy()
    key(pygame.K_F3)
    app.frame(STEP)  # the overlay draws its panel and graph from it
    shown = pygame.surfarray.array3d(app.screen)
    changed = np.abs(shown[:400, :300].astype(int) - plain[:400, :300].astype(int)).sum(axis=2) > 30
    assert changed.mean() > 0.3  # the panel covers the top left corner


@pytest.mark.parametrize("animals", [500, 20000])
def test_overlay_figures_stand_under_their_headings(animals):
    # "water creatures (4000)" is longer than "cows (250)": the columns must not shift with it.
    from sim.view.draw.panels import _species_lines

    config = load_config()
    sim = Simulation(config, load_map(ROOT / "maps" / "island.yaml"), counts=species_counts(config, animals))
    for _ in range(30):
        sim.step(STEP)
    header, *rows = [text for text, _colour in _species_lines(sim)]
    ends = [header.index(word) + len(word) for word in ("searches", "expanded", "ms", "failed", "capped")]
    for sp, row in zip(sim.species, rows, strict=True):
        c = sim.stats.per_species.get(sp.key)
        figures = (0, 0, "0.00", 0, 0) if c is None else (c.searches, c.expanded, f"{c.ms:.2f}", c.failed, c.capped)
        assert row.startswith(f"{sp.label} ({int((sim.agents.species == sp.index).sum())})")
        for end, value in zip(ends, figures, strict=True):
            assert row[:end].endswith(f" {value}"), (row, value)  # right-aligned under its heading


def test_cooldowns_spread_by_half_either_way(make_app):
    app = make_app("maps/island.yaml", cooldown_s=1.0, cooldown_jitter=0.5)
    c = app.sim.agents.cooldown
    assert (c >= 0.5).all() and (c <= 1.5).all()
    assert c.min() < 0.55 and c.max() > 1.45 and abs(np.median(c) - 1.0) < 0.1  # spread over the whole range
    assert len(np.unique(np.round(c, 3))) > 300  # per animal, not per species


def test_the_wall_clock_budget_charges_what_searches_really_take(make_app, monkeypatch):
    # Live mode: each round is charged its measured time. Searches made to take 4 ms each
    # against a 3 ms budget: one round per frame, then the rest wait for the next frame.
    import time as _time

    import sim.model.planner as planner

    app = make_app("maps/tutorial.yaml", counts={"cow": 150, "bird": 50, "water": 0}, budget_ms=3.0)
    sim = app.sim
    sim.budget.clock = "wall"
    app.frame(STEP)
    a = sim.agents
    a.state[:] = State.IDLE  # everybody asks at once: far more than one round
    a.idle_until[:] = a.next_search_at[:] = 0.0

    def slowed(real):
        def slow(*args):
            _time.sleep(0.004)
            return real(*args)

        return slow

    monkeypatch.setattr(planner, "_job", slowed(planner._job))  # a species served on its own (Python hooks)
    monkeypatch.setattr(planner, "_round", slowed(planner._round))  # a whole round in one call
    rounds = []
    search = planner.Planner._search
    monkeypatch.setattr(planner.Planner, "_search", lambda self, rows, t: rounds.append(1) or search(self, rows, t))
    busy = 0
    for _ in range(10):
        rounds.clear()
        app.frame(STEP)
        if sim.stats.searches:
            assert sim.stats.search_ms >= 4.0  # the time really spent is what was charged
        if sim.stats.waiting:  # requests left over: the budget was spent by the first round
            assert len(rounds) == 1 and sim.stats.searches < 200
            busy += 1
    assert busy >= 2


def test_a_capped_search_sends_the_animal_along_its_partial_path(make_app):
    app = make_app("maps/fortress.yaml", counts={"cow": 40, "bird": 0, "water": 0}, max_nodes=8)
    sim = app.sim
    a = sim.agents
    for _ in range(240):
        app.frame(STEP)
        capped = np.flatnonzero((a.last_outcome == Outcome.CAPPED) & (a.state == State.WALKING))
        if capped.size:
            break
    assert capped.size, "no search hit max_nodes: the test would prove nothing"
    i = int(capped[0])
    w = sim.world.width
    end = int(a.paths[i, a.path_len[i] - 1])
    assert (end % w, end // w) != tuple(a.goal[i])  # it walks toward the goal, not to it
    for _ in range(600):
        app.frame(STEP)
        if a.state[i] != State.WALKING or a.last_outcome[i] != Outcome.CAPPED:
            break
    assert (a.cell[i, 0], a.cell[i, 1]) == (end % w, end // w)  # and gets to the end of the partial path


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_painting_during_the_run_never_breaks_an_invariant(make_app, seed):
    app = make_app("maps/river.yaml", seed=seed, cooldown_s=0.2)
    sim = app.sim
    log = app.instruments.log = []
    rng = np.random.default_rng(seed)
    last: dict[int, float] = {}
    h, w = sim.world.terrain.shape
    for frame in range(240):
        if frame % 4 == 0:  # a paint stroke every few frames: any terrain, or restore
            x, y = int(rng.integers(w)), int(rng.integers(h))
            terrain = None if rng.random() < 0.3 else int(rng.integers(7))
            radius = int(rng.integers(0, 4))
            sim.paint(x, y, radius, terrain)
        if frame == 200:
            sim.reset_map()
        app.frame(STEP)
        check_invariants(sim, last, log)
    assert sim.totals["replans"] > 0  # painting really cut across paths


def test_the_first_frames_load_no_compiled_function():
    """The warm-up behind the start-up message loads every compiled function a frame uses
    (engine, model and drawing), so the first frames of a fresh process, painting
    included, do not stall on numba's loading (~60 ms, one frame)."""
    code = """
import os
os.environ["SDL_VIDEODRIVER"] = "dummy"
from pathlib import Path
import numba.core.dispatcher as D
from sim.config import load_config
from sim.maps import load_map, resolve_map
from sim.view.app import App
app = App(load_config(), load_map(resolve_map("island")), maps_dir=Path("maps"), clock="model", headless=True)
loaded = []
original = D.Dispatcher._compile_for_args
def spy(self, *args, **kws):
    loaded.append(self.py_func.__module__ + "." + self.py_func.__name__)
    return original(self, *args, **kws)
D.Dispatcher._compile_for_args = spy
for i in range(120):
    if i == 60:
        app.sim.paint(80, 50, 2, 6)
    app.frame(1 / 60)
print("loaded:", sorted(set(loaded)))
"""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip().splitlines()[-1] == "loaded: []"


def test_the_model_clock_takes_searches_that_start_within_the_budget():
    from sim.model.scheduler import SearchBudget

    budget = SearchBudget(3.0, "model", node_cost_us=10.0, call_cost_us=0.0)  # 100 cells = 1 ms
    expanded = np.array([100, 150, 100, 100, 100])  # 1, 1.5, 1, 1, 1 ms
    assert budget.charge(0.0, expanded, first=True) == (3, 3.5, 1.1)  # the third starts at 2.5 ms: taken
    assert budget.charge(2.9, expanded, first=False)[:2] == (1, 3.9)  # starts at 2.9: taken, then spent
    assert budget.charge(3.0, expanded, first=False)[:2] == (0, 3.0)  # nothing starts on a spent budget
    assert budget.charge(5.0, expanded, first=True)[:2] == (1, 6.0)  # but a frame serves at least one
    assert budget.charge(0.0, np.zeros(0, np.int64), first=True) == (0, 0.0, 0.0)


def test_the_start_rehearsal_leaves_nothing_to_compile_for_a_big_crowd_or_the_search_views():
    # The start-up rehearsal must load every compiled function a frame can use, a crowd's large
    # rounds (cut across the worker threads) and traced rounds (the search views) included, or a
    # first run stalls for seconds in its first frames, compiling (5.8 s once at 20,000 animals).
    code = """
import sys
from pathlib import Path
from numba.core.registry import CPUDispatcher
from sim.config import load_config
from sim.maps import load_map
from sim.model.observe import SearchObserver
from sim.view.app import App

def overloads():
    return {(m, n): len(d.overloads) for m, mod in list(sys.modules.items()) if m.startswith('sim')
            for n, d in vars(mod).items() if isinstance(d, CPUDispatcher)}

app = App(load_config('config.yaml'), load_map('maps/island.yaml'), maps_dir=Path('maps'), headless=True, clock='model',
          counts={'cow': 1200, 'bird': 800, 'water': 400})
before = overloads()
planner = app.sim.planner
planner.threads = 2
rounds = []  # (requests, traced) of every round
search = planner._search
planner._search = lambda rows, trace: (rounds.append((rows.size, trace)), search(rows, trace))[1]
for _ in range(8):  # long frames: many rests run out at once
    app.frame(1.0)

class Tracing(SearchObserver):
    wants_trace = True
    listening = True
    batches = 0
    def searched(self, batch):
        Tracing.batches += 1

app.sim.observer = Tracing()
for _ in range(120):
    app.frame(1 / 60)
after = overloads()
big = max(k for k, traced in rounds if not traced)
print(Tracing.batches, big)
print(sorted(k for k in after if after[k] != before.get(k, 0)))
"""
    r = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
        env={**__import__("os").environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"},
    )
    assert r.returncode == 0, r.stderr
    counts, compiled = r.stdout.strip().splitlines()[-2:]
    traced, big = map(int, counts.split())
    assert traced > 0 and big >= PARALLEL_ROUND  # both kinds of round really ran
    assert compiled == "[]"
