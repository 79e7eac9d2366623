"""What the searches cost: per-frame counters and a rolling history for the overlay's graph."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field


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
    waiting: int = 0  # requests left in the queue for later frames
    failed: int = 0
    capped: int = 0
    replans: int = 0  # animals whose path was painted over
    per_species: dict[str, SpeciesCounts] = field(default_factory=dict)

    def count(self, species: str, expanded: int, ms: float, failed: bool, capped: bool) -> None:
        s = self.per_species.setdefault(species, SpeciesCounts())
        s.searches += 1
        s.expanded += expanded
        s.ms += ms
        s.failed += failed
        s.capped += capped
        self.searches += 1
        self.expanded += expanded
        self.search_ms += ms
        self.failed += failed
        self.capped += capped


class History:
    """Search ms of the frames in the last ``seconds`` (for the overlay's rolling graph).

    Times are whatever clock the caller steps (the app: wall time; headless: fixed steps).
    """

    def __init__(self, seconds: float = 5.0) -> None:
        self.seconds = seconds
        self.times: deque[float] = deque()
        self.search_ms: deque[float] = deque()

    def push(self, t: float, search_ms: float) -> None:
        self.times.append(t)
        self.search_ms.append(search_ms)
        while self.times and self.times[0] < t - self.seconds:
            self.times.popleft()
            self.search_ms.popleft()
