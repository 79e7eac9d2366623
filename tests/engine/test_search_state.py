"""``PathGrid.search_state``: the kernel's own search stopped after k expansions (what the learn
view replays). Its order, counts and costs are the kernel's; checked here against
``PathGrid.search`` and against an independent Dijkstra (tests/helpers.py)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from sim.pathfinding import PathGrid, SearchState
from tests.helpers import dijkstra, raises_exactly, step_allowed, step_cost

ALGORITHMS = [("astar", 1.0), ("dijkstra", 1.0), ("greedy", 1.0), ("astar", 2.5), ("jps", 1.0), ("jps+", 1.0)]


def _grid(seed: int, uniform: bool) -> tuple[np.ndarray, tuple[int, int], tuple[int, int]]:
    rng = np.random.default_rng(seed)
    costs = rng.choice([1.0, 1.5, 3.0, 0.0], size=(24, 31), p=[0.55, 0.15, 0.1, 0.2])
    if uniform:
        costs = (costs > 0).astype(float) * 2.0
    start, goal = (1, 2), (28, 20)
    costs[start[1], start[0]] = costs[goal[1], goal[0]] = 2.0
    return costs, start, goal


def _cases():
    for seed in range(4):
        for uniform in (False, True):
            for algorithm, weight in ALGORITHMS:
                if algorithm == "jps+" and not uniform:
                    continue
                yield pytest.param(seed, uniform, algorithm, weight, id=f"{algorithm}-w{weight}-{seed}-u{uniform:d}")


@pytest.mark.parametrize(("seed", "uniform", "algorithm", "weight"), list(_cases()))
def test_every_step_is_the_kernels_search_stopped_there(seed, uniform, algorithm, weight):
    costs, start, goal = _grid(seed, uniform)
    grid = PathGrid(costs)
    trace = np.zeros(costs.size, np.int32)
    result = grid.search(start, goal, algorithm=algorithm, weight=weight, trace=trace)
    order = trace[: result.expanded]
    truth = dijkstra(costs, start, "no-corner-cutting")
    last = grid.search_state(start, goal, 10**9, algorithm=algorithm, weight=weight)
    assert last.total == result.expanded and last.done and last.step == result.expanded
    assert np.array_equal(last.order, order)
    assert last.status == ("found" if result.found else "unreachable")
    if result.found:
        if weight == 1.0 and algorithm != "greedy":
            assert result.cost == pytest.approx(truth[goal], rel=1e-9)
        assert last.g[goal[1], goal[0]] == pytest.approx(result.cost, rel=1e-12)
        assert np.array_equal(last.path_to(goal)[[0, -1]], [start, goal])
    jumps = algorithm in ("jps", "jps+")
    # (a jump point search keeps only the goal's cost optimal: it prunes the paths to the points between)
    consistent = algorithm in ("astar", "dijkstra") and weight == 1.0
    for step in sorted({0, 1, 2, 3, result.expanded // 3, result.expanded // 2, result.expanded - 1}):
        s = grid.search_state(start, goal, step, algorithm=algorithm, weight=weight)
        assert s.step == step and s.total == result.expanded
        closed = np.flatnonzero(s.closed.reshape(-1))
        assert set(closed.tolist()) == set(order[:step].tolist())
        assert not (s.open & s.closed).any()
        if step < result.expanded:
            nx, ny = s.next
            assert s.open[ny, nx]  # the next cell is on the open list ...
            f = s.f
            # ... with the least key there (the kernels' 1e-10 tie nudge aside)
            assert f[ny, nx] <= f[s.open].min() + 1e-6 * max(1.0, f[ny, nx])
        for y, x in zip(*np.nonzero(s.open | s.closed), strict=True):
            g = s.g[y, x]
            assert math.isfinite(g)
            p = s.came_from((int(x), int(y)))
            if p is None:
                assert (x, y) == start and g == 0.0
                continue
            assert s.closed[p[1], p[0]]  # reached from an expanded cell
            if jumps:  # a diagonal run, then a straight one; each leg on one terrain (JPSW)
                dx, dy = int(x) - p[0], int(y) - p[1]
                d = min(abs(dx), abs(dy))
                turn = (p[0] + d * np.sign(dx), p[1] + d * np.sign(dy))
                run = d * math.sqrt(2) * costs[turn[1], turn[0]] + abs(abs(dx) - abs(dy)) * costs[y, x]
                assert g == pytest.approx(s.g[p[1], p[0]] + run, rel=1e-9)
            else:
                assert step_allowed(costs, p, (int(x), int(y)), "no-corner-cutting")
                assert g == pytest.approx(s.g[p[1], p[0]] + step_cost(costs, p, (int(x), int(y))), rel=1e-9)
            if consistent and s.closed[y, x]:  # a closed cell's cost is final: the cheapest
                assert g == pytest.approx(truth[(int(x), int(y))], rel=1e-9)


def test_the_numbers_a_learner_reads():
    grid = PathGrid(np.ones((3, 5)))
    s = grid.search_state((0, 1), (4, 1), 1)
    assert s.current == (0, 1) and s.next == (1, 1)
    assert s.g[1, 1] == 1.0 and s.h[1, 1] == 3.0 and s.f[1, 1] == 4.0
    assert s.came_from((1, 1)) == (0, 1) and s.came_from((0, 1)) is None
    assert int(s.open.sum()) == 5  # the start's 5 neighbours (3 rows)
    d = grid.search_state((0, 1), (4, 1), 1, algorithm="dijkstra")
    assert (d.h == 0).all() and d.f[1, 1] == 1.0
    gr = grid.search_state((0, 1), (4, 1), 1, algorithm="greedy")
    assert gr.f[1, 1] == 3.0
    w = grid.search_state((0, 1), (4, 1), 1, weight=2.0)
    assert (w.g_weight, w.h_weight) == (1.0, 2.0) and w.f[1, 1] == 7.0
    first = grid.search_state((0, 1), (4, 1), 0)
    assert first.current is None and first.next == (0, 1) and first.open[1, 0] and not first.closed.any()


def test_unreachable_and_blocked():
    costs = np.ones((5, 5))
    costs[:, 2] = 0
    grid = PathGrid(costs)
    s = grid.search_state((0, 0), (4, 4), 10**6)
    assert s.status == "unreachable" and s.total == 10 and s.next is None and not s.result.found
    b = grid.search_state((2, 0), (4, 4), 3)
    assert b.total == 0 and b.status == "unreachable" and not b.open.any()
    # A search that expands nothing has ended at step 0: nothing comes off the open list next
    # (`next` named the blocked start; the learn view's "K: copy as code" printed it so).
    for step in (0, 3):
        blocked = grid.search_state((2, 0), (4, 4), step)
        there = grid.search_state((1, 1), (1, 1), step)
        assert blocked.done and blocked.next is None and blocked.current is None
        assert there.done and there.next is None and there.status == "found" and there.result.cost == 0.0
    assert isinstance(s, SearchState)


def test_boundary_errors():
    grid = PathGrid(np.ones((3, 3)))
    raises_exactly(lambda: grid.search_state((0, 0), (2, 2), -1), ValueError, "step must be >= 0, got -1")
    raises_exactly(lambda: grid.search_state((0, 0), (2, 2), 1.5), TypeError, "step must be an int, got float")
    raises_exactly(lambda: grid.search_state((0, 0), (3, 2), 1), ValueError,
                   "goal (3, 2) is outside the grid of width 3 and height 3")  # fmt: skip


def test_came_from_and_path_to_refuse_cells_off_the_grid_with_the_engines_message():
    # (before: a negative x read the row's far end, so path_to((-1, 0)) answered a "path" to a
    # cell that does not exist, and came_from((100, 100)) raised numpy's IndexError)
    state = PathGrid(np.ones((10, 12))).search_state((0, 0), (11, 0), 100)
    assert state.path_to((11, 0)).tolist()[-1] == [11, 0] and state.came_from((11, 0)) == (10, 0)
    for cell in [(-1, 0), (12, 0), (100, 100), (0, -1)]:
        for ask in (state.came_from, state.path_to):
            with pytest.raises(ValueError) as info:
                ask(cell)
            assert str(info.value) == f"cell {cell} is outside the grid of width 12 and height 10"
    with pytest.raises(TypeError, match=r"^cell must be an \(x, y\) tuple of ints, got \(0\.5, 1\)$"):
        state.path_to((0.5, 1))
