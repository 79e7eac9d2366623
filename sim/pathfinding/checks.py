"""Checks at the engine's public boundary: exact ``TypeError``/``ValueError`` messages."""

from __future__ import annotations

import math
from numbers import Integral, Real

import numpy as np

from .rules import DIAGONAL_RULES

Point = tuple[int, int]
HEURISTICS: tuple[str, ...] = ("octile", "manhattan", "euclidean", "chebyshev", "zero")
ALGORITHMS: tuple[str, ...] = ("astar", "dijkstra", "greedy", "jps")


def _check_point(name: str, p: object, width: int, height: int) -> Point:
    if (
        not isinstance(p, tuple | list | np.ndarray)
        or len(p) != 2
        or not all(isinstance(c, Integral) and not isinstance(c, bool) for c in p)
    ):
        raise TypeError(f"{name} must be an (x, y) tuple of ints, got {_short(p)}")
    x, y = int(p[0]), int(p[1])
    if not (0 <= x < width and 0 <= y < height):
        raise ValueError(f"{name} {(x, y)} is outside the grid of width {width} and height {height}")
    return x, y


def resolve_options(
    diagonal: str, heuristic: str | None, weight: float, algorithm: str, max_nodes: int | None
) -> tuple[int, str, float, str, int | None]:
    """Check the option values; return them normalised (the heuristic's default filled in)."""
    for name, value in (("diagonal", diagonal), ("heuristic", heuristic), ("algorithm", algorithm)):
        if not isinstance(value, str) and not (name == "heuristic" and value is None):
            raise TypeError(f"{name} must be a string, got {_short(value)}")
    if diagonal not in DIAGONAL_RULES:
        raise ValueError(f"unknown diagonal rule {_short(diagonal)}; expected one of {', '.join(DIAGONAL_RULES)}")
    if heuristic is None:
        heuristic = "manhattan" if diagonal == "never" else "octile"
    elif heuristic not in HEURISTICS:
        raise ValueError(f"unknown heuristic {_short(heuristic)}; expected one of {', '.join(HEURISTICS)}")
    if algorithm not in ALGORITHMS:
        raise ValueError(f"unknown algorithm {_short(algorithm)}; expected one of {', '.join(ALGORITHMS)}")
    if not isinstance(weight, Real) or isinstance(weight, bool):
        raise TypeError(f"weight must be a number, got {weight!r}")
    if not (math.isfinite(weight) and weight >= 1.0):
        raise ValueError(f"weight must be a finite number >= 1, got {weight!r}")
    if max_nodes is not None:
        if not isinstance(max_nodes, Integral) or isinstance(max_nodes, bool):
            raise TypeError(f"max_nodes must be an int or None, got {max_nodes!r}")
        if max_nodes < 1:
            raise ValueError(f"max_nodes must be >= 1, got {max_nodes}")
    return DIAGONAL_RULES[diagonal], heuristic, float(weight), algorithm, max_nodes


def _check_max_cost(max_cost: object) -> float:
    if max_cost is None:
        return math.inf
    if not isinstance(max_cost, Real) or isinstance(max_cost, bool):
        raise TypeError(f"max_cost must be a number or None, got {_short(max_cost)}")
    if math.isnan(max_cost) or max_cost < 0:
        raise ValueError(f"max_cost must be >= 0, got {max_cost!r}")
    return float(max_cost)


def _short(value: object, limit: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _check_out_array(name: str, a: object, ndim: int) -> np.ndarray:
    """An output array the caller gives: int32, ``ndim``-D, writeable (exact errors otherwise)."""
    if not isinstance(a, np.ndarray) or a.dtype != np.int32 or a.ndim != ndim:
        raise TypeError(f"{name} must be a {ndim}-D numpy int32 array")
    if not a.flags.writeable:
        raise ValueError(f"{name} must be writeable, got a read-only array")
    return a


def _check_points(name: str, a: object, width: int, height: int) -> np.ndarray:
    """A (k, 2) array of (x, y) int points inside the grid, as an int64 array."""
    arr = a if isinstance(a, np.ndarray) else np.asarray(a)
    if arr.dtype.kind not in "iu":
        raise TypeError(f"{name} must be a (k, 2) array of int (x, y) points, got dtype {arr.dtype}")
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise ValueError(f"{name} must have shape (k, 2), got {arr.shape}")
    arr = arr.astype(np.int64, copy=False)
    if arr.size == 0 or (arr.min() >= 0 and arr[:, 0].max() < width and arr[:, 1].max() < height):
        return arr
    bad = (arr[:, 0] < 0) | (arr[:, 0] >= width) | (arr[:, 1] < 0) | (arr[:, 1] >= height)
    if bad.any():
        i = int(np.argmax(bad))
        point = (int(arr[i, 0]), int(arr[i, 1]))
        raise ValueError(f"{name}[{i}] {point} is outside the grid of width {width} and height {height}")
    return arr
