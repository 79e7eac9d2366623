"""Shared fixtures. Every test runs on SDL's dummy drivers: no window, no sound."""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

from dataclasses import replace
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def make_app(tmp_path):
    """Build a headless App: ``make_app(map_path_or_data, counts=..., **search_overrides)``."""
    from sim.config import load_config
    from sim.maps import MapData, load_map
    from sim.view.app import App

    made = []

    def build(map_or_path="maps/island.yaml", counts=None, seed=42, **search):
        config = load_config(ROOT / "config.yaml")
        config = replace(config, seed=seed, search=replace(config.search, **search))
        data = map_or_path if isinstance(map_or_path, MapData) else load_map(ROOT / map_or_path)
        app = App(
            config,
            data,
            maps_dir=ROOT / "maps",
            counts=counts,
            clock="model",
            headless=True,
            screenshot_dir=tmp_path / "shots",
        )
        made.append(app)
        return app

    yield build
    import pygame

    pygame.display.quit()
