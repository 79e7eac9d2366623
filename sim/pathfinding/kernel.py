"""The compiled best-first search kernels (numba): arrays and numbers in, paths out.

Everything here works on a *padded, flattened* grid: the caller's ``(H, W)`` grid
surrounded by a one-cell border that is always blocked, stored row-major with width
``W + 2``. The border means a neighbour index never needs a bounds check.

The grid is given as ``codes`` (one small unsigned int per cell, 0 on the border) and
``lut`` (the multiplier of each code; ``lut[0] == 0``): a cell costs ``lut[codes[i]]``
to enter, blocked where that is 0. A map of a few terrains then takes one byte per
cell instead of eight. ``moves`` holds, per cell, a bit for each of the 8 directions
that is a legal step from it under the search's diagonal rule (see ``rules.py``), so
the inner loop never re-checks passability or corner rules.

One kernel serves A*, weighted A*, Dijkstra and greedy best-first; they differ only in
the priority (``common.priority``: ``g_mult * g + h_mult * h``). Jump point search has its own kernels (block-based,
:mod:`.jps`, JPSW's rules on weighted grids; JPS+, :mod:`.jpsplus`), which take the grid's
jump data too (``blocks``: bits and tables; an empty array for the other kernels). All are
called per query by :func:`search_one` and, for many queries on one grid in one call, by
:func:`search_batch`.

All per-cell buffers (``g``, ``parent``, ``mark``) belong to a workspace the caller
reuses across searches (and grids of the same or smaller size). A generation stamp in
``mark`` tells which entries belong to the current search, so nothing proportional to
the map is cleared or allocated per search: ``mark[i] == 2*gen`` means "open this
search", ``2*gen + 1`` "closed". ``parent`` holds the direction of the last step into
a cell (``NO_PARENT`` at the start), one byte per cell; JPS keeps its jump points' g and
links in ``jump_parent`` instead (int64, two a cell: :func:`.jps.record_views`), allocated
only when JPS is used. A* on uniform grids, and JPS and JPS+ there too, keep g as exact
integer pairs instead of floats; A* there runs on a bucket queue (:mod:`.buckets`), the rest on a heap.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.extending import overload

from sim.pathfinding.addresses import arrays_of
from sim.pathfinding.buckets import _LOW, _h_pair, bucket_pop, bucket_push, fresh_queue, queue_tables
from sim.pathfinding.common import (
    _BITS,
    _ENTRIES_FULL,
    _HEAP_FULL,
    _NBITS,
    MAX_GEN,
    METRIC_CHEBYSHEV,
    METRIC_EUCLIDEAN,
    METRIC_MANHATTAN,
    METRIC_OCTILE,
    NO_LANDMARKS,
    SQRT2,
    STAT_COMPACTIONS,
    STAT_HEAP_GROWS,
    STATUS_BLOCKED,
    STATUS_FOUND,
    STATUS_HIT_LIMIT,
    STATUS_NOT_SERVED,
    STATUS_UNREACHABLE,
    STEP_LENGTH,
    _begin,
    _compact,
    _metric,
    _sift_down,
    _sift_up,
    landmark_h,
    priority,
)
from sim.pathfinding.compiled import unflat
from sim.pathfinding.jps import jps_core, jps_pairs_core, link_parent, turn_of
from sim.pathfinding.linked import astar_pointer, bucket_pointer, jps_pairs_pointer, jps_pointer, provide
from sim.pathfinding.rules import DIAG_NO_CORNER_CUTTING, DX, DY, NO_PARENT, SUCCESSORS

__all__ = [
    "MAX_GEN",
    "METRIC_CHEBYSHEV",
    "METRIC_EUCLIDEAN",
    "METRIC_MANHATTAN",
    "METRIC_OCTILE",
    "STATUS_BLOCKED",
    "STATUS_FOUND",
    "STATUS_HIT_LIMIT",
    "STATUS_NOT_SERVED",
    "STATUS_UNREACHABLE",
    "STAT_COMPACTIONS",
    "STAT_HEAP_GROWS",
    "search_batch",
    "search_one",
]


@njit(cache=True)
def _grown(a):
    out = np.empty(a.size * 2, dtype=a.dtype)
    for i in range(a.size):  # a loop, not out[:n] = a: no shape check to compile (~0.5 s a first start)
        out[i] = a[i]
    return out


# ---------------------------------------------------------------------- A* and friends
@njit(cache=True, nogil=True)
def astar_core(
    codes,  # uint[:]     padded, flattened cost codes; 0 on the border
    lut,  # float64[:]    multiplier per code; <= 0 is impassable
    moves,  # uint8[:]    per cell, a bit per legal direction (rules.build_moves)
    width,  # int         padded width (W + 2)
    start,  # int         padded flat index
    goal,  # int          padded flat index
    metric,  # int        METRIC_* used for h and for "closest node reached"
    prio,  # Priority     the open list's order: common.priority(g, h, prio)
    max_nodes,  # int     stop after this many expansions
    g,  # float64[:]      workspace: cost from start
    parent,  # uint8[:]   workspace: direction of the step into each cell
    mark,  # uint16[:]    workspace: generation marks
    gen,  # int           generation stamp of this search (>= 1)
    heap_key,  # float64[:] workspace: heap priorities
    heap_node,  # int32[:] workspace: heap payloads
    record,  # int32[:, :] optional (H, W) footprint; shape (0, 0) when not recording
    trace,  # int32[:]    optional expansion order (unpadded y*W+x); written from trace_at
    trace_at,  # int      where this search's expansions start in ``trace``
    stats,  # int64[:]    workspace statistics (compactions, heap growths)
    lm,  # float64[:, :]  landmark costs per padded cell (landmarks.py), or common.NO_LANDMARKS
    sym,  # bool          costs are the same both ways (the landmarks' bound is then two-sided)
    prune=False,  # bool  push only canonical successors where a cell's 3x3 costs the same (canonical())
):
    """Best-first search from ``start`` to ``goal`` in the order of ``common.priority``; the
    heuristic is the ``metric``, or the landmarks' bound where that is larger.

    Returns ``(status, expanded, end)``: ``end`` is the goal (status FOUND) or the expanded
    node closest to the goal by ``metric`` (the partial path's end). A status of
    ``_HEAP_FULL`` asks the caller for a larger heap (see :func:`_search`).

    The heap is lazy: an improved node is pushed again and its stale entry skipped when
    popped (it is closed by then), which saves the position bookkeeping of decrease-key.

    When ``record`` has the grid's shape, ``record[y, x]`` is set to ``-1`` for a cell
    put on the open list and to ``k`` (1-based) when it is the k-th cell expanded.
    ``trace[trace_at + k - 1]`` gets the k-th expanded cell while it fits.

    With ``prune``, a cell whose passable neighbours all cost what it costs pushes only its
    canonical successors (``rules.SUCCESSORS``, no-corner-cutting): in such a 3x3 window the
    pruning argument of a uniform grid holds as it is, and elsewhere every legal step is pushed.
    """
    open_mark = 2 * gen
    closed_mark = open_mark + 1
    recording = record.shape[0] > 0
    goal_y = goal // width
    goal_x = goal - goal_y * width
    offsets = DX + DY * width

    size = _begin(  # (g as a strided view: see _begin)
        start, width, goal_x, goal_y, metric, prio, g[::1], parent, mark, open_mark, heap_key, heap_node, record, lm,
        sym,
    )  # fmt: skip
    landmarks = lm.shape[1] > 0
    # On a grid whose passable cells all cost the same (A* with landmarks or the Euclidean heuristic on a
    # uniform grid) the 3x3 test of every expansion always passes: left out, ~12 % of such a search.
    one_cost = prune
    c0 = 0.0
    for i in range(lut.size):
        if lut[i] > 0.0:
            if c0 == 0.0:
                c0 = lut[i]
            elif lut[i] != c0:
                one_cost = False
                break
    expanded = 0
    best = start
    best_h = np.inf
    best_g = 0.0
    status = STATUS_UNREACHABLE
    # The best successor of the last expansion is held out of the heap: it is very often
    # the next to expand (the deeper cell on the line to the goal), and then it costs
    # neither a sift up nor a sift down (8-15 % of a short search measured on the demo's
    # cows and birds). A pop takes the smaller of it and the heap's top, the held one on
    # ties, so the order is still best-first.
    hold = -1
    hold_key = np.inf
    while size > 0 or hold != -1:
        if hold != -1 and (size == 0 or hold_key <= heap_key[0]):
            u = hold
            hold = -1
        else:
            if hold != -1:  # not the best: into the heap after all (a slot is kept free for it)
                heap_key[size] = hold_key
                heap_node[size] = hold
                _sift_up(size, heap_key, heap_node)
                size += 1
                hold = -1
            u = heap_node[0]
            size -= 1
            if size > 0:
                heap_key[0] = heap_key[size]
                heap_node[0] = heap_node[size]
                _sift_down(0, size, heap_key, heap_node)
        hold_key = np.inf
        ui = np.uint64(u)
        if mark[ui] == closed_mark:
            continue  # a stale entry: u was pushed again with a better g and expanded already
        mark[ui] = closed_mark
        expanded += 1
        uy = u // width
        ux = u - uy * width  # one division, not two
        if recording:
            record[uy - 1, ux - 1] = expanded
        if trace_at + expanded <= trace.size:
            trace[trace_at + expanded - 1] = (uy - 1) * (width - 2) + ux - 1
        gu = g[ui]
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

        m = moves[ui]
        if one_cost:  # (every neighbour costs what u costs, or is blocked: the test below, known)
            m = SUCCESSORS[m, parent[ui]]
        elif prune:
            cu = lut[codes[ui]]
            same = True
            for k in range(8):  # (no branch per neighbour: the 3 rows are in cache for the loop below anyway)
                cv = lut[codes[np.uint64(u + offsets[k])]]
                same &= (cv == cu) | (cv <= 0.0)
            if same:
                m = SUCCESSORS[m, parent[ui]]
        for j in range(_NBITS[m]):
            k = np.uint64(_BITS[m, j])
            v = u + offsets[k]
            vi = np.uint64(v)  # unsigned indices: no negative-index fix-up per access (common.py)
            mv = mark[vi]
            if mv == closed_mark:
                continue
            ng = gu + STEP_LENGTH[k] * lut[codes[vi]]
            if mv == open_mark:
                if ng >= g[vi]:
                    continue
            else:
                mark[vi] = open_mark
                if recording:
                    record[uy + DY[k] - 1, ux + DX[k] - 1] = -1
            g[vi] = ng
            parent[vi] = k
            hv = _metric(metric, abs(ux + DX[k] - goal_x), abs(uy + DY[k] - goal_y))
            if landmarks:
                hv = max(hv, landmark_h(lm, vi, goal, sym))
            key = priority(ng, hv, prio)
            if key < hold_key:  # the best successor so far is held; the one it replaces goes on the heap
                if hold == -1:
                    hold = v
                    hold_key = key
                    continue
                v, hold = hold, v
                key, hold_key = hold_key, key
            # The push is written out here and in jps_core rather than in a helper: a helper
            # (inlined or not) measured 30-40 % slower per expansion under numba. The heap
            # arrays are never replaced inside this loop (that costs numba reference counting
            # on every iteration): when compaction cannot free half of it, the caller grows it
            # and runs the search again. One slot stays free for the held successor.
            if size >= heap_key.size - 1:
                size = _compact(
                    size, heap_key, heap_node, g[::1], mark, open_mark, width, goal_x, goal_y, metric, prio, stats,
                    lm, sym,
                )  # fmt: skip
                if size > heap_key.size // 2:
                    return _HEAP_FULL, expanded, best
            heap_key[size] = key
            heap_node[size] = v
            _sift_up(size, heap_key, heap_node)
            size += 1
    return status, expanded, best


# --------------------------------------------------------------------------------------
# A* on uniform grids with an exact bucket queue instead of a heap (the queue: buckets.py).
# --------------------------------------------------------------------------------------
_P_STEP = np.array((1, 1, 1, 1, 0, 0, 0, 0), dtype=np.int64)  # straight steps add 1 to p
_Q_STEP = np.array((0, 0, 0, 0, 1, 1, 1, 1), dtype=np.int64)  # diagonal steps add 1 to q


@njit(cache=True, nogil=True)
def bucket_core(
    codes, lut, moves, width, start, goal, heuristic, metric, prune, max_nodes,
    gi, parent, mark, gen, kh_key, q32, q64, entries, hgen, record, trace, trace_at,
):  # fmt: skip
    """A* (or Dijkstra) on a uniform grid; ``gi`` holds g as ``p << 32 | q``.

    ``heuristic`` is METRIC_OCTILE, _MANHATTAN or _CHEBYSHEV, or -1 for none (Dijkstra);
    ``metric`` picks the "closest node reached"; with ``prune`` an expansion pushes the cell's
    canonical successors only (``rules.SUCCESSORS``, :func:`canonical`). Returns ``(status, expanded, end, hgen)``;
    ``status == _HEAP_FULL`` asks for more room. ``record``/``trace`` as in
    :func:`~sim.pathfinding.kernel.astar_core`.
    """
    open_mark = 2 * gen
    closed_mark = open_mark + 1
    recording = record.shape[0] > 0
    goal_y = goal // width
    goal_x = goal - goal_y * width
    offsets = DX + DY * width
    tables, q32, q64, hshift = queue_tables((kh_key, q32, q64, entries))
    queue = fresh_queue(hgen)  # (the bucket queue's state: buckets.bucket_push)
    sy = start // width
    sx = start - sy * width
    gi[start] = 0
    parent[start] = NO_PARENT
    mark[start] = open_mark
    if recording:
        record[sy - 1, sx - 1] = -1
    fp, fq = _h_pair(heuristic, abs(sx - goal_x), abs(sy - goal_y))
    v = start
    expanded = 0
    best = start
    best_h = np.inf
    best_g = 0.0
    u = -1  # the cell being expanded (-1: pop the next one)
    m = moves[start]
    n_moves = 0
    j = 0
    up = np.int64(0)
    uq = np.int64(0)
    ux = 0
    uy = 0
    while True:
        # ---- push v with priority fp + fq*√2 (on the first pass: the start)
        status, queue = bucket_push(fp, fq, v, queue, tables, q32, q64, hshift)
        if status != 0:
            return status, expanded, best, queue[4]

        # ---- the next neighbour of u to push, or pop the next cell to expand
        while True:
            pushing = False
            while u != -1 and j < n_moves:
                k = np.uint64(_BITS[m, j])
                j += 1
                v = u + offsets[k]
                vi = np.uint64(v)
                mv = mark[vi]
                if mv == closed_mark:
                    continue
                vp = up + _P_STEP[k]
                vq = uq + _Q_STEP[k]
                if mv == open_mark:
                    old = gi[vi]
                    if vp + vq * SQRT2 >= (old >> 32) + (old & _LOW) * SQRT2:
                        continue
                else:
                    mark[vi] = open_mark
                    if recording:
                        record[uy + DY[k] - 1, ux + DX[k] - 1] = -1
                gi[vi] = (vp << 32) | vq
                parent[vi] = k
                hp, hq = _h_pair(heuristic, abs(ux + DX[k] - goal_x), abs(uy + DY[k] - goal_y))
                fp = vp + hp
                fq = vq + hq
                pushing = True
                break
            if pushing:
                break
            # pop: the newest cell of the lowest bucket
            if queue[1] == 0:
                return STATUS_UNREACHABLE, expanded, best, queue[4]
            w, queue = bucket_pop(queue, tables)
            wi = np.uint64(w)
            if mark[wi] == closed_mark:
                continue  # a stale entry: it was pushed again with a better g and expanded already
            mark[wi] = closed_mark
            expanded += 1
            uy = w // width
            ux = w - uy * width
            if recording:
                record[uy - 1, ux - 1] = expanded
            if trace_at + expanded <= trace.size:
                trace[trace_at + expanded - 1] = (uy - 1) * (width - 2) + ux - 1
            if w == goal:
                return STATUS_FOUND, expanded, w, queue[4]
            g0 = gi[wi]
            up = g0 >> 32
            uq = g0 & _LOW
            hu = _metric(metric, abs(ux - goal_x), abs(uy - goal_y))
            gu = up + uq * SQRT2
            if hu < best_h or (hu == best_h and gu < best_g):
                best = w
                best_h = hu
                best_g = gu
            if expanded >= max_nodes:
                return STATUS_HIT_LIMIT, expanded, best, queue[4]
            u = w
            m = moves[wi]
            if prune:  # (the cells a cell's neighbours reach as cheaply are not pushed from it)
                m = SUCCESSORS[m, parent[wi]]
            n_moves = _NBITS[m]
            j = 0


# ------------------------------------------------------------------------- paths
@njit(cache=True, inline="always")
def _unpad(node, width):
    return (node // width - 1) * (width - 2) + node % width - 1


@njit(cache=True)
def _path_length(end, parent, jump_parent, jps, width):
    """Cells on the path from the start to ``end``: A* parents are directions of single
    steps; JPS parents are jump points, joined by a straight or diagonal line, or by a
    diagonal then a straight one (:func:`.jps.turn_of`)."""
    n = 1
    node = end
    if jps:
        links = jump_parent[1::2]
        while link_parent(links[node]) != -1:
            prev = link_parent(links[node])
            turn = turn_of(node, prev, links[node] & 15, width)
            n += max(abs(node % width - turn % width), abs(node // width - turn // width))
            n += max(abs(turn % width - prev % width), abs(turn // width - prev // width))
            node = prev
        return n
    while parent[node] != NO_PARENT:
        node -= DX[parent[node]] + DY[parent[node]] * width
        n += 1
    return n


@njit(cache=True, inline="always")
def _line_back(node, to, width, out, i):
    """Write the cells from ``node`` (exclusive) to ``to`` (inclusive) along their straight
    or diagonal line into ``out`` backwards from ``i``; returns the next free index. (The cells
    as unpadded indices one step apart: no division a cell, ~4x faster on long paths.)"""
    nx, ny, tx, ty = node % width, node // width, to % width, to // width
    step = ((tx > nx) - (tx < nx)) + ((ty > ny) - (ty < ny)) * (width - 2)
    c = _unpad(node, width)
    for _ in range(max(abs(tx - nx), abs(ty - ny))):
        c += step
        i -= 1
        out[i] = c
    return i


@njit(cache=True)
def _write_path(end, n, parent, jump_parent, jps, width, out, at):
    """Write the ``n`` cells from the start to ``end`` into ``out[at:at+n]`` as unpadded ``y*W+x``."""
    i = at + n - 1
    node = end
    out[i] = _unpad(node, width)
    if jps:
        links = jump_parent[1::2]
        while link_parent(links[node]) != -1:
            prev = link_parent(links[node])
            turn = turn_of(node, prev, links[node] & 15, width)
            i = _line_back(node, turn, width, out, i)
            i = _line_back(turn, prev, width, out, i)
            node = prev
        return
    c = _unpad(node, width)
    while parent[node] != NO_PARENT:
        k = parent[node]
        node -= DX[k] + DY[k] * width
        c -= DX[k] + DY[k] * (width - 2)
        i -= 1
        out[i] = c


@njit(cache=True)
def _grow_int(arr, need):
    out = np.empty(max(need, 2 * arr.size), dtype=arr.dtype)
    for i in range(arr.size):  # see _grown
        out[i] = arr[i]
    return out


# ------------------------------------------------------------------------- entry points
MODE_HEAP = 0  # astar_core: any costs, any priority
MODE_JPS = 1  # jps_core on a grid's JPS bits (JPSW's rules on a weighted grid), no corner cutting
MODE_BUCKETS = 2  # bucket_core: uniform costs, A*/Dijkstra with an exact integer-pair heuristic
MODE_JPS_PLUS = 3  # jps_core on a jump table (JPS+; the grid args' 5th field), not on bits
MODE_LANDMARKS = 4  # astar_core with the landmarks' heuristic (their table: the grid args' 5th field)


def jumps(mode: int) -> bool:
    """Whether searches in ``mode`` go from jump point to jump point (their paths are made
    from ``jump_parent``, which the workspace then needs)."""
    return mode in (MODE_JPS, MODE_JPS_PLUS)


def jump_data(mode: int) -> bool | str:
    """What ``PathGrid.kernel_args`` puts in the grid args' 5th field for searches in ``mode``
    (its ``jps`` argument): JPS's bits (True), JPS+'s table ("jps+"), the landmarks' table
    ("landmarks"), or nothing (False)."""
    return "jps+" if mode == MODE_JPS_PLUS else "landmarks" if mode == MODE_LANDMARKS else mode == MODE_JPS


_HGEN_LIMIT = 1 << 30  # the bucket hash's stamps are int32: start over before they wrap


def bucketed(mode: int) -> bool:
    """Whether searches in ``mode`` run on the bucket queue (:mod:`.buckets`): A* on uniform grids
    (``MODE_BUCKETS``); every other search runs on the heap."""
    return mode == MODE_BUCKETS


_bucketed = njit(cache=True, inline="always")(bucketed)


def paired(mode: int, heuristic: int) -> bool:
    """Whether searches in ``mode`` (with the exact integer-pair ``heuristic`` of ``KernelParams``)
    keep their costs as integer pairs ``p << 32 | q`` in ``g``: A* on uniform grids
    (``MODE_BUCKETS``), and JPS and JPS+ there when ``heuristic >= 0``."""
    return mode == MODE_BUCKETS or (mode in (MODE_JPS, MODE_JPS_PLUS) and heuristic >= 0)


_paired = njit(cache=True, inline="always")(paired)


def jump_search(
    codes, lut, data, width, start, goal, metric, unit, prio, heuristic, max_nodes,
    g, parent, jump_parent, mark, gen, heap_key, heap_node, record, trace, trace_at, stats,
):  # fmt: skip
    """A search from jump point to jump point on the grid args' 5th field ``data``: block-based
    JPS on a grid's JPS bits (uint64 planes), JPS+ on its jump table (the same type: one plane,
    ``PathGrid.kernel_args``; one compiled kernel serves both), on the heap: with costs as integer
    pairs where the ``heuristic`` is exact (>= 0: :func:`.jps.jps_pairs_core`), else as floats
    (:func:`.jps.jps_core`). Returns ``(status, expanded, end)``. Compiled, for
    :data:`~sim.pathfinding.jps.EMPTY_BLOCKS` (uint8: a grid searched without either) this is
    a stub that reports the start blocked: callers compiled for such grids compile neither
    (JPS is 7 of the 18 s the demo's round took to compile). ``PathGrid.kernel_args`` gives
    the data a mode needs (``kernel.jump_data``)."""
    if heuristic >= 0:
        return jps_pairs_pointer(codes)(
            codes, lut, data, width, start, goal, metric, heuristic, max_nodes,
            g, jump_parent, mark, gen, heap_key, heap_node, record, trace, trace_at,
        )  # fmt: skip
    status, expanded, end = jps_pointer(codes)(
        codes, lut, data, width, start, goal, metric, unit, prio, max_nodes,
        g, parent, jump_parent, mark, gen, heap_key, heap_node, record, trace, trace_at, stats,
    )  # fmt: skip
    return status, expanded, end


@overload(jump_search, jit_options={"nogil": True, "cache": True})
def _jump_search(
    codes, lut, data, width, start, goal, metric, unit, prio, heuristic, max_nodes,
    g, parent, jump_parent, mark, gen, heap_key, heap_node, record, trace, trace_at, stats,
):  # fmt: skip
    """The compiled :func:`jump_search`, chosen by ``data``'s type."""
    jumping = data.dtype == types.uint64  # JPS's bits or JPS+'s table

    def neither(
        codes, lut, data, width, start, goal, metric, unit, prio, heuristic, max_nodes,
        g, parent, jump_parent, mark, gen, heap_key, heap_node, record, trace, trace_at, stats,
    ):  # fmt: skip
        return STATUS_BLOCKED, 0, start  # (callers write no path for a blocked status)

    return jump_search if jumping else neither


def landmark_search(
    codes, lut, moves, data, width, start, goal, metric, prio, sym, max_nodes,
    g, parent, mark, gen, heap_key, heap_node, record, trace, trace_at, stats, prune,
):  # fmt: skip
    """A* on the heap with the landmarks' heuristic (:func:`astar_core`; ``data``: the grid args'
    5th field, the landmarks' float64 table). Compiled for any other grid data, this is a stub
    that reports the start blocked, so callers compiled for plain or jumping searches never
    compile the landmarks' kernel (only a search that asks for it does)."""
    return astar_core(
        codes, lut, moves, width, start, goal, metric, prio, max_nodes,
        g, parent, mark, gen, heap_key, heap_node, record, trace, trace_at, stats, data, sym, prune,
    )  # fmt: skip


@overload(landmark_search, jit_options={"nogil": True, "cache": True})
def _landmark_search(
    codes, lut, moves, data, width, start, goal, metric, prio, sym, max_nodes,
    g, parent, mark, gen, heap_key, heap_node, record, trace, trace_at, stats, prune,
):  # fmt: skip
    """The compiled :func:`landmark_search`, chosen by ``data``'s type."""

    def neither(
        codes, lut, moves, data, width, start, goal, metric, prio, sym, max_nodes,
        g, parent, mark, gen, heap_key, heap_node, record, trace, trace_at, stats, prune,
    ):  # fmt: skip
        return STATUS_BLOCKED, 0, start  # (callers write no path for a blocked status)

    return landmark_search if data.dtype == types.float64 else neither


@njit(cache=True, inline="always")
def canonical(mode, rule, prio, unit):
    """Whether a search of these parameters pushes only canonical successors (``rules.SUCCESSORS``):
    under "no-corner-cutting", A* and Dijkstra (a consistent priority, which keeps every cell's first
    g optimal; landmarks' too) on the bucket queue everywhere, on the heap where a cell's 3x3 window
    costs the same. Weighted A*, greedy search and JPS are left as they are."""
    consistent = prio.g_mult == 1.0 and prio.h_mult <= unit * (1.0 + 1e-9)
    return rule == DIAG_NO_CORNER_CUTTING and (
        mode == MODE_BUCKETS or (mode in (MODE_HEAP, MODE_LANDMARKS) and consistent)
    )


@njit(cache=True, inline="always")
def _search(
    codes, lut, moves, width, blocks, start, goal, params,
    g, parent, jump_parent, mark, gen, heap, buckets, hgen, record, trace, trace_at, stats, grow=True,
):  # fmt: skip
    """One search, started again with more room whenever its open list fills up (with ``grow``;
    else the full open list's status is returned, for the caller to grow it).

    ``params`` is a ``KernelParams`` (unpacked here only: a new parameter changes this file,
    ``KernelParams`` and ``PathGrid._params``). ``heap`` is ``(heap_key, heap_node)``;
    ``buckets`` is ``(kh_key, q32, q64, entries)`` (see :func:`bucket_core`). Returns
    ``(status, expanded, end, cost, gen, heap, buckets, hgen)``.
    """
    mode, metric, prio, unit, max_nodes, heuristic, rule = params
    prune = canonical(mode, rule, prio, unit)
    while True:
        if hgen > _HGEN_LIMIT and _bucketed(mode):
            buckets[1][3, :] = 0
            hgen = 0
        if mode in (MODE_JPS, MODE_JPS_PLUS):  # which of the two: the grid data's type says
            status, expanded, end = jump_search(
                codes, lut, blocks, width, start, goal, metric, unit, prio, heuristic, max_nodes,
                g, parent, jump_parent, mark, gen, heap[0], heap[1], record, trace, trace_at, stats,
            )  # fmt: skip
        elif mode == MODE_BUCKETS:
            status, expanded, end, hgen = bucket_pointer(codes)(
                codes, lut, moves, width, start, goal, heuristic, metric, prune, max_nodes,
                g.view(np.int64), parent, mark, gen, buckets[0], buckets[1], buckets[2], buckets[3], hgen,
                record, trace, trace_at,
            )  # fmt: skip
        elif mode == MODE_LANDMARKS:  # (heuristic: 1 where costs are the same both ways)
            status, expanded, end = landmark_search(
                codes, lut, moves, blocks, width, start, goal, metric, prio, heuristic == 1, max_nodes,
                g, parent, mark, gen, heap[0], heap[1], record, trace, trace_at, stats, prune,
            )  # fmt: skip
        else:
            status, expanded, end = astar_pointer(codes)(
                codes, lut, moves, width, start, goal, metric, prio, max_nodes,
                g, parent, mark, gen, heap[0], heap[1], record, trace, trace_at, stats, NO_LANDMARKS, False, prune,
            )  # fmt: skip
        if (status != _HEAP_FULL and status != _ENTRIES_FULL) or not grow:
            break
        stats[STAT_HEAP_GROWS] += 1
        if _bucketed(mode):
            buckets = grown_buckets(buckets, status == _ENTRIES_FULL)
        else:
            heap = (_grown(heap[0]), _grown(heap[1]))
        gen += 1
        if gen >= MAX_GEN:
            mark[:] = 0
            gen = 1
        if record.shape[0] > 0:
            record[:, :] = 0
    cost = np.inf
    if status == STATUS_FOUND:
        if _paired(mode, heuristic):
            pq = g.view(np.int64)[end]
            cost = unit * ((pq >> 32) + (pq & 0xFFFFFFFF) * SQRT2)
        else:
            cost = g[end]
    return status, expanded, end, cost, gen, heap, buckets, hgen


@njit(cache=True)
def grown_buckets(buckets, entries_only):
    """The bucket queue's tables with twice the cell stacks' pool, or else twice the hash
    slots (nothing in them is kept: the search restarts)."""
    kh_key, q32, q64, entries = buckets
    if entries_only:
        return kh_key, q32, q64, np.empty((2, 2 * entries.shape[1]), np.int32)
    slots = 2 * q32.shape[1]
    return (
        np.empty(slots // 2, np.float64),
        np.zeros((q32.shape[0], slots), np.int32),
        np.empty((q64.shape[0], slots), np.int64),
        entries,
    )


@njit(cache=True, nogil=True)
def search_one(codes, lut, moves, width, blocks, start, goal, params, arrays, gen, hgen, at, record, trace):
    """One search; returns ``(status, expanded, cost, n, end, hgen)``, numbers only (handing
    arrays back to Python cost ~3 µs a call, a quarter of a short search's). ``params`` is
    ``KernelParams.flat``: its fields as one float64 array, ``prio``'s last (``compiled.unflat``
    reads them back; as a tuple of numbers ~0.2 µs more, a nested named tuple is typed in Python at
    every call: ~0.6 µs more). ``arrays`` is the workspace's ``index``: the addresses of its
    arrays (``g``, ``parent``, ``jump_parent``, ``mark``, the open lists', the counters, ``path``),
    which :func:`.addresses.arrays_of` makes into arrays again (as 12 arguments they cost ~1.3 µs
    more of numba's dispatch a call).

    ``path[at:at + n]`` (``path``: an ``(m, 2)`` int32 array, ``at`` its first free row, at least
    one row left) holds the path (to the goal, or the partial path to the closest node reached,
    ``end``) as ``(x, y)`` rows, unless ``n > m - at``: then the caller writes it into another
    array with :func:`write_path`. A status of ``_HEAP_FULL`` or
    ``_ENTRIES_FULL`` asks the caller to grow ``heap`` (or, in bucket mode, ``buckets``:
    :func:`grown_buckets`) and search again with a new stamp. A blocked start or goal is
    ``STATUS_BLOCKED`` (nothing searched), ``start == goal`` the one-cell path; the bucket
    hash's stamp ``hgen`` moves on.
    """
    params = unflat(params)  # (KernelParams' fields, from their float64 array)
    g, parent, jump_parent, mark, heap, buckets, stats, path = arrays_of(arrays)
    # (the endpoints are checked here, not in Python: two look-ups there cost ~0.3 µs a call)
    if not (lut[codes[start]] > 0.0 and lut[codes[goal]] > 0.0):
        return STATUS_BLOCKED, np.int64(0), np.inf, np.int64(0), start, hgen
    if start == goal:
        path[at, 0], path[at, 1] = start % width - 1, start // width - 1
        return STATUS_FOUND, np.int64(0), 0.0, np.int64(1), start, hgen
    # trace_at as an int64, not the literal 0: a literal is a type of its own to numba, and every
    # kernel below would be compiled a second time for it (the batch passes a variable).
    trace_at = np.int64(0)
    status, expanded, end, cost, gen, heap, buckets, hgen = _search(
        codes, lut, moves, width, blocks, start, goal, params,
        g, parent, jump_parent, mark, gen, heap, buckets, hgen, record, trace, trace_at, stats, False,
    )  # fmt: skip
    # No path: a full open list (the caller grows it), or grid data of another kind (a stub answered
    # "blocked": the parent links are stale).
    if status in (_HEAP_FULL, _ENTRIES_FULL, STATUS_BLOCKED):
        return status, expanded, cost, np.int64(0), end, hgen
    jps = params[0] in (MODE_JPS, MODE_JPS_PLUS)
    n = _path_length(end, parent, jump_parent, jps, width)
    if n <= path.shape[0] - at:
        _write_xy(end, n, parent, jump_parent, jps, width, path, at)
    return status, expanded, cost, n, end, hgen


@njit(cache=True)
def write_path(end, n, parent, jump_parent, jps, width, path):
    """Write the ``n`` cells of the path that ends at ``end`` into ``path[:n]`` (``(m, 2)``,
    ``(x, y)`` rows) after :func:`search_one` said its array was too short (``jps``: made by a
    jump point search)."""
    _write_xy(end, n, parent, jump_parent, jps, width, path, np.int64(0))  # (not a literal: see search_one)


@njit(cache=True, inline="always")
def _write_xy(end, n, parent, jump_parent, jps, width, path, at):
    """:func:`_write_path` into ``path[at:at + n]`` as ``(x, y)`` rows, in place: the flat cells
    first (from place ``2 at``), then each spread over its row from the last back (row ``at + i``
    takes the two places from ``2 at + 2 i`` on, so it never overwrites a cell not yet spread)."""
    flat = path.reshape(path.size)
    _write_path(end, n, parent, jump_parent, jps, width, flat, 2 * at)
    w = width - 2
    inv_w = (1.0 + 1e-12) / w  # (y without an integer division; exact: see jps._xy)
    for i in range(n - 1, -1, -1):
        c = flat[2 * at + i]
        y = np.int64(c * inv_w)
        flat[2 * (at + i) + 1] = y
        flat[2 * (at + i)] = c - y * w


@njit(cache=True, nogil=True)
def search_batch(
    codes, lut, moves, width, blocks, starts, goals, params,
    node_budget, g, parent, jump_parent, mark, gen, heap, buckets, hgen, tracing, stats,
):  # fmt: skip
    """Many searches on one grid, in order, while the expansions so far are below
    ``node_budget`` (< 0: no budget). ``starts``/``goals`` are padded flat indices.

    Returns ``(served, gen, heap, buckets, hgen, status, cost, expanded, offsets, paths,
    trace, trace_offsets)``: per query (``STATUS_NOT_SERVED`` past ``served``) its status,
    cost and expansions, and ``paths[offsets[i]:offsets[i+1]]`` its path as unpadded
    ``y*W+x``; with ``tracing``, every expanded cell too (``trace_offsets`` like ``offsets``).
    The outputs are made here, so a call costs one dispatch; the workspace's arrays may have
    grown and its stamps moved on.
    """
    k = starts.size
    status = np.full(k, STATUS_NOT_SERVED, np.int8)
    cost = np.full(k, np.inf)
    expanded = np.zeros(k, np.int64)
    offsets = np.zeros(k + 1, np.int64)
    trace_offsets = np.zeros(k + 1, np.int64)
    paths = np.empty(max(16, 32 * k), np.int32)
    trace = np.empty(1024 if tracing else 0, np.int32)
    jps = params.mode in (MODE_JPS, MODE_JPS_PLUS)
    max_nodes = params.max_nodes
    no_record = np.zeros((0, 0), np.int32)
    spent = 0
    served = 0
    for i in range(k):
        if node_budget >= 0 and spent >= node_budget:
            break
        s = starts[i]
        t = goals[i]
        at = offsets[i]
        t_at = trace_offsets[i]
        n = 0
        exp = 0
        st = STATUS_BLOCKED
        c = np.inf
        if lut[codes[s]] > 0.0 and lut[codes[t]] > 0.0:
            if s == t:
                st, c, n = STATUS_FOUND, 0.0, 1
                if at + 1 > paths.size:
                    paths = _grow_int(paths, at + 1)
                paths[at] = _unpad(s, width)
            else:
                gen += 1
                if gen >= MAX_GEN:
                    mark[:] = 0
                    gen = 1
                if tracing and t_at + max_nodes > trace.size:
                    trace = _grow_int(trace, t_at + max_nodes)
                st, exp, end, c, gen, heap, buckets, hgen = _search(
                    codes, lut, moves, width, blocks, s, t, params,
                    g, parent, jump_parent, mark, gen, heap, buckets, hgen, no_record, trace, t_at, stats,
                )  # fmt: skip
                # (blocked here: grid data of another kind, a stub answered; its parents are stale)
                if st != STATUS_BLOCKED:
                    n = _path_length(end, parent, jump_parent, jps, width)
                    if at + n > paths.size:
                        paths = _grow_int(paths, at + n)
                    _write_path(end, n, parent, jump_parent, jps, width, paths, at)
        status[i] = st
        cost[i] = c
        expanded[i] = exp
        offsets[i + 1] = at + n
        trace_offsets[i + 1] = t_at + (exp if tracing else 0)
        spent += exp
        served += 1
    for i in range(served + 1, k + 1):  # the queries not served: empty paths and traces
        offsets[i] = offsets[served]
        trace_offsets[i] = trace_offsets[served]
    return served, gen, heap, buckets, hgen, status, cost, expanded, offsets, paths, trace, trace_offsets


# The kernels and the batch their compiled callers reach through their addresses (``linked``: each
# compiled once, not again inside every caller).
provide(astar_core, bucket_core, jps_core, jps_pairs_core, batch=search_batch)
