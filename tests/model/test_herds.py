"""Herds: one distance field serves every animal called; their paths are optimal, the field is
grown within the frame budget, repaired after painting, and dropped when everyone has arrived."""

from __future__ import annotations

import numpy as np
import pygame
import pytest

from sim.instruments.inspector import describe
from sim.model.agents import State
from sim.simulation import Simulation
from tests.helpers import STEP, key, path_cost, sim_on

GOAL = (87, 40)  # grass in the middle of the island's main land


def island(**search) -> Simulation:
    return sim_on("island.yaml", **search)


def walking_paths(sim, rows):
    a, w = sim.agents, sim.world.width
    for i in rows:
        cells = a.paths[i, : a.path_len[i]]
        yield i, [(int(c % w), int(c // w)) for c in cells]


def test_every_called_animal_walks_an_optimal_path_without_a_search_of_its_own():
    sim = island()
    for _ in range(20):
        sim.step(STEP)
    cow = sim.species[0]
    a = sim.agents
    region = cow.regions[GOAL[1], GOAL[0]]
    expect = np.flatnonzero((a.species == 0) & (cow.regions[a.cell[:, 1], a.cell[:, 0]] == region)
                            & (np.hypot(a.cell[:, 0] - GOAL[0], a.cell[:, 1] - GOAL[1]) <= 40))  # fmt: skip
    searches = a.searches.copy()
    herd = sim.call_herd("cow", GOAL, radius=40)
    assert herd.called == expect.size > 50 and set(sim.herds.members(herd)) == set(expect)
    stats = sim.step(STEP)
    assert herd.ready and stats.fields == 1 and stats.herded == expect.size and stats.field_cells > 1000
    walking = expect[a.state[expect] == State.WALKING]
    assert walking.size >= expect.size - 3  # the rest stand on the goal already
    assert np.array_equal(a.searches[expect], searches[expect])  # no search of their own
    for i, path in walking_paths(sim, walking[:60]):
        want = cow.grid.search(path[0], GOAL, diagonal=cow.astar.diagonal)
        assert path[-1] == GOAL and a.path_len[i] < a.path_capacity
        assert path_cost(cow.costs, path, cow.astar.diagonal) == pytest.approx(want.cost, rel=1e-9)


def test_a_large_field_is_grown_over_several_frames_within_the_budget():
    sim = island(node_cost_us=5.0, budget_ms=1.0)  # 100 cells a frame for the field
    herd = sim.call_herd("cow", GOAL)  # the whole region
    members = sim.herds.members(herd)
    frames = 0
    while not herd.ready:
        stats = sim.step(STEP)
        frames += 1
        assert stats.field_cells <= 1000 and sim.agents.herd[members].all()  # they wait, called
        assert not (sim.agents.state[members] == State.QUEUED).any()
    assert frames > 5 and np.isfinite(herd.field).sum() == herd.settled


def test_the_herd_arrives_and_is_dropped_and_the_animals_wander_again():
    sim = island()
    herd = sim.call_herd("cow", GOAL, radius=25)
    called = herd.called
    for _ in range(60 * 40):
        sim.step(STEP)
        if not sim.herds.herds:
            break
    assert not sim.herds.herds and not sim.agents.herd.any()
    assert herd.arrived >= called - 2  # everyone but any the field lost (none here)
    searches = sim.totals["searches"]
    for _ in range(200):
        sim.step(STEP)
    assert sim.totals["searches"] > searches  # back to their own searches


def test_painting_regrows_the_field_and_cut_off_animals_go_back_to_wandering():
    sim = island()
    herd = sim.call_herd("cow", GOAL)
    sim.step(STEP)
    assert herd.ready
    before = herd.growth
    # a rock ring around the goal: nobody can reach it any more
    for y in range(GOAL[1] - 6, GOAL[1] + 7):
        for x in range(GOAL[0] - 6, GOAL[0] + 7):
            if max(abs(x - GOAL[0]), abs(y - GOAL[1])) == 6:
                sim.paint(x, y, 0, "rock")
    outside = np.flatnonzero((sim.agents.herd == herd.id)
                             & (np.abs(sim.agents.cell - GOAL).max(axis=1) > 6))  # fmt: skip
    assert outside.size
    for _ in range(3):
        sim.step(STEP)
    assert herd.growth is not before and herd.ready  # grown again for the painted map
    assert not sim.agents.herd[outside].any()  # the field no longer reaches them
    cow = sim.species[0]
    for _i, path in walking_paths(
        sim, np.flatnonzero((sim.agents.herd == herd.id) & (sim.agents.state == State.WALKING))
    ):
        path_cost(cow.costs, path, cow.astar.diagonal)  # every step legal on the new terrain


def test_same_seed_same_herd_same_checksum():
    def run():
        sim = island()
        for f in range(120):
            if f == 30:
                sim.call_herd("bird", (40, 50), radius=60)
            sim.step(STEP)
        return sim.checksum()

    assert run() == run()


def test_call_herd_boundary():
    sim = island()
    with pytest.raises(ValueError) as info:
        sim.call_herd("cows", GOAL)
    assert str(info.value) == "unknown species 'cows' (did you mean 'cow'?)"
    assert sim.call_herd("water", GOAL) is None  # grass: no water creature may stand there
    assert sim.call_herd("cow", (-1, 5)) is None
    with pytest.raises(TypeError) as info:
        sim.call_herd("cow", np.array([[87, 40]]))
    assert str(info.value) == "goal must be an (x, y) tuple of whole numbers, got array([[87, 40]])"


def test_a_herd_may_be_called_to_an_animals_own_cell_as_the_agents_arrays_hold_it():
    a, b = island(), island()
    cow = int(np.flatnonzero(a.agents.species == 0)[0])
    herd = a.call_herd("cow", a.agents.cell[cow], radius=30)  # a numpy row, not a tuple
    same = b.call_herd("cow", tuple(int(v) for v in b.agents.cell[cow]), radius=30)
    assert herd is not None and herd.called == same.called > 0
    assert herd.goal == same.goal


def test_the_demo_calls_a_herd_shows_its_field_and_the_inspector_says_who_follows_it(make_app):
    app = make_app("maps/island.yaml")
    for _ in range(5):
        app.frame(STEP)
    key(pygame.K_g)
    pos = tuple(int(v) for v in app.cam.to_screen(*GOAL))
    pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=pos, button=1, mod=0))
    pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONUP, pos=pos, button=1))
    app.frame(STEP)
    (herd,) = app.sim.herds.herds
    assert herd.species == 0 and herd.goal == GOAL and app.play.herding.shown() is herd
    assert any("called to (87, 40)" in m[0] for m in app.messages)
    app.frame(STEP)
    member = int(app.sim.herds.members(herd)[0])
    assert "follows the herd field to (87, 40)" in describe(app.sim, member)
    other = int(np.flatnonzero(app.sim.agents.herd == 0)[0])
    assert "follows its own path (A*)" in describe(app.sim, other)
    shot = app.files.screenshot()
    image = pygame.image.load(str(shot))
    gx, gy = (int(v) for v in app.cam.to_screen(*GOAL))
    assert tuple(image.get_at((gx + app.cam.tile + 1, gy)))[:3] in ((255, 255, 255), (0, 0, 0))  # the goal ring
    key(pygame.K_b)
    app.frame(STEP)
    assert app.play.herding.shown() is None
