"""Map files, the front door: ``from sim.maps import load_map, resolve_map, MapData, MapError``.

YAML maps (drawn rows or a generator) in :mod:`.yaml_maps`, Moving AI ``.map`` in
:mod:`.movingai`, Tiled ``.tmx``/``.tmj``/``.json`` in :mod:`.tiled`, the island generator in
:mod:`.generate`, converting between them in :mod:`.convert`; what every reader returns in
:mod:`.data`.
"""

from .data import MapData, MapError
from .formats import FORMATS, MapFormat, format_of, list_maps, load_map, map_suffixes, resolve_map, write_map
from .yaml_maps import dump_map, parse_map, save_map

#: Every ending of a map file (from the format registry, :data:`FORMATS`).
MAP_SUFFIXES = map_suffixes()

__all__ = ["FORMATS", "MAP_SUFFIXES", "MapData", "MapError", "MapFormat", "dump_map", "format_of", "list_maps",
           "load_map", "parse_map", "resolve_map", "save_map", "write_map"]  # fmt: skip
