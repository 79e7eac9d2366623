"""Editing the map: painting, reset, and undo/redo of whole strokes (a mixin of :class:`Simulation`).

Every change goes through here, so the undo history, the cost grids (through the world's
change log) and the animals (re-planning where a change cuts their path) stay in step.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from numbers import Integral

import numpy as np

from sim.model.agents import Agents
from sim.model.replan import rescue_stranded, stop_crossing
from sim.model.species import SpeciesRuntime
from sim.support.checks import MAX_COORDINATE, short, whole_number
from sim.world.geometry import CellRect
from sim.world.history import Edit, EditHistory
from sim.world.history import apply as apply_edit
from sim.world.terrain import Terrain, parse_terrain
from sim.world.world import World


class Editing:
    """Map edits for the simulation; see the module doc."""

    world: World
    agents: Agents
    species: list[SpeciesRuntime]
    history: EditHistory
    _replans_pending: int

    def paint(self, cx: int, cy: int, radius: int, terrain: int | str | None) -> CellRect | None:
        """Paint ``terrain`` (a :class:`Terrain`, its id or name; ``None`` = the map's original)
        in a disc of ``radius`` cells around ``(cx, cy)``; animals whose path it cuts re-plan."""
        cx = whole_number("cx", cx, -MAX_COORDINATE, MAX_COORDINATE)
        cy = whole_number("cy", cy, -MAX_COORDINATE, MAX_COORDINATE)
        return self.paint_stroke([(cx, cy)], radius, terrain)

    def paint_stroke(self, points: object, radius: int, terrain: int | str | None) -> CellRect | None:
        """Paint ``terrain`` with a brush of ``radius`` along the straight lines through ``points``
        (``(x, y)`` whole numbers; one point is one disc), every cell of the way, as one change:
        checked once, recorded once, animals whose path it cuts re-plan once. Returns the
        rectangle changed, or None. (A mouse drag is this, once a frame, between
        :meth:`begin_stroke` and :meth:`end_stroke`.)"""
        pts = _points(points)
        radius = whole_number("radius", radius, 0, MAX_COORDINATE)
        terrain = _terrain(terrain)
        covered = self.world.cover(pts, radius)  # checked and clipped whole before any cell is written
        if covered is None:
            return None
        box, mask = covered
        before = self.world.terrain[box.slices].copy()
        with self._edit():
            rect = self.world.fill(box, mask, terrain)
            if rect is not None:
                self.history.touch(rect, before)
                self._after_change(rect, before)
        return rect

    def reset_map(self) -> CellRect | None:
        """Restore the whole map to its original terrain (one step of undo)."""
        before = self.world.terrain.copy()
        with self._edit():
            rect = self.world.reset()
            if rect is not None:
                self.history.touch(rect, before)
                self._after_change(rect, before)
        return rect

    @contextmanager
    def _edit(self) -> Iterator[None]:
        """A change outside a stroke is a stroke of its own (one step of undo)."""
        own = not self.history.in_stroke
        if own:
            self.history.begin()
        try:
            yield
        finally:
            if own:
                self.history.end(self.world.terrain)

    # ------------------------------------------------------------------ undo
    def begin_stroke(self) -> None:
        """Start a stroke: the paints until :meth:`end_stroke` undo as one step (mouse down to up)."""
        self.history.begin()

    def end_stroke(self) -> None:
        self.history.end(self.world.terrain)

    def undo(self) -> CellRect | None:
        """Undo the last stroke (or reset); returns the rectangle changed, or None if there is none."""
        return self._step(self.history.undo_stack, self.history.redo_stack, forward=False)

    def redo(self) -> CellRect | None:
        """Redo the last undone stroke; returns the rectangle changed, or None."""
        return self._step(self.history.redo_stack, self.history.undo_stack, forward=True)

    def _step(self, source: deque[Edit], target: deque[Edit], forward: bool) -> CellRect | None:
        if self.history.in_stroke:
            self.end_stroke()  # an undo in the middle of a stroke first closes it
        if not source:
            return None
        edit = source.pop()
        before = apply_edit(self.world.terrain, edit, forward)
        target.append(edit)
        self.world.changed(edit.rect)
        self._after_change(edit.rect, before)  # animals re-plan as after painting
        return edit.rect

    def _after_change(self, rect: CellRect, before: np.ndarray) -> None:
        changed = self.world.terrain[rect.slices] != before[: rect.height, : rect.width]
        self._replans_pending += stop_crossing(self.agents, self.species, self.world.width, rect, changed)
        self._replans_pending += rescue_stranded(self.agents, self.species)


MAX_STROKE_POINTS = 100_000


def _points(points: object) -> np.ndarray:
    """A stroke's points as a (k, 2) int64 array, or an exact error (like ``paint``'s ``cx``/``cy``).
    Integer arrays of any dtype are range-checked before they are converted (a ``uint64`` above
    2**63 would wrap to a negative coordinate), and a long list is checked in one pass."""
    if isinstance(points, np.ndarray) and points.dtype.kind in "iu" and points.ndim == 2 and points.shape[1] == 2:
        if not 1 <= len(points) <= MAX_STROKE_POINTS:
            raise ValueError(f"points must be 1 to {MAX_STROKE_POINTS} (x, y) pairs, got {len(points)}")
        for axis, name in ((0, "x"), (1, "y")):
            column = points[:, axis]
            low, high = int(column.min()), int(column.max())  # Python ints: exact for every dtype
            for i, value in ((int(column.argmin()), low), (int(column.argmax()), high)):
                whole_number(f"points[{i}] {name}", value, -MAX_COORDINATE, MAX_COORDINATE)
        return points.astype(np.int64)
    if not isinstance(points, list | tuple | np.ndarray) or len(points) == 0 or len(points) > MAX_STROKE_POINTS:
        raise TypeError(f"points must be a non-empty list of (x, y) whole numbers, got {short(points)}")
    fast = _int_pairs(points)
    if fast is not None:
        return _points(fast)
    for i, p in enumerate(points):  # the slow way, for the exact message of the first bad point
        if not isinstance(p, tuple | list | np.ndarray) or len(p) != 2:
            raise TypeError(f"points[{i}] must be an (x, y) pair of whole numbers, got {short(p)}")
        whole_number(f"points[{i}] x", p[0], -MAX_COORDINATE, MAX_COORDINATE)
        whole_number(f"points[{i}] y", p[1], -MAX_COORDINATE, MAX_COORDINATE)
    return np.array([[int(p[0]), int(p[1])] for p in points], dtype=np.int64)


def _int_pairs(points: list | tuple | np.ndarray) -> np.ndarray | None:
    """``points`` as a (k, 2) integer array when every point is an (x, y) pair of plain or numpy
    integers (not bools) that numpy reads as such; None otherwise (the caller says what is wrong)."""
    try:
        arr = np.asarray(points)
    except (ValueError, TypeError, OverflowError):
        return None
    if arr.ndim != 2 or arr.shape[1] != 2 or arr.dtype.kind not in "iu":
        return None
    if not isinstance(points, np.ndarray) and any(type(v) is bool for p in points for v in p):
        return None  # numpy reads True as 1; a bool is no coordinate
    return arr


def _terrain(terrain: object) -> int | None:
    if isinstance(terrain, str):
        return int(parse_terrain(terrain))
    if terrain is not None and (
        isinstance(terrain, bool) or not isinstance(terrain, Integral) or not 0 <= int(terrain) < len(Terrain)
    ):
        raise ValueError(
            f"terrain must be a terrain id from 0 to {len(Terrain) - 1}, a name or None, got {short(terrain)}"
        )
    return None if terrain is None else int(terrain)
