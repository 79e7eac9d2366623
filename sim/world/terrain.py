"""Terrain kinds: the one table of what a cell can be (id, name, map character, colour).

To add a terrain: add a row to :data:`TERRAINS` (and a member to :class:`Terrain` with
the next id). Everything else follows from this table: the YAML legend, the brush keys,
the default colours; a species can walk on it once its cost table (``species.py`` or
``config.yaml``) gives it a multiplier above 0 (missing means impassable).
"""

from __future__ import annotations

from enum import IntEnum
from typing import NamedTuple


class Terrain(IntEnum):
    """Terrain ids as stored in ``World.terrain`` (uint8)."""

    WATER = 0
    SAND = 1
    GRASS = 2
    FOREST = 3
    SWAMP = 4
    MOUNTAIN = 5
    ROCK = 6

    @property
    def label(self) -> str:
        return self.name.lower()


class TerrainInfo(NamedTuple):
    terrain: Terrain
    char: str  # in drawn YAML maps (the default legend)
    colour: tuple[int, int, int]  # default RGB (config.yaml may override)
    movingai: str  # character in a Moving AI .map file


TERRAINS: tuple[TerrainInfo, ...] = (
    TerrainInfo(Terrain.WATER, "~", (38, 92, 160), "W"),
    TerrainInfo(Terrain.SAND, ":", (222, 204, 140), "."),  # Moving AI has no sand: ground
    TerrainInfo(Terrain.GRASS, ".", (96, 164, 72), "."),
    TerrainInfo(Terrain.FOREST, "T", (40, 104, 52), "T"),
    TerrainInfo(Terrain.SWAMP, "%", (92, 108, 70), "S"),
    TerrainInfo(Terrain.MOUNTAIN, "^", (132, 120, 110), "@"),  # no mountain either: out of bounds
    TerrainInfo(Terrain.ROCK, "#", (70, 66, 66), "@"),
)

#: Names as written in config and map files -> terrain.
BY_NAME: dict[str, Terrain] = {t.label: t for t in Terrain}
#: The default legend of drawn maps: character -> terrain.
DEFAULT_LEGEND: dict[str, Terrain] = {info.char: info.terrain for info in TERRAINS}
#: Default RGB colours.
DEFAULT_COLOURS: dict[Terrain, tuple[int, int, int]] = {info.terrain: info.colour for info in TERRAINS}
#: The painting brushes, keys 1, 2, ...: rock first (walls are what people paint most), then the rest.
BRUSHES: tuple[Terrain, ...] = (Terrain.ROCK, *(t for t in Terrain if t != Terrain.ROCK))


def parse_terrain(name: str) -> Terrain:
    """The terrain called ``name`` (case-insensitive); ``ValueError`` listing the known names."""
    try:
        return BY_NAME[name.strip().lower()]
    except (KeyError, AttributeError):
        from sim.support.checks import short

        raise ValueError(f"unknown terrain {short(name)}; expected one of {', '.join(BY_NAME)}") from None
