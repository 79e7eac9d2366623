"""The planner's rounds: each species' requests are served by one compiled call (region check,
batch search, smoothing, answers into the round's rows). Checked against the engine's public
batch API, on one thread and split across threads."""

from __future__ import annotations

import itertools
import time
from dataclasses import replace

import numpy as np
import pytest

import sim.pathfinding.rounds as engine_rounds
from sim.config import load_config
from sim.maps import load_map
from sim.model.agents import Outcome, State
from sim.pathfinding import STATUS_FOUND, STATUS_HIT_LIMIT, SearchRound
from sim.pathfinding import workspace as workspaces
from sim.pathfinding.clock import monotonic_s
from sim.simulation import Simulation, species_counts
from tests.conftest import ROOT
from tests.helpers import STEP, EdgeHookCow, JumpingFish


def island(animals: int, **search) -> Simulation:
    config = load_config(ROOT / "config.yaml")
    config = replace(config, search=replace(config.search, **search))
    return Simulation(config, load_map(ROOT / "maps" / "island.yaml"), counts=species_counts(config, animals))


def expected_round(sim: Simulation, rows: np.ndarray, traces: dict | None = None) -> list:
    """Per row: (outcome, expanded, cost or nan, path cells), from ``AStar.search_many`` and
    ``PathGrid.smooth_many`` (for kinds that fly), one species at a time. Into ``traces``, per
    species: (positions searched, the cells each expanded, as lists)."""
    a = sim.agents
    out: list = [None] * rows.size
    for sp in sim.species:
        mine = np.flatnonzero(a.species[rows] == sp.index)
        labels = sp.regions
        cells, goals = a.cell[rows[mine]], a.goal[rows[mine]]
        here = labels[cells[:, 1], cells[:, 0]]
        same = (here != 0) & (here == labels[goals[:, 1], goals[:, 0]])
        for j in mine[~same]:
            out[j] = (int(Outcome.OTHER_REGION), 0, np.nan, [])
        if not same.any():
            continue
        result, (trace, trace_offsets) = sp.astar.search_many(cells[same], goals[same], threads=1, trace=True)
        if traces is not None:
            cut = trace_offsets.tolist()
            traces[sp.index] = (mine[same].tolist(), [trace[i:j].tolist() for i, j in itertools.pairwise(cut)])
        paths, offsets = result.paths, result.offsets
        if sp.kind.straight_paths:
            paths, offsets = sp.grid.smooth_many(paths, offsets, diagonal=sp.astar.diagonal)
        for q, j in enumerate(mine[same]):
            st = int(result.status[q])
            outcome = {STATUS_FOUND: Outcome.FOUND, STATUS_HIT_LIMIT: Outcome.CAPPED}.get(st, Outcome.FAILED)
            cost = float(result.cost[q]) if st == STATUS_FOUND else np.nan
            out[j] = (int(outcome), int(result.expanded[q]), cost, paths[offsets[q] : offsets[q + 1]].tolist())
    return out


def got_round(rnd) -> list[tuple[int, int, float, list[int]]]:
    return [
        (int(rnd.outcome[j]), int(rnd.expanded[j]), float(rnd.cost[j]),
         rnd.paths[rnd.path_at[j] : rnd.path_at[j] + rnd.path_n[j]].tolist())
        for j in range(rnd.rows.size)
    ]  # fmt: skip


def check_round(sim: Simulation, threads: int, seed: int = 7, k: int | None = None,
                trace: bool = False) -> tuple[int, list]:  # fmt: skip
    """Every animal (or ``k`` of them) asks at once, for a random goal (many in other regions);
    the round's answers (and with ``trace``, the cells each search expanded) must be the
    engine's. Returns how the planner says it served the round (``Planner.round_shape``): the
    per-species jobs and the rows of each compiled round call."""
    a = sim.agents
    rng = np.random.default_rng(seed)
    h, w = sim.world.terrain.shape
    a.goal[:] = np.stack((rng.integers(0, w, a.n), rng.integers(0, h, a.n)), axis=1)
    rows = rng.permutation(a.n).astype(np.int64)[:k]  # queue order mixes the species
    sim.planner.threads = threads
    rnd = sim.planner.search_rows(rows, trace)
    jobs, compiled = sim.planner.round_shape.jobs, list(sim.planner.round_shape.calls)
    present = {int(s) for s in a.species[rows]}
    assert set(rnd.species_ms) == present and all(ms >= 0.0 for ms in rnd.species_ms.values())
    # Measured inside the compiled call(s), in ms: within the round's wall time (per thread).
    assert sum(rnd.species_ms.values()) <= rnd.ms * threads
    traces: dict = {}
    want = expected_round(sim, rows, traces)
    if trace:
        assert set(rnd.trace) == present
        for s, (pos, cells, offsets) in rnd.trace.items():
            got_trace = (pos.tolist(), [cells[i:j].tolist() for i, j in itertools.pairwise(offsets.tolist())])
            assert got_trace == traces[s], s
    else:
        assert rnd.trace == {}
    got = got_round(rnd)
    if rows.size >= 40:  # the check covers both
        assert {int(Outcome.FOUND), int(Outcome.OTHER_REGION)} <= {e[0] for e in want}
    for j, (g, e) in enumerate(zip(got, want, strict=True)):
        assert g[:2] == e[:2] and g[3] == e[3], (j, g, e)
        assert (np.isnan(g[2]) and np.isnan(e[2])) or g[2] == pytest.approx(e[2], rel=1e-12), (j, g[2], e[2])
    return jobs, compiled


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_a_round_answers_what_the_engine_answers(threads):
    sim = island(900)
    for _ in range(5):
        sim.step(STEP)
    jobs, compiled = check_round(sim, threads)
    if threads == 1:  # the whole round in one compiled call
        assert not jobs and compiled == [900]
    else:  # 900 requests: one contiguous part per thread, each one compiled call
        assert not jobs and compiled == [900 // threads] * threads


def test_the_compiled_clock_reads_seconds_and_goes_forward():
    # The rounds time each species with it, inside compiled code and without the GIL. Its
    # readings are bracketed by Python's clock (the same monotonic clock), so however slow or
    # busy the machine, the interval it measures lies within Python's.
    p0 = time.perf_counter()
    t0 = monotonic_s()
    time.sleep(0.05)
    t1 = monotonic_s()
    p1 = time.perf_counter()
    assert 0.05 <= t1 - t0 <= (p1 - p0) + 1e-6  # seconds, as Python's clock


@pytest.mark.parametrize("threads", [1, 2])
def test_a_traced_round_records_what_the_engine_expands(threads):
    # The search views ask for every expanded cell; the round gives them per species, as the engine does.
    sim = island(900)
    for _ in range(5):
        sim.step(STEP)
    jobs, compiled = check_round(sim, threads, seed=13, trace=True)
    assert not jobs and len(compiled) == threads and sum(compiled) == 900


@pytest.mark.parametrize("k", [1, 2, 40])
def test_a_round_too_small_for_the_threads_is_one_compiled_call(k):
    sim = island(900)
    for _ in range(5):
        sim.step(STEP)
    jobs, compiled = check_round(sim, 2, seed=k, k=k)
    assert not jobs and compiled == [k]


def test_a_species_with_python_hooks_is_served_through_the_engine():

    sim = island(60)
    cow = sim.species[0]
    cow.astar = EdgeHookCow(sim.world, terrain_costs=cow.astar.terrain_costs, max_nodes=400)
    sim.step(STEP)
    assert sim.planner.prepared() is None
    jobs, compiled = check_round(sim, 1, seed=11)
    assert not compiled and jobs >= 1


def test_a_kind_that_jumps_is_served_in_the_one_call_round():

    sim = island(300)
    water = sim.species[2]
    water.astar = JumpingFish(sim.world, terrain_costs=water.astar.terrain_costs)
    sim.step(STEP)
    workspaces._local.workspace = workspaces.Workspace()  # this thread's buffers start empty
    assert sim.planner.prepared()[2].jumps
    _jobs, compiled = check_round(sim, 1, seed=3)
    assert compiled == [300]
    assert workspaces.workspace().jump_parent.size >= water.astar.grid.cells  # JPS's own buffer was made


@pytest.mark.parametrize("threads", [1, 2])
def test_kinds_whose_codes_differ_in_type_are_served_species_by_species(threads):
    sim = island(300)
    sim.step(STEP)
    grid = sim.species[1].astar.grid
    grid._codes = grid._codes.astype(np.uint16)  # as the grid does itself past 255 costs ...
    sim.planner.rounds = SearchRound()  # ... seen by a round that did not keep the kinds it made before
    assert sim.planner.prepared() is None  # one compiled call takes like tuples only
    jobs, compiled = check_round(sim, threads, seed=5)
    assert not compiled and jobs >= 3  # a job per species (a large one split for the threads)


def test_a_round_lets_go_of_the_gil_while_it_searches():
    # A round's parts run on several threads at once only if the compiled call releases the
    # GIL. Checked on the compiled function itself, not by timing threads (a busy machine
    # may not schedule a watching thread when a timing test expects it to).
    assert engine_rounds._round.targetoptions.get("nogil") is True
    sim = island(300)
    sim.planner.threads = 1
    sim.planner.search_rows(np.arange(sim.agents.n, dtype=np.int64))
    assert sim.planner.round_shape.calls == (300,)  # served by one call of the round ...
    assert engine_rounds._round.signatures  # ... that is that dispatcher's compiled code


def test_one_or_several_threads_give_the_same_run():
    sums = []
    for threads in (1, 2, 4):
        sim = island(3000, budget_ms=50.0)  # rounds of hundreds of requests
        sim.planner.threads = threads
        a = sim.agents
        most_calls = 0  # compiled calls in one round: more than one only when a round is split for threads
        for f in range(90):
            if f in (1, 45):  # everybody asks at once
                a.state[:] = State.IDLE
                a.idle_until[:] = a.next_search_at[:] = 0.0
            sim.step(STEP)
            most_calls = max(most_calls, len(sim.planner.round_shape.calls))
        assert a.searches.sum() > 5000  # each asked about twice
        assert (most_calls > 1) == (threads > 1)  # rounds large enough to run on the threads
        sums.append(sim.checksum())
    assert sums[0] == sums[1] == sums[2]


def test_arrivals_rest_for_a_time_in_their_species_range():
    sim = island(600)
    a = sim.agents
    rests = []
    for _ in range(360):
        walking = a.state == State.WALKING
        sim.step(STEP)
        arrived = np.flatnonzero(walking & (a.state == State.IDLE) & (a.idle_until > sim.time))
        for i in arrived:
            lo, hi = sim.species[a.species[i]].spec.idle_s
            rest = a.idle_until[i] - sim.time
            assert lo - 1e-9 <= rest <= hi + 1e-9, (i, rest, lo, hi)
            rests.append((int(a.species[i]), (rest - lo) / (hi - lo) if hi > lo else 0.5))
    assert len(rests) > 150
    for s in range(len(sim.species)):  # spread over each species' whole range
        share = np.array([r for sp, r in rests if sp == s])
        if share.size > 20:
            assert share.min() < 0.2 and share.max() > 0.8


def test_the_kinds_are_built_again_when_what_they_are_built_from_changes():
    sim = island(300)
    sim.step(STEP)
    planner_ = sim.planner
    counts = planner_.rounds.builds
    assert planner_.prepared() is not None and planner_.prepared() is not None
    assert planner_.rounds.builds == counts  # kept: nothing changed since the step made them
    cow = sim.species[0]
    cow.astar.max_nodes = 7  # a setting the engine reads at each search
    assert planner_.prepared()[0].max_nodes == 7
    counts = planner_.rounds.builds
    sim.paint(5, 5, 2, 0)  # a new revision of the world: grids and regions follow it
    planner_.prepared()
    assert planner_.rounds.builds == counts + 1
    sim.step(STEP)
    capped = sim.agents.last_outcome[sim.agents.species == 0]
    assert (capped == int(Outcome.CAPPED)).any()  # the new cap is what the cows searched with
