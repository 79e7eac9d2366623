"""The compiled sprite drawing puts exactly the sprite surfaces' opaque pixels on screen, clipped at the edges."""

from __future__ import annotations

import numpy as np
import pygame
import pytest

from sim.agents import HEADINGS
from sim.view.sprites import Pixels, SpriteBank, draw_sprites, render_animals

KEYS = ["cow", "bird", "water"]


@pytest.fixture(scope="module")
def screen():
    pygame.display.init()
    surface = pygame.display.set_mode((64, 48))
    yield surface
    pygame.display.quit()


def stamp_reference(out: np.ndarray, screen: pygame.Surface, bank: SpriteBank, key: str, tile: int, x: int, y: int,
                    k: int) -> None:  # fmt: skip
    """Write into ``out`` (``[y, x]``, the screen's pixel values) the sprite surface's opaque
    pixels (alpha > 127) with its centre at ``(x, y)``, clipped: built from the SDL surface
    with numpy, not from the tables the drawing uses."""
    surf = bank.get(key, tile, screen).surfaces[k]
    alpha = pygame.surfarray.array_alpha(surf).T > 127  # [y, x]
    rgb = pygame.surfarray.array3d(surf).transpose(1, 0, 2)
    x0, y0 = x - surf.get_width() // 2, y - surf.get_height() // 2
    for sy, sx in np.argwhere(alpha):
        px, py = x0 + sx, y0 + sy
        if 0 <= px < out.shape[1] and 0 <= py < out.shape[0]:
            out[py, px] = screen.map_rgb(tuple(int(c) for c in rgb[sy, sx]))


@pytest.mark.parametrize("key", KEYS)
@pytest.mark.parametrize("tile", [4, 8, 13])
def test_sprites_are_their_surfaces_opaque_pixels_even_at_the_edges(screen, key, tile):
    bank = SpriteBank(KEYS)
    rng = np.random.default_rng(tile)
    w, h = screen.get_size()
    # Inside, on every edge and corner, and just off screen.
    xs = np.array([w // 2, 0, w - 1, 3, w - 2, -3, w + 2, 1, w // 3], dtype=np.int64)
    ys = np.array([h // 2, h // 3, 2, 0, h - 1, h // 2, 5, h + 3, -2], dtype=np.int64)
    ks = rng.integers(0, HEADINGS, xs.size).astype(np.int64)
    background = screen.map_rgb((10, 20, 30))
    screen.fill((10, 20, 30))
    sheet = bank.get(key, tile, screen)
    with Pixels(screen) as img:
        draw_sprites(img, xs, ys, ks, sheet.runs, sheet.colours, sheet.starts, sheet.reach)
        got = img.copy()
    want = np.full_like(got, background)
    for x, y, k in zip(xs.tolist(), ys.tolist(), ks.tolist(), strict=True):
        stamp_reference(want, screen, bank, key, tile, x, y, k)
    assert np.array_equal(got, want)


def test_a_frame_erases_last_frames_sprites_and_draws_this_ones(screen):
    """render_animals: last frame's sprites are put back to the background (and nothing
    else is touched), the new ones drawn by layer; what it reports drawn is what is on screen."""
    bank = SpriteBank(KEYS)
    tile = 8
    runs, colours, starts, box, reach = bank.table(KEYS, tile, screen)
    screen.fill((40, 90, 160))
    background = screen.copy()
    rng = np.random.default_rng(1)
    n = 12
    species = np.array([0, 1, 2] * 4, dtype=np.int8)
    layers = np.array([2, 0, 1], dtype=np.int64)  # water below cows below birds
    drawn = (np.zeros(0, np.int64),) * 3
    for _frame in range(3):
        pos = rng.uniform(-1.5, 8.5, (n, 2))  # cells; some off screen at tile 8
        heading = rng.integers(0, HEADINGS, n).astype(np.int8)
        out = [np.empty(n, np.int64) for _ in range(3)]
        with Pixels(screen) as img, Pixels(background) as bg:
            count = render_animals(img, bg, *drawn, pos, species, heading, layers, 0.0, 0.0, tile, runs, colours,
                                   starts, box, reach, *out)  # fmt: skip
            got = img.copy()
        drawn = tuple(o[:count] for o in out)
        want = np.full_like(got, screen.map_rgb((40, 90, 160)))
        placed = []
        for s in layers:
            for i in np.flatnonzero(species == s):
                x, y = int((pos[i, 0] + 0.5) * tile), int((pos[i, 1] + 0.5) * tile)
                if -reach < x < 64 + reach and -reach < y < 48 + reach:
                    placed.append((KEYS[s], x, y, int(heading[i])))
        for key, x, y, k in placed:
            stamp_reference(want, screen, bank, key, tile, x, y, k)
        assert count == len(placed)
        assert np.array_equal(got, want)
