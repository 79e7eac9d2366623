"""Paths as arrays: what one search found (:class:`SearchResult`), and the compiled helpers that
turn a kernel's flat cells into ``(n, 2)`` arrays of ``(x, y)``.

A path is an ``(n, 2)`` int32 array, row ``i`` the ``(x, y)`` of its ``i``-th cell, start to goal
inclusive: it indexes and iterates as the old list of tuples did (``path[0]``, ``path[-1]``,
``len(path)``, ``for x, y in path``); compare rows with ``tuple(row) == (x, y)`` or
``np.array_equal``, or take :meth:`SearchResult.path_list` for the tuples.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import FrozenInstanceError
from typing import Any, cast

import numpy as np
from numba import njit
from numpy.typing import NDArray

Point = tuple[int, int]
EMPTY_PATH: NDArray[np.int32] = np.zeros((0, 2), dtype=np.int32)
EMPTY_PATH.flags.writeable = False
# (called positionally: ~0.1 µs less than path.setflags(write=False); the stubs name the argument)
_set_flags = cast(Callable[[NDArray[Any], bool], None], np.ndarray.setflags)


@njit(cache=True)
def xy_of(cells, width):
    """Flat cells ``y * width + x`` as an ``(n, 2)`` int32 array of ``(x, y)``."""
    out = np.empty((cells.size, 2), np.int32)
    for i in range(cells.size):
        c = cells[i]
        y = c // width
        out[i, 0] = c - y * width
        out[i, 1] = y
    return out


@njit(cache=True)
def turning_points(xy):
    """The rows of an ``(n, 2)`` path where its direction changes, its first and last included."""
    n = xy.shape[0]
    keep = np.zeros(n, np.bool_)
    if n:
        keep[0] = keep[n - 1] = True
    for i in range(1, n - 1):
        if (xy[i, 0] - xy[i - 1, 0] != xy[i + 1, 0] - xy[i, 0]) or (xy[i, 1] - xy[i - 1, 1] != xy[i + 1, 1] - xy[i, 1]):
            keep[i] = True
    return xy[keep]


def as_path(cells: NDArray[Any], width: int) -> NDArray[np.int32]:
    """Flat cells as a read-only ``(n, 2)`` path (no compiled call for an empty one)."""
    if cells.size == 0:
        return EMPTY_PATH
    out = xy_of(cells, width)
    out.setflags(write=False)
    return out


class _Fields:
    """A search result's storage (the slots :class:`SearchResult` reads)."""

    __slots__ = ("_cells", "_partial", "_path", "_width", "cost", "expanded", "found", "hit_limit")
    found: bool
    cost: float
    expanded: int
    hit_limit: bool
    _cells: NDArray[np.int32] | None
    _path: NDArray[np.int32]
    _partial: NDArray[np.int32]
    _width: int


class _Filling(_Fields):
    """A :class:`SearchResult` while the engine fills it in: its slots written as plain attributes
    (each ``object.__setattr__`` costs ~0.1 µs, a whole result 1 µs of a 4 µs search), then its
    class set to :class:`SearchResult`, whose layout is the same (issue #43: a call that costs
    nothing)."""

    __slots__ = ()


class SearchResult(_Fields):
    """What one search found (a value: read-only).

    ``path``: an ``(n, 2)`` int32 array of ``(x, y)``, start to goal inclusive (empty, ``(0, 2)``,
    when not found); ``cost`` its total cost (``inf`` when not found); ``expanded`` the nodes
    taken off the open list (jump points for JPS); ``hit_limit``: ``max_nodes`` stopped the search;
    ``partial_path`` (only when not found) runs from the start to the expanded node closest to
    the goal, so an agent can still walk toward it. ``waypoints`` are the path's turning points
    (start, every cell where its direction changes, goal). The path is made in compiled code:
    :meth:`PathGrid.search`'s kernel writes its ``(x, y)`` rows, copied once into the result.
    """

    __slots__ = ()
    __hash__ = None  # type: ignore[assignment]  # (its paths are arrays)

    def __init__(self, found: bool, path: Any, cost: float, expanded: int, hit_limit: bool = False,
                 partial_path: Any = None) -> None:  # fmt: skip
        put = object.__setattr__  # (read-only to everyone else)
        put(self, "found", bool(found))
        put(self, "cost", float(cost))
        put(self, "expanded", int(expanded))
        put(self, "hit_limit", bool(hit_limit))
        put(self, "_path", _points(path))
        put(self, "_partial", _points(partial_path))
        put(self, "_cells", None)
        put(self, "_width", 0)

    @classmethod
    def of_cells(cls, found: bool, cells: NDArray[Any], width: int, cost: float, expanded: int,
                 hit_limit: bool = False) -> SearchResult:  # fmt: skip
        """A result whose path (when found; else its partial path) is ``cells``, flat
        ``y * width + x``, made into an array when first read."""
        result = _Filling.__new__(_Filling)
        result.found = found
        result.cost = cost if found else math.inf
        result.expanded = expanded
        result.hit_limit = hit_limit
        result._path = EMPTY_PATH
        result._partial = EMPTY_PATH
        result._cells = cells
        result._width = width
        result.__class__ = cls  # type: ignore[assignment]  # (read-only from here)
        return result  # type: ignore[return-value]

    @classmethod
    def of_path(cls, found: bool, path: NDArray[np.int32], cost: float, expanded: int,
                hit_limit: bool = False) -> SearchResult:  # fmt: skip
        """A result whose path (when found; else its partial path) is ``path``, an ``(n, 2)``
        array made read-only here (it must be the result's own)."""
        _set_flags(path, False)  # (read-only)
        result = _Filling.__new__(_Filling)
        result.found = found
        result.cost = cost if found else math.inf
        result.expanded = expanded
        result.hit_limit = hit_limit
        result._path = path if found else EMPTY_PATH
        result._partial = EMPTY_PATH if found else path
        result._cells = None
        result._width = 0
        result.__class__ = cls  # type: ignore[assignment]
        return result  # type: ignore[return-value]

    def _made(self) -> None:
        cells = self._cells
        if cells is not None:
            object.__setattr__(self, "_path" if self.found else "_partial", as_path(cells, self._width))
            object.__setattr__(self, "_cells", None)

    @property
    def path(self) -> NDArray[np.int32]:
        self._made()
        return self._path

    @property
    def partial_path(self) -> NDArray[np.int32]:
        self._made()
        return self._partial

    @property
    def walk_path(self) -> NDArray[np.int32]:
        """The path to follow: the full path if found, else the partial path."""
        return self.path if self.found else self.partial_path

    @property
    def waypoints(self) -> NDArray[np.int32]:
        """The walk path's turning points, ``(m, 2)``: start, each change of direction, end."""
        walk = self.walk_path
        return walk if len(walk) <= 2 else turning_points(walk)

    def path_list(self) -> list[Point]:
        """The walk path as a list of ``(x, y)`` tuples of ints (the engine's old form)."""
        return [(int(x), int(y)) for x, y in self.walk_path.tolist()]

    def _fields(self) -> tuple:
        return (self.found, self.path.tolist(), self.cost, self.expanded, self.hit_limit, self.partial_path.tolist())

    def __setattr__(self, name: str, value: object) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __eq__(self, other: object) -> bool:
        return self._fields() == other._fields() if isinstance(other, SearchResult) else NotImplemented

    def __repr__(self) -> str:
        path, partial = self.path.tolist(), self.partial_path.tolist()
        return (
            f"SearchResult(found={self.found!r}, path={path!r}, cost={self.cost!r}, "
            f"expanded={self.expanded!r}, hit_limit={self.hit_limit!r}, partial_path={partial!r})"
        )


def _points(path: Any) -> NDArray[np.int32]:
    """A path given as points (a list of ``(x, y)`` or an ``(n, 2)`` array) as a read-only array."""
    if path is None or len(path) == 0:
        return EMPTY_PATH
    out = np.array(path, dtype=np.int32).reshape(-1, 2)
    out.flags.writeable = False
    return out
