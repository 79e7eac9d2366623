"""Checks at the engine's public boundary: exact ``TypeError``/``ValueError`` messages."""

from __future__ import annotations

import math
from numbers import Integral, Real

import numpy as np
from numba import njit

Point = tuple[int, int]
#: Expansion counts (``max_nodes``, ``node_budget``) at most: what the kernels count in int64, with room.
MAX_COUNT = 2**62
#: Threads one batch may use (the config's ``search.threads`` allows as many).
MAX_THREADS = 256


def _check_point(name: str, p: object, width: int, height: int) -> Point:
    if type(p) is tuple and len(p) == 2 and type(p[0]) is int and type(p[1]) is int:
        # The common case first: the general test below (numbers.Integral) costs ~4 µs a call.
        x, y = p
        if 0 <= x < width and 0 <= y < height:
            return x, y
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


def _check_max_cost(max_cost: object) -> float:
    if max_cost is None:
        return math.inf
    if not isinstance(max_cost, Real) or isinstance(max_cost, bool):
        raise TypeError(f"max_cost must be a number or None, got {_short(max_cost)}")
    try:
        limit = float(max_cost)
    except OverflowError:  # a whole number beyond any float: no limit at all
        return math.inf
    if math.isnan(limit) or limit < 0:
        raise ValueError(f"max_cost must be >= 0, got {_short(max_cost)}")
    return limit


def check_threads(name: str, value: object, allow_none: bool) -> int | None:
    """A thread count a caller gives: 1 to :data:`MAX_THREADS` (or None), else an exact error."""
    if value is None and allow_none:
        return None
    if not isinstance(value, Integral) or isinstance(value, bool) or not 1 <= int(value) <= MAX_THREADS:
        what = " or None" if allow_none else ""
        raise ValueError(f"{name} must be a whole number from 1 to {MAX_THREADS}{what}, got {_short(value)}")
    return int(value)


def check_budget(node_budget: object) -> int | None:
    """``node_budget`` of a batch: None or 0 to :data:`MAX_COUNT` expansions."""
    return check_count("node_budget", node_budget, 0)


def check_count(name: str, value: object, lo: int) -> int | None:
    """An expansion count a caller gives (``max_nodes``, ``node_budget``): None, or a whole
    number from ``lo`` to :data:`MAX_COUNT`; else an exact error."""
    if value is None:
        return None
    if not isinstance(value, Integral) or isinstance(value, bool):
        raise TypeError(f"{name} must be an int or None, got {_short(value)}")
    n = int(value)
    if n < lo:
        raise ValueError(f"{name} must be >= {lo}, got {_short(value)}")
    if n > MAX_COUNT:
        raise ValueError(f"{name} must be <= {MAX_COUNT}, got {_short(value)}")
    return n


def check_index(name: str, i: object, k: int, label: str, where: str) -> int:
    """``i`` as a position among ``k`` (negative: from the end, as a list's index), or an exact
    ``TypeError`` (not an int) or ``ValueError`` ("``label`` 5 is outside ``where``")."""
    if not isinstance(i, Integral) or isinstance(i, bool):
        raise TypeError(f"{name} must be an int, got {i!r}")
    n = int(i)
    if not -k <= n < k:
        raise ValueError(f"{label} {n} is outside {where}")
    return n % k


def _short(value: object, limit: int = 80) -> str:
    """``value`` for a one-line message: an array by its dtype and shape (a numpy repr runs over
    lines), anything else by a repr of at most ``limit`` characters on one line."""
    if isinstance(value, np.ndarray):
        return f"an array of dtype {value.dtype} and shape {value.shape}"
    text = " ".join(repr(value).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def no_search_options(owner: str, more: tuple, options: dict) -> None:
    """A search's options given to ``owner`` (a grid takes the costs alone): a ``TypeError`` that says
    where they go, where Python's own named a base class the user never met."""
    if more or options:
        given = ", ".join([*(_short(m, 30) for m in more), *(f"{k}={_short(v, 30)}" for k, v in options.items())])
        raise TypeError(
            f"{owner} takes one argument, the costs, got also {given}; a search's options (diagonal, heuristic, "
            "algorithm, ...) go to search(), search_many() or SearchOptions"
        )


def as_array(name: str, a: object, what: str) -> np.ndarray:
    """``a`` as a numpy array (an array is kept as it is); a sequence numpy cannot make one array of
    (rows of different lengths, a point inside a point) is a ``TypeError`` saying ``name`` must be
    ``what``, not numpy's own message."""
    if isinstance(a, np.ndarray):
        return a
    try:
        return np.asarray(a)
    except (ValueError, TypeError, OverflowError):
        raise TypeError(f"{name} must be {what}, got {_short(a)}") from None


def _check_out_array(name: str, a: object, ndim: int) -> np.ndarray:
    """An output array the caller gives: int32, ``ndim``-D, writeable (exact errors otherwise)."""
    if not isinstance(a, np.ndarray) or a.dtype != np.int32 or a.ndim != ndim:
        raise TypeError(f"{name} must be a {ndim}-D numpy int32 array")
    if not a.flags.writeable:
        raise ValueError(f"{name} must be writeable, got a read-only array")
    return a


def padded_pairs(starts: object, goals: object, width: int, height: int) -> tuple[np.ndarray, np.ndarray]:
    """``starts`` and ``goals`` ((k, 2) int arrays of (x, y) inside the grid, as many of each)
    as int64 cells of the padded grid, ``(y + 1) * (width + 2) + x + 1``.

    Valid input takes one compiled pass; anything else goes through the checks that name
    the first problem (the same messages, in the same order, either way)."""
    s, t = _int_points(starts), _int_points(goals)
    if s is not None and t is not None and len(s) == len(t):
        flat_s, flat_t, ok = _padded(s, t, width, height)
        if ok:
            return flat_s, flat_t
    s = _check_points("starts", starts, width, height)
    t = _check_points("goals", goals, width, height)
    if len(s) != len(t):
        raise ValueError(f"starts and goals must have the same length, got {len(s)} and {len(t)}")
    return _padded(s, t, width, height)[:2]


def _int_points(a: object) -> np.ndarray | None:
    """``a`` as a (k, 2) int64 array in C order (one compiled ``_padded`` for all) when it is a
    (k, 2) int array, else None."""
    if isinstance(a, np.ndarray) and a.dtype.kind in "iu" and a.ndim == 2 and a.shape[1] == 2:
        return np.ascontiguousarray(a, dtype=np.int64)
    return None


@njit(cache=True, nogil=True)
def _padded(s, t, width, height):
    """Padded cells of the points, and whether all of them were inside the grid."""
    k = s.shape[0]
    out_s = np.empty(k, np.int64)
    out_t = np.empty(k, np.int64)
    wp = width + 2
    ok = True
    for i in range(k):
        sx, sy, tx, ty = s[i, 0], s[i, 1], t[i, 0], t[i, 1]
        if not (0 <= sx < width and 0 <= sy < height and 0 <= tx < width and 0 <= ty < height):
            ok = False
        out_s[i] = (sy + 1) * wp + sx + 1
        out_t[i] = (ty + 1) * wp + tx + 1
    return out_s, out_t, ok


def points_array(name: str, a: object) -> np.ndarray:
    """``a`` as a (k, 2) int array of (x, y) points, its dtype kept (exact errors otherwise; ``[]``
    or an empty (0, 2) array of any dtype is no points, int64)."""
    arr = as_array(name, a, "a (k, 2) array of int (x, y) points")
    if arr.size == 0 and arr.shape in ((0,), (0, 2)):  # no points: [] or np.empty((0, 2)), of any dtype
        return np.empty((0, 2), np.int64)
    if arr.dtype.kind not in "iu":
        raise TypeError(f"{name} must be a (k, 2) array of int (x, y) points, got dtype {arr.dtype}")
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise ValueError(f"{name} must have shape (k, 2), got {arr.shape}")
    return arr


def _check_points(name: str, a: object, width: int, height: int) -> np.ndarray:
    """A (k, 2) array of (x, y) int points inside the grid, as an int64 array."""
    arr = points_array(name, a)
    if arr.dtype == np.uint64 and arr.size and int(arr.max()) > np.iinfo(np.int64).max:
        i = int(np.argmax((arr > np.iinfo(np.int64).max).any(axis=1)))  # (int64 would wrap it negative)
        point = (int(arr[i, 0]), int(arr[i, 1]))
        raise ValueError(f"{name}[{i}] {point} is outside the grid of width {width} and height {height}")
    arr = np.ascontiguousarray(arr, dtype=np.int64)
    if arr.size == 0 or (arr.min() >= 0 and arr[:, 0].max() < width and arr[:, 1].max() < height):
        return arr
    bad = (arr[:, 0] < 0) | (arr[:, 0] >= width) | (arr[:, 1] < 0) | (arr[:, 1] >= height)
    if bad.any():
        i = int(np.argmax(bad))
        point = (int(arr[i, 0]), int(arr[i, 1]))
        raise ValueError(f"{name}[{i}] {point} is outside the grid of width {width} and height {height}")
    return arr
