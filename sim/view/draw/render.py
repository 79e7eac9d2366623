"""Drawing the world: terrain, animals, paths, the brush.

The terrain is kept as a 1-pixel-per-cell surface; painting re-colours just the
changed cells. What is on screen is that surface's visible part scaled to the zoom,
cached until the camera or the terrain changes, so a still view costs one blit.
"""

from __future__ import annotations

import functools

import numpy as np
import pygame
from numba import njit

from sim.config import Config
from sim.maps.data import MapArt
from sim.model.agents import State
from sim.pathfinding import ChangeCursor
from sim.prepare import rehearsal
from sim.simulation import Simulation
from sim.support.arrays import nonzero_yx
from sim.view.camera import Camera
from sim.view.draw.gait import Gait
from sim.view.draw.landscape import MARGIN, PHASES, landscape
from sim.view.draw.map_art import ArtError, TileArt
from sim.view.draw.path_lines import draw_path_lines, ring_offsets
from sim.view.draw.sprites import SHADOW, TILE_BITS, Pixels, SpriteBank, draw_dots, draw_sprites, render_animals
from sim.world.geometry import CellRect
from sim.world.terrain import Terrain

#: Drawn as dots (draw_dots) once the animals' sprites would cover the screen this many times over.
DENSE_COVER = 2.0

_NO_PIXELS = np.zeros((0, 0), dtype=np.uint32)

SEA = (29, 70, 122)  # outside the map: the landscape's deep water


SHADES = 32  # shade levels per terrain in the 8-bit palette (7 terrains x 32 <= 256 colours)
_ROWS = 256  # rows re-coloured per numpy pass (bounds the temporary memory on big maps)


CHUNK = 256  # the landscape is drawn and cached in squares of this many pixels
_CHUNKS_KEPT = 64  # at most this many cached (16 MB at 32-bit): more than a big window shows
GLINT = (214, 236, 246)  # the light that glints on water


class LandscapeChunks:
    """The landscape (:func:`.landscape.landscape`) of ``terrain`` at each zoom in squares of
    :data:`CHUNK` pixels: each drawn the first time it is shown and kept (the least recently
    used dropped past :data:`_CHUNKS_KEPT`), with each pixel's glint phase beside it; a change
    of cells redraws, in each kept square, only the pixels it can reach."""

    def __init__(self, terrain: np.ndarray, colours: dict[Terrain, tuple[int, int, int]]) -> None:
        self.terrain = terrain  # [y, x], the world's own (painting writes it, :meth:`repair` follows)
        self._colours = np.array([colours[t] for t in Terrain], np.float32)
        self._kept: dict[tuple, tuple[pygame.Surface, np.ndarray]] = {}

    def get(self, tile: int, kx: int, ky: int, screen: pygame.Surface) -> tuple[pygame.Surface, np.ndarray]:
        """Square ``(kx, ky)`` at ``tile`` pixels a cell in the screen's pixel format, and its glints."""
        key = (tile, kx, ky, screen.get_bitsize(), screen.get_shifts())
        found = self._kept.pop(key, None)
        if found is None:
            h, w = self.terrain.shape
            cw, ch = min(CHUNK, w * tile - kx * CHUNK), min(CHUNK, h * tile - ky * CHUNK)
            found = (pygame.Surface((cw, ch), 0, screen), np.zeros((ch, cw), np.uint8))
            self._draw(*found, tile, kx * CHUNK, ky * CHUNK, kx * CHUNK, ky * CHUNK, cw, ch)
            while len(self._kept) >= _CHUNKS_KEPT:
                self._kept.pop(next(iter(self._kept)))  # the least recently used
        self._kept[key] = found  # most recently used last
        return found

    def paint_onto(self, view: pygame.Surface, screen: pygame.Surface, tile: int, area: tuple[int, int, int, int],
                   origin: tuple[int, int]) -> np.ndarray:  # fmt: skip
        """Blit the map pixels ``area`` (``x0, y0, x1, y1``, exclusive ends, on the map) onto ``view``,
        whose top-left pixel is the map's pixel ``origin``; returns their glint phases (uint8 ``[y, x]``)."""
        (x0, y0, x1, y1), (vx, vy) = area, origin
        glint = np.zeros((max(y1 - y0, 0), max(x1 - x0, 0)), np.uint8)
        for ky in range(y0 // CHUNK, (y1 - 1) // CHUNK + 1):
            for kx in range(x0 // CHUNK, (x1 - 1) // CHUNK + 1):
                surf, g = self.get(tile, kx, ky, screen)
                ax0, ay0 = max(x0, kx * CHUNK), max(y0, ky * CHUNK)
                ax1, ay1 = min(x1, kx * CHUNK + g.shape[1]), min(y1, ky * CHUNK + g.shape[0])
                if ax1 > ax0 and ay1 > ay0:
                    view.blit(surf, (ax0 - vx, ay0 - vy), (ax0 - kx * CHUNK, ay0 - ky * CHUNK, ax1 - ax0, ay1 - ay0))
                    glint[ay0 - y0 : ay1 - y0, ax0 - x0 : ax1 - x0] = g[
                        ay0 - ky * CHUNK : ay1 - ky * CHUNK, ax0 - kx * CHUNK : ax1 - kx * CHUNK
                    ]
        return glint

    def repair(self, x0: int, y0: int, x1: int, y1: int) -> None:
        """Cells ``x0 <= x < x1``, ``y0 <= y < y1`` changed: redraw what they reach in every kept
        square (``MARGIN + 1`` cells around them: the pixels :meth:`TerrainLayer._patch` patches too),
        in one :func:`.landscape.landscape` call for all the squares of a zoom and pixel format (a
        call's numpy work costs ~1 ms whatever its size: a dab near a corner of squares cost four)."""
        reach = MARGIN + 1
        parts: dict[tuple, list] = {}  # (tile, pixel format) -> [(surface, glints, its origin, the area in it)]
        for key, (surf, glint) in self._kept.items():
            tile, kx, ky = key[:3]
            ax0, ay0 = max((x0 - reach) * tile, kx * CHUNK), max((y0 - reach) * tile, ky * CHUNK)
            ax1 = min((x1 + reach) * tile, kx * CHUNK + surf.get_width())
            ay1 = min((y1 + reach) * tile, ky * CHUNK + surf.get_height())
            if ax1 > ax0 and ay1 > ay0:
                parts.setdefault((tile, *key[3:]), []).append((surf, glint, kx * CHUNK, ky * CHUNK, ax0, ay0, ax1, ay1))
        for (tile, *_fmt), found in parts.items():
            bx0, by0 = min(f[4] for f in found), min(f[5] for f in found)
            bx1, by1 = max(f[6] for f in found), max(f[7] for f in found)
            pixels, g = self._pixels(found[0][0], tile, bx0, by0, bx1 - bx0, by1 - by0)
            for surf, glint, ox, oy, ax0, ay0, ax1, ay1 in found:
                with Pixels(surf) as out:
                    out[ay0 - oy : ay1 - oy, ax0 - ox : ax1 - ox] = pixels[ay0 - by0 : ay1 - by0, ax0 - bx0 : ax1 - bx0]
                glint[ay0 - oy : ay1 - oy, ax0 - ox : ax1 - ox] = g[ay0 - by0 : ay1 - by0, ax0 - bx0 : ax1 - bx0]

    def _pixels(self, surf: pygame.Surface, tile: int, px0: int, py0: int, pw: int, ph: int) -> tuple:
        """The landscape's pixels ``[px0, px0+pw) x [py0, py0+ph)`` in ``surf``'s format, and their glints."""
        fmt = (surf.get_shifts(), surf.get_losses(), surf.get_masks()[3])
        return landscape(self.terrain, self._colours, tile, px0, py0, pw, ph, fmt)

    def _draw(self, surf: pygame.Surface, glint: np.ndarray, tile: int, ox: int, oy: int,
              px0: int, py0: int, pw: int, ph: int) -> None:  # fmt: skip
        """Draw the landscape's pixels ``[px0, px0+pw) x [py0, py0+ph)`` into a square whose
        top-left pixel is ``(ox, oy)``."""
        pixels, g = self._pixels(surf, tile, px0, py0, pw, ph)
        with Pixels(surf) as out:
            out[py0 - oy : py0 - oy + ph, px0 - ox : px0 - ox + pw] = pixels
        glint[py0 - oy : py0 - oy + ph, px0 - ox : px0 - ox + pw] = g


class TerrainLayer:
    """The terrain as the screen shows it: a landscape (:mod:`.landscape`) when :attr:`art`
    is on, else flat colours (the fallback while the landscape's kernel compiles).

    Flat: an 8-bit palette surface (1 byte a cell); palette entry ``terrain * SHADES + level``
    is the terrain's colour at one of ``SHADES`` shades (a per-cell hash gives texture).
    Landscape: drawn at the zoom in :data:`CHUNK`-pixel squares, cached; a paint stroke
    redraws the part of each cached square it can change. The water's glints cycle through
    :data:`~.landscape.PHASES` steps as :attr:`clock` (seconds) runs: only those pixels
    change, so the animation costs one copy of the view a step (4 a second).
    """

    GLINT_HZ = 4.0

    def __init__(self, terrain: np.ndarray, colours: dict[Terrain, tuple[int, int, int]], art: bool = True) -> None:
        self.colours = colours
        self.look = "landscape" if art else "flat"
        self.clock = 0.0
        self.tiles: TileArt | None = None  # the map's own tiles, built when that look is picked
        self._key: tuple | None = None  # what the view was drawn for (camera, look, version)
        self._glints: list[np.ndarray] = []  # per glint phase, the view's pixels lit (flat indices)
        # Cells changed since the view was drawn ((x0, y0, x1, y1), exclusive ends): the landscape's
        # view is patched there (:meth:`_patch`) instead of drawn whole again after every dab of a drag.
        self._pending: list[tuple[int, int, int, int]] = []
        self.rebuild(terrain)

    @property
    def art(self) -> bool:
        """Whether the landscape is drawn (else flat colours or the map's tiles)."""
        return self.look == "landscape"

    def use_tiles(self, art: MapArt | None, original: np.ndarray) -> str | None:
        """Draw the map's own tiles from now on; returns why not (None when it does)."""
        if art is None:
            return "this map has no tileset image; only Tiled maps with one have their own tiles"
        try:
            self.tiles = TileArt(art, original, self.terrain, {int(t): c for t, c in self.colours.items()})
        except ArtError as exc:
            return str(exc)
        self.look = "tiles"
        self._key = None
        self.version += 1
        return None

    def set_look(self, look: str) -> None:
        """``"landscape"`` or ``"flat"`` (the map's tiles: :meth:`use_tiles`)."""
        if look != self.look:
            self.look = look
            self._key = None
            self.version += 1

    def palette(self) -> list[tuple[int, int, int]]:
        out = [(0, 0, 0)] * 256
        for t, rgb in self.colours.items():
            for level in range(SHADES):
                f = 0.93 + 0.07 * level / (SHADES - 1)
                out[int(t) * SHADES + level] = (int(rgb[0] * f), int(rgb[1] * f), int(rgb[2] * f))
        return out

    version = 0  # changes whenever the picture changes (terrain, colours)

    def set_colours(self, colours: dict[Terrain, tuple[int, int, int]]) -> None:
        self.colours = colours
        self.base.set_palette(self.palette())
        self.chunks = LandscapeChunks(self.terrain, colours)
        self._key = None
        self.version += 1

    def set_art(self, on: bool) -> None:
        """Landscape (True) or flat colours (the start's fallback while the landscape compiles)."""
        self.set_look("landscape" if on else "flat")

    def rebuild(self, terrain: np.ndarray) -> None:
        h, w = terrain.shape
        self.base = pygame.Surface((w, h), depth=8)
        self.base.set_palette(self.palette())
        self.terrain = terrain
        self.chunks = LandscapeChunks(terrain, self.colours)
        self.tiles = None  # a new map, or the whole map replaced: its tiles are built again if wanted
        self.update(CellRect(0, 0, w, h))
        self._key = None  # (drawn whole: the map's size may have changed, and the view beyond it with it)

    def update(self, rect: tuple[int, int, int, int]) -> None:
        """Re-colour the cells of ``rect`` (and, in the landscape, what they blend into)."""
        x0, y0, x1, y1 = rect
        with Pixels(self.base) as pixels:  # [y, x]
            xs = np.arange(x0, x1, dtype=np.int64)[None, :]
            for r0 in range(y0, y1, _ROWS):
                r1 = min(y1, r0 + _ROWS)
                ys = np.arange(r0, r1, dtype=np.int64)[:, None]
                level = (((xs * 73856093) ^ (ys * 19349663)) % 97) * (SHADES - 1) // 96
                pixels[r0:r1, x0:x1] = self.terrain[r0:r1, x0:x1].astype(np.int64) * SHADES + level
        if self.tiles is not None:
            self.tiles.draw_cells(rect, self.terrain)
        self.chunks.repair(x0, y0, x1, y1)
        self._pending.append((x0, y0, x1, y1))  # (the view: patched or drawn again by the next prepare)
        self.version += 1

    def phase(self) -> int:
        return int(self.clock * self.GLINT_HZ) % PHASES

    def put_back_glints(self, screen: pygame.Surface, was: int, now: int) -> np.ndarray:
        """The pixels the water's glints lit at phase ``was`` or ``now`` put back on ``screen`` from
        the view (prepared at ``now``): a quarter of a second's change, ~1,400 pixels where
        repainting the screen is a million; returned as 1 x 1 rectangles ``(x, y, w, h)`` for
        :func:`render_animals` to redraw the sprites over them."""
        lit = np.concatenate((self.lit_at(was), self.lit_at(now)))
        with Pixels(screen) as img, Pixels(self.view) as bg:
            ys, xs = np.divmod(lit, img.shape[1])
            img[ys, xs] = bg[ys, xs]
        ones = np.ones_like(xs)
        return np.stack((xs, ys, ones, ones), axis=1).astype(np.int64)

    def cycle_look(self, art: MapArt | None, original: np.ndarray) -> str:
        """The next look: landscape -> flat colours -> the map's own tiles (when it has a tileset
        image: ``art``, of the map as loaded, ``original``) -> landscape; returns what to tell the user."""
        if self.look == "landscape":
            self.set_look("flat")
        elif self.look == "flat":
            why = self.use_tiles(art, original)
            if why is not None:
                self.set_look("landscape")
                return f"terrain: landscape. No map tiles: {why}"
        else:
            self.set_look("landscape")
        words = {"landscape": "landscape", "flat": "flat colours", "tiles": "the map's own tiles"}
        return f"terrain: {words[self.look]} (T: next look)"

    def lit_at(self, phase: int) -> np.ndarray:
        """The pixels (flat indices into the view, row by row) the water's glints light at ``phase``."""
        return self._glints[phase] if self._glints else np.zeros(0, np.int64)

    def prepare(self, screen: pygame.Surface, cam: Camera) -> tuple:
        """The picture of the terrain for this camera, screen-sized (cached); returns its key."""
        look = self.look if self.look != "tiles" or self.tiles is not None else "landscape"
        art = look == "landscape" and screen.get_bitsize() == 32
        place = (cam.tile, round(cam.x), round(cam.y), cam.view_w, cam.view_h, screen.get_size(),
                 screen.get_bitsize(), look)  # fmt: skip
        key = (*place, self.phase() if art else 0)
        if getattr(self, "_key", None) == key and not self._pending:
            return key
        pending, self._pending = self._pending, []
        same = getattr(self, "_place", None) == place and self._key is not None
        if not same or (pending and not (art and self._patch(pending, screen, cam))):
            c0, r0, c1, r1 = cam.visible_cells()
            # Same pixel format as the screen, so each frame is a plain copy; it also serves
            # as the background that erases last frame's sprites (see WorldView.draw_scene).
            view = _canvas(getattr(self, "still", None), screen)
            view.fill(SEA)
            self._glints = []
            if c1 > c0 and r1 > r0 and art:
                self._compose(view, screen, cam)
            elif c1 > c0 and r1 > r0:
                if look == "tiles" and self.tiles is not None:  # the map's own picture, at its tile size
                    tw, th = self.tiles.art.tile_size
                    sub = self.tiles.picture.subsurface((c0 * tw, r0 * th, (c1 - c0) * tw, (r1 - r0) * th))
                    size = ((c1 - c0) * cam.tile, (r1 - r0) * cam.tile)
                    smaller = cam.tile < min(tw, th)  # shrinking: averaged pixels; growing: crisp ones
                    scaled = (pygame.transform.smoothscale if smaller else pygame.transform.scale)(sub, size)
                else:
                    sub = self.base.subsurface((c0, r0, c1 - c0, r1 - r0))
                    scaled = pygame.transform.scale(sub, ((c1 - c0) * cam.tile, (r1 - r0) * cam.tile))
                view.blit(scaled, (round(c0 * cam.tile - cam.x), round(r0 * cam.tile - cam.y)))
            if self._glints:  # the picture with this phase's glints, kept apart from the still one
                shown = getattr(self, "view", None)
                copy = _canvas(shown if shown is not getattr(self, "still", None) else None, screen)
                copy.blit(view, (0, 0))
                self.view = copy
            else:
                self.view = view
            self.still = view
            self._place = place
        if self._glints:  # the water's glints for this phase, over the still picture
            # Only the phase changed: put back just the last phase's pixels, not the whole picture.
            stale = self._glints[self._key[-1]] if self._key is not None and self._key[:-1] == place else None
            if stale is None:
                self.view.blit(self.still, (0, 0))
            lit = self._glints[key[-1]]
            light = np.uint32(screen.map_rgb(GLINT)) >> np.uint32(1) & np.uint32(0x7F7F7F7F)
            with Pixels(self.view) as px, Pixels(self.still) as still:  # [y, x]; rows may be padded: no flat view
                if stale is not None:
                    ys, xs = np.divmod(stale, px.shape[1])
                    px[ys, xs] = still[ys, xs]
                ys, xs = np.divmod(lit, px.shape[1])
                px[ys, xs] = ((still[ys, xs] >> np.uint32(1)) & np.uint32(0x7F7F7F7F)) + light
        self._key = key
        return key

    def _patch(self, cells: list[tuple[int, int, int, int]], screen: pygame.Surface, cam: Camera) -> bool:
        """Draw the landscape again where ``cells`` changed (as far as a change reaches: the pixels
        :meth:`LandscapeChunks.repair` redrew), in the still picture, its glints and the view, with
        the pixels :meth:`_compose` gives. False when the view had no glints and painting water gave
        it some: the caller draws it whole."""
        tile, (h, w), reach = cam.tile, self.terrain.shape, MARGIN + 1
        vx, vy = round(cam.x), round(cam.y)
        vw, vh = self.still.get_size()
        had = bool(self._glints)
        for x0, y0, x1, y1 in cells:  # each as map pixels on the view (the squares are in map pixels)
            px0, py0 = max((x0 - reach) * tile, vx, 0), max((y0 - reach) * tile, vy, 0)
            px1, py1 = min((x1 + reach) * tile, vx + vw, w * tile), min((y1 + reach) * tile, vy + vh, h * tile)
            if px1 <= px0 or py1 <= py0:
                continue
            rect = pygame.Rect(px0 - vx, py0 - vy, px1 - px0, py1 - py0)
            self.still.fill(SEA, rect)
            glint = self.chunks.paint_onto(self.still, screen, tile, (px0, py0, px1, py1), (vx, vy))
            if not had and glint.any():
                return False
            if had:
                self._glints = _glints_replaced(self._glints, rect, glint, vw)
            if self.view is not self.still:
                self.view.blit(self.still, rect, rect)  # (the glints: lit again by prepare)
        if had and not any(g.size for g in self._glints):
            self._glints = []
        return True

    def _compose(self, view: pygame.Surface, screen: pygame.Surface, cam: Camera) -> None:
        """The landscape's squares under the view, and where its glints are."""
        tile, (h, w) = cam.tile, self.terrain.shape
        vx, vy = round(cam.x), round(cam.y)
        x0, y0 = max(vx, 0), max(vy, 0)
        x1, y1 = min(vx + view.get_width(), w * tile), min(vy + view.get_height(), h * tile)
        glint = np.zeros((view.get_height(), view.get_width()), np.uint8)
        glint[y0 - vy : y1 - vy, x0 - vx : x1 - vx] = self.chunks.paint_onto(view, screen, tile, (x0, y0, x1, y1),
                                                                             (vx, vy))  # fmt: skip
        flat = glint.reshape(-1)
        lit = np.flatnonzero(flat)
        by_phase = flat[lit]
        self._glints = [lit[by_phase == p + 1] for p in range(PHASES)] if lit.size else []

    def draw(self, screen: pygame.Surface, cam: Camera) -> None:
        self.prepare(screen, cam)
        screen.blit(self.view, (0, 0))


def _canvas(old: pygame.Surface | None, screen: pygame.Surface) -> pygame.Surface:
    """A surface of the screen's size and pixel format: ``old`` again when it is one (the view
    drawn whole again, as when the camera moves, would otherwise take 8 MB of new memory each
    time at 1280x800, which the allocator keeps resident), else a new one."""
    if (old is not None and old.get_size() == screen.get_size() and old.get_bitsize() == screen.get_bitsize()
            and old.get_masks() == screen.get_masks()):  # fmt: skip
        return old
    return pygame.Surface(screen.get_size(), 0, screen)


def _glints_replaced(glints: list[np.ndarray], rect: pygame.Rect, glint: np.ndarray, width: int) -> list[np.ndarray]:
    """Each phase's lit pixels (flat indices into a view ``width`` pixels wide, sorted) with those in
    ``rect`` replaced by ``glint``'s (``rect``-sized: 0, or 1 + the phase a pixel glints in)."""
    ys, xs = nonzero_yx(glint)
    lit, phase = (ys + rect.y) * width + xs + rect.x, glint[ys, xs]
    out = []
    for p, old in enumerate(glints):
        oy, ox = np.divmod(old, width)
        keep = (oy < rect.y) | (oy >= rect.bottom) | (ox < rect.x) | (ox >= rect.right)
        out.append(np.sort(np.concatenate((old[keep], lit[phase == p + 1]))))
    return out


def _glint_change(was: tuple | None, now: tuple) -> int | None:
    """The glint phase of :meth:`WorldView.draw_scene`'s key ``was`` when it differs from ``now``
    in that phase alone, else None."""
    if was is None or was[1:] != now[1:] or was[0][:-1] != now[0][:-1] or was[0][-1] == now[0][-1]:
        return None
    return int(was[0][-1])


class Bars:
    """The opaque bars drawn over the scene every frame from its floor down (the readout and the
    status bar), and whether each is on the screen already (:meth:`shown`): a 1280-pixel bar's copy
    is ~12 µs, and its memory pushed out of the caches what the next frame's model used."""

    def __init__(self) -> None:
        #: Rows from here down are the bars' (None: none): the scene draws no sprite there.
        self.floor: int | None = None
        self.frame = 0  # frames begun
        self.kept_frame = -1  # the last frame whose scene wrote nothing from the floor down (WorldView.draw_scene)
        self._shown: dict[str, tuple] = {}  # per bar: (frame, screen, picture, rect) it was last shown at

    def begin_frame(self, floor: int) -> None:
        """A new frame is drawn, its bars from row ``floor`` down."""
        self.frame += 1
        self.floor = floor

    def shown(self, screen: pygame.Surface, name: str, rect: pygame.Rect, picture: pygame.Surface,
              drawn_over: list[pygame.Rect]) -> bool:  # fmt: skip
        """Whether ``picture``, bar ``name`` at ``rect`` (at or below the floor), is on ``screen``
        already: it was shown there last frame, this frame's scene wrote nothing from the floor
        down (no repaint, no glints, no restored rectangle there; sprites stop above it) and
        nothing in ``drawn_over`` (drawn over the scene since) touches ``rect``. The caller then
        skips copying it. Remembers ``picture`` as shown this frame either way."""
        last = self._shown.get(name)
        self._shown[name] = (self.frame, screen, picture, pygame.Rect(rect))
        return (
            last is not None and self.kept_frame == self.frame and last[0] == self.frame - 1
            and last[1] is screen and last[2] is picture and last[3] == rect
            and self.floor is not None and rect.top >= self.floor and rect.collidelist(drawn_over) < 0
        )  # fmt: skip


class WorldView:
    """Draws the simulation's world through a camera; follows the world's changes by itself."""

    def __init__(self, sim: Simulation, cam: Camera, art: bool = True) -> None:
        self.sim = sim
        self.cam = cam
        self.terrain = TerrainLayer(sim.world.terrain, sim.config.terrain_colours(), art)
        self.sprites = SpriteBank([sp.key for sp in sim.species])
        self._cursor = ChangeCursor(sim.world)
        self._cursor.take()  # the terrain was just drawn from the world as it is
        self._background: pygame.Surface | None = None  # terrain alone, for frames that redraw only sprites
        self._background_key: tuple | None = None
        self._last: tuple = ()  # per animal: screen x, y and sprite of last frame, and whether drawn
        self._tiles = np.zeros((0, 0), dtype=np.bool_)  # render_animals' dirty tiles
        self._sheet_key: tuple | None = None
        self._sheet: tuple = ()  # (sprite table, per-species arrays, pixels of the largest sprite) for _sheet_key
        self.gait = Gait()  # which way each animal faces, which frame it shows
        self._order_of: np.ndarray | None = None  # the species column the drawing order was made for
        self._order = np.zeros(0, np.int64)
        self._by_layer = np.zeros(0, np.int64)  # the animals by drawing layer (_drawing_order)
        self._fliers = np.zeros(0, np.int64)
        self.dirty: list[pygame.Rect] = []  # small overlays drawn over the scene this frame
        self.bars = Bars()  # the opaque bars drawn over the scene every frame, below its floor

    def rebuild(self) -> None:
        """After a map swap (or the whole map replaced): the map's own tiles too, if shown."""
        tiles = self.terrain.look == "tiles"
        self.terrain.rebuild(self.sim.world.terrain)
        if tiles and self.terrain.use_tiles(self.sim.map.art, self.sim.world.original) is not None:
            self.terrain.set_look("landscape")  # the new map has none
        self.cam.set_world(self.sim.world.width, self.sim.world.height, self.sim.config.window.tile_px,
                           land_box(self.sim.world.terrain))  # fmt: skip
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

    def _look(self, screen: pygame.Surface) -> tuple:
        """The sprite table at this zoom and what :meth:`_items` needs to index it (cached):
        ``(table, per-species arrays, pixels of the largest sprite)``."""
        tile = self.cam.tile
        species = self.sim.species
        look = (tile, screen.get_bitsize(), screen.get_shifts(), *(sp.key for sp in species))
        if self._sheet_key != look:
            fliers = [sp for sp in species if sp.kind.facts.flight > 0]
            table = self.sprites.table(self._sheet_keys(), tile, screen)
            bases = table[5]
            n = len(species)
            cycles = np.array([self.sprites.cycles(sp.key) for sp in species], np.int64).reshape(n, 2)
            shadow = np.full(n, -1, np.int64)
            lift = np.zeros((n, 2))
            for j, sp in enumerate(fliers):
                shadow[sp.index] = bases[n + j]
                lift[sp.index] = (0.6 * sp.kind.facts.flight, 0.9 * sp.kind.facts.flight)  # sun in the north-west
            per_species = {
                "base": bases[:n].copy(), "moving": cycles[:, 0].copy(), "resting": cycles[:, 1].copy(),
                "glide": shadow >= 0, "shadow": shadow, "lift": lift,
                "layer": np.array([sp.kind.layer for sp in species], np.int64),
            }  # fmt: skip
            per_sprite = max(self.sprites.pixels(sp.key, tile, screen) for sp in species)
            self._sheet = (table, per_species, per_sprite)
            self._sheet_key = look
        return self._sheet

    def _items(self, per: dict) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """This frame's sprites: map points x, y (cells), sprite indices, and the drawing
        order (fliers' shadows first, then species by layer). Animals first in the arrays'
        tail, shadows in the head, so every item keeps its index while the crowd is the same."""
        a = self.sim.agents
        frame = self.gait.frames(a.pos, a.heading, a.state, a.species, self.sim.time, per["moving"], per["resting"],
                                 per["glide"])  # fmt: skip
        species = a.species
        ks = per["base"][species] + frame
        self._drawing_order(per)
        f = self._fliers
        if f.size == 0:
            return a.pos[:, 0], a.pos[:, 1], ks, self._order
        px, py, items = _with_shadows(a.pos, species, f, frame, ks, per["shadow"], per["lift"])
        return px, py, items, self._order

    def _drawing_order(self, per: dict) -> None:
        """Keep the drawing order for the crowd as it is (made again when animals come, go or
        change species): :attr:`_by_layer`, the animals by layer (stable), what the dots take;
        :attr:`_fliers` and :attr:`_order`, the sprites' (the fliers' shadows first)."""
        species = self.sim.agents.species
        if self._order_of is not None and self._order_of.tobytes() == species.tobytes():  # (array_equal: 13x slower)
            return
        self._order_of = species.copy()
        self._by_layer = np.argsort(per["layer"][species], kind="stable").astype(np.int64)
        self._fliers = np.flatnonzero(per["shadow"][species] >= 0)
        m = self._fliers.size
        self._order = np.concatenate((np.arange(m), m + self._by_layer)).astype(np.int64)

    def draw_scene(self, screen: pygame.Surface, plain: bool) -> None:
        """Terrain and animals. ``plain``: nothing else that moves is drawn over them but the
        rectangles marked in :attr:`dirty` (brush, status line), so when few animals are on
        screen a frame only restores the terrain under last frame's sprites and draws the new
        ones; anything else (camera, terrain, a panel, many animals) repaints the whole screen."""
        self.sync()
        key = (self.terrain.prepare(screen, self.cam), self.terrain.version, screen.get_size())
        if screen.get_bitsize() != 32:
            self.terrain.draw(screen, self.cam)
            self.draw_animals(screen)
            return
        (runs, colours, starts, box, reach, _), per, per_sprite = self._look(screen)
        if _dense(self.sim.agents.pos, self.cam, screen, per_sprite):
            self.terrain.draw(screen, self.cam)
            self._background, self._last, self.dirty = None, (), []
            self._draw_dots(screen, per)
            return
        px, py, ks, order = self._items(per)
        n = ks.size
        cheap = 4 * n * per_sprite < screen.get_width() * screen.get_height() // 2
        known = bool(self._last) and self._last[0].size == n  # last frame's sprites, item by item
        background = self._background
        kept = plain and cheap and known and background is not None
        erase = kept and self._background_key == key
        untouched = erase  # (so far: nothing but sprites and restored rectangles is drawn this frame)
        lowest = 0  # the lowest row + 1 of the restored rectangles
        glints_were = _glint_change(self._background_key, key) if kept and not erase else None
        cleared = np.zeros((len(self.dirty), 4), dtype=np.int64)
        if erase or glints_were is not None:
            assert background is not None  # (kept says so)
            for j, rect in enumerate(self.dirty):
                screen.blit(background, rect, rect)
                put_back = rect.clip(screen.get_rect())
                cleared[j] = tuple(put_back)
                lowest = max(lowest, put_back.bottom)
            if glints_were is not None:  # only the water's glints changed: their pixels, not the whole screen
                cleared = np.concatenate((cleared, self.terrain.put_back_glints(screen, glints_were, key[0][-1])))
                self._background_key, erase = key, True
        else:
            self.terrain.draw(screen, self.cam)
            self._background = self.terrain.view if plain and cheap else None  # the same pixels, not a copy
            self._background_key = key
        self.dirty = []
        if not known:
            self._last = (np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(n, np.bool_))
        h = screen.get_height()
        floor = h if self.bars.floor is None else max(0, min(h, self.bars.floor))  # (none drawn under the bars)
        if untouched and lowest <= floor:
            self.bars.kept_frame = self.bars.frame  # their rows hold what the last frame left there
        self._sprites(screen, background if erase else None, floor, (px, py, ks, order), (runs, colours, starts, box,
                      reach), cleared)  # fmt: skip

    def _sprites(self, screen: pygame.Surface, background: pygame.Surface | None, floor: int, items: tuple,
                 table: tuple, cleared: np.ndarray) -> None:  # fmt: skip
        """:func:`render_animals` on the screen's rows above ``floor``: only what changed over the
        last frame's picture where ``background`` (the terrain alone) is given, else everything."""
        tiles_shape = ((floor >> TILE_BITS) + 1, (screen.get_width() >> TILE_BITS) + 1)
        if self._tiles.shape != tiles_shape:
            self._tiles = np.zeros(tiles_shape, dtype=np.bool_)
        cam = self.cam
        with Pixels(screen) as img:
            if background is not None:
                with Pixels(background) as bg:
                    render_animals(img[:floor], bg[:floor], *items, cam.x, cam.y, cam.tile, *table, *self._last,
                                   cleared, self._tiles)  # fmt: skip
            else:
                render_animals(img[:floor], _NO_PIXELS, *items, cam.x, cam.y, cam.tile, *table, *self._last, cleared,
                               self._tiles)  # fmt: skip

    def _draw_dots(self, screen: pygame.Surface, per: dict) -> None:
        a = self.sim.agents
        self._drawing_order(per)
        colours = np.array([screen.map_rgb(sp.spec.colour) for sp in self.sim.species], np.uint32)
        shade = np.uint32(screen.map_rgb((18, 20, 22)))
        size = max(2, min(self.cam.tile // 2, 6))
        with Pixels(screen) as img:
            draw_dots(img, a.pos, a.species, self._by_layer, colours, shade, self.cam.x, self.cam.y, self.cam.tile,
                      size)  # fmt: skip

    def invalidate(self) -> None:
        """Something else was drawn over the scene: the next :meth:`draw_scene` repaints it all."""
        self._background = None

    def draw_animals(self, screen: pygame.Surface) -> None:
        """Every animal on screen (and fliers' shadows), by species layer (fliers on top)."""
        (runs, colours, starts, box, reach, _), per, _ = self._look(screen)
        px, py, ks, order = self._items(per)
        t, cam = self.cam.tile, self.cam
        xs = ((px[order] + 0.5) * t - cam.x).astype(np.int64)
        ys = ((py[order] + 0.5) * t - cam.y).astype(np.int64)
        ks = ks[order]
        on = (xs > -reach) & (xs < cam.view_w + reach) & (ys > -reach) & (ys < cam.view_h + reach)
        xs, ys, ks = xs[on], ys[on], ks[on]
        if screen.get_bitsize() == 32:
            with Pixels(screen) as img:
                draw_sprites(img, xs, ys, ks, runs, colours, starts, reach)
            return
        surfaces = np.empty(len(box), dtype=object)
        surfaces[:] = self.sprites.surfaces(self._sheet_keys(), t, screen)
        corners = [(x - s.get_width() // 2, y - s.get_height() // 2)
                   for x, y, s in zip(xs.tolist(), ys.tolist(), surfaces[ks], strict=True)]  # fmt: skip
        screen.fblits(zip(surfaces[ks], corners, strict=True))

    def _sheet_keys(self) -> list[str]:
        species = self.sim.species
        return [sp.key for sp in species] + [sp.key + SHADOW for sp in species if sp.kind.facts.flight > 0]

    def draw_paths(self, screen: pygame.Surface, only: int | None = None, width: int = 1) -> None:
        """The paths still to walk, each from its animal through its cells to a ring at its goal:
        every walking animal's (P) in one compiled pass, or animal ``only``'s ``width`` pixels wide."""
        a = self.sim.agents
        cam = self.cam
        w = self.sim.world.width
        rows = np.flatnonzero(a.state == State.WALKING) if only is None else np.array([only])
        if only is None and width == 1 and screen.get_bitsize() == 32:
            colours = np.array([screen.map_rgb(sp.spec.colour) for sp in self.sim.species], np.uint32)
            with Pixels(screen) as img:
                draw_path_lines(img, rows, a.paths, a.path_pos, a.path_len, a.pos, a.goal, a.species, colours, w,
                                int(cam.tile), float(cam.x), float(cam.y), _ring(max(2, cam.tile // 3)))  # fmt: skip
            return
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


@functools.lru_cache(maxsize=8)
def _ring(radius: int) -> np.ndarray:
    """A goal's ring in the paths view: its pixels, made once a radius."""
    return ring_offsets(radius)


def _dense(pos: np.ndarray, cam: Camera, screen: pygame.Surface, per_sprite: int) -> bool:
    """Whether the animals at ``pos`` on screen are so many that their sprites would cover it over
    :data:`DENSE_COVER` times: they are then drawn as dots (:func:`draw_dots`), a crowd of
    100,000 in a few ms where sprites took tens."""
    n = pos.shape[0]
    area = screen.get_width() * screen.get_height()
    if n * per_sprite <= DENSE_COVER * area:
        return False
    c0, r0, c1, r1 = cam.visible_cells()
    if c0 == 0 and r0 == 0 and (c1, r1) == (cam.world_w, cam.world_h):
        shown = n  # the whole map on screen (every point is within its cells' half-cell margin)
    else:
        x, y = pos[:, 0], pos[:, 1]
        shown = int(np.count_nonzero((x >= c0 - 1) & (x < c1) & (y >= r0 - 1) & (y < r1)))
    return shown * per_sprite > DENSE_COVER * area


def rehearse_view(config: Config, screen: pygame.Surface, art: bool = True) -> None:
    """Draw a tiny island a few times off screen (in ``screen``'s pixel format), with a paint
    stroke between: numba loads (or, on a first run, compiles) every compiled function the
    drawing uses, so the first real frame does not stall on it (the landscape's only with
    ``art``: a window's first start compiles that in another process). The model is not stepped:
    its kernels are :mod:`sim.prepare`'s business."""
    sim = rehearsal(config)
    if sim is None:
        return  # a species that can stand nowhere: the real map will say so
    view = WorldView(sim, Camera(48, 84, sim.world.width, sim.world.height, tile=4), art)
    surface = pygame.Surface((48, 84), 0, screen)
    for frame in range(3):
        if frame == 1:  # a cell changed as a stroke changes it, but not by the brush: its kernels (and the
            sim.world.terrain[4, 5] = int(Terrain.ROCK)  # regions') are the model's, compiled beside this
            sim.world.changed(CellRect(5, 4, 6, 5))
        view.draw_scene(surface, True)  # the first draws everything, the next only what changed


def land_box(terrain: np.ndarray, margin: int = 2) -> tuple[int, int, int, int] | None:
    """The cells ``(x0, y0, x1, y1)`` that hold every cell that is not water, grown by ``margin`` and
    kept in the map (None when the map is all water, or all land: fit the whole of it)."""
    land = terrain != int(Terrain.WATER)
    if not land.any() or land.all():
        return None
    ys, xs = np.nonzero(land)
    h, w = terrain.shape
    return (max(0, int(xs.min()) - margin), max(0, int(ys.min()) - margin),
            min(w, int(xs.max()) + 1 + margin), min(h, int(ys.max()) + 1 + margin))  # fmt: skip


@njit(cache=True, nogil=True)
def _with_shadows(pos, species, fliers, frame, ks, shadow, lift):
    """The frame's items with the fliers' shadows first: map x and y (cells) and sprite indices,
    shadow ``j`` under flier ``fliers[j]`` (its species' ``shadow`` sprite at its frame, offset by
    ``lift``), then every animal (in one pass: the numpy version took ~30 µs a frame at 500)."""
    m, n = fliers.size, ks.size
    px = np.empty(m + n)
    py = np.empty(m + n)
    items = np.empty(m + n, np.int64)
    for j in range(m):
        i = fliers[j]
        s = species[i]
        px[j] = pos[i, 0] + lift[s, 0]
        py[j] = pos[i, 1] + lift[s, 1]
        items[j] = shadow[s] + frame[i]
    for i in range(n):
        px[m + i] = pos[i, 0]
        py[m + i] = pos[i, 1]
        items[m + i] = ks[i]
    return px, py, items
