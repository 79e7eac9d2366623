"""The stress key (U): the crowd climbs to each stage, holds it with the overlay on, reports the
figures, and goes back to the count it had; U again goes back at once."""

from __future__ import annotations

import pygame

from sim.view import stress
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
