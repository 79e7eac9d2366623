"""The same best-first search in plain Python, driven by per-edge callbacks.

This serves :class:`~sim.pathfinding.AStar` subclasses that override the original
design's per-edge hooks ``cost(source, target)`` / ``heuristic(a, b)``, and it is the
tests' independent reference for the compiled kernel. It is one to two orders of
magnitude slower than the kernel: use it for models a cost grid cannot express.

Heap entries are ``(f, h, counter, node)``: ties on ``f`` go to the smaller ``h`` (as in
the kernel), then to the earlier push, so the order never compares nodes.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable
from itertools import count

from sim.pathfinding.rules import DIAG_NEVER, DIAG_NO_CORNER_CUTTING, diagonal_allowed
from sim.pathfinding.search import Point, SearchResult

_ORTHOGONAL = ((1, 0), (-1, 0), (0, 1), (0, -1))
_DIAGONAL = ((1, 1), (-1, 1), (1, -1), (-1, -1))


def python_search(
    width: int,
    height: int,
    start: Point,
    goal: Point,
    step_cost: Callable[[Point, Point], float],
    heuristic: Callable[[Point, Point], float],
    passable: Callable[[Point], bool],
    *,
    diagonal_rule: int = DIAG_NO_CORNER_CUTTING,
    algorithm: str = "astar",
    weight: float = 1.0,
    max_nodes: int | None = None,
) -> SearchResult:
    """Search a ``width`` × ``height`` grid of ``(x, y)`` cells.

    ``step_cost(source, target)`` is the full cost of one step (not > 0 = impassable);
    ``passable(cell)`` says whether an agent may stand on a cell: the start and goal must
    be, and the diagonal rule asks it about the two side cells a diagonal step passes.
    ``heuristic(a, b)`` estimates the cost from ``a`` to ``b``. Like the kernel, a blocked
    start or goal is "not found" without searching.
    """
    if not (passable(start) and passable(goal)):
        return SearchResult(False, [], math.inf, 0)
    if start == goal:
        return SearchResult(True, [start], 0.0, 0)
    moves = _ORTHOGONAL if diagonal_rule == DIAG_NEVER else _ORTHOGONAL + _DIAGONAL
    g_mult = 0.0 if algorithm == "greedy" else 1.0
    h_mult = 0.0 if algorithm == "dijkstra" else (1.0 if algorithm == "greedy" else weight)
    limit = max_nodes if max_nodes is not None else math.inf

    tie = count()
    h0 = heuristic(start, goal)
    g: dict[Point, float] = {start: 0.0}
    parent: dict[Point, Point | None] = {start: None}
    closed: set[Point] = set()
    heap = [(h_mult * h0, h0, next(tie), start)]
    best, best_key = start, (h0, 0.0)
    expanded = 0
    found = hit_limit = False
    while heap:
        _f, h, _c, u = heapq.heappop(heap)
        if u in closed:  # a stale entry: u was reached more cheaply since
            continue
        closed.add(u)
        expanded += 1
        if u == goal:
            found = True
            break
        if (h, g[u]) < best_key:
            best, best_key = u, (h, g[u])
        if expanded >= limit:
            hit_limit = True
            break
        ux, uy = u
        for dx, dy in moves:
            v = (ux + dx, uy + dy)
            if not (0 <= v[0] < width and 0 <= v[1] < height) or v in closed:
                continue
            if dx and dy:
                a = _inside(ux + dx, uy, width, height) and passable((ux + dx, uy))
                b = _inside(ux, uy + dy, width, height) and passable((ux, uy + dy))
                if not diagonal_allowed(diagonal_rule, a, b):
                    continue
            c = step_cost(u, v)
            if not (c > 0) or math.isinf(c):
                continue
            ng = g[u] + c
            if ng < g.get(v, math.inf):
                g[v] = ng
                parent[v] = u
                hv = heuristic(v, goal)
                heapq.heappush(heap, (g_mult * ng + h_mult * hv, hv, next(tie), v))

    end = goal if found else best
    path = [end]
    while (p := parent[path[-1]]) is not None:
        path.append(p)
    path.reverse()
    if found:
        return SearchResult(True, path, g[goal], expanded)
    return SearchResult(False, [], math.inf, expanded, hit_limit, path)


def _inside(x: int, y: int, width: int, height: int) -> bool:
    return 0 <= x < width and 0 <= y < height
