"""Animal sprites drawn straight into the screen's pixels: one compiled call a frame, no Python per animal.

Each sprite (a species' animation frame at one zoom, turned to one of 16 headings) is
kept as the runs of its opaque pixels along rows: offsets from the centre and colours
already in the screen's pixel format. Drawing an animal is then a few row copies
(clipped only near the screen's edge): 20,000 animals cost ~4 ms where SDL blits cost
~13 ms (measured at 14 px sprites). The frames are turned and scaled smoothly from the
sheets' 64-pixel drawings once per zoom, then kept with on/off transparency, so nothing
needs blending per frame. Screens that are not 32-bit use SDL's ``fblits``.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pygame
from numba import njit

from sim.support.prefetch import prefetch
from sim.support.resources import sprite_path
from sim.world.fauna import FAUNA


class Pixels:
    """A surface's pixels as a writable numpy array indexed ``[y, x]`` (uint32 for 32-bit
    surfaces), without copying; the surface is locked inside the ``with`` block and unlocked
    when it ends. Use the array inside the block only.

    The array is made over the surface's memory, not over ``surface.get_buffer()`` (which
    locks until the last reference to its array is gone): a kernel's first call, when numba
    compiles it for a new type, keeps its arguments in a reference cycle until the garbage
    collector runs, and the screen stayed locked (the next blit failed: "Surfaces must not be
    locked during blit"). ~2 µs; ``surfarray.pixels2d`` costs ~50 µs.
    """

    #: Arrays made lately, by where and how they lie in memory: the screen's is asked for a few
    #: times a frame, and making one (a ctypes type of its length, then the array) cost ~5 µs.
    _made: ClassVar[dict[tuple[int, int, int, int, int], np.ndarray]] = {}

    def __init__(self, surface: pygame.Surface) -> None:
        self.surface = surface

    def __enter__(self) -> np.ndarray:
        s = self.surface
        size = s.get_bytesize()
        if size not in (1, 4):
            raise ValueError(f"Pixels takes 8- and 32-bit surfaces, not {size * 8}-bit")
        w, h, pitch = s.get_width(), s.get_height(), s.get_pitch()
        s.lock()
        try:
            # Read after locking: the address of a surface's pixels may change while it is unlocked.
            where = (s._pixels_address, w, h, pitch, size)
            made = Pixels._made.get(where)
            if made is None:  # exactly the bytes of its rows (a subsurface's last row ends before its parent's does)
                memory = (ctypes.c_uint8 * (pitch * (h - 1) + w * size if h and w else 0)).from_address(where[0])
                dtype = np.dtype(np.uint8) if size == 1 else np.dtype(np.uint32)
                made = np.ndarray((h, w), dtype, buffer=memoryview(memory), strides=(pitch, size))
                if len(Pixels._made) >= 16:
                    Pixels._made.clear()
                Pixels._made[where] = made
            return made
        except BaseException:
            s.unlock()
            raise

    def __exit__(self, *exc: object) -> None:
        self.surface.unlock()


# A sprite table (every species at one zoom; see SpriteBank.table for where each one's sprites start):
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
            # Unsigned indices, as the engine's kernels (sim.pathfinding.common): numba tests a signed one
            # for being negative at every pixel (render_animals 198-205 -> 151-153 µs at 500 animals).
            # A loop: a slice copy compiles numba's shape-error message (1.7 CPU s).
            uy, ux, uc = np.uint64(py), np.uint64(px), np.uint64(c)
            for q in range(np.uint64(runs[r, _N])):
                img[uy, ux + q] = colours[uc + q]
        elif 0 <= py < h:
            for q in range(runs[r, _N]):
                if 0 <= px + q < w:
                    img[py, px + q] = colours[c + q]


@njit(cache=True, nogil=True)
def draw_sprites(img, xs, ys, ks, runs, colours, starts, reach):
    """Write sprite ``ks[i]`` centred at ``(xs[i], ys[i])`` into ``img`` (``[y, x]``, uint32)."""
    for i in range(xs.size):
        _stamp(img, xs[i], ys[i], ks[i], runs, colours, starts, reach)


#: How many dots ahead draw_dots asks for the screen rows it will write.
DOTS_AHEAD = 16


@njit(cache=True, nogil=True, inline="always")
def _dot_corner(pos, i, tile, cam_x, cam_y, half):
    """The screen pixel of animal ``i``'s dot's top left corner (``half``: half the dot's size)."""
    return int((pos[i, 0] + 0.5) * tile - cam_x) - half, int((pos[i, 1] + 0.5) * tile - cam_y) - half


@njit(cache=True, nogil=True)
def draw_dots(img, pos, species, order, colours, shade, cam_x, cam_y, tile, size):
    """A dense crowd in one pass: animal ``order[o]`` as a ``size`` x ``size`` square of its species'
    colour (``colours[species]``, uint32 in ``img``'s format) centred on its point, with a one-pixel
    ``shade`` edge right and below so neighbours stay apart; drawn in ``order`` (last on top).
    Returns how many were on screen. ~20 pixels an animal where a sprite takes hundreds."""
    h, w = img.shape
    half = size // 2
    drawn = 0
    base, pitch, item = img.ctypes.data, img.strides[0], img.itemsize
    for o in range(order.size):
        # The rows of the dot DOTS_AHEAD on asked for now: the animals come in layer order, not
        # screen order, so each dot's rows are cache misses (2.6-2.8 -> 2.1-2.2 ms at 100,000).
        if o + DOTS_AHEAD < order.size:
            ax, ay = _dot_corner(pos, order[o + DOTS_AHEAD], tile, cam_x, cam_y, half)
            if 0 <= ax < w and 0 <= ay < h - size:
                for r in range(size + 1):
                    prefetch(base + (ay + r) * pitch + ax * item)
        i = order[o]
        x, y = _dot_corner(pos, i, tile, cam_x, cam_y, half)
        if x < 0 or y < 0 or x + size >= w or y + size >= h:
            continue
        c = colours[species[i]]
        ux, uy, us = np.uint64(x), np.uint64(y), np.uint64(size)  # (on screen: unsigned, as in _stamp)
        for py in range(uy, uy + us):
            for px in range(ux, ux + us):
                img[py, px] = c
            img[py, ux + us] = shade
        for px in range(ux + np.uint64(1), ux + us + np.uint64(1)):
            img[uy + us, px] = shade
        drawn += 1
    return drawn


@njit(cache=True, nogil=True, inline="always")
def _fetch_box(img, x, y, k, box):
    """Ask for the rows of ``img`` under sprite ``k``'s box at ``(x, y)`` ahead of their use. The
    screen and the terrain behind it are 4 MB each: a sprite touches a cache line on each of its
    rows, and waiting for them one by one was half the time of a frame's sprites (prefetching the
    sprites a few ahead measured 6-17 % off render_animals at 500 animals)."""
    h, w = img.shape
    x0 = min(max(0, x + box[k, 2]), w - 1)
    base, pitch = img.ctypes.data + x0 * img.itemsize, img.strides[0]
    for py in range(max(0, y + box[k, 0]), min(h, y + box[k, 1])):
        prefetch(base + py * pitch)


AHEAD = 3  # sprites fetched ahead (3-4 measured best; the rows of ~3 sprites are in flight at once)
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
    always = np.bool_(True)  # (not the literal True: numba would compile _claim a second time for it)
    for r in range(cleared.shape[0]):
        cx, cy = cleared[r, 0], cleared[r, 1]
        _claim(tiles, cx, cy, cx + cleared[r, 2], cy + cleared[r, 3], w, h, always)
    gone = np.empty(xs.size, np.int64)  # the items whose sprite moved, turned or left
    m = 0
    for i in range(xs.size):
        if last_on[i] and not (on[i] and xs[i] == last_x[i] and ys[i] == last_y[i] and ks[i] == last_k[i]):
            gone[m] = i
            m += 1
    for j in range(-AHEAD, m):
        if j + AHEAD < m:
            a = gone[j + AHEAD]
            _fetch_box(img, last_x[a], last_y[a], last_k[a], box)
            _fetch_box(background, last_x[a], last_y[a], last_k[a], box)
        if j < 0:
            continue
        i = gone[j]
        x, y, k = last_x[i], last_y[i], last_k[i]
        x0, x1 = max(0, x + box[k, 2]), min(w, x + box[k, 3])
        y0, y1 = max(0, y + box[k, 0]), min(h, y + box[k, 1])
        if x1 > x0 and y1 > y0:  # (clipped, both ways: then the indices are unsigned, as in _stamp)
            for py in range(np.uint64(y0), np.uint64(y1)):
                for px in range(np.uint64(x0), np.uint64(x1)):  # (a loop: see _stamp)
                    img[py, px] = background[py, px]
        _claim(tiles, x0, y0, x1, y1, w, h, always)


@njit(cache=True, nogil=True)
def render_animals(
    img, background, px, py, ks, order, cam_x, cam_y, tile, runs, colours, starts, box, reach,
    last_x, last_y, last_k, last_on, cleared, tiles,
):  # fmt: skip
    """One frame's sprites in one call: item ``i`` is sprite ``ks[i]`` (see the table above)
    centred on map point ``(px[i], py[i])`` (cells; a cell's centre is its integer
    coordinates), drawn in the order ``order`` (item indices, first drawn first: shadows,
    then swimmers, walkers, fliers); returns how many sprites it drew.

    With an empty ``background`` every item on screen is drawn (over a freshly painted
    scene). Otherwise only what changed is: last frame's picture is on screen, ``last_*``
    say where each item's sprite was (``last_on``: whether it was drawn) and ``cleared``
    holds rectangles ``(x, y, w, h)`` already put back to the background. A sprite that
    moved, changed or left is put back to the background (its box); then, in drawing
    order, a sprite is drawn when it changed or when its box touches a tile (16 px) that
    was put back or drawn on before it in this frame. Every sprite above a redrawn one that
    overlaps it is then redrawn too, so the picture is the one a full redraw gives.
    ``last_*`` are updated to this frame.
    """
    h, w = img.shape
    n = ks.size
    partial = background.shape[0] > 0
    xs = np.empty(n, np.int64)
    ys = np.empty(n, np.int64)
    on = np.empty(n, np.bool_)
    for i in range(n):
        xs[i] = int((px[i] + 0.5) * tile - cam_x)
        ys[i] = int((py[i] + 0.5) * tile - cam_y)
        on[i] = -reach < xs[i] < w + reach and -reach < ys[i] < h + reach
    if partial:
        _put_back(img, background, xs, ys, ks, on, last_x, last_y, last_k, last_on, box, cleared, tiles)
    drawn = 0
    for o in range(n):
        if o + AHEAD < n and on[order[o + AHEAD]]:
            a = order[o + AHEAD]
            _fetch_box(img, xs[a], ys[a], ks[a], box)
        i = order[o]
        if not on[i]:
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


#: Headings a sprite is drawn at: 22.5° apart, 0 east, clockwise on screen (y down).
TURNS = 16
#: What a flier's shadow is called in a sprite table (its species' key plus this).
SHADOW = "/shadow"
SHADOW_RGB = (16, 24, 20)


@dataclass
class SpriteSheet:
    """One species' sprites at one size: every frame at every heading (sprite ``frame * TURNS
    + heading``), as runs of opaque pixels, and the SDL surfaces."""

    surfaces: list[pygame.Surface]
    runs: np.ndarray  # int64 (R, 4): dy, dx, n, first colour (see the table above)
    colours: np.ndarray  # uint32 in the screen's pixel format, in run order
    starts: np.ndarray  # sprite k's runs are [starts[k], starts[k+1])
    box: np.ndarray  # int64 (sprites, 4): y0, y1, x0, x1 of each sprite's pixels, from the centre
    reach: int  # no pixel is farther than this from the centre
    pixels: int  # opaque pixels of one sprite (the most)


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


@dataclass
class Cycles:
    """A species' frames as drawn (facing east): those it shows moving, then resting."""

    moving: list[pygame.Surface]
    resting: list[pygame.Surface]

    @property
    def frames(self) -> list[pygame.Surface]:
        return self.moving + self.resting


def _empty(frame: pygame.Surface) -> bool:
    return not (pygame.surfarray.array_alpha(frame) > 0).any()


def load_sprite(key: str) -> Cycles:
    """The species' sheet, ``assets/sprites/<key>.png`` (``assets/make_sprites.py``: square
    frames, row 0 moving, row 1 resting; a transparent frame ends a row). Without one (a
    new species, a damaged file): a drawn shape in its colour pointing east, both cycles."""
    path = sprite_path(key)
    try:
        sheet = pygame.image.load(str(path)).convert_alpha()
    except (OSError, pygame.error):
        shape = drawn_sprite(FAUNA[key].colour if key in FAUNA else (230, 230, 230))
        return Cycles([shape], [shape])
    size = sheet.get_height() // 2 if sheet.get_height() >= 2 and sheet.get_width() >= sheet.get_height() // 2 else 0
    rows: list[list[pygame.Surface]] = [[], []]
    for row in range(2 if size else 0):
        for col in range(sheet.get_width() // size):
            frame = sheet.subsurface((col * size, row * size, size, size)).copy()
            if _empty(frame):
                break
            rows[row].append(frame)
    if not rows[0]:  # one picture (an old-style sprite): it serves as every frame
        rows[0] = [sheet]
    return Cycles(rows[0], rows[1] or rows[0][:1])


def drawn_sprite(colour: tuple[int, int, int], size: int = 16) -> pygame.Surface:
    """A fallback sprite: a rounded body with a darker nose, pointing east."""
    surf = pygame.Surface((size, size), pygame.SRCALPHA)
    dark = tuple(c // 3 for c in colour)
    pygame.draw.ellipse(surf, dark, (1, 3, size - 2, size - 6))
    pygame.draw.ellipse(surf, colour, (2, 4, size - 4, size - 8))
    pygame.draw.circle(surf, dark, (size - 4, size // 2), 2)
    return surf


def _shadow(surf: pygame.Surface) -> pygame.Surface:
    """A flier's shadow: a soft dark ellipse under it, denser towards its middle (every other pixel
    at most: it reads as see-through), whatever the bird's pose (its silhouette read as an "X")."""
    w, h = surf.get_size()
    xs, ys = np.indices((w, h))
    rx, ry = max(1.5, w * 0.3), max(1.0, h * 0.16)
    d = ((xs - w / 2 + 0.5) / rx) ** 2 + ((ys - h / 2 + 0.5) / ry) ** 2  # < 1 inside the ellipse
    dither = (xs + ys) % 2 == 0
    inner = (d < 0.45) & ((xs % 2 == 0) | dither)  # the middle denser than the rim
    out = pygame.Surface((w, h), pygame.SRCALPHA)
    pygame.surfarray.pixels3d(out)[...] = SHADOW_RGB
    pygame.surfarray.pixels_alpha(out)[...] = np.where(((d < 1.0) & dither) | inner, 255, 0)
    return out


#: Below this many pixels a cell, animals are drawn as icons of at least :data:`MIN_ICON` pixels
#: with a dark outline, so they read at the fitted zoom (the size changes with the zoom in steps of
#: one pixel: no jump between the two).
ICON_BELOW = 12
MIN_ICON = 18
OUTLINE_RGB = (18, 20, 22)


def _outlined(surf: pygame.Surface) -> pygame.Surface:
    """``surf`` with a one-pixel dark outline around its opaque pixels (in a surface 2 px larger)."""
    w, h = surf.get_size()
    out = pygame.Surface((w + 2, h + 2), pygame.SRCALPHA)
    solid = np.pad(pygame.surfarray.array_alpha(surf) > 127, 1)
    ring = np.zeros_like(solid)
    for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        ring |= np.roll(np.roll(solid, dx, axis=0), dy, axis=1)
    ring &= ~solid
    pygame.surfarray.pixels3d(out)[ring] = OUTLINE_RGB
    pygame.surfarray.pixels_alpha(out)[ring] = 255
    out.blit(surf, (1, 1))
    return out


class SpriteBank:
    """Each species' frames scaled to the zoom and turned to the :data:`TURNS` headings
    (smoothly, from the sheet's 64-pixel frames: one pixel size per zoom); a key ending
    in :data:`SHADOW` is that species' shadow."""

    def __init__(self, keys: list[str]) -> None:
        self.source = {k: load_sprite(k) for k in keys}
        self._cache: dict[tuple[str, int, int], SpriteSheet] = {}
        self._tables: dict[tuple, tuple] = {}

    @staticmethod
    def size_for(tile: int) -> int:
        """Sprite frame size in pixels: about two cells (the animal inside is smaller), never
        huge, and at least :data:`MIN_ICON` (an icon that reads at the fitted zoom)."""
        return min(48, max(MIN_ICON, round(tile * 2.2)))

    def cycles(self, key: str) -> tuple[int, int]:
        """How many moving and resting frames the species has."""
        c = self.source[key.removesuffix(SHADOW)]
        return len(c.moving), len(c.resting)

    def get(self, key: str, tile: int, screen: pygame.Surface) -> SpriteSheet:
        found = self._cache.get((key, tile, screen.get_bitsize()))
        if found is None:
            found = self._sheet(key, tile, screen)
            self._cache[(key, tile, screen.get_bitsize())] = found
        return found

    def _sheet(self, key: str, tile: int, screen: pygame.Surface) -> SpriteSheet:
        size = self.size_for(tile)
        surfaces = []
        for frame in self.source[key.removesuffix(SHADOW)].frames:
            scale = size / max(frame.get_size())
            # Heading k points 22.5°·k clockwise from east on screen (y grows downward).
            turned = [pygame.transform.rotozoom(frame, -360 / TURNS * k, scale) for k in range(TURNS)]
            if key.endswith(SHADOW):
                surfaces += [_shadow(s) for s in turned]
            else:  # small zooms: an outline makes the icon stand out of any terrain
                surfaces += [_outlined(s) for s in turned] if tile < ICON_BELOW else turned
        runs: list[np.ndarray] = []
        cols: list[np.ndarray] = []
        starts, boxes = [0], []
        for surf in surfaces:
            xs, ys = np.nonzero(pygame.surfarray.array_alpha(surf) > 127)
            dx, dy = xs - surf.get_width() // 2, ys - surf.get_height() // 2
            r, order = _runs(dx, dy)
            r[:, _C] += int(sum(len(c) for c in cols))
            runs.append(r)
            cols.append(pygame.surfarray.array3d(surf)[xs, ys][order])
            starts.append(starts[-1] + len(r))
            boxes.append((dy.min(initial=0), dy.max(initial=-1) + 1, dx.min(initial=0), dx.max(initial=-1) + 1))
        every = np.concatenate(cols)
        colours = _pixel_format(every, screen) if screen.get_bitsize() == 32 else np.zeros(0, np.uint32)
        box = np.array(boxes, dtype=np.int64)
        reach = int(max(np.abs(box[:, [0, 2]]).max(initial=0), (box[:, [1, 3]] - 1).max(initial=0))) + 1
        return SpriteSheet(surfaces, np.concatenate(runs), colours, np.array(starts, dtype=np.int64), box, reach,
                           max(len(c) for c in cols))  # fmt: skip

    def table(self, keys: list[str], tile: int, screen: pygame.Surface) -> tuple:
        """Every sheet of ``keys`` in one table for :func:`render_animals`: ``(runs, colours,
        starts, box, reach, bases)``, ``bases[j]`` the index of ``keys[j]``'s first sprite;
        cached per zoom and screen format."""
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
            bases = np.cumsum([0] + [len(s.surfaces) for s in sheets])[:-1].astype(np.int64)
            found = (
                runs.astype(np.int64), np.concatenate([s.colours for s in sheets]), starts.astype(np.int64),
                np.concatenate([s.box for s in sheets]), max(s.reach for s in sheets), bases,
            )  # fmt: skip
            self._tables = {key: found}
        return found

    def surfaces(self, keys: list[str], tile: int, screen: pygame.Surface) -> list[pygame.Surface]:
        """The table's sprites as SDL surfaces, in table order (screens that are not 32-bit)."""
        return [surf for k in keys for surf in self.get(k, tile, screen).surfaces]

    def pixels(self, key: str, tile: int, screen: pygame.Surface) -> int:
        """Opaque pixels of one sprite (what drawing an animal costs)."""
        return self.get(key, tile, screen).pixels
