"""The species table: every fact about each species, in one place (data only, no engine).

One row per species: its key (as config and map files write it), its label, speed (cells
a second on a multiplier-1 cell), colour, drawing layer (swimmers under walkers under
fliers), whether its paths are pulled straight, how many the demo starts with unless the
config says, its cost table, and its flying height (0 on the ground; a flier's shadow
falls that far off). The cost table is the multiplier for *entering* a cell of each terrain (a
terrain it does not name is impassable; a step costs its length, 1 or √2, times that).
The config's defaults, the map readers' species check, the model's ``AStar`` subclasses and
``SpeciesKind`` classes, ``config.yaml`` and the docs all come from here (tests check the
last two against it, value by value). A species added here with ``count`` 0 is opt-in: no
animal of it appears until a config or a map asks for some.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from sim.world.terrain import Terrain


@dataclass(frozen=True)
class SpeciesFacts:
    key: str
    label: str
    speed: float  # cells per second on a multiplier-1 cell
    colour: tuple[int, int, int]
    layer: int  # drawing order: lower first
    straight_paths: bool  # its paths are pulled straight (the same cost, no zigzag)
    count: int  # animals at start when the config does not say
    wander_radius: int  # goals are picked within this many cells
    idle_s: tuple[float, float]  # rest between walks: min and max seconds
    costs: Mapping[Terrain, float]  # multiplier for entering a cell; absent = impassable
    flight: float = 0.0  # height above the ground in cells (a flier's shadow falls this far off); 0: on the ground


def _costs(**by_name: float) -> Mapping[Terrain, float]:
    return MappingProxyType({Terrain[name.upper()]: value for name, value in by_name.items()})


COW = SpeciesFacts("cow", "cows", 3.0, (250, 240, 225), 1, False, 250, 20, (0.5, 2.0),
                   _costs(sand=1.2, grass=0.85, forest=1.6, swamp=5.0))  # fmt: skip
BIRD = SpeciesFacts("bird", "birds", 6.0, (240, 90, 60), 2, True, 150, 30, (0.3, 1.5),
                    _costs(water=1.0, sand=1.0, grass=1.0, forest=1.0, swamp=1.0, mountain=1.5),
                    flight=0.9)  # fmt: skip
WATER = SpeciesFacts("water", "water creatures", 4.0, (90, 230, 220), 0, False, 100, 25, (0.5, 2.5),
                     _costs(water=1.0))  # fmt: skip

#: Every species by its key, in species-index order (the agents' ``species`` column, compare's 1 2 3).
FAUNA: dict[str, SpeciesFacts] = {facts.key: facts for facts in (COW, BIRD, WATER)}


def cost_table() -> str:
    """The cost tables as a Markdown table (terrain rows, species columns), for the docs."""
    head = "| terrain | " + " | ".join(f.label for f in FAUNA.values()) + " |"
    rows = [head, "|---|" + "---|" * len(FAUNA)]
    for t in Terrain:
        rows.append(f"| {t.label} | " + " | ".join(f"{f.costs.get(t, 0):g}" for f in FAUNA.values()) + " |")
    return "\n".join(rows)
