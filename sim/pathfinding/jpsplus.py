"""Jump point search with precomputed jump distances: JPS+ (Harabor & Grastien, "Improving Jump
Point Search", ICAPS 2014, section 5; S. Rabin, "JPS+: Over 100x Faster than A*", Game AI Pro 2).

Uniform costs, no corner cutting, the same jump points as block-based JPS (:mod:`.jps`):
travelling straight, a cell is a jump point when on a side line its neighbour is free and
the neighbour's cell behind it is blocked; travelling diagonally, a cell is one when a
straight run from it (along either component) meets a jump point.

The table (:func:`build_table`) holds, per padded cell and direction ``k`` (the order of
``rules.DX``/``rules.DY``), how far the run from that cell goes: ``d > 0``, the next jump
point is ``d`` steps away; ``d <= 0``, there is none and ``-d`` steps can be taken before a
blocked cell. A search then reads a jump as one table entry instead of scanning. The goal
is found as in Rabin's version: on a straight run that reaches its row or column within the
run's length, the goal itself is the successor; on a diagonal run towards it, the cell level
with it ("target jump point") is, if the run gets that far.

As in the paper's JPS2+ (and :mod:`.jps`'s block-based search), a diagonal run's jump points
are not put on the open list: the run goes from one to the next by the table, and at each the
straight jump points its two components' entries name are the successors, with their cost
through it. The search (``jps.jps_core``, given the table instead of the grid's bits) reads
each jump from one entry instead of scanning it. Block-based JPS ends a diagonal run at the
first cell the search has reached for less, looking at every cell; JPS+ looks only where a
run's table jump lands (one g-value a jump, not one a cell, each a row from the last: about a
cache miss a cell). It may then expand a few more nodes than JPS (0-6 % on the Moving AI maps),
and is up to 13 % faster for it (8room_000; as fast on lak303d, 2026-12-05).

After cells change (:func:`repair_table`), only what the change can reach is computed again:
the straight entries of the rows and columns through the change (and one more either side:
the forced-neighbour test reads the side lines), and the diagonal entries whose run passes
there, row by row in the order the runs depend on each other, for as long as entries change.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from sim.pathfinding.buckets import reached_for_less
from sim.pathfinding.rules import DX, DY, NO_PARENT

SQRT2 = math.sqrt(2.0)
#: The widest or highest grid the table serves: its entries are int16 run lengths.
MAX_SIDE = 32767


# The entries are computed without a branch (``&``, ``|`` and selects, every read made): on a map
# of scattered walls the branches' outcomes are as good as random, and a wrong guess cost more
# than all the reads (the table of a 512x512 map in 27 ms with them, 5 without; 2026-12-05).
@njit(cache=True, nogil=True, inline="always")
def _on(free, x, y, dx, dy):
    """Whether the next cell along ``(dx, dy)`` from ``(x, y)`` is a jump point of a
    straight run: on a side line, its neighbour free and the one behind that blocked."""
    qx, qy = x + dx, y + dy
    if dy == 0:
        return (free[qy - 1, qx] & ~free[y - 1, x]) | (free[qy + 1, qx] & ~free[y + 1, x])
    return (free[qy, qx - 1] & ~free[y, x - 1]) | (free[qy, qx + 1] & ~free[y, x + 1])


@njit(cache=True, nogil=True, inline="always")
def _went_on(v):
    """The entry of a cell whose run goes on into a cell of entry ``v``: one step longer."""
    return v + 1 if v > 0 else v - 1


@njit(cache=True, nogil=True, inline="always")
def _straight_from(free, x, y, k, v):
    """Entry ``k`` (a straight direction) of cell ``(x, y)`` when the next cell's is ``v``."""
    dx, dy = DX[k], DY[k]
    ok = free[y, x] & free[y + dy, x + dx]
    on = _went_on(v)
    on = 1 if _on(free, x, y, dx, dy) else on
    return on if ok else 0


@njit(cache=True, nogil=True, inline="always")
def _straight(free, table, w, x, y, k):
    """Entry ``k`` (a straight direction) of cell ``(x, y)``, from the next cell's (read first:
    a read under a branch is a branch)."""
    return _straight_from(free, x, y, k, np.int64(table[(y + DY[k]) * w + x + DX[k], k]))


@njit(cache=True, nogil=True, inline="always")
def _diagonal(free, table, w, x, y, k):
    """Entry ``k`` (a diagonal) of cell ``(x, y)``, from the next cell's entries."""
    dx, dy = DX[k], DY[k]
    ok = free[y, x] & free[y, x + dx] & free[y + dy, x] & free[y + dy, x + dx]
    q = (y + dy) * w + x + dx
    met = (table[q, 0 if dx > 0 else 1] > 0) | (table[q, 2 if dy > 0 else 3] > 0)  # a straight run meets one
    on = _went_on(np.int64(table[q, k]))  # (read first, as in _straight)
    on = 1 if met else on
    return on if ok else 0


@njit(cache=True, nogil=True)
def _rows(free, table, ylo, yhi):
    """The east and west entries of rows ``ylo .. yhi`` (clipped to the inside). Each entry is
    made from the one just made, kept at hand (not read back from the table: that waits on the
    write)."""
    h, w = free.shape
    for y in range(max(1, ylo), min(h - 2, yhi) + 1):
        v = np.int64(0)  # (the border's)
        for x in range(w - 2, 0, -1):
            v = _straight_from(free, x, y, 0, v)
            table[y * w + x, 0] = v
        v = np.int64(0)
        for x in range(1, w - 1):
            v = _straight_from(free, x, y, 1, v)
            table[y * w + x, 1] = v


@njit(cache=True, nogil=True)
def _columns(free, table, xlo, xhi):
    """The south and north entries of columns ``xlo .. xhi`` (clipped to the inside), as :func:`_rows`."""
    h, w = free.shape
    for x in range(max(1, xlo), min(w - 2, xhi) + 1):
        v = np.int64(0)
        for y in range(h - 2, 0, -1):
            v = _straight_from(free, x, y, 2, v)
            table[y * w + x, 2] = v
        v = np.int64(0)
        for y in range(1, h - 1):
            v = _straight_from(free, x, y, 3, v)
            table[y * w + x, 3] = v


@njit(cache=True, nogil=True)
def _diagonals(free, table, k, ylo, yhi, xlo, xhi):
    """Diagonal ``k``'s entries again where they may have changed: every cell of rows ``ylo
    .. yhi`` and of columns ``xlo .. xhi``, and, row by row in the order the runs depend on
    each other, every cell whose next cell's entry changed. Returns the entries computed."""
    h, w = free.shape
    dx, dy = DX[k], DY[k]
    prev = np.empty(w, np.int64)  # the columns whose entry changed in the row just done (y + dy)
    cur = np.empty(w, np.int64)
    todo = np.empty(w, np.int64)
    listed = np.zeros(w, np.bool_)
    n_prev = 0
    computed = 0
    first, stop, step = (h - 2, 0, -1) if dy > 0 else (1, h - 1, 1)
    for y in range(first, stop, step):
        lo, hi = (1, w - 2) if ylo <= y <= yhi else (max(1, xlo), min(w - 2, xhi))
        n = 0
        for x in range(lo, hi + 1):
            listed[x] = True
            todo[n] = x
            n += 1
        for j in range(n_prev):  # a cell's run goes on from the next cell's
            x = prev[j] - dx
            if 1 <= x <= w - 2 and not listed[x]:
                listed[x] = True
                todo[n] = x
                n += 1
        n_cur = 0
        for j in range(n):
            x = todo[j]
            listed[x] = False
            c = y * w + x
            v = _diagonal(free, table, w, x, y, k)
            computed += 1
            if v != table[c, k]:
                table[c, k] = v
                cur[n_cur] = x
                n_cur += 1
        prev, cur = cur, prev
        n_prev = n_cur
    return computed


@njit(cache=True, nogil=True)
def build_table(free):
    """The jump distances of a padded grid (``free``: bool ``[y, x]``, border blocked) as
    ``(cells, 8)`` int16, row ``y * W + x``, column ``k`` (see the module doc): 16 bytes a cell,
    as warthog's JPS+ (a run is at most as long as the grid is wide or high: :data:`MAX_SIDE`)."""
    h, w = free.shape
    table = np.zeros((h * w, 8), np.int16)
    _rows(free, table, 1, h - 2)
    # Every other entry in two sweeps over the rows, each in memory order: an entry towards +y
    # (south, and the two diagonals towards +y) reads only entries of the row after it, one
    # towards -y only those of the row before (and the east and west ones, made above). Column
    # by column (as _columns and _diagonals go, which repairs need) takes ~2x as long.
    for y in range(h - 2, 0, -1):
        for x in range(1, w - 1):
            c = y * w + x
            table[c, 2] = _straight(free, table, w, x, y, 2)
            table[c, 4] = _diagonal(free, table, w, x, y, 4)
            table[c, 5] = _diagonal(free, table, w, x, y, 5)
    for y in range(1, h - 1):
        for x in range(1, w - 1):
            c = y * w + x
            table[c, 3] = _straight(free, table, w, x, y, 3)
            table[c, 6] = _diagonal(free, table, w, x, y, 6)
            table[c, 7] = _diagonal(free, table, w, x, y, 7)
    return table


@njit(cache=True, nogil=True)
def repair_table(free, table, x0, y0, x1, y1):
    """``table`` made right again after the cells ``x0 .. x1``, ``y0 .. y1`` (padded, both
    ends included) changed in ``free``: the same entries :func:`build_table` would give.
    Returns how many entries were computed."""
    _rows(free, table, y0 - 1, y1 + 1)
    _columns(free, table, x0 - 1, x1 + 1)
    h, w = free.shape
    computed = (y1 - y0 + 3) * (w - 2) * 2 + (x1 - x0 + 3) * (h - 2) * 2
    for k in range(4, 8):
        computed += _diagonals(free, table, k, y0 - 2, y1 + 2, x0 - 2, x1 + 2)
    return computed


@njit(cache=True, nogil=True)
def _directions(table, u, d):
    """The directions to try from cell ``u`` reached by direction ``d``, as 8 bits: all at
    the start; after a diagonal the same one and its two components; after a straight run
    the same one, and for each side whose cell behind is blocked that side and the diagonal
    past it (the forced neighbours; as :func:`.jps._directions`), where the side cell is free.
    All of it is read from ``u``'s own entries, the row the search reads next anyway: the side
    cell is free exactly when the entry toward it is not 0, and then (the cell behind ``u`` is
    free: the run came through it) the cell behind the side is blocked exactly when the diagonal
    entry toward it is 0. (Read from the entries of the cell behind ``u``, a row away for a run
    along a column, it cost a cache line an expansion: ~8 % of JPS+'s samples on 8room_000.)"""
    if d == NO_PARENT:
        return 255
    dx, dy = DX[d], DY[d]
    if dx != 0 and dy != 0:
        return (1 << d) | (1 << (0 if dx > 0 else 1)) | (1 << (2 if dy > 0 else 3))
    dirs = 1 << d
    uu = np.uint64(u)
    for side in (-1, 1):
        if dx != 0:  # along a row: the sides are south (+1) and north
            k, back, past = (2 if side > 0 else 3), _diag(-dx, side), _diag(dx, side)
        else:  # along a column: east (+1) and west
            k, back, past = (0 if side > 0 else 1), _diag(side, -dy), _diag(side, dy)
        if table[uu, np.uint64(k)] != 0 and table[uu, np.uint64(back)] == 0:
            dirs |= (1 << k) | (1 << past)
    return dirs


@njit(cache=True, nogil=True, inline="always")
def _diag(dx, dy):
    if dy > 0:
        return 4 if dx > 0 else 5
    return 6 if dx > 0 else 7


@njit(cache=True, nogil=True, inline="always")
def _steps(table, u, k, ux, uy, goal_x, goal_y):
    """How far the successor of ``u`` along ``k`` is (0: none): the goal, or the cell level
    with it, when the run gets there first; else the run's jump point."""
    dist = np.int64(table[np.uint64(u), np.uint64(k)])
    dx, dy = DX[k], DY[k]
    if k < 4:
        ahead = (goal_x - ux) * dx if dy == 0 else (goal_y - uy) * dy
        if ahead > 0 and (uy == goal_y if dy == 0 else ux == goal_x) and ahead <= abs(dist):
            return ahead
    elif (goal_x - ux) * dx > 0 and (goal_y - uy) * dy > 0:
        m = min(abs(goal_x - ux), abs(goal_y - uy))
        if m <= abs(dist):
            return m
    return dist if dist > 0 else 0


@njit(cache=True, nogil=True, inline="always")
def table_points(table, width, ux, uy, d, goal_x, goal_y, found, gi, mark, open_mark, up, uq):
    """The jump points that succeed ``(ux, uy)`` reached by direction ``d``, read from
    ``table``, into ``found`` as ``v * 8 + k`` (``k``: the direction of the run that ends at
    ``v``); returns how many. As in block-based JPS (:func:`.jps._successor_points`, the
    paper's JPS2+), a diagonal run's jump points are not successors themselves: the straight
    jump points their table entries name are, and the run goes on from one to the next. Unless
    ``gi`` is empty, a run ends where a table jump lands on a cell the search has reached for
    less than the run gets there (its cells between are not looked at: see the module doc)."""
    u = uy * width + ux
    dirs = _directions(table, u, d)
    goal = goal_y * width + goal_x
    n = 0
    for k in range(8):
        if not (dirs >> k) & 1:
            continue
        if k < 4:
            s = _steps(table, u, k, ux, uy, goal_x, goal_y)
            if s > 0:
                found[n] = (u + s * (DX[k] + DY[k] * width)) * 8 + k
                n += 1
            continue
        dx, dy = DX[k], DY[k]
        kx, ky = 0 if dx > 0 else 1, 2 if dy > 0 else 3
        x, y, q = ux, uy, uq
        while True:
            s = _steps(table, y * width + x, k, x, y, goal_x, goal_y)
            if s == 0 or (
                gi.size > 0 and reached_for_less(gi, mark, open_mark, (y + s * dy) * width + x + s * dx, up, q + s)
            ):
                break
            x, y, q = x + s * dx, y + s * dy, q + s
            c = y * width + x
            if c == goal:
                found[n] = c * 8 + k
                n += 1
                break
            for ks in (kx, ky):
                t = _steps(table, c, ks, x, y, goal_x, goal_y)
                if t > 0:
                    found[n] = (c + t * (DX[ks] + DY[ks] * width)) * 8 + ks
                    n += 1
    return n


#: :func:`table_points` called, not inlined: for :func:`.jps.jps_core` (float costs, the heap:
#: JPS+ with the Euclidean heuristic or none). Inlined into both search loops it cost 8 s more
#: to compile; inlined only into the bucket queue's loop (the octile default) it buys JPS+ ~8 %.
table_points_called = njit(cache=True, nogil=True)(table_points.py_func)

__all__ = ["MAX_SIDE", "build_table", "repair_table", "table_points", "table_points_called"]
