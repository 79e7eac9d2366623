"""The compiled sprite drawing puts exactly the sprite surfaces' opaque pixels on screen, clipped at the edges."""

from __future__ import annotations

import numpy as np
import pygame
import pytest

from sim.view.draw.sprites import SHADOW, SHADOW_RGB, TURNS, Pixels, SpriteBank, draw_sprites, render_animals

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
    sheet = bank.get(key, tile, screen)
    ks = rng.integers(0, len(sheet.surfaces), xs.size).astype(np.int64)  # any frame, any heading
    background = screen.map_rgb((10, 20, 30))
    screen.fill((10, 20, 30))
    with Pixels(screen) as img:
        draw_sprites(img, xs, ys, ks, sheet.runs, sheet.colours, sheet.starts, sheet.reach)
        got = img.copy()
    want = np.full_like(got, background)
    for x, y, k in zip(xs.tolist(), ys.tolist(), ks.tolist(), strict=True):
        stamp_reference(want, screen, bank, key, tile, x, y, k)
    assert np.array_equal(got, want)


LAYER = np.array([1, 2, 0])  # per species of KEYS: water below cows below birds


def _frame(screen, background, bank, state, pos, species, heading, cleared, partial):
    """One render_animals call on ``screen`` (sprite ``heading[i]`` of each animal's sheet,
    drawn by layer); returns its pixels."""
    runs, colours, starts, box, reach, bases = bank.table(KEYS, 8, screen)
    order = np.argsort(LAYER[species], kind="stable").astype(np.int64)
    ks = bases[species] + heading
    tiles = np.zeros((screen.get_height() // 16 + 1, screen.get_width() // 16 + 1), dtype=np.bool_)
    with Pixels(screen) as img, Pixels(background) as bg:
        drawn = render_animals(img, bg if partial else np.zeros((0, 0), np.uint32), pos[:, 0], pos[:, 1], ks, order,
                               0.0, 0.0, 8, runs, colours, starts, box, reach, *state, cleared, tiles)  # fmt: skip
        return img.copy(), drawn


def test_redrawing_only_what_changed_gives_the_full_redraws_picture(screen):
    """render_animals in its partial mode (put back what moved, redraw what it touched and
    whatever overlaps that) against a full repaint, frame after frame: a crowd on a small
    screen, overlapping, some resting, some turning, some walking off screen and back, with
    a rectangle of the screen cleared by something else now and then."""
    bank = SpriteBank(KEYS)
    view = pygame.Surface((320, 240), 0, screen)  # the display's pixel format; 40 x 30 cells at 8 px
    view.fill((40, 90, 160))
    background = view.copy()
    reference = view.copy()
    rng = np.random.default_rng(4)
    n = 90
    species = rng.integers(0, 3, n).astype(np.int8)
    pos = rng.uniform(-1, 40, (n, 2))
    pos[:20] = rng.uniform(10, 14, (20, 2))  # a tight crowd: sprites over sprites
    heading = rng.integers(0, TURNS, n).astype(np.int64)  # a sprite of the sheet: frame 0, any heading
    state = (np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(n, np.bool_))
    no_rects = np.zeros((0, 4), np.int64)
    _frame(view, background, bank, state, pos, species, heading, no_rects, partial=False)
    skipped = 0
    for frame in range(80):
        walking = rng.random(n) < 0.25
        pos[walking] += rng.uniform(-0.3, 0.3, (int(walking.sum()), 2))
        turned = rng.random(n) < 0.05
        heading[turned] = rng.integers(0, 2 * TURNS, int(turned.sum()))  # turned, or the next frame
        cleared = no_rects
        if frame % 5 == 2:  # something drawn over the scene and taken away: background there
            cleared = np.array([[int(v) for v in rng.integers(0, 200, 2)] + [90, 12]], dtype=np.int64)
            view.blit(background, pygame.Rect(*cleared[0]), pygame.Rect(*cleared[0]))
        shown = int(state[3].sum())
        got, drawn = _frame(view, background, bank, state, pos, species, heading, cleared, partial=True)
        reference.blit(background, (0, 0))
        want, _ = _frame(reference, background, bank, tuple(a.copy() for a in state), pos, species, heading,
                         no_rects, partial=False)  # fmt: skip
        assert np.array_equal(got, want), f"frame {frame}"
        skipped += shown - drawn
    assert skipped > 20 * 80  # most sprites were left as they were: the partial mode did its job


def test_sprites_walking_off_every_edge_are_put_back_within_the_screen(screen):
    """Sprites half off the screen, then leaving it across each edge (their boxes' ends outside
    it, on either side): the partial mode puts back only pixels on the screen and gives the
    full redraw's picture."""
    bank = SpriteBank(KEYS)
    view = pygame.Surface((160, 120), 0, screen)  # 20 x 15 cells at 8 px
    view.fill((40, 90, 160))
    background = view.copy()
    reference = view.copy()
    n = 8
    species = np.array([0, 1, 2, 0, 1, 2, 0, 1], np.int8)
    start = np.array([[5, 0], [12, 0], [0, 6], [0, 10], [19, 4], [19, 9], [7, 14], [14, 14]], np.float64)
    way = np.array([[0, -1], [0, -1], [-1, 0], [-1, 0], [1, 0], [1, 0], [0, 1], [0, 1]], np.float64)
    # Each at the heading whose pixels reach least far toward the edge it leaves by, so its box's
    # far end is off the screen while the sprite is still on it.
    _runs, _colours, _starts, box, _reach, bases = bank.table(KEYS, 8, view)
    ends = (box[:, 1], -box[:, 0], box[:, 3], -box[:, 2])  # up, down, left, right: the box's end behind
    toward = [0, 0, 2, 2, 3, 3, 1, 1]
    heading = np.array([int(np.argmin(ends[toward[i]][bases[species[i]] : bases[species[i]] + TURNS]))
                        for i in range(n)], np.int64)  # fmt: skip
    state = (np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(n, np.bool_))
    no_rects = np.zeros((0, 4), np.int64)
    _frame(view, background, bank, state, start, species, heading, no_rects, partial=False)
    for step in range(1, 25):  # a quarter cell a frame: 6 cells out, past the sprites' reach
        pos = start + way * step / 4
        got, _ = _frame(view, background, bank, state, pos, species, heading, no_rects, partial=True)
        reference.blit(background, (0, 0))
        want, _ = _frame(reference, background, bank, tuple(a.copy() for a in state), pos, species, heading,
                         no_rects, partial=False)  # fmt: skip
        assert np.array_equal(got, want), f"step {step}"
    assert not state[3].any()  # all gone off the screen


def test_a_full_redraw_draws_every_animal_on_screen_by_layer(screen):
    """render_animals without a background: every sprite that touches the screen, water
    creatures below cows below birds, each as its surface's opaque pixels."""
    bank = SpriteBank(KEYS)
    screen.fill((40, 90, 160))
    background = screen.copy()
    rng = np.random.default_rng(1)
    n = 12
    species = np.array([0, 1, 2] * 4, dtype=np.int8)
    pos = rng.uniform(-1.5, 8.5, (n, 2))  # cells; some off screen at tile 8
    heading = rng.integers(0, 2 * TURNS, n).astype(np.int64)
    state = (np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(n, np.int64), np.zeros(n, np.bool_))
    got, _ = _frame(screen, background, bank, state, pos, species, heading, np.zeros((0, 4), np.int64), partial=False)
    want = np.full_like(got, screen.map_rgb((40, 90, 160)))
    reach = bank.table(KEYS, 8, screen)[4]
    for s in (2, 0, 1):
        for i in np.flatnonzero(species == s):
            x, y = int((pos[i, 0] + 0.5) * 8), int((pos[i, 1] + 0.5) * 8)
            if -reach < x < 64 + reach and -reach < y < 48 + reach:
                stamp_reference(want, screen, bank, KEYS[s], 8, x, y, int(heading[i]))
                assert state[3][i] and (state[0][i], state[1][i]) == (x, y)
            else:
                assert not state[3][i]
    assert np.array_equal(got, want)


def test_a_species_without_a_sprite_file_gets_a_drawn_shape(monkeypatch, tmp_path):
    import sim.view.draw.sprites as sprites

    monkeypatch.setattr(sprites, "sprite_path", lambda key: tmp_path / f"{key}.png")  # no such files
    pygame.display.init()
    pygame.display.set_mode((32, 32))
    bank = sprites.SpriteBank(["cow", "goat"])
    for key in ("cow", "goat"):
        assert bank.cycles(key) == (1, 1)  # the shape, moving and resting
        pic = bank.source[key].moving[0]
        alpha = pygame.surfarray.array_alpha(pic)
        assert pic.get_size() == (16, 16) and (alpha > 0).sum() > 50  # a shape, not an empty square
    sheet = bank.get("goat", 8, pygame.display.get_surface())
    assert len(sheet.surfaces) == 2 * TURNS and sheet.pixels > 20


def test_the_sheets_have_their_cycles_and_every_frame_turns_to_sixteen_headings(screen):
    """The shipped sheets: cows walk (4) and graze (2), birds flap (4) and glide (1), water
    creatures swim (4) and drift (2); turning a frame keeps its size (within rounding), and a
    shadow is a soft dark ellipse under the bird, whatever its pose (its silhouette read as an "X")."""
    bank = SpriteBank(KEYS)
    assert [bank.cycles(k) for k in KEYS] == [(4, 2), (4, 1), (4, 2)]
    for key in KEYS:
        sheet = bank.get(key, 12, screen)
        counts = [int((pygame.surfarray.array_alpha(s) > 127).sum()) for s in sheet.surfaces]
        assert len(counts) == sum(bank.cycles(key)) * TURNS
        for f in range(len(counts) // TURNS):
            turned = counts[f * TURNS : (f + 1) * TURNS]
            assert min(turned) > 0.75 * max(turned)
        assert len({tuple(sheet.box[k]) for k in range(TURNS)}) > 4  # the headings differ
    shadow = bank.get("bird" + SHADOW, 12, screen)
    for k in (0, 5, TURNS + 3):
        a = pygame.surfarray.array_alpha(shadow.surfaces[k]) > 127  # [x, y]
        assert {tuple(c) for c in pygame.surfarray.array3d(shadow.surfaces[k])[a]} == {SHADOW_RGB}
        xs, ys = np.nonzero(a)
        w, h = xs.max() - xs.min() + 1, ys.max() - ys.min() + 1
        assert w > 1.5 * h  # an ellipse, wider than tall ...
        assert 0.25 < a.sum() / (np.pi * w * h / 4) < 0.8  # ... dithered: it reads as see-through
        cx, cy = a.shape[0] / 2, a.shape[1] / 2
        assert abs(xs.mean() + 0.5 - cx) < 1 and abs(ys.mean() + 0.5 - cy) < 1  # under the bird's middle


def test_a_kernel_compiling_on_its_first_call_leaves_the_screen_unlocked(screen):
    """numba keeps a first call's arguments (it compiles then) until the garbage collector runs:
    the pixels of a screen handed to a kernel so must not keep it locked after the ``with``
    block, or the next blit fails (a real window's first frames crashed so)."""
    from numba import njit

    fresh = njit(nogil=True)(draw_sprites.py_func)  # not compiled yet: this call compiles it
    sheet = SpriteBank(["cow"]).get("cow", 8, screen)

    def draw() -> None:
        with Pixels(screen) as img:
            fresh(img, np.array([20]), np.array([20]), np.array([0]), sheet.runs, sheet.colours, sheet.starts,
                  sheet.reach)  # fmt: skip

    draw()
    assert not screen.get_locked()
    screen.blit(pygame.Surface((4, 4)), (0, 0))


def test_pixels_of_a_subsurface_are_its_own_and_unlocked_after(screen):
    """``Pixels`` of a subsurface: its own rectangle of the parent's pixels, ``[y, x]``, written
    through; the parent is unlocked once the block ends. 8-bit and empty surfaces too."""
    parent = pygame.Surface((50, 40), 0, screen)
    parent.fill((1, 2, 3))
    with Pixels(parent.subsurface((10, 5, 30, 20))) as img:
        assert img.shape == (20, 30)
        img[:] = parent.map_rgb((9, 9, 9))
    del img
    assert not parent.get_locked()
    grey = parent.map_rgb((9, 9, 9))
    painted = np.equal(pygame.surfarray.array2d(parent).T, grey)
    want = np.zeros((40, 50), bool)
    want[5:25, 10:40] = True
    assert np.array_equal(painted, want)
    with Pixels(pygame.Surface((13, 7), depth=8)) as img:
        assert img.shape == (7, 13) and img.dtype == np.uint8
    with Pixels(pygame.Surface((0, 5), 0, screen)) as img:
        assert img.shape == (5, 0)
    odd = pygame.Surface((4, 4), depth=16)
    with pytest.raises(ValueError, match="Pixels takes 8- and 32-bit surfaces, not 16-bit"), Pixels(odd):
        pass
    assert not odd.get_locked()


def test_pixels_kept_between_blocks_are_always_the_surface_s_own(screen):
    """``Pixels`` keeps the arrays it made (the screen's is asked for a few times a frame): each
    block still writes its own surface, whatever surfaces came and went before it, of the same
    size or not, and a surface whose pixels moved (a resized window's) gets its new memory."""
    rng = np.random.default_rng(5)
    for trial in range(60):
        w, h = int(rng.integers(1, 40)), int(rng.integers(1, 30))
        surface = pygame.Surface((w, h), 0, screen)
        colour = (trial, 255 - trial, 7)
        with Pixels(surface) as img:
            assert img.shape == (h, w) and img.ctypes.data == surface._pixels_address
            img[:] = surface.map_rgb(colour)
        assert surface.get_at((w - 1, h - 1))[:3] == colour
        with Pixels(surface) as again:
            assert again is img  # (kept)
        del surface, img, again
