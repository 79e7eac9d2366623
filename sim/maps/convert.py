"""Converting maps between formats: YAML, Tiled (``.tmx``, ``.tmj``, ``.json``) and Moving AI ``.map``.

``python main.py convert SRC DST`` (or ``astar-island convert``): the formats follow the
file name endings. YAML and Tiled hold everything (terrain, name, description, spawn
areas, animal counts) and convert both ways exactly; a Moving AI map holds only walkable
or not, so writing one loses sand, mountain and the rest (see :mod:`sim.maps.movingai`).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from sim.maps.data import MapData, MapError
from sim.maps.formats import format_of, load_map, map_suffixes, writable_suffixes, write_map
from sim.maps.tiled import image_path
from sim.maps.tiled.write import tileset_png
from sim.support.checks import short_path
from sim.support.files import check_writable
from sim.world.terrain import DEFAULT_COLOURS, Terrain

__all__ = ["MapData", "convert", "write_map"]


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
    A ``dst`` that is a symbolic link is written through: the file it points to is replaced
    (atomically, from a temporary file beside it) and the link stays; a link to a device, a
    FIFO, a folder or nothing is refused.
    """
    for path, known in ((src, map_suffixes()), (dst, writable_suffixes())):
        if path.suffix.lower() not in known:
            ending = path.suffix or "(no ending)"
            raise MapError(f"{path}: unknown map format {ending!r}; use one of {', '.join(known)}")
    dst = _through_link(dst)
    _check_target(src, dst, force, colours)
    data = load_map(src, max_size=max_size)
    return write_map(data, dst, colours)


def _check_target(src: Path, dst: Path, force: bool, colours: dict[Terrain, tuple[int, int, int]] | None) -> None:
    if dst.exists() and src.exists() and dst.resolve() == src.resolve():
        raise MapError(f"{dst}: the source and the target are the same file")
    check_writable(dst, MapError)
    _regular_if_there(dst)
    if dst.exists() and not force:
        raise MapError(f"{dst}: already exists; add --force to replace it")
    image = image_path(dst)
    fmt = format_of(dst)
    if fmt is None or fmt.name != "Tiled" or not _regular_if_there(image):
        return
    # The same picture (t.tmx and t.tmj share t-tiles.png) is no loss; another one is.
    if not force and not _holds(image, tileset_png(colours or DEFAULT_COLOURS)):
        raise MapError(f"{image}: already exists; add --force to replace it")


def _through_link(dst: Path) -> Path:
    """``dst``, or the regular file its symbolic link (or chain of links) points to."""
    if not dst.is_symlink():
        return dst
    try:
        real = dst.resolve(strict=True)
        st = os.stat(real)
    except (OSError, RuntimeError):  # dangling, a loop, or unreadable on the way
        raise MapError(f"{dst}: is a link to nothing that can be written; remove it or choose another name") from None
    if not stat.S_ISREG(st.st_mode):
        kind = "a folder" if stat.S_ISDIR(st.st_mode) else "a FIFO, device or socket"
        raise MapError(f"{dst}: is a link to {kind} ({short_path(real)}), not a regular file; nothing was written")
    if real.suffix.lower() != dst.suffix.lower():
        raise MapError(f"{dst}: is a link to {short_path(real)}, whose ending names another format")
    return real


def _regular_if_there(path: Path) -> bool:
    """Whether a file is at ``path``; a FIFO, device or folder there is refused (never opened)."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return False
    except OSError as exc:
        raise MapError(f"{path}: cannot read: {exc.strerror}") from None
    if stat.S_ISLNK(st.st_mode):  # (dst was resolved already: this is the Tiled image's name)
        raise MapError(f"{path}: is a symbolic link; remove it or choose another name")
    if not stat.S_ISREG(st.st_mode):
        kind = "a folder" if stat.S_ISDIR(st.st_mode) else "a FIFO, device or socket"
        raise MapError(f"{path}: is {kind}, not a regular file; remove it or choose another name")
    return True


def _holds(path: Path, data: bytes) -> bool:
    """Whether the regular file at ``path`` holds exactly ``data`` (its size compared first:
    a huge or endless file is never read)."""
    try:
        if os.lstat(path).st_size != len(data):
            return False
        with open(path, "rb") as fh:
            return fh.read(len(data) + 1) == data
    except OSError:
        return False
