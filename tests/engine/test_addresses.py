"""The workspace's arrays as one index of addresses (``sim.pathfinding.addresses``): compiled code
reads and writes the workspace's own arrays through it, and it follows every array the workspace
replaces (a stale index would be memory the workspace has let go)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from numba import njit

from sim.pathfinding import PathGrid
from sim.pathfinding import workspace as W
from sim.pathfinding.addresses import FIELDS, SIZE, arrays_of, index_of
from sim.pathfinding.common import _ENTRIES_FULL, _HEAP_FULL
from sim.pathfinding.workspace import Buffers
from tests.helpers import dijkstra


@njit(cache=True)
def _fill(b, q):
    for r in range(b.shape[0]):
        for c in range(b.shape[1]):
            b[r, c] = 1000 * q + 100 * r + c


@njit(cache=True)
def _write_through(index):
    """Write a pattern into every array through the index; return their sizes."""
    g, parent, jump_parent, mark, heap, buckets, stats, path = arrays_of(index)
    for i in range(g.size):
        g[i] = i + 0.5
    for i in range(parent.size):
        parent[i] = (i + 1) % 256
    for i in range(jump_parent.size):
        jump_parent[i] = i + 2
    for i in range(mark.size):
        mark[i] = i + 3
    for i in range(heap[0].size):
        heap[0][i], heap[1][i] = i + 4.5, i + 5
    for i in range(buckets[0].size):
        buckets[0][i] = i + 6.5
    _fill(buckets[1], 1)
    _fill(buckets[2], 2)
    _fill(buckets[3], 3)
    for i in range(stats.size):
        stats[i] = i + 10
    _fill(path, 4)
    return np.array((g.size, parent.size, jump_parent.size, mark.size, heap[0].size, heap[1].size, buckets[0].size,
                     buckets[1].size, buckets[2].size, buckets[3].size, stats.size, path.size))  # fmt: skip


def _arrays(ws: W.Workspace) -> tuple[np.ndarray, ...]:
    return (ws.g, ws.parent, ws.jump_parent, ws.mark, *ws.heap, *ws.buckets, ws.stats, ws.path)


def _heap(n: int) -> tuple[np.ndarray, np.ndarray]:
    return np.zeros(n), np.zeros(n, np.int32)


def _fresh_index(ws: W.Workspace) -> np.ndarray:
    out = np.zeros(SIZE, np.int64)
    index_of(_arrays(ws), out)
    return out


def test_compiled_code_reads_and_writes_the_workspace_arrays_themselves_through_the_index():
    ws = W.Workspace()
    ws.ensure(37, jps=True)
    ws.buckets = (np.zeros(5), np.zeros((5, 7), np.int32), np.zeros((3, 6), np.int64), np.zeros((2, 9), np.int32))
    sizes = _write_through(ws.index)
    assert sizes.tolist() == [a.size for a in _arrays(ws)]
    assert ws.g.tolist() == [i + 0.5 for i in range(37)]
    assert ws.parent.tolist() == [(i + 1) % 256 for i in range(37)]
    assert ws.jump_parent.tolist() == [i + 2 for i in range(74)]
    assert ws.mark.tolist() == [i + 3 for i in range(37)]
    assert ws.heap[0].tolist() == [i + 4.5 for i in range(1024)] and ws.heap[1].tolist() == [i + 5 for i in range(1024)]
    assert ws.buckets[0].tolist() == [i + 6.5 for i in range(5)]
    for q, rows, cols in ((1, 5, 7), (2, 3, 6), (3, 2, 9)):
        assert ws.buckets[q].tolist() == [[1000 * q + 100 * r + c for c in range(cols)] for r in range(rows)]
    assert ws.stats.tolist() == [10, 11, 12, 13]
    assert ws.path.tolist() == [[4000 + 100 * r + c for c in range(2)] for r in range(W.PATH_ROWS)]


def test_the_index_follows_every_array_the_workspace_replaces():
    ws = W.Workspace()
    assert np.array_equal(ws.index, _fresh_index(ws))
    index = ws.index
    steps = [
        lambda: ws.ensure(100),
        lambda: ws.ensure(100, jps=True),
        lambda: ws.ensure(5000),  # (larger: every per-cell array anew)
        lambda: ws.grow_open_list(_HEAP_FULL, buckets=False),
        lambda: ws.grow_open_list(_HEAP_FULL, buckets=True),
        lambda: ws.grow_open_list(_ENTRIES_FULL, buckets=True),
        lambda: setattr(ws, "heap", _heap(16)),
        lambda: setattr(ws, "g", np.zeros(9)),
        lambda: setattr(ws, "stats", np.zeros(4, np.int64)),
        lambda: setattr(ws, "path", np.zeros((W.PATH_ROWS, 2), np.int32)),
        lambda: ws.adopt(Buffers(ws.g, ws.parent, ws.jump_parent, ws.mark, 7, _heap(32), ws.buckets, 3, ws.stats)),
        lambda: ws.forget(),
    ]
    for step in steps:
        before = ws.index.copy()
        step()
        assert ws.index is index  # (written in place: callers may hold it)
        assert np.array_equal(ws.index, _fresh_index(ws))
        assert not np.array_equal(before, ws.index) or step is steps[-1]  # (each step above replaced an array)
    assert ws.heap[0].size == 32 and ws.gen == 0  # (adopted, then forgotten)


def test_an_array_of_another_kind_is_refused_with_an_exact_message():
    ws = W.Workspace()
    good = list(_arrays(ws))
    out = np.zeros(SIZE, np.int64)
    with pytest.raises(ValueError, match=r"^an index holds 12 arrays, got 10$"):
        index_of(tuple(good[:10]), out)
    strided = np.zeros((5, 8), np.int32)[:, ::2]
    for k, bad in ((0, np.zeros(4, np.float32)), (3, np.zeros((2, 2), np.uint16)), (7, strided)):
        arrays = list(good)
        arrays[k] = bad
        name, dtype, ndim = FIELDS[k]
        message = (f"{name} must be a writeable C-contiguous {np.dtype(dtype)} array of {ndim} dimension(s), "
                   f"got {bad.dtype} {bad.shape}")  # fmt: skip
        with pytest.raises(ValueError) as err:
            index_of(tuple(arrays), out)
        assert str(err.value) == message
    frozen = np.zeros(4, np.int64)
    frozen.flags.writeable = False
    kept, index = ws.stats, ws.index.copy()
    with pytest.raises(ValueError, match=r"^stats must be a writeable"):
        ws.stats = frozen
    with pytest.raises(ValueError, match=r"^heap_node must be a writeable C-contiguous int32"):
        ws.heap = (np.zeros(16), np.zeros(16, np.int64))  # (the first fits, the second does not: neither is kept)
    assert ws.stats is kept and ws.heap[0].size == 1024 and np.array_equal(ws.index, index)


def test_searches_stay_optimal_while_the_open_lists_are_replaced_between_them():
    # A workspace whose open lists start tiny: searches make it grow them, and between the
    # searches they are replaced from outside too (as a compiled round hands new ones back).
    rng = np.random.default_rng(3)
    costs = np.where(rng.random((40, 40)) < 0.2, 0.0, rng.choice([1.0, 2.0, 5.0], (40, 40)))
    uniform = np.where(costs > 0, 1.0, 0.0)
    saved = getattr(W._local, "workspace", None)
    W._local.workspace = ws = W.Workspace()
    try:
        for i in range(12):
            ws.heap = _heap(8)
            ws.buckets = (np.zeros(4), *(np.zeros((r, 8), t) for r, t in ((5, np.int32), (3, np.int64), (2, np.int32))))
            start, goal = (i, 0), (39 - i, 39)
            for grid_costs, algorithms in ((costs, ("astar", "jps")), (uniform, ("astar", "jps", "jps+"))):
                if not (grid_costs[0, i] > 0 and grid_costs[39, 39 - i] > 0):
                    continue
                best = dijkstra(grid_costs, start, "no-corner-cutting").get(goal, math.inf)
                for algorithm in algorithms:
                    r = PathGrid(grid_costs).search(start, goal, algorithm=algorithm)
                    assert r.found == (best < math.inf)
                    assert not r.found or r.cost == pytest.approx(best), (i, algorithm)
            assert np.array_equal(ws.index, _fresh_index(ws))
    finally:
        W._local.workspace = saved if saved is not None else W.Workspace()


def test_single_searches_from_several_threads_at_once_answer_as_one_thread_does():
    # Each thread has its own workspace and index (the kernel runs without the GIL, so the
    # searches overlap); new threads start with small open lists that their searches grow.
    from concurrent.futures import ThreadPoolExecutor

    rng = np.random.default_rng(8)
    costs = np.where(rng.random((90, 90)) < 0.25, 0.0, rng.choice([1.0, 1.5, 4.0], (90, 90)))
    grids = {"weighted": PathGrid(costs), "uniform": PathGrid(np.where(costs > 0, 1.0, 0.0))}
    free = np.argwhere(costs > 0)
    queries = [(name, algorithm, tuple(int(v) for v in free[i][::-1]), tuple(int(v) for v in free[-1 - i][::-1]))
               for i in range(0, 240, 3) for name, algorithms in (("weighted", ("astar", "jps")),
                                                                    ("uniform", ("astar", "jps", "jps+")))
               for algorithm in algorithms]  # fmt: skip

    def answer(q: tuple) -> tuple:
        name, algorithm, start, goal = q
        r = grids[name].search(start, goal, algorithm=algorithm)
        return r.found, r.cost, r.expanded, r.path.tolist()

    alone = [answer(q) for q in queries]
    for threads in (2, 4):
        with ThreadPoolExecutor(threads) as pool:
            assert list(pool.map(answer, queries)) == alone
