"""Soak: many model steps with random painting, resets and map swaps, invariants checked every step.

    python -m bench.soak [--steps 100000] [--agents 300] [--seed 1]

Every step checks that the animal count never changes, that positions are finite and
within one cell of the animal's cell, that every animal stands on a cell its species
may occupy, and that no request is lost (each animal's requests = its searches + the
one it may still be waiting for). Resident memory is sampled as it goes and must stay
flat once warmed up. ``tests/test_soak.py`` runs a short version of the same.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from sim.config import load_config
from sim.maps import load_map, resolve_map
from sim.model.agents import State
from sim.model.crowd import LANE
from sim.simulation import Simulation, species_counts
from sim.world.terrain import Terrain

MAPS = ("tutorial", "river", "fortress", "island")  # every one holds every species
STEP = 1 / 60


class Soak:
    """A simulation under random editing, checked every step."""

    def __init__(self, agents: int = 300, seed: int = 1) -> None:
        config = load_config()
        self.counts = species_counts(config, agents)
        self.maps = [load_map(resolve_map(name)) for name in MAPS]
        self.sim = Simulation(config, self.maps[0], counts=self.counts)
        self.rng = np.random.default_rng(seed)
        self.n = self.sim.agents.n
        self.requests = np.zeros(self.n, dtype=np.int64)
        self._searches0 = np.zeros(self.n, dtype=np.int64)
        push = self.sim.queue.push

        def counting(agents: np.ndarray) -> None:
            np.add.at(self.requests, agents, 1)
            push(agents)

        self.sim.queue.push = counting
        self.edits = {"paint": 0, "reset": 0, "swap": 0}

    def step(self, i: int) -> None:
        sim, rng = self.sim, self.rng
        if i % 5 == 0:
            x, y = int(rng.integers(sim.world.width)), int(rng.integers(sim.world.height))
            terrain = None if rng.random() < 0.25 else int(rng.integers(len(Terrain)))
            sim.paint(x, y, int(rng.integers(0, 4)), terrain)
            self.edits["paint"] += 1
        if i % 997 == 996:
            sim.reset_map()
            self.edits["reset"] += 1
        if i % 2503 == 2502:
            sim.load_map(self.maps[int(rng.integers(len(self.maps)))], counts=self.counts)
            self.requests[:] = 0  # a new map, new animals
            self._searches0 = sim.agents.searches.copy()
            self.edits["swap"] += 1
        sim.step(STEP)

    def check(self) -> None:
        """The invariants (see the module doc); raises AssertionError naming the broken one."""
        sim = self.sim
        a = sim.agents
        assert a.n == self.n, f"the animal count changed: {a.n} != {self.n}"
        assert np.isfinite(a.pos).all(), "a position is not finite"
        # A walker is between its last path cell and the next (and at most LANE beside that
        # line: the separation step); any other animal stands within its own cell.
        walking = a.state == State.WALKING
        off = np.abs(a.pos - a.cell).max(axis=1)
        assert (off[walking] <= 1.0 + LANE + 1e-9).all(), "a walker is more than a cell and a lane away from its cell"
        assert (off[~walking] <= 0.5 + 1e-9).all(), "a resting animal is away from its cell"
        shown = np.floor(a.pos + 0.5).astype(np.int64)  # the cell where it is drawn
        for sp in sim.species:
            mine = a.species == sp.index
            assert sp.passable_at(a.cell[mine]).all(), f"{sp.key} on a cell it may not occupy"
            assert sp.passable_at(shown[mine]).all(), f"{sp.key} drawn on a cell it may not occupy"
        waiting = np.zeros(a.n, dtype=np.int64)
        waiting[sim.queue.items()] = 1
        served = a.searches - self._searches0
        assert (self.requests == served + waiting).all(), "a request was lost or served twice"


def rss_mb() -> float:
    try:
        import psutil

        return psutil.Process().memory_info().rss / 2**20
    except ImportError:  # psutil is a dev extra: fall back to the peak
        from sim.support.platform import peak_rss_mb

        return peak_rss_mb() or 0.0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--steps", type=int, default=100_000)
    ap.add_argument("--agents", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    soak = Soak(args.agents, args.seed)
    samples = []
    t0 = time.perf_counter()
    for i in range(args.steps):
        soak.step(i)
        soak.check()
        if i % max(1, args.steps // 20) == 0:
            samples.append((i, rss_mb()))
            print(f"step {i:>7}: rss {samples[-1][1]:6.1f} MB, searches {soak.sim.totals['searches']}", flush=True)
    warm = [mb for step, mb in samples if step >= args.steps // 4]
    growth = max(warm) - min(warm) if warm else 0.0
    print(
        f"{args.steps} steps in {time.perf_counter() - t0:.0f} s, invariants held every step; "
        f"{soak.edits['paint']} strokes, {soak.edits['reset']} resets, {soak.edits['swap']} map swaps, "
        f"{soak.sim.totals['searches']} searches, {soak.sim.totals['replans']} re-plans; "
        f"rss after warm-up {min(warm):.1f}..{max(warm):.1f} MB (growth {growth:.1f} MB)"
    )
    return 0 if growth < 20 else 1


if __name__ == "__main__":
    sys.exit(main())
