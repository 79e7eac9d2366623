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
    with pytest.raises(ArtError, match=r"t\.png: not a PNG, JPEG, GIF or BMP file whose size its header says"):
        TileArt(m.art, m.terrain, m.terrain, {})
    (tmp_path / "t.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    with pytest.raises(ArtError, match=r"t\.png: not a PNG"):  # (a header cut short)
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


def _jpeg_with_size(tmp_path, w: int, h: int) -> bytes:
    """A real JPEG (pygame's) with its frame header's size set to ``w`` x ``h``."""
    image = pygame.Surface((16, 8))
    image.fill((40, 160, 60))
    pygame.image.save(image, str(tmp_path / "x.jpg"))
    data = bytearray((tmp_path / "x.jpg").read_bytes())
    i = 2
    while data[i + 1] not in (0xC0, 0xC1, 0xC2):  # to the frame header, segment by segment
        i += 2 + int.from_bytes(data[i + 2 : i + 4], "big")
    data[i + 5 : i + 9] = h.to_bytes(2, "big") + w.to_bytes(2, "big")
    return bytes(data)


def test_a_tileset_images_size_is_read_from_its_header_in_every_format_it_may_have(tmp_path, sheet):
    from sim.view.draw.map_art import image_size

    image = pygame.Surface((13, 7))
    for ext in ("png", "jpg", "bmp"):
        pygame.image.save(image, str(tmp_path / f"s.{ext}"))
        assert image_size(tmp_path / f"s.{ext}") == (13, 7), ext
        assert pygame.image.load(str(tmp_path / f"s.{ext}")).get_size() == (13, 7)
    gif = (b"GIF89a\x0d\x00\x07\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff!\xf9\x04\x01\x00\x00\x00\x00"
           b",\x00\x00\x00\x00\x0d\x00\x07\x00\x00\x02\x0b\x84\x8f\xa9\xcb\xed\x0f\xa3\x9c\xb4\x0a\x00;")  # fmt: skip
    (tmp_path / "s.gif").write_bytes(gif)
    assert image_size(tmp_path / "s.gif") == (13, 7) == pygame.image.load(str(tmp_path / "s.gif")).get_size()
    assert image_size(tmp_path / "t.png") == (8, 8)
    (tmp_path / "s.jpg").write_bytes(_jpeg_with_size(tmp_path, 321, 123))
    assert image_size(tmp_path / "s.jpg") == (321, 123)


@pytest.mark.parametrize("kind", ["jpeg", "bmp", "gif", "svg"])
def test_an_image_that_asks_for_billions_of_pixels_is_refused_before_it_is_decoded(tmp_path, sheet, kind):
    """A few hundred bytes asked for 60,000 x 60,000 pixels (14 GB): only PNG's header was read."""
    (tmp_path / "m.tmx").write_text(tmx("2,2,2,\n1,1,1", "0,0,0,\n0,0,0"))
    m = load_map(tmp_path / "m.tmx")
    big = (60000).to_bytes(2, "little") * 2
    data = {
        "jpeg": _jpeg_with_size(tmp_path, 60000, 60000),
        "bmp": b"BM" + b"\0" * 16 + (60000).to_bytes(4, "little") * 2 + b"\0" * 28,
        "gif": b"GIF89a" + big + b"\0" * 20,
        "svg": b'<svg xmlns="http://www.w3.org/2000/svg" width="60000" height="60000"><rect width="60000" '
               b'height="60000" fill="red"/></svg>',
    }[kind]  # fmt: skip
    (tmp_path / "t.png").write_bytes(data)  # (the name Tiled gave it; the content decides)
    said = r"t\.png: not a PNG, JPEG, GIF or BMP" if kind == "svg" else r"t\.png is 60000x60000 pixels, over 16384"
    with pytest.raises(ArtError, match=said):
        TileArt(m.art, m.terrain, m.terrain, {})
