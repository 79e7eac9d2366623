"""JPS+ (``algorithm="jps+"``, sim.pathfinding.jpsplus): the optimal costs of the independent
Dijkstra on uniform grids, legal paths, optimal on the Moving AI scenarios; its jump table is
made on first use and, after the grid changes, repaired to exactly the table a new grid makes."""

from __future__ import annotations

import numba
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.maps.movingai import GROUND, ground_costs, read_map, read_scenarios
from sim.pathfinding import PathGrid, find_path
from sim.pathfinding.jpsplus import build_table
from tests.conftest import ROOT
from tests.helpers import assert_optimal, free_pairs, path_cost, pts

DATA = ROOT / "tests" / "data"
RULE = "no-corner-cutting"


@st.composite
def uniform_grids(draw, max_side: int = 24):
    """A grid of free and blocked cells (the density drawn too) and two of its cells."""
    h, w = draw(st.integers(1, max_side)), draw(st.integers(1, max_side))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    costs = (rng.random((h, w)) > draw(st.sampled_from([0.0, 0.1, 0.25, 0.4]))).astype(np.float64)
    start = (draw(st.integers(0, w - 1)), draw(st.integers(0, h - 1)))
    goal = (draw(st.integers(0, w - 1)), draw(st.integers(0, h - 1)))
    return costs, start, goal


@settings(max_examples=300, deadline=None)
@given(case=uniform_grids(), unit=st.sampled_from([1.0, 0.5, 3.0]))
def test_jps_plus_costs_equal_dijkstra_and_its_paths_are_legal(case, unit):
    costs, start, goal = case
    costs = costs * unit
    assert_optimal(find_path(costs, start, goal, algorithm="jps+"), costs, start, goal, RULE)


@settings(max_examples=300, deadline=None)
@given(case=uniform_grids(max_side=40))
def test_jps_plus_finds_what_block_based_jps_finds_through_jump_points(case):
    # JPS2+ (Harabor & Grastien 2014): the table gives the jumps block-based JPS scans for, and a
    # diagonal run's jump points are pruned as JPS2 prunes them (their straight jump points are
    # the successors). JPS+ checks "reached for less" only where a table jump lands, so it may
    # expand more nodes than JPS, never another cost; its turning points are JPS's kind of point.
    costs, start, goal = case
    grid = PathGrid(costs)
    if not (grid.passable(*start) and grid.passable(*goal)):
        return
    jps, plus = grid.search(start, goal, algorithm="jps"), grid.search(start, goal, algorithm="jps+")
    assert plus.found == jps.found
    assert plus.cost == pytest.approx(jps.cost)
    if plus.found:
        assert_optimal(plus, costs, start, goal, RULE)


@pytest.mark.parametrize("name", ["den312d", "lak303d", "Berlin_0_256"])
def test_every_scenario_of_the_bundled_maps_is_optimal_with_jps_plus(name):
    chars = read_map(DATA / f"{name}.map")
    costs = ground_costs(chars)
    grid = PathGrid(costs)
    n = plus = jps = 0
    for s in read_scenarios(DATA / f"{name}.map.scen"):
        if chars[s.start[1], s.start[0]] not in GROUND or chars[s.goal[1], s.goal[0]] not in GROUND:
            continue
        r = grid.search(s.start, s.goal, algorithm="jps+")
        assert r.found and abs(r.cost - s.optimal) <= s.tolerance, (name, s.line, r.cost, s.optimal)
        assert path_cost(costs, r.path, RULE) == pytest.approx(r.cost), (name, s.line)
        n += 1
        plus += r.expanded
        jps += grid.search(s.start, s.goal, algorithm="jps").expanded
    assert n >= 300
    # Its lighter pruning (a look where each table jump lands, not at every cell) costs few nodes.
    assert plus <= 1.1 * jps, (plus, jps)
    assert grid.jump_table_ms > 0.0  # made once, on first use, and the time it took is told


@settings(max_examples=200, deadline=None)
@given(case=uniform_grids(max_side=30), data=st.data())
def test_a_repaired_table_is_the_table_a_new_grid_makes(case, data):
    costs, _start, _goal = case
    h, w = costs.shape
    grid = PathGrid(costs)
    grid.jump_table()
    for _ in range(data.draw(st.integers(1, 3))):  # strokes one after another
        x0, y0 = data.draw(st.integers(0, w - 1)), data.draw(st.integers(0, h - 1))
        x1, y1 = data.draw(st.integers(x0, w - 1)), data.draw(st.integers(y0, h - 1))
        patch = np.random.default_rng(data.draw(st.integers(0, 999))).random((y1 - y0 + 1, x1 - x0 + 1)) > 0.5
        grid.update(x0, y0, patch.astype(np.float64))
        costs[y0 : y1 + 1, x0 : x1 + 1] = patch
        fresh = build_table(np.pad(costs > 0, 1))
        assert np.array_equal(grid.jump_table(), fresh)


def test_jps_and_jps_plus_hand_the_kernels_grid_data_of_one_type():
    # One compiled kernel serves both (numba compiles a kernel again for every new type of
    # argument): JPS+'s table goes as one plane of the uint64 words JPS's bits are made of.
    grid = PathGrid(np.ones((9, 13)))
    bits, table = grid.kernel_args(0, True).blocks, grid.kernel_args(0, "jps+").blocks
    assert numba.typeof(bits) == numba.typeof(table)
    assert table.shape[0] == 1 < bits.shape[0]
    assert np.array_equal(table[0].view(np.int16), grid.jump_table())
    grid.update(4, 3, np.zeros((2, 2)))  # repaired in place: the kernels' view sees it
    assert np.array_equal(grid.kernel_args(0, "jps+").blocks[0].view(np.int16), build_table(np.pad(grid.costs > 0, 1)))


def test_searches_after_painting_are_a_new_grids_answers():
    rng = np.random.default_rng(3)
    costs = (rng.random((60, 80)) > 0.25).astype(np.float64)
    grid = PathGrid(costs)
    free = np.argwhere(costs > 0)
    pairs = [tuple(map(tuple, free[rng.integers(len(free), size=2)][:, ::-1].tolist())) for _ in range(30)]
    for s, g in pairs:
        grid.search(s, g, algorithm="jps+")
    for x, y in ((10, 10), (40, 30), (70, 50)):  # strokes of radius 3 across the searches' paths
        patch = np.zeros((7, 7))
        grid.update(x - 3, y - 3, patch)
        costs[y - 3 : y + 4, x - 3 : x + 4] = patch
    assert grid.jump_repair_ms > 0.0
    fresh = PathGrid(costs)
    for s, g in pairs:
        r, f = grid.search(s, g, algorithm="jps+"), fresh.search(s, g, algorithm="astar")
        assert r.found == f.found and (not r.found or r.cost == pytest.approx(f.cost))


def test_many_searches_answer_as_one_at_a_time():
    rng = np.random.default_rng(11)
    costs = (rng.random((40, 50)) > 0.3).astype(np.float64)
    grid = PathGrid(costs)
    starts, goals = free_pairs(costs, rng, 40)
    batch = grid.search_many(starts, goals, algorithm="jps+", threads=2)
    for i, (s, g) in enumerate(zip(starts.tolist(), goals.tolist(), strict=True)):
        one = grid.search(tuple(s), tuple(g), algorithm="jps+")
        assert batch.found[i] == one.found
        if one.found:  # (an unreachable goal's batch row holds the partial path instead)
            assert batch.cost[i] == pytest.approx(one.cost) and np.array_equal(batch.path(i), one.path)


def test_jps_plus_refuses_what_it_cannot_search():
    with pytest.raises(ValueError, match=r"^algorithm 'jps\+' needs every passable cell to cost the same"):
        find_path(np.array([[1.0, 2.0], [1.0, 1.0]]), (0, 0), (1, 1), algorithm="jps+")
    with pytest.raises(ValueError, match=r"^algorithm 'jps\+' needs diagonal='no-corner-cutting', got 'always'$"):
        find_path(np.ones((3, 3)), (0, 0), (2, 2), algorithm="jps+", diagonal="always")
    with pytest.raises(ValueError, match=r"^algorithm 'jps\+' serves grids up to 32767 cells wide and high .*"
                                         r"this grid is 32768 by 1$"):  # fmt: skip
        find_path(np.ones((1, 32768)), (0, 0), (5, 0), algorithm="jps+")


def test_the_longest_run_a_table_holds_is_searched():
    # Entries are int16 run lengths: a grid 32767 wide is the widest JPS+ serves.
    grid = PathGrid(np.ones((2, 32767)))
    r = grid.search((0, 0), (32766, 1), algorithm="jps+")
    assert r.found and r.cost == pytest.approx(32765 + 2**0.5) and tuple(r.path[-1]) == (32766, 1)
    assert grid.jump_table().nbytes == 16 * 4 * 32769  # 16 bytes a padded cell


def _reference_entry(free: np.ndarray, x: int, y: int, k: int) -> int:
    """A table entry by its definition, walking the run cell by cell (independent of jpsplus):
    ``d > 0`` the next jump point ``d`` steps away, else ``-d`` steps before the run stops."""
    dx, dy = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, 1), (1, -1), (-1, -1))[k]
    d = 0
    while free[y, x] and free[y + dy, x + dx] and (dx == 0 or dy == 0 or (free[y, x + dx] and free[y + dy, x])):
        d += 1
        x, y = x + dx, y + dy
        if dx == 0 or dy == 0:  # a forced neighbour: a side cell free whose cell behind is blocked
            sides = ((0, -1), (0, 1)) if dy == 0 else ((-1, 0), (1, 0))
            if any(free[y + sy, x + sx] and not free[y + sy - dy, x + sx - dx] for sx, sy in sides):
                return d
        elif any(_reference_entry(free, x, y, side) > 0 for side in (0 if dx > 0 else 1, 2 if dy > 0 else 3)):
            return d
    return -d


@pytest.mark.parametrize("seed", range(6))
def test_a_new_table_holds_every_run_as_its_definition_says(seed):
    rng = np.random.default_rng(seed)
    h, w = rng.integers(3, 18, size=2)
    free = np.pad(rng.random((h, w)) > rng.choice([0.0, 0.15, 0.3, 0.5]), 1)
    table = build_table(free)
    assert table.dtype == np.int16 and table.shape == (free.size, 8)
    want = [[_reference_entry(free, x, y, k) if free[y, x] else 0 for k in range(8)]
            for y in range(free.shape[0]) for x in range(free.shape[1])]  # fmt: skip
    assert table.tolist() == want


def test_a_result_reads_as_the_value_it_always_was():
    """The engine's results keep their path as cells and make the points when first read: the
    result is still a read-only value equal to one made from the points."""
    from dataclasses import FrozenInstanceError

    from sim.pathfinding import SearchResult

    costs = np.ones((6, 8))
    costs[1:5, 4] = 0.0
    grid = PathGrid(costs)
    r = grid.search((0, 2), (7, 2), algorithm="jps+")
    eager = SearchResult(True, list(r.path), r.cost, r.expanded)
    assert r == eager and tuple(r.path[0]) == (0, 2) and tuple(r.path[-1]) == (7, 2)
    assert np.array_equal(r.walk_path, r.path)
    assert repr(r) == repr(eager)
    with pytest.raises(FrozenInstanceError):
        r.cost = 0.0  # type: ignore[misc]
    assert type(r) is SearchResult and isinstance(r, SearchResult)  # (filled in as another class, then set)
    with pytest.raises(ValueError, match="read-only"):
        r.path[0, 0] = 5
    costs[:, 4] = 0.0
    cut = PathGrid(costs).search((0, 2), (7, 2))
    assert not cut.found and len(cut.path) == 0 and tuple(cut.partial_path[0]) == (0, 2)
    assert all(x < 4 for x, _y in pts(cut.partial_path)) and np.array_equal(cut.walk_path, cut.partial_path)
    with pytest.raises(FrozenInstanceError):
        cut.found = True  # type: ignore[misc]
    assert not cut.partial_path.flags.writeable


@settings(max_examples=150, deadline=None)
@given(case=uniform_grids(max_side=30), heuristic=st.sampled_from(["octile", "chebyshev", "euclidean", "zero"]))
def test_jps_and_jps_plus_are_optimal_with_every_admissible_heuristic(case, heuristic):
    # Octile and Chebyshev run with integer-pair costs (jps_pairs_core), the Euclidean heuristic
    # and none (Dijkstra's order) with float costs (jps_core).
    costs, start, goal = case
    for algorithm in ("jps", "jps+"):
        r = find_path(costs, start, goal, algorithm=algorithm, heuristic=heuristic)
        assert_optimal(r, costs, start, goal, RULE)


def test_prospective_pruning_compares_costs_exactly():
    # A diagonal run ends at a cell reached for strictly less than the run costs there; costs
    # are integer pairs p + q*sqrt(2), and 70*sqrt(2) = 98.9949... lies between 98 and 99.
    from sim.pathfinding.buckets import reached_for_less

    g, mark, open_mark = np.zeros(2, np.int64), np.zeros(2, np.uint16), 10
    g[1], mark[1] = (0 << 32) | 70, open_mark
    assert reached_for_less(g, mark, open_mark, 1, 99, 0)
    assert not reached_for_less(g, mark, open_mark, 1, 98, 0)
    assert not reached_for_less(g, mark, open_mark, 1, 0, 70)  # as costly: not beaten
    mark[1] = open_mark + 1  # closed this search: still reached
    assert reached_for_less(g, mark, open_mark, 1, 99, 0)
    mark[1] = open_mark - 1  # a stamp of an earlier search: not reached
    assert not reached_for_less(g, mark, open_mark, 1, 99, 0)
