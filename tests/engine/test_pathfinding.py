"""The search engine: optimality, the options, the boundary's error messages."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.pathfinding import PathGrid, SearchOptions, find_path
from tests.helpers import RULES, dijkstra, optimum, path_cost, pts, weighted_grids

ADMISSIBLE = ("octile", "euclidean", "chebyshev", "zero", "landmarks")


@settings(max_examples=300, deadline=None)
@given(case=weighted_grids(), rule=st.sampled_from(RULES), heuristic=st.sampled_from(ADMISSIBLE))
def test_astar_cost_equals_dijkstra_on_random_weighted_grids(case, rule, heuristic):
    costs, start, goal = case
    best = optimum(costs, start, goal, rule)
    r = find_path(costs, start, goal, diagonal=rule, heuristic=heuristic)
    assert r.found == (best < math.inf)
    if r.found:
        assert r.cost == pytest.approx(best, rel=1e-9, abs=1e-12)
        assert tuple(r.path[0]) == start and tuple(r.path[-1]) == goal
        assert path_cost(costs, r.path, rule) == pytest.approx(r.cost, rel=1e-9)
    else:
        assert len(r.path) == 0 and r.cost == math.inf


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
                # JPS fills in the cells between jump points: the path must be a legal walk of that cost.
                assert tuple(j.path[0]) == start and tuple(j.path[-1]) == goal
                assert path_cost(costs, j.path, "no-corner-cutting") == pytest.approx(j.cost)


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
    assert unscaled.cost > best + 1e-6  # it really was worse: the scaling is what makes this optimal


# ------------------------------------------------------------------ special cases
def test_start_equals_goal():
    r = find_path(np.ones((3, 3)), (1, 1), (1, 1))
    assert (r.found, pts(r.path), r.cost, r.expanded) == (True, [(1, 1)], 0.0, 0)


def test_blocked_start_or_goal_is_not_found_without_searching():
    costs = np.ones((4, 4))
    costs[0, 0] = 0
    for start, goal in (((0, 0), (3, 3)), ((3, 3), (0, 0)), ((0, 0), (0, 0))):
        r = find_path(costs, start, goal)
        assert (r.found, r.expanded, pts(r.path), r.cost) == (False, 0, [], math.inf)


def test_unreachable_goal_gives_partial_path_to_the_closest_cell():
    costs = np.ones((7, 12))
    costs[:, 6] = 0  # a wall: the right half is out of reach
    r = find_path(costs, (0, 3), (11, 3))
    assert not r.found and not r.hit_limit and len(r.path) == 0
    assert tuple(r.partial_path[0]) == (0, 3) and tuple(r.partial_path[-1]) == (5, 3)
    assert path_cost(costs, r.partial_path, "no-corner-cutting") == pytest.approx(5.0)
    assert np.array_equal(r.walk_path, r.partial_path)
    assert r.expanded == 6 * 7  # every reachable cell, once


def closest_expanded(record: np.ndarray, costs: np.ndarray, goal, rule: str) -> tuple[int, int]:
    """The expanded cell nearest the goal by the octile metric, ties to the cheaper one (independent)."""
    dist = dijkstra(costs, tuple(np.argwhere(record == 1)[0][::-1].tolist()), rule)

    def key(c):
        dx, dy = abs(c[0] - goal[0]), abs(c[1] - goal[1])
        return (max(dx, dy) + (math.sqrt(2) - 1) * min(dx, dy), dist[c])

    return min(((int(x), int(y)) for y, x in np.argwhere(record > 0)), key=key)


def test_node_cap_stops_the_search_and_still_walks_toward_the_goal():
    costs = np.ones((50, 50))
    costs[:, 25] = 0
    grid = PathGrid(costs)
    record = np.zeros(costs.shape, dtype=np.int32)
    r = grid.search((0, 0), (49, 49), max_nodes=30, record=record)
    assert (r.found, r.hit_limit, r.expanded) == (False, True, 30)
    # The partial path is a legal walk from the start to the expanded cell closest to the goal.
    assert tuple(r.partial_path[0]) == (0, 0) and len(r.partial_path) > 1
    assert tuple(r.partial_path[-1]) == closest_expanded(record, costs, (49, 49), "no-corner-cutting")
    assert path_cost(costs, r.partial_path, "no-corner-cutting") == pytest.approx(
        dijkstra(costs, (0, 0), "no-corner-cutting")[tuple(pts(r.partial_path)[-1])]
    )
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
    from sim.pathfinding.workspace import workspace

    grid = PathGrid(np.ones((5, 20)))
    first = grid.search((0, 2), (19, 2))
    ws = workspace()
    buffers = (ws.g, ws.parent, ws.mark)
    assert first.cost == pytest.approx(19)
    grid.update(10, 0, np.zeros((5, 1)))  # wall
    assert not grid.search((0, 2), (19, 2)).found
    grid.update(10, 4, np.ones((1, 1)) * 0.5)  # a gap, cheaper than the rest
    r = grid.search((0, 2), (19, 2))
    assert r.found and (10, 4) in pts(r.path) and grid.min_cost == 0.5
    assert (ws.g, ws.parent, ws.mark) == buffers  # the same arrays, not new ones
    assert all(a is b for a, b in zip((ws.g, ws.parent, ws.mark), buffers, strict=True))


def test_searches_follow_updates_that_widen_the_codes_and_switch_the_jps_data():
    # The grid keeps the kernels' arguments between calls: a change must give new ones.
    costs = np.ones((20, 20))
    grid = PathGrid(costs)
    for algorithm in ("astar", "jps", "jps+"):
        assert grid.search((0, 0), (19, 19), algorithm=algorithm).cost == pytest.approx(19 * np.sqrt(2))
    patch = 1.0 + np.arange(300).reshape(15, 20) / 300  # 300 new multipliers: the codes widen past uint8
    grid.update(0, 5, patch)
    costs[5:20] = patch
    assert grid.kernel_args(0).codes.dtype == np.uint16 and not grid.uniform
    fresh = PathGrid(costs)
    for s, g in (((0, 0), (19, 19)), ((3, 17), (18, 1))):
        for algorithm in ("astar", "jps"):  # jps: JPSW's data now, made for the weighted grid
            assert grid.search(s, g, algorithm=algorithm).cost == pytest.approx(fresh.search(s, g).cost)


def test_a_search_allocates_nothing_proportional_to_the_map():
    import tracemalloc

    grid = PathGrid(np.ones((1000, 1000)))  # 8 MB as float64; its workspace is ~11 MB
    grid.search((500, 500), (510, 505))  # the workspace exists from here on (and the kernels are loaded)
    grid.search_many(np.array([[400, 400]] * 8), np.array([[420, 410]] * 8))
    tracemalloc.start()
    try:
        for _ in range(20):
            grid.search((500, 500), (510, 505))
            grid.search_many(np.array([[400, 400]] * 8), np.array([[420, 410]] * 8))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 200_000  # bytes: a few small arrays, nothing near the map's 1,000,000 cells


def test_one_workspace_serves_every_grid_of_a_thread():
    from sim.pathfinding.workspace import workspace

    a, b = PathGrid(np.ones((30, 30))), PathGrid(np.ones((60, 60)))
    a.search((0, 0), (29, 29))
    ws = workspace()
    b.search((0, 0), (59, 59))
    g = ws.g
    a.search((0, 0), (29, 29))  # the larger workspace serves the smaller grid too
    assert workspace() is ws and ws.g is g and ws.cells >= b.cells


def _resident_kib(arrays) -> int | None:
    """KiB of these arrays' own pages that are resident (Linux: the "present" bit of each page
    in /proc/self/pagemap), or None where that is not readable. Page by page, not the whole
    mapping: malloc may put a big array in a heap it shares with everything else."""
    import os

    page = os.sysconf("SC_PAGE_SIZE")
    try:
        with open("/proc/self/pagemap", "rb") as f:
            present = 0
            for a in arrays:
                first, last = a.ctypes.data // page, (a.ctypes.data + a.nbytes - 1) // page
                f.seek(first * 8)
                entries = np.frombuffer(f.read((last - first + 1) * 8), dtype=np.uint64)
                present += int((entries >> np.uint64(63)).sum())
    except OSError:
        return None
    return present * page // 1024


def test_a_big_maps_workspace_is_resident_only_where_searches_went():
    """A 2048x2048 map's workspace is 46 MB; a short search must not make megabytes of it
    resident (numpy's huge pages made 2 MiB resident per search), and forgetting gives
    back what searches touched without changing any answer."""
    from sim.pathfinding.workspace import workspace

    grid = PathGrid(np.ones((2048, 2048), dtype=np.float32))
    ws = workspace()
    ws.forget()
    first = grid.search((1000, 1000), (1012, 1006))
    starts = np.array([[100 + 150 * i, 200 + 120 * i] for i in range(12)])
    goals = starts + np.array([9, -4])
    many = grid.search_many(starts, goals)
    arrays = (ws.g, ws.parent, ws.mark)
    resident = _resident_kib(arrays)
    if resident is None:
        pytest.skip("resident memory is not readable here")
    assert resident < 1024  # 13 searches in 13 places: a few pages each, not 2 MiB each
    ws.forget()
    assert _resident_kib(arrays) < 64  # (before reading it all: a read maps the zero page, which counts as present)
    assert not ws.mark.any() and ws.gen == 0
    assert grid.search((1000, 1000), (1012, 1006)) == first
    again = grid.search_many(starts, goals)
    assert np.array_equal(again.cost, many.cost) and np.array_equal(again.paths, many.paths)


def test_stamps_start_over_without_changing_answers():
    """Around the point where the workspace forgets its pages (every FORGET_EVERY stamps),
    batches and single searches give the answers a fresh workspace gives."""
    from sim.pathfinding.workspace import FORGET_EVERY, workspace

    rng = np.random.default_rng(3)
    costs = rng.choice(np.array([0.0, 1.0, 1.0, 2.5]), size=(40, 40))
    costs[0, 0] = costs[39, 39] = 1.0
    grid = PathGrid(costs)
    starts = np.argwhere(costs > 0)[rng.choice(int((costs > 0).sum()), 300)][:, ::-1]
    goals = starts[::-1].copy()
    ws = workspace()
    ws.forget()
    expected = grid.search_many(starts, goals, threads=1)  # this thread's workspace
    single = grid.search((0, 0), (39, 39))
    for gen in (FORGET_EVERY - 100, FORGET_EVERY - 1, 31_990):
        ws.gen = gen
        got = grid.search_many(starts, goals, threads=1)
        assert np.array_equal(got.cost, expected.cost) and np.array_equal(got.paths, expected.paths)
        assert ws.gen < gen or gen + 300 < FORGET_EVERY
        ws.gen = gen
        assert grid.search((0, 0), (39, 39)) == single


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
        ({"start": (True, 2)}, TypeError, "start must be an (x, y) tuple of ints, got (True, 2)"),
        ({"goal": (4, 2)}, ValueError, "goal (4, 2) is outside the grid of width 4 and height 3"),
        ({"goal": "ab"}, TypeError, "goal must be an (x, y) tuple of ints, got 'ab'"),
        (
            {"diagonal": "sometimes"},
            ValueError,
            "unknown diagonal rule 'sometimes'; expected one of never, no-corner-cutting, one-obstacle, always",
        ),
        (
            {"heuristic": "taxicab"},
            ValueError,
            "unknown heuristic 'taxicab'; expected one of octile, manhattan, euclidean, chebyshev, zero, landmarks",
        ),
        (
            {"algorithm": "bfs"},
            ValueError,
            "unknown algorithm 'bfs'; expected one of astar, dijkstra, greedy, jps, jps+",
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


def test_a_grid_given_a_searchs_options_says_where_they_go():
    """``PathGrid(costs, diagonal=...)`` (as ``AStar`` takes it) said "CodedGrid.__init__() got an
    unexpected keyword argument", a class the user never named."""
    tail = "; a search's options (diagonal, heuristic, algorithm, ...) go to search(), search_many() or SearchOptions"
    with pytest.raises(TypeError) as info:
        PathGrid(np.ones((3, 3)), diagonal="always")
    assert str(info.value) == "PathGrid takes one argument, the costs, got also diagonal='always'" + tail
    with pytest.raises(TypeError) as info:
        PathGrid(np.ones((3, 3)), "jps", algorithm="jps")
    assert str(info.value) == "PathGrid takes one argument, the costs, got also 'jps', algorithm='jps'" + tail
    assert PathGrid(costs=np.ones((2, 2))).search((0, 0), (1, 1)).found
    import inspect

    assert str(inspect.signature(PathGrid)) == "(costs)"  # (what help() and an editor show)
    # Python's own messages name a method by its class: PathGrid's, not the bases' that split its files.
    grid = PathGrid(np.ones((3, 3)))
    for call, name in ((lambda: grid.distance_field((0, 0), bogus=1), "distance_field"),
                       (lambda: PathGrid.from_codes(np.zeros((3, 3), np.uint8), [1], diagonal="always"), "from_codes"),
                       (lambda: grid.update(0, 0, 1, 2, 3), "update")):  # fmt: skip
        with pytest.raises(TypeError, match=rf"^PathGrid\.{name}\(\) "):
            call()


def test_jps_refuses_grids_it_cannot_search_exactly():
    costs = np.ones((3, 3))
    costs[1, 1] = 0.85
    with pytest.raises(ValueError) as info:
        find_path(costs, (0, 0), (2, 2), algorithm="jps+")
    assert str(info.value) == (
        "algorithm 'jps+' needs every passable cell to cost the same; this grid's multipliers range from 0.85 to 1"
    )
    # weighted JPS (tests/test_jpsw.py) searches it, at A*'s cost
    jps = find_path(costs, (0, 0), (2, 2), algorithm="jps")
    assert jps.cost == pytest.approx(find_path(costs, (0, 0), (2, 2)).cost)
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


@pytest.mark.parametrize("uniform", [False, True])
def test_a_full_open_list_is_compacted_or_grown_and_results_stay_optimal(uniform):
    # The heap holds one entry per push (an improved cell is pushed again); stale entries
    # leave when popped, or all at once when the heap fills (compaction). When that frees
    # too little, the heap doubles and the search runs again. A fresh workspace with a
    # 16-entry heap makes both happen on these searches; the counters show they did.
    from sim.pathfinding import kernel as K
    from sim.pathfinding import workspace as W

    rng = np.random.default_rng(5)
    values = [1.0] if uniform else [0.5, 1.0, 3.0, 7.0]
    costs = np.where(rng.random((30, 30)) < 0.1, 0.0, rng.choice(values, size=(30, 30)))
    grid = PathGrid(costs)
    saved = getattr(W._local, "workspace", None)
    W._local.workspace = ws = W.Workspace()
    ws.heap = (np.zeros(16, dtype=np.float64), np.zeros(16, dtype=np.int32))
    ws.buckets = (np.zeros(8), np.zeros((5, 16), np.int32), np.zeros((3, 16), np.int64), np.zeros((2, 16), np.int32))
    try:
        runs = [("dijkstra", "always"), ("astar", "always")] + ([("jps", "no-corner-cutting")] if uniform else [])
        for algorithm, rule in runs:
            for start, goal in (((0, 0), (29, 29)), ((15, 0), (15, 29))):
                if not (costs[start[1], start[0]] > 0 and costs[goal[1], goal[0]] > 0):
                    continue
                best = dijkstra(costs, start, rule).get(goal, math.inf)
                r = grid.search(start, goal, diagonal=rule, algorithm=algorithm)
                assert r.found == (best < math.inf)
                if r.found:
                    assert r.cost == pytest.approx(best), algorithm
                    assert path_cost(costs, r.path, rule) == pytest.approx(r.cost)
        assert ws.stats[K.STAT_HEAP_GROWS] > 0
        if not uniform:  # the bucket queue of uniform grids grows without compacting
            assert ws.stats[K.STAT_COMPACTIONS] > 0
        else:  # its hash table and its cell stacks both had to grow (each has its own reason)
            assert ws.buckets[1].shape[1] > 16 and ws.buckets[3].shape[1] > 16
    finally:
        W._local.workspace = saved if saved is not None else W.Workspace()


@pytest.mark.parametrize("uniform", [False, True])
def test_jps_compacts_or_grows_its_open_list_too(uniform):
    # JPS searches a weighted grid (JPSW) on the heap, which compacts and grows as A*'s does; a
    # uniform grid (JPS and JPS+, integer-pair costs) on the heap too, which grows (the search
    # starts again); the bucket queue is A*'s alone and stays as it was.
    from sim.pathfinding import kernel as K
    from sim.pathfinding import workspace as W

    rng = np.random.default_rng(9)
    costs = np.where(rng.random((80, 80)) > 0.3, 1.0 if uniform else rng.choice([1.0, 2.0], (80, 80)), 0.0)
    free = np.argwhere(costs > 0)
    saved = getattr(W._local, "workspace", None)
    W._local.workspace = ws = W.Workspace()
    ws.heap = (np.zeros(8, dtype=np.float64), np.zeros(8, dtype=np.int32))
    ws.buckets = (np.zeros(8), np.zeros((5, 16), np.int32), np.zeros((3, 16), np.int64), np.zeros((2, 16), np.int32))
    try:
        grid = PathGrid(costs)
        for i in range(10):
            (sy, sx), (gy, gx) = free[i * 97 % len(free)], free[(i * 389 + 5) % len(free)]
            best = dijkstra(costs, (int(sx), int(sy)), "no-corner-cutting").get((int(gx), int(gy)), math.inf)
            for algorithm in ("jps", "jps+") if uniform else ("jps",):
                r = grid.search((int(sx), int(sy)), (int(gx), int(gy)), algorithm=algorithm)
                assert r.found == (best < math.inf) and (not r.found or r.cost == pytest.approx(best))
                if r.found:
                    assert path_cost(costs, r.path, "no-corner-cutting") == pytest.approx(r.cost)
        assert ws.stats[K.STAT_HEAP_GROWS] > 0
        if uniform:
            assert ws.heap[0].size > 8 and ws.buckets[1].shape[1] == 16 and ws.buckets[3].shape[1] == 16
        else:
            assert ws.stats[K.STAT_COMPACTIONS] > 0
    finally:
        W._local.workspace = saved if saved is not None else W.Workspace()


def test_a_grid_searched_before_and_after_a_change_of_its_costs_answers_as_a_new_grid():
    """The search parameters a grid keeps per options (PathGrid._params) follow its multipliers:
    uniform -> weighted -> uniform again, every search as a new grid's."""
    costs = np.ones((12, 12))
    grid = PathGrid(costs)
    for patch in (np.full((4, 4), 3.0), np.full((4, 4), 0.5), np.ones((4, 4))):
        for algorithm in ("astar", "jps", "dijkstra"):
            grid.search((0, 0), (11, 11), algorithm=algorithm)
        grid.update(4, 4, patch)
        costs[4:8, 4:8] = patch
        for algorithm in ("astar", "jps", "dijkstra"):
            assert grid.search((0, 0), (11, 11), algorithm=algorithm) == PathGrid(costs).search(
                (0, 0), (11, 11), algorithm=algorithm)  # fmt: skip


@pytest.mark.parametrize("algorithm", ["astar", "dijkstra", "jps", "jps+"])
def test_a_path_longer_than_the_workspaces_block_is_written_whole(algorithm, monkeypatch):
    # The kernel writes a path only where the workspace's block of short paths has room; else the
    # engine has it written into an array of its own, without searching again.
    from sim.pathfinding import kernel as K
    from sim.pathfinding import workspace as W

    calls = []
    search_one = K.search_one
    monkeypatch.setattr(K, "search_one", lambda *args: calls.append(1) or search_one(*args))
    w = W.PATH_ROWS + 100
    costs = np.ones((6, w))
    costs[1:5, 100] = 0.0
    saved = getattr(W._local, "workspace", None)
    W._local.workspace = ws = W.Workspace()
    try:
        best = dijkstra(costs, (0, 3), "no-corner-cutting")[(w - 1, 3)]
        for record in (None, np.zeros((6, w), np.int32)):  # (the fast path, and the one with a record)
            for at in (0, W.PATH_ROWS - W.SHORT_PATH):  # (a block with the most and the least room)
                ws.path_at = at
                calls.clear()
                r = PathGrid(costs).search((0, 3), (w - 1, 3), algorithm=algorithm, record=record)
                assert r.cost == pytest.approx(best)
                assert path_cost(costs, r.path, "no-corner-cutting") == pytest.approx(best)
                assert tuple(r.path[0]) == (0, 3) and tuple(r.path[-1]) == (w - 1, 3)
                assert len(r.path) > W.PATH_ROWS and len(calls) == 1 and ws.path_at == at  # searched once
    finally:
        W._local.workspace = saved if saved is not None else W.Workspace()


@pytest.mark.parametrize("algorithm", ["astar", "jps", "jps+"])
def test_a_results_path_stays_as_it_was_through_many_later_searches(algorithm):
    # Short paths share the workspace's blocks (a view each, issue #43's cheap call): no later
    # search may write over a kept one, whether its path was short, long or not found.
    rng = np.random.default_rng(7)
    costs = np.ones((40, 40))
    costs[rng.random((40, 40)) < 0.3] = 0.0
    grid = PathGrid(costs)
    kept = []
    for _ in range(400):
        start, goal = (tuple(int(v) for v in rng.integers(0, 40, 2)) for _ in range(2))
        r = grid.search(start, goal, algorithm=algorithm)
        kept.append((r, r.walk_path.copy(), start, goal))
    assert len({len(p) for _, p, _, _ in kept}) > 20  # (short and long ones, several blocks)
    for r, seen, start, goal in kept:
        assert np.array_equal(r.walk_path, seen) and not r.walk_path.flags.writeable
        fresh = find_path(costs, start, goal, algorithm=algorithm)
        assert np.array_equal(r.walk_path, fresh.walk_path) and r.cost == fresh.cost


def test_a_search_keeps_its_plan_without_letting_bad_values_through_and_follows_the_grids_changes():
    # PathGrid.search keeps what it worked out per options value (issue #43): a value that failed
    # its check must fail every time, a kept plan must follow the grid's changes, and points take
    # a quick check that must name the same problems as the general one.
    grid = PathGrid(np.ones((6, 6)))
    assert grid.search((0, 0), (5, 5), weight=1, max_nodes=1).hit_limit  # kept, under int types
    bad = [
        ({"weight": True}, TypeError, r"^weight must be a number, got True$"),
        ({"max_nodes": True}, TypeError, r"^max_nodes must be an int or None, got True$"),
        ({"diagonal": ["never"]}, TypeError, r"^diagonal must be a string, got \['never'\]$"),
        ({"weight": math.nan}, ValueError, r"^weight must be a finite number >= 1, got nan$"),
        ({"algorithm": "jps", "diagonal": "always"}, ValueError, r"^algorithm 'jps' needs diagonal="),
    ]
    for _ in range(2):
        for kwargs, error, message in bad:
            with pytest.raises(error, match=message):
                grid.search((0, 0), (5, 5), **kwargs)
        with pytest.raises(ValueError, match=r"^start \(9, 0\) is outside"):  # the points before JPS's conditions
            grid.search((9, 0), (5, 5), algorithm="jps", diagonal="always")
    opts = SearchOptions(algorithm="jps+")
    assert grid.search((0, 0), (5, 5), options=opts).found and grid.search((0, 0), (5, 5), algorithm="jps+").found
    grid.update(2, 2, np.full((1, 1), 2.0))  # not uniform any more: JPS+ is refused, every time
    for _ in range(2):
        for kwargs in ({"options": opts}, {"algorithm": "jps+"}):
            with pytest.raises(ValueError, match=r"^algorithm 'jps\+' needs every passable cell to cost the same"):
                grid.search((0, 0), (5, 5), **kwargs)
    weighted = np.ones((6, 6))
    weighted[2, 2] = 2.0
    assert grid.search((0, 0), (5, 5)) == PathGrid(weighted).search((0, 0), (5, 5))  # its new costs
    grid.update(2, 2, np.ones((1, 1)))
    assert grid.search((0, 0), (5, 5), options=opts) == PathGrid(np.ones((6, 6))).search((0, 0), (5, 5), options=opts)
    grid.update(5, 5, np.zeros((1, 1)))  # a blocked goal: nothing searched
    r = grid.search((0, 0), (5, 5), options=opts)
    assert (r.found, r.expanded, r.cost, r.path.shape, r.partial_path.shape) == (False, 0, math.inf, (0, 2), (0, 2))
    same = grid.search((3, 4), (3, 4), algorithm="jps+")
    assert same.found and same.cost == 0.0 and same.path.tolist() == [[3, 4]] and not same.path.flags.writeable
    assert grid.search((np.int64(0), np.int32(1)), [4, 4]) == grid.search((0, 1), (4, 4))
    for start, goal, error, message in [
        ((6, 0), (1, 1), ValueError, r"^start \(6, 0\) is outside the grid of width 6 and height 6$"),
        ((0, 0), (1, -1), ValueError, r"^goal \(1, -1\) is outside the grid of width 6 and height 6$"),
        ((0, 0.5), (1, 1), TypeError, r"^start must be an \(x, y\) tuple of ints, got \(0, 0.5\)$"),
        ((0, 0), (True, 1), TypeError, r"^goal must be an \(x, y\) tuple of ints, got \(True, 1\)$"),
        ((0, 0, 0), (1, 1), TypeError, r"^start must be an \(x, y\) tuple of ints"),
    ]:
        with pytest.raises(error, match=message):
            grid.search(start, goal)


@pytest.mark.parametrize(
    "options",
    [{}, {"algorithm": "jps"}, {"algorithm": "dijkstra"}, {"heuristic": "euclidean", "weight": 2.5},
     {"algorithm": "greedy", "diagonal": "never"}, {"max_nodes": 2**62}],
)  # fmt: skip
def test_the_parameters_flat_array_reads_back_as_the_parameters(options):
    # kernel.search_one takes KernelParams as one float64 array (KernelParams.flat) and reads it back
    # with compiled.unflat: every field must come back as it was (max_nodes capped past any search).
    from sim.pathfinding.compiled import Priority, unflat
    from sim.pathfinding.options import kernel_params, options_of

    costs = np.ones((5, 7))
    costs[2, 3] = 2.5
    for grid in (PathGrid(costs), PathGrid(np.ones((5, 7)))):
        get = options.get
        opts = options_of(None, get("diagonal", "no-corner-cutting"), get("heuristic"), get("weight", 1.0),
                          get("algorithm", "astar"), get("max_nodes"))  # fmt: skip
        p = kernel_params(opts, grid.min_cost, grid.uniform, grid.cells)
        flat = p.flat
        assert flat.dtype == np.float64 and len(flat) == 6 + len(Priority._fields)
        back = unflat(flat)
        assert back == (p.mode, p.metric, p.prio, p.unit, min(p.max_nodes, 2**53), p.heuristic, p.rule)
        assert all(type(v) is int for v in (back[0], back[1], back[4], back[5], back[6]))


@pytest.mark.parametrize("slots", [16, 64])
def test_the_bucket_queue_pops_in_priority_order_through_its_hash_rebuilds(slots):
    # The bucket queue remembers the buckets of the last two priorities pushed; a rebuild of its
    # hash renumbers the buckets, so a remembered id kept past one would put cells in another
    # priority's bucket. With a consistent heuristic A* expands cells in order of g* + h, g* being
    # the independent Dijkstra's cost: checked at every expansion of searches whose small tables
    # rebuild many times, and their traces equal a workspace's with the default table. (Keeping
    # the ids past a rebuild made 3 of these 18 traces differ.)
    from sim.pathfinding import workspace as W

    saved = getattr(W._local, "workspace", None)
    try:
        for seed in range(3):
            rng = np.random.default_rng(seed)
            costs = np.where(rng.random((60, 60)) < 0.25, 0.0, 1.0)
            free = np.argwhere(costs > 0)
            grid = PathGrid(costs)
            for _ in range(6):
                (sy, sx), (gy, gx) = free[rng.integers(len(free))], free[rng.integers(len(free))]
                start, goal = (int(sx), int(sy)), (int(gx), int(gy))
                dist = dijkstra(costs, start, "no-corner-cutting")
                traces = [_bucket_trace(grid, start, goal, dist, small, slots) for small in (True, False)]
                assert np.array_equal(traces[0], traces[1]), (seed, start, goal)
    finally:
        W._local.workspace = saved if saved is not None else W.Workspace()


def _bucket_trace(grid, start, goal, dist, small, slots):
    """The expansion order of a search on a fresh workspace (with bucket tables of ``slots``
    slots when ``small``), checked: the optimal cost, and g* + h never falling along it."""
    from sim.pathfinding import workspace as W

    W._local.workspace = ws = W.Workspace()
    if small:
        ws.buckets = (np.zeros(slots // 2), np.zeros((5, slots), np.int32), np.zeros((3, slots), np.int64),
                      np.zeros((2, 4096), np.int32))  # fmt: skip
    trace = np.full(grid.cells, -1, np.int32)
    r = grid.search(start, goal, trace=trace)
    assert r.found == (goal in dist) and (not r.found or r.cost == pytest.approx(dist[goal]))
    order = trace[: r.expanded]
    xs, ys = order % grid.width, order // grid.width
    dx, dy = np.abs(xs - goal[0]), np.abs(ys - goal[1])
    g = np.array([dist[(int(x), int(y))] for x, y in zip(xs, ys, strict=True)])
    f = g + np.maximum(dx, dy) + (math.sqrt(2) - 1) * np.minimum(dx, dy)
    assert (np.diff(f) > -1e-9).all(), (start, goal, small)
    return order
