"""Reading a Tiled map (``.tmx``, ``.tmj``, ``.json``) as this project's :class:`~sim.mapdata.MapData`."""

from __future__ import annotations

from pathlib import Path

from ..files import check_file
from ..mapdata import MapData, MapError
from .model import TiledDoc, Tileset, compose
from .tmj import read_tmj, tsj_tileset
from .tmx import read_tmx, tsx_tileset

#: Map files Tiled writes (tilesets ``.tsx``/``.tsj`` are not maps on their own).
MAP_SUFFIXES = (".tmx", ".tmj", ".json")
TILESET_SUFFIXES = (".tsx", ".tsj", ".json")
#: Everything this reader opens (a tileset given as a map gets its own clear error).
READS = (*MAP_SUFFIXES, ".tsx", ".tsj")
MAX_TILESETS = 256


def read_doc(path: Path, max_size: tuple[int, int] = (2048, 2048)) -> TiledDoc:
    """The parsed map (tilesets, visible tile layers, properties, spawn areas)."""
    doc = (read_tmx if path.suffix.lower() in (".tmx", ".tsx") else read_tmj)(path, max_size)
    if len(doc.tilesets) > MAX_TILESETS:
        raise MapError(f"{path}: more than {MAX_TILESETS} tilesets")
    return doc


def read_tiled(path: Path, max_size: tuple[int, int] = (2048, 2048)) -> tuple[MapData, TiledDoc]:
    """The map's terrain and properties (spawn and animals still to be checked by the caller)."""
    doc = read_doc(path, max_size)
    terrain = compose(doc, path)
    name = doc.properties.get("name", path.stem)
    description = doc.properties.get("description", "")
    for key, value in (("name", name), ("description", description)):
        if not isinstance(value, str):
            line = doc.lines.get(key)
            raise MapError(f"{path}{f':{line}' if line else ''}: property '{key}' must be text")
    return MapData(name, terrain, description, {}, path, "tiled"), doc


def external_tileset(map_path: Path, line: int | None, source: str, firstgid: int) -> Tileset:
    """A tileset in its own file, ``source`` relative to the map (as Tiled writes it)."""
    at = f"{map_path}:{line}" if line else str(map_path)
    target = map_path.parent / source
    if target.suffix.lower() not in TILESET_SUFFIXES:
        raise MapError(f"{at}: tileset {source!r} is not a .tsx, .tsj or .json file")
    try:
        check_file(target, MapError)
    except MapError as exc:  # say it from the map's side: that is where the name is written
        problem = str(exc).removeprefix(f"{target}: ")
        raise MapError(f"{at}: tileset {source!r}: {problem} (looked for {target})") from None
    if target.suffix.lower() == ".tsx":
        return tsx_tileset(target, firstgid)
    return tsj_tileset(target, firstgid)
