"""The kernels called through their addresses (``sim.pathfinding.linked``): each compiled once, its
callers fill its slot on first use, and a kernel that cannot be made raises where it is called."""

from __future__ import annotations

import numpy as np
import pytest

from sim.pathfinding import PathGrid, linked
from sim.pathfinding.linked import CODES, KERNELS
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
    filled = (linked._TABLE.reshape(len(KERNELS), len(CODES)) != 0)[:, 0]
    assert filled.tolist() == [True, True, False, False]
    PathGrid(np.ones((5, 5))).search((0, 0), (4, 4), algorithm="jps")
    assert (linked._TABLE.reshape(len(KERNELS), len(CODES)) != 0)[:, 0].all()


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

    assert len(linked._TABLE) == len(KERNELS) * len(CODES)
    from sim.pathfinding import kernel  # (the kernels handed over out of order: refused, the table's kept)

    with pytest.raises(ValueError, match="must come in the order astar_core, bucket_core"):
        linked.provide(kernel.bucket_core, kernel.astar_core)
    prio = AStar(np.zeros((3, 3), np.uint8), terrain_costs={0: 1.0}).compiled_batch().params.prio
    assert linked.signature(0, CODES[0]).args[7] == typeof(prio) == linked.signature(2, CODES[0]).args[8]
    for k in range(len(KERNELS)):
        for codes in CODES:
            sig = linked.signature(k, codes)
            assert sig.is_precise() and sig.args[0].dtype == codes
