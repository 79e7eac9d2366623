"""Map files, the front door: ``from sim.maps import load_map, resolve_map, MapData, MapError``.

YAML maps (drawn rows or a generator) in :mod:`.yaml_maps`, Moving AI ``.map`` in
:mod:`.movingai`, Tiled ``.tmx``/``.tmj``/``.json`` in :mod:`.tiled`, the island generator in
:mod:`.generate`, converting between them in :mod:`.convert`; what every reader returns in
:mod:`.data`.
"""

from .data import MapData, MapError
from .formats import format_of, list_maps, load_map, map_suffixes, resolve_map, write_map
from .registry import MapFormat, formats, register_format
from .yaml_maps import dump_map, parse_map, save_map

__all__ = ["FORMATS", "MAP_SUFFIXES", "MapData", "MapError", "MapFormat", "dump_map", "format_of", "formats",
           "list_maps", "load_map", "parse_map", "register_format", "resolve_map", "save_map", "write_map"]  # fmt: skip


def __getattr__(name: str) -> object:
    """``FORMATS`` (every registered format) and ``MAP_SUFFIXES`` (every map file's ending), as
    the registry stands when asked (formats register themselves: :mod:`.registry`)."""
    if name == "FORMATS":
        return formats()
    if name == "MAP_SUFFIXES":
        return map_suffixes()
    raise AttributeError(name)
