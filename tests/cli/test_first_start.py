"""The first start on a machine: nothing waits for the compiler longer than it must.

A window starts at once, its animals served by the interpreted search while another
process compiles the kernels into numba's cache; a headless run waits for the round
only and gives the same checksum as a warm one. The cold-cache runs compile for real
(tens of seconds), so they are marked ``slow`` (``make test-all``).
"""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from sim.config import load_config
from sim.maps import load_map
from sim.model.agents import State
from sim.model.planner import Ready
from sim.pathfinding.interpreted import search_interpreted
from sim.simulation import Simulation
from tests.conftest import ROOT
from tests.helpers import Hold, remaining_steps_legal


def cold_env(tmp_path) -> dict:
    """An empty numba cache: whatever runs must compile (or find out that it would)."""
    return {**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy", "NUMBA_CACHE_DIR": str(tmp_path)}


def test_a_cold_cache_is_found_out_before_anything_compiles(tmp_path):
    code = (
        "from numba.core import event\n"
        "from sim.config import load_config\n"
        "from sim.prepare import kernels_cached\n"
        "done = event.install_recorder('numba:compile')\n"
        "with done as rec:\n"
        "    cached = kernels_cached(load_config('config.yaml'))\n"
        "print(cached, sum(1 for _, e in rec.buffer if e.is_start))\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env=cold_env(tmp_path),
                       timeout=900)  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["False", "1"]  # found out at the first kernel it would compile: stopped there


def test_a_warm_cache_is_seen_as_warm():
    from sim.prepare import compile_round, kernels_cached, rehearse_model

    config = load_config(ROOT / "config.yaml")
    compile_round(config)  # what the background process does (here: loads it, or compiles once)
    rehearse_model(config)
    assert kernels_cached(config)


def test_the_interpreted_planner_moves_the_crowd_on_legal_paths():
    sim = Simulation(load_config(ROOT / "config.yaml"), load_map(ROOT / "maps" / "island.yaml"), clock="wall")
    sim.planner.kernels = Ready(frozenset({"round"}))
    for _ in range(90):
        sim.step(1 / 60)
    a = sim.agents
    walking = np.flatnonzero(a.state == State.WALKING)
    assert sim.totals["searches"] > 50 and walking.size > 50
    for sp in sim.species:
        rows = walking[a.species[walking] == sp.index]
        assert remaining_steps_legal(sim, sp, rows)
    sim.planner.kernels = Ready()  # the kernels are ready: the same simulation goes on compiled
    for _ in range(30):
        sim.step(1 / 60)
    assert sim.totals["searches"] > 0


def test_the_interpreted_search_costs_what_the_kernels_cost():
    sim = Simulation(load_config(ROOT / "config.yaml"), load_map(ROOT / "maps" / "island.yaml"),
                     counts={"cow": 1, "bird": 1, "water": 1})  # fmt: skip
    rng = np.random.default_rng(3)
    for sp in sim.species:
        _grid, (codes, lut, moves, wp, _blocks), params = sp.astar.compiled_batch()
        free = np.argwhere(sp.regions > 0)[:, ::-1]  # (x, y)
        starts, goals = free[rng.integers(0, len(free), 150)], free[rng.integers(0, len(free), 150)]
        result = sp.astar.search_many(starts, goals)
        for i, ((sx, sy), (gx, gy)) in enumerate(zip(starts.tolist(), goals.tolist(), strict=True)):
            status, _expanded, cost, path = search_interpreted(
                codes, lut, moves, wp, (sy + 1) * wp + sx + 1, (gy + 1) * wp + gx + 1, params
            )
            assert (status == 0) == bool(result.found[i])
            if status == 0:
                assert cost == pytest.approx(result.cost[i], rel=1e-9)
                assert path[0] == sy * (wp - 2) + sx and path[-1] == gy * (wp - 2) + gx


@pytest.mark.slow
def test_a_window_first_start_runs_interpreted_then_switches_to_the_compiled_kernels(tmp_path):
    code = """
import time
from pathlib import Path
from sim.model.agents import State
from sim.model.planner import Ready
from sim.config import load_config
from sim.maps import load_map
from sim.view.app import App
app = App(load_config('config.yaml'), load_map('maps/island.yaml'), maps_dir=Path('maps'),
          config_path=Path('config.yaml'))
print('background', app.startup.kernels.background is not None, 'interpreted', app.sim.planner.interpreted)
frames = 0
while not (app.sim.agents.state == State.WALKING).any() and frames < 600:
    app.frame(1 / 60); frames += 1
print('walking after', frames, 'frames, interpreted', app.sim.planner.interpreted)
app.startup.kernels.background.wait_ready(600)
app.frame(1 / 60)
print('compiled', not app.sim.planner.interpreted, 'searches', app.sim.totals['searches'])
app.startup.kernels.stop()
"""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env=cold_env(tmp_path),
                       timeout=900)  # fmt: skip
    assert r.returncode == 0, r.stderr
    lines = r.stdout.strip().splitlines()
    assert lines[0] == "background True interpreted True"
    words = lines[1].split()
    assert int(words[2]) < 600 and words[-1] == "True"  # animals walked while the kernels compiled
    assert lines[2].startswith("compiled True")
    assert "first start on this machine" in r.stderr and "search kernels ready after" in r.stderr


@pytest.mark.slow
def test_a_headless_first_start_waits_for_the_round_and_gives_the_warm_checksum(tmp_path):
    def run(env: dict) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, str(ROOT / "main.py"), "--headless", "--frames", "120"],
                              capture_output=True, text=True, cwd=ROOT, env=env, timeout=900)  # fmt: skip

    cold = run(cold_env(tmp_path))
    warm = run(cold_env(tmp_path))  # the same cache, now full
    assert cold.returncode == 0 and warm.returncode == 0, cold.stderr + warm.stderr
    assert "compiling the search kernels in another process" in cold.stderr
    assert "search round compiled: running" in cold.stderr
    assert "first start" not in warm.stderr
    checksum = [line for line in cold.stdout.splitlines() if line.startswith("checksum")]
    assert checksum and checksum == [line for line in warm.stdout.splitlines() if line.startswith("checksum")]


@pytest.mark.parametrize("missing", ["numba", "pygame", "yaml"])
def test_a_missing_dependency_is_one_line_that_says_how_to_set_up(missing):
    code = f"import sys; sys.modules[{missing!r}] = None; from sim.cli import run; sys.exit(run(['--headless']))"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert r.stderr.count("\n") == 1 and "make run" in r.stderr and "pip install ." in r.stderr


def test_the_window_says_the_kernels_are_compiling_and_switches_when_they_are_ready(make_app):
    """The switch from the interpreted search to the compiled round, without compiling anything:
    a stand-in for the background process that says when it is ready."""
    from types import SimpleNamespace

    app = make_app("maps/tutorial.yaml", counts={"cow": 20, "bird": 5, "water": 5})
    prep = SimpleNamespace(ready=False, done=False, args=[], stop=lambda: None)
    app.startup.kernels.background = prep
    # (Run first on an empty cache, the app's own headless first start compiled and switched already.)
    app.startup.kernels.done_stages.clear()
    app.startup._switched = False
    for _ in range(30):
        app.frame(1 / 60)
    status = app.startup.status(app.sim)
    assert app.sim.planner.interpreted and status.startswith("compiling the engine's batch search (1 of 7, about ")
    assert status.endswith(" s left); searches in plain Python meanwhile")
    prep.ready = True
    app.frame(1 / 60)
    assert not app.sim.planner.interpreted and app.startup.status(app.sim) == ""
    assert app.messages[-1][0].startswith("search kernels compiled")


def test_the_window_draws_fewer_frames_while_a_first_start_compiles_what_it_waits_for(make_app):
    """While the round, the brush's kernels or the landscape still compile in other processes, the
    window keeps to 30 frames a second (the cores go to the compiling); then the config's cap."""
    from types import SimpleNamespace

    from sim.view.startup import COMPILING_FPS

    app = make_app("maps/tutorial.yaml", counts={"cow": 20, "bird": 5, "water": 5})
    k = app.startup.kernels

    def cap(configured: int) -> int:  # (on a 2-core machine)
        return app.startup.fps_cap(configured, cores=2)

    assert cap(144) == 144 and cap(0) == 0  # (all cached: as configured)
    prep = SimpleNamespace(ready=False, done=False, args=[], stop=lambda: None)
    k.background = prep
    assert COMPILING_FPS == 30 and cap(144) == 30 and cap(0) == 30
    assert cap(20) == 20  # (a lower cap of the user's stays)
    assert app.startup.fps_cap(144, cores=8) == 144  # (cores enough for the window and the compiling)
    prep.ready = True
    k.landscape_ready = False  # the round is ready, the landscape still compiles
    assert cap(144) == 30
    k.landscape_ready = True
    k.paint_stage = SimpleNamespace(ready=False, done=False)  # the brush's kernels still compile
    assert cap(144) == 30
    k.paint_stage.done = True  # its process failed: a stroke compiles them where it waits (not frames kept slow)
    assert cap(144) == 144
    k.paint_stage.ready = True
    assert cap(144) == 144 and cap(0) == 0
    prep.ready = False
    prep.done = True  # the round's process failed: the window compiles it itself (poll), no process to make room for
    assert cap(144) == 144


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="no CPU affinity on this platform")
def test_the_window_counts_the_cores_this_process_may_use():
    """Whether the window makes room for the compiling (:func:`Startup.fps_cap`) depends on the cores
    the demo may run on: a ``taskset`` or a container's limit counts, not the machine's cores."""
    from sim.support.platform import usable_cores

    own = os.sched_getaffinity(0)
    assert usable_cores() == len(own)
    try:
        os.sched_setaffinity(0, {min(own)})
        assert usable_cores() == 1
    finally:
        os.sched_setaffinity(0, own)


@pytest.mark.parametrize("headless", [False, True])
def test_a_first_start_compiles_first_what_it_waits_for(monkeypatch, headless):
    """A window waits for the model's stage and the drawing: the model's stage and then the crowd's
    start at once in another process, the drawing compiles here beside it, then the background (the
    round's chain, the longest) starts on the core the drawing leaves; the window opens when the
    model's is done (its animals keep their distance once the crowd's is too) and the brush's stage
    (a first stroke waits for it) starts. A
    headless run waits for the background's round too, the longest chain: it starts at once,
    the round's smoothing (taken off that chain), the model's and the crowd's stages (one
    process) after the drawing; it never paints, so no brush. Neither loads the brush's kernels
    before its first frame. The progress screen hears what it waits for and how long that usually
    takes."""
    import sim.prepare as prepare

    events, said = [], []

    class Stage:  # a stand-in for a compiling process
        def __init__(self, module, args, log=None):
            stages = [args[i + 1] for i, a in enumerate(args) if a == "--stage"]
            events.append(("start", "+".join(stages) or "background"))
            self.name, self.ready, self.done, self.started = events[-1][1], False, False, 0.0

            self.log = log

        def wait_ready(self, timeout=None):
            events.append(("wait", self.name))
            self.ready = True
            return True

        def wait_until(self, heard, timeout=None):  # the child's "compiled" lines, a stage at a time
            events.append(("wait", self.name))
            for stage in self.name.split("+"):
                if heard():
                    break
                self.log(f"  compiled {prepare.STAGES[stage][1]} in 1.0 s")
            return heard()

    monkeypatch.setattr(prepare, "Background", Stage)
    monkeypatch.setattr(prepare, "kernels_cached", lambda config, jps=False, paint=True: False)

    def loaded(*a, **k):
        events.append(("load", "model" if k.get("paint") is False else "painting"))
        assert k.get("crowd", True) == kernels.ready("crowd")  # (the rehearsal runs no separation before it is ready)

    monkeypatch.setattr(prepare, "rehearse_model", loaded)
    monkeypatch.setattr(prepare, "compile_crowd", lambda config, jps=False: events.append(("compile", "crowd")))
    kernels = prepare.Kernels(load_config(ROOT / "config.yaml"))
    kernels.log = lambda line: None
    kernels.start(headless, lambda: events.append(("compile", "drawing")), lambda *args: said.append(args))
    if headless:
        assert events == [("start", "background"), ("compile", "drawing"), ("start", "smooth+model+crowd"),
                          ("wait", "smooth+model+crowd"), ("load", "model")]  # fmt: skip
        assert kernels.ready("paint")  # (nothing compiles it: a stroke compiles what it needs)
    else:
        assert events == [("start", "model+crowd"), ("compile", "drawing"), ("start", "background"),
                          ("wait", "model+crowd"), ("start", "paint+smooth"), ("load", "model")]  # fmt: skip
        assert kernels.ready("model") and not kernels.ready("crowd")  # (the window opens; the separation waits)
        kernels.model_stage.log(f"  compiled {prepare.STAGES['crowd'][1]} in 1.0 s")  # the crowd's stage ends
        assert not kernels.ready("paint")
        kernels.ensure("paint", lambda *args: said.append(args))  # a first stroke: waits for the brush's stage
        assert events[-1] == ("wait", "paint+smooth") and kernels.ready("paint")
        assert said[-1][0].startswith("first start: compiling the brush") and said[-1][2] >= 1.0
    assert kernels.ready("model") and kernels.ready("crowd") and said[0][2] == prepare.first_frame_seconds(headless)


def test_a_window_after_a_headless_first_start_compiles_the_brush_s_kernels_alone(monkeypatch):
    """A headless first start leaves the brush's kernels out: a window started after it opens at
    once (the rest is cached) and compiles the brush's beside it."""
    import sim.prepare as prepare

    started = []

    class Stage:  # a stand-in for a compiling process
        def __init__(self, module, args, log=None):
            started.append(args[-1] if "--stage" in args else "background")
            self.ready, self.done, self.started = False, False, 0.0

    monkeypatch.setattr(prepare, "Background", Stage)
    monkeypatch.setattr(prepare, "kernels_cached", lambda config, jps=False, paint=True: not paint)
    kernels = prepare.Kernels(load_config(ROOT / "config.yaml"))
    kernels.start(True, lambda: started.append("drawing"))
    assert started == ["drawing"] and kernels.ready("paint")  # headless: all it needs is cached
    kernels.start(False, lambda: started.append("drawing"))
    assert started == ["drawing", "drawing", "paint"] and not kernels.first_start
    assert kernels.ready("round") and kernels.ready("model") and not kernels.ready("paint")


def test_a_brush_stage_that_failed_is_compiled_where_the_stroke_waits(monkeypatch):
    import sim.prepare as prepare

    compiled = []

    class Failed:  # the brush's process ended without its kernels
        started, ready, done = 0.0, False, True

        def wait_ready(self, timeout=None):
            return False

    monkeypatch.setattr(prepare, "rehearse_paint", lambda config, jps=False: compiled.append(jps))
    kernels = prepare.Kernels(load_config(ROOT / "config.yaml"))
    kernels.paint_stage = Failed()
    assert not kernels.ready("paint")
    kernels.ensure("paint")
    assert compiled == [False] and kernels.ready("paint")
    kernels.ensure("paint")  # ready now: nothing more
    assert compiled == [False]


def after_compiling(tmp_path, args: list[str], code: str) -> list[str]:
    """``python -m sim.prepare ARGS`` on an empty cache, then ``code`` in a new process on that
    cache: what it printed, word by word."""
    env = cold_env(tmp_path)
    r = subprocess.run([sys.executable, "-m", "sim.prepare", *args], capture_output=True, text=True, cwd=ROOT,
                       env=env, timeout=600)  # fmt: skip
    assert r.returncode == 0, r.stderr
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env=env, timeout=900)
    assert r.returncode == 0, r.stderr
    return r.stdout.split()


@pytest.mark.slow
def test_the_brush_s_stage_compiles_what_a_stroke_runs(tmp_path):
    code = (
        "from sim.config import load_config\n"
        "from sim.prepare import rehearse_paint, runs_without_compiling\n"
        "sim = rehearse_paint(load_config('config.yaml'))\n"
        "print(runs_without_compiling(lambda: sim.paint_stroke([(0, 0), (5, 3)], 1, 'rock')))\n"
    )
    assert after_compiling(tmp_path, ["--stage", "paint"], code) == ["True"]


@pytest.mark.slow
def test_the_model_s_stage_the_crowd_s_and_the_brush_s_leave_nothing_for_a_painted_frame_to_compile(tmp_path):
    # A window opens after the model's stage (another process) and the crowd's (compiled beside it,
    # by the window's own process); the brush's stage runs after: together they cover the model's
    # frames with a stroke in them (the searches interpreted, as then). The model's stage leaves
    # the crowd's separation out (what the two cores share).
    code = (
        "from sim.config import load_config\n"
        "from sim.prepare import rehearse_model, runs_without_compiling\n"
        "print(runs_without_compiling(lambda: rehearse_model(load_config('config.yaml'), interpreted=True)))\n"
    )
    assert after_compiling(tmp_path, ["--stage", "model", "--stage", "paint"], code) == ["False"]
    assert after_compiling(tmp_path, ["--stage", "crowd"], code) == ["True"]


@pytest.mark.slow
def test_the_smoothing_stage_leaves_the_round_s_process_no_smoothing_to_compile(tmp_path):
    # A headless first start compiles the birds' smoothing beside the round's process (in the model's
    # stage), which must then load it, not compile it again: numba's compile events say what it compiles.
    code = (
        "import sys\n"
        "from numba.core import event\n"
        "names = []\n"
        "class Heard(event.Listener):\n"
        "    def on_start(self, e):\n"
        "        names.append(e.data['dispatcher'].py_func.__name__)\n"
        "    def on_end(self, e):\n"
        "        pass\n"
        "event.register('numba:compile', Heard())\n"
        "from sim.prepare import main\n"
        "main(['--stage', 'searches', '--stage', 'round'])\n"
        "print('compiled:', 'smooth_all' in names, 'search_batch' in names)\n"
    )
    words = after_compiling(tmp_path, ["--stage", "smooth"], code)
    assert words[-3:] == ["compiled:", "False", "True"]  # (the batch search compiled: the events were heard)


def test_the_brush_s_process_says_ready_before_it_goes_on_with_the_smoothing():
    # A window's first stroke waits for the brush's stage only; its process then compiles the round's
    # smoothing (which the round's process loads), after saying so (warm cache: each stage loads).
    r = subprocess.run([sys.executable, "-m", "sim.prepare", "--stage", "paint", "--stage", "smooth"],
                       capture_output=True, text=True, cwd=ROOT, env={**os.environ, "SDL_VIDEODRIVER": "dummy"},
                       timeout=900)  # fmt: skip
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert len(lines) == 3 and lines[1] == "ready", lines
    assert lines[0].startswith("  compiled the brush's kernels in ")
    assert lines[2].startswith("  compiled the smoothing of straight paths in ")


def test_the_compiling_stages_run_one_process_each_and_pass_the_round_on():
    # Warm cache: each stage loads what it would compile (the round's two in one process).
    r = subprocess.run([sys.executable, "-m", "sim.prepare", "--round-only"], capture_output=True, text=True, cwd=ROOT,
                       env={**os.environ, "SDL_VIDEODRIVER": "dummy"}, timeout=900)  # fmt: skip
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert [line.split(" in ")[0] for line in lines] == [
        "  compiled the engine's batch search", "  compiled the search round", "ready"]  # fmt: skip


def test_the_rest_s_small_stages_share_one_process_and_each_reports_its_line():
    # A process a stage costs ~0.8 CPU s to start and load; the last three are small, so they share
    # one, and the round shares one with its batch search (what a run waits for: no second process
    # to start and load the batch search before the round compiles).
    from sim.prepare import REST_STAGES, ROUND_STAGES, SHARED_STAGES, STAGES, processes

    assert processes([*ROUND_STAGES, *REST_STAGES]) == [["searches", "round"], ["rest"], ["jps"], list(SHARED_STAGES)]
    assert processes(ROUND_STAGES) == [["searches", "round"]]  # (--round-only)
    assert processes(["jps+", "rest", "traces"]) == [["jps+"], ["rest"], ["traces"]]  # (only where they come in a row)
    assert processes(["round", "searches", "traces", "jps+"]) == [["round"], ["searches"], ["traces"], ["jps+"]]
    # Warm cache: a process given the round and a stage after it says it is ready once the round is cached.
    r = subprocess.run([sys.executable, "-m", "sim.prepare", "--stage", "round", "--stage", "rest"],
                       capture_output=True, text=True, cwd=ROOT, env={**os.environ, "SDL_VIDEODRIVER": "dummy"},
                       timeout=900)  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert [line.split(" in ")[0] for line in r.stdout.splitlines()] == [
        f"  compiled {STAGES['round'][1]}", "ready", f"  compiled {STAGES['rest'][1]}"]  # fmt: skip
    # Warm cache: the child runs each stage it is given in turn, a line each, then says it is ready.
    r = subprocess.run([sys.executable, "-m", "sim.prepare", "--stage", "jps+", "--stage", "traces"],
                       capture_output=True, text=True, cwd=ROOT, env={**os.environ, "SDL_VIDEODRIVER": "dummy"},
                       timeout=900)  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert [line.split(" in ")[0] for line in r.stdout.splitlines()] == [
        f"  compiled {STAGES['jps+'][1]}", f"  compiled {STAGES['traces'][1]}", "ready"]  # fmt: skip


def test_a_compiling_process_that_failed_is_one_line_naming_its_stages(monkeypatch, capsys):
    import argparse
    import signal

    from sim import prepare

    class Failed:
        returncode = 1

        def __init__(self):
            self.stdout = iter(())
            self.stderr = iter(["Traceback (most recent call last):\n", "  ...\n", "MemoryError: out of memory\n"])

        def wait(self):
            return self.returncode

    commands = []
    monkeypatch.setattr(prepare, "spawn", lambda cmd, **_: commands.append(cmd) or Failed())
    before = signal.getsignal(signal.SIGTERM)
    try:
        assert prepare._run_stages(argparse.Namespace(round_only=False, config=None, jps=False)) == 1
    finally:
        signal.signal(signal.SIGTERM, before)
    assert [[a for a in cmd[cmd.index("--stage"):] if a != "--stage"] for cmd in commands] == [
        ["searches", "round"], ["rest"], ["jps"], ["jps-round", "jps+", "traces"]]  # fmt: skip
    err, why = capsys.readouterr().err.splitlines(), "failed (exit 1): MemoryError: out of memory"
    assert err[0] == f"error: compiling stages 'searches', 'round' {why}"
    assert err[1] == f"error: compiling stage 'rest' {why}"
    assert err[-1] == f"error: compiling stages 'jps-round', 'jps+', 'traces' {why}"


def test_the_compiling_parent_passes_the_round_s_ready_on_before_its_process_goes_on(monkeypatch):
    # A child's lines are passed on as they come: a stage's line as it ends (the window's progress
    # line counts them), and "ready" as soon as the child says it, not when it has compiled more.
    import argparse
    import signal

    from sim import prepare

    printed = []

    def child(group):
        yield "  compiled something in 1.0 s\n"
        if "round" in group:
            yield "ready\n"
            assert printed[-1] == "ready"  # passed on before the child's next line exists
            yield "  compiled the rest in 9.0 s\n"
        else:
            yield "ready\n"

    class Child:
        returncode = 0

        def __init__(self, cmd):
            self.stdout = child([a for a in cmd[cmd.index("--stage") :] if a != "--stage"])
            self.stderr = iter(())

        def wait(self):
            return self.returncode

    monkeypatch.setattr(prepare, "spawn", lambda cmd, **_: Child(cmd))
    monkeypatch.setattr(prepare, "print", lambda line, **_: printed.append(line), raising=False)
    before = signal.getsignal(signal.SIGTERM)
    try:
        assert prepare._run_stages(argparse.Namespace(round_only=False, config=None, jps=False)) == 0
    finally:
        signal.signal(signal.SIGTERM, before)
    assert printed.count("ready") == 1 and printed.index("ready") < printed.index("  compiled the rest in 9.0 s")


def test_the_compiling_parent_ends_on_sigterm_and_ignores_a_second_while_it_cleans_up():
    # The demo ends it (Background.stop), and a signal to the whole process group may follow:
    # that second one must not break into the clean-up (stop_all, at exit) with a traceback.
    import signal

    from sim import prepare

    before = signal.getsignal(signal.SIGTERM)
    try:
        with pytest.raises(SystemExit) as ended:
            prepare._ended(signal.SIGTERM, None)
        assert ended.value.code == 1 and signal.getsignal(signal.SIGTERM) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGTERM, before)


def test_ending_the_compiling_process_ends_its_stage(tmp_path):
    import signal

    import psutil

    hold = Hold(tmp_path, "--stage", "import numba", cold_env(tmp_path))  # the first stage, as it starts
    parent = subprocess.Popen([sys.executable, "-m", "sim.prepare"], cwd=ROOT, env=hold.env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    try:
        assert hold.wait(parent), "no stage started"
        stages = [p for p in psutil.Process(parent.pid).children() if "--stage" in p.cmdline()]
        parent.send_signal(signal.SIGTERM)  # as the demo does when it quits (Background.stop)
        assert parent.wait(600) != 0
        _gone, alive = psutil.wait_procs(stages, timeout=600)
        assert stages and not alive, "the stage's process kept compiling after its parent ended"
    finally:
        hold.close()
        parent.kill()


# Ctrl+C at every moment of a first start: tests/test_interrupt.py (driven by holding a
# process at a chosen moment, not by sleeping).


@pytest.mark.slow
def test_a_start_map_that_chooses_jps_finds_its_round_cached_after_the_first_start(tmp_path):
    """``python -m sim.prepare --round-only --jps`` (what a headless first start on such a map
    runs) leaves the round with JPS in the cache: the run itself compiles no round."""
    code = (
        "from sim.config import load_config\n"
        "from sim.prepare import compile_round, runs_without_compiling\n"
        "config = load_config('config.yaml')\n"
        "print(runs_without_compiling(lambda: compile_round(config, jps=True)),\n"
        "      runs_without_compiling(lambda: compile_round(config)))\n"
    )
    words = after_compiling(tmp_path, ["--round-only", "--jps"], code)
    assert words == ["True", "False"]  # the round with JPS, not the one without
