"""Grid pathfinding: a compiled A* kernel behind a small, checked API.

>>> import numpy as np
>>> from sim.pathfinding import find_path
>>> costs = np.ones((3, 4))          # indexed [y, x]; 0 = impassable
>>> costs[1, 1:3] = 0
>>> find_path(costs, (0, 1), (3, 1)).cost
5.0

Never imports pygame: the engine can be reused in any game.
"""

from __future__ import annotations

from sim.pathfinding.astar import AStar, ChangeCursor
from sim.pathfinding.batch import BatchResult
from sim.pathfinding.compiled import CompiledBatch, GridArgs, KernelParams, padded_cell, step_legal
from sim.pathfinding.explain import SearchState
from sim.pathfinding.fieldgrid import STEPS, FieldGrowth
from sim.pathfinding.grid import MAX_COST
from sim.pathfinding.kernel import STATUS_BLOCKED, STATUS_FOUND, STATUS_HIT_LIMIT, STATUS_NOT_SERVED, STATUS_UNREACHABLE
from sim.pathfinding.options import ALGORITHMS, HEURISTICS, SearchOptions
from sim.pathfinding.paths import EMPTY_PATH
from sim.pathfinding.regions import Regions, label_regions
from sim.pathfinding.rounds import STATUS_OTHER_REGION, RoundKind, RoundResult, RoundShape, SearchRound, gather
from sim.pathfinding.rules import DIAGONAL_RULES
from sim.pathfinding.search import PathGrid, SearchResult, find_path, warm_up
from sim.pathfinding.warm import first_use, runs_without_compiling, set_first_use
from sim.pathfinding.workspace import run_split, set_threads, thread_count

__all__ = [
    "ALGORITHMS",
    "DIAGONAL_RULES",
    "EMPTY_PATH",
    "HEURISTICS",
    "MAX_COST",
    "STATUS_BLOCKED",
    "STATUS_FOUND",
    "STATUS_HIT_LIMIT",
    "STATUS_NOT_SERVED",
    "STATUS_OTHER_REGION",
    "STATUS_UNREACHABLE",
    "STEPS",
    "AStar",
    "BatchResult",
    "ChangeCursor",
    "CompiledBatch",
    "FieldGrowth",
    "GridArgs",
    "KernelParams",
    "PathGrid",
    "Regions",
    "RoundKind",
    "RoundResult",
    "RoundShape",
    "SearchOptions",
    "SearchResult",
    "SearchRound",
    "SearchState",
    "find_path",
    "first_use",
    "gather",
    "label_regions",
    "padded_cell",
    "run_split",
    "runs_without_compiling",
    "set_first_use",
    "set_threads",
    "step_legal",
    "thread_count",
    "warm_up",
]
