"""The public search API: ``find_path`` for one query, ``PathGrid`` for many.

Conventions (the same everywhere in the engine):

* ``costs`` is a 2-D array indexed ``[y, x]``. ``costs[y, x]`` is the multiplier for
  *entering* cell ``(x, y)``; a value that is not a finite number > 0 (0, negatives,
  NaN, inf) marks the cell impassable, and passable values are at most ``1e12`` (larger
  ones could overflow a path's cost: ``ValueError``).
* A step costs its length (1 straight, √2 diagonal) times that multiplier.
* Points are ``(x, y)`` tuples of ints.

The heuristic is scaled by the smallest positive multiplier on the grid, so it never
overestimates even when some terrain costs less than 1, and A* stays optimal.
"""

from __future__ import annotations

import inspect
import math
from typing import TYPE_CHECKING

import numpy as np

from sim.pathfinding import kernel as _k
from sim.pathfinding.batch import BatchResult, Part, run_batch
from sim.pathfinding.checks import (
    Point,
    _check_out_array,
    _check_point,
    check_budget,
    check_threads,
    no_search_options,
    padded_pairs,
)
from sim.pathfinding.common import _ENTRIES_FULL, _HEAP_FULL
from sim.pathfinding.compiled import KernelParams
from sim.pathfinding.explain import Explaining
from sim.pathfinding.fieldgrid import FieldsAndLines
from sim.pathfinding.interpreted import search_interpreted
from sim.pathfinding.options import SearchOptions
from sim.pathfinding.options import options_of as _options
from sim.pathfinding.paths import EMPTY_PATH, SearchResult
from sim.pathfinding.plans import Plan, call_key, check_jps, padded_ends, plan_of, plan_of_call
from sim.pathfinding.plans import kind as kind_of_search
from sim.pathfinding.rules import moves_of
from sim.pathfinding.warm import READY, attempt, waiting
from sim.pathfinding.workspace import PATH_ROWS, SHORT_PATH, thread_count, workspace

# No footprint, no trace: empty, so the kernels write nothing to them (one each, not one a search).
_NO_RECORD = np.zeros((0, 0), dtype=np.int32)
_NO_TRACE = np.zeros(0, dtype=np.int32)


class PathGrid(FieldsAndLines, Explaining):
    """A cost grid prepared once for many searches.

    Use this rather than :func:`find_path` when searching the same grid repeatedly: the
    grid is validated and stored once (a byte per cell for up to 255 distinct
    multipliers), and searches use this thread's workspace, shared with every other
    grid: a search allocates nothing proportional to the map. Change cells with
    :meth:`update`; search many queries in one call with :meth:`search_many`.
    """

    if TYPE_CHECKING:  # (what a checker and an editor see: the costs alone)

        def __init__(self, costs: object) -> None: ...

    else:

        def __init__(self, costs, *more, **options):
            """``costs[y, x]``: each cell's multiplier (0, or anything not a finite number > 0, is blocked)."""
            no_search_options("PathGrid", more, options)  # (given to the grid: says where they go)
            super().__init__(costs)

    def search(
        self,
        start: Point,
        goal: Point,
        *,
        diagonal: str = "no-corner-cutting",
        heuristic: str | None = None,
        weight: float = 1.0,
        algorithm: str = "astar",
        max_nodes: int | None = None,
        record: np.ndarray | None = None,
        trace: np.ndarray | None = None,
        options: SearchOptions | None = None,
    ) -> SearchResult:
        """Search from ``start`` to ``goal``; see :func:`find_path` for the options (or give them
        as one :class:`SearchOptions`, ``options=``, and leave their keywords out).

        ``record``, if given, must be a writeable int32 array of the grid's shape ``(H, W)``.
        It is cleared, then ``record[y, x]`` is set to ``-1`` for each cell left on the open
        list and to ``k`` for the k-th cell expanded (1-based): the search's footprint and
        expansion order, for visualisation. ``trace``, if given, must be a writeable 1-D
        int32 array: ``trace[k]`` gets the (k+1)-th expanded cell as ``y * W + x``, for the
        first ``min(len(trace), result.expanded)`` expansions (one write per expansion).
        Not asking for either costs nothing.
        """
        try:  # (this call's plan, by its own values: one look-up, ~0.1 µs; the first call checks them)
            plan = self._kept.get(call_key(diagonal, heuristic, weight, algorithm, max_nodes, options))
        except TypeError:  # (unhashable: checking the options says what is wrong)
            plan = None
        if plan is None:
            plan = plan_of_call(self, options, diagonal, heuristic, weight, algorithm, max_nodes)
        if record is None and trace is None and plan.kind in READY:  # the common case, kernel compiled
            return self._compiled(padded_ends(start, goal, self.width, self.height), plan, _NO_RECORD, _NO_TRACE)
        start = _check_point("start", start, self.width, self.height)
        goal = _check_point("goal", goal, self.width, self.height)
        rec = _NO_RECORD
        if record is not None:
            rec = _check_out_array("record", record, 2)
            if record.shape != (self.height, self.width):
                raise ValueError(f"record must have the grid's shape {(self.height, self.width)}, got {record.shape}")
            record.fill(0)
        tr = _NO_TRACE if trace is None else _check_out_array("trace", trace, 1)
        if plan.refusal is not None:  # (JPS's conditions: after the points, as ever)
            raise ValueError(plan.refusal)
        lut, codes = self._lut, self._codes  # (passable(), without its calls)
        at_start, at_goal = padded_ends(start, goal, self.width, self.height)
        if not (lut[codes[at_start]] > 0 and lut[codes[at_goal]] > 0):
            return SearchResult(False, None, math.inf, 0)
        if start == goal:
            return SearchResult(True, [start], 0.0, 0)
        return self._run((at_start, at_goal), plan, rec, tr)

    def search_many(
        self,
        starts: np.ndarray,
        goals: np.ndarray,
        *,
        diagonal: str = "no-corner-cutting",
        heuristic: str | None = None,
        weight: float = 1.0,
        algorithm: str = "astar",
        max_nodes: int | None = None,
        node_budget: int | None = None,
        threads: int | None = None,
        trace: bool = False,
        options: SearchOptions | None = None,
    ) -> BatchResult:
        """Search many queries in one compiled call; row ``i`` answers ``starts[i]`` -> ``goals[i]``.

        ``starts`` and ``goals`` are ``(k, 2)`` int arrays of ``(x, y)`` (or lists of such
        points; ``[]`` is an empty batch); the options are as in :meth:`search`, and every
        answer is the one :meth:`search` gives. With ``node_budget``, queries are taken in
        order while the expansions so far are below it; the rest are not searched (``served``
        says how many were). Large batches are split across ``threads`` threads (default:
        :func:`~sim.pathfinding.set_threads`, else every core); the answers do not depend on
        it. ``trace=True`` also returns every expanded cell (see :meth:`search_many_traced`).
        """
        opts = _options(options, diagonal, heuristic, weight, algorithm, max_nodes)
        return self._many(starts, goals, opts, node_budget, threads, trace)[0]

    def search_many_traced(
        self,
        starts: np.ndarray,
        goals: np.ndarray,
        *,
        diagonal: str = "no-corner-cutting",
        heuristic: str | None = None,
        weight: float = 1.0,
        algorithm: str = "astar",
        max_nodes: int | None = None,
        node_budget: int | None = None,
        threads: int | None = None,
        trace: bool = True,
        options: SearchOptions | None = None,
    ) -> tuple[BatchResult, tuple[np.ndarray, np.ndarray]]:
        """:meth:`search_many`, and the expanded cells of all served queries in order
        (``(cells, offsets)``: query i's are ``cells[offsets[i]:offsets[i+1]]``, ``y * W + x``)."""
        opts = _options(options, diagonal, heuristic, weight, algorithm, max_nodes)
        return self._many(starts, goals, opts, node_budget, threads, trace)

    def _many(self, starts: object, goals: object, opts: SearchOptions, node_budget: int | None,
              threads: int | None, trace: bool) -> tuple[BatchResult, tuple[np.ndarray, np.ndarray]]:  # fmt: skip
        """:meth:`search_many_traced` with its options read (once: ~1 µs a call)."""
        flat_s, flat_t = padded_pairs(starts, goals, self.width, self.height)
        node_budget = check_budget(node_budget)
        threads = check_threads("threads", threads, allow_none=True)
        check_jps(self, opts)
        return self._batch(flat_s, flat_t, opts.rule, self._params(opts), node_budget, bool(trace), threads)

    def _batch(self, flat_s: np.ndarray, flat_t: np.ndarray, diag: int, params: KernelParams, node_budget: int | None,
               trace: bool, threads: int | None) -> tuple[BatchResult, tuple[np.ndarray, np.ndarray]]:  # fmt: skip
        """:meth:`search_many_traced` once its arguments are checked: int64 padded cells
        (``(y + 1) * (W + 2) + x + 1``) inside the grid, and the kernels' parameters."""

        def compiled() -> tuple[Part, int]:
            grid_args = self.kernel_args(diag, _k.jump_data(params.mode))
            return run_batch(grid_args, flat_s, flat_t, params, node_budget, trace, self.cells,
                             threads or thread_count())  # fmt: skip

        if trace:  # a trace needs the kernel: it waits for it
            part, served = compiled()
        else:
            kind = kind_of_search("many", params.mode, self._codes)
            ok, answer = attempt(kind, compiled)
            part, served = (
                answer
                if ok and answer is not None
                else self._interpreted_batch(flat_s, flat_t, diag, params, node_budget)
            )
        result = BatchResult.made(part.status, part.cost, part.expanded, part.paths[: part.offsets[-1]], part.offsets,
                                  served, self.width)  # fmt: skip
        return result, (part.trace[: part.trace_offsets[-1]], part.trace_offsets)

    def _interpreted_batch(self, flat_s: np.ndarray, flat_t: np.ndarray, diag: int, params: KernelParams,
                           node_budget: int | None) -> tuple[Part, int]:  # fmt: skip
        """:meth:`_batch` by the plain-Python search, query by query (the kernel is compiling)."""
        k = flat_s.size
        status = np.full(k, _k.STATUS_NOT_SERVED, np.int8)
        cost = np.full(k, np.inf)
        expanded = np.zeros(k, np.int64)
        offsets = np.zeros(k + 1, np.int64)
        paths: list[np.ndarray] = []
        spent = served = 0
        for i in range(k):
            if node_budget is not None and spent >= node_budget:
                offsets[i + 1 :] = offsets[i]
                break
            if flat_s[i] == flat_t[i] and self._lut[self._codes[flat_s[i]]] > 0:
                r = SearchResult.of_cells(True, np.array([self._unpad(int(flat_s[i]))], np.int32), self.width, 0.0, 0)
            else:
                r = self._interpreted(int(flat_s[i]), int(flat_t[i]), diag, params)
            walk = r.walk_path
            cells = (walk[:, 1] * self.width + walk[:, 0]).astype(np.int32)
            status[i] = (_k.STATUS_FOUND if r.found else _k.STATUS_HIT_LIMIT if r.hit_limit else
                         _k.STATUS_UNREACHABLE if r.expanded else _k.STATUS_BLOCKED)  # fmt: skip
            cost[i], expanded[i] = r.cost, r.expanded
            paths.append(cells)
            offsets[i + 1] = offsets[i] + cells.size
            spent += r.expanded
            served += 1
        joined = np.concatenate(paths) if paths else np.zeros(0, np.int32)
        trace_offsets = np.zeros(k + 1, np.int64)
        return Part(served, status, cost, expanded, offsets, joined, np.zeros(0, np.int32), trace_offsets), served

    def _unpad(self, flat: int) -> int:
        wp = self.width + 2
        return (flat // wp - 1) * self.width + flat % wp - 1

    # ------------------------------------------------------------------ internals
    def _params(self, opts: SearchOptions) -> KernelParams:
        """The kernels' parameters for these options (:func:`~.options.kernel_params`), kept."""
        return plan_of(self, opts).params

    def _run(self, ends: tuple[int, int], plan: Plan, record: np.ndarray, trace: np.ndarray) -> SearchResult:
        """One search between padded cells ``ends``, by the compiled kernel, or while that compiles
        by the plain-Python search (:mod:`.warm`)."""
        if record.shape[0] == 0 and trace.size == 0:  # (a record or a trace needs the kernel: it waits for it)
            ok, result = attempt(plan.kind, lambda: self._compiled(ends, plan, record, trace))
            if ok:
                assert result is not None
                return result
            return self._interpreted(ends[0], ends[1], plan.rule, plan.params)
        return self._compiled(ends, plan, record, trace)

    def _interpreted(self, flat_start: int, flat_goal: int, diag: int, params: KernelParams) -> SearchResult:
        """One search by the engine's plain-Python search (its kernel is still compiling: :mod:`.warm`)."""
        moves = self._moves.get(diag)
        if moves is None:
            moves = moves_of(self._codes, self._lut, self.width + 2, diag)
        status, expanded, cost, path = search_interpreted(self._codes, self._lut, moves, self.width + 2, flat_start,
                                                          flat_goal, params)  # fmt: skip
        cells = np.array(path, dtype=np.int32)
        found = status == _k.STATUS_FOUND
        return SearchResult.of_cells(found, cells, self.width, cost if found else math.inf, expanded,
                                     status == _k.STATUS_HIT_LIMIT)  # fmt: skip

    def _compiled(self, ends: tuple[int, int], plan: Plan, record: np.ndarray, trace: np.ndarray) -> SearchResult:
        """:meth:`_run` by the compiled kernel (``ends``: the start and goal as padded cells)."""
        start, goal = ends
        ws = workspace()
        gen = ws.stamp(self.cells, plan.jumps)
        args = plan.args or plan.args_on(self)
        at = ws.path_at
        if at > PATH_ROWS - SHORT_PATH:  # (room for a short path, always: a new block)
            ws.path, ws.path_at, at = np.empty((PATH_ROWS, 2), np.int32), 0, 0
        while True:
            status, expanded, cost, n, end, ws.hgen = _k.search_one(
                *args, start, goal, plan.fields, ws.index, gen, ws.hgen, at, record, trace
            )
            if status != _HEAP_FULL and status != _ENTRIES_FULL:
                break
            ws.grow_open_list(status, _k.bucketed(plan.params.mode))  # then search again
            gen = ws.next_gen()
            if record.shape[0] > 0:
                record.fill(0)
        if n <= SHORT_PATH:  # (rows of the workspace's block that no later search writes)
            ws.path_at = at + n
            path = ws.path[at : at + n] if n else EMPTY_PATH
        elif n <= PATH_ROWS - at:
            path = ws.path[at : at + n].copy()
        else:  # (the kernel wrote nothing)
            path = np.empty((n, 2), np.int32)
            _k.write_path(end, n, ws.parent, ws.jump_parent, plan.jumps, self.width + 2, path)
        return SearchResult.of_path(status == _k.STATUS_FOUND, path, cost, expanded, status == _k.STATUS_HIT_LIMIT)


def _named_as_pathgrid() -> None:
    """Python names a method after the class that defines it, in its own errors too ("CodedGrid.from_codes()
    got an unexpected keyword argument"): PathGrid's bases only split its code into files, so their
    public methods are named as PathGrid's, the class a user meets."""
    for base in PathGrid.__mro__[1:-1]:
        for name, attr in vars(base).items():
            f: object = attr.__func__ if isinstance(attr, classmethod | staticmethod) else attr
            f = f.fget if isinstance(f, property) else f
            if not name.startswith("_") and hasattr(f, "__qualname__") and name not in vars(PathGrid):
                f.__qualname__ = f"PathGrid.{name}"


_named_as_pathgrid()
PathGrid.__init__.__signature__ = inspect.signature(lambda self, costs: None)  # type: ignore[attr-defined]


def find_path(
    costs: np.ndarray,
    start: Point,
    goal: Point,
    *,
    diagonal: str = "no-corner-cutting",
    heuristic: str | None = None,
    weight: float = 1.0,
    algorithm: str = "astar",
    max_nodes: int | None = None,
    options: SearchOptions | None = None,
) -> SearchResult:
    """Find a cheapest path on ``costs`` (indexed ``[y, x]``) from ``start`` to ``goal`` (``(x, y)``).

    ``diagonal``: ``"never"`` (4-connected), ``"no-corner-cutting"`` (a diagonal step
    needs both orthogonal neighbours passable; the Moving AI rule), ``"one-obstacle"``
    (needs at least one), ``"always"``.

    ``heuristic``: ``"octile"`` (default with diagonals), ``"manhattan"`` (default
    without; it overestimates when diagonals are allowed), ``"euclidean"``,
    ``"chebyshev"``, ``"zero"``. It is scaled by the smallest positive multiplier so it
    stays admissible; A* then returns optimal paths.

    ``weight`` > 1 gives weighted A*: fewer expansions, cost at most ``weight`` × optimal.
    ``algorithm``: ``"astar"``, ``"dijkstra"`` (heuristic ignored; optimal),
    ``"greedy"`` (best-first on the heuristic alone; fast, no optimality bound) or
    ``"jps"`` (A* with jump point search: the same optimal costs with far fewer heap
    operations; only on grids whose passable cells all cost the same, with
    ``diagonal="no-corner-cutting"``, else ``ValueError``; ``expanded`` then counts
    jump points).
    ``max_nodes`` caps the expansions so a search for an unreachable goal stays cheap.

    An unreachable goal is a result (``found`` False, ``partial_path`` toward it), not an
    error. This prepares the grid on every call; for many searches use :class:`PathGrid`.
    """
    opts = _options(options, diagonal, heuristic, weight, algorithm, max_nodes)  # checked before the grid
    return PathGrid(costs).search(start, goal, options=opts)


def warm_up(algorithms: tuple[str, ...] = ("astar", "jps", "jps+"), fields: bool = True) -> None:
    """Compile every kernel (first run) or load it from numba's cache, on a tiny grid: the
    searches of ``algorithms``, and with ``fields`` the distance fields and smoothing.

    Call it while showing a message, so the first real search does not freeze a frame.
    """
    with waiting():
        _warm_up(algorithms, fields)


def _warm_up(algorithms: tuple[str, ...], fields: bool) -> None:
    grid = PathGrid(np.ones((3, 3)))
    if "jps" in algorithms:  # a weighted grid's JPS data (.jpsw) is compiled code too
        PathGrid(np.array([[1.0, 2.0], [1.0, 1.0]])).search((0, 0), (1, 1), algorithm="jps")
    for algorithm in algorithms:
        grid.search((0, 0), (2, 2), algorithm=algorithm, record=np.zeros((3, 3), dtype=np.int32))
        grid.search((0, 0), (2, 2), algorithm=algorithm, trace=np.zeros(9, dtype=np.int32))
        grid.search((0, 0), (2, 2), algorithm=algorithm)
        points = np.array([[0, 0], [2, 2]])
        grid.search_many(points, points[::-1], algorithm=algorithm, threads=1)
        grid.search_many_traced(points, points[::-1], algorithm=algorithm, threads=1)
    if fields:
        field = grid.distance_field((2, 2), trace=np.zeros(9, dtype=np.int32))
        grid.smooth_path(grid.descend(field, (0, 0)))
