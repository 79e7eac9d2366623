"""The model: world + species + animals + search queue, advanced by ``step(dt)``.

No pygame and no view state here: a view draws what this holds, turns input into
calls (``paint``, ``reset_map``, ``load_map``, ``add_animals``, …) and may listen to the
searches through ``observer`` (see :mod:`sim.model.observe`). One seeded
``numpy.random.Generator`` drives every random choice, so with the ``"model"`` budget
clock the same seed and inputs give the same run. See "Scripting the model" in the README.
"""

from __future__ import annotations

import hashlib
import time

import numpy as np
from numba import njit

from sim.config import Config, check_config
from sim.maps.data import MapData, MapError
from sim.model.agents import Agents, State
from sim.model.crowd import Crowd
from sim.model.editing import Editing
from sim.model.herds import Herd, Herds
from sim.model.observe import Observed, SearchObserver
from sim.model.planner import Planner
from sim.model.scheduler import SearchBudget, SearchQueue
from sim.model.species import SPECIES, SpeciesRuntime, search_choice
from sim.model.stats import FrameStats
from sim.support.checks import (
    MAX_ANIMALS,
    MAX_COORDINATE,
    MAX_DT,
    MAX_STEPS,
    did_you_mean,
    real_number,
    short,
    whole_number,
)
from sim.world.geometry import CellRect
from sim.world.history import EditHistory
from sim.world.world import World


def species_counts(config: Config, total: int | None = None) -> dict[str, int]:
    """Animals per species from the config, or ``total`` split in the config's ratio."""
    base = {key: spec.count for key, spec in config.species.items()}
    if total is None:
        return base
    total = whole_number("total", total, 0, MAX_ANIMALS * max(len(base), 1))
    weights = np.array(list(base.values()), dtype=float)
    if weights.sum() == 0:
        weights[:] = 1
    exact = weights / weights.sum() * total
    out = np.floor(exact).astype(int)
    for i in np.argsort(-(exact - out), kind="stable")[: total - out.sum()]:
        out[i] += 1  # largest remainders get the leftovers
    return dict(zip(base, out.tolist(), strict=True))


def searches_with_jps(config: Config, map_data: MapData) -> bool:
    """Whether any species searches with JPS on ``map_data`` (:func:`~sim.model.species.search_choice`):
    the search round is then compiled with JPS, ~8 s more on a machine's first start (headless
    from an empty cache: lagoon 26.7 s, island 18.1 s)."""
    return any(
        search_choice(spec, map_data.search.get(key), config.search.diagonal, key)[0] == "jps"
        for key, spec in config.species.items()
    )


def check_arguments(map_data: object, counts: object) -> dict[str, int] | None:
    """A script's ``map_data`` and ``counts`` for :class:`Simulation`: exact errors, else the counts."""
    if not isinstance(map_data, MapData):
        raise TypeError(f"map_data must be a MapData (from sim.maps.load_map), got {short(map_data)}")
    if counts is None:
        return None
    if not isinstance(counts, dict):
        raise TypeError(f"counts must be a dict of species key -> number of animals, got {short(counts)}")
    for key, n in counts.items():
        if key not in SPECIES:
            raise ValueError(f"counts: unknown species {short(key)}" + did_you_mean(key, SPECIES, "species"))
        n = whole_number(f"counts[{key!r}]", n, 0)
        if n > MAX_ANIMALS:
            raise ValueError(f"counts[{key!r}] must be at most {MAX_ANIMALS}, got {n}")
    return {key: int(n) for key, n in counts.items()}


def fit_counts(
    species: list[SpeciesRuntime], map_data: MapData, counts: dict[str, int], config_source: str = "config.yaml"
) -> tuple[dict[str, int], list[str]]:
    """The counts to spawn on ``map_data``, and notices.

    A species the map itself asks for (its ``animals`` or a ``spawn`` area) must find a cell
    there, or it is a ``MapError``; one the map did not ask for (the config's counts) is left
    out with a notice when the map has no cell for it: a new species never stops a map
    loading, and a map format that cannot name animals (Moving AI) never asks for any.
    """
    out, notices = dict(counts), []
    where = map_data.source or map_data.name
    asked = {k for k, n in (map_data.animals or {}).items() if n > 0} | set(map_data.spawn)
    for sp in species:
        if out.get(sp.key, 0) <= 0:
            continue
        free = sp.astar.passable_mask(map_data.terrain)
        if not sp.needs():
            raise MapError(
                f"{config_source}: key 'species.{sp.key}.costs' makes every terrain impassable for {sp.label}, "
                f"but {where} asks for {out[sp.key]} of them"
            )
        if not free.any():
            if sp.key in asked:
                raise MapError(
                    f"{where}: no cell where {sp.label} can stand (they need {sp.needs()}); "
                    f"add some or set species.{sp.key}.count to 0"
                )
            notices.append(f"no cell for {sp.label} on this map (they need {sp.needs()})")
            out[sp.key] = 0
            continue
        for area in map_data.spawn.get(sp.key, []):
            if not free[area.slices].any():
                raise MapError(
                    f"{where}: spawn '{sp.key}' area {list(area.xywh)} has no cell where {sp.label} can stand"
                )
    return out, notices


def check_map(config: Config, map_data: MapData, counts: dict[str, int] | None = None) -> None:
    """Whether :class:`Simulation` would accept ``map_data`` with ``config`` (and ``counts``): the
    same ``MapError`` it would raise (a species the map asks for that can stand nowhere, a spawn
    area without a cell for it), at once and without compiling anything. The demo asks this
    before a first start's compiling, so a bad map is one line, not one after a wait."""
    counts = check_arguments(map_data, counts)
    world = World(map_data.terrain, name=map_data.name, source=str(map_data.source or ""))
    species = [SpeciesRuntime(i, kind(), config.species[key], world, config.search)
               for i, (key, kind) in enumerate(SPECIES.items())]  # fmt: skip
    wanted = counts if counts is not None else (map_data.animals or species_counts(config))
    fit_counts(species, map_data, wanted, config.source)


class Simulation(Editing, Observed):
    """The island and its animals. ``clock`` is the search budget's clock (see :mod:`sim.model.scheduler`)."""

    def __init__(
        self, config: Config, map_data: MapData, counts: dict[str, int] | None = None, clock: str = "model"
    ) -> None:
        config, counts = check_config(config), check_arguments(map_data, counts)
        self.config = config
        self.rng = np.random.default_rng(config.seed)
        self.time = 0.0
        self.frame = 0
        self.notices: list[str] = []
        self.observer = SearchObserver()
        self.stats = FrameStats()
        self.totals = {"searches": 0, "expanded": 0, "failed": 0, "capped": 0, "replans": 0}
        self._replans_pending = 0  # re-plans caused by painting since the last step
        self.history = EditHistory()
        self.herds = Herds(self)
        s = config.search
        self.queue = SearchQueue()
        self.budget = SearchBudget(s.budget_ms, clock, s.node_cost_us, s.call_cost_us)
        radius = max(spec.wander_radius for spec in config.species.values())
        self.agents = Agents(path_capacity=int(min(4096, max(64, 8 * radius))))
        self.world = World(map_data.terrain, name=map_data.name, source=str(map_data.source or ""))
        self.map = map_data
        self.species = [
            SpeciesRuntime(i, kind(), config.species[key], self.world, config.search)
            for i, (key, kind) in enumerate(SPECIES.items())
        ]
        self._species_tables()
        self.notices += self.choose_searches()
        self.crowd = Crowd()
        self.planner = Planner(self.agents, self.species, self.rng, self.queue, self.budget)
        self.planner.threads = s.threads or None
        wanted = counts if counts is not None else (map_data.animals or self.config_counts())
        self.counts, notices = fit_counts(self.species, map_data, wanted, config.source)
        self.notices += notices
        self._spawn(self.counts, map_data)

    # ------------------------------------------------------------------ setup
    def config_counts(self, total: int | None = None) -> dict[str, int]:
        return species_counts(self.config, total)

    def _spawn(self, counts: dict[str, int], map_data: MapData) -> None:
        for sp in self.species:
            self._add(sp, counts.get(sp.key, 0), map_data.spawn.get(sp.key))

    def _add(self, sp: SpeciesRuntime, k: int, areas: list[CellRect] | None = None) -> None:
        if k <= 0:
            return
        cells = self._spawn_cells(sp, k, areas)
        if cells is None:
            return
        s = self.config.search
        jitter = self.rng.uniform(-s.cooldown_jitter, s.cooldown_jitter, size=k)
        _lo, hi = sp.spec.idle_s
        self.agents.add(
            np.full(k, sp.index, dtype=np.int8),
            cells,
            s.cooldown_s * (1 + jitter),
            self.time + self.rng.uniform(0, max(hi, 0.05), size=k),  # staggered first searches
        )

    def _spawn_cells(self, sp: SpeciesRuntime, k: int, areas: list[CellRect] | None) -> np.ndarray | None:
        """``k`` cells (x, y) this species may stand on, distinct while there are enough, inside
        ``areas`` if given. Random cells are drawn and the unfit ones dropped, so a big map's
        habitable cells are never all listed; when few cells fit, they are listed after all."""
        labels = sp.regions
        h, w = labels.shape
        picked = np.zeros(0, dtype=np.int64)
        if not areas:
            for _ in range(8):
                draws = self.rng.integers(0, h * w, size=2 * k + 64)
                fit = draws[labels.reshape(-1)[draws] > 0]
                picked = np.concatenate((picked, fit))
                _, first = np.unique(picked, return_index=True)
                picked = picked[np.sort(first)]  # distinct, in the order drawn
                if picked.size >= k:
                    picked = picked[:k]
                    return np.stack((picked % w, picked // w), axis=1)
        mask = np.zeros((h, w), dtype=bool)
        for area in areas or [CellRect(0, 0, w, h)]:
            mask[area.slices] = labels[area.slices] > 0
        flat = np.flatnonzero(mask)
        if flat.size == 0:
            return None
        picks = flat[self.rng.choice(flat.size, size=k, replace=k > flat.size)]
        return np.stack((picks % w, picks // w), axis=1)

    def choose_searches(self) -> list[str]:
        """Each species searches with JPS or A*, as its config and the map choose
        (:meth:`SpeciesRuntime.choose_search`); the notices for choices that cannot be kept."""
        said = [sp.choose_search(self.map.search.get(sp.key)) for sp in self.species]
        return [line for line in said if line]

    def _species_tables(self) -> None:
        """Per species and terrain id, the speed (cells/s) and whether it may stand there, and
        each species' drawing layer: what movement and separation read every frame. Made
        again when the species change (sim.reconfigure)."""
        self._speed_table = np.stack([sp.speed_by_terrain for sp in self.species])  # [species, terrain]
        self._stands = np.stack([sp.stands_on for sp in self.species])  # [species, terrain]
        self._layers = np.array([sp.kind.layer for sp in self.species], np.int64)

    # ------------------------------------------------------------------ running
    def compile_crowd(self, threaded: bool = True) -> None:
        """Compile (or load) the separation's threaded pass for this map and crowd without running
        it (``sim.prepare``'s "rest" stage; see :meth:`Crowd.compile_parts`); ``threaded=False``:
        the pass a crowd of hundreds runs, on one thread (``sim.prepare``'s "crowd" stage), by
        running it once (it moves animals that stand too close, as a frame would)."""
        a, spacing = self.agents, self.config.crowd.spacing
        if threaded:
            self.crowd.compile_parts(a, self.world.terrain, self._stands, self._layers, spacing)
        else:
            self.crowd.separate(a, self.world.terrain, self._stands, self._layers, spacing, 1, compiled_barrier=False)

    def step(self, dt: float) -> FrameStats:
        """Advance the world by ``dt`` seconds: requests, searches within budget, movement."""
        dt = real_number("dt", dt, 0.0, MAX_DT)
        self.time += dt
        self.frame += 1
        now = self.time
        self.stats = stats = FrameStats(replans=self._replans_pending)
        self._replans_pending = 0
        before = len(self.queue)
        stats.held = self.planner.request(now, dt)
        stats.asked = len(self.queue) - before
        stats.capacity = self.planner.capacity / dt if dt > 0 else 0.0
        spent = self._grow_fields(stats)
        self.planner.serve(now, stats, self.observer, spent)
        a = self.agents
        done = a.move(dt, self._speed_table, self.world.terrain, self._stands, self.planner.threads)
        if done.size and self.herds.herds:
            self.herds.arrived(done)
            done = done[a.herd[done] == 0]
            done = done[a.state[done] == State.WALKING]  # the rest wait for the field's next path
        if done.size:  # they rest, each for a time drawn from its species' range
            idle = np.array([sp.spec.idle_s for sp in self.species], dtype=np.float64)  # (species, 2) s
            _rest(done, a.species, idle[:, 0], idle[:, 1] - idle[:, 0], self.rng.random(done.size), now,
                  a.state, a.idle_until)  # fmt: skip
        # Then they keep their distance (sim.model.crowd), once its kernels are ready (a window's first
        # start compiles them in another process while it runs: until then the animals may overlap).
        if dt > 0 and self.planner.kernels.ready("crowd"):
            t0 = time.perf_counter()
            # (its threads wait in compiled code once that is compiled: sim.prepare's "rest" stage)
            self.crowd.separate(a, self.world.terrain, self._stands, self._layers, self.config.crowd.spacing,
                                self.planner.threads, compiled_barrier=self.planner.kernels.ready("rest"))  # fmt: skip
            stats.crowd_ms = (time.perf_counter() - t0) * 1000.0
        for key in ("searches", "expanded", "failed", "capped", "replans"):
            self.totals[key] += getattr(stats, key)
        return stats

    def _grow_fields(self, stats: FrameStats) -> float:
        """The herds' fields grow first, with up to half the frame's search budget; returns the ms charged."""
        if not self.herds.herds:
            return 0.0
        b = self.budget
        cells = int(500.0 * b.budget_ms / b.node_cost_us) if b.node_cost_us > 0 else 1 << 40
        stats.field_cells = self.herds.update(max(cells, 1000))
        stats.field_ms = self.herds.field_ms
        stats.fields, stats.herded = len(self.herds.herds), self.herds.herded()
        return stats.field_cells * b.node_cost_us / 1000.0 if b.clock == "model" else stats.field_ms

    def call_herd(self, species: str, goal: tuple[int, int], radius: float | None = None) -> Herd | None:
        """Call the animals of ``species`` (a key: ``"cow"``) within ``radius`` cells of ``goal``
        ``(x, y)`` (a tuple, list or numpy pair; None: its whole region) to it, served by one
        distance field (see :mod:`sim.model.herds`). Returns the herd, or None when ``goal`` is no
        cell they may stand on or nobody comes."""
        # A row of ``agents.cell`` (a numpy pair) is as good a goal as a tuple.
        pair = goal.ndim == 1 if isinstance(goal, np.ndarray) else isinstance(goal, tuple | list)
        if not (pair and len(goal) == 2):  # (np.ndim of a ragged list is numpy's own ValueError)
            raise TypeError(f"goal must be an (x, y) tuple of whole numbers, got {short(goal)}")
        goal = (
            whole_number("goal x", goal[0], -MAX_COORDINATE, MAX_COORDINATE),
            whole_number("goal y", goal[1], -MAX_COORDINATE, MAX_COORDINATE),
        )
        radius = None if radius is None else real_number("radius", radius, 0.0)
        index = next((sp.index for sp in self.species if sp.key == species), None)
        if index is None:
            raise ValueError(f"unknown species {short(species)}" + did_you_mean(species, SPECIES, "species"))
        return self.herds.call(index, goal, radius)

    def advance(self, dt: float, steps: int = 1) -> FrameStats:
        """One frame of ``steps`` steps of ``dt`` seconds (0 while paused, 2 at 2x, ...); ``stats``
        then holds the frame's figures, all its steps together."""
        dt, steps = real_number("dt", dt, 0.0, MAX_DT), whole_number("steps", steps, 0, MAX_STEPS)
        if steps == 1:  # the usual frame: its one step's figures are the frame's
            return self.step(dt)
        frame = FrameStats(waiting=len(self.queue))
        for _ in range(steps):
            frame.merge(self.step(dt))
        self.stats = frame
        return frame

    # ------------------------------------------------------------------ population & maps
    def add_animals(self, total: int) -> None:
        """Add ``total`` animals, split among species in the config's ratio."""
        counts = self.config_counts(total)
        for sp in self.species:
            if sp.region_map.count:
                self._add(sp, counts.get(sp.key, 0))

    def remove_animals(self, total: int) -> None:
        """Remove the ``total`` most recently added animals."""
        total = whole_number("total", total, 0)
        self.remove(np.arange(self.agents.n) < max(0, self.agents.n - min(total, self.agents.n)))

    def remove(self, keep: np.ndarray) -> None:
        """Keep only the animals where ``keep`` is true (the queue and the observers follow)."""
        remap = self.agents.keep(keep)
        self.queue.remap(remap)
        self.observer.renumbered(remap)

    def apply_config(self, config: Config) -> list[str]:
        """Use ``config`` from now on: costs, speeds, counts, search settings take effect at once
        (see :mod:`sim.reconfigure`); returns what changed, in words."""
        from sim.reconfigure import apply_config

        return apply_config(self, check_config(config))

    def load_map(self, map_data: MapData, counts: dict[str, int] | None = None) -> None:
        """Swap in another map and respawn the animals; on ``MapError`` nothing changes.

        How many: ``counts`` if given, else the map's own ``animals``, else the config's.
        """
        counts = check_arguments(map_data, counts)
        wanted = counts if counts is not None else (map_data.animals or self.config_counts())
        checked, notices = fit_counts(
            self.species, map_data, wanted, self.config.source
        )  # may raise: nothing changed yet
        self.world.replace(map_data.terrain, name=map_data.name, source=str(map_data.source or ""))
        self.map = map_data
        self.herds.clear()
        self.agents.keep(np.zeros(self.agents.n, dtype=bool))
        self.history.clear()
        self.queue.clear()
        self.observer.map_loaded()
        self.notices = notices + self.choose_searches()
        self.counts = checked
        self._spawn(checked, map_data)

    # ------------------------------------------------------------------ checks
    def checksum(self) -> str:
        """A digest of every animal's species, cell and position (same seed -> same digest)."""
        a = self.agents
        h = hashlib.sha256()
        h.update(a.species.tobytes())
        h.update(a.cell.tobytes())
        h.update(np.round(a.pos, 6).tobytes())
        return h.hexdigest()[:16]


@njit(cache=True)
def _rest(done, species, low, span, u, now, state, idle_until):
    """Animals ``done`` go idle until ``now`` plus a rest drawn uniformly from their species'
    ``[low, low + span)`` s, ``u`` being uniform [0, 1) draws: the values ``Generator.uniform``
    gives for the same draws (low + span * u), in one pass instead of a dozen numpy calls."""
    for j in range(done.size):
        i = done[j]
        s = species[i]
        state[i] = State.IDLE
        idle_until[i] = now + (low[s] + span[s] * u[j])
