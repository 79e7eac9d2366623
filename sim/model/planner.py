"""Requests and searches: who asks for a path this frame, where it wants to go, and serving the queue.

The planner is policy: who asks, when, and with what budget. An idle animal whose rest and
cooldown are over picks a goal within its wander radius *in its own connected region* (so a
goal it can never reach is known before any search) and joins the queue. The queue is served
oldest first, in rounds: each round is the engine's (:class:`~sim.pathfinding.SearchRound`: all
species' requests in one compiled call, a large round one call per worker thread). The budget
then takes the searches in queue order until it is spent and the rest wait, never dropped. A
search that fails or hits ``max_nodes`` still gives a partial path: the animal walks to the
closest point it reached. Everything here works on arrays: no Python per animal.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple, Protocol

import numpy as np
from numba import njit

from sim.model.agents import Agents, Outcome, State, heading_of
from sim.model.observe import Round, SearchBatch, SearchObserver
from sim.model.scheduler import SearchBudget, SearchQueue
from sim.model.species import GOAL_TRIES
from sim.model.stats import FrameStats
from sim.pathfinding import (
    STATUS_FOUND,
    STATUS_HIT_LIMIT,
    STATUS_OTHER_REGION,
    KernelParams,
    RoundKind,
    RoundShape,
    SearchRound,
    gather,
)

if TYPE_CHECKING:
    from sim.model.species import SpeciesRuntime

ROUND_MAX = 4096  # requests looked at per round at most
#: An idle animal asks for a new wander only while the queue is served within this many seconds
#: (at the budget's pace): more ask than can be served (a crowd of 100,000 starting at once), and
#: the rest wait to ask, so an answer comes within it instead of seconds later (issue #44).
MAX_WAIT_S = 0.5
#: The queue is filled for this share of MAX_WAIT_S only: the pace is estimated from the searches
#: served so far, and later ones may cost more (a crowd spreading out asks for longer paths; with
#: 1.0, 6,000 animals starting at once waited up to 0.63 s).
PACE_MARGIN = 0.8
ROUND_MIN = 8
_FOUND = int(Outcome.FOUND)
_NO_REST = np.zeros(0, dtype=np.float64)
_OUTCOME_OF_STATUS = np.full(8, int(Outcome.FAILED), dtype=np.int8)  # engine status -> Outcome
_OUTCOME_OF_STATUS[STATUS_FOUND] = Outcome.FOUND
_OUTCOME_OF_STATUS[STATUS_HIT_LIMIT] = Outcome.CAPPED
_OUTCOME_OF_STATUS[STATUS_OTHER_REGION] = Outcome.OTHER_REGION


class Readiness(Protocol):
    """Answers whether a stage of compiled code can run now (see ``sim.prepare.Kernels``)."""

    def ready(self, stage: str) -> bool: ...


@dataclass(frozen=True)
class Ready:
    """A :class:`Readiness` that gives the same answers every time: every stage ready but those
    in ``not_ready`` (``"round"``: search interpreted; ``"jps-round"``: A* for species that
    choose JPS; ``"crowd"``: the animals do not keep their distance). The default: compiled code
    compiles on first use in this process."""

    not_ready: frozenset[str] = frozenset()

    def ready(self, stage: str) -> bool:
        return stage not in self.not_ready


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
        #: Who says which compiled code is ready (``sim.prepare.Kernels`` in the demo; by default
        #: everything, compiled on first use in this process).
        self.kernels: Readiness = Ready()
        self.rounds = SearchRound()  # the engine's rounds (it keeps what it compiled of the species)
        # Running estimate of one search's charge (sizes the rounds and the queue's room): from
        # the budget's own charges for a search of 256 cells (on the safe side: the queue is kept
        # short) until rounds have measured it.
        self._mean_charge_ms = (budget.call_cost_us + 256 * budget.node_cost_us) / 1000.0

    @property
    def interpreted(self) -> bool:
        """Whether searches run interpreted (the compiled round is not ready yet: a first start):
        served within the same budget, fewer a frame."""
        return not self.kernels.ready("round")

    @property
    def jps_ready(self) -> bool:
        """Whether species that choose JPS search with it (else with A*, the same costs: while another
        process still compiles the round with JPS, instead of the window freezing to compile it)."""
        return self.kernels.ready("jps-round")

    # ------------------------------------------------------------------ requests
    def request(self, now: float, dt: float = 0.0) -> int:
        """Queue every animal that is ready to search (picking goals for the idle ones), but no more
        idle ones than the queue can serve within :data:`MAX_WAIT_S` (``dt``: the step, s; 0: no
        limit): the others wait to ask, the longest rested first. Returns how many wait so."""
        a = self.agents
        cols = a.columns
        n_species = len(self.species)
        # The ready rows, and the idle ones among them grouped by species (positions in ``rows``).
        rows, idle_at, bounds = ready_rows(a.n, now, cols, n_species)
        if rows.size == 0:
            return 0
        held = 0
        room = self.room(dt) - rows.size + idle_at.size  # (re-plans always go in)
        if dt > 0 and idle_at.size > max(room, 0):
            held = idle_at.size - max(room, 0)
            rows, idle_at, bounds = _admit(rows, idle_at, max(room, 0), cols, n_species)
            if rows.size == 0:
                return held
        keep = np.ones(rows.size, dtype=np.bool_)
        if idle_at.size:
            draws = self.rng.random((idle_at.size, GOAL_TRIES, 2))  # one call for every species
            for sp in self.species:
                lo, hi = bounds[sp.index], bounds[sp.index + 1]
                if hi > lo:
                    mine = idle_at[lo:hi]
                    # Goals go straight into the animals' goal column; ``keep`` is False where none was found.
                    sp.choose_goals(rows[mine], cols.cell, cols.goal, mine, keep, draws[lo:hi])
        # Those with nowhere to go from here rest again (per species); the others join the queue.
        rest = _NO_REST if keep.all() else np.array([sp.spec.idle_s[1] for sp in self.species], dtype=np.float64)
        self.queue.push(_queue_up(rows, keep, now, rest, cols))
        return held

    @property
    def capacity(self) -> float:
        """Searches a frame the budget holds, by the running mean of their charge."""
        return self.budget.budget_ms / max(self._mean_charge_ms, 1e-4)

    def room(self, dt: float) -> int:
        """How many more requests the queue takes: as many as it serves within :data:`MAX_WAIT_S`
        (:data:`PACE_MARGIN` of it, at the pace estimated so far) at frames of ``dt`` s (and never
        less than a frame's worth, or budget would go unused), less those waiting (for a wander
        the asking waits, not the answer)."""
        if dt <= 0:
            return 1 << 62
        return int(self.capacity * max(PACE_MARGIN * MAX_WAIT_S / dt, 1.0)) - len(self.queue)

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
                self._mean_charge_ms = 0.7 * self._mean_charge_ms + 0.3 * mean
            else:
                take = rnd.rows.size  # already run: the wall clock charges it all
                spent += rnd.ms
                self._mean_charge_ms = 0.7 * self._mean_charge_ms + 0.3 * rnd.ms / max(1, rnd.rows.size)
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

    def kinds(self) -> list[RoundKind]:
        """The species as the engine's rounds take them: search, regions, paths pulled straight."""
        return [RoundKind(sp.astar, sp.regions, bool(sp.kind.straight_paths)) for sp in self.species]

    def prepared(self) -> tuple[KernelParams, ...] | None:
        """The parameters each species' searches run with in the next round (JPS or not, the
        cap...), or None when the round serves the species one by one (see
        :meth:`~sim.pathfinding.SearchRound.prepared`)."""
        return self.rounds.prepared(self.kinds(), self.jps_ready)

    def _search(self, rows: np.ndarray, want_trace: bool) -> Round:
        """Search the requests ``rows`` (their cells to their goals): one round of the engine's
        (:class:`~sim.pathfinding.SearchRound`), its answers as the model's outcomes."""
        a = self.agents
        self.rounds.threads = self.threads
        res = self.rounds.run(self.kinds(), a.species[rows], a.cell, a.goal, rows, trace=want_trace,
                              jps=self.jps_ready, interpreted=self.interpreted)  # fmt: skip
        outcome = _OUTCOME_OF_STATUS[res.status]
        cost = np.where(outcome == _FOUND, res.cost, np.nan)
        return Round(rows, outcome, res.expanded, cost, res.paths, res.path_at, res.path_n, res.traces, res.kind_ms,
                     res.ms)  # fmt: skip

    @property
    def round_shape(self) -> RoundShape:
        """How the last round was served (read by tests and benchmarks)."""
        return self.rounds.shape

    def _accept(self, rnd: Round, take: int, now: float, stats: FrameStats, observer: SearchObserver) -> None:
        """The first ``take`` searches of the round are served: write them into the animals."""
        a = self.agents
        # A search's time is not measured alone inside a batch: each gets its share by work
        # done (its expansions + 30), of the round's ms scaled to the part served.
        answers = _Answers(rnd.rows, rnd.outcome, rnd.expanded, rnd.cost, rnd.paths, rnd.path_at, rnd.path_n)
        _write_back(answers, take, rnd.ms, now, a.columns, self.species[0].world.width)
        rows = rnd.rows[:take]
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
            cells, offsets = gather(rnd.paths, rnd.path_at, rnd.path_n, pos)
            trace = None
            if sp.index in rnd.trace:
                searched, cells_traced, trace_offsets = rnd.trace[sp.index]
                trace = cells_traced[: trace_offsets[np.searchsorted(searched, take)]]  # the served ones: a prefix
            observer.searched(
                SearchBatch(now, sp.index, rows, a.last_start[rows], a.last_goal[rows], rnd.outcome[pos],
                            rnd.expanded[pos], rnd.cost[pos], cells, offsets, width, trace)
            )  # fmt: skip


@njit(cache=True)
def ready_rows(n, now, cols, n_species):
    """Animals ready to search (rested and cooled down, or sent to re-plan), not those called
    to a herd (its field gives them their paths). Returns ``(rows, idle_at, bounds)``: the
    positions in ``rows`` of the idle ones, grouped by species in order (species ``s`` has
    ``idle_at[bounds[s]:bounds[s + 1]]``)."""
    state, idle_until, next_search_at = cols.state, cols.idle_until, cols.next_search_at
    herd, species = cols.herd, cols.species
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


def longest_rested(until: np.ndarray, rows: np.ndarray, room: int) -> np.ndarray:
    """The positions of the ``room`` smallest ``(until, rows)`` pairs, in no order: what
    ``np.lexsort((rows, until))[:room]`` holds, without sorting them all (at 100,000 animals
    some 36,000 wait to ask each frame: 2.0-2.2 ms sorted, 0.2 this way)."""
    if room <= 0:
        return np.zeros(0, np.int64)
    if room >= until.size:
        return np.arange(until.size)
    edge = np.partition(until, room - 1)[room - 1]  # the room-th smallest rest's end
    below = np.flatnonzero(until < edge)
    at = np.flatnonzero(until == edge)
    return np.concatenate((below, at[np.argsort(rows[at], kind="stable")[: room - below.size]]))


def _admit(rows: np.ndarray, idle_at: np.ndarray, room: int, cols, n_species: int):
    """``ready_rows``' answer with only ``room`` of its idle rows, those rested longest (then the
    lower rows: deterministic), the re-plans all; in its shape."""
    idle_rows = rows[idle_at]
    first = longest_rested(cols.idle_until[idle_rows], idle_rows, room)
    keep = np.ones(rows.size, np.bool_)
    keep[idle_at] = False
    keep[idle_at[first]] = True
    rows = rows[keep]
    idle_pos = np.flatnonzero(cols.state[rows] == State.IDLE)
    sp = cols.species[rows[idle_pos]]
    idle_at = idle_pos[np.argsort(sp, kind="stable")]
    bounds = np.concatenate(([0], np.cumsum(np.bincount(sp, minlength=n_species)))).astype(np.int64)
    return rows, idle_at.astype(np.int64), bounds


@njit(cache=True)
def _queue_up(rows, keep, now, rest_s, cols):
    """The rows to queue (``keep``), marked queued at ``now``; the others rest ``rest_s[species]`` more."""
    species, state, idle_until, requested_at = cols.species, cols.state, cols.idle_until, cols.requested_at
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


class _Answers(NamedTuple):
    """A round's answers as :func:`_write_back` reads them (row ``j`` for animal ``rows[j]``)."""

    rows: np.ndarray
    outcome: np.ndarray
    expanded: np.ndarray
    cost: np.ndarray
    paths: np.ndarray
    path_at: np.ndarray
    path_n: np.ndarray


@njit(cache=True)
def _write_back(answers, take, round_ms, now, cols, width):
    """The round's first ``take`` answers into the animals' columns (``cols``: an
    ``AgentColumns``): the path to walk (truncated to the buffer), or rest; each is charged
    its share of ``round_ms``."""
    rows, outcome, expanded, cost, paths, path_at, path_n = answers
    capacity = cols.paths.shape[1]
    weight = 0.0
    for j in range(take):
        weight += expanded[j] + 30.0
    scale = round_ms / max(weight, 1.0) * (take / max(1, rows.size))
    for j in range(take):
        i = rows[j]
        cols.searches[i] += 1
        cols.last_start[i, 0] = cols.cell[i, 0]
        cols.last_start[i, 1] = cols.cell[i, 1]
        cols.last_goal[i, 0] = cols.goal[i, 0]
        cols.last_goal[i, 1] = cols.goal[i, 1]
        cols.last_search_at[i] = now
        cols.next_search_at[i] = now + cols.cooldown[i]
        cols.last_expanded[i] = expanded[j]
        cols.last_cost[i] = cost[j]
        cols.last_outcome[i] = outcome[j]
        cols.last_ms[i] = scale * (expanded[j] + 30.0)
        n = path_n[j]
        at = path_at[j]
        if n > 1:
            n = min(n, capacity)
            for c in range(n):
                cols.paths[i, c] = paths[at + c]
            cols.path_len[i] = n
            # Index 0 is where it stands; an animal that searched from off its cell's centre (pushed,
            # or stopped mid-step) first walks to that centre, inside its cell: every step is the path's.
            centred = cols.pos[i, 0] == cols.cell[i, 0] and cols.pos[i, 1] == cols.cell[i, 1]
            cols.path_pos[i] = 1 if centred else 0
            cols.state[i] = State.WALKING
            cols.heading[i] = heading_of(paths[at + 1] % width - cols.cell[i, 0],
                                         paths[at + 1] // width - cols.cell[i, 1])  # fmt: skip
        else:
            cols.path_len[i] = 0
            cols.path_pos[i] = 0
            cols.state[i] = State.IDLE
            cols.idle_until[i] = now
