"""The terrain grid drawn as a landscape at any zoom, generated in code (no art files).

Every pixel is coloured from the cells around it, so borders are curves, not stair steps:

* **Which terrain a pixel shows**: the cells are refined to sub-cells by Scale2x (quarter
  cells from 8 px a cell, half cells from 3 px: staircases become diagonals); each of the
  four sub-cells around a pixel scores the bilinear weight of those sharing its terrain,
  water or land decided first on a softened land share nudged by a smooth wobble, so
  coasts curve and wander (a lone cell keeps its middle: animals stand there).
* **Ground**: the winner's colour tinted by the land cells around it (sand into grass),
  and a fine grain keyed to the world's pixels (seamless across chunks).
* **Relief**: a height per terrain (mountains and rock high, with per-sub-cell roughness),
  smoothed and lit from the north-west, so ranges have a lit and a shaded side.
* **Water**: deep to shallow by distance to land, foam along the shore, and sparse glints
  that drift (the animation only lightens those pixels; see :class:`~.render.TerrainLayer`).
* **Forest** gets a tree crown per cell (jittered, lit, with a shadow), **swamp** puddles and
  reeds; both fall back to texture when zoomed out too far to show them.

:func:`landscape` draws any pixel rectangle of the world at ``tile`` pixels per cell and
gives the same pixels whatever rectangle they are drawn as part of, so the layer draws
the world in chunks and redraws only what a paint stroke touched (plus :data:`MARGIN`
cells: how far a cell's look reaches). The cell-sized work is numpy; the per-pixel work is
one compiled pass (~40 ns a pixel: a 1280x800 view in ~40 ms).
"""

from __future__ import annotations

import sys
import time

import numpy as np
from numba import njit

from sim.support.lifeline import READY
from sim.world.terrain import Terrain

#: How many cells around a changed cell can look different (blending, relief, water depth).
MARGIN = 4
#: Animation steps of the water glints (the layer cycles through them).
PHASES = 8

_W, _SA, _GR, _FO, _SW, _MO, _RO = (int(t) for t in Terrain)
_N = len(Terrain)
# Height per terrain (cells are 1 wide): what the relief shading lights.
_HEIGHT = np.zeros(_N, np.float32)
_HEIGHT[[_W, _SA, _GR, _FO, _SW, _MO, _RO]] = (-0.2, 0.0, 0.12, 0.3, -0.05, 1.4, 2.0)
# Texture strength per terrain (fraction of brightness).
_GRAIN = np.zeros(_N, np.float32)
_GRAIN[[_W, _SA, _GR, _FO, _SW, _MO, _RO]] = (0.03, 0.07, 0.10, 0.14, 0.10, 0.10, 0.14)
# How much the wobble favours each terrain at a border (land over water, hills over plains).
_BIAS = np.zeros(_N, np.float32)
_BIAS[[_W, _SA, _GR, _FO, _SW, _MO, _RO]] = (0.0, 1.0, 0.8, 1.1, 0.6, 1.2, 1.3)
_FOAM = np.array((236, 244, 240), np.float32)
_REEDS = np.array((52, 78, 40), np.float32)


def _hash(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """A fixed pseudo-random value in [0, 1) per integer pair (broadcasting ``a``, ``b``)."""
    h = (a.astype(np.int64) * 73856093) ^ (b.astype(np.int64) * 19349663)
    h = (h ^ (h >> 13)) * 1274126177
    return ((h >> 8) & 0xFFFF).astype(np.float32) / 65536.0


#: Smooth noise fields, each a sum of three plane waves sin(fx*x + fy*y + p) (amplitude,
#: fx, fy, p), scaled per field: 0 coast wobble, 1 and 2 puddles, 3 water ripples, 4 glint bands.
_WAVES = np.array(((0.55, 1.13, 0.71, 0.3), (0.3, -0.57, 1.61, 1.9), (0.15, 2.9, 2.3, 4.1)), np.float64)
_FIELDS = ((1.0, 0.0, 0.0), (2.3, 0.0, 0.0), (1.9 * 0.77, 13.0, 7.0), (3.1, 0.0, 0.0), (0.7, 0.0, 0.0))


def _wave_tables(X: np.ndarray, Y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per noise field and wave, sin and cos of its x part per column and of its y part per
    row: ``(fields, 3, 2, len(X))`` and ``(fields, 3, 2, len(Y))``; the kernel adds
    ``sin(ax + ay) = sin(ax) cos(ay) + cos(ax) sin(ay)`` per pixel."""
    tx = np.empty((len(_FIELDS), 3, 2, X.size), np.float32)
    ty = np.empty((len(_FIELDS), 3, 2, Y.size), np.float32)
    for f, (scale, ox, oy) in enumerate(_FIELDS):
        for k, (amp, fx, fy, p) in enumerate(_WAVES):
            ax = fx * scale * (X + ox) + p
            ay = fy * scale * (Y + oy) * (1.31 / 0.77 if f == 2 else 1.0)
            tx[f, k, 0], tx[f, k, 1] = amp * np.sin(ax), amp * np.cos(ax)
            ty[f, k, 0], ty[f, k, 1] = np.cos(ay), np.sin(ay)
    return tx, ty


def _spread(d: np.ndarray) -> np.ndarray:
    """One step of a chessboard distance transform: each cell the least of itself and its
    eight neighbours plus one."""
    p = np.pad(d, 1, mode="edge")
    h, w = d.shape
    best = d.copy()
    for dy in (0, 1, 2):
        for dx in (0, 1, 2):
            if dy != 1 or dx != 1:
                np.minimum(best, p[dy : dy + h, dx : dx + w] + 1, out=best)
    return best


def _blur(a: np.ndarray) -> np.ndarray:
    p = np.pad(a, 1, mode="edge")
    h, w = a.shape
    total = np.zeros(a.shape, dtype=np.float64)
    for dy in (0, 1, 2):
        for dx in (0, 1, 2):
            total += p[dy : dy + h, dx : dx + w]
    return total / 9.0


def _scale2x(a: np.ndarray) -> np.ndarray:
    """Scale2x (EPX) on a grid of ids: each cell becomes 2x2, a corner taking the neighbours'
    id where two of them meet across it, so staircases become diagonals."""
    p = np.pad(a, 1, mode="edge")
    h, w = a.shape
    B, D, F, H = p[:h, 1 : w + 1], p[1 : h + 1, :w], p[1 : h + 1, 2:], p[2:, 1 : w + 1]
    out = np.empty((2 * h, 2 * w), a.dtype)
    free = (B != H) & (D != F)
    out[0::2, 0::2] = np.where(free & (D == B), D, a)
    out[0::2, 1::2] = np.where(free & (B == F), F, a)
    out[1::2, 0::2] = np.where(free & (D == H), D, a)
    out[1::2, 1::2] = np.where(free & (H == F), F, a)
    return out


def _shifts(fmt: tuple[tuple[int, int, int, int], tuple[int, int, int, int], int]) -> np.ndarray:
    return np.array([*fmt[0][:3], *fmt[1][:3], fmt[2]], np.int64)


#: Pixel format of the packed output when none is given: 0x00RRGGBB.
RGB_FORMAT = ((16, 8, 0, 0), (0, 0, 0, 0), 0)


def subcells(tile: int) -> int:
    """Sub-cells a side per cell at ``tile`` pixels a cell: 4, 2 or 1."""
    return 4 if tile >= 8 else 2 if tile >= 3 else 1


def landscape(
    terrain: np.ndarray, colours: np.ndarray, tile: int, px0: int, py0: int, pw: int, ph: int,
    pixel_format: tuple = RGB_FORMAT,
) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """The world's pixels ``[py0, py0 + ph) x [px0, px0 + pw)`` at ``tile`` pixels per cell.

    ``terrain``: the whole grid ``[y, x]`` (uint8 terrain ids); ``colours``: ``(terrains, 3)``
    RGB. Returns ``(pixels, glint)``: ``pixels`` uint32 ``(ph, pw)`` packed as
    ``pixel_format`` (``(shifts, losses, alpha mask)`` of a pygame surface; default
    ``0x00RRGGBB``), and ``glint`` uint8 ``(ph, pw)``: 0 for a still pixel, ``1 + phase``
    for a water pixel that glints in that animation phase (0 .. :data:`PHASES` - 1).
    The cell-sized work (refining, distances, heights) is numpy; the per-pixel work is one
    compiled pass.
    """
    rows_n, cols_n = terrain.shape
    z = float(tile)
    gx = px0 + np.arange(pw, dtype=np.int64)  # world pixel coordinates
    gy = py0 + np.arange(ph, dtype=np.int64)
    X = ((gx + 0.5) / z - 0.5).astype(np.float32)  # in cells, 0 at the centre of column 0
    Y = ((gy + 0.5) / z - 0.5).astype(np.float32)
    # The cells the rectangle needs, with a margin; the map's edge cells repeat outwards.
    cx0, cy0 = int(np.floor(X[0])) - MARGIN, int(np.floor(Y[0])) - MARGIN
    cols = np.clip(np.arange(cx0, int(np.floor(X[-1])) + 2 + MARGIN), 0, cols_n - 1)
    rows = np.clip(np.arange(cy0, int(np.floor(Y[-1])) + 2 + MARGIN), 0, rows_n - 1)
    C = terrain[np.ix_(rows, cols)].astype(np.int64)  # small: the rectangle's cells
    depth = np.where(C != _W, 0, MARGIN).astype(np.float32)
    for _ in range(MARGIN - 1):
        depth = _spread(depth)
    # Sub-cells: quarter cells from 8 px a cell (Scale2x twice: staircases become diagonals),
    # half cells from 3 px, whole cells below (finer would not show, and costs memory).
    sub = subcells(tile)
    C4 = C.astype(np.uint8)
    for _ in range(sub.bit_length() - 1):
        C4 = _scale2x(C4)
    rough = _hash(sub * cx0 + np.arange(C4.shape[1])[None, :], sub * cy0 + np.arange(C4.shape[0])[:, None] + 7919)
    height = (_HEIGHT[C4] * (0.6 + 0.8 * rough)).astype(np.float32)
    for _ in range(sub.bit_length()):  # about a third of a cell, whatever the sub-cells
        height = _blur(height)
    land4 = (C4 != _W).astype(np.float32)
    share4 = (0.5 * (land4 + _blur(_blur(land4)))).astype(np.float32)  # softened: coasts curve
    tx, ty = _wave_tables(X, Y)
    out = np.empty((ph, pw), np.uint32)
    glint = np.empty((ph, pw), np.uint8)
    _pixels(out, glint, C, C4, share4, depth, height, np.asarray(colours, np.float32), tile, sub, px0, py0, cx0, cy0,
            tx, ty, _BIAS, _GRAIN, _shifts(pixel_format))  # fmt: skip
    return out, glint


@njit(cache=True, nogil=True, inline="always")
def _hash1(a, b):
    h = (a * 73856093) ^ (b * 19349663)
    h = (h ^ (h >> 13)) * 1274126177
    return ((h >> 8) & 0xFFFF) / 65536.0


@njit(cache=True, nogil=True, inline="always")
def _noise(tx, ty, f, i, j):
    v = 0.0
    for k in range(3):
        v += tx[f, k, 0, i] * ty[f, k, 0, j] + tx[f, k, 1, i] * ty[f, k, 1, j]
    return v


@njit(cache=True, nogil=True, inline="always")
def _which(C4, share4, X4, Y4, sub, cx0, cy0, wob, bias, cv, wv):
    """The terrain a pixel shows and its land share: the sub-cells' scores, water or
    land decided first (see :func:`landscape`)."""
    bx4, by4 = int(np.floor(X4)), int(np.floor(Y4))
    s4, t4 = X4 - bx4, Y4 - by4
    ix4, iy4 = bx4 - sub * cx0, by4 - sub * cy0
    cv[0], cv[1], cv[2], cv[3] = C4[iy4, ix4], C4[iy4, ix4 + 1], C4[iy4 + 1, ix4], C4[iy4 + 1, ix4 + 1]
    wv[0], wv[1], wv[2], wv[3] = (1 - t4) * (1 - s4), (1 - t4) * s4, t4 * (1 - s4), t4 * s4
    share = (wv[0] * share4[iy4, ix4] + wv[1] * share4[iy4, ix4 + 1]
             + wv[2] * share4[iy4 + 1, ix4] + wv[3] * share4[iy4 + 1, ix4 + 1])  # fmt: skip
    on_land = share + wob > 0.5
    best, best_score, heaviest = -1, -9.0, 0
    for k in range(4):
        if wv[k] > wv[heaviest]:
            heaviest = k
        if (cv[k] != _W) != on_land:
            continue
        score = wob * bias[cv[k]]
        for m in range(4):
            if cv[m] == cv[k]:
                score += wv[m]
        if score > best_score:
            best, best_score = k, score
    return (cv[best] if best >= 0 else cv[heaviest]), share


@njit(cache=True, nogil=True, inline="always")
def _relief(height, X4, Y4, sub, cx0, cy0):
    """Light on the smoothed height between the four sub-cells, from the north-west."""
    bx4, by4 = int(np.floor(X4)), int(np.floor(Y4))
    s4, t4 = X4 - bx4, Y4 - by4
    ix4, iy4 = bx4 - sub * cx0, by4 - sub * cy0
    h0, h1 = height[iy4, ix4], height[iy4, ix4 + 1]
    h2, h3 = height[iy4 + 1, ix4], height[iy4 + 1, ix4 + 1]
    dhdx = (1 - t4) * (h1 - h0) + t4 * (h3 - h2)  # per sub-cell
    dhdy = (1 - s4) * (h2 - h0) + s4 * (h3 - h1)
    return min(max(1.0 - 0.4 * sub * (dhdx + dhdy), 0.5), 1.5)


@njit(cache=True, nogil=True, inline="always")
def _ground(rgb, T, C, colours, ix, iy, s, t):
    """The winner's colour (forest floor for forest), tinted by the land cells around it."""
    for q in range(3):
        rgb[q] = 0.8 * colours[_FO, q] + 0.2 * colours[_GR, q] if T == _FO else colours[T, q]
    if T == _W:
        return
    c0, c1, c2, c3 = C[iy, ix], C[iy, ix + 1], C[iy + 1, ix], C[iy + 1, ix + 1]
    lw0, lw1 = (1 - t) * (1 - s) * (c0 != _W), (1 - t) * s * (c1 != _W)
    lw2, lw3 = t * (1 - s) * (c2 != _W), t * s * (c3 != _W)
    total = lw0 + lw1 + lw2 + lw3
    if total > 0:
        for q in range(3):
            tint = (lw0 * colours[c0, q] + lw1 * colours[c1, q] + lw2 * colours[c2, q] + lw3 * colours[c3, q]) / total
            rgb[q] = 0.85 * rgb[q] + 0.15 * tint


@njit(cache=True, nogil=True, inline="always")
def _tree(rgb, C, colours, X, Y, cx0, cy0, gxi, gyj):
    """A crown per forest cell (jittered, lit from the north-west), its shadow to the south-east."""
    cell_x, cell_y = int(np.floor(X + 0.5)), int(np.floor(Y + 0.5))
    if C[cell_y - cy0, cell_x - cx0] != _FO:
        return
    du = X - cell_x - (_hash1(cell_x, cell_y) - 0.5) * 0.14
    dv = Y - cell_y - (_hash1(cell_x + 104729, cell_y) - 0.5) * 0.14
    r = 0.34 + 0.1 * _hash1(cell_x + 7, cell_y + 3)
    d2 = du * du + dv * dv
    if d2 < r * r:
        lit = min(max(1.25 - 0.5 * (du + dv) / r - 0.3 * np.sqrt(d2) / r, 0.55), 1.4)
        lit *= 1.0 + 0.22 * (_hash1(gxi // 2, gyj // 2 + 31) - 0.5)
        for q in range(3):
            rgb[q] = colours[_FO, q] * lit
    elif (du - 0.13) ** 2 + (dv - 0.13) ** 2 < r * r:
        for q in range(3):
            rgb[q] *= 0.62


@njit(cache=True, nogil=True, inline="always")
def _water(rgb, depth, colours, ix, iy, s, t, share, wob, grain, ripple, X, Y, band, gxi, gyj):
    """Deep to shallow by distance to land, foam on the shore; returns the glint (0: none)."""
    D = ((1 - t) * ((1 - s) * depth[iy, ix] + s * depth[iy, ix + 1])
         + t * ((1 - s) * depth[iy + 1, ix] + s * depth[iy + 1, ix + 1]))  # fmt: skip
    mix = min(max((D - 0.3) / 2.4, 0.0), 1.0)
    light = 1.0 + 0.05 * ripple + 0.03 * grain
    for q in range(3):
        shallow = 0.55 * colours[_W, q] + 0.25 * colours[_SA, q] + (40.0 if q else 0.0)
        rgb[q] = (shallow * (1 - mix) + 0.78 * colours[_W, q] * mix) * light
    if share > 0.3 + 0.25 * wob:
        for q in range(3):
            rgb[q] = rgb[q] * 0.35 + _FOAM[q] * 0.65
    elif D > 0.8 and _hash1(gxi // 2 + 3, gyj + 5) > 0.985:
        return 1 + int(((X * 0.31 + Y * 0.19 + 0.35 * band) % 1.0) * PHASES) % PHASES
    return 0


@njit(cache=True, nogil=True)
def _pixels(out, glint, C, C4, share4, depth, height, colours, tile, sub, px0, py0, cx0, cy0, tx, ty, bias, grain_of,
            fmt):  # fmt: skip
    """Every pixel of ``out`` (see :func:`landscape` for the recipe)."""
    ph, pw = out.shape
    z = float(tile)
    cv = np.empty(4, np.int64)
    wv = np.empty(4, np.float64)
    rgb = np.empty(3, np.float64)
    for j in range(ph):
        gyj = py0 + j
        Y, Y4 = (gyj + 0.5) / z - 0.5, (gyj + 0.5) * sub / z - 0.5
        by = int(np.floor(Y))
        t, iy = Y - by, by - cy0
        for i in range(pw):
            gxi = px0 + i
            X, X4 = (gxi + 0.5) / z - 0.5, (gxi + 0.5) * sub / z - 0.5
            bx = int(np.floor(X))
            s, ix = X - bx, bx - cx0
            wob = 0.2 * _noise(tx, ty, 0, i, j)
            T, share = _which(C4, share4, X4, Y4, sub, cx0, cy0, wob, bias, cv, wv)
            _ground(rgb, T, C, colours, ix, iy, s, t)
            grain = _hash1(gxi, gyj) - 0.5
            # Full relief on the high ground; on the plains a hint of it (no glowing rim at a foot).
            lift = 1.0 if T == _MO or T == _RO else 0.35  # noqa: SIM109 (plain compares compile simplest)
            shade = (1.0 + lift * (_relief(height, X4, Y4, sub, cx0, cy0) - 1.0)) * (1.0 + grain_of[T] * grain)
            if T != _W and share < 0.7:
                shade *= 0.88  # wet sand along the water
            for q in range(3):
                rgb[q] *= shade
            g = 0
            if T == _FO and tile >= 4:
                _tree(rgb, C, colours, X, Y, cx0, cy0, gxi, gyj)
            elif T == _SW:  # murky puddles; reeds when there are pixels for them
                if _noise(tx, ty, 1, i, j) * _noise(tx, ty, 2, i, j) > 0.12:
                    for q in range(3):
                        rgb[q] = rgb[q] * 0.55 + colours[_W, q] * 0.2
                elif tile >= 6 and gxi % 3 == 0 and gyj % 5 < 3 and _hash1(gxi // 3, gyj // 5 + 17) < 0.3:
                    for q in range(3):
                        rgb[q] = _REEDS[q]
            elif T == _W:
                g = _water(rgb, depth, colours, ix, iy, s, t, share, wob, grain, _noise(tx, ty, 3, i, j), X, Y,
                           _noise(tx, ty, 4, i, j), gxi, gyj)  # fmt: skip
            glint[j, i] = g
            px = fmt[6]
            for q in range(3):
                px |= (int(min(max(rgb[q], 0.0), 255.0)) >> fmt[3 + q]) << fmt[q]
            out[j, i] = px


def rehearse() -> None:
    """Draw a tiny rectangle: numba loads the kernel (or, the first time, compiles it)."""
    landscape(np.arange(len(Terrain), dtype=np.uint8).repeat(4)[None, :].repeat(6, 0), np.zeros((_N, 3)), 5, 0, 0,
              9, 7)  # fmt: skip


def main() -> int:
    """``python -m sim.view.draw.landscape``: compile the landscape's kernel into numba's cache, and
    the paths view's (:mod:`.path_lines`: wanted later, if at all)."""
    from sim.view.draw import path_lines  # (this process's job; the module imports nothing of the landscape)

    t0 = time.perf_counter()
    rehearse()
    print(f"  compiled the landscape in {time.perf_counter() - t0:.1f} s (cached for later starts)", flush=True)
    print(READY, flush=True)  # (the window draws the landscape from now on)
    path_lines.rehearse()
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:  # ctrl+C in the terminal reaches every process of the demo: end quietly
        sys.exit(130)
