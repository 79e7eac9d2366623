"""Tiled's XML formats: ``.tmx`` maps and ``.tsx`` tilesets -> :class:`~.model.TiledDoc`.

Reference: doc.mapeditor.org, "TMX Map Format". Errors name the file and the line.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from ..checks import short
from ..files import read_text
from ..mapdata import MapError
from .layers import LayerDataError, gids_from_base64, gids_from_csv, gids_from_numbers
from .model import Layer, TiledDoc, Tileset, terrain_table, tile_terrain
from .xml import Element, parse_xml


def read_tmx(path: Path, max_size: tuple[int, int]) -> TiledDoc:
    root = parse_xml(read_text(path, MapError).encode("utf-8"), path, MapError)
    if root.tag != "map":
        what = "a tileset (.tsx), not a map: open a map that uses it" if root.tag == "tileset" else "not a Tiled map"
        raise MapError(f"{path}:{root.line}: {what} (its root element is <{short(root.tag, 30)[1:-1]}>)")
    check_shape(path, root.line, root.attrib.get("orientation", "orthogonal"), root.attrib.get("infinite") == "1")
    width, height = _int(root, "width", path, 1), _int(root, "height", path, 1)
    if width > max_size[0] or height > max_size[1]:
        raise MapError(
            f"{path}:{root.line}: map is {width}x{height}, larger than the limit {max_size[0]}x{max_size[1]}"
        )
    tile_size = (_int(root, "tilewidth", path, 1), _int(root, "tileheight", path, 1))
    tilesets = sorted((_tileset(el, path) for el in root.findall("tileset")), key=lambda t: t.firstgid)
    doc = TiledDoc(width, height, tile_size, tilesets, [])
    _walk_layers(root, path, doc, visible=True)
    props, lines = properties(root, path)
    doc.properties, doc.lines = props, {**doc.lines, **lines}
    return doc


def check_shape(path: Path, line: int | None, orientation: Any, infinite: bool) -> None:
    """Only finite orthogonal maps: say so, and how to change it in Tiled."""
    at = f"{path}:{line}" if line else str(path)
    if orientation != "orthogonal":
        raise MapError(f"{at}: {short(orientation, 30)[1:-1]} maps are not supported, only orthogonal ones")
    if infinite:
        raise MapError(f"{at}: infinite maps are not supported; in Tiled, untick Map > Map Properties > Infinite")


def _int(el: Element, name: str, path: Path, lo: int, default: int | None = None) -> int:
    raw = el.attrib.get(name)
    if raw is None:
        if default is not None:
            return default
        raise MapError(f"{path}:{el.line}: <{el.tag}> has no '{name}'")
    try:
        value = int(raw)
    except ValueError:
        raise MapError(f"{path}:{el.line}: <{el.tag}> '{name}' must be a whole number, got {short(raw)}") from None
    if value < lo:
        raise MapError(f"{path}:{el.line}: <{el.tag}> '{name}' must be at least {lo}, got {value}")
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
        try:
            props[name] = int(raw) if kind == "int" else float(raw) if kind == "float" else raw
        except ValueError:
            raise MapError(f"{path}:{p.line}: property {short(name)} is not a valid {kind}: {short(raw)}") from None
        if kind == "bool":
            props[name] = raw == "true"
        lines[name] = p.line
    return props, lines


def _tileset(el: Element, path: Path) -> Tileset:
    firstgid = _int(el, "firstgid", path, 1)
    source = el.attrib.get("source")
    if source is None:
        return _tileset_body(el, path, firstgid, f"tileset '{el.attrib.get('name', '')}' ({path.name}:{el.line})")
    from .read import external_tileset

    return external_tileset(path, el.line, source, firstgid)


def tsx_tileset(path: Path, firstgid: int) -> Tileset:
    """An external ``.tsx`` tileset."""
    root = parse_xml(read_text(path, MapError).encode("utf-8"), path, MapError)
    if root.tag != "tileset":
        raise MapError(f"{path}:{root.line}: not a Tiled tileset (its root element is <{short(root.tag, 30)[1:-1]}>)")
    return _tileset_body(root, path, firstgid, f"tileset '{root.attrib.get('name', '')}' ({path.name})")


def _tileset_body(el: Element, path: Path, firstgid: int, where: str) -> Tileset:
    tiles: dict[int, int] = {}
    for tile in el.findall("tile"):
        local = _int(tile, "id", path, 0)
        props, _ = properties(tile, path)
        cls = tile.attrib.get("class") or tile.attrib.get("type")
        t = tile_terrain(props, cls, f"{path}:{tile.line}: tile {local} of {where}")
        if t != 255:
            tiles[local] = t
    count = _int(el, "tilecount", path, 0, default=0)
    return Tileset(firstgid, el.attrib.get("name", ""), terrain_table(tiles, count), where)


def _walk_layers(parent: Element, path: Path, doc: TiledDoc, visible: bool) -> None:
    """Tile layers bottom first (the file's order), through groups; spawn areas from object groups."""
    for el in parent.children:
        shown = visible and el.attrib.get("visible", "1") != "0"
        if el.tag == "layer":
            if shown:
                doc.layers.append(_layer(el, path, doc))
        elif el.tag == "group":
            _walk_layers(el, path, doc, shown)
        elif el.tag == "objectgroup" and el.attrib.get("name", "").strip().lower() == "spawn":
            _spawn_objects(el, path, doc)


def _layer(el: Element, path: Path, doc: TiledDoc) -> Layer:
    name = el.attrib.get("name", "")
    w, h = _int(el, "width", path, 1, doc.width), _int(el, "height", path, 1, doc.height)
    if (w, h) != (doc.width, doc.height):
        raise MapError(f"{path}:{el.line}: layer {short(name)} is {w}x{h}, the map is {doc.width}x{doc.height}")
    data = el.find("data")
    if data is None:
        raise MapError(f"{path}:{el.line}: layer {short(name)} has no <data>")
    if data.find("chunk") is not None:
        raise MapError(f"{path}:{data.line}: layer {short(name)} is stored in chunks (an infinite map); not supported")
    encoding = data.attrib.get("encoding", "")
    try:
        if encoding == "csv":
            gids = gids_from_csv(data.text, w, h)
        elif encoding == "base64":
            gids = gids_from_base64(data.text, data.attrib.get("compression", ""), w, h)
        elif encoding == "":
            gids = gids_from_numbers(data.gids or [], w, h)
        else:
            raise LayerDataError(f"unknown encoding {short(encoding, 20)}; Tiled writes csv or base64")
    except LayerDataError as exc:
        raise MapError(f"{path}:{data.line}: layer {short(name)}: {exc}") from None
    return Layer(name, gids, f"{path.name}:{el.line}")


def _spawn_objects(group: Element, path: Path, doc: TiledDoc) -> None:
    """Rectangles (or points) in an object layer named 'spawn', by species (class, type or name)."""
    tw, th = doc.tile_size
    for obj in group.findall("object"):
        species = obj.attrib.get("class") or obj.attrib.get("type") or obj.attrib.get("name") or ""
        x, y = _float(obj, "x", path), _float(obj, "y", path)
        w, h = _float(obj, "width", path), _float(obj, "height", path)
        doc.spawn.setdefault(species, []).append(cells(x, y, w, h, tw, th))
        doc.lines.setdefault(f"spawn.{species}", obj.line)
        doc.lines.setdefault("spawn", obj.line)


def cells(x: float, y: float, w: float, h: float, tw: int, th: int) -> list[int]:
    """A rectangle in pixels -> the cells it covers, as ``[x, y, width, height]`` (at least one cell)."""
    x0, y0 = math.floor(x / tw), math.floor(y / th)
    x1, y1 = max(x0 + 1, math.ceil((x + w) / tw)), max(y0 + 1, math.ceil((y + h) / th))
    return [x0, y0, x1 - x0, y1 - y0]
