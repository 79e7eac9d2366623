"""Watch a search think: one query on the real map, one expansion at a time (the learn view's model).

Every frame shows the engine's own search stopped after ``step`` expansions
(:meth:`PathGrid.search_state`: the kernel's open list, closed set, costs so far and
came-from links), so the count and the cost at the end are ``PathGrid.search``'s. What is
drawn from the rules rather than read from the kernel says so: the cells a jump point
search's scans pass over (:func:`jump_scans`), the forced neighbours that make a jump
point, and the distance field's frontier (its settled cells and their order are the
kernel's; :class:`FieldRun`). No pygame here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from sim.pathfinding import STEPS, PathGrid, SearchOptions, SearchResult, SearchState
from sim.support.arrays import nonzero_yx
from sim.support.checks import one_line

Point = tuple[int, int]

#: The strategies a learner steps through: (label, algorithm, uses the lesson's weight, the heuristic
#: when not the diagonal rule's default).
STRATEGIES: tuple[tuple[str, str, bool, str | None], ...] = (
    ("A*", "astar", False, None),
    ("Dijkstra", "dijkstra", False, None),
    ("Greedy best-first", "greedy", False, None),
    ("Weighted A*", "astar", True, None),
    ("JPS (jump points)", "jps", False, None),
    ("Distance field", "field", False, None),
    ("A* with landmarks", "astar", False, "landmarks"),  # (H learned from the map: sim.pathfinding.landmarks)
)
#: Replay speeds, expansions per second.
SPEEDS: tuple[int, ...] = (1, 2, 5, 10, 20, 50, 100, 200, 500)
WEIGHTS: tuple[float, ...] = (1.25, 1.5, 2.0, 3.0, 5.0)


@dataclass
class Lesson:
    """One query, one strategy, a replay position. ``step`` is fractional while playing."""

    start: Point | None = None
    goal: Point | None = None
    strategy: int = 0
    weight: float = 2.0
    diagonal: str = "no-corner-cutting"
    step: float = 0.0
    playing: bool = False
    speed: int = 10
    total: int = 0
    note: str = ""  # why the strategy cannot run on this grid ("" when it can)
    _state: SearchState | None = field(default=None, repr=False)
    _key: tuple | None = field(default=None, repr=False)
    _field: tuple[tuple, FieldRun] | None = field(default=None, repr=False)
    _scans: tuple[tuple, JumpScans] | None = field(default=None, repr=False)

    # ------------------------------------------------------------ the query
    @property
    def label(self) -> str:
        name, _algorithm, weighted, _heuristic = STRATEGIES[self.strategy]
        return f"{name} (w = {self.weight:g})" if weighted else name

    @property
    def algorithm(self) -> str:
        return STRATEGIES[self.strategy][1]

    @property
    def options(self) -> SearchOptions:
        """The engine options this strategy searches with (the field: Dijkstra's, for its numbers)."""
        algorithm = self.algorithm
        weight = self.weight if STRATEGIES[self.strategy][2] else 1.0
        if algorithm == "field":
            return SearchOptions(diagonal=self.diagonal, algorithm="dijkstra")
        heuristic = STRATEGIES[self.strategy][3]
        return SearchOptions(diagonal=self.diagonal, heuristic=heuristic, weight=weight, algorithm=algorithm)

    @property
    def ready(self) -> bool:
        return self.start is not None and self.goal is not None

    def rerun(self, grid: PathGrid, revision: int, to_end: bool = False) -> None:
        """Search the query again (the grid, the endpoints or the options changed); the replay
        goes back to its first step (``to_end``: to its last, as while dragging)."""
        self._key = self._state = None
        self.note = ""
        self.total = 0
        if not self.ready:
            return
        if self.algorithm == "jps" and self.diagonal != "no-corner-cutting":
            self.note = "JPS needs the diagonal rule no-corner-cutting (D changes it)"
            return
        self.total = self.state(grid, revision, at=0).total
        self.step = float(self.total) if to_end else 0.0

    def state(self, grid: PathGrid, revision: int, at: int | None = None) -> SearchState:
        """The search at the current step (or at ``at``), kept while nothing changes."""
        assert self.start is not None and self.goal is not None
        step = int(self.step) if at is None else at
        query = (id(grid), revision, self.start, self.goal, self.options, self.algorithm == "field")
        if (*query, step) == self._key and self._state is not None:
            return self._state
        if self.algorithm == "field":
            if self._field is None or self._field[0] != query:
                self._field = (query, FieldRun(grid, self.goal, self.start, self.diagonal))
            state = self._field[1].state(step)
        else:
            state = grid.search_state(self.start, self.goal, step, options=self.options)
        self._state, self._key = state, (*query, step)
        return state

    # ------------------------------------------------------------ the replay
    def advance(self, dt: float) -> None:
        """Play on by ``dt`` seconds of wall time; stops at the end."""
        if self.playing and self.total:
            self.step = min(float(self.total), self.step + self.speed * dt)
            if self.step >= self.total:
                self.playing = False

    def step_by(self, n: int) -> None:
        self.playing = False
        self.step = float(min(max(0, int(self.step) + n), self.total))

    def to_end(self) -> None:
        self.playing = False
        self.step = float(self.total)

    def toggle(self) -> None:
        if not self.playing and int(self.step) >= self.total:
            self.step = 0.0  # at the end: play again from the start
        self.playing = not self.playing and self.total > 0

    def faster(self, up: bool) -> None:
        i = SPEEDS.index(self.speed) if self.speed in SPEEDS else 3
        self.speed = SPEEDS[min(max(i + (1 if up else -1), 0), len(SPEEDS) - 1)]

    def cycle_strategy(self, by: int = 1) -> None:
        self.strategy = (self.strategy + by) % len(STRATEGIES)

    def change_weight(self, up: bool) -> None:
        i = min(range(len(WEIGHTS)), key=lambda k: abs(WEIGHTS[k] - self.weight))
        self.weight = WEIGHTS[min(max(i + (1 if up else -1), 0), len(WEIGHTS) - 1)]

    def scans(self, grid: PathGrid, state: SearchState) -> JumpScans | None:
        """For JPS on a grid of one cost: what each expansion's jumps scanned (else None)."""
        if self.algorithm != "jps" or not grid.uniform or self._key is None:
            return None
        query = self._key[:-1]
        if self._scans is None or self._scans[0] != query:
            self._scans = (query, jump_scans(grid.passable_mask(), state.order, state.start, state.goal))
        return self._scans[1]


# ------------------------------------------------------------------ reading a cell
def describe(state: SearchState, cell: Point, passable: NDArray[np.bool_], terrain: str, jumps: bool,
             field_view: bool = False) -> list[str]:  # fmt: skip
    """What a learner reads about ``cell`` at this step: its numbers, where it came from, and why it
    was or was not opened."""
    x, y = cell
    h, w = passable.shape
    if not (0 <= x < w and 0 <= y < h):
        return []
    head = f"({x}, {y}) {terrain}"
    if not passable[y, x]:
        return [head, "a wall for this species: it cannot be entered, so it is never opened"]
    g, hh = float(state.g[y, x]), float(state.h[y, x])
    lines = [head]
    reached = math.isfinite(g)
    if reached:
        lines.append(_numbers(state, g, hh))
        came = state.came_from(cell)
        if came is not None:
            how = "jumped from" if jumps else "settled toward" if field_view else "came from"
            lines.append(f"{how} {came}")
    if state.closed[y, x]:
        k = int(np.flatnonzero(state.order[: state.step] == y * w + x)[0]) + 1
        lines.append(f"closed: expanded {_ordinal(k)}; its G is final")
        cur = state.current
        if cur is not None and cur != cell and max(abs(cur[0] - x), abs(cur[1] - y)) == 1 and not jumps:
            offer = float(state.g[cur[1], cur[0]]) + _step(cur, cell) * _multiplier(state, cell)
            if not field_view:
                lines.append(f"the current cell offers G {offer:.2f}: skipped, closed already for {g:.2f}")
    elif state.open[y, x]:
        if state.next == cell:
            lines.append("open: the least F on the open list, so it is taken next")
        else:
            rank = int((state.f[state.open] < state.f[y, x]).sum()) + 1
            lines.append(f"open: waiting; {_ordinal(rank)} by F of {int(state.open.sum())} open cells")
    else:
        lines.append(_why_not(state, cell, passable, jumps, field_view))
    return lines


def _numbers(state: SearchState, g: float, h: float) -> str:
    if state.g_weight == 0.0:
        return f"H {h:.2f} = F (greedy: F is H alone);  G {g:.2f}"
    if state.h_weight == 0.0:
        return f"G {g:.2f} = F (H is not used)"
    w = state.h_weight
    f = g + w * h
    mid = f"{w:g}·H" if w != 1.0 else "H"
    return f"G {g:.2f} + {mid} {h:.2f} = F {f:.2f}"


def _why_not(state: SearchState, cell: Point, passable: NDArray[np.bool_], jumps: bool, field_view: bool) -> str:
    x, y = cell
    h, w = passable.shape
    if jumps:
        return "not a jump point: JPS opens only the cells where a path may turn (and the goal)"
    near = [
        (x + dx, y + dy) for dx, dy in STEPS if 0 <= x + dx < w and 0 <= y + dy < h and state.closed[y + dy, x + dx]
    ]
    if not near:
        return "not reached: no neighbour of it has been expanded yet"
    for nx, ny in near:
        if nx != x and ny != y and not (passable[ny, x] and passable[y, nx]):
            return f"not opened from ({nx}, {ny}): the corner rule forbids that diagonal step (a wall beside it)"
    if state.canonical:
        nx, ny = near[0]
        return f"not opened from ({nx}, {ny}): a path as short reaches it without that cell, so A* skips the step"
    return "not reached yet"


def _step(a: Point, b: Point) -> float:
    return math.sqrt(2.0) if a[0] != b[0] and a[1] != b[1] else 1.0


def _multiplier(state: SearchState, cell: Point) -> float:
    """The multiplier of entering ``cell``, read back from the kernel's costs (g of the cell less
    its came-from's, over the step's length)."""
    came = state.came_from(cell)
    if came is None:
        return 1.0
    steps = max(abs(cell[0] - came[0]), abs(cell[1] - came[1]))
    return (float(state.g[cell[1], cell[0]]) - float(state.g[came[1], came[0]])) / (_step(came, cell) * max(steps, 1))


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


# ------------------------------------------------------------------ the distance field
class FieldRun:
    """The distance field from ``source`` (the query's goal) as it settles cells, up to the moment
    it settles ``target`` (the query's start). The settled cells, their order and costs are the
    kernel's (``distance_field`` with a trace); the frontier's tentative costs are what its
    settled neighbours offer (the field's rules, worked out here: :func:`_frontier`)."""

    def __init__(self, grid: PathGrid, source: Point, target: Point, diagonal: str) -> None:
        h, w = grid.height, grid.width
        self.grid, self.source, self.target, self.diagonal = grid, source, target, diagonal
        trace = np.zeros(h * w, np.int32)
        self.dist = grid.distance_field(source, diagonal=diagonal, trace=trace)
        settled = int(np.isfinite(self.dist).sum())
        hit = np.flatnonzero(trace[:settled] == target[1] * w + target[0])
        self.found = bool(hit.size)
        self.order = trace[: int(hit[0]) + 1 if self.found else settled].copy()
        self.order.flags.writeable = False
        self.steps = grid.field_steps(self.dist, diagonal=diagonal)
        path = grid.descend(self.dist, target, diagonal=diagonal) if self.found else np.zeros((0, 2), np.int32)
        cost = float(self.dist[target[1], target[0]])
        self.result = SearchResult(self.found, path, cost, int(self.order.size))

    def state(self, step: int) -> SearchState:
        """The field after ``step`` cells settled."""
        grid, (sx_, sy_) = self.grid, self.source
        h, w = grid.height, grid.width
        total = int(self.order.size)
        step = min(max(step, 0), total)
        closed = np.zeros((h, w), np.bool_)
        closed.reshape(-1)[self.order[:step]] = True
        g = np.where(closed, self.dist, np.inf)
        parent = np.full((h, w), -1, np.int32)
        ys, xs = nonzero_yx(closed & (self.steps >= 0))
        d = self.steps[ys, xs]
        parent[ys, xs] = (ys + _SY[d]) * w + xs + _SX[d]
        open_ = np.zeros((h, w), np.bool_)
        if step == 0:
            open_[sy_, sx_] = True
            g[sy_, sx_] = 0.0
        else:
            _frontier(grid, self.diagonal, closed, self.dist, g, parent, open_)
        opts = SearchOptions(diagonal=self.diagonal, algorithm="dijkstra")
        zeros = np.zeros((h, w))
        for a in (open_, closed, g, parent, zeros):
            a.flags.writeable = False
        return SearchState(opts, self.source, self.target, step, total, self.order, open_, closed, g, parent, zeros,
                           self.result)  # fmt: skip


_SX = np.array([s[0] for s in STEPS])
_SY = np.array([s[1] for s in STEPS])


def _frontier(grid: PathGrid, diagonal: str, closed: NDArray[np.bool_], dist: NDArray[np.float64],
              g: NDArray[np.float64], parent: NDArray[np.int32], open_: NDArray[np.bool_]) -> None:  # fmt: skip
    """The cells next to settled ones, each with the cheapest cost a settled neighbour offers (a
    step into that neighbour: the field's costs are toward its source) and that neighbour."""
    from sim.pathfinding import DIAGONAL_RULES

    h, w = closed.shape
    args = grid.kernel_args(DIAGONAL_RULES[diagonal])
    moves = args.moves.reshape(h + 2, w + 2)[1:-1, 1:-1]
    costs = grid.costs
    best = np.full((h, w), np.inf)
    via = np.full((h, w), -1, np.int64)
    yy, xx = np.mgrid[0:h, 0:w]
    for k, (dx, dy) in enumerate(STEPS):
        legal = (moves >> k) & 1 == 1
        ny, nx = np.clip(yy + dy, 0, h - 1), np.clip(xx + dx, 0, w - 1)
        ok = legal & closed[ny, nx] & ~closed
        offer = np.where(ok, dist[ny, nx] + (math.sqrt(2.0) if dx and dy else 1.0) * costs[ny, nx], np.inf)
        better = offer < best
        best = np.where(better, offer, best)
        via = np.where(better, ny * w + nx, via)
    front = np.isfinite(best)
    open_[front] = True
    g[front] = best[front]
    parent[front] = via[front]


# ------------------------------------------------------------------ JPS's scans
@dataclass
class JumpScans:
    """Per expansion (in order), the runs its jumps scanned as segments ``(x0, y0, x1, y1)`` (cells,
    both ends included), and the forced neighbours of the jump points its straight runs found."""

    segments: list[list[tuple[int, int, int, int]]]
    forced: list[list[Point]]


def jump_scans(free: NDArray[np.bool_], order: NDArray[np.int32], start: Point | None, goal: Point) -> JumpScans:
    """The scans of JPS (no corner cutting, one cost everywhere) from each expanded point, by its
    rules: straight runs stop before a wall or at a cell with a forced neighbour (a free side cell
    whose cell behind is a wall) or the goal; diagonal runs step while all three cells are free and
    stop where a straight run from them finds a point. Directions: all eight from the start; from a
    point reached straight, on, plus the turns its forced neighbours allow; reached diagonally, on
    and its two straight parts. (Drawn from the rules: the kernel scans 64 cells at a time.)"""
    scanner = _Scanner(free, goal)
    w = free.shape[1]
    segs: list[list[tuple[int, int, int, int]]] = []
    forced: list[list[Point]] = []
    for cell in order.tolist():
        u = (cell % w, cell // w)
        out: list[tuple[int, int, int, int]] = []
        marks: list[Point] = []
        if u != goal:
            for d in scanner.directions(u, u == start):
                if d[0] and d[1]:
                    scanner.diagonal(u, d, out, marks)
                else:
                    p = scanner.straight(u, d, out, marks)
                    if p is not None:
                        scanner.came.setdefault(p, d)
        segs.append(out)
        forced.append(marks)
    return JumpScans(segs, forced)


class _Scanner:
    """:func:`jump_scans`' runs on one grid toward one goal; ``came``: the direction each point
    found was reached in (the first run that found it)."""

    def __init__(self, free: NDArray[np.bool_], goal: Point) -> None:
        self.free, self.goal = free, goal
        self.h, self.w = free.shape
        self.came: dict[Point, tuple[int, int]] = {}

    def ok(self, x: int, y: int) -> bool:
        return 0 <= x < self.w and 0 <= y < self.h and bool(self.free[y, x])

    def forced_at(self, x: int, y: int, dx: int, dy: int) -> list[Point]:
        """The forced neighbours of ``(x, y)`` reached moving ``(dx, dy)`` straight."""
        out = []
        for s in (-1, 1):
            sx, sy = (x, y + s) if dy == 0 else (x + s, y)
            if self.ok(sx, sy) and not self.ok(sx - dx, sy - dy):
                out.append((sx, sy))
        return out

    def directions(self, u: Point, is_start: bool) -> list[tuple[int, int]]:
        d = self.came.get(u)
        if d is None or is_start:
            return list(STEPS)
        if d[0] and d[1]:
            return [d, (d[0], 0), (0, d[1])]
        dirs = [d]
        for sx, sy in self.forced_at(u[0], u[1], *d):
            turn = (sx - u[0], sy - u[1])
            dirs += [turn, (d[0] + turn[0], d[1] + turn[1])]
        return dirs

    def straight(self, u: Point, d: tuple[int, int], out: list, marks: list) -> Point | None:
        """A straight run from ``u``: its segment into ``out``, the point it found (or None)."""
        (x, y), (dx, dy) = u, d
        cx, cy = x, y
        while self.ok(cx + dx, cy + dy):
            cx, cy = cx + dx, cy + dy
            f = self.forced_at(cx, cy, dx, dy)
            if (cx, cy) == self.goal or f:
                out.append((x + dx, y + dy, cx, cy))
                marks.extend(f)
                return cx, cy
        if (cx, cy) != (x, y):
            out.append((x + dx, y + dy, cx, cy))
        return None

    def diagonal(self, u: Point, d: tuple[int, int], out: list, marks: list) -> None:
        """A diagonal run from ``u``, with the straight runs from each of its cells."""
        (ux, uy), (dx, dy) = u, d
        cx, cy = u
        while self.ok(cx + dx, cy + dy) and self.ok(cx + dx, cy) and self.ok(cx, cy + dy):
            cx, cy = cx + dx, cy + dy
            if (cx, cy) == self.goal:
                self.came.setdefault((cx, cy), d)
                break
            a = self.straight((cx, cy), (dx, 0), out, marks)
            b = self.straight((cx, cy), (0, dy), out, marks)
            for p, along in ((a, (dx, 0)), (b, (0, dy))):
                if p is not None:
                    self.came.setdefault(p, along)
            if a is not None or b is not None:
                self.came.setdefault((cx, cy), d)
                break
        if (cx, cy) != (ux, uy):
            out.append((ux + dx, uy + dy, cx, cy))


# ------------------------------------------------------------------ copy as code
def snippet(costs_file: str, lesson: Lesson, state: SearchState, species: str, map_name: str) -> str:
    """A runnable script that reproduces what the learn view shows, with ``sim.pathfinding``."""
    assert lesson.start is not None and lesson.goal is not None
    o = lesson.options
    opts = f'diagonal="{o.diagonal}"'
    if lesson.algorithm == "field":
        lines = [
            f"field = grid.distance_field({lesson.goal}, {opts})  # cost from every cell to the goal",
            f"path = grid.descend(field, {lesson.start}, {opts})",
            f"print(round(float(field[{lesson.start[1]}, {lesson.start[0]}]), 3), len(path))"
            f"  # on screen: {state.result.cost:.3f} {len(state.result.path)}",
        ]
    else:
        args = f'algorithm="{o.algorithm}", {opts}' + (f", weight={o.weight:g}" if o.weight != 1.0 else "")
        args += f', heuristic="{o.heuristic}"' if o.heuristic is not None else ""
        found = f"{state.result.found} {state.result.cost:.3f} {state.result.expanded}"
        lines = [
            f"r = grid.search({lesson.start}, {lesson.goal}, {args})",
            f"print(r.found, round(r.cost, 3), r.expanded)  # on screen: {found}",
            f"s = grid.search_state({lesson.start}, {lesson.goal}, {state.step}, {args})  # the step on screen",
            "print(s.current, s.next, int(s.open.sum()), int(s.closed.sum()))"
            f"  # on screen: {state.current} {state.next} {int(state.open.sum())} {int(state.closed.sum())}",
        ]
    head = [
        f"# astar-island learn view: {lesson.label}, {species} on {one_line(map_name)}",
        "import numpy as np",
        "from sim.pathfinding import PathGrid",
        "",
        f"costs = np.load({costs_file!r})  # the {species}' multipliers as on screen, [y, x]; 0 = wall",
        "grid = PathGrid(costs)",
    ]
    return "\n".join(head + lines) + "\n"
