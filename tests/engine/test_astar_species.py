"""The object layer: AStar, the species' cost tables, cached cost grids, per-edge hooks."""

from __future__ import annotations

import math
from typing import ClassVar

import numpy as np
import pytest

from sim.model.species import BirdAStar, CowAStar, WaterCreatureAStar
from sim.pathfinding import AStar, find_path
from sim.world.terrain import Terrain as T
from sim.world.world import World
from tests.helpers import EdgeHookCow, JumpingFish, dijkstra, pts


def island() -> np.ndarray:
    """20x12: water around, grass, a swamp band, a mountain and a rock."""
    t = np.full((12, 20), T.WATER, dtype=np.uint8)
    t[2:10, 2:18] = T.GRASS
    t[2:10, 9:11] = T.SWAMP
    t[5, 9:11] = T.SAND  # a sandy causeway through the swamp
    t[3:5, 14:16] = T.MOUNTAIN
    t[7, 4] = T.ROCK
    return t


def test_species_tables_say_who_goes_where():
    world = World(island())
    cow, bird, fish = CowAStar(world), BirdAStar(world), WaterCreatureAStar(world)
    assert not cow.passable(0, 0) and cow.passable(3, 3) and not cow.passable(14, 3)
    assert bird.passable(0, 0) and bird.passable(14, 3) and not bird.passable(4, 7)
    assert fish.passable(0, 0) and not fish.passable(3, 3)
    assert cow.grid.costs[3, 3] == 0.85 and cow.grid.costs[3, 9] == 5.0


def test_cows_take_the_causeway_and_never_swim():
    world = World(island())
    cow = CowAStar(world)
    r = cow.search((3, 3), (16, 8))
    assert r.found
    assert all(world.terrain[y, x] not in (T.WATER, T.MOUNTAIN, T.ROCK) for x, y in pts(r.path))
    assert (9, 5) in pts(r.path) or (10, 5) in pts(r.path)  # through the sand, not the swamp
    best = dijkstra(cow.grid.costs, (3, 3), "no-corner-cutting")[(16, 8)]
    assert r.cost == pytest.approx(best)  # optimal although grass costs 0.85 < 1


def test_use_jps_searches_uniform_grids_with_jps_and_water_creatures_stay_in_water():
    world = World(island())
    fish, jumping = WaterCreatureAStar(world), JumpingFish(world)
    r, j = fish.search((0, 0), (19, 11)), jumping.search((0, 0), (19, 11))
    plain = find_path(fish.grid.costs, (0, 0), (19, 11))
    assert r.found and r.cost == pytest.approx(plain.cost) and r.expanded == plain.expanded
    assert j.found and j.cost == pytest.approx(plain.cost) and j.expanded < plain.expanded
    assert all(world.terrain[y, x] == T.WATER for x, y in pts(r.path) + pts(j.path))


def test_cost_grid_is_cached_and_updated_for_the_painted_region_only():
    world = World(island())
    cow = CowAStar(world)
    assert cow.search((3, 3), (7, 3)).cost == pytest.approx(4 * 0.85)
    rect = world.paint(5, 3, 1, T.ROCK)
    assert rect == (4, 2, 7, 5)
    r = cow.search((3, 3), (7, 3))
    assert r.found and (5, 3) not in pts(r.path) and r.cost > 4 * 0.85
    assert (cow.rebuilds, cow.region_updates) == (1, 1)
    world.paint(5, 3, 1, None)  # restore the original terrain
    assert cow.search((3, 3), (7, 3)).cost == pytest.approx(4 * 0.85)
    assert (cow.rebuilds, cow.region_updates) == (1, 2)
    world.replace(np.full((5, 5), T.GRASS, dtype=np.uint8))
    assert cow.search((0, 0), (4, 0)).cost == pytest.approx(4 * 0.85) and cow.rebuilds == 2


def test_config_style_table_override_and_bad_entries():
    world = World(island())
    cow = CowAStar(world, terrain_costs={T.GRASS: 1.0, T.SWAMP: 1.0})
    assert cow.grid.costs[3, 9] == 1.0 and cow.grid.costs[3, 3] == 1.0
    with pytest.raises(ValueError, match=r"terrain cost for terrain 2 must be a number >= 0, got -1"):
        CowAStar(world, terrain_costs={T.GRASS: -1})


@pytest.mark.parametrize(
    ("table", "exc", "message"),
    [
        ([1.0, 2.0], TypeError, "terrain_costs must be a mapping of terrain id -> cost multiplier, got [1.0, 2.0]"),
        ({"grass": 1.0}, TypeError, "terrain_costs key 'grass' must be a whole-number terrain id"),
        ({2.5: 1.0}, TypeError, "terrain_costs key 2.5 must be a whole-number terrain id"),
        ({True: 1.0}, TypeError, "terrain_costs key True must be a whole-number terrain id"),
        # (before: -1 set terrain 255's cost, and 10**9 asked numpy for 7.45 GiB)
        ({-1: 1.0}, ValueError, "terrain_costs key -1 must be a terrain id from 0 to 65535"),
        ({10**9: 1.0}, ValueError, "terrain_costs key 1000000000 must be a terrain id from 0 to 65535"),
        ({2: "1"}, ValueError, "terrain cost for terrain 2 must be a number >= 0, got '1'"),
        ({2: float("nan")}, ValueError, "terrain cost for terrain 2 must be a number >= 0, got nan"),
        # (before: "lut must be at most 1e+12 where passable ..., got 1e+300 at (2, 0)", an inner name)
        ({2: 1e300}, ValueError, "terrain cost for terrain 2 must be at most 1e+12 (or inf: impassable), got 1e+300"),
    ],
)
def test_a_bad_terrain_table_is_one_exact_error_naming_the_entry(table, exc, message):
    with pytest.raises(exc) as info:
        AStar(island(), terrain_costs=table)
    assert type(info.value) is exc and str(info.value) == message


def test_table_keys_may_be_numpy_or_whole_floats_and_values_numpy_numbers():
    t = np.full((5, 5), T.GRASS, np.uint8)
    for table in ({np.uint8(T.GRASS): 1.5}, {2.0: 1.5}, {T.GRASS: np.float32(1.5)}, {int(T.GRASS): np.int64(1)}):
        r = AStar(t, terrain_costs=table).search((0, 0), (4, 4))
        assert r.found and r.cost == pytest.approx(4 * math.sqrt(2) * float(next(iter(table.values()))))


class ShortCosts(AStar):
    def cost_grid(self, terrain):
        return np.ones((2, 2))


class ListCosts(AStar):
    def cost_grid(self, terrain):
        return terrain.tolist()


class WordyCow(AStar):
    terrain_costs: ClassVar = {T.GRASS: 1.0}

    def cost(self, source, target):
        return None if target == (2, 2) else 1.0


class UnsureCow(AStar):
    terrain_costs: ClassVar = {T.GRASS: 1.0}

    def heuristic(self, a, b):
        return float("nan")


def test_an_overridden_cost_model_that_answers_wrongly_is_named_in_one_line():
    t = np.full((5, 5), T.GRASS, np.uint8)
    cases = [
        (
            ShortCosts,
            ValueError,
            "ShortCosts.cost_grid(terrain) must return an array of the terrain's shape (5, 5), got (2, 2)",
        ),
        (
            ListCosts,
            TypeError,
            "ListCosts.cost_grid(terrain) must return a numpy array, got "
            "[[2, 2, 2, 2, 2], [2, 2, 2, 2, 2], [2, 2, 2, 2, 2], [2, 2, 2, 2, 2], [2, 2, 2, …",
        ),
        (WordyCow, TypeError, "WordyCow.cost((1, 1), (2, 2)) must return a number, got None"),
        (UnsureCow, TypeError, "UnsureCow.heuristic((0, 0), (4, 4)) must return a number, not NaN, got nan"),
    ]  # (before: "goal (4, 4) is outside the grid of width 2 and height 2", a list's own TypeError, or
    #    "'>' not supported between instances of 'NoneType' and 'int'" from inside the search)
    for cls, exc, message in cases:
        with pytest.raises(exc) as info:
            cls(t).search((0, 0), (4, 4))
        assert str(info.value) == message


class ZeroHeuristicCow(CowAStar):
    def heuristic(self, a, b):
        return 0.0


@pytest.mark.parametrize("cls", [EdgeHookCow, ZeroHeuristicCow])
def test_per_edge_hooks_give_the_same_costs_as_the_kernel(cls):
    world = World(island())
    kernel, hooked = CowAStar(world), cls(world)
    rng = np.random.default_rng(3)
    land = np.argwhere(kernel.grid.costs > 0)
    for _ in range(40):
        (sy, sx), (gy, gx) = land[rng.integers(len(land), size=2)]
        a = kernel.search((int(sx), int(sy)), (int(gx), int(gy)))
        b = hooked.search((int(sx), int(sy)), (int(gx), int(gy)))
        assert a.found == b.found and a.cost == pytest.approx(b.cost)


@pytest.mark.parametrize("cls", [CowAStar, BirdAStar, WaterCreatureAStar, EdgeHookCow])
def test_search_padded_answers_as_search_many(cls):
    """The planner's entry (queries as padded cells, no boundary checks) gives exactly the
    batch the public ``search_many`` gives, for kernel species and hooked ones alike."""
    world = World(island())
    astar = cls(world)
    rng = np.random.default_rng(5)
    free = np.argwhere(astar.grid.costs > 0)[:, ::-1]
    starts, goals = free[rng.integers(len(free), size=30)], free[rng.integers(len(free), size=30)]
    wp = world.width + 2
    flat_s, flat_t = ((p[:, 1] + 1) * wp + p[:, 0] + 1 for p in (starts, goals))
    got, _ = astar.search_padded(flat_s.astype(np.int64), flat_t.astype(np.int64))
    want = astar.search_many(starts, goals)
    for name in ("found", "cost", "expanded", "status", "paths", "offsets"):
        assert np.array_equal(getattr(got, name), getattr(want, name)), name


@pytest.mark.parametrize("cls", [CowAStar, BirdAStar, EdgeHookCow])
def test_a_kinds_batch_is_the_grids_batch_and_smooths_as_documented(cls):
    """``astar.search_many`` gives a ``BatchResult`` as ``PathGrid.search_many`` does, which
    ``astar.smooth_batch`` takes (docs/engine.md, "The object layer"); the trace comes from
    ``search_many_traced``, as on the grid."""
    world = World(island())
    astar = cls(world)
    rng = np.random.default_rng(8)
    free = np.argwhere(astar.grid.costs > 0)[:, ::-1]
    starts, goals = free[rng.integers(len(free), size=25)], free[rng.integers(len(free), size=25)]
    batch = astar.search_many(starts, goals)
    grid = astar.grid.search_many(starts, goals, diagonal=astar.diagonal)
    assert np.allclose(batch.cost, grid.cost, rtol=1e-12) and np.array_equal(batch.found, grid.found)
    for i in range(len(starts)):
        reach = dijkstra(astar.grid.costs, (int(starts[i][0]), int(starts[i][1])), astar.diagonal)
        assert batch.cost[i] == pytest.approx(reach.get((int(goals[i][0]), int(goals[i][1])), math.inf))
    smooth = astar.smooth_batch(batch)
    assert np.array_equal(smooth.cost, batch.cost)
    for i in np.flatnonzero(batch.found):
        assert tuple(smooth.path(i)[0]) == tuple(starts[i]) and tuple(smooth.path(i)[-1]) == tuple(goals[i])
    traced, (cells, offsets) = astar.search_many_traced(starts, goals)
    assert np.array_equal(traced.cost, batch.cost) and len(offsets) == len(starts) + 1
    if not astar.has_python_hooks:  # the kernel's trace: one expanded cell a counted expansion
        assert np.array_equal(np.diff(offsets), traced.expanded) and len(cells) == offsets[-1]


def test_python_reference_honours_the_node_cap_and_fail_path():
    world = World(island())
    hooked = EdgeHookCow(world, max_nodes=5)
    r = hooked.search((3, 3), (16, 8))
    assert (r.found, r.hit_limit, r.expanded) == (False, True, 5)
    assert tuple(r.partial_path[0]) == (3, 3)


def test_astar_on_a_bare_array_and_bad_terrain():
    cow = CowAStar(island())
    assert cow.search((3, 3), (4, 3)).found
    with pytest.raises(ValueError, match="terrain must be a 2-D integer array, got 2-D float64"):
        AStar(np.ones((3, 3)))
