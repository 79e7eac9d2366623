"""Block-based jump point search (Harabor & Grastien, "Improving Jump Point Search", ICAPS 2014).

Uniform-cost grids, no corner cutting (a diagonal step needs both side cells free). The
grid is kept as bits, 64 cells to a word, in four orientations (:func:`build_blocks`):
its rows read east and read west, its columns read south and read north. A jump point
on a line is where a neighbouring line's cell is free and the one behind it blocked (a
forced neighbour); a plane per orientation marks those cells and the blocked ones, so a
straight scan looks at 64 cells a step, one word pair and a count of trailing zeros, and
then asks whether the cell it halted at is free. Diagonal jumps step one cell at a time
(a plane per diagonal direction says where a step is legal) and call the two straight
scans at every step.

As in JPS2 (the paper's "pruning intermediate jump points"), the turning point of a
diagonal jump is not put on the open list: the jump points its straight scans find are,
directly, with their cost through it, and the diagonal goes on. A node's link is the
direction of its last straight or diagonal run and the node it was reached from (its
jump parent; :func:`record_views`); when the run there turned (diagonal, then straight),
the turning point follows from the two and the direction (:func:`turn_of`), so the path
needs no more memory than before.

Rules (travelling in direction ``(dx, dy)``, no corner cutting):

* straight: a cell is a jump point when, on a side line, its neighbour is free and the
  neighbour's cell behind it is blocked; from a jump point reached straight, the search
  goes on straight and turns to those sides (straight and diagonal);
* diagonal: successors are the two straight components and the diagonal; no forced ones.

Two search loops run it, both serving JPS+ too (:mod:`.jpsplus`: given the grid's jump table
instead of its bits, they read each jump from the table and prune as here). On a uniform grid
with an exact heuristic, :func:`jps_pairs_core` keeps costs as integer pairs ``p + q*√2`` (on the
heap, keyed by their exact values), and a diagonal run also ends at a cell already reached for less
(JPSW's prospective-g pruning, exact there). Otherwise :func:`jps_core` keeps float costs on a
heap; on a grid of several multipliers it follows JPSW's rules (:mod:`.jpsw`): the successors of
a jump point come from a table the grid's JPS data carries, and scans and diagonal runs also stop
where that table says.

Every function here takes the padded grid of :mod:`.kernel` (a blocked border), so no
scan needs a bounds check beyond the words' ends.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from sim.pathfinding.buckets import _LOW, _h_pair, reached_for_less
from sim.pathfinding.common import (
    _HEAP_FULL,
    METRIC_OCTILE,
    NO_LANDMARKS,
    SQRT2,
    STATUS_FOUND,
    STATUS_HIT_LIMIT,
    STATUS_UNREACHABLE,
    _begin,
    _compact,
    _metric,
    _pop,
    _push,
    _sift_up,
    borrowed,
    keep,
    priority,
)
from sim.pathfinding.jpsplus import table_points, table_points_called
from sim.pathfinding.rules import DX, DY, NO_PARENT

EAST, WEST, SOUTH, NORTH = 0, 1, 2, 3
#: A jump point's link (``jump_parent``'s odd entries): its jump parent * 16 + the direction it
#: was reached by in these bits (grids under 2**31 cells), the hint of its heap position
#: (:func:`_enqueue`) in the 27 above them, never the sign bit (negative: the start).
LINK_MASK = (1 << 36) - 1
_HINT_SHIFT = 36
_HINT_MAX = (1 << 27) - 1
_HINTS = _HINT_MAX << _HINT_SHIFT
#: Bit planes of a grid's JPS data (:func:`build_blocks`); a weighted grid's successor table follows them.
PLANES = 12


def build_blocks(free: np.ndarray, stops: np.ndarray | None = None) -> np.ndarray:
    """The bits of a padded grid (``free``: bool ``[y, x]``, border included) for block-based
    JPS: ``(PLANES, 1, words)`` uint64, in four orientations: rows read east (``r = y``,
    ``p = x``) and west (``p = W - 1 - x``), columns read south (``r = x``, ``p = y``) and
    north (``p = H - 1 - y``); bit ``p % 64`` of word ``r * stride + p // 64`` of a plane is
    cell ``p`` along line ``r``, ``stride`` the words of a line (:func:`line_words`: a row's
    for rows, a column's for columns, so a plane takes about ``H * W / 64`` words whatever the
    grid's shape; one square of the longer side took 1.6 GB for a 2 x 32767 grid). Planes 0-3:
    the free cells in orientation ``o``. Planes ``4 + o``: where a straight scan in orientation
    ``o`` halts (:func:`scan`): a blocked cell, or a jump
    point, i.e. a free cell with a forced neighbour (on a side line, the cell is free and the
    one behind it blocked) or, on a weighted grid, one of ``stops[o]`` (bool ``(4, H, W)``,
    :mod:`.jpsw`). Planes ``4 + k`` for the diagonal directions ``k`` (4-7), as rows read east:
    whether a diagonal step ``k`` from the cell is legal (both side cells and the cell it
    enters free). One zero word beyond every line's end (a window may read past it)."""
    h, w = free.shape
    rs, cs = line_words(w, h)
    words = max(h * rs, w * cs)
    out = np.zeros((PLANES, words * 8), np.uint8)
    ahead = np.zeros((h + 2, w + 2), np.bool_)  # free, with a blocked ring beyond the border
    ahead[1:-1, 1:-1] = free
    for k in range(4, 8):
        dx, dy = int(DX[k]), int(DY[k])
        step = (ahead[1 + dy : h + 1 + dy, 1 + dx : w + 1 + dx] & ahead[1 : h + 1, 1 + dx : w + 1 + dx]
                & ahead[1 + dy : h + 1 + dy, 1 : w + 1])  # fmt: skip
        packed = np.packbits(step, axis=1, bitorder="little")
        out[4 + k, : h * rs * 8].reshape(h, rs * 8)[:, : packed.shape[1]] = packed
    for o in range(4):
        plane = _oriented(free, o)
        side = np.zeros((plane.shape[0] + 2, plane.shape[1] + 1), np.bool_)  # lines and cells beyond: blocked
        side[1:-1, 1:] = plane
        forced = side[:, 1:] & ~side[:, :-1]  # free, and the cell behind it blocked
        halt = ~plane | forced[:-2] | forced[2:]  # ... on the line before or after
        if stops is not None:
            halt |= _oriented(stops[o], o)
        stride = rs if o < 2 else cs
        for layer, at in ((plane, o), (halt, 4 + o)):
            packed = np.packbits(layer, axis=1, bitorder="little")
            out[at, : layer.shape[0] * stride * 8].reshape(layer.shape[0], stride * 8)[:, : packed.shape[1]] = packed
    return out.view(np.uint64).reshape(PLANES, 1, words)


@njit(cache=True, nogil=True, inline="always")
def line_words(width, height):
    """The words a line of :func:`build_blocks`' planes takes: ``(a row's, a column's)`` of a
    padded grid ``width`` x ``height`` (its cells, a word beyond: a window may read past)."""
    return width // 64 + 2, height // 64 + 2


def _oriented(layer: np.ndarray, o: int) -> np.ndarray:
    """``layer`` (``[y, x]``) as lines of orientation ``o``: rows east, rows west, columns south, columns
    north (a contiguous copy: packing and masking a transposed view cost ~4x as much)."""
    return np.ascontiguousarray((layer, layer[:, ::-1], layer.T, layer.T[:, ::-1])[o])


_NO_TABLE = np.zeros(0, np.uint64)  # (a uniform grid's JPS data has no successor table)

#: "No JPS bits" (grids searched without JPS). A type of its own (uint8, not uint64): code
#: compiled for such grids leaves JPS out (see ``kernel.jump_search``), so the demo's
#: search round compiles in 11 s instead of 18.
EMPTY_BLOCKS = np.zeros((4, 0, 0), np.uint8)


@njit(cache=True, nogil=True, inline="always")
def _ctz(v):
    """Index of the lowest set bit of ``v`` (not 0): the CPU's count of trailing zeros (a de
    Bruijn table lookup took ~3 % longer on random512-10-0)."""
    return np.int64(trailing_zeros(v))


@njit(cache=True, nogil=True, inline="always")
def _bits(blocks, o, line, p):
    """The 64 bits of the line of plane ``o`` that starts at word ``line`` from bit ``p`` on (``p >=
    0``): bit ``i`` is cell ``p + i``. (Indexing ``blocks`` whole: a slice per line costs more than
    the scan.)"""
    w = np.uint64(line + (p >> 6))
    b = p & 63
    ou, zero = np.uint64(o), np.uint64(0)
    lo = blocks[ou, zero, w]
    hi = blocks[ou, zero, w + np.uint64(1)]  # both read, then combined: measured ~6x faster than a read under a branch
    if b == 0:
        return lo
    return (lo >> np.uint64(b)) | (hi << np.uint64(64 - b))


@njit(cache=True, nogil=True, inline="always")
def scan(blocks, o, r, p, goal_r, goal_p, stride):
    """From cell ``p`` of line ``r`` in orientation ``o``, the first jump point ahead (its
    position along the line), the goal if it comes first, or -1 at a dead end: the first
    cell ahead where the scan halts (plane ``4 + o``, :func:`build_blocks`), 64 cells a
    step; a jump point there if that cell is free. ``stride``: the words of a line of that
    orientation (:func:`line_words`)."""
    line = r * stride
    q = p + 1
    while True:
        halt = _bits(blocks, o + 4, line, q)  # bit i: whether the scan halts at cell q + i
        if halt != np.uint64(0):
            break
        q += 64
    q += _ctz(halt)
    if r == goal_r and p < goal_p <= q:
        return goal_p
    word = blocks[np.uint64(o), np.uint64(0), np.uint64(line + (q >> 6))]
    if (word >> np.uint64(q & 63)) & np.uint64(1) != np.uint64(0):
        return q
    return -1


@njit(cache=True, nogil=True, inline="always")
def _line_scan(blocks, width, height, x, y, k, goal_x, goal_y):
    """The jump point (padded flat index) a straight scan in direction ``k`` finds from
    ``(x, y)``, or -1: one :func:`scan` of orientation ``k`` (east, west, south, north), the
    cell's line and position in it mapped there and back."""
    rs, cs = line_words(width, height)
    if k < 2:  # along the row
        r, p, gr, gp, n, stride = y, x, goal_y, goal_x, width, rs
    else:  # along the column
        r, p, gr, gp, n, stride = x, y, goal_x, goal_y, height, cs
    if k & 1:  # west and north read their lines backwards
        p, gp = n - 1 - p, n - 1 - gp
    q = scan(blocks, k, r, p, gr, gp, stride)  # (orientation k: EAST, WEST, SOUTH, NORTH are directions 0-3)
    if q < 0:
        return -1
    if k & 1:
        q = n - 1 - q
    return y * width + q if k < 2 else q * width + x


@njit(cache=True, nogil=True, inline="always")
def _step_ok(blocks, k, x, y, rs):
    """Whether the diagonal step ``k`` (4-7) from padded cell ``(x, y)`` is legal: one bit of plane
    ``4 + k`` (``rs``: a row's words, :func:`line_words`)."""
    word = blocks[np.uint64(4 + k), np.uint64(0), np.uint64(y * rs + (x >> 6))]  # (unsigned: see common.py)
    return (word >> np.uint64(x & 63)) & np.uint64(1) != np.uint64(0)


@njit(cache=True, nogil=True, inline="always")
def _free(blocks, x, y, rs):
    """Whether cell ``(x, y)`` (padded) is free: one bit of the east-reading rows (``rs``: a row's words)."""
    word = blocks[np.uint64(EAST), np.uint64(0), np.uint64(y * rs + (x >> 6))]
    return (word >> np.uint64(x & 63)) & np.uint64(1) != np.uint64(0)


@njit(cache=True, nogil=True, inline="always")
def _successors(flat, base, i, d):
    """A weighted grid's successor directions (8 bits) of padded cell ``i`` entered by
    direction ``d``: byte ``d`` of word ``i`` of the table after the bit planes (:mod:`.jpsw`;
    ``flat``: the grid's JPS data flattened, ``base``: where the table starts)."""
    return np.int64((flat[base + i] >> np.uint64(8 * d)) & np.uint64(255))


@njit(cache=True, nogil=True, inline="always")
def _dir(dx, dy):
    """The direction index k with (DX[k], DY[k]) == (dx, dy)."""
    if dy == 0:
        return 0 if dx > 0 else 1
    if dx == 0:
        return 2 if dy > 0 else 3
    if dy > 0:
        return 4 if dx > 0 else 5
    return 6 if dx > 0 else 7


@njit(cache=True, nogil=True, inline="always")
def turn_of(node, prev, k, width):
    """Where the run from ``prev`` to ``node`` turned, when ``node`` was reached by the
    straight direction ``k`` after a diagonal (JPS2: the turning point is not a node);
    ``prev`` itself when the run was one straight or diagonal line."""
    nx, ny = node % width, node // width
    px, py = prev % width, prev // width
    if k < 2 and ny != py:  # east or west along node's row, after a diagonal from prev
        return ny * width + px + DX[k] * abs(ny - py)
    if 2 <= k < 4 and nx != px:  # south or north along node's column
        return (py + DY[k] * abs(nx - px)) * width + nx
    return prev


# The successors of a jump point are collected first (_successor_points or jpsplus.table_points,
# into one list; which of the two, the data's planes say: JPS's bits, or JPS+'s table as one
# plane of the same type, so both run one compiled kernel, compiled once), then opened in the
# core's own loop. Every array the loop touches is a borrowed view
# (common.borrowed): numba counts references to each array handed to a helper, even an
# inlined one, with atomic operations that cost more than a straight scan (JPS 5-25 %
# slower, JPS+ 2-5x with helpers in its loop), and borrowed views are not counted. (jps_core's
# ``stats`` was counted at every heap push until 2026-12-05: JPSW 5-20 % slower an expansion.) The
# flat view of JPSW's successor table (``flat``) is made once a search, not at every expansion.
#
# A jump point's g and link (its jump parent * 16 + the direction it was reached by) share a
# 16-byte slot of the workspace's ``jump_parent`` (int64, two a cell: :func:`record_views`):
# a successor costs one cache line there, where g, parent and jump parent in arrays of their
# own cost up to three (random512-10-0: ~3 % faster). Which jump points are open or closed
# is ``mark``'s, as for every kernel. (jps_core's successors come without prospective-g
# pruning, which needs exact costs: an empty ``gi``; the ``up``, ``uq`` it then passes go
# unread, and are variables because numba would compile the helpers again for constants.)
@njit(cache=True, nogil=True)
def jps_core(
    codes, lut, data, width, start, goal, metric, unit, prio, max_nodes,
    g, parent, jump_parent, mark, gen, heap_key, heap_node, record, trace, trace_at, stats,
):  # fmt: skip
    """A* from jump point to jump point: block-based JPS on a grid's JPS bits (``data``:
    :func:`build_blocks`, or :mod:`.jpsw`'s on a weighted grid), JPS+ on its jump table (as one
    uint64 plane: :func:`jump_table`), on a heap of float priorities (uniform grids with an exact
    heuristic: :func:`jps_pairs_core`); arguments and ``(status, expanded, end)`` as ``kernel.astar_core``."""
    open_mark, closed_mark = 2 * gen, 2 * gen + 1
    height, goal_y, goal_x, inv_width = codes.size // width, goal // width, goal % width, (1.0 + 1e-12) / width
    plus, weighted = data.shape[0] == 1, data.shape[0] > PLANES  # JPS+'s table (jump_table); JPSW's multipliers
    found = np.empty(8 * max(height, width) + 16, dtype=np.int64)  # v * 8 + k: <= 2 a step of 4 diagonals
    out, jumps, table, flat = borrowed(found), borrowed(data), jump_table(data), borrowed(data.reshape(-1))
    gj, links = record_views(jump_parent)
    no_pairs = links[:0]  # float costs: no prospective-g pruning (see the note above jps_core)
    codes, lut, parent, mark, stats = borrowed(codes), borrowed(lut), borrowed(parent), borrowed(mark), borrowed(stats)
    heap_key, heap_node, record, trace = borrowed(heap_key), borrowed(heap_node), borrowed(record), borrowed(trace)
    size = _begin(start, width, goal_x, goal_y, metric, prio, gj, parent, mark, open_mark, heap_key, heap_node,
                  record, NO_LANDMARKS, False)  # fmt: skip
    links[start], expanded, best, best_h, best_g, nxt = -16 + NO_PARENT, 0, start, np.inf, 0.0, -1
    status = STATUS_UNREACHABLE
    while size > 0 or nxt >= 0:  # nxt: a successor as good as any on the open list, expanded next without the heap
        u, size = (nxt, size) if nxt >= 0 else _pop(size, heap_key, heap_node)
        uu, nxt = np.uint64(u), -1
        if mark[uu] == closed_mark:
            continue
        mark[uu], expanded = closed_mark, expanded + 1
        (ux, uy), gu, d = _xy(u, width, inv_width), gj[uu], links[uu] & 15
        status, best, best_h, best_g, hu = _settle(u, ux, uy, gu, goal, goal_x, goal_y, metric, expanded, max_nodes,
                                                   best, best_h, best_g, record, trace, trace_at, width)  # fmt: skip
        if status != STATUS_UNREACHABLE:
            break
        fu = priority(gu, hu, prio)  # u's priority, the least on the open list
        n = (table_points_called(table, width, ux, uy, d, goal_x, goal_y, out, no_pairs, mark, open_mark,
                                 ux, uy) if plus else
             _weighted_points(jumps, flat, width, height, ux, uy, d, goal_x, goal_y, out, codes, lut, gj, mark,
                              open_mark, gu) if weighted else
             _successor_points(jumps, width, height, ux, uy, d, goal_x, goal_y, out, no_pairs, mark, open_mark, ux,
                               uy))  # fmt: skip
        for j in range(n):
            v, k, vu, mv = _found_at(out, j, mark)
            if mv == closed_mark:
                continue
            vx, vy = _xy(v, width, inv_width)
            ng = gu + _run_cost(codes, lut, width, unit, weighted, u, ux, uy, v, vx, vy)
            if mv == open_mark and ng >= gj[vu]:
                continue
            _open(mark, vu, open_mark, record, trace, vx, vy, width)
            gj[vu], links[vu] = ng, (links[vu] & _HINTS) | (u * 16 + k)  # (its heap position's hint kept: _enqueue)
            fv = priority(ng, _metric(metric, abs(vx - goal_x), abs(vy - goal_y)), prio)
            if nxt < 0 and fv <= fu:  # f(v) = f(u): no open node before v (consistent h), A*'s own order
                nxt = v
                continue
            size = _enqueue(size, fv, v, mv, links, heap_key, heap_node, gj, mark, open_mark, width, goal_x, goal_y,
                            metric, prio, stats)  # fmt: skip
            if size < 0:
                return _HEAP_FULL, expanded, best
    keep(found)  # (until here: ``out`` is a borrowed view of it)
    g[best] = gj[best]  # (the cost, where the caller reads it)
    return status, expanded, best


@njit(cache=True, nogil=True)
def jps_pairs_core(
    codes, lut, data, width, start, goal, metric, heuristic, max_nodes,
    g, jump_parent, mark, gen, heap_key, heap_node, record, trace, trace_at,
):  # fmt: skip
    """:func:`jps_core` on a uniform grid (JPS's bits or JPS+'s table in ``data``) with exact
    integer-pair costs ``p + q*√2`` (``heuristic``: the exact heuristic's metric), on the heap keyed
    by their values, equal exactly when the pairs are (not A*'s bucket queue: see docs/engine.md).
    Returns ``(status, expanded, end)`` (``_HEAP_FULL``: the caller grows the heap and searches
    again); ``g.view(int64)[end]`` holds end's cost as ``p << 32 | q``."""
    open_mark, closed_mark = 2 * gen, 2 * gen + 1
    height, goal_y, goal_x, inv_width = codes.size // width, goal // width, goal % width, (1.0 + 1e-12) / width
    plus = data.shape[0] == 1  # JPS+'s table, else JPS's bits (as in jps_core)
    found = np.empty(8 * max(height, width) + 16, dtype=np.int64)  # v * 8 + k: <= 2 a step of 4 diagonals
    out, jumps, table = borrowed(found), borrowed(data), jump_table(data)  # (as in jps_core)
    gi, links = borrowed(jump_parent[::2]), borrowed(jump_parent[1::2])  # g as p << 32 | q, and the links
    codes, lut, mark, record, trace = borrowed(codes), borrowed(lut), borrowed(mark), borrowed(record), borrowed(trace)
    heap_key, heap_node = borrowed(heap_key), borrowed(heap_node)
    sx, sy = start % width, start // width
    gi[start], links[start], mark[start] = 0, -16 + NO_PARENT, open_mark
    _note(record, trace, -1, 0, sx, sy, width)
    size, _ = _push(0, _f_of(0, 0, heuristic, sx, sy, goal_x, goal_y), start, heap_key, heap_node)
    expanded, best, best_h, best_g, nxt, status = 0, start, np.inf, 0.0, -1, STATUS_UNREACHABLE
    while size > 0 or nxt >= 0:  # (nxt as in jps_core)
        u, size = (nxt, size) if nxt >= 0 else _pop(size, heap_key, heap_node)
        uu, nxt = np.uint64(u), -1
        if mark[uu] == closed_mark:
            continue
        mark[uu], expanded = closed_mark, expanded + 1
        (ux, uy), up, uq, d = _xy(u, width, inv_width), gi[uu] >> 32, gi[uu] & _LOW, links[uu] & 15
        status, best, best_h, best_g, _ = _settle(u, ux, uy, up + uq * SQRT2, goal, goal_x, goal_y, metric,
                                                   expanded, max_nodes, best, best_h, best_g, record, trace, trace_at,
                                                   width)  # fmt: skip
        if status != STATUS_UNREACHABLE:
            break
        fu = _f_of(up, uq, heuristic, ux, uy, goal_x, goal_y)  # u's priority, the least on the open list
        n = (table_points(table, width, ux, uy, d, goal_x, goal_y, out, gi, mark, open_mark, up, uq)
             if plus else _successor_points(jumps, width, height, ux, uy, d, goal_x, goal_y, out, gi, mark, open_mark,
                                            up, uq))  # fmt: skip
        for j in range(n):
            v, k, vu, mv = _found_at(out, j, mark)
            if mv == closed_mark:
                continue
            vx, vy = _xy(v, width, inv_width)
            adx, ady = abs(vx - ux), abs(vy - uy)  # a run: |adx - ady| straight steps and min(adx, ady) diagonal
            vp, vq = up + abs(adx - ady), uq + min(adx, ady)
            if mv == open_mark and vp + vq * SQRT2 >= (gi[vu] >> 32) + (gi[vu] & _LOW) * SQRT2:
                continue
            _open(mark, vu, open_mark, record, trace, vx, vy, width)
            gi[vu], links[vu] = (vp << 32) | vq, u * 16 + k
            fv = _f_of(vp, vq, heuristic, vx, vy, goal_x, goal_y)
            if nxt < 0 and fv <= fu:  # as in jps_core
                nxt = v
                continue
            if size == heap_key.size:
                return _HEAP_FULL, expanded, best
            size, _ = _push(size, fv, v, heap_key, heap_node)
    keep(found)  # (as in jps_core)
    g.view(np.int64)[best] = gi[best]
    return status, expanded, best


@njit(cache=True, nogil=True, inline="always")
def _f_of(p, q, heuristic, x, y, goal_x, goal_y):
    """The priority of cell ``(x, y)`` reached for ``p + q*√2``: ``fp + fq*√2``, the pair ``(fp, fq)``
    being g's and the exact ``heuristic``'s summed (:mod:`.buckets`), so that two priorities are
    equal exactly when their pairs are."""
    hp, hq = _h_pair(heuristic, abs(x - goal_x), abs(y - goal_y))
    return (p + hp) + (q + hq) * SQRT2


@njit(cache=True, nogil=True, inline="always")
def _xy(v, width, inv_width):
    """Cell ``v``'s ``(x, y)`` without an integer division (~4 % of a JPS search on
    random512-10-0): ``inv_width = (1 + 1e-12) / width``. Exact for every grid the engine
    takes (under 2**31 cells): ``v * inv_width`` errs by far less than ``1e-12 * (y + 1)`` above
    ``v / width``, whose fraction is at most ``1 - 1 / width``, and that sum stays below ``y + 1``."""
    y = np.int64(v * inv_width)
    return v - y * width, y


@njit(cache=True, nogil=True, inline="always")
def jump_table(data):
    """JPS+'s jump table (int16 ``(cells, 8)``, :func:`.jpsplus.build_table`) in the grid data
    ``data`` that holds it as one plane of uint64 words (``PathGrid.kernel_args``); for JPS's
    bits, the first plane's words read the same way (not used)."""
    return borrowed(data[0].view(np.int16))


@njit(cache=True, nogil=True, inline="always")
def record_views(jump_parent):
    """The workspace's ``jump_parent`` (int64, two a padded cell) as the jump points' g (float64)
    and links (int64: jump parent * 16 + direction in the bits of :data:`LINK_MASK`, a heap
    position's hint above them; -1 * 16 + ``NO_PARENT`` at the start: read them with
    :func:`link_parent`), one 16-byte slot a cell; borrowed views (see ``common.borrowed``)."""
    return borrowed(jump_parent.view(np.float64)[::2]), borrowed(jump_parent[1::2])


@njit(cache=True, nogil=True, inline="always")
def _settle(u, ux, uy, gu, goal, goal_x, goal_y, metric, expanded, max_nodes, best, best_h, best_g, record, trace,
            trace_at, width):  # fmt: skip
    """Jump point ``u`` (cost ``gu``) taken off the open list as the ``expanded``-th: into the
    footprint, and whether the search ends there (``STATUS_FOUND``, ``STATUS_HIT_LIMIT``; else
    ``STATUS_UNREACHABLE``: go on). Returns that, the closest node reached (for a search cut
    short) as ``best, best_h, best_g``, and ``u``'s distance to the goal."""
    _note(record, trace, trace_at, expanded, ux, uy, width)
    if u == goal:
        return STATUS_FOUND, u, 0.0, gu, 0.0
    hu = _metric(metric, abs(ux - goal_x), abs(uy - goal_y))
    if hu < best_h or (hu == best_h and gu < best_g):
        best, best_h, best_g = u, hu, gu
    return (STATUS_HIT_LIMIT if expanded >= max_nodes else STATUS_UNREACHABLE), best, best_h, best_g, hu


@njit(cache=True, nogil=True, inline="always")
def _open(mark, v, open_mark, record, trace, vx, vy, width):
    """``v`` on the open list (in the footprint too, the first time)."""
    if mark[v] != open_mark:
        mark[v] = open_mark
        _note(record, trace, -1, 0, vx, vy, width)


@njit(cache=True, nogil=True, inline="always")
def _enqueue(size, key, v, mv, links, heap_key, heap_node, g, mark, open_mark, width, goal_x, goal_y, metric, prio,
             stats):  # fmt: skip
    """Put ``v`` on the heap with ``key``. An open ``v`` (``mv``: its mark) whose entry is still
    where it was put is moved up in place: no stale entry is left behind (on weighted terrain half
    of JPSW's pops were stale entries of jump points improved after they were pushed, 2026-12-06).
    Otherwise a new entry; on a full heap, stale entries are dropped first. Where an entry was put
    is kept in the top bits of ``v``'s link (:data:`LINK_MASK`), in the cache line the search writes
    anyway; it is only a hint, checked against the heap (entries move, and an old search's values
    stay behind), and any entry of ``v`` with its new key will do. Returns the new size, or -1 when
    the heap is still over half full (the caller grows it and searches again)."""
    vu = np.uint64(v)
    if mv == open_mark:  # (a node not yet open has no entry: its hint is not read)
        at = np.uint64(links[vu] >> _HINT_SHIFT)
        if at < np.uint64(size) and heap_node[at] == v:
            heap_key[at] = key
            _hint(links, vu, _sift_up(np.int64(at), heap_key, heap_node))
            return size
    if size == heap_key.size:
        size = _compact(size, heap_key, heap_node, g, mark, open_mark, width, goal_x, goal_y, metric, prio, stats,
                        NO_LANDMARKS, False)  # fmt: skip
        if size > heap_key.size // 2:
            return -1
    size, at = _push(size, key, v, heap_key, heap_node)
    _hint(links, vu, at)
    return size


@njit(cache=True, nogil=True, inline="always")
def _hint(links, vu, at):
    """Keep heap position ``at`` as the hint in the top bits of link ``vu`` (a position past what
    they hold is kept as one that the check then refuses)."""
    links[vu] = (links[vu] & LINK_MASK) | (min(at, _HINT_MAX) << _HINT_SHIFT)


@njit(cache=True, inline="always")
def link_parent(link):
    """The jump parent in a jump point's link (-1: the start): the link is the parent * 16 + the
    direction in its low 36 bits, a heap position's hint above them (:func:`_enqueue`), and negative
    at the start."""
    return -1 if link < 0 else (link & LINK_MASK) >> 4


@njit(cache=True, nogil=True, inline="always")
def _run_cost(codes, lut, width, unit, weighted, u, ux, uy, v, vx, vy):
    """What the run from ``u`` to ``v`` costs: a diagonal leg, then a straight one. On a weighted
    grid each leg has one multiplier (jumps stop before another, :mod:`.jpsw`): the turning
    point's and the end's."""
    adx, ady = abs(vx - ux), abs(vy - uy)
    if not weighted:
        return unit * _metric(METRIC_OCTILE, adx, ady)
    turn = u + min(adx, ady) * (((vx > ux) - (vx < ux)) + ((vy > uy) - (vy < uy)) * width)
    return SQRT2 * min(adx, ady) * lut[codes[turn]] + abs(adx - ady) * lut[codes[v]]


@njit(cache=True, nogil=True, inline="always")
def _note(record, trace, trace_at, expanded, x, y, width):
    """Into the footprint ``record`` (when there is one): ``expanded`` (1-based) for a jump
    point taken off the heap, -1 (``expanded`` 0) for one put on it; the expanded ones into
    ``trace`` from ``trace_at`` while it has room."""
    if record.shape[0] > 0:
        record[y - 1, x - 1] = expanded if expanded > 0 else -1
    if expanded > 0 and trace_at + expanded <= trace.size:
        trace[trace_at + expanded - 1] = (y - 1) * (width - 2) + x - 1


@njit(cache=True, nogil=True, inline="always")
def _found_at(found, j, mark):
    """Entry ``j`` of a successor list (:func:`_add`): its jump point ``v``, the direction ``k``
    of the run that ends there, ``v`` as an unsigned index and ``v``'s mark."""
    v = found[np.uint64(j)] >> 3
    return v, found[np.uint64(j)] & 7, np.uint64(v), mark[np.uint64(v)]


@njit(cache=True, nogil=True, inline="always")
def _add(found, n, v, k):
    """Jump point ``v`` (-1: none), reached by a run ending in direction ``k``, into ``found[n]``
    as ``v * 8 + k``; returns the new count."""
    if v == -1:
        return n
    found[n] = v * 8 + k
    return n + 1


@njit(cache=True, nogil=True)
def _successor_points(blocks, width, height, ux, uy, d, goal_x, goal_y, found, gi, mark, open_mark, up, uq):
    """The jump points that succeed ``(ux, uy)`` reached by direction ``d`` (``NO_PARENT``
    at the start), into ``found`` as ``v * 8 + k`` (``k``: the direction of the run that
    ends at ``v``); returns how many. Straight directions scan; a diagonal one runs a step
    at a time, and every straight jump point found from it (and the goal on it) counts.
    Unless ``gi`` is empty, a diagonal run also ends at a cell the search has reached for less
    than the run's cost there (``(ux, uy)`` reached for ``up + uq*√2``; ``gi``, ``mark``: the
    search's costs as pairs and its stamps, see :func:`jps_pairs_core`). (A weighted grid's:
    :func:`_weighted_points`.)"""
    blocks, found, gi, mark = borrowed(blocks), borrowed(found), borrowed(gi), borrowed(mark)  # (see jps_core)
    n = 0
    rs = line_words(width, height)[0]
    dirs = _directions(blocks, ux, uy, d, rs)
    goal = goal_y * width + goal_x
    for k in range(8):
        if not (dirs >> k) & 1:
            continue
        if k < 4:
            n = _add(found, n, _line_scan(blocks, width, height, ux, uy, k, goal_x, goal_y), k)
            continue
        dx, dy = DX[k], DY[k]
        kx, ky = _dir(dx, 0), _dir(0, dy)
        x, y, q = ux, uy, uq
        while _step_ok(blocks, k, x, y, rs):
            x, y, q = x + dx, y + dy, q + 1
            if gi.size > 0 and reached_for_less(gi, mark, open_mark, y * width + x, up, q):
                break
            if y * width + x == goal:
                found[n] = goal * 8 + k
                n += 1
                break
            for ks in (kx, ky):  # the scans of a diagonal run's steps (the hot loop)
                n = _add(found, n, _line_scan(blocks, width, height, x, y, ks, goal_x, goal_y), ks)
    return n


@njit(cache=True, nogil=True)
def _weighted_points(blocks, flat, width, height, ux, uy, d, goal_x, goal_y, found, codes, lut, g, mark, open_mark,
                     gu):  # fmt: skip
    """:func:`_successor_points` on a weighted grid (JPSW, :mod:`.jpsw`): a cell's successors come
    from the successor table after the bit planes, and a diagonal run stops at a cell with more
    than its natural successors (a jump point), or the flag. It also ends at a cell the search
    has already reached (open or closed: ``mark``, ``g``) for strictly less than the run's cost
    from ``(ux, uy)`` (reached for ``gu``) to there: JPSW's prospective-g pruning. (A function
    of its own, though its loop begins as that one's: folded into one, uniform JPS ran ~10 %
    slower, for the extra arguments and the weighted tests at every diagonal step.)"""
    blocks, found, codes, lut, g, mark = (
        borrowed(blocks),
        borrowed(found),
        borrowed(codes),
        borrowed(lut),
        borrowed(g),
        borrowed(mark),
    )  # (for the helpers: see jps_core)
    n = 0
    base = PLANES * blocks.shape[1] * blocks.shape[2]
    rs = line_words(width, height)[0]
    dirs = _directions(blocks, ux, uy, d, rs)  # the start's: all
    if d != NO_PARENT:  # the table's successors (its "stop" flag, the way back, left out)
        dirs = _successors(flat, base, uy * width + ux, d) & ~(1 << _back(d))
    goal = goal_y * width + goal_x
    for k in range(8):
        if not (dirs >> k) & 1:
            continue
        if k < 4:
            n = _add(found, n, _line_scan(blocks, width, height, ux, uy, k, goal_x, goal_y), k)
            continue
        dx, dy = DX[k], DY[k]
        kx, ky = _dir(dx, 0), _dir(0, dy)
        natural = (1 << k) | (1 << kx) | (1 << ky)
        x, y, gc = ux, uy, gu
        step = SQRT2 * lut[codes[(uy + dy) * width + ux + dx]]  # (a diagonal leg has one multiplier)
        while _step_ok(blocks, k, x, y, rs):
            x += dx
            y += dy
            c = y * width + x
            gc += step
            if (mark[c] == open_mark or mark[c] == open_mark + 1) and g[c] < gc * (1.0 - 1e-9):
                break  # reached for less already: every path on from here is beaten
            if c == goal:
                found[n] = goal * 8 + k
                n += 1
                break
            nat = _successors(flat, base, c, k)
            if nat & ~natural != 0:  # more than the natural successors, or the flag: a jump point
                found[n] = c * 8 + k
                n += 1
                break
            for ks in (kx, ky):
                if (nat >> ks) & 1:
                    n = _add(found, n, _line_scan(blocks, width, height, x, y, ks, goal_x, goal_y), ks)
            if not (nat >> k) & 1:
                break
    return n


@njit(cache=True, nogil=True, inline="always")
def _back(k):
    """The direction opposite ``k``."""
    return k ^ 1 if k < 4 else 11 - k


@njit(cache=True, nogil=True, inline="always")
def _directions(blocks, ux, uy, d, rs):
    """The directions to search from ``(ux, uy)`` reached by direction ``d``, as 8 bits: all
    at the start; the same one and its two components after a diagonal; after a straight
    step the same one, and for each side whose cell behind is blocked, that side and the
    diagonal past it (the forced neighbours)."""
    if d == NO_PARENT:
        return 255
    dx, dy = DX[d], DY[d]
    if dx != 0 and dy != 0:
        return (1 << d) | (1 << _dir(dx, 0)) | (1 << _dir(0, dy))
    dirs = 1 << d
    for side in (-1, 1):
        if dx != 0 and not _free(blocks, ux - dx, uy + side, rs):
            dirs |= (1 << _dir(0, side)) | (1 << _dir(dx, side))
        elif dy != 0 and not _free(blocks, ux + side, uy - dy, rs):
            dirs |= (1 << _dir(side, 0)) | (1 << _dir(side, dy))
    return dirs


__all__ = [
    "EMPTY_BLOCKS",
    "LINK_MASK",
    "PLANES",
    "build_blocks",
    "jps_core",
    "jps_pairs_core",
    "line_words",
    "link_parent",
    "record_views",
    "scan",
    "turn_of",
]
