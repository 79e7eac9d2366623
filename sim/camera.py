"""The view onto the map: pan and zoom, screen pixels <-> cells. Pure arithmetic (no pygame)."""

from __future__ import annotations

import math
from dataclasses import dataclass

#: Zoom levels in pixels per cell (whole numbers keep the pixel art crisp).
ZOOMS = (1, 2, 3, 4, 5, 6, 8, 10, 12, 16, 20, 24, 32, 40, 48)


@dataclass
class Camera:
    """``x``, ``y``: the view's top-left corner in map pixels (cells × ``tile``)."""

    view_w: int
    view_h: int
    world_w: int
    world_h: int
    tile: int = 8
    x: float = 0.0
    y: float = 0.0

    def __post_init__(self) -> None:
        self.tile = min(ZOOMS, key=lambda z: abs(z - self.tile))
        self.clamp()

    def resize(self, view_w: int, view_h: int) -> None:
        self.view_w, self.view_h = view_w, view_h
        self.clamp()

    def set_world(self, world_w: int, world_h: int, preferred: int = 8) -> None:
        self.world_w, self.world_h = world_w, world_h
        self.start_view(preferred)

    def start_view(self, preferred: int = 8) -> None:
        """The whole map if it fits at a readable zoom (>= 3 px per cell; small maps are
        zoomed in to fill the view), else the ``preferred`` zoom; centred on the map."""
        fitting = [z for z in ZOOMS if z * self.world_w <= self.view_w and z * self.world_h <= self.view_h]
        best_fit = fitting[-1] if fitting else 0
        self.tile = best_fit if best_fit >= 3 else min(ZOOMS, key=lambda z: abs(z - preferred))
        self.x = (self.world_w * self.tile - self.view_w) / 2
        self.y = (self.world_h * self.tile - self.view_h) / 2
        self.clamp()

    def clamp(self) -> None:
        """Keep the map on screen; a map smaller than the view is centred."""
        for axis, view, world in (("x", self.view_w, self.world_w), ("y", self.view_h, self.world_h)):
            size = world * self.tile
            if size <= view:
                setattr(self, axis, (size - view) / 2)
            else:
                setattr(self, axis, min(max(getattr(self, axis), 0.0), size - view))

    def pan(self, dx: float, dy: float) -> None:
        """Move the view by ``dx``, ``dy`` screen pixels."""
        self.x += dx
        self.y += dy
        self.clamp()

    def zoom(self, steps: int, px: float, py: float) -> None:
        """Zoom ``steps`` levels in (+) or out (-), keeping the cell under ``(px, py)`` in place."""
        i = ZOOMS.index(self.tile)
        new = ZOOMS[min(max(i + steps, 0), len(ZOOMS) - 1)]
        if new == self.tile:
            return
        cx, cy = self.cell_at(px, py)
        self.tile = new
        self.x = cx * new - px
        self.y = cy * new - py
        self.clamp()

    def cell_at(self, px: float, py: float) -> tuple[float, float]:
        """Map coordinates (in cells, fractional) under screen pixel ``(px, py)``."""
        return (self.x + px) / self.tile, (self.y + py) / self.tile

    def cell_index_at(self, px: float, py: float) -> tuple[int, int]:
        cx, cy = self.cell_at(px, py)
        return math.floor(cx), math.floor(cy)

    def to_screen(self, cx: float, cy: float) -> tuple[float, float]:
        """Screen pixel of the centre of cell ``(cx, cy)``."""
        return (cx + 0.5) * self.tile - self.x, (cy + 0.5) * self.tile - self.y

    def visible_cells(self) -> tuple[int, int, int, int]:
        """``(c0, r0, c1, r1)``: the cells on screen (exclusive ends), clipped to the map."""
        c0 = max(0, math.floor(self.x / self.tile))
        r0 = max(0, math.floor(self.y / self.tile))
        c1 = min(self.world_w, math.ceil((self.x + self.view_w) / self.tile))
        r1 = min(self.world_h, math.ceil((self.y + self.view_h) / self.tile))
        return c0, r0, c1, r1
