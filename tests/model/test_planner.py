"""The planner's rounds: each species' requests are served by one compiled call (region check,
batch search, smoothing, answers into the round's rows). Checked against the engine's public
batch API, on one thread and split across threads."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.model.agents import Outcome, State
from sim.pathfinding import SearchRound
from sim.pathfinding import workspace as workspaces
from sim.simulation import Simulation
from tests.helpers import STEP, EdgeHookCow, JumpingFish, check_round, sim_on


def island(animals: int, **search) -> Simulation:
    return sim_on("island.yaml", animals=animals, **search)


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
    costs = grid.costs.copy()  # 300 new multipliers on its open cells: past 255, the codes widen ...
    costs.flat[np.flatnonzero(costs > 0)[:300]] = 1.0 + np.arange(300) / 1000
    grid.update(0, 0, costs)
    assert grid.kernel_args(0).codes.dtype == np.uint16
    sim.planner.rounds = SearchRound()  # ... seen by a round that did not keep the kinds it made before
    assert sim.planner.prepared() is None  # one compiled call takes like tuples only
    jobs, compiled = check_round(sim, threads, seed=5)
    assert not compiled and jobs >= 3  # a job per species (a large one split for the threads)


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


def test_more_asking_than_the_budget_serves_waits_to_ask_and_answers_stay_prompt():
    """A crowd that all asks at once (a start, or everyone arriving together) asks only as fast as
    the budget serves (planner.MAX_WAIT_S): each answer comes within about that wait, the
    rest wait to ask, the longest rested first, and all are served in the end; the run repeats
    with one and two threads."""
    from sim.model.planner import MAX_WAIT_S

    sums = []
    for threads in (1, 2):
        sim = island(6000, budget_ms=0.3)  # a few dozen searches a frame for thousands of askers
        sim.planner.threads = threads
        a = sim.agents
        a.state[:] = State.IDLE
        a.idle_until[:] = a.next_search_at[:] = 0.0
        held, latencies = [], []
        for _ in range(60 * 8):
            stats = sim.step(STEP)
            held.append(stats.held)
            latencies.append(stats.latency)
        latency = np.concatenate(latencies)
        assert max(held) > 1000 and held[-1] < max(held)  # throttled, then caught up
        assert latency.max() <= 1.2 * MAX_WAIT_S  # nobody who asked waited much past it (the pace is estimated)
        assert (a.searches > 0).mean() > 0.99  # nearly all have been served (no one starves)
        sums.append(sim.checksum())
    assert sums[0] == sums[1]


@settings(max_examples=300, deadline=None)
@given(
    until=st.lists(st.sampled_from([0.0, 0.5, 1.0, 1.5]) | st.floats(0, 10), max_size=60),
    seed=st.integers(0, 2**32 - 1),
    share=st.floats(0, 1),
)
def test_the_longest_rested_are_those_a_full_sort_puts_first(until, seed, share):
    # Those admitted when more ask than the queue serves: the smallest (rest's end, row) pairs, as
    # a full sort gives them (ties on the rest's end go to the lower row), found without sorting all.
    from sim.model.planner import longest_rested

    ends = np.array(until, np.float64)
    rows = np.random.default_rng(seed).permutation(10 * len(until) + 1)[: len(until)]
    for room in (round(share * len(until)), -1, 0, len(until), len(until) + 3):
        expected = np.lexsort((rows, ends))[: max(room, 0)]
        got = longest_rested(ends, rows, room)
        assert sorted(got.tolist()) == sorted(expected.tolist()), room
