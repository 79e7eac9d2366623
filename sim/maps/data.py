"""What every map reader produces: :class:`MapData`, and :class:`MapError` for what it refuses."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from sim.support.checks import InputError
from sim.world.geometry import CellRect


class MapError(InputError):
    """A map that cannot be used; the message names the file, the line where it can tell, and the problem."""


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

    @property
    def width(self) -> int:
        return int(self.terrain.shape[1])

    @property
    def height(self) -> int:
        return int(self.terrain.shape[0])
