"""How the model reports its searches: a :class:`SearchBatch` per group of searches, to a :class:`SearchObserver`.

The model keeps no view state. Whoever wants to see the searches (the demo's overlay,
heat map and inspector; a test's log) sets ``sim.observer``; the model calls
:meth:`SearchObserver.searched` once per batch of searches, with arrays (one row per
search), so observing costs no Python per animal.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sim.pathfinding import SearchResult
from sim.support.checks import short


@dataclass
class SearchEvent:
    """One search in full (the inspector's view): when, who, from where to where, what came out."""

    time: float
    agent: int
    species: str  # species key
    start: tuple[int, int]
    goal: tuple[int, int]
    result: SearchResult | None  # None: the goal is in another region, nothing was searched


@dataclass
class SearchBatch:
    """Searches served together for one species. Row ``j`` is animal ``agents[j]``'s search.

    ``paths[offsets[j]:offsets[j + 1]]`` is the path it walks (the full path, or the
    partial one toward the goal), as flat cells ``y * width + x``. ``trace``, when the
    observer asked for it, holds every expanded cell of every search, in order.
    """

    time: float
    species: int  # species index
    agents: np.ndarray  # int64 (k,)
    starts: np.ndarray  # int (k, 2) x, y
    goals: np.ndarray  # int (k, 2) x, y
    outcomes: np.ndarray  # int8 (k,): sim.agents.Outcome
    expanded: np.ndarray  # int64 (k,)
    costs: np.ndarray  # float64 (k,): path cost, nan when not found
    paths: np.ndarray  # int (sum of lengths,)
    offsets: np.ndarray  # int64 (k + 1,)
    width: int
    trace: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.agents)

    def path(self, j: int) -> list[tuple[int, int]]:
        """Row ``j``'s walk path as ``(x, y)`` cells."""
        cells = self.paths[self.offsets[j] : self.offsets[j + 1]]
        return list(zip((cells % self.width).tolist(), (cells // self.width).tolist(), strict=True))


class SearchObserver:
    """Hears about the model's searches. This base class ignores everything."""

    #: Ask the model for every expanded cell (``SearchBatch.trace``); costs a write per expansion.
    wants_trace: bool = False
    #: Whether :meth:`searched` wants to hear at all (if not, no batch is even built); true for a
    #: subclass that overrides :meth:`searched` and does not set it.
    listening: bool = False

    def __init_subclass__(cls, **kwargs: object) -> None:
        # A subclass that overrides searched() wants to hear it, unless it says otherwise itself:
        # one that forgot ``listening = True`` heard nothing, silently.
        super().__init_subclass__(**kwargs)
        said = next(c for c in cls.__mro__ if "listening" in c.__dict__)
        if said is SearchObserver and "searched" in cls.__dict__:
            cls.listening = True

    def searched(self, batch: SearchBatch) -> None:
        """Called once per batch of searches, right after they ran."""

    def renumbered(self, remap: np.ndarray) -> None:
        """Animals were removed: ``remap[old] = new`` index, -1 for a removed one."""

    def map_loaded(self) -> None:
        """A new map replaced the world (and every animal)."""


@dataclass
class Round:
    """One round's searches, row ``j`` for request ``rows[j]``, in queue order.

    Row ``j``'s path (to walk; empty when nothing was searched) is
    ``paths[path_at[j] : path_at[j] + path_n[j]]``: the species batches' path arrays
    joined end to end, never reordered."""

    rows: np.ndarray  # animal indices
    outcome: np.ndarray  # int8 Outcome
    expanded: np.ndarray
    cost: np.ndarray  # nan when not found
    paths: np.ndarray  # flat cells of every walk path
    path_at: np.ndarray
    path_n: np.ndarray
    trace: dict  # species index -> (row positions, trace cells, trace offsets) of its batch
    species_ms: dict  # species index -> wall ms of its batch
    ms: float  # wall ms of the whole round


class Observed:
    """The model's ``observer``: who hears about every batch of searches (a :class:`SearchObserver`);
    set ``None`` to hear nothing again, anything else is a ``TypeError``."""

    _observer: SearchObserver

    @property
    def observer(self) -> SearchObserver:
        return self._observer

    @observer.setter
    def observer(self, observer: SearchObserver | None) -> None:
        if observer is None:
            observer = SearchObserver()
        elif not isinstance(observer, SearchObserver):
            raise TypeError(f"observer must be a SearchObserver (sim.model.observe) or None, got {short(observer)}")
        self._observer = observer
