"""A Tiled map drawn with its own tiles: layers in order, flips honoured, painted cells
shown with a tile of their terrain, a broken tileset image refused with a message."""

from __future__ import annotations

import numpy as np
import pygame
import pytest

from sim.maps import load_map
from sim.view.draw.map_art import ArtError, TileArt
from sim.world.terrain import Terrain
from tests.conftest import ROOT
from tests.helpers import key

TSX = """<?xml version="1.0" encoding="UTF-8"?>
<tileset name="t" tilewidth="4" tileheight="4" tilecount="4" columns="2">
 <image source="t.png" width="8" height="8"/>
 <tile id="0"><properties><property name="terrain" value="water"/></properties></tile>
 <tile id="1"><properties><property name="terrain" value="grass"/></properties></tile>
 <tile id="2"><properties><property name="terrain" value="rock"/></properties></tile>
</tileset>
"""


def tmx(ground: str, top: str) -> str:
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<map version="1.10" orientation="orthogonal" width="3" height="2" tilewidth="4" tileheight="4">
 <tileset firstgid="1" source="t.tsx"/>
 <layer id="1" name="ground" width="3" height="2"><data encoding="csv">{ground}</data></layer>
 <layer id="2" name="top" width="3" height="2"><data encoding="csv">{top}</data></layer>
</map>
"""


@pytest.fixture
def sheet(tmp_path):
    """An 8x8 tileset image: four 4x4 tiles, every pixel a different colour."""
    pygame.display.init()
    pygame.display.set_mode((8, 8))
    image = pygame.Surface((8, 8), pygame.SRCALPHA)
    for y in range(8):
        for x in range(8):
            image.set_at((x, y), (30 * x, 30 * y, 100 + (x * y) % 7, 255))
    image.set_at((4, 4), (0, 0, 0, 0))  # tile 3 has a see-through pixel
    pygame.image.save(image, str(tmp_path / "t.png"))
    (tmp_path / "t.tsx").write_text(TSX)
    yield image
    pygame.display.quit()


def tile_pixels(image: pygame.Surface, local: int) -> np.ndarray:
    x, y = 4 * (local % 2), 4 * (local // 2)
    return pygame.surfarray.array3d(image.subsurface((x, y, 4, 4))).transpose(1, 0, 2)  # [y, x]


def picture_cell(art: TileArt, x: int, y: int) -> np.ndarray:
    return pygame.surfarray.array3d(art.picture.subsurface((4 * x, 4 * y, 4, 4))).transpose(1, 0, 2)


def test_layers_in_order_and_flips_as_tiled_draws_them(tmp_path, sheet):
    h, v, d = 0x80000000, 0x40000000, 0x20000000
    ground = f"2,{2 | h},{2 | v},\n{2 | d},{2 | h | v | d},1"
    (tmp_path / "m.tmx").write_text(tmx(ground, "0,0,0,\n0,0,4"))
    m = load_map(tmp_path / "m.tmx")
    assert (m.terrain == Terrain.GRASS).sum() == 5  # flags cleared for the terrain
    assert int(m.art.layers[0][0, 1]) == 2 | h  # and kept for the picture
    art = TileArt(m.art, m.terrain, m.terrain, {})
    grass = tile_pixels(sheet, 1)
    assert np.array_equal(picture_cell(art, 0, 0), grass)
    assert np.array_equal(picture_cell(art, 1, 0), grass[:, ::-1])  # horizontal
    assert np.array_equal(picture_cell(art, 2, 0), grass[::-1, :])  # vertical
    assert np.array_equal(picture_cell(art, 0, 1), grass.transpose(1, 0, 2))  # diagonal: x and y swapped
    assert np.array_equal(picture_cell(art, 1, 1), grass.transpose(1, 0, 2)[::-1, ::-1])  # all three
    # The top layer's tile 3 over the ground's water; its see-through pixel shows the water.
    want = tile_pixels(sheet, 3).copy()
    want[0, 0] = tile_pixels(sheet, 0)[0, 0]
    assert np.array_equal(picture_cell(art, 2, 1), want)


def test_a_painted_cell_shows_a_tile_of_its_terrain_and_undo_brings_back_its_own(tmp_path, sheet):
    (tmp_path / "m.tmx").write_text(tmx("2,2,2,\n1,1,1", "0,0,0,\n0,0,0"))
    m = load_map(tmp_path / "m.tmx")
    art = TileArt(m.art, m.terrain.copy(), m.terrain, {int(Terrain.SAND): (200, 190, 100)})
    terrain = m.terrain.copy()
    terrain[0, 1] = Terrain.ROCK
    terrain[1, 2] = Terrain.SAND  # no tile has sand: its colour
    from sim.world.geometry import CellRect

    art.draw_cells(CellRect(0, 0, 3, 2), terrain)
    assert np.array_equal(picture_cell(art, 1, 0), tile_pixels(sheet, 2))
    assert (picture_cell(art, 2, 1) == (200, 190, 100)).all()
    art.draw_cells(CellRect(0, 0, 3, 2), m.terrain)
    assert np.array_equal(picture_cell(art, 1, 0), tile_pixels(sheet, 1))
    # Made after the painting (T pressed on a painted map): the painted cell from the start.
    later = TileArt(m.art, m.terrain, terrain, {})
    assert np.array_equal(picture_cell(later, 1, 0), tile_pixels(sheet, 2))


def test_a_broken_tileset_image_is_refused_in_words(tmp_path, sheet):
    (tmp_path / "m.tmx").write_text(tmx("2,2,2,\n1,1,1", "0,0,0,\n0,0,0"))
    m = load_map(tmp_path / "m.tmx")
    (tmp_path / "t.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 8 + (100000).to_bytes(4, "big") * 2)
    with pytest.raises(ArtError, match=r"t\.png is 100000x100000 pixels"):
        TileArt(m.art, m.terrain, m.terrain, {})
    (tmp_path / "t.png").write_bytes(b"not an image")
    with pytest.raises(ArtError, match=r"t\.png cannot be read"):
        TileArt(m.art, m.terrain, m.terrain, {})
    (tmp_path / "t.png").unlink()
    with pytest.raises(ArtError, match=r"t\.png cannot be read"):
        TileArt(m.art, m.terrain, m.terrain, {})


def test_t_cycles_the_looks_and_a_map_without_tiles_says_so(make_app):
    app = make_app("maps/lagoon.tmx", counts={"cow": 0, "bird": 0, "water": 0})
    layer = app.view.terrain
    assert layer.look == "landscape"
    looks = []
    for _ in range(3):
        key(pygame.K_t)
        app.frame(1 / 60)
        looks.append(layer.look)
    assert looks == ["flat", "tiles", "landscape"]
    key(pygame.K_t)
    key(pygame.K_t)
    app.frame(1 / 60)
    assert layer.look == "tiles"
    # The lagoon's own tiles on screen, at their own size: a cell is its tile, pixel for pixel.
    tiles = pygame.image.load(str(ROOT / "maps" / "terrain.png"))
    app.cam.zoom_to(16)
    app.frame(1 / 60)
    layer.prepare(app.screen, app.cam)
    view = pygame.surfarray.array3d(layer.view)  # [x, y]
    for cx, cy in ((30, 10), (20, 30), (50, 24)):
        t = int(app.sim.world.terrain[cy, cx])
        want = pygame.surfarray.array3d(tiles.subsurface((16 * t, 0, 16, 16)))
        left, top = (round(v) for v in app.cam.to_screen(cx - 0.5, cy - 0.5))
        assert np.abs(view[left : left + 16, top : top + 16].astype(int) - want).max() <= 2
    # A map without a tileset image: T skips that look, and says why.
    app.sim.load_map(load_map(ROOT / "maps" / "tutorial.yaml"))
    app.frame(1 / 60)
    assert layer.look == "landscape"
    key(pygame.K_t)
    key(pygame.K_t)
    app.frame(1 / 60)
    assert layer.look == "landscape"
    assert "no tileset image" in app.messages.shown().text
