"""The minimap: the whole map small in a corner, the view's outline on it; a click there jumps.

Shown for maps larger than the view (O toggles it). The picture is the terrain sampled
down to at most ``SIZE`` pixels a side with the terrain colours, rebuilt only when the
map changed (a sampled 2048² map is a 180² array: a fraction of a millisecond).
"""

from __future__ import annotations

import numpy as np
import pygame

from sim.view.camera import Camera
from sim.view.draw.panels import INK, PANEL
from sim.world.terrain import Terrain

SIZE = 180  # pixels of the minimap's longer side at most
MARGIN = 8


class Minimap:
    """The minimap of one world view; :meth:`draw` returns the rectangle it covered."""

    def __init__(self) -> None:
        self.enabled = True  # O; it shows only while the map is larger than the view
        self._key: tuple | None = None
        self._picture: pygame.Surface | None = None
        self.rect: pygame.Rect | None = None  # where it was drawn last (None: not shown)
        self._step = 1

    def wanted(self, cam: Camera) -> bool:
        return self.enabled and (cam.world_w * cam.tile > cam.view_w or cam.world_h * cam.tile > cam.view_h)

    def draw(self, surface: pygame.Surface, cam: Camera, terrain: np.ndarray, revision: int,
             colours: dict[Terrain, tuple[int, int, int]], room: pygame.Rect) -> pygame.Rect | None:  # fmt: skip
        """Draw it at the bottom right of ``room`` (what is left of the layout's right column);
        returns the rectangle it covered (None: not wanted, or no room)."""
        if not self.wanted(cam):
            self.rect = None
            return None
        key = (id(terrain), revision, terrain.shape, tuple(sorted(colours.items())))
        if key != self._key or self._picture is None:
            self._picture = self._render(terrain, colours)
            self._key = key
        pic = self._picture
        if pic.get_width() + 4 > room.w or pic.get_height() + 4 > room.h:
            self.rect = None
            return None
        self.rect = pic.get_rect(bottomright=(room.right - 2, room.bottom - 2))
        frame = self.rect.inflate(4, 4)
        surface.fill(PANEL[:3], frame)
        surface.blit(pic, self.rect)
        s = self._step
        c0, r0, c1, r1 = cam.visible_cells()
        view = pygame.Rect(self.rect.x + c0 // s, self.rect.y + r0 // s, max(2, (c1 - c0) // s), max(2, (r1 - r0) // s))
        pygame.draw.rect(surface, INK, view.clip(self.rect.inflate(2, 2)), 1)
        return frame

    def _render(self, terrain: np.ndarray, colours: dict[Terrain, tuple[int, int, int]]) -> pygame.Surface:
        h, w = terrain.shape
        self._step = s = max(1, -(-max(w, h) // SIZE))
        lut = np.zeros((256, 3), dtype=np.uint8)
        for t, rgb in colours.items():
            lut[int(t)] = rgb
        small = lut[terrain[::s, ::s]]  # [y, x, rgb]
        return pygame.surfarray.make_surface(np.ascontiguousarray(small.transpose(1, 0, 2)))

    def jump(self, cam: Camera, pos: tuple[int, int]) -> bool:
        """A click on the minimap centres the view there; False when ``pos`` is not on it."""
        if self.rect is None or not self.rect.collidepoint(pos):
            return False
        cx = (pos[0] - self.rect.x + 0.5) * self._step
        cy = (pos[1] - self.rect.y + 0.5) * self._step
        cam.x = cx * cam.tile - cam.view_w / 2
        cam.y = cy * cam.tile - cam.view_h / 2
        cam.clamp()
        return True
