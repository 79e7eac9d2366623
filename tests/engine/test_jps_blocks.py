"""Block-based JPS (sim.pathfinding.jps): its 64-cells-at-a-time scans find exactly the jump
points a cell-by-cell scan finds, its paths are legal and as cheap as Dijkstra's, and its
bits follow the grid after painting."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.pathfinding import PathGrid
from sim.pathfinding.jps import EAST, NORTH, SOUTH, WEST, build_blocks, line_words, scan
from sim.pathfinding.rules import DX, DY
from tests.helpers import dijkstra, path_cost


def reference_jump(free: np.ndarray, x: int, y: int, k: int, goal: tuple[int, int]) -> tuple[int, int] | None:
    """The straight jump from (x, y) in direction k, a cell at a time (JPS's rule under no
    corner cutting: a side cell free whose cell behind is blocked), or None."""
    dx, dy = int(DX[k]), int(DY[k])
    while True:
        x, y = x + dx, y + dy
        if not free[y, x]:
            return None
        if (x, y) == goal:
            return x, y
        for s in (-1, 1):
            sx, sy = (x, y + s) if dy == 0 else (x + s, y)
            bx, by = sx - dx, sy - dy
            if free[sy, sx] and not free[by, bx]:
                return x, y


def block_jump(blocks, free, x, y, k, goal):
    h, w = free.shape
    gx, gy = goal
    rs, cs = line_words(w, h)
    if k == 0:
        q = scan(blocks, EAST, y, x, gy, gx, rs)
        return None if q < 0 else (q, y)
    if k == 1:
        q = scan(blocks, WEST, y, w - 1 - x, gy, w - 1 - gx, rs)
        return None if q < 0 else (w - 1 - q, y)
    if k == 2:
        q = scan(blocks, SOUTH, x, y, gx, gy, cs)
        return None if q < 0 else (x, q)
    q = scan(blocks, NORTH, x, h - 1 - y, gx, h - 1 - gy, cs)
    return None if q < 0 else (x, h - 1 - q)


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    density=st.floats(0.0, 0.6),
    shape=st.tuples(st.integers(1, 150), st.integers(1, 150)),
)
def test_the_block_scan_finds_what_a_cell_by_cell_scan_finds(seed, density, shape):
    """Every free cell, every straight direction, on grids from 1 to 150 cells a side (scans
    that cross several 64-bit words and their seams), with a goal somewhere."""
    rng = np.random.default_rng(seed)
    h, w = shape
    free = np.zeros((h + 2, w + 2), bool)  # padded: a blocked border
    free[1:-1, 1:-1] = rng.random((h, w)) >= density
    blocks = build_blocks(free)
    cells = np.argwhere(free)
    goal = tuple(int(v) for v in cells[rng.integers(len(cells))][::-1]) if len(cells) else (1, 1)
    for y, x in cells[rng.permutation(len(cells))[:300]].tolist():
        for k in range(4):
            assert block_jump(blocks, free, x, y, k, goal) == reference_jump(free, x, y, k, goal), (x, y, k)


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    density=st.floats(0.0, 0.6),
    shape=st.tuples(st.integers(1, 140), st.integers(1, 140)),
)
def test_the_diagonal_planes_say_where_a_diagonal_step_is_legal(seed, density, shape):
    """Plane 4 + k, bit x of row y: the step k (4-7) from (x, y) is legal under no corner
    cutting, for every cell of a padded grid (words and their seams included)."""
    rng = np.random.default_rng(seed)
    h, w = shape
    free = np.zeros((h + 2, w + 2), bool)
    free[1:-1, 1:-1] = rng.random((h, w)) >= density
    bits = build_blocks(free).view(np.uint8)
    rs = line_words(w + 2, h + 2)[0]  # (words a row)
    for k in range(4, 8):
        rows = bits[4 + k].reshape(-1)[: (h + 2) * rs * 8].reshape(h + 2, rs * 8)
        plane = np.unpackbits(rows, axis=1, bitorder="little")[:, : w + 2].astype(bool)
        dx, dy = int(DX[k]), int(DY[k])
        for y in range(h + 2):
            for x in range(w + 2):
                inside = 0 <= x + dx < w + 2 and 0 <= y + dy < h + 2
                legal = inside and free[y, x + dx] and free[y + dy, x] and free[y + dy, x + dx]
                assert plane[y, x] == legal, (x, y, k)


def test_long_open_runs_cross_word_seams():
    free = np.zeros((5, 300), bool)
    free[1:-1, 1:-1] = True
    free[1, 200] = False  # one obstacle: a forced neighbour at x = 201 for a run along row 2
    blocks = build_blocks(free)
    assert block_jump(blocks, free, 1, 2, 0, (0, 0)) == (201, 2)
    assert block_jump(blocks, free, 298, 2, 1, (0, 0)) == (199, 2)
    assert block_jump(blocks, free, 1, 3, 0, (0, 0)) is None  # row 3: open to the wall
    assert block_jump(blocks, free, 1, 3, 0, (250, 3)) == (250, 3)  # the goal on the way


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), density=st.floats(0.0, 0.45))
def test_jps_paths_are_legal_and_as_cheap_as_dijkstra(seed, density):
    rng = np.random.default_rng(seed)
    h, w = (int(v) for v in rng.integers(2, 90, 2))
    costs = (rng.random((h, w)) >= density).astype(float) * float(rng.choice([1.0, 2.5]))
    grid = PathGrid(costs)
    free = np.argwhere(costs > 0)
    if len(free) < 2:
        return
    start = tuple(int(v) for v in free[rng.integers(len(free))][::-1])
    reach = dijkstra(costs, start, "no-corner-cutting")
    for goal in [tuple(int(v) for v in free[i][::-1]) for i in rng.integers(0, len(free), 5)]:
        r = grid.search(start, goal, algorithm="jps")
        best = reach.get(goal, math.inf)
        assert r.found == (best < math.inf)
        if r.found:
            assert math.isclose(r.cost, best, rel_tol=1e-9)
            assert math.isclose(path_cost(costs, r.path, "no-corner-cutting"), best, rel_tol=1e-9)


def test_the_bits_follow_painting():
    rng = np.random.default_rng(5)
    costs = (rng.random((70, 90)) > 0.2).astype(float)
    grid = PathGrid(costs)
    before = grid.blocks().copy()
    grid.update(10, 20, np.zeros((5, 7)))
    costs[20:25, 10:17] = 0
    fresh = build_blocks(np.pad(costs > 0, 1))
    assert np.array_equal(grid.blocks(), fresh) and not np.array_equal(before, fresh)
    start, goal = (0, 22), (89, 22)
    reach = dijkstra(costs, start, "no-corner-cutting")
    r = grid.search(start, goal, algorithm="jps")
    assert r.found == (goal in reach) and (not r.found or math.isclose(r.cost, reach[goal]))


def test_a_borrowed_view_is_the_array_itself_without_an_owner():
    # The JPS loop hands its arrays on as borrowed views (no reference counting): they must
    # read and write the very memory of the array they borrow, whatever its shape.
    from numba import njit

    from sim.pathfinding.common import borrowed

    @njit
    def write_through(a, b):
        va, vb = borrowed(a), borrowed(b)
        va[1] = 7
        vb[2, 3] = vb[0, 0] + 5
        return va.shape[0], vb.shape, vb.strides

    a, b = np.zeros(4, np.int32), np.arange(12, dtype=np.float64).reshape(3, 4)
    assert write_through(a, b) == (4, (3, 4), b.strides)
    assert a.tolist() == [0, 7, 0, 0] and b[2, 3] == 5.0


@settings(max_examples=300, deadline=None)
@given(width=st.integers(3, 2**16), y=st.integers(0, 2**31), x=st.integers(0, 2**16 - 1))
def test_cell_coordinates_without_a_division_are_exact(width, y, x):
    # jps._xy splits a padded index with a float reciprocal instead of an integer division;
    # it must agree with divmod for every grid the engine takes (under 2**31 cells).
    from sim.pathfinding.jps import _xy

    y = y % max(1, (2**31 - 1) // width)
    for cx in (0, x % width, width - 1):  # a row's first cell is where a plain reciprocal errs
        assert _xy(y * width + cx, width, (1.0 + 1e-12) / width) == (cx, y)


def test_a_thin_grid_takes_memory_by_its_cells_and_jps_answers_as_a_star():
    # 2 x 600,000 cells, both ways round, uniform and weighted (JPSW). Each line of the bits
    # takes its own length in words: one square of the longer side would be ~540 GB. And the
    # search's successor list (4.8 M entries, 38 MB) must live to the search's end: numba
    # once freed it after its last counted use, and an array that large is given back to the
    # system at once (a crash; a smaller one was a view of freed memory).
    w = 600_000
    for costs in (np.ones((2, w)), 1.0 + (np.arange(2 * w).reshape(2, w) // 8 % 2)):
        for c in (costs, costs.T):
            grid = PathGrid(c)
            goal = (c.shape[1] - 1, c.shape[0] - 1)
            r = grid.search((0, 0), goal, algorithm="jps")
            assert r.found and r.cost == grid.search((0, 0), goal).cost
            assert tuple(r.path[-1]) == goal
            assert grid.blocks().nbytes < 64 * (c.shape[0] + 2) * (c.shape[1] + 2)
