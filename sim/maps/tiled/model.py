"""What the two Tiled readers (``.tmx`` XML, ``.tmj``/``.json``) agree on, and how a map's
layers become one terrain grid.

Which terrain a tile is: its custom property ``terrain`` (a terrain name), else its class
(``class``, or ``type`` before Tiled 1.9 and again since 1.10) when that names a terrain.
Each cell takes the terrain of the topmost *visible* tile layer whose tile there has one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from sim.maps.data import MapArt, MapError, TileSheet
from sim.maps.tiled.layers import GID_MASK, LayerDataError
from sim.support.checks import did_you_mean, short
from sim.world.terrain import BY_NAME

#: "no terrain" in the per-tile tables and the composed grid.
NONE = 255
TERRAIN_NAMES = ", ".join(BY_NAME)


@dataclass
class Tileset:
    """One tileset of a map: which of its local tile ids have a terrain, and which.

    Sparse (sorted ``ids`` beside their ``terrains``), so a declared ``tilecount`` or a
    tile id of a billion costs nothing: only tiles written in the file take room."""

    firstgid: int
    name: str
    ids: np.ndarray  # int64, sorted: local ids of the tiles that have a terrain
    terrains: np.ndarray  # uint8, their terrain ids
    where: str  # for messages: "tileset 'beach' (beach_tileset.tsx)"
    sheet: TileSheet | None = None  # its image, when it is one image cut into tiles

    def terrain_of(self, local: np.ndarray) -> np.ndarray:
        """Terrain ids of local tile ids (``NONE`` for a tile without one)."""
        out = np.full(local.shape, NONE, dtype=np.uint8)
        if self.ids.size:
            i = np.minimum(np.searchsorted(self.ids, local), self.ids.size - 1)
            hit = self.ids[i] == local
            out[hit] = self.terrains[i[hit]]
        return out


@dataclass
class Chunk:
    """A piece of an infinite map's layer: raw gids ``[y, x]`` whose first cell is ``(x, y)``
    in the map's tile coordinates (negative left of and above the map's origin)."""

    x: int
    y: int
    raw: np.ndarray


@dataclass
class Layer:
    """A visible tile layer: raw gids ``[y, x]`` (flip flags in the top bits), bottom layer
    first in a map; :attr:`gids` without the flags. An infinite map's layers are read as
    :attr:`chunks` first and laid into one grid by :func:`place_chunks`."""

    name: str
    raw: np.ndarray
    where: str  # for messages: "island.tmx:12" or "island.tmj: layers[0]"
    chunks: list[Chunk] = field(default_factory=list)

    @property
    def gids(self) -> np.ndarray:
        return self.raw & np.uint32(GID_MASK)


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
    #: Where cell (0, 0) is in Tiled's tile coordinates: (0, 0) but for an infinite map, whose
    #: grid is the smallest rectangle holding all its tiles (:func:`place_chunks`).
    origin: tuple[int, int] = (0, 0)


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


def terrain_table(tiles: dict[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """``(ids, terrains)`` of a tileset's tiles that have a terrain (``tiles``: local id -> terrain)."""
    ids = np.array(sorted(tiles), dtype=np.int64)
    return ids, np.array([tiles[i] for i in ids.tolist()], dtype=np.uint8)


#: Gids are 28 bits (the top four are flip flags): no tile id, tile count or firstgid is larger.
MAX_GID = 0x0FFFFFFF
#: Tilesets one map may use, its own and external ones together.
MAX_TILESETS = 256
#: Chunks one infinite map may hold, all layers together: four layers of the largest map in
#: Tiled's default chunks of 16x16 tiles, twice over.
MAX_CHUNKS = 2 * 4 * (2048 // 16) ** 2
#: Decoded tile-layer data one map file may hold, all layers together (4 bytes a cell): four
#: layers of the largest map. Checked before each layer is decoded or decompressed.
MAX_LAYER_BYTES = 4 * 4 * 2048 * 2048


@dataclass
class Reading:
    """One load of one map: its limits and what they have used so far, and the external
    tilesets met (each file parsed once, however many times the map refers to it).

    ``external(map_path, line, source, firstgid)`` reads a tileset file; the reader of
    the map's format calls it, :mod:`.read` provides it (so the readers import no reader)."""

    max_size: tuple[int, int]
    external: Callable[[Reading, Path, int | None, str, int], Tileset]
    layer_bytes: int = 0
    tilesets: int = 0
    chunks: int = 0
    cache: dict[str, Tileset | MapError] = field(default_factory=dict)

    def count_tilesets(self, n: int, at: str) -> None:
        """``n`` more tilesets are about to be read; refused past :data:`MAX_TILESETS`."""
        self.tilesets += n
        if self.tilesets > MAX_TILESETS:
            raise MapError(f"{at}: more than {MAX_TILESETS} tilesets")

    def take_chunk(self, width: int, height: int) -> None:
        """Room for one more chunk of an infinite map's layer (as :meth:`take_layer`)."""
        self.chunks += 1
        if self.chunks > MAX_CHUNKS:
            raise LayerDataError(f"the map's tile layers hold more than {MAX_CHUNKS:,} chunks in all")
        self.take_layer(width, height)

    def take_layer(self, width: int, height: int) -> None:
        """Room for one more decoded layer, or a ``LayerDataError``-like ``MapError`` text."""
        self.layer_bytes += 4 * width * height
        if self.layer_bytes > MAX_LAYER_BYTES:
            raise LayerDataError(
                f"the map's tile layers hold more than {MAX_LAYER_BYTES // 4:,} tiles in all; "
                "merge or delete layers in Tiled"
            )


#: A chunk's corner may be at most this many tiles from the origin (Tiled keeps them within int32).
MAX_CHUNK_OFFSET = 1 << 30


def place_chunks(doc: TiledDoc, reading: Reading, at: str) -> None:
    """An infinite map's layers as one grid: the smallest rectangle holding every tile of
    its visible tile layers (Tiled's map size is only where the editor started), each
    chunk laid where it belongs; the spawn areas moved with it. ``at`` names the file."""
    boxes = []
    for layer in doc.layers:
        for c in layer.chunks:
            ys, xs = np.nonzero(c.raw & np.uint32(GID_MASK))
            if xs.size:
                x, y = c.x + int(xs.min()), c.y + int(ys.min())
                boxes.append((x, y, c.x + int(xs.max()) + 1, c.y + int(ys.max()) + 1))
    if not boxes:
        raise MapError(f"{at}: the infinite map has no tiles in its visible tile layers")
    x0, y0 = min(b[0] for b in boxes), min(b[1] for b in boxes)
    x1, y1 = max(b[2] for b in boxes), max(b[3] for b in boxes)
    width, height = x1 - x0, y1 - y0
    if width > reading.max_size[0] or height > reading.max_size[1]:
        raise MapError(
            f"{at}: the infinite map's tiles span {width}x{height} (from ({x0}, {y0}) to ({x1 - 1}, {y1 - 1})), "
            f"larger than the limit {reading.max_size[0]}x{reading.max_size[1]}"
        )
    reading.layer_bytes = 0  # the chunks are let go as each layer is laid: count the grids instead
    for layer in doc.layers:
        try:
            reading.take_layer(width, height)
        except LayerDataError as exc:
            raise MapError(f"{at}: {exc}") from None
        raw = np.zeros((height, width), np.uint32)
        for c in layer.chunks:  # a chunk may reach past the tiles (its empty cells): clipped
            h, w = c.raw.shape
            cx0, cy0 = max(c.x, x0), max(c.y, y0)
            cx1, cy1 = min(c.x + w, x1), min(c.y + h, y1)
            if cx0 < cx1 and cy0 < cy1:
                raw[cy0 - y0 : cy1 - y0, cx0 - x0 : cx1 - x0] = c.raw[cy0 - c.y : cy1 - c.y, cx0 - c.x : cx1 - c.x]
        layer.raw, layer.chunks = raw, []
    doc.width, doc.height, doc.origin = width, height, (x0, y0)
    for areas in doc.spawn.values():
        for area in areas:
            area[0] -= x0
            area[1] -= y0


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
        ox, oy = doc.origin
        tiled = f" (({x + ox}, {y + oy}) in Tiled)" if doc.origin != (0, 0) else ""
        raise MapError(f"{path}: cell ({x}, {y}){tiled}{more}: {_why_none(doc, firsts, x, y)}")
    return out


def layer_terrain(gids: np.ndarray, tilesets: list[Tileset], firsts: np.ndarray) -> np.ndarray:
    """One layer's terrain per cell (``NONE`` where it has no tile or its tile no terrain)."""
    out = np.full(gids.shape, NONE, dtype=np.uint8)
    if not tilesets:
        return out
    which = np.searchsorted(firsts, gids, side="right") - 1  # the tileset with the largest firstgid <= gid
    for i, ts in enumerate(tilesets):
        mask = (which == i) & (gids != 0)
        out[mask] = ts.terrain_of(gids[mask].astype(np.int64) - ts.firstgid)
    return out


def _why_none(doc: TiledDoc, firsts: np.ndarray, x: int, y: int) -> str:
    """Why cell (x, y) has no terrain, and how to fix it in Tiled."""
    fix = f"give it a property 'terrain' ({TERRAIN_NAMES}) in Tiled"
    for layer in reversed(doc.layers):
        gid = int(layer.gids[y, x])
        if gid == 0:
            continue
        i = int(np.searchsorted(firsts, gid, side="right")) - 1
        if i < 0:
            return f"layer {short(layer.name)} ({layer.where}) has tile gid {gid}, which is in no tileset"
        ts = doc.tilesets[i]
        return f"tile {gid - ts.firstgid} of {ts.where} (layer {short(layer.name)}) has no terrain; {fix}"
    if not doc.layers:
        return "the map has no visible tile layer; paint one with tiles that have a 'terrain' property"
    return f"no visible tile layer has a tile here; paint one whose tile has a 'terrain' property ({TERRAIN_NAMES})"


def sheet_of(image: dict[str, Any] | None, folder: Path, tile_w: int, tile_h: int, count: int, columns: int,
             margin: int, spacing: int) -> TileSheet | None:  # fmt: skip
    """A tileset's sheet from its image's attributes (``source``, ``width``, ``height``,
    relative to ``folder``); None without an image (a collection of single images)."""
    source = (image or {}).get("source")
    if not isinstance(source, str) or not source or "\0" in source:
        return None
    if columns <= 0:  # old files leave it out: from the image's width
        width = (image or {}).get("width")
        columns = max(1, (int(width) - 2 * margin + spacing) // (tile_w + spacing)) if isinstance(width, int) else 1
    return TileSheet(folder / source, tile_w, tile_h, columns, count, margin, spacing)


def map_art(doc: TiledDoc, terrain_ids: dict[int, int]) -> MapArt | None:
    """The map's picture for the view, when a tileset has an image; ``terrain_ids``: terrain
    id -> a gid that has it (the first such tile)."""
    sheets = {ts.firstgid: ts.sheet for ts in doc.tilesets if ts.sheet is not None}
    if not sheets:
        return None
    return MapArt(doc.tile_size, sheets, [layer.raw for layer in doc.layers], terrain_ids)


def terrain_gids(doc: TiledDoc) -> dict[int, int]:
    """Per terrain id, the first gid (lowest) whose tile has it and whose tileset has an image."""
    out: dict[int, int] = {}
    for ts in doc.tilesets:
        if ts.sheet is None:
            continue
        for local, t in zip(ts.ids.tolist(), ts.terrains.tolist(), strict=True):
            out.setdefault(int(t), ts.firstgid + int(local))
    return out
