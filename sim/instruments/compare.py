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

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from sim.pathfinding import (
    DIAGONAL_RULES,
    EMPTY_PATH,
    HEURISTICS,
    PathGrid,
    SearchOptions,
    SearchResult,
    runs_without_compiling,
)
from sim.support.arrays import nonzero_yx
from sim.support.checks import one_line


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
    first_ms: float = 0.0  # the first timed call alone (shown when far above the median: a cold cache)
    runs: int = 0  # how many timed calls ``ms`` is the median of
    clean: bool = True  # no compiling happened inside the clock (else it was timed again after it)


REPLAY_S = 6.0  # seconds every search's replay takes at speed 1
TIMED_RUNS = 7  # a panel's time: the median of up to this many calls ...
TIMED_BUDGET_S = 0.05  # ... stopping after at least 3 once they took this long

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


@dataclass
class Timing:
    ms: float  # the median call
    first_ms: float
    runs: int
    clean: bool  # nothing compiled inside the clock


def _timed(call: Callable[[], object]) -> Timing:
    """The median of up to :data:`TIMED_RUNS` calls (at least 3), made after everything a first
    call prepares. Should a call still have to compile (a kernel variant not met before), the
    calls are made again once it has compiled, untimed, so no compile is ever counted."""
    times: list[float] = []

    def loop() -> None:
        times.clear()
        stop = time.perf_counter() + TIMED_BUDGET_S
        for i in range(TIMED_RUNS):
            t0 = time.perf_counter()
            call()
            times.append(time.perf_counter() - t0)
            if i >= 2 and time.perf_counter() > stop:
                break

    clean = runs_without_compiling(loop)
    if not clean:
        call()  # compiles, untimed
        loop()
    return Timing(float(np.median(times)) * 1000.0, times[0] * 1000.0, len(times), clean)


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


def _strategy(run: StrategyRun) -> tuple[str, bool]:
    """Which strategy a run is, whatever its weight's value: ``(algorithm, weighted)``."""
    return run.algorithm, run.weight != 1.0


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
    left_out: list[str] = field(default_factory=list)  # the strategies with no panel here, and why
    #: The cells worth showing, ``(c0, r0, c1, r1)`` (exclusive ends): everything a strategy touched and
    #: the endpoints, padded; made with the runs (found again every frame, it cost 20 ms on 2048x2048).
    region: tuple[int, int, int, int] | None = None

    def run(self, grid: PathGrid, straight: bool = False) -> None:
        """Search the query with every strategy that applies here and restart the replay
        (``straight``: also pull each path straight, as the species' own paths are). A strategy
        that cannot run on this grid gets no panel: :attr:`left_out` says why."""
        assert self.start is not None and self.goal is not None
        runs, left_out = [], []
        for label, algorithm, weight in strategies(self.weight):
            why = self.not_here(grid, algorithm)
            if why:
                left_out.append(f"{label.split(' (')[0]} {why}")
                continue
            runs.append(self._one(grid, label, algorithm, weight))
        if straight:
            for run in runs:
                if run.result.found:
                    run.straight = grid.smooth_path(run.result.path, diagonal=self.diagonal)[1]
        # (all at once: the replay's steps go with the runs, one each, whatever happened above)
        alone = _strategy(self.runs[self.shown]) if self.shown is not None and self.shown < len(self.runs) else None
        self.runs, self.left_out, self.steps, self.playing = runs, left_out, [0.0] * len(runs), True
        self.region = touched_region(runs, self.start, self.goal, (grid.height, grid.width))
        # The strategy shown alone stays so if it still runs, else all are (another diagonal rule can
        # take JPS's panels away: an index past the runs broke the drawing).
        shown = [k for k, run in enumerate(runs) if _strategy(run) == alone]
        self.shown = shown[0] if shown else None

    def clear(self, species: int | None = None) -> None:
        """No query any more (and, given, another species): no runs, no replay, one panel or all
        as before a query. (The runs alone emptied left the replay's steps behind: the next
        arrow key that stepped the replay raised an error.)"""
        if species is not None:
            self.species = species
        self.runs, self.steps, self.start, self.goal, self.shown, self.region = [], [], None, None, None, None

    def not_here(self, grid: PathGrid, algorithm: str) -> str:
        """Why ``algorithm`` cannot search this grid with these options ("" when it can)."""
        if algorithm in ("jps", "jps+") and self.diagonal != "no-corner-cutting":
            return "needs the diagonal rule no-corner-cutting (D)"
        if algorithm == "jps+" and not grid.uniform:
            return "needs one cost everywhere"
        if algorithm in ("jps", "jps+") and self.heuristic == "landmarks":
            return "has its own heuristic (landmarks: A* and greedy only; E)"
        return ""

    def _one(self, grid: PathGrid, label: str, algorithm: str, weight: float) -> StrategyRun:
        assert self.start is not None and self.goal is not None
        h, w = grid.height, grid.width
        record = np.zeros((h, w), dtype=np.int32)
        trace = np.zeros(h * w, dtype=np.int32)
        if algorithm == "field":
            return self._field(grid, label, record, trace)
        if algorithm == "jps" and not grid.uniform:  # weighted terrain: JPSW's rules (sim.pathfinding.jpsw)
            label = "JPSW (weighted jump points)"
        opts = SearchOptions(diagonal=self.diagonal, heuristic=self.heuristic, weight=weight, algorithm=algorithm)
        # Everything a first call would make, made before the clock: the grid's moves under this rule,
        # its JPS bits or jump table, the kernel loaded from numba's cache (a tiny grid's call).
        data = "landmarks" if self.heuristic == "landmarks" else "jps+" if algorithm == "jps+" else algorithm == "jps"
        grid.kernel_args(DIAGONAL_RULES[self.diagonal], data)
        _warm(algorithm, weight, self.heuristic, self.diagonal, grid.uniform)
        result = grid.search(self.start, self.goal, options=opts, record=record, trace=trace)  # the replay's, untimed
        start, goal = self.start, self.goal
        timing = _timed(lambda: grid.search(start, goal, options=opts))
        return StrategyRun(label, algorithm, weight, result, timing.ms, record, trace[: result.expanded].copy(),
                           first_ms=timing.first_ms, runs=timing.runs, clean=timing.clean)  # fmt: skip

    def _field(self, grid: PathGrid, label: str, record: np.ndarray, trace: np.ndarray) -> StrategyRun:
        """The field from the goal, replayed up to the moment it settles the start."""
        assert self.start is not None and self.goal is not None
        grid.kernel_args(DIAGONAL_RULES[self.diagonal])
        _warm("field", 1.0, None, self.diagonal, grid.uniform)
        dist = grid.distance_field(self.goal, diagonal=self.diagonal, trace=trace)
        goal, diagonal = self.goal, self.diagonal
        timing = _timed(lambda: grid.distance_field(goal, diagonal=diagonal))
        settled = int(np.isfinite(dist).sum())
        sx, sy = self.start
        where = np.flatnonzero(trace[:settled] == sy * grid.width + sx)
        n = int(where[0]) + 1 if where.size else settled
        order = trace[:n].copy()
        record.reshape(-1)[order] = np.arange(1, n + 1, dtype=np.int32)
        path = grid.descend(dist, self.start, diagonal=self.diagonal)
        result = SearchResult(len(path) > 0, path, float(dist[sy, sx]), n)
        return StrategyRun(label, "field", 1.0, result, timing.ms, record, order, first_ms=timing.first_ms,
                           runs=timing.runs, clean=timing.clean)  # fmt: skip

    def code(self, costs_file: str, species: str, map_name: str) -> str:
        """A runnable script that gives every panel's figures with ``sim.pathfinding``."""
        assert self.start is not None and self.goal is not None
        lines = [
            f"# astar-island compare: {species} on {one_line(map_name)}",
            "import time",
            "import numpy as np",
            "from sim.pathfinding import PathGrid",
            "",
            f"costs = np.load({costs_file!r})  # the {species}' multipliers as on screen, [y, x]; 0 = wall",
            "grid = PathGrid(costs)",
        ]
        for run in self.runs:
            if run.algorithm == "field":
                lines.append(f'field = grid.distance_field({self.goal}, diagonal="{self.diagonal}")'
                             f"  # {run.label}: cost {run.result.cost:.3f}")  # fmt: skip
                continue
            weight = f", weight={run.weight:g}" if run.weight != 1.0 else ""
            call = (f'grid.search({self.start}, {self.goal}, algorithm="{run.algorithm}", '
                    f'diagonal="{self.diagonal}", heuristic="{self.heuristic}"{weight})')  # fmt: skip
            shown = f"{run.result.found} {run.result.cost:.3f} {run.result.expanded}"
            lines.append(f"r = {call}")
            lines.append(f'print("{run.label}", r.found, round(r.cost, 3), r.expanded)  # on screen: {shown}')
        return "\n".join(lines) + "\n"

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


def touched_region(runs: list[StrategyRun], start: tuple[int, int], goal: tuple[int, int],
                   shape: tuple[int, int], pad: int = 3) -> tuple[int, int, int, int]:  # fmt: skip
    """``(c0, r0, c1, r1)``: the cells any of ``runs`` touched (``record != 0``), ``start`` and ``goal``,
    padded by ``pad`` cells within a grid of ``shape`` (``(H, W)``)."""
    h, w = shape
    touched = np.zeros(shape, dtype=bool)
    for run in runs:
        touched |= run.record != 0
    ys, xs = nonzero_yx(touched)
    xs = np.append(xs, [start[0], goal[0]])
    ys = np.append(ys, [start[1], goal[1]])
    return (max(0, int(xs.min()) - pad), max(0, int(ys.min()) - pad),
            min(w, int(xs.max()) + pad + 1), min(h, int(ys.max()) + pad + 1))  # fmt: skip
