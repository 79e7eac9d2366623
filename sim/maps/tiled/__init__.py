"""Tiled maps (mapeditor.org): read ``.tmx``/``.tmj``/``.json`` maps, write them back.

See :mod:`.model` for how tiles become terrain, :mod:`.write` for what an exported map holds.
"""

from __future__ import annotations

from pathlib import Path

from sim.maps.data import MapData, MapError
from sim.maps.registry import MapFormat, register_format, text_prefix
from sim.maps.tiled.read import read_doc, read_tiled
from sim.maps.tiled.write import image_path, write_tiled
from sim.support.checks import Checker

__all__ = ["image_path", "read_doc", "read_tiled", "write_tiled"]


def _read(path: Path, max_size: tuple[int, int], _progress: object) -> MapData:
    """A Tiled map, its spawn areas (object layer 'spawn'), counts (properties 'animals.<species>')
    and search choices (properties 'search.<species>')."""
    from sim.maps.yaml_maps import check_animals, check_search, check_spawn  # (it imports this package)

    data, doc = read_tiled(path, max_size)
    check = Checker(path, MapError, doc.lines, name_keys=False)
    data.spawn = check_spawn(doc.spawn or None, data.terrain.shape, check)
    counts = {k.split(".", 1)[1]: v for k, v in doc.properties.items() if k.startswith("animals.")}
    data.animals = check_animals(counts or None, check)
    choices = {k.split(".", 1)[1]: v for k, v in doc.properties.items() if k.startswith("search.")}
    data.search = check_search(choices or None, check)
    return data


def _write(data: MapData, dst: Path, colours: object) -> list[Path]:
    return write_tiled(dst, data.name, data.terrain, data.description, data.spawn, data.animals, colours,  # type: ignore[arg-type]
                       search=data.search)  # fmt: skip


def _accept_map(prefix: bytes) -> bool:
    """A Tiled map: XML whose first element is ``<map``, or a JSON object (a .tmj)."""
    text = text_prefix(prefix)
    if text.startswith("{"):
        return '"type":"tileset"' not in text.replace(" ", "")
    return text.startswith("<") and "<map" in text and "<tileset" not in text.split("<map", 1)[0]


def _accept_tileset(prefix: bytes) -> bool:
    text = text_prefix(prefix)
    return (text.startswith("<") and "<tileset" in text and "<map" not in text) or (
        text.startswith("{") and '"type":"tileset"' in text.replace(" ", ""))  # fmt: skip


register_format(MapFormat("Tiled", (".tmx", ".tmj", ".json"), _read, _write, accept=_accept_map, rank=1))
register_format(MapFormat("Tiled tileset", (".tsx", ".tsj"), _read, None, is_map=False, accept=_accept_tileset,
                          rank=3))  # fmt: skip
