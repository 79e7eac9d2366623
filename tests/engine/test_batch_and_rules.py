"""search_many answers exactly as search does; the reference agrees with the kernel; regions match reachability."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.pathfinding import STATUS_FOUND, STATUS_NOT_SERVED, AStar, PathGrid, Regions, label_regions
from sim.pathfinding.reference import python_search
from sim.pathfinding.rules import DIAGONAL_RULES
from tests.helpers import RULES, dijkstra, pts

OPTIONS = st.fixed_dictionaries(
    {
        "diagonal": st.sampled_from(RULES),
        "heuristic": st.sampled_from([None, "octile", "manhattan", "euclidean", "chebyshev", "zero", "landmarks"]),
        "weight": st.sampled_from([1.0, 1.0, 1.5, 3.0]),
        "algorithm": st.sampled_from(["astar", "astar", "dijkstra", "greedy"]),
        "max_nodes": st.sampled_from([None, None, 1, 5, 40]),
    }
)


@st.composite
def grids_and_queries(draw, uniform=False):
    h, w = draw(st.integers(1, 24)), draw(st.integers(1, 24))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    values = [0.0, 1.0, 1.0, 1.0] if uniform else [0.0, 0.0, 0.5, 0.85, 1.0, 1.0, 2.0, 5.0]
    costs = rng.choice(np.array(values), size=(h, w))
    k = draw(st.integers(0, 12))
    starts = np.stack((rng.integers(0, w, k), rng.integers(0, h, k)), 1)
    goals = np.stack((rng.integers(0, w, k), rng.integers(0, h, k)), 1)
    return costs, starts, goals


def one_at_a_time(grid: PathGrid, starts, goals, **options):
    return [grid.search(tuple(s), tuple(g), **options) for s, g in zip(starts.tolist(), goals.tolist(), strict=True)]


def assert_same(batch, singles, first: int | None = None) -> None:
    n = len(singles) if first is None else first
    for i in range(n):
        r = singles[i]
        assert batch.found[i] == r.found, i
        assert batch.expanded[i] == r.expanded, i
        assert batch.hit_limit[i] == r.hit_limit, i
        assert (batch.cost[i] == r.cost) or (math.isinf(batch.cost[i]) and math.isinf(r.cost)), i
        assert np.array_equal(batch.path(i), r.walk_path), i


@settings(max_examples=200, deadline=None)
@given(case=grids_and_queries(), options=OPTIONS)
def test_search_many_is_search_one_at_a_time(case, options):
    costs, starts, goals = case
    grid = PathGrid(costs)
    batch = grid.search_many(starts, goals, **options)
    assert batch.served == len(starts)
    assert_same(batch, one_at_a_time(grid, starts, goals, **options))


@settings(max_examples=80, deadline=None)
@given(case=grids_and_queries(uniform=True), jps=st.booleans())
def test_search_many_is_search_on_uniform_grids_too(case, jps):
    costs, starts, goals = case
    grid = PathGrid(costs)
    options = {"algorithm": "jps"} if jps and grid.uniform else {}
    assert_same(grid.search_many(starts, goals, **options), one_at_a_time(grid, starts, goals, **options))


@settings(max_examples=120, deadline=None)
@given(case=grids_and_queries(), budget=st.integers(0, 200))
def test_node_budget_takes_queries_while_the_expansions_are_below_it(case, budget):
    costs, starts, goals = case
    grid = PathGrid(costs)
    batch = grid.search_many(starts, goals, node_budget=budget)
    singles = one_at_a_time(grid, starts, goals)
    spent, served = 0, 0
    for r in singles:  # the sequential rule, written out
        if spent >= budget:
            break
        spent += r.expanded
        served += 1
    assert batch.served == served
    assert_same(batch, singles, served)
    assert (batch.status[served:] == STATUS_NOT_SERVED).all() and (batch.expanded[served:] == 0).all()


@pytest.mark.parametrize("budget", [None, 0, 500, 5000])
def test_threads_never_change_the_answers(budget):
    rng = np.random.default_rng(4)
    costs = np.where(rng.random((120, 160)) < 0.2, 0.0, rng.choice([0.85, 1.0, 1.6], size=(120, 160)))
    grid = PathGrid(costs)
    starts = np.stack((rng.integers(0, 160, 400), rng.integers(0, 120, 400)), 1)
    goals = np.clip(starts + rng.integers(-25, 26, (400, 2)), 0, [159, 119])
    one = grid.search_many(starts, goals, threads=1, node_budget=budget)
    for threads in (2, 3, 4):
        many = grid.search_many(starts, goals, threads=threads, node_budget=budget)
        assert many.served == one.served
        for name in ("found", "cost", "expanded", "status", "hit_limit", "offsets", "paths"):
            assert np.array_equal(getattr(many, name), getattr(one, name)), (threads, name)
    assert (one.status[: one.served] != STATUS_NOT_SERVED).all()


def test_a_batch_marks_blocked_endpoints_and_start_equals_goal():
    costs = np.ones((3, 3))
    costs[1, 1] = 0
    b = PathGrid(costs).search_many(np.array([[1, 1], [0, 0], [0, 0]]), np.array([[0, 0], [0, 0], [2, 2]]))
    assert b.found.tolist() == [False, True, True] and b.cost[1] == 0 and pts(b.path(1)) == [(0, 0)]
    assert b.status[0] != STATUS_FOUND and b.expanded[0] == 0 and len(b.path(0)) == 0


def test_a_batch_path_is_indexed_as_a_list_is_with_exact_errors():
    grid = PathGrid(np.ones((4, 5)))
    b = grid.search_many(np.array([[0, 0], [1, 1], [4, 3]]), np.array([[4, 3], [1, 1], [0, 0]]))
    assert pts(b.path(-1)) == pts(b.path(2)) and pts(b.path(-3)) == pts(b.path(0))
    assert pts(b.path(0)) == pts(grid.search((0, 0), (4, 3)).path)
    assert pts(b.path(np.int64(1))) == [(1, 1)]
    for bad in (3, -4, 10**20):
        with pytest.raises(ValueError, match=rf"^query {bad} is outside the batch of 3 queries$"):
            b.path(bad)
    for bad, shown in ((1.0, "1.0"), (True, "True"), ("0", "'0'"), (None, "None")):
        with pytest.raises(TypeError, match=rf"^i must be an int, got {shown}$"):
            b.path(bad)
    empty = grid.search_many(np.zeros((0, 2), np.int64), np.zeros((0, 2), np.int64))
    with pytest.raises(ValueError, match=r"^query 0 is outside the batch of 0 queries$"):
        empty.path(0)


@pytest.mark.parametrize("algorithm", ["astar", "jps", "jps+"])
def test_an_empty_batch_is_an_empty_result_not_an_error(algorithm):
    # (a frame where no animal asks: [] has no integer dtype, yet it is a list of no points)
    grid = PathGrid(np.ones((4, 5)))
    for none in ([], (), np.empty((0, 2)), np.empty((0, 2), np.int32)):
        b = grid.search_many(none, none, algorithm=algorithm)
        assert (len(b), b.served, b.found.shape, b.paths.size) == (0, 0, (0,), 0)
    with pytest.raises(ValueError, match=r"^starts must have shape \(k, 2\), got \(1, 3\)$"):
        grid.search_many([[0, 0, 0]], [[1, 1]])


def test_a_batch_result_is_a_read_only_value_with_every_field():
    # (made by BatchResult.made, not its frozen __init__: the same value, just as read-only)
    from dataclasses import FrozenInstanceError

    from sim.pathfinding import STATUS_HIT_LIMIT

    costs = np.ones((6, 8))
    costs[1:5, 4] = 0.0
    r = PathGrid(costs).search_many(np.array([[0, 2], [0, 0], [1, 1]]), np.array([[7, 2], [4, 2], [1, 1]]), max_nodes=3)
    assert list(r.found) == [False, False, True] and list(r.hit_limit) == [True, False, False]
    assert np.array_equal(r.found, r.status == STATUS_FOUND) and np.array_equal(
        r.hit_limit, r.status == STATUS_HIT_LIMIT
    )
    assert (r.served, r.width, len(r)) == (3, 8, 3) and r.cost[1] == math.inf and r.cost[2] == 0.0
    with pytest.raises(FrozenInstanceError):
        r.found = r.found  # type: ignore[misc]


def test_checked_options_and_points_are_remembered_without_letting_bad_ones_through():
    # Options that passed once are cached (keyed with their types) and valid points take a
    # compiled pass: neither may let a bad value through or change which error is raised.
    grid = PathGrid(np.ones((4, 5)))
    pts = np.array([[0, 0], [4, 3]])
    assert grid.search_many(pts, pts[::-1], weight=1, max_nodes=1).served == 2
    with pytest.raises(TypeError, match=r"^weight must be a number, got True$"):
        grid.search_many(pts, pts, weight=True)
    with pytest.raises(TypeError, match=r"^max_nodes must be an int or None, got True$"):
        grid.search_many(pts, pts, max_nodes=True)
    with pytest.raises(TypeError, match=r"^diagonal must be a string, got \['never'\]$"):
        grid.search_many(pts, pts, diagonal=["never"])
    with pytest.raises(ValueError, match=r"^weight must be a finite number >= 1, got nan$"):
        grid.search_many(pts, pts, weight=math.nan)
    # Points: the first problem is named, starts before goals, bounds before lengths.
    with pytest.raises(ValueError, match=r"^goals\[1\] \(5, 3\) is outside the grid of width 5 and height 4$"):
        grid.search_many(pts, np.array([[0, 0], [5, 3]]))
    with pytest.raises(ValueError, match=r"^starts\[0\] \(-1, 0\) is outside"):
        grid.search_many(np.array([[-1, 0]]), np.array([[9, 9], [0, 0]]))
    # A uint64 point past int64 is named as given, not wrapped to a negative number.
    with pytest.raises(ValueError, match=r"^starts\[1\] \(0, 9223372036854775808\) is outside the grid"):
        grid.search_many(np.array([[0, 0], [0, 2**63]], np.uint64), pts)
    with pytest.raises(ValueError, match=r"^starts and goals must have the same length, got 2 and 1$"):
        grid.search_many(pts, pts[:1])
    with pytest.raises(TypeError, match=r"^goals must be a \(k, 2\) array of int \(x, y\) points, got dtype float64$"):
        grid.search_many(pts, pts.astype(float))
    narrow = grid.search_many(pts.astype(np.uint8), pts[::-1].astype(np.int16))
    assert narrow.found.all() and tuple(narrow.path(0)[-1]) == (4, 3)


# ------------------------------------------------------------------ the reference search
class Hooked(AStar):
    """Per-edge hooks: served by the pure-Python reference search."""

    def cost(self, source, target):
        return super().cost(source, target)


@settings(max_examples=150, deadline=None)
@given(case=grids_and_queries(), rule=st.sampled_from(RULES))
def test_reference_and_kernel_agree_under_every_diagonal_rule(case, rule):
    costs, starts, goals = case
    terrain = np.where(costs > 0, (costs * 4).astype(np.int64), 0)  # ids: 0 blocked, else 4 * multiplier
    table = {t: t / 4.0 for t in np.unique(terrain) if t}
    kernel = AStar(terrain, diagonal=rule, terrain_costs=table)
    reference = Hooked(terrain, diagonal=rule, terrain_costs=table)
    for s, g in zip(starts.tolist(), goals.tolist(), strict=True):
        a, b = kernel.search(tuple(s), tuple(g)), reference.search(tuple(s), tuple(g))
        assert a.found == b.found, (s, g)
        if a.found:
            assert a.cost == pytest.approx(b.cost, rel=1e-9)
        else:
            assert math.isinf(a.cost) and math.isinf(b.cost)
        if not (kernel.passable(*s) and kernel.passable(*g)):  # a blocked endpoint: neither searches
            assert not a.found and a.expanded == b.expanded == 0


def test_reference_refuses_a_blocked_start_like_the_kernel():
    costs = np.ones((3, 3))
    costs[0, 0] = 0
    step = lambda a, b: float(costs[b[1], b[0]])  # noqa: E731
    free = lambda c: bool(costs[c[1], c[0]] > 0)  # noqa: E731
    for start, goal in (((0, 0), (2, 2)), ((0, 0), (0, 0)), ((2, 2), (0, 0))):
        r = python_search(3, 3, start, goal, step, lambda a, b: 0.0, free)
        k = PathGrid(costs).search(start, goal)
        assert (r.found, r.expanded, pts(r.path)) == (k.found, k.expanded, pts(k.path)) == (False, 0, [])


# ------------------------------------------------------------------ regions
@settings(max_examples=150, deadline=None)
@given(case=grids_and_queries(), rule=st.sampled_from(RULES))
def test_regions_match_reachability_under_every_diagonal_rule(case, rule):
    costs, starts, _goals = case
    labels, _ = label_regions(costs, rule)
    for s in starts.tolist():
        if costs[s[1], s[0]] <= 0:
            assert labels[s[1], s[0]] == 0
            continue
        reach = dijkstra(costs, tuple(s), rule)
        same = labels == labels[s[1], s[0]]
        assert {(x, y) for y, x in np.argwhere(same)} == set(reach), (s, rule)


def test_one_obstacle_joins_no_more_than_four_steps_do():
    # Two cells touching only at a corner, both side cells blocked: "one-obstacle" cannot cross.
    costs = np.array([[1.0, 0.0], [0.0, 1.0]])
    labels, n = label_regions(costs, "one-obstacle")
    assert n == 2 and labels[0, 0] != labels[1, 1]
    assert not PathGrid(costs).search((0, 0), (1, 1), diagonal="one-obstacle").found
    labels, n = label_regions(costs, "always")
    assert n == 1


@settings(max_examples=60, deadline=None)
@given(case=grids_and_queries(), rule=st.sampled_from(RULES), seed=st.integers(0, 2**32 - 1))
def test_incremental_regions_equal_a_fresh_labelling(case, rule, seed):
    from sim.world.geometry import CellRect

    costs, _, _ = case
    free = costs > 0
    regions = Regions(free, rule)
    rng = np.random.default_rng(seed)
    h, w = free.shape
    for _ in range(12):
        x0, y0 = int(rng.integers(w)), int(rng.integers(h))
        rect = CellRect(x0, y0, min(w, x0 + int(rng.integers(1, 5))), min(h, y0 + int(rng.integers(1, 5))))
        block = rng.random((rect.height, rect.width)) < 0.5
        free[rect.slices] = block
        regions.update(rect.x0, rect.y0, block)
        fresh, n = label_regions(free.astype(float), rule)
        pairs = {(int(a), int(b)) for a, b in zip(regions.labels.ravel(), fresh.ravel(), strict=True)}
        assert len(pairs) == len({a for a, _ in pairs}) == len({b for _, b in pairs})  # the same partition
        assert regions.count == n
        for label in np.unique(regions.labels[regions.labels > 0]):
            assert regions.sizes[label] == (regions.labels == label).sum()
    assert DIAGONAL_RULES[rule] >= 0


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_run_split_runs_at_most_threads_parts_at_once_and_answers_in_order(threads):
    # The calling thread runs a part too: the pool must have one worker fewer, or a round
    # cut into more parts than threads runs on one thread more than asked for. Without
    # timing: a barrier of ``threads`` parties passes only when that many parts run at once
    # (a hang guard of minutes fails it otherwise), and the parts ran on ``threads`` threads.
    import threading

    from sim.pathfinding.workspace import run_split

    barrier = threading.Barrier(threads)
    ran_on: set[int] = set()

    def part(i: int) -> int:
        barrier.wait(timeout=600)
        ran_on.add(threading.get_ident())
        return i * i

    assert run_split(part, [(i,) for i in range(threads)], threads) == [i * i for i in range(threads)]
    assert len(ran_on) == threads  # as many threads as asked: the caller's and threads - 1 workers
    assert run_split(lambda i: i * i, [(i,) for i in range(7)], threads) == [i * i for i in range(7)]  # in order


@pytest.mark.parametrize(
    ("call", "exc", "message"),
    [
        # (before: a KeyError 'x', and a numba typing error of many lines for a 1-D array)
        (lambda: label_regions(np.ones((3, 3)), "x"), ValueError,
         "unknown diagonal rule 'x'; expected one of never, no-corner-cutting, one-obstacle, always"),
        (lambda: label_regions(np.ones((3, 3)), None), TypeError, "diagonal must be a string, got None"),
        (lambda: label_regions(np.ones(3)), ValueError, "costs must be 2-D (indexed [y, x]), got 1-D with shape (3,)"),
        (lambda: label_regions(np.array([["a"]])), TypeError, "costs must have a real numeric dtype (int or float), got <U1"),  # noqa: E501
        (lambda: Regions(np.ones((2, 2, 2), bool)), ValueError, "free must be 2-D (indexed [y, x]), got 3-D with shape (2, 2, 2)"),  # noqa: E501
    ],
)  # fmt: skip
def test_region_labelling_refuses_bad_arguments_with_the_engines_messages(call, exc, message):
    with pytest.raises(exc) as info:
        call()
    assert type(info.value) is exc and str(info.value) == message
    labels, n = label_regions([[1, 0, 1]], "never")  # a list still serves, as before
    assert n == 2 and labels.tolist() == [[1, 0, 2]]
