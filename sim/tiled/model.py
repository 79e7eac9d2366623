"""What the two Tiled readers (``.tmx`` XML, ``.tmj``/``.json``) agree on, and how a map's
layers become one terrain grid.

Which terrain a tile is: its custom property ``terrain`` (a terrain name), else its class
(``class``, or ``type`` before Tiled 1.9 and again since 1.10) when that names a terrain.
Each cell takes the terrain of the topmost *visible* tile layer whose tile there has one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..checks import did_you_mean, short
from ..mapdata import MapError
from ..terrain import BY_NAME

#: "no terrain" in the per-tile tables and the composed grid.
NONE = 255
TERRAIN_NAMES = ", ".join(BY_NAME)


@dataclass
class Tileset:
    """One tileset of a map: local tile id -> terrain id (``NONE`` when the tile has none)."""

    firstgid: int
    name: str
    terrain: np.ndarray  # uint8, indexed by local tile id
    where: str  # for messages: "tileset 'beach' (beach_tileset.tsx)"


@dataclass
class Layer:
    """A visible tile layer: gids ``[y, x]`` (flags cleared), bottom layer first in a map."""

    name: str
    gids: np.ndarray
    where: str  # for messages: "island.tmx:12" or "island.tmj: layers[0]"


@dataclass
class TiledDoc:
    """A Tiled map as far as this project reads it."""

    width: int
    height: int
    tile_size: tuple[int, int]  # pixels (width, height)
    tilesets: list[Tileset]
    layers: list[Layer]
    properties: dict[str, Any] = field(default_factory=dict)  # the map's custom properties
    lines: dict[str, int] = field(default_factory=dict)  # property or "spawn.<species>" -> line
    spawn: dict[str, list[list[int]]] = field(default_factory=dict)  # species -> [x, y, w, h] cells


def tile_terrain(props: dict[str, Any], cls: str | None, where: str) -> int:
    """The terrain id of one tile (see the module doc), or ``NONE``."""
    if "terrain" in props:
        value = props["terrain"]
        t = BY_NAME.get(value.strip().lower()) if isinstance(value, str) else None
        if t is None:
            hint = did_you_mean(value, BY_NAME, "terrains")
            raise MapError(f"{where}: property 'terrain' is {short(value)}, not a terrain{hint}")
        return int(t)
    t = BY_NAME.get(cls.strip().lower()) if isinstance(cls, str) else None
    return NONE if t is None else int(t)


def terrain_table(tiles: dict[int, int], count: int) -> np.ndarray:
    """Local id -> terrain for a tileset of ``count`` tiles (``tiles`` holds the ones that have one)."""
    size = max(count, max(tiles, default=-1) + 1)
    table = np.full(size, NONE, dtype=np.uint8)
    for local, t in tiles.items():
        table[local] = t
    return table


def compose(doc: TiledDoc, path: object) -> np.ndarray:
    """The terrain grid ``[y, x]`` (uint8): topmost visible layer with a terrain wins."""
    out = np.full((doc.height, doc.width), NONE, dtype=np.uint8)
    firsts = np.array([ts.firstgid for ts in doc.tilesets], dtype=np.int64)
    for layer in doc.layers:
        t = layer_terrain(layer.gids, doc.tilesets, firsts)
        np.copyto(out, t, where=t != NONE)
    missing = np.flatnonzero(out == NONE)
    if missing.size:
        y, x = divmod(int(missing[0]), doc.width)
        more = f" (and {missing.size - 1} more cells)" if missing.size > 1 else ""
        raise MapError(f"{path}: cell ({x}, {y}){more}: {_why_none(doc, firsts, x, y)}")
    return out


def layer_terrain(gids: np.ndarray, tilesets: list[Tileset], firsts: np.ndarray) -> np.ndarray:
    """One layer's terrain per cell (``NONE`` where it has no tile or its tile no terrain)."""
    out = np.full(gids.shape, NONE, dtype=np.uint8)
    if not tilesets:
        return out
    which = np.searchsorted(firsts, gids, side="right") - 1  # the tileset with the largest firstgid <= gid
    for i, ts in enumerate(tilesets):
        mask = (which == i) & (gids != 0)
        local = gids[mask].astype(np.int64) - ts.firstgid
        known = local < ts.terrain.size
        values = np.full(local.shape, NONE, dtype=np.uint8)
        values[known] = ts.terrain[local[known]]
        out[mask] = values
    return out


def _why_none(doc: TiledDoc, firsts: np.ndarray, x: int, y: int) -> str:
    """Why cell (x, y) has no terrain, and how to fix it in Tiled."""
    fix = f"give that tile a custom property 'terrain' ({TERRAIN_NAMES}) in Tiled's tileset editor"
    for layer in reversed(doc.layers):
        gid = int(layer.gids[y, x])
        if gid == 0:
            continue
        i = int(np.searchsorted(firsts, gid, side="right")) - 1
        if i < 0:
            return f"layer '{layer.name}' ({layer.where}) has tile gid {gid}, which is in no tileset"
        ts = doc.tilesets[i]
        return f"tile {gid - ts.firstgid} of {ts.where} (layer '{layer.name}') has no terrain; {fix}"
    if not doc.layers:
        return "the map has no visible tile layer; paint one with tiles that have a 'terrain' property"
    return f"no visible tile layer has a tile here; paint one whose tile has a 'terrain' property ({TERRAIN_NAMES})"
