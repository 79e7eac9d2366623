"""Tiled's JSON formats: ``.tmj``/``.json`` maps and ``.tsj``/``.json`` tilesets -> :class:`~.model.TiledDoc`.

Reference: doc.mapeditor.org, "JSON Map Format". Errors name the file and the key
(``layers[1].data``); JSON has no useful line once parsed.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from ..checks import short
from ..files import read_text
from ..mapdata import MapError
from .layers import LayerDataError, gids_from_base64, gids_from_numbers
from .model import Layer, TiledDoc, Tileset, terrain_table, tile_terrain
from .tmx import cells, check_shape


def load_json(path: Path) -> dict[str, Any]:
    text = read_text(path, MapError)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise MapError(f"{path}:{exc.lineno}: not valid JSON: {exc.msg}") from None
    except RecursionError:
        raise MapError(f"{path}: JSON nested too deeply") from None
    if not isinstance(data, dict):
        raise MapError(f"{path}: not a Tiled file (expected a JSON object at the top)")
    return data


def _get(obj: dict, key: str, kind: type | tuple[type, ...], path: Path, at: str, default: Any = ...) -> Any:
    """``obj[key]`` of the JSON type ``kind`` (bool is never a number), or a one-line error."""
    if key not in obj:
        if default is not ...:
            return default
        raise MapError(f"{path}: {at}{key}: missing")
    value = obj[key]
    if not isinstance(value, kind) or (isinstance(value, bool) and bool not in _tuple(kind)):
        names = "/".join(k.__name__ for k in _tuple(kind)).replace("str", "text").replace("int", "whole number")
        raise MapError(f"{path}: {at}{key}: expected {names}, got {short(value)}")
    return value


def _tuple(kind: type | tuple[type, ...]) -> tuple[type, ...]:
    return kind if isinstance(kind, tuple) else (kind,)


def _size(obj: dict, key: str, path: Path, at: str = "") -> int:
    value = _get(obj, key, int, path, at)
    if value < 1:
        raise MapError(f"{path}: {at}{key}: must be at least 1, got {value}")
    return value


def read_tmj(path: Path, max_size: tuple[int, int]) -> TiledDoc:
    data = load_json(path)
    kind = data.get("type", "map")
    if kind != "map":
        hint = ": open a map that uses it" if kind == "tileset" else ""
        raise MapError(f"{path}: type: this is a Tiled {short(kind, 30)[1:-1]}, not a map{hint}")
    check_shape(path, None, data.get("orientation", "orthogonal"), bool(data.get("infinite", False)))
    width, height = _size(data, "width", path), _size(data, "height", path)
    if width > max_size[0] or height > max_size[1]:
        raise MapError(f"{path}: map is {width}x{height}, larger than the limit {max_size[0]}x{max_size[1]}")
    tile_size = (_size(data, "tilewidth", path), _size(data, "tileheight", path))
    tilesets = [_tileset(ts, path, f"tilesets[{i}].") for i, ts in enumerate(_list(data, "tilesets", path, ""))]
    doc = TiledDoc(width, height, tile_size, sorted(tilesets, key=lambda t: t.firstgid), [])
    _walk_layers(_list(data, "layers", path, ""), path, doc, "layers", visible=True)
    doc.properties = properties(data, path, "")
    return doc


def _list(obj: dict, key: str, path: Path, at: str) -> list[dict]:
    items = _get(obj, key, list, path, at, default=[])
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            raise MapError(f"{path}: {at}{key}[{i}]: expected an object, got {short(item)}")
    return items


def properties(obj: dict, path: Path, at: str) -> dict[str, Any]:
    """Custom properties: a list of {name, type, value} (Tiled 1.2+) or an object (older files)."""
    raw = obj.get("properties", [])
    if isinstance(raw, dict):
        return dict(raw)
    props = {}
    for i, p in enumerate(_list(obj, "properties", path, at)):
        props[_get(p, "name", str, path, f"{at}properties[{i}].")] = p.get("value")
    return props


def _tileset(ts: dict, path: Path, at: str) -> Tileset:
    firstgid = _get(ts, "firstgid", int, path, at)
    if "source" in ts:
        from .read import external_tileset

        return external_tileset(path, None, _get(ts, "source", str, path, at), firstgid)
    return tileset_body(ts, path, at, firstgid, f"tileset '{ts.get('name', '')}' ({path.name}: {at[:-1]})")


def tsj_tileset(path: Path, firstgid: int) -> Tileset:
    """An external ``.tsj``/``.json`` tileset."""
    data = load_json(path)
    if data.get("type", "tileset") != "tileset":
        raise MapError(f"{path}: type: this is a Tiled {short(data.get('type'), 30)[1:-1]}, not a tileset")
    return tileset_body(data, path, "", firstgid, f"tileset '{data.get('name', '')}' ({path.name})")


def tileset_body(ts: dict, path: Path, at: str, firstgid: int, where: str) -> Tileset:
    tiles: dict[int, int] = {}
    for key, local, tile in _tile_entries(ts, path, at):
        cls = tile.get("class") or tile.get("type")
        t = tile_terrain(properties(tile, path, key), cls, f"{path}: {key[:-1]}: tile {local} of {where}")
        if t != 255:
            tiles[local] = t
    count = _get(ts, "tilecount", int, path, at, default=0)
    return Tileset(firstgid, str(ts.get("name", "")), terrain_table(tiles, max(count, 0)), where)


def _tile_entries(ts: dict, path: Path, at: str) -> list[tuple[str, int, dict]]:
    """``(where, local id, tile object)`` per tile with data. Tiled 1.2+ writes ``tiles`` as a
    list of objects with an ``id``; older versions wrote an object keyed by the id and put
    the custom properties in a separate ``tileproperties`` object, keyed the same way."""
    old_tiles, old_props = ts.get("tiles"), ts.get("tileproperties")
    if not isinstance(old_tiles, dict) and old_props is None:
        out = []
        for i, tile in enumerate(_list(ts, "tiles", path, at)):
            key = f"{at}tiles[{i}]."
            out.append((key, _tile_id(tile.get("id"), path, key + "id"), tile))
        return out
    merged: dict[int, dict] = {}
    for name in ("tiles", "tileproperties"):
        table = _get(ts, name, (dict, list), path, at, default={})
        if isinstance(table, list):
            entries = [(f"{name}[{i}]", t.get("id"), t) for i, t in enumerate(_list(ts, name, path, at))]
        else:
            entries = [(f"{name}.{short(ident, 20)}", ident, value) for ident, value in table.items()]
        for where, ident, value in entries:
            key = f"{at}{where}"
            if not isinstance(value, dict):
                raise MapError(f"{path}: {key}: expected an object, got {short(value)}")
            tile = merged.setdefault(_tile_id(ident, path, key), {"properties": {}})
            if name == "tiles":
                tile.update({k: v for k, v in value.items() if k != "properties"})
                tile["properties"].update(properties(value, path, key + "."))
            else:
                tile["properties"].update(value)
    return [(f"{at}tiles.{local}.", local, tile) for local, tile in sorted(merged.items())]


def _tile_id(value: object, path: Path, key: str) -> int:
    """A tile's local id: a whole number >= 0 (a string of digits in the pre-1.2 layout)."""
    if isinstance(value, str) and value.isdigit():
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool):
        raise MapError(f"{path}: {key}: expected a whole number, got {short(value)}")
    if value < 0:
        raise MapError(f"{path}: {key}: must be at least 0, got {value}")
    return value


def _walk_layers(layers: list[dict], path: Path, doc: TiledDoc, at: str, visible: bool) -> None:
    for i, layer in enumerate(layers):
        key = f"{at}[{i}]"
        shown = visible and _get(layer, "visible", bool, path, key + ".", default=True)
        kind = layer.get("type")
        if kind == "tilelayer":
            if "chunks" in layer:
                raise MapError(f"{path}: {key}: layer is stored in chunks (an infinite map); not supported")
            if shown:
                doc.layers.append(_layer(layer, path, doc, key))
        elif kind == "group":
            _walk_layers(_list(layer, "layers", path, key + "."), path, doc, key + ".layers", shown)
        elif kind == "objectgroup" and str(layer.get("name", "")).strip().lower() == "spawn":
            _spawn_objects(layer, path, doc, key)


def _layer(layer: dict, path: Path, doc: TiledDoc, key: str) -> Layer:
    name = str(layer.get("name", ""))
    w = _get(layer, "width", int, path, key + ".", default=doc.width)
    h = _get(layer, "height", int, path, key + ".", default=doc.height)
    if (w, h) != (doc.width, doc.height):
        raise MapError(f"{path}: {key}: layer {short(name)} is {w}x{h}, the map is {doc.width}x{doc.height}")
    encoding = layer.get("encoding", "csv")
    try:
        if encoding == "base64":
            gids = gids_from_base64(_get(layer, "data", str, path, key + "."), str(layer.get("compression", "")), w, h)
        elif encoding == "csv":  # in JSON, "csv" means a plain array of numbers
            gids = gids_from_numbers(_get(layer, "data", list, path, key + "."), w, h)
        else:
            raise LayerDataError(f"unknown encoding {short(encoding, 20)}; Tiled writes csv or base64")
    except LayerDataError as exc:
        raise MapError(f"{path}: {key}.data: layer {short(name)}: {exc}") from None
    return Layer(name, gids, f"{path.name}: {key}")


def _spawn_objects(group: dict, path: Path, doc: TiledDoc, key: str) -> None:
    tw, th = doc.tile_size
    for i, obj in enumerate(_list(group, "objects", path, key + ".")):
        at = f"{key}.objects[{i}]."
        species = str(obj.get("class") or obj.get("type") or obj.get("name") or "")
        x, y, w, h = (_get(obj, k, (int, float), path, at, default=0) for k in ("x", "y", "width", "height"))
        if not all(map(math.isfinite, (x, y, w, h))):
            raise MapError(f"{path}: {at[:-1]}: position and size must be finite numbers")
        doc.spawn.setdefault(species, []).append(cells(x, y, w, h, tw, th))
