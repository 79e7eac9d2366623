"""heuristic="landmarks": optimal against the independent Dijkstra and the Moving AI lengths,
far fewer expansions, a table kept while costs only go up and made again when one goes down."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.maps.movingai import GROUND, ground_costs, read_map, read_scenarios
from sim.pathfinding import HEURISTICS, PathGrid, SearchOptions
from sim.pathfinding.landmarks import COUNT
from tests.conftest import ROOT
from tests.helpers import RULES, assert_optimal, free_pairs, optimum, path_cost, raises_exactly, weighted_grids

DATA = ROOT / "tests" / "data"


@settings(max_examples=300, deadline=None)
@given(case=weighted_grids(), rule=st.sampled_from(RULES))
def test_landmarks_cost_equals_dijkstra_on_random_weighted_grids(case, rule):
    costs, start, goal = case
    r = PathGrid(costs).search(start, goal, diagonal=rule, heuristic="landmarks")
    assert_optimal(r, costs, start, goal, rule)


@pytest.mark.parametrize("name", ["den312d", "lak303d", "Berlin_0_256"])
def test_every_scenario_of_the_bundled_maps_is_optimal_with_fewer_expansions(name):
    chars = read_map(DATA / f"{name}.map")
    costs = ground_costs(chars)
    grid = PathGrid(costs)
    scens = [s for s in read_scenarios(DATA / f"{name}.map.scen")
             if chars[s.start[1], s.start[0]] in GROUND and chars[s.goal[1], s.goal[0]] in GROUND]  # fmt: skip
    plain = learned = 0
    for s in scens:
        r = grid.search(s.start, s.goal, heuristic="landmarks")
        assert abs(r.cost - s.optimal) <= s.tolerance, (name, s.line, r.cost, s.optimal)
        assert tuple(r.path[0]) == s.start and tuple(r.path[-1]) == s.goal
        assert path_cost(costs, r.path, "no-corner-cutting") == pytest.approx(r.cost)
        plain += grid.search(s.start, s.goal).expanded
        learned += r.expanded
    # What the heuristic is for: on these maps it expands 4-11x fewer cells than the octile distance.
    assert learned * 3 < plain, (learned, plain)


def test_the_table_is_kept_while_costs_go_up_and_made_again_when_one_goes_down():
    rng = np.random.default_rng(3)
    costs = np.where(rng.random((40, 50)) < 0.25, 0.0, 1.0)
    costs[rng.random(costs.shape) < 0.2] *= 2.0
    grid = PathGrid(costs)
    table = grid.landmarks()
    # (several multipliers: the costs to each landmark and the negated costs from it, 2 columns each)
    assert table.shape == (42 * 52, 2 * COUNT) and table.dtype == np.float64 and not table.flags.writeable
    points = grid.landmark_points["no-corner-cutting"]
    assert len(set(points)) == COUNT and all(costs[y, x] > 0 for x, y in points)
    for step in range(60):
        x, y = int(rng.integers(50)), int(rng.integers(40))
        if step % 10 == 9:  # cheaper: the old bounds may be too high now
            value = 1.0 if costs[y, x] != 1.0 else 0.0
        else:
            value = float(rng.choice([0.0, 3.0])) if costs[y, x] > 0 else 0.0  # dearer (or still blocked)
        old = costs[y, x] if costs[y, x] > 0 else math.inf
        before, unit = grid.landmarks(), grid.min_cost
        grid.update(x, y, np.array([[value]]))
        costs[y, x] = value
        cheaper = 0 < value < old or grid.min_cost != unit
        assert (grid.landmarks() is before) == (not cheaper), (step, old, value)
        for _ in range(3):
            free = np.argwhere(costs > 0)
            (sy, sx), (gy, gx) = free[rng.integers(len(free))], free[rng.integers(len(free))]
            r = grid.search((int(sx), int(sy)), (int(gx), int(gy)), heuristic="landmarks")
            assert_optimal(r, costs, (int(sx), int(sy)), (int(gx), int(gy)), "no-corner-cutting")


def test_a_fresh_table_equals_the_kept_one_after_costs_went_up():
    """What a kept table holds is what a new grid of the old costs would make: the same landmarks
    and costs (so "kept" is not "stale in some other way")."""
    costs = np.ones((30, 30))
    grid = PathGrid(costs)
    kept = grid.landmarks().copy()
    grid.update(10, 0, np.zeros((20, 1)))  # a wall: costs only go up
    assert np.array_equal(grid.landmarks(), kept, equal_nan=True)
    assert np.array_equal(PathGrid(costs).landmarks(), kept, equal_nan=True)


def test_batches_rounds_and_weights_give_what_one_search_gives():
    rng = np.random.default_rng(8)
    costs = np.where(rng.random((35, 45)) < 0.3, 0.0, rng.choice([1.0, 1.5, 4.0], (35, 45)))
    grid = PathGrid(costs)
    starts, goals = free_pairs(costs, rng, 40)
    batch = grid.search_many(starts, goals, heuristic="landmarks", threads=2)
    for i, (s, g) in enumerate(zip(starts.tolist(), goals.tolist(), strict=True)):
        one = grid.search(tuple(s), tuple(g), heuristic="landmarks")
        assert batch.cost[i] == one.cost and np.array_equal(batch.path(i), one.path)
        assert one.cost == pytest.approx(optimum(costs, tuple(s), tuple(g), "no-corner-cutting"), rel=1e-9)
        weighted = grid.search(tuple(s), tuple(g), heuristic="landmarks", weight=2.0)
        assert weighted.cost <= 2.0 * one.cost + 1e-9
        dijkstra = grid.search(tuple(s), tuple(g), heuristic="landmarks", algorithm="dijkstra")
        assert dijkstra.cost == pytest.approx(one.cost, rel=1e-12)
        greedy = grid.search(tuple(s), tuple(g), heuristic="landmarks", algorithm="greedy")
        assert greedy.found and path_cost(costs, greedy.path, "no-corner-cutting") == pytest.approx(greedy.cost)


def test_unreachable_goals_and_empty_grids_are_results():
    costs = np.ones((10, 21))
    costs[:, 10] = 0  # two rooms: the landmarks all fall in the one the centre is in
    grid = PathGrid(costs)
    assert not grid.search((0, 0), (20, 9), heuristic="landmarks").found  # a result, not an error
    r = grid.search((15, 0), (20, 9), heuristic="landmarks")  # the other room: no landmark reaches it
    assert r.found and r.cost == pytest.approx(optimum(costs, (15, 0), (20, 9), "no-corner-cutting"))
    blocked = PathGrid(np.zeros((3, 3)))
    assert blocked.landmarks().shape == (25, 0)
    assert not blocked.search((0, 0), (2, 2), heuristic="landmarks").found


def test_landmarks_is_a_heuristic_for_astar_greedy_and_dijkstra_only():
    assert "landmarks" in HEURISTICS
    served = "heuristic 'landmarks' serves algorithm 'astar', 'greedy' or 'dijkstra', not "
    for algorithm in ("jps", "jps+"):
        make = lambda a=algorithm: SearchOptions(heuristic="landmarks", algorithm=a)  # noqa: E731
        raises_exactly(make, ValueError, served + repr(algorithm))
    rules = "never, no-corner-cutting, one-obstacle, always"
    raises_exactly(lambda: PathGrid(np.ones((2, 2))).landmarks(diagonal="sometimes"), ValueError,
                   f"unknown diagonal rule 'sometimes'; expected one of {rules}")  # fmt: skip


def test_the_learner_sees_the_heuristic_the_kernel_used():
    """The search state's H (what the learning view draws) is the landmarks' bound where it is
    larger than the octile distance, and the cells come off the open list in order of F."""
    rng = np.random.default_rng(1)
    costs = np.where(rng.random((30, 40)) < 0.3, 0.0, 1.0)
    costs[0, 0] = costs[29, 39] = 1.0
    grid = PathGrid(costs)
    state = grid.search_state((0, 0), (39, 29), step=10**6, heuristic="landmarks")
    plain = grid.search_state((0, 0), (39, 29), step=10**6)
    assert state.result.cost == pytest.approx(plain.result.cost)
    assert np.all(state.h >= plain.h - 1e-12) and np.any(state.h > plain.h + 1e-6)
    assert state.h[0, 0] <= plain.result.cost + 1e-9  # admissible at the start
    f = state.f.reshape(-1)[state.order]
    assert np.all(np.diff(f) >= -1e-9)  # consistent: expanded in order of F
    assert state.result.expanded < plain.result.expanded


def test_huge_maps_get_fewer_landmarks_within_the_memory_cap():
    from sim.pathfinding.landmarks import MAX_BYTES, count_for

    assert count_for(66 * 66) == COUNT
    assert count_for(3000 * 3000) == 7 and count_for(8192 * 8192 + 4 * 8193) == 0
    for cells in (10**6, 9 * 10**6, 30 * 10**6, 70 * 10**6):
        assert 8 * cells * count_for(cells) <= MAX_BYTES


def test_making_the_table_takes_little_more_memory_than_the_table():
    # (numpy's arrays are traced by tracemalloc) Its columns are filled in place: a copy of the
    # whole table at the end had the peak at twice its size and more (1.4 GB on 3000 x 3000).
    import tracemalloc

    PathGrid(np.ones((8, 8))).search((0, 0), (7, 7), heuristic="landmarks")  # its kernel loaded (or compiled) first
    grid = PathGrid(np.ones((400, 400)))
    grid.distance_field((0, 0))  # and the workspace and the fields' arrays
    tracemalloc.start()
    try:
        grid.search((0, 0), (399, 399), heuristic="landmarks")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    table = grid.landmarks()
    assert table.shape == (402 * 402, COUNT) and peak < 2.2 * table.nbytes, (peak, table.nbytes)


@pytest.mark.parametrize("threads", [1, 2])
def test_a_round_with_a_kind_on_landmarks_answers_what_its_batch_answers(threads):
    """In one compiled round beside a plain kind, and beside a kind that jumps (then a job per
    kind: one round call holds one kind of grid data)."""
    from sim.pathfinding import AStar, RoundKind, SearchRound, label_regions

    class Jumper(AStar):
        use_jps = True

    rng = np.random.default_rng(5)
    terrain = (rng.random((40, 60)) < 0.3).astype(np.uint8)
    terrain[:, 30] = 2
    learned = AStar(terrain, terrain_costs={0: 1.0}, heuristic="landmarks")
    for other in (
        AStar(terrain, terrain_costs={0: 1.0, 1: 1.0, 2: 2.0}),
        Jumper(terrain, terrain_costs={0: 1.0, 1: 1.0}),
    ):
        kinds = [RoundKind(k, label_regions(k.grid.costs, k.diagonal)[0]) for k in (learned, other)]
        n = 300
        starts = np.stack((rng.integers(0, 60, n), rng.integers(0, 40, n)), axis=1).astype(np.int32)
        goals = np.stack((rng.integers(0, 60, n), rng.integers(0, 40, n)), axis=1).astype(np.int32)
        kind_of = rng.integers(0, 2, n)
        res = SearchRound(threads=threads).run(kinds, kind_of, starts, goals)
        for s, kind in enumerate(kinds):
            mine = np.flatnonzero((kind_of == s) & (res.status != 7))  # (7: another region, not searched)
            opts = {"heuristic": "landmarks"} if s == 0 else {"algorithm": kind.astar._algorithm(kind.astar.grid)}
            want = kind.astar.grid.search_many(starts[mine], goals[mine], threads=1, **opts)
            assert np.array_equal(res.cost[mine], want.cost) and np.array_equal(res.expanded[mine], want.expanded)
        assert (res.status == 0).sum() > n // 4


def test_on_a_map_of_several_multipliers_both_sides_of_each_landmark_count():
    """Costs differ by direction there (a step costs the multiplier of the cell it enters): the
    table holds the costs to each landmark and from it, and the search stays optimal against the
    independent Dijkstra while expanding far fewer cells than with the octile distance."""
    chars = read_map(DATA / "den312d.map")
    costs = ground_costs(chars)
    yy, xx = np.mgrid[0 : costs.shape[0], 0 : costs.shape[1]]
    costs = np.where(costs > 0, 1.0 + (xx // 8 + yy // 8) % 3, 0.0)  # squares of 8 x 8 cells: 1, 2, 3
    grid = PathGrid(costs)
    assert grid.landmarks().shape[1] == 2 * COUNT
    rng = np.random.default_rng(4)
    free = np.argwhere(costs > 0)
    plain = learned = 0
    for _ in range(12):
        (sy, sx), (gy, gx) = free[rng.integers(len(free))], free[rng.integers(len(free))]
        start, goal = (int(sx), int(sy)), (int(gx), int(gy))
        r = grid.search(start, goal, heuristic="landmarks")
        assert_optimal(r, costs, start, goal, "no-corner-cutting")
        learned += r.expanded
        plain += grid.search(start, goal).expanded
    assert learned * 3 < plain, (learned, plain)


def test_a_weighted_table_is_the_same_made_on_one_thread_or_two():
    from sim.pathfinding import set_threads

    rng = np.random.default_rng(6)
    costs = np.where(rng.random((50, 70)) < 0.2, 0.0, rng.choice([1.0, 2.0, 3.5], (50, 70)))
    try:
        set_threads(1)
        one = PathGrid(costs).landmarks()
        set_threads(2)
        two = PathGrid(costs).landmarks()
    finally:
        set_threads(0)  # (the default: every core)
    assert one.shape == (52 * 72, 2 * COUNT) and np.array_equal(one, two, equal_nan=True)


@pytest.mark.parametrize("algorithm, heuristic", [("astar", "landmarks"), ("jps", None), ("jps+", None)])
def test_grid_data_of_the_wrong_kind_is_a_blocked_answer_not_a_hang(algorithm, heuristic):
    # A kernel compiled for plain grid data answers a landmarks or jumping search with its stub:
    # "blocked", no path (it once walked stale parent links back from the start: a wrong path, or
    # a walk that never ended).
    from sim.pathfinding import STATUS_BLOCKED, STATUS_FOUND
    from sim.pathfinding.batch import run_batch
    from sim.pathfinding.checks import padded_pairs

    grid = PathGrid(np.ones((6, 8)))
    starts, goals = padded_pairs(np.array([[0, 0], [2, 1]]), np.array([[7, 5], [6, 4]]), grid.width, grid.height)
    plain, _ = run_batch(grid.kernel_args(1), starts, goals, grid._params(SearchOptions()), None, False, grid.cells, 1)
    assert list(plain.status) == [STATUS_FOUND, STATUS_FOUND]  # parent links left behind in the workspace
    params = grid._params(SearchOptions(algorithm=algorithm, heuristic=heuristic))
    part, served = run_batch(grid.kernel_args(1), starts, goals, params, None, False, grid.cells, 1)
    assert served == 2
    assert list(part.status) == [STATUS_BLOCKED, STATUS_BLOCKED]
    assert list(part.offsets) == [0, 0, 0]
