"""Tiled's JSON formats: ``.tmj``/``.json`` maps and ``.tsj``/``.json`` tilesets -> :class:`~.model.TiledDoc`.

Reference: doc.mapeditor.org, "JSON Map Format". Errors name the file and the key
(``layers[1].data``); JSON has no useful line once parsed.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

import numpy as np

from sim.maps.data import MapError
from sim.maps.tiled.layers import LayerDataError, gids_from_base64, gids_from_numbers
from sim.maps.tiled.model import (
    MAX_CHUNK_OFFSET,
    MAX_GID,
    MAX_LAYER_BYTES,
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
from sim.maps.tiled.tmx import MAX_TILE_PIXELS, cells, check_shape
from sim.support.checks import MAX_DIGITS, parse_whole, short
from sim.support.files import read_text

_SURROGATE = re.compile("[\ud800-\udfff]")
_LONG_NUMBER = re.compile(f"[0-9]{{{MAX_DIGITS + 1}}}")
#: What Tiled writes in every tileset file; a JSON file without them is not one (and is not quoted).
TILESET_FIELDS = ("tilewidth", "tileheight", "tilecount")


class _Refused(Exception):
    """Raised inside the JSON parser's hooks; :func:`load_json` turns it into a MapError."""


def _int(text: str) -> int:
    value = parse_whole(text)
    if value is None:
        raise _Refused("long")
    return value


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """Each JSON object as it is built: no key or text holds a lone surrogate (it cannot be
    written out again). Arrays of text are checked too; arrays of numbers cost nothing here."""
    for key, value in pairs:
        if _SURROGATE.search(key) or (isinstance(value, str) and _SURROGATE.search(value)):
            raise _Refused("surrogate")
        texts = isinstance(value, list) and value and isinstance(value[0], str)
        if texts and any(isinstance(v, str) and _SURROGATE.search(v) for v in value):
            raise _Refused("surrogate")
    return dict(pairs)


#: Keys (counted from the colons) and values (from the commas) one JSON file may hold at most: counted
#: in the text before it is parsed, since a dict of millions of keys costs ~100 bytes a key.
MAX_JSON_KEYS = 1_000_000
MAX_JSON_VALUES = MAX_LAYER_BYTES // 4 + 1_000_000


def load_json(path: Path) -> dict[str, Any]:
    text = read_text(path, MapError)
    if text.count(":") > MAX_JSON_KEYS or text.count(",") > MAX_JSON_VALUES:
        limits = f"{MAX_JSON_KEYS:,} keys or {MAX_JSON_VALUES:,} values"
        raise MapError(f"{path}: more than {limits}; not a map Tiled writes")
    try:
        data = json.loads(text, parse_int=_int, object_pairs_hook=_object)
    except json.JSONDecodeError as exc:
        raise MapError(f"{path}:{exc.lineno}: not valid JSON: {exc.msg}") from None
    except RecursionError:
        raise MapError(f"{path}: JSON nested too deeply") from None
    except _Refused as exc:
        if str(exc) == "long":
            found = _LONG_NUMBER.search(text)
            line = text.count("\n", 0, found.start()) + 1 if found else 0
            raise MapError(f"{path}:{line}: a number with more than {MAX_DIGITS} digits") from None
        raise MapError(f"{path}: text with a lone surrogate (\\udXXX escape), which is no character") from None
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


def _size(obj: dict, key: str, path: Path, at: str = "", lo: int = 1, hi: int = MAX_GID, default: Any = ...) -> int:
    value = _get(obj, key, int, path, at, default)
    if value < lo:
        raise MapError(f"{path}: {at}{key}: must be at least {lo}, got {value}")
    if value > hi:
        raise MapError(f"{path}: {at}{key}: must be at most {hi}, got {value}")
    return value


def read_tmj(path: Path, reading: Reading) -> TiledDoc:
    data = load_json(path)
    kind = data.get("type", "map")
    if kind != "map":
        hint = ": open a map that uses it" if kind == "tileset" else ""
        raise MapError(f"{path}: type: this is a Tiled {short(kind, 30)[1:-1]}, not a map{hint}")
    check_shape(path, None, data.get("orientation", "orthogonal"))
    raw = data.get("infinite", False)
    if not isinstance(raw, (bool, int)) or raw not in (False, True):  # (0 and 1: other tools' exports)
        raise MapError(f"{path}: infinite: expected true or false, got {short(raw)}")
    infinite = bool(raw)
    max_size = reading.max_size
    width, height = _size(data, "width", path), _size(data, "height", path)
    if not infinite and (width > max_size[0] or height > max_size[1]):
        raise MapError(f"{path}: map is {width}x{height}, larger than the limit {max_size[0]}x{max_size[1]}")
    tile_size = (
        _size(data, "tilewidth", path, hi=MAX_TILE_PIXELS),
        _size(data, "tileheight", path, hi=MAX_TILE_PIXELS),
    )
    entries = _list(data, "tilesets", path, "")
    reading.count_tilesets(len(entries), f"{path}: tilesets")  # before any is read
    tilesets = [_tileset(ts, path, f"tilesets[{i}].", reading) for i, ts in enumerate(entries)]
    doc = TiledDoc(width, height, tile_size, sorted(tilesets, key=lambda t: t.firstgid), [])
    _walk_layers(_list(data, "layers", path, ""), path, doc, reading, "layers", visible=True, infinite=infinite)
    if infinite:
        place_chunks(doc, reading, str(path))
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


def _tileset(ts: dict, path: Path, at: str, reading: Reading) -> Tileset:
    firstgid = _size(ts, "firstgid", path, at)  # 0 would read every tile one id off
    if "source" in ts:
        return reading.external(reading, path, None, _get(ts, "source", str, path, at), firstgid)
    where = f"tileset {short(str(ts.get('name', '')), 40)} ({path.name}: {at[:-1]})"
    return tileset_body(ts, path, at, firstgid, where)


def tsj_tileset(path: Path, firstgid: int) -> Tileset:
    """An external ``.tsj``/``.json`` tileset. A JSON file that is not one (no ``type``
    "tileset" or without Tiled's tileset fields) is refused without quoting any of it."""
    data = load_json(path)
    missing = [k for k in TILESET_FIELDS if not isinstance(data.get(k), int)]
    if data.get("type", "tileset") != "tileset" or missing:
        fields = ", ".join(TILESET_FIELDS)
        raise MapError(f"{path}: not a Tiled tileset (a tileset file has type 'tileset' and {fields})")
    return tileset_body(data, path, "", firstgid, f"tileset {short(str(data.get('name', '')), 40)} ({path.name})")


def tileset_body(ts: dict, path: Path, at: str, firstgid: int, where: str) -> Tileset:
    tiles: dict[int, int] = {}
    for key, local, tile in _tile_entries(ts, path, at):
        cls = tile.get("class") or tile.get("type")
        t = tile_terrain(properties(tile, path, key), cls, f"{path}: {key[:-1]}: tile {local} of {where}")
        if t != 255:
            tiles[local] = t
    count = _size(ts, "tilecount", path, at, lo=0, default=0)  # only tiles with data take room
    sheet = None
    tw, th = (_size(ts, k, path, at, lo=0, hi=MAX_TILE_PIXELS, default=0) for k in ("tilewidth", "tileheight"))
    if isinstance(ts.get("image"), str) and tw and th:
        margin, spacing = (_size(ts, k, path, at, lo=0, hi=MAX_TILE_PIXELS, default=0) for k in ("margin", "spacing"))
        width = _size(ts, "imagewidth", path, at, lo=0, default=0)
        sheet = sheet_of({"source": ts["image"], "width": width}, path.parent, tw, th, count,
                         _size(ts, "columns", path, at, lo=0, default=0), margin, spacing)  # fmt: skip
    return Tileset(firstgid, str(ts.get("name", "")), *terrain_table(tiles), where, sheet)


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
    if isinstance(value, str) and parse_whole(value) is not None:
        value = parse_whole(value)
    if not isinstance(value, int) or isinstance(value, bool):
        raise MapError(f"{path}: {key}: expected a whole number, got {short(value)}")
    if not 0 <= value <= MAX_GID:
        raise MapError(f"{path}: {key}: must be from 0 to {MAX_GID}, got {value}")
    return value


def _walk_layers(layers: list[dict], path: Path, doc: TiledDoc, reading: Reading, at: str, visible: bool,
                 infinite: bool) -> None:  # fmt: skip
    for i, layer in enumerate(layers):
        key = f"{at}[{i}]"
        shown = visible and _get(layer, "visible", bool, path, key + ".", default=True)
        kind = layer.get("type")
        if kind == "tilelayer":
            if "chunks" in layer and not infinite:
                raise MapError(f"{path}: {key}: layer is stored in chunks, but the map is not infinite")
            if shown:
                read = _chunked_layer if infinite else _layer
                doc.layers.append(read(layer, path, doc, reading, key))
        elif kind == "group":
            inner = _list(layer, "layers", path, key + ".")
            _walk_layers(inner, path, doc, reading, key + ".layers", shown, infinite)
        elif kind == "objectgroup" and str(layer.get("name", "")).strip().lower() == "spawn":
            _spawn_objects(layer, path, doc, key)


def _layer(layer: dict, path: Path, doc: TiledDoc, reading: Reading, key: str) -> Layer:
    name = str(layer.get("name", ""))
    w = _get(layer, "width", int, path, key + ".", default=doc.width)
    h = _get(layer, "height", int, path, key + ".", default=doc.height)
    if (w, h) != (doc.width, doc.height):
        raise MapError(f"{path}: {key}: layer {short(name)} is {w}x{h}, the map is {doc.width}x{doc.height}")
    try:
        reading.take_layer(w, h)  # before anything is decoded
        gids = _gids(layer, layer, path, key, w, h)
    except LayerDataError as exc:
        raise MapError(f"{path}: {key}.data: layer {short(name)}: {exc}") from None
    return Layer(name, gids, f"{path.name}: {key}")


def _gids(layer: dict, held: dict, path: Path, key: str, w: int, h: int) -> np.ndarray:
    """The gids in ``held["data"]`` (the layer's or one chunk's; ``key`` names ``held``) in the
    layer's encoding."""
    encoding = layer.get("encoding", "csv")
    if encoding == "base64":
        return gids_from_base64(_get(held, "data", str, path, key + "."), str(layer.get("compression", "")), w, h)
    if encoding == "csv":  # in JSON, "csv" means a plain array of numbers
        return gids_from_numbers(_get(held, "data", list, path, key + "."), w, h)
    raise LayerDataError(f"unknown encoding {short(encoding, 20)}; Tiled writes csv or base64")


def _chunked_layer(layer: dict, path: Path, doc: TiledDoc, reading: Reading, key: str) -> Layer:
    """A layer of an infinite map: its ``chunks``, each where it belongs (laid into one grid by
    :func:`~.model.place_chunks` once every layer is read)."""
    name = str(layer.get("name", ""))
    out = Layer(name, np.zeros((0, 0), np.uint32), f"{path.name}: {key}")
    chunks = _list(layer, "chunks", path, key + ".")
    if not chunks and "data" in layer:  # not as Tiled writes it: the layer's data is one chunk
        chunks = [{"data": layer["data"], "x": 0, "y": 0, "width": _size(layer, "width", path, key + "."),
                   "height": _size(layer, "height", path, key + ".")}]  # fmt: skip
    for i, chunk in enumerate(chunks):
        at = f"{key}.chunks[{i}]." if "chunks" in layer else f"{key}."
        x, y = (_size(chunk, k, path, at, lo=-MAX_CHUNK_OFFSET, hi=MAX_CHUNK_OFFSET) for k in ("x", "y"))
        w, h = _size(chunk, "width", path, at), _size(chunk, "height", path, at)
        try:
            reading.take_chunk(w, h)  # before anything is decoded
            out.chunks.append(Chunk(x, y, _gids(layer, chunk, path, at[:-1], w, h)))
        except LayerDataError as exc:
            raise MapError(f"{path}: {at}data: layer {short(name)}: {exc}") from None
    return out


def _spawn_objects(group: dict, path: Path, doc: TiledDoc, key: str) -> None:
    tw, th = doc.tile_size
    for i, obj in enumerate(_list(group, "objects", path, key + ".")):
        at = f"{key}.objects[{i}]."
        species = str(obj.get("class") or obj.get("type") or obj.get("name") or "")
        x, y, w, h = (_get(obj, k, (int, float), path, at, default=0) for k in ("x", "y", "width", "height"))
        if not all(map(math.isfinite, (x, y, w, h))):
            raise MapError(f"{path}: {at[:-1]}: position and size must be finite numbers")
        doc.spawn.setdefault(species, []).append(cells(x, y, w, h, tw, th, f"{path}: {at[:-1]}"))
