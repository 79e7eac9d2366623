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

import math
from dataclasses import dataclass, field
from numbers import Integral, Real

import numpy as np

from . import field as _f
from . import kernel as _k
from .batch import BatchResult, run_batch
from .grid import CodedGrid
from .rules import DIAG_NEVER, DIAG_NO_CORNER_CUTTING, DIAGONAL_RULES, DX, DY
from .workspace import thread_count, workspace

Point = tuple[int, int]

HEURISTICS: tuple[str, ...] = ("octile", "manhattan", "euclidean", "chebyshev", "zero")
#: ``(dx, dy)`` of each direction index :meth:`PathGrid.field_steps` returns.
STEPS: tuple[tuple[int, int], ...] = tuple((int(dx), int(dy)) for dx, dy in zip(DX, DY, strict=True))
ALGORITHMS: tuple[str, ...] = ("astar", "dijkstra", "greedy", "jps")

_METRICS = {
    "octile": _k.METRIC_OCTILE,
    "manhattan": _k.METRIC_MANHATTAN,
    "euclidean": _k.METRIC_EUCLIDEAN,
    "chebyshev": _k.METRIC_CHEBYSHEV,
}
_TIE_NUDGE = 1e-10


@dataclass(frozen=True, slots=True)
class SearchResult:
    """What one search found.

    ``path`` runs from start to goal inclusive (empty when not found); ``cost`` is its
    total cost (``inf`` when not found); ``expanded`` counts the nodes taken off the open
    list; ``hit_limit`` tells that ``max_nodes`` stopped the search; ``partial_path``
    (only when not found) runs from start to the expanded node closest to the goal, so
    an agent can still walk toward it.
    """

    found: bool
    path: list[Point]
    cost: float
    expanded: int
    hit_limit: bool = False
    partial_path: list[Point] = field(default_factory=list)

    @property
    def walk_path(self) -> list[Point]:
        """The path to follow: the full path if found, else the partial path."""
        return self.path if self.found else self.partial_path


def _check_point(name: str, p: object, width: int, height: int) -> Point:
    if (
        not isinstance(p, tuple | list | np.ndarray)
        or len(p) != 2
        or not all(isinstance(c, Integral) and not isinstance(c, bool) for c in p)
    ):
        raise TypeError(f"{name} must be an (x, y) tuple of ints, got {_short(p)}")
    x, y = int(p[0]), int(p[1])
    if not (0 <= x < width and 0 <= y < height):
        raise ValueError(f"{name} {(x, y)} is outside the grid of width {width} and height {height}")
    return x, y


def resolve_options(
    diagonal: str, heuristic: str | None, weight: float, algorithm: str, max_nodes: int | None
) -> tuple[int, str, float, str, int | None]:
    """Check the option values; return them normalised (the heuristic's default filled in)."""
    for name, value in (("diagonal", diagonal), ("heuristic", heuristic), ("algorithm", algorithm)):
        if not isinstance(value, str) and not (name == "heuristic" and value is None):
            raise TypeError(f"{name} must be a string, got {_short(value)}")
    if diagonal not in DIAGONAL_RULES:
        raise ValueError(f"unknown diagonal rule {_short(diagonal)}; expected one of {', '.join(DIAGONAL_RULES)}")
    if heuristic is None:
        heuristic = "manhattan" if diagonal == "never" else "octile"
    elif heuristic not in HEURISTICS:
        raise ValueError(f"unknown heuristic {_short(heuristic)}; expected one of {', '.join(HEURISTICS)}")
    if algorithm not in ALGORITHMS:
        raise ValueError(f"unknown algorithm {_short(algorithm)}; expected one of {', '.join(ALGORITHMS)}")
    if not isinstance(weight, Real) or isinstance(weight, bool):
        raise TypeError(f"weight must be a number, got {weight!r}")
    if not (math.isfinite(weight) and weight >= 1.0):
        raise ValueError(f"weight must be a finite number >= 1, got {weight!r}")
    if max_nodes is not None:
        if not isinstance(max_nodes, Integral) or isinstance(max_nodes, bool):
            raise TypeError(f"max_nodes must be an int or None, got {max_nodes!r}")
        if max_nodes < 1:
            raise ValueError(f"max_nodes must be >= 1, got {max_nodes}")
    return DIAGONAL_RULES[diagonal], heuristic, float(weight), algorithm, max_nodes


def _check_max_cost(max_cost: object) -> float:
    if max_cost is None:
        return math.inf
    if not isinstance(max_cost, Real) or isinstance(max_cost, bool):
        raise TypeError(f"max_cost must be a number or None, got {_short(max_cost)}")
    if math.isnan(max_cost) or max_cost < 0:
        raise ValueError(f"max_cost must be >= 0, got {max_cost!r}")
    return float(max_cost)


def _short(value: object, limit: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _check_out_array(name: str, a: object, ndim: int) -> np.ndarray:
    """An output array the caller gives: int32, ``ndim``-D, writeable (exact errors otherwise)."""
    if not isinstance(a, np.ndarray) or a.dtype != np.int32 or a.ndim != ndim:
        raise TypeError(f"{name} must be a {ndim}-D numpy int32 array")
    if not a.flags.writeable:
        raise ValueError(f"{name} must be writeable, got a read-only array")
    return a


def _check_points(name: str, a: object, width: int, height: int) -> np.ndarray:
    """A (k, 2) array of (x, y) int points inside the grid, as an int64 array."""
    arr = a if isinstance(a, np.ndarray) else np.asarray(a)
    if arr.dtype.kind not in "iu":
        raise TypeError(f"{name} must be a (k, 2) array of int (x, y) points, got dtype {arr.dtype}")
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise ValueError(f"{name} must have shape (k, 2), got {arr.shape}")
    arr = arr.astype(np.int64, copy=False)
    if arr.size == 0 or (arr.min() >= 0 and arr[:, 0].max() < width and arr[:, 1].max() < height):
        return arr
    bad = (arr[:, 0] < 0) | (arr[:, 0] >= width) | (arr[:, 1] < 0) | (arr[:, 1] >= height)
    if bad.any():
        i = int(np.argmax(bad))
        point = (int(arr[i, 0]), int(arr[i, 1]))
        raise ValueError(f"{name}[{i}] {point} is outside the grid of width {width} and height {height}")
    return arr


class PathGrid(CodedGrid):
    """A cost grid prepared once for many searches.

    Use this rather than :func:`find_path` when searching the same grid repeatedly: the
    grid is validated and stored once (a byte per cell for up to 255 distinct
    multipliers), and searches use this thread's workspace, shared with every other
    grid: a search allocates nothing proportional to the map. Change cells with
    :meth:`update`; search many queries in one call with :meth:`search_many`.
    """

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
    ) -> SearchResult:
        """Search from ``start`` to ``goal``; see :func:`find_path` for the options.

        ``record``, if given, must be a writeable int32 array of the grid's shape ``(H, W)``.
        It is cleared, then ``record[y, x]`` is set to ``-1`` for each cell left on the open
        list and to ``k`` for the k-th cell expanded (1-based): the search's footprint and
        expansion order, for visualisation. ``trace``, if given, must be a writeable 1-D
        int32 array: ``trace[k]`` gets the (k+1)-th expanded cell as ``y * W + x``, for the
        first ``min(len(trace), result.expanded)`` expansions (one write per expansion).
        Not asking for either costs nothing.
        """
        diag, heuristic, weight, algorithm, max_nodes = resolve_options(
            diagonal, heuristic, weight, algorithm, max_nodes
        )
        start = _check_point("start", start, self.width, self.height)
        goal = _check_point("goal", goal, self.width, self.height)
        rec = np.zeros((0, 0), dtype=np.int32)
        if record is not None:
            rec = _check_out_array("record", record, 2)
            if record.shape != (self.height, self.width):
                raise ValueError(f"record must have the grid's shape {(self.height, self.width)}, got {record.shape}")
            record.fill(0)
        tr = np.zeros(0, dtype=np.int32) if trace is None else _check_out_array("trace", trace, 1)
        if algorithm == "jps":
            self._check_jps(diag)
        if not (self.passable(*start) and self.passable(*goal)):
            return SearchResult(False, [], math.inf, 0)
        if start == goal:
            return SearchResult(True, [start], 0.0, 0)
        return self._run(start, goal, diag, self._params(diag, heuristic, weight, algorithm, max_nodes), rec, tr)

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
    ) -> BatchResult:
        """Search many queries in one compiled call; row ``i`` answers ``starts[i]`` -> ``goals[i]``.

        ``starts`` and ``goals`` are ``(k, 2)`` int arrays of ``(x, y)``; the options are as
        in :meth:`search`, and every answer is the one :meth:`search` gives. With
        ``node_budget``, queries are taken in order while the expansions so far are below
        it; the rest are not searched (``served`` says how many were). Large batches are
        split across ``threads`` threads (default: :func:`~sim.pathfinding.set_threads`,
        else every core); the answers do not depend on it. ``trace=True`` also returns
        every expanded cell (see :meth:`search_many_traced`).
        """
        result, _trace = self.search_many_traced(
            starts, goals, diagonal=diagonal, heuristic=heuristic, weight=weight, algorithm=algorithm,
            max_nodes=max_nodes, node_budget=node_budget, threads=threads, trace=trace,
        )  # fmt: skip
        return result

    def search_many_traced(self, starts, goals, *, diagonal="no-corner-cutting", heuristic=None, weight=1.0,
                           algorithm="astar", max_nodes=None, node_budget=None, threads=None, trace=True):  # fmt: skip
        """:meth:`search_many`, and the expanded cells of all served queries in order
        (``(cells, offsets)``: query i's are ``cells[offsets[i]:offsets[i+1]]``, ``y * W + x``)."""
        diag, heuristic, weight, algorithm, max_nodes = resolve_options(
            diagonal, heuristic, weight, algorithm, max_nodes
        )
        s = _check_points("starts", starts, self.width, self.height)
        t = _check_points("goals", goals, self.width, self.height)
        if len(s) != len(t):
            raise ValueError(f"starts and goals must have the same length, got {len(s)} and {len(t)}")
        if node_budget is not None and (not isinstance(node_budget, Integral) or isinstance(node_budget, bool)):
            raise TypeError(f"node_budget must be an int or None, got {_short(node_budget)}")
        if node_budget is not None and node_budget < 0:
            raise ValueError(f"node_budget must be >= 0, got {node_budget}")
        if threads is not None and (not isinstance(threads, Integral) or isinstance(threads, bool) or threads < 1):
            raise ValueError(f"threads must be a whole number >= 1 or None, got {_short(threads)}")
        if algorithm == "jps":
            self._check_jps(diag)
        wp = self.width + 2
        flat_s = ((s[:, 1] + 1) * wp + s[:, 0] + 1).astype(np.int64)
        flat_t = ((t[:, 1] + 1) * wp + t[:, 0] + 1).astype(np.int64)
        params = self._params(diag, heuristic, weight, algorithm, max_nodes)
        grid_args = (self._codes, self._lut, self.moves(diag), wp)
        part, served = run_batch(
            grid_args, flat_s, flat_t, params, node_budget, bool(trace), self.cells, threads or thread_count()
        )
        st = part.status
        result = BatchResult(
            st == _k.STATUS_FOUND, part.cost, part.expanded, st, st == _k.STATUS_HIT_LIMIT,
            part.paths[: part.offsets[-1]], part.offsets, served, self.width,
        )  # fmt: skip
        return result, (part.trace[: part.trace_offsets[-1]], part.trace_offsets)

    # ------------------------------------------------------------------ distance fields
    def distance_field(
        self,
        goal: Point,
        *,
        diagonal: str = "no-corner-cutting",
        max_cost: float | None = None,
        trace: np.ndarray | None = None,
    ) -> np.ndarray:
        """The cost of the cheapest path from every cell *to* ``goal``: float64 ``(H, W)``.

        Same cost model as :meth:`search` (a step costs its length times the multiplier of
        the cell it enters, under the ``diagonal`` rule), so ``field[y, x]`` equals the cost
        :meth:`search` finds from ``(x, y)`` to ``goal``. ``inf`` where the goal cannot be
        reached, the cell is impassable, or (with ``max_cost``) the cost is above
        ``max_cost``: the search stops there. An impassable goal gives all ``inf``.
        ``trace`` (a writeable 1-D int32 array) gets the settled cells in order, ``y * W + x``.
        Follow it with :meth:`field_steps` or :meth:`descend`.
        """
        diag = resolve_options(diagonal, None, 1.0, "astar", None)[0]
        gx, gy = _check_point("goal", goal, self.width, self.height)
        limit = _check_max_cost(max_cost)
        order = np.zeros(0, dtype=np.int32) if trace is None else _check_out_array("trace", trace, 1)
        out = np.full(self.height * self.width, np.inf)
        if not self.passable(gx, gy):
            return out.reshape(self.height, self.width)
        ws = workspace()
        ws.ensure(self.cells)
        wp = self.width + 2
        gen = ws.next_gen()
        size = _f.field_start((gy + 1) * wp + gx + 1, ws.g, ws.mark, gen, *ws.heap)
        done = 0
        while True:
            status, size, settled = _f.field_core(
                self._codes, self._lut, self.moves(diag), wp, limit, ws.g, ws.mark, gen, *ws.heap, size, out,
                order, done, self.cells,
            )  # fmt: skip
            done += settled
            if status == _f.FIELD_DONE:
                return out.reshape(self.height, self.width)
            ws.heap = _f.grow_heap(*ws.heap, size)
            ws.stats[_k.STAT_HEAP_GROWS] += 1

    def field_steps(self, field: np.ndarray, *, diagonal: str = "no-corner-cutting") -> np.ndarray:
        """Each cell's next step down ``field`` (from :meth:`distance_field` with the same
        ``diagonal``): int8 ``(H, W)``, a direction index into :data:`STEPS` (``(dx, dy)``),
        -1 at the goal and where the field is ``inf``. Of equally good steps the one listed
        first in :data:`STEPS` wins, so the result never depends on anything else."""
        diag = resolve_options(diagonal, None, 1.0, "astar", None)[0]
        f = self._check_field(field)
        out = np.empty((self.height, self.width), dtype=np.int8)
        return _f.steps_core(f, self._codes, self._lut, self.moves(diag), self.width + 2, out)

    def descend(self, field: np.ndarray, start: Point, *, diagonal: str = "no-corner-cutting") -> list[Point]:
        """The path from ``start`` down ``field`` to its goal (start and goal included), optimal
        like :meth:`search`'s; empty when the field does not reach ``start``."""
        steps = self.field_steps(field, diagonal=diagonal)
        x, y = _check_point("start", start, self.width, self.height)
        if not math.isfinite(field[y, x]):
            return []
        paths = np.empty(self.cells, dtype=np.int32)
        offsets = np.zeros(2, dtype=np.int64)
        n = _f.follow_core(steps, np.array([[x, y]], dtype=np.int64), self.cells, paths, offsets)
        return [(int(c % self.width), int(c // self.width)) for c in paths[:n]]

    # ------------------------------------------------------------------ straight lines
    def smooth_path(self, path: list[Point], *, diagonal: str = "no-corner-cutting") -> tuple[list[Point], list[Point]]:
        """``path`` with its corners pulled straight: ``(cells, waypoints)``.

        Greedy string pulling: from each waypoint, the farthest later cell of the path whose
        straight line of cells is legal under ``diagonal`` and costs no more than the part of
        the path it replaces (same cost model) becomes the next waypoint. ``cells`` is still a
        path of adjacent cells, never costlier than ``path``; ``waypoints`` are the ends of its
        straight segments (start and goal included), for drawing it as an any-angle path.
        """
        diag = resolve_options(diagonal, None, 1.0, "astar", None)[0]
        if not isinstance(path, list | tuple):
            raise TypeError(f"path must be a list of (x, y) points, got {_short(path)}")
        cells = np.array([_check_point(f"path[{i}]", p, self.width, self.height) for i, p in enumerate(path)],
                         dtype=np.int64).reshape(-1, 2)  # fmt: skip
        flat = (cells[:, 1] * self.width + cells[:, 0]).astype(np.int32) if len(cells) else np.zeros(0, np.int32)
        out, out_offsets, ways = self._smooth(flat, np.array([0, flat.size], dtype=np.int64), diag)
        pts = [(int(c % self.width), int(c // self.width)) for c in out[: out_offsets[1]]]
        return pts, [p for p, way in zip(pts, ways[: out_offsets[1]], strict=True) if way]

    def smooth_many(
        self, paths: np.ndarray, offsets: np.ndarray, *, diagonal: str = "no-corner-cutting"
    ) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`smooth_path` for many paths at once, in the batch format (``paths`` int32 flat
        cells ``y * W + x``, path i at ``paths[offsets[i]:offsets[i + 1]]``); returns the same format."""
        diag = resolve_options(diagonal, None, 1.0, "astar", None)[0]
        out, out_offsets, _ways = self._smooth(np.asarray(paths, dtype=np.int32), np.asarray(offsets, np.int64), diag)
        return out, out_offsets

    def _smooth(self, flat: np.ndarray, offsets: np.ndarray, diag: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        # A straight line between two cells has as many cells as the longer axis, never more
        # than the path it replaces: the output fits in the input's size.
        out = np.empty(max(int(offsets[-1]), 1), dtype=np.int32)
        ways = np.zeros(out.size, dtype=np.int8)
        out_offsets = np.zeros(offsets.size, dtype=np.int64)
        _f.smooth_core(self._codes, self._lut, self.moves(diag), self.width + 2, self.width, flat, offsets,
                       out, out_offsets, ways)  # fmt: skip
        return out, out_offsets, ways

    def _check_field(self, field: object) -> np.ndarray:
        if not isinstance(field, np.ndarray) or field.dtype != np.float64:
            raise TypeError("field must be a float64 numpy array (from distance_field)")
        if field.shape != (self.height, self.width):
            raise ValueError(f"field must have the grid's shape {(self.height, self.width)}, got {field.shape}")
        return np.ascontiguousarray(field)

    # ------------------------------------------------------------------ internals
    def _check_jps(self, diag: int) -> None:
        if diag != DIAG_NO_CORNER_CUTTING:
            name = next(k for k, v in DIAGONAL_RULES.items() if v == diag)
            raise ValueError(f"algorithm 'jps' needs diagonal='no-corner-cutting', got {name!r}")
        if not self.uniform:
            raise ValueError(
                "algorithm 'jps' needs every passable cell to cost the same; this grid's "
                f"multipliers range from {self.min_cost:g} to {self.max_cost:g}"
            )

    def _params(self, diag: int, heuristic: str, weight: float, algorithm: str, max_nodes: int | None) -> tuple:
        """The kernels' parameters: (mode, metric, g_mult, h_mult, unit, max_nodes, heuristic)."""
        # The metric orders the open list's ties and picks the "closest node reached";
        # with the zero heuristic it still does that, it just does not steer.
        if heuristic == "zero":
            metric = _k.METRIC_MANHATTAN if diag == DIAG_NEVER else _k.METRIC_OCTILE
        else:
            metric = _METRICS[heuristic]
        cap = max_nodes if max_nodes is not None else self.cells
        unit = self.min_cost
        if algorithm == "greedy":
            return _k.MODE_HEAP, metric, 0.0, 1.0, unit, cap, -1
        dijkstra = algorithm == "dijkstra" or heuristic == "zero"
        if algorithm != "jps" and self.uniform and weight == 1.0 and heuristic != "euclidean":
            # Exact integer-pair priorities and a bucket queue (buckets.py): ~1.6x the heap's speed.
            return _k.MODE_BUCKETS, metric, 1.0, 1.0, unit, cap, -1 if dijkstra else metric
        scale = 0.0 if dijkstra else weight * unit
        # Ties on f go to the deeper entry (smaller h): on open ground the search then
        # runs down one line to the goal instead of fanning out over equal-f cells. A
        # nudge of h by 1e-10 of the smallest multiplier does that with one key per
        # heap entry; it can change a path's cost by at most that relative amount,
        # far below what the tests (and floating point sums of √2) can see.
        mode = _k.MODE_JPS if algorithm == "jps" else _k.MODE_HEAP
        return mode, metric, 1.0, scale + _TIE_NUDGE * unit, unit, cap, -1

    def _run(
        self, start: Point, goal: Point, diag: int, params: tuple, record: np.ndarray, trace: np.ndarray
    ) -> SearchResult:
        ws = workspace()
        ws.ensure(self.cells, jps=params[0] == _k.MODE_JPS)
        gen = ws.next_gen()
        wp = self.width + 2
        flat_start = (start[1] + 1) * wp + start[0] + 1
        flat_goal = (goal[1] + 1) * wp + goal[0] + 1
        moves = self.moves(diag)
        status, expanded, cost, n, ws.path, ws.gen, ws.heap, ws.buckets, ws.hgen = _k.search_one(
            self._codes, self._lut, moves, wp, flat_start, flat_goal, *params, ws.g, ws.parent, ws.jump_parent,
            ws.mark, gen, ws.heap, ws.buckets, ws.hgen, ws.path, record, trace, ws.stats,
        )  # fmt: skip
        cells = ws.path[:n]
        path = list(zip((cells % self.width).tolist(), (cells // self.width).tolist(), strict=True))
        if status == _k.STATUS_FOUND:
            return SearchResult(True, path, float(cost), int(expanded))
        return SearchResult(False, [], math.inf, int(expanded), status == _k.STATUS_HIT_LIMIT, path)


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
    resolve_options(diagonal, heuristic, weight, algorithm, max_nodes)
    return PathGrid(costs).search(
        start,
        goal,
        diagonal=diagonal,
        heuristic=heuristic,
        weight=weight,
        algorithm=algorithm,
        max_nodes=max_nodes,
    )


def warm_up() -> None:
    """Compile every kernel (first run) or load it from numba's cache, on a tiny grid.

    Call it while showing a message, so the first real search does not freeze a frame.
    """
    grid = PathGrid(np.ones((3, 3)))
    for algorithm in ("astar", "jps"):
        grid.search((0, 0), (2, 2), algorithm=algorithm, record=np.zeros((3, 3), dtype=np.int32))
        grid.search((0, 0), (2, 2), algorithm=algorithm, trace=np.zeros(9, dtype=np.int32))
        grid.search((0, 0), (2, 2), algorithm=algorithm)
        points = np.array([[0, 0], [2, 2]])
        grid.search_many(points, points[::-1], algorithm=algorithm, threads=1)
        grid.search_many_traced(points, points[::-1], algorithm=algorithm, threads=1)
    field = grid.distance_field((2, 2), trace=np.zeros(9, dtype=np.int32))
    grid.smooth_path(grid.descend(field, (0, 0)))
