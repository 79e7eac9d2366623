"""The public search API: ``find_path`` for one query, ``PathGrid`` for many.

Conventions (the same everywhere in the engine):

* ``costs`` is a 2-D array indexed ``[y, x]``. ``costs[y, x]`` is the multiplier for
  *entering* cell ``(x, y)``; a value that is not a finite number > 0 (0, negatives,
  NaN, inf) marks the cell impassable.
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

from . import kernel as _k
from .rules import DIAG_NEVER, DIAG_NO_CORNER_CUTTING, DIAGONAL_RULES

Point = tuple[int, int]

HEURISTICS: tuple[str, ...] = ("octile", "manhattan", "euclidean", "chebyshev", "zero")
ALGORITHMS: tuple[str, ...] = ("astar", "dijkstra", "greedy", "jps")

_METRICS = {
    "octile": _k.METRIC_OCTILE,
    "manhattan": _k.METRIC_MANHATTAN,
    "euclidean": _k.METRIC_EUCLIDEAN,
    "chebyshev": _k.METRIC_CHEBYSHEV,
}
_TIE_NUDGE = 1e-10
_STATUS_FOUND = _k.STATUS_FOUND
_STATUS_HIT_LIMIT = _k.STATUS_HIT_LIMIT


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


def prepare_costs(costs: object) -> np.ndarray:
    """Validate ``costs`` and return the kernel's padded float64 copy, shape ``(H+2, W+2)``."""
    if not isinstance(costs, np.ndarray):
        raise TypeError(f"costs must be a numpy array, not {type(costs).__name__}")
    if costs.ndim != 2:
        raise ValueError(f"costs must be 2-D (indexed [y, x]), got {costs.ndim}-D with shape {costs.shape}")
    if costs.shape[0] == 0 or costs.shape[1] == 0:
        raise ValueError(f"costs must not be empty, got shape {costs.shape}")
    if costs.dtype == np.bool_ or not (
        np.issubdtype(costs.dtype, np.integer) or np.issubdtype(costs.dtype, np.floating)
    ):
        raise TypeError(f"costs must have a real numeric dtype (int or float), got {costs.dtype}")
    h, w = costs.shape
    padded = np.zeros((h + 2, w + 2), dtype=np.float64)
    inner = padded[1:-1, 1:-1]
    inner[...] = costs
    # One rule for "blocked": anything that is not a finite number > 0.
    inner[~(np.isfinite(inner) & (inner > 0))] = 0.0
    return padded


def _check_point(name: str, p: object, width: int, height: int) -> Point:
    if (
        not isinstance(p, tuple | list | np.ndarray)
        or len(p) != 2
        or not all(isinstance(c, Integral) and not isinstance(c, bool) for c in p)
    ):
        raise TypeError(f"{name} must be an (x, y) tuple of ints, got {p!r}")
    x, y = int(p[0]), int(p[1])
    if not (0 <= x < width and 0 <= y < height):
        raise ValueError(f"{name} {(x, y)} is outside the grid of width {width} and height {height}")
    return x, y


def resolve_options(
    diagonal: str, heuristic: str | None, weight: float, algorithm: str, max_nodes: int | None
) -> tuple[int, str, float, str, int | None]:
    """Check the option values; return them normalised (the heuristic's default filled in)."""
    if diagonal not in DIAGONAL_RULES:
        raise ValueError(f"unknown diagonal rule {diagonal!r}; expected one of {', '.join(DIAGONAL_RULES)}")
    if heuristic is None:
        heuristic = "manhattan" if diagonal == "never" else "octile"
    elif heuristic not in HEURISTICS:
        raise ValueError(f"unknown heuristic {heuristic!r}; expected one of {', '.join(HEURISTICS)}")
    if algorithm not in ALGORITHMS:
        raise ValueError(f"unknown algorithm {algorithm!r}; expected one of {', '.join(ALGORITHMS)}")
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


class PathGrid:
    """A cost grid prepared once for many searches, with its own reusable workspace.

    Use this rather than :func:`find_path` when searching the same grid repeatedly: the
    grid is validated and padded once, and every search reuses the same buffers (a
    generation stamp marks which entries are current), so a search allocates nothing
    proportional to the map. Change cells with :meth:`update`.
    """

    def __init__(self, costs: np.ndarray) -> None:
        self._padded = prepare_costs(costs)
        self.height, self.width = costs.shape
        self._flat = self._padded.reshape(-1)
        n = self._flat.size
        self._g = np.zeros(n, dtype=np.float64)
        self._parent = np.zeros(n, dtype=np.int32)
        self._mark = np.zeros(n, dtype=np.int32)
        self._heap_key = np.zeros(n, dtype=np.float64)
        self._heap_node = np.zeros(n, dtype=np.int32)
        self._path = np.zeros(n, dtype=np.int32)
        self._no_record = np.zeros((0, 0), dtype=np.int32)
        self._no_trace = np.zeros(0, dtype=np.int32)
        self._gen = 0
        self._min_cost, self._max_cost = self._multiplier_range()

    @property
    def costs(self) -> np.ndarray:
        """A read-only view of the prepared multipliers, shape ``(H, W)``; 0 = blocked."""
        view = self._padded[1:-1, 1:-1]
        view.flags.writeable = False
        return view

    @property
    def min_cost(self) -> float:
        """The smallest positive multiplier: the heuristic's scale (1.0 on an all-blocked grid)."""
        return self._min_cost

    @property
    def uniform(self) -> bool:
        """Whether every passable cell has the same multiplier (then ``"jps"`` applies)."""
        return self._min_cost == self._max_cost

    def _multiplier_range(self) -> tuple[float, float]:
        inner = self._padded[1:-1, 1:-1]
        positive = inner[inner > 0]
        return (float(positive.min()), float(positive.max())) if positive.size else (1.0, 1.0)

    def update(self, x0: int, y0: int, patch: np.ndarray) -> None:
        """Overwrite the cells from ``(x0, y0)`` on with ``patch`` (indexed ``[y, x]``)."""
        patch = np.asarray(patch)
        h, w = patch.shape
        if x0 < 0 or y0 < 0 or x0 + w > self.width or y0 + h > self.height:
            raise ValueError(
                f"patch of width {w} and height {h} at {(x0, y0)} does not fit the grid of "
                f"width {self.width} and height {self.height}"
            )
        view = self._padded[1 + y0 : 1 + y0 + h, 1 + x0 : 1 + x0 + w]
        view[...] = patch
        view[~(np.isfinite(view) & (view > 0))] = 0.0
        # Rescan (vectorised): the patch may have painted over the only cell with the minimum.
        self._min_cost, self._max_cost = self._multiplier_range()

    def passable(self, x: int, y: int) -> bool:
        """Whether cell ``(x, y)`` can be entered."""
        return bool(self._padded[y + 1, x + 1] > 0)

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

        ``record``, if given, must be an int32 array of the grid's shape ``(H, W)``. It is
        cleared, then ``record[y, x]`` is set to ``-1`` for each cell left on the open
        list and to ``k`` for the k-th cell expanded (1-based): the search's footprint and
        expansion order, for visualisation. ``trace``, if given, must be a 1-D int32 array:
        ``trace[k]`` gets the (k+1)-th expanded cell as ``y * W + x``, for the first
        ``min(len(trace), result.expanded)`` expansions (cost: one write per expansion).
        Not asking for either costs nothing.
        """
        diag, heuristic, weight, algorithm, max_nodes = resolve_options(
            diagonal, heuristic, weight, algorithm, max_nodes
        )
        start = _check_point("start", start, self.width, self.height)
        goal = _check_point("goal", goal, self.width, self.height)
        rec = self._no_record
        if record is not None:
            if not isinstance(record, np.ndarray) or record.dtype != np.int32:
                raise TypeError("record must be a numpy int32 array")
            if record.shape != (self.height, self.width):
                raise ValueError(f"record must have the grid's shape {(self.height, self.width)}, got {record.shape}")
            record.fill(0)
            rec = record
        tr = self._no_trace
        if trace is not None:
            if not isinstance(trace, np.ndarray) or trace.dtype != np.int32 or trace.ndim != 1:
                raise TypeError("trace must be a 1-D numpy int32 array")
            tr = trace
        return self._run(start, goal, diag, heuristic, weight, algorithm, max_nodes, rec, tr)

    def _check_jps(self, diag: int) -> None:
        if diag != DIAG_NO_CORNER_CUTTING:
            name = next(k for k, v in DIAGONAL_RULES.items() if v == diag)
            raise ValueError(f"algorithm 'jps' needs diagonal='no-corner-cutting', got {name!r}")
        if not self.uniform:
            raise ValueError(
                "algorithm 'jps' needs every passable cell to cost the same; this grid's "
                f"multipliers range from {self._min_cost:g} to {self._max_cost:g}"
            )

    def _priority(self, diag: int, heuristic: str, weight: float, algorithm: str) -> tuple[int, float, float]:
        """The metric and the two multipliers of the priority ``g_mult * g + h_mult * h``."""
        # The metric orders the open list's ties and picks the "closest node reached";
        # with the zero heuristic it still does that, it just does not steer.
        if heuristic == "zero":
            metric = _k.METRIC_MANHATTAN if diag == DIAG_NEVER else _k.METRIC_OCTILE
        else:
            metric = _METRICS[heuristic]
        if algorithm == "greedy":
            return metric, 0.0, 1.0
        scale = 0.0 if algorithm == "dijkstra" or heuristic == "zero" else weight * self._min_cost
        # Ties on f go to the deeper entry (smaller h): on open ground the search then
        # runs down one line to the goal instead of fanning out over equal-f cells. A
        # nudge of h by 1e-10 of the smallest multiplier does that with one key per
        # heap entry; it can change a path's cost by at most that relative amount,
        # far below what the tests (and floating point sums of √2) can see.
        return metric, 1.0, scale + _TIE_NUDGE * self._min_cost

    def _run(
        self,
        start: Point,
        goal: Point,
        diag: int,
        heuristic: str,
        weight: float,
        algorithm: str,
        max_nodes: int | None,
        record: np.ndarray,
        trace: np.ndarray,
    ) -> SearchResult:
        if algorithm == "jps":
            self._check_jps(diag)
        if start == goal and self.passable(*start):
            return SearchResult(True, [start], 0.0, 0)
        if not (self.passable(*start) and self.passable(*goal)):
            return SearchResult(False, [], math.inf, 0)
        metric, g_mult, h_mult = self._priority(diag, heuristic, weight, algorithm)

        self._gen += 1
        if self._gen >= 2**30 - 1:  # marks are int32: start the stamps over
            self._mark.fill(0)
            self._gen = 1
        wp = self.width + 2
        flat_start = (start[1] + 1) * wp + start[0] + 1
        flat_goal = (goal[1] + 1) * wp + goal[0] + 1
        cap = max_nodes if max_nodes is not None else self._flat.size
        work = (self._gen, self._g, self._parent, self._mark)
        work += (self._heap_key, self._heap_node, self._path, record, trace)
        if algorithm == "jps":
            status, n, expanded, _end = _k.jps_kernel(
                self._flat, wp, flat_start, flat_goal, metric, self._min_cost, h_mult, cap, *work
            )
        else:
            status, n, expanded, _end = _k.search_kernel(
                self._flat, wp, flat_start, flat_goal, diag, metric, g_mult, h_mult, cap, *work
            )
        idx = self._path[:n]
        xs = (idx % wp - 1).tolist()
        ys = (idx // wp - 1).tolist()
        path = list(zip(xs, ys, strict=True))
        if status == _STATUS_FOUND:
            return SearchResult(True, path, float(self._g[idx[-1]]), int(expanded))
        return SearchResult(False, [], math.inf, int(expanded), status == _STATUS_HIT_LIMIT, path)


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
    grid.search((0, 0), (2, 2), record=np.zeros((3, 3), dtype=np.int32))
    grid.search((0, 0), (2, 2), algorithm="jps", record=np.zeros((3, 3), dtype=np.int32))
    grid.search((0, 0), (2, 2))
    grid.search((0, 0), (2, 2), algorithm="jps")
