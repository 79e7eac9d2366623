"""Independent references for the tests: a plain Dijkstra and a path checker.

Written separately from the engine (no shared code), so agreement means something.
"""

from __future__ import annotations

import heapq
import itertools
import math

import numpy as np

RULES = ("never", "no-corner-cutting", "one-obstacle", "always")


def passable(costs: np.ndarray, x: int, y: int) -> bool:
    h, w = costs.shape
    return 0 <= x < w and 0 <= y < h and bool(np.isfinite(costs[y, x]) and costs[y, x] > 0)


def step_allowed(costs: np.ndarray, a: tuple[int, int], b: tuple[int, int], rule: str) -> bool:
    """Whether one step a -> b is legal under the diagonal rule."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    if max(abs(dx), abs(dy)) != 1 or not passable(costs, *b):
        return False
    if dx and dy:
        if rule == "never":
            return False
        side_a = passable(costs, a[0] + dx, a[1])
        side_b = passable(costs, a[0], a[1] + dy)
        if rule == "no-corner-cutting":
            return side_a and side_b
        if rule == "one-obstacle":
            return side_a or side_b
    return True


def step_cost(costs: np.ndarray, a: tuple[int, int], b: tuple[int, int]) -> float:
    length = math.sqrt(2.0) if a[0] != b[0] and a[1] != b[1] else 1.0
    return length * float(costs[b[1], b[0]])


def dijkstra(costs: np.ndarray, start: tuple[int, int], rule: str) -> dict[tuple[int, int], float]:
    """Cheapest cost from ``start`` to every reachable cell."""
    dist = {start: 0.0}
    heap = [(0.0, start)]
    done = set()
    while heap:
        d, u = heapq.heappop(heap)
        if u in done:
            continue
        done.add(u)
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                v = (u[0] + dx, u[1] + dy)
                if (dx or dy) and step_allowed(costs, u, v, rule):
                    nd = d + step_cost(costs, u, v)
                    if nd < dist.get(v, math.inf):
                        dist[v] = nd
                        heapq.heappush(heap, (nd, v))
    return dist


def path_cost(costs: np.ndarray, path: list[tuple[int, int]], rule: str) -> float:
    """Sum of the steps' costs; asserts every step is legal."""
    total = 0.0
    for a, b in itertools.pairwise(path):
        assert step_allowed(costs, a, b, rule), f"illegal step {a} -> {b} under {rule}"
        total += step_cost(costs, a, b)
    return total
