"""The search instruments the demo's views read: overlay history, heat map, the selected animal's footprint.

A :class:`SearchInstruments` is a :class:`~sim.model.observe.SearchObserver`: the view creates
it, hangs it on ``sim.observer`` and reads it when drawing; the model only reports
searches to it. Pure numpy: no pygame here.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from sim.model.observe import SearchBatch, SearchEvent, SearchObserver
from sim.model.stats import FrameStats, History

if TYPE_CHECKING:
    from sim.simulation import Simulation

#: The heat map fades by 1/e in this many seconds of simulated time: after ~10 s little is left.
HEAT_TIME_S = 3.0


class SearchInstruments(SearchObserver):
    """Records what the views show. ``log`` (a list) keeps every batch when set (tests use it)."""

    def __init__(self, sim: Simulation) -> None:
        self.sim = sim
        self.history = History()
        self.heat: np.ndarray | None = None  # expansions per cell, fading
        self.selected: int | None = None
        self.record: np.ndarray | None = None  # footprint of the selected animal's last search
        self.record_event: SearchEvent | None = None
        self.log: list[SearchBatch] | None = None
        sim.observer = self

    # ------------------------------------------------------------------ hearing the model
    @property
    def wants_trace(self) -> bool:  # type: ignore[override]
        return self.heat is not None

    @property
    def listening(self) -> bool:  # type: ignore[override]
        return self.log is not None or self.heat is not None or self.selected is not None

    def searched(self, batch: SearchBatch) -> None:
        if self.heat is not None and batch.trace is not None and batch.trace.size:
            np.add.at(self.heat.reshape(-1), batch.trace, np.float32(1.0))
        if self.log is not None:
            self.log.append(batch)
        if self.selected is not None and (batch.agents == self.selected).any():
            self._replay(self.selected)

    def renumbered(self, remap: np.ndarray) -> None:
        if self.selected is not None:
            new = int(remap[self.selected]) if self.selected < len(remap) else -1
            self.select(new if new >= 0 else None)

    def map_loaded(self) -> None:
        self.select(None)
        if self.heat is not None:
            self.enable_heat(True)

    # ------------------------------------------------------------------ the views' side
    def after_step(self, dt: float) -> None:
        """The simulation advanced ``dt`` seconds: the heat fades."""
        if self.heat is not None:
            self.heat *= np.float32(math.exp(-dt / HEAT_TIME_S))

    def frame(self, t: float, stats: FrameStats) -> None:
        """One frame of the demo at time ``t`` (its own clock): the overlay's graph scrolls."""
        self.history.push(t, stats.search_ms, stats.latency, stats)

    def enable_heat(self, on: bool) -> None:
        """Start (or stop) counting expansions per cell for the heat map."""
        self.heat = np.zeros(self.sim.world.terrain.shape, dtype=np.float32) if on else None

    def select(self, i: int | None) -> None:
        """Follow animal ``i`` (None: nobody); its last search's footprint is shown at once."""
        self.selected = i
        self.record = self.record_event = None
        if i is not None:
            self._replay(i)

    def _replay(self, i: int) -> None:
        from sim.instruments.inspector import replay_last_search

        replay = replay_last_search(self.sim, i)
        if replay is not None:
            self.record, self.record_event = replay
