"""The model running in the demo, headless: invariants every frame, the budget, re-routing,
resting, capped searches, painting while it runs, determinism."""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pytest

from sim.maps import parse_map
from sim.model.agents import Outcome, State
from sim.world.terrain import Terrain as T
from tests.helpers import STEP, EdgeHookCow, drag, remaining_steps_legal, run_main, step_allowed


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
    app = make_app(seed=42, budget_ms=0.06)
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
    app.play.painting.brush_radius = 0
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
    from sim.model.agents import Agents
    from sim.model.planner import ready_rows

    rng = np.random.default_rng(3)
    n = 400
    agents = Agents(path_capacity=8)
    agents.add(rng.integers(0, 3, n).astype(np.int8), np.zeros((n, 2), np.int32), np.zeros(n), rng.random(n))
    agents.state[:] = rng.choice([State.IDLE, State.QUEUED, State.WALKING, State.REPLAN], size=n)
    agents.next_search_at[:] = rng.random(n)
    agents.herd[:] = rng.random(n) < 0.1
    state, idle_until, next_search_at, herd, species = (agents.state, agents.idle_until, agents.next_search_at,
                                                        agents.herd, agents.species)  # fmt: skip
    rows, idle_at, bounds = ready_rows(n, 0.5, agents.columns, 3)
    want = [i for i in range(n) if next_search_at[i] <= 0.5 and herd[i] == 0
            and (state[i] == State.REPLAN or (state[i] == State.IDLE and idle_until[i] <= 0.5))]  # fmt: skip
    assert rows.tolist() == want
    for s in range(3):
        mine = idle_at[bounds[s] : bounds[s + 1]]
        assert rows[mine].tolist() == [i for i in want if state[i] == State.IDLE and species[i] == s]


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


def test_cooldowns_spread_by_half_either_way(make_app):
    app = make_app("maps/island.yaml", cooldown_s=1.0, cooldown_jitter=0.5)
    c = app.sim.agents.cooldown
    assert (c >= 0.5).all() and (c <= 1.5).all()
    assert c.min() < 0.55 and c.max() > 1.45 and abs(np.median(c) - 1.0) < 0.1  # spread over the whole range
    assert len(np.unique(np.round(c, 3))) > 300  # per animal, not per species


def test_the_wall_clock_budget_charges_what_searches_really_take(make_app):
    # Live mode: each round is charged its measured time. Cows whose costs come from a Python
    # hook (the original design's per-edge cost: searches of milliseconds) against a 3 ms
    # budget: the rounds of a frame spend it, the rest wait for the next frame. A round's size
    # is an estimate from the searches before it, so a frame may need a second round to spend it.
    app = make_app("maps/tutorial.yaml", counts={"cow": 150, "bird": 0, "water": 0}, budget_ms=3.0)
    sim = app.sim
    cow = sim.species[0]
    cow.astar = EdgeHookCow(sim.world, terrain_costs=cow.astar.terrain_costs)
    sim.budget.clock = "wall"
    app.frame(STEP)
    a = sim.agents
    a.state[:] = State.IDLE  # everybody asks at once: far more than one round
    a.idle_until[:] = a.next_search_at[:] = 0.0
    busy = 0
    for _ in range(10):
        app.frame(STEP)
        if sim.stats.waiting:  # requests left over: the budget was spent by the first round
            assert 1 <= sim.stats.rounds <= 4 and sim.stats.searches < 150
            assert sim.stats.search_ms >= 3.0  # the time really spent is what was charged
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


def test_the_model_clock_takes_searches_that_start_within_the_budget():
    from sim.model.scheduler import SearchBudget

    budget = SearchBudget(3.0, "model", node_cost_us=10.0, call_cost_us=0.0)  # 100 cells = 1 ms
    expanded = np.array([100, 150, 100, 100, 100])  # 1, 1.5, 1, 1, 1 ms
    assert budget.charge(0.0, expanded, first=True) == (3, 3.5, 1.1)  # the third starts at 2.5 ms: taken
    assert budget.charge(2.9, expanded, first=False)[:2] == (1, 3.9)  # starts at 2.9: taken, then spent
    assert budget.charge(3.0, expanded, first=False)[:2] == (0, 3.0)  # nothing starts on a spent budget
    assert budget.charge(5.0, expanded, first=True)[:2] == (1, 6.0)  # but a frame serves at least one
    assert budget.charge(0.0, np.zeros(0, np.int64), first=True) == (0, 0.0, 0.0)
