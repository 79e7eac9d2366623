"""Compare strategies on one query: Dijkstra, greedy best-first, A*, weighted A*, JPS, JPS+
and a distance field.

The figures are the engine's own (``PathGrid.search`` with each ``algorithm``), and the
replay reveals cells in the kernel's own expansion order (its ``trace``). JPS puts only
jump points on its open list (where it applies: one cost everywhere, no corner cutting),
and JPS+ the same ones, read from its jump table instead of scanned for;
the distance field is grown from the *goal* until it settles the start, the way one field
serves a whole herd. For a species whose paths are pulled straight (birds), every path is
also shown as its straight segments.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from sim.pathfinding import DIAGONAL_RULES, EMPTY_PATH, HEURISTICS, PathGrid, SearchResult


@dataclass
class StrategyRun:
    label: str
    algorithm: str
    weight: float
    result: SearchResult
    ms: float
    record: np.ndarray  # (H, W): k = k-th expanded, -1 = left open
    order: np.ndarray  # (expanded,) flat cells y*W+x in expansion order
    straight: NDArray[np.int32] = field(default_factory=lambda: EMPTY_PATH)  # waypoints of the path pulled straight
    note: str = ""  # why a strategy did not run (JPS on a grid it does not fit)


REPLAY_S = 6.0  # seconds every search's replay takes at speed 1

_WARMED: set[tuple] = set()  # the strategies' kernels already called in this process (see _warm)


def _warm(algorithm: str, weight: float, heuristic: str | None, diagonal: str, uniform: bool) -> None:
    """Call the kernel a strategy uses once, untimed, on a tiny grid of the same kind: its first
    call in a process loads it from numba's cache (15-150 ms), which is not the search's time."""
    key = (algorithm, weight, heuristic, diagonal, uniform)
    if key in _WARMED:
        return
    tiny = PathGrid(np.ones((3, 3)) if uniform else np.array([[1.0, 2.0, 1.0], [1.0, 1.0, 1.0], [1.0, 1.0, 2.0]]))
    record, trace = np.zeros((3, 3), dtype=np.int32), np.zeros(9, dtype=np.int32)
    if algorithm == "field":
        tiny.distance_field((2, 2), diagonal=diagonal, trace=trace)
    else:
        tiny.search((0, 0), (2, 2), diagonal=diagonal, heuristic=heuristic, weight=weight, algorithm=algorithm,
                    record=record, trace=trace)  # fmt: skip
    _WARMED.add(key)


def strategies(weight: float) -> list[tuple[str, str, float]]:
    """(label, algorithm, weight) of the strategies compared ("field": a distance field from the goal)."""
    return [
        ("Dijkstra", "dijkstra", 1.0),
        ("Greedy best-first", "greedy", 1.0),
        ("A*", "astar", 1.0),
        (f"Weighted A* (w={weight:g})", "astar", weight),
        ("JPS (jump points)", "jps", 1.0),
        ("JPS+ (jump table)", "jps+", 1.0),
        ("Distance field (from the goal)", "field", 1.0),
    ]


@dataclass
class Comparison:
    """One comparison session: species, options, the chosen query, results and replay state."""

    species: int
    diagonal: str = "no-corner-cutting"
    heuristic: str = "octile"
    weight: float = 2.0
    start: tuple[int, int] | None = None
    goal: tuple[int, int] | None = None
    runs: list[StrategyRun] = field(default_factory=list)
    shown: int | None = None  # None: all side by side; else the index shown alone
    steps: list[float] = field(default_factory=list)  # per run: its expansions revealed so far
    playing: bool = True
    speed: float = 1.0  # replay speed: 1 = every search's replay takes REPLAY_S seconds

    def run(self, grid: PathGrid, straight: bool = False) -> None:
        """Search the query with every strategy and restart the replay (``straight``: also pull
        each path straight, as the species' own paths are)."""
        assert self.start is not None and self.goal is not None
        self.runs = [self._one(grid, label, algorithm, weight) for label, algorithm, weight in strategies(self.weight)]
        if straight:
            for run in self.runs:
                if run.result.found:
                    run.straight = grid.smooth_path(run.result.path, diagonal=self.diagonal)[1]
        self.steps = [0.0] * len(self.runs)
        self.playing = True

    def _one(self, grid: PathGrid, label: str, algorithm: str, weight: float) -> StrategyRun:
        assert self.start is not None and self.goal is not None
        h, w = grid.height, grid.width
        record = np.zeros((h, w), dtype=np.int32)
        trace = np.zeros(h * w, dtype=np.int32)
        if algorithm == "field":
            return self._field(grid, label, record, trace)
        if algorithm == "jps" and not grid.uniform:  # weighted terrain: JPSW's rules (sim.pathfinding.jpsw)
            label = "JPSW (weighted jump points)"
        if algorithm in ("jps", "jps+") and (self.diagonal != "no-corner-cutting" or
                                             (algorithm == "jps+" and not grid.uniform)):  # fmt: skip
            why = "needs diagonal rule no-corner-cutting" if self.diagonal != "no-corner-cutting" else \
                "needs one cost everywhere"  # fmt: skip
            return StrategyRun(label, algorithm, weight, SearchResult(False, [], math.inf, 0), 0.0, record,
                               trace[:0], note=f"not applicable here: {why}")  # fmt: skip
        if algorithm == "jps":  # the grid's JPS data (a weighted grid's successor table) made before the clock
            grid.blocks()
        elif algorithm == "jps+":
            grid.jump_table()
        _warm(algorithm, weight, self.heuristic, self.diagonal, grid.uniform)
        t0 = time.perf_counter()
        result = grid.search(self.start, self.goal, diagonal=self.diagonal, heuristic=self.heuristic,
                             weight=weight, algorithm=algorithm, record=record, trace=trace)  # fmt: skip
        ms = (time.perf_counter() - t0) * 1000.0
        return StrategyRun(label, algorithm, weight, result, ms, record, trace[: result.expanded].copy())

    def _field(self, grid: PathGrid, label: str, record: np.ndarray, trace: np.ndarray) -> StrategyRun:
        """The field from the goal, replayed up to the moment it settles the start."""
        assert self.start is not None and self.goal is not None
        _warm("field", 1.0, None, self.diagonal, grid.uniform)
        t0 = time.perf_counter()
        dist = grid.distance_field(self.goal, diagonal=self.diagonal, trace=trace)
        ms = (time.perf_counter() - t0) * 1000.0
        settled = int(np.isfinite(dist).sum())
        sx, sy = self.start
        where = np.flatnonzero(trace[:settled] == sy * grid.width + sx)
        n = int(where[0]) + 1 if where.size else settled
        order = trace[:n].copy()
        record.reshape(-1)[order] = np.arange(1, n + 1, dtype=np.int32)
        path = grid.descend(dist, self.start, diagonal=self.diagonal)
        result = SearchResult(len(path) > 0, path, float(dist[sy, sx]), n)
        return StrategyRun(label, "field", 1.0, result, ms, record, order)

    @property
    def longest(self) -> int:
        return max((r.result.expanded for r in self.runs), default=0)

    @property
    def step(self) -> float:
        """The replay's position in expansions of the longest search (setting it moves every
        search to the same share of its own replay)."""
        if not self.runs or not self.longest:
            return 0.0
        return max(s / max(r.result.expanded, 1) for s, r in zip(self.steps, self.runs, strict=True)) * self.longest

    @step.setter
    def step(self, value: float) -> None:
        share = min(max(value / max(self.longest, 1), 0.0), 1.0)
        self.steps = [share * r.result.expanded for r in self.runs]

    def advance(self, dt: float) -> None:
        """Each search's replay at its own pace, all ending together after ``REPLAY_S / speed``
        seconds: a 43-expansion JPS search is watched step by step beside a 7,000-expansion Dijkstra."""
        if self.playing and self.runs:
            share = self.speed * dt / REPLAY_S
            self.steps = [min(float(r.result.expanded), s + share * r.result.expanded)
                          for s, r in zip(self.steps, self.runs, strict=True)]  # fmt: skip
            if all(s >= r.result.expanded for s, r in zip(self.steps, self.runs, strict=True)):
                self.playing = False

    def step_by(self, n: int) -> None:
        """Every search ``n`` of its own expansions on (or back), each within its replay."""
        self.playing = False
        self.steps = [float(min(max(0, int(s) + n), r.result.expanded))
                      for s, r in zip(self.steps, self.runs, strict=True)]  # fmt: skip

    def shown_steps(self, run: StrategyRun) -> int:
        """How many of ``run``'s expansions the replay shows now."""
        return int(self.steps[self.runs.index(run)]) if run in self.runs and self.steps else 0

    @property
    def done(self) -> bool:
        return bool(self.runs) and all(s >= r.result.expanded for s, r in zip(self.steps, self.runs, strict=True))

    def revealed(self, run: StrategyRun) -> np.ndarray:
        """Flat cells this run has expanded by the current replay step, in order."""
        return run.order[: self.shown_steps(run)]

    def cycle_diagonal(self) -> None:
        rules = list(DIAGONAL_RULES)
        self.diagonal = rules[(rules.index(self.diagonal) + 1) % len(rules)]

    def cycle_heuristic(self) -> None:
        self.heuristic = HEURISTICS[(HEURISTICS.index(self.heuristic) + 1) % len(HEURISTICS)]
