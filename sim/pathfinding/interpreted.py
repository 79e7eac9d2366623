"""The kernels' best-first search in plain Python: what serves searches while the compiled
kernels are still being compiled (a first start on a machine), never after.

Same inputs as ``kernel.search_batch`` (a padded, flattened coded grid; see
:mod:`.kernel`), same costs and rules: the ``moves`` masks say which steps are legal,
a step into cell ``v`` costs ``lut[codes[v]]`` times its length. And the same order: the
bucket queue's on uniform grids (``kernel.bucket_core``), the heap's elsewhere
(``kernel.astar_core``), step for step, so a search returns the kernel's own path,
expansion count and "closest cell reached", not just a path as short (checked against the
kernels in tests/engine/test_first_call.py). JPS and JPS+ are answered by A* meanwhile
(the same cost, A*'s path), and landmarks by their metric. 3-10 µs an expansion (2026-12-07:
3 on a uniform grid, 9 on a weighted one, where the heap's sifts are Python, against heapq's 4
before): a demo-sized search takes a millisecond or two.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable

import numpy as np

from sim.pathfinding import common
from sim.pathfinding import kernel as _kernel
from sim.pathfinding.buckets import _h_pair as _h_pair_compiled
from sim.pathfinding.common import (
    _BITS,
    _NBITS,
    SQRT2,
    STATUS_BLOCKED,
    STATUS_FOUND,
    STATUS_HIT_LIMIT,
    STATUS_UNREACHABLE,
    STEP_LENGTH,
)
from sim.pathfinding.compiled import KernelParams
from sim.pathfinding.kernel import MODE_BUCKETS
from sim.pathfinding.kernel import canonical as _canonical_compiled
from sim.pathfinding.rules import DX, DY, NO_PARENT, SUCCESSORS

# The compiled helpers' Python functions: the same formulas, nothing to compile.
_metric = common._metric.py_func
_priority = common.priority.py_func
_h_pair = _h_pair_compiled.py_func
_canonical = _canonical_compiled.py_func
# The kernels' tables as Python lists, made once (all of them: ~55 µs, a short search's fifth):
# a step's straight and diagonal counts (the bucket queue's cost pairs), the set bits of each move
# mask and their count, the canonical successors, the steps' lengths.
_P_STEP: list[int] = _kernel._P_STEP.tolist()
_Q_STEP: list[int] = _kernel._Q_STEP.tolist()
_BITS_LIST: list[list[int]] = _BITS.tolist()
_NBITS_LIST: list[int] = _NBITS.tolist()
_SUCCESSORS_LIST: list[list[int]] = SUCCESSORS.tolist()
_LENGTHS: list[float] = STEP_LENGTH.tolist()


def search_interpreted(
    codes: np.ndarray, lut: np.ndarray, moves: np.ndarray, width: int, start: int, goal: int, params: KernelParams,
) -> tuple[int, int, float, list[int]]:  # fmt: skip
    """One search from padded cell ``start`` to ``goal`` (``width``: the padded width; ``params``
    as the kernels take them). Returns ``(status, expanded, cost, path)``: ``path`` as unpadded
    ``y * (width - 2) + x`` cells from the start, to the goal or (not found) the closest one reached."""
    costs = lut.tolist()
    if costs[codes[start]] <= 0.0 or costs[codes[goal]] <= 0.0:
        return STATUS_BLOCKED, 0, math.inf, []
    if params.mode == MODE_BUCKETS:  # the bucket queue's own order, cell for cell
        return _bucket_search(moves, width, start, goal, params)
    return _heap_search(codes, costs, moves, width, start, goal, params)


def _heap_search(codes: np.ndarray, costs: list[float], moves: np.ndarray, width: int, start: int, goal: int,
                 params: KernelParams) -> tuple:  # fmt: skip
    """:func:`search_interpreted` in ``kernel.astar_core``'s order exactly: its 4-ary heap (the same
    order among equal priorities), held successor, canonical successors and closest cell. (The
    kernel compacts a full heap, this one never: 514 compactions on random grids changed no path.)"""
    metric, prio, max_nodes = params.metric, params.prio, params.max_nodes
    prune = _canonical(params.mode, params.rule, prio, params.unit)
    positive = {c for c in costs if c > 0.0}
    one_cost = prune and len(positive) <= 1  # (every passable cell costs the same: the 3x3 test always holds)
    gx, gy = goal % width, goal // width
    offsets, bits, nbits, successors, lengths = _offsets(width), _BITS_LIST, _NBITS_LIST, _SUCCESSORS_LIST, _LENGTHS
    code = codes.item  # (a cell's code as a Python int: half the time of codes[i])
    g: dict[int, float] = {start: 0.0}
    parent: dict[int, int] = {start: NO_PARENT}
    closed: set[int] = set()
    keys = [_priority(0.0, _metric(metric, abs(start % width - gx), abs(start // width - gy)), prio)]
    nodes = [start]
    best, best_h, best_g, expanded, status = start, math.inf, 0.0, 0, STATUS_UNREACHABLE
    hold, hold_key = -1, math.inf
    while keys or hold != -1:
        u = _take(keys, nodes, hold, hold_key)
        hold, hold_key = -1, math.inf
        if u in closed:
            continue  # a stale entry
        closed.add(u)
        expanded += 1
        gu = g[u]
        if u == goal:
            status, best = STATUS_FOUND, u
            break
        ux, uy = u % width, u // width
        best, best_h, best_g = _closest(u, _metric(metric, abs(ux - gx), abs(uy - gy)), gu, best, best_h, best_g)
        if expanded >= max_nodes:
            status = STATUS_HIT_LIMIT
            break
        m = moves.item(u)
        if one_cost or (prune and _one_cost_around(u, costs, code, offsets)):
            m = successors[m][parent[u]]
        for j in range(nbits[m]):
            k = bits[m][j]
            v = u + offsets[k]
            if v in closed:
                continue
            ng = gu + lengths[k] * costs[code(v)]
            if v in g and ng >= g[v]:
                continue
            g[v], parent[v] = ng, k
            key = _priority(ng, _metric(metric, abs(ux + int(DX[k]) - gx), abs(uy + int(DY[k]) - gy)), prio)
            if key < hold_key:  # the best successor so far is held; the one it replaces goes on the heap
                if hold == -1:
                    hold, hold_key = v, key
                    continue
                v, hold = hold, v
                key, hold_key = hold_key, key
            keys.append(key)
            nodes.append(v)
            _sift_up(len(keys) - 1, keys, nodes)
    return status, expanded, (g[best] if status == STATUS_FOUND else math.inf), _path(best, parent, offsets, width)


def _offsets(width: int) -> list[int]:
    """The 8 steps' offsets in a grid of padded ``width`` (the order of ``rules.DX``/``DY``)."""
    return [int(DX[k] + DY[k] * width) for k in range(8)]


def _closest(u: int, hu: float, gu: float, best: int, best_h: float, best_g: float) -> tuple[int, float, float]:
    """The closest cell reached so far after expanding ``u`` (``hu`` from the goal by the metric, reached for
    ``gu``), as the kernels choose it (a search cut short ends there): the least ``h``, then the least ``g``."""
    return (u, hu, gu) if hu < best_h or (hu == best_h and gu < best_g) else (best, best_h, best_g)


def _one_cost_around(u: int, costs: list[float], code: Callable[[int], int], offsets: list[int]) -> bool:
    """Whether the 3x3 window around ``u`` costs the same where passable (the heap kernel then
    pushes canonical successors only)."""
    cu = costs[code(u)]
    for step in offsets:
        cv = costs[code(u + step)]
        if cv != cu and cv > 0.0:
            return False
    return True


def _bucket_push(keys: list[tuple[float, int, int]], stacks: dict[tuple[int, int], list[int]], p: int, q: int,
                 v: int) -> None:  # fmt: skip
    """Cell ``v`` onto the bucket of priority ``p + q*√2`` (a new bucket's priority onto ``keys``)."""
    stack = stacks.get((p, q))
    if stack is None:
        stacks[(p, q)] = stack = []
        heapq.heappush(keys, (p + q * SQRT2, p, q))
    stack.append(v)


def _bucket_pop(keys: list[tuple[float, int, int]], stacks: dict[tuple[int, int], list[int]]) -> int:
    """The newest cell of the lowest bucket (an emptied bucket is dropped)."""
    _value, p, q = keys[0]
    stack = stacks[(p, q)]
    w = stack.pop()
    if not stack:
        heapq.heappop(keys)
        del stacks[(p, q)]
    return w


def _take(keys: list[float], nodes: list[int], hold: int, hold_key: float) -> int:
    """The next cell to expand (as ``astar_core`` takes it): the held successor when it is not
    worse than the heap's top, else the top, the held one put on the heap first."""
    if hold != -1 and (not keys or hold_key <= keys[0]):
        return hold
    if hold != -1:  # not the best: into the heap after all
        keys.append(hold_key)
        nodes.append(hold)
        _sift_up(len(keys) - 1, keys, nodes)
    u = nodes[0]
    last_key, last_node = keys.pop(), nodes.pop()
    if keys:
        keys[0], nodes[0] = last_key, last_node
        _sift_down(0, keys, nodes)
    return u


def _sift_up(i: int, keys: list[float], nodes: list[int]) -> None:
    """``common._sift_up`` on lists: the same comparisons, so the same heap."""
    key, node = keys[i], nodes[i]
    while i > 0:
        p = (i - 1) >> 2
        if keys[p] <= key:
            break
        keys[i], nodes[i] = keys[p], nodes[p]
        i = p
    keys[i], nodes[i] = key, node


def _sift_down(i: int, keys: list[float], nodes: list[int]) -> None:
    """``common._sift_down`` on lists (the smallest of four children, the first on ties)."""
    size = len(keys)
    key, node = keys[i], nodes[i]
    while True:
        c = 4 * i + 1
        if c + 3 < size:
            k0, k1, k2, k3 = keys[c], keys[c + 1], keys[c + 2], keys[c + 3]
            a, ka = (c, k0) if k0 <= k1 else (c + 1, k1)
            b, kb = (c + 2, k2) if k2 <= k3 else (c + 3, k3)
            best, bk = (a, ka) if ka <= kb else (b, kb)
        elif c < size:
            best, bk = c, keys[c]
            for j in range(c + 1, size):
                if keys[j] < bk:
                    best, bk = j, keys[j]
        else:
            break
        if bk >= key:
            break
        keys[i], nodes[i] = bk, nodes[best]
        i = best
    keys[i], nodes[i] = key, node


def _path(end: int, parent: dict[int, int], offsets: list[int], width: int) -> list[int]:
    """The cells from the start to ``end`` (unpadded ``y * (width - 2) + x``), by the parents' directions."""
    path, node, inner = [], end, width - 2
    while True:
        path.append((node // width - 1) * inner + node % width - 1)
        if parent[node] == NO_PARENT:
            break
        node -= offsets[parent[node]]
    path.reverse()
    return path


def _bucket_search(moves: np.ndarray, width: int, start: int, goal: int, params: KernelParams) -> tuple:
    """:func:`search_interpreted` on a uniform grid in ``kernel.bucket_core``'s order exactly: costs
    as integer pairs ``p + q*√2``, buckets of equal priority, each a stack (the newest cell of the
    lowest bucket next), canonical successors where the kernel prunes, the same closest cell."""
    heuristic, metric, max_nodes, unit = params.heuristic, params.metric, params.max_nodes, params.unit
    prune = _canonical(params.mode, params.rule, params.prio, params.unit)
    gx, gy = goal % width, goal // width
    offsets, bits, nbits, successors = _offsets(width), _BITS_LIST, _NBITS_LIST, _SUCCESSORS_LIST  # (as locals)
    keys: list[tuple[float, int, int]] = []  # the buckets' priorities, lowest first
    stacks: dict[tuple[int, int], list[int]] = {}  # a stack of cells per priority
    g: dict[int, tuple[int, int]] = {start: (0, 0)}
    parent: dict[int, int] = {start: NO_PARENT}
    closed: set[int] = set()
    hp, hq = _h_pair(heuristic, abs(start % width - gx), abs(start // width - gy))
    _bucket_push(keys, stacks, hp, hq, start)
    best, best_h, best_g, expanded, status = start, math.inf, 0.0, 0, STATUS_UNREACHABLE
    while keys:
        w = _bucket_pop(keys, stacks)
        if w in closed:
            continue  # a stale entry
        closed.add(w)
        expanded += 1
        if w == goal:
            status, best = STATUS_FOUND, w
            break
        up, uq = g[w]
        wx, wy = w % width, w // width
        hu = _metric(metric, abs(wx - gx), abs(wy - gy))
        best, best_h, best_g = _closest(w, hu, up + uq * SQRT2, best, best_h, best_g)
        if expanded >= max_nodes:
            status = STATUS_HIT_LIMIT
            break
        m = moves.item(w)
        if prune:
            m = successors[m][parent[w]]
        for j in range(nbits[m]):
            k = bits[m][j]
            v = w + offsets[k]
            if v in closed:
                continue
            vp, vq = up + _P_STEP[k], uq + _Q_STEP[k]
            old = g.get(v)
            if old is not None and vp + vq * SQRT2 >= old[0] + old[1] * SQRT2:
                continue
            g[v], parent[v] = (vp, vq), k
            hp, hq = _h_pair(heuristic, abs(wx + int(DX[k]) - gx), abs(wy + int(DY[k]) - gy))
            _bucket_push(keys, stacks, vp + hp, vq + hq, v)
    cost = unit * (g[best][0] + g[best][1] * SQRT2) if status == STATUS_FOUND else math.inf
    return status, expanded, cost, _path(best, parent, offsets, width)
