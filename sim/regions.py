"""Connected regions of a cost grid, so impossible goals are known before any search.

Two cells share a region when an agent can walk from one to the other. Under the
"never" and "no-corner-cutting" rules that is 4-connectivity (a diagonal step needs
both orthogonal cells free, so it never joins what 4-steps could not); under
"one-obstacle" and "always" diagonal steps can join regions, so 8-connectivity is used.
"""

from __future__ import annotations

import numpy as np
from numba import njit


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
            top = 0
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
    n = _label(free, diagonal in ("one-obstacle", "always"), labels, stack)
    return labels, int(n)
