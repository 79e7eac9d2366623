"""What the searches cost: per-frame counters and a rolling history for the overlay's graph."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple

import numpy as np
from numba import njit

from sim.model.agents import Outcome

_FAILED, _OTHER_REGION, _CAPPED = int(Outcome.FAILED), int(Outcome.OTHER_REGION), int(Outcome.CAPPED)

if TYPE_CHECKING:
    from sim.model.observe import Round
    from sim.model.species import SpeciesRuntime


@dataclass
class SpeciesCounts:
    """One species' search figures for one frame."""

    searches: int = 0
    expanded: int = 0
    ms: float = 0.0
    failed: int = 0
    capped: int = 0


@dataclass
class FrameStats:
    """Everything the overlay shows about one frame's searches (ms are wall-clock)."""

    searches: int = 0
    expanded: int = 0
    search_ms: float = 0.0
    rounds: int = 0  # rounds of searches served (each one compiled call, or a job per species)
    waiting: int = 0  # requests left in the queue for later frames
    asked: int = 0  # requests that joined the queue this frame
    held: int = 0  # idle animals that wait to ask: the queue is full (planner.MAX_WAIT_S)
    capacity: float = 0.0  # searches a second the budget serves at this pace (its running estimate)
    failed: int = 0
    capped: int = 0
    replans: int = 0  # animals whose path was painted over
    fields: int = 0  # herds' distance fields alive (see sim.model.herds)
    field_cells: int = 0  # cells their fields settled this frame
    field_ms: float = 0.0  # wall ms that took
    herded: int = 0  # animals in a herd
    crowd_ms: float = 0.0  # wall ms of the separation step (sim.model.crowd)
    per_species: dict[str, SpeciesCounts] = field(default_factory=dict)
    latency: np.ndarray = field(default_factory=lambda: np.zeros(0))  # s from request to path, per search
    latency_species: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int8))  # each one's species

    def merge(self, other: FrameStats) -> None:
        """Add ``other``'s figures (a later step of the same frame): sums, its queue length."""
        for name in ("searches", "expanded", "search_ms", "rounds", "failed", "capped", "replans", "field_cells",
                     "field_ms", "crowd_ms", "asked"):  # fmt: skip
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.waiting, self.fields, self.herded = other.waiting, other.fields, other.herded
        self.held, self.capacity = other.held, other.capacity
        for key, c in other.per_species.items():
            mine = self.per_species.setdefault(key, SpeciesCounts())
            for name in ("searches", "expanded", "ms", "failed", "capped"):
                setattr(mine, name, getattr(mine, name) + getattr(c, name))
        self.latency = np.concatenate((self.latency, other.latency))
        self.latency_species = np.concatenate((self.latency_species, other.latency_species))

    def add_round(
        self, species: list[SpeciesRuntime], species_of: np.ndarray, outcome: np.ndarray, expanded: np.ndarray,
        rnd: Round, take: int, latency: np.ndarray,
    ) -> None:  # fmt: skip
        """Count a round of searches: the first ``take`` were served (all of its time was spent)."""
        self.rounds += 1
        table = _count(species_of, outcome, expanded, len(species)).tolist()  # plain ints: cheap to add
        for sp in species:
            searches, cells, failed, capped = table[sp.index]
            if searches == 0 and sp.index not in rnd.species_ms:
                continue
            c = self.per_species.setdefault(sp.key, SpeciesCounts())
            c.searches += searches
            c.expanded += cells
            c.ms += rnd.species_ms.get(sp.index, 0.0)
            c.failed += failed
            c.capped += capped
            self.expanded += cells
            self.failed += failed
            self.capped += capped
        self.searches += take
        self.search_ms += rnd.ms
        self.latency = np.concatenate((self.latency, latency))
        self.latency_species = np.concatenate((self.latency_species, species_of.astype(np.int8)))


@njit(cache=True)
def _count(species_of, outcome, expanded, n_species):
    """Per species: searches, cells expanded, failed (incl. known unreachable), capped."""
    table = np.zeros((n_species, 4), np.int64)
    for j in range(species_of.size):
        row = table[species_of[j]]
        row[0] += 1
        row[1] += expanded[j]
        o = outcome[j]
        if o in (_FAILED, _OTHER_REGION):
            row[2] += 1
        elif o == _CAPPED:
            row[3] += 1
    return table


class SpeciesRate(NamedTuple):
    """One species' searches over a recent window (a row of the overlay)."""

    searches: float  # per second
    expanded: float  # cells expanded per second
    latency_p95_ms: float  # request to path
    us_per_search: float  # what a search took, µs of wall clock (0: none in the window)


NO_RATE = SpeciesRate(0.0, 0.0, 0.0, 0.0)  # a species no search served in the window


@dataclass
class Rates:
    """What the searches did per second over a recent window (the overlay's figures)."""

    seconds: float  # the window actually covered
    searches: float  # per second, all species
    expanded: float
    failed: float
    capped: float
    replans: float
    search_ms: float  # mean search ms per frame
    per_species: dict[str, SpeciesRate]
    latency_p95_ms: float


class History:
    """The frames of the last ``seconds``: each one's search ms (the overlay's rolling graph) and its
    counts, from which :meth:`rates` makes per-second figures.

    Times are whatever clock the caller steps (the app: wall time; headless: fixed steps).
    """

    def __init__(self, seconds: float = 5.0) -> None:
        self.seconds = seconds
        self.times: deque[float] = deque()
        self.search_ms: deque[float] = deque()
        self.latency: deque[np.ndarray] = deque()  # per frame: each served request's wait, seconds
        self.frames: deque[FrameStats] = deque()

    def push(self, t: float, search_ms: float, latency: np.ndarray | None = None,
             stats: FrameStats | None = None) -> None:  # fmt: skip
        self.times.append(t)
        self.search_ms.append(search_ms)
        self.latency.append(np.zeros(0) if latency is None else latency)
        self.frames.append(stats if stats is not None else FrameStats())
        while self.times and self.times[0] < t - self.seconds:
            self.times.popleft()
            self.search_ms.popleft()
            self.latency.popleft()
            self.frames.popleft()

    def latency_p95_ms(self) -> float:
        """The 95th percentile of request-to-path latency over the window, in ms (0 without searches)."""
        waits = np.concatenate(list(self.latency)) if self.latency else np.zeros(0)
        return float(np.percentile(waits, 95) * 1000.0) if waits.size else 0.0

    def rates(self, species: list[str], window: float = 2.0) -> Rates:
        """Per-second figures over the last ``window`` seconds (less when the history is shorter);
        ``species``: the keys, in index order."""
        if not self.times:
            return Rates(0.0, 0, 0, 0, 0, 0, 0, dict.fromkeys(species, NO_RATE), 0.0)
        now = self.times[-1]
        recent = [f for t, f in zip(self.times, self.frames, strict=True) if t > now - window]
        span = max(min(window, now - self.times[0]), 1e-3) if len(self.times) > 1 else 1.0
        total = {n: sum(getattr(f, n) for f in recent) / span for n in ("searches", "expanded", "failed", "capped",
                                                                      "replans")}  # fmt: skip
        waits = np.concatenate([f.latency for f in recent]) if recent else np.zeros(0)
        who = np.concatenate([f.latency_species for f in recent]) if recent else np.zeros(0, np.int8)
        per = {}
        for i, key in enumerate(species):
            mine = waits[who == i] if who.size == waits.size else np.zeros(0)
            p95 = float(np.percentile(mine, 95) * 1000.0) if mine.size else 0.0
            counts = [f.per_species[key] for f in recent if key in f.per_species]
            n, cells, ms = (sum(getattr(c, name) for c in counts) for name in ("searches", "expanded", "ms"))
            per[key] = SpeciesRate(n / span, cells / span, p95, 1000.0 * ms / n if n else 0.0)
        p95_all = float(np.percentile(waits, 95) * 1000.0) if waits.size else 0.0
        ms = sum(f.search_ms for f in recent) / max(1, len(recent))
        return Rates(span, total["searches"], total["expanded"], total["failed"], total["capped"], total["replans"],
                     ms, per, p95_all)  # fmt: skip
