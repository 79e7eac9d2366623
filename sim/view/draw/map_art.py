"""A Tiled map drawn with its own tiles (its tilesets' images, its layers in order, flips
honoured), as Tiled shows it; the terrain still drives the animals.

The picture is built once per map at the map's tile size and scaled to the zoom like the
flat terrain. A painted cell shows a tile of its new terrain (the first tile in the
tilesets that has that terrain), as if painted in Tiled; a cell put back (undo, reset)
shows its own tiles again.
"""

from __future__ import annotations

import struct
from pathlib import Path
from typing import BinaryIO

import numpy as np
import pygame

from sim.maps.data import MapArt, TileSheet
from sim.world.geometry import CellRect

#: The largest picture built (pixels at the map's tile size): 64 MB at 32 bits.
MAX_PIXELS = 16_000_000
#: The largest tileset image file read, in bytes, and in pixels a side and in all (from the image's
#: header, before it is decoded: a few hundred bytes of SVG or a patched JPEG header asked for
#: 60,000 x 60,000 pixels, 14 GB, and 20,000 x 20,000 took 1.6 GB and 6 s to draw).
MAX_IMAGE_BYTES = 32 << 20
MAX_IMAGE_SIDE = 16384
MAX_IMAGE_PIXELS = 64 << 20
#: The formats a tileset image may have: their headers say their size.
IMAGE_FORMATS = "PNG, JPEG, GIF or BMP"
_H, _V, _D = 0x80000000, 0x40000000, 0x20000000  # Tiled's flip flags
_GID = 0x0FFFFFFF


class ArtError(Exception):
    """Why a map's own tiles cannot be drawn (shown as a message; the landscape stays)."""


def image_size(path: Path) -> tuple[int, int] | None:
    """Width and height from the header of a PNG, JPEG, GIF or BMP file, read without decoding
    it (None for any other format, or a header too broken to say)."""
    with open(path, "rb") as f:
        head = f.read(32)
        if head[:8] == b"\x89PNG\r\n\x1a\n" and len(head) >= 24:
            return struct.unpack(">II", head[16:24])
        if head[:6] in (b"GIF87a", b"GIF89a") and len(head) >= 10:
            return struct.unpack("<HH", head[6:10])  # (the logical screen; no frame is larger)
        if head[:2] == b"BM" and len(head) >= 26:
            w, h = struct.unpack("<ii", head[18:26])
            return abs(w), abs(h)  # (a negative height: rows stored top down)
        if head[:2] == b"\xff\xd8":
            return _jpeg_size(f)
    return None


def _jpeg_size(f: BinaryIO) -> tuple[int, int] | None:
    """A JPEG's size from its frame header (SOF0-SOF15 but DHT, JPG and DAC), the markers before
    it skipped by their lengths; ``f`` is the open file."""
    f.seek(2)
    for _ in range(4096):  # (a marker a segment; a real file's frame header comes within a few)
        marker = f.read(2)
        while len(marker) == 2 and marker[0] == 0xFF and marker[1] == 0xFF:  # fill bytes
            marker = marker[1:] + f.read(1)
        if len(marker) < 2 or marker[0] != 0xFF:
            return None
        length = f.read(2)
        if len(length) < 2:
            return None
        if 0xC0 <= marker[1] <= 0xCF and marker[1] not in (0xC4, 0xC8, 0xCC):
            sof = f.read(5)
            return (struct.unpack(">H", sof[3:5])[0], struct.unpack(">H", sof[1:3])[0]) if len(sof) == 5 else None
        f.seek(struct.unpack(">H", length)[0] - 2, 1)
    return None


def _load_sheet(sheet: TileSheet) -> pygame.Surface:
    path = sheet.image
    try:
        size = path.stat().st_size
        if not path.is_file():
            raise ArtError(f"tileset image {path.name} is not a file")
        if size > MAX_IMAGE_BYTES:
            raise ArtError(f"tileset image {path.name} is over {MAX_IMAGE_BYTES >> 20} MB")
        dims = image_size(path)
        if dims is None:
            raise ArtError(f"tileset image {path.name}: not a {IMAGE_FORMATS} file whose size its header says")
        if max(dims) > MAX_IMAGE_SIDE or dims[0] * dims[1] > MAX_IMAGE_PIXELS:
            raise ArtError(f"tileset image {path.name} is {dims[0]}x{dims[1]} pixels, over {MAX_IMAGE_SIDE} a side "
                           f"or {MAX_IMAGE_PIXELS >> 20} M in all")  # fmt: skip
        image = pygame.image.load(str(path))
    except (OSError, pygame.error) as exc:
        raise ArtError(f"tileset image {path.name} cannot be read ({type(exc).__name__})") from None
    return image.convert_alpha() if pygame.display.get_surface() is not None else image


def _oriented(tile: pygame.Surface, raw: int) -> pygame.Surface:
    """``tile`` as a cell with flags ``raw`` shows it: the diagonal flip (x and y swapped)
    first, then horizontal, then vertical (Tiled's order)."""
    if raw & _D:
        tile = pygame.transform.flip(pygame.transform.rotate(tile, -90), True, False)
    if raw & (_H | _V):
        tile = pygame.transform.flip(tile, bool(raw & _H), bool(raw & _V))
    return tile


class TileArt:
    """The map's own picture at its tile size, for ``terrain`` as it is (``original``: as
    loaded); raises :class:`ArtError` when it cannot be made."""

    def __init__(self, art: MapArt, original: np.ndarray, terrain: np.ndarray, colours: dict) -> None:
        self.art = art
        self.original = original  # the terrain as loaded: where a cell still shows its own tiles
        self.colours = colours  # a painted terrain no tile has is drawn in its colour
        tw, th = art.tile_size
        h, w = original.shape
        if w * tw * h * th > MAX_PIXELS:
            raise ArtError(f"the map's own tiles would make a {w * tw}x{h * th} picture, over {MAX_PIXELS:,} pixels")
        self.sheets = {first: (sheet, _load_sheet(sheet)) for first, sheet in art.sheets.items()}
        self._firsts = sorted(self.sheets)
        self._tiles: dict[int, pygame.Surface | None] = {}
        self.picture = pygame.Surface((w * tw, h * th), pygame.SRCALPHA)
        self.draw_cells(CellRect(0, 0, w, h), terrain)  # as it is now: painted cells show their new terrain

    def tile(self, raw: int) -> pygame.Surface | None:
        """The tile surface a raw gid shows (None: empty, or a gid no sheet holds)."""
        if raw in self._tiles:
            return self._tiles[raw]
        gid = raw & _GID
        out = None
        first = max((f for f in self._firsts if f <= gid), default=None)
        if gid and first is not None:
            sheet, image = self.sheets[first]
            local = gid - first
            if sheet.count == 0 or local < sheet.count:  # a count of 0: not given, the image decides
                col, row = local % sheet.columns, local // sheet.columns
                x = sheet.margin + col * (sheet.tile_w + sheet.spacing)
                y = sheet.margin + row * (sheet.tile_h + sheet.spacing)
                if x + sheet.tile_w <= image.get_width() and y + sheet.tile_h <= image.get_height():
                    out = _oriented(image.subsurface((x, y, sheet.tile_w, sheet.tile_h)).copy(), raw)
        self._tiles[raw] = out
        return out

    def draw_cells(self, rect: tuple[int, int, int, int], terrain: np.ndarray) -> None:
        """Redraw the cells of ``rect``: their own tiles, layer by layer, where the terrain is
        as loaded; a tile of the new terrain where it was painted."""
        tw, th = self.art.tile_size
        x0, y0, x1, y1 = rect
        area = pygame.Rect(x0 * tw, y0 * th, (x1 - x0) * tw, (y1 - y0) * th)
        self.picture.fill((0, 0, 0, 0), area)
        painted = terrain[y0:y1, x0:x1] != self.original[y0:y1, x0:x1]
        clip = self.picture.get_clip()
        self.picture.set_clip(area)
        for layer in self.art.layers:
            self._blit(layer[y0:y1, x0:x1], np.where(painted, 0, 1).astype(bool), x0, y0)
        if painted.any():
            paint = np.zeros(painted.shape, np.uint32)
            for t, gid in self.art.terrain_tiles.items():
                paint[painted & (terrain[y0:y1, x0:x1] == t)] = gid
            for y, x in zip(*np.nonzero(painted & (paint == 0)), strict=True):  # no tile has it: its colour
                colour = self.colours.get(int(terrain[y0 + y, x0 + x]), (0, 0, 0))
                self.picture.fill(colour, ((x0 + x) * tw, (y0 + y) * th, tw, th))
            self._blit(paint, painted, x0, y0)
        self.picture.set_clip(clip)

    def _blit(self, raws: np.ndarray, keep: np.ndarray, x0: int, y0: int) -> None:
        tw, th = self.art.tile_size
        ys, xs = np.nonzero(keep & (raws & np.uint32(_GID) != 0))
        jobs = []
        for y, x, raw in zip(ys.tolist(), xs.tolist(), raws[ys, xs].tolist(), strict=True):
            tile = self.tile(raw)
            if tile is not None:  # anchored at the cell's bottom-left, as Tiled draws a tall tile
                jobs.append((tile, ((x0 + x) * tw, (y0 + y + 1) * th - tile.get_height())))
        self.picture.fblits(jobs)
