"""Animal sprites drawn straight into the screen's pixels: one compiled call a frame, no Python per animal.

Each sprite (a species at one zoom, pre-rotated to the 8 headings) is kept as the runs
of its opaque pixels along rows: offsets from the centre and colours already in the
screen's pixel format. Drawing an animal is then a few row copies (clipped only near the
screen's edge): 20,000 animals cost ~4 ms where SDL blits cost ~13 ms (measured at
14 px sprites). The sprites are pixel art with on/off transparency, scaled by nearest
neighbour, so nothing needs blending. Screens that are not 32-bit use SDL's ``fblits``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pygame
from numba import njit

from sim.model.agents import HEADINGS
from sim.support.resources import sprite_path
from sim.world.fauna import FAUNA


class Pixels:
    """A surface's pixels as a writable numpy array indexed ``[y, x]`` (uint32 for 32-bit
    surfaces), without copying; the surface stays locked inside the ``with`` block.

    ``surface.get_buffer()`` costs ~2.5 µs where ``surfarray.pixels2d`` costs ~50 µs.
    """

    def __init__(self, surface: pygame.Surface) -> None:
        self.surface = surface

    def __enter__(self) -> np.ndarray:
        s = self.surface
        self._buffer = s.get_buffer()
        dtype = {8: np.uint8, 32: np.uint32}[s.get_bytesize() * 8]
        rows = np.frombuffer(self._buffer, dtype=dtype).reshape(s.get_height(), -1)
        return rows[:, : s.get_width()]

    def __exit__(self, *exc: object) -> None:
        del self._buffer


# A sprite table (every species at one zoom, sprite ``k = species * 8 + heading``):
#   runs[r] = (dy, dx, n, c): n opaque pixels in a row, the first at (dx, dy) from the
#             centre, coloured colours[c : c + n]; sprite k's runs are starts[k] .. starts[k+1]
#   box[k]  = (y0, y1, x0, x1): the rectangle holding its pixels, relative to the centre
# Rows of pixels are copied as runs because scattered single-pixel stores measured ~1.5x
# slower, and a sprite is put back to the background as its box (a few more pixels, but
# whole row slices) because that measured ~1.6x faster than pixel by pixel.
_DY, _DX, _N, _C = 0, 1, 2, 3


@njit(cache=True, nogil=True, inline="always")
def _stamp(img, x, y, k, runs, colours, starts, reach):
    """Sprite ``k``'s pixels centred at ``(x, y)``; clipped only near the edge of ``img``."""
    h, w = img.shape
    inside = x >= reach and y >= reach and x < w - reach and y < h - reach
    for r in range(starts[k], starts[k + 1]):
        py = y + runs[r, _DY]
        px = x + runs[r, _DX]
        c = runs[r, _C]
        if inside:
            for q in range(runs[r, _N]):
                img[py, px + q] = colours[c + q]
        elif 0 <= py < h:
            for q in range(runs[r, _N]):
                if 0 <= px + q < w:
                    img[py, px + q] = colours[c + q]


@njit(cache=True, nogil=True)
def draw_sprites(img, xs, ys, ks, runs, colours, starts, reach):
    """Write sprite ``ks[i]`` centred at ``(xs[i], ys[i])`` into ``img`` (``[y, x]``, uint32)."""
    for i in range(xs.size):
        _stamp(img, xs[i], ys[i], ks[i], runs, colours, starts, reach)


TILE_BITS = 4  # the dirty-tile grid of render_animals: 16 x 16 pixel tiles


@njit(cache=True, nogil=True, inline="always")
def _tile_span(lo, hi, size):
    """The tiles covering pixels ``lo .. hi-1`` clipped to ``0 .. size-1`` (empty: first > last)."""
    return max(lo, 0) >> TILE_BITS, (min(hi, size) - 1) >> TILE_BITS


@njit(cache=True, nogil=True)
def _claim(tiles, x0, y0, x1, y1, w, h, always):
    """Whether the pixel rectangle ``[x0, x1) x [y0, y1)`` must be drawn: ``always``, or a
    marked tile lies under it. If so its tiles are marked (what overlaps it later is drawn too)."""
    tx0, tx1 = _tile_span(x0, x1, w)
    ty0, ty1 = _tile_span(y0, y1, h)
    hit = always
    for ty in range(ty0, ty1 + 1):
        for tx in range(tx0, tx1 + 1):
            hit = hit or tiles[ty, tx]
    if hit:
        for ty in range(ty0, ty1 + 1):
            for tx in range(tx0, tx1 + 1):
                tiles[ty, tx] = True
    return hit


@njit(cache=True, nogil=True)
def _put_back(img, background, xs, ys, ks, on, last_x, last_y, last_k, last_on, box, cleared, tiles):
    """The background back over the box of every sprite that moved, turned or left since last
    frame; those boxes and the rectangles ``cleared`` become the frame's first dirty tiles."""
    h, w = img.shape
    tiles[:, :] = False
    for r in range(cleared.shape[0]):
        cx, cy = cleared[r, 0], cleared[r, 1]
        _claim(tiles, cx, cy, cx + cleared[r, 2], cy + cleared[r, 3], w, h, True)
    for i in range(xs.size):
        if not last_on[i] or (on[i] and xs[i] == last_x[i] and ys[i] == last_y[i] and ks[i] == last_k[i]):
            continue
        x, y, k = last_x[i], last_y[i], last_k[i]
        x0, x1 = max(0, x + box[k, 2]), min(w, x + box[k, 3])
        y0, y1 = max(0, y + box[k, 0]), min(h, y + box[k, 1])
        for py in range(y0, y1):
            for px in range(x0, x1):
                img[py, px] = background[py, px]
        _claim(tiles, x0, y0, x1, y1, w, h, True)


@njit(cache=True, nogil=True)
def render_animals(
    img, background, pos, species, heading, layers, cam_x, cam_y, tile, runs, colours, starts, box, reach,
    last_x, last_y, last_k, last_on, cleared, tiles,
):  # fmt: skip
    """One frame's animals in one call, species by species in ``layers`` order (sprite
    ``k = species * 8 + heading``; see the table above); returns how many sprites it drew.

    With an empty ``background`` every animal on screen is drawn (over a freshly painted
    scene). Otherwise only what changed is: last frame's picture is on screen, ``last_*``
    say where each animal's sprite was (``last_on``: whether it was drawn) and ``cleared``
    holds rectangles ``(x, y, w, h)`` already put back to the background. A sprite that
    moved, turned or left is put back to the background (its box); then, in drawing
    order, a sprite is drawn when it changed or when its box touches a tile (16 px) that
    was put back or drawn on before it in this frame. Every sprite above a redrawn one that
    overlaps it is then redrawn too, so the picture is the one a full redraw gives.
    ``last_*`` are updated to this frame.
    """
    h, w = img.shape
    n = species.size
    partial = background.shape[0] > 0
    xs = np.empty(n, np.int64)
    ys = np.empty(n, np.int64)
    ks = np.empty(n, np.int64)
    on = np.empty(n, np.bool_)
    for i in range(n):
        xs[i] = int((pos[i, 0] + 0.5) * tile - cam_x)
        ys[i] = int((pos[i, 1] + 0.5) * tile - cam_y)
        ks[i] = species[i] * 8 + heading[i]
        on[i] = -reach < xs[i] < w + reach and -reach < ys[i] < h + reach
    if partial:
        _put_back(img, background, xs, ys, ks, on, last_x, last_y, last_k, last_on, box, cleared, tiles)
    drawn = 0
    for s in layers:
        for i in range(n):
            if species[i] != s or not on[i]:
                continue
            x, y, k = xs[i], ys[i], ks[i]
            if partial:
                x0, x1, y0, y1 = x + box[k, 2], x + box[k, 3], y + box[k, 0], y + box[k, 1]
                same = last_on[i] and x == last_x[i] and y == last_y[i] and k == last_k[i]
                if not _claim(tiles, x0, y0, x1, y1, w, h, not same):
                    continue  # still there, untouched
            _stamp(img, x, y, k, runs, colours, starts, reach)
            drawn += 1
    for i in range(n):
        last_x[i] = xs[i]
        last_y[i] = ys[i]
        last_k[i] = ks[i]
        last_on[i] = on[i]
    return drawn


@dataclass
class SpriteSheet:
    """One species' sprite at one size: its opaque pixels per heading as runs, and the SDL surfaces."""

    surfaces: list[pygame.Surface]
    runs: np.ndarray  # int64 (R, 4): dy, dx, n, first colour (see the table above)
    colours: np.ndarray  # uint32 in the screen's pixel format, in run order
    starts: np.ndarray  # heading k's runs are [starts[k], starts[k+1])
    box: np.ndarray  # int64 (8, 4): y0, y1, x0, x1 of each heading's pixels, from the centre
    reach: int  # no pixel is farther than this from the centre
    pixels: int  # opaque pixels of one heading (the most)


def _runs(dx: np.ndarray, dy: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Pixels (offsets from the centre) as runs ``(dy, dx, n, c)`` along rows, with the order
    of the pixels that makes each run's colours contiguous."""
    order = np.lexsort((dx, dy))
    dx, dy = dx[order], dy[order]
    new = np.ones(dx.size, dtype=bool)
    new[1:] = (dy[1:] != dy[:-1]) | (dx[1:] != dx[:-1] + 1)
    first = np.flatnonzero(new)
    n = np.diff(np.append(first, dx.size))
    return np.stack((dy[first], dx[first], n, first), axis=1).astype(np.int64), order


def _pixel_format(colours: np.ndarray, screen: pygame.Surface) -> np.ndarray:
    """RGB rows as the screen's 32-bit pixel values."""
    shifts, losses, masks = screen.get_shifts(), screen.get_losses(), screen.get_masks()
    out = np.zeros(len(colours), dtype=np.uint32)
    for c in range(3):
        out |= ((colours[:, c].astype(np.uint32) >> losses[c]) << shifts[c]).astype(np.uint32)
    if masks[3]:
        out |= np.uint32(masks[3])
    return out


def load_sprite(key: str) -> pygame.Surface:
    """The species' sprite, ``assets/sprites/<key>.png``; without one (a new species, a damaged
    file), a drawn shape in its colour pointing east (the headings rotate it like a sprite)."""
    path = sprite_path(key)
    try:
        return pygame.image.load(str(path)).convert_alpha()
    except (OSError, pygame.error):
        return drawn_sprite(FAUNA[key].colour if key in FAUNA else (230, 230, 230))


def drawn_sprite(colour: tuple[int, int, int], size: int = 16) -> pygame.Surface:
    """A fallback sprite: a rounded body with a darker nose, pointing east."""
    surf = pygame.Surface((size, size), pygame.SRCALPHA)
    dark = tuple(c // 3 for c in colour)
    pygame.draw.ellipse(surf, dark, (1, 3, size - 2, size - 6))
    pygame.draw.ellipse(surf, colour, (2, 4, size - 4, size - 8))
    pygame.draw.circle(surf, dark, (size - 4, size // 2), 2)
    return surf


class SpriteBank:
    """Each species' sprite scaled to the zoom, pre-rotated to the 8 headings."""

    def __init__(self, keys: list[str]) -> None:
        self.source = {k: load_sprite(k) for k in keys}
        self._cache: dict[tuple[str, int, int], SpriteSheet] = {}
        self._tables: dict[tuple, tuple] = {}

    @staticmethod
    def size_for(tile: int) -> int:
        """Sprite size in pixels: a bit over a cell, but never tiny or huge."""
        return min(32, max(7, round(tile * 1.75)))

    def get(self, key: str, tile: int, screen: pygame.Surface) -> SpriteSheet:
        found = self._cache.get((key, tile, screen.get_bitsize()))
        if found is None:
            size = self.size_for(tile)
            base = pygame.transform.scale(self.source[key], (size, size))
            # Heading k points 45°·k clockwise from east on screen (y grows downward).
            surfaces = [pygame.transform.rotate(base, -45 * k) for k in range(HEADINGS)]
            runs, cols, starts, boxes = [], [], [0], []
            for surf in surfaces:
                xs, ys = np.nonzero(pygame.surfarray.array_alpha(surf) > 127)
                dx, dy = xs - surf.get_width() // 2, ys - surf.get_height() // 2
                r, order = _runs(dx, dy)
                r[:, _C] += sum(len(c) for c in cols)
                runs.append(r)
                cols.append(pygame.surfarray.array3d(surf)[xs, ys][order])
                starts.append(starts[-1] + len(r))
                boxes.append((dy.min(initial=0), dy.max(initial=-1) + 1, dx.min(initial=0), dx.max(initial=-1) + 1))
            every = np.concatenate(cols)
            colours = _pixel_format(every, screen) if screen.get_bitsize() == 32 else np.zeros(0, np.uint32)
            box = np.array(boxes, dtype=np.int64)
            reach = int(max(np.abs(box[:, [0, 2]]).max(initial=0), (box[:, [1, 3]] - 1).max(initial=0))) + 1
            found = SpriteSheet(surfaces, np.concatenate(runs), colours, np.array(starts, dtype=np.int64), box, reach,
                                max(len(c) for c in cols))  # fmt: skip
            self._cache[(key, tile, screen.get_bitsize())] = found
        return found

    def table(self, keys: list[str], tile: int, screen: pygame.Surface) -> tuple:
        """Every species' sheet in one table for :func:`render_animals` (sprite ``k = s * 8 + heading``):
        ``(runs, colours, starts, box, reach)``; cached per zoom and screen format."""
        key = (tuple(keys), tile, screen.get_bitsize(), screen.get_shifts())
        found = self._tables.get(key)
        if found is None:
            sheets = [self.get(k, tile, screen) for k in keys]
            run_base = np.cumsum([0] + [len(s.runs) for s in sheets])
            colour_base = np.cumsum([0] + [len(s.colours) for s in sheets])
            shift = [np.array((0, 0, 0, c)) for c in colour_base[:-1]]  # colours are joined too
            runs = np.concatenate([s.runs + d for s, d in zip(sheets, shift, strict=True)])
            starts = np.concatenate([s.starts[:-1] + b for s, b in zip(sheets, run_base[:-1], strict=True)]
                                    + [run_base[-1:]])  # fmt: skip
            found = (
                runs.astype(np.int64), np.concatenate([s.colours for s in sheets]), starts.astype(np.int64),
                np.concatenate([s.box for s in sheets]), max(s.reach for s in sheets),
            )  # fmt: skip
            self._tables = {key: found}
        return found

    def pixels(self, key: str, tile: int, screen: pygame.Surface) -> int:
        """Opaque pixels of one sprite (what drawing an animal costs)."""
        return self.get(key, tile, screen).pixels

    def draw_all(self, screen: pygame.Surface, tile: int, groups: list) -> None:
        """Draw ``groups`` of ``(species key, xs, ys, headings)`` in order. The screen's pixels
        are taken once for all of it; screens that are not 32-bit use SDL blits."""
        if screen.get_bitsize() != 32:
            for key, xs, ys, hs in groups:
                self._blit(screen, key, tile, xs, ys, hs)
            return
        with Pixels(screen) as pixels:
            for key, xs, ys, hs in groups:
                s = self.get(key, tile, screen)
                draw_sprites(pixels, xs, ys, hs, s.runs, s.colours, s.starts, s.reach)

    def _blit(self, screen: pygame.Surface, key: str, tile: int, xs: np.ndarray, ys: np.ndarray,
              headings: np.ndarray) -> None:  # fmt: skip
        sheet = self.get(key, tile, screen)
        frames = np.empty(HEADINGS, dtype=object)
        frames[:] = sheet.surfaces
        half = np.array([(s.get_width() // 2, s.get_height() // 2) for s in sheet.surfaces])
        corners = np.stack((xs - half[headings, 0], ys - half[headings, 1]), 1).tolist()
        screen.fblits(zip(frames[headings], corners, strict=True))
