"""Requests and searches: who asks for a path this frame, where it wants to go, and serving the queue.

An idle animal whose rest and cooldown are over picks a goal within its wander radius
*in its own connected region* (so a goal it can never reach is known before any
search) and joins the queue. The queue is served oldest first, in rounds: the oldest
requests are grouped by species and each group is served by one compiled function, from
the region check through the engine's batch kernel (``search_many`` without the boundary
checks) and smoothing to the answers in the round's arrays. A round is a single call from
Python for all its species; a large one is cut into one such call per worker thread.
The budget then takes the searches in queue order until it is spent and the
rest wait, never dropped. A search that
fails or hits ``max_nodes`` still gives a partial path: the animal walks to the
closest point it reached. Everything here works on arrays: no Python per animal.
"""

from __future__ import annotations

import itertools
import math
import time
from typing import TYPE_CHECKING, NamedTuple

import numpy as np
from numba import njit

from sim.model.agents import Agents, Outcome, State, heading_of
from sim.model.observe import Round, SearchBatch, SearchObserver
from sim.model.scheduler import SearchBudget, SearchQueue
from sim.model.stats import FrameStats
from sim.pathfinding import STATUS_FOUND, STATUS_HIT_LIMIT, ChangeCursor
from sim.pathfinding.batch import MIN_SPLIT
from sim.pathfinding.compiled import KernelParams
from sim.pathfinding.field import smooth_all
from sim.pathfinding.interpreted import search_interpreted
from sim.pathfinding.kernel import jumps, search_batch
from sim.pathfinding.workspace import run_split, thread_count, workspace
from sim.support.platform import monotonic_s

if TYPE_CHECKING:
    from sim.model.species import SpeciesRuntime

ROUND_MAX = 4096  # requests looked at per round at most
ROUND_MIN = 8
PARALLEL_ROUND = 128  # from this many requests (or MIN_SPLIT of one species) a round is cut across the threads
_ONE = np.zeros(1, dtype=np.int64)
_OTHER_REGION = int(Outcome.OTHER_REGION)
_FOUND = int(Outcome.FOUND)
_NO_CELLS = np.zeros(0, dtype=np.int32)
_NO_REST = np.zeros(0, dtype=np.float64)
_OUTCOME_OF_STATUS = np.full(8, int(Outcome.FAILED), dtype=np.int8)  # engine status -> Outcome
_OUTCOME_OF_STATUS[STATUS_FOUND] = Outcome.FOUND
_OUTCOME_OF_STATUS[STATUS_HIT_LIMIT] = Outcome.CAPPED


class RoundShape(NamedTuple):
    """How a round was served: the rows of each compiled round call (one call on one thread, or
    one a thread), or the number of per-species jobs (kinds with Python hooks or unlike arrays)."""

    calls: tuple[int, ...]
    jobs: int


class Kind(NamedTuple):
    """What :func:`_round` needs of one species to run its batch (by name: a positional
    tuple once read the wrong entry after a field was added, and corrupted memory)."""

    labels: np.ndarray  # its regions
    codes: np.ndarray  # its grid, as the kernels take it (GridArgs) ...
    lut: np.ndarray
    moves: np.ndarray
    padded_width: int
    blocks: np.ndarray
    width: int  # ... and the map's width
    params: KernelParams  # its search's parameters, handed on whole: the kernels unpack them
    straight: bool  # its paths are pulled straight


class Planner:
    """Turns ready animals into requests and requests into paths."""

    def __init__(self, agents: Agents, species: list[SpeciesRuntime], rng: np.random.Generator,
                 queue: SearchQueue, budget: SearchBudget) -> None:  # fmt: skip
        self.agents = agents
        self.species = species
        self.rng = rng
        self.queue = queue
        self.budget = budget
        self.threads: int | None = None  # None: the engine's default (every core)
        # True while the compiled kernels are being compiled (a first start): searches are served by
        # the interpreted search within the same budget, fewer a frame (see sim.prepare).
        self.interpreted = False
        # False while another process still compiles the round with JPS (a window's first start,
        # sim.prepare): species that choose JPS search with A* meanwhile (same costs), instead of
        # the window freezing while this process compiles it too. A headless run never defers.
        self.jps_ready = True
        self.round_shape = RoundShape((), 0)  # how the last round was served (read by tests, benchmarks)
        self._mean_charge_ms = 0.05  # running estimate of one search's charge (sizes the rounds)
        self._kinds_for: tuple | None = None  # what the last _kinds() was built from, and what it built
        self._changes: list[ChangeCursor] = []  # its worlds' changes since then

    # ------------------------------------------------------------------ requests
    def request(self, now: float) -> None:
        """Queue every animal that is ready to search (picking goals for the idle ones)."""
        a = self.agents
        st = a.store
        n_species = len(self.species)
        # The ready rows, and the idle ones among them grouped by species (positions in ``rows``).
        rows, idle_at, bounds = _ready(a.n, now, st["state"], st["idle_until"], st["next_search_at"], st["herd"],
                                       st["species"], n_species)  # fmt: skip
        if rows.size == 0:
            return
        keep = np.ones(rows.size, dtype=np.bool_)
        if idle_at.size:
            for sp in self.species:
                lo, hi = bounds[sp.index], bounds[sp.index + 1]
                if hi > lo:
                    mine = idle_at[lo:hi]
                    # Goals go straight into the animals' goal column; ``keep`` is False where none was found.
                    sp.choose_goals(rows[mine], st["cell"], st["goal"], mine, keep, self.rng)
        # Those with nowhere to go from here rest again (per species); the others join the queue.
        rest = _NO_REST if keep.all() else np.array([sp.spec.idle_s[1] for sp in self.species], dtype=np.float64)
        self.queue.push(_queue_up(rows, keep, now, rest, st["species"], st["state"], st["idle_until"],
                                  st["requested_at"]))  # fmt: skip

    # ------------------------------------------------------------------ serving
    def serve(self, now: float, stats: FrameStats, observer: SearchObserver, spent: float = 0.0) -> None:
        """Serve the queue, oldest first, within what is left of the frame's budget (``spent`` ms are gone)."""
        served = 0
        budget = self.budget
        while len(self.queue) and (served == 0 or spent < budget.budget_ms):
            n = self._round_size(spent)
            rnd = self._search(self.queue.peek(n), observer.wants_trace)
            if budget.clock == "model":
                take, spent, mean = budget.charge(spent, rnd.expanded, served == 0)
                self._mean_charge_ms = 0.9 * self._mean_charge_ms + 0.1 * mean
            else:
                take = rnd.rows.size  # already run: the wall clock charges it all
                spent += rnd.ms
                self._mean_charge_ms = 0.9 * self._mean_charge_ms + 0.1 * rnd.ms / max(1, rnd.rows.size)
            self._accept(rnd, take, now, stats, observer)
            self.queue.pop(take)
            served += take
            if take < rnd.rows.size:
                break
        stats.waiting = len(self.queue)

    def search_rows(self, rows: np.ndarray, want_trace: bool = False) -> Round:
        """Search the requests of animals ``rows`` (their cells to their goals) at once, as a
        round does, without serving them: the answers only (used to compile the round)."""
        return self._search(np.asarray(rows, dtype=np.int64), want_trace)

    def _round_size(self, spent_ms: float) -> int:
        """Requests to search in the next round: what the rest of the budget should hold, plus a few."""
        left = max(0.0, self.budget.budget_ms - spent_ms)
        estimate = math.ceil(left / max(self._mean_charge_ms, 1e-4)) + 2
        return int(min(ROUND_MAX, max(1 if self.interpreted else ROUND_MIN, estimate)))

    def _search(self, rows: np.ndarray, want_trace: bool) -> Round:
        """Search the requests ``rows`` (per species, one compiled function each); results in ``rows`` order.

        A round is one call from Python into compiled code for all its species (:func:`_round`);
        a large one is cut into one contiguous part per worker thread, each such a call (the
        kernels release the GIL). Kinds with per-edge Python hooks, or whose arrays differ in
        type, are served species by species (:func:`_job`). An answer never depends on the
        thread that ran it.
        """
        a = self.agents
        t0 = time.perf_counter()
        k = rows.size
        species_of = a.species[rows]
        if self.interpreted:
            self.round_shape = RoundShape((), 0)
            return _interpreted_round(self.species, a.cell, a.goal, rows, species_of, t0)
        threads = self.threads or thread_count()
        # A round the threads would not share: too small to pay for handing work over.
        serial = threads == 1 or (k < PARALLEL_ROUND and (k < MIN_SPLIT or np.bincount(species_of).max() < MIN_SPLIT))
        kinds = self._kinds()
        if kinds is not None:
            if serial:
                parts = [_part(rows, species_of, a.cell, a.goal, kinds, want_trace)]
            else:
                bounds = np.linspace(0, k, threads + 1).astype(int)
                parts = run_split(_part, [(rows[lo:hi], species_of[lo:hi], a.cell, a.goal, kinds, want_trace)
                                          for lo, hi in itertools.pairwise(bounds) if hi > lo], threads)  # fmt: skip
            self.round_shape = RoundShape(tuple(int(p[0].size) for p in parts), 0)
            return _joined(rows, species_of, parts, want_trace, t0)
        return self._search_by_species(rows, species_of, threads, want_trace, t0)

    def _search_by_species(self, rows: np.ndarray, species_of: np.ndarray, threads: int, want_trace: bool,
                           t0: float) -> Round:  # fmt: skip
        """:meth:`_search` for kinds the one call cannot take: a job per species (:func:`_job`),
        a large species' batch cut into pieces for the threads."""
        a = self.agents
        k = rows.size
        if k == 1:
            groups = [(int(species_of[0]), _ONE)]
        else:  # the rows of each species, in queue order
            order = np.argsort(species_of, kind="stable")
            ends = np.cumsum(np.bincount(species_of, minlength=len(self.species))).tolist()
            bounds = zip([0, *ends[:-1]], ends, strict=True)
            groups = [(s, order[lo:hi]) for s, (lo, hi) in enumerate(bounds) if hi > lo]
        jobs = []  # (species, positions in rows): a large species batch is split across the threads
        for s, pos in groups:
            split = threads if threads > 1 and pos.size >= MIN_SPLIT and not want_trace else 1
            jobs += [(self.species[s], part) for part in (np.array_split(pos, split) if split > 1 else (pos,))]
        out = (
            np.full(k, _OTHER_REGION, dtype=np.int8),  # outcome: other region unless searched
            np.zeros(k, dtype=np.int64),  # expanded
            np.full(k, np.nan),  # cost
            np.zeros(k, dtype=np.int64),  # path_at
            np.zeros(k, dtype=np.int64),  # path_n
        )
        common = (rows, a.cell, a.goal, want_trace, self.jps_ready, out)
        self.round_shape = RoundShape((), len(jobs))
        if threads > 1 and len(jobs) > 1 and (k >= PARALLEL_ROUND or len(jobs) > len(groups)):
            done = run_split(_job, [(sp, pos, *common) for sp, pos in jobs], threads)
        else:
            done = [_job(sp, pos, *common) for sp, pos in jobs]
        outcome, expanded, cost, path_at, path_n = out
        pieces, traces, species_ms, base = [], {}, {}, 0
        for (sp, _pos), (searched, paths, trace, ms) in zip(jobs, done, strict=True):
            if base:  # each job's paths start at 0 in its own array: place them after the previous ones
                path_at[searched] += base
            pieces.append(paths)
            base += paths.size
            species_ms[sp.index] = species_ms.get(sp.index, 0.0) + ms
            if trace is not None:
                traces[sp.index] = trace
        paths = pieces[0] if len(pieces) == 1 else np.concatenate(pieces) if pieces else _NO_CELLS
        return Round(rows, outcome, expanded, cost, paths, path_at, path_n, traces, species_ms,
                     (time.perf_counter() - t0) * 1000.0)  # fmt: skip

    def _kinds(self) -> tuple | None:
        """Per species, what :func:`_round` needs to run its batch: a :class:`Kind`. None when a kind has
        per-edge Python hooks, or when the kinds' grids' codes or regions' labels differ in
        type (one compiled call takes the kinds as one tuple of like tuples; the other arrays'
        types are fixed). The thread that runs them makes its workspace ready (:func:`_part`).

        Building it costs ~30 µs a round with cold caches (a fifth of a 500-animal round), so
        it is kept while nothing it is built from changes: each species, its engine and the
        settings the engine reads, and the worlds' changes (painting: the grids and the
        regions follow them), followed with a :class:`~sim.pathfinding.ChangeCursor` each."""
        key = (self.jps_ready, *(_kind_key(sp) for sp in self.species))
        painted = [cursor.take() != [] for cursor in self._changes]  # every cursor moves on
        if self._kinds_for is not None and self._kinds_for[0] == key and not any(painted):
            return self._kinds_for[1]
        kinds = self._build_kinds()
        # The objects are kept with their ids, so no new object can take an id of the key.
        self._kinds_for = (key, kinds, [*self.species, *(sp.astar for sp in self.species)])
        worlds = {id(w): w for sp in self.species for w in (sp.world, sp.astar.world)}
        self._changes = [ChangeCursor(w) for w in worlds.values()]
        for cursor in self._changes:
            cursor.take()  # from now on
        return kinds

    def _build_kinds(self) -> tuple | None:
        """:meth:`_kinds`, built afresh."""
        kinds = []
        for sp in self.species:
            astar = sp.astar
            if astar.has_python_hooks:
                return None
            grid, (codes, lut, moves, padded_width, blocks), params = astar.compiled_batch(self.jps_ready)
            labels = sp.regions
            if kinds and (codes.dtype != kinds[0].codes.dtype or labels.dtype != kinds[0].labels.dtype):
                return None
            kinds.append(Kind(labels, codes, lut, moves, padded_width, blocks, grid.width, params,
                              bool(sp.kind.straight_paths)))  # fmt: skip
        if any(k.blocks.dtype == np.uint64 for k in kinds):  # a kind jumps: every kind's bits in its type
            kinds = [k._replace(blocks=np.zeros((4, 0, 0), np.uint64)) if k.blocks.dtype != np.uint64 else k
                     for k in kinds]  # fmt: skip
        return tuple(kinds) if kinds else None

    def _accept(self, rnd: Round, take: int, now: float, stats: FrameStats, observer: SearchObserver) -> None:
        """The first ``take`` searches of the round are served: write them into the animals."""
        a = self.agents
        st = a.store
        # A search's time is not measured alone inside a batch: each gets its share by work
        # done (its expansions + 30), of the round's ms scaled to the part served.
        _write_back(
            rnd.rows, take, rnd.outcome, rnd.expanded, rnd.cost, rnd.paths, rnd.path_at, rnd.path_n, rnd.ms, now,
            st["state"], st["searches"], st["cell"], st["goal"], st["last_start"], st["last_goal"],
            st["last_search_at"], st["next_search_at"], st["cooldown"], st["last_expanded"], st["last_cost"],
            st["last_outcome"], st["last_ms"], st["paths"], st["path_len"], st["path_pos"], st["idle_until"],
            st["heading"], self.species[0].world.width,
        )  # fmt: skip
        rows = rnd.rows[:take]
        # An animal that searched from off its cell's centre (pushed, or stopped mid-step) first
        # walks to that centre, inside the cell it stands in: every step it takes is the path's.
        off = rows[(st["state"][rows] == State.WALKING) & (st["pos"][rows] != st["cell"][rows]).any(axis=1)]
        st["path_pos"][off] = 0
        stats.add_round(self.species, a.species[rows], rnd.outcome[:take], rnd.expanded[:take], rnd, take,
                        now - a.requested_at[rows])  # fmt: skip
        if observer.listening:
            self._report(rnd, take, now, observer)

    def _report(self, rnd: Round, take: int, now: float, observer: SearchObserver) -> None:
        """One :class:`SearchBatch` per species for the observer (the served searches only)."""
        a = self.agents
        species_of = a.species[rnd.rows[:take]]
        width = self.species[0].world.width if self.species else 0
        for sp in self.species:
            pos = np.flatnonzero(species_of == sp.index)
            if pos.size == 0:
                continue
            rows = rnd.rows[pos]
            cells, offsets = _gather(rnd.paths, rnd.path_at, rnd.path_n, pos)
            trace = None
            if sp.index in rnd.trace:
                searched, cells_traced, trace_offsets = rnd.trace[sp.index]
                trace = cells_traced[: trace_offsets[np.searchsorted(searched, take)]]  # the served ones: a prefix
            observer.searched(
                SearchBatch(now, sp.index, rows, a.last_start[rows], a.last_goal[rows], rnd.outcome[pos],
                            rnd.expanded[pos], rnd.cost[pos], cells, offsets, width, trace)
            )  # fmt: skip


def _joined(rows: np.ndarray, species_of: np.ndarray, parts: list[tuple], want_trace: bool,
        t0: float) -> Round:  # fmt: skip
    """The round from its parts' :func:`_round` answers (contiguous, in order): paths and
    traces placed one after the other, each species' ms summed over the parts."""
    species_ms: dict[int, float] = {}
    for part in parts:
        for s, t in enumerate(part[6].tolist()):
            if t >= 0.0:
                species_ms[s] = species_ms.get(s, 0.0) + t
    if len(parts) == 1:
        outcome, expanded, cost, paths, path_at, path_n, _ms, cells, trace_at, trace_n = parts[0]
    else:
        counts = [p[0].size for p in parts]
        path_base = np.cumsum([0] + [p[3].size for p in parts[:-1]])
        trace_base = np.cumsum([0] + [p[7].size for p in parts[:-1]])
        outcome, expanded, cost, paths, path_at, path_n, cells, trace_at, trace_n = (
            np.concatenate([p[i] for p in parts]) for i in (0, 1, 2, 3, 4, 5, 7, 8, 9)
        )
        path_at += np.repeat(path_base, counts)
        trace_at += np.repeat(trace_base, counts)
    traces = {}
    if want_trace:  # per species: (its searched positions in rows, their cells expanded, offsets)
        searched = outcome != _OTHER_REGION
        for s in species_ms:
            pos = np.flatnonzero((species_of == s) & searched)
            traces[s] = (pos, *_gather(cells, trace_at, trace_n, pos))
    return Round(rows, outcome, expanded, cost, paths, path_at, path_n, traces, species_ms,
                 (time.perf_counter() - t0) * 1000.0)  # fmt: skip


def _kind_key(sp: SpeciesRuntime) -> tuple:
    """Everything :meth:`Planner._build_kinds` reads from ``sp`` that can change between rounds
    (objects by identity: a world compares its terrain, not itself)."""
    astar = sp.astar
    return (id(sp), id(sp.kind), id(astar), id(astar.world), id(sp.world), astar.diagonal, astar.heuristic_name,
            astar.max_nodes, astar.use_jps)  # fmt: skip


def _interpreted_round(species: list[SpeciesRuntime], cell: np.ndarray, goal: np.ndarray, rows: np.ndarray,
                       species_of: np.ndarray, t0: float) -> Round:  # fmt: skip
    """:meth:`Planner._search` while the kernels compile: each request by the engine's
    interpreted search (same costs and rules; no traces, flyers' paths not pulled straight)."""
    k = rows.size
    outcome = np.full(k, _OTHER_REGION, dtype=np.int8)
    expanded = np.zeros(k, dtype=np.int64)
    cost = np.full(k, np.nan)
    path_at = np.zeros(k, dtype=np.int64)
    path_n = np.zeros(k, dtype=np.int64)
    pieces: list[list[int]] = []
    at = 0
    species_ms: dict[int, float] = {}
    for j in range(k):
        t = time.perf_counter()
        i, sp = int(rows[j]), species[int(species_of[j])]
        (sx, sy), (gx, gy) = cell[i].tolist(), goal[i].tolist()
        labels = sp.regions
        if labels[sy, sx] == 0 or labels[sy, sx] != labels[gy, gx]:
            continue
        _grid, (codes, lut, moves, wp, _blocks), params = sp.astar.compiled_batch()
        status, expanded[j], c, path = search_interpreted(
            codes, lut, moves, wp, (sy + 1) * wp + sx + 1, (gy + 1) * wp + gx + 1, params
        )
        outcome[j] = _OUTCOME_OF_STATUS[status]
        cost[j] = c if outcome[j] == _FOUND else np.nan
        path_at[j], path_n[j] = at, len(path)
        pieces.append(path)
        at += len(path)
        species_ms[sp.index] = species_ms.get(sp.index, 0.0) + (time.perf_counter() - t) * 1000.0
    paths = np.fromiter(itertools.chain.from_iterable(pieces), dtype=np.int32, count=at)
    return Round(rows, outcome, expanded, cost, paths, path_at, path_n, {}, species_ms,
                 (time.perf_counter() - t0) * 1000.0)  # fmt: skip


def _gather(cells: np.ndarray, path_at: np.ndarray, path_n: np.ndarray, pos: np.ndarray) -> tuple:
    """The paths of rows ``pos`` as their own cells and offsets."""
    lengths = path_n[pos]
    out_offsets = np.concatenate(([0], np.cumsum(lengths))).astype(np.int64)
    idx = np.repeat(path_at[pos], lengths) + (np.arange(int(out_offsets[-1])) - np.repeat(out_offsets[:-1], lengths))
    return cells[idx], out_offsets


def _part(rows: np.ndarray, species_of: np.ndarray, cell: np.ndarray, goal: np.ndarray, kinds: tuple,
          want_trace: bool) -> tuple:  # fmt: skip
    """Requests ``rows`` (of species ``species_of``) in one compiled call on this thread, with
    its workspace made ready for every kind's grid. Returns :func:`_round`'s answers, without
    the workspace's stamps (kept in the workspace)."""
    ws = workspace()
    for kind in kinds:
        ws.ensure(kind.codes.size, jps=jumps(kind.params.mode))
    ws.room_for(rows.size)
    *answers, ws.gen, ws.heap, ws.buckets, ws.hgen = _round(
        rows, species_of, cell, goal, kinds, ws.g, ws.parent, ws.jump_parent, ws.mark, ws.gen, ws.heap, ws.buckets,
        ws.hgen, ws.stats, _OUTCOME_OF_STATUS, want_trace,
    )  # fmt: skip
    return tuple(answers)


def _job(sp: SpeciesRuntime, pos: np.ndarray, rows: np.ndarray, cell: np.ndarray, goal: np.ndarray,
         want_trace: bool, jps_ready: bool, out: tuple) -> tuple:  # fmt: skip
    """Species ``sp``'s requests at positions ``pos`` of ``rows``: searched (paths pulled
    straight for kinds that fly; A* where ``jps_ready`` is false, see ``Planner.jps_ready``),
    the answers written into ``out`` (the round's outcome,
    expanded, cost, path_at, path_n; ``path_at`` counts from the start of the returned paths).
    Returns ``(positions searched, paths, (positions, trace, trace offsets) or None, wall ms)``."""
    t0 = time.perf_counter()
    astar = sp.astar
    if astar.has_python_hooks:  # per-edge Python hooks: through the engine's batch API
        searched, flat_s, flat_t = _queries(pos, rows, cell, goal, sp.regions, astar.grid.width + 2)
        result, (trace, trace_offsets) = astar.search_padded(flat_s, flat_t, trace=want_trace, threads=1)
        if sp.kind.straight_paths:  # same cost, pulled straight
            result = astar.smooth_batch(result)
        _scatter(searched, result.status, result.expanded, result.cost, result.offsets, _OUTCOME_OF_STATUS, *out)
        paths = result.paths
    else:
        # One compiled call from the requests to the written answers: each call from Python
        # costs tens of µs once drawing has pushed the interpreter out of the CPU's caches.
        grid, grid_args, params = astar.compiled_batch(jps_ready)
        ws = workspace()
        ws.ensure(grid.cells, jps=jumps(params.mode))
        ws.room_for(pos.size)
        searched, ws.gen, ws.heap, ws.buckets, ws.hgen, paths, trace, trace_offsets = _species_round(
            pos, rows, cell, goal, sp.regions, *grid_args, grid.width, params, ws.g, ws.parent, ws.jump_parent,
            ws.mark, ws.gen, ws.heap, ws.buckets, ws.hgen, ws.stats, want_trace, sp.kind.straight_paths,
            _OUTCOME_OF_STATUS, *out,
        )  # fmt: skip
    traced = (searched, trace, trace_offsets) if want_trace else None
    return searched, paths, traced, (time.perf_counter() - t0) * 1000.0


@njit(cache=True, nogil=True)
def _species_round(
    pos, rows, cell, goal, labels, codes, lut, moves, padded_width, blocks, width, params,
    g, parent, jump_parent, mark, gen, heap, buckets, hgen, stats, tracing, straight,
    outcome_of_status, outcome, expanded, cost, path_at, path_n,
):  # fmt: skip
    """:func:`_job` for a kind without hooks, compiled: the region check (:func:`_queries`),
    the batch (``kernel.search_batch``), smoothing (``field.smooth_all``) and
    :func:`_scatter`. Returns ``(searched, gen, heap, buckets, hgen, paths, trace, trace_offsets)``."""
    searched, flat_s, flat_t = _queries(pos, rows, cell, goal, labels, padded_width)
    # No node budget, as an int64, not the literal -1: the engine's batch compiled from Python
    # (sim.prepare compiles it that way first, in a process of its own) then serves here too.
    no_budget = np.int64(-1)
    _served, gen, heap, buckets, hgen, status, c, exp, offsets, paths, trace, trace_offsets = search_batch(
        codes, lut, moves, padded_width, blocks, flat_s, flat_t, params,
        no_budget, g, parent, jump_parent, mark, gen, heap, buckets, hgen, tracing, stats,
    )  # fmt: skip
    paths = paths[: offsets[-1]]
    if straight:  # same cost, pulled straight
        out, out_offsets, _ways = smooth_all(codes, lut, moves, padded_width, width, paths, offsets)
        paths, offsets = out[: out_offsets[-1]], out_offsets
    _scatter(searched, status, exp, c, offsets, outcome_of_status, outcome, expanded, cost, path_at, path_n)
    return searched, gen, heap, buckets, hgen, paths, trace[: trace_offsets[-1]], trace_offsets


@njit(cache=True, nogil=True)
def _round(rows, species_of, cell, goal, kinds, g, parent, jump_parent, mark, gen, heap, buckets, hgen, stats,
           outcome_of_status, tracing):  # fmt: skip
    """A whole round on this thread in one compiled call: :func:`_species_round` for each
    species with requests in ``rows`` (``kinds[s]`` from :meth:`Planner._kinds`), in species
    order, the rows of each in queue order, their paths joined end to end, without Python
    between the species' calls (~100 µs a round at 20,000 animals, with the drawing's cold
    caches). With ``tracing``, the cells each search expanded too: row ``j``'s are
    ``traces[trace_at[j] : trace_at[j] + trace_n[j]]``. Returns ``(outcome, expanded, cost,
    paths, path_at, path_n, ms per species (-1: none asked), traces, trace_at, trace_n, gen,
    heap, buckets, hgen)``."""
    k = rows.size
    n_species = len(kinds)
    outcome = np.full(k, _OTHER_REGION, np.int8)
    expanded = np.zeros(k, np.int64)
    cost = np.full(k, np.nan)
    path_at = np.zeros(k, np.int64)
    path_n = np.zeros(k, np.int64)
    ms = np.full(n_species, -1.0)
    bounds = np.zeros(n_species + 1, np.int64)  # the rows of species s: order[bounds[s]:bounds[s + 1]]
    for j in range(k):
        bounds[species_of[j] + 1] += 1
    for s in range(n_species):
        bounds[s + 1] += bounds[s]
    order = np.empty(k, np.int64)
    fill = bounds[:n_species].copy()
    for j in range(k):
        order[fill[species_of[j]]] = j
        fill[species_of[j]] += 1
    trace_at = np.zeros(k, np.int64)
    trace_n = np.zeros(k, np.int64)
    # Not the global _NO_CELLS: numba types globals read-only, and _write_back would then need a
    # second compiled version for these paths (~1 MB more code loaded).
    paths = np.empty(0, np.int32)
    traces = np.empty(0, np.int32)
    for s in range(n_species):
        if bounds[s + 1] == bounds[s]:
            continue
        t0 = monotonic_s()
        k = kinds[s]
        searched, gen, heap, buckets, hgen, mine, trace, trace_offsets = _species_round(
            order[bounds[s] : bounds[s + 1]], rows, cell, goal, k.labels, k.codes, k.lut, k.moves, k.padded_width,
            k.blocks, k.width, k.params, g, parent,
            jump_parent, mark, gen, heap, buckets, hgen, stats, tracing, k.straight, outcome_of_status, outcome,
            expanded, cost, path_at, path_n,
        )  # fmt: skip
        if tracing:
            for i in range(searched.size):
                trace_at[searched[i]] = traces.size + trace_offsets[i]
                trace_n[searched[i]] = trace_offsets[i + 1] - trace_offsets[i]
            traces = np.concatenate((traces, trace))
        if paths.size:  # this batch's paths start at 0 in its own array: after the previous ones
            for j in searched:
                path_at[j] += paths.size
            paths = np.concatenate((paths, mine))
        else:
            paths = mine
        ms[s] = (monotonic_s() - t0) * 1000.0
    return outcome, expanded, cost, paths, path_at, path_n, ms, traces, trace_at, trace_n, gen, heap, buckets, hgen


@njit(cache=True)
def _queries(pos, rows, cell, goal, labels, padded_width):
    """Of the requests at positions ``pos`` of ``rows``, those whose start and goal share a
    region (``labels``), with both as padded cells ``(y + 1) * padded_width + x + 1``."""
    keep = np.empty(pos.size, np.int64)
    flat_s = np.empty(pos.size, np.int64)
    flat_t = np.empty(pos.size, np.int64)
    n = 0
    for j in range(pos.size):
        i = rows[pos[j]]
        sx, sy, gx, gy = cell[i, 0], cell[i, 1], goal[i, 0], goal[i, 1]
        here = labels[sy, sx]
        if here != 0 and here == labels[gy, gx]:
            keep[n] = pos[j]
            flat_s[n] = (sy + 1) * padded_width + sx + 1
            flat_t[n] = (gy + 1) * padded_width + gx + 1
            n += 1
    return keep[:n], flat_s[:n], flat_t[:n]


@njit(cache=True)
def _scatter(pos, status, expanded, cost, offsets, outcome_of_status, outcome_out, expanded_out, cost_out,
             path_at, path_n):  # fmt: skip
    """One species batch's answers into the round's rows ``pos`` (``path_at`` from the start of
    the batch's own paths)."""
    for j in range(pos.size):
        r = pos[j]
        outcome_out[r] = outcome_of_status[status[j]]
        expanded_out[r] = expanded[j]
        cost_out[r] = cost[j] if outcome_out[r] == _FOUND else np.nan
        path_at[r] = offsets[j]
        path_n[r] = offsets[j + 1] - offsets[j]


@njit(cache=True)
def _ready(n, now, state, idle_until, next_search_at, herd, species, n_species):
    """Animals ready to search (rested and cooled down, or sent to re-plan), not those called
    to a herd (its field gives them their paths). Returns ``(rows, idle_at, bounds)``: the
    positions in ``rows`` of the idle ones, grouped by species in order (species ``s`` has
    ``idle_at[bounds[s]:bounds[s + 1]]``)."""
    rows = np.empty(n, dtype=np.int64)
    counts = np.zeros(n_species + 1, dtype=np.int64)
    k = 0
    for i in range(n):
        s = state[i]
        if next_search_at[i] > now or herd[i] > 0:
            continue
        if s == State.REPLAN or (s == State.IDLE and idle_until[i] <= now):
            rows[k] = i
            if s == State.IDLE:
                counts[species[i] + 1] += 1
            k += 1
    bounds = np.cumsum(counts)
    idle_at = np.empty(bounds[n_species], dtype=np.int64)
    fill = bounds[:n_species].copy()
    for j in range(k):
        i = rows[j]
        if state[i] == State.IDLE:
            idle_at[fill[species[i]]] = j
            fill[species[i]] += 1
    return rows[:k], idle_at, bounds


@njit(cache=True)
def _queue_up(rows, keep, now, rest_s, species, state, idle_until, requested_at):
    """The rows to queue (``keep``), marked queued at ``now``; the others rest ``rest_s[species]`` more."""
    out = np.empty(rows.size, dtype=np.int64)
    k = 0
    for j in range(rows.size):
        i = rows[j]
        if keep[j]:
            state[i] = State.QUEUED
            requested_at[i] = now
            out[k] = i
            k += 1
        else:
            idle_until[i] = now + rest_s[species[i]]
    return out[:k]


@njit(cache=True)
def _write_back(
    rows, take, outcome, expanded, cost, paths, path_at, path_n, round_ms, now, state, searches, cell, goal,
    last_start, last_goal, last_search_at, next_search_at, cooldown, last_expanded, last_cost, last_outcome,
    last_ms, path_store, path_len, path_pos, idle_until, heading, width,
):  # fmt: skip
    """The round's first ``take`` searches into the animals' arrays: the path to walk
    (truncated to the buffer), or rest; each is charged its share of ``round_ms``."""
    capacity = path_store.shape[1]
    weight = 0.0
    for j in range(take):
        weight += expanded[j] + 30.0
    scale = round_ms / max(weight, 1.0) * (take / max(1, rows.size))
    for j in range(take):
        i = rows[j]
        searches[i] += 1
        last_start[i, 0] = cell[i, 0]
        last_start[i, 1] = cell[i, 1]
        last_goal[i, 0] = goal[i, 0]
        last_goal[i, 1] = goal[i, 1]
        last_search_at[i] = now
        next_search_at[i] = now + cooldown[i]
        last_expanded[i] = expanded[j]
        last_cost[i] = cost[j]
        last_outcome[i] = outcome[j]
        last_ms[i] = scale * (expanded[j] + 30.0)
        n = path_n[j]
        at = path_at[j]
        if n > 1:
            n = min(n, capacity)
            for c in range(n):
                path_store[i, c] = paths[at + c]
            path_len[i] = n
            path_pos[i] = 1  # index 0 is where it stands
            state[i] = State.WALKING
            heading[i] = heading_of(paths[at + 1] % width - cell[i, 0], paths[at + 1] // width - cell[i, 1])
        else:
            path_len[i] = 0
            path_pos[i] = 0
            state[i] = State.IDLE
            idle_until[i] = now
