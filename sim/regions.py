"""Connected regions of a species' cost grid, so impossible goals are known before any search.

Two cells share a region when an animal can walk from one to the other. Which steps
are legal is the engine's rule (:mod:`sim.pathfinding.rules`): under "never",
"no-corner-cutting" and "one-obstacle" that is 4-connectivity (a legal diagonal step
always has a passable side cell, so two straight steps reach the same cell); only
"always" joins cells diagonally, and then 8-connectivity is used.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .pathfinding.rules import DIAGONAL_RULES, eight_connected


@njit(cache=True)
def _label(free, eight, labels, stack):
    h, w = free.shape
    count = 0
    for y0 in range(h):
        for x0 in range(w):
            if not free[y0, x0] or labels[y0, x0] != 0:
                continue
            count += 1
            labels[y0, x0] = count
            stack[0] = y0 * w + x0
            top = 1
            while top > 0:
                top -= 1
                y = stack[top] // w
                x = stack[top] - y * w
                for dy in range(-1, 2):
                    for dx in range(-1, 2):
                        if dx == 0 and dy == 0:
                            continue
                        if dx != 0 and dy != 0 and not eight:
                            continue
                        ny = y + dy
                        nx = x + dx
                        if 0 <= ny < h and 0 <= nx < w and free[ny, nx] and labels[ny, nx] == 0:
                            labels[ny, nx] = count
                            stack[top] = ny * w + nx
                            top += 1
    return count


def label_regions(costs: np.ndarray, diagonal: str = "no-corner-cutting") -> tuple[np.ndarray, int]:
    """Region ids (int32, ``[y, x]``; 0 = impassable, 1..n regions) and the count n."""
    free = np.ascontiguousarray(costs > 0)
    labels = np.zeros(free.shape, dtype=np.int32)
    stack = np.empty(free.size, dtype=np.int64)
    n = _label(free, eight_connected(DIAGONAL_RULES[diagonal]), labels, stack)
    return labels, int(n)
