"""The engine's tier for compiled callers: what code that calls the kernels itself needs (one
compiled call per round of many searches, a resumable distance field), as named tuples.

>>> import numpy as np
>>> from sim.pathfinding import AStar
>>> plan = AStar(np.zeros((3, 4), dtype=np.uint8), terrain_costs={0: 1.0}).compiled_batch()
>>> plan.grid_args.padded_width, plan.params.max_nodes > 0
(6, True)

``grid_args`` are the kernels' grid arguments (:mod:`.kernel` explains the padded,
flattened grid); ``params`` the search's parameters. A caller hands the grid unpacked and the
parameters whole to ``kernel.search_batch`` (or to its own compiled function that calls it):
see the demo's planner. The arrays belong to the grid: read them, never write them.

Inside a compiled function of its own, a caller asks whether a step is still legal with
:func:`step_legal` on ``grid_args.moves`` and cells turned into padded ones by
:func:`padded_cell` (the demo's re-planning checks the rest of every walking path so).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from numba import njit
from numpy.typing import NDArray

from sim.pathfinding.rules import step_legal

__all__ = ["CompiledBatch", "GridArgs", "KernelParams", "Priority", "padded_cell", "step_legal"]


@njit(cache=True, inline="always")
def padded_cell(cell, width):
    """A map cell ``y * width + x`` as the kernels' padded index ``(y + 1) * (width + 2) + x + 1``
    (``width``: the map's, not the padded one); callable from compiled code."""
    return (cell // width + 1) * (width + 2) + cell % width + 1


class GridArgs(NamedTuple):
    """A grid as the kernels take it: ``codes`` (per padded cell), ``lut`` (multiplier per code),
    ``moves`` (legal steps per padded cell under a diagonal rule), the padded width (W + 2),
    and ``blocks``: the grid's data for jumping searches (``PathGrid.kernel_args``): its free
    cells as bits for JPS (``jps.build_blocks``; with ``jpsw``'s stops and successor table on a
    weighted grid), JPS+'s jump table, or an empty array when the search does not jump."""

    codes: np.ndarray
    lut: np.ndarray
    moves: np.ndarray
    padded_width: int
    blocks: np.ndarray


class Priority(NamedTuple):
    """How the heap kernels order their open list: ``common.priority(g, h, prio)``. A new
    tie-break is a field here (and in :func:`unflat`, below), its value in ``options.kernel_params``
    and its use in ``common.priority``: every kernel hands the record on whole."""

    g_mult: float  # priority = g_mult * g + h_mult * h
    h_mult: float


class KernelParams(NamedTuple):
    """A search's parameters as the kernels take them (``options.kernel_params`` chooses them)."""

    mode: int  # kernel.MODE_HEAP, MODE_BUCKETS, MODE_JPS or MODE_JPS_PLUS
    metric: int  # the heuristic's distance
    prio: Priority  # the heap's order
    unit: float  # the grid's smallest multiplier
    max_nodes: int
    heuristic: int  # the exact integer-pair heuristic (-1: none, float costs; kernel.paired)
    # The diagonal rule the grid's moves were made under (rules.DIAGONAL_RULES): under "no-corner-cutting"
    # A* and Dijkstra push only canonical successors (kernel.canonical). The default, "always", prunes
    # nothing, so parameters made by hand before this field existed still search right.
    rule: int = 3

    @property
    def jumps(self) -> bool:
        """Whether these searches go from jump point to jump point (JPS or JPS+: modes 1 and 3)."""
        return self.mode in (1, 3)

    @property
    def flat(self) -> NDArray[np.float64]:
        """The fields as ``kernel.search_one`` takes them: one float64 array, ``prio``'s fields last,
        ``(mode, metric, unit, max_nodes, heuristic, rule, *prio)`` (``max_nodes`` at most 2**53, more
        than any search expands, so it is exact), read back in compiled code by :func:`unflat`. One
        array costs ~0.2 µs less of a call's dispatch than the same numbers as a tuple (2026-12-06),
        and a nested named tuple is typed in Python at every call (~0.6 µs more)."""
        numbers = (self.mode, self.metric, self.unit, min(self.max_nodes, 2**53), self.heuristic, self.rule, *self.prio)
        return np.array(numbers, dtype=np.float64)


@njit(cache=True, inline="always")
def unflat(flat):
    """:attr:`KernelParams.flat` as the kernels' parameters again, in compiled code: the tuple
    ``(mode, metric, prio, unit, max_nodes, heuristic, rule)``, ints as int64."""
    return (np.int64(flat[0]), np.int64(flat[1]), Priority(flat[6], flat[7]), flat[2], np.int64(flat[3]),
            np.int64(flat[4]), np.int64(flat[5]))  # fmt: skip


class CompiledBatch(NamedTuple):
    """What :meth:`AStar.compiled_batch` gives: the up-to-date grid, its arguments, the parameters."""

    grid: Any  # the PathGrid (not imported here: the grid module imports this one)
    grid_args: GridArgs
    params: KernelParams
