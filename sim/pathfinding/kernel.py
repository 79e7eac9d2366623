"""The compiled best-first search kernel (numba): arrays and numbers in, a path out.

Everything here works on a *padded, flattened* cost grid: the caller's ``(H, W)`` grid
surrounded by a one-cell border of zeros (impassable), stored row-major with width
``W + 2``. The border means a neighbour index never needs a bounds check.

One kernel serves A*, weighted A*, Dijkstra and greedy best-first; they differ only in
how the priority ``f`` is formed (``g_mult * g + h_mult * h``), so the caller picks the
strategy with two numbers and the hot loop has no Python and no per-edge calls.

All buffers (``g``, ``parent``, ``mark``, the heap) belong to a workspace the caller
reuses across searches. A generation stamp in ``mark`` tells which entries belong to
the current search, so nothing proportional to the map is cleared or allocated per
search: ``mark[i] == 2*gen`` means "open this search", ``2*gen + 1`` means "closed".
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .rules import DIAG_NEVER, diagonal_allowed

# Distance metrics for the heuristic (and for "closest node reached").
METRIC_MANHATTAN = 0
METRIC_EUCLIDEAN = 1
METRIC_OCTILE = 2
METRIC_CHEBYSHEV = 3

# Search outcomes.
STATUS_FOUND = 0
STATUS_EXHAUSTED = 1  # the open list ran dry: the goal is unreachable
STATUS_HIT_LIMIT = 2  # stopped by max_nodes

SQRT2 = math.sqrt(2.0)


@njit(cache=True, inline="always")
def _metric(kind, dx, dy):
    """Distance between two cells ``dx``, ``dy`` apart (absolute values), in steps."""
    if kind == METRIC_OCTILE:
        # min/max rather than an if: compiled to conditional moves, no mispredicted branch.
        return min(dx, dy) * (SQRT2 - 1.0) + max(dx, dy)
    if kind == METRIC_MANHATTAN:
        return float(dx + dy)
    if kind == METRIC_EUCLIDEAN:
        return math.sqrt(float(dx * dx + dy * dy))
    return float(max(dx, dy))


@njit(cache=True, inline="always")
def _sift_up(i, heap_key, heap_node):
    key = heap_key[i]
    node = heap_node[i]
    while i > 0:
        p = (i - 1) >> 2
        if heap_key[p] <= key:
            break
        heap_key[i] = heap_key[p]
        heap_node[i] = heap_node[p]
        i = p
    heap_key[i] = key
    heap_node[i] = node


@njit(cache=True, inline="always")
def _sift_down(i, size, heap_key, heap_node):
    key = heap_key[i]
    node = heap_node[i]
    while True:
        c = 4 * i + 1
        if c >= size:
            break
        # The smallest of up to four children.
        best = c
        bk = heap_key[c]
        end = min(c + 4, size)
        for j in range(c + 1, end):
            kj = heap_key[j]
            if kj < bk:
                best = j
                bk = kj
        if bk >= key:
            break
        heap_key[i] = bk
        heap_node[i] = heap_node[best]
        i = best
    heap_key[i] = key
    heap_node[i] = node


@njit(cache=True, inline="always")
def _h_at(node, width, goal_x, goal_y, metric):
    return _metric(metric, abs(node % width - goal_x), abs(node // width - goal_y))


@njit(cache=True)
def _compact(size, heap_key, heap_node, g, mark, open_mark, width, goal_x, goal_y, metric, g_mult, h_mult):
    """Drop stale heap entries (closed nodes, superseded keys), then re-heapify."""
    j = 0
    for i in range(size):
        v = heap_node[i]
        if mark[v] != open_mark:
            continue
        hv = _h_at(v, width, goal_x, goal_y, metric)
        if heap_key[i] != g_mult * g[v] + h_mult * hv:
            continue
        heap_key[j] = heap_key[i]
        heap_node[j] = v
        j += 1
    for i in range((j - 2) // 4, -1, -1):
        _sift_down(i, j, heap_key, heap_node)
    return j


@njit(cache=True)
def _begin(start, width, goal_x, goal_y, metric, h_mult, g, parent, mark, open_mark, heap_key, heap_node, record):
    """Put the start on the open list (and in the record); returns the heap size, 1."""
    sy = start // width
    sx = start - sy * width
    g[start] = 0.0
    parent[start] = -1
    mark[start] = open_mark
    heap_key[0] = h_mult * _metric(metric, abs(sx - goal_x), abs(sy - goal_y))
    heap_node[0] = start
    if record.shape[0] > 0:
        record[sy - 1, sx - 1] = -1
    return 1


@njit(cache=True, nogil=True)
def search_kernel(
    costs,  # float64[:]  padded, flattened cost multipliers; <= 0 is impassable
    width,  # int         padded width (W + 2)
    start,  # int         padded flat index
    goal,  # int          padded flat index
    diag_rule,  # int     DIAG_*
    metric,  # int        METRIC_* used for h and for "closest node reached"
    g_mult,  # float      1 for A*/Dijkstra, 0 for greedy best-first
    h_mult,  # float      multiplier of h in the priority (see search.py)
    max_nodes,  # int     stop after this many expansions
    gen,  # int           generation stamp of this search (>= 1)
    g,  # float64[:]      workspace: cost from start
    parent,  # int32[:]   workspace: predecessor index
    mark,  # int32[:]     workspace: generation marks
    heap_key,  # float64[:] workspace: heap priorities (capacity >= number of cells)
    heap_node,  # int32[:] workspace: heap payloads
    path_out,  # int32[:] out: path indices, start..goal (or start..closest)
    record,  # int32[:, :] optional (H, W) footprint; shape (0, 0) when not recording
    trace,  # int32[:]    optional expansion order (unpadded flat y*W+x); size 0 when not tracing
):
    """Best-first search from ``start`` to ``goal`` with priority ``g_mult*g + h_mult*h``.

    Returns ``(status, path_len, expanded, end_node)``: ``path_out[:path_len]`` holds the
    path to the goal (status FOUND) or to ``end_node``, the expanded node closest to the
    goal by ``metric`` (the partial path), in padded flat indices.

    The heap is lazy: an improved node is pushed again and its stale entry skipped when
    popped (it is closed by then), which saves the position bookkeeping of decrease-key.
    Should the heap fill up, stale entries are dropped, which always makes room since
    there are fewer open cells than cells.

    When ``record`` has the grid's shape, ``record[y, x]`` is set to ``-1`` for a cell
    put on the open list and to ``k`` (1-based) when it is the k-th cell expanded.
    ``trace[k - 1]`` gets the k-th expanded cell (``y * W + x``) while ``k <= trace.size``.
    """
    open_mark = 2 * gen
    closed_mark = open_mark + 1
    recording = record.shape[0] > 0
    capacity = heap_key.size
    goal_x = goal % width
    goal_y = goal // width
    n_dirs = 4 if diag_rule == DIAG_NEVER else 8

    # Neighbours: 4 orthogonal, then 4 diagonal, as (dx, dy) and flat offset.
    dxs = np.array((1, -1, 0, 0, 1, -1, 1, -1), dtype=np.int64)
    dys = np.array((0, 0, 1, -1, 1, 1, -1, -1), dtype=np.int64)
    offsets = dxs + dys * width

    size = _begin(start, width, goal_x, goal_y, metric, h_mult, g, parent, mark, open_mark, heap_key, heap_node, record)

    expanded = 0
    best = start
    best_h = np.inf
    best_g = 0.0
    status = STATUS_EXHAUSTED
    while size > 0:
        u = heap_node[0]
        size -= 1
        if size > 0:
            heap_key[0] = heap_key[size]
            heap_node[0] = heap_node[size]
            _sift_down(0, size, heap_key, heap_node)
        if mark[u] == closed_mark:
            continue  # a stale entry: u was pushed again with a better g and expanded already
        mark[u] = closed_mark
        expanded += 1
        uy = u // width
        ux = u - uy * width  # one division, not two
        if recording:
            record[uy - 1, ux - 1] = expanded
        if expanded <= trace.size:
            trace[expanded - 1] = (uy - 1) * (width - 2) + ux - 1
        gu = g[u]
        if u == goal:
            status = STATUS_FOUND
            best = u
            break
        hu = _metric(metric, abs(ux - goal_x), abs(uy - goal_y))
        if hu < best_h or (hu == best_h and gu < best_g):
            best = u
            best_h = hu
            best_g = gu
        if expanded >= max_nodes:
            status = STATUS_HIT_LIMIT
            break

        for k in range(n_dirs):
            v = u + offsets[k]
            cv = costs[v]
            if cv <= 0.0:
                continue
            m = mark[v]
            if m == closed_mark:
                continue
            if k < 4:
                ng = gu + cv
            else:
                # The two orthogonal cells this diagonal step squeezes between.
                if not diagonal_allowed(diag_rule, costs[u + dxs[k]] > 0.0, costs[u + dys[k] * width] > 0.0):
                    continue
                ng = gu + SQRT2 * cv
            if m == open_mark:
                if ng >= g[v]:
                    continue
            else:
                mark[v] = open_mark
                if recording:
                    record[uy + dys[k] - 1, ux + dxs[k] - 1] = -1
            g[v] = ng
            parent[v] = u
            hv = _metric(metric, abs(ux + dxs[k] - goal_x), abs(uy + dys[k] - goal_y))
            # The push is written out here and in jps_kernel rather than in a helper: a helper
            # (inlined or not) measured 30-40 % slower per expansion under numba.
            if size == capacity:
                size = _compact(
                    size,
                    heap_key,
                    heap_node,
                    g,
                    mark,
                    open_mark,
                    width,
                    goal_x,
                    goal_y,
                    metric,
                    g_mult,
                    h_mult,
                )
                if size == capacity:  # cannot happen with one slot per cell; never write past the end
                    raise RuntimeError("search heap is too small for the open list")
            heap_key[size] = g_mult * ng + h_mult * hv
            heap_node[size] = v
            _sift_up(size, heap_key, heap_node)
            size += 1

    # Walk the parents back from the end node, then reverse in place.
    n = 0
    node = best
    while node != -1:
        path_out[n] = node
        n += 1
        node = parent[node]
    for i in range(n // 2):
        t = path_out[i]
        path_out[i] = path_out[n - 1 - i]
        path_out[n - 1 - i] = t
    return status, n, expanded, best


# --------------------------------------------------------------------------------------
# Jump Point Search (Harabor & Grastien 2011), for uniform-cost grids with the
# no-corner-cutting rule. It returns the same optimal cost as A* while putting only
# "jump points" (cells where an optimal path may turn) on the heap; the straight and
# diagonal scans between them are plain array walks, cheap next to heap operations.
#
# Pruning rules under no corner cutting (a diagonal step needs both orthogonal cells
# free), travelling in direction (dx, dy):
#   straight (dx, 0): continue to (x+dx, y); for each side s = ±1, if (x-dx, y+s) is
#     blocked and (x, y+s) free, the cells (x, y+s) and (x+dx, y+s) are forced
#     successors (no equally short path reaches them without passing (x, y)).
#   diagonal (dx, dy): successors (x+dx, y), (x, y+dy) and (x+dx, y+dy); a diagonal
#     jump stops where a straight scan along either component finds a jump point.
# --------------------------------------------------------------------------------------


@njit(cache=True, inline="always")
def _free(costs, i):
    return costs[i] > 0.0


@njit(cache=True)
def _jump_straight(costs, width, x, y, dx, dy, goal):
    """Scan from (x, y) in a straight direction; return the first jump point's index or -1."""
    step = dx + dy * width
    i = x + y * width
    while True:
        i += step
        if not _free(costs, i):
            return -1
        if i == goal:
            return i
        if dy == 0:
            # Moving horizontally: a free cell above/below whose cell behind is blocked.
            if (_free(costs, i - width) and not _free(costs, i - width - dx)) or (
                _free(costs, i + width) and not _free(costs, i + width - dx)
            ):
                return i
        elif (_free(costs, i - 1) and not _free(costs, i - 1 - step)) or (
            _free(costs, i + 1) and not _free(costs, i + 1 - step)
        ):
            return i


@njit(cache=True)
def _jump_diagonal(costs, width, x, y, dx, dy, goal):
    """Scan diagonally from (x, y); return the first jump point's index or -1."""
    i = x + y * width
    while True:
        # No corner cutting: both cells beside the diagonal step must be free.
        if not (_free(costs, i + dx) and _free(costs, i + dy * width)):
            return -1
        i += dx + dy * width
        x += dx
        y += dy
        if not _free(costs, i):
            return -1
        if i == goal:
            return i
        if _jump_straight(costs, width, x, y, dx, 0, goal) != -1:
            return i
        if _jump_straight(costs, width, x, y, 0, dy, goal) != -1:
            return i


@njit(cache=True, nogil=True)
def jps_kernel(
    costs,
    width,
    start,
    goal,
    metric,
    unit,
    h_mult,
    max_nodes,
    gen,
    g,
    parent,
    mark,
    heap_key,
    heap_node,
    path_out,
    record,
    trace,
):
    """A* with jump point search; ``unit`` is the grid's one multiplier.

    Same arguments and return value as :func:`search_kernel` (no diagonal rule: always
    no-corner-cutting; the priority is ``g + h_mult*h``). ``expanded`` counts jump
    points taken off the heap; ``record`` and ``trace`` show jump points, not every cell scanned.
    """
    open_mark = 2 * gen
    closed_mark = open_mark + 1
    recording = record.shape[0] > 0
    capacity = heap_key.size
    goal_y = goal // width
    goal_x = goal - goal_y * width
    dxs = np.array((1, -1, 0, 0, 1, -1, 1, -1), dtype=np.int64)
    dys = np.array((0, 0, 1, -1, 1, 1, -1, -1), dtype=np.int64)
    succ = np.empty(8, dtype=np.int64)
    # dir_of[(dy + 1) * 3 + dx + 1] is the index k with (dxs[k], dys[k]) == (dx, dy).
    dir_of = np.array((7, 3, 6, 1, -1, 0, 5, 2, 4), dtype=np.int64)

    size = _begin(start, width, goal_x, goal_y, metric, h_mult, g, parent, mark, open_mark, heap_key, heap_node, record)

    expanded = 0
    best = start
    best_h = np.inf
    best_g = 0.0
    status = STATUS_EXHAUSTED
    while size > 0:
        u = heap_node[0]
        size -= 1
        if size > 0:
            heap_key[0] = heap_key[size]
            heap_node[0] = heap_node[size]
            _sift_down(0, size, heap_key, heap_node)
        if mark[u] == closed_mark:
            continue
        mark[u] = closed_mark
        expanded += 1
        uy = u // width
        ux = u - uy * width
        if recording:
            record[uy - 1, ux - 1] = expanded
        if expanded <= trace.size:
            trace[expanded - 1] = (uy - 1) * (width - 2) + ux - 1
        gu = g[u]
        if u == goal:
            status = STATUS_FOUND
            best = u
            break
        hu = _metric(metric, abs(ux - goal_x), abs(uy - goal_y))
        if hu < best_h or (hu == best_h and gu < best_g):
            best = u
            best_h = hu
            best_g = gu
        if expanded >= max_nodes:
            status = STATUS_HIT_LIMIT
            break

        # Directions to scan from u: all 8 at the start, else the pruned set.
        p = parent[u]
        if p == -1:
            for k in range(8):
                succ[k] = k
            n_succ = 8
        else:
            py = p // width
            px = p - py * width
            dx = (ux > px) - (ux < px)
            dy = (uy > py) - (uy < py)
            succ[0] = dir_of[(dy + 1) * 3 + dx + 1]
            n_succ = 1
            if dx != 0 and dy != 0:
                succ[1] = dir_of[4 + dx]  # (dx, 0)
                succ[2] = dir_of[(dy + 1) * 3 + 1]  # (0, dy)
                n_succ = 3
            else:
                for side in (-1, 1):
                    # Forced: the cell beside u whose neighbour behind is blocked, and
                    # the diagonal past it.
                    if dx != 0:
                        behind = u - dx + side * width
                        px, py, qx, qy = 0, side, dx, side
                    else:
                        behind = u + side - dy * width
                        px, py, qx, qy = side, 0, side, dy
                    if not _free(costs, behind):
                        succ[n_succ] = dir_of[(py + 1) * 3 + px + 1]
                        succ[n_succ + 1] = dir_of[(qy + 1) * 3 + qx + 1]
                        n_succ += 2

        for j in range(n_succ):
            k = succ[j]
            if k < 4:
                v = _jump_straight(costs, width, ux, uy, dxs[k], dys[k], goal)
            else:
                v = _jump_diagonal(costs, width, ux, uy, dxs[k], dys[k], goal)
            if v == -1:
                continue
            m = mark[v]
            if m == closed_mark:
                continue
            vy = v // width
            vx = v - vy * width
            ddx = abs(vx - ux)
            ddy = abs(vy - uy)
            ng = gu + unit * (max(ddx, ddy) + (SQRT2 - 1.0) * min(ddx, ddy))
            if m == open_mark:
                if ng >= g[v]:
                    continue
            else:
                mark[v] = open_mark
                if recording:
                    record[vy - 1, vx - 1] = -1
            g[v] = ng
            parent[v] = u
            hv = _metric(metric, abs(vx - goal_x), abs(vy - goal_y))
            if size == capacity:
                size = _compact(
                    size, heap_key, heap_node, g, mark, open_mark, width, goal_x, goal_y, metric, 1.0, h_mult
                )
                if size == capacity:  # cannot happen with one slot per cell; never write past the end
                    raise RuntimeError("search heap is too small for the open list")
            heap_key[size] = ng + h_mult * hv
            heap_node[size] = v
            _sift_up(size, heap_key, heap_node)
            size += 1

    # Parents are jump points on straight or diagonal lines: fill in the cells between.
    n = 0
    node = best
    while node != -1:
        prev = parent[node]
        path_out[n] = node
        n += 1
        if prev != -1:
            ny = node // width
            nx = node - ny * width
            qy = prev // width
            qx = prev - qy * width
            sx_ = (qx > nx) - (qx < nx)
            sy_ = (qy > ny) - (qy < ny)
            cell = node + sx_ + sy_ * width
            while cell != prev:
                path_out[n] = cell
                n += 1
                cell += sx_ + sy_ * width
        node = prev
    for i in range(n // 2):
        t = path_out[i]
        path_out[i] = path_out[n - 1 - i]
        path_out[n - 1 - i] = t
    return status, n, expanded, best
