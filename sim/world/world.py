"""The world: the terrain grid (indexed ``[y, x]``), what the map started as, and a log of changes.

Cost grids (one per species) follow the world through ``revision`` and
``changes_since``: a repainted region is re-costed alone, a new map rebuilds all.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass

import numpy as np

from sim.world import brush
from sim.world.geometry import CellRect

_LOG_LIMIT = 512  # changes kept; an older revision gets a full rebuild


@dataclass
class World:
    """A terrain grid plus the map's original terrain (for "restore" painting)."""

    terrain: np.ndarray  # uint8 terrain ids, [y, x]
    name: str = "untitled"
    source: str | None = None  # file the map came from, if any

    def __post_init__(self) -> None:
        self.terrain, self.original = _own(self.terrain)
        self.revision = 0
        self._log: list[tuple[int, CellRect]] = []
        self._full_at = 0  # revision of the last whole-map replacement

    @property
    def height(self) -> int:
        return int(self.terrain.shape[0])

    @property
    def width(self) -> int:
        return int(self.terrain.shape[1])

    def inside(self, x: int, y: int) -> bool:
        return 0 <= x < self.width and 0 <= y < self.height

    def changes_since(self, revision: int) -> list[CellRect] | None:
        """Rectangles changed after ``revision``; ``None`` if a full rebuild is needed."""
        if revision < self._full_at or (self._log and revision < self._log[0][0] - 1):
            return None
        # The log's revisions rise one by one (each change adds one), so the first one after
        # ``revision`` is found by a bisection, not by looking at all 512 (~30 us a call, a few a frame).
        first = bisect.bisect_right(self._log, revision, key=lambda entry: entry[0])
        return [rect for _rev, rect in self._log[first:]]

    def paint(self, cx: int, cy: int, radius: int, terrain: int | None) -> CellRect | None:
        """Set the cells within ``radius`` of ``(cx, cy)`` (a disc) to ``terrain``.

        ``terrain=None`` restores the map's original terrain there. Returns the changed
        rectangle, or ``None`` when nothing changed.
        """
        return self.paint_line(np.array([[cx, cy]], dtype=np.int64), radius, terrain)

    def paint_line(self, points: np.ndarray, radius: int, terrain: int | None) -> CellRect | None:
        """Paint discs of ``radius`` along the straight lines through ``points`` ((k, 2) int64
        ``x, y``), every cell of the way (no gaps between far-apart points), as one change:
        returns the rectangle changed, or ``None``. (:meth:`cover`, then :meth:`fill`.)"""
        covered = self.cover(points, radius)
        return None if covered is None else self.fill(*covered, terrain)

    def cover(self, points: np.ndarray, radius: int) -> tuple[CellRect, np.ndarray] | None:
        """The cells a stroke would paint, changing nothing: ``(rect, mask)`` (mask ``[y, x]``
        over ``rect``), or None when it misses the map. Its cost is bounded by the map, not by
        the stroke (:mod:`sim.world.brush`: the one place a stroke is clipped)."""
        found = brush.cover(points, radius, self.width, self.height)
        return None if found is None else (CellRect(*found[0]), found[1])

    def fill(self, rect: CellRect, mask: np.ndarray, terrain: int | None) -> CellRect | None:
        """Write ``terrain`` (None: the original) where ``mask`` is set in ``rect``; the rectangle,
        or None when no cell changed."""
        block = self.terrain[rect.slices]
        new = self.original[rect.slices] if terrain is None else np.uint8(terrain)
        target = np.where(mask, new, block)
        if np.array_equal(target, block):
            return None
        block[...] = target
        return self._record(rect)

    def replace(self, terrain: np.ndarray, *, name: str | None = None, source: str | None = None) -> None:
        """Swap in a whole new map (it becomes the new original)."""
        self.terrain, self.original = _own(terrain)
        self.name = name or self.name
        self.source = source
        self.revision += 1
        self._full_at = self.revision
        self._log.clear()

    def reset(self) -> CellRect | None:
        """Restore the whole map to its original terrain."""
        if np.array_equal(self.terrain, self.original):
            return None
        self.terrain[...] = self.original
        return self._record(CellRect(0, 0, self.width, self.height))

    def changed(self, rect: CellRect) -> CellRect:
        """Note that ``rect``'s cells were written directly (undo, redo): cost grids follow."""
        return self._record(rect)

    def _record(self, rect: CellRect) -> CellRect:
        self.revision += 1
        self._log.append((self.revision, rect))
        if len(self._log) > _LOG_LIMIT:
            del self._log[: len(self._log) - _LOG_LIMIT]
        return rect


def _own(terrain: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(terrain to paint, original)`` for a map's terrain. The caller's array is never
    written (a script may build two simulations from one loaded map); a read-only one (as
    :func:`sim.maps.load_map` gives) is kept as the original instead of being copied again."""
    given = np.ascontiguousarray(terrain, dtype=np.uint8)
    original = given if not given.flags.writeable else given.copy()
    original.flags.writeable = False
    return original.copy(), original


def line_cells(points: np.ndarray, bounds: tuple[int, int, int, int] | None = None) -> np.ndarray:
    """Every cell on the straight lines through ``points`` ((k, 2) ``x, y``), in order, as the
    brush passes them (rounded steps of at most one cell on each axis). With ``bounds``
    ``(x0, y0, x1, y1)`` (exclusive ends), only the cells of each line within them (cells
    far off the map are never made: a line may be two billion cells long)."""
    pts = np.asarray(points, dtype=np.int64).reshape(-1, 2)
    out = [pts[:1]]
    for (x0, y0), (x1, y1) in zip(pts[:-1].tolist(), pts[1:].tolist(), strict=True):
        steps = max(abs(x1 - x0), abs(y1 - y0))
        if not steps:
            continue
        lo, hi = 1, steps
        if bounds is not None:  # the steps s whose cell can be inside: a window around the clipped line
            t0, t1 = 0.0, 1.0
            for a, b, low, high in ((x0, x1, bounds[0], bounds[2]), (y0, y1, bounds[1], bounds[3])):
                if a == b:
                    if not low - 1 <= a <= high:
                        t0, t1 = 1.0, 0.0
                    continue
                ta, tb = (low - 1 - a) / (b - a), (high + 1 - a) / (b - a)
                t0, t1 = max(t0, min(ta, tb)), min(t1, max(ta, tb))
            if t0 > t1:
                continue
            lo, hi = max(1, int(np.floor(t0 * steps)) - 1), min(steps, int(np.ceil(t1 * steps)) + 1)
        s = np.arange(lo, hi + 1, dtype=np.int64)
        out.append(np.stack((x0 + _half_even((x1 - x0) * s, steps), y0 + _half_even((y1 - y0) * s, steps)), axis=1))
    return np.concatenate(out)


def _half_even(num: np.ndarray, steps: int) -> np.ndarray:
    """``num / steps`` rounded half to even, exactly (integers: a float ``s / steps`` lands a hair
    off the half and rounds either way). :mod:`sim.world.brush` rounds the same."""
    q = num // steps
    twice = 2 * (num - q * steps)
    return q + ((twice > steps) | ((twice == steps) & (q % 2 == 1)))
