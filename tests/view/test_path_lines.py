"""The paths view's compiled drawing (sim.view.draw.path_lines) against pygame.draw, which drew
every path before (one Python call a path: 170 ms a frame at 20,000 animals)."""

from __future__ import annotations

import numpy as np
import pygame
import pytest

from sim.view.draw.path_lines import draw_path_lines, ring_offsets
from sim.view.draw.sprites import Pixels

W, H, WORLD_W = 320, 200, 64


def by_pygame(surface, paths, path_pos, path_len, pos, goal, colours, tile, cam_x, cam_y, radius):
    """What ``draw_path_lines`` draws, drawn as the paths view drew it with ``pygame.draw``."""
    for i in range(len(paths)):
        lo, hi = max(0, path_pos[i] - 1), path_len[i]
        if hi - lo < 1:
            continue
        pts = [((pos[i, 0] + 0.5) * tile - cam_x, (pos[i, 1] + 0.5) * tile - cam_y)]
        cells = paths[i, lo + 1 : hi]
        pts += [((c % WORLD_W + 0.5) * tile - cam_x, (c // WORLD_W + 0.5) * tile - cam_y) for c in cells]
        if len(pts) >= 2:
            pygame.draw.lines(surface, colours[i], False, pts, 1)
        g = ((goal[i, 0] + 0.5) * tile - cam_x, (goal[i, 1] + 0.5) * tile - cam_y)
        pygame.draw.circle(surface, colours[i], g, radius, 1)


@pytest.mark.parametrize("seed", range(12))
def test_paths_drawn_in_one_pass_are_pygames_lines_and_rings(seed):
    rng = np.random.default_rng(seed)
    n, length = 40, 30
    tile, cam_x, cam_y = int(rng.integers(2, 12)), float(rng.uniform(-200, 300)), float(rng.uniform(-200, 300))
    # Each path a walk of king's moves from a random cell (it may leave the screen and come back).
    start = rng.integers(0, 48, size=(n, 2))
    steps = rng.integers(-1, 2, size=(n, length, 2))
    xy = np.clip(start[:, None, :] + np.cumsum(steps, axis=1), 0, WORLD_W - 1)
    paths = (xy[..., 1] * WORLD_W + xy[..., 0]).astype(np.int32)
    path_pos = rng.integers(0, length, size=n).astype(np.int32)
    path_len = np.where(rng.random(n) < 0.1, path_pos, length).astype(np.int32)  # some with nothing left
    pos = xy[np.arange(n), np.maximum(path_pos - 1, 0)] + rng.uniform(-0.5, 0.5, size=(n, 2))
    goal = xy[:, -1].astype(np.int32)
    species = rng.integers(0, 3, size=n).astype(np.int8)
    rgb = [(250, 40, 40), (40, 250, 40), (60, 60, 250)]
    radius = max(2, tile // 3)
    ours, theirs = pygame.Surface((W, H), 0, 32), pygame.Surface((W, H), 0, 32)
    colours = np.array([ours.map_rgb(c) for c in rgb], np.uint32)
    with Pixels(ours) as img:
        written = draw_path_lines(img, np.arange(n), paths, path_pos, path_len, pos, goal, species, colours, WORLD_W,
                                  tile, cam_x, cam_y, ring_offsets(radius))  # fmt: skip
    by_pygame(theirs, paths, path_pos, path_len, pos, goal, [rgb[s] for s in species], tile, cam_x, cam_y, radius)
    a, b = pygame.surfarray.array3d(ours), pygame.surfarray.array3d(theirs)
    assert b.any() and (a == b).all()  # pixel for pixel: the same lines, the same rings, in the same order
    assert written >= a.any(axis=2).sum()  # (a pixel where segments join is written twice)


def test_a_ring_is_pygames_circle():
    for radius in (2, 3, 4, 7, 12):
        s = pygame.Surface((40, 40), 0, 8)
        s.fill(0)
        pygame.draw.circle(s, 1, (20, 20), radius, 1)
        xs, ys = np.nonzero(pygame.surfarray.array2d(s))
        assert sorted(zip((xs - 20).tolist(), (ys - 20).tolist(), strict=True)) == sorted(
            map(tuple, ring_offsets(radius).tolist())
        )
