"""The world: the terrain grid (indexed ``[y, x]``), what the map started as, and a log of changes.

Cost grids (one per species) follow the world through ``revision`` and
``changes_since``: a repainted region is re-costed alone, a new map rebuilds all.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

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
        return [rect for rev, rect in self._log if rev > revision]

    def paint(self, cx: int, cy: int, radius: int, terrain: int | None) -> CellRect | None:
        """Set the cells within ``radius`` of ``(cx, cy)`` (a disc) to ``terrain``.

        ``terrain=None`` restores the map's original terrain there. Returns the changed
        rectangle, or ``None`` when nothing changed.
        """
        x0, x1 = max(0, cx - radius), min(self.width, cx + radius + 1)
        y0, y1 = max(0, cy - radius), min(self.height, cy + radius + 1)
        if x0 >= x1 or y0 >= y1:
            return None
        ys, xs = np.ogrid[y0:y1, x0:x1]
        disc = (xs - cx) ** 2 + (ys - cy) ** 2 <= radius * radius + radius
        block = self.terrain[y0:y1, x0:x1]
        new = self.original[y0:y1, x0:x1] if terrain is None else np.uint8(terrain)
        target = np.where(disc, new, block)
        if np.array_equal(target, block):
            return None
        block[...] = target
        return self._record(CellRect(x0, y0, x1, y1))

    def paint_line(self, points: np.ndarray, radius: int, terrain: int | None) -> CellRect | None:
        """Paint discs of ``radius`` along the straight lines through ``points`` ((k, 2) int64
        ``x, y``), every cell of the way (no gaps between far-apart points), as one change:
        returns the rectangle changed, or ``None``."""
        reach = (-radius, -radius, self.width + radius, self.height + radius)
        cells = line_cells(points, reach)
        x0, y0 = cells.min(axis=0) - radius
        x1, y1 = cells.max(axis=0) + radius + 1
        box = CellRect(int(x0), int(y0), int(x1), int(y1)).clip(self.width, self.height)
        if box is None:
            return None
        covered = np.zeros((box.height, box.width), dtype=bool)
        r2 = radius * radius + radius  # the disc's rule, as paint() has it
        for cx, cy in cells.tolist():  # each cell's disc, within the box only (a radius may be huge)
            sub = CellRect(cx - radius, cy - radius, cx + radius + 1, cy + radius + 1).clip(self.width, self.height)
            if sub is None:
                continue
            ys, xs = np.ogrid[sub.y0 : sub.y1, sub.x0 : sub.x1]
            covered[sub.y0 - box.y0 : sub.y1 - box.y0, sub.x0 - box.x0 : sub.x1 - box.x0] |= (
                (xs - cx) ** 2 + (ys - cy) ** 2 <= r2
            )
        block = self.terrain[box.slices]
        new = self.original[box.slices] if terrain is None else np.uint8(terrain)
        target = np.where(covered, new, block)
        if np.array_equal(target, block):
            return None
        block[...] = target
        return self._record(box)

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
        t = np.arange(lo, hi + 1) / steps
        out.append(np.stack((np.round(x0 + (x1 - x0) * t), np.round(y0 + (y1 - y0) * t)), axis=1).astype(np.int64))
    return np.concatenate(out)
