"""A search's plan: what searches with one options value need on one grid, worked out once and
kept until the grid changes (issue #43: a call that costs nothing).

:meth:`PathGrid.search <sim.pathfinding.PathGrid.search>` looks its plan up by the call's own
option values (one dict look-up, ~0.1 µs) in the grid's ``_kept`` dict, which every change to
the grid clears (``CodedGrid._write``); the first call with those values checks them (exact
errors; a failed check is never kept) and makes the plan.
"""

from __future__ import annotations

from contextlib import suppress
from typing import Any

import numpy as np

from sim.pathfinding import kernel as _k
from sim.pathfinding.checks import _check_point
from sim.pathfinding.common import NO_LANDMARKS
from sim.pathfinding.compiled import GridArgs, KernelParams
from sim.pathfinding.grid import CodedGrid
from sim.pathfinding.jps import EMPTY_BLOCKS, PLANES
from sim.pathfinding.jpsplus import MAX_SIDE
from sim.pathfinding.options import SearchOptions, kernel_params, options_of
from sim.pathfinding.rules import DIAG_NO_CORNER_CUTTING
from sim.pathfinding.warm import kind_of

_BITS = np.zeros((PLANES, 0, 0), np.uint64)  # stand-ins of JPS's and JPS+'s grid data (warm.kind_of)
_TABLE = np.zeros((1, 0, 2), np.uint64)
_KEEP_AT_MOST = 256  # plans and kernel arguments a grid keeps (a caller trying many options: start over)


class Plan:
    """What searches with one options value need on one grid: the diagonal rule, the kernels'
    parameters (and their fields as the flat tuple ``kernel.search_one`` takes), whether they
    jump, the compiled kernel's kind (:mod:`.warm`), and the grid's arguments (:meth:`args_on`:
    made on the compiled path's first use, as JPS+'s table is built by compiled code). A plan
    whose options the grid refuses (JPS's conditions, :func:`jps_refusal`) says why in
    ``refusal`` and has a kind no kernel is ever ready for, so the search raises it after
    checking the points, as it always has."""

    __slots__ = ("args", "fields", "jumps", "kind", "params", "refusal", "rule")

    def __init__(self, rule: int, params: KernelParams, kind: tuple[str, str, str], refusal: str | None = None) -> None:
        self.rule, self.params, self.refusal = rule, params, refusal
        self.kind = kind if refusal is None else ("refused", "", "")
        self.fields = params.flat
        self.jumps = bool(_k.jumps(params.mode))
        self.args: GridArgs | None = None

    def args_on(self, grid: CodedGrid) -> GridArgs:
        """The grid as this plan's kernel takes it (``grid.kernel_args``), kept here."""
        if self.args is None:
            self.args = grid.kernel_args(self.rule, _k.jump_data(self.params.mode))
        return self.args


def plan_of(grid: CodedGrid, opts: SearchOptions) -> Plan:
    """The plan of searches with ``opts`` on ``grid`` (checked options), kept until it changes."""
    plan = grid._kept.get(opts)
    if plan is None:
        if len(grid._kept) > _KEEP_AT_MOST:
            grid._kept.clear()
        params = kernel_params(opts, grid.min_cost, grid.uniform, grid.cells)
        plan = grid._kept[opts] = Plan(opts.rule, params, kind("one", params.mode, grid._codes))
    return plan


def plan_of_call(grid: CodedGrid, options: SearchOptions | None, diagonal: Any, heuristic: Any, weight: Any,
                 algorithm: Any, max_nodes: Any) -> Plan:  # fmt: skip
    """The plan for a search call's options as given: checked (:func:`~.options.options_of`; a
    refusal of the grid's, :func:`jps_refusal`, goes into the plan), then kept under those
    values (:func:`call_key`)."""
    opts = options_of(options, diagonal, heuristic, weight, algorithm, max_nodes)
    plan = plan_of(grid, opts)
    refusal = jps_refusal(grid, opts)
    if refusal is not None:
        plan = Plan(plan.rule, plan.params, plan.kind, refusal)
    with suppress(TypeError):  # (a value unhashable yet valid is not kept)
        grid._kept[call_key(diagonal, heuristic, weight, algorithm, max_nodes, options)] = plan
    return plan


def call_key(diagonal: Any, heuristic: Any, weight: Any, algorithm: Any, max_nodes: Any,
             options: SearchOptions | None) -> tuple:  # fmt: skip
    """A call's option values as a key; with the types of those a bool could stand in for (``True
    == 1``), so a value that failed its check is never taken for one that passed."""
    return diagonal, heuristic, weight, algorithm, max_nodes, options, type(weight), type(max_nodes)


def limited_plan(grid: CodedGrid, opts: SearchOptions, max_nodes: int) -> Plan:
    """:func:`plan_of` with the kernels stopping after ``max_nodes`` expansions (not kept)."""
    plan = plan_of(grid, opts)
    limited = plan.params._replace(max_nodes=min(plan.params.max_nodes, max_nodes))
    return Plan(plan.rule, limited, plan.kind)


def check_jps(grid: CodedGrid, opts: SearchOptions) -> None:
    """JPS's and JPS+'s conditions on the options and the grid (:func:`jps_refusal`), as a ``ValueError``."""
    refusal = jps_refusal(grid, opts)
    if refusal is not None:
        raise ValueError(refusal)


def jps_refusal(grid: CodedGrid, opts: SearchOptions) -> str | None:
    """Why ``grid`` cannot be searched with ``opts`` (JPS's and JPS+'s conditions), or None."""
    algorithm = opts.algorithm
    if algorithm not in ("jps", "jps+"):
        return None
    if opts.rule != DIAG_NO_CORNER_CUTTING:
        return f"algorithm {algorithm!r} needs diagonal='no-corner-cutting', got {opts.diagonal!r}"
    if algorithm == "jps+" and max(grid.width, grid.height) > MAX_SIDE:
        return (f"algorithm {algorithm!r} serves grids up to {MAX_SIDE} cells wide and high (its jump table "
                f"holds int16 run lengths); this grid is {grid.width} by {grid.height}")  # fmt: skip
    if algorithm == "jps+" and not grid.uniform:
        return (f"algorithm {algorithm!r} needs every passable cell to cost the same; this grid's "
                f"multipliers range from {grid.min_cost:g} to {grid.max_cost:g}")  # fmt: skip
    return None


def padded_ends(start: object, goal: object, width: int, height: int) -> tuple[int, int]:
    """``start`` and ``goal`` checked (:func:`~.checks._check_point`: exact errors) as cells of
    the padded grid, ``(y + 1) * (width + 2) + x + 1``."""
    if type(start) is tuple and type(goal) is tuple and len(start) == 2 and len(goal) == 2:
        (sx, sy), (gx, gy) = start, goal  # (the common case in one step: ~0.15 µs less than two checks)
        if (type(sx) is int and type(sy) is int and type(gx) is int and type(gy) is int
                and 0 <= sx < width and 0 <= sy < height and 0 <= gx < width and 0 <= gy < height):  # fmt: skip
            return (sy + 1) * (width + 2) + sx + 1, (gy + 1) * (width + 2) + gx + 1
    sx, sy = _check_point("start", start, width, height)
    gx, gy = _check_point("goal", goal, width, height)
    return (sy + 1) * (width + 2) + sx + 1, (gy + 1) * (width + 2) + gx + 1


def kind(entry: str, mode: int, codes: np.ndarray) -> tuple[str, str, str]:
    """:func:`~.warm.kind_of` for a search in kernel ``mode`` (``entry``: "one" or "many")."""
    plain = mode in (_k.MODE_HEAP, _k.MODE_BUCKETS)
    data = EMPTY_BLOCKS if plain else {_k.MODE_JPS_PLUS: _TABLE, _k.MODE_LANDMARKS: NO_LANDMARKS}.get(mode, _BITS)
    return kind_of(entry, data, codes)
