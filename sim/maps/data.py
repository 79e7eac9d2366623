"""What every map reader produces: :class:`MapData`, and :class:`MapError` for what it refuses."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from sim.support.checks import InputError
from sim.world.geometry import CellRect


class MapError(InputError):
    """A map that cannot be used; the message names the file, the line where it can tell, and the problem."""


@dataclass(frozen=True)
class TileSheet:
    """One tileset image cut into tiles (Tiled's ``<image>``): ``tile_w`` x ``tile_h``
    pixels, ``columns`` a row, ``margin`` around the image, ``spacing`` between tiles."""

    image: Path
    tile_w: int
    tile_h: int
    columns: int
    count: int
    margin: int = 0
    spacing: int = 0


@dataclass
class MapArt:
    """A Tiled map's own picture, kept for the view (the model never reads it): its tile
    size in pixels, each tileset's sheet by first gid, its visible tile layers bottom first
    as raw gids ``[y, x]`` (uint32, Tiled's flip flags in the top bits), and per terrain id
    one gid that shows it (what a painted cell is drawn with)."""

    tile_size: tuple[int, int]
    sheets: dict[int, TileSheet]
    layers: list[np.ndarray]
    terrain_tiles: dict[int, int] = field(default_factory=dict)


@dataclass
class MapData:
    """A loaded map. ``terrain`` is uint8 terrain ids indexed ``[y, x]``."""

    name: str
    terrain: np.ndarray
    description: str = ""
    spawn: dict[str, list[CellRect]] = field(default_factory=dict)  # species key -> areas
    source: Path | None = None
    kind: str = "yaml"  # "yaml", "generated", "movingai" or "tiled"
    animals: dict[str, int] | None = None  # the map's own animal counts, if it names them
    art: MapArt | None = None  # a Tiled map's tileset images and layers (drawn when the user picks them)
    # species key -> "astar" or "jps": the search that is faster for it on this map (measured by
    # bench.weighted's demo queries); species.<key>.search in the config may overrule it
    search: dict[str, str] = field(default_factory=dict)

    @property
    def width(self) -> int:
        return int(self.terrain.shape[1])

    @property
    def height(self) -> int:
        return int(self.terrain.shape[0])
