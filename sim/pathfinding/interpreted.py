"""The kernels' best-first search in plain Python: what serves searches while the compiled
kernels are still being compiled (a first start on a machine), never after.

Same inputs as ``kernel.search_batch`` (a padded, flattened coded grid; see
:mod:`.kernel`), same costs and rules: the ``moves`` masks say which steps are legal,
a step into cell ``v`` costs ``lut[codes[v]]`` times its length, and the priority is
``common.priority`` (or, for the bucket queue's parameters, ``g + unit * h``).
So its paths are optimal like the kernels' (ties may go another way: it never serves
a run that must repeat, such as a headless one). A search that stops short gives the
path to the closest cell reached, like the kernels. About 10 µs an expansion: a
demo-sized search takes a millisecond or two.
"""

from __future__ import annotations

import heapq
import math

import numpy as np

from sim.pathfinding import common
from sim.pathfinding.common import STATUS_BLOCKED, STATUS_FOUND, STATUS_HIT_LIMIT, STATUS_UNREACHABLE
from sim.pathfinding.compiled import KernelParams, Priority
from sim.pathfinding.kernel import MODE_BUCKETS
from sim.pathfinding.rules import DX, DY

_STEPS = [(k, int(DX[k]), int(DY[k]), math.sqrt(2.0) if k >= 4 else 1.0) for k in range(8)]


# The compiled helpers' Python functions: the same formulas, nothing to compile.
_metric = common._metric.py_func
_priority = common.priority.py_func


def search_interpreted(
    codes: np.ndarray, lut: np.ndarray, moves: np.ndarray, width: int, start: int, goal: int, params: KernelParams,
) -> tuple[int, int, float, list[int]]:  # fmt: skip
    """One search from padded cell ``start`` to ``goal`` (``width``: the padded width; ``params``
    as the kernels take them). Returns ``(status, expanded, cost, path)``: ``path`` as unpadded
    ``y * (width - 2) + x`` cells from the start, to the goal or (not found) the closest one reached."""
    metric, prio, max_nodes = params.metric, params.prio, params.max_nodes
    costs = lut.tolist()
    if costs[codes[start]] <= 0.0 or costs[codes[goal]] <= 0.0:
        return STATUS_BLOCKED, 0, math.inf, []
    if params.mode == MODE_BUCKETS:  # the bucket queue's parameters: plain A* (or Dijkstra) with h in units
        prio = Priority(1.0, params.unit if params.heuristic >= 0 else 0.0)
    gx, gy = goal % width, goal // width
    offsets = [(k, dx + dy * width, length) for k, dx, dy, length in _STEPS]
    g = {start: 0.0}
    parent = {start: -1}
    closed: set[int] = set()
    h0 = _metric(metric, abs(start % width - gx), abs(start // width - gy))
    heap = [(_priority(0.0, h0, prio), h0, start)]
    best, best_h = start, h0
    expanded = 0
    status = STATUS_UNREACHABLE
    while heap:
        _f, h, u = heapq.heappop(heap)
        if u in closed:
            continue
        if u == goal:
            status = STATUS_FOUND
            best = u
            break
        closed.add(u)
        expanded += 1
        if h < best_h:
            best, best_h = u, h
        if expanded >= max_nodes:
            status = STATUS_HIT_LIMIT
            break
        m = int(moves[u])
        gu = g[u]
        for k, step, length in offsets:
            if not m >> k & 1:
                continue
            v = u + step
            if v in closed:
                continue
            gv = gu + costs[codes[v]] * length
            if gv < g.get(v, math.inf):
                g[v] = gv
                parent[v] = u
                hv = _metric(metric, abs(v % width - gx), abs(v // width - gy))
                heapq.heappush(heap, (_priority(gv, hv, prio), hv, v))
    path = []
    node = best
    inner = width - 2
    while node != -1:
        path.append((node // width - 1) * inner + node % width - 1)
        node = parent[node]
    path.reverse()
    return status, expanded, (g[best] if status == STATUS_FOUND else math.inf), path
