"""Re-planning after the terrain changed: who must stop, and who stands where it no longer may.

An animal walking a path plans again when the rest of its path (from the cell it
left) crosses a changed cell, or has a step the engine's diagonal rule no longer
allows (a diagonal whose side cell was just painted blocked, say). It stops on a cell
it may stand on and searches again once its cooldown has run out. An animal left on a
cell its species can no longer occupy moves to the nearest one it can.

The path check is a compiled loop over the remaining steps of the walking animals,
reading the engine's moves mask (the legal directions of each cell under the species'
diagonal rule): its cost follows the animals and their paths, never the size of the map.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numba import njit

from sim.model.agents import Agents, State
from sim.pathfinding import DIAGONAL_RULES, PathGrid, padded_cell, step_legal
from sim.world.geometry import CellRect

if TYPE_CHECKING:
    from sim.model.species import SpeciesRuntime


@njit(cache=True)
def paths_hit(moves, width, rows, paths, path_pos, path_len, x0, y0, changed):
    """For each walking animal in ``rows``: does the rest of its path cross a changed cell
    (``changed`` is the block at ``(x0, y0)``) or take a step that is no longer legal?"""
    hit = np.zeros(rows.size, dtype=np.bool_)
    ch, cw = changed.shape
    for r in range(rows.size):
        i = rows[r]
        lo = max(0, path_pos[i] - 1)  # from the cell it left
        for j in range(lo, path_len[i]):
            c = paths[i, j]
            x = c % width - x0
            y = c // width - y0
            if 0 <= x < cw and 0 <= y < ch and changed[y, x]:
                hit[r] = True
                break
            if j >= 1 and not step_legal(moves, width + 2, padded_cell(paths[i, j - 1], width), padded_cell(c, width)):
                hit[r] = True
                break
    return hit


def _moves(sp: SpeciesRuntime) -> np.ndarray:
    return sp.grid.kernel_args(DIAGONAL_RULES[sp.astar.diagonal]).moves


def stop_crossing(
    agents: Agents, species: list[SpeciesRuntime], width: int, rect: CellRect, changed: np.ndarray
) -> int:
    """Stop every walking animal whose path ``changed`` (the block at ``rect``) affects; returns how many."""
    a = agents
    stopped = 0
    for sp in species:
        walking = np.flatnonzero((a.state == State.WALKING) & (a.species == sp.index))
        if walking.size == 0:
            continue
        hit = paths_hit(_moves(sp), width, walking, a.paths, a.path_pos, a.path_len, rect.x0, rect.y0, changed)
        for i in walking[hit]:
            stop_for_replan(a, sp, width, int(i))
        stopped += int(hit.sum())
    return stopped


def stop_for_replan(a: Agents, sp: SpeciesRuntime, width: int, i: int) -> None:
    """Stop animal ``i`` on a cell it may stand on and queue it (after its cooldown) to re-plan.

    It finishes the step it is on if that step is still legal and it is past half way;
    otherwise it goes back to the cell it left.
    """
    pos = a.path_pos[i]
    here = int(a.paths[i, max(pos - 1, 0)])  # the path cell its step started from
    nxt = int(a.paths[i, pos])
    hx, hy, nx, ny = here % width, here // width, nxt % width, nxt // width
    step_ok = step_legal(_moves(sp), width + 2, padded_cell(here, width), padded_cell(nxt, width))
    if step_ok and np.hypot(*(a.pos[i] - (nx, ny))) < np.hypot(*(a.pos[i] - (hx, hy))):
        hx, hy = nx, ny
    a.cell[i] = (hx, hy)
    a.pos[i] = a.cell[i]
    a.path_len[i] = a.path_pos[i] = 0
    a.state[i] = State.REPLAN


def misplaced(agents: Agents, species: list[SpeciesRuntime], terrain: np.ndarray) -> list[str]:
    """Every broken promise about the animals' ``cell`` (a few at most, in words): the cell that
    holds ``pos`` (rounded half up), inside the map, on ground its species may stand on. A species
    left no such ground at all has nowhere to go (:func:`rescue_stranded`): its animals are not counted."""
    a = agents
    wrong = []
    held = np.floor(a.pos + 0.5).astype(np.int64)
    for i in np.flatnonzero((held != a.cell).any(axis=1)).tolist()[:3]:
        wrong.append(f"animal {i}: pos {tuple(a.pos[i])} is in cell {tuple(held[i])}, its cell says {tuple(a.cell[i])}")
    h, w = terrain.shape
    for sp in species:
        mine = np.flatnonzero(a.species == sp.index)
        if mine.size == 0 or not sp.regions.any():  # (the labels it keeps anyway: no float copy of the costs)
            continue
        x, y = a.cell[mine, 0], a.cell[mine, 1]
        ok = (x >= 0) & (y >= 0) & (x < w) & (y < h)
        ok[ok] = sp.passable_at(a.cell[mine[ok]])
        for i in mine[~ok].tolist()[:3]:
            wrong.append(f"{sp.key} {i} stands on cell {tuple(a.cell[i])}, where it may not")
    return wrong


def rescue_stranded(agents: Agents, species: list[SpeciesRuntime]) -> int:
    """Animals on cells their species can no longer occupy move to the nearest one it can.

    Returns how many walking animals this sent to re-plan.
    """
    a = agents
    replans = 0
    for sp in species:
        mine = np.flatnonzero(a.species == sp.index)
        if mine.size == 0:
            continue
        bad = mine[~sp.passable_at(a.cell[mine])]
        taken: set[tuple[int, int]] = set()  # each to a cell of its own while there are any near
        for i in bad:
            cell = nearest_free(sp.grid, int(a.cell[i, 0]), int(a.cell[i, 1]), taken)
            if cell is None:
                continue
            taken.add(cell)
            a.cell[i] = cell
            a.pos[i] = cell
            a.path_len[i] = a.path_pos[i] = 0
            # A queued animal searches from its new cell when served; a walking one re-plans.
            if a.state[i] == State.WALKING:
                a.state[i] = State.REPLAN
                replans += 1
    return replans


def nearest_free(grid: PathGrid, x: int, y: int, taken: set[tuple[int, int]] | None = None) -> tuple[int, int] | None:
    """The passable cell nearest to ``(x, y)`` (Euclidean), searched in growing windows, or
    None when the grid has none; with ``taken``, the nearest not in it, unless every passable
    cell near is (then the nearest: animals swept off a painted area spread along its edge
    instead of queueing)."""
    h, w = grid.height, grid.width
    everything = w * w + h * h  # a radius this long (squared) reaches every cell from anywhere on the map
    r = 1
    while True:
        x0, x1, y0, y1 = max(0, x - r), min(w, x + r + 1), max(0, y - r), min(h, y + r + 1)
        ys, xs = np.nonzero(grid.cost_block(x0, y0, x1, y1) > 0)
        whole = r * r >= everything  # (the window and the disc hold the whole map: nothing more to find)
        if len(xs):
            d = (xs + x0 - x) ** 2 + (ys + y0 - y) ** 2
            inside = np.flatnonzero(d <= r * r)  # nothing closer can hide outside this window
            for k in inside[np.argsort(d[inside], kind="stable")].tolist():
                if not taken or (int(xs[k] + x0), int(ys[k] + y0)) not in taken:
                    return int(xs[k] + x0), int(ys[k] + y0)
            if inside.size and (r >= 8 or whole):  # crowded (or every free cell taken): share the nearest
                k = int(inside[np.argmin(d[inside])])
                return int(xs[k] + x0), int(ys[k] + y0)
        if whole:
            return None
        r *= 2
