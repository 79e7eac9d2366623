"""What the map picker shows of each map: a thumbnail, its size, its name and description.

A map is read once per change of its file (keyed by path, size and modification time),
so opening the picker again costs nothing; a map that does not load shows why instead.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pygame

from sim.maps import load_map
from sim.maps.data import MapError
from sim.support.checks import short
from sim.world.terrain import DEFAULT_COLOURS, Terrain

THUMB = (72, 48)  # pixels of a thumbnail at most


@dataclass
class Preview:
    path: Path
    name: str
    size: str  # "160x100"
    description: str
    thumbnail: pygame.Surface | None
    error: str = ""  # why the map does not load (then no thumbnail)


_CACHE: dict[tuple[str, int, int], Preview] = {}


def preview(path: Path, colours: dict[Terrain, tuple[int, int, int]] | None = None) -> Preview:
    """The picker's entry for the map at ``path`` (read once per version of the file)."""
    try:
        st = os.stat(path)
        key = (str(path), st.st_size, st.st_mtime_ns)
    except OSError as exc:
        return Preview(path, path.name, "", "", None, f"cannot read: {exc.strerror}")
    found = _CACHE.get(key)
    if found is None:
        try:
            data = load_map(path)
        except MapError as exc:
            why = str(exc).removeprefix(f"{path}")
            line = re.match(r":(\d+): ", why)
            why = f"line {line.group(1)}: {why[line.end() :]}" if line else why.lstrip(": ")
            found = Preview(path, path.name, "", "", None, why)
        else:
            h, w = data.terrain.shape
            found = Preview(path, data.name, f"{w}x{h}", data.description, thumbnail(data.terrain, colours))
        if len(_CACHE) > 256:
            _CACHE.clear()
        _CACHE[key] = found
    return found


def thumbnail(terrain: np.ndarray, colours: dict[Terrain, tuple[int, int, int]] | None = None) -> pygame.Surface:
    """The terrain in its colours, scaled to fit :data:`THUMB` (nearest cell, never stretched)."""
    colours = colours or DEFAULT_COLOURS
    lut = np.zeros((256, 3), dtype=np.uint8)
    for t, rgb in colours.items():
        lut[int(t)] = rgb
    h, w = terrain.shape
    scale = min(THUMB[0] / w, THUMB[1] / h)
    tw, th = max(1, int(w * scale)), max(1, int(h * scale))
    ys = np.minimum((np.arange(th) / scale).astype(int), h - 1)
    xs = np.minimum((np.arange(tw) / scale).astype(int), w - 1)
    rgb = lut[terrain[np.ix_(ys, xs)]]
    return pygame.surfarray.make_surface(np.ascontiguousarray(rgb.transpose(1, 0, 2)))


def one_line(text: str, limit: int = 170) -> str:
    """A description's first line, cut short for a list entry."""
    first = text.strip().splitlines()[0] if text.strip() else ""
    return short(first, limit)[1:-1] if len(first) > limit else first
