"""Shared fixtures. Every test runs on SDL's dummy drivers: no window, no sound."""

from __future__ import annotations

import os

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")

from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import settings

# The property tests draw the same examples on every run, so the suite (and CI) gives the
# same answer for the same code; HYPOTHESIS_PROFILE=explore draws new ones each run, to
# look for failures (a failing example is then printed and should become a fixed test).
settings.register_profile("repeatable", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "repeatable"))

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True, scope="session")
def compiled_answers_from_the_first_call():
    """Tests compare the engine's own answers (expanded counts, traces): a search whose kernel is
    not compiled yet in a worker compiles it, instead of answering from the plain-Python search
    (sim.pathfinding.warm; tests of that policy set it themselves)."""
    from sim.pathfinding import set_first_use

    set_first_use("wait")


#: The maps the project ships (tests never depend on maps a user saved into maps/).
SHIPPED_MAPS = ("archipelago.yaml", "fortress.yaml", "island.yaml", "lagoon.tmx", "river.yaml", "tutorial.yaml")
#: Files the shipped maps use that are not maps themselves (the Tiled map's tileset and its image).
SHIPPED_FILES = ("terrain.tsx", "terrain.png")


@pytest.fixture(autouse=True)
def private_user_folder(tmp_path, monkeypatch):
    """Tests never write into the real user's folder (saved maps go to ASTAR_ISLAND_HOME)."""
    monkeypatch.setenv("ASTAR_ISLAND_HOME", str(tmp_path / "user"))


@pytest.fixture
def maps_copy(tmp_path) -> Path:
    """A folder holding a copy of the shipped maps only."""
    import shutil

    folder = tmp_path / "maps"
    folder.mkdir()
    for name in SHIPPED_MAPS + SHIPPED_FILES:
        shutil.copy(ROOT / "maps" / name, folder / name)
    return folder


@pytest.fixture
def make_app(tmp_path, maps_copy):
    """Build a headless App: ``make_app(map_path_or_data, counts=..., **search_overrides)``."""
    from sim.config import load_config
    from sim.maps import MapData, load_map
    from sim.view.app import App

    made = []

    def build(map_or_path="maps/island.yaml", counts=None, seed=42, **search):
        config = load_config(ROOT / "config.yaml")
        config = replace(config, seed=seed, search=replace(config.search, **search))
        if isinstance(map_or_path, MapData):
            data = map_or_path
        elif str(map_or_path).startswith("maps/"):  # a shipped map: the app's own copy of the folder
            data = load_map(maps_copy / str(map_or_path)[5:])
        else:
            data = load_map(ROOT / map_or_path)
        app = App(
            config,
            data,
            maps_dir=maps_copy,
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
