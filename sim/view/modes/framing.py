"""Framing a query in the map region left of the side column: zoomed so cells can be read, and the
cell a search works on kept in view (the learn view's camera); where on screen the search shows."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pygame

from sim.support.arrays import nonzero_yx
from sim.view.camera import ZOOMS, Camera
from sim.view.layout import Layout

if TYPE_CHECKING:
    from sim.pathfinding import SearchState

Cell = tuple[int, int]


def frame_cells(cam: Camera, lay: Layout, a: Cell, b: Cell, min_tile: int) -> None:
    """Zoom to at least ``min_tile`` px a cell, the most at which cells ``a`` and ``b`` (with two cells
    round them) fit the map region left of the right column; centred on them, or on ``a`` when they
    do not fit even at ``min_tile``."""
    room_w = max(lay.right.x - lay.metrics.margin, lay.size[0] // 2)
    top = lay.messages.bottom
    room_h = lay.map.h - top
    w, h = abs(b[0] - a[0]) + 5, abs(b[1] - a[1]) + 5
    fits = [z for z in ZOOMS if z >= min_tile and z * w <= room_w and z * h <= room_h]
    cam.tile = max(fits[-1] if fits else min_tile, cam.fit_tile())
    cx, cy = ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2) if fits else a
    cam.x = (cx + 0.5) * cam.tile - room_w / 2
    cam.y = (cy + 0.5) * cam.tile - top - room_h / 2
    cam.clamp()


def keep_in_view(cam: Camera, lay: Layout, cell: Cell) -> None:
    """When ``cell`` comes within a cell and a half of the edge of the map region left of the right
    column, pan just enough to bring it two and a half cells in (a long query does not fit at 24 px)."""
    x, y = cam.to_screen(*cell)
    t = cam.tile
    left, right = t * 1.5, lay.right.x - lay.metrics.margin - t * 1.5
    top, bottom = lay.messages.bottom + t * 1.5, lay.map.bottom - t * 1.5
    dx = x - left if x < left else x - right if x > right else 0.0
    dy = y - top if y < top else y - bottom if y > bottom else 0.0
    if dx or dy:
        cam.pan(dx + (t if dx > 0 else -t if dx < 0 else 0), dy + (t if dy > 0 else -t if dy < 0 else 0))


def footprint(cam: Camera, state: SearchState, start: Cell | None, goal: Cell | None) -> pygame.Rect:
    """The screen box of what a search shows: the cells it has touched that are on screen (only those
    are looked at: any map size), its start and its goal (where a panel must not go)."""
    c0, r0, c1, r1 = cam.visible_cells()
    ys, xs = nonzero_yx((state.open | state.closed)[r0:r1, c0:c1])
    cells = [c for c in (start, goal) if c is not None]
    if xs.size:  # (rows in order: the first and the last are the top and the bottom)
        cells += [(c0 + int(xs.min()), r0 + int(ys[0])), (c0 + int(xs.max()), r0 + int(ys[-1]))]
    pts = [cam.to_screen(x, y) for x, y in cells]
    if not pts:
        return pygame.Rect(0, 0, 0, 0)
    half = cam.tile / 2
    left, top = min(x for x, _ in pts) - half, min(y for _, y in pts) - half
    right, bottom = max(x for x, _ in pts) + half, max(y for _, y in pts) + half
    return pygame.Rect(int(left), int(top), int(right - left) + 1, int(bottom - top) + 1)
