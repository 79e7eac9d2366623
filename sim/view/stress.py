"""The stress key (U): the crowd ramps up to 20,000 animals, then 100,000 (where the machine keeps
up), holds each for a few seconds with the overlay on, and goes back to the count it had: the
engine's scale seen in the window, FPS, searches a second and latency as it climbs."""

from __future__ import annotations

import math
from typing import Any

from sim.view.draw.panels import GOOD, WARN

STAGES = (20_000, 100_000)  # animals the ramp climbs to, in turn
RAMP_S = 6.0  # wall seconds a climb takes
HOLD_S = 6.0  # wall seconds a stage holds
BACK_S = 3.0  # wall seconds the way back takes
FLOOR_FPS = 12.0  # below this while climbing (after a second), the machine has shown its limit


class Stress:
    """The ramp's state (``app``: the play mode's context: the model, the overlay, messages, the FPS)."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.on = False
        self.phase = "up"  # up, hold, down
        self.stage = 0
        self.base = 0  # the count to go back to
        self.t = 0.0  # seconds in this phase

    def toggle(self) -> None:
        """Start the ramp, or (running) go back now."""
        if self.on:
            if self.phase != "down":
                self._down("stopped")
            return
        self.on, self.phase, self.stage, self.t = True, "up", 0, 0.0
        self.base = self.app.sim.agents.n
        self.app.overlay.level = max(self.app.overlay.level, 1)  # FPS, searches/s, latency as it climbs
        self.app.message(f"stress: climbing to {STAGES[0]:,} animals (U: back to {self.base:,})", GOOD)

    def update(self, dt: float) -> None:
        """One frame of ``dt`` wall seconds."""
        if not self.on:
            return
        sim = self.app.sim
        n = sim.agents.n
        self.t += dt
        if self.phase == "up":
            target = STAGES[self.stage]
            if self.t > 1.0 and self.app.fps < FLOOR_FPS and n > self.base:
                self._down(f"this machine's limit: {self.app.fps:.0f} FPS at {n:,} animals")
                return
            add = min(target - n, math.ceil(max(target - self.base, 1) * dt / RAMP_S))
            if add > 0:
                sim.add_animals(add)
            if sim.agents.n >= target or add <= 0:
                self.phase, self.t = "hold", 0.0
        elif self.phase == "hold" and self.t >= HOLD_S:
            self.app.message(f"stress at {self.report()}", GOOD, 8)  # (a topic of its own per stage: kept in F2)
            self.stage += 1
            if self.stage < len(STAGES):
                self.phase, self.t = "up", 0.0
            else:
                self._down("done")
        elif self.phase == "down":
            drop = min(n - self.base, math.ceil(max(self.peak - self.base, 1) * dt / BACK_S))
            if drop > 0:
                sim.remove_animals(drop)
            if sim.agents.n <= self.base:
                self.on = False

    def _down(self, why: str) -> None:
        self.phase, self.t, self.peak = "down", 0.0, self.app.sim.agents.n
        self.app.message(f"stress: {why}; back to {self.base:,} animals", WARN if "limit" in why else GOOD, 8)

    def report(self) -> str:
        """The figures at this count: FPS, searches a second, latency p95."""
        keys = [sp.key for sp in self.app.sim.species]
        r = self.app.instruments.history.rates(keys)
        return (f"{self.app.sim.agents.n:,} animals: {self.app.fps:.0f} FPS, {r.searches:,.0f} searches/s, "
                f"latency p95 {r.latency_p95_ms:.0f} ms")  # fmt: skip

    def status(self) -> list[str]:
        if not self.on:
            return []
        goal = self.base if self.phase == "down" else STAGES[self.stage]
        return [f"STRESS {self.app.sim.agents.n:,} → {goal:,}"]
