"""Jump point search on weighted terrain (``algorithm="jps"`` on a grid of several multipliers,
sim.pathfinding.jpsw): the optimal costs of the independent Dijkstra, legal paths, A*'s costs on
every scenario of a weighted benchmark, and data that painting repairs to exactly what a new
grid makes."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.weighted import BLOB_COSTS, blob_costs
from sim.maps.movingai import GROUND, ground_costs, read_map, read_scenarios
from sim.pathfinding import PathGrid, find_path
from sim.pathfinding.rules import DX, DY
from tests.conftest import ROOT
from tests.helpers import assert_optimal, path_cost

DATA = ROOT / "tests" / "data"
RULE = "no-corner-cutting"


@st.composite
def weighted_grids(draw, max_side: int = 20):
    """A grid of walls and multipliers (scattered cells, or discs over plain ground) and two cells."""
    h, w = draw(st.integers(1, max_side)), draw(st.integers(1, max_side))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    values = draw(st.sampled_from([(1.0, 1.5, 2.0, 3.0), (0.5, 1.0, 7.0), (1.0, 1.1), (2.0, 2.5, 0.3)]))
    if draw(st.booleans()):  # every cell drawn on its own
        costs = rng.choice(values, size=(h, w))
    else:  # discs of terrain, the way maps have it
        costs = np.full((h, w), values[0])
        yy, xx = np.mgrid[:h, :w]
        for _ in range(int(rng.integers(1, 6))):
            cx, cy, r = rng.integers(0, w), rng.integers(0, h), rng.integers(1, 6)
            costs[(xx - cx) ** 2 + (yy - cy) ** 2 <= r * r] = rng.choice(values)
    costs[rng.random((h, w)) < draw(st.sampled_from([0.0, 0.1, 0.3]))] = 0.0
    return costs, *_endpoints(draw, w, h)


def _endpoints(draw, w: int, h: int) -> tuple[tuple[int, int], tuple[int, int]]:
    """A start and a goal anywhere on a ``w`` x ``h`` grid (walls too: then the search finds nothing)."""
    start = (draw(st.integers(0, w - 1)), draw(st.integers(0, h - 1)))
    goal = (draw(st.integers(0, w - 1)), draw(st.integers(0, h - 1)))
    return start, goal


@settings(max_examples=400, deadline=None)
@given(case=weighted_grids())
def test_jps_on_weighted_grids_costs_what_dijkstra_costs_and_its_paths_are_legal(case):
    costs, start, goal = case
    assert_optimal(find_path(costs, start, goal, algorithm="jps"), costs, start, goal, RULE)


@settings(max_examples=100, deadline=None)
@given(case=weighted_grids(max_side=30), data=st.data())
def test_search_many_with_jps_on_weighted_grids_answers_as_search_does(case, data):
    costs, _start, _goal = case
    h, w = costs.shape
    k = data.draw(st.integers(1, 12))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    starts = np.stack([rng.integers(0, w, k), rng.integers(0, h, k)], axis=1)
    goals = np.stack([rng.integers(0, w, k), rng.integers(0, h, k)], axis=1)
    grid = PathGrid(costs)
    batch = grid.search_many(starts, goals, algorithm="jps", threads=2)
    for i in range(k):
        one = grid.search(tuple(starts[i]), tuple(goals[i]), algorithm="jps")
        assert bool(batch.found[i]) == one.found
        if one.found:
            assert batch.cost[i] == one.cost and batch.expanded[i] == one.expanded
            assert np.array_equal(batch.path(i), one.walk_path)


@pytest.mark.parametrize("name", ["den312d", "lak303d", "Berlin_0_256"])
def test_every_scenario_of_the_weighted_benchmark_costs_what_astar_finds(name):
    """bench.weighted's grid of a bundled map (blobs of 1.5/2/3 over 40 % of the ground):
    every scenario, JPS's cost equal to A*'s, in one batch each."""
    chars = read_map(DATA / f"{name}.map")
    costs = blob_costs(ground_costs(chars), seed=1)
    assert set(np.unique(costs[costs > 0])) == {1.0, *BLOB_COSTS}
    scens = [s for s in read_scenarios(DATA / f"{name}.map.scen")
             if chars[s.start[1], s.start[0]] in GROUND and chars[s.goal[1], s.goal[0]] in GROUND]  # fmt: skip
    starts = np.array([s.start for s in scens])
    goals = np.array([s.goal for s in scens])
    grid = PathGrid(costs)
    astar = grid.search_many(starts, goals, algorithm="astar")
    jps = grid.search_many(starts, goals, algorithm="jps")
    assert len(scens) >= 300 and astar.found.all() and jps.found.all()
    np.testing.assert_allclose(jps.cost, astar.cost, rtol=1e-9)
    assert jps.expanded.sum() < astar.expanded.sum() / 2  # it jumps: far fewer expansions
    for i in range(0, len(scens), 97):  # and its paths are legal and cost what it says
        assert path_cost(costs, jps.path(i), RULE) == pytest.approx(jps.cost[i], rel=1e-9)
    assert grid.jps_table_ms > 0.0


@settings(max_examples=150, deadline=None)
@given(case=weighted_grids(max_side=24), data=st.data())
def test_painting_repairs_the_weighted_jps_data_to_what_a_new_grid_makes(case, data):
    costs, _start, _goal = case
    costs = costs.copy()
    if len(np.unique(costs[costs > 0])) < 2:
        costs[0, 0] = 9.0  # weighted from the start
    grid = PathGrid(costs)
    grid.blocks()
    h, w = costs.shape
    for _ in range(data.draw(st.integers(1, 3))):
        x0, y0 = data.draw(st.integers(0, w - 1)), data.draw(st.integers(0, h - 1))
        pw, ph = data.draw(st.integers(1, w - x0)), data.draw(st.integers(1, h - y0))
        patch = np.full((ph, pw), data.draw(st.sampled_from([0.0, 1.0, 2.0, 9.0, 0.25])))
        grid.update(x0, y0, patch)
        costs[y0 : y0 + ph, x0 : x0 + pw] = patch
        fresh = PathGrid(costs)
        assert np.array_equal(grid.blocks(), fresh.blocks())
    start = (data.draw(st.integers(0, w - 1)), data.draw(st.integers(0, h - 1)))
    goal = (data.draw(st.integers(0, w - 1)), data.draw(st.integers(0, h - 1)))
    assert grid.search(start, goal, algorithm="jps") == PathGrid(costs).search(start, goal, algorithm="jps")


@pytest.mark.parametrize("rule", ["never", "one-obstacle", "always"])
def test_weighted_jps_refuses_the_diagonal_rules_it_does_not_support(rule):
    costs = np.array([[1.0, 2.0, 3.0], [1.0, 1.0, 1.0]])
    with pytest.raises(ValueError) as info:
        find_path(costs, (0, 0), (2, 1), algorithm="jps", diagonal=rule)
    assert str(info.value) == f"algorithm 'jps' needs diagonal='no-corner-cutting', got {rule!r}"


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), density=st.sampled_from([0.1, 0.25, 0.4]))
def test_on_one_multiplier_the_weighted_rules_are_jps_own(seed, density):
    """JPSW's rule applied to a grid of one multiplier (the general rule, not the fast path that
    copies JPS) gives, for every legal arrival, JPS's natural and forced neighbours that are
    legal moves: block-based JPS's own successor sets."""
    from sim.pathfinding.jps import _directions, build_blocks
    from sim.pathfinding.jpsw import successor_table

    rng = np.random.default_rng(seed)
    costs = np.where(rng.random((rng.integers(1, 24), rng.integers(1, 24))) < density, 0.0, 1.0)
    codes, lut, moves, width, _blocks = PathGrid(costs).kernel_args(1)  # the padded grid
    height = codes.size // width
    table, stops = np.zeros(codes.size, np.uint64), np.zeros((4, height, width), bool)
    successor_table(codes, lut, width, table, stops, 0, height, 0, width, True)
    bits = build_blocks((lut[codes] > 0).reshape(height, width))
    for i in np.flatnonzero(lut[codes] > 0):
        for d in range(8):
            if (moves[i - DX[d] - DY[d] * width] >> d) & 1:  # the cell can be entered by d
                got = int(table[i] >> np.uint64(8 * d)) & 255
                assert got == _directions(bits, i % width, i // width, d, width // 64 + 2) & int(moves[i]), (i, d)
                if d < 4:  # a straight scan that way stops where there is more than going on
                    assert stops[d, i // width, i % width] == (got & ~(1 << d) != 0), (i, d)


def test_with_a_second_multiplier_out_of_reach_jpsw_answers_as_jps():
    """A grid whose second multiplier is walled off is searched with JPSW's table (and its
    prospective-g pruning): the same answers as block-based JPS on the grid without it."""
    rng = np.random.default_rng(5)
    costs = np.where(rng.random((40, 40)) < 0.2, 0.0, 1.0)
    walled = np.pad(costs, ((0, 0), (0, 2)))
    walled[0, -1] = 5.0  # a second multiplier, walled off
    plain, weighted = PathGrid(costs), PathGrid(walled)
    assert plain.uniform and not weighted.uniform
    for _ in range(200):
        s, g = tuple(rng.integers(0, 40, 2)), tuple(rng.integers(0, 40, 2))
        a, b = plain.search(s, g, algorithm="jps"), weighted.search(s, g, algorithm="jps")
        assert a.found == b.found
        if a.found:
            assert a.cost == pytest.approx(b.cost, rel=1e-12)
            assert path_cost(walled, b.path, "no-corner-cutting") == pytest.approx(b.cost)


@settings(max_examples=200, deadline=None)
@given(case=weighted_grids(max_side=16))
def test_jps_own_rules_where_walls_are_the_only_difference_are_the_general_rules(case):
    """The successor table takes JPS's own forced-neighbour rules for a cell whose 5x5 block has
    walls and one multiplier (fast); they must be exactly what the general rule gives there."""
    costs, _start, _goal = case
    _assert_table_is_the_general_rules(costs)


@pytest.mark.parametrize("terrain", ["squares", "scattered", "walls only"])
def test_a_table_made_by_looking_blocks_up_is_the_general_rules_table(terrain):
    """The successor table works each 5x5 block's entries out once and looks them up after that (by
    the block's codes; where blocks hardly repeat it stops looking): on grids large enough to fill
    its lookup table, and where it turns it off, every entry and stop is the general rule's."""
    rng = np.random.default_rng(11)
    side = 160
    if terrain == "squares":  # blocks repeat: most entries are looked up
        costs = np.kron(rng.choice((1.0, 1.5, 2.0, 3.0), size=(20, 20)), np.ones((8, 8)))
    elif terrain == "scattered":  # hardly any block repeats: the lookup turns itself off
        costs = rng.choice((1.0, 1.5, 2.0, 3.0, 7.0), size=(side, side))
    else:  # one multiplier: JPS's own rules, looked up by the walls around a cell
        costs = np.ones((side, side))
    costs[rng.random((side, side)) < 0.15] = 0.0
    _assert_table_is_the_general_rules(costs)


def _assert_table_is_the_general_rules(costs: np.ndarray) -> None:
    """The successor table and stops :func:`~sim.pathfinding.jpsw.successor_table` makes for ``costs``
    are the ones the general rule gives everywhere (``general=True``: nothing looked up)."""
    from sim.pathfinding.jpsw import successor_table

    codes, lut, _moves, width, _blocks = PathGrid(costs).kernel_args(1)  # the padded grid, as the kernels take it
    height = codes.size // width
    made = []
    for general in (False, True):
        table, stops = np.zeros(codes.size, np.uint64), np.zeros((4, height, width), bool)
        successor_table(codes, lut, width, table, stops, 0, height, 0, width, general)
        made.append((table, stops))
    assert np.array_equal(made[0][0], made[1][0]) and np.array_equal(made[0][1], made[1][1])


@st.composite
def fine_grained_grids(draw, max_side: int = 48):
    """Terrain that changes every ``k`` cells (squares of side 1 to 8, each a multiplier of 1, 1.5, 2
    or 3: the island's grain, where JPS on weighted terrain has the fewest long jumps), some walls."""
    h, w = draw(st.integers(2, max_side)), draw(st.integers(2, max_side))
    k = draw(st.integers(1, 8))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    blocks = rng.choice((1.0, 1.5, 2.0, 3.0), size=(-(-h // k), -(-w // k)))
    costs = np.kron(blocks, np.ones((k, k)))[:h, :w]
    costs[rng.random((h, w)) < draw(st.sampled_from([0.0, 0.05, 0.2]))] = 0.0
    return costs, *_endpoints(draw, w, h)


@settings(max_examples=300, deadline=None)
@given(case=fine_grained_grids())
def test_jps_on_terrain_that_changes_every_few_cells_costs_what_dijkstra_costs(case):
    costs, start, goal = case
    grid = PathGrid(costs)
    jps = grid.search(start, goal, algorithm="jps")
    assert_optimal(jps, costs, start, goal, RULE)
    astar = grid.search(start, goal)
    assert jps.found == astar.found and jps.cost == pytest.approx(astar.cost, rel=1e-9)


def test_an_improved_jump_point_moves_up_in_place_or_is_pushed_anew_and_the_heap_still_pops_in_order():
    # JPSW's open list (jps._enqueue): an open node improved while its entry is still where it was
    # put moves up in place instead of leaving a stale entry behind. Where it was put is a hint in
    # the top bits of the node's link, checked against the heap (entries move, a compaction
    # re-heapifies, an old search leaves any value behind). Driven here as the search drives it,
    # against a dictionary of live keys: every pop that is not stale must be the least live key,
    # the in-place move must happen, and the hints must never change a link's jump parent.
    from sim.pathfinding.common import METRIC_OCTILE, STAT_COMPACTIONS, _pop
    from sim.pathfinding.compiled import Priority
    from sim.pathfinding.jps import _HINTS, _enqueue, link_parent

    rng = np.random.default_rng(3)
    prio = Priority(1.0, 0.0)  # the key is g (h is left out), so a compaction knows which entries are live
    n, open_mark, moved_in_place, restarts, stats = 300, 2, 0, 0, np.zeros(4, np.int64)
    for _trial in range(30):
        heap_key, heap_node = np.zeros(48), np.zeros(48, np.int32)
        links = rng.integers(-(2**63), 2**63 - 1, n)  # what an old search (or the regions' scratch) left behind
        mark, g, live, parent, size = np.zeros(n, np.uint16), np.zeros(n), {}, {}, 0
        for _ in range(600):
            if size and rng.random() < 0.3:
                u, size = _pop(size, heap_key, heap_node)
                if mark[u] == open_mark + 1:
                    continue  # a stale entry: u was expanded already
                assert live[u] == min(live.values())
                mark[u] = open_mark + 1
                del live[int(u)]
                continue
            v = int(rng.integers(n))
            key = float(rng.integers(1, 10_000))
            if mark[v] == open_mark + 1 or key >= live.get(v, np.inf):
                continue  # closed, or not an improvement: the search would not enqueue it
            mv, mark[v], g[v], live[v] = mark[v], open_mark, key, key
            parent[v] = int(rng.integers(0, 2**31))
            links[v] = (links[v] & _HINTS) | (parent[v] * 16 + int(rng.integers(8)))  # as jps_core writes it
            before = size
            size = _enqueue(size, key, v, mv, links, heap_key, heap_node, g, mark, open_mark, 20, 0, 0, METRIC_OCTILE,
                            prio, stats)  # fmt: skip
            if size < 0:  # still over half full after a compaction: the search grows the heap and starts again
                restarts += 1
                break
            moved_in_place += mv == open_mark and size == before
        assert all(link_parent(links[v]) == p for v, p in parent.items())
    assert moved_in_place > 20 and stats[STAT_COMPACTIONS] > 0 and restarts > 0, (moved_in_place, stats, restarts)
