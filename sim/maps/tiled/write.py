"""Writing a map for Tiled: ``.tmx`` (XML) or ``.tmj``/``.json``, with an embedded tileset.

The tileset has one tile per terrain (tile id = terrain id, gid = id + 1), each tagged with
a custom property ``terrain`` and the class of the same name, so the map loads back
identically; its image, ``<map stem>-tiles.png`` next to the map, shows the terrain
colours, so the map opens in Tiled looking like the demo. The map's name, description and
animal counts and search choices are map properties (``name``, ``description``,
``animals.<species>``, ``search.<species>``); the
spawn areas are rectangles in an object layer named ``spawn``, one per area, whose class
is the species.
"""

from __future__ import annotations

import json
import re
import struct
import zlib
from pathlib import Path
from xml.sax.saxutils import escape, quoteattr

import numpy as np

from sim.maps.data import MapError
from sim.support.files import write_atomically
from sim.world.geometry import CellRect
from sim.world.terrain import DEFAULT_COLOURS, Terrain

TILE = 16  # pixels per tile in the exported tileset
TILED_VERSION = ("1.10", "1.10.2")  # format version, the Tiled release whose output this follows


def write_tiled(
    path: Path,
    name: str,
    terrain: np.ndarray,
    description: str = "",
    spawn: dict[str, list[CellRect]] | None = None,
    animals: dict[str, int] | None = None,
    colours: dict[Terrain, tuple[int, int, int]] | None = None,
    search: dict[str, str] | None = None,
) -> list[Path]:
    """Write the map at ``path`` (format by suffix) and its tileset image, as one unit (both or
    neither, see :func:`~sim.support.files.write_atomically`); returns both paths. Text a
    format cannot hold is refused (:func:`check_writable_text`) before anything is written."""
    image = image_path(path)
    xml = path.suffix.lower() == ".tmx"
    for key, value in (("name", name), ("description", description)):
        check_writable_text(path, key, value, xml)
    props: list[tuple[str, str, str | int]] = [("name", "string", name), ("description", "string", description)]
    props += [(f"animals.{k}", "int", int(v)) for k, v in (animals or {}).items()]
    props += [(f"search.{k}", "string", v) for k, v in (search or {}).items()]
    areas = [(k, CellRect(*r)) for k, rects in (spawn or {}).items() for r in rects]
    if xml:
        text = _tmx(terrain, props, areas, image.name)
    else:
        text = json.dumps(_tmj(terrain, props, areas, image.name), indent=1, ensure_ascii=False)
        text = text.replace('"data": null', f'"data": [{_csv(terrain, ",")}]')  # rows, not a number per line
    files = [(image, tileset_png(colours or DEFAULT_COLOURS)), (path, text.encode("utf-8"))]
    write_atomically(files, MapError)
    return [path, image]


#: Characters XML 1.0 cannot hold at all, not even as ``&#1;`` (tab, newline and return it can).
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def check_writable_text(path: Path, key: str, value: str, xml: bool) -> None:
    """Text a map file must hold and give back equal: a ``MapError`` before anything is written
    if it cannot (a lone surrogate anywhere; in XML, a control character)."""
    if _SURROGATE.search(value):
        raise MapError(f"{path}: the map's {key} holds a lone surrogate, which no file can hold")
    bad = _NOT_XML.search(value) if xml else None
    if bad is not None:
        raise MapError(
            f"{path}: the map's {key} holds the control character U+{ord(bad.group()):04X}, which a .tmx file "
            "cannot hold; remove it, or write .tmj or .yaml"
        )


def image_path(path: Path) -> Path:
    """Where the tileset image of a map exported to ``path`` goes: ``<stem>-tiles.png`` beside it."""
    return path.with_name(f"{path.stem}-tiles.png")


def _csv(terrain: np.ndarray, row_end: str) -> str:
    """The gids (terrain id + 1) row by row, comma separated."""
    rows = (",".join(map(str, (row.astype(np.int64) + 1).tolist())) for row in terrain)
    return (row_end + "\n").join(rows)


def _tileset_tiles() -> list[Terrain]:
    return list(Terrain)


def _tmx(terrain: np.ndarray, props: list, areas: list[tuple[str, CellRect]], image: str) -> str:
    h, w = terrain.shape
    n = len(_tileset_tiles())
    out = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<map version="{TILED_VERSION[0]}" tiledversion="{TILED_VERSION[1]}" orientation="orthogonal" '
        f'renderorder="right-down" width="{w}" height="{h}" tilewidth="{TILE}" tileheight="{TILE}" '
        f'infinite="0" nextlayerid="3" nextobjectid="{len(areas) + 1}">',
        " <properties>",
        *(_tmx_property(k, kind, v, "  ") for k, kind, v in props),
        " </properties>",
        f' <tileset firstgid="1" name="terrain" tilewidth="{TILE}" tileheight="{TILE}" tilecount="{n}" columns="{n}">',
        f'  <image source={quoteattr(image)} width="{TILE * n}" height="{TILE}"/>',
    ]
    for t in _tileset_tiles():
        out += [f'  <tile id="{int(t)}" type="{t.label}">', "   <properties>"]
        out += [_tmx_property("terrain", "string", t.label, "    "), "   </properties>", "  </tile>"]
    out += [" </tileset>", f' <layer id="1" name="terrain" width="{w}" height="{h}">', '  <data encoding="csv">']
    out += [_csv(terrain, ","), "</data>", " </layer>", ' <objectgroup id="2" name="spawn">']
    for i, (species, r) in enumerate(areas, start=1):
        x, y, rw, rh = (v * TILE for v in r.xywh)
        out.append(f'  <object id="{i}" name="{species}" type="{species}" x="{x}" y="{y}" width="{rw}" height="{rh}"/>')
    out += [" </objectgroup>", "</map>", ""]
    return "\n".join(out)


def _tmx_property(name: str, kind: str, value: object, indent: str) -> str:
    typed = "" if kind == "string" else f' type="{kind}"'
    if isinstance(value, str) and "\n" in value:  # Tiled writes multi-line text as the element's content
        # A return or a tab as a character reference: an XML reader turns a literal "\r" into "\n".
        return f"{indent}<property name={quoteattr(name)}{typed}>{escape(value, _TEXT_REFS)}</property>"
    return f"{indent}<property name={quoteattr(name)}{typed} value={quoteattr(str(value))}/>"


_TEXT_REFS = {"\r": "&#13;", "\t": "&#9;"}


def _tmj(terrain: np.ndarray, props: list, areas: list[tuple[str, CellRect]], image: str) -> dict:
    h, w = terrain.shape
    tiles = [
        {"id": int(t), "properties": [{"name": "terrain", "type": "string", "value": t.label}], "type": t.label}
        for t in _tileset_tiles()
    ]
    n = len(tiles)
    objects = [
        {"height": r.height * TILE, "id": i, "name": k, "rotation": 0, "type": k, "visible": True,
         "width": r.width * TILE, "x": r.x0 * TILE, "y": r.y0 * TILE}
        for i, (k, r) in enumerate(areas, start=1)
    ]  # fmt: skip
    layer = {"data": None, "height": h, "id": 1, "name": "terrain", "opacity": 1, "type": "tilelayer",
             "visible": True, "width": w, "x": 0, "y": 0}  # fmt: skip
    spawn = {"draworder": "topdown", "id": 2, "name": "spawn", "objects": objects, "opacity": 1,
             "type": "objectgroup", "visible": True, "x": 0, "y": 0}  # fmt: skip
    tileset = {"columns": n, "firstgid": 1, "image": image, "imageheight": TILE, "imagewidth": TILE * n,
               "margin": 0, "name": "terrain", "spacing": 0, "tilecount": n, "tileheight": TILE, "tiles": tiles,
               "tilewidth": TILE}  # fmt: skip
    return {
        "compressionlevel": -1, "height": h, "infinite": False, "layers": [layer, spawn], "nextlayerid": 3,
        "nextobjectid": len(areas) + 1, "orientation": "orthogonal",
        "properties": [{"name": k, "type": kind, "value": v} for k, kind, v in props],
        "renderorder": "right-down", "tiledversion": TILED_VERSION[1], "tileheight": TILE, "tilesets": [tileset],
        "tilewidth": TILE, "type": "map", "version": TILED_VERSION[0], "width": w,
    }  # fmt: skip


def tileset_png(colours: dict[Terrain, tuple[int, int, int]]) -> bytes:
    """A PNG (RGB, 8 bits) of one ``TILE`` x ``TILE`` square per terrain, left to right; no pygame."""
    tiles = _tileset_tiles()
    row = np.zeros((TILE, TILE * len(tiles), 3), dtype=np.uint8)
    for i, t in enumerate(tiles):
        row[:, i * TILE : (i + 1) * TILE] = colours.get(t, DEFAULT_COLOURS[t])
        row[[0, -1], i * TILE : (i + 1) * TILE] //= 2  # a darker edge: the tiles are told apart in Tiled
        row[:, [i * TILE, (i + 1) * TILE - 1]] //= 2
    return png_bytes(row)


def png_bytes(rgb: np.ndarray) -> bytes:
    """Encode an ``[y, x, 3]`` uint8 image as PNG (filter 0 on every row)."""
    h, w, _ = rgb.shape
    raw = np.concatenate([np.zeros((h, 1), np.uint8), rgb.reshape(h, w * 3)], axis=1).tobytes()

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)  # 8-bit RGB, no interlace
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")
