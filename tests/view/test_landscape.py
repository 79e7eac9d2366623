"""The terrain drawn as a landscape: seamless in chunks, repaired exactly where painting
reaches, animated only on water, and faithful to the cells the animals use."""

from __future__ import annotations

import numpy as np
import pytest

from sim.maps import MapData
from sim.view.draw.landscape import MARGIN, PHASES, landscape
from sim.view.draw.sprites import Pixels
from sim.world.terrain import DEFAULT_COLOURS, Terrain

COLOURS = np.array([DEFAULT_COLOURS[t] for t in Terrain], np.float32)


def copy_of(surface) -> np.ndarray:
    """The surface's pixels, copied (no view of them stays to keep it locked)."""
    with Pixels(surface) as px:
        return px.copy()


def random_terrain(seed: int, shape=(24, 30)) -> np.ndarray:
    """Blobs of every terrain in water (a few lone cells too)."""
    rng = np.random.default_rng(seed)
    small = rng.integers(0, len(Terrain), (shape[0] // 3 + 1, shape[1] // 3 + 1)).astype(np.uint8)
    grid = small.repeat(3, 0).repeat(3, 1)[: shape[0], : shape[1]].copy()
    lone = rng.integers(0, shape[0] * shape[1], 12)
    grid.flat[lone] = rng.integers(0, len(Terrain), lone.size)
    return grid


@pytest.mark.parametrize("tile", [1, 3, 8, 13, 32])
def test_any_rectangle_gives_the_same_pixels_as_the_whole(tile):
    """The layer draws in chunks and repairs sub-rectangles: a pixel may not depend on the
    rectangle it is drawn in."""
    terrain = random_terrain(tile)
    h, w = terrain.shape[0] * tile, terrain.shape[1] * tile
    whole, glint = landscape(terrain, COLOURS, tile, 0, 0, w, h)
    rng = np.random.default_rng(tile)
    for _ in range(6):
        x0, y0 = int(rng.integers(0, w - 1)), int(rng.integers(0, h - 1))
        pw, ph = int(rng.integers(1, w - x0 + 1)), int(rng.integers(1, h - y0 + 1))
        part, g = landscape(terrain, COLOURS, tile, x0, y0, pw, ph)
        assert np.array_equal(part, whole[y0 : y0 + ph, x0 : x0 + pw])
        assert np.array_equal(g, glint[y0 : y0 + ph, x0 : x0 + pw])


def test_a_change_reaches_no_farther_than_the_margin():
    """Changing one cell changes no pixel more than MARGIN cells away (what the layer repairs)."""
    tile = 6
    terrain = random_terrain(3)
    before, _ = landscape(terrain, COLOURS, tile, 0, 0, terrain.shape[1] * tile, terrain.shape[0] * tile)
    for x, y, t in ((12, 10, Terrain.ROCK), (0, 0, Terrain.WATER), (29, 23, Terrain.FOREST), (15, 5, Terrain.SAND)):
        changed = terrain.copy()
        changed[y, x] = t if terrain[y, x] != t else Terrain.GRASS
        after, _ = landscape(changed, COLOURS, tile, 0, 0, terrain.shape[1] * tile, terrain.shape[0] * tile)
        ys, xs = np.nonzero(after != before)
        assert ys.size > 0  # the change shows
        assert (np.abs(xs // tile - x) <= MARGIN).all() and (np.abs(ys // tile - y) <= MARGIN).all()


def test_cell_centres_show_their_own_kind_land_or_water():
    """Where an animal stands (a cell's centre) the picture agrees with the cell: a lone
    island cell keeps its middle, a lone pond keeps its water."""
    tile = 16
    terrain = np.zeros((9, 9), np.uint8)
    terrain[4, 4] = Terrain.SAND  # a one-cell island
    terrain[1:4, 6:9] = Terrain.GRASS
    terrain[2, 7] = Terrain.WATER  # a one-cell pond in grass
    pixels, _ = landscape(terrain, COLOURS, tile, 0, 0, 9 * tile, 9 * tile)
    rgb = np.stack([(pixels >> s) & 255 for s in (16, 8, 0)], -1).astype(int)

    def centre(x, y):
        return rgb[y * tile + tile // 2, x * tile + tile // 2]

    r, g, b = centre(4, 4)
    assert r > b  # sand, not water
    r, g, b = centre(7, 2)
    assert b > r and b > g - 40  # water, not grass
    r, g, b = centre(7, 1)
    assert g > r and g > b  # grass


def test_glints_are_sparse_water_pixels_in_every_phase():
    tile = 8
    terrain = np.zeros((40, 40), np.uint8)
    terrain[15:25, 15:25] = Terrain.GRASS
    _, glint = landscape(terrain, COLOURS, tile, 0, 0, 320, 320)
    assert set(np.unique(glint)) == set(range(PHASES + 1))
    assert not glint[15 * tile : 25 * tile, 15 * tile : 25 * tile].any()  # never on land
    assert 0 < (glint > 0).mean() < 0.02


def test_the_layer_repairs_a_paint_stroke_exactly_and_animates_only_water(make_app):
    terrain = random_terrain(7, (40, 60))
    app = make_app(MapData("blobs", terrain), counts={"cow": 0, "bird": 0, "water": 0})
    layer, cam, screen = app.view.terrain, app.cam, app.screen
    assert layer.art
    app.cam.zoom_to(8)
    app.frame(1 / 60)
    for x, y in ((10, 10), (11, 10), (12, 11), (30, 20)):
        app.sim.paint(x, y, 2, int(Terrain.ROCK))
    app.frame(1 / 60)
    layer.prepare(screen, cam)
    repaired = copy_of(layer.still)
    layer.rebuild(app.sim.world.terrain)  # no cache: everything drawn afresh
    layer.prepare(screen, cam)
    fresh = copy_of(layer.still)
    assert np.array_equal(repaired, fresh)
    # The glints: from one phase to the next only water pixels change, and some do.
    frames = []
    for p in range(2):
        layer.clock = p / layer.GLINT_HZ
        layer.prepare(screen, cam)
        frames.append(copy_of(layer.view))
    moved = frames[0] != frames[1]
    assert moved.any()
    vx, vy = round(cam.x), round(cam.y)
    ys, xs = np.nonzero(moved)
    cells = app.sim.world.terrain[(ys + vy) // cam.tile, (xs + vx) // cam.tile]
    assert (cells == Terrain.WATER).mean() > 0.95  # glints sit in water (a few on a quarter-cell shore)


def test_a_view_drawn_whole_again_reuses_its_two_surfaces(make_app):
    """The view drawn whole again (the camera moved, the map was painted, the zoom changed) goes
    into the screen-sized surfaces it already has: new ones each time kept ~10 MB more of a
    2048x2048 paint run resident. (Its pixels: the patched-view test below, which draws whole too.)"""
    app = make_app(MapData("blobs", random_terrain(3, (40, 60))), counts={"cow": 0, "bird": 0, "water": 0})
    layer, cam, screen = app.view.terrain, app.cam, app.screen
    cam.zoom_to(12)
    app.frame(1 / 60)
    still, shown = layer.still, layer.view
    assert shown is not still  # (the map has water: the glints are drawn over a copy)
    for zoom, (dx, dy) in ((16, (40.0, 0.0)), (12, (0.0, -30.0)), (20, (25.0, 25.0))):
        app.sim.paint(10, 10, 2, int(Terrain.ROCK))
        cam.zoom_to(zoom)
        cam.pan(dx, dy)
        app.frame(1 / 60)
        layer.prepare(screen, cam)
        assert layer.still is still and layer.view is shown


@pytest.mark.parametrize("tile", [3, 8, 12])
def test_a_view_patched_where_painting_changed_it_is_the_one_drawn_whole(make_app, tile):
    """After a paint stroke the landscape's view is drawn again only where the change reaches:
    the still picture, the glints of every phase and the view shown are a fresh layer's, at any
    zoom, with sea beside the map (the whole map fitted), for any terrain painted (water included,
    where the view had no glints before), dab after dab, near the view's edges too."""
    from sim.view.draw.render import TerrainLayer

    terrain = random_terrain(5, (240, 360))
    terrain[:120, :180] = Terrain.GRASS  # a quarter without water: glints appear there only when painted
    app = make_app(MapData("blobs", terrain), counts={"cow": 0, "bird": 0, "water": 0})
    layer, cam, screen = app.view.terrain, app.cam, app.screen
    rng = np.random.default_rng(tile)
    for step in range(16):
        if step % 4 == 0:  # the top-left corner (no water at 8 px a cell and closer), the middle, ...
            cam.zoom_to(tile)
            cam.pan(-1e6, -1e6)
            cam.pan(*(float(v) for v in rng.integers(0, 2000, 2) * (step // 4 % 2)))
            app.frame(1 / 60)
            assert cam.tile == tile
        c0, r0, c1, r1 = cam.visible_cells()
        x, y = int(rng.integers(c0 - 3, c1 + 3)), int(rng.integers(r0 - 3, r1 + 3))
        app.sim.paint_stroke([(x, y), (x + int(rng.integers(-9, 10)), y + int(rng.integers(-9, 10)))],
                             int(rng.integers(0, 3)), int(rng.integers(0, len(Terrain))))  # fmt: skip
        app.frame(1 / 60)  # (the view takes the change here)
        layer.clock = step / layer.GLINT_HZ  # (and another glint phase, some steps)
        layer.prepare(screen, cam)
        fresh = TerrainLayer(app.sim.world.terrain.copy(), layer.colours)
        fresh.clock = layer.clock
        fresh.prepare(screen, cam)
        assert np.array_equal(copy_of(layer.still), copy_of(fresh.still))
        assert np.array_equal(copy_of(layer.view), copy_of(fresh.view))
        for p in range(PHASES):
            assert np.array_equal(layer.lit_at(p), fresh.lit_at(p))


def test_flat_colours_until_the_landscape_is_switched_on(make_app):
    app = make_app("maps/tutorial.yaml", counts={"cow": 0, "bird": 0, "water": 0})
    layer = app.view.terrain
    layer.set_art(False)
    layer.prepare(app.screen, app.cam)
    flat = copy_of(layer.view)
    c0, r0, c1, r1 = app.cam.visible_cells()
    colours = {app.screen.map_rgb(tuple(int(v * f) for v in DEFAULT_COLOURS[t])) for t in Terrain
               for f in np.linspace(0.93, 1.0, 32)}  # fmt: skip
    vx, vy = round(app.cam.x), round(app.cam.y)
    top, left = max(0, -vy), max(0, -vx)
    inside = flat[top : top + (r1 - r0) * app.cam.tile, left : left + (c1 - c0) * app.cam.tile]
    assert np.isin(inside, list(colours)).mean() > 0.95
    layer.set_art(True)
    layer.prepare(app.screen, app.cam)
    assert (copy_of(layer.view) != flat).mean() > 0.5


def test_a_first_start_window_switches_to_the_landscape_once_it_is_compiled(make_app):
    """The window's first start draws flat colours while another process compiles the
    landscape; when that process is done, the next frame draws the landscape."""

    class Done:  # a finished background compile (sim.prepare.Background's surface)
        done = ready = True

    app = make_app("maps/tutorial.yaml", counts={"cow": 0, "bird": 0, "water": 0})
    app.startup.kernels.landscape_ready = False
    app.view.terrain.set_art(False)
    app.startup.kernels.landscape = Done()
    app.frame(1 / 60)
    assert app.view.terrain.look == "landscape" and app.startup.art


def test_a_first_start_compiles_the_landscape_once_the_round_is_ready(make_app, monkeypatch):
    """The landscape's compile starts when the search round is cached, not after the background's
    later stages (JPS, JPS+: ~40 s more), so the flat colours last seconds, not a minute."""
    import sim.prepare as prepare

    started: list[str] = []

    class Compile:  # sim.prepare.Background's surface, recording what it was asked to compile
        done = ready = False

        def __init__(self, module: str, args: list[str], log=None) -> None:
            started.append(module)

    class Round:  # the background: the round cached, later stages still running
        ready, done, args = False, False, []

    monkeypatch.setattr(prepare, "Background", Compile)
    app = make_app("maps/tutorial.yaml", counts={"cow": 0, "bird": 0, "water": 0})
    k = app.startup.kernels
    k.landscape_ready, k.landscape, k.background = False, None, Round()
    app.startup.poll(app.sim)
    assert started == []  # the round is not cached yet: the round's compile comes first
    Round.ready = True
    app.startup.poll(app.sim)
    assert started == ["sim.view.draw.landscape"]


def test_a_window_s_animals_keep_their_distance_once_the_crowd_s_stage_is_done(make_app, monkeypatch):
    """A window's first start opens before the crowd's separation is compiled (another process,
    after the model's): until its "compiled" line comes the animals do not keep their distance and
    nothing compiles it here; if that process fails, the window compiles it itself."""
    import sim.view.startup as startup

    app = make_app("maps/island.yaml", counts={"cow": 20, "bird": 0, "water": 0})
    k = app.startup.kernels
    said = []
    monkeypatch.setattr(startup, "say", said.append)
    k.first_start = True  # (a headless first start: the separation was ready before its first frame)
    app.startup.poll(app.sim)
    assert not [line for line in said if "separation" in line]  # nothing to say about it

    class Compiling:  # the model's process, now compiling the crowd's separation
        started, ready, done, args = 0.0, False, False, []

    k.first_start, k.model_stage = True, Compiling()
    k.done_stages["model"] = 1.0
    assert k.ready("model") and not k.ready("crowd")
    a = app.sim.agents
    a.pos[:] = a.pos[0]  # all on one spot
    app.frame(1 / 60)
    assert app.sim.stats.crowd_ms == 0.0 and np.ptp(a.pos, axis=0).max() < 0.5  # (nobody pushed apart)
    k._heard("  compiled the crowd's separation in 3.9 s")
    assert k.ready("crowd")
    for _ in range(30):
        app.frame(1 / 60)
    assert np.ptp(a.pos, axis=0).max() > 0.5  # pushed apart now

    compiled = []
    monkeypatch.setattr(startup, "compile_crowd", lambda config, jps=False: compiled.append(jps))
    k2 = app.startup.kernels = type(k)(app.config)
    k2.first_start, k2.model_stage = True, Compiling()
    k2.model_stage.done = True  # it ended without the crowd's stage
    app.startup._crowd = False
    app.startup.poll(app.sim)
    assert compiled == [False] and k2.ready("crowd")


def test_the_landscape_is_drawn_once_its_process_says_ready_and_a_failed_one_keeps_no_one_waiting(make_app):
    """The landscape's process says READY once the landscape is cached and goes on with the paths view's
    kernel: the window draws the landscape at once. A process that failed (ended, never ready) leaves the
    landscape to the window's own process, and nothing waits for it (the frame cap goes back up)."""
    from types import SimpleNamespace

    app = make_app("maps/tutorial.yaml", counts={"cow": 0, "bird": 0, "water": 0})
    k = app.startup.kernels
    k.landscape_ready = False
    app.view.terrain.set_art(False)
    k.landscape = SimpleNamespace(ready=True, done=False)  # said READY, still compiling the paths view
    assert not k.compiling("landscape")
    app.frame(1 / 60)
    assert app.view.terrain.look == "landscape" and k.landscape_ready
    k.landscape_ready = False
    k.landscape = SimpleNamespace(ready=False, done=True)  # failed
    assert not k.compiling("landscape")
    k.landscape = SimpleNamespace(ready=False, done=False)  # still at the landscape
    assert k.compiling("landscape")
