"""The demo's controls, headless: keys, pan and zoom, the right button, screenshots, the overlay."""

from __future__ import annotations

import re
import time

import numpy as np
import pygame
import pytest

from sim.config import load_config
from sim.maps import load_map
from sim.simulation import Simulation, species_counts
from sim.world.terrain import Terrain as T
from tests.conftest import ROOT
from tests.helpers import STEP, drag, key


def test_keys(make_app):
    app = make_app("maps/tutorial.yaml")
    sim = app.sim
    n = sim.agents.n
    key(pygame.K_PLUS)
    app.frame(STEP)
    assert sim.agents.n == n + 50
    key(pygame.K_MINUS)
    key(pygame.K_MINUS)
    app.frame(STEP)
    assert sim.agents.n == n - 50
    key(pygame.K_SPACE)
    app.frame(STEP)
    t = sim.time
    app.frame(STEP)
    assert app.paused and sim.time == t
    key(pygame.K_SPACE)
    key(pygame.K_4)
    key(pygame.K_RIGHTBRACKET)
    key(pygame.K_p)
    key(pygame.K_F3)
    key(pygame.K_h)
    app.frame(STEP)
    play = app.play
    brush = play.painting
    assert (brush.brush, brush.brush_radius, play.show_paths, app.show_overlay, app.show_help) == (T.GRASS, 2, 1, 1, 1)
    key(pygame.K_ESCAPE)  # closes help first
    app.frame(STEP)
    assert app.running and not app.show_help
    sim.paint(20, 12, 3, T.ROCK)
    key(pygame.K_r)
    app.frame(STEP)
    assert not (sim.world.terrain == sim.world.original).all()  # unsaved painting: R asks first
    key(pygame.K_RETURN)
    app.frame(STEP)
    assert (sim.world.terrain == sim.world.original).all()
    key(pygame.K_ESCAPE)  # closes the paths view (P), the innermost thing open
    app.frame(STEP)
    assert app.running and not play.show_paths
    key(pygame.K_ESCAPE)  # the plain play screen: asks
    app.frame(STEP)
    assert app.running
    key(pygame.K_ESCAPE)  # Esc again: quits
    app.frame(STEP)
    assert not app.running


def test_pan_and_zoom(make_app):
    app = make_app("maps/archipelago.yaml", counts={"cow": 10, "bird": 10, "water": 10})
    cam = app.cam
    assert cam.tile == cam.fit_tile()  # every map opens fitted: the whole map shows
    c0, r0, c1, r1 = cam.visible_cells()
    assert (c0, r0, c1, r1) == (0, 0, cam.world_w, cam.world_h)
    tile = cam.tile
    px, py = cam.to_screen(cam.world_w / 2, cam.world_h / 2)  # the map's centre: zooming there never clamps
    pygame.event.post(pygame.event.Event(pygame.MOUSEMOTION, pos=(int(px), int(py)), rel=(0, 0), buttons=(0, 0, 0)))
    under = cam.cell_at(int(px), int(py))
    for _ in range(3):
        pygame.event.post(pygame.event.Event(pygame.MOUSEWHEEL, x=0, y=1, flipped=False))
    app.frame(STEP)
    assert cam.tile > tile
    assert cam.cell_at(int(px), int(py)) == pytest.approx(under, abs=1 / tile)
    x0 = cam.x
    pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=pygame.K_RIGHT, mod=0))
    for _ in range(10):
        app.frame(STEP)
    pygame.event.post(pygame.event.Event(pygame.KEYUP, key=pygame.K_RIGHT, mod=0))
    app.frame(STEP)
    assert cam.x > x0
    x1 = cam.x
    pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=(200, 200), button=2))
    pygame.event.post(pygame.event.Event(pygame.MOUSEMOTION, pos=(300, 200), rel=(100, 0), buttons=(0, 1, 0)))
    pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONUP, pos=(300, 200), button=2))
    app.frame(STEP)
    assert cam.x == pytest.approx(x1 - 100)  # dragged right: the view moves left
    for _ in range(20):  # zooming out stops where the whole map shows
        pygame.event.post(pygame.event.Event(pygame.MOUSEWHEEL, x=0, y=-1, flipped=False))
    app.frame(STEP)
    assert cam.tile == cam.fit_tile()
    cam.zoom_to(16)
    key(pygame.K_HOME)
    app.frame(STEP)
    assert cam.tile == cam.fit_tile() and cam.visible_cells() == (0, 0, cam.world_w, cam.world_h)


def test_right_button_restores_the_original_terrain(make_app):
    app = make_app("maps/tutorial.yaml", counts={"cow": 0, "bird": 0, "water": 1})
    sim = app.sim
    cells = [(x, 12) for x in range(14, 26)]
    before = sim.world.terrain.copy()
    drag(app, cells, button=1)
    app.frame(STEP)
    assert (sim.world.terrain[12, 14:26] == T.ROCK).all()
    drag(app, cells, button=3)
    app.frame(STEP)
    assert (sim.world.terrain == before).all()


@pytest.mark.parametrize("name", ["shot.png", "shot.txt", "shot"])
def test_a_headless_screenshot_is_a_png_whatever_its_name(make_app, tmp_path, name):
    """``--screenshot`` promises a PNG: pygame alone picks the format by the ending (a Targa file for .txt)."""
    from sim.view.headless import save_screenshot

    app = make_app()
    app.frame(STEP)
    save_screenshot(app, tmp_path / name)
    data = (tmp_path / name).read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    img = pygame.surfarray.array3d(pygame.image.load(str(tmp_path / name), "shot.png"))
    assert img.shape[:2] == app.screen.get_size()


def test_screenshot_key_writes_a_png_that_is_not_one_flat_colour(make_app, tmp_path):
    app = make_app()
    app.frame(STEP)
    key(pygame.K_F12)
    app.frame(STEP)
    shots = list((tmp_path / "shots").glob("*.png"))
    assert len(shots) == 1
    img = pygame.surfarray.array3d(pygame.image.load(str(shots[0])))
    assert img.shape[:2] == app.screen.get_size()
    assert len(np.unique(img.reshape(-1, 3), axis=0)) > 20


def test_every_map_opens_fitted_and_centred():
    from sim.view.camera import Camera

    small = Camera(1280, 800, 40, 25)
    small.start_view()
    assert small.tile == 32 and small.cell_at(640, 400) == pytest.approx((20, 12.5))
    island = Camera(1280, 800, 160, 100)
    island.start_view()
    assert island.tile == 8 and (island.x, island.y) == (0, 0)
    large = Camera(1280, 800, 1024, 768)
    large.start_view()
    assert large.tile == 1 and large.cell_at(640, 400) == pytest.approx((512, 384))
    large.zoom(-3, 640, 400)
    assert large.tile == 1  # never smaller than the fit
    large.resize(640, 400)  # a smaller window: the fit is smaller too
    assert large.tile == 1 and large.fit_tile() == 1


def test_overlay_history_covers_the_last_five_seconds(make_app):
    app = make_app("maps/tutorial.yaml")
    for _ in range(60 * 8):  # 8 s of frames
        app.frame(STEP)
    h = app.instruments.history
    assert h.times[-1] - h.times[0] <= 5.0 and h.times[-1] - h.times[0] >= 5.0 - 2 * STEP
    assert len(h.search_ms) == len(h.times) == pytest.approx(5 * 60, abs=2)
    plain = pygame.surfarray.array3d(app.screen).copy()
    key(pygame.K_F3)
    app.frame(STEP)  # the overlay draws its panel and graph from it
    shown = pygame.surfarray.array3d(app.screen)
    changed = np.abs(shown[:400, :300].astype(int) - plain[:400, :300].astype(int)).sum(axis=2) > 30
    assert changed.mean() > 0.3  # the panel covers the top left corner


@pytest.mark.parametrize(("name", "animals"), [("island.yaml", 500), ("island.yaml", 20000), ("lagoon.tmx", 500)])
def test_overlay_gives_per_second_figures_per_species_in_columns(name, animals):
    """Each species' searches and cells expanded per second over the last two seconds and what a
    search took (counted here from the frames' own figures), what serves it (A* or JPS), in aligned
    columns under their titles; and each species' latency (p95) on a line of its own."""
    from sim.instruments.recorder import SearchInstruments
    from sim.view.draw.overlay import overlay_lines

    config = load_config()
    sim = Simulation(config, load_map(ROOT / "maps" / name), counts=species_counts(config, animals))
    ins = SearchInstruments(sim)
    frames, t = [], 0.0
    for _ in range(240):  # 4 s at 60 frames a second
        sim.step(STEP)
        t += STEP
        ins.frame(t, sim.stats)
        frames.append((t, sim.stats))
    _head, tail = overlay_lines(sim, ins, 60.0, 4.0, False, detailed=True)
    texts = [text for text, _colour in tail]
    at = next(i for i, text in enumerate(texts) if text.startswith(sim.species[0].label))
    titles, rows = texts[at - 1], texts[at : at + len(sim.species)]
    by = {"island.yaml": ["A*", "A*", "A*"], "lagoon.tmx": ["JPS", "JPS", "JPS"]}[name]
    recent = [stats for when, stats in frames if when > t - 2.0]
    assert len({row.index("/s") for row in rows}) == 1  # the columns line up
    ends = [titles.index(word) + len(word) for word in ("searches", "expanded", "each")]
    for row in rows:  # each figure right under its title
        assert [m.end() for m in re.finditer(r"\S+/s|\S+ [µm]s", row)] == ends, (titles, row)
    waits = np.concatenate([s.latency for s in recent])
    who = np.concatenate([s.latency_species for s in recent])
    latency = next(text for text in texts if text.startswith("latency: "))
    for sp, row, search in zip(sim.species, rows, by, strict=True):
        mine = [s.per_species[sp.key] for s in recent if sp.key in s.per_species]
        searches = sum(c.searches for c in mine) / 2.0
        want = f"{searches / 1e3:.1f}k" if 1e3 <= searches < 1e4 else f"{searches:.0f}"
        assert row.startswith(sp.label) and f" {want}/s" in row and row.endswith(f"  {search}"), (row, want)
        us = 1000.0 * sum(c.ms for c in mine) / sum(c.searches for c in mine)
        each = f"{us / 1e3:.1f} ms" if us >= 1e3 else f"{us:.1f} µs" if us < 10 else f"{us:.0f} µs"
        assert f"  {each}  {search}" in row, (row, each)
        p95 = float(np.percentile(waits[who == sp.index], 95) * 1000.0) if (who == sp.index).any() else 0.0
        assert f"{sp.label} {p95:.0f} ms" in latency, (latency, p95)


def test_each_mode_that_names_its_key_is_opened_by_it_and_listed_with_the_play_keys(make_app):
    """A mode declares the play mode's key that opens it (Mode.opened_by): that key opens it,
    Esc closes it again, and the play mode's table (the help, docs/demo.md) lists the key."""
    from sim.view.modes import MODES, PlayMode

    openers = [m for m in MODES if m.opened_by is not None]
    assert {m.__name__ for m in openers} >= {"CompareMode", "MapPickerMode"}
    assert all(m.opened_by in PlayMode.keys.bindings for m in openers)
    app = make_app("maps/island.yaml")
    app.frame(STEP)
    for mode in openers:
        key(mode.opened_by.codes[0])
        app.frame(STEP)
        assert type(app.top) is mode
        key(pygame.K_ESCAPE)
        app.frame(STEP)
        assert app.top is app.play


@pytest.mark.parametrize(
    ("k", "is_on"),
    [
        (pygame.K_p, lambda app: app.play.show_paths),
        (pygame.K_v, lambda app: app.play.field_species is not None),
        (pygame.K_x, lambda app: app.instruments.heat is not None),
    ],
    ids=["paths", "cost field", "heat"],
)
def test_a_scene_layer_turned_off_leaves_no_stale_pixels(make_app, k, is_on):
    """A layer drawn under the animals (PlayMode._scene_layers) makes its frames full repaints;
    the first frame after it goes off must show what a full repaint shows."""
    app = make_app("maps/tutorial.yaml")
    key(pygame.K_SPACE)  # paused: the animals stand still
    for _ in range(3):
        app.frame(STEP)
    key(k)
    app.frame(STEP)
    assert is_on(app)
    for _ in range(8):  # off again (V cycles through the species first)
        if not is_on(app):
            break
        key(k)
        app.frame(STEP)
    assert not is_on(app)
    app.frame(STEP)
    shown = pygame.surfarray.array3d(app.screen).copy()
    app.view.invalidate()
    app.draw()
    assert np.array_equal(shown, pygame.surfarray.array3d(app.screen))


def test_the_bars_are_copied_only_when_something_covered_them_and_always_show_whole(make_app):
    """The readout and the status bar are opaque and drawn over the scene every frame, but copied to
    the screen only when this frame's scene or anything drawn over it reached their rows (a plain
    frame of walking animals: not at all). Whatever happens (animals walking along the bars' edge,
    the brush over them and away, messages, the log, the overlay, the water's glints), each frame
    equals a full redraw of the same state."""
    app = make_app("maps/island.yaml", counts={"cow": 60, "bird": 20, "water": 20})
    # The messages' clock (their fading, the log's ages) moves only with the frames: a full redraw
    # a moment later on a slow machine shows the same second (CI's log read one age, then the next).
    now = [time.monotonic()]
    app.messages.clock = lambda: now[0]
    key(pygame.K_SPACE)  # paused: only the animals moved here move
    app.frame(STEP)
    app.cam.zoom_to(16, 0, app.cam.view_h)  # the map's last row at the bars' edge
    shown: list[bool] = []
    asked = app.view.bars.shown

    def counted(*args):
        shown.append(asked(*args))
        return shown[-1]

    app.view.bars.shown = counted  # type: ignore[method-assign]
    a, floor = app.sim.agents, app.plan.layout.map.bottom
    walkers = np.arange(0, a.n, 5)  # along the bottom of the view, half under the readout
    x0, y0 = app.cam.cell_at(40, floor)
    a.pos[walkers, 0] = x0 + np.arange(walkers.size) * 2.5
    a.pos[walkers, 1] = y0

    def frames(k: int) -> None:
        for _ in range(k):
            now[0] += STEP
            a.pos[walkers, 0] += 0.13
            a.pos[walkers, 1] = y0 + 0.3 * np.sin(a.pos[walkers, 0])
            app.frame(STEP)

    def same_as_a_full_redraw(step_no: int) -> None:
        picture = pygame.surfarray.array3d(app.screen).copy()
        app.view.invalidate()
        app.draw()
        diff = np.argwhere((picture != pygame.surfarray.array3d(app.screen)).any(axis=2))
        assert diff.size == 0, (step_no, diff.min(axis=0), diff.max(axis=0), len(diff))

    def motion(pos):
        pygame.event.post(pygame.event.Event(pygame.MOUSEMOTION, pos=pos, rel=(0, 0), buttons=(0, 0, 0)))

    def resized(to):
        pygame.display.set_mode(to)
        app._resized()

    size = app.screen.get_size()

    steps = [
        lambda: motion((600, 100)),  # the brush far from the bars
        lambda: motion((200, app.screen.get_height() - 5)),  # ... over the status bar
        lambda: motion((300, app.plan.layout.readout.centery)),  # ... over the readout
        lambda: motion((400, 200)),  # ... away again
        lambda: app.message("a message"),
        lambda: key(pygame.K_F2),  # the log on, then off
        lambda: key(pygame.K_F2),
        lambda: key(pygame.K_F3),  # the overlay on (its figures change from frame to frame: not compared) ...
        lambda: key(pygame.K_F3),
        lambda: key(pygame.K_F3),  # ... and off
        lambda: resized((900, 560)),  # a smaller window, then the first size again
        lambda: resized(size),
    ]
    for step_no, step in enumerate(steps):
        step()
        for k in (1, 2, 30):  # the first frame after it, then the next, then many (the glints change too)
            frames(k)
            if not app.show_overlay:
                same_as_a_full_redraw(step_no)
            frames(1)  # (the frame after a full redraw draws everything again)
    assert app.view.bars.floor == floor
    assert shown.count(True) > len(shown) // 3  # the copies were skipped in most frames
    assert shown.count(False) > len(steps)  # ... and made where something covered the bars
