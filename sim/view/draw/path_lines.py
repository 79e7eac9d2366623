"""Every walking animal's path in one compiled pass (the paths view, P): 1-pixel lines from each
animal's point through the cells it has left to walk, and a ring at its goal, written straight into
the screen's pixels. Through ``pygame.draw`` a path cost ~8 µs of Python: 170 ms a frame at 20,000
animals.

Points are screen pixels as :meth:`~sim.view.camera.Camera.to_screen` gives them (a cell's centre);
images are ``[y, x]`` (uint32, the screen's pixel format: :class:`~sim.view.draw.sprites.Pixels`).
"""

from __future__ import annotations

import numpy as np
import pygame
from numba import njit


@njit(cache=True, nogil=True)
def draw_path_lines(img, rows, paths, path_pos, path_len, pos, goal, species, colours, world_w, tile, cam_x, cam_y,
                    ring):  # fmt: skip
    """Animal ``i``'s path for each ``i`` in ``rows``: from its point ``pos[i]`` through the cells
    ``paths[i, path_pos[i] : path_len[i]]`` (flat ``y * world_w + x``), and the pixels ``ring``
    (``(k, 2)`` offsets ``(dx, dy)``: :func:`ring_offsets`) round its goal, in ``colours[species[i]]``;
    an animal with no cell left is skipped. Cells are ``tile`` pixels, the screen's corner at
    ``(cam_x, cam_y)``; a point's pixel is its coordinates cut to whole numbers, as ``pygame.draw``
    takes them. Returns how many pixels it wrote (those on screen; where two segments join, twice)."""
    written = 0
    h, w = img.shape
    for i in rows:
        lo, hi = max(0, path_pos[i] - 1), path_len[i]
        if hi - lo < 1:
            continue
        c = colours[species[i]]
        x0, y0 = (pos[i, 0] + 0.5) * tile - cam_x, (pos[i, 1] + 0.5) * tile - cam_y
        for j in range(lo + 1, hi):
            cell = paths[i, j]
            x1 = (cell % world_w + 0.5) * tile - cam_x
            y1 = (cell // world_w + 0.5) * tile - cam_y
            written += _segment(img, x0, y0, x1, y1, c)
            x0, y0 = x1, y1
        gx, gy = int((goal[i, 0] + 0.5) * tile - cam_x), int((goal[i, 1] + 0.5) * tile - cam_y)
        for k in range(ring.shape[0]):
            x, y = gx + ring[k, 0], gy + ring[k, 1]
            if 0 <= x < w and 0 <= y < h:
                img[y, x] = c
                written += 1
    return written


def ring_offsets(radius: int) -> np.ndarray:
    """The pixels of ``pygame.draw.circle``'s 1-pixel circle of ``radius`` round ``(0, 0)``, as
    ``(k, 2)`` int64 offsets ``(dx, dy)``: the rings look as they did when pygame drew them."""
    size = 2 * radius + 4
    mask = pygame.Surface((size, size), 0, 8)
    mask.fill(0)
    pygame.draw.circle(mask, 1, (radius + 2, radius + 2), radius, 1)
    xs, ys = np.nonzero(pygame.surfarray.array2d(mask))
    return np.stack([xs - radius - 2, ys - radius - 2], axis=1).astype(np.int64)


@njit(cache=True, nogil=True, inline="always")
def _put(img, x, y, c):
    h, w = img.shape
    if 0 <= x < w and 0 <= y < h:
        img[y, x] = c
        return 1
    return 0


@njit(cache=True, nogil=True)
def _segment(img, x0, y0, x1, y1, c):
    """A 1-pixel line from ``(x0, y0)`` to ``(x1, y1)`` (float pixels, cut to whole ones as
    ``pygame.draw.lines`` does), stepped as pygame's own line (``draw.c``: Bresenham's, its error
    term starting at half the major axis), the pixels off the image left out; a line whose box
    misses the image is not stepped at all."""
    h, w = img.shape
    ax, ay, bx, by = int(x0), int(y0), int(x1), int(y1)
    if max(ax, bx) < 0 or max(ay, by) < 0 or min(ax, bx) >= w or min(ay, by) >= h:
        return 0
    dx, dy = abs(bx - ax), abs(by - ay)
    sx, sy = (1 if ax < bx else -1), (1 if ay < by else -1)
    err = dx // 2 if dx > dy else -(dy // 2)
    written = 0
    while ax != bx or ay != by:
        written += _put(img, ax, ay, c)
        e2 = err
        if e2 > -dx:
            err -= dy
            ax += sx
        if e2 < dy:
            err += dx
            ay += sy
    return written + _put(img, bx, by, c)


def rehearse() -> None:
    """Draw one short path off screen: numba loads (or, on a first run, compiles: ~0.8 CPU s) the
    kernel with the types the paths view gives it (``sim.model.agents``' columns). Done in the
    landscape's process of a window's first start, so the first P does not stall on it."""
    img = np.zeros((8, 8), np.uint32)
    draw_path_lines(img, np.zeros(1, np.int64), np.array([[0, 1, 9]], np.int32), np.zeros(1, np.int32),
                    np.full(1, 3, np.int32), np.zeros((1, 2)), np.ones((1, 2), np.int32), np.zeros(1, np.int8),
                    np.ones(1, np.uint32), 8, 2, 0.0, 0.0, np.zeros((1, 2), np.int64))  # fmt: skip
