"""The model: world + species + animals + search queue, advanced by ``step(dt)``.

No pygame here: the app layer draws what this holds and turns input into calls
(``paint``, ``reset_map``, ``load_map``, ``add_animals``, …). One seeded
``numpy.random.Generator`` drives every random choice, so with the ``"model"`` budget
clock the same seed and inputs give the same run.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass

import numpy as np

from . import agents as st
from .agents import Agents
from .config import Config, SpeciesConfig
from .maps import MapData, MapError
from .pathfinding import AStar, SearchResult
from .regions import label_regions
from .scheduler import SearchScheduler
from .species import SPECIES, Species
from .stats import FrameStats, History
from .terrain import Terrain, parse_terrain
from .world import Rect, World

_GOAL_TRIES = 24
HEAT_TIME_S = 3.0  # the heat map fades by 1/e in this time: ~10 s to nearly nothing


def species_counts(config: Config, total: int | None = None) -> dict[str, int]:
    """Animals per species from the config, or ``total`` split in the config's ratio."""
    base = {key: spec.count for key, spec in config.species.items()}
    if total is None:
        return base
    weights = np.array(list(base.values()), dtype=float)
    if weights.sum() == 0:
        weights[:] = 1
    exact = weights / weights.sum() * total
    out = np.floor(exact).astype(int)
    for i in np.argsort(-(exact - out), kind="stable")[: total - out.sum()]:
        out[i] += 1  # largest remainders get the leftovers
    return dict(zip(base, out.tolist(), strict=True))


def fit_counts(
    species: list[SpeciesRuntime], map_data: MapData, counts: dict[str, int]
) -> tuple[dict[str, int], list[str]]:
    """The counts to spawn on ``map_data``, and notices; every species asked for needs a cell.

    A YAML map without a cell for a wanted species is a ``MapError``; a Moving AI import
    (made for other games) just leaves that species out, with a notice.
    """
    out, notices = dict(counts), []
    for sp in species:
        if out.get(sp.key, 0) > 0 and not (sp.astar.cost_grid(map_data.terrain) > 0).any():
            needs = ", ".join(k for k, v in sp.spec.costs.items() if v > 0)
            if map_data.kind != "movingai":
                raise MapError(
                    f"{map_data.source or map_data.name}: no cell where {sp.species.label} can stand "
                    f"(they need {needs}); add some or set species.{sp.key}.count to 0"
                )
            notices.append(f"no cell for {sp.species.label} on this map (they need {needs})")
            out[sp.key] = 0
    return out, notices


class SpeciesRuntime:
    """One species on the current world: its behaviour, A*, regions and speed per terrain."""

    def __init__(self, index: int, species: Species, spec: SpeciesConfig, world: World, config: Config):
        self.index = index
        self.species = species
        self.spec = spec
        self.key = species.key
        table = {parse_terrain(name): value for name, value in spec.costs.items()}
        self.astar: AStar = species.astar_class(
            world, diagonal=config.search.diagonal, max_nodes=config.search.max_nodes, terrain_costs=table
        )
        multipliers = np.array([table.get(Terrain(t), 0.0) for t in range(len(Terrain))])
        self.speed_by_terrain = np.zeros(256)
        self.speed_by_terrain[: len(Terrain)] = [spec.speed * species.speed_factor(m) for m in multipliers]
        self._regions = np.zeros((1, 1), dtype=np.int32)
        self._regions_rev = -1
        self.world = world

    @property
    def costs(self) -> np.ndarray:
        """This species' cost grid (multipliers, ``[y, x]``; 0 = impassable), kept up to date."""
        return self.astar.grid.costs

    @property
    def regions(self) -> np.ndarray:
        """Connected-region ids (``[y, x]``; 0 = impassable), relabelled when the terrain changed."""
        if self._regions_rev != self.world.revision:
            self._regions, _ = label_regions(self.costs, self.astar.diagonal)
            self._regions_rev = self.world.revision
        return self._regions

    def habitable(self) -> np.ndarray:
        """Cells this species may stand on, as (k, 2) ``(x, y)``."""
        ys, xs = np.nonzero(self.costs > 0)
        return np.stack((xs, ys), axis=1)


@dataclass
class SearchEvent:
    """One search, for tests and the inspector: when, who, what came out."""

    time: float
    agent: int
    species: str
    start: tuple[int, int]
    goal: tuple[int, int]
    result: SearchResult | None  # None: the goal is in another region, nothing was searched


class Simulation:
    """The island and its animals. ``clock`` is the search budget's clock (see scheduler)."""

    def __init__(
        self,
        config: Config,
        map_data: MapData,
        *,
        counts: dict[str, int] | None = None,
        clock: str = "wall",
    ) -> None:
        self.config = config
        self.rng = np.random.default_rng(config.seed)
        self.time = 0.0
        self.frame = 0
        self.notices: list[str] = []
        self.search_log: list[SearchEvent] | None = None  # set to [] to record every search
        self.record_agent: int | None = None  # this animal's searches keep their footprint
        self.last_record: np.ndarray | None = None
        self.last_record_event: SearchEvent | None = None
        self.stats = FrameStats()
        self.history = History()
        self.totals = {"searches": 0, "expanded": 0, "failed": 0, "capped": 0, "replans": 0}
        self._replans_pending = 0  # re-plans caused by painting since the last step
        self.heat: np.ndarray | None = None  # expansions per cell, fading (see enable_heat)
        self._trace = np.zeros(0, dtype=np.int32)
        s = config.search
        self.scheduler = SearchScheduler(s.budget_ms, clock, s.node_cost_us, s.call_cost_us)
        radius = max(spec.wander_radius for spec in config.species.values())
        self.agents = Agents(path_capacity=int(min(4096, max(64, 8 * radius))))
        self.world = World(map_data.terrain, name=map_data.name, source=str(map_data.source or ""))
        self.map = map_data
        self.species = [
            SpeciesRuntime(i, cls(), config.species[key], self.world, config)
            for i, (key, cls) in enumerate(SPECIES.items())
        ]
        self._changed = np.zeros(self.world.terrain.size, dtype=bool)
        wanted = counts if counts is not None else (map_data.animals or self.config_counts())
        self.counts, notices = fit_counts(self.species, map_data, wanted)
        self.notices += notices
        self._spawn(self.counts, map_data)

    # ------------------------------------------------------------------ setup
    def config_counts(self, total: int | None = None) -> dict[str, int]:
        return species_counts(self.config, total)

    def _spawn(self, counts: dict[str, int], map_data: MapData) -> None:
        for sp in self.species:
            self._add(sp, counts.get(sp.key, 0), map_data.spawn.get(sp.key))

    def _add(self, sp: SpeciesRuntime, k: int, areas: list | None = None) -> None:
        if k <= 0:
            return
        cells = sp.habitable()
        if areas:
            inside = np.zeros(len(cells), dtype=bool)
            for x, y, w, h in areas:
                inside |= (cells[:, 0] >= x) & (cells[:, 0] < x + w) & (cells[:, 1] >= y) & (cells[:, 1] < y + h)
            if inside.any():
                cells = cells[inside]
        if len(cells) == 0:
            return
        picks = self.rng.choice(len(cells), size=k, replace=k > len(cells))
        s = self.config.search
        jitter = self.rng.uniform(-s.cooldown_jitter, s.cooldown_jitter, size=k)
        _lo, hi = sp.spec.idle_s
        self.agents.add(
            np.full(k, sp.index, dtype=np.int8),
            cells[picks],
            s.cooldown_s * (1 + jitter),
            self.time + self.rng.uniform(0, max(hi, 0.05), size=k),  # staggered first searches
        )

    # ------------------------------------------------------------------ running
    def step(self, dt: float) -> FrameStats:
        """Advance the world by ``dt`` seconds: requests, searches within budget, movement."""
        self.time += dt
        self.frame += 1
        now = self.time
        self.stats = stats = FrameStats(replans=self._replans_pending)
        self._replans_pending = 0
        a = self.agents
        ready = ((a.state == st.IDLE) & (a.idle_until <= now) | (a.state == st.REPLAN)) & (a.next_search_at <= now)
        for i in np.flatnonzero(ready):
            if a.state[i] == st.IDLE and not self._pick_goal(int(i)):
                a.idle_until[i] = now + self.species[a.species[i]].spec.idle_s[1]
                continue
            a.state[i] = st.QUEUED
            self.scheduler.request(int(i))
        self.scheduler.serve(lambda i: self._search(i, stats))
        stats.waiting = len(self.scheduler)

        width = self.world.width
        speed = np.empty(a.n)
        terrain_here = self.world.terrain[a.cell[:, 1], a.cell[:, 0]]
        for sp in self.species:
            mine = a.species == sp.index
            speed[mine] = sp.speed_by_terrain[terrain_here[mine]]
        done = a.move(dt, speed, width, now)
        if self.heat is not None:
            self.heat *= np.float32(np.exp(-dt / HEAT_TIME_S))
        if done.size:
            a.state[done] = st.IDLE
            idle = np.array([self.species[s].spec.idle_s for s in a.species[done]])
            a.idle_until[done] = now + self.rng.uniform(idle[:, 0], idle[:, 1])
        for key in ("searches", "expanded", "failed", "capped", "replans"):
            self.totals[key] += getattr(stats, key)
        return stats

    def _pick_goal(self, i: int) -> bool:
        """A random cell within the wander radius, in the animal's own region."""
        a = self.agents
        sp = self.species[a.species[i]]
        x, y = a.cell[i]
        region = sp.regions[y, x]
        if region == 0:
            return False
        r = sp.spec.wander_radius
        cand = self.rng.integers(-r, r + 1, size=(_GOAL_TRIES, 2)) + np.array([x, y])
        h, w = sp.regions.shape
        ok = (cand[:, 0] >= 0) & (cand[:, 0] < w) & (cand[:, 1] >= 0) & (cand[:, 1] < h)
        cand = cand[ok]
        same = sp.regions[cand[:, 1], cand[:, 0]] == region
        same &= (cand[:, 0] != x) | (cand[:, 1] != y)
        if not same.any():
            return False
        a.goal[i] = cand[np.argmax(same)]
        return True

    def _search(self, i: int, stats: FrameStats) -> int:
        a = self.agents
        sp = self.species[a.species[i]]
        now = self.time
        start = (int(a.cell[i, 0]), int(a.cell[i, 1]))
        goal = (int(a.goal[i, 0]), int(a.goal[i, 1]))
        a.searches[i] += 1
        a.last_start[i] = start
        a.last_goal[i] = goal
        a.last_search_at[i] = now
        a.next_search_at[i] = now + a.cooldown[i]
        result: SearchResult | None = None
        t0 = time.perf_counter()
        if sp.regions[start[1], start[0]] != sp.regions[goal[1], goal[0]] or sp.regions[start[1], start[0]] == 0:
            outcome, expanded = st.OTHER_REGION, 0  # known unreachable: nothing to search
        else:
            record = None
            if i == self.record_agent:
                record = np.zeros(self.world.terrain.shape, dtype=np.int32)
            trace = self._trace if self.heat is not None else None
            result = sp.astar.search(start, goal, record=record, trace=trace)
            expanded = result.expanded
            if self.heat is not None:
                self.heat.ravel()[self._trace[: min(expanded, self._trace.size)]] += 1.0
            outcome = st.FOUND if result.found else (st.CAPPED if result.hit_limit else st.FAILED)
            if record is not None:
                self.last_record = record
        ms = (time.perf_counter() - t0) * 1000.0
        path = result.walk_path if result is not None else []
        if len(path) > 1:
            xy = np.asarray(path, dtype=np.int64)
            a.set_path(i, (xy[:, 1] * self.world.width + xy[:, 0]).astype(np.int32))
            a.state[i] = st.WALKING
        else:
            a.path_len[i] = a.path_pos[i] = 0
            a.state[i] = st.IDLE
            a.idle_until[i] = now
        a.last_expanded[i] = expanded
        a.last_ms[i] = ms
        a.last_cost[i] = result.cost if result is not None and result.found else np.nan
        a.last_outcome[i] = outcome
        stats.count(sp.key, expanded, ms, outcome in (st.FAILED, st.OTHER_REGION), outcome == st.CAPPED)
        event = SearchEvent(now, i, sp.key, start, goal, result)
        if self.search_log is not None:
            self.search_log.append(event)
        if i == self.record_agent:
            self.last_record_event = event
        return expanded

    # ------------------------------------------------------------------ editing
    def paint(self, cx: int, cy: int, radius: int, terrain: int | None) -> Rect | None:
        """Paint terrain (``None`` = the map's original) in a disc; re-route affected animals."""
        x0, x1 = max(0, cx - radius), min(self.world.width, cx + radius + 1)
        y0, y1 = max(0, cy - radius), min(self.world.height, cy + radius + 1)
        before = self.world.terrain[y0:y1, x0:x1].copy()
        rect = self.world.paint(cx, cy, radius, terrain)
        if rect is not None:
            self._after_change(rect, before)
        return rect

    def reset_map(self) -> Rect | None:
        """Restore the whole map to its original terrain."""
        before = self.world.terrain.copy()
        rect = self.world.reset()
        if rect is not None:
            self._after_change(rect, before)
        return rect

    def _after_change(self, rect: Rect, before: np.ndarray) -> None:
        x0, y0, x1, y1 = rect
        block = self.world.terrain[y0:y1, x0:x1]
        changed_block = (
            block != before[: y1 - y0, : x1 - x0] if before.shape == block.shape else np.ones_like(block, bool)
        )
        changed = self._changed.reshape(self.world.terrain.shape)
        changed[...] = False
        changed[y0:y1, x0:x1] = changed_block
        a = self.agents
        # Walking animals plan again when the rest of their path (from the cell they left)
        # crosses a changed cell or has a step that is no longer legal: a diagonal step
        # whose side cell was just painted blocked, say.
        for sp in self.species:
            walking = np.flatnonzero((a.state == st.WALKING) & (a.species == sp.index))
            if walking.size == 0:
                continue
            paths = a.paths[walking]
            cols = np.arange(paths.shape[1])
            ahead = (cols >= a.path_pos[walking, None] - 1) & (cols < a.path_len[walking, None])
            hit = (self._changed[paths] & ahead).any(axis=1)
            legal = self._legal_steps(sp, paths[:, :-1], paths[:, 1:])
            hit |= (~legal & ahead[:, 1:]).any(axis=1)
            for i in walking[hit]:
                self._stop_for_replan(int(i))
            self._replans_pending += int(hit.sum())
        self._rescue_stranded()

    def _legal_steps(self, sp: SpeciesRuntime, p: np.ndarray, q: np.ndarray) -> np.ndarray:
        """Whether each step ``p -> q`` (flat cells, adjacent) is legal for ``sp`` on today's terrain."""
        w = self.world.width
        free = (sp.costs > 0).ravel()
        dx, dy = q % w - p % w, q // w - p // w
        ok = free[q]
        diag = (dx != 0) & (dy != 0)
        # The two side cells of a diagonal step; the indices stay inside the grid even for
        # the unused tail of the path buffer.
        side_a, side_b = free[(p // w) * w + q % w], free[(q // w) * w + p % w]
        rule = sp.astar.diagonal
        if rule == "never":
            ok &= ~diag
        elif rule == "no-corner-cutting":
            ok &= ~diag | (side_a & side_b)
        elif rule == "one-obstacle":
            ok &= ~diag | side_a | side_b
        return ok

    def _stop_for_replan(self, i: int) -> None:
        """Stop animal ``i`` on a cell it may stand on and queue it (after its cooldown) to re-plan.

        It finishes the step it is on if that step is still legal and it is past half way;
        otherwise it goes back to the cell it left.
        """
        a = self.agents
        sp = self.species[a.species[i]]
        w = self.world.width
        here = int(a.cell[i, 1]) * w + int(a.cell[i, 0])
        nxt = int(a.paths[i, a.path_pos[i]])
        nx, ny = nxt % w, nxt // w
        step_ok = bool(self._legal_steps(sp, np.array([here]), np.array([nxt]))[0])
        if step_ok and np.hypot(*(a.pos[i] - (nx, ny))) < np.hypot(*(a.pos[i] - a.cell[i])):
            a.cell[i] = (nx, ny)
        a.pos[i] = a.cell[i]
        a.path_len[i] = a.path_pos[i] = 0
        a.state[i] = st.REPLAN

    def _rescue_stranded(self) -> None:
        """Animals on cells their species can no longer occupy move to the nearest one that it can."""
        a = self.agents
        for sp in self.species:
            mine = np.flatnonzero(a.species == sp.index)
            if mine.size == 0:
                continue
            bad = mine[sp.costs[a.cell[mine, 1], a.cell[mine, 0]] <= 0]
            for i in bad:
                cell = self._nearest_free(sp, int(a.cell[i, 0]), int(a.cell[i, 1]))
                if cell is None:
                    continue
                a.cell[i] = cell
                a.pos[i] = cell
                a.path_len[i] = a.path_pos[i] = 0
                # A queued animal searches from its new cell when served; a walking one re-plans.
                if a.state[i] == st.WALKING:
                    a.state[i] = st.REPLAN
                    self._replans_pending += 1

    def _nearest_free(self, sp: SpeciesRuntime, x: int, y: int) -> tuple[int, int] | None:
        h, w = sp.costs.shape
        r = 1
        while r <= max(w, h):
            x0, x1, y0, y1 = max(0, x - r), min(w, x + r + 1), max(0, y - r), min(h, y + r + 1)
            ys, xs = np.nonzero(sp.costs[y0:y1, x0:x1] > 0)
            if len(xs):
                d = (xs + x0 - x) ** 2 + (ys + y0 - y) ** 2
                k = int(np.argmin(d))
                if d[k] <= r * r:  # nothing closer can hide outside this window
                    return int(xs[k] + x0), int(ys[k] + y0)
            r *= 2
        return None

    # ------------------------------------------------------------------ population & maps
    def add_animals(self, total: int) -> None:
        """Add ``total`` animals, split among species in the config's ratio."""
        counts = self.config_counts(total)
        for sp in self.species:
            if (sp.costs > 0).any():
                self._add(sp, counts.get(sp.key, 0))

    def remove_animals(self, total: int) -> None:
        """Remove the ``total`` most recently added animals."""
        keep = np.arange(self.agents.n) < max(0, self.agents.n - total)
        remap = self.agents.keep(keep)
        self.scheduler.remap(remap)
        if self.record_agent is not None:
            self.record_agent = int(remap[self.record_agent]) if self.record_agent < len(remap) else None
            if self.record_agent is not None and self.record_agent < 0:
                self.record_agent = None

    def load_map(self, map_data: MapData, counts: dict[str, int] | None = None) -> None:
        """Swap in another map and respawn the animals; on ``MapError`` nothing changes.

        How many: ``counts`` if given, else the map's own ``animals``, else the config's.
        """
        wanted = counts if counts is not None else (map_data.animals or self.config_counts())
        checked, notices = fit_counts(self.species, map_data, wanted)  # may raise: nothing changed yet
        self.world.replace(map_data.terrain, name=map_data.name, source=str(map_data.source or ""))
        self.map = map_data
        self._changed = np.zeros(self.world.terrain.size, dtype=bool)
        self.agents.keep(np.zeros(self.agents.n, dtype=bool))
        self.scheduler.queue.clear()
        self.record_agent = None
        self.last_record = None
        self.last_record_event = None
        if self.heat is not None:
            self.enable_heat(True)
        self.notices = notices
        self.counts = checked
        self._spawn(checked, map_data)

    # ------------------------------------------------------------------ views of the search
    def enable_heat(self, on: bool) -> None:
        """Start (or stop) counting expansions per cell for the heat map."""
        if on:
            self.heat = np.zeros(self.world.terrain.shape, dtype=np.float32)
            self._trace = np.zeros(self.world.terrain.size, dtype=np.int32)
        else:
            self.heat = None
            self._trace = np.zeros(0, dtype=np.int32)

    # ------------------------------------------------------------------ checks
    def checksum(self) -> str:
        """A digest of every animal's species, cell and position (same seed -> same digest)."""
        a = self.agents
        h = hashlib.sha256()
        h.update(a.species.tobytes())
        h.update(a.cell.tobytes())
        h.update(np.round(a.pos, 6).tobytes())
        return h.hexdigest()[:16]
