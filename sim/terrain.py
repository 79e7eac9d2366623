"""Terrain kinds: the ids stored in the world's grid, their names and default colours."""

from __future__ import annotations

from enum import IntEnum


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


#: Names as written in config and map files -> terrain.
BY_NAME: dict[str, Terrain] = {t.label: t for t in Terrain}

#: Default RGB colours (config.yaml may override them).
DEFAULT_COLOURS: dict[Terrain, tuple[int, int, int]] = {
    Terrain.WATER: (38, 92, 160),
    Terrain.SAND: (222, 204, 140),
    Terrain.GRASS: (96, 164, 72),
    Terrain.FOREST: (40, 104, 52),
    Terrain.SWAMP: (92, 108, 70),
    Terrain.MOUNTAIN: (132, 120, 110),
    Terrain.ROCK: (70, 66, 66),
}


def parse_terrain(name: str) -> Terrain:
    """The terrain called ``name`` (case-insensitive); ``ValueError`` listing the known names."""
    try:
        return BY_NAME[name.strip().lower()]
    except (KeyError, AttributeError):
        raise ValueError(f"unknown terrain {name!r}; expected one of {', '.join(BY_NAME)}") from None
