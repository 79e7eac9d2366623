"""The species as the model runs them: each one's ``AStar`` subclass (its cost model) and its
``SpeciesKind`` (behaviour hooks), both made from its row in :mod:`sim.world.fauna`, where
every fact (costs, speed, colour, layer, count) has its one owner. ``config.yaml`` may
override any value.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
from numba import njit

from sim.pathfinding import AStar, ChangeCursor, PathGrid, Regions
from sim.world.fauna import BIRD, COW, WATER, SpeciesFacts
from sim.world.terrain import Terrain, parse_terrain

if TYPE_CHECKING:
    from sim.config import SearchConfig, SpeciesConfig
    from sim.world.world import World


class CowAStar(AStar):
    """Cows walk on land: they prefer grass (cheaper than 1), avoid swamp, never swim or climb."""

    terrain_costs: ClassVar[Mapping[Any, float]] = COW.costs


class BirdAStar(AStar):
    """Birds fly over everything but rock; climbing over mountains costs them more."""

    terrain_costs: ClassVar[Mapping[Any, float]] = BIRD.costs


class WaterCreatureAStar(AStar):
    """Water creatures stay in water.

    Their grid is uniform, so JPS would be exact (``use_jps``), but their wander queries are
    short and JPS scans open water to its far edge: on a 2048x2048 sea a 25-cell query took
    555 µs with JPS and 14 µs with A* (median). A* it is, unless the map chooses JPS (its
    ``search``; see :meth:`SpeciesRuntime.choose_search`): on the lagoon's narrow channels JPS
    is several times faster.
    """

    terrain_costs: ClassVar[Mapping[Any, float]] = WATER.costs


class SpeciesKind:
    """What one species is: its ``AStar`` cost model and behaviour; per-animal state lives in the agents' arrays.

    Subclasses set ``key`` (as in config), ``astar_class`` and ``default_speed`` (cells
    per second on a multiplier-1 cell), and may override :meth:`speed_factor`.
    """

    facts: ClassVar[SpeciesFacts]  # its row of the species table: every fact's one owner
    astar_class: ClassVar[type[AStar]]
    key: ClassVar[str]
    label: ClassVar[str]
    default_speed: ClassVar[float]
    default_colour: ClassVar[tuple[int, int, int]]
    layer: ClassVar[int]  # drawing order: lower layers first (swimmers under walkers under fliers)
    straight_paths: ClassVar[bool]  # pull its paths straight: the same cost, straight lines

    def __init_subclass__(cls, **kwargs: object) -> None:
        """The facts' values as the class attributes the model reads (one owner: the table)."""
        super().__init_subclass__(**kwargs)
        f = cls.facts
        cls.key, cls.label, cls.default_speed, cls.default_colour = f.key, f.label, f.speed, f.colour
        cls.layer, cls.straight_paths = f.layer, f.straight_paths

    def speed_factor(self, multiplier: float) -> float:
        """How much of its speed an animal keeps on a cell with this cost multiplier.

        Costly terrain slows walkers down: speed / multiplier, never faster than 1.2×.
        """
        return min(1.2, 1.0 / multiplier) if multiplier > 0 else 0.0


class Cow(SpeciesKind):
    facts = COW
    astar_class = CowAStar


class Bird(SpeciesKind):
    facts = BIRD
    astar_class = BirdAStar

    def speed_factor(self, multiplier: float) -> float:
        """Birds fly at one speed whatever is below them, but slow down over mountains."""
        return 1.0 / multiplier if multiplier > 1 else 1.0


class WaterCreature(SpeciesKind):
    facts = WATER
    astar_class = WaterCreatureAStar


#: Every species by its key (as in config and map files): the one list of species. Its order is the
#: species index (the agents' ``species`` column) and the compare mode's keys 1, 2, 3.
SPECIES: dict[str, type[SpeciesKind]] = {kind.key: kind for kind in (Cow, Bird, WaterCreature)}


#: What each search is called in messages and the overlay.
SEARCH_NAMES = {"astar": "A*", "jps": "JPS"}


def search_choice(spec: SpeciesConfig, map_choice: str | None, diagonal: str, label: str) -> tuple[str, str | None]:
    """``"jps"`` or ``"astar"`` for a species, and a notice or None: its config's ``search``
    decides; ``"map"`` follows ``map_choice`` (the map's :attr:`~sim.maps.MapData.search` for
    it; A* where the map names none). JPS needs the ``no-corner-cutting`` diagonal rule: under
    another, A* serves and the notice says why."""
    choice = spec.search if spec.search != "map" else (map_choice or "astar")
    if choice == "jps" and diagonal != "no-corner-cutting":
        return "astar", f"{label} search with A*: JPS needs search.diagonal no-corner-cutting"
    return choice, None


#: Candidate goals drawn for each idle animal (the first in its region is taken).
GOAL_TRIES = 24


class SpeciesRuntime:
    """One species on the current world: its index, cost grid, regions and speed per terrain.

    ``index`` is what the agents' ``species`` column holds; ``key`` is its name in files.
    The cost grid and the regions follow the world's changes (:meth:`sync`), each at the
    cost of the change, not of the map.
    """

    def __init__(self, index: int, kind: SpeciesKind, spec: SpeciesConfig, world: World, search: SearchConfig):
        self.index = index
        self.kind = kind
        self.key = kind.key
        self.spec = spec
        self.world = world
        table = {parse_terrain(name): value for name, value in spec.costs.items()}
        self.astar: AStar = kind.astar_class(
            world, diagonal=search.diagonal, max_nodes=search.max_nodes, terrain_costs=table
        )
        multipliers = np.array([table.get(Terrain(t), 0.0) for t in range(len(Terrain))])
        self.stands_on = np.zeros(256, np.bool_)  # per terrain id: whether it may stand there
        self.stands_on[: len(Terrain)] = multipliers > 0
        self.speed_by_terrain = np.zeros(256)
        self.speed_by_terrain[: len(Terrain)] = [spec.speed * kind.speed_factor(m) for m in multipliers]
        self._regions: Regions | None = None
        self._cursor = ChangeCursor(world)

    def choose_search(self, map_choice: str | None) -> str | None:
        """Search with JPS or A*, as :func:`search_choice` says for this species; returns its
        notice (JPS chosen where the diagonal rule rules it out), else None."""
        choice, notice = search_choice(self.spec, map_choice, self.astar.diagonal, self.label)
        self.astar.use_jps = choice == "jps"  # type: ignore[misc]  # this instance only (the class default is A*)
        return notice

    @property
    def search(self) -> str:
        """What serves this species' searches: ``"jps"`` or ``"astar"``."""
        return "jps" if self.astar.use_jps else "astar"

    @property
    def label(self) -> str:
        """The species' name in messages: "cows"."""
        return self.kind.label

    @property
    def grid(self) -> PathGrid:
        """This species' search grid, up to date."""
        self.sync()
        return self.astar.grid

    @property
    def costs(self) -> np.ndarray:
        """This species' cost grid (multipliers, ``[y, x]``; 0 = impassable), kept up to date.

        A float64 copy made on first use (8 bytes a cell); the model itself never needs it.
        """
        return self.grid.costs

    @property
    def regions(self) -> np.ndarray:
        """Connected-region ids (int32 ``[y, x]``; 0 = impassable), kept up to date."""
        self.sync()
        assert self._regions is not None
        return self._regions.labels

    @property
    def region_map(self) -> Regions:
        self.sync()
        assert self._regions is not None
        return self._regions

    def sync(self) -> None:
        """Bring the cost grid and the regions up to date with the world's terrain."""
        changes = self._cursor.take()
        if changes == [] and self._regions is not None:
            return
        grid = self.astar.grid
        if changes is None or self._regions is None or self._regions.labels.shape != (grid.height, grid.width):
            self._regions = Regions(grid.passable_mask(), self.astar.diagonal)
        else:
            for x0, y0, x1, y1 in changes:
                self._regions.update(x0, y0, grid.cost_block(x0, y0, x1, y1) > 0)

    def habitable(self) -> np.ndarray:
        """Cells this species may stand on, as (k, 2) ``(x, y)``."""
        ys, xs = np.nonzero(self.regions > 0)
        return np.stack((xs, ys), axis=1)

    def passable_at(self, cells: np.ndarray) -> np.ndarray:
        """Whether each ``(x, y)`` row of ``cells`` is a cell this species may stand on."""
        return self.grid.passable_at(cells[:, 0], cells[:, 1])

    def needs(self) -> str:
        """The terrains it can stand on, for messages: "sand, grass, forest"."""
        return ", ".join(k for k, v in self.spec.costs.items() if v > 0)

    def pick_goals(
        self, cells: np.ndarray, rng: np.random.Generator, tries: int = GOAL_TRIES
    ) -> tuple[np.ndarray, np.ndarray]:
        """A random goal within the wander radius *in the same region* for each ``(x, y)`` in
        ``cells``, vectorised. Returns ``(goals, ok)``; where ``ok`` is False no cell was found."""
        cells = np.ascontiguousarray(cells, dtype=np.int64)
        goals = cells.copy()
        ok = np.zeros(len(cells), dtype=np.bool_)
        rows = np.arange(len(cells))
        self.choose_goals(rows, cells, goals, rows, ok, rng.random((len(cells), tries, 2)))
        return goals, ok

    def choose_goals(self, animals: np.ndarray, cells: np.ndarray, goals: np.ndarray, ok_at: np.ndarray,
                     ok: np.ndarray, draws: np.ndarray) -> None:  # fmt: skip
        """:meth:`pick_goals` written in place (what the planner does each frame): animal
        ``animals[i]`` stands at ``cells[animals[i]]``; its goal goes to ``goals[animals[i]]``
        when one is found, and ``ok[ok_at[i]]`` says whether one was. ``draws``: uniform numbers
        in [0, 1), ``(len(animals), tries, 2)``, that make its candidates (the planner draws a
        frame's in one call for all species)."""
        _pick_goals(self.regions, ok_at, animals, cells, draws, self.spec.wander_radius, goals, ok)


@njit(cache=True)
def _pick_goals(labels, rows, who, cells, draws, radius, goals, ok):
    """For animal ``who[i]`` (standing at ``cells[who[i]]``), the first candidate
    ``cell + offset`` (each offset ``-radius .. radius`` along x and y, from ``draws[i, t]``:
    uniform in [0, 1)) inside the map, in the same region, and not the cell itself, into
    ``goals[who[i]]``; ``ok[rows[i]]`` says whether one qualified (else it is left as is)."""
    h, w = labels.shape
    span = 2 * radius + 1
    for i in range(who.size):
        a = who[i]
        x, y = cells[a, 0], cells[a, 1]
        region = labels[y, x]
        found = False
        if region != 0:
            for t in range(draws.shape[1]):
                gx = x + min(int(draws[i, t, 0] * span), span - 1) - radius
                gy = y + min(int(draws[i, t, 1] * span), span - 1) - radius
                if 0 <= gx < w and 0 <= gy < h and labels[gy, gx] == region and (gx != x or gy != y):
                    goals[a, 0] = gx
                    goals[a, 1] = gy
                    found = True
                    break
        ok[rows[i]] = found
