"""The map editor and the demo's controls: undo/redo of strokes, the cell readout, speed control,
stepping, fullscreen, live config and map files, progress on long loads."""

from __future__ import annotations

import os
import shutil

import numpy as np
import pygame
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.config import load_config
from sim.instruments.inspector import cell_info
from sim.maps import load_map
from sim.simulation import Simulation
from sim.world.history import EditHistory
from sim.world.terrain import Terrain as T
from tests.conftest import ROOT
from tests.helpers import STEP, drag, key, raises_exactly, remaining_steps_legal, sim_on

CTRL, SHIFT = pygame.KMOD_CTRL, pygame.KMOD_SHIFT


def small_sim(**counts) -> Simulation:
    return sim_on("tutorial.yaml", counts=counts or {"cow": 30, "bird": 10, "water": 10})


# ------------------------------------------------------------------ undo / redo in the model
cells = st.tuples(st.integers(0, 39), st.integers(0, 24))
brushes = st.sampled_from([*list(T), None])  # None: restore the original terrain
edits = st.lists(
    st.one_of(
        st.tuples(st.just("paint"), st.integers(-2, 41), st.integers(-2, 26), st.integers(0, 4), brushes),
        st.tuples(st.just("stroke"), st.lists(cells, min_size=1, max_size=6), st.sampled_from(list(T))),
        st.just(("reset",)), st.just(("undo",)), st.just(("redo",)), st.just(("step",)),
    ),
    max_size=30,
)  # fmt: skip


@settings(max_examples=60, deadline=None)
@given(edits)
def test_undo_and_redo_walk_back_and_forth_through_every_stroke(ops):
    """Model-based: a list of terrain snapshots (the reference) against the simulation's history."""
    sim = small_sim()
    done = [sim.world.terrain.copy()]  # snapshots after each step of history
    undone: list[np.ndarray] = []
    for op in ops:
        if op[0] == "paint" or op[0] == "stroke" or op[0] == "reset":
            before = sim.world.terrain.copy()
            if op[0] == "paint":
                sim.paint(*op[1:])
            elif op[0] == "stroke":
                sim.begin_stroke()
                for x, y in op[1]:
                    sim.paint(x, y, 1, op[2])
                sim.end_stroke()
            else:
                sim.reset_map()
            if not np.array_equal(before, sim.world.terrain):  # a change is one step; no change, none
                done.append(sim.world.terrain.copy())
                undone.clear()
        elif op[0] == "undo":
            rect = sim.undo()
            assert (rect is None) == (len(done) == 1)
            if rect is not None:
                undone.append(done.pop())
        elif op[0] == "redo":
            rect = sim.redo()
            assert (rect is None) == (not undone)
            if rect is not None:
                done.append(undone.pop())
        else:
            sim.step(STEP)
        assert np.array_equal(sim.world.terrain, done[-1])
    for sp in sim.species:  # the cost grids and regions followed every undo and redo
        assert np.array_equal(sp.costs, sim.species[sp.index].astar.grid.costs)
        walking = np.flatnonzero((sim.agents.state == 2) & (sim.agents.species == sp.index))
        assert remaining_steps_legal(sim, sp, walking)
        assert sp.passable_at(sim.agents.cell[sim.agents.species == sp.index]).all()


def test_undoing_a_wall_lets_the_animals_through_again_and_they_replan():
    sim = small_sim(cow=60)
    for _ in range(120):
        sim.step(STEP)
    sim.begin_stroke()
    for y in range(0, 25):
        sim.paint(20, y, 1, "rock")
    sim.end_stroke()
    for _ in range(60):
        sim.step(STEP)
    replans = sim.totals["replans"]
    sim.paint(10, 10, 3, "rock")  # a second wall, undone: animals walking across it must re-plan
    for _ in range(30):
        sim.step(STEP)
    assert sim.undo() is not None and sim.undo() is not None  # both walls gone
    assert np.array_equal(sim.world.terrain, sim.world.original)
    cow = sim.species[0]
    assert cow.region_map.count == 1  # the island is one region again
    for _ in range(5):
        sim.step(STEP)
    assert sim.totals["replans"] > replans


def test_history_memory_is_bounded_and_the_oldest_steps_go_first():
    sim = small_sim()
    sim.history = EditHistory(max_bytes=2000, max_steps=6)
    for i in range(20):
        sim.paint(5 + i, 12, 2, "rock" if i % 2 else "swamp")
    h = sim.history
    assert len(h.undo_stack) <= 6 and h.nbytes <= 2000 and h.dropped >= 14
    n = len(h.undo_stack)
    for _ in range(n):
        assert sim.undo() is not None
    assert sim.undo() is None
    assert not np.array_equal(sim.world.terrain, sim.world.original)  # the dropped strokes stay painted


def test_a_new_edit_clears_redo_and_loading_a_map_clears_history():
    sim = small_sim()
    sim.paint(10, 10, 2, "rock")
    sim.undo()
    sim.paint(12, 12, 1, "swamp")
    assert sim.redo() is None
    sim.load_map(load_map(ROOT / "maps" / "tutorial.yaml"))
    assert sim.undo() is None and sim.redo() is None


# ------------------------------------------------------------------ undo in the demo
def test_a_mouse_stroke_undoes_as_one_and_ctrl_y_and_ctrl_shift_z_redo(make_app):
    app = make_app("maps/tutorial.yaml", counts={"cow": 20, "bird": 5, "water": 5})
    app.frame(STEP)
    original = app.sim.world.terrain.copy()
    drag(app, [(8, 12), (14, 12), (20, 12), (26, 12)])
    app.frame(STEP)
    painted = app.sim.world.terrain.copy()
    assert (painted == T.ROCK).sum() > 20
    drag(app, [(14, 12), (16, 12)], button=3)  # a second stroke: restoring part of the wall is an edit too
    key(pygame.K_1)
    drag(app, [(30, 8)])
    app.frame(STEP)
    key(pygame.K_z, CTRL)
    app.frame(STEP)
    key(pygame.K_z, CTRL)
    app.frame(STEP)
    assert np.array_equal(app.sim.world.terrain, painted)
    key(pygame.K_z, CTRL)
    app.frame(STEP)
    assert np.array_equal(app.sim.world.terrain, original)  # the whole first stroke at once
    key(pygame.K_y, CTRL)
    app.frame(STEP)
    assert np.array_equal(app.sim.world.terrain, painted)
    key(pygame.K_z, CTRL | SHIFT)
    app.frame(STEP)
    assert not np.array_equal(app.sim.world.terrain, painted)  # ctrl+shift+Z redid the second stroke
    assert any("redo" in m[0] for m in app.messages)


def test_a_first_stroke_waits_for_the_brush_s_kernels_and_ends_when_released_meanwhile(make_app, monkeypatch):
    """A window's first start opens before the brush's kernels are compiled: the first stroke
    waits for them behind a progress screen, then paints where the mouse went meanwhile; a
    button released during the wait still ends the stroke (one step of undo, nothing painted
    after it)."""
    import threading

    from sim.view import progress

    app = make_app("maps/tutorial.yaml", counts={"cow": 5, "bird": 0, "water": 0})
    app.frame(STEP)
    app.threaded_loads, app.progress_delay_s = True, 0.0
    shown = threading.Event()
    original = progress.progress_screen
    monkeypatch.setattr(progress, "progress_screen", lambda *args: (original(*args), shown.set()))
    at, on = (tuple(int(v) for v in app.cam.to_screen(x, 12)) for x in (8, 14))

    class Compiling:  # the brush's stage, still compiling in its process
        started, ready, done = 0.0, False, False

        def wait_ready(self, timeout=None):
            rel = (on[0] - at[0], 0)
            pygame.event.post(pygame.event.Event(pygame.MOUSEMOTION, pos=on, rel=rel, buttons=(1, 0, 0)))  # meanwhile
            pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONUP, pos=on, button=1))
            assert shown.wait(60)  # the window showed the wait
            self.ready = True
            return True

    kernels = app.startup.kernels
    kernels.paint_stage = Compiling()
    pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=at, button=1))
    app.frame(STEP)
    app.frame(STEP)
    assert kernels.ready("paint") and app.progress_frames >= 1
    assert (app.sim.world.terrain[12, 8:15] == T.ROCK).all() and len(app.sim.history.undo_stack) == 1
    before = app.sim.world.terrain.copy()
    pygame.event.post(pygame.event.Event(pygame.MOUSEMOTION, pos=(on[0] + 40, on[1]), rel=(40, 0), buttons=(0, 0, 0)))
    app.frame(STEP)
    assert np.array_equal(app.sim.world.terrain, before)  # the stroke ended: moving on paints nothing
    drag(app, [(20, 12)])
    app.frame(STEP)
    assert len(app.sim.history.undo_stack) == 2  # the next stroke is a step of its own, at once


def test_reset_is_one_step_of_undo(make_app):
    app = make_app("maps/tutorial.yaml", counts={"cow": 10, "bird": 0, "water": 0})
    drag(app, [(8, 12), (20, 12)])
    app.frame(STEP)
    painted = app.sim.world.terrain.copy()
    key(pygame.K_r)
    app.frame(STEP)
    assert np.array_equal(app.sim.world.terrain, painted)  # unsaved painting: R asks first
    key(pygame.K_RETURN)
    app.frame(STEP)
    assert np.array_equal(app.sim.world.terrain, app.sim.world.original)
    key(pygame.K_z, CTRL)
    app.frame(STEP)
    assert np.array_equal(app.sim.world.terrain, painted)


# ------------------------------------------------------------------ cell readout
def test_the_cell_readout_names_terrain_costs_and_regions(make_app, monkeypatch):
    app = make_app("maps/tutorial.yaml", counts={"cow": 5, "bird": 5, "water": 5})
    sim = app.sim
    ys, xs = np.nonzero(sim.world.terrain == T.GRASS)
    x, y = int(xs[0]), int(ys[0])
    info = cell_info(sim, x, y)
    costs = sim.config.species
    assert (info.x, info.y, info.terrain) == (x, y, T.GRASS)
    cow, bird, water = info.species
    assert bird.multiplier == costs["bird"].costs["grass"] and bird.region > 0
    assert cow.multiplier == costs["cow"].costs["grass"] and cow.region == sim.species[0].regions[y, x] > 0
    assert water.multiplier == 0 and water.region == 0
    assert info.text().startswith(f"({x}, {y}) grass   cows ×{costs['cow'].costs['grass']:g} region ")
    assert "water creatures impassable" in info.text()
    assert cell_info(sim, -1, 0) is None and cell_info(sim, 0, sim.world.height) is None
    shown = []
    import sim.view.modes.play as play

    monkeypatch.setattr(play, "readout_bar", lambda s, t, rect, line, size, kept=None: shown.append(line) or line or "")
    pos = tuple(int(v) for v in app.cam.to_screen(x, y))
    pygame.event.post(pygame.event.Event(pygame.MOUSEMOTION, pos=pos, rel=(0, 0), buttons=(0, 0, 0)))
    app.frame(STEP)
    assert shown[-1] == info.text()
    app.frame(STEP)  # the same cell: the same line, kept from the last frame
    assert shown[-1] == info.text()
    sim.paint(x, y, 0, T.FOREST)  # painted under the cursor: the readout follows
    app.frame(STEP)
    assert shown[-1] == cell_info(sim, x, y).text() and " forest " in shown[-1]
    from dataclasses import replace

    cow = sim.config.species["cow"]
    species = {**sim.config.species, "cow": replace(cow, costs={**cow.costs, "forest": 2.5})}
    sim.apply_config(replace(sim.config, species=species))
    app.frame(STEP)  # new costs: the readout says so
    assert "cows ×2.5 " in shown[-1]


# ------------------------------------------------------------------ speed and stepping
def run_frames(make_app, frames, presses=(), seed=7):
    app = make_app("maps/tutorial.yaml", counts={"cow": 40, "bird": 20, "water": 20}, seed=seed)
    for k in presses:
        key(k)
    searches = []
    for _ in range(frames):
        app.frame(STEP)
        searches.append(app.sim.stats.searches)
    return app, searches


def test_n_frames_at_2x_are_2n_frames_at_1x(make_app):
    fast, fast_searches = run_frames(make_app, 90, [pygame.K_PERIOD])
    slow, slow_searches = run_frames(make_app, 180)
    assert fast.speed.label == "2x" and fast.sim.frame == slow.sim.frame == 180
    assert fast.sim.checksum() == slow.sim.checksum()
    assert fast.sim.totals == slow.sim.totals
    # a frame's figures are its steps together
    assert fast_searches[1:] == [a + b for a, b in zip(slow_searches[2::2], slow_searches[3::2], strict=True)][:89]


SPEEDS = [([pygame.K_COMMA], 60, 30), ([pygame.K_PERIOD] * 3, 10, 80), ([pygame.K_PERIOD] * 9, 5, 40)]  # ½x, 8x, 8x max


@pytest.mark.parametrize(("presses", "frames", "steps"), SPEEDS)
def test_every_speed_runs_the_same_simulation(make_app, presses, frames, steps):
    app, _ = run_frames(make_app, frames, presses)
    ref, _ = run_frames(make_app, steps)
    assert app.sim.frame == steps and app.sim.checksum() == ref.sim.checksum()


def test_slash_pauses_and_steps_exactly_one_frame(make_app):
    app, _ = run_frames(make_app, 5)
    key(pygame.K_SLASH)
    app.frame(STEP)
    assert app.user_paused and app.sim.frame == 6
    for _ in range(5):
        app.frame(STEP)
    assert app.sim.frame == 6  # paused
    key(pygame.K_SLASH)
    app.frame(STEP)
    app.frame(STEP)
    assert app.sim.frame == 7
    ref, _ = run_frames(make_app, 7)
    assert app.sim.checksum() == ref.sim.checksum()


# ------------------------------------------------------------------ window
def test_f11_goes_fullscreen_and_back_and_the_camera_follows(make_app):
    app = make_app("maps/tutorial.yaml", counts={"cow": 5, "bird": 0, "water": 0})
    windowed = app.screen.get_size()
    key(pygame.K_F11)
    app.frame(STEP)
    assert app.window.fullscreen and app.screen.get_size() == pygame.display.get_desktop_sizes()[0]
    lay = app.plan.layout  # the map's view ends above the bars at the bottom: the layout's map region
    assert (app.cam.view_w, app.cam.view_h) == lay.map.size and lay.size == app.screen.get_size()
    key(pygame.K_F11)
    app.frame(STEP)
    lay = app.plan.layout
    assert not app.window.fullscreen and app.screen.get_size() == windowed == lay.size
    assert (app.cam.view_w, app.cam.view_h) == lay.map.size


def test_a_failing_fullscreen_is_a_message_not_a_crash(make_app, monkeypatch):
    app = make_app("maps/tutorial.yaml", counts={"cow": 5, "bird": 0, "water": 0})

    def refuse(*_a, **_k):
        raise pygame.error("no such mode")

    monkeypatch.setattr(pygame.display, "set_mode", refuse)
    key(pygame.K_F11)
    app.frame(STEP)
    assert not app.window.fullscreen and any("fullscreen is not available" in m[0] for m in app.messages)


# ------------------------------------------------------------------ live files
@pytest.fixture
def live_app(tmp_path, maps_copy):
    """An app on copies of the config and a map, so the test may edit them."""
    from sim.view.app import App

    cfg, mp = tmp_path / "config.yaml", tmp_path / "tut.yaml"
    shutil.copy(ROOT / "config.yaml", cfg)
    shutil.copy(ROOT / "maps" / "tutorial.yaml", mp)
    app = App(load_config(cfg), load_map(mp), maps_dir=maps_copy, clock="model", headless=True)
    app.live.watch.interval = 0.0  # look every frame (the default: every 0.5 s)
    yield app, cfg, mp
    pygame.display.quit()


def rewrite(path, old, new):
    text = path.read_text()
    assert old in text, old
    before = path.stat().st_mtime_ns
    path.write_text(text.replace(old, new, 1))
    # A new modification time even where the clock is coarse (no sleeping: set it).
    os.utime(path, ns=(before + 10**9, before + 10**9))


def test_a_changed_config_applies_live(live_app):
    app, cfg, _ = live_app
    cows = int((app.sim.agents.species == 0).sum())
    grass = app.config.species["cow"].costs["grass"]
    rewrite(cfg, f"grass: {grass:g}", "grass: 3.5")
    rewrite(cfg, "budget_ms: 3", "budget_ms: 7")
    rewrite(cfg, "rock: [70, 66, 66]", "rock: [200, 0, 200]")
    app.frame(STEP)
    assert app.config.species["cow"].costs["grass"] == 3.5 and app.sim.budget.budget_ms == 7
    ys, xs = np.nonzero(app.sim.world.terrain == T.GRASS)
    assert app.sim.species[0].grid.cost_block(int(xs[0]), int(ys[0]), int(xs[0]) + 1, int(ys[0]) + 1)[0, 0] == 3.5
    assert app.view.terrain.colours[T.ROCK] == (200, 0, 200)
    assert any(m[0].startswith("config applied") for m in app.messages)
    assert int((app.sim.agents.species == 0).sum()) == cows


def test_a_changed_count_in_the_config_changes_the_population(tmp_path, maps_copy):
    from sim.view.app import App

    cfg = tmp_path / "config.yaml"
    shutil.copy(ROOT / "config.yaml", cfg)
    app = App(load_config(cfg), load_map(maps_copy / "island.yaml"), maps_dir=maps_copy, clock="model", headless=True)
    app.live.watch.interval = 0.0
    count = app.config.species["bird"].count
    assert int((app.sim.agents.species == 1).sum()) == count
    before = {k: s.count for k, s in app.config.species.items()}
    rewrite(cfg, f"count: {count}", f"count: {count + 25}")
    rewrite(cfg, f"count: {before['cow']}", f"count: {before['cow'] - 40}")
    for _ in range(3):
        app.frame(STEP)
    n = {sp.key: int((app.sim.agents.species == sp.index).sum()) for sp in app.sim.species}
    assert n == {"cow": before["cow"] - 40, "bird": count + 25, "water": before["water"]}
    assert sum(n.values()) == app.sim.agents.n


def test_a_broken_config_edit_is_reported_and_the_settings_stay(live_app):
    app, cfg, _ = live_app
    before = app.config
    rewrite(cfg, "budget_ms: 3", "budget_ms: lots")
    app.frame(STEP)
    assert app.config is before and app.sim.budget.budget_ms == 3
    msg = next(m[0] for m in app.messages if m[0].startswith("config not applied"))
    assert f"{cfg}: key 'search.budget_ms'" in msg


def test_a_changed_map_reloads_when_unpainted_else_l_does(live_app):
    app, _, mp = live_app
    rewrite(mp, "~~~~~~~~~~", "##########")  # the first row of water becomes rock
    app.frame(STEP)
    assert (app.sim.world.terrain[0, :10] == T.ROCK).all() and app.sim.world.name == "Tutorial island"
    drag(app, [(10, 12), (12, 12)])
    app.frame(STEP)
    painted = app.sim.world.terrain.copy()
    rewrite(mp, "##########", "~~~~~~~~~~")
    app.frame(STEP)
    assert np.array_equal(app.sim.world.terrain, painted)  # the painting is not thrown away unasked
    assert any("L reloads it" in m[0] for m in app.messages)
    key(pygame.K_l)
    app.frame(STEP)
    assert np.array_equal(app.sim.world.terrain, painted)  # L asks first: the painting is not saved
    key(pygame.K_RETURN)
    app.frame(STEP)
    assert np.array_equal(app.sim.world.terrain, load_map(mp).terrain)


def test_a_broken_map_edit_is_reported_and_the_map_stays(live_app):
    app, _, mp = live_app
    before = app.sim.world.terrain.copy()
    rewrite(mp, "rows: |", "rows: [")
    app.frame(STEP)
    assert np.array_equal(app.sim.world.terrain, before)
    assert any(m[0].startswith(f"could not load map: {mp}:") for m in app.messages)


# ------------------------------------------------------------------ progress
def test_a_long_load_shows_progress_and_the_window_stays_alive(make_app, tmp_path):
    app = make_app("maps/tutorial.yaml", counts={"cow": 5, "bird": 5, "water": 5})
    big = tmp_path / "big.yaml"
    big.write_text("name: Big\ngenerator: island\nwidth: 1600\nheight: 1600\nseed: 3\n")
    seen = []
    import sim.view.progress as progress

    original = progress.progress_screen
    progress.progress_screen = lambda s, t, p, e: (seen.append((p.label, p.fraction)), original(s, t, p, e))
    try:
        app.threaded_loads, app.progress_delay_s = True, 0.0
        assert app.files.load(big)
    finally:
        progress.progress_screen = original
    assert app.progress_frames >= 2 and app.sim.world.name == "Big"
    fractions = [f for label, f in seen if label.startswith("generating") and f is not None]
    assert fractions and fractions == sorted(fractions)
    assert any(label.startswith("placing the animals") or label.startswith("generating") for label, _ in seen)


def test_a_wait_of_usual_length_fills_its_bar_by_the_clock_and_never_to_the_end(make_app):
    """A first start's wait (no fractions to report, only the seconds it usually takes)."""
    from sim.view.draw.panels import GOOD
    from sim.view.progress import Progress, progress_screen

    app = make_app("maps/tutorial.yaml", counts={"cow": 5, "bird": 5, "water": 5})
    progress = Progress("loading")
    progress.report("first start: compiling", None, 9.0)
    w, h = app.screen.get_size()
    filled = []
    for elapsed in (0.0, 3.0, 6.0, 9.0, 30.0):
        progress_screen(app.screen, app.text, progress, elapsed)
        row = pygame.surfarray.array3d(app.screen)[:, h // 2]  # (a copy: the surface stays unlocked)
        filled.append(int((row == GOOD).all(axis=1).sum()))
    assert filled[0] == 0 < filled[1] < filled[2] < filled[3] == filled[4] < w // 2
    assert abs(filled[1] / filled[3] - 1 / 3 / 0.97) < 0.02  # a third of the way after a third of the time


def test_a_bad_map_on_a_thread_is_a_message_and_the_map_stays(make_app, tmp_path):
    app = make_app("maps/tutorial.yaml", counts={"cow": 5, "bird": 5, "water": 5})
    bad = tmp_path / "bad.yaml"
    bad.write_text("generator: island\nwidth: 10\n")
    app.threaded_loads, app.progress_delay_s = True, 0.0
    assert not app.files.load(bad)
    assert app.sim.world.name == "Tutorial island" and any("could not load map" in m[0] for m in app.messages)


def test_painting_never_writes_into_the_loaded_map_so_it_can_start_another_simulation():
    # A script loads a map once and builds several simulations from it (or reloads it):
    # each starts from what the file says, whatever the others painted.
    from sim.maps.data import MapData

    island = load_map(ROOT / "maps" / "tutorial.yaml")
    as_loaded = island.terrain.copy()
    config = load_config(ROOT / "config.yaml")
    first = Simulation(config, island, counts={"cow": 5, "bird": 0, "water": 0})
    assert first.paint(20, 12, 3, "rock") is not None
    assert (island.terrain == as_loaded).all() and not island.terrain.flags.writeable
    second = Simulation(config, island, counts={"cow": 5, "bird": 0, "water": 0})
    assert (second.world.terrain == as_loaded).all() and (second.world.original == as_loaded).all()
    first.load_map(island)
    assert (first.world.terrain == as_loaded).all()
    mine = as_loaded.copy()  # a caller's own writable array is not written either
    third = Simulation(config, MapData("mine", mine), counts={"cow": 5, "bird": 0, "water": 0})
    third.paint(20, 12, 3, "rock")
    assert (mine == as_loaded).all() and mine.flags.writeable


def test_the_readout_leaves_nothing_behind_when_it_moves_or_shrinks(make_app):
    """The readout is drawn opaque over a scene that redraws only what changed: when the
    cursor moves to a cell with a shorter line, what the longer panel covered is put back.
    The picture then equals a full redraw of the same state."""
    app = make_app("maps/tutorial.yaml", counts={"cow": 5, "bird": 5, "water": 5})
    app.user_paused = True  # the same animals in both pictures
    sim = app.sim
    land = tuple(int(v) for v in np.argwhere(sim.world.terrain == T.GRASS)[0][::-1])
    sea = tuple(int(v) for v in np.argwhere(sim.world.terrain == T.WATER)[0][::-1])
    lines = {}
    for cell in (land, sea, land, sea):
        pos = tuple(int(v) for v in app.cam.to_screen(*cell))
        pygame.event.post(pygame.event.Event(pygame.MOUSEMOTION, pos=pos, rel=(0, 0), buttons=(0, 0, 0)))
        app.frame(STEP)
        lines[cell] = cell_info(sim, *cell).text()
    assert len(lines[land]) != len(lines[sea])
    partial = pygame.surfarray.array3d(app.screen).copy()
    app.view.invalidate()
    app.frame(STEP)
    assert (pygame.surfarray.array3d(app.screen) == partial).all()


# ------------------------------------------------------------------ strokes
def test_a_stroke_paints_every_cell_of_its_lines_like_discs_one_by_one():
    from sim.world.world import World, line_cells

    rng = np.random.default_rng(7)
    for _ in range(300):
        terrain = rng.integers(0, 7, (30, 40)).astype(np.uint8)
        stroke, discs = World(terrain.copy()), World(terrain.copy())
        points = rng.integers(-60, 100, (int(rng.integers(1, 5)), 2))
        radius, t = int(rng.integers(0, 5)), int(rng.integers(0, 7))
        stroke.paint_line(points, radius, t)
        for x, y in line_cells(points).tolist():
            discs.paint(x, y, radius, t)
        assert (stroke.terrain == discs.terrain).all()


def test_a_drag_is_one_change_a_frame_and_one_step_of_undo(make_app):
    app = make_app("maps/tutorial.yaml", counts={"cow": 10, "bird": 0, "water": 0})
    app.frame(STEP)
    before, revision = app.sim.world.terrain.copy(), app.sim.world.revision
    drag(app, [(8, 12), (14, 12), (20, 12), (20, 16)])  # one frame's events: a long drag
    app.frame(STEP)
    assert app.sim.world.revision == revision + 1  # painted as one change, not one per cell
    painted = app.sim.world.terrain
    assert (painted[12, 8:21] == T.ROCK).all() and (painted[12:17, 20] == T.ROCK).all()
    key(pygame.K_z, CTRL)
    app.frame(STEP)
    assert (app.sim.world.terrain == before).all()  # and undone as one step


def test_paint_stroke_refuses_bad_points_exactly_and_changes_nothing(make_app):
    app = make_app("maps/tutorial.yaml", counts={"cow": 5, "bird": 0, "water": 0})
    sim, before = app.sim, app.sim.world.terrain.copy()
    for points, exc, message in [
        ([], TypeError, "points must be a non-empty list of (x, y) whole numbers, got []"),
        ([(1, 2), (3,)], TypeError, "points[1] must be an (x, y) pair of whole numbers, got (3,)"),
        ([(1.5, 2)], TypeError, "points[0] x must be a whole number, got 1.5"),
        ([(1, 10**12)], ValueError, "points[0] y must be <= 1000000000, got 1000000000000"),
    ]:
        raises_exactly(lambda p=points: sim.paint_stroke(p, 1, "rock"), exc, message)
    assert (sim.world.terrain == before).all()
    assert sim.paint_stroke([(-(10**9), 5), (10**9, 5)], 0, "rock") is not None  # a line across it all


def test_one_change_cursor_tells_each_follower_what_changed_since_it_last_looked():
    from sim.pathfinding import ChangeCursor
    from sim.world.world import World

    world = World(np.zeros((10, 12), np.uint8))
    a, b = ChangeCursor(world), ChangeCursor(world)
    assert a.take() is None and a.take() == []  # first: everything; then: nothing new
    rect = world.paint(3, 3, 1, 2)
    assert a.take() == [rect] and a.take() == []
    world.paint(8, 8, 0, 2)
    assert len(b.take() or []) == 0 and b.take() == []  # b never looked: everything (None), then nothing
    world.replace(np.ones((4, 4), np.uint8))
    assert a.take() is None  # a new map: rebuild
