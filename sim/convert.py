"""Converting maps between formats: YAML, Tiled (``.tmx``, ``.tmj``, ``.json``) and Moving AI ``.map``.

``python main.py convert SRC DST`` (or ``astar-island convert``): the formats follow the
file name endings. YAML and Tiled hold everything (terrain, name, description, spawn
areas, animal counts) and convert both ways exactly; a Moving AI map holds only walkable
or not, so writing one loses sand, mountain and the rest (see :mod:`sim.movingai`).
"""

from __future__ import annotations

from pathlib import Path

from .files import check_writable
from .mapdata import MapData, MapError
from .maps import MAP_SUFFIXES, dump_map, load_map
from .movingai import dump_movingai
from .terrain import DEFAULT_COLOURS, Terrain
from .tiled import MAP_SUFFIXES as TILED_SUFFIXES
from .tiled import image_path, write_tiled
from .tiled.write import tileset_png

WRITES = (".yaml", ".yml", ".map", *TILED_SUFFIXES)


def convert(
    src: Path,
    dst: Path,
    *,
    colours: dict[Terrain, tuple[int, int, int]] | None = None,
    force: bool = False,
    max_size: tuple[int, int] = (2048, 2048),
) -> list[Path]:
    """Read the map at ``src`` and write it to ``dst``; returns the files written.

    Refuses (``MapError``, one line) an unknown ending, ``dst`` equal to ``src``, an
    existing ``dst`` unless ``force``, and a folder that does not exist or is not writable.
    """
    for path, known in ((src, MAP_SUFFIXES), (dst, WRITES)):
        if path.suffix.lower() not in known:
            ending = path.suffix or "(no ending)"
            raise MapError(f"{path}: unknown map format {ending!r}; use one of {', '.join(known)}")
    _check_target(src, dst, force, colours)
    data = load_map(src, max_size=max_size)
    return write_map(data, dst, colours)


def _check_target(src: Path, dst: Path, force: bool, colours: dict[Terrain, tuple[int, int, int]] | None) -> None:
    if dst.exists() and src.exists() and dst.resolve() == src.resolve():
        raise MapError(f"{dst}: the source and the target are the same file")
    check_writable(dst, MapError)
    if dst.exists() and not force:
        raise MapError(f"{dst}: already exists; add --force to replace it")
    image = image_path(dst)
    # The same picture (t.tmx and t.tmj share t-tiles.png) is no loss; another one is.
    same = image.exists() and image.read_bytes() == tileset_png(colours or DEFAULT_COLOURS)
    if dst.suffix.lower() in TILED_SUFFIXES and image.exists() and not force and not same:
        raise MapError(f"{image}: already exists; add --force to replace it")


def write_map(data: MapData, dst: Path, colours: dict[Terrain, tuple[int, int, int]] | None = None) -> list[Path]:
    """Write ``data`` to ``dst`` in the format its ending names."""
    suffix = dst.suffix.lower()
    if suffix in TILED_SUFFIXES:
        return write_tiled(dst, data.name, data.terrain, data.description, data.spawn, data.animals, colours)
    if suffix == ".map":
        dst.write_text(dump_movingai(data.terrain), encoding="utf-8")
    else:
        dst.write_text(dump_map(data.name, data.terrain, data.description, data.spawn, data.animals), encoding="utf-8")
    return [dst]
