"""What the search kernels share: outcome codes, move tables, distance metrics, the 4-ary heap."""

from __future__ import annotations

import math

import numpy as np
from numba import njit, types
from numba.extending import intrinsic

from sim.pathfinding.rules import NO_PARENT

# Distance metrics for the heuristic (and for "closest node reached").
METRIC_MANHATTAN = 0
METRIC_EUCLIDEAN = 1
METRIC_OCTILE = 2
METRIC_CHEBYSHEV = 3

# Search outcomes (the batch API's ``status``).
STATUS_FOUND = 0
STATUS_UNREACHABLE = 1  # the open list ran dry: the goal cannot be reached
STATUS_HIT_LIMIT = 2  # stopped by max_nodes
STATUS_BLOCKED = 3  # the start or the goal is impassable: nothing searched
STATUS_NOT_SERVED = 4  # search_many's node budget ran out before this query
STATUS_OTHER_REGION = 7  # a round's request whose goal is in another region: known unreachable, not searched
_HEAP_FULL = 5  # internal: the heap must grow; the search is run again
_ENTRIES_FULL = 6  # internal: the bucket queue's cell stacks must grow; the search is run again

MAX_GEN = 32000  # marks are uint16 and each search uses two values: start over before they wrap

# Workspace statistics (``stats`` array): for tests and benchmarks.
STAT_COMPACTIONS = 0
STAT_HEAP_GROWS = 1  # each is one search started again with a larger open list (heap or bucket tables)

SQRT2 = math.sqrt(2.0)
STEP_LENGTH = np.array((1.0, 1.0, 1.0, 1.0, SQRT2, SQRT2, SQRT2, SQRT2))

# Set bits of each moves mask, for iterating the legal directions only.
_BITS = np.zeros((256, 8), dtype=np.int8)
_NBITS = np.zeros(256, dtype=np.int8)
for _m in range(256):
    _ks = [k for k in range(8) if _m >> k & 1]
    _NBITS[_m] = len(_ks)
    _BITS[_m, : len(_ks)] = _ks


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
def priority(g, h, prio):
    """An open node's priority (smaller first) from its cost so far ``g`` and its heuristic ``h``:
    the one formula of every heap kernel (``prio``: a ``compiled.Priority``)."""
    return prio.g_mult * g + prio.h_mult * h


@njit(cache=True, inline="always")
def _h_at(node, width, goal_x, goal_y, metric):
    y = node // width
    return _metric(metric, abs(node - y * width - goal_x), abs(y - goal_y))


#: No landmark table: the heap kernels' heuristic is the metric alone (see :func:`landmark_h`).
NO_LANDMARKS = np.zeros((0, 0), np.float64)
NO_LANDMARKS.flags.writeable = False  # (read-only, like the tables it stands in for)


@njit(cache=True, inline="always")
def landmark_h(lm, v, goal, sym):
    """The landmarks' lower bound on the cost from padded cell ``v`` to ``goal``, in units of the
    grid's smallest multiplier (the differential heuristic: Goldberg & Harrelson 2005, Sturtevant
    et al. 2009). ``lm[c, k]``: the cost from cell ``c`` to landmark ``k`` (``landmarks.py``), so
    ``lm[v, k] - lm[goal, k]`` never exceeds the cost from ``v`` to the goal (the triangle
    inequality), nor, where costs are the same both ways (``sym``), its negation. NaN (a cell
    the landmark does not reach) never raises the bound."""
    h = 0.0
    for k in range(lm.shape[1]):
        d = lm[v, k] - lm[goal, k]
        if sym:
            d = abs(d)
        if d > h:
            h = d
    return h


@njit(cache=True, inline="always")
def _h_full(node, width, goal_x, goal_y, metric, lm, sym):
    """A heap kernel's heuristic at ``node``: the metric, or the landmarks' bound where larger."""
    h = _h_at(node, width, goal_x, goal_y, metric)
    if lm.shape[1] > 0:
        h = max(h, landmark_h(lm, node, goal_y * width + goal_x, sym))
    return h


# The kernels index their per-cell and heap arrays with unsigned integers (``np.uint64(i)``):
# for a signed index numba adds a negative-index fix-up to every access (the array's length
# loaded, a shift, a mask and an add), an unsigned one has none. Measured in one process,
# alternating: 17-18 % off the demo's cows' and birds' searches (heap kernel, hot caches).
U1, U2, U3 = np.uint64(1), np.uint64(2), np.uint64(3)


@njit(cache=True, inline="always")
def _sift_up(i, heap_key, heap_node):
    key = heap_key[np.uint64(i)]
    node = heap_node[np.uint64(i)]
    while i > 0:
        p = (i - 1) >> 2
        pu = np.uint64(p)
        if heap_key[pu] <= key:
            break
        iu = np.uint64(i)
        heap_key[iu] = heap_key[pu]
        heap_node[iu] = heap_node[pu]
        i = p
    heap_key[np.uint64(i)] = key
    heap_node[np.uint64(i)] = node
    return i  # where the entry came to rest


@njit(cache=True, inline="always")
def _sift_down(i, size, heap_key, heap_node):
    key = heap_key[np.uint64(i)]
    node = heap_node[np.uint64(i)]
    while True:
        c = 4 * i + 1
        if c + 3 < size:
            # The smallest of four children, as a tournament of pairs (the first on ties): a fixed
            # shape the compiler turns into conditional moves, ~5-8 % faster per search than a loop.
            cu = np.uint64(c)
            k0, k1, k2, k3 = heap_key[cu], heap_key[cu + U1], heap_key[cu + U2], heap_key[cu + U3]
            a = c if k0 <= k1 else c + 1
            b = c + 2 if k2 <= k3 else c + 3
            ka = min(k0, k1)
            kb = min(k2, k3)
            best = a if ka <= kb else b
            bk = min(ka, kb)
        elif c < size:  # the last, partial family
            best = c
            bk = heap_key[np.uint64(c)]
            for j in range(c + 1, size):
                kj = heap_key[np.uint64(j)]
                if kj < bk:
                    best = j
                    bk = kj
        else:
            break
        if bk >= key:
            break
        heap_key[np.uint64(i)] = bk
        heap_node[np.uint64(i)] = heap_node[np.uint64(best)]
        i = best
    heap_key[np.uint64(i)] = key
    heap_node[np.uint64(i)] = node


@njit(cache=True, inline="always")
def _pop(size, heap_key, heap_node):
    """Take the top entry off the heap of ``size`` entries; returns ``(its node, the new size)``."""
    u = heap_node[0]
    size -= 1
    if size > 0:
        heap_key[0], heap_node[0] = heap_key[size], heap_node[size]
        _sift_down(0, size, heap_key, heap_node)
    return u, size


@njit(cache=True, inline="always")
def _push(size, key, node, heap_key, heap_node):
    """Put ``node`` with priority ``key`` on the heap of ``size`` entries (it has room); returns the
    new size and where the entry came to rest (``jps._enqueue`` keeps that)."""
    heap_key[size] = key
    heap_node[size] = node
    return size + 1, _sift_up(size, heap_key, heap_node)


@njit(cache=True)
def _compact(size, heap_key, heap_node, g, mark, open_mark, width, goal_x, goal_y, metric, prio, stats, lm, sym):
    """Drop stale heap entries (closed nodes, superseded keys), then re-heapify; returns the new
    size. ``lm``, ``sym``: the landmarks the keys were made with (:func:`_h_full`; :data:`NO_LANDMARKS`
    and ``False`` for none). The heap and jump point kernels give ``g`` as a strided view (layout
    'A') and the same landmark types, so numba compiles this once for both (see :func:`_begin`)."""
    j = 0
    for i in range(size):
        v = heap_node[i]
        if mark[v] != open_mark:
            continue
        h = _h_full(v, width, goal_x, goal_y, metric, lm, sym)
        if heap_key[i] != priority(g[v], h, prio):
            continue
        heap_key[j] = heap_key[i]
        heap_node[j] = v
        j += 1
    for i in range((j - 2) // 4, -1, -1):
        _sift_down(i, j, heap_key, heap_node)
    stats[STAT_COMPACTIONS] += 1
    return j


@njit(cache=True)
def _begin(start, width, goal_x, goal_y, metric, prio, g, parent, mark, open_mark, heap_key, heap_node, record,
           lm, sym):  # fmt: skip
    """Put the start on the open list (and in the record); returns the heap size, 1. ``lm``,
    ``sym`` as :func:`_compact`'s. Called with ``g`` as a strided view and the landmarks always
    (``g[::1]``, :data:`NO_LANDMARKS` and ``False`` where there are none), the heap kernel and
    the jump point kernel share one compiled copy of this and of :func:`_compact` (each types
    its arguments anew: two copies cost ~0.5 CPU s of a first start)."""
    sy = start // width
    sx = start - sy * width
    g[start] = 0.0
    parent[start] = NO_PARENT
    mark[start] = open_mark
    h = _h_full(start, width, goal_x, goal_y, metric, lm, sym)
    heap_key[0] = priority(0.0, h, prio)
    heap_node[0] = start
    if record.shape[0] > 0:
        record[sy - 1, sx - 1] = -1
    return 1


@intrinsic
def borrowed(typingctx, arr):
    """A view of array ``arr`` that numba does not count references to (no memory owner): for
    arrays handed to helper calls on a hot path, valid while ``arr`` lives. An argument lives
    for the whole call; an array the function made itself does not: numba frees it after the
    variable's last use, and a borrowed view does not count as one, so the function must
    :func:`keep` it to the end (a view of freed memory: wrong answers, or a crash once the
    array is large enough to be given back to the system)."""

    def codegen(context, builder, sig, args):
        src = context.make_array(sig.args[0])(context, builder, value=args[0])
        out = context.make_array(sig.return_type)(context, builder)
        context.populate_array(
            out,
            data=src.data,
            shape=src.shape,
            strides=src.strides,
            itemsize=src.itemsize,
            meminfo=None,
        )
        return out._getvalue()

    return arr(arr), codegen


@intrinsic
def keep(typingctx, arr):
    """Nothing, but a use of ``arr``: numba keeps an array the function made (and every
    :func:`borrowed` view of it) alive until here, where it would otherwise free it after its
    last counted use."""

    def codegen(context, builder, sig, args):
        return context.get_dummy_value()

    return types.none(arr), codegen
