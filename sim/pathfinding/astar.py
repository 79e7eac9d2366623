"""``AStar``: the classic object design (one class per agent kind) on the compiled kernel.

A subclass says what a step costs by a class-level table ``terrain_costs`` (terrain id
-> multiplier, 0 = impassable). The table becomes a cost grid for the whole map once,
is cached, and is updated for just the changed region when the terrain is repainted,
so a search costs no Python per edge.

For cost models a table cannot express, override :meth:`cost_grid` (vectorised, must
be cell-local so region updates stay valid) or, as in the original design, the
per-edge hooks :meth:`cost` / :meth:`heuristic`. A subclass that overrides a per-edge
hook is served by the pure-Python search in :mod:`sim.pathfinding.reference`: the same
algorithm and results, one to two orders of magnitude slower.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Mapping, Sequence
from numbers import Real
from typing import Any, ClassVar, Protocol

import numpy as np

from sim.pathfinding.batch import BatchResult
from sim.pathfinding.checks import Point, _check_point, _short
from sim.pathfinding.compiled import CompiledBatch
from sim.pathfinding.grid import MAX_COST
from sim.pathfinding.kernel import jump_data
from sim.pathfinding.options import SearchOptions
from sim.pathfinding.reference import python_search
from sim.pathfinding.search import PathGrid, SearchResult


class TerrainSource(Protocol):
    """What ``AStar`` needs of a world: a terrain grid and a record of what changed."""

    terrain: np.ndarray  # integer terrain ids, indexed [y, x]
    revision: int  # bumped on every change

    def changes_since(self, revision: int) -> Sequence[tuple[int, int, int, int]] | None:
        """Rectangles ``(x0, y0, x1, y1)`` (exclusive ends) changed since ``revision``;
        ``None`` when unknown (then everything is rebuilt)."""
        ...


class ChangeCursor:
    """One follower's place in a world's change log: :meth:`take` says what changed since the
    follower last looked. Everything that keeps something made from the terrain (cost grids,
    regions, the drawn terrain) follows the world through one of these."""

    def __init__(self, source: TerrainSource) -> None:
        self.source = source
        self.revision: int | None = None  # None: never looked (the first take says: everything)

    def take(self) -> Sequence[tuple[int, int, int, int]] | None:
        """The rectangles ``(x0, y0, x1, y1)`` changed since the last take (``[]``: nothing),
        or ``None`` when everything must be rebuilt (the first take, a new map, a long gap)."""
        rev = self.source.revision
        if self.revision is not None and rev == self.revision:
            return []
        changes = None if self.revision is None else self.source.changes_since(self.revision)
        self.revision = rev
        return changes

    def reset(self) -> None:
        """The next take says: everything."""
        self.revision = None


class _StaticTerrain:
    """Wraps a bare terrain array that the caller promises not to change."""

    revision = 0

    def __init__(self, terrain: np.ndarray) -> None:
        self.terrain = terrain

    def changes_since(self, revision: int) -> None:
        return None


class AStar:
    """Pathfinding for one kind of agent on a terrain grid.

    ``world``: a :class:`TerrainSource` (e.g. ``sim.world.World``) or a 2-D integer
    array of terrain ids, indexed ``[y, x]``. ``diagonal`` and ``heuristic`` as in
    :func:`~sim.pathfinding.find_path`; ``max_nodes`` caps each search's expansions
    (``None`` = no cap). ``terrain_costs`` overrides the class table for this instance.
    """

    #: terrain id -> cost multiplier for entering such a cell; missing ids are impassable.
    terrain_costs: ClassVar[Mapping[Any, float]] = {}  # keys: terrain ids (ints, or an IntEnum's)
    #: diagonal rule used when the constructor is not told one.
    diagonal: ClassVar[str] = "no-corner-cutting"
    #: search plain A* queries with jump point search (``no-corner-cutting`` kinds; JPSW's rules
    #: on weighted grids): the same optimal costs, far fewer expansions (``expanded`` then counts
    #: jump points), faster on long queries and often slower on short ones. An instance may set
    #: its own (the demo's species do, as the map chooses: ``sim.model.species.search_choice``).
    use_jps: ClassVar[bool] = False

    def __init__(
        self,
        world: TerrainSource | np.ndarray,
        *,
        diagonal: str | None = None,
        heuristic: str | None = None,
        max_nodes: int | None = None,
        terrain_costs: Mapping[Any, float] | None = None,
    ) -> None:
        if isinstance(world, np.ndarray):
            if world.ndim != 2 or not np.issubdtype(world.dtype, np.integer):
                raise ValueError(f"terrain must be a 2-D integer array, got {world.ndim}-D {world.dtype}")
            world = _StaticTerrain(world)
        elif not all(hasattr(world, name) for name in ("terrain", "revision", "changes_since")):
            raise TypeError(
                "world must be a 2-D integer array of terrain ids or have terrain, revision and "
                f"changes_since (like sim.world.World), got {_short(world)}"
            )
        self.world = world
        opts = SearchOptions.of(diagonal or type(self).diagonal, heuristic, 1.0, "astar", max_nodes)
        diag, heuristic, max_nodes = opts.rule, opts.heuristic_name, opts.max_nodes
        self.diagonal = diagonal or type(self).diagonal  # type: ignore[misc]
        self.heuristic_name = heuristic
        self.max_nodes = max_nodes
        self._diag_rule = diag
        table = _checked_table(type(self).terrain_costs if terrain_costs is None else terrain_costs)
        self.terrain_costs = table  # type: ignore[misc]
        self._lut = np.zeros(max([256, *(int(t) + 1 for t in table)]), dtype=np.float64)
        for tid, value in table.items():
            self._lut[int(tid)] = value
        # The grid stores terrain ids as codes into this table: a byte per cell.
        self._table = self._lut[: max([16, *(int(t) + 1 for t in table)])].copy()
        self._coded = type(self).cost_grid is AStar.cost_grid
        self._grid: PathGrid | None = None
        self._cursor = ChangeCursor(self.world)
        # The world's revision the grid has caught up with (None: not yet). Set only once an update is
        # whole, under the lock: a thread that finds it current may search; one that does not waits.
        self._synced: int | None = None
        self._sync_lock = threading.Lock()
        self.rebuilds = 0  # full cost-grid builds: tests check that painting re-costs only what changed
        self.region_updates = 0  # partial updates after painting
        self._python_hooks = type(self).cost is not AStar.cost or type(self).heuristic is not AStar.heuristic

    # ----------------------------------------------------------------- cost model
    def cost_grid(self, terrain: np.ndarray) -> np.ndarray:
        """Multipliers for a block of terrain ids (indexed ``[y, x]``), same shape, 0 = blocked.

        Override for a vectorised cost model; it must depend on each cell alone, since
        it is also called on just the repainted region.
        """
        return self._lut[terrain]

    def passable_mask(self, terrain: np.ndarray) -> np.ndarray:
        """Where an agent of this kind may stand on a block of terrain ids (bool, same shape)."""
        if self._coded:
            return (self._lut > 0)[terrain]
        return self.cost_grid(terrain) > 0

    @property
    def grid(self) -> PathGrid:
        """The prepared cost grid, brought up to date with the world first."""
        self.sync()
        assert self._grid is not None
        return self._grid

    def sync(self) -> None:
        """Bring the cached cost grid up to date with the world's terrain. Safe from several
        threads at once (a round's jobs search one kind on two threads): one updates, the
        others wait for it, and none searches a grid half updated."""
        if self._synced is not None and self._synced == self.world.revision:
            return  # (the common case: no lock)
        with self._sync_lock:
            self._grid = _caught_up(self, self._cursor.take())
            self._synced = self._cursor.revision

    def passable(self, x: int, y: int) -> bool:
        """Whether an agent of this kind may stand on cell ``(x, y)``."""
        return self.grid.passable(x, y)

    # ------------------------------------------------ the original per-edge hooks
    def cost(self, source: Point, target: Point) -> float:
        """Cost of one step from ``source`` to the adjacent ``target`` (0 = impassable).

        The default reads the cost grid: step length (1 or √2) × the target's multiplier.
        Overriding this switches the class to the pure-Python search.
        """
        m = float(self.grid.costs[target[1], target[0]])
        diagonal = source[0] != target[0] and source[1] != target[1]
        return m * math.sqrt(2.0) if diagonal else m

    def heuristic(self, a: Point, b: Point) -> float:
        """Estimated cost from ``a`` to ``b``: the heuristic's distance × the smallest multiplier.

        Overriding this switches the class to the pure-Python search; keep it admissible
        (never above the true cost) if paths must be optimal.
        """
        dx, dy = abs(a[0] - b[0]), abs(a[1] - b[1])
        name = self.heuristic_name
        if name == "zero":
            return 0.0
        if name == "landmarks":  # (the per-edge hooks' search has no table: the rule's metric)
            name = "manhattan" if self.diagonal == "never" else "octile"
        if name == "octile":
            d = max(dx, dy) + (math.sqrt(2.0) - 1.0) * min(dx, dy)
        elif name == "manhattan":
            d = dx + dy
        elif name == "euclidean":
            d = math.hypot(dx, dy)
        else:
            d = max(dx, dy)
        return d * self.grid.min_cost

    # ---------------------------------------------------------------- searching
    def search(
        self,
        start: Point,
        goal: Point,
        *,
        algorithm: str = "astar",
        weight: float = 1.0,
        record: np.ndarray | None = None,
        trace: np.ndarray | None = None,
    ) -> SearchResult:
        """Find a path for this kind of agent from ``start`` to ``goal`` (``(x, y)`` cells).

        ``record`` and ``trace`` as in :meth:`PathGrid.search` (cost-grid models only).
        """
        grid = self.grid
        if not self._python_hooks:
            if algorithm == "astar":
                algorithm = self._algorithm(grid)
            return grid.search(
                start,
                goal,
                diagonal=self.diagonal,
                heuristic=self.heuristic_name,
                weight=weight,
                algorithm=algorithm,
                max_nodes=self.max_nodes,
                record=record,
                trace=trace,
            )
        SearchOptions.of(self.diagonal, self.heuristic_name, weight, algorithm, self.max_nodes)  # checked
        start = _check_point("start", start, grid.width, grid.height)
        goal = _check_point("goal", goal, grid.width, grid.height)
        if record is not None or trace is not None:
            raise ValueError("record and trace are only available for cost-grid models (no per-edge hooks)")
        return python_search(
            grid.width,
            grid.height,
            start,
            goal,
            _number_hook(self, "cost"),
            _zero if self.heuristic_name == "zero" else _number_hook(self, "heuristic"),
            lambda cell: grid.passable(*cell),
            diagonal_rule=self._diag_rule,
            algorithm=algorithm,
            weight=weight,
            max_nodes=self.max_nodes,
        )

    def search_many(self, starts: np.ndarray, goals: np.ndarray, *, threads: int | None = None) -> BatchResult:
        """Many searches for this kind of agent (``(k, 2)`` arrays of ``(x, y)``): a
        :class:`BatchResult`, as :meth:`PathGrid.search_many` gives (and :meth:`smooth_batch`
        takes). A subclass with per-edge hooks is served one query at a time by the pure-Python
        search."""
        return self.search_many_traced(starts, goals, trace=False, threads=threads)[0]

    def search_many_traced(
        self, starts: np.ndarray, goals: np.ndarray, *, trace: bool = True, threads: int | None = None
    ) -> tuple[BatchResult, tuple[np.ndarray, np.ndarray]]:
        """:meth:`search_many`, and the expanded cells of all queries in order, as
        :meth:`PathGrid.search_many_traced` gives them (``(cells, offsets)``, ``y * W + x``); a
        subclass with per-edge hooks gives no trace (no cells, every query's run empty)."""
        grid = self.grid
        if not self._python_hooks:
            return grid.search_many_traced(
                starts, goals, diagonal=self.diagonal, heuristic=self.heuristic_name, algorithm=self._algorithm(grid),
                max_nodes=self.max_nodes, threads=threads, trace=trace,
            )  # fmt: skip
        results = [
            self.search(tuple(s), tuple(g))
            for s, g in zip(np.asarray(starts).tolist(), np.asarray(goals).tolist(), strict=True)
        ]
        empty = np.zeros(0, dtype=np.int32)
        return BatchResult.of(results, grid.width), (empty, np.zeros(len(results) + 1, dtype=np.int64))

    def search_padded(
        self, flat_starts: np.ndarray, flat_goals: np.ndarray, *, trace: bool = False, threads: int | None = None
    ) -> tuple[BatchResult, tuple[np.ndarray, np.ndarray]]:
        """:meth:`search_many_traced` for queries already given as int64 cells of the padded grid,
        ``(y + 1) * (W + 2) + x + 1``, all inside the map (not checked): what the demo's
        planner has at hand, without the boundary's checks on its per-round path."""
        if self._python_hooks:
            wp = self.grid.width + 2
            points = [np.stack((f % wp - 1, f // wp - 1), axis=1) for f in (flat_starts, flat_goals)]
            return self.search_many_traced(points[0], points[1], trace=trace, threads=threads)
        grid, _args, params = self.compiled_batch()
        return grid._batch(flat_starts, flat_goals, self._diag_rule, params, None, trace, threads)

    def compiled_batch(self, jps: bool = True) -> CompiledBatch:
        """What compiled code needs to run this kind's batches itself (``kernel.search_batch``):
        the up-to-date grid, its :class:`GridArgs` and the :class:`KernelParams` of this kind's
        searches. Kinds without per-edge hooks only (see :attr:`has_python_hooks`). ``jps=False``:
        plain A* even where this kind opts into JPS (:attr:`use_jps`): the same costs, for a
        caller whose code with JPS is not compiled yet."""
        grid = self.grid
        algorithm = self._algorithm(grid) if jps else "astar"
        params = grid._params(SearchOptions.of(self.diagonal, self.heuristic_name, 1.0, algorithm, self.max_nodes))
        return CompiledBatch(grid, grid.kernel_args(self._diag_rule, jump_data(params.mode)), params)

    @property
    def has_python_hooks(self) -> bool:
        """Whether this kind overrides the per-edge ``cost``/``heuristic`` hooks (then only the
        plain-Python search serves it, never a compiled batch)."""
        return self._python_hooks

    def _algorithm(self, grid: PathGrid) -> str:
        """Plain A*, or JPS where this kind opts in (``use_jps``) and its diagonal rule allows it."""
        if self.use_jps and self.diagonal == "no-corner-cutting":
            return "jps"
        return "astar"

    def smooth_batch(self, result: BatchResult) -> BatchResult:
        """``result`` (from :meth:`search_many`) with every path pulled straight, as
        :meth:`PathGrid.smooth_many` does; its paths come from this engine's own search, so
        they are not checked again (the demo's planner does this every round for birds)."""
        paths, offsets, _ways = self.grid._smooth(result.paths, result.offsets, self._diag_rule)
        r = result  # built directly: dataclasses.replace costs ~15 µs, on the planner's per-round path
        return BatchResult(r.found, r.cost, r.expanded, r.status, r.hit_limit, paths, offsets, r.served, r.width)


def _caught_up(astar: AStar, changes: Sequence[tuple[int, int, int, int]] | None) -> PathGrid:
    """``astar``'s grid after ``changes`` (a change cursor's take): the same grid updated where
    the terrain changed, or a new one (everything changed, or no grid yet)."""
    terrain, grid = astar.world.terrain, astar._grid
    if changes is None or grid is None or (grid.height, grid.width) != terrain.shape:
        astar.rebuilds += 1
        return PathGrid.from_codes(terrain, astar._table) if astar._coded else PathGrid(_costs_of(astar, terrain))
    for x0, y0, x1, y1 in changes:
        if astar._coded:
            grid.update_codes(x0, y0, terrain[y0:y1, x0:x1])
        else:
            grid.update(x0, y0, _costs_of(astar, terrain[y0:y1, x0:x1]))
        astar.region_updates += 1
    return grid


#: The largest terrain id a table may name (its lookup table is then 512 KiB); ids a table does
#: not name are impassable, however large.
MAX_TERRAIN_ID = 65535


def _checked_table(table: object) -> dict[Any, float]:
    """``terrain_costs`` as a dict, checked: whole-number ids from 0 to :data:`MAX_TERRAIN_ID`
    (an ``IntEnum``'s members are), multipliers from 0 (impassable) to ``MAX_COST``, or inf
    (impassable too)."""
    if not isinstance(table, Mapping):
        raise TypeError(f"terrain_costs must be a mapping of terrain id -> cost multiplier, got {_short(table)}")
    for tid, value in table.items():
        whole = isinstance(tid, int | np.integer) or (isinstance(tid, float | np.floating) and float(tid).is_integer())
        if not whole or isinstance(tid, bool):  # (2.0 names terrain 2, as it always did; 2.5 names none)
            raise TypeError(f"terrain_costs key {_short(tid)} must be a whole-number terrain id")
        if not 0 <= int(tid) <= MAX_TERRAIN_ID:
            raise ValueError(f"terrain_costs key {_short(tid)} must be a terrain id from 0 to {MAX_TERRAIN_ID}")
        # (a value that is no number is a ValueError with this message, as it has always been)
        number = isinstance(value, int | float | np.integer | np.floating) and not isinstance(value, bool)
        if not number or not float(value) >= 0:
            raise ValueError(f"terrain cost for terrain {tid} must be a number >= 0, got {_short(value)}")
        if not (float(value) <= MAX_COST or value == math.inf):
            raise ValueError(f"terrain cost for terrain {tid} must be at most {MAX_COST:g} (or inf: impassable), "
                             f"got {_short(value)}")  # fmt: skip
    return {tid: float(value) for tid, value in table.items()}


def _costs_of(astar: AStar, terrain: np.ndarray) -> np.ndarray:
    """An overridden ``cost_grid``'s answer for ``terrain``, checked to be an array of its shape
    (its values are checked as any grid's: ``PathGrid``)."""
    costs = astar.cost_grid(terrain)
    name = f"{type(astar).__name__}.cost_grid(terrain)"
    if not isinstance(costs, np.ndarray):
        raise TypeError(f"{name} must return a numpy array, got {_short(costs)}")
    if costs.shape != terrain.shape:
        raise ValueError(f"{name} must return an array of the terrain's shape {terrain.shape}, got {costs.shape}")
    return costs


def _number_hook(astar: AStar, name: str) -> Callable[[Point, Point], float]:
    """A per-edge hook, its answers checked: a number (a cost that is not > 0 blocks the step),
    never NaN for a heuristic; otherwise a one-line error naming the hook and its call. (Only a
    kind with an overridden hook searches through these: the plain-Python search.)"""
    hook = getattr(astar, name)

    def checked(a: Point, b: Point) -> float:
        value = hook(a, b)
        if isinstance(value, Real) and not isinstance(value, bool) and (name == "cost" or value == value):
            return float(value)
        what = "a number" if name == "cost" else "a number, not NaN"
        raise TypeError(f"{type(astar).__name__}.{name}({a}, {b}) must return {what}, got {_short(value)}")

    return checked


def _zero(a: Point, b: Point) -> float:
    return 0.0


__all__ = ["AStar", "TerrainSource"]
