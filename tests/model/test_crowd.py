"""Separation (sim.model.crowd): animals keep their distance, never onto ground they cannot
stand on, never held back from their goal, the same with any number of threads; animals
swept off a painted area spread out; spawning covers the whole habitat."""

from __future__ import annotations

import gc
import mmap
import os
import threading
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from numba import njit

from sim.config import load_config
from sim.maps import MapData, load_map
from sim.model import agents, crowd
from sim.model.agents import Agents, State
from sim.model.crowd import LANE, MAX_PUSH, MIN_PUSH, Crowd
from sim.model.planner import Ready
from sim.pathfinding import run_split
from sim.prepare import rehearsal
from sim.simulation import Simulation
from sim.support import barrier, memory
from sim.world.terrain import Terrain
from tests.conftest import ROOT

STEP = 1 / 60


#: Where Linux says whether it has transparent huge pages (a kernel without them refuses the advice).
THP = Path("/sys/kernel/mm/transparent_hugepage/enabled")

#: Idle seconds (min, max) that keep animals resting through a test's few simulated seconds: the
#: largest a config takes (``species.*.idle_s``: 0 to 3600).
STILL = (3600.0, 3600.0)


def config(spacing: float = 0.4, idle: tuple[float, float] = (0.5, 2.0), threads: int = 1):
    c = load_config(ROOT / "config.yaml")
    species = {k: replace(v, idle_s=idle) for k, v in c.species.items()}
    return replace(c, crowd=replace(c.crowd, spacing=spacing), species=species,
                   search=replace(c.search, threads=threads))  # fmt: skip


def closest_pairs(sim: Simulation) -> float:
    """The smallest distance between two animals of one drawing layer (brute force)."""
    a = sim.agents
    layer = np.array([sp.kind.layer for sp in sim.species])[a.species]
    best = np.inf
    for lay in np.unique(layer):
        p = a.pos[layer == lay]
        if len(p) > 1:
            d = np.hypot(*(p[:, None, :] - p[None, :, :]).transpose(2, 0, 1))
            np.fill_diagonal(d, np.inf)
            best = min(best, float(d.min()))
    return best


def assert_on_own_ground(sim: Simulation) -> None:
    a = sim.agents
    shown = np.floor(a.pos + 0.5).astype(np.int64)
    for sp in sim.species:
        mine = a.species == sp.index
        assert sp.passable_at(a.cell[mine]).all()
        assert sp.passable_at(shown[mine]).all(), f"{sp.key} drawn on ground it cannot stand on"


def field(w: int = 24, h: int = 20) -> np.ndarray:
    terrain = np.full((h, w), Terrain.GRASS, np.uint8)
    terrain[0, :] = terrain[-1, :] = terrain[:, 0] = terrain[:, -1] = Terrain.WATER
    return terrain


@pytest.mark.parametrize("spacing", [0.3, 0.4, 0.5])
def test_a_resting_crowd_spreads_to_the_spacing_on_open_ground(spacing):
    sim = Simulation(config(spacing, idle=STILL), MapData("field", field()),
                     counts={"cow": 60, "bird": 0, "water": 0})  # fmt: skip
    a = sim.agents
    a.pos[:] = a.cell[:] = (11, 9)  # all on one cell
    a.pos[:30] += 0.01 * np.arange(30)[:, None]
    a.cell[:30] = np.floor(a.pos[:30] + 0.5)
    assert closest_pairs(sim) < 0.02
    for _ in range(240):
        sim.step(STEP)
        assert_on_own_ground(sim)
    assert (a.state != State.WALKING).all()  # nobody walked: the separation did it
    assert closest_pairs(sim) >= spacing * 0.98
    spread = np.ptp(a.pos, axis=0)
    assert (spread < 8).all()  # no farther than it takes


def test_the_crowd_keeps_its_distance_only_once_its_kernels_are_ready():
    """A window's first start compiles the separation in another process while it runs: until the
    kernels say "crowd" is ready, a step moves nobody apart (and compiles nothing here); then it does."""
    sim = Simulation(config(0.4, idle=STILL), MapData("field", field()), counts={"cow": 20, "bird": 0, "water": 0})
    a = sim.agents
    a.pos[:] = a.cell[:] = (11, 9)  # all on one cell
    sim.planner.kernels = Ready(frozenset({"crowd"}))
    for _ in range(30):
        stats = sim.step(STEP)
        assert stats.crowd_ms == 0.0
    assert closest_pairs(sim) == 0.0  # still all on one spot
    sim.planner.kernels = Ready()
    for _ in range(240):
        sim.step(STEP)
    assert closest_pairs(sim) >= 0.4 * 0.98


def test_no_push_onto_ground_the_species_cannot_stand_on():
    """A crowd pressed against rock, water and a diagonal gap keeps to its own ground."""
    terrain = field()
    terrain[5:15, 12] = Terrain.ROCK  # a wall
    terrain[9, 13] = Terrain.WATER
    terrain[8, 11] = Terrain.SWAMP
    for y, x in ((4, 4), (5, 5), (6, 6)):  # a diagonal line of rock
        terrain[y, x] = Terrain.ROCK
    sim = Simulation(config(0.5, idle=STILL), MapData("walls", terrain), counts={"cow": 80, "bird": 0, "water": 0})
    a = sim.agents
    a.pos[:40] = a.cell[:40] = (11, 9)  # against the wall
    a.pos[40:] = a.cell[40:] = (5, 4)  # in the corner of the diagonal
    for _ in range(300):
        sim.step(STEP)
        assert_on_own_ground(sim)
    assert (a.pos[:40, 0] < 12 - 0.5).all()  # none through the wall
    assert closest_pairs(sim) > 0.45


def test_walkers_reach_their_goals_through_a_resting_crowd():
    """A corridor packed with resting cows: a cow walking through it still gets there, on time."""
    terrain = np.full((7, 40), Terrain.ROCK, np.uint8)
    terrain[2:5, 1:39] = Terrain.GRASS
    sim = Simulation(config(0.5, idle=STILL), MapData("corridor", terrain), counts={"cow": 121, "bird": 0,
                                                                                        "water": 0})  # fmt: skip
    a = sim.agents
    cells = np.array([(x, y) for x in range(5, 35) for y in (2, 3, 4)] * 2)[:120]
    a.pos[:120] = a.cell[:120] = cells
    a.pos[120] = a.cell[120] = (2, 3)
    goal = np.array([37, 3])
    path = [3 * 40 + x for x in range(2, 38)]
    a.paths[120, : len(path)] = path
    a.path_len[120], a.path_pos[120], a.state[120] = len(path), 1, State.WALKING
    a.goal[120] = goal
    speed = sim.species[0].speed_by_terrain[Terrain.GRASS]
    frames = int((len(path) - 1) / speed / STEP * 1.05) + 2
    for _ in range(frames):
        sim.step(STEP)
        if a.state[120] != State.WALKING:
            break
    assert tuple(a.cell[120]) == tuple(goal) and tuple(np.round(a.pos[120])) == tuple(goal)
    assert_on_own_ground(sim)


def test_same_run_with_one_and_two_threads():
    """The crowd is cut into parts for the threads only above a few thousand animals: 9,000."""
    sums = []
    for threads in (1, 2):
        sim = Simulation(config(threads=threads), load_map(ROOT / "maps" / "island.yaml"),
                         counts={"cow": 5000, "bird": 2500, "water": 1500})  # fmt: skip
        for _ in range(40):
            sim.step(STEP)
        sums.append(sim.checksum())
    assert sums[0] == sums[1]


def test_separation_off_leaves_positions_alone():
    sim = Simulation(config(0.0, idle=STILL), MapData("field", field()), counts={"cow": 30, "bird": 0, "water": 0})
    a = sim.agents
    a.pos[:] = a.cell[:] = (11, 9)
    for _ in range(30):
        sim.step(STEP)
    assert (a.pos == (11, 9)).all()  # stacked as they were


def test_cows_swept_off_a_painted_area_spread_out():
    sim = Simulation(config(0.4, idle=STILL), MapData("field", field(40, 30)),
                     counts={"cow": 40, "bird": 0, "water": 0})  # fmt: skip
    a = sim.agents
    a.pos[:] = a.cell[:] = np.array([(x, y) for x in range(17, 23) for y in range(12, 19)])[:40]
    sim.paint(20, 15, 5, int(Terrain.ROCK))  # a disc of rock over all of them
    cells = {tuple(c) for c in a.cell.tolist()}
    assert len(cells) == 40  # each to a cell of its own at the edge, not queued on a few
    for _ in range(120):
        sim.step(STEP)
        assert_on_own_ground(sim)
    assert closest_pairs(sim) >= 0.39


def test_spawn_covers_the_whole_habitat_on_the_fortress():
    sim = Simulation(load_config(ROOT / "config.yaml"), load_map(ROOT / "maps" / "fortress.yaml"),
                     counts={"cow": 250, "bird": 0, "water": 0})  # fmt: skip
    a = sim.agents
    ys = a.cell[:, 1]
    habitat = sim.species[0].habitable()
    # Spread like the habitat: rows from top to bottom, most of its quarters used.
    assert np.ptp(ys) > 0.8 * np.ptp(habitat[:, 1])
    lo, hi = np.percentile(habitat[:, 1], [25, 75])
    assert 0.3 < np.mean((ys >= lo) & (ys <= hi)) < 0.7
    assert len({tuple(c) for c in a.cell.tolist()}) == 250  # no two on one cell


def test_new_costs_from_the_config_keep_the_crowd_off_ground_it_lost():
    """Swamp made impassable for cows while they crowd at its edge: the separation follows
    the new costs (it never pushes one back onto the swamp)."""
    terrain = field()
    terrain[:, 12:] = Terrain.SWAMP
    terrain[0, :] = terrain[-1, :] = terrain[:, 0] = terrain[:, -1] = Terrain.WATER
    c = config(0.5, idle=STILL)
    sim = Simulation(c, MapData("edge", terrain), counts={"cow": 60, "bird": 0, "water": 0})
    a = sim.agents
    a.pos[:] = a.cell[:] = (11, 9)  # on the grass, against the swamp
    cow = c.species["cow"]
    sim.apply_config(replace(c, species={**c.species, "cow": replace(cow, costs={**cow.costs, "swamp": 0.0})}))
    for _ in range(200):
        sim.step(STEP)
        assert_on_own_ground(sim)
    assert (np.floor(a.pos[:, 0] + 0.5) < 12).all() and closest_pairs(sim) > 0.45


def test_a_crowd_that_grows_or_shrinks_is_separated_as_a_fresh_one_would_be():
    """The separation keeps its kernels' arguments between frames; when animals come or go (or
    the map changes), the next pass must be the one a new separation step would make."""
    sim = Simulation(config(threads=2), load_map(ROOT / "maps" / "island.yaml"),
                     counts={"cow": 4000, "bird": 3000, "water": 2000})  # fmt: skip
    for _ in range(5):
        sim.step(STEP)
    for change in (lambda: sim.add_animals(3000), lambda: sim.remove_animals(1500)):
        change()
        a = sim.agents
        fresh = a.store["pos"].copy(), a.store["cell"].copy()
        moved = sim.crowd.separate(a, sim.world.terrain, sim._stands, sim._layers, 0.4, 2)
        kept = a.store["pos"].copy(), a.store["cell"].copy()
        a.store["pos"][:], a.store["cell"][:] = fresh
        again = Crowd().separate(a, sim.world.terrain, sim._stands, sim._layers, 0.4, 2)
        assert moved == again > 0
        assert np.array_equal(a.store["pos"], kept[0]) and np.array_equal(a.store["cell"], kept[1])


def reference_pushes(pos: np.ndarray, layer: np.ndarray, spacing: float) -> tuple[np.ndarray, np.ndarray]:
    """Every animal's push by brute force over all pairs of a layer (half the overlap, away from
    each), cut to MAX_PUSH and none below MIN_PUSH; and the push's length before the cut."""
    push = np.zeros_like(pos)
    for lay in np.unique(layer):
        mine = np.flatnonzero(layer == lay)
        for rows in np.array_split(mine, max(1, len(mine) // 500)):  # a block of rows at a time
            e = pos[rows][:, None, :] - pos[mine][None, :, :]
            d = np.hypot(e[..., 0], e[..., 1])
            d[rows[:, None] == mine[None, :]] = np.inf
            close = d < spacing
            k = np.where(close, 0.5 * (spacing - d) / np.where(close, d, 1.0), 0.0)
            push[rows] = (k[..., None] * e).sum(axis=1)
    size = np.hypot(push[:, 0], push[:, 1])
    push *= np.minimum(1.0, MAX_PUSH / np.maximum(size, 1e-30))[:, None]
    push[size < MIN_PUSH] = 0.0
    return push, size


def assert_pushed_by(a, before: np.ndarray, push: np.ndarray, size: np.ndarray, moved: int) -> None:
    """The animals moved by ``push`` (reference_pushes), their cells following. The table keeps
    positions in 32 bits (a 200-cell coordinate to ~1e-5): a push within that of MIN_PUSH may
    go either way."""
    sure = np.abs(size - MIN_PUSH) > 1e-4
    assert (size > MIN_PUSH + 1e-4).sum() <= moved <= (size > MIN_PUSH - 1e-4).sum()
    np.testing.assert_allclose(a.pos[sure], (before + push)[sure], rtol=0, atol=1e-4)
    assert np.array_equal(a.cell, np.floor(a.pos + 0.5))


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("spacing", [0.25, 0.4, 0.5, 1.0])
@pytest.mark.parametrize("w, h, columns", [(300, 90, crowd.MAX_COLUMNS), (20, 20, crowd.MAX_COLUMNS), (300, 90, 16)],
                         ids=["folded", "whole", "wide-squares"])  # fmt: skip
def test_one_pass_pushes_every_resting_animal_by_half_the_overlaps(spacing, threads, w, h, columns, monkeypatch):
    """One pass against an independent brute force over all pairs: each resting animal on open
    ground moves by the sum of half its overlaps with the animals of its own layer (away from
    each), cut to MAX_PUSH; a smaller push than MIN_PUSH is not made. 9,000 animals, so the
    crowd is cut into parts (and threads), on a field larger than the table folds onto, up to
    its edges (where the rows a query looks at wrap around the fold), on one the table holds
    whole (where the row before a layer's first is the last of the layer before), and with
    squares wider than the spacing (a map more than MAX_COLUMNS squares across: lowered to 16
    here, squares of ~19 cells)."""
    monkeypatch.setattr(crowd, "MAX_COLUMNS", columns)
    terrain = np.full((h, w), Terrain.GRASS, np.uint8)
    sim = Simulation(config(spacing, idle=STILL, threads=threads), MapData("field", terrain),
                     counts={"cow": 6000, "bird": 3000, "water": 0})  # fmt: skip
    a = sim.agents
    rng = np.random.default_rng(7)
    a.pos[:] = rng.uniform((0.1, 0.1), (w - 1.1, min(h - 1.1, 10.0)), (a.n, 2))  # 3 or 25 a cell; pushes stay on it
    a.pos[::3, 0] = np.round(a.pos[::3, 0] * 2) / 2  # some on cell edges and centres
    a.cell[:] = np.floor(a.pos + 0.5)
    a.state[:] = State.IDLE
    before = a.pos.astype(np.float64)
    push, size = reference_pushes(before, np.array([sp.kind.layer for sp in sim.species])[a.species], spacing)
    moved = sim.crowd.separate(a, sim.world.terrain, sim._stands, sim._layers, spacing, threads)
    assert moved > a.n // 4
    assert_pushed_by(a, before, push, size, moved)


@pytest.mark.parametrize("threads", [1, 2])
def test_the_pairs_parts_meet_where_the_work_halves_and_miss_no_pair(threads):
    """The pairs' two parts meet where the table's estimated work halves (crowd._split), not at
    its middle entry: 6,000 cows packed ~30 to a square of the spacing (the table's first half)
    and 3,000 birds spread thin, so the cows' part takes fewer entries. Against the brute force."""
    w, h, spacing = 300, 90, 0.4
    field = MapData("field", np.full((h, w), Terrain.GRASS, np.uint8))
    sim = Simulation(
        config(spacing, idle=STILL, threads=threads), field, counts={"cow": 6000, "bird": 3000, "water": 0}
    )
    a = sim.agents
    rng = np.random.default_rng(3)
    cows = a.species == 0
    a.pos[cows] = rng.uniform((100.0, 40.0), (106.0, 46.0), (cows.sum(), 2))
    a.pos[~cows] = rng.uniform((1.0, 1.0), (w - 2.0, h - 2.0), ((~cows).sum(), 2))
    a.cell[:] = np.floor(a.pos + 0.5)
    a.state[:] = State.IDLE
    before = a.pos.astype(np.float64)
    push, size = reference_pushes(before, np.array([sp.kind.layer for sp in sim.species])[a.species], spacing)
    moved = sim.crowd.separate(a, sim.world.terrain, sim._stands, sim._layers, spacing, threads)
    assert_pushed_by(a, before, push, size, moved)
    ends = sim.crowd._jobs[0][3][-1]
    assert sim.species[0].key == "cow" and 0 < ends[0, 0] < 0.9 * a.n / 2 and ends[0, -1] == a.n


def test_a_parts_counts_are_16_bit_below_65536_animals_and_the_same_in_32(monkeypatch):
    """A part's slot counts are kept in 16 bits while a part has fewer than 65,536 animals, in
    32 above (two parts of 65,536: 131,072 animals); both give the same pass (9,000 animals on
    the island, two frames, 32 bits forced by lowering the limit)."""
    n, w = 131_072, 400
    rng = np.random.default_rng(5)
    a = Agents(4)
    a.add(rng.integers(0, 2, n), np.zeros((n, 2), np.int64), np.zeros(n), np.zeros(n))
    a.pos[:] = rng.uniform(0.0, w - 1.0, (n, 2))
    a.cell[:] = np.floor(a.pos + 0.5)
    a.state[:] = State.IDLE
    big = Crowd()
    assert big.separate(a, np.zeros((w, w), np.uint8), np.ones((2, 1), bool), np.array([0, 1]), 0.4, 2) > 0
    assert big._per_part.dtype == np.int32 and big._per_part.shape[0] == 2
    ends = []
    for limit in (crowd.COUNTS_16, 16):
        monkeypatch.setattr(crowd, "COUNTS_16", limit)
        sim = Simulation(config(threads=2), load_map(ROOT / "maps" / "island.yaml"),
                         counts={"cow": 5000, "bird": 2500, "water": 1500})  # fmt: skip
        sim.step(STEP)
        sim.step(STEP)
        ends.append((sim.crowd._per_part.dtype, sim.agents.pos.copy()))
    assert ends[0][0] == np.uint16 and ends[1][0] == np.int32
    assert np.array_equal(ends[0][1], ends[1][1])


@pytest.mark.parametrize("shape, dtype", [((5, 600_001), np.int32), (1 << 19, np.uint16), ((3, 7), np.float32)])
def test_scratch_in_huge_pages_is_zeroed_aligned_and_writable(shape, dtype):
    """The separation's scratch (:func:`sim.support.memory.zeros`): zeros of the shape and type asked
    for, C order, writable; a large array starts on a 2 MB boundary where the system maps huge pages
    (Linux), a small one is numpy's own; the memory stays while the array does."""
    a = memory.zeros(shape, dtype)
    assert a.shape == (shape if isinstance(shape, tuple) else (shape,)) and a.dtype == dtype
    assert a.flags.c_contiguous and a.flags.writeable and not a.any()
    root = a
    while isinstance(root, np.ndarray) and root.base is not None:
        root = root.base
    mapped = isinstance(root, memoryview) and isinstance(root.obj, mmap.mmap)
    if a.nbytes >= memory.LARGE and THP.exists():  # (without them: numpy's zeros)
        assert mapped
    if mapped:
        assert a.nbytes >= memory.LARGE and a.ctypes.data % memory.HUGE_PAGE == 0
    a[...] = 7
    view = a.reshape(-1)[-3:]
    del a
    gc.collect()
    assert (view == 7).all()


def test_the_pass_is_the_same_in_huge_pages_and_in_numpys(monkeypatch):
    """The separation's scratch in 2 MB pages or in numpy's arrays: the same positions (9,000
    animals on the island, two threads, three frames; every array of the first run in its own
    mapping)."""
    runs = []
    for large in (0, 1 << 60):
        monkeypatch.setattr(memory, "LARGE", large)
        sim = Simulation(config(threads=2), load_map(ROOT / "maps" / "island.yaml"),
                         counts={"cow": 5000, "bird": 2500, "water": 1500})  # fmt: skip
        for _ in range(3):
            sim.step(STEP)
        runs.append((sim.crowd._ints.ctypes.data % memory.HUGE_PAGE == 0, sim.agents.pos.copy()))
    assert runs[0][0] or not THP.exists()
    assert np.array_equal(runs[0][1], runs[1][1])


@settings(max_examples=80, deadline=None)
@given(w=st.integers(1, 40), h=st.integers(1, 40), n=st.integers(2, 300), spacing=st.floats(0.05, 1.0),
       layers=st.lists(st.integers(0, 3), min_size=1, max_size=4), seed=st.integers(0, 2**32 - 1))  # fmt: skip
def test_pushes_match_the_brute_force_on_any_open_map(w, h, n, spacing, layers, seed):
    """Any map's size (narrow, tall, one cell), crowd, spacing and layers: the hash folds the map
    onto its table in every shape, and no pair is missed or counted twice."""
    rng = np.random.default_rng(seed)
    a = Agents(4)
    a.add(rng.integers(0, len(layers), n), np.zeros((n, 2), np.int64), np.zeros(n), np.zeros(n))
    a.pos[:] = rng.uniform((-0.4, -0.4), (w - 0.6, h - 0.6), (n, 2))  # pushes (<= MAX_PUSH) stay on the map
    a.cell[:] = np.floor(a.pos + 0.5)
    a.state[:] = State.IDLE
    before = a.pos.astype(np.float64)
    layer = np.array(layers)[a.species]
    for lay in np.unique(layer):  # (two on one point have a rule of their own)
        p = before[layer == lay]
        gaps = np.hypot(*(p[:, None] - p[None]).transpose(2, 0, 1))[np.triu_indices(len(p), 1)]
        assume(gaps.size == 0 or gaps.min() > 1e-3)
    push, size = reference_pushes(before, layer, spacing)
    terrain, stands = np.zeros((h, w), np.uint8), np.ones((len(layers), 1), bool)
    moved = Crowd().separate(a, terrain, stands, np.array(layers, np.int64), spacing, 1)
    assert_pushed_by(a, before, push, size, moved)


@pytest.mark.skipif(not barrier.AVAILABLE, reason="the compiled barrier is Linux on x86-64 only")
def test_the_compiled_barrier_and_pythons_give_the_same_positions():
    """Large crowds' parts wait for each other at a compiled barrier where there is one; the
    fallback elsewhere (``threading.Barrier``) must give the very same pass: 9,000 animals on
    the island, 30 passes each way from the same positions."""
    sim = Simulation(config(threads=2), load_map(ROOT / "maps" / "island.yaml"),
                     counts={"cow": 5000, "bird": 2500, "water": 1500})  # fmt: skip
    for _ in range(20):
        sim.step(STEP)
    a = sim.agents
    start = a.pos.copy(), a.cell.copy()
    ends = []
    for compiled in (True, False):
        a.pos[:], a.cell[:] = start
        moved = [sim.crowd.separate(a, sim.world.terrain, sim._stands, sim._layers, 0.4, 2, compiled_barrier=compiled)
                 for _ in range(30)]  # fmt: skip
        ends.append((moved, a.pos.copy(), a.cell.copy()))
    assert ends[0][0] == ends[1][0] and min(ends[0][0]) > 0
    assert np.array_equal(ends[0][1], ends[1][1]) and np.array_equal(ends[0][2], ends[1][2])


@njit(nogil=True)
def _ping(j, rounds, slots, state, seen):
    """Round r: write r into my slot, wait, read the other's slot (it must be r too), wait (so
    nobody writes r + 1 before the other has read r). Party 1 dawdles first, every 7th round a
    little (its partner spins), every 50th long (its partner sleeps on the futex)."""
    for r in range(1, rounds + 1):
        work = 0.0
        for t in range(200_000 if j == 1 and r % 50 == 0 else 2_000 if j == 1 and r % 7 == 0 else 0):
            work = work * 0.999 + t
        slots[j * 16] = r + (work < -1.0)  # (work is never negative: the loop is kept)
        barrier.arrive_and_wait(state, (2 * r - 1) * 2)
        seen[j, r - 1] = slots[(1 - j) * 16]
        barrier.arrive_and_wait(state, 2 * r * 2)


@pytest.mark.skipif(not barrier.AVAILABLE, reason="the compiled barrier is Linux on x86-64 only")
def test_the_compiled_barrier_lets_no_party_past_until_all_arrive():
    """Two threads through 2,000 barriers, one of them slowed down at random (so the other spins
    and sleeps on the futex): after each, each sees what the other wrote before it."""
    rounds = 2000
    slots, state = np.zeros(32, np.int64), barrier.barrier_state()
    seen = np.zeros((2, rounds), np.int64)
    run_split(_ping, [(0, rounds, slots, state, seen), (1, rounds, slots, state, seen)], 2)
    assert np.array_equal(seen, np.tile(np.arange(1, rounds + 1), (2, 1)))


@pytest.mark.skipif(not barrier.AVAILABLE, reason="the compiled barrier is Linux on x86-64 only")
def test_the_threaded_pass_keeps_one_worker_a_crowd_and_stops_it_with_the_crowd():
    """The threaded pass's first part runs on a thread of the crowd's own that sleeps in compiled
    code between frames: one for the crowd's life (not one a frame), a new one when the crowd is
    laid out anew (more animals: the old one holds the old arrays), none once the crowd is gone."""

    def workers() -> list[threading.Thread]:
        return [t for t in threading.enumerate() if t.name.startswith("crowd-")]

    before = set(workers())
    sim = Simulation(config(threads=2), load_map(ROOT / "maps" / "island.yaml"),
                     counts={"cow": 5000, "bird": 2500, "water": 1500})  # fmt: skip
    for _ in range(5):
        sim.step(STEP)
    first = set(workers()) - before
    assert len(first) == 1
    sim.add_animals(9500)
    for _ in range(3):
        sim.step(STEP)
    second = set(workers()) - before
    assert len(second) == 1 and not second & first and not any(t.is_alive() for t in first)
    checksum = sim.checksum()
    del sim
    gc.collect()
    assert not any(t.is_alive() for t in second)
    assert checksum  # (the crowd was in use to the end)


@pytest.mark.skipif(not barrier.AVAILABLE, reason="the compiled barrier is Linux on x86-64 only")
def test_an_interrupt_as_a_pass_starts_leaves_the_next_pass_whole(monkeypatch):
    """The workers are woken before this thread's own call starts; an interrupt in between (a
    Ctrl-C) leaves a worker waiting in that pass for good. The next pass must not hang or share
    its barrier: new workers, and the same positions as a fresh crowd's pass on one thread."""
    sim = Simulation(config(threads=2), load_map(ROOT / "maps" / "island.yaml"),
                     counts={"cow": 5000, "bird": 2500, "water": 1500})  # fmt: skip
    for _ in range(20):
        sim.step(STEP)
    a, real = sim.agents, crowd._run

    def interrupted(job, state, parts, moved, j, seen):
        if j == parts - 1:
            raise KeyboardInterrupt
        return real(job, state, parts, moved, j, seen)

    monkeypatch.setattr(crowd, "_run", interrupted)
    start = a.pos.copy(), a.cell.copy()
    args = (sim.world.terrain, sim._stands, sim._layers, 0.4)
    # The abandoned worker may not have run yet (a busy machine): it still writes its first step
    # into the scratch it was given, so the next pass must have scratch of its own.
    names = ("_floats", "_ints", "_counts", "_per_part", "_bufs", "_moved")
    old = [getattr(sim.crowd, name) for name in names]
    with pytest.raises(KeyboardInterrupt):
        sim.crowd.separate(a, *args, 2)
    monkeypatch.setattr(crowd, "_run", real)
    assert np.array_equal(a.pos, start[0])
    moved = sim.crowd.separate(a, *args, 2)
    assert [name for name, was in zip(names, old, strict=True) if getattr(sim.crowd, name) is was] == []
    after = a.pos.copy()
    a.pos[:], a.cell[:] = start
    assert Crowd().separate(a, *args, 1) == moved > 0
    assert np.array_equal(a.pos, after)


@pytest.mark.skipif(not barrier.AVAILABLE, reason="the compiled barrier is Linux on x86-64 only")
def test_the_threaded_pass_compiled_ahead_for_a_tiny_crowd_is_the_one_a_large_crowd_runs():
    """A first start compiles the threaded pass in a background stage for its tiny rehearsal
    crowd (sim.prepare.compile_rest), without running it; a crowd of 9,000 cut into two on two
    threads must then run that very compiled version (a different signature would be compiled in
    the frame where the stress key first passes a few thousand animals)."""
    tiny = rehearsal(load_config())
    tiny.compile_crowd()
    compiled = set(crowd._run.overloads)
    assert compiled
    sim = Simulation(config(threads=2), load_map(ROOT / "maps" / "island.yaml"),
                     counts={"cow": 5000, "bird": 2500, "water": 1500})  # fmt: skip
    sim.step(STEP)
    assert set(crowd._run.overloads) == compiled


def test_the_separation_waits_at_pythons_barrier_until_the_threaded_pass_is_ready(monkeypatch):
    """While a first start's "rest" stage has not compiled the threaded pass, the separation must
    not compile it in a frame (the stress key would stall): it takes Python's barrier; once the
    stage says ready, the compiled one (the same positions either way: the test above)."""
    calls = []  # the threaded pass's calls on the calling thread (its part is the last)
    monkeypatch.setattr(crowd, "_run", lambda job, state, parts, moved, j, seen: calls.append(j == parts - 1) or 0)
    ends = []
    for ready in (False, True):
        sim = Simulation(config(threads=2), load_map(ROOT / "maps" / "island.yaml"),
                         counts={"cow": 5000, "bird": 2500, "water": 1500})  # fmt: skip
        sim.planner.kernels = Ready(frozenset() if ready else frozenset({"rest"}))
        calls.clear()
        sim.step(STEP)
        ends.append(sum(calls))
    assert ends == ([0, 1] if barrier.AVAILABLE else [0, 0])


def reference_walker(open_at, pos, cell, leg, aim, push, size):
    """Where one walking animal ends up (None: it is left be), by the module doc's rules written
    out plainly (``open_at(x, y)``: whether its species may stand on that cell). Also says
    whether the case is too close to one of the rules' edges for the table's 32-bit positions
    to settle (then it is not compared)."""
    (bx, by), (ax, ay) = leg, aim
    near = abs(size - MIN_PUSH) < 1e-4  # (see assert_pushed_by)
    if size < MIN_PUSH or max(abs(ax - bx), abs(ay - by)) > 1:
        return None, near
    if ax != bx and ay != by and not (open_at(ax, by) and open_at(bx, ay)):
        return None, near
    f = np.array([ax, ay], float) - pos
    if f @ f < 1e-18:
        return None, near
    q = pos + push
    along = push @ f
    near |= abs(along) / np.sqrt(f @ f) < 1e-3
    if along < 0:  # never backwards
        q = q - along * f / (f @ f)
    b, line = np.array([bx, by], float), np.array([ax - bx, ay - by], float)
    u = 0.0 if line @ line == 0 else min(max((q - b) @ line / (line @ line), 0.0), 1.0)
    foot = b + u * line
    off = q - foot
    if np.hypot(*off) > LANE:  # within the lane
        q = foot + off * LANE / np.hypot(*off)
    edge = np.abs((q + 0.5) - np.round(q + 0.5))
    near |= bool((edge < 1e-3).any())
    ux, uy = (int(v) for v in np.floor(q + 0.5))
    cx, cy = cell
    crossed_corner = ux != cx and uy != cy and not (open_at(ux, cy) and open_at(cx, uy))
    if (ux, uy) != (cx, cy) and (not open_at(ux, uy) or crossed_corner):
        return None, near
    return q, near


@pytest.mark.parametrize("threads", [1, 2])
def test_walkers_are_pushed_within_their_lane_never_backwards_and_never_past_a_blocked_corner(threads):
    """9,000 walking cows packed on a field with rocks, each on a random step (straight,
    diagonal, on the spot, or two cells: none is pushed off that one), every one checked
    against the rules written out plainly (reference_walker) from the brute-force pushes."""
    rng = np.random.default_rng(11)
    w = h = 60
    terrain = np.full((h, w), Terrain.GRASS, np.uint8)
    terrain[rng.random((h, w)) < 0.12] = Terrain.ROCK
    sim = Simulation(config(0.4, idle=STILL, threads=threads), MapData("rocks", terrain),
                     counts={"cow": 9000, "bird": 0, "water": 0})  # fmt: skip
    a, cow = sim.agents, sim.species[0]

    def open_at(x: int, y: int) -> bool:
        return 0 <= x < w and 0 <= y < h and bool(cow.passable_at(np.array([[x, y]]))[0])

    leg = a.cell.astype(np.int64).copy()  # each on its own ground (spawned there)
    step = rng.integers(-1, 2, (a.n, 2))
    step[rng.random(a.n) < 0.03] *= 2  # two cells: not a step
    aim = np.clip(leg + step, 0, (w - 1, h - 1))
    # On its way out of its own cell (still on it), a little off the line.
    a.pos[:] = leg + rng.uniform(0.0, 0.45, (a.n, 1)) * np.sign(aim - leg) + rng.uniform(-0.04, 0.04, (a.n, 2))
    a.cell[:] = leg
    a.state[:] = State.WALKING
    a.aim[:], a.leg[:] = aim[:, 1] * w + aim[:, 0], leg[:, 1] * w + leg[:, 0]
    before = a.pos.astype(np.float64)
    push, size = reference_pushes(before, np.zeros(a.n, np.int64), 0.4)
    moved = sim.crowd.separate(a, sim.world.terrain, sim._stands, sim._layers, 0.4, threads)
    compared = expected_moves = 0
    for i in range(a.n):
        q, near = reference_walker(open_at, before[i], tuple(leg[i]), tuple(leg[i]), tuple(aim[i]), push[i], size[i])
        if near:
            continue
        compared += 1
        if q is None:
            assert np.array_equal(a.pos[i], before[i]), f"animal {i} was to be left be"
        else:
            expected_moves += 1
            np.testing.assert_allclose(a.pos[i], q, rtol=0, atol=2e-4, err_msg=f"animal {i}")
    assert compared > 0.9 * a.n and 0.3 * a.n < expected_moves <= moved
    assert np.array_equal(a.cell, np.floor(a.pos + 0.5))


def test_a_large_crowds_walking_step_is_the_same_on_one_thread_and_two():
    """Agents.move cuts a crowd of 25,000 into parts that walk on threads (runs of animals, in
    turn): 20 steps from the same state give the same positions, cells, headings, path places
    and arrivals (in order) as one thread."""
    sim = Simulation(config(threads=2), load_map(ROOT / "maps" / "island.yaml"),
                     counts={"cow": 14000, "bird": 7000, "water": 4000})  # fmt: skip
    for _ in range(30):
        sim.step(STEP)
    a = sim.agents
    assert a.n // agents.MOVE_SPLIT >= 2
    start = {k: v.copy() for k, v in a.store.items()}
    ends = []
    for threads in (1, 2):
        for k, v in start.items():
            a.store[k][...] = v
        done = [a.move(STEP, sim._speed_table, sim.world.terrain, sim._stands, threads).tolist() for _ in range(20)]
        ends.append((done, {k: v.copy() for k, v in a.store.items()}))
    assert sum(map(len, ends[0][0])) > 0 and ends[0][0] == ends[1][0]
    assert all(d == sorted(d) for d in ends[1][0])
    for k, v in ends[0][1].items():
        assert np.array_equal(v, ends[1][1][k], equal_nan=v.dtype.kind == "f"), k
    assert not np.array_equal(ends[0][1]["pos"], start["pos"])


@pytest.mark.skipif(not barrier.AVAILABLE or len(os.sched_getaffinity(0)) < 2, reason="needs the barrier and two cores")
def test_a_round_trip_between_two_cores_is_measured_and_the_affinity_given_back():
    """bench.demo prints how long a cache line takes between the first two cores (a host may put
    a virtual machine's two cores under one cache or two): a positive time, each thread pinned
    only while it is measured; with one core to run on there is nothing to measure."""
    own = os.sched_getaffinity(0)
    ns = barrier.round_trip_ns(trips=50)
    assert ns is not None and 0 < ns < 1e8
    assert os.sched_getaffinity(0) == own
    with pytest.raises(ValueError, match=r"^trips must be at least 1, got 0$"):
        barrier.round_trip_ns(trips=0)
    with pytest.raises(TypeError, match=r"^trips must be an int, got 2\.5$"):
        barrier.round_trip_ns(trips=2.5)
    try:
        os.sched_setaffinity(0, {min(own)})
        assert barrier.round_trip_ns(trips=50) is None
    finally:
        os.sched_setaffinity(0, own)
