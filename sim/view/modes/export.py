"""What the learn view and compare mode share: "copy as code" (the engine calls that reproduce the
screen) and the wall a species' drag paints."""

from __future__ import annotations

import datetime as _dt
import sys
from collections.abc import Callable

import numpy as np

from sim.view.context import ExportContext
from sim.view.draw.panels import GOOD, INK, WARN
from sim.world.terrain import Terrain

context = ExportContext  # what these parts of the modes see of the app (tests/test_architecture.py)


def copy_as_code(app: ExportContext, stem: str, costs: np.ndarray, code_for: Callable[[str], str]) -> None:
    """Save ``costs`` beside the screenshots as ``STEM-TIME.npy``, then print ``code_for(its path)``
    to the terminal and put it in the F2 log (a folder that cannot be written is reported, nothing else)."""
    folder = app.screenshot_dir
    path = folder / f"{stem}-{_dt.datetime.now().strftime('%Y%m%d-%H%M%S')}.npy"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        np.save(path, costs)
    except OSError as exc:
        app.message(f"could not save the costs in {folder}: {exc.strerror or exc}", WARN, 10)
        return
    code = code_for(str(path.resolve()))
    print(code, file=sys.stdout, flush=True)
    app.message(code.rstrip("\n"), INK, 0.0)  # into the F2 log only
    app.message(f"copied as code: printed in the terminal and the F2 log; costs saved as {path}", GOOD, 8)


def wall_for(costs: dict[str, float]) -> Terrain:
    """The terrain a species' wall-painting drag puts down: rock where the species cannot enter it,
    else the first terrain it cannot enter (water, for water creatures: land)."""
    walls = [t for t in Terrain if costs.get(t.name.lower(), 0.0) <= 0.0]
    return Terrain.ROCK if Terrain.ROCK in walls or not walls else walls[0]
