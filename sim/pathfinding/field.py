"""Distance fields: the cost of the cheapest path from every cell *to* one goal (reverse Dijkstra).

One field serves any number of walkers heading for the same goal (a herd called to a
water hole): each cell's next step is the neighbour that continues a cheapest path, so
following the steps from anywhere is an optimal path, at no further search.

The engine's cost model is kept: a step costs its length times the multiplier of the
cell it *enters*, and a step is allowed by the grid's diagonal rule. The field is grown
from the goal along reversed edges: cell ``p`` gets ``dist[u] + len(k) * cost[u]`` from
a settled neighbour ``u`` when the step ``p -> u`` (direction ``k``) is legal from ``p``.
The kernel uses the search workspace (``g``, ``parent``, ``mark``, the heap) and writes the
result into a fresh ``(H, W)`` float64 array, ``inf`` where the goal cannot be reached.

On a grid whose passable cells all cost the same, under "no-corner-cutting", a settled cell offers
its cost only to its canonical successors (``rules.SUCCESSORS``, as A* pushes them: the kernel's
``prune``), by the direction it was reached from: every cell is still reached along a cheapest
path, with fewer pushes and sifts. The field and the order of the settled cells' costs are
unchanged (cells of equal cost may settle in another order).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.pathfinding.common import _BITS, _NBITS, STEP_LENGTH, _push, _sift_down, _sift_up
from sim.pathfinding.rules import DX, DY, NO_PARENT, SUCCESSORS

FIELD_DONE = 0  # every reachable cell (up to max_cost) is settled
FIELD_HEAP_FULL = 1  # the caller grows the heap (keeping its contents) and calls again
FIELD_PAUSED = 2  # ``max_settle`` cells settled in this call: call again to go on


@njit(cache=True)
def field_start(goal, g, parent, mark, gen, heap_key, heap_node):
    """Put ``goal`` (padded index) on the open list; returns the heap size, 1. (``parent`` may be
    empty for a field that keeps no directions: one on a weighted grid, see ``field_core``'s ``prune``.)"""
    g[goal] = 0.0
    if goal < parent.size:
        parent[goal] = NO_PARENT
    mark[goal] = 2 * gen
    heap_key[0] = 0.0
    heap_node[0] = goal
    return 1


@njit(cache=True, nogil=True, inline="always")
def _offer_canonical(u, du, cost, moves, offsets, g, parent, mark, open_mark, heap_key, heap_node, size):
    """:func:`field_core`'s expansion of ``u`` (settled at ``du``) on a grid of one multiplier ``cost``,
    under "no-corner-cutting" (the module's doc): its canonical successors by the direction it was
    reached in, ``parent[u]`` (the steps into ``u``, reversed: every diagonal rule's steps are the same
    both ways). Returns the new heap size. (A helper: ~5 % of a field here; the pop and the other loop
    are written out, where helpers cost 15-40 %.)"""
    m = SUCCESSORS[moves[u], parent[u]]
    for j in range(_NBITS[m]):
        e = _BITS[m, j]
        p = u + offsets[e]
        mp = mark[p]
        if mp == open_mark + 1:
            continue
        nd = du + STEP_LENGTH[e] * cost
        if mp == open_mark and nd >= g[p]:
            continue
        mark[p], g[p], parent[p] = open_mark, nd, e
        size, _at = _push(size, nd, p, heap_key, heap_node)
    return size


@njit(cache=True, nogil=True)
def field_core(codes, lut, moves, width, max_cost, g, parent, mark, gen, heap_key, heap_node, size, out, order, done,
               max_settle, forward, prune):  # fmt: skip
    """Settle cells outward from the goal put by :func:`field_start`; returns ``(status, size, settled)``.
    ``forward``: the costs *from* that cell instead (a step costs the multiplier of the cell it enters;
    the same steps serve). ``prune``: canonical successors only (:func:`_offer_canonical`; without it
    ``parent`` is not read or written and may be empty). Resumable:
    the open list (``heap_key``/``heap_node``, ``size`` entries), ``g``, ``parent`` and ``mark`` carry
    the state, so a field can be spread over frames (``max_settle`` cells a call; ``done`` counts those
    settled before). ``out``: the unpadded field (H*W, inf-filled by the caller); ``order[k]`` gets the
    k-th settled cell (``y * W + x``) while it fits. A lazy heap: an improved cell is pushed again."""
    open_mark = 2 * gen
    closed = open_mark + 1
    inner = width - 2
    offsets = DX + DY * width
    settled = 0
    while size > 0:
        if settled >= max_settle:
            return FIELD_PAUSED, size, settled
        if size + 8 > heap_key.size:  # room for every push of one expansion, checked before it starts
            return FIELD_HEAP_FULL, size, settled
        u = heap_node[0]  # (pop and push written out: as helpers they cost a field 15-40 % under numba)
        du = heap_key[0]
        size -= 1
        if size > 0:
            heap_key[0] = heap_key[size]
            heap_node[0] = heap_node[size]
            _sift_down(0, size, heap_key, heap_node)
        if mark[u] == closed:
            continue
        if du > max_cost:
            return FIELD_DONE, 0, settled
        mark[u] = closed
        uy = u // width
        cell = (uy - 1) * inner + u - uy * width - 1
        out[cell] = du
        if done + settled < order.size:
            order[done + settled] = cell
        settled += 1
        enter = lut[codes[u]]
        if prune:
            size = _offer_canonical(u, du, enter, moves, offsets, g, parent, mark, open_mark, heap_key, heap_node, size)
            continue
        # every step into u: a fixed eight, laid out straight (given to the table walk: 15 % slower)
        for k in range(8):
            p = u - offsets[k]  # p steps in direction k to reach u
            if not (moves[p] >> k) & 1:
                continue
            mp = mark[p]
            if mp == closed:
                continue
            nd = du + STEP_LENGTH[k] * (lut[codes[p]] if forward else enter)
            if mp == open_mark and nd >= g[p]:
                continue
            mark[p] = open_mark
            g[p] = nd
            heap_key[size] = nd
            heap_node[size] = p
            _sift_up(size, heap_key, heap_node)
            size += 1
    return FIELD_DONE, 0, settled


def grow_heap(heap_key: np.ndarray, heap_node: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """The open list in arrays twice as large, its ``size`` entries kept."""
    key = np.empty(heap_key.size * 2)
    node = np.empty(heap_node.size * 2, dtype=np.int32)
    key[:size] = heap_key[:size]
    node[:size] = heap_node[:size]
    return key, node


@njit(cache=True, nogil=True)
def steps_core(dist, codes, lut, moves, width, out):
    """Each cell's next step down ``dist`` (padded moves, unpadded ``dist``/``out``): the legal
    direction ``k`` minimising ``dist[next] + len(k) * cost[next]`` among the neighbours lower
    than the cell, the lowest ``k`` on ties; -1 at the goal, where the field is ``inf`` and
    where no neighbour is lower."""
    h = dist.shape[0]
    w = dist.shape[1]
    for y in range(h):
        for x in range(w):
            out[y, x] = -1
            here = dist[y, x]
            if here == 0.0 or here == np.inf:
                continue
            u = (y + 1) * width + x + 1
            m = moves[u]
            best = np.inf
            for k in range(8):
                if not (m >> k) & 1:
                    continue
                nx = x + DX[k]
                ny = y + DY[k]
                d = dist[ny, nx] + STEP_LENGTH[k] * lut[codes[u + DX[k] + DY[k] * width]]
                if d < best and dist[ny, nx] < here:  # always downhill, so no walk can go round in circles
                    best = d
                    out[y, x] = k
    return out


@njit(cache=True, nogil=True)
def follow_core(steps, starts, max_len, paths, offsets):
    """Walk ``steps`` from each ``(x, y)`` in ``starts`` to the goal (at most ``max_len`` cells);
    the cells (``y * W + x``, start first) go to ``paths[offsets[i]:offsets[i + 1]]``. Returns the
    number of cells written; a start with no step and not at the goal gets an empty path. With
    ``paths`` empty it only counts: the offsets say how large ``paths`` must be (sized for every
    walk's worst case, a crowd's buffer could be the crowd times the map)."""
    w = steps.shape[1]
    write = paths.size > 0
    n = 0
    for i in range(starts.shape[0]):
        offsets[i] = n
        x = starts[i, 0]
        y = starts[i, 1]
        length = 0
        while length < max_len:
            if write:
                paths[n] = y * w + x
            n += 1
            length += 1
            k = steps[y, x]
            if k < 0:
                break
            x += DX[k]
            y += DY[k]
    offsets[starts.shape[0]] = n
    return n


# --------------------------------------------------------------------------------------
# Path smoothing ("string pulling"): a grid path's corners are pulled straight where a
# straight line of cells is as cheap under the same cost model. The line between two
# cells is rasterised (one cell per step along the longer axis, the other coordinate
# rounded), each of its steps must be legal under the diagonal rule, and its cost (the
# same sum of step length times entered cell's multiplier) must not exceed the part of
# the path it replaces. The result is still a path of adjacent cells, so everything that
# walks, checks or re-plans grid paths works on it unchanged; only its shape changes: an
# even mix of straight and diagonal steps along a line instead of a diagonal run then a
# straight one.
# --------------------------------------------------------------------------------------


@njit(cache=True, inline="always")
def _line_cell(x0, y0, dx, dy, n, t):
    """Cell ``t`` of ``n`` on the rasterised line from ``(x0, y0)`` by ``(dx, dy)``."""
    return x0 + int(np.floor(dx * t / n + 0.5)), y0 + int(np.floor(dy * t / n + 0.5))


@njit(cache=True)
def _line_cost(codes, lut, moves, width, w, a, b, dir_of):
    """Cost of the rasterised line from cell ``a`` to ``b`` (unpadded flat), inf if a step is illegal.

    The cells are :func:`_line_cell`'s, ``x0 + floor((2*dx*t + n) / 2n)``, but walked with the
    quotient and remainder of that fraction kept per axis: no division or rounding per cell.
    Smoothing tests about ``n**2 / 2`` cells per path, so this is its inner loop."""
    x0, y0 = a % w, a // w
    dx, dy = b % w - x0, b // w - y0
    n = max(abs(dx), abs(dy))
    n2 = 2 * n
    rx = n  # remainders of (2*d*t + n) / 2n at t = 0 (quotients 0)
    ry = n
    here = (y0 + 1) * width + x0 + 1
    total = 0.0
    for _t in range(n):
        # |2d| <= 2n: each step moves the quotient by at most one. Written without branches,
        # which a line's steps would mispredict about half the time.
        rx += 2 * dx
        sx = np.int64(rx >= n2) - np.int64(rx < 0)
        rx -= sx * n2
        ry += 2 * dy
        sy = np.int64(ry >= n2) - np.int64(ry < 0)
        ry -= sy * n2
        k = dir_of[(sy + 1) * 3 + sx + 1]
        if not (moves[here] >> k) & 1:
            return np.inf
        here += sx + sy * width
        total += STEP_LENGTH[k] * lut[codes[here]]
    return total


PATH_OK, PATH_OUTSIDE, PATH_NOT_NEXT, PATH_ILLEGAL, PATH_BLOCKED, PATH_OFFSETS = 0, 1, 2, 3, 4, 5


@njit(cache=True, inline="always")
def _path_break(codes, lut, moves, width, w, h, paths, lo, hi):
    """``(problem, j)`` for the first cell ``j`` of ``paths[lo:hi]`` that breaks it (see
    :func:`check_paths`), ``(PATH_OK, -1)`` when none does."""
    for j in range(hi - lo):
        c = paths[lo + j]
        if c < 0 or c >= w * h:
            return PATH_OUTSIDE, j
        here = (c // w + 1) * width + c % w + 1
        if j == 0:
            if lut[codes[here]] <= 0.0:
                return PATH_BLOCKED, j
            continue
        b = paths[lo + j - 1]
        dx, dy = c % w - b % w, c // w - b // w
        if max(abs(dx), abs(dy)) != 1:
            return PATH_NOT_NEXT, j
        k = 0
        while DX[k] != dx or DY[k] != dy:
            k += 1
        if not (moves[(b // w + 1) * width + b % w + 1] >> k) & 1:
            return PATH_ILLEGAL, j
    return PATH_OK, -1


@njit(cache=True, nogil=True)
def check_paths(codes, lut, moves, width, w, h, paths, offsets):
    """``(problem, i, j)`` for the first cell ``j`` of path ``i`` that is outside the grid, not
    next to the cell before it, entered by a step the rule forbids, or (the first cell)
    impassable; ``(PATH_OFFSETS, -1, -1)`` when ``offsets`` do not start at 0, decrease or
    run past ``paths``; ``(PATH_OK, -1, -1)`` when every path is a legal chain of adjacent cells."""
    if offsets.size == 0 or offsets[0] != 0 or offsets[offsets.size - 1] > paths.size:
        return PATH_OFFSETS, -1, -1
    for i in range(offsets.size - 1):
        if offsets[i + 1] < offsets[i]:
            return PATH_OFFSETS, -1, -1
    for i in range(offsets.size - 1):
        problem, j = _path_break(codes, lut, moves, width, w, h, paths, offsets[i], offsets[i + 1])
        if problem != PATH_OK:
            return problem, i, j
    return PATH_OK, -1, -1


@njit(cache=True, nogil=True)
def first_breaks(codes, lut, moves, width, w, h, paths, offsets, out):
    """For each path ``i`` (``paths[offsets[i]:offsets[i + 1]]``, offsets already checked): the
    index in it of its first cell that breaks it (see :func:`check_paths`), or -1, into ``out[i]``."""
    for i in range(offsets.size - 1):
        out[i] = _path_break(codes, lut, moves, width, w, h, paths, offsets[i], offsets[i + 1])[1]
    return out


@njit(cache=True, nogil=True)
def smooth_all(codes, lut, moves, width, w, paths, offsets):
    """:func:`smooth_core` with its outputs made here: ``(out, out_offsets, ways)``. A straight
    line between two cells has as many cells as the longer axis, never more than the path it
    replaces: the output fits in the input's size. Only ``out[:out_offsets[-1]]`` (and ``ways``'
    as many) are the paths: the rest of the buffer is left unwritten."""
    out = np.empty(max(offsets[-1], 1), dtype=np.int32)
    ways = np.zeros(out.size, dtype=np.int8)
    out_offsets = np.zeros(offsets.size, dtype=np.int64)
    smooth_core(codes, lut, moves, width, w, paths, offsets, out, out_offsets, ways)
    return out, out_offsets, ways


@njit(cache=True, nogil=True)
def smooth_core(codes, lut, moves, width, w, paths, offsets, out, out_offsets, ways):
    """Smooth every path ``paths[offsets[i]:offsets[i+1]]`` (unpadded flat cells) into ``out``
    (``out_offsets``); ``ways[j]`` is 1 where ``out[j]`` ends a straight segment. Returns the
    cells written."""
    dir_of = np.zeros(9, dtype=np.int64)
    for k in range(8):
        dir_of[(DY[k] + 1) * 3 + DX[k] + 1] = k
    m = 0
    for i in range(offsets.size - 1):
        lo, hi = offsets[i], offsets[i + 1]
        out_offsets[i] = m
        if hi == lo:
            continue
        prefix = np.zeros(hi - lo)  # cost along the path up to each of its cells
        for j in range(1, hi - lo):
            prefix[j] = prefix[j - 1] + _line_cost(
                codes, lut, moves, width, w, paths[lo + j - 1], paths[lo + j], dir_of
            )
        out[m] = paths[lo]
        ways[m] = 1
        m += 1
        a = 0
        while a < hi - lo - 1:
            best = a + 1
            for j in range(a + 2, hi - lo):
                c = _line_cost(codes, lut, moves, width, w, paths[lo + a], paths[lo + j], dir_of)
                if c > (prefix[j] - prefix[a]) * (1.0 + 1e-12):
                    break
                best = j
            x0, y0 = paths[lo + a] % w, paths[lo + a] // w
            dx, dy = paths[lo + best] % w - x0, paths[lo + best] // w - y0
            n = max(abs(dx), abs(dy))
            for t in range(1, n + 1):
                x, y = _line_cell(x0, y0, dx, dy, n, t)
                out[m] = y * w + x
                ways[m] = 1 if t == n else 0
                m += 1
            a = best
    out_offsets[offsets.size - 1] = m
    return m
