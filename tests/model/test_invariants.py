"""What a second look must not break: an animal's cell is where it stands, a refused edit
changes nothing, an edit costs what the map can hold (not what the stroke names).

Through the public scripting API only (``Simulation``, ``paint``, ``paint_stroke``, ``undo``,
``reset_map``, ``call_herd``)."""

from __future__ import annotations

import math
import tracemalloc
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sim.config import load_config
from sim.maps import load_map
from sim.maps.data import MapData
from sim.model.agents import State
from sim.model.replan import misplaced
from sim.pathfinding import set_threads
from sim.simulation import Simulation
from sim.world.terrain import Terrain
from sim.world.world import World, line_cells
from tests.conftest import ROOT, SHIPPED_MAPS

CONFIG = load_config(ROOT / "config.yaml")


def where_it_stands(sim: Simulation) -> list[str]:
    """Every broken promise about ``cell`` (:func:`sim.model.replan.misplaced`)."""
    return misplaced(sim.agents, sim.species, sim.world.terrain)


def soak(map_name: str, seed: int, steps: int, threads: int) -> str:
    """A long run with a random edit every few steps; the invariant checked after every step.
    Returns the checksum (the same for 1 and 2 threads)."""
    set_threads(threads)
    try:
        sim = Simulation(CONFIG, load_map(ROOT / "maps" / map_name), counts={"cow": 60, "bird": 30, "water": 30})
        rng = np.random.default_rng(seed)
        w, h = sim.world.width, sim.world.height
        for step in range(steps):
            if step % 4 == 0:
                kind = rng.integers(0, 10)
                terrain = [*(t.name.lower() for t in Terrain), None][rng.integers(0, len(Terrain) + 1)]
                if kind < 6:
                    k = int(rng.integers(1, 5))
                    pts = [(int(rng.integers(-8, w + 8)), int(rng.integers(-8, h + 8))) for _ in range(k)]
                    sim.paint_stroke(pts, int(rng.integers(0, 6)), terrain)
                elif kind < 7:
                    sim.undo()
                elif kind < 8:
                    sim.reset_map()
                else:
                    sp = sim.species[int(rng.integers(0, len(sim.species)))]
                    free = np.argwhere(sp.regions > 0)
                    if free.size:
                        y, x = free[rng.integers(0, len(free))]
                        sim.call_herd(sp.key, (int(x), int(y)), radius=float(rng.integers(5, 40)))
            sim.step(1 / 30)
            wrong = where_it_stands(sim)
            assert not wrong, f"{map_name} step {step}: " + "; ".join(wrong)
        return sim.checksum()
    finally:
        set_threads(0)


@pytest.mark.parametrize("map_name", SHIPPED_MAPS)
def test_an_animals_cell_is_always_where_it_stands_through_paints_undos_resets_and_herds(map_name):
    assert soak(map_name, seed=5, steps=240, threads=1)


def test_the_soak_gives_the_same_checksum_with_one_and_two_threads():
    assert soak("island.yaml", 11, 200, 1) == soak("island.yaml", 11, 200, 2)


CORNERS = [
    ((2.8, 2.4), (2, 3), [(3, 3)]),  # the fuzz's case: west and south, off the straight line
    ((3.0, 2.0), (2, 3), [(3, 3)]),  # from the cell's centre: the line itself crosses the corner
    ((3.2, 2.3), (4, 3), [(3, 3)]),  # east and south
    ((2.6, 3.3), (2, 2), [(2, 3)]),  # west and north
]
BOTH_SIDES = ((2.8, 2.4), (2, 3), [(3, 3), (2, 2)])  # both side cells rock: "always" only


@pytest.mark.parametrize(("rule", "start", "to", "rocks"),
                         [(rule, *case) for rule in ("one-obstacle", "always") for case in CORNERS]
                         + [("always", *BOTH_SIDES)])  # fmt: skip
def test_a_step_past_a_corner_keeps_out_of_the_cell_it_squeezes_by(rule, start, to, rocks):
    """Under "one-obstacle" and "always" a diagonal step may pass a corner whose side cell an
    animal may not stand on; its straight line crosses that corner, so a position on it (or
    near it, after a push) rounded into the side cell: the cow stood on rock there, where its
    speed is 0, and never moved again. (Found by a model fuzz, 1 run in ~900.) Now it walks
    round the corner: every step on ground it may stand on, ``cell`` where ``pos`` is, and it
    arrives."""
    terrain = np.full((6, 6), int(Terrain.GRASS), np.uint8)
    for x, y in rocks:
        terrain[y, x] = Terrain.ROCK
    config = replace(CONFIG, search=replace(CONFIG.search, diagonal=rule))
    sim = Simulation(config, MapData("corner", terrain), counts={"cow": 1, "bird": 0, "water": 0})
    a = sim.agents
    a.pos[0] = start
    a.cell[0] = np.floor(a.pos[0] + 0.5)
    a.paths[0, 0] = to[1] * 6 + to[0]
    a.path_pos[0], a.path_len[0], a.state[0] = 0, 1, State.WALKING
    arrived = False
    for _ in range(400):
        arrived = arrived or 0 in a.move(0.01, sim._speed_table, sim.world.terrain, sim._stands).tolist()
        assert not where_it_stands(sim), (tuple(a.pos[0]), tuple(a.cell[0]))
        if arrived:
            break
    assert arrived and tuple(a.cell[0]) == to


def small_soak(seed: int, threads: int, ops: int = 50) -> str:
    """A small random map (3 to 40 cells a side), a few dozen animals, and random edits, steps,
    herds and config changes (the diagonal rule, a terrain's cost) in turn; the invariant after
    each (but for a species left no ground at all: it has nowhere to go). Returns the checksum."""
    rng = np.random.default_rng(seed)
    w, h = int(rng.integers(3, 41)), int(rng.integers(3, 41))
    terrain = rng.integers(0, len(Terrain), size=(h, w)).astype(np.uint8)
    counts = {key: int(rng.integers(0, 30)) for key in ("cow", "bird", "water")}
    set_threads(threads)
    try:
        sim = Simulation(CONFIG, MapData("soak", terrain), counts=counts)
        names = [t.name.lower() for t in Terrain]
        for op in range(ops):
            kind = rng.integers(0, 10)
            if kind < 4:
                sim.step(float(rng.choice([1 / 60, 0.25, 0.5])))
            elif kind < 6:
                pts = [(int(rng.integers(-3, w + 3)), int(rng.integers(-3, h + 3))) for _ in range(rng.integers(1, 4))]
                sim.paint_stroke(pts, int(rng.integers(0, 4)), names[rng.integers(0, len(names))])
            elif kind == 6:
                (sim.undo, sim.redo, sim.reset_map)[rng.integers(0, 3)]()
            elif kind == 7:
                sp = sim.species[int(rng.integers(0, len(sim.species)))]
                free = np.argwhere(sp.regions > 0)
                if free.size:
                    y, x = free[rng.integers(0, len(free))]
                    sim.call_herd(sp.key, (int(x), int(y)))
            elif kind == 8:
                rule = ("never", "no-corner-cutting", "one-obstacle", "always")[rng.integers(0, 4)]
                sim.apply_config(replace(sim.config, search=replace(sim.config.search, diagonal=rule)))
            else:
                key = ("cow", "bird")[rng.integers(0, 2)]
                spec = sim.config.species[key]
                costs = {**spec.costs, names[rng.integers(1, len(names))]: float(rng.choice([0.0, 0.5, 2.0]))}
                species = {**sim.config.species, key: replace(spec, costs=costs)}
                sim.apply_config(replace(sim.config, species=species))
            wrong = where_it_stands(sim)  # (a species left no ground at all is not counted)
            assert not wrong, f"seed {seed} op {op}: " + "; ".join(wrong)
        return sim.checksum()
    finally:
        set_threads(0)


@pytest.mark.parametrize("seed", range(36))
def test_small_random_maps_keep_every_animal_where_it_stands_and_one_checksum(seed):
    """A fuzz of the model (2026-12-06) found two ways out of the invariant that the shipped
    maps' soak never met: a thin map's far free cells, and steps past a corner under the
    "one-obstacle" and "always" rules (the tests above); this keeps that fuzz's small maps.
    (On the code before those fixes, 3 of these 36 seeds fail: 23, 30 and 34.)"""
    assert small_soak(seed, 1) == small_soak(seed, 2)


@pytest.mark.parametrize("size", [(3, 12), (40, 3), (5, 5)])
def test_animals_painted_over_on_a_small_map_reach_its_last_free_cells(size):
    """The nearest free cell may lie beyond the windows a big map's search grows through (a
    thin map's far end), and every free cell may be taken (then they share one): either way
    the animals leave the painted ground. (Found by a model fuzz: both left them on rock.)"""
    w, h = size
    sim = Simulation(CONFIG, MapData("thin", np.full((h, w), int(Terrain.GRASS), np.uint8)),
                     counts={"cow": 6, "bird": 0, "water": 0})  # fmt: skip
    sim.step(1 / 30)
    last = (w - 1, h - 1)
    for y in range(h):  # all of it rock but the far corner, a cell at a time: cows are swept off each
        sim.paint_stroke([(0, y), (w - 1, y)], 0, "rock")
        if y == h - 1:
            sim.paint(last[0], last[1], 0, "grass")
    assert not where_it_stands(sim)
    assert {tuple(c) for c in sim.agents.cell.tolist()} == {last}
    sim.paint(last[0], last[1], 0, "rock")  # nowhere left: they stay (nothing to move to) ...
    assert sim.world.terrain[last[1], last[0]] == Terrain.ROCK
    sim.paint(0, 0, 0, "grass")  # ... until ground opens again, however far
    assert {tuple(c) for c in sim.agents.cell.tolist()} == {(0, 0)}
    assert not where_it_stands(sim)


# ------------------------------------------------------------------ atomic edits
def small_map() -> MapData:
    terrain = np.full((24, 30), int(Terrain.GRASS), np.uint8)
    terrain[:, :4] = Terrain.WATER
    terrain[10:14, 12:18] = Terrain.FOREST
    return MapData("small", terrain)


coordinate = st.integers(-60, 90) | st.integers(-(10**9), 10**9)
stroke = st.lists(st.tuples(coordinate, coordinate), min_size=1, max_size=6)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(points=stroke, radius=st.integers(0, 12) | st.integers(0, 10**9),
       terrain=st.sampled_from(["rock", "swamp", None]))  # fmt: skip
def test_a_stroke_paints_its_part_inside_the_map_and_undo_restores_the_exact_grid(points, radius, terrain):
    sim = Simulation(CONFIG, small_map(), counts={"cow": 4, "bird": 2, "water": 2})
    before, history = sim.world.terrain.copy(), len(sim.history.undo_stack)
    rect = sim.paint_stroke(points, radius, terrain)
    after = sim.world.terrain
    # The reference: a disc (the brush capped at the map's diagonal) around every cell of the lines.
    r = min(radius, math.ceil(math.hypot(sim.world.width, sim.world.height)))
    h, w = after.shape
    expect = before.copy()
    cells = line_cells(np.array(points), (-r - 1, -r - 1, w + r + 1, h + r + 1))
    ys, xs = np.mgrid[0:h, 0:w]
    covered = np.zeros((h, w), bool)
    for cx, cy in cells.tolist():
        if -r <= cx < w + r and -r <= cy < h + r:
            covered |= (xs - cx) ** 2 + (ys - cy) ** 2 <= r * r + r
    expect[covered] = sim.world.original[covered] if terrain is None else Terrain[terrain.upper()]
    assert (after == expect).all()
    changed = after != before
    if rect is None:
        assert not changed.any() and len(sim.history.undo_stack) == history
    else:
        ys_c, xs_c = np.nonzero(changed)
        assert rect.x0 <= xs_c.min() and xs_c.max() < rect.x1 and rect.y0 <= ys_c.min() and ys_c.max() < rect.y1
        assert len(sim.history.undo_stack) == history + 1
        sim.undo()
        assert (sim.world.terrain == before).all()


@pytest.mark.parametrize(
    "points, radius, error",
    [
        ([(-20, 30), (30, -20), (1.5, 2)], 1, TypeError),
        ([(-20, 30), (30, -20), (2, True)], 1, TypeError),
        ([(-20, 30), (30, -20), (10**10, 2)], 1, ValueError),
        (np.array([[5, 5], [2**64 - 1, 5]], dtype=np.uint64), 1, ValueError),
        ([(-20, 30), (30, -20)], -1, ValueError),
        ([(-20, 30), (30, -20)], 10**10, ValueError),
        ([(5, 5)] * 100_001, 1, TypeError),
    ],
)
def test_a_refused_stroke_changes_no_cell_and_leaves_no_history(points, radius, error):
    sim = Simulation(CONFIG, small_map(), counts={"cow": 4, "bird": 2, "water": 2})
    sim.paint(8, 8, 2, "rock")
    before, undo = sim.world.terrain.copy(), len(sim.history.undo_stack)
    with pytest.raises(error):
        sim.paint_stroke(points, radius, "rock")
    assert (sim.world.terrain == before).all() and len(sim.history.undo_stack) == undo
    sim.undo()
    assert (sim.world.terrain == sim.world.original).all()


def test_a_stroke_from_outside_across_the_corner_paints_the_corner_and_undoes():
    """The case that raised a broadcast error half way through painting."""
    sim = Simulation(CONFIG, load_map(ROOT / "maps" / "island.yaml"), counts={"cow": 4, "bird": 2, "water": 2})
    before = sim.world.terrain.copy()
    rect = sim.paint_stroke([(-20, 30), (30, -20)], 1, "rock")
    assert rect is not None and rect.x0 == 0 and rect.y0 == 0
    assert sim.world.terrain[5, 5] == Terrain.ROCK  # on the line x + y = 10
    sim.undo()
    assert (sim.world.terrain == before).all()


# ------------------------------------------------------------------ bounded edits
def test_a_stroke_costs_what_the_map_holds_not_what_it_names():
    """Memory is measured (tracemalloc), not time: a stroke of 100,000 points zigzagging corner
    to corner, one two billion cells long with a radius of 10**9, and a 2048² map painted with
    radius 3000 each stay within a few map-sized arrays."""
    sim = Simulation(CONFIG, load_map(ROOT / "maps" / "island.yaml"), counts={"cow": 4, "bird": 2, "water": 2})
    w, h = sim.world.width, sim.world.height
    zigzag = [(0, 0) if i % 2 == 0 else (w - 1, h - 1) for i in range(100_000)]
    sim.paint_stroke(zigzag[:10], 3, "sand")  # compiled (or loaded) before memory is measured
    tracemalloc.start()
    try:
        assert sim.paint_stroke(zigzag, 3, "rock") is not None
        assert sim.paint_stroke([(-(10**9), 50), (10**9, 50)], 10**9, "swamp") == (0, 0, w, h)
        peak_island = tracemalloc.get_traced_memory()[1]
        tracemalloc.reset_peak()
        big = World(np.zeros((2048, 2048), np.uint8))
        assert big.paint_line(np.array([[0, 0], [2047, 2047]]), 3000, 3) is not None
        assert (big.terrain == 3).all()
        peak_big = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak_island < 100 * 2**20, peak_island
    assert peak_big < 12 * 2048 * 2048, peak_big  # a dozen bytes a cell: the mask, the difference rows


def test_an_observer_that_overrides_searched_hears_every_search_and_none_silences_it():
    # (before: a subclass that overrode searched() but not ``listening`` heard nothing, silently;
    # None or a string was taken and raised AttributeError at the next map load)
    from sim.model.observe import SearchObserver

    class Counting(SearchObserver):
        def __init__(self) -> None:
            self.heard = 0

        def searched(self, batch) -> None:
            self.heard += len(batch.agents)

    sim = Simulation(CONFIG, load_map(ROOT / "maps" / "tutorial.yaml"), counts={"cow": 20, "bird": 10, "water": 10})
    ears = Counting()
    sim.observer = ears
    for _ in range(240):
        sim.step(1 / 60)
    assert sim.totals["searches"] > 0 and ears.heard == sim.totals["searches"]
    sim.observer = None  # back to hearing nothing
    assert type(sim.observer) is SearchObserver and not sim.observer.listening
    with pytest.raises(TypeError, match=r"^observer must be a SearchObserver \(sim.model.observe\) or None, got 'x'$"):
        sim.observer = "x"
    sim.load_map(load_map(ROOT / "maps" / "river.yaml"))
    sim.step(1 / 60)


def test_a_map_swapped_in_takes_the_counts_given_else_its_own_else_the_configs():
    """``load_map(map_data, counts=None)`` (docs/scripting.md): the counts given, exactly; without them
    the new map's own ``animals``, else the config's, whatever the first map was started with."""
    from sim.simulation import species_counts

    sim = Simulation(CONFIG, load_map(ROOT / "maps" / "tutorial.yaml"), counts={"cow": 0, "bird": 0, "water": 0})
    fortress = load_map(ROOT / "maps" / "fortress.yaml")
    sim.load_map(fortress, counts={"cow": 5, "bird": 2, "water": 0})
    assert [int((sim.agents.species == sp.index).sum()) for sp in sim.species] == [5, 2, 0]
    sim.load_map(fortress)
    wanted = fortress.animals or species_counts(CONFIG)
    assert [int((sim.agents.species == sp.index).sum()) for sp in sim.species] == [wanted[sp.key] for sp in sim.species]
    before = sim.checksum()
    with pytest.raises(ValueError, match=r"^counts: unknown species 'dog'; species: cow, bird, water$"):
        sim.load_map(fortress, counts={"dog": 5})
    assert sim.checksum() == before and sim.map is fortress  # (refused: nothing changed)
