"""The stress key (U): the crowd climbs to each stage, holds it with the overlay on, reports the
figures, and goes back to the count it had; U again goes back at once."""

from __future__ import annotations

import numpy as np
import pygame

from sim.view import stress
from sim.view.camera import ZOOMS
from tests.helpers import press

STEP = 1 / 60


def test_the_stress_key_climbs_holds_reports_and_comes_back(make_app, monkeypatch):
    monkeypatch.setattr(stress, "STAGES", (1500, 3000))
    monkeypatch.setattr(stress, "RAMP_S", 0.5)
    monkeypatch.setattr(stress, "HOLD_S", 0.5)
    monkeypatch.setattr(stress, "BACK_S", 0.5)
    monkeypatch.setattr(stress, "FLOOR_FPS", 0.0)  # (a test machine's FPS is not the point here)
    app = make_app(counts={"cow": 60, "bird": 20, "water": 20})
    app.frame(STEP)
    press(app, pygame.K_u)
    assert app.show_overlay and "STRESS" in " ".join(app.play.status())
    seen = []
    for _ in range(60 * 6):
        app.frame(STEP)
        seen.append(app.sim.agents.n)
        if not app.play.stress.on:
            break
    assert max(seen) == 3000 and 1500 in seen  # each stage reached and held
    assert app.sim.agents.n == 100 and not app.play.stress.on  # and back
    texts = [m.text for m in app.messages]
    assert any("1,500 animals:" in t and "FPS" in t and "latency p95" in t for t in texts)
    assert any("3,000 animals:" in t for t in texts)


def test_u_again_goes_back_at_once_and_a_slow_machine_stops_the_climb(make_app, monkeypatch):
    monkeypatch.setattr(stress, "STAGES", (5000,))
    monkeypatch.setattr(stress, "RAMP_S", 2.0)
    monkeypatch.setattr(stress, "BACK_S", 0.2)
    app = make_app(counts={"cow": 60, "bird": 20, "water": 20})
    app.frame(STEP)
    press(app, pygame.K_u)
    for _ in range(30):
        app.frame(STEP)
    assert 100 < app.sim.agents.n < 5000
    press(app, pygame.K_u)  # back now
    for _ in range(60):
        app.frame(STEP)
    assert app.sim.agents.n == 100 and not app.play.stress.on
    monkeypatch.setattr(stress, "FLOOR_FPS", 1e9)  # every machine is too slow for this floor
    press(app, pygame.K_u)
    for _ in range(120):
        app.frame(STEP)
    assert app.sim.agents.n == 100 and any("limit" in m.text for m in app.messages)


def test_a_crowd_too_dense_for_icons_is_drawn_as_dots(make_app, monkeypatch):
    # 25,000 animals' icons would cover the fitted view more than twice over: one compiled pass
    # draws each as a small square instead; 100 animals stay icons.
    from sim.view.draw import render

    drawn = []
    real = render.draw_dots
    monkeypatch.setattr(render, "draw_dots", lambda *a: drawn.append(real(*a)) or drawn[-1])
    app = make_app(counts={"cow": 100, "bird": 0, "water": 0})
    app.frame(STEP)
    assert drawn == []
    app = make_app(counts={"cow": 15000, "bird": 6000, "water": 4000})
    app.frame(STEP)
    assert drawn and min(drawn) > 20000  # most of them are on screen, each a dot
    # Zoomed right in, the few on screen are icons again: what counts is what the view shows.
    drawn.clear()
    app.cam.zoom_to(ZOOMS[-1])
    c0, r0, c1, r1 = app.cam.visible_cells()
    assert (c1 - c0) * (r1 - r0) < app.sim.world.width * app.sim.world.height // 10
    app.frame(STEP)
    app.frame(STEP)
    assert drawn == []


def test_dots_are_squares_of_their_species_colour_drawn_in_order_with_a_shaded_edge():
    from sim.view.draw.sprites import draw_dots

    img = np.zeros((20, 30), np.uint32)
    pos = np.array([[2.0, 2.0], [2.2, 2.0], [50.0, 1.0]])  # (x, y) cells; the last is off the image
    species = np.array([0, 1, 0], np.int8)
    colours = np.array([7, 9], np.uint32)
    # tile 4 px, camera at 0: animal 0's square is x 8..11, y 8..11; animal 1's 8..11 too (9.0 -> 8)
    shown = draw_dots(img, pos, species, np.array([0, 1, 2], np.int64), colours, np.uint32(1), 0.0, 0.0, 4, 4)
    assert shown == 2
    assert (img[8:12, 8:12] == 9).all()  # animal 1, drawn after animal 0, on top
    assert (img[8:12, 12] == 1).all() and (img[12, 9:13] == 1).all()  # its shade: right and below
    assert np.count_nonzero(img) == 16 + 8
    img[:] = 0
    draw_dots(img, pos, species, np.array([1, 0], np.int64), colours, np.uint32(1), 0.0, 0.0, 4, 4)
    assert (img[8:12, 8:12] == 7).all()  # the other order: animal 0 on top
