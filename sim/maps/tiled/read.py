"""Reading a Tiled map (``.tmx``, ``.tmj``, ``.json``) as this project's :class:`~sim.maps.data.MapData`.

One :class:`~.model.Reading` per load holds its limits and its external tilesets: a
tileset file the map names many times is read once, and the count of tilesets is
checked as they are met, before any is parsed.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from sim.maps.data import MapData, MapError
from sim.maps.registry import text_prefix
from sim.maps.tiled.model import MAX_TILESETS, Reading, TiledDoc, Tileset, compose, map_art, terrain_gids
from sim.maps.tiled.tmj import read_tmj, tsj_tileset
from sim.maps.tiled.tmx import read_tmx, tsx_tileset
from sim.support.checks import short, short_path
from sim.support.files import check_file

#: What an external tileset's file may end with (which endings are maps: sim.maps.formats).
TILESET_SUFFIXES = (".tsx", ".tsj", ".json")
__all__ = ["MAX_TILESETS", "TILESET_SUFFIXES", "read_doc", "read_tiled"]


def read_doc(path: Path, max_size: tuple[int, int] = (2048, 2048)) -> TiledDoc:
    """The parsed map (tilesets, visible tile layers, properties, spawn areas)."""
    reading = Reading(max_size, external_tileset)
    return (read_tmx if _is_xml(path) else read_tmj)(path, reading)


def _is_xml(path: Path) -> bool:
    """XML (a .tmx) or JSON (a .tmj): by the ending when it says, else by the first character."""
    suffix = path.suffix.lower()
    if suffix in (".tmx", ".tsx", ".tmj", ".tsj", ".json"):
        return suffix in (".tmx", ".tsx")
    try:
        check_file(path, MapError)
        with open(path, "rb") as fh:
            return text_prefix(fh.read(64)).startswith("<")
    except (OSError, MapError):
        return False  # the JSON reader says what is wrong


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
    return MapData(name, terrain, description, {}, path, "tiled", art=map_art(doc, terrain_gids(doc))), doc


def external_tileset(reading: Reading, map_path: Path, line: int | None, source: str, firstgid: int) -> Tileset:
    """A tileset in its own file, ``source`` relative to the map (as Tiled writes it); each
    file is read once per load, its answer (or its error) kept for the next reference."""
    at = f"{map_path}:{line}" if line else str(map_path)
    named = short(source, 60)
    if "\0" in source or not _encodable(source):
        raise MapError(f"{at}: tileset source {named} is not a file name (it holds a NUL or an invalid character)")
    target = map_path.parent / source
    if target.suffix.lower() not in TILESET_SUFFIXES:
        raise MapError(f"{at}: tileset {named} is not a .tsx, .tsj or .json file")
    key = str(target)
    if key not in reading.cache:
        reading.cache[key] = _read_tileset(at, named, target)
    found = reading.cache[key]
    if isinstance(found, MapError):
        raise MapError(str(found))
    return replace(found, firstgid=firstgid)


def _read_tileset(at: str, named: str, target: Path) -> Tileset | MapError:
    try:
        check_file(target, MapError)
    except MapError as exc:  # say it from the map's side: that is where the name is written
        problem = str(exc).removeprefix(f"{target}: ")
        return MapError(f"{at}: tileset {named}: {problem} (looked for {short_path(target)})")
    try:
        return (tsx_tileset if target.suffix.lower() == ".tsx" else tsj_tileset)(target, 1)
    except MapError as exc:  # the map the user opened first, then the tileset's own place and problem
        return MapError(f"{at}: tileset {short_path(target, 60)}{str(exc).removeprefix(str(target))}")


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
