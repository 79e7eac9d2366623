"""The background process of :mod:`.warm`: ``python -m sim.pathfinding.warming ENTRY DATA CODES``
compiles one kind of kernel into numba's cache (and never answers from the plain-Python search:
its environment says so)."""

from __future__ import annotations

import sys

import numpy as np

from sim.pathfinding.search import PathGrid
from sim.pathfinding.warm import set_first_use


def _warm(entry: str, data: str, codes: str) -> None:
    """Compile the kernels of one kind (a tiny grid of its code type, searched as its data needs)."""
    set_first_use("wait")
    n = {"|u1": 2, "<u2": 300, "<u4": 70000}.get(codes, 2)
    algorithms = {"none": ("astar",), "bits": ("jps",), "table": ("jps+",), "landmarks": ("astar",)}[data]
    heuristic = "landmarks" if data == "landmarks" else None
    grids = [np.ones((4, 4))] if data == "table" else [np.ones((4, 4)), 1.0 + np.arange(16).reshape(4, 4) % 2]
    if n > 2:  # as many distinct multipliers as make the codes that wide
        side = int(np.ceil(np.sqrt(n)))
        grids = [1.0 + np.arange(side * side).reshape(side, side) / n]
        if data == "table":
            grids = []
    for costs in grids:
        grid = PathGrid(costs)
        h, w = costs.shape
        for algorithm in algorithms:
            if entry == "one":
                grid.search((0, 0), (w - 1, h - 1), algorithm=algorithm, heuristic=heuristic)
            else:
                points = np.array([[0, 0], [w - 1, h - 1]])
                grid.search_many(points, points[::-1], algorithm=algorithm, heuristic=heuristic, threads=1)


if __name__ == "__main__":
    _warm(*sys.argv[1:4])
