"""Drawing the world: terrain, animals, paths, the brush.

The terrain is kept as a 1-pixel-per-cell surface; painting re-colours just the
changed cells. What is on screen is that surface's visible part scaled to the zoom,
cached until the camera or the terrain changes, so a still view costs one blit.
"""

from __future__ import annotations

import numpy as np
import pygame

from ..agents import HEADINGS, State
from ..camera import Camera
from ..geometry import CellRect
from ..resources import sprite_path
from ..simulation import Simulation
from ..terrain import Terrain

SEA = (24, 58, 104)  # outside the map


class TerrainLayer:
    """The terrain as a cached surface, re-coloured region by region."""

    def __init__(self, terrain: np.ndarray, colours: dict[Terrain, tuple[int, int, int]]) -> None:
        self.palette = np.zeros((256, 3), dtype=np.float64)
        for t, rgb in colours.items():
            self.palette[int(t)] = rgb
        self.rebuild(terrain)

    def rebuild(self, terrain: np.ndarray) -> None:
        h, w = terrain.shape
        self.base = pygame.Surface((w, h))
        # A fixed per-cell shade (hash of the coordinates) gives the flat colours some texture.
        ys, xs = np.mgrid[0:h, 0:w]
        self.shade = 0.93 + 0.07 * (((xs * 73856093) ^ (ys * 19349663)) % 97 / 96.0)
        self.terrain = terrain
        self.update(CellRect(0, 0, w, h))

    def update(self, rect: CellRect) -> None:
        """Re-colour the cells of ``rect``."""
        x0, y0, x1, y1 = rect
        block = self.terrain[y0:y1, x0:x1]
        rgb = self.palette[block] * self.shade[y0:y1, x0:x1, None]
        patch = pygame.surfarray.make_surface(np.ascontiguousarray(rgb.transpose(1, 0, 2)).astype(np.uint8))
        self.base.blit(patch, (x0, y0))
        self._key = None

    def draw(self, screen: pygame.Surface, cam: Camera) -> None:
        key = (cam.tile, round(cam.x), round(cam.y), cam.view_w, cam.view_h)
        if getattr(self, "_key", None) != key:
            c0, r0, c1, r1 = cam.visible_cells()
            self._view = None
            if c1 > c0 and r1 > r0:
                sub = self.base.subsurface((c0, r0, c1 - c0, r1 - r0))
                self._view = pygame.transform.scale(sub, ((c1 - c0) * cam.tile, (r1 - r0) * cam.tile))
                self._at = (round(c0 * cam.tile - cam.x), round(r0 * cam.tile - cam.y))
            self._key = key
        screen.fill(SEA)
        if self._view is not None:
            screen.blit(self._view, self._at)


class SpriteBank:
    """Each species' sprite scaled to the zoom and pre-rotated to the 8 headings."""

    def __init__(self, keys: list[str]) -> None:
        self.source = {k: pygame.image.load(str(sprite_path(k))).convert_alpha() for k in keys}
        self._cache: dict[tuple[str, int], list[pygame.Surface]] = {}

    def size_for(self, tile: int) -> int:
        """Sprite size in pixels: a bit over a cell, but never tiny or huge."""
        return min(32, max(7, round(tile * 1.75)))

    def get(self, key: str, tile: int) -> list[pygame.Surface]:
        found = self._cache.get((key, tile))
        if found is None:
            size = self.size_for(tile)
            base = pygame.transform.scale(self.source[key], (size, size))
            # Heading k points 45°·k clockwise from east on screen (y grows downward).
            found = [pygame.transform.rotate(base, -45 * k) for k in range(HEADINGS)]
            self._cache[(key, tile)] = found
        return found


class WorldView:
    """Draws the simulation's world through a camera; follows the world's changes by itself."""

    def __init__(self, sim: Simulation, cam: Camera) -> None:
        self.sim = sim
        self.cam = cam
        self.terrain = TerrainLayer(sim.world.terrain, sim.config.terrain_colours())
        self.sprites = SpriteBank([sp.key for sp in sim.species])
        self._revision = sim.world.revision

    def rebuild(self) -> None:
        """After a map swap."""
        self.terrain.rebuild(self.sim.world.terrain)
        self.cam.set_world(self.sim.world.width, self.sim.world.height, self.sim.config.window.tile_px)
        self._revision = self.sim.world.revision

    def sync(self) -> None:
        """Re-colour what changed in the world since the last call (painting, undo, reset...)."""
        world = self.sim.world
        if world.revision == self._revision:
            return
        changes = world.changes_since(self._revision)
        if changes is None or self.terrain.terrain.shape != world.terrain.shape:
            self.rebuild()
            return
        self.terrain.terrain = world.terrain
        for rect in changes:
            self.terrain.update(rect)
        self._revision = world.revision

    def draw_animals(self, screen: pygame.Surface) -> None:
        a = self.sim.agents
        if a.n == 0:
            return
        cam = self.cam
        t = cam.tile
        # Screen centre of each animal; sprites of one size per zoom, so one offset.
        sx = (a.pos[:, 0] + 0.5) * t - cam.x
        sy = (a.pos[:, 1] + 0.5) * t - cam.y
        margin = self.sprites.size_for(t)
        on = (sx > -margin) & (sx < cam.view_w + margin) & (sy > -margin) & (sy < cam.view_h + margin)
        for sp in sorted(self.sim.species, key=lambda sp: sp.kind.layer):  # fliers on top
            idx = np.flatnonzero(on & (a.species == sp.index))
            if idx.size == 0:
                continue
            frames = self.sprites.get(sp.key, t)
            half = [(f.get_width() // 2, f.get_height() // 2) for f in frames]
            xs = sx[idx].astype(np.int64).tolist()
            ys = sy[idx].astype(np.int64).tolist()
            hs = a.heading[idx].tolist()
            screen.fblits([(frames[h], (x - half[h][0], y - half[h][1])) for x, y, h in zip(xs, ys, hs, strict=True)])

    def draw_paths(self, screen: pygame.Surface, only: int | None = None, width: int = 1) -> None:
        a = self.sim.agents
        cam = self.cam
        w = self.sim.world.width
        rows = np.flatnonzero(a.state == State.WALKING) if only is None else np.array([only])
        for i in rows:
            lo, hi = max(0, a.path_pos[i] - 1), a.path_len[i]
            if hi - lo < 1:
                continue
            cells = a.paths[i, lo:hi]
            px = (cells % w + 0.5) * cam.tile - cam.x
            py = (cells // w + 0.5) * cam.tile - cam.y
            pts = [(float(a.pos[i, 0] + 0.5) * cam.tile - cam.x, float(a.pos[i, 1] + 0.5) * cam.tile - cam.y)]
            pts += list(zip(px.tolist(), py.tolist(), strict=True))[1:]
            colour = self.sim.species[a.species[i]].spec.colour
            if len(pts) >= 2:
                pygame.draw.lines(screen, colour, False, pts, width)
            gx, gy = cam.to_screen(*a.goal[i])
            pygame.draw.circle(screen, colour, (gx, gy), max(2, cam.tile // 3), 1)

    def draw_brush(self, screen: pygame.Surface, mouse: tuple[int, int], radius: int, colour) -> None:
        cx, cy = self.cam.cell_index_at(*mouse)
        px, py = self.cam.to_screen(cx, cy)
        r = (radius + 0.5) * self.cam.tile
        pygame.draw.circle(screen, (0, 0, 0), (px, py), r + 1, 2)
        pygame.draw.circle(screen, colour, (px, py), r, 1)
