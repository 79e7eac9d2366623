"""Herds: many animals of one species called to one point, served by one distance field.

Every animal normally runs its own A*. A herd call (the demo's ``G``) sends every animal of
a species within a radius of a point (or in its whole region) there; one distance field
per herd (the engine's :meth:`~sim.pathfinding.PathGrid.grow_field`, resumable) is
grown from the goal within the frame's search budget, over several frames when large,
the animals keeping on with what they were doing meanwhile. Then each walks down the
field: its path is the field's steps from its cell, an optimal path found by no search
of its own. An animal leaves the herd when it arrives, or when the field does not reach
it (back to wandering); the herd is dropped when the last one has left. Painting starts
the field over (the animals whose path it cuts wait for the new one).

Membership is the agents' ``herd`` column (0: none), so removing animals needs no
bookkeeping here.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

import numpy as np

from sim.model.agents import State
from sim.pathfinding import ChangeCursor

if TYPE_CHECKING:
    from sim.model.agents import Agents
    from sim.model.scheduler import SearchQueue
    from sim.model.species import SpeciesRuntime
    from sim.pathfinding import FieldGrowth
    from sim.world.world import World


class HerdHost(Protocol):
    """What herds need of the simulation that holds them (read each time: a map load replaces them)."""

    world: World
    species: list[SpeciesRuntime]
    agents: Agents
    queue: SearchQueue


MAX_HERDS = 4  # fields kept at once (each holds ~20 bytes a cell while it is grown); the oldest goes


_NO_FIELD = np.zeros((0, 0))


@dataclass
class Herd:
    """One call: a species, a goal ``(x, y)``, and its distance field as it is grown."""

    id: int  # the agents' ``herd`` value, 1 .. MAX_HERDS
    species: int
    goal: tuple[int, int]
    changes: ChangeCursor | None = None  # the world's changes since its field was started
    steps: np.ndarray | None = None  # next step per cell, once the field is complete
    growth: FieldGrowth | None = None  # the engine's resumable field (it owns the work arrays)
    ms: float = 0.0  # wall ms spent growing the current field
    called: int = 0  # animals called
    arrived: int = 0

    @property
    def ready(self) -> bool:
        return self.steps is not None

    @property
    def field(self) -> np.ndarray:
        """The distance field as grown so far: (H, W) float64, inf = not (yet) reached."""
        return _NO_FIELD if self.growth is None else self.growth.field

    @property
    def settled(self) -> int:
        """Cells of the field settled so far."""
        return 0 if self.growth is None else self.growth.settled


class Herds:
    """The herds of a simulation (``sim.model.herds``); see the module doc."""

    def __init__(self, sim: HerdHost) -> None:
        self.sim = sim
        self.herds: list[Herd] = []
        self.field_ms = 0.0  # this step's wall ms growing fields

    def call(self, species: int, goal: tuple[int, int], radius: float | None = None) -> Herd | None:
        """Call the animals of species index ``species`` within ``radius`` cells of ``goal`` (None:
        its whole region) there. None when the goal is no cell they may stand on, or nobody comes."""
        sim = self.sim
        sp = sim.species[species]
        x, y = goal
        if not sim.world.inside(x, y) or sp.regions[y, x] == 0:
            return None
        a = sim.agents
        mine = (a.species == species) & (sp.regions[a.cell[:, 1], a.cell[:, 0]] == sp.regions[y, x])
        if radius is not None:
            mine &= np.hypot(a.cell[:, 0] - x, a.cell[:, 1] - y) <= radius
        rows = np.flatnonzero(mine)
        if rows.size == 0:
            return None
        herd = Herd(self._free_id(), species, (int(x), int(y)), called=int(rows.size))
        self._drop_queued(rows)
        a.herd[rows] = herd.id
        self.herds.append(herd)
        self._restart(herd)
        return herd

    def _free_id(self) -> int:
        if len(self.herds) >= MAX_HERDS:
            self.dismiss(self.herds[0])
        used = {h.id for h in self.herds}
        return next(i for i in range(1, MAX_HERDS + 1) if i not in used)

    def _drop_queued(self, rows: np.ndarray) -> None:
        """Called animals waiting for a search of their own leave the queue: the field serves them."""
        a = self.sim.agents
        queued = rows[a.state[rows] == State.QUEUED]
        if queued.size:
            keep = np.arange(a.n)
            keep[queued] = -1
            self.sim.queue.remap(keep)
            a.state[queued] = State.IDLE

    def dismiss(self, herd: Herd) -> None:
        """End a herd: its animals go back to wandering."""
        a = self.sim.agents
        a.herd[a.herd == herd.id] = 0
        self.herds.remove(herd)

    def _restart(self, herd: Herd) -> None:
        """Grow the field from scratch (new herd, or the terrain changed)."""
        sp = self.sim.species[herd.species]
        herd.growth = sp.grid.grow_field(herd.goal, diagonal=sp.astar.diagonal)
        herd.steps = None
        herd.ms = 0.0
        herd.changes = ChangeCursor(self.sim.world)
        herd.changes.take()  # from now on

    def members(self, herd: Herd) -> np.ndarray:
        return np.flatnonzero(self.sim.agents.herd == herd.id)

    # ------------------------------------------------------------------ each step
    def update(self, budget_cells: int) -> int:
        """Grow the unfinished fields by at most ``budget_cells`` settled cells in all, hand the
        finished ones' paths to the animals that need one; returns the cells settled."""
        used = 0
        self.field_ms = 0.0
        for herd in list(self.herds):
            if herd.changes is None or herd.changes.take() != []:
                self._restart(herd)  # painted (or a new map): the old field may lie
            if not herd.ready and used < budget_cells:
                used += self._grow(herd, budget_cells - used)
            if herd.ready:
                self._send(herd)
            if not self.members(herd).size:
                self.herds.remove(herd)
        return used

    def _grow(self, herd: Herd, cells: int) -> int:
        t0 = time.perf_counter()
        assert herd.growth is not None  # (started by _restart)
        settled = herd.growth.grow(cells)
        ms = (time.perf_counter() - t0) * 1000.0
        herd.ms += ms
        self.field_ms += ms
        if herd.growth.done:  # (asserted above)
            herd.steps = herd.growth.steps
            self._send(herd, everyone=True)
        return settled

    def _send(self, herd: Herd, everyone: bool = False) -> None:
        """Paths down the field for the members that need one (all of them when it is new)."""
        a = self.sim.agents
        rows = self.members(herd)
        if not everyone:
            rows = rows[(a.state[rows] == State.IDLE) | (a.state[rows] == State.REPLAN)]
        if rows.size == 0:
            return
        reach = np.isfinite(herd.field[a.cell[rows, 1], a.cell[rows, 0]])
        a.herd[rows[~reach]] = 0  # the field does not reach them: back to wandering (their own searches)
        rows = rows[reach]
        if rows.size:
            follow(self.sim, herd, rows)

    def arrived(self, rows: np.ndarray) -> None:
        """Animals ``rows`` reached the end of their paths: at the goal they leave the herd, else
        (a path cut to the buffer's length) they get the rest of the way next step."""
        a = self.sim.agents
        mine = rows[a.herd[rows] > 0]
        for herd in self.herds:
            rows_h = mine[a.herd[mine] == herd.id]
            at_goal = (a.cell[rows_h, 0] == herd.goal[0]) & (a.cell[rows_h, 1] == herd.goal[1])
            herd.arrived += int(at_goal.sum())
            a.herd[rows_h[at_goal]] = 0
            a.state[rows_h[~at_goal]] = State.REPLAN

    def herded(self) -> int:
        return int((self.sim.agents.herd > 0).sum())

    def of(self, i: int) -> Herd | None:
        """The herd animal ``i`` belongs to, if any."""
        h = int(self.sim.agents.herd[i])
        return next((x for x in self.herds if x.id == h), None)

    def clear(self) -> None:
        self.sim.agents.herd[:] = 0
        self.herds.clear()


def follow(sim: HerdHost, herd: Herd, rows: np.ndarray) -> None:
    """Give animals ``rows`` the path down ``herd``'s field from their cells (compiled, no search)."""
    a = sim.agents
    a.pos[rows] = a.cell[rows]  # from the cell itself (one mid-step is abandoned), so every step is legal
    assert herd.growth is not None  # (a herd's animals follow it once its field is complete)
    cells, offsets = herd.growth.paths(a.cell[rows], max_len=a.path_capacity)
    lengths = np.diff(offsets)
    a.set_paths(rows, cells, offsets[:-1], lengths)
    a.goal[rows] = herd.goal
    walking = lengths > 1
    a.state[rows[walking]] = State.WALKING
    a.state[rows[~walking]] = State.IDLE
    a.herd[rows[~walking]] = 0  # already there
