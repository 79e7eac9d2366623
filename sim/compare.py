"""Compare strategies on one query: Dijkstra, greedy best-first, A* and weighted A*.

The figures are the engine's own (``PathGrid.search`` with each ``algorithm``), and the
replay reveals cells in the kernel's own expansion order (its ``trace``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from .pathfinding import DIAGONAL_RULES, HEURISTICS, PathGrid, SearchResult


@dataclass
class StrategyRun:
    label: str
    algorithm: str
    weight: float
    result: SearchResult
    ms: float
    record: np.ndarray  # (H, W): k = k-th expanded, -1 = left open
    order: np.ndarray  # (expanded,) flat cells y*W+x in expansion order


def strategies(weight: float) -> list[tuple[str, str, float]]:
    """(label, algorithm, weight) of the four strategies compared."""
    return [
        ("Dijkstra", "dijkstra", 1.0),
        ("Greedy best-first", "greedy", 1.0),
        ("A*", "astar", 1.0),
        (f"Weighted A* (w={weight:g})", "astar", weight),
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
    shown: int | None = None  # None: all four side by side; else the index shown alone
    step: float = 0.0  # replay position: expansions revealed
    playing: bool = True
    speed: float = 200.0  # expansions per second

    def run(self, grid: PathGrid) -> None:
        """Search the query with every strategy and restart the replay."""
        assert self.start is not None and self.goal is not None
        self.runs = []
        h, w = grid.height, grid.width
        for label, algorithm, weight in strategies(self.weight):
            record = np.zeros((h, w), dtype=np.int32)
            trace = np.zeros(h * w, dtype=np.int32)
            t0 = time.perf_counter()
            result = grid.search(
                self.start,
                self.goal,
                diagonal=self.diagonal,
                heuristic=self.heuristic,
                weight=weight,
                algorithm=algorithm,
                record=record,
                trace=trace,
            )
            ms = (time.perf_counter() - t0) * 1000.0
            self.runs.append(StrategyRun(label, algorithm, weight, result, ms, record, trace[: result.expanded].copy()))
        longest = max((r.result.expanded for r in self.runs), default=1)
        self.speed = max(30.0, longest / 6.0)  # the longest replay takes about 6 s
        self.step = 0.0
        self.playing = True

    @property
    def longest(self) -> int:
        return max((r.result.expanded for r in self.runs), default=0)

    def advance(self, dt: float) -> None:
        if self.playing and self.runs:
            self.step = min(self.longest, self.step + self.speed * dt)
            if self.step >= self.longest:
                self.playing = False

    def step_by(self, n: int) -> None:
        self.playing = False
        self.step = float(min(max(0, int(self.step) + n), self.longest))

    def revealed(self, run: StrategyRun) -> np.ndarray:
        """Flat cells this run has expanded by the current replay step, in order."""
        return run.order[: int(self.step)]

    def cycle_diagonal(self) -> None:
        rules = list(DIAGONAL_RULES)
        self.diagonal = rules[(rules.index(self.diagonal) + 1) % len(rules)]

    def cycle_heuristic(self) -> None:
        self.heuristic = HEURISTICS[(HEURISTICS.index(self.heuristic) + 1) % len(HEURISTICS)]
