"""Distance fields and straight paths. A field is every cell's cost to one goal, checked against a
plain Dijkstra run from every cell (tests/helpers.py, no shared code) and exact at the Moving AI
scenario starts; the steps down it are optimal, legal and deterministic. A path pulled straight is
legal and never costlier. Boundary errors are exact."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.maps.movingai import ground_costs, read_map, read_scenarios
from sim.pathfinding import DIAGONAL_RULES, STEPS, PathGrid
from sim.pathfinding.compiled import padded_cell, step_legal
from sim.pathfinding.workspace import workspace
from tests.conftest import ROOT
from tests.helpers import RULES, dijkstra, passable, path_cost, pts, raises_exactly, step_allowed, step_cost

grids = st.tuples(st.integers(1, 9), st.integers(1, 9), st.integers(0, 2**31)).map(
    lambda t: np.random.default_rng(t[2]).choice([0.0, 0.25, 0.5, 1.0, 1.0, 2.0, 6.5], size=(t[0], t[1]))
)


@settings(max_examples=80, deadline=None)
@given(costs=grids, rule=st.sampled_from(RULES), pick=st.integers(0, 10**6))
def test_the_field_is_the_cheapest_cost_from_every_cell(costs, rule, pick):
    h, w = costs.shape
    goal = (pick % w, pick // w % h)
    grid = PathGrid(costs)
    field = grid.distance_field(goal, diagonal=rule)
    assert field.shape == (h, w) and field.dtype == np.float64
    for y in range(h):
        for x in range(w):
            want = (
                dijkstra(costs, (x, y), rule).get(goal, math.inf)
                if costs[y, x] > 0 and costs[goal[1], goal[0]] > 0
                else math.inf
            )
            assert field[y, x] == pytest.approx(want, rel=1e-12) if math.isfinite(want) else field[y, x] == math.inf
            if math.isfinite(want):  # the steps down the field are an optimal, legal path
                path = grid.descend(field, (x, y), diagonal=rule)
                assert tuple(path[0]) == (x, y) and tuple(path[-1]) == goal
                assert path_cost(costs, path, rule) == pytest.approx(want, rel=1e-12)
            else:
                assert len(grid.descend(field, (x, y), diagonal=rule)) == 0


# Grids of one multiplier with walls: where a field offers costs to canonical successors only
# (sim/pathfinding/field.py), against the independent Dijkstra.
one_cost_grids = st.tuples(
    st.integers(1, 14),
    st.integers(1, 14),
    st.integers(0, 2**31),
    st.sampled_from([0.0, 0.1, 0.25, 0.4]),
    st.sampled_from([1.0, 0.5, 3.0]),
).map(lambda t: np.where(np.random.default_rng(t[2]).random((t[0], t[1])) < t[3], 0.0, t[4]))


@settings(max_examples=120, deadline=None)
@given(costs=one_cost_grids, rule=st.sampled_from(RULES), pick=st.integers(0, 10**6))
def test_a_field_of_one_cost_with_walls_is_the_cheapest_cost_from_every_cell(costs, rule, pick):
    h, w = costs.shape
    goal = (pick % w, pick // w % h)
    field = PathGrid(costs).distance_field(goal, diagonal=rule)
    want = dijkstra(costs, goal, rule) if costs[goal[1], goal[0]] > 0 else {}  # (one cost: the same both ways)
    for y in range(h):
        for x in range(w):
            if (x, y) in want:
                assert field[y, x] == pytest.approx(want[(x, y)], rel=1e-12), (x, y)
            else:
                assert field[y, x] == math.inf, (x, y)


@settings(max_examples=60, deadline=None)
@given(costs=one_cost_grids, pick=st.integers(0, 10**6), chunk=st.integers(1, 9))
def test_a_field_of_one_cost_grown_a_few_cells_at_a_time_is_the_whole_field(costs, pick, chunk):
    grid, goal, growth = _growing(costs, "no-corner-cutting", pick)
    calls = 0
    while not growth.done:
        growth.grow(chunk)
        calls += 1
        assert calls <= grid.cells + 2
    assert np.array_equal(growth.field, grid.distance_field(goal))
    # and against the independent Dijkstra (growing keeps each cell's direction between calls)
    want = dijkstra(costs, goal, "no-corner-cutting") if costs[goal[1], goal[0]] > 0 else {}
    assert {(x, y) for y, x in zip(*np.nonzero(np.isfinite(growth.field)), strict=True)} == set(want)
    for (x, y), c in want.items():
        assert growth.field[y, x] == pytest.approx(c, rel=1e-12)


@settings(max_examples=40, deadline=None)
@given(costs=grids, rule=st.sampled_from(RULES), pick=st.integers(0, 10**6))
def test_each_step_goes_down_the_field_and_ties_take_the_first_direction(costs, rule, pick):
    h, w = costs.shape
    goal = (pick % w, pick // w % h)
    grid = PathGrid(costs)
    field = grid.distance_field(goal, diagonal=rule)
    steps = grid.field_steps(field, diagonal=rule)
    assert steps.dtype == np.int8 and np.array_equal(steps, grid.field_steps(field.copy(), diagonal=rule))
    for y in range(h):
        for x in range(w):
            k = int(steps[y, x])
            if not math.isfinite(field[y, x]) or (x, y) == goal:
                assert k == -1
                continue
            # every legal neighbour's "cost through it", by the reference's rules
            through = {}
            for j, (dx, dy) in enumerate(STEPS):
                n = (x + dx, y + dy)
                inside = 0 <= n[0] < w and 0 <= n[1] < h
                if inside and math.isfinite(field[n[1], n[0]]) and step_allowed(costs, (x, y), n, rule):
                    through[j] = field[n[1], n[0]] + step_cost(costs, (x, y), n)
            best = min(through.values())
            assert through[k] == pytest.approx(field[y, x], rel=1e-12) and through[k] == best
            assert k == min(j for j, v in through.items() if v == best)


def test_max_cost_stops_early_and_keeps_what_it_reached():
    costs = np.random.default_rng(3).choice([0.0, 1.0, 1.0, 2.0], size=(60, 80))
    costs[30, 40] = 1.0
    grid = PathGrid(costs)
    full = grid.distance_field((40, 30))
    cut = grid.distance_field((40, 30), max_cost=12.5)
    near = full <= 12.5
    assert near.sum() > 50 and (full > 12.5).any()
    assert np.array_equal(cut[near], full[near]) and np.isinf(cut[~near]).all()
    assert np.isinf(grid.distance_field((40, 30), max_cost=0)[~(full == 0)]).all()


def test_an_impassable_goal_and_an_island_are_inf_not_errors():
    costs = np.ones((5, 7))
    costs[:, 3] = 0  # two halves
    grid = PathGrid(costs)
    assert np.isinf(grid.distance_field((3, 2))).all()
    field = grid.distance_field((0, 0))
    assert np.isfinite(field[:, :3]).all() and np.isinf(field[:, 3:]).all()
    assert len(grid.descend(field, (6, 4))) == 0


def test_the_trace_lists_cells_in_settling_order():
    costs = np.random.default_rng(5).choice([0.0, 0.5, 1.0, 3.0], size=(30, 40))
    costs[10, 10] = 1.0
    grid = PathGrid(costs)
    trace = np.full(40 * 30 + 5, -7, dtype=np.int32)
    field = grid.distance_field((10, 10), trace=trace)
    n = int(np.isfinite(field).sum())
    cells = trace[:n]
    assert (
        trace[n:].tolist() == [-7] * (trace.size - n)
        and sorted(cells.tolist()) == np.flatnonzero(np.isfinite(field)).tolist()
    )
    order = field.reshape(-1)[cells]
    assert cells[0] == 10 * 40 + 10 and (np.diff(order) >= 0).all()


def test_a_small_heap_grows_and_the_answer_is_the_same():
    costs = np.random.default_rng(9).choice([0.0, 1.0, 1.5], size=(200, 200), p=[0.2, 0.5, 0.3])
    costs[100, 100] = 1.0
    grid = PathGrid(costs)
    want = grid.distance_field((100, 100))
    ws = workspace()
    ws.heap = (np.empty(8), np.empty(8, dtype=np.int32))
    grows = int(ws.stats[1])
    assert np.array_equal(grid.distance_field((100, 100)), want) and ws.stats[1] > grows


def _growing(costs, rule, pick):
    """A grid of ``costs``, a goal picked from ``pick``, and a field to it just started."""
    h, w = costs.shape
    goal = (pick % w, pick // w % h)
    grid = PathGrid(costs)
    return grid, goal, grid.grow_field(goal, diagonal=rule)


@settings(max_examples=60, deadline=None)
@given(costs=grids, rule=st.sampled_from(RULES), pick=st.integers(0, 10**6), chunk=st.integers(1, 7))
def test_a_field_grown_a_few_cells_at_a_time_is_the_whole_field(costs, rule, pick, chunk):
    grid, goal, growth = _growing(costs, rule, pick)
    want = grid.distance_field(goal, diagonal=rule)
    calls = 0
    while not growth.done:
        settled = growth.grow(chunk)
        assert 0 <= settled <= chunk
        # what is settled so far is already final: the cheapest cells, at their exact cost
        seen = np.isfinite(growth.field)
        assert seen.sum() == growth.settled
        assert np.array_equal(growth.field[seen], want[seen])
        if seen.any():
            assert want[~seen & np.isfinite(want)].min(initial=np.inf) >= growth.field[seen].max()
        calls += 1
        assert calls <= grid.cells + 2
    assert np.array_equal(growth.field, want)
    assert growth.grow(5) == 0 and growth.done


@settings(max_examples=40, deadline=None)
@given(costs=grids, rule=st.sampled_from(RULES), pick=st.integers(0, 10**6), cut=st.integers(1, 6))
def test_a_grown_fields_paths_for_a_crowd_are_descends_paths(costs, rule, pick, cut):
    h, w = costs.shape
    grid, _goal, growth = _growing(costs, rule, pick)
    if not growth.done:  # (an impassable goal is done at once)
        with pytest.raises(ValueError, match="the field is still growing: call grow"):
            growth.paths(np.zeros((1, 2), dtype=np.int64))
    while not growth.done:
        growth.grow(3)
    assert np.array_equal(growth.steps, grid.field_steps(growth.field, diagonal=rule))
    starts = np.array([(x, y) for y in range(h) for x in range(w)], dtype=np.int32)
    import sim.pathfinding.fieldgrid as fieldgrid

    kept = fieldgrid.WALK_BUFFER_CELLS
    for max_len, buffer in itertools.product((None, cut), (kept, 0)):  # (0: counted first, then walked)
        fieldgrid.WALK_BUFFER_CELLS = buffer
        try:
            cells, offsets = growth.paths(starts, max_len=max_len)
        finally:
            fieldgrid.WALK_BUFFER_CELLS = kept
        assert offsets.shape == (starts.shape[0] + 1,) and offsets[0] == 0 and offsets[-1] == cells.size
        for i, (x, y) in enumerate(starts.tolist()):
            want = [cy * w + cx for cx, cy in grid.descend(growth.field, (x, y), diagonal=rule)]
            assert cells[offsets[i] : offsets[i + 1]].tolist() == want[: max_len or len(want)]


def test_a_crowd_of_100000_walks_down_a_field_on_a_512_map_in_a_buffer_of_its_paths_size():
    # (before: a buffer for every walk's worst case, 100,000 x 262,144 cells: "Unable to allocate 98.4 GiB")
    grid = PathGrid(np.ones((512, 512)))
    growth = grid.grow_field((256, 256))
    while not growth.done:
        growth.grow(1 << 20)
    starts = np.random.default_rng(0).integers(0, 512, size=(100_000, 2))
    cells, offsets = growth.paths(starts)
    # on one cost the field's path has max(|dx|, |dy|) steps: one cell more
    want = np.maximum(np.abs(starts[:, 0] - 256), np.abs(starts[:, 1] - 256)) + 1
    assert np.array_equal(np.diff(offsets), want) and cells.size == want.sum()
    assert cells[offsets[-2]] == starts[-1, 1] * 512 + starts[-1, 0] and cells[offsets[-1] - 1] == 256 * 512 + 256


def test_two_fields_grow_side_by_side_and_a_zero_budget_settles_nothing():
    costs = np.random.default_rng(4).choice([0.0, 1.0, 3.0], size=(60, 80), p=[0.25, 0.5, 0.25])
    costs[5, 5] = costs[50, 70] = 1.0
    grid = PathGrid(costs)
    a, b = grid.grow_field((5, 5)), grid.grow_field((70, 50), diagonal="never")
    assert a.grow(0) == 0 and a.settled == 0 and not a.done
    while not (a.done and b.done):
        a.grow(97)
        grid.distance_field((0, 0))  # the shared workspace in between does not disturb them
        b.grow(131)
    assert np.array_equal(a.field, grid.distance_field((5, 5)))
    assert np.array_equal(b.field, grid.distance_field((70, 50), diagonal="never"))
    costs[0, 0] = 0.0
    wall = PathGrid(costs).grow_field((0, 0))  # an impassable goal: done at once, all inf
    assert wall.done and wall.grow(10) == 0 and np.isinf(wall.field).all()


@pytest.mark.parametrize("name", ["den312d", "lak303d", "Berlin_0_256"])
def test_exact_at_the_moving_ai_scenario_starts(name):
    path = ROOT / "tests" / "data" / f"{name}.map"
    grid = PathGrid(ground_costs(read_map(path)))
    scens = read_scenarios(path.with_name(path.name + ".scen"))
    by_goal: dict[tuple[int, int], list] = {}
    for s in scens:
        by_goal.setdefault(s.goal, []).append(s)
    rng = np.random.default_rng(1)
    goals = sorted(by_goal)
    for i in rng.choice(len(goals), size=min(40, len(goals)), replace=False):
        field = grid.distance_field(goals[i])
        for s in by_goal[goals[i]]:
            assert abs(field[s.start[1], s.start[0]] - s.optimal) <= s.tolerance, (name, s.line)


def _grown(grid: PathGrid):
    growth = grid.grow_field((0, 0))
    growth.grow(grid.cells)
    growth.grow(1)  # the call after the last cell says it is done
    return growth


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda g: g.distance_field((1, 2, 3)), TypeError, "goal must be an (x, y) tuple of ints, got (1, 2, 3)"),
        (lambda g: g.distance_field((5, 0)), ValueError, "goal (5, 0) is outside the grid of width 4 and height 3"),
        (lambda g: g.distance_field((0, 0), diagonal="sometimes"), ValueError, "unknown diagonal rule 'sometimes'; expected one of never, no-corner-cutting, one-obstacle, always"),  # noqa: E501
        (lambda g: g.distance_field((0, 0), max_cost=-1), ValueError, "max_cost must be >= 0, got -1"),
        (lambda g: g.distance_field((0, 0), max_cost=float("nan")), ValueError, "max_cost must be >= 0, got nan"),
        (lambda g: g.distance_field((0, 0), max_cost="9"), TypeError, "max_cost must be a number or None, got '9'"),
        (lambda g: g.distance_field((0, 0), max_cost=True), TypeError, "max_cost must be a number or None, got True"),
        (lambda g: g.distance_field((0, 0), trace=[0, 0]), TypeError, "trace must be a 1-D numpy int32 array"),
        (lambda g: g.field_steps(np.zeros((3, 4), dtype=np.float32)), TypeError, "field must be a float64 numpy array (from distance_field)"),  # noqa: E501
        (lambda g: g.field_steps(np.zeros((4, 3))), ValueError, "field must have the grid's shape (3, 4), got (4, 3)"),
        (lambda g: g.grow_field((4, 0)), ValueError, "goal (4, 0) is outside the grid of width 4 and height 3"),
        (lambda g: g.grow_field((0, 0), diagonal="x"), ValueError, "unknown diagonal rule 'x'; expected one of never, no-corner-cutting, one-obstacle, always"),  # noqa: E501
        (lambda g: g.grow_field((0, 0)).grow(-1), ValueError, "cells must be >= 0, got -1"),
        (lambda g: g.grow_field((0, 0)).grow(2.5), TypeError, "cells must be an int, got 2.5"),
        (lambda g: g.grow_field((0, 0)).grow(None), TypeError, "cells must be an int, got None"),
        (lambda g: _grown(g).paths(np.array([[4, 0]])), ValueError, "starts[0] (4, 0) is outside the grid of width 4 and height 3"),  # noqa: E501
        (lambda g: _grown(g).paths(np.zeros((2, 3), dtype=int)), ValueError, "starts must have shape (k, 2), got (2, 3)"),  # noqa: E501
        (lambda g: _grown(g).paths(np.zeros((1, 2)), max_len=0), TypeError, "starts must be a (k, 2) array of int (x, y) points, got dtype float64"),  # noqa: E501
        (lambda g: _grown(g).paths(np.zeros((1, 2), dtype=int), max_len=0), ValueError, "max_len must be >= 1, got 0"),
        (lambda g: g.descend(g.distance_field((0, 0)), (9, 9)), ValueError, "start (9, 9) is outside the grid of width 4 and height 3"),  # noqa: E501
    ],
)  # fmt: skip
def test_boundary_errors_are_exact(call, error, message):
    raises_exactly(lambda: call(PathGrid(np.ones((3, 4)))), error, message)


# ------------------------------------------------------------------ paths pulled straight
@settings(max_examples=80, deadline=None)
@given(costs=grids, rule=st.sampled_from(RULES), picks=st.tuples(st.integers(0, 10**6), st.integers(0, 10**6)))
def test_a_path_pulled_straight_is_legal_and_never_costlier(costs, rule, picks):
    h, w = costs.shape
    a, b = ((p % w, p // w % h) for p in picks)
    grid = PathGrid(costs)
    r = grid.search(a, b, diagonal=rule)
    if not r.found:
        return
    cells, ways = grid.smooth_path(r.path, diagonal=rule)
    assert tuple(cells[0]) == a and tuple(cells[-1]) == b and tuple(ways[0]) == a and tuple(ways[-1]) == b
    assert path_cost(costs, cells, rule) <= r.cost * (1 + 1e-12)  # legal (asserted inside) and no costlier
    it = iter(pts(cells))
    assert all(any(c == p for c in it) for p in pts(ways))  # the waypoints are cells of it, in order
    # Pulling again keeps it legal and never costlier. (It need not leave it unchanged: the
    # line to a cell inside a pulled segment can rasterise differently from that segment, so
    # greedy string pulling is not idempotent; hypothesis found such a 9x9 grid.)
    again, _ = grid.smooth_path(cells, diagonal=rule)
    assert tuple(again[0]) == a and tuple(again[-1]) == b
    assert path_cost(costs, again, rule) <= path_cost(costs, cells, rule) * (1 + 1e-12)
    flat = np.array([y * w + x for x, y in pts(r.path)], dtype=np.int32)
    many, offsets = grid.smooth_many(
        np.concatenate([flat, flat]), np.array([0, flat.size, 2 * flat.size]), diagonal=rule
    )
    want = [y * w + x for x, y in pts(cells)]
    assert many.tolist() == want + want and offsets.tolist() == [0, len(want), 2 * len(want)]  # nothing after them


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**31), rule=st.sampled_from(RULES), size=st.tuples(st.integers(1, 12), st.integers(1, 12)))
def test_a_straight_line_costs_what_its_rasterised_cells_cost(seed, rule, size):
    """The smoothing's line test walks its cells without dividing; checked against the rasterisation
    written out (cell t of n at ``floor(d*t/n + 0.5)``) on random costs, so a wrong cell shows."""
    from sim.pathfinding.field import _line_cost
    from sim.pathfinding.rules import DIAGONAL_RULES, DX, DY

    rng = np.random.default_rng(seed)
    h, w = size
    costs = rng.uniform(0.5, 3.0, size=(h, w))
    costs[rng.random((h, w)) < 0.15] = 0.0
    grid = PathGrid(costs)
    dir_of = np.zeros(9, dtype=np.int64)
    for k in range(8):
        dir_of[(DY[k] + 1) * 3 + DX[k] + 1] = k
    args = (grid._codes, grid._lut, grid.moves(DIAGONAL_RULES[rule]), w + 2, w)
    for _ in range(20):
        (x0, y0), (x1, y1) = ((int(rng.integers(w)), int(rng.integers(h))) for _ in range(2))
        n = max(abs(x1 - x0), abs(y1 - y0))
        cells = [(x0 + math.floor((x1 - x0) * t / n + 0.5), y0 + math.floor((y1 - y0) * t / n + 0.5))
                 for t in range(1, n + 1)]  # fmt: skip
        want, prev = 0.0, (x0, y0)
        for c in cells:  # (no step leaves a blocked cell: the grid's moves mask is empty there)
            if not passable(costs, *prev):
                want = math.inf
                break
            if not step_allowed(costs, prev, c, rule):
                want = math.inf
                break
            want += step_cost(costs, prev, c)
            prev = c
        assert _line_cost(*args, y0 * w + x0, y1 * w + x1, dir_of) == want


def test_on_open_ground_a_path_becomes_one_straight_line():
    grid = PathGrid(np.ones((10, 20)))
    r = grid.search((0, 0), (17, 6))
    assert len(grid.smooth_path(r.path)[1]) == 2 and pts(r.path) != pts(grid.smooth_path(r.path)[0])
    cells, _ = grid.smooth_path(r.path)
    for x, y in cells:  # every cell within half a cell of the line
        assert abs(17 * y - 6 * x) / math.hypot(17, 6) <= 0.5 + 1e-9
    assert pts(grid.smooth_path(cells)[0]) == pts(cells)  # where every line costs its length, a line stays as it is


def test_pulling_a_pulled_path_again_on_mixed_ground_stays_legal_and_as_cheap():
    # The grid on which hypothesis showed that pulling twice can move a cell: (0, 6) <-> (1, 6).
    costs = np.random.default_rng(9).choice([0.0, 0.25, 0.5, 1.0, 1.0, 2.0, 6.5], size=(9, 9))
    grid = PathGrid(costs)
    r = grid.search((0, 0), (0, 7))
    once, _ = grid.smooth_path(r.path)
    twice, _ = grid.smooth_path(once)
    assert tuple(twice[0]) == (0, 0) and tuple(twice[-1]) == (0, 7)
    assert path_cost(costs, twice, "no-corner-cutting") == pytest.approx(path_cost(costs, once, "no-corner-cutting"))
    assert path_cost(costs, once, "no-corner-cutting") <= r.cost * (1 + 1e-12)


def test_a_costlier_straight_line_is_not_taken():
    costs = np.ones((7, 9))
    costs[2:5, 2:7] = 5.0  # swamp in the middle: the straight line crosses it, the path goes round
    grid = PathGrid(costs)
    r = grid.search((0, 3), (8, 3), diagonal="always")
    cells, ways = grid.smooth_path(r.path, diagonal="always")
    assert path_cost(costs, cells, "always") == pytest.approx(r.cost) and len(ways) > 2
    assert not any(costs[y, x] > 1 for x, y in cells)


def test_smooth_path_boundary():
    grid = PathGrid(np.ones((3, 4)))
    with pytest.raises(ValueError, match=r"^path\[1\] \(9, 0\) is outside the grid of width 4 and height 3$"):
        grid.smooth_path([(0, 0), (9, 0)])
    with pytest.raises(TypeError, match=r"^path must be an \(n, 2\) integer array of \(x, y\) or a list of "
                                        r"points, got 'ab'$"):  # fmt: skip
        grid.smooth_path("ab")
    assert [pts(p) for p in grid.smooth_path([])] == [[], []]
    cells, ways = grid.smooth_path(np.array([[0, 0], [1, 0], [2, 0]]))  # an array, as the engine's paths are
    assert pts(cells) == [(0, 0), (1, 0), (2, 0)] and pts(ways) == [(0, 0), (2, 0)]
    with pytest.raises(TypeError, match=r"got an array of dtype float64 and shape \(2, 2\)$"):
        grid.smooth_path(np.zeros((2, 2)))
    with pytest.raises(ValueError, match=r"^path\[1\] \(4, 0\) is outside the grid of width 4 and height 3$"):
        grid.smooth_path(np.array([[3, 0], [4, 0]]))


def test_smoothing_refuses_anything_that_is_not_a_legal_path_of_the_grid():
    # A line between far-apart "path" cells would not fit the output (it once wrote past it).
    costs = np.ones((10, 10))
    costs[0, 1] = costs[1, 0] = 0  # (1, 0) and (0, 1) blocked: (0, 0) -> (1, 1) cuts a corner
    grid = PathGrid(costs)
    cases = [
        ([(0, 0), (5, 5), (9, 0)], r"^path\[1\] \(5, 5\) is not next to path\[0\] \(0, 0\): a path is a chain of"),
        ([(2, 2), (2, 2)], r"^path\[1\] \(2, 2\) is not next to path\[0\] \(2, 2\)"),
        ([(0, 0), (1, 1)], r"^path\[1\] \(1, 1\) cannot be entered from path\[0\] \(0, 0\) under diagonal rule "
                           r"'no-corner-cutting'$"),
        ([(1, 0), (2, 0)], r"^path\[0\] \(1, 0\) is impassable$"),
    ]  # fmt: skip
    for path, message in cases:
        with pytest.raises(ValueError, match=message):
            grid.smooth_path(path)
    assert pts(grid.smooth_path([(0, 0), (1, 1)], diagonal="always")[0]) == [(0, 0), (1, 1)]
    w = grid.width
    with pytest.raises(ValueError, match=r"^path 1: cell 1 \(4, 0\) is not next to cell 0 \(2, 0\)"):
        grid.smooth_many(np.array([22, 33, 2, 4], np.int32), np.array([0, 2, 4]))
    with pytest.raises(ValueError, match=r"^path 0: cell 1 100 is outside the grid$"):
        grid.smooth_many(np.array([99, 100]), np.array([0, 2]))
    with pytest.raises(ValueError, match=r"^offsets must start at 0, never decrease and end within paths \(size 2\)"):
        grid.smooth_many(np.array([22, 33]), np.array([0, 3]))
    with pytest.raises(TypeError, match=r"^paths must be a 1-D numpy int array"):
        grid.smooth_many([22, 33], np.array([0, 2]))
    cells, offsets = grid.smooth_many(np.array([2 * w + 2, 3 * w + 3], np.int32), np.array([0, 2]))
    assert cells.tolist() == [22, 33] and offsets.tolist() == [0, 2]


def test_descending_any_field_goes_strictly_downhill_and_bad_fields_are_refused():
    # A field that is not a distance field (made by hand, or stale) must not send a walker
    # round in circles: every step lowers the value, so a walk ends at a local minimum.
    rng = np.random.default_rng(3)
    grid = PathGrid(rng.choice([0.0, 1.0, 2.5], size=(12, 15)))
    for _ in range(300):
        f = rng.choice([np.inf, 0.0, 1.0, 3.0, 7.5, 1e300], size=(12, 15))
        start = (int(rng.integers(15)), int(rng.integers(12)))
        values = [f[y, x] for x, y in grid.descend(f, start)]
        assert all(a > b for a, b in itertools.pairwise(values))
    for bad, shown in ((np.nan, "nan"), (-2.0, "-2.0")):
        f = np.ones((12, 15))
        f[4, 7] = bad
        with pytest.raises(ValueError, match=rf"^field must hold costs >= 0 or inf \(from distance_field\), "
                                             rf"got {shown} at \(7, 4\)$"):  # fmt: skip
            grid.field_steps(f)


def test_an_astar_smooths_its_own_batch_like_smooth_many_does():
    from sim.pathfinding import AStar

    terrain = np.random.default_rng(4).choice([0, 0, 0, 1, 2], size=(30, 40)).astype(np.uint8)
    flyer = AStar(terrain, terrain_costs={0: 1.0, 1: 1.5})
    rng = np.random.default_rng(5)
    free = np.argwhere(terrain < 2)[:, ::-1]
    starts, goals = free[rng.integers(len(free), size=25)], free[rng.integers(len(free), size=25)]
    result = flyer.search_many(starts, goals)
    straight = flyer.smooth_batch(result)
    cells, offsets = flyer.grid.smooth_many(result.paths, result.offsets, diagonal=flyer.diagonal)
    assert np.array_equal(straight.paths, cells) and np.array_equal(straight.offsets, offsets)
    assert np.array_equal(straight.cost, result.cost) and straight.paths.size <= result.paths.size
    assert straight.paths.size == straight.offsets[-1] and cells.size == offsets[-1]  # the cells, no unused tail


def test_smooth_many_returns_exactly_the_smoothed_cells():
    # An L-shaped path pulled into a diagonal is shorter than it was: the flat array holds the
    # smoothed paths and nothing after them (it once kept the buffer's unwritten tail), and an
    # empty batch of one empty path is empty.
    grid = PathGrid(np.ones((10, 10)))
    ell = np.array([0, 1, 2, 3, 13, 23, 33], np.int32)
    cells, offsets = grid.smooth_many(np.concatenate([ell, ell]), np.array([0, 7, 14]))
    assert cells.tolist() == [0, 11, 22, 33, 0, 11, 22, 33] and offsets.tolist() == [0, 4, 8]
    cells, offsets = grid.smooth_many(np.zeros(0, np.int32), np.array([0]))
    assert cells.size == 0 and offsets.tolist() == [0]


@settings(max_examples=40, deadline=None)
@given(costs=grids, rule=st.sampled_from(RULES))
def test_the_compiled_tiers_step_check_agrees_with_the_rules_on_every_step(costs, rule):
    # what a compiled caller (the demo's re-planning) uses to ask "is this step still legal"
    h, w = costs.shape
    args = PathGrid(costs).kernel_args(DIAGONAL_RULES[rule])
    assert args.padded_width == w + 2
    for y, x, dy, dx in itertools.product(range(h), range(w), (-1, 0, 1), (-1, 0, 1)):
        if (dx, dy) == (0, 0) or not (0 <= x + dx < w and 0 <= y + dy < h) or not passable(costs, x, y):
            continue
        p, q = padded_cell(y * w + x, w), padded_cell((y + dy) * w + x + dx, w)
        assert (p, q) == ((y + 1) * (w + 2) + x + 1, (y + dy + 1) * (w + 2) + x + dx + 1)
        assert step_legal(args.moves, args.padded_width, p, q) == step_allowed(costs, (x, y), (x + dx, y + dy), rule)


def _first_break(costs, walk, rule):
    """The reference: the first cell of ``walk`` (``(x, y)`` points) that breaks it, or -1."""
    h, w = costs.shape
    for j, (x, y) in enumerate(walk):
        if not (0 <= x < w and 0 <= y < h):
            return j
        if j == 0:
            if not passable(costs, x, y):
                return 0
        elif not step_allowed(costs, walk[j - 1], (x, y), rule):
            return j
    return -1


@settings(max_examples=60, deadline=None)
@given(costs=grids, rule=st.sampled_from(RULES), seed=st.integers(0, 2**31))
def test_first_illegal_names_the_first_cell_that_breaks_each_path(costs, rule, seed):
    h, w = costs.shape
    rng = np.random.default_rng(seed)
    paths: list[list[tuple[int, int]]] = []
    for _ in range(6):  # random walks, mostly adjacent steps, now and then a jump or a step off the grid
        x, y = int(rng.integers(w)), int(rng.integers(h))
        walk = [(x, y)]
        for _ in range(int(rng.integers(0, 8))):
            x, y = x + int(rng.integers(-1, 2)), y + int(rng.integers(-1, 2))
            if rng.random() < 0.1:
                x += 3
            walk.append((x, y))
        paths.append(walk)

    flat = np.array([y * w + x if 0 <= x < w and 0 <= y < h else -1 for p in paths for x, y in p], dtype=np.int32)
    offsets = np.concatenate([[0], np.cumsum([len(p) for p in paths])]).astype(np.int64)
    got = PathGrid(costs).first_illegal(flat, offsets, diagonal=rule)
    assert got.tolist() == [_first_break(costs, p, rule) for p in paths]


def test_first_illegal_after_painting_and_its_boundary():
    costs = np.ones((5, 6))
    grid = PathGrid(costs)
    batch = grid.search_many(np.array([[0, 0], [0, 4]]), np.array([[5, 4], [5, 4]]))
    flat, offsets = batch.paths, batch.offsets
    assert grid.first_illegal(flat, offsets).tolist() == [-1, -1]
    cut = flat[offsets[0] + 2]  # wall off the third cell of the first path
    costs[cut // 6, cut % 6] = 0
    painted = PathGrid(costs)
    got = painted.first_illegal(flat, offsets)
    assert got[0] in (1, 2)  # the step into the wall, or a corner it now cuts
    walks = [[(int(c % 6), int(c // 6)) for c in flat[offsets[i] : offsets[i + 1]]] for i in range(2)]
    assert got.tolist() == [_first_break(costs, walk, "no-corner-cutting") for walk in walks]
    for paths, offs, error, message in [
        ([1, 2], offsets, TypeError, "paths must be a 1-D numpy int array (the batch format of search_many)"),
        (flat, offsets.astype(float), TypeError, "offsets must be a 1-D numpy int array (the batch format of search_many)"),  # noqa: E501
        (flat, np.array([0, 3, 2]), ValueError, f"offsets must start at 0, never decrease and end within paths (size {flat.size}), got [0, 3, 2]"),  # noqa: E501
        (flat, np.array([0, flat.size + 1]), ValueError, f"offsets must start at 0, never decrease and end within paths (size {flat.size}), got [0, {flat.size + 1}]"),  # noqa: E501
        (flat, np.array([0, 2**64 - 1], dtype=np.uint64), ValueError, f"offsets must start at 0, never decrease and end within paths (size {flat.size}), got [0, {2**64 - 1}]"),  # noqa: E501
    ]:  # fmt: skip
        raises_exactly(lambda p=paths, o=offs: grid.first_illegal(p, o), error, message)
    assert grid.first_illegal(flat, np.array([0])).shape == (0,)
