"""The search engine: optimality, the options, the boundary's error messages."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.pathfinding import PathGrid, find_path
from tests.helpers import RULES, dijkstra, passable, path_cost

ADMISSIBLE = ("octile", "euclidean", "chebyshev", "zero")


@st.composite
def weighted_grids(draw, values=(0.0, 0.0, 0.3, 0.85, 1.0, 1.0, 2.5, 5.0)):
    h = draw(st.integers(1, 9))
    w = draw(st.integers(1, 9))
    cells = draw(st.lists(st.sampled_from(values), min_size=h * w, max_size=h * w))
    costs = np.array(cells, dtype=np.float64).reshape(h, w)
    start = (draw(st.integers(0, w - 1)), draw(st.integers(0, h - 1)))
    goal = (draw(st.integers(0, w - 1)), draw(st.integers(0, h - 1)))
    return costs, start, goal


def optimum(costs, start, goal, rule):
    if not (passable(costs, *start) and passable(costs, *goal)):
        return math.inf
    return dijkstra(costs, start, rule).get(goal, math.inf)


@settings(max_examples=300, deadline=None)
@given(case=weighted_grids(), rule=st.sampled_from(RULES), heuristic=st.sampled_from(ADMISSIBLE))
def test_astar_cost_equals_dijkstra_on_random_weighted_grids(case, rule, heuristic):
    costs, start, goal = case
    best = optimum(costs, start, goal, rule)
    r = find_path(costs, start, goal, diagonal=rule, heuristic=heuristic)
    assert r.found == (best < math.inf)
    if r.found:
        assert r.cost == pytest.approx(best, rel=1e-9, abs=1e-12)
        assert r.path[0] == start and r.path[-1] == goal
        assert path_cost(costs, r.path, rule) == pytest.approx(r.cost, rel=1e-9)
    else:
        assert r.path == [] and r.cost == math.inf


@settings(max_examples=150, deadline=None)
@given(case=weighted_grids())
def test_manhattan_is_optimal_on_four_connected_grids(case):
    costs, start, goal = case
    best = optimum(costs, start, goal, "never")
    r = find_path(costs, start, goal, diagonal="never")  # default heuristic: manhattan
    assert r.cost == pytest.approx(best, rel=1e-9) if r.found else best == math.inf


@settings(max_examples=200, deadline=None)
@given(case=weighted_grids(), rule=st.sampled_from(RULES), weight=st.sampled_from([1.5, 2.0, 5.0]))
def test_weighted_astar_stays_within_its_bound(case, rule, weight):
    costs, start, goal = case
    best = optimum(costs, start, goal, rule)
    r = find_path(costs, start, goal, diagonal=rule, weight=weight)
    assert r.found == (best < math.inf)
    if r.found:
        assert best - 1e-9 <= r.cost <= weight * best + 1e-9
        assert path_cost(costs, r.path, rule) == pytest.approx(r.cost, rel=1e-9)


@settings(max_examples=200, deadline=None)
@given(case=weighted_grids(), rule=st.sampled_from(RULES), algorithm=st.sampled_from(["greedy", "dijkstra"]))
def test_greedy_and_dijkstra_find_legal_paths(case, rule, algorithm):
    costs, start, goal = case
    best = optimum(costs, start, goal, rule)
    r = find_path(costs, start, goal, diagonal=rule, algorithm=algorithm)
    assert r.found == (best < math.inf)
    if r.found:
        assert path_cost(costs, r.path, rule) == pytest.approx(r.cost, rel=1e-9)
        if algorithm == "dijkstra":
            assert r.cost == pytest.approx(best, rel=1e-9)
        else:
            assert r.cost >= best - 1e-9  # greedy has no bound, but can't beat the optimum


@settings(max_examples=300, deadline=None)
@given(case=weighted_grids(values=(0.0, 0.0, 1.0, 1.0, 1.0)), unit=st.sampled_from([1.0, 0.5, 3.0]))
def test_jps_cost_equals_dijkstra_on_uniform_grids(case, unit):
    costs, start, goal = case
    costs = costs * unit
    best = optimum(costs, start, goal, "no-corner-cutting")
    r = find_path(costs, start, goal, algorithm="jps")
    assert r.found == (best < math.inf)
    if r.found:
        assert r.cost == pytest.approx(best, rel=1e-9)
        assert path_cost(costs, r.path, "no-corner-cutting") == pytest.approx(r.cost, rel=1e-9)


def test_jps_on_larger_random_uniform_grids():
    rng = np.random.default_rng(7)
    for density in (0.1, 0.25, 0.4):
        costs = (rng.random((40, 60)) > density).astype(float)
        free = np.argwhere(costs > 0)
        for _ in range(20):
            (sy, sx), (gy, gx) = free[rng.integers(len(free), size=2)]
            start, goal = (int(sx), int(sy)), (int(gx), int(gy))
            best = optimum(costs, start, goal, "no-corner-cutting")
            a = find_path(costs, start, goal)
            j = find_path(costs, start, goal, algorithm="jps")
            assert a.found == j.found == (best < math.inf)
            if a.found:
                assert a.cost == pytest.approx(best) and j.cost == pytest.approx(best)


def test_terrain_cheaper_than_one_still_gives_optimal_paths():
    # The original design's heuristic assumed every step costs at least 1, so with grass at
    # 0.85 it overestimated and A* returned a longer path. Here the heuristic is scaled.
    costs = np.full((9, 30), 1.0)
    costs[0, :] = 0.85  # a grass lane along the top
    costs[2:, 10:20] = 5.0  # a swamp below the direct line
    start, goal = (0, 4), (29, 4)
    best = dijkstra(costs, start, "no-corner-cutting")[goal]
    assert find_path(costs, start, goal).cost == pytest.approx(best)
    unscaled = find_path(costs, start, goal, weight=1 / 0.85)  # what the old design effectively did
    assert unscaled.cost >= best


# ------------------------------------------------------------------ special cases
def test_start_equals_goal():
    r = find_path(np.ones((3, 3)), (1, 1), (1, 1))
    assert (r.found, r.path, r.cost, r.expanded) == (True, [(1, 1)], 0.0, 0)


def test_blocked_start_or_goal_is_not_found_without_searching():
    costs = np.ones((4, 4))
    costs[0, 0] = 0
    for start, goal in (((0, 0), (3, 3)), ((3, 3), (0, 0)), ((0, 0), (0, 0))):
        r = find_path(costs, start, goal)
        assert (r.found, r.expanded, r.path, r.cost) == (False, 0, [], math.inf)


def test_unreachable_goal_gives_partial_path_to_the_closest_cell():
    costs = np.ones((7, 12))
    costs[:, 6] = 0  # a wall: the right half is out of reach
    r = find_path(costs, (0, 3), (11, 3))
    assert not r.found and not r.hit_limit and r.path == []
    assert r.partial_path[0] == (0, 3) and r.partial_path[-1] == (5, 3)
    assert path_cost(costs, r.partial_path, "no-corner-cutting") == pytest.approx(5.0)
    assert r.walk_path == r.partial_path


def test_node_cap_stops_the_search_and_still_walks_toward_the_goal():
    costs = np.ones((50, 50))
    costs[:, 25] = 0
    r = find_path(costs, (0, 0), (49, 49), max_nodes=30)
    assert (r.found, r.hit_limit, r.expanded) == (False, True, 30)
    assert len(r.partial_path) > 1 and r.partial_path[0] == (0, 0)
    full = find_path(costs, (0, 0), (49, 49))
    assert not full.hit_limit and full.expanded == 25 * 50  # every reachable cell, once


def test_record_gives_expansion_order_and_open_cells():
    costs = np.ones((10, 10))
    costs[2:8, 5] = 0
    grid = PathGrid(costs)
    record = np.zeros((10, 10), dtype=np.int32)
    r = grid.search((1, 5), (8, 5), record=record)
    closed = record[record > 0]
    assert sorted(closed.tolist()) == list(range(1, r.expanded + 1))
    assert record[5, 1] == 1 and record[5, 8] == r.expanded  # start first, goal last
    assert (record == -1).any()  # cells still on the open list
    # recording changes nothing about the result
    assert grid.search((1, 5), (8, 5)) == r


def test_pathgrid_reuses_its_buffers_and_follows_updates():
    grid = PathGrid(np.ones((5, 20)))
    first = grid.search((0, 2), (19, 2))
    assert first.cost == pytest.approx(19)
    grid.update(10, 0, np.zeros((5, 1)))  # wall
    assert not grid.search((0, 2), (19, 2)).found
    grid.update(10, 4, np.ones((1, 1)) * 0.5)  # a gap, cheaper than the rest
    r = grid.search((0, 2), (19, 2))
    assert r.found and (10, 4) in r.path and grid.min_cost == 0.5


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int32, np.float32, np.float64])
def test_any_real_dtype(dtype):
    costs = np.ones((3, 5), dtype=dtype)
    assert find_path(costs, (0, 0), (4, 2)).cost == pytest.approx(2 * math.sqrt(2) + 2)


def test_nan_inf_and_negative_cells_are_impassable():
    costs = np.ones((3, 3))
    costs[0, 1], costs[1, 1], costs[2, 1] = np.nan, -1.0, np.inf
    assert not find_path(costs, (0, 1), (2, 1)).found


# ---------------------------------------------------------------- error messages
@pytest.mark.parametrize(
    ("kwargs", "exc", "message"),
    [
        ({"start": (5, 0)}, ValueError, "start (5, 0) is outside the grid of width 4 and height 3"),
        ({"goal": (0, -1)}, ValueError, "goal (0, -1) is outside the grid of width 4 and height 3"),
        ({"start": (1.0, 2)}, TypeError, "start must be an (x, y) tuple of ints, got (1.0, 2)"),
        ({"goal": "ab"}, TypeError, "goal must be an (x, y) tuple of ints, got 'ab'"),
        (
            {"diagonal": "sometimes"},
            ValueError,
            "unknown diagonal rule 'sometimes'; expected one of never, no-corner-cutting, one-obstacle, always",
        ),
        (
            {"heuristic": "taxicab"},
            ValueError,
            "unknown heuristic 'taxicab'; expected one of octile, manhattan, euclidean, chebyshev, zero",
        ),
        (
            {"algorithm": "bfs"},
            ValueError,
            "unknown algorithm 'bfs'; expected one of astar, dijkstra, greedy, jps",
        ),
        ({"weight": 0.5}, ValueError, "weight must be a finite number >= 1, got 0.5"),
        ({"weight": "2"}, TypeError, "weight must be a number, got '2'"),
        ({"max_nodes": 0}, ValueError, "max_nodes must be >= 1, got 0"),
        ({"max_nodes": 2.5}, TypeError, "max_nodes must be an int or None, got 2.5"),
    ],
)
def test_bad_arguments_get_exact_messages(kwargs, exc, message):
    args = {"costs": np.ones((3, 4)), "start": (0, 0), "goal": (3, 2)} | kwargs
    with pytest.raises(exc) as info:
        find_path(args.pop("costs"), args.pop("start"), args.pop("goal"), **args)
    assert str(info.value) == message


@pytest.mark.parametrize(
    ("costs", "exc", "message"),
    [
        ([[1, 1]], TypeError, "costs must be a numpy array, not list"),
        (np.ones(4), ValueError, "costs must be 2-D (indexed [y, x]), got 1-D with shape (4,)"),
        (np.ones((0, 3)), ValueError, "costs must not be empty, got shape (0, 3)"),
        (
            np.ones((2, 2), dtype=bool),
            TypeError,
            "costs must have a real numeric dtype (int or float), got bool",
        ),
        (
            np.ones((2, 2), dtype=complex),
            TypeError,
            "costs must have a real numeric dtype (int or float), got complex128",
        ),
    ],
)
def test_bad_cost_grids_get_exact_messages(costs, exc, message):
    with pytest.raises(exc) as info:
        find_path(costs, (0, 0), (0, 0))
    assert str(info.value) == message


def test_jps_refuses_grids_it_cannot_search_exactly():
    costs = np.ones((3, 3))
    costs[1, 1] = 0.85
    with pytest.raises(ValueError) as info:
        find_path(costs, (0, 0), (2, 2), algorithm="jps")
    assert str(info.value) == (
        "algorithm 'jps' needs every passable cell to cost the same; this grid's multipliers range from 0.85 to 1"
    )
    with pytest.raises(ValueError) as info:
        find_path(np.ones((3, 3)), (0, 0), (2, 2), algorithm="jps", diagonal="always")
    assert str(info.value) == "algorithm 'jps' needs diagonal='no-corner-cutting', got 'always'"


def test_record_must_match_the_grid():
    grid = PathGrid(np.ones((3, 4)))
    with pytest.raises(ValueError) as info:
        grid.search((0, 0), (1, 1), record=np.zeros((4, 3), dtype=np.int32))
    assert str(info.value) == "record must have the grid's shape (3, 4), got (4, 3)"
    with pytest.raises(TypeError):
        grid.search((0, 0), (1, 1), record=np.zeros((3, 4)))


def test_trace_gives_the_expansion_order_the_record_shows():
    rng = np.random.default_rng(11)
    costs = np.where(rng.random((30, 40)) < 0.25, 0.0, rng.choice([0.85, 1.0, 2.0], size=(30, 40)))
    costs[2, 2] = costs[27, 37] = 1.0
    grid = PathGrid(costs)
    for algorithm in ("astar", "dijkstra", "greedy"):
        record = np.zeros((30, 40), dtype=np.int32)
        trace = np.zeros(30 * 40, dtype=np.int32)
        r = grid.search((2, 2), (37, 27), algorithm=algorithm, record=record, trace=trace)
        order = trace[: r.expanded]
        assert (record.ravel()[order] == np.arange(1, r.expanded + 1)).all()
        short = np.zeros(5, dtype=np.int32)
        grid.search((2, 2), (37, 27), algorithm=algorithm, trace=short)
        assert (short == order[:5]).all()  # a short trace keeps the first expansions


def test_a_full_heap_is_compacted_and_results_stay_optimal():
    # The heap holds one entry per push (an improved cell is pushed again); stale entries
    # leave when popped, or all at once when the heap fills. That always makes room, since
    # fewer cells are open than exist. Here the heap gets 175 slots: above the 147 cells
    # these searches ever have open at once, below the 205 entries they would otherwise
    # hold (both measured with the Python reference, which pushes by the same rule).
    rng = np.random.default_rng(5)
    costs = np.where(rng.random((30, 30)) < 0.1, 0.0, rng.choice([0.5, 1.0, 3.0, 7.0], size=(30, 30)))
    grid = PathGrid(costs)
    grid._heap_key = np.zeros(175, dtype=np.float64)
    grid._heap_node = np.zeros(175, dtype=np.int32)
    for start, goal in (((0, 0), (29, 29)), ((15, 0), (15, 29))):
        best = dijkstra(costs, start, "always")[goal]
        r = grid.search(start, goal, diagonal="always", algorithm="dijkstra")
        assert r.found and r.cost == pytest.approx(best)
