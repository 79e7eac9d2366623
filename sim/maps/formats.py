"""The one registry of map formats: a file's ending (any case) -> how to read it, how to write
it, and what writing it loses. Loading, converting, the command line's help and the map
picker all ask this table; a new format is one :class:`MapFormat` here (and its reader and
writer), the way Pillow registers an image plugin.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from sim.maps.data import MapData, MapError
from sim.maps.movingai import dump_movingai, load_movingai
from sim.maps.tiled import read_tiled, write_tiled
from sim.maps.yaml_maps import check_animals, check_search, check_spawn, dump_map, parse_map
from sim.support.checks import Checker, did_you_mean, short
from sim.support.files import as_path, check_file, load_yaml, write_atomically
from sim.world.terrain import Terrain

Colours = dict[Terrain, tuple[int, int, int]] | None
Progress = Callable[[float], None] | None


def _read_yaml(path: Path, max_size: tuple[int, int], progress: Progress) -> MapData:
    doc = load_yaml(path, MapError)
    return parse_map(doc.data, path, max_size=max_size, lines=doc.lines, progress=progress)


def _read_movingai(path: Path, max_size: tuple[int, int], _progress: Progress) -> MapData:
    return load_movingai(path, max_size)


def _read_tiled(path: Path, max_size: tuple[int, int], _progress: Progress) -> MapData:
    """A Tiled map, its spawn areas (object layer 'spawn'), counts (properties 'animals.<species>')
    and search choices (properties 'search.<species>')."""
    data, doc = read_tiled(path, max_size)
    check = Checker(path, MapError, doc.lines, name_keys=False)
    data.spawn = check_spawn(doc.spawn or None, data.terrain.shape, check)
    counts = {k.split(".", 1)[1]: v for k, v in doc.properties.items() if k.startswith("animals.")}
    data.animals = check_animals(counts or None, check)
    choices = {k.split(".", 1)[1]: v for k, v in doc.properties.items() if k.startswith("search.")}
    data.search = check_search(choices or None, check)
    return data


def _write_yaml(data: MapData, dst: Path, _colours: Colours) -> list[Path]:
    from sim.maps.tiled.write import check_writable_text

    for key, value in (("name", data.name), ("description", data.description)):
        check_writable_text(dst, key, value, xml=False)
    text = dump_map(data.name, data.terrain, data.description, data.spawn, data.animals, data.search)
    write_atomically([(dst, text.encode("utf-8"))], MapError)
    return [dst]


def _write_movingai(data: MapData, dst: Path, _colours: Colours) -> list[Path]:
    write_atomically([(dst, dump_movingai(data.terrain).encode("utf-8"))], MapError)
    return [dst]


def _write_tiled(data: MapData, dst: Path, colours: Colours) -> list[Path]:
    return write_tiled(dst, data.name, data.terrain, data.description, data.spawn, data.animals, colours,
                       search=data.search)  # fmt: skip


@dataclass(frozen=True)
class MapFormat:
    """One map format: its name, its endings (lower case), its reader and writer, what it loses."""

    name: str
    suffixes: tuple[str, ...]
    read: Callable[[Path, tuple[int, int], Progress], MapData] | None
    write: Callable[[MapData, Path, Colours], list[Path]] | None
    loses: str = ""  # what writing this format drops ("" = nothing)
    is_map: bool = True  # False: a file this reader knows that is not a map (it says so)


MOVINGAI_LOSES = (
    "a Moving AI map keeps only ground, trees, swamp, water and walls: sand became ground '.', "
    "mountain and rock '@'; name, description, spawn areas and counts are not kept"
)
FORMATS: tuple[MapFormat, ...] = (
    MapFormat("YAML", (".yaml", ".yml"), _read_yaml, _write_yaml),
    MapFormat("Tiled", (".tmx", ".tmj", ".json"), _read_tiled, _write_tiled),
    MapFormat("Moving AI", (".map",), _read_movingai, _write_movingai, MOVINGAI_LOSES),
    MapFormat("Tiled tileset", (".tsx", ".tsj"), _read_tiled, None, is_map=False),
)


def format_of(path: Path) -> MapFormat | None:
    """The format a file's ending names (any case: ``X.MAP`` is a Moving AI map), or None."""
    suffix = path.suffix.lower()
    return next((f for f in FORMATS if suffix in f.suffixes), None)


def map_suffixes() -> tuple[str, ...]:
    """Every ending of a map file (for the picker and for looking maps up by name)."""
    return tuple(s for f in FORMATS if f.is_map for s in f.suffixes)


def writable_suffixes() -> tuple[str, ...]:
    return tuple(s for f in FORMATS if f.write is not None for s in f.suffixes)


def describe() -> str:
    """The formats in words, for help texts: "YAML (.yaml, .yml), Tiled (.tmx, .tmj, .json), …"."""
    return ", ".join(f"{f.name} ({', '.join(f.suffixes)})" for f in FORMATS if f.is_map)


def load_map(
    path: str | os.PathLike, *, max_size: tuple[int, int] = (2048, 2048), progress: Progress = None
) -> MapData:
    """Load a map in any format of :data:`FORMATS` (by its ending, any case); ``max_size`` is
    (width, height) at most; ``progress(fraction)`` is told how a generator gets on."""
    path = as_path("path", path)
    fmt = format_of(path)
    read = fmt.read if fmt is not None else _read_yaml  # no known ending: YAML says what is wrong
    data = read(path, max_size, progress)  # type: ignore[misc]
    data.terrain.flags.writeable = False  # what the file says; a simulation paints its own copy
    return data


def write_map(data: MapData, dst: Path, colours: Colours = None) -> list[Path]:
    """Write ``data`` to ``dst`` in the format its ending names: all of it or nothing."""
    fmt = format_of(dst)
    if fmt is None or fmt.write is None:
        ending = dst.suffix or "(no ending)"
        raise MapError(f"{dst}: unknown map format {ending!r}; use one of {', '.join(writable_suffixes())}")
    return fmt.write(data, dst, colours)


def list_maps(directory: Path) -> list[Path]:
    """The map files in ``directory`` (every format's endings, any case), sorted by name; none
    when it does not exist. A folder that cannot be read is a :class:`MapError` naming it."""
    known = map_suffixes()
    try:
        if not directory.is_dir():
            return []
        return sorted(p for p in directory.iterdir() if p.suffix.lower() in known and p.is_file())
    except OSError as exc:
        raise MapError(f"{directory}: cannot read the folder: {exc.strerror or exc}") from None


def resolve_map(name: str, directory: Path | None = None) -> Path:
    """A map name (``island``) or path (``maps/island.yaml``, ``x.map``) -> an existing file.

    Names are looked up in ``directory`` (default: the bundled maps). A path that exists
    but is no map file (a folder, a FIFO, a link loop) says what it is.
    """
    if directory is None:
        from sim.support.resources import maps_dir

        directory = maps_dir()
    direct = as_path("name", name)
    if os.path.lexists(direct):
        check_file(direct, MapError)  # raises, saying what it is, unless a regular file
        return direct
    for candidate in (directory / name, *(directory / f"{name}{suffix}" for suffix in map_suffixes())):
        if candidate.is_file():
            return candidate
    try:
        known = [p.stem for p in list_maps(directory)]
    except MapError:  # a folder that cannot be read offers no names to suggest
        known = []
    hint = did_you_mean(name, known, f"maps in {directory}")
    raise MapError(f"{short(name)[1:-1]}: map not found{hint}")
