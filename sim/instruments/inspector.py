"""Inspecting one animal: picking it, describing it, and the footprint of its last search."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from sim.model.agents import Outcome, State
from sim.model.observe import SearchEvent
from sim.simulation import Simulation
from sim.world.terrain import Terrain


@dataclass(frozen=True)
class SpeciesAtCell:
    """How one species sees a cell: its cost multiplier there (0 = impassable) and region id."""

    label: str
    multiplier: float
    region: int


@dataclass(frozen=True)
class CellInfo:
    """The readout of one cell: where, what terrain, and how each species sees it."""

    x: int
    y: int
    terrain: Terrain
    species: tuple[SpeciesAtCell, ...]

    def text(self) -> str:
        """ "(12, 7) grass   cows ×1 region 3   birds ×1.5 region 1   water creatures impassable" """
        parts = [f"({self.x}, {self.y}) {self.terrain.label}"]
        for s in self.species:
            parts.append(
                f"{s.label} impassable" if s.multiplier == 0 else f"{s.label} ×{s.multiplier:g} region {s.region}"
            )
        return "   ".join(parts)


def cell_info(sim: Simulation, x: int, y: int) -> CellInfo | None:
    """What is at cell ``(x, y)``, or None outside the map."""
    if not sim.world.inside(x, y):
        return None
    each = tuple(SpeciesAtCell(sp.label, sp.grid.multiplier(x, y), int(sp.regions[y, x])) for sp in sim.species)
    return CellInfo(x, y, Terrain(int(sim.world.terrain[y, x])), each)


def pick_animal(sim: Simulation, x: float, y: float, radius: float = 1.0) -> int | None:
    """The animal nearest to map point ``(x, y)`` (cells) within ``radius`` cells, or None."""
    a = sim.agents
    if a.n == 0:
        return None
    d = np.hypot(a.pos[:, 0] - x, a.pos[:, 1] - y)
    i = int(np.argmin(d))
    return i if d[i] <= radius else None


def state_text(sim: Simulation, i: int) -> str:
    """What the animal is doing, with the time left where it waits."""
    a = sim.agents
    now = sim.time
    s = int(a.state[i])
    if s == State.WALKING:
        return f"walking ({a.path_len[i] - a.path_pos[i]} cells to go)"
    if s == State.QUEUED:
        return "waiting for the search budget"
    if a.next_search_at[i] > now and (s == State.REPLAN or a.idle_until[i] <= now):
        return f"cooling down ({a.next_search_at[i] - now:.1f} s left)"
    if s == State.REPLAN:
        return "re-planning"
    return f"idle ({max(0.0, a.idle_until[i] - now):.1f} s left)"


def describe(sim: Simulation, i: int) -> list[str]:
    """The side panel's lines for animal ``i``."""
    a = sim.agents
    sp = sim.species[a.species[i]]
    cost = a.last_cost[i]
    path_cells = int(a.path_len[i])
    lines = [
        f"{sp.label[:-1] if sp.label.endswith('s') else sp.label} #{i}",
        f"state   {state_text(sim, i)}",
        f"at      ({a.cell[i, 0]}, {a.cell[i, 1]})",
        f"goal    ({a.goal[i, 0]}, {a.goal[i, 1]})",
        f"follows {_follows(sim, i)}",
        "",
        "last search",
        f"  from  ({a.last_start[i, 0]}, {a.last_start[i, 1]}) to ({a.last_goal[i, 0]}, {a.last_goal[i, 1]})"
        if a.searches[i]
        else "  none yet",
        f"  outcome   {Outcome(int(a.last_outcome[i])).label}",
        f"  expanded  {a.last_expanded[i]}",
        f"  time      {a.last_ms[i]:.3f} ms",
        f"  cost      {cost:.2f}" if not math.isnan(cost) else "  cost      -",
        f"  length    {path_cells} cells" if path_cells else "  length    -",
        *_straight(sim, i),
        f"searches so far  {a.searches[i]}",
    ]
    return lines


def _straight(sim: Simulation, i: int) -> list[str]:
    """For a species whose paths are pulled straight: how many straight segments the walk has."""
    a = sim.agents
    sp = sim.species[a.species[i]]
    if not sp.kind.straight_paths or a.path_len[i] < 2:
        return []
    w = sim.world.width
    cells = [(int(c % w), int(c // w)) for c in a.paths[i, : a.path_len[i]]]
    ways = sp.grid.smooth_path(cells, diagonal=sp.astar.diagonal)[1]
    return [f"  straight  {len(ways) - 1} segment(s): A*'s grid path pulled straight (thin line)"]


def _follows(sim: Simulation, i: int) -> str:
    """Whose path the animal walks: a herd's distance field, or its own search's."""
    herd = sim.herds.of(i)
    if herd is None:
        return "its own path (A*)"
    return f"the herd field to {herd.goal}" + ("" if herd.ready else " (being grown)")


def replay_last_search(sim: Simulation, i: int) -> tuple[np.ndarray, SearchEvent] | None:
    """Run animal ``i``'s last query again with a footprint record (on today's terrain).

    Used when an animal is selected: its earlier searches were not recorded, and from now
    on the simulation records each new one live.
    """
    a = sim.agents
    if a.searches[i] == 0:
        return None
    sp = sim.species[a.species[i]]
    start = (int(a.last_start[i, 0]), int(a.last_start[i, 1]))
    goal = (int(a.last_goal[i, 0]), int(a.last_goal[i, 1]))
    record = np.zeros(sim.world.terrain.shape, dtype=np.int32)
    if not (sp.grid.passable(*start) and sp.grid.passable(*goal)):
        return record, SearchEvent(sim.time, i, sp.key, start, goal, None)
    if sp.regions[start[1], start[0]] != sp.regions[goal[1], goal[0]]:
        return record, SearchEvent(sim.time, i, sp.key, start, goal, None)
    result = sp.astar.search(start, goal, record=record)
    return record, SearchEvent(sim.time, i, sp.key, start, goal, result)
