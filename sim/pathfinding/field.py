"""Distance fields: the cost of the cheapest path from every cell *to* one goal (reverse Dijkstra).

One field serves any number of walkers heading for the same goal (a herd called to a
water hole): each cell's next step is the neighbour that continues a cheapest path, so
following the steps from anywhere is an optimal path, at no further search.

The engine's cost model is kept: a step costs its length times the multiplier of the
cell it *enters*, and a step is allowed by the grid's diagonal rule. The field is grown
from the goal along reversed edges: cell ``p`` gets ``dist[u] + len(k) * cost[u]`` from
a settled neighbour ``u`` when the step ``p -> u`` (direction ``k``) is legal from ``p``.
The kernel uses the search workspace (``g``, ``mark``, the heap) and writes the result
into a fresh ``(H, W)`` float64 array, ``inf`` where the goal cannot be reached.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .common import STEP_LENGTH, _sift_down, _sift_up
from .rules import DX, DY

FIELD_DONE = 0
FIELD_HEAP_FULL = 1  # the caller grows the heap and runs it again


@njit(cache=True, nogil=True)
def field_core(codes, lut, moves, width, goal, max_cost, g, mark, gen, heap_key, heap_node, out, order):
    """Settle cells outward from ``goal`` (padded index) until ``max_cost``; returns ``(status, settled)``.

    ``out`` is the unpadded field (H*W, filled with inf by the caller); ``order[k]`` gets the
    k-th settled cell (``y * W + x``) while it fits. The heap is lazy: a cell improved while
    open is pushed again and its stale entry skipped when popped.
    """
    open_mark = 2 * gen
    closed = open_mark + 1
    inner = width - 2
    offsets = DX + DY * width
    g[goal] = 0.0
    mark[goal] = open_mark
    heap_key[0] = 0.0
    heap_node[0] = goal
    size = 1
    settled = 0
    while size > 0:
        u = heap_node[0]
        du = heap_key[0]
        size -= 1
        if size > 0:
            heap_key[0] = heap_key[size]
            heap_node[0] = heap_node[size]
            _sift_down(0, size, heap_key, heap_node)
        if mark[u] == closed:
            continue
        if du > max_cost:
            break
        mark[u] = closed
        uy = u // width
        cell = (uy - 1) * inner + u - uy * width - 1
        out[cell] = du
        if settled < order.size:
            order[settled] = cell
        settled += 1
        enter = lut[codes[u]]
        for k in range(8):
            p = u - offsets[k]  # p steps in direction k to reach u
            if not (moves[p] >> k) & 1:
                continue
            mp = mark[p]
            if mp == closed:
                continue
            nd = du + STEP_LENGTH[k] * enter
            if mp == open_mark and nd >= g[p]:
                continue
            mark[p] = open_mark
            g[p] = nd
            if size == heap_key.size:
                return FIELD_HEAP_FULL, settled
            heap_key[size] = nd
            heap_node[size] = p
            _sift_up(size, heap_key, heap_node)
            size += 1
    return FIELD_DONE, settled


@njit(cache=True, nogil=True)
def steps_core(dist, codes, lut, moves, width, out):
    """Each cell's next step down ``dist`` (padded moves, unpadded ``dist``/``out``): the legal
    direction ``k`` minimising ``dist[next] + len(k) * cost[next]``, the lowest ``k`` on ties;
    -1 at the goal and where the field is ``inf``."""
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
                if d < best:
                    best = d
                    out[y, x] = k
    return out


@njit(cache=True, nogil=True)
def follow_core(steps, starts, max_len, paths, offsets):
    """Walk ``steps`` from each ``(x, y)`` in ``starts`` to the goal (at most ``max_len`` cells);
    the cells (``y * W + x``, start first) go to ``paths[offsets[i]:offsets[i + 1]]``. Returns the
    number of cells written; a start with no step and not at the goal gets an empty path."""
    w = steps.shape[1]
    n = 0
    for i in range(starts.shape[0]):
        offsets[i] = n
        x = starts[i, 0]
        y = starts[i, 1]
        length = 0
        while length < max_len:
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
