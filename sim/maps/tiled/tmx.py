"""Tiled's XML formats: ``.tmx`` maps and ``.tsx`` tilesets -> :class:`~.model.TiledDoc`.

Reference: doc.mapeditor.org, "TMX Map Format". Errors name the file and the line.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

from sim.maps.data import MapError
from sim.maps.tiled.layers import LayerDataError, gids_from_base64, gids_from_csv, gids_from_numbers
from sim.maps.tiled.model import (
    MAX_CHUNK_OFFSET,
    MAX_GID,
    Chunk,
    Layer,
    Reading,
    TiledDoc,
    Tileset,
    place_chunks,
    sheet_of,
    terrain_table,
    tile_terrain,
)
from sim.maps.tiled.xml import Element, parse_xml
from sim.support.checks import parse_whole, short
from sim.support.files import read_text

MAX_TILE_PIXELS = 1 << 20  # a tile's width or height in pixels at most


def read_tmx(path: Path, reading: Reading) -> TiledDoc:
    root = parse_xml(read_text(path, MapError).encode("utf-8"), path, MapError)
    if root.tag != "map":
        what = "a tileset (.tsx), not a map: open a map that uses it" if root.tag == "tileset" else "not a Tiled map"
        raise MapError(f"{path}:{root.line}: {what} (its root element is <{short(root.tag, 30)[1:-1]}>)")
    check_shape(path, root.line, root.attrib.get("orientation", "orthogonal"))
    infinite = root.attrib.get("infinite", "0") == "1"
    max_size = reading.max_size
    width, height = _int(root, "width", path, 1, MAX_GID), _int(root, "height", path, 1, MAX_GID)
    if not infinite and (width > max_size[0] or height > max_size[1]):
        raise MapError(
            f"{path}:{root.line}: map is {width}x{height}, larger than the limit {max_size[0]}x{max_size[1]}"
        )
    tile_size = (_int(root, "tilewidth", path, 1, MAX_TILE_PIXELS), _int(root, "tileheight", path, 1, MAX_TILE_PIXELS))
    elements = root.findall("tileset")
    reading.count_tilesets(len(elements), f"{path}:{root.line}")  # before any is read
    tilesets = sorted((_tileset(el, path, reading) for el in elements), key=lambda t: t.firstgid)
    doc = TiledDoc(width, height, tile_size, tilesets, [])
    _walk_layers(root, path, doc, reading, visible=True, infinite=infinite)
    if infinite:
        place_chunks(doc, reading, f"{path}:{root.line}")
    props, lines = properties(root, path)
    doc.properties, doc.lines = props, {**doc.lines, **lines}
    return doc


def check_shape(path: Path, line: int | None, orientation: Any) -> None:
    """Only orthogonal maps: say so."""
    at = f"{path}:{line}" if line else str(path)
    if orientation != "orthogonal":
        raise MapError(f"{at}: {short(orientation, 30)[1:-1]} maps are not supported, only orthogonal ones")


def _int(el: Element, name: str, path: Path, lo: int, hi: int, default: int | None = None) -> int:
    raw = el.attrib.get(name)
    if raw is None:
        if default is not None:
            return default
        raise MapError(f"{path}:{el.line}: <{el.tag}> has no '{name}'")
    value = parse_whole(raw)
    if value is None:
        raise MapError(f"{path}:{el.line}: <{el.tag}> '{name}' must be a whole number, got {short(raw)}")
    if value < lo:
        raise MapError(f"{path}:{el.line}: <{el.tag}> '{name}' must be at least {lo}, got {value}")
    if value > hi:
        raise MapError(f"{path}:{el.line}: <{el.tag}> '{name}' must be at most {hi}, got {value}")
    return value


def _float(el: Element, name: str, path: Path) -> float:
    raw = el.attrib.get(name, "0")
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise MapError(f"{path}:{el.line}: <{el.tag}> '{name}' must be a number, got {short(raw)}")
    return value


def properties(el: Element, path: Path) -> tuple[dict[str, Any], dict[str, int]]:
    """An element's custom properties (typed as Tiled declares them) and their lines."""
    props: dict[str, Any] = {}
    lines: dict[str, int] = {}
    block = el.find("properties")
    for p in block.findall("property") if block is not None else ():
        name = p.attrib.get("name", "")
        raw = p.attrib.get("value", p.text)  # multi-line strings are the element's text
        kind = p.attrib.get("type", "string")
        props[name] = _typed(raw, kind)
        if props[name] is None:
            kind_name = short(kind, 20)[1:-1]
            raise MapError(f"{path}:{p.line}: property {short(name)} is not a valid {kind_name}: {short(raw)}")
        lines[name] = p.line
    return props, lines


def _typed(raw: str | None, kind: str) -> Any:
    """A property's value as Tiled declares its type, or None when it is not one."""
    if raw is None:
        return None
    if kind == "int":
        return parse_whole(raw)
    if kind == "float":
        try:
            value = float(raw)
        except ValueError:
            return None
        return value if math.isfinite(value) else None
    if kind == "bool":
        return raw == "true"
    return raw


def _tileset(el: Element, path: Path, reading: Reading) -> Tileset:
    firstgid = _int(el, "firstgid", path, 1, MAX_GID)
    source = el.attrib.get("source")
    if source is None:
        where = f"tileset {short(el.attrib.get('name', ''), 40)} ({path.name}:{el.line})"
        return _tileset_body(el, path, firstgid, where)
    return reading.external(reading, path, el.line, source, firstgid)


def tsx_tileset(path: Path, firstgid: int) -> Tileset:
    """An external ``.tsx`` tileset (a file that is none is refused without quoting it)."""
    root = parse_xml(read_text(path, MapError).encode("utf-8"), path, MapError)
    if root.tag != "tileset":
        raise MapError(f"{path}:{root.line}: not a Tiled tileset (its root element is not <tileset>)")
    return _tileset_body(root, path, firstgid, f"tileset {short(root.attrib.get('name', ''), 40)} ({path.name})")


def _tileset_body(el: Element, path: Path, firstgid: int, where: str) -> Tileset:
    tiles: dict[int, int] = {}
    count = _int(el, "tilecount", path, 0, MAX_GID, default=0)  # only tiles with data take room
    image = el.find("image")
    sheet = None
    if image is not None:
        size = {k: _int(el, k, path, 0, MAX_TILE_PIXELS, default=0) for k in ("tilewidth", "tileheight", "margin",
                                                                             "spacing")}  # fmt: skip
        if size["tilewidth"] and size["tileheight"]:
            attrs = {"source": image.attrib.get("source"), "width": _int(image, "width", path, 0, MAX_GID, default=0)}
            columns = _int(el, "columns", path, 0, MAX_GID, default=0)
            sheet = sheet_of(attrs, path.parent, size["tilewidth"], size["tileheight"], count, columns, size["margin"],
                             size["spacing"])  # fmt: skip
    for tile in el.findall("tile"):
        local = _int(tile, "id", path, 0, MAX_GID)
        props, _ = properties(tile, path)
        cls = tile.attrib.get("class") or tile.attrib.get("type")
        t = tile_terrain(props, cls, f"{path}:{tile.line}: tile {local} of {where}")
        if t != 255:
            tiles[local] = t
    return Tileset(firstgid, el.attrib.get("name", ""), *terrain_table(tiles), where, sheet)


def _walk_layers(parent: Element, path: Path, doc: TiledDoc, reading: Reading, visible: bool,
                 infinite: bool) -> None:  # fmt: skip
    """Tile layers bottom first (the file's order), through groups; spawn areas from object groups."""
    for el in parent.children:
        shown = visible and el.attrib.get("visible", "1") != "0"
        if el.tag == "layer":
            if shown:
                doc.layers.append(_chunked_layer(el, path, reading) if infinite else _layer(el, path, doc, reading))
        elif el.tag == "group":
            _walk_layers(el, path, doc, reading, shown, infinite)
        elif el.tag == "objectgroup" and el.attrib.get("name", "").strip().lower() == "spawn":
            _spawn_objects(el, path, doc)


def _layer(el: Element, path: Path, doc: TiledDoc, reading: Reading) -> Layer:
    name = el.attrib.get("name", "")
    w = _int(el, "width", path, 1, MAX_GID, doc.width)
    h = _int(el, "height", path, 1, MAX_GID, doc.height)
    if (w, h) != (doc.width, doc.height):
        raise MapError(f"{path}:{el.line}: layer {short(name)} is {w}x{h}, the map is {doc.width}x{doc.height}")
    data = el.find("data")
    if data is None:
        raise MapError(f"{path}:{el.line}: layer {short(name)} has no <data>")
    if data.find("chunk") is not None:
        raise MapError(
            f"{path}:{data.line}: layer {short(name)} is stored in chunks, but the map is not infinite "
            '(<map infinite="1">)'
        )
    try:
        reading.take_layer(w, h)  # before anything is decoded
        gids = _gids(data, data, w, h)
    except LayerDataError as exc:
        raise MapError(f"{path}:{data.line}: layer {short(name)}: {exc}") from None
    return Layer(name, gids, f"{path.name}:{el.line}")


def _gids(data: Element, held: Element, w: int, h: int) -> np.ndarray:
    """The gids ``held`` (the ``<data>`` or one of its ``<chunk>``s) in ``data``'s encoding."""
    encoding = data.attrib.get("encoding", "")
    if encoding == "csv":
        return gids_from_csv(held.text, w, h)
    if encoding == "base64":
        return gids_from_base64(held.text, data.attrib.get("compression", ""), w, h)
    if encoding == "":
        return gids_from_numbers(held.gids or [], w, h)
    raise LayerDataError(f"unknown encoding {short(encoding, 20)}; Tiled writes csv or base64")


def _chunked_layer(el: Element, path: Path, reading: Reading) -> Layer:
    """A layer of an infinite map: its ``<chunk>``s, each where it belongs (laid into one grid
    by :func:`~.model.place_chunks` once every layer is read)."""
    name = el.attrib.get("name", "")
    data = el.find("data")
    if data is None:
        raise MapError(f"{path}:{el.line}: layer {short(name)} has no <data>")
    layer = Layer(name, np.zeros((0, 0), np.uint32), f"{path.name}:{el.line}")
    pieces = [(c, _int(c, "x", path, -MAX_CHUNK_OFFSET, MAX_CHUNK_OFFSET),
               _int(c, "y", path, -MAX_CHUNK_OFFSET, MAX_CHUNK_OFFSET), c) for c in data.findall("chunk")]  # fmt: skip
    if not pieces and (data.text.strip() or data.gids):  # not as Tiled writes it: the layer's data is one chunk
        pieces = [(data, 0, 0, el)]
    for held, x, y, sized in pieces:  # (``sized``: the element with the width and height)
        w, h = _int(sized, "width", path, 1, MAX_GID), _int(sized, "height", path, 1, MAX_GID)
        try:
            reading.take_chunk(w, h)  # before anything is decoded
            layer.chunks.append(Chunk(x, y, _gids(data, held, w, h)))
        except LayerDataError as exc:
            raise MapError(f"{path}:{held.line}: layer {short(name)}: {exc}") from None
    return layer


def _spawn_objects(group: Element, path: Path, doc: TiledDoc) -> None:
    """Rectangles (or points) in an object layer named 'spawn', by species (class, type or name)."""
    tw, th = doc.tile_size
    for obj in group.findall("object"):
        species = obj.attrib.get("class") or obj.attrib.get("type") or obj.attrib.get("name") or ""
        x, y = _float(obj, "x", path), _float(obj, "y", path)
        w, h = _float(obj, "width", path), _float(obj, "height", path)
        doc.spawn.setdefault(species, []).append(cells(x, y, w, h, tw, th, f"{path}:{obj.line}"))
        doc.lines.setdefault(f"spawn.{species}", obj.line)
        doc.lines.setdefault("spawn", obj.line)


#: A spawn rectangle's corner in cells at most this far from the map (then the map's check says where it is).
FAR = 1 << 31


def cells(x: float, y: float, w: float, h: float, tw: int, th: int, at: str) -> list[int]:
    """A rectangle in pixels -> the cells it covers, as ``[x, y, width, height]`` (at least one cell)."""
    corners = (x / tw, y / th, (x + w) / tw, (y + h) / th)
    if not all(math.isfinite(v) and -FAR < v < FAR for v in corners):
        raise MapError(f"{at}: spawn area is far outside the map (x {x:g}, y {y:g}, width {w:g}, height {h:g} pixels)")
    x0, y0 = math.floor(x / tw), math.floor(y / th)
    x1, y1 = max(x0 + 1, math.ceil((x + w) / tw)), max(y0 + 1, math.ceil((y + h) / th))
    return [x0, y0, x1 - x0, y1 - y0]
