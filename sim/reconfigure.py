"""Applying a changed config to a running simulation (the demo does when config.yaml changes on disk).

What takes effect at once: each species' cost table, speed, idle times, wander radius and
count; the search budget, cooldowns, diagonal rule, node cap and threads; the terrain
colours (the view repaints). Animals whose species' costs or speed changed plan again,
and any left on a cell they may no longer stand on move to the nearest one they may.
The seed and the window size apply at the next map load and the next start.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from sim.config import Config
from sim.model.agents import State
from sim.model.replan import rescue_stranded, stop_for_replan
from sim.model.species import SEARCH_NAMES, SpeciesRuntime

if TYPE_CHECKING:
    from sim.model.agents import Agents
    from sim.model.herds import Herds
    from sim.model.planner import Planner
    from sim.model.scheduler import SearchBudget
    from sim.world.world import World


class Simulation(Protocol):
    """What applying a config touches of :class:`sim.simulation.Simulation` (its own helper:
    it may add animals and rebuild the speed table, which scripts never do)."""

    config: Config
    species: list[SpeciesRuntime]
    agents: Agents
    world: World
    herds: Herds
    planner: Planner
    budget: SearchBudget
    counts: dict[str, int]
    rng: np.random.Generator

    def _add(self, sp: SpeciesRuntime, n: int) -> Any: ...

    def _species_tables(self) -> None: ...

    def remove(self, keep: np.ndarray) -> Any: ...

    def choose_searches(self) -> list[str]: ...


def apply_config(sim: Simulation, config: Config) -> list[str]:
    """Use ``config`` from now on; returns what changed, in words (for a message)."""
    old, sim.config = sim.config, config
    before = [sp.search for sp in sim.species]
    said = _search(sim, old, config)
    rebuilt = [sp.index for sp in sim.species if _species_changed(old, config, sp.key)]
    for sp in sim.species:
        sp.spec = config.species[sp.key]  # colour, wander radius, idle times: read where used
    for i in rebuilt:
        sp = sim.species[i]
        sim.species[i] = SpeciesRuntime(i, sp.kind, config.species[sp.key], sim.world, config.search)
    for herd in sim.herds.herds:
        if herd.species in rebuilt:
            herd.changes = None  # new costs: its field is grown again (Herds.update restarts it)
    if rebuilt:
        sim._species_tables()
        a = sim.agents
        for row in np.flatnonzero((a.state == State.WALKING) & np.isin(a.species, rebuilt)).tolist():
            stop_for_replan(a, sim.species[a.species[row]], sim.world.width, row)  # planned with old costs
        rescue_stranded(a, sim.species)
        said.append("costs and speeds of " + ", ".join(sim.species[i].label for i in rebuilt))
    kept_out = sim.choose_searches()  # JPS asked for where the diagonal rule rules it out
    switched = [sp for sp, was in zip(sim.species, before, strict=True) if sp.search != was]
    if switched:
        said.append("search of " + ", ".join(f"{sp.label} ({SEARCH_NAMES[sp.search]})" for sp in switched))
    said += kept_out
    moved = [sp.label for sp in sim.species if _wander(old, sp.key) != _wander(config, sp.key)]
    if moved:
        said.append("wandering and colour of " + ", ".join(moved))
    said += _counts(sim, old, config)
    if config.colours != old.colours:
        said.append("colours")
    if config.seed != old.seed:
        said.append("seed (from the next map load)")
    if config.window != old.window:
        said.append("window (frame cap now, size at the next start)")
    return said


def _species_changed(old: Config, new: Config, key: str) -> bool:
    """Whether the species' search grid or speeds must be rebuilt (costs, speed, diagonal rule, node cap)."""
    a, b = old.species[key], new.species[key]
    same_search = (old.search.diagonal, old.search.max_nodes) == (new.search.diagonal, new.search.max_nodes)
    return not same_search or (a.costs, a.speed) != (b.costs, b.speed)


def _wander(config: Config, key: str) -> tuple:
    spec = config.species[key]
    return spec.wander_radius, spec.idle_s, spec.colour


def _search(sim: Simulation, old: Config, new: Config) -> list[str]:
    s, o = new.search, old.search
    sim.budget.budget_ms = s.budget_ms
    sim.budget.node_cost_us, sim.budget.call_cost_us = s.node_cost_us, s.call_cost_us
    sim.planner.threads = s.threads or None
    if s.cooldown_s != o.cooldown_s or s.cooldown_jitter != o.cooldown_jitter:
        jitter = sim.rng.uniform(-s.cooldown_jitter, s.cooldown_jitter, size=sim.agents.n)
        sim.agents.cooldown[:] = s.cooldown_s * (1 + jitter)
    return ["search settings"] if s != o else []


def _counts(sim: Simulation, old: Config, new: Config) -> list[str]:
    """A species whose count changed in the file gets that many animals now."""
    said = []
    for sp in sim.species:
        want, before = new.species[sp.key].count, old.species[sp.key].count
        if want == before:
            continue
        mine = np.flatnonzero(sim.agents.species == sp.index)
        if want > mine.size and sp.region_map.count:
            sim._add(sp, want - mine.size)
        elif want < mine.size:
            keep = np.ones(sim.agents.n, dtype=bool)
            keep[mine[want:]] = False  # the most recently added go first
            sim.remove(keep)
        sim.counts[sp.key] = int((sim.agents.species == sp.index).sum())
        said.append(f"{sp.label} {before} → {sim.counts[sp.key]}")
    return said
