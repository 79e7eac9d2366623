"""The animals' state as a struct of arrays; movement is vectorised over all of them.

Positions are in cell units, ``(x, y)``; a cell's centre is its integer coordinates. An
animal's ``cell`` is always the cell that holds its ``pos`` (:func:`cell_of`: rounded half
up, the same everywhere), after every move, push and edit; the step it walks runs from
``leg`` (the path cell it left) to ``aim``.
Paths live in one ``(N, L)`` buffer of flat cell indices (``y * width + x``), so
following them needs no Python per animal.
"""

from __future__ import annotations

import math
from enum import IntEnum
from typing import Any, NamedTuple

import numpy as np
from numba import njit
from numpy.typing import NDArray

from sim.pathfinding import run_split, thread_count
from sim.support.prefetch import prefetch


class State(IntEnum):
    """What an animal is doing (the ``state`` column)."""

    IDLE = 0  # resting until idle_until, then (once its cooldown is over) asks for a path
    QUEUED = 1  # waiting in the search queue (the per-frame budget was used up)
    WALKING = 2  # following its path
    REPLAN = 3  # its path was painted over: waits for its cooldown, then searches again


class Outcome(IntEnum):
    """How an animal's last search ended (the ``last_outcome`` column)."""

    NO_SEARCH = 0
    FOUND = 1
    FAILED = 2
    CAPPED = 3  # max_nodes stopped it: the animal walks the partial path
    OTHER_REGION = 4  # the goal is in another region: known unreachable, nothing searched

    @property
    def label(self) -> str:
        return {0: "-", 4: "unreachable (other region)"}.get(self.value, self.name.lower())


#: 8 headings, index = round(angle / 45°) with y pointing down: 0 east, 2 south, 4 west, 6 north.
HEADINGS = 8

_FIELDS = {
    "species": (np.int8, ()),
    "pos": (np.float64, (2,)),
    "cell": (np.int32, (2,)),
    "state": (np.int8, ()),
    "idle_until": (np.float64, ()),
    "next_search_at": (np.float64, ()),
    "last_search_at": (np.float64, ()),
    "requested_at": (np.float64, ()),  # when it joined the search queue (for the latency figure)
    "cooldown": (np.float64, ()),
    "goal": (np.int32, (2,)),
    "last_start": (np.int32, (2,)),
    "last_goal": (np.int32, (2,)),
    "path_len": (np.int32, ()),
    "path_pos": (np.int32, ()),
    "heading": (np.int8, ()),
    "searches": (np.int32, ()),
    "last_expanded": (np.int32, ()),
    "last_ms": (np.float64, ()),
    "last_cost": (np.float64, ()),
    "last_outcome": (np.int8, ()),  # an Outcome
    "herd": (np.int16, ()),  # the herd it was called to (see sim.model.herds); 0: none, it wanders
    "aim": (np.int32, ()),  # flat cell it walks toward, as of the last move (the separation step reads it)
    "leg": (np.int32, ()),  # flat path cell its current step started from, as of the last move
}


class AgentColumns(NamedTuple):
    """Every column of :class:`Agents` at full capacity (rows past ``n`` unused): one record that
    compiled code takes whole (``agents.columns``), each field as in :data:`_FIELDS`."""

    species: NDArray[np.int8]
    pos: NDArray[np.float64]
    cell: NDArray[np.int32]
    state: NDArray[np.int8]
    idle_until: NDArray[np.float64]
    next_search_at: NDArray[np.float64]
    last_search_at: NDArray[np.float64]
    requested_at: NDArray[np.float64]
    cooldown: NDArray[np.float64]
    goal: NDArray[np.int32]
    last_start: NDArray[np.int32]
    last_goal: NDArray[np.int32]
    path_len: NDArray[np.int32]
    path_pos: NDArray[np.int32]
    heading: NDArray[np.int8]
    searches: NDArray[np.int32]
    last_expanded: NDArray[np.int32]
    last_ms: NDArray[np.float64]
    last_cost: NDArray[np.float64]
    last_outcome: NDArray[np.int8]
    herd: NDArray[np.int16]
    aim: NDArray[np.int32]
    leg: NDArray[np.int32]
    paths: NDArray[np.int32]  # (capacity, path_capacity) flat cells


class _Column:
    """A column of :class:`Agents` as an attribute: the first ``n`` rows of its full array."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, agents: Agents, owner: type | None = None) -> NDArray[Any]:
        return agents._store[self.name][: agents.n]


@njit(cache=True, inline="always")
def cell_of(p: float) -> int:
    """The cell coordinate that holds position ``p`` (cells are centred on integers: half up)."""
    return math.floor(p + 0.5)


class Agents:
    """All animals. Each column (below; what it holds: :data:`_FIELDS`) is a view of the first
    ``n`` rows of a larger array; :attr:`columns` hands them all to compiled code at once."""

    species = _Column()
    pos = _Column()
    cell = _Column()
    state = _Column()
    idle_until = _Column()
    next_search_at = _Column()
    last_search_at = _Column()
    requested_at = _Column()
    cooldown = _Column()
    goal = _Column()
    last_start = _Column()
    last_goal = _Column()
    path_len = _Column()
    path_pos = _Column()
    heading = _Column()
    searches = _Column()
    last_expanded = _Column()
    last_ms = _Column()
    last_cost = _Column()
    last_outcome = _Column()
    herd = _Column()
    aim = _Column()
    leg = _Column()
    paths = _Column()

    def __init__(self, path_capacity: int) -> None:
        self.n = 0
        self.path_capacity = path_capacity
        self._cap = 0
        self._store: dict[str, np.ndarray] = {}
        self._grow(64)

    def _grow(self, cap: int) -> None:
        for name, (dtype, shape) in _FIELDS.items():
            new = np.zeros((cap, *shape), dtype=dtype)
            if name in self._store:
                new[: self.n] = self._store[name][: self.n]
            self._store[name] = new
        paths = np.zeros((cap, self.path_capacity), dtype=np.int32)
        if "paths" in self._store:
            paths[: self.n] = self._store["paths"][: self.n]
        self._store["paths"] = paths
        self._cap = cap
        self._columns = AgentColumns(**self._store)

    @property
    def columns(self) -> AgentColumns:
        """Every column at full capacity (rows beyond ``n`` are unused), as one record for compiled code."""
        return self._columns

    @property
    def store(self) -> dict[str, np.ndarray]:
        """The full-capacity arrays by name (rows beyond ``n`` are unused)."""
        return self._store

    def add(self, species: np.ndarray, cells: np.ndarray, cooldowns: np.ndarray, idle_until: np.ndarray) -> None:
        """Append animals standing on ``cells`` (k×2 ``(x, y)``), idle until ``idle_until``."""
        k = len(species)
        while self.n + k > self._cap:
            self._grow(self._cap * 2)
        lo, hi = self.n, self.n + k
        for arr in self._store.values():
            arr[lo:hi] = 0
        s = self._store
        s["species"][lo:hi] = species
        s["cell"][lo:hi] = cells
        s["pos"][lo:hi] = cells
        s["goal"][lo:hi] = cells
        s["cooldown"][lo:hi] = cooldowns
        s["idle_until"][lo:hi] = idle_until
        s["next_search_at"][lo:hi] = 0.0
        s["last_search_at"][lo:hi] = -np.inf
        s["last_cost"][lo:hi] = np.nan
        s["heading"][lo:hi] = 2
        self.n = hi

    def keep(self, mask: np.ndarray) -> np.ndarray:
        """Keep the animals where ``mask`` is true; returns old index -> new index (-1 removed)."""
        remap = np.full(self.n, -1, dtype=np.int64)
        kept = np.flatnonzero(mask)
        remap[kept] = np.arange(len(kept))
        for arr in self._store.values():
            arr[: len(kept)] = arr[: self.n][kept]
        self.n = len(kept)
        return remap

    def set_path(self, i: int, flat_cells: np.ndarray) -> None:
        """Give animal ``i`` a path (flat indices, starting at its own cell), truncated to capacity."""
        self.set_paths(np.array([i]), np.asarray(flat_cells), np.array([0]), np.array([len(flat_cells)]))

    def set_paths(self, rows: np.ndarray, cells: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> None:
        """Give animal ``rows[j]`` the path ``cells[starts[j] : starts[j] + lengths[j]]`` (flat cells
        from its own cell on), each truncated to the capacity; no Python per animal."""
        lengths = np.minimum(lengths, self.path_capacity)
        total = int(lengths.sum())
        first = np.repeat(starts, lengths)  # where each kept cell's path starts in ``cells``
        col = np.arange(total) - np.repeat(np.cumsum(lengths) - lengths, lengths)
        self._store["paths"][np.repeat(rows, lengths), col] = cells[first + col]
        self._store["path_len"][rows] = lengths
        # Index 0 is the cell it stands in: walked to first (its centre) unless it is there already.
        centred = (self._store["pos"][rows] == self._store["cell"][rows]).all(axis=1)
        self._store["path_pos"][rows] = np.where(centred, np.minimum(lengths, 1), 0)

    def remaining_path(self, i: int) -> np.ndarray:
        """Flat cells still ahead of animal ``i``."""
        return self._store["paths"][i, self._store["path_pos"][i] : self._store["path_len"][i]]

    def move(self, dt: float, speed_table: np.ndarray, terrain: np.ndarray, stands: np.ndarray,
             threads: int | None = 1) -> np.ndarray:  # fmt: skip
        """Advance walking animals by ``dt`` seconds; ``speed_table[species, terrain id]`` is the
        speed (cells/s) on the terrain each one stands on, ``stands[species, terrain id]`` whether
        it may stand there (a step that squeezes past a corner keeps out of it: :func:`_off_corner`).
        Returns the indices of animals that reached the end of their path this step, in order.
        A large crowd is cut into parts (of at least :data:`MOVE_SPLIT` animals) that step on up
        to ``threads`` threads (None: the engine's thread count); each animal's step is its own,
        so the result is the same with any number."""
        n = self.n
        threads = thread_count() if threads is None else max(1, threads)
        parts = max(1, min(threads, n // MOVE_SPLIT))
        done = np.empty((parts, n), dtype=np.int64)
        jobs = [(j, parts, n, dt, self._columns, speed_table, terrain, stands, done[j]) for j in range(parts)]
        found = run_split(_move, jobs, parts)
        if parts == 1:
            return done[0, : found[0]]
        return np.sort(np.concatenate([done[j, :k] for j, k in enumerate(found)]))


@njit(cache=True, inline="always")
def heading_of(dx, dy):
    """The heading (0 east, 2 south, 4 west, 6 north; 45° steps) of a move by ``(dx, dy)``."""
    if dx == 0 and dy == 0:
        return 2
    return int(np.rint(math.atan2(dy, dx) / (math.pi / 4))) % HEADINGS


#: How many animals ahead _move asks for the path cell it reads (see there).
_MOVE_AHEAD = 16
#: Fewer animals than this a part are not worth a thread's hand-over (tens of µs) in Agents.move.
MOVE_SPLIT = 10_000
#: Animals a part of Agents.move steps in a row (the parts take every other run: species come
#: in runs, and some walk more than others).
_MOVE_BLOCK = 1024


@njit(cache=True, inline="always")
def _off_corner(px, py, bx, by, ox, oy, tx, ty):
    """``(px, py)`` moved out of cell ``(bx, by)``'s square into the cell it shares an edge with,
    ``(ox, oy)`` (the cell the animal stood in) or ``(tx, ty)`` (the one it walks to), across the
    nearer edge; ``(px, py)`` itself when it shares an edge with neither.

    A diagonal step squeezes past a corner under the "one-obstacle" and "always" rules: its
    straight line crosses the corner where the two side cells meet, so a position on it (or
    near it, after a push) can round into a side cell its species may not stand on. Moved
    across, it stands in the cell on the other side of that edge: half up, the edge at ``b +
    0.5`` belongs to ``b + 1``, so the way down ends just below ``b - 0.5``."""
    d1, x1, y1 = _across(px, py, bx, by, ox, oy)
    d2, x2, y2 = _across(px, py, bx, by, tx, ty)
    if d1 <= d2:
        return x1, y1
    return x2, y2


@njit(cache=True, inline="always")
def _across(px, py, bx, by, cx, cy):
    """How far ``(px, py)`` is from the edge cell ``(bx, by)`` shares with ``(cx, cy)``, and the
    point just across it (``inf`` and the point itself when they share no edge)."""
    if cy == by and abs(cx - bx) == 1:
        x = bx + 0.5 if cx > bx else np.nextafter(bx - 0.5, -np.inf)
        return abs(x - px), x, py
    if cx == bx and abs(cy - by) == 1:
        y = by + 0.5 if cy > by else np.nextafter(by - 0.5, -np.inf)
        return abs(y - py), px, y
    return np.inf, px, py


@njit(cache=True, nogil=True)
def _move(part, parts, n, dt, cols, speed_table, terrain, stands, done):
    """Part ``part`` of ``parts`` of the walking animals step toward their next path cell (see
    :meth:`Agents.move`): every ``parts``-th run of :data:`_MOVE_BLOCK` animals. ``aim`` gets the
    cell each walks toward next (its path's last when it arrived), ``leg`` the path cell before
    it; ``cell`` follows ``pos``. Those that arrived go into ``done`` in order; returns how many."""
    state, species, pos, cell, heading, paths = cols.state, cols.species, cols.pos, cols.cell, cols.heading, cols.paths
    path_pos, path_len, aim, leg = cols.path_pos, cols.path_len, cols.aim, cols.leg
    w = terrain.shape[1]
    k = 0
    base, row, item = paths.ctypes.data, paths.strides[0], paths.strides[1]
    for start in range(part * _MOVE_BLOCK, n, parts * _MOVE_BLOCK):
        end = min(start + _MOVE_BLOCK, n)
        for i in range(start, end):
            # Each animal's path is a row of its own: a cache line far from the last one. Asked
            # for AHEAD animals on, so the loop does not wait on each in turn.
            a = min(i + _MOVE_AHEAD, end - 1)
            prefetch(base + a * row + path_pos[a] * item)
            if state[i] != State.WALKING:
                continue
            nxt = paths[i, path_pos[i]]
            tx = float(nxt % w)
            ty = float(nxt // w)
            dx = tx - pos[i, 0]
            dy = ty - pos[i, 1]
            dist = math.hypot(dx, dy)
            step = speed_table[species[i], terrain[cell[i, 1], cell[i, 0]]] * dt
            if step >= dist:
                pos[i, 0] = tx
                pos[i, 1] = ty
                path_pos[i] += 1
                if path_pos[i] >= path_len[i]:
                    done[k] = i
                    k += 1
                else:  # the next stretch sets the heading (it only changes at path cells)
                    heading[i] = heading_of(paths[i, path_pos[i]] % w - tx, paths[i, path_pos[i]] // w - ty)
            else:
                frac = step / max(dist, 1e-12)
                pos[i, 0] += dx * frac
                pos[i, 1] += dy * frac
            cx = cell_of(pos[i, 0])  # where it stands now: half way along a step, the next cell
            cy = cell_of(pos[i, 1])
            if not stands[species[i], terrain[cy, cx]]:  # squeezing past a corner (see _off_corner)
                ox, oy = np.int64(cell[i, 0]), np.int64(cell[i, 1])
                pos[i, 0], pos[i, 1] = _off_corner(pos[i, 0], pos[i, 1], cx, cy, ox, oy, np.int64(tx), np.int64(ty))
                cx = cell_of(pos[i, 0])
                cy = cell_of(pos[i, 1])
                if not stands[species[i], terrain[cy, cx]]:  # (pushed off its way: back where it stood, to plan anew)
                    pos[i, 0], pos[i, 1] = ox, oy
                    cx, cy = ox, oy
                    state[i] = State.REPLAN
            cell[i, 0] = cx
            cell[i, 1] = cy
            aim[i] = paths[i, min(path_pos[i], path_len[i] - 1)]
            leg[i] = paths[i, max(min(path_pos[i], path_len[i] - 1) - 1, 0)]
    return k
