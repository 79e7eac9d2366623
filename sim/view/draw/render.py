"""Drawing the world: terrain, animals, paths, the brush.

The terrain is kept as a 1-pixel-per-cell surface; painting re-colours just the
changed cells. What is on screen is that surface's visible part scaled to the zoom,
cached until the camera or the terrain changes, so a still view costs one blit.
"""

from __future__ import annotations

import numpy as np
import pygame

from sim.config import Config
from sim.model.agents import State
from sim.pathfinding import ChangeCursor
from sim.prepare import rehearsal
from sim.simulation import Simulation
from sim.view.camera import Camera
from sim.view.draw.sprites import TILE_BITS, Pixels, SpriteBank, render_animals
from sim.world.geometry import CellRect
from sim.world.terrain import Terrain

_NO_PIXELS = np.zeros((0, 0), dtype=np.uint32)

SEA = (24, 58, 104)  # outside the map


SHADES = 32  # shade levels per terrain in the 8-bit palette (7 terrains x 32 <= 256 colours)
_ROWS = 256  # rows re-coloured per numpy pass (bounds the temporary memory on big maps)


class TerrainLayer:
    """The terrain as an 8-bit palette surface (1 byte a cell), re-coloured region by region.

    Palette entry ``terrain * SHADES + level`` is the terrain's colour at one of
    ``SHADES`` shades; a fixed per-cell shade (a hash of the coordinates) gives the flat
    colours some texture. Changing the colours only changes the palette.
    """

    def __init__(self, terrain: np.ndarray, colours: dict[Terrain, tuple[int, int, int]]) -> None:
        self.colours = colours
        self.rebuild(terrain)

    def palette(self) -> list[tuple[int, int, int]]:
        out = [(0, 0, 0)] * 256
        for t, rgb in self.colours.items():
            for level in range(SHADES):
                f = 0.93 + 0.07 * level / (SHADES - 1)
                out[int(t) * SHADES + level] = tuple(int(c * f) for c in rgb)
        return out

    version = 0  # changes whenever the picture changes (terrain, colours)

    def set_colours(self, colours: dict[Terrain, tuple[int, int, int]]) -> None:
        self.colours = colours
        self.base.set_palette(self.palette())
        self._key = None
        self.version += 1

    def rebuild(self, terrain: np.ndarray) -> None:
        h, w = terrain.shape
        self.base = pygame.Surface((w, h), depth=8)
        self.base.set_palette(self.palette())
        self.terrain = terrain
        self.update(CellRect(0, 0, w, h))

    def update(self, rect: CellRect) -> None:
        """Re-colour the cells of ``rect``."""
        x0, y0, x1, y1 = rect
        with Pixels(self.base) as pixels:  # [y, x]
            xs = np.arange(x0, x1, dtype=np.int64)[None, :]
            for r0 in range(y0, y1, _ROWS):
                r1 = min(y1, r0 + _ROWS)
                ys = np.arange(r0, r1, dtype=np.int64)[:, None]
                level = (((xs * 73856093) ^ (ys * 19349663)) % 97) * (SHADES - 1) // 96
                pixels[r0:r1, x0:x1] = self.terrain[r0:r1, x0:x1].astype(np.int64) * SHADES + level
        self._key = None
        self.version += 1

    def prepare(self, screen: pygame.Surface, cam: Camera) -> tuple:
        """The picture of the terrain for this camera, screen-sized (cached); returns its key."""
        key = (cam.tile, round(cam.x), round(cam.y), cam.view_w, cam.view_h, screen.get_size(), screen.get_bitsize())
        if getattr(self, "_key", None) != key:
            c0, r0, c1, r1 = cam.visible_cells()
            # Same pixel format as the screen, so each frame is a plain copy; it also serves
            # as the background that erases last frame's sprites (see WorldView.draw_scene).
            view = pygame.Surface(screen.get_size(), 0, screen)
            view.fill(SEA)
            if c1 > c0 and r1 > r0:
                sub = self.base.subsurface((c0, r0, c1 - c0, r1 - r0))
                scaled = pygame.transform.scale(sub, ((c1 - c0) * cam.tile, (r1 - r0) * cam.tile))
                view.blit(scaled, (round(c0 * cam.tile - cam.x), round(r0 * cam.tile - cam.y)))
            self.view = view
            self._key = key
        return key

    def draw(self, screen: pygame.Surface, cam: Camera) -> None:
        self.prepare(screen, cam)
        screen.blit(self.view, (0, 0))


class WorldView:
    """Draws the simulation's world through a camera; follows the world's changes by itself."""

    def __init__(self, sim: Simulation, cam: Camera) -> None:
        self.sim = sim
        self.cam = cam
        self.terrain = TerrainLayer(sim.world.terrain, sim.config.terrain_colours())
        self.sprites = SpriteBank([sp.key for sp in sim.species])
        self._cursor = ChangeCursor(sim.world)
        self._cursor.take()  # the terrain was just drawn from the world as it is
        self._background: pygame.Surface | None = None  # terrain alone, for frames that redraw only sprites
        self._background_key: tuple | None = None
        self._last: tuple = ()  # per animal: screen x, y and sprite of last frame, and whether drawn
        self._tiles = np.zeros((0, 0), dtype=np.bool_)  # render_animals' dirty tiles
        self._sheet_key: tuple | None = None
        self._sheet: tuple = ()  # (sprite table, layers, pixels of the largest sprite) for _sheet_key
        self.dirty: list[pygame.Rect] = []  # small overlays drawn over the scene this frame

    def rebuild(self) -> None:
        """After a map swap."""
        self.terrain.rebuild(self.sim.world.terrain)
        self.cam.set_world(self.sim.world.width, self.sim.world.height, self.sim.config.window.tile_px)
        self._cursor = ChangeCursor(self.sim.world)  # the world may be a new one
        self._cursor.take()

    def sync(self) -> None:
        """Re-colour what changed in the world since the last call (painting, undo, reset...)."""
        world = self.sim.world
        changes = self._cursor.take()
        if changes == []:
            return
        if changes is None or self.terrain.terrain.shape != world.terrain.shape:
            self.rebuild()
            return
        self.terrain.terrain = world.terrain
        for rect in changes:
            self.terrain.update(rect)

    def draw_scene(self, screen: pygame.Surface, plain: bool) -> None:
        """Terrain and animals. ``plain``: nothing else that moves is drawn over them but the
        rectangles marked in :attr:`dirty` (brush, status line), so when few animals are on
        screen a frame only restores the terrain under last frame's sprites and draws the new
        ones; anything else (camera, terrain, a panel, many animals) repaints the whole screen."""
        self.sync()
        a = self.sim.agents
        key = (self.terrain.prepare(screen, self.cam), self.terrain.version, screen.get_size())
        if screen.get_bitsize() != 32:
            self.terrain.draw(screen, self.cam)
            self.draw_animals(screen)
            return
        tile = self.cam.tile
        species = self.sim.species
        look = (tile, screen.get_bitsize(), screen.get_shifts(), *(sp.key for sp in species))
        if self._sheet_key != look:  # the sprite table, the layers and the cost of a sprite, per zoom
            per_sprite = max(self.sprites.pixels(sp.key, tile, screen) for sp in species)
            layers = np.array([sp.index for sp in sorted(species, key=lambda sp: sp.kind.layer)], np.int64)
            self._sheet = (self.sprites.table([sp.key for sp in species], tile, screen), layers, per_sprite)
            self._sheet_key = look
        (runs, colours, starts, box, reach), layers, per_sprite = self._sheet
        cheap = 4 * a.n * per_sprite < screen.get_width() * screen.get_height() // 2
        known = bool(self._last) and self._last[0].size == a.n  # last frame's sprites, animal by animal
        erase = plain and cheap and known and self._background is not None and self._background_key == key
        cleared = np.zeros((len(self.dirty), 4), dtype=np.int64)
        if erase:
            for j, rect in enumerate(self.dirty):
                screen.blit(self._background, rect, rect)
                cleared[j] = rect.clip(screen.get_rect())
        else:
            self.terrain.draw(screen, self.cam)
            self._background = self.terrain.view if plain and cheap else None  # the same pixels, not a copy
            self._background_key = key
        self.dirty = []
        if not known:
            self._last = (np.zeros(a.n, np.int64), np.zeros(a.n, np.int64), np.zeros(a.n, np.int64),
                          np.zeros(a.n, np.bool_))  # fmt: skip
        w, h = screen.get_size()
        tiles_shape = ((h >> TILE_BITS) + 1, (w >> TILE_BITS) + 1)
        if self._tiles.shape != tiles_shape:
            self._tiles = np.zeros(tiles_shape, dtype=np.bool_)
        with Pixels(screen) as img:
            if erase:
                with Pixels(self._background) as bg:
                    render_animals(img, bg, a.pos, a.species, a.heading, layers, self.cam.x, self.cam.y, tile, runs,
                                   colours, starts, box, reach, *self._last, cleared, self._tiles)  # fmt: skip
            else:
                render_animals(img, _NO_PIXELS, a.pos, a.species, a.heading, layers, self.cam.x, self.cam.y, tile,
                               runs, colours, starts, box, reach, *self._last, cleared, self._tiles)  # fmt: skip

    def invalidate(self) -> None:
        """Something else was drawn over the scene: the next :meth:`draw_scene` repaints it all."""
        self._background = None

    def draw_animals(self, screen: pygame.Surface) -> None:
        """Every animal on screen, by species layer (fliers on top)."""
        self.sprites.draw_all(screen, self.cam.tile, [(sp.key, *g) for sp, g in self._visible()])

    def _visible(self) -> list:
        """Per species (in layer order): screen centres and headings of the animals on screen."""
        a = self.sim.agents
        if a.n == 0:
            return []
        cam = self.cam
        t = cam.tile
        # Screen centre of each animal; sprites of one size per zoom, so one margin.
        sx = ((a.pos[:, 0] + 0.5) * t - cam.x).astype(np.int64)
        sy = ((a.pos[:, 1] + 0.5) * t - cam.y).astype(np.int64)
        margin = self.sprites.size_for(t)
        on = (sx > -margin) & (sx < cam.view_w + margin) & (sy > -margin) & (sy < cam.view_h + margin)
        out = []
        for sp in sorted(self.sim.species, key=lambda sp: sp.kind.layer):
            idx = np.flatnonzero(on & (a.species == sp.index))
            if idx.size:
                out.append((sp, (sx[idx], sy[idx], a.heading[idx].astype(np.int64))))
        return out

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
        rect = pygame.draw.circle(screen, (0, 0, 0), (px, py), r + 1, 2)
        pygame.draw.circle(screen, colour, (px, py), r, 1)
        self.dirty.append(rect)


def rehearse_view(config: Config, screen: pygame.Surface) -> None:
    """Draw a tiny island a few times off screen (in ``screen``'s pixel format), with a paint
    stroke between: numba loads (or, on a first run, compiles) every compiled function the
    drawing uses, so the first real frame does not stall on it. The model is not stepped:
    its kernels are :mod:`sim.prepare`'s business."""
    sim = rehearsal(config)
    if sim is None:
        return  # a species that can stand nowhere: the real map will say so
    view = WorldView(sim, Camera(48, 84, sim.world.width, sim.world.height, tile=4))
    surface = pygame.Surface((48, 84), 0, screen)
    for frame in range(3):
        if frame == 1:
            sim.paint(5, 4, 0, int(Terrain.ROCK))
        view.draw_scene(surface, True)  # the first draws everything, the next only what changed
