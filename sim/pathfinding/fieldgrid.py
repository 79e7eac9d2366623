"""Distance fields and straight paths on a :class:`~sim.pathfinding.PathGrid` (a mixin of it).

``distance_field`` gives every cell's cheapest cost to one goal (see :mod:`.field` for the
kernel); ``field_steps`` and ``descend`` walk down it; ``smooth_path`` and ``smooth_many``
pull paths straight where that costs nothing more.
"""

from __future__ import annotations

import math
import time
from numbers import Integral

import numpy as np
from numpy.typing import ArrayLike, NDArray

from sim.pathfinding import field as _f
from sim.pathfinding import kernel as _k
from sim.pathfinding import landmarks as _lm
from sim.pathfinding.checks import (
    Point,
    _check_max_cost,
    _check_out_array,
    _check_point,
    _check_points,
    _short,
    check_count,
)
from sim.pathfinding.compiled import GridArgs
from sim.pathfinding.grid import CodedGrid
from sim.pathfinding.options import check_diagonal
from sim.pathfinding.paths import EMPTY_PATH, as_path
from sim.pathfinding.rules import DIAG_NO_CORNER_CUTTING, DIAGONAL_RULES, DX, DY
from sim.pathfinding.workspace import workspace

_RULE_NAMES = {rule: name for name, rule in DIAGONAL_RULES.items()}  # the kernels' numbers -> names
#: :meth:`FieldGrowth.paths` walks a crowd once into a buffer sized for every walk's worst case (each
#: as long as ``max_len`` or the map) while that is at most this many cells (64 MB); past it, it walks
#: twice: once to count, once into a buffer of exactly that size.
WALK_BUFFER_CELLS = 1 << 24

#: ``(dx, dy)`` of each direction index :meth:`FieldsAndLines.field_steps` returns.
STEPS: tuple[tuple[int, int], ...] = tuple((int(dx), int(dy)) for dx, dy in zip(DX, DY, strict=True))


class FieldsAndLines(CodedGrid):
    """The grid's distance fields and straight lines (on the :class:`CodedGrid` state)."""

    width: int
    height: int
    cells: int
    _codes: np.ndarray
    _lut: np.ndarray
    # and CodedGrid's moves(rule) and passable(x, y): PathGrid puts this class before it

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
        diag = check_diagonal(diagonal)
        gx, gy = _check_point("goal", goal, self.width, self.height)
        limit = _check_max_cost(max_cost)
        order = np.zeros(0, dtype=np.int32) if trace is None else _check_out_array("trace", trace, 1)
        return self._field(gx, gy, diag, limit, order, False)

    def _field(self, gx: int, gy: int, diag: int, limit: float, order: np.ndarray, forward: bool) -> np.ndarray:
        """:meth:`distance_field` once its arguments are checked; ``forward``: the costs *from*
        ``(gx, gy)`` instead (the landmarks' other side on a grid of several multipliers)."""
        out = np.full(self.height * self.width, np.inf)
        if not self.passable(gx, gy):
            return out.reshape(self.height, self.width)
        ws = workspace()
        ws.ensure(self.cells)
        wp = self.width + 2
        gen = ws.next_gen()
        size = _f.field_start((gy + 1) * wp + gx + 1, ws.g, ws.parent, ws.mark, gen, *ws.heap)
        done = 0
        prune = self._pruned_field(diag)
        while True:
            status, size, settled = _f.field_core(
                self._codes, self._lut, self.moves(diag), wp, limit, ws.g, ws.parent, ws.mark, gen, *ws.heap, size,
                out, order, done, self.cells, forward, prune,
            )  # fmt: skip
            done += settled
            if status == _f.FIELD_DONE:
                return out.reshape(self.height, self.width)
            ws.heap = _f.grow_heap(*ws.heap, size)
            ws.stats[_k.STAT_HEAP_GROWS] += 1

    def _pruned_field(self, diag: int) -> bool:
        """Whether a field of rule ``diag`` offers costs to canonical successors only (:mod:`.field`):
        on a grid of one multiplier under "no-corner-cutting". (Where multipliers differ, finding
        the cells whose 3x3 costs the same, as A* does, cost a field as much as it saved.)"""
        return diag == DIAG_NO_CORNER_CUTTING and bool(self.uniform)

    def grow_field(self, goal: Point, *, diagonal: str = "no-corner-cutting") -> FieldGrowth:
        """A :meth:`distance_field` to ``goal`` grown a bounded number of cells at a time
        (:meth:`FieldGrowth.grow`), to spread one large field over several frames. The grid
        must not change while it grows: after a change, start a new one."""
        return FieldGrowth(self, goal, diagonal=diagonal)

    def field_steps(self, field: np.ndarray, *, diagonal: str = "no-corner-cutting") -> np.ndarray:
        """Each cell's next step down ``field`` (from :meth:`distance_field` with the same
        ``diagonal``): int8 ``(H, W)``, a direction index into :data:`STEPS` (``(dx, dy)``),
        -1 at the goal and where the field is ``inf``. Of equally good steps the one listed
        first in :data:`STEPS` wins, so the result never depends on anything else."""
        diag = check_diagonal(diagonal)
        f = self._check_field(field)
        out = np.empty((self.height, self.width), dtype=np.int8)
        return _f.steps_core(f, self._codes, self._lut, self.moves(diag), self.width + 2, out)

    def descend(self, field: np.ndarray, start: Point, *, diagonal: str = "no-corner-cutting") -> NDArray[np.int32]:
        """The path from ``start`` down ``field`` to its goal (start and goal included), optimal
        like :meth:`search`'s, as an ``(n, 2)`` int32 array of ``(x, y)``; empty when the field
        does not reach ``start``."""
        steps = self.field_steps(field, diagonal=diagonal)
        x, y = _check_point("start", start, self.width, self.height)
        if not math.isfinite(field[y, x]):
            return EMPTY_PATH
        paths = np.empty(self.cells, dtype=np.int32)
        offsets = np.zeros(2, dtype=np.int64)
        n = _f.follow_core(steps, np.array([[x, y]], dtype=np.int64), self.cells, paths, offsets)
        return as_path(paths[:n], self.width)

    # ------------------------------------------------------------------ straight lines
    def smooth_path(
        self, path: ArrayLike, *, diagonal: str = "no-corner-cutting"
    ) -> tuple[NDArray[np.int32], NDArray[np.int32]]:
        """``path`` (an ``(n, 2)`` array of ``(x, y)``, or a list of points) with its corners pulled
        straight: ``(cells, waypoints)``, both ``(n, 2)`` int32 arrays.

        Greedy string pulling: from each waypoint, the farthest later cell of the path whose
        straight line of cells is legal under ``diagonal`` and costs no more than the part of
        the path it replaces (same cost model) becomes the next waypoint. ``cells`` is still a
        path of adjacent cells, never costlier than ``path``; ``waypoints`` are the ends of its
        straight segments (start and goal included), for drawing it as an any-angle path.
        """
        diag = check_diagonal(diagonal)
        cells = _path_points(path, self.width, self.height)
        flat = (cells[:, 1] * self.width + cells[:, 0]).astype(np.int32) if len(cells) else np.zeros(0, np.int32)
        offsets = np.array([0, flat.size], dtype=np.int64)
        problem, _i, j = self._check_chain(flat, offsets, diag)
        if problem != _f.PATH_OK:
            point = lambda i: (int(cells[i, 0]), int(cells[i, 1]))  # noqa: E731
            before = f"path[{j - 1}] {point(j - 1)}" if j else ""
            raise ValueError(_chain_message(problem, f"path[{j}] {point(j)}", before, diagonal))
        out, out_offsets, ways = self._smooth(flat, offsets, diag)
        pts = as_path(out[: out_offsets[1]], self.width)
        return pts, pts[ways[: out_offsets[1]].astype(bool)]

    def smooth_many(
        self, paths: np.ndarray, offsets: np.ndarray, *, diagonal: str = "no-corner-cutting"
    ) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`smooth_path` for many paths at once, in the batch format (``paths`` int32 flat
        cells ``y * W + x``, path i at ``paths[offsets[i]:offsets[i + 1]]``); returns the same format."""
        diag = check_diagonal(diagonal)
        _check_batch(paths, offsets)
        problem, i, j = self._check_chain(paths, offsets, diag)  # on the arrays as given: nothing wraps
        if problem == _f.PATH_OFFSETS:
            raise _offsets_error(paths, offsets)
        if problem != _f.PATH_OK:
            at, w = int(offsets[i]) + j, self.width
            cell = int(paths[at])
            here = f"path {i}: cell {j} " + (str(cell) if problem == _f.PATH_OUTSIDE else str((cell % w, cell // w)))
            prev = int(paths[at - 1]) if j else 0
            raise ValueError(_chain_message(problem, here, f"cell {j - 1} {(prev % w, prev // w)}", diagonal))
        out, out_offsets, _ways = self._smooth(paths.astype(np.int32), offsets.astype(np.int64), diag)
        return out, out_offsets

    # ------------------------------------------------------------------ landmarks
    def landmarks(self, *, diagonal: str = "no-corner-cutting") -> NDArray[np.float64]:
        """The landmarks' table of ``heuristic="landmarks"`` under a diagonal rule (:mod:`.landmarks`):
        ``(padded cells, k)`` float64, read-only, each cell's cost to each landmark in units of the
        smallest multiplier (row ``(y + 1) * (W + 2) + x + 1``; NaN: unreachable); on a grid of several
        multipliers ``2 k`` columns, the negated costs from each landmark after. Made on first use
        (:attr:`landmarks_ms` says how long that took), kept while the grid's costs only go up.
        8 landmarks (``landmark_points[diagonal]``), fewer on maps over 8 M cells (at most 512 MB)."""
        rule = check_diagonal(diagonal)
        table = self._landmarks.get(rule)
        if table is None:
            t0 = time.perf_counter()
            name = _RULE_NAMES[rule]
            none = np.zeros(0, dtype=np.int32)
            both = not self.uniform  # costs differ by direction: the costs from each landmark too

            def field(p: tuple[int, int], forward: bool = False) -> NDArray[np.float64]:
                return self._field(p[0], p[1], rule, np.inf, none, forward)

            table, self.landmark_points[name] = _lm.make_table(
                field, self.passable_mask(), self.min_cost, _lm.count_for(self.cells, 2 if both else 1),
                (lambda p: field(p, True)) if both else None,
            )  # fmt: skip
            table.flags.writeable = False
            self._landmarks[rule] = table
            self.landmarks_ms = (time.perf_counter() - t0) * 1000.0
        return table

    def kernel_args(self, rule: int, jps: bool | str = False) -> GridArgs:
        # jps="landmarks": the landmarks' table in the 5th field (kernel.landmark_search).
        if jps != "landmarks":
            return super().kernel_args(rule, jps)
        args = self._kept.get((rule, jps))
        if args is None:
            name = _RULE_NAMES[rule]
            args = self._kept[rule, jps] = super().kernel_args(rule)._replace(blocks=self.landmarks(diagonal=name))
        return args

    def _setup(self, codes: np.ndarray, lut: np.ndarray) -> None:
        self._landmarks: dict[int, NDArray[np.float64]] = {}  # diagonal rule -> table (landmarks())
        #: The landmarks of each diagonal rule's table (by its name), ``(x, y)``; ms the last one took to make.
        self.landmark_points: dict[str, list[tuple[int, int]]] = {}
        self.landmarks_ms = 0.0
        super()._setup(codes, lut)

    def _write(self, x0: int, y0: int, codes: np.ndarray) -> None:
        """CodedGrid's, and the landmarks' tables dropped unless every cost only went up."""
        h, w = codes.shape
        kept = bool(self._landmarks)
        before = self.cost_block(x0, y0, x0 + w, y0 + h) if kept else None
        unit = self.min_cost
        super()._write(x0, y0, codes)
        if before is not None and (
            self.min_cost != unit or _lm.lowered(before, self.cost_block(x0, y0, x0 + w, y0 + h))
        ):
            self._landmarks.clear()
            self.landmark_points.clear()

    def first_illegal(
        self, paths: np.ndarray, offsets: np.ndarray, *, diagonal: str = "no-corner-cutting"
    ) -> np.ndarray:
        """Which paths the grid no longer allows, e.g. after it changed: for each path of the batch
        (``paths`` int flat cells ``y * W + x``, path i at ``paths[offsets[i]:offsets[i + 1]]``, as
        :meth:`search_many` gives them), the index in it of its first cell that is outside the
        grid, not next to the cell before, entered by a step ``diagonal`` forbids (an impassable
        cell, a cut corner), or (the first cell) impassable; -1 where the whole path is legal.
        int64 ``(k,)``, one compiled pass."""
        diag = check_diagonal(diagonal)
        _check_batch(paths, offsets)
        flat, offs = paths.astype(np.int64, copy=False), offsets.astype(np.int64, copy=False)  # no wrapping
        if offs.size == 0 or offs[0] != 0 or offs[-1] > flat.size or (np.diff(offs) < 0).any():
            raise _offsets_error(paths, offsets)
        out = np.empty(offs.size - 1, dtype=np.int64)
        return _f.first_breaks(self._codes, self._lut, self.moves(diag), self.width + 2, self.width, self.height,
                               flat, offs, out)  # fmt: skip

    def _check_chain(self, flat: np.ndarray, offsets: np.ndarray, diag: int) -> tuple[int, int, int]:
        return _f.check_paths(self._codes, self._lut, self.moves(diag), self.width + 2, self.width, self.height,
                              flat, offsets)  # fmt: skip

    def _smooth(self, flat: np.ndarray, offsets: np.ndarray, diag: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The paths ``flat`` (batch format) smoothed: ``(cells, offsets, ways)``, the cells exactly
        the smoothed paths' (``smooth_all`` leaves its buffer's unused tail after them)."""
        out, out_offsets, ways = _f.smooth_all(self._codes, self._lut, self.moves(diag), self.width + 2, self.width,
                                               flat, offsets)  # fmt: skip
        n = int(out_offsets[-1]) if out_offsets.size else 0
        return out[:n], out_offsets, ways[:n]

    def _check_field(self, field: object) -> np.ndarray:
        if not isinstance(field, np.ndarray) or field.dtype != np.float64:
            raise TypeError("field must be a float64 numpy array (from distance_field)")
        if field.shape != (self.height, self.width):
            raise ValueError(f"field must have the grid's shape {(self.height, self.width)}, got {field.shape}")
        bad = np.isnan(field) | (field < 0)
        if bad.any():
            y, x = (int(v) for v in np.unravel_index(int(np.argmax(bad)), bad.shape))
            got = float(field[y, x])
            raise ValueError(f"field must hold costs >= 0 or inf (from distance_field), got {got!r} at {(x, y)}")
        return np.ascontiguousarray(field)


def _check_batch(paths: object, offsets: object) -> None:
    for name, a in (("paths", paths), ("offsets", offsets)):
        if not isinstance(a, np.ndarray) or a.dtype.kind not in "iu" or a.ndim != 1:
            raise TypeError(f"{name} must be a 1-D numpy int array (the batch format of search_many)")


def _offsets_error(paths: np.ndarray, offsets: np.ndarray) -> ValueError:
    return ValueError(f"offsets must start at 0, never decrease and end within paths (size {paths.size}), "
                      f"got {_short(offsets.tolist())}")  # fmt: skip


def _chain_message(problem: int, here: str, before: str, diagonal: str) -> str:
    """The one line saying why a path given for smoothing is not a path of this grid."""
    if problem == _f.PATH_OUTSIDE:
        return f"{here} is outside the grid"
    if problem == _f.PATH_BLOCKED:
        return f"{here} is impassable"
    if problem == _f.PATH_NOT_NEXT:
        return f"{here} is not next to {before}: a path is a chain of adjacent cells"
    return f"{here} cannot be entered from {before} under diagonal rule {diagonal!r}"


class FieldGrowth:
    """A distance field grown a few cells at a time; made by :meth:`FieldsAndLines.grow_field`.

    ``field`` (float64 ``(H, W)``) holds the settled cells' costs to the goal, ``inf`` for
    the rest; cells settle cheapest first, so once :attr:`done` it equals
    :meth:`~FieldsAndLines.distance_field`'s result. Owns its work arrays (about 20 bytes a
    cell, dropped when done), so several can grow side by side.
    """

    _HEAP_START = 4096

    def __init__(self, grid: FieldsAndLines, goal: Point, *, diagonal: str = "no-corner-cutting") -> None:
        self._grid = grid
        self._diag = check_diagonal(diagonal)
        self._diagonal = diagonal
        gx, gy = _check_point("goal", goal, grid.width, grid.height)
        self.goal: tuple[int, int] = (gx, gy)
        self.field = np.full((grid.height, grid.width), np.inf)
        self.settled = 0  # cells settled so far
        self._steps: np.ndarray | None = None
        self.done = not grid.passable(gx, gy)  # an impassable goal: all inf, nothing to grow
        cells = (grid.height + 2) * (grid.width + 2)
        self._g = np.empty(cells)
        self._prune = grid._pruned_field(self._diag)  # (decided once: a grid changed meanwhile breaks no kernel)
        self._parent = np.empty(cells if self._prune else 0, dtype=np.uint8)  # (directions: pruned fields only)
        self._mark = np.zeros(cells, dtype=np.uint16)
        self._heap = (np.empty(self._HEAP_START), np.empty(self._HEAP_START, dtype=np.int32))
        self._size = 0
        if self.done:
            self._drop_work()
        else:
            self._size = _f.field_start((gy + 1) * (grid.width + 2) + gx + 1, self._g, self._parent, self._mark, 1,
                                        *self._heap)  # fmt: skip

    def grow(self, cells: int) -> int:
        """Settle at most ``cells`` more cells (an int >= 0); returns how many were settled."""
        if not isinstance(cells, Integral) or isinstance(cells, bool):
            raise TypeError(f"cells must be an int, got {_short(cells)}")
        budget = min(check_count("cells", cells, 0) or 0, self._grid.cells)  # never more than the grid holds
        grid, wp = self._grid, self._grid.width + 2
        flat = self.field.reshape(-1)
        settled = 0
        while not self.done and settled < budget:
            status, self._size, more = _f.field_core(
                grid._codes, grid._lut, grid.moves(self._diag), wp, np.inf, self._g, self._parent, self._mark, 1,
                *self._heap, self._size, flat, np.zeros(0, dtype=np.int32), self.settled + settled, budget - settled,
                False, self._prune,
            )  # fmt: skip
            settled += more
            if status == _f.FIELD_DONE:
                self.done = True
                self._drop_work()
            elif status == _f.FIELD_HEAP_FULL:
                self._heap = _f.grow_heap(*self._heap, self._size)
            else:  # the budget is spent
                break
        self.settled += settled
        return settled

    @property
    def steps(self) -> np.ndarray:
        """The finished field's :meth:`~FieldsAndLines.field_steps` (int8 ``(H, W)``), made once."""
        if not self.done:
            raise ValueError("the field is still growing: call grow() until done")
        if self._steps is None:
            self._steps = self._grid.field_steps(self.field, diagonal=self._diagonal)
        return self._steps

    def paths(self, starts: object, *, max_len: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Paths down the finished field from each of ``starts`` (a ``(k, 2)`` int array of
        ``(x, y)``), compiled, for a crowd at once: ``(cells, offsets)``, path ``i`` being
        ``cells[offsets[i]:offsets[i + 1]]`` (int32 ``y * W + x``, start first, optimal like
        :meth:`~FieldsAndLines.descend`'s), cut to ``max_len`` cells (default: no cut); a start
        the field does not reach gets an empty path."""
        steps = self.steps
        grid = self._grid
        pts = _check_points("starts", starts, grid.width, grid.height)
        cap = grid.cells if max_len is None else int(check_count("max_len", max_len, 1) or 1)
        reached = np.isfinite(self.field[pts[:, 1], pts[:, 0]])
        on = np.ascontiguousarray(pts[reached])
        part = np.zeros(on.shape[0] + 1, dtype=np.int64)
        worst = on.shape[0] * min(cap, grid.cells)
        if worst > WALK_BUFFER_CELLS:  # (100,000 walkers on 512x512: 98 GiB): count first, then walk into that
            _f.follow_core(steps, on, cap, np.zeros(0, dtype=np.int32), part)
            worst = int(part[-1])
        cells = np.empty(worst, dtype=np.int32)
        n = _f.follow_core(steps, on, cap, cells, part)
        lengths = np.zeros(pts.shape[0], dtype=np.int64)
        lengths[reached] = np.diff(part)
        offsets = np.zeros(pts.shape[0] + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        return cells[:n], offsets

    def _drop_work(self) -> None:
        self._g = np.zeros(0)
        self._parent = np.zeros(0, dtype=np.uint8)
        self._mark = np.zeros(0, dtype=np.uint16)
        self._heap = (np.zeros(0), np.zeros(0, dtype=np.int32))


def _path_points(path: object, width: int, height: int) -> NDArray[np.int64]:
    """A path a caller gives (an ``(n, 2)`` integer array, or a list or tuple of ``(x, y)`` points)
    as an ``(n, 2)`` int64 array, every point inside the grid (exact errors otherwise)."""
    if isinstance(path, np.ndarray):
        if path.size and (path.ndim != 2 or path.shape[1] != 2 or not np.issubdtype(path.dtype, np.integer)):
            raise TypeError(f"path must be an (n, 2) integer array of (x, y) or a list of points, got {_short(path)}")
        cells = path.reshape(-1, 2)
        bad = np.flatnonzero((cells[:, 0] < 0) | (cells[:, 0] >= width) | (cells[:, 1] < 0) | (cells[:, 1] >= height))
        if bad.size:
            i = int(bad[0])
            raise ValueError(f"path[{i}] {(int(cells[i, 0]), int(cells[i, 1]))} is outside the grid of width {width} "
                             f"and height {height}")  # fmt: skip
        return cells.astype(np.int64)
    if not isinstance(path, list | tuple):
        raise TypeError(f"path must be an (n, 2) integer array of (x, y) or a list of points, got {_short(path)}")
    return np.array([_check_point(f"path[{i}]", p, width, height) for i, p in enumerate(path)],
                    dtype=np.int64).reshape(-1, 2)  # fmt: skip
