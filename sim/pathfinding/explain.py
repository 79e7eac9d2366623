"""A search stopped after ``k`` expansions, as the kernel holds it: for watching a search think.

:meth:`PathGrid.search_state` runs the kernel itself (the same kernel, options and tie-breaks
as :meth:`PathGrid.search`) with its expansion budget set so it stops after the ``k``-th
expansion, then reads the open list, the closed set, the costs so far and the came-from links
out of the kernel's own buffers. Nothing here searches: the order, the numbers and the links
are the kernel's, so the expanded count and the cost at the end equal ``search``'s.

Steps: at step ``k`` the first ``k`` cells of :attr:`SearchState.order` have been taken off
the open list and expanded (their neighbours opened or improved); :attr:`SearchState.next`
is the cell the search takes off next (``order[k]``), still on the open list. A jump point
search (``"jps"``, ``"jps+"``) expands jump points, and its links join jump points: the
cells between them are the straight or diagonal runs its jumps scanned.

>>> import numpy as np
>>> from sim.pathfinding import PathGrid
>>> grid = PathGrid(np.ones((3, 5)))
>>> s = grid.search_state((0, 1), (4, 1), 2)
>>> s.step, s.total, s.current, s.next
(2, 5, (1, 1), (2, 1))
>>> float(s.g[1, 2]), s.came_from((2, 1))
(2.0, (1, 1))
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from sim.pathfinding import kernel as _k
from sim.pathfinding.checks import _check_point
from sim.pathfinding.common import SQRT2
from sim.pathfinding.compiled import KernelParams
from sim.pathfinding.jps import LINK_MASK
from sim.pathfinding.landmarks import bound
from sim.pathfinding.options import SearchOptions, options_of
from sim.pathfinding.paths import SearchResult
from sim.pathfinding.plans import check_jps, limited_plan, padded_ends
from sim.pathfinding.rules import DX, DY, NO_PARENT
from sim.pathfinding.warm import waiting
from sim.pathfinding.workspace import workspace

Point = tuple[int, int]


@dataclass(frozen=True)
class SearchState:
    """One moment of a search (arrays indexed ``[y, x]``; cells as ``y * W + x``; read-only).

    ``g``: the cost so far of every reached cell (``inf`` elsewhere); ``parent``: the cell it
    was reached from (``-1``: the start, or not reached); ``h``: the heuristic the search
    adds, in the same units as ``g`` (0 for Dijkstra); ``f = g_weight * g + h_weight * h``,
    the open list's order (A*: 1, 1; weighted A*: 1, w; Dijkstra: 1, 0; greedy: 0, 1).
    ``status`` at the last step is the search's (``"found"``, ``"unreachable"``,
    ``"hit-limit"``), ``"searching"`` before it.
    """

    options: SearchOptions
    start: Point
    goal: Point
    step: int  # expansions done
    total: int  # expansions of the whole search (== PathGrid.search(...).expanded)
    order: NDArray[np.int32]  # (total,) every expanded cell, in the kernel's order
    open: NDArray[np.bool_]  # (H, W) on the open list now (``next`` among them)
    closed: NDArray[np.bool_]  # (H, W) expanded: order[:step]
    g: NDArray[np.float64]  # (H, W)
    parent: NDArray[np.int32]  # (H, W)
    h: NDArray[np.float64]  # (H, W)
    result: SearchResult  # the whole search's (as PathGrid.search gives it)
    # Whether expansions pushed only a cell's canonical successors (kernel.canonical: A* and Dijkstra
    # under "no-corner-cutting"; on a weighted grid where a cell's 3x3 window costs the same): then a
    # cell beside an expanded one may stay unopened, another path as short reaching it without that cell.
    canonical: bool = False

    @property
    def width(self) -> int:
        return int(self.g.shape[1])

    @property
    def g_weight(self) -> float:
        return weights_of(self.options)[0]

    @property
    def h_weight(self) -> float:
        return weights_of(self.options)[1]

    @property
    def status(self) -> str:
        """``"searching"`` before the last step, then the search's: ``"found"``, ``"hit-limit"``,
        ``"unreachable"``."""
        if self.step < self.total:
            return "searching"
        return "found" if self.result.found else "hit-limit" if self.result.hit_limit else "unreachable"

    @property
    def f(self) -> NDArray[np.float64]:
        """The open list's key per cell (``inf`` where not reached)."""
        with np.errstate(invalid="ignore"):
            f = self.g_weight * self.g + self.h_weight * self.h
        f[~np.isfinite(self.g)] = np.inf
        return f

    def _xy(self, cell: int) -> Point:
        return (int(cell % self.width), int(cell // self.width))

    @property
    def current(self) -> Point | None:
        """The cell expanded last (None before the first expansion)."""
        return self._xy(int(self.order[self.step - 1])) if self.step > 0 else None

    @property
    def next(self) -> Point | None:
        """The cell the search takes off the open list next (None once it has ended: a search that
        expands nothing, from a blocked start or with the start the goal, has ended at step 0)."""
        if self.step >= self.total:
            return None
        return self.start if self.step == 0 else self._xy(int(self.order[self.step]))

    @property
    def done(self) -> bool:
        return self.step >= self.total

    def came_from(self, cell: Point) -> Point | None:
        """The cell ``cell`` was reached from now (None: the start, or not reached)."""
        cell = _check_point("cell", cell, self.width, self.parent.shape[0])
        p = int(self.parent[cell[1], cell[0]])
        return None if p < 0 else self._xy(p)

    def path_to(self, cell: Point) -> NDArray[np.int32]:
        """The came-from links followed back from ``cell`` to the start, as an ``(n, 2)`` path
        from the start (of jump points for a jump point search); empty when not reached."""
        cell = _check_point("cell", cell, self.width, self.parent.shape[0])
        if not math.isfinite(self.g[cell[1], cell[0]]):
            return np.zeros((0, 2), np.int32)
        out = [cell]
        p = int(self.parent[cell[1], cell[0]])
        while p >= 0 and len(out) <= self.parent.size:
            out.append(self._xy(p))
            p = int(self.parent[p // self.width, p % self.width])
        return np.array(out[::-1], dtype=np.int32)


def weights_of(opts: SearchOptions) -> tuple[float, float]:
    """``(g_weight, h_weight)`` of the open list's order for ``opts`` as a learner reads it
    (the kernels' order less its 1e-10 tie-break nudge: ``options.kernel_params``)."""
    if opts.algorithm == "greedy":
        return 0.0, 1.0
    if opts.algorithm == "dijkstra" or opts.heuristic_name == "zero":
        return 1.0, 0.0
    return 1.0, float(opts.weight)


def heuristic_of(grid: Any, opts: SearchOptions, goal: Point) -> NDArray[np.float64]:
    """The heuristic per cell toward ``goal`` as the kernels add it: the metric's steps times
    the grid's smallest multiplier (0 for Dijkstra); with landmarks, their bound where larger."""
    h, w = grid.height, grid.width
    if weights_of(opts)[1] == 0.0:
        return np.zeros((h, w))
    dx = np.abs(np.arange(w, dtype=np.float64) - goal[0])[None, :].repeat(h, 0)
    dy = np.abs(np.arange(h, dtype=np.float64) - goal[1])[:, None].repeat(w, 1)
    name = opts.heuristic_name
    if name == "landmarks":
        plain = heuristic_of(grid, opts.replace(heuristic=None), goal)
        padded = (goal[1] + 1) * (w + 2) + goal[0] + 1
        learned = bound(grid.landmarks(diagonal=opts.diagonal), padded, grid.uniform, (h, w))
        return np.maximum(plain, learned * grid.min_cost)
    if name == "octile":
        steps = np.minimum(dx, dy) * (SQRT2 - 1.0) + np.maximum(dx, dy)
    elif name == "manhattan":
        steps = dx + dy
    elif name == "euclidean":
        steps = np.sqrt(dx * dx + dy * dy)
    else:  # chebyshev
        steps = np.maximum(dx, dy)
    return steps * grid.min_cost


def search_state(grid: Any, start: Point, goal: Point, step: int, opts: SearchOptions) -> SearchState:
    """:meth:`PathGrid.search_state` once its arguments are checked: the whole search first (its
    order of expansions, its result), then the kernel again, stopped after ``step``."""
    h, w = grid.height, grid.width
    trace = np.zeros(h * w, np.int32)
    result = grid.search(start, goal, options=opts, trace=trace)
    order = trace[: result.expanded].copy()
    order.flags.writeable = False
    total = int(order.size)
    step = min(max(int(step), 0), total)
    params = grid._params(opts)
    record = np.zeros((h, w), np.int32)
    g = np.full((h, w), np.inf)
    parent = np.full((h, w), -1, np.int32)
    if grid.passable(*start) and grid.passable(*goal) and start != goal:
        # The kernel stopped right after it took the (step + 1)-th cell off the open list, before
        # expanding it: the state after ``step`` expansions, the next cell known and still open.
        budget = min(step + 1, total) if step < total else max(total, 1)
        # (a search that ended before its budget, found or not, is the whole search: its budget is its own)
        plan = limited_plan(grid, opts, budget if step < total else params.max_nodes)
        grid._compiled(padded_ends(start, goal, w, h), plan, record, np.zeros(0, np.int32))
        _read_kernel_state(grid, params, record, g, parent)
    elif start == goal and grid.passable(*start):
        g[start[1], start[0]] = 0.0
    closed = np.zeros((h, w), np.bool_)
    closed.reshape(-1)[order[:step]] = True
    open_ = (record != 0) & ~closed
    if step == 0 and grid.passable(*start):
        open_[start[1], start[0]] = True
    hh = heuristic_of(grid, opts, goal)
    for a in (open_, closed, g, parent, hh):
        a.flags.writeable = False
    canonical = bool(_k.canonical.py_func(params.mode, params.rule, params.prio, params.unit))
    return SearchState(opts, start, goal, step, total, order, open_, closed, g, parent, hh, result, canonical)


def _read_kernel_state(grid: Any, params: KernelParams, record: NDArray[np.int32], g: NDArray[np.float64],
                       parent: NDArray[np.int32]) -> None:  # fmt: skip
    """The costs so far and came-from links of every cell the last search on this thread reached
    (``record != 0``), read from this thread's workspace (:mod:`.workspace`) into ``g``, ``parent``."""
    w = grid.width
    wp = w + 2
    ys, xs = np.divmod(np.flatnonzero(record), w)  # (2-D np.nonzero is ~14x slower on a sparse record)
    padded = (ys + 1) * wp + xs + 1
    ws = workspace()
    if _k.jumps(params.mode):  # jump points: g and links in jump_parent (jps.record_views)
        slots = ws.jump_parent
        raw, links = slots[0::2][padded], slots[1::2][padded]
        costs = _pairs(raw, params.unit) if _k.paired(params.mode, params.heuristic) else raw.view(np.float64)
        back = np.where(links < 0, -1, (links & LINK_MASK) >> 4)  # jps.link_parent: the start's is negative
    else:
        costs = _pairs(ws.g.view(np.int64)[padded], params.unit) if params.mode == _k.MODE_BUCKETS else ws.g[padded]
        k = ws.parent[padded].astype(np.int64)
        step = np.where(k == NO_PARENT, 0, DX[np.minimum(k, 7)] + DY[np.minimum(k, 7)] * wp)
        back = np.where(k == NO_PARENT, -1, padded - step)
    g[ys, xs] = costs
    px, py = back % wp - 1, back // wp - 1
    parent[ys, xs] = np.where(back < 0, -1, py * w + px)


def _pairs(raw: NDArray[np.int64], unit: float) -> NDArray[np.float64]:
    """Costs kept as exact integer pairs ``p << 32 | q`` (``p`` straight, ``q`` diagonal steps)."""
    return unit * ((raw >> 32) + (raw & 0xFFFFFFFF) * SQRT2)


class Explaining:
    """:class:`~sim.pathfinding.PathGrid`'s :meth:`search_state` (a mixin: the grid's own members)."""

    width: int
    height: int

    def search_state(
        self,
        start: Point,
        goal: Point,
        step: int,
        *,
        diagonal: str = "no-corner-cutting",
        heuristic: str | None = None,
        weight: float = 1.0,
        algorithm: str = "astar",
        max_nodes: int | None = None,
        options: SearchOptions | None = None,
    ) -> SearchState:
        """The search from ``start`` to ``goal`` as the kernel holds it after ``step`` expansions
        (clipped to the search's): its open list, closed set, costs so far and came-from links,
        read from the kernel's own run with these options (:mod:`.explain`). For watching a
        search think; ``state.total`` and ``state.result`` are :meth:`search`'s."""
        opts = options_of(options, diagonal, heuristic, weight, algorithm, max_nodes)
        start = _check_point("start", start, self.width, self.height)
        goal = _check_point("goal", goal, self.width, self.height)
        if isinstance(step, bool) or not isinstance(step, (int, np.integer)):
            raise TypeError(f"step must be an int, got {type(step).__name__}")
        if step < 0:
            raise ValueError(f"step must be >= 0, got {step}")
        check_jps(self, opts)  # type: ignore[arg-type]  # (self: a PathGrid)
        with waiting():  # (the kernel itself, never the plain-Python stand-in)
            return search_state(self, start, goal, int(step), opts)
