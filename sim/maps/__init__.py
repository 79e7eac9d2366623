"""Map files, the front door: ``from sim.maps import load_map, resolve_map, MapData, MapError``.

YAML maps (drawn rows or a generator) in :mod:`.yaml_maps`, Moving AI ``.map`` in
:mod:`.movingai`, Tiled ``.tmx``/``.tmj``/``.json`` in :mod:`.tiled`, the island generator in
:mod:`.generate`, converting between them in :mod:`.convert`; what every reader returns in
:mod:`.data`.
"""

from .data import MapData, MapError
from .yaml_maps import MAP_SUFFIXES, dump_map, list_maps, load_map, parse_map, resolve_map, save_map

__all__ = ["MAP_SUFFIXES", "MapData", "MapError", "dump_map", "list_maps", "load_map", "parse_map", "resolve_map",
           "save_map"]  # fmt: skip
