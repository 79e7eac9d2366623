"""Landmarks: a heuristic learned from the map, for A* that expands a fraction of the cells.

The octile distance knows nothing of walls, so on a map of rooms or a maze A* expands every
cell closer (by octile distance) than the path is long: on the Moving AI maps, exactly the
cells with ``g + h`` below the optimal cost, tens of thousands a query. A *differential
heuristic* (Goldberg & Harrelson 2005, "ALT"; Sturtevant et al. 2009, as used in Dragon Age)
learns from the map instead: pick a few landmark cells far apart, store every cell's cost to
each (one distance field each, :meth:`~sim.pathfinding.PathGrid.distance_field`), and for a
cell ``n`` and goal ``t`` the triangle inequality gives a lower bound for every landmark ``L``::

    cost(n -> t) >= cost(n -> L) - cost(t -> L)        (and, where costs are the same both
    cost(n -> t) >= cost(L -> t) - cost(L -> n)         ways, these are the two signs of one)

``heuristic="landmarks"`` searches with the largest of these bounds and the octile (or
Manhattan) distance: still admissible and consistent, so A*'s paths stay optimal, and it
expands 4-23x fewer cells on the Moving AI maps (median a map, ``bench.kernel``).

The table is made on the first such search of a grid under a diagonal rule (one distance field
a landmark: ~100 ms for 8 on a 512x512 map; on a grid of several multipliers two, to and from
it), 8 float64 a cell (64 bytes; 16 on weighted grids), and kept while the
grid changes only by costs going up (painting walls): every path's cost can then only grow,
so the old bounds stay below the new costs. A cost that goes down, or a new smallest
multiplier, drops it, to be made again on the next search.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import NDArray

from sim.pathfinding.workspace import run_split, thread_count

#: How many landmarks a table holds (the cells below the optimum, counted on the Moving AI maps: 8
#: cut them 3-180x, 16 4-400x, at twice the memory and the time to make the table).
COUNT = 8
#: The most memory a table may take: on larger maps it holds fewer landmarks (8 up to 8 M cells,
#: none from 64 M: the metric alone then; half that on weighted grids, two columns a landmark).
MAX_BYTES = 512 << 20


def count_for(cells: int, columns: int = 1) -> int:
    """How many landmarks a grid of ``cells`` padded cells gets (:data:`COUNT`, fewer on huge maps),
    at ``columns`` table columns a landmark."""
    return max(0, min(COUNT, MAX_BYTES // (8 * columns * max(1, cells))))


def make_table(
    field: Callable[[tuple[int, int]], NDArray[np.float64]],
    free: NDArray[np.bool_],
    unit: float,
    count: int,
    forward: Callable[[tuple[int, int]], NDArray[np.float64]] | None = None,
) -> tuple[NDArray[np.float64], list[tuple[int, int]]]:
    """The landmarks' table for a grid: ``(padded cells, k)`` float64, each cell's cost to each
    landmark in units of the grid's smallest multiplier ``unit`` (NaN where it cannot reach it),
    row ``(y + 1) * (W + 2) + x + 1`` for cell ``(x, y)``; and the landmarks, ``(x, y)``.

    ``field((x, y))``: every cell's cost to ``(x, y)``, ``(H, W)`` (``inf``: unreachable);
    ``free``: the passable cells, ``(H, W)``. With ``forward((x, y))``, every cell's cost *from*
    ``(x, y)``, the table has ``2 k`` columns: column ``k + j`` holds landmark ``j``'s negated
    costs from it, so that ``lm[v, c] - lm[goal, c]`` bounds the cost from ``v`` to the goal from
    below for every column ``c`` (there: ``cost(L -> goal) - cost(L -> v)``) where costs differ by
    direction. The landmarks are chosen far apart (farthest
    point first: each the reachable cell farthest from those already chosen), starting from
    the passable cell nearest the map's centre; deterministic."""
    h, w = free.shape
    sides = 1 if forward is None else 2
    table = np.full(((h + 2) * (w + 2), sides * count), np.nan)
    points: list[tuple[int, int]] = []
    ys, xs = np.nonzero(free)
    if ys.size == 0 or count == 0:
        return table[:, :0], points
    seed = int(np.argmin((ys - (h - 1) / 2.0) ** 2 + (xs - (w - 1) / 2.0) ** 2))
    far = np.where(np.isfinite(d := field((int(xs[seed]), int(ys[seed])))), d, -1.0)
    inner = table.reshape(h + 2, w + 2, sides * count)[1:-1, 1:-1]
    for k in range(count):
        y, x = np.unravel_index(int(np.argmax(far)), far.shape)
        if far[y, x] <= 0.0:  # every reachable cell is a landmark already
            break
        point = (int(x), int(y))
        if forward is None:
            d = field(point)
        else:  # its two fields on two threads (each has its own workspace: the same fields either way)
            f, d = run_split(lambda make, p: make(p), [(forward, point), (field, point)], min(2, thread_count()))
            inner[:, :, count + k] = np.where(np.isfinite(f), -f / unit, np.nan)
        points.append(point)
        inner[:, :, k] = np.where(np.isfinite(d), d / unit, np.nan)
        far = np.minimum(far, np.where(np.isfinite(d), d, -1.0)) if k else np.where(np.isfinite(d), d, -1.0)
    n = len(points)
    if n == count:  # every column filled: the table as it is (a copy doubled the peak: 1 GB on 3000 x 3000)
        return table, points
    columns = list(range(n)) + ([count + j for j in range(n)] if forward is not None else [])
    return np.ascontiguousarray(table[:, columns]), points


def lowered(before: NDArray[np.float64], after: NDArray[np.float64]) -> bool:
    """Whether any cell got cheaper to enter (multipliers; 0 is blocked, the dearest of all)."""
    inf = np.inf
    return bool(np.any(np.where(after > 0, after, inf) < np.where(before > 0, before, inf)))


def bound(table: NDArray[np.float64], goal: int, sym: bool, shape: tuple[int, int]) -> NDArray[np.float64]:
    """The landmarks' lower bound from every cell to padded cell ``goal``, ``(H, W)``, in units
    of the smallest multiplier (what the kernel's ``common.landmark_h`` computes, for a view)."""
    h, w = shape
    d = table - table[goal]
    if sym:
        d = np.abs(d)
    with np.errstate(invalid="ignore"):
        best = np.max(np.where(np.isnan(d), 0.0, d), axis=1, initial=0.0)
    return best.reshape(h + 2, w + 2)[1:-1, 1:-1]
