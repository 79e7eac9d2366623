"""The engine's rounds: several kinds of agent, each on its own grid, searched in one compiled
call; the answers are each kind's batch search's, on one thread or several."""

from __future__ import annotations

import time

import numpy as np
import pytest

import sim.pathfinding.rounds as engine_rounds
from sim.pathfinding import STATUS_OTHER_REGION, AStar, RoundKind, SearchRound, label_regions
from sim.pathfinding.clock import monotonic_s


def kinds() -> tuple[np.ndarray, list[RoundKind]]:
    """A 60x40 map of two terrains with a wall: walkers (land only, two regions) and flyers (all,
    paths pulled straight)."""
    rng = np.random.default_rng(5)
    terrain = (rng.random((40, 60)) < 0.3).astype(np.uint8)  # 0 land, 1 water
    terrain[:, 30] = 2  # a wall: land cut in two for walkers, not for flyers
    walker = AStar(terrain, terrain_costs={0: 1.0})
    flyer = AStar(terrain, terrain_costs={0: 1.0, 1: 1.0, 2: 2.0})
    return terrain, [
        RoundKind(walker, label_regions(walker.grid.costs, walker.diagonal)[0]),
        RoundKind(flyer, label_regions(flyer.grid.costs, flyer.diagonal)[0], straight=True),
    ]


@pytest.mark.parametrize("threads", [1, 2])
def test_a_round_answers_what_each_kinds_batch_answers(threads):
    _terrain, ks = kinds()
    rng = np.random.default_rng(threads)
    n = 400
    starts = np.stack((rng.integers(0, 60, n), rng.integers(0, 40, n)), axis=1).astype(np.int32)
    goals = np.stack((rng.integers(0, 60, n), rng.integers(0, 40, n)), axis=1).astype(np.int32)
    kind_of = rng.integers(0, 2, n)
    res = SearchRound(threads=threads).run(ks, kind_of, starts, goals)
    assert res.shape.calls == ((n,) if threads == 1 else (n // 2, n // 2))
    for s, kind in enumerate(ks):
        mine = np.flatnonzero(kind_of == s)
        labels = kind.labels
        here = labels[starts[mine, 1], starts[mine, 0]]
        same = (here != 0) & (here == labels[goals[mine, 1], goals[mine, 0]])
        assert (res.status[mine[~same]] == STATUS_OTHER_REGION).all()
        want = kind.astar.grid.search_many(starts[mine[same]], goals[mine[same]], threads=1)
        paths, offsets = want.paths, want.offsets
        if kind.straight:
            paths, offsets = kind.astar.grid.smooth_many(paths, offsets)
        for q, j in enumerate(mine[same]):
            assert res.status[j] == want.status[q] and res.expanded[j] == want.expanded[q]
            assert res.cost[j] == pytest.approx(want.cost[q], rel=1e-12)
            assert res.path(j).tolist() == paths[offsets[q] : offsets[q + 1]].tolist()
    assert (res.status != STATUS_OTHER_REGION).sum() > n // 3


def test_a_round_keeps_what_it_compiled_until_a_kind_or_the_terrain_changes():
    _terrain, ks = kinds()
    rounds = SearchRound()
    first = rounds.prepared(ks)
    assert rounds.prepared(ks) == first and rounds.builds == 1
    ks[0].astar.max_nodes = 9  # a setting the engine reads at each search
    assert rounds.prepared(ks)[0].max_nodes == 9 and rounds.builds == 2
    ks[0].astar.max_nodes = int("9")  # an equal value: kept
    assert rounds.prepared(ks)[0].max_nodes == 9 and rounds.builds == 2
    # Anything else the compiled kinds are made of: each is a new build, then kept.
    changes = [
        lambda: ks.__setitem__(1, ks[1]._replace(labels=ks[1].labels.copy())),  # equal contents, new array
        lambda: ks.__setitem__(0, ks[0]._replace(straight=not ks[0].straight)),
        lambda: setattr(ks[1].astar, "heuristic_name", "zero" if ks[1].astar.heuristic_name != "zero" else "octile"),
        lambda: ks.pop(),
    ]
    for j, change in enumerate(changes):
        change()
        rounds.prepared(ks)
        assert rounds.builds == 3 + j
        rounds.prepared(ks)
        assert rounds.builds == 3 + j
    rounds.prepared(ks, jps=False)
    assert rounds.builds == 3 + len(changes)


def test_a_round_lets_go_of_the_gil_while_it_searches():
    # A round's parts run on several threads at once only if the compiled call releases the
    # GIL. Checked on the compiled function itself, not by timing threads (a busy machine
    # may not schedule a watching thread when a timing test expects it to).
    assert engine_rounds._round.targetoptions.get("nogil") is True
    _terrain, ks = kinds()
    rounds = SearchRound(threads=1)
    cells = np.zeros((300, 2), np.int32)
    rounds.run(ks, np.zeros(300, np.int64), cells, cells)
    assert rounds.shape.calls == (300,)  # served by one call of the round ...
    assert engine_rounds._round.signatures  # ... that is that dispatcher's compiled code


def test_the_compiled_clock_reads_seconds_and_goes_forward():
    # The rounds time each species with it, inside compiled code and without the GIL. Its
    # readings are bracketed by Python's clock (the same monotonic clock), so however slow or
    # busy the machine, the interval it measures lies within Python's.
    # No sleep: the inner interval is spun until Python's clock has moved on 10 ms, so its length
    # is known whatever the machine does meanwhile.
    p0 = time.perf_counter()
    t0 = monotonic_s()
    q0 = q1 = time.perf_counter()
    while q1 - q0 < 0.01:
        q1 = time.perf_counter()
    t1 = monotonic_s()
    p1 = time.perf_counter()
    assert (q1 - q0) - 1e-6 <= t1 - t0 <= (p1 - p0) + 1e-6  # seconds, as Python's clock
