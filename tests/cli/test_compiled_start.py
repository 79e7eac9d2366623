"""The compiled kernels at start: a warm start loads everything a frame (or a big crowd, or the
search views) uses before the first frame; nothing compiles after it."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import ROOT


def test_the_first_frames_load_no_compiled_function():
    """The warm-up behind the start-up message loads every compiled function a frame uses
    (engine, model and drawing), so the first frames of a fresh process, painting
    included, do not stall on numba's loading (~60 ms, one frame)."""
    code = """
import os
os.environ["SDL_VIDEODRIVER"] = "dummy"
from pathlib import Path
import numba.core.dispatcher as D
from sim.config import load_config
from sim.maps import load_map, resolve_map
from sim.view.app import App
app = App(load_config(), load_map(resolve_map("island")), maps_dir=Path("maps"), clock="model", headless=True)
loaded = []
original = D.Dispatcher._compile_for_args
def spy(self, *args, **kws):
    loaded.append(self.py_func.__module__ + "." + self.py_func.__name__)
    return original(self, *args, **kws)
D.Dispatcher._compile_for_args = spy
for i in range(120):
    if i == 60:
        app.sim.paint(80, 50, 2, 6)
    app.frame(1 / 60)
print("loaded:", sorted(set(loaded)))
"""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=900)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip().splitlines()[-1] == "loaded: []"


def test_the_start_rehearsal_leaves_nothing_to_compile_for_a_big_crowd_or_the_search_views():
    # The start-up rehearsal must load every compiled function a frame can use, a crowd's large
    # rounds (cut across the worker threads) and traced rounds (the search views) included, or a
    # first run stalls for seconds in its first frames, compiling (5.8 s once at 20,000 animals).
    code = """
import sys
from pathlib import Path
from numba.core.registry import CPUDispatcher
from sim.config import load_config
from sim.maps import load_map
from sim.model.observe import SearchObserver
from sim.view.app import App

def overloads():
    return {(m, n): len(d.overloads) for m, mod in list(sys.modules.items()) if m.startswith('sim')
            for n, d in vars(mod).items() if isinstance(d, CPUDispatcher)}

app = App(load_config('config.yaml'), load_map('maps/island.yaml'), maps_dir=Path('maps'), headless=True, clock='model',
          counts={'cow': 1200, 'bird': 800, 'water': 400})
before = overloads()
planner = app.sim.planner
planner.threads = 2
split = 0  # the most compiled calls one round took (more than one: cut across the threads)
for _ in range(8):  # long frames: many rests run out at once
    app.frame(1.0)
    split = max(split, len(planner.round_shape.calls))

class Tracing(SearchObserver):
    wants_trace = True
    listening = True
    batches = 0
    def searched(self, batch):
        Tracing.batches += 1

app.sim.observer = Tracing()
for _ in range(120):
    app.frame(1 / 60)
after = overloads()
big = split
print(Tracing.batches, big)
print(sorted(k for k in after if after[k] != before.get(k, 0)))
"""
    r = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=900,
        env={**__import__("os").environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"},
    )
    assert r.returncode == 0, r.stderr
    counts, compiled = r.stdout.strip().splitlines()[-2:]
    traced, big = map(int, counts.split())
    assert traced > 0 and big == 2  # both kinds of round really ran: traced, and cut across two threads
    assert compiled == "[]"


@pytest.mark.slow  # on a fresh clone it compiles every kernel of the engine (~25 s)
def test_warm_up_loads_every_search_the_compare_mode_runs():
    # warm_up() (what a first start's background stages run) must cover every strategy of the
    # compare mode, JPS+ included, or its first comparison stalls for seconds compiling.
    code = """
import sys
import numpy as np
from numba.core.registry import CPUDispatcher
from sim.instruments.compare import Comparison, strategies
from sim.pathfinding import PathGrid, warm_up

def overloads():
    return {(m, n): len(d.overloads) for m, mod in list(sys.modules.items()) if m.startswith('sim')
            for n, d in vars(mod).items() if isinstance(d, CPUDispatcher)}

warm_up()
before = overloads()
grid = PathGrid(np.ones((12, 16)))
cmp = Comparison(0, start=(0, 0), goal=(15, 11))
cmp.run(grid, straight=True)
print(sorted({a for _l, a, _w in strategies(2.0)} - {r.algorithm for r in cmp.runs if r.result.found}))
after = overloads()
print(sorted(k for k in after if after[k] != before.get(k, 0)))
"""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=900)
    assert r.returncode == 0, r.stderr
    not_run, loaded = r.stdout.strip().splitlines()[-2:]
    assert not_run == "[]"  # every strategy found its path (JPS and JPS+ apply on this grid)
    assert loaded == "[]"
