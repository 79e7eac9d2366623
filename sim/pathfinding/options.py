"""A search's options as one checked, immutable value, and what the kernels make of them.

>>> from sim.pathfinding import SearchOptions
>>> opts = SearchOptions(diagonal="never", weight=1.5)
>>> opts.heuristic, opts.rule
('manhattan', 0)

Every entry point (``find_path``, ``PathGrid.search``/``search_many``, ``AStar``) takes the
options as keyword arguments (or one ``options=SearchOptions(...)``) and checks them here,
once per distinct value: a value that passed is remembered (:meth:`SearchOptions.of`), so
the demo asking with the same few options thousands of times a second pays a dict lookup.

Where an option goes, in the kernels: :func:`kernel_params` turns options and a grid's
multiplier range into :class:`~.compiled.KernelParams`. Adding a heuristic is its name and
metric in :data:`METRICS` and its formula in ``common._metric`` (two files); adding a
tie-break is a field of ``compiled.Priority``, its value in :func:`kernel_params` and its use
in ``common.priority`` (three files: every kernel, the interpreted search and the heap's
compaction read the priority through that one helper).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from numbers import Real
from typing import Any

from sim.pathfinding.checks import _short, check_count
from sim.pathfinding.common import METRIC_CHEBYSHEV, METRIC_EUCLIDEAN, METRIC_MANHATTAN, METRIC_OCTILE
from sim.pathfinding.compiled import KernelParams, Priority
from sim.pathfinding.rules import DIAG_NEVER, DIAGONAL_RULES

#: Heuristic name -> the metric the kernels compute (``common._metric``); "zero" is Dijkstra's.
METRICS: dict[str, int] = {
    "octile": METRIC_OCTILE,
    "manhattan": METRIC_MANHATTAN,
    "euclidean": METRIC_EUCLIDEAN,
    "chebyshev": METRIC_CHEBYSHEV,
    "zero": -1,
}
#: The heuristics' names (the ``heuristic`` option's values); "landmarks" is the metric or a
#: bound learned from the map where larger (:mod:`.landmarks`; A*, greedy and Dijkstra only).
HEURISTICS: tuple[str, ...] = (*METRICS, "landmarks")
ALGORITHMS: tuple[str, ...] = ("astar", "dijkstra", "greedy", "jps", "jps+")
# Kernel modes (kernel.MODE_*; kept here as numbers: the kernel module imports this one's users).
_MODE_HEAP, _MODE_JPS, _MODE_BUCKETS, _MODE_JPS_PLUS, _MODE_LANDMARKS = 0, 1, 2, 3, 4
_TIE_NUDGE = 1e-10


@dataclass(frozen=True, slots=True)
class SearchOptions:
    """How to search (see :func:`~sim.pathfinding.find_path` for each option's meaning).

    Checked when made: exact ``TypeError``/``ValueError`` messages; ``heuristic=None`` becomes
    the diagonal rule's default (``"manhattan"`` without diagonals, else ``"octile"``)."""

    diagonal: str = "no-corner-cutting"
    heuristic: str | None = None
    weight: float = 1.0
    algorithm: str = "astar"
    max_nodes: int | None = None

    def __post_init__(self) -> None:
        for name in ("diagonal", "heuristic", "algorithm"):
            value = getattr(self, name)
            if not isinstance(value, str) and not (name == "heuristic" and value is None):
                raise TypeError(f"{name} must be a string, got {_short(value)}")
        if self.diagonal not in DIAGONAL_RULES:
            raise ValueError(
                f"unknown diagonal rule {_short(self.diagonal)}; expected one of {', '.join(DIAGONAL_RULES)}"
            )
        if self.heuristic is None:
            object.__setattr__(self, "heuristic", "manhattan" if self.diagonal == "never" else "octile")
        elif self.heuristic not in HEURISTICS:
            raise ValueError(f"unknown heuristic {_short(self.heuristic)}; expected one of {', '.join(HEURISTICS)}")
        if self.algorithm not in ALGORITHMS:
            raise ValueError(f"unknown algorithm {_short(self.algorithm)}; expected one of {', '.join(ALGORITHMS)}")
        if self.heuristic == "landmarks" and self.algorithm in ("jps", "jps+"):
            raise ValueError(
                f"heuristic 'landmarks' serves algorithm 'astar', 'greedy' or 'dijkstra', not {self.algorithm!r}"
            )
        weight: Any = self.weight
        if not isinstance(weight, Real) or isinstance(weight, bool):
            raise TypeError(f"weight must be a number, got {weight!r}")
        if not (math.isfinite(float(weight)) and float(weight) >= 1.0):
            raise ValueError(f"weight must be a finite number >= 1, got {weight!r}")
        object.__setattr__(self, "weight", float(weight))
        object.__setattr__(self, "max_nodes", check_count("max_nodes", self.max_nodes, 1))

    @property
    def rule(self) -> int:
        """The diagonal rule as the kernels number it (``rules.DIAGONAL_RULES``)."""
        return DIAGONAL_RULES[self.diagonal]

    @property
    def heuristic_name(self) -> str:
        """The heuristic, its default filled in (never None once made)."""
        return self.heuristic or "octile"

    @classmethod
    def of(cls, diagonal: Any = "no-corner-cutting", heuristic: Any = None, weight: Any = 1.0,
           algorithm: Any = "astar", max_nodes: Any = None) -> SearchOptions:  # fmt: skip
        """The options for these values, checked the first time they are seen and remembered
        (keyed with their types, so ``True`` is not taken for ``1``)."""
        key = (diagonal, heuristic, weight, algorithm, max_nodes,
               type(diagonal), type(heuristic), type(weight), type(algorithm), type(max_nodes))  # fmt: skip
        try:
            found = _KNOWN.get(key)
        except TypeError:  # unhashable (a list): making it says what is wrong
            return cls(diagonal, heuristic, weight, algorithm, max_nodes)
        if found is None:
            found = cls(diagonal, heuristic, weight, algorithm, max_nodes)
            if len(_KNOWN) > 256:
                _KNOWN.clear()
            _KNOWN[key] = found
        return found

    def replace(self, **changes: Any) -> SearchOptions:
        """These options with some changed (checked as any)."""
        values = {name: getattr(self, name) for name in ("diagonal", "heuristic", "weight", "algorithm", "max_nodes")}
        return SearchOptions.of(**{**values, **changes})


_KNOWN: dict[tuple, SearchOptions] = {}


def check_diagonal(diagonal: object) -> int:
    """A diagonal rule's name, checked (exact errors), as the kernels number it."""
    return SearchOptions.of(diagonal).rule


def kernel_params(opts: SearchOptions, unit: float, uniform: bool, cells: int) -> KernelParams:
    """The kernels' parameters for ``opts`` on a grid whose smallest multiplier is ``unit``
    (``uniform``: every passable cell costs the same) and that has ``cells`` cells."""
    heuristic, diag, algorithm = opts.heuristic_name, opts.rule, opts.algorithm
    # The metric orders the open list's ties and picks the "closest node reached"; with the
    # zero heuristic it still does that, it just does not steer.
    zero_metric = METRIC_MANHATTAN if diag == DIAG_NEVER else METRIC_OCTILE
    # (landmarks: the table's bound is taken with the rule's own metric, kernel.astar_core)
    metric = zero_metric if heuristic in ("zero", "landmarks") else METRICS[heuristic]
    cap = opts.max_nodes if opts.max_nodes is not None else cells
    dijkstra = algorithm == "dijkstra" or heuristic == "zero"
    if heuristic == "landmarks" and not dijkstra:  # the heap with the landmarks' table (kernel.landmark_search)
        g_mult, h_mult = (0.0, 1.0) if algorithm == "greedy" else (1.0, (opts.weight + _TIE_NUDGE) * unit)
        return _params(_MODE_LANDMARKS, metric, g_mult, h_mult, unit, cap, 1 if uniform else 0, diag)
    if algorithm == "greedy":
        return _params(_MODE_HEAP, metric, 0.0, 1.0, unit, cap, -1, diag)
    exact = uniform and opts.weight == 1.0 and heuristic != "euclidean"  # priorities as exact integer pairs
    if algorithm not in ("jps", "jps+") and exact:
        # Exact integer-pair priorities and a bucket queue (kernel.bucket_core): ~1.6x the heap's speed.
        return _params(_MODE_BUCKETS, metric, 1.0, 1.0, unit, cap, -1 if dijkstra else metric, diag)
    scale = 0.0 if dijkstra else opts.weight * unit
    # Ties on f go to the deeper entry (smaller h): on open ground the search then runs down
    # one line to the goal instead of fanning out over equal-f cells. A nudge of h by 1e-10
    # of the smallest multiplier does that with one key per heap entry; it can change a
    # path's cost by at most that relative amount, far below what the tests (and floating
    # point sums of √2) can see.
    mode = {"jps": _MODE_JPS, "jps+": _MODE_JPS_PLUS}.get(algorithm, _MODE_HEAP)
    # JPS and JPS+ keep costs as exact integer pairs too where the heuristic is exact (jps.jps_pairs_core).
    pairs = metric if mode != _MODE_HEAP and exact and not dijkstra else -1
    return _params(mode, metric, 1.0, scale + _TIE_NUDGE * unit, unit, cap, pairs, diag)


def _params(mode: int, metric: int, g_mult: float, h_mult: float, unit: float, max_nodes: int,
            heuristic: int, rule: int) -> KernelParams:  # fmt: skip
    """``KernelParams`` in the types the kernels are compiled for (Python ints and floats: a
    numpy scalar would be another type to numba, and another compiled version)."""
    return KernelParams(int(mode), int(metric), Priority(float(g_mult), float(h_mult)), float(unit), int(max_nodes),
                        int(heuristic), int(rule))  # fmt: skip


_DEFAULTS = ("no-corner-cutting", None, 1.0, "astar", None)


def options_of(options: SearchOptions | None, diagonal: Any, heuristic: Any, weight: Any, algorithm: Any,
             max_nodes: Any) -> SearchOptions:  # fmt: skip
    """The options of a call: ``options`` if given (then the option keywords must be left out),
    else the keywords', checked once per distinct value (:meth:`SearchOptions.of`)."""
    if options is None:
        return SearchOptions.of(diagonal, heuristic, weight, algorithm, max_nodes)
    if not isinstance(options, SearchOptions):
        raise TypeError(f"options must be a SearchOptions, got {type(options).__name__}")
    given = (diagonal, heuristic, weight, algorithm, max_nodes)
    if any(v is not d and v != d for v, d in zip(given, _DEFAULTS, strict=True)):
        raise TypeError("give either options= or the option keywords (diagonal, heuristic, ...), not both")
    return options
