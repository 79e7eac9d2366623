"""Loading, writing, listing and finding map files in any registered format
(:mod:`sim.maps.registry`: each format registers itself, as Pillow's plugins do)."""

from __future__ import annotations

import os
import re
from pathlib import Path

from sim.maps.data import MapData, MapError
from sim.maps.registry import (
    PREFIX_BYTES,
    MapFormat,
    Progress,
    describe,
    format_for,
    format_of,
    formats,
    map_suffixes,
    register_format,
    writable_suffixes,
)
from sim.support.checks import did_you_mean, short
from sim.support.files import as_path, check_file
from sim.world.terrain import Terrain

__all__ = ["MapFormat", "describe", "format_of", "formats", "list_maps", "load_map", "map_suffixes",
           "register_format", "resolve_map", "writable_suffixes", "write_map"]  # fmt: skip


def __getattr__(name: str) -> object:
    if name == "FORMATS":  # the registry as it stands (a tuple, as it was when it was a constant)
        return formats()
    raise AttributeError(name)


def load_map(
    path: str | os.PathLike, *, max_size: tuple[int, int] = (2048, 2048), progress: Progress = None
) -> MapData:
    """Load a map in any registered format (chosen by its ending and its first bytes:
    :func:`~sim.maps.registry.format_for`); ``max_size`` is (width, height) at most;
    ``progress(fraction)`` is told how a generator gets on."""
    path = as_path("path", path)
    fmt = format_for(path, _prefix(path))
    if fmt is None or fmt.read is None:  # nothing claims it: YAML says what is wrong
        fmt = next(f for f in formats() if f.name == "YAML")
    assert fmt.read is not None
    data = fmt.read(path, max_size, progress)
    data.terrain.flags.writeable = False  # what the file says; a simulation paints its own copy
    return data


def _prefix(path: Path) -> bytes:
    """The first bytes of a regular file for the formats' checks (nothing for anything else:
    its reader says what it is, never blocking on a FIFO)."""
    try:
        check_file(path, MapError)
        with open(path, "rb") as fh:
            return fh.read(PREFIX_BYTES)
    except (OSError, MapError):
        return b""


def write_map(data: MapData, dst: Path, colours: dict[Terrain, tuple[int, int, int]] | None = None) -> list[Path]:
    """Write ``data`` to ``dst`` in the format its ending names: all of it or nothing."""
    fmt = format_of(dst)
    if fmt is None or fmt.write is None:
        ending = dst.suffix or "(no ending)"
        raise MapError(f"{dst}: unknown map format {ending!r}; use one of {', '.join(writable_suffixes())}")
    return fmt.write(data, dst, colours)


def list_maps(directory: Path) -> list[Path]:
    """The map files in ``directory`` (every format's endings, any case), in the order a person
    sorts names (:func:`name_order`); none when it does not exist. A folder that cannot be read is
    a :class:`MapError` naming it."""
    known = map_suffixes()
    try:
        if not directory.is_dir():
            return []
        return sorted((p for p in directory.iterdir() if p.suffix.lower() in known and p.is_file()), key=name_order)
    except OSError as exc:
        raise MapError(f"{directory}: cannot read the folder: {exc.strerror or exc}") from None


def name_order(path: Path) -> tuple:
    """A file's sort key as a person orders names: numbers by value and letters regardless of case
    (``level2`` before ``level10``, ``alps`` before ``Zurich``), then the name itself (a tie-break)."""
    parts = re.split(r"(\d+)", path.name)  # text, number, text, ...: two names' parts compare kind with kind
    return tuple(int(part) if i % 2 else part.casefold() for i, part in enumerate(parts)), path.name


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
