"""The kernels called through their addresses (``sim.pathfinding.linked``): each compiled once, its
callers fill its slot on first use, and a kernel that cannot be made raises where it is called."""

from __future__ import annotations

import numpy as np
import pytest

from sim.pathfinding import STATUS_OTHER_REGION, PathGrid, linked
from sim.pathfinding.linked import BATCH, BLOCKS, CODES, KERNELS
from tests.helpers import optimum


def _grids() -> list[tuple[str, np.ndarray]]:
    """A uniform grid, a weighted one (uint8 codes) and one of 300 multipliers (uint16 codes)."""
    rng = np.random.default_rng(4)
    walls = rng.random((24, 30)) < 0.2
    uniform = np.where(walls, 0.0, 1.0)
    weighted = np.where(walls, 0.0, rng.choice([1.0, 1.5, 2.0, 3.0], size=walls.shape))
    many = np.where(walls, 0.0, 1.0 + np.arange(walls.size).reshape(walls.shape) % 300 / 100)
    return [("uniform", uniform), ("weighted", weighted), ("many codes", many)]


@pytest.mark.parametrize("algorithm", ["astar", "dijkstra", "jps"])
def test_every_kernel_answers_through_its_slot_as_the_reference_does(algorithm):
    """A* on the heap and on the bucket queue, JPS with float costs and with integer pairs, for
    uint8 and uint16 codes: each slot's kernel gives the independent Dijkstra's cost, also after
    its slot was emptied (the next call fills it again)."""
    rng = np.random.default_rng(9)
    for name, costs in _grids():
        grid = PathGrid(costs)
        free = np.argwhere(costs > 0)[:, ::-1]
        for i in range(8):
            if i == 4:
                linked._TABLE[:] = 0  # as in a new process: every slot empty
            s, g = (tuple(int(v) for v in free[j]) for j in rng.integers(len(free), size=2))
            got = grid.search(s, g, algorithm=algorithm).cost
            assert got == pytest.approx(optimum(costs, s, g, "no-corner-cutting"), rel=1e-9), (name, s, g)
    assert (linked._TABLE != 0).any()


def test_a_slot_filled_fills_its_group():
    """A* on the bucket queue fills the heap A*'s slot too; a jumping search all four (as a caller
    compiled for JPS's data linked all four): a caller that ran without compiling has all it may reach."""
    linked._TABLE[:] = 0
    PathGrid(np.ones((5, 5))).search((0, 0), (4, 4))  # the bucket queue's A*
    filled = (linked._TABLE[:BATCH].reshape(len(KERNELS), len(CODES)) != 0)[:, 0]
    assert filled.tolist() == [True, True, False, False]
    PathGrid(np.ones((5, 5))).search((0, 0), (4, 4), algorithm="jps")
    assert (linked._TABLE[:BATCH].reshape(len(KERNELS), len(CODES)) != 0)[:, 0].all()
    assert not linked._TABLE[BATCH:].any()  # (the batch search's slots: only a round fills them)


def test_a_kernel_that_cannot_be_made_raises_where_it_is_called(monkeypatch):
    """Filling a slot can fail (compiling forbidden where ``warm.runs_without_compiling`` runs a
    search, say): the exception comes out of the compiled caller as itself, not a crash."""

    class Refused(Exception):
        pass

    def refuse(*_args: object) -> int:
        raise Refused("no compiling here")

    grid = PathGrid(np.ones((6, 7)))
    grid.search((0, 0), (6, 5))  # (compiled and linked first)
    monkeypatch.setattr(linked, "_get_jit_address", refuse)
    linked._TABLE[:] = 0
    with pytest.raises(Refused, match="no compiling here"):
        grid.search((0, 0), (6, 5))
    monkeypatch.undo()
    assert grid.search((0, 0), (6, 5)).cost == pytest.approx(1 + 5 * np.sqrt(2))


def test_each_kernel_has_one_signature_per_codes_type():
    """What the table holds: a slot per kernel and type of codes, each signature precise; the
    priority record typed as the options make it (a new term of ``Priority`` needs no change here)."""
    from numba import typeof

    from sim.pathfinding import AStar

    assert len(linked._TABLE) == BATCH + len(BLOCKS) * len(CODES) and len(KERNELS) * len(CODES) == BATCH
    from sim.pathfinding import kernel  # (the kernels handed over out of order: refused, the table's kept)

    with pytest.raises(ValueError, match="must come in the order astar_core, bucket_core"):
        linked.provide(kernel.bucket_core, kernel.astar_core, batch=kernel.search_batch)
    with pytest.raises(ValueError, match="the batch search must be search_batch, got 'search_one'"):
        linked.provide(*(getattr(kernel, name) for name in KERNELS), batch=kernel.search_one)
    prio = AStar(np.zeros((3, 3), np.uint8), terrain_costs={0: 1.0}).compiled_batch().params.prio
    assert linked.signature(0, CODES[0]).args[7] == typeof(prio) == linked.signature(2, CODES[0]).args[8]
    for k in range(len(KERNELS)):
        for codes in CODES:
            sig = linked.signature(k, codes)
            assert sig.is_precise() and sig.args[0].dtype == codes


def _round_kinds(many_codes: bool) -> list:
    """A round's kinds on a 40x30 map, one compiled call (their codes of one type): A* on a weighted
    grid, A* and JPS on a uniform one, over 7 kinds of land (uint8 codes); or, with ``many_codes``,
    over 300 of them, A* twice and JPSW on the weighted grid (uint16 codes)."""
    from sim.pathfinding import AStar, RoundKind, label_regions

    rng = np.random.default_rng(12)
    rock = rng.random((30, 40)) < 0.25
    kinds_of_land = 300 if many_codes else 7
    terrain = np.where(rock, 1, 2 + np.arange(rock.size).reshape(rock.shape) % kinds_of_land).astype(np.uint16)
    weights = {int(t): 1.0 + t / 100 for t in np.unique(terrain) if t != 1}
    uniform = {t: 1.0 for t in weights}
    ks = [AStar(terrain, terrain_costs=weights), AStar(terrain, terrain_costs=weights if many_codes else uniform)]
    ks.append(AStar(terrain, terrain_costs=weights if many_codes else uniform))
    ks[-1].use_jps = True  # type: ignore[misc]  # (this instance only)
    return [RoundKind(a, label_regions(a.grid.costs, a.diagonal)[0]) for a in ks]


@pytest.mark.parametrize("many_codes", [False, True])
def test_a_round_calls_the_batch_search_through_its_slot(many_codes):
    """The round's compiled call reaches the batch search through the table (its slot for the grid's
    codes and jump data, filled on the round's first call, again after the table was emptied as in a
    new process), and answers as the kinds' own batches do; arrays it hands back are freed."""
    from numba.core.runtime import _nrt_python, rtsys

    from sim.pathfinding import SearchRound

    kinds = _round_kinds(many_codes)
    rng = np.random.default_rng(3)
    n = 240
    starts = np.stack((rng.integers(0, 40, n), rng.integers(0, 30, n)), axis=1).astype(np.int32)
    goals = np.stack((rng.integers(0, 40, n), rng.integers(0, 30, n)), axis=1).astype(np.int32)
    kind_of = rng.integers(0, len(kinds), n)
    from numba import typeof

    # A kind jumps, so every kind gets JPS's data's type (a stand-in where it does not jump): each kind's
    # slot is that of its codes' type and JPS's data.
    codes = {typeof(k.astar.compiled_batch().grid_args.codes).dtype for k in kinds}
    assert codes == {CODES[1] if many_codes else CODES[0]}
    slots = [BATCH + BLOCKS.index(BLOCKS[1]) * len(CODES) + CODES.index(c) for c in codes]
    first = SearchRound(threads=1).run(kinds, kind_of, starts, goals)
    assert all(linked._TABLE[slots] != 0)
    linked._TABLE[:] = 0
    _nrt_python.memsys_enable_stats()
    before = rtsys.get_allocation_stats()
    again = SearchRound(threads=1).run(kinds, kind_of, starts, goals)
    del again
    again = SearchRound(threads=1).run(kinds, kind_of, starts, goals)
    after = rtsys.get_allocation_stats()
    assert all(linked._TABLE[slots] != 0)
    for s, kind in enumerate(kinds):
        mine = np.flatnonzero((kind_of == s) & (first.status != STATUS_OTHER_REGION))
        want = kind.astar.search_many(starts[mine], goals[mine], threads=1)
        assert np.array_equal(first.cost[mine], want.cost) and np.array_equal(again.cost[mine], want.cost)
        for q, j in enumerate(mine):
            assert again.path(j).tolist() == want.paths[want.offsets[q] : want.offsets[q + 1]].tolist()
    assert (first.status == 0).sum() > n // 2 and first.shape.calls == (n,)  # (one compiled call)
    # Every array the batch made and handed back through its slot was freed, but the last round's own.
    live = (after.alloc - before.alloc) - (after.free - before.free)
    assert 0 <= live <= 20, live  # (a round leaking what the batches hand back: 27 a round)


def test_the_batch_slots_types_are_those_the_engine_compiles_from_python():
    """One compiled batch search serves the round and ``PathGrid.search_many``: the slot's argument
    types (``linked.batch_args``) are those a batch from Python compiles it with, with and without
    jump data, and with landmarks."""
    from sim.pathfinding import kernel

    for options, blocks in (
        ({}, BLOCKS[0]),
        ({"algorithm": "jps"}, BLOCKS[1]),
        ({"heuristic": "landmarks"}, BLOCKS[2]),
    ):
        PathGrid(np.ones((6, 6))).search_many([(0, 0)], [(5, 5)], **options)
        assert linked.batch_args(CODES[0], blocks) in kernel.search_batch.signatures, options


ROUND = """
import json
import numpy as np
from sim.pathfinding import AStar, RoundKind, SearchRound, label_regions, runs_without_compiling

terrain = np.zeros((20, 30), np.uint8)
terrain[3:17, 12] = 1
kinds = []
for jumps in (False, True):
    astar = AStar(terrain, terrain_costs={0: 1.0})
    astar.use_jps = jumps
    kinds.append(RoundKind(astar, label_regions(astar.grid.costs, astar.diagonal)[0]))
ask = lambda: SearchRound(threads=1).run(kinds, [0, 1, 0, 1], [(0, 0), (0, 19), (29, 0), (5, 5)],
                                         [(29, 19), (29, 0), (0, 19), (20, 10)])
print(json.dumps(dict(loaded=runs_without_compiling(ask), cost=ask().cost.tolist())))
"""


def test_a_new_process_runs_a_cached_round_without_compiling():
    """The round's process loads the batch search its slot names from numba's cache, under the key
    a batch from Python caches it (the round was compiled here first): it compiles nothing."""
    import json
    import subprocess
    import sys

    from tests.conftest import ROOT

    here: dict[str, object] = {}
    exec(ROUND.replace("print(json.dumps(", "here.update(("), {"here": here})  # (compiled and cached here)
    r = subprocess.run([sys.executable, "-c", ROUND], capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert out["loaded"] is True
    assert out["cost"] == pytest.approx(here["cost"]) and all(np.isfinite(out["cost"]))
