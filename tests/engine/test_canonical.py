"""A* pushes only a cell's canonical successors (``rules.SUCCESSORS``, ``kernel.canonical``): the steps
that no other path of at most the same length reaches without the cell. Checked here against
the rule itself, cell by cell (every neighbourhood of a cell, every step into it), and against
an independent Dijkstra: the same optimal costs, and every cell below the optimum still expanded."""

from __future__ import annotations

import heapq
import itertools
import math

import numpy as np
import pytest

from sim.pathfinding import PathGrid
from sim.pathfinding.rules import DIAGONAL_RULES, DX, DY, NO_PARENT, SUCCESSORS
from tests.helpers import dijkstra, path_cost, step_allowed, step_cost


def _window_moves(costs: np.ndarray) -> int:
    """The centre's legal steps in a 3x3 window, bit k for direction k (the tests' own rule)."""
    return sum(
        1 << k for k in range(8) if step_allowed(costs, (1, 1), (1 + int(DX[k]), 1 + int(DY[k])), "no-corner-cutting")
    )


def _around(costs: np.ndarray, a: tuple[int, int], b: tuple[int, int]) -> float:
    """The cheapest path a -> b inside the 3x3 window that does not step on its centre (the centre
    still counts as passable for the corner rule: it is the cell being expanded)."""
    dist, heap = {a: 0.0}, [(0.0, a)]
    while heap:
        d, u = heapq.heappop(heap)
        if u == b:
            return d
        if d > dist[u]:
            continue
        for dx, dy in itertools.product((-1, 0, 1), repeat=2):
            v = (u[0] + dx, u[1] + dy)
            if (
                v == (1, 1)
                or not (0 <= v[0] < 3 and 0 <= v[1] < 3)
                or not step_allowed(costs, u, v, "no-corner-cutting")
            ):
                continue
            if d + step_cost(costs, u, v) < dist.get(v, math.inf):
                dist[v] = d + step_cost(costs, u, v)
                heapq.heappush(heap, (dist[v], v))
    return math.inf


def test_every_step_left_out_is_reached_as_cheaply_around_the_cell():
    """For each way into a cell and each of its 256 neighbourhoods: a step the table leaves out
    reaches its cell from the parent, around the cell, for at most the cost through it; the steps
    it keeps are legal; on a diagonal arrival it keeps exactly the three forward steps."""
    pruned = 0
    for k in range(8):
        parent = (1 - int(DX[k]), 1 - int(DY[k]))
        for bits in range(256):
            costs = np.ones((3, 3))
            ring = [(x, y) for y in range(3) for x in range(3) if (x, y) != (1, 1)]
            for i, (x, y) in enumerate(ring):
                costs[y, x] = float(bits >> i & 1)
            if costs[parent[1], parent[0]] == 0.0:
                continue
            m = _window_moves(costs)
            if not step_allowed(costs, parent, (1, 1), "no-corner-cutting"):
                continue  # (the step into the cell is illegal in this neighbourhood)
            keep = int(SUCCESSORS[m, k])
            assert keep & ~m == 0
            through = step_cost(costs, parent, (1, 1))
            for j in range(8):
                if m >> j & 1 and not keep >> j & 1:
                    target = (1 + int(DX[j]), 1 + int(DY[j]))
                    assert _around(costs, parent, target) <= through + step_cost(costs, (1, 1), target) + 1e-12
                    pruned += 1
    assert pruned > 1000  # (the table does prune)


def test_the_start_keeps_every_step():
    ms = np.arange(256)
    assert (SUCCESSORS[ms, NO_PARENT] == ms).all()


def _patches(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """Multipliers 1 / 1.5 / 2 / 3 in squares of 1-6 cells a side: windows of one cost (where the
    heap kernel prunes) beside windows across a border (where it must not)."""
    side = int(rng.integers(1, 7))
    blocks = rng.choice([1.0, 1.5, 2.0, 3.0], size=(h // side + 1, w // side + 1))
    return np.kron(blocks, np.ones((side, side)))[:h, :w]


@pytest.mark.parametrize("terrain", ["uniform", "patches"])
@pytest.mark.parametrize("rule", list(DIAGONAL_RULES))
def test_astar_expands_every_cell_below_the_optimum_at_the_optimal_cost(rule, terrain):
    """Random grids (obstacles 5-45 %; one cost, or squares of several): the cost equals an
    independent Dijkstra's, the path is legal, and every cell with g* + h below the optimum was
    expanded (the pruning loses no cell A* must look at); the same with Dijkstra's algorithm."""
    rng = np.random.default_rng(7 if terrain == "uniform" else 8)
    octile = rule != "never"
    checked = 0
    for case in range(60):
        h, w = int(rng.integers(2, 34)), int(rng.integers(2, 34))
        scale = _patches(rng, h, w) if terrain == "patches" else float(rng.choice([1.0, 2.5]))
        costs = (rng.random((h, w)) > rng.uniform(0.05, 0.45)).astype(float) * scale
        free = np.argwhere(costs > 0)
        if len(free) < 2:
            continue
        (sy, sx), (gy, gx) = free[rng.integers(len(free))], free[rng.integers(len(free))]
        start, goal = (int(sx), int(sy)), (int(gx), int(gy))
        truth = dijkstra(costs, start, rule)
        best = truth.get(goal, math.inf)
        grid = PathGrid(costs)
        landmarks = grid.search(start, goal, diagonal=rule, heuristic="landmarks")  # (a larger h: costs only)
        assert landmarks.cost == pytest.approx(best, rel=1e-9) if math.isfinite(best) else not landmarks.found
        for algorithm in ("astar", "dijkstra"):
            trace = np.zeros(costs.size, np.int32)
            r = grid.search(start, goal, diagonal=rule, algorithm=algorithm, trace=trace)
            assert r.cost == pytest.approx(best, rel=1e-9) if math.isfinite(best) else not r.found, (case, algorithm)
            if not r.found:
                assert r.expanded == len(truth)  # the whole region
                continue
            assert path_cost(costs, r.path, rule) == pytest.approx(r.cost, rel=1e-9)
            expanded = set(trace[: r.expanded].tolist())
            unit = costs[costs > 0].min()
            for (x, y), g in truth.items():
                dx, dy = abs(x - goal[0]), abs(y - goal[1])
                hv = (
                    0.0
                    if algorithm == "dijkstra"
                    else unit * (max(dx, dy) + (math.sqrt(2) - 1) * min(dx, dy) if octile else dx + dy)
                )
                if g + hv < best * (1 - 1e-9):
                    assert y * w + x in expanded, (case, algorithm, (x, y))
                    checked += 1
    assert checked > 1000


def test_on_open_ground_a_cell_pushes_at_most_three_others():
    """Without obstacles no step is forced: the start pushes its 8 neighbours, every other cell at
    most 3 (a straight arrival 1, a diagonal one 3), where plain A* would look at all 8."""
    grid = PathGrid(np.ones((40, 40)))
    for goal in ((39, 39), (39, 17), (5, 39), (20, 0)):
        record = np.zeros((40, 40), np.int32)
        r = grid.search((3, 8), goal, record=record)
        assert r.found and r.cost == pytest.approx(dijkstra(np.ones((40, 40)), (3, 8), "no-corner-cutting")[goal])
        assert int((record != 0).sum()) <= 1 + 8 + 3 * (r.expanded - 1)


def test_search_state_says_when_steps_were_pruned_and_the_learner_reads_why():
    from sim.instruments.learn import describe

    grid = PathGrid(np.ones((5, 8)))
    s = grid.search_state((0, 2), (7, 2), 2)
    assert s.canonical and s.current == (1, 2)
    # (1, 2) was entered straight from the start: it pushes on (2, 2) only; (2, 1) is the start's
    # diagonal neighbour's job, and it is not opened yet by anyone
    assert not s.open[1, 2] and not s.closed[1, 2]
    passable = np.ones((5, 8), bool)
    lines = describe(s, (2, 1), passable, "grass", False)
    assert any("a path as short reaches it without that cell" in line for line in lines), lines
    lm = grid.search_state((0, 2), (7, 2), 2, heuristic="landmarks")  # (the heap with a consistent bound)
    assert lm.canonical and lm.current == (1, 2) and not (lm.open | lm.closed)[1, 2]
    for kw in ({"weight": 2.0}, {"algorithm": "greedy"}, {"diagonal": "always"}):
        assert not grid.search_state((0, 2), (7, 2), 2, **kw).canonical, kw
    # a weighted grid: the heap prunes where a cell's 3x3 window costs the same (here: left of column 4)
    costs = np.ones((5, 8))
    costs[:, 4:] = 2.0
    w = PathGrid(costs).search_state((0, 2), (7, 2), 2)
    assert w.canonical and w.current == (1, 2) and not w.open[1, 2] and not w.closed[1, 2]
    assert any("a path as short" in line for line in describe(w, (2, 1), passable, "grass", False))
    grid = PathGrid(costs)
    for step in range(1, grid.search((0, 2), (7, 2)).expanded + 1):  # a cell at the border pushes every step
        w = grid.search_state((0, 2), (7, 2), step)
        if w.current is not None and w.current[0] in (3, 4):
            x, y = w.current
            around = (w.open | w.closed)[max(y - 1, 0) : y + 2, x - 1 : x + 2]
            assert around.all(), (w.current, around)
            break
    else:
        raise AssertionError("no cell at the border expanded")
