"""The registry of map formats, as Pillow registers its image plugins.

A format is one module that ends with a call to :func:`register_format`: its name, its file
endings, its reader and writer, what writing it loses, and an ``accept`` check of a file's
first bytes. Loading, converting, the command line's help and the map picker all ask this
registry; the format modules of ``sim.maps`` are found and imported the first time it is
asked (:func:`formats`), so a new format is one new file (plus its test and docs), and a
script can register its own before loading.

Which format reads a file: the one its ending names when that format accepts the file's
first bytes; else the first format that accepts them (a Tiled map saved as ``.txt``, a Moving
AI map with no ending); else the ending's format (its reader says what is wrong), or YAML.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sim.maps.data import MapData
    from sim.world.terrain import Terrain

Colours = "dict[Terrain, tuple[int, int, int]] | None"
Progress = Callable[[float], None] | None
#: How many bytes of a file ``accept`` checks see.
PREFIX_BYTES = 512


@dataclass(frozen=True)
class MapFormat:
    """One map format: its name, its endings (lower case), its reader and writer, what it loses,
    and ``accept(prefix)``: whether a file starting with these bytes is of this format."""

    name: str
    suffixes: tuple[str, ...]
    read: Callable[[Path, tuple[int, int], Progress], MapData] | None
    write: Callable[[MapData, Path, dict[Terrain, tuple[int, int, int]] | None], list[Path]] | None
    loses: str = ""  # what writing this format drops ("" = nothing)
    is_map: bool = True  # False: a file this reader knows that is not a map (it says so)
    accept: Callable[[bytes], bool] | None = None  # None: never chosen by content, only by ending
    rank: int = 100  # where it is listed (help texts, the order formats are asked): smaller first


_FORMATS: list[MapFormat] = []
_found = False


def register_format(fmt: MapFormat) -> MapFormat:
    """Add ``fmt`` (replacing a format of the same name); returns it."""
    if not isinstance(fmt, MapFormat):
        raise TypeError(f"register_format takes a MapFormat, got {type(fmt).__name__}")
    _FORMATS[:] = [f for f in _FORMATS if f.name != fmt.name]
    _FORMATS.append(fmt)
    return fmt


def formats() -> tuple[MapFormat, ...]:
    """Every registered format, in order of registration (the package's own first, found by
    importing every module of ``sim.maps`` the first time)."""
    global _found
    if not _found:
        _found = True
        import sim.maps as package

        for info in pkgutil.iter_modules(package.__path__):
            if not info.name.startswith("_"):
                importlib.import_module(f"sim.maps.{info.name}")
    return tuple(sorted(_FORMATS, key=lambda f: f.rank))  # (stable: registration order within a rank)


def format_of(path: Path) -> MapFormat | None:
    """The format a file's ending names (any case: ``X.MAP`` is a Moving AI map), or None."""
    suffix = Path(path).suffix.lower()
    return next((f for f in formats() if suffix in f.suffixes), None)


def format_for(path: Path, prefix: bytes) -> MapFormat | None:
    """The format that reads the file at ``path`` whose first bytes are ``prefix`` (see the
    module's docstring), or None when nothing claims it."""
    named = format_of(path)
    if named is not None and (named.accept is None or named.accept(prefix)):
        return named
    sniffed = next((f for f in formats() if f.accept is not None and f is not named and f.accept(prefix)), None)
    return sniffed or named


def map_suffixes() -> tuple[str, ...]:
    """Every ending of a map file (for the picker and for looking maps up by name)."""
    return tuple(s for f in formats() if f.is_map for s in f.suffixes)


def writable_suffixes() -> tuple[str, ...]:
    return tuple(s for f in formats() if f.write is not None for s in f.suffixes)


def describe() -> str:
    """The formats in words, for help texts: "YAML (.yaml, .yml), Tiled (.tmx, .tmj, .json), …"."""
    return ", ".join(f"{f.name} ({', '.join(f.suffixes)})" for f in formats() if f.is_map)


def text_prefix(prefix: bytes) -> str:
    """A file's first bytes as text for an ``accept`` check (a UTF-8 byte order mark and leading
    white space dropped; undecodable bytes replaced)."""
    return prefix.removeprefix(b"\xef\xbb\xbf").decode("utf-8", "replace").lstrip()
