"""What the searches cost: per-frame counters and a rolling history for the overlay's graph."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

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

    def merge(self, other: FrameStats) -> None:
        """Add ``other``'s figures (a later step of the same frame): sums, its queue length."""
        for name in ("searches", "expanded", "search_ms", "rounds", "failed", "capped", "replans", "field_cells",
                     "field_ms", "crowd_ms"):  # fmt: skip
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.waiting, self.fields, self.herded = other.waiting, other.fields, other.herded
        for key, c in other.per_species.items():
            mine = self.per_species.setdefault(key, SpeciesCounts())
            for name in ("searches", "expanded", "ms", "failed", "capped"):
                setattr(mine, name, getattr(mine, name) + getattr(c, name))
        self.latency = np.concatenate((self.latency, other.latency))

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


class History:
    """Search ms of the frames in the last ``seconds`` (for the overlay's rolling graph).

    Times are whatever clock the caller steps (the app: wall time; headless: fixed steps).
    """

    def __init__(self, seconds: float = 5.0) -> None:
        self.seconds = seconds
        self.times: deque[float] = deque()
        self.search_ms: deque[float] = deque()
        self.latency: deque[np.ndarray] = deque()  # per frame: each served request's wait, seconds

    def push(self, t: float, search_ms: float, latency: np.ndarray | None = None) -> None:
        self.times.append(t)
        self.search_ms.append(search_ms)
        self.latency.append(np.zeros(0) if latency is None else latency)
        while self.times and self.times[0] < t - self.seconds:
            self.times.popleft()
            self.search_ms.popleft()
            self.latency.popleft()

    def latency_p95_ms(self) -> float:
        """The 95th percentile of request-to-path latency over the window, in ms (0 without searches)."""
        waits = np.concatenate(list(self.latency)) if self.latency else np.zeros(0)
        return float(np.percentile(waits, 95) * 1000.0) if waits.size else 0.0
