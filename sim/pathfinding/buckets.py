"""The exact bucket queue of uniform grids, A*'s (``kernel.bucket_core``): see below. (JPS and
JPS+ keep their costs as the same integer pairs, but on the heap: ``jps.jps_pairs_core``.)
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.pathfinding.common import (
    _ENTRIES_FULL,
    _HEAP_FULL,
    METRIC_CHEBYSHEV,
    METRIC_MANHATTAN,
    METRIC_OCTILE,
    SQRT2,
    _sift_down,
    _sift_up,
    borrowed,
)

# --------------------------------------------------------------------------------------
# On a grid where every passable cell costs the same, a path's cost is ``unit * (p + q*√2)``
# with whole numbers p (straight steps) and q (diagonal steps), and so are the octile,
# Manhattan and Chebyshev distances. Since √2 is irrational, two priorities are equal
# exactly when their integer pairs are: the open list can be a set of *buckets*, one per
# distinct priority, each a LIFO stack of cells, plus a small heap over the distinct
# priorities (a few hundred live at once, against tens of thousands of open cells).
# Pushing and popping a cell is then a hash lookup and a stack operation; ties go to the
# most recently pushed cell, i.e. the deepest, which keeps A* from fanning out on open
# ground without nudging the heuristic. Measured on the Moving AI maps this is ~1.6x the
# speed of the 4-ary heap, with the same expansions; results are exact.
#
# The hash table keeps the priorities seen since it was last rebuilt (emptied buckets too),
# and is rebuilt from the live ones once those reach 1/8 of its slots: kept that sparse,
# a probe rarely looks at more than one slot (4,096 slots at half load took 19 % longer on
# the Moving AI maps). It starts at 1,024 slots (48 KB with the buckets' tables) and
# doubles when the live buckets alone fill half of that eighth, so a workspace's table
# fits the longest searches it has run: short searches, whose few priorities land in
# random slots, stay in a table small enough to sit in the L2 cache instead of 1.5 MB
# of cold lines (the demo's water creatures' searches: ~20 % faster with the caches the
# drawing leaves cold), and long ones grow it once.
#
# The queue also remembers the last two priorities it was given and their buckets: the cells
# one expansion pushes share two or three priorities (a step toward the goal keeps f, a step
# aside adds one of a few amounts), so most pushes skip the hash, whose slots are spread over
# up to hundreds of KB (measured on the Moving AI maps: A* ~0.95x the time pooled, up to 0.7x
# on open maps, the same on mazes and random obstacles, where few pushes repeat a priority;
# the same expansions). A bucket id stays its priority's until the hash is rebuilt, which
# renumbers the buckets and so forgets the two.
#
# Memory (per workspace): the hash and the buckets' rows have ``slots`` entries, the key
# heap ``slots / 2`` (bucket ids stay below ``slots / 8``); the cell stacks share an entry
# pool like the heap's. The table and the pool grow on demand, each on its own
# (the search is started again, as the heap kernel does).
# --------------------------------------------------------------------------------------
_HASH_MUL = np.int64(-7046029254386353131)  # 0x9E3779B97F4A7C15: Fibonacci hashing
_LOW = np.int64(0xFFFFFFFF)
_U1 = np.uint64(1)
_SPARSE = 8  # the hash is rebuilt when the buckets since the last rebuild reach 1/8 of its slots
#: The bucket queue's hash slots in a new workspace (see above).
BUCKET_SLOTS = 1 << 10

# Rows of the int32 table ``q32`` and the int64 table ``q64`` (one column per slot).
_KH_B, _BHEAD, _HT_B, _HT_GEN, _SCRATCH = 0, 1, 2, 3, 4  # key heap bucket ids, bucket stacks, hash
_BKEY, _HT_KEY, _SCRATCH_KEY = 0, 1, 2  # bucket keys, hash keys, scratch


@njit(cache=True, inline="always")
def _h_pair(metric, dx, dy):
    """The heuristic as (p, q): distance = p + q*√2 (dx, dy absolute)."""
    if metric == METRIC_OCTILE:
        return max(dx, dy) - min(dx, dy), min(dx, dy)
    if metric == METRIC_MANHATTAN:
        return dx + dy, 0
    if metric == METRIC_CHEBYSHEV:
        return max(dx, dy), 0
    return 0, 0  # zero heuristic: Dijkstra


@njit(cache=True)
def _rebuild(ksize, kh_key, q32, q64, hgen, hshift, hmask):
    """Forget the emptied buckets: renumber the live ones 0..ksize-1 and hash them again."""
    kh_b, bhead, ht_b, ht_gen, scratch = q32[_KH_B], q32[_BHEAD], q32[_HT_B], q32[_HT_GEN], q32[_SCRATCH]
    bkey, ht_key, scratch_key = q64[_BKEY], q64[_HT_KEY], q64[_SCRATCH_KEY]
    for i in range(ksize):
        scratch[i] = bhead[kh_b[i]]
        scratch_key[i] = bkey[kh_b[i]]
    for i in range(ksize):
        bhead[i] = scratch[i]
        bkey[i] = scratch_key[i]
        kh_b[i] = i
        h = ((scratch_key[i] * _HASH_MUL) >> hshift) & hmask
        while ht_gen[h] == hgen:
            h = (h + 1) & hmask
        ht_gen[h] = hgen
        ht_key[h] = scratch_key[i]
        ht_b[h] = i


@njit(cache=True, nogil=True, inline="always")
def queue_tables(buckets):
    """The bucket queue's tables (``buckets``: a workspace's ``(kh_key, q32, q64, entries)``) as
    borrowed views (see ``common.borrowed``) for :func:`bucket_push` and :func:`bucket_pop`:
    ``(kh_key, kh_b, bhead, ht_b, ht_gen, bkey, ht_key, enode, enext)``, then ``q32``, ``q64``
    and the hash's shift."""
    kh_key, q32, q64, entries = buckets
    q32, q64 = borrowed(q32), borrowed(q64)
    tables = (borrowed(kh_key), q32[_KH_B], q32[_BHEAD], q32[_HT_B], q32[_HT_GEN], q64[_BKEY], q64[_HT_KEY],
              borrowed(entries[0]), borrowed(entries[1]))  # fmt: skip
    return tables, q32, q64, np.int64(64 - int(np.log2(q64.shape[1])))


@njit(cache=True, nogil=True, inline="always")
def fresh_queue(hgen):
    """An empty queue's state for :func:`bucket_push` (``hgen``: the hash's last stamp; the queue
    takes the next). Int64s, not literals, which are types of their own to numba: the first push
    would compile the queue's rebuild a second time."""
    none = np.int64(-1)
    return np.int64(0), np.int64(0), np.int64(0), none, hgen + 1, none, np.uint64(0), none, np.uint64(0)


@njit(cache=True, nogil=True, inline="always")
def bucket_push(fp, fq, v, queue, tables, q32, q64, hshift):
    """Put cell ``v`` on the queue with priority ``fp + fq*√2`` (integers). ``queue`` is the
    queue's state (:func:`fresh_queue`): ``(buckets in use, buckets with cells, entries handed
    out, the first one given back or -1, the hash's stamp``, then the last two priorities pushed
    and their buckets, looked at first: see above). Returns ``(status, queue)``: status 0, or
    ``_HEAP_FULL`` / ``_ENTRIES_FULL`` when the hash or the entry pool must grow (the search then
    starts again with larger tables, :func:`kernel.grown_buckets`)."""
    nbuckets, ksize, top, free, hgen, k1, b1, k2, b2 = queue
    kh_key, kh_b, bhead, ht_b, ht_gen, bkey, ht_key, enode, enext = tables
    key64 = (fp << 32) | fq
    if key64 == k1:  # (the priority of the last push: see above)
        b = b1
    elif key64 == k2:
        b = b2
        k1, b1, k2, b2 = k2, b2, k1, b1
    else:
        slots = ht_key.size
        hmask = slots - 1
        h = np.uint64(((key64 * _HASH_MUL) >> hshift) & hmask)  # unsigned indices: see common.py
        while ht_gen[h] == hgen and ht_key[h] != key64:
            h = (h + _U1) & np.uint64(hmask)
        if ht_gen[h] != hgen:  # a priority not seen (since the last rebuild): a new bucket
            if _SPARSE * (nbuckets + 1) > slots:
                hgen += 1
                _rebuild(ksize, kh_key, q32, q64, hgen, hshift, hmask)
                nbuckets, k1, k2 = ksize, np.int64(-1), np.int64(-1)  # (buckets renumbered: forget the two)
                if 2 * _SPARSE * (nbuckets + 1) > slots:  # live buckets alone at 1/16 of the slots: grow
                    return _HEAP_FULL, (nbuckets, ksize, top, free, hgen, k1, b1, k2, b2)
                h = np.uint64(((key64 * _HASH_MUL) >> hshift) & hmask)
                while ht_gen[h] == hgen:
                    h = (h + _U1) & np.uint64(hmask)
            ht_gen[h], ht_key[h], ht_b[h] = hgen, key64, nbuckets
            bkey[nbuckets], bhead[nbuckets] = key64, -1
            nbuckets += 1
        b = np.uint64(ht_b[h])
        k1, b1, k2, b2 = key64, b, k1, b1
    if free != -1:
        e = np.uint64(free)
        free = np.int64(enext[e])
    elif top < enode.size:
        e = np.uint64(top)
        top += 1
    else:
        return _ENTRIES_FULL, (nbuckets, ksize, top, free, hgen, k1, b1, k2, b2)
    enode[e] = v
    if bhead[b] == -1:  # the bucket joins the key heap
        if ksize == kh_key.size:
            return _HEAP_FULL, (nbuckets, ksize, top, free, hgen, k1, b1, k2, b2)
        kh_key[ksize], kh_b[ksize] = fp + fq * SQRT2, b
        _sift_up(ksize, kh_key, kh_b)
        ksize += 1
    enext[e], bhead[b] = bhead[b], e
    return 0, (nbuckets, ksize, top, free, hgen, k1, b1, k2, b2)


@njit(cache=True, nogil=True, inline="always")
def bucket_pop(queue, tables):
    """The newest cell of the lowest bucket (the queue has one), and the queue's state after."""
    nbuckets, ksize, top, free, hgen, k1, b1, k2, b2 = queue
    kh_key, kh_b, bhead, enode, enext = tables[0], tables[1], tables[2], tables[7], tables[8]
    b = np.uint64(kh_b[0])
    e = np.uint64(bhead[b])
    bhead[b] = enext[e]
    w = enode[e]
    enext[e] = free
    if bhead[b] == -1:  # the bucket leaves the key heap
        ksize -= 1
        if ksize > 0:
            kh_key[0], kh_b[0] = kh_key[ksize], kh_b[ksize]
            _sift_down(0, ksize, kh_key, kh_b)
    return w, (nbuckets, ksize, top, np.int64(e), hgen, k1, b1, k2, b2)


@njit(cache=True, nogil=True, inline="always")
def reached_for_less(g, mark, open_mark, c, p, q):
    """Whether cell ``c`` has been reached (``mark``: open or closed, this search's stamps
    ``open_mark`` and ``open_mark + 1``) for strictly less than ``p + q*√2``; ``g`` holds costs
    as integer pairs ``p << 32 | q``. (Two such sums are equal exactly when their pairs are, so
    the float comparison is exact for any cost a grid of 2**31 cells can have.)"""
    cu = np.uint64(c)
    m = mark[cu]
    return (m == open_mark or m == open_mark + 1) and (g[cu] >> 32) + (g[cu] & _LOW) * SQRT2 < p + q * SQRT2
