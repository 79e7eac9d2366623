"""Requests and searches: who asks for a path this frame, where it wants to go, and serving the queue.

An idle animal whose rest and cooldown are over picks a goal within its wander radius
*in its own connected region* (so a goal it can never reach is known before any
search) and joins the queue; the queue is served oldest first within the frame's
budget (see :mod:`sim.scheduler`). A search that fails or hits ``max_nodes`` still
gives a partial path: the animal walks to the closest point it reached.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

import numpy as np

from .agents import Agents, Outcome, State
from .observe import SearchBatch, SearchObserver
from .scheduler import SearchScheduler
from .stats import FrameStats

if TYPE_CHECKING:
    from .species import SpeciesRuntime

GOAL_TRIES = 24  # random cells tried per goal pick


class Planner:
    """Turns ready animals into requests and requests into paths."""

    def __init__(
        self, agents: Agents, species: list[SpeciesRuntime], rng: np.random.Generator, scheduler: SearchScheduler
    ) -> None:
        self.agents = agents
        self.species = species
        self.rng = rng
        self.scheduler = scheduler

    def request(self, now: float) -> None:
        """Queue every animal that is ready to search (picking goals for the idle ones)."""
        a = self.agents
        ready = ((a.state == State.IDLE) & (a.idle_until <= now) | (a.state == State.REPLAN)) & (
            a.next_search_at <= now
        )
        for i in np.flatnonzero(ready):
            if a.state[i] == State.IDLE and not self.pick_goal(int(i)):
                a.idle_until[i] = now + self.species[a.species[i]].spec.idle_s[1]
                continue
            a.state[i] = State.QUEUED
            self.scheduler.request(int(i))

    def pick_goal(self, i: int) -> bool:
        """A random cell within the wander radius, in the animal's own region."""
        a = self.agents
        sp = self.species[a.species[i]]
        x, y = a.cell[i]
        region = sp.regions[y, x]
        if region == 0:
            return False
        r = sp.spec.wander_radius
        cand = self.rng.integers(-r, r + 1, size=(GOAL_TRIES, 2)) + np.array([x, y])
        h, w = sp.regions.shape
        ok = (cand[:, 0] >= 0) & (cand[:, 0] < w) & (cand[:, 1] >= 0) & (cand[:, 1] < h)
        cand = cand[ok]
        same = sp.regions[cand[:, 1], cand[:, 0]] == region
        same &= (cand[:, 0] != x) | (cand[:, 1] != y)
        if not same.any():
            return False
        a.goal[i] = cand[np.argmax(same)]
        return True

    def serve(self, now: float, stats: FrameStats, observer: SearchObserver) -> None:
        """Serve the queue, oldest first, within the frame's budget."""
        self.scheduler.serve(lambda i: self._search(i, now, stats, observer))
        stats.waiting = len(self.scheduler)

    def _search(self, i: int, now: float, stats: FrameStats, observer: SearchObserver) -> int:
        a = self.agents
        sp = self.species[a.species[i]]
        width = sp.costs.shape[1]
        start = (int(a.cell[i, 0]), int(a.cell[i, 1]))
        goal = (int(a.goal[i, 0]), int(a.goal[i, 1]))
        a.searches[i] += 1
        a.last_start[i] = start
        a.last_goal[i] = goal
        a.last_search_at[i] = now
        a.next_search_at[i] = now + a.cooldown[i]
        result = None
        trace = None
        t0 = time.perf_counter()
        regions = sp.regions
        if regions[start[1], start[0]] != regions[goal[1], goal[0]] or regions[start[1], start[0]] == 0:
            outcome, expanded = Outcome.OTHER_REGION, 0  # known unreachable: nothing to search
        else:
            trace = np.zeros(sp.costs.size, dtype=np.int32) if observer.wants_trace else None
            result = sp.astar.search(start, goal, trace=trace)
            expanded = result.expanded
            outcome = Outcome.FOUND if result.found else (Outcome.CAPPED if result.hit_limit else Outcome.FAILED)
        ms = (time.perf_counter() - t0) * 1000.0
        path = result.walk_path if result is not None else []
        flat = np.zeros(0, dtype=np.int64)
        if len(path) > 1:
            xy = np.asarray(path, dtype=np.int64)
            flat = xy[:, 1] * width + xy[:, 0]
            a.set_path(i, flat.astype(np.int32))
            a.state[i] = State.WALKING
        else:
            a.path_len[i] = a.path_pos[i] = 0
            a.state[i] = State.IDLE
            a.idle_until[i] = now
        cost = result.cost if result is not None and result.found else np.nan
        a.last_expanded[i] = expanded
        a.last_ms[i] = ms
        a.last_cost[i] = cost
        a.last_outcome[i] = outcome
        stats.count(sp.key, expanded, ms, outcome in (Outcome.FAILED, Outcome.OTHER_REGION), outcome == Outcome.CAPPED)
        observer.searched(
            SearchBatch(
                now, sp.index, np.array([i]), np.array([start]), np.array([goal]), np.array([outcome], np.int8),
                np.array([expanded]), np.array([cost]), flat, np.array([0, flat.size]), width,
                trace[:expanded] if trace is not None else None,
            )
        )  # fmt: skip
        return expanded
