"""The view onto the map: pan and zoom, screen pixels <-> cells. Pure arithmetic (no pygame)."""

from __future__ import annotations

import math
from dataclasses import dataclass

#: Zoom levels in pixels per cell (whole numbers keep the pixel art crisp).
ZOOMS = (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 14, 16, 20, 24, 32, 40, 48)


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
    #: What "fit" fits: ``(x0, y0, x1, y1)`` cells (the land: sea margins stay small), or None: the map.
    focus: tuple[int, int, int, int] | None = None

    def __post_init__(self) -> None:
        self.tile = max(min(ZOOMS, key=lambda z: abs(z - self.tile)), self.fit_tile())
        self.clamp()

    def resize(self, view_w: int, view_h: int) -> None:
        self.view_w, self.view_h = view_w, view_h
        if self.tile < self.fit_tile():  # zoomed out past the fit of the larger view: fit again
            self.zoom_to_fit()
        self.clamp()

    def set_world(self, world_w: int, world_h: int, preferred: int = 8,
                  focus: tuple[int, int, int, int] | None = None) -> None:  # fmt: skip
        self.world_w, self.world_h, self.focus = world_w, world_h, focus
        self.start_view(preferred)

    def _box(self) -> tuple[int, int, int, int]:
        return self.focus if self.focus is not None else (0, 0, self.world_w, self.world_h)

    def fit_tile(self) -> int:
        """The largest zoom that shows the whole focus (the land, else the map) in the view (at
        least the smallest zoom)."""
        x0, y0, x1, y1 = self._box()
        fitting = [z for z in ZOOMS if z * (x1 - x0) <= self.view_w and z * (y1 - y0) <= self.view_h]
        return fitting[-1] if fitting else ZOOMS[0]

    def start_view(self, preferred: int | None = None) -> None:
        """The whole map, as large as fits the view, centred (every map opens fitted; small
        maps are zoomed in to fill the view). ``preferred`` is kept for old callers."""
        self.zoom_to_fit()

    def zoom_to_fit(self) -> None:
        """Home: the focus (the land, else the whole map), as large as it fits, centred."""
        self.tile = self.fit_tile()
        x0, y0, x1, y1 = self._box()
        self.x = (x0 + x1) / 2 * self.tile - self.view_w / 2
        self.y = (y0 + y1) / 2 * self.tile - self.view_h / 2
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
        """Zoom ``steps`` levels in (+) or out (-), keeping the cell under ``(px, py)`` in place;
        zooming out stops where the whole map shows (never a postage stamp in a void)."""
        i = ZOOMS.index(self.tile)
        new = ZOOMS[min(max(i + steps, ZOOMS.index(self.fit_tile())), len(ZOOMS) - 1)]
        if new == self.tile:
            return
        cx, cy = self.cell_at(px, py)
        self.tile = new
        self.x = cx * new - px
        self.y = cy * new - py
        self.clamp()

    def zoom_to(self, tile: int, px: float | None = None, py: float | None = None) -> None:
        """Zoom to ``tile`` pixels per cell (one of :data:`ZOOMS`, not below the fit), keeping
        the cell under ``(px, py)`` (default: the view's centre) in place."""
        if tile not in ZOOMS:
            raise ValueError(f"tile must be one of {ZOOMS}, got {tile!r}")
        px = self.view_w / 2 if px is None else px
        py = self.view_h / 2 if py is None else py
        self.zoom(ZOOMS.index(tile) - ZOOMS.index(self.tile), px, py)

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
