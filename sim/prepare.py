"""Getting the compiled kernels ready without keeping anyone waiting.

numba compiles each kernel the first time it runs on a machine (~25 s of CPU for what
the demo's first frame needs, ~60 s for everything) and caches it; later starts load it
in about a second. On a first start:

* :func:`kernels_cached` finds out, in a fraction of a second, whether the cache
  already holds what the first frames need (a tiny rehearsal that may load kernels but
  stops at the first one it would have to compile);
* :class:`Background` compiles them in other processes (``python -m sim.prepare``), printing one
  line per phase, one process per stage (:data:`STAGES`; the round and its batch search share
  one, as do the last three, small: :data:`PROCESS_GROUPS`): one the model's round first (its
  batch search before it), then (unless ``--round-only``) everything else (JPS, traced rounds,
  distance fields, the single-search variants the compare mode uses); two more (``--stage
  model``, ``--stage paint``) the model's other kernels, then the crowd's separation (a window
  opens once the model's are done; a headless run's model stage has before them the round's
  smoothing, :data:`SMOOTH_STAGE`), which this process then loads (loading takes far
  less memory than compiling: every process stays under 300 MB), and the brush's, which a
  window's first stroke waits for (it starts when the window opens).
  What the run waits for goes first (:meth:`Kernels.start`);
* meanwhile the window runs with the planner's interpreted search
  (:mod:`sim.pathfinding.interpreted`), and a headless run does the drawing's own
  compiling and waits only for the round.

Nothing here imports pygame.
"""

from __future__ import annotations

import signal
import sys

if __name__ == "__main__" and signal.getsignal(signal.SIGINT) is signal.default_int_handler:
    # Run by a user in a terminal: ctrl+C during the imports below ends quietly. (Started by
    # the demo, SIGINT is ignored from the start: see spawn().)
    signal.signal(signal.SIGINT, lambda _signum, _frame: sys.exit(130))

import argparse
import atexit
import os
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from typing import IO

import numpy as np

from sim.config import Config
from sim.maps.data import MapData, MapError
from sim.model.agents import State
from sim.model.observe import SearchObserver
from sim.model.planner import Ready
from sim.pathfinding import BatchResult, runs_without_compiling, set_first_use, warm_up
from sim.simulation import Simulation
from sim.support.lifeline import PARENT_VAR, READY
from sim.world.terrain import Terrain


def rehearsal(config: Config, jps: bool = False) -> Simulation | None:
    """A tiny island with a band of every terrain and two animals of each species (None when
    a species can stand nowhere on it: the real map will say so). With ``jps``, every species
    the diagonal rule lets searches with JPS, as on a map that chooses it (its round is
    compiled with JPS: :func:`~sim.simulation.searches_with_jps`)."""
    terrain = np.repeat(np.array(list(Terrain), dtype=np.uint8), 3)[:, None].repeat(12, axis=1)
    search = dict.fromkeys(config.species, "jps") if jps else {}
    try:
        return Simulation(config, MapData("rehearsal", terrain, search=search), counts=dict.fromkeys(config.species, 2))
    except MapError:
        return None


def rehearse_model(config: Config, frames: int = 8, interpreted: bool = False, jps: bool = False,
                   paint: bool = True, crowd: bool = True) -> Simulation | None:  # fmt: skip
    """Run the tiny island a few half-second frames, with a paint stroke on a walking animal's
    path: every compiled function a frame of the model uses is compiled (or loaded); with
    ``interpreted``, all but the search round's (which :func:`compile_round` does); ``jps``:
    the round a map that chooses JPS runs (:func:`rehearsal`); without ``paint``, no stroke:
    the brush's kernels are left to :func:`rehearse_paint`; without ``crowd``, the animals do
    not keep their distance: the separation's kernels are left to :func:`compile_crowd`."""
    if not crowd:
        config = replace(config, crowd=replace(config.crowd, spacing=0.0))  # (0: the separation is off)
    sim = rehearsal(config, jps)
    if sim is None:
        return None
    sim.planner.kernels = Ready(frozenset({"round"}) if interpreted else frozenset())
    for frame in range(frames):  # the animals rest, ask for paths, walk, get painted over
        if frame == 5 and paint:  # rock on a walking animal's path: the re-planning checks run too
            a = sim.agents
            walking = np.flatnonzero((a.state == State.WALKING) & (a.path_len - a.path_pos >= 2))
            cell = int(a.paths[walking[0], a.path_len[walking[0]] - 1]) if walking.size else 4 * sim.world.width + 5
            sim.paint(cell % sim.world.width, cell // sim.world.width, 0, int(Terrain.ROCK))
        sim.step(0.5)
    return sim


def rehearse_paint(config: Config, jps: bool = False) -> Simulation | None:
    """Paint rock on a walking animal's path on the tiny island, no frame run: the brush's, the
    regions' and the re-planning checks' kernels compiled (or loaded), in a stage of their own
    beside the model's (its rehearsal then loads them)."""
    sim = rehearsal(config, jps)
    if sim is None:
        return None
    a, w = sim.agents, sim.world.width
    cell = int(a.cell[0, 1]) * w + int(a.cell[0, 0])
    a.state[0], a.paths[0, :2], a.path_pos[0], a.path_len[0] = State.WALKING, cell, 1, 2  # a step on the spot
    sim.paint(cell % w, cell // w, 0, int(Terrain.ROCK))
    return sim


def _model_stage(config: Config, jps: bool = False) -> None:
    """The model's stage: its kernels but the round's (interpreted), the brush's and the crowd's."""
    rehearse_model(config, interpreted=True, jps=jps, paint=False, crowd=False)


def compile_crowd(config: Config, jps: bool = False) -> None:
    """Compile (or load) the separation a frame runs (the crowd's pass on one thread): a stage of
    its own after the model's (:meth:`Kernels.start`), or, when that process failed, in the
    window's process (``Startup.poll``)."""
    sim = rehearsal(config, jps)
    if sim is not None:
        sim.compile_crowd(threaded=False)


def compile_searches(config: Config, jps: bool = False) -> None:
    """Compile (or load) the engine's batch search the round calls, as the public API calls
    it (each species' ``search_many``, and ``smooth_batch`` for those whose paths are pulled
    straight): a round compiled afterwards, in another process, loads it instead of compiling
    it inside its own (each process then stays under 300 MB). ``jps``: as :func:`rehearsal`."""
    sim = rehearsal(config, jps)
    if sim is None:
        return
    a = sim.agents
    for sp in sim.species:
        mine = np.flatnonzero(a.species == sp.index)
        result = sp.astar.search_many(a.cell[mine], a.cell[mine][::-1], threads=1)
        if sp.kind.straight_paths:
            sp.astar.smooth_batch(result)


def compile_smoothing(config: Config, jps: bool = False) -> None:
    """Compile (or load) the smoothing the round runs for species whose paths are pulled straight
    (the birds), called as :func:`compile_searches` calls it, on a path of one cell (the types are
    what count): a headless first start does it first in the model's stage, on the core the
    round's process does not need, and that process then loads it (~1 s off the chain a headless
    first start waits for). ``jps``: as :func:`rehearsal`."""
    sim = rehearsal(config, jps)
    if sim is None:
        return
    a, w = sim.agents, sim.world.width
    for sp in sim.species:
        mine = np.flatnonzero(a.species == sp.index)
        if sp.kind.straight_paths and mine.size:
            x, y = (int(v) for v in a.cell[mine[0]])
            status, cost, one = np.zeros(1, np.int8), np.zeros(1), np.ones(1, np.int64)
            paths, offsets = np.array([y * w + x], np.int32), np.array([0, 1], np.int64)
            sp.astar.smooth_batch(BatchResult.made(status, cost, one, paths, offsets, 1, w))


def compile_round(config: Config, tracing: bool = False, jps: bool = False) -> None:
    """Compile (or load) the search round alone, at once: one round of every animal of the
    tiny island (the compiled code's types are what count, not the values). ``jps``: the
    round with JPS (:func:`rehearsal`)."""
    sim = rehearsal(config, jps)
    if sim is not None:
        a = sim.agents
        a.goal[:] = a.cell[::-1]
        sim.planner.search_rows(np.arange(a.n, dtype=np.int64), tracing)


def kernels_cached(config: Config, jps: bool = False, paint: bool = True) -> bool:
    """Whether the model's first frames run on kernels already in numba's cache: the
    rehearsal runs, loading what is cached, and stops at the first thing it would compile.
    ``jps``: the first frames search with JPS (the start map chooses it); ``paint``: a stroke
    among them (the brush's kernels too)."""
    return runs_without_compiling(lambda: rehearse_model(config, jps=jps, paint=paint))


class Background:
    """``python -m MODULE ARGS`` in a child process that compiles into numba's cache (shared
    through the file system) while this process goes on. Its lines go to ``log`` (default:
    this process's stderr) as they come; :attr:`ready` turns true when it prints
    :data:`READY` (what this process waits for is cached; the child may go on with more)."""

    def __init__(self, module: str, args: list[str], log: Callable[[str], None] | None = None) -> None:
        self.started = time.perf_counter()
        self.args = args
        self.log = log or (lambda line: print(line, file=sys.stderr, flush=True))
        self.ready = False
        self._done = threading.Event()
        env = {**os.environ, "PYTHONUNBUFFERED": "1", "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"}
        self.proc = spawn([sys.executable, "-m", module, *args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, env=env)  # fmt: skip
        threading.Thread(target=self._read, daemon=True, name=f"{module}-log").start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            line = line.rstrip("\n")
            if line == READY:
                self.ready = True
            elif line:
                self.log(line)
        self.proc.wait()
        self.ready = self.ready or self.proc.returncode == 0
        self._done.set()

    @property
    def done(self) -> bool:
        return self._done.is_set()

    def wait_ready(self, timeout: float | None = None) -> bool:
        """Block until the child is ready (or ended); whether it is ready."""
        return self.wait_until(lambda: self.ready, timeout)

    def wait_until(self, heard: Callable[[], bool], timeout: float | None = None) -> bool:
        """Block until ``heard()`` (say, a stage's "compiled" line came) or the child ended; ``heard()``."""
        end = None if timeout is None else time.perf_counter() + timeout
        while not heard() and not self.done:
            if end is not None and time.perf_counter() > end:
                break
            time.sleep(0.02)
        return heard()

    def stop(self) -> None:
        """End the child if it still runs (what it cached so far stays cached)."""
        stop_all([self.proc])


#: Seconds each stage took to compile on the development machine (a 2-core shared VM, an empty
#: cache, a window's first start, 2026-12-05 03:40-04:10, the most of two runs; the model's and
#: the brush's 05:30-05:45, since the model's no longer paints): the first guess
#: of a stage's time, scaled by how fast this machine ran the stages it finished
#: (:meth:`Kernels.eta`). The model's and the crowd's apart (2026-12-06: 4.5 and 3.6 s in an hour
#: when the two together took 8.4-9.0 s against 7.5 on 2026-12-05), and the drawing's (compiled by
#: the demo itself): what the first start's progress screen expects (:func:`first_frame_seconds`).
STAGE_SECONDS = {"model": 4.0, "crowd": 3.0, "drawing": 3.0, "paint": 5.5, "searches": 11.0, "round": 5.0,
                 "rest": 4.5, "jps": 22.0, "jps-round": 5.5, "jps+": 2.0, "traces": 0.5, "landscape": 3.0,
                 "smooth": 1.2}  # fmt: skip


def first_frame_seconds(headless: bool) -> float:
    """What a first start usually waits for before its first frame, in seconds on the development
    machine (a headless run's search round aside): a window, the model's stage beside the drawing
    (the crowd's compiles on while it runs); a headless run, the drawing and then the smoothing, the
    model's and the crowd's."""
    model, crowd, drawing = STAGE_SECONDS[MODEL_STAGE], STAGE_SECONDS[CROWD_STAGE], STAGE_SECONDS["drawing"]
    return drawing + STAGE_SECONDS[SMOOTH_STAGE] + model + crowd if headless else max(model, drawing)


class Kernels:
    """The one owner of "compiled and ready": it knows each stage of compiled code (:data:`STAGES`,
    and the view's ``landscape``), whether numba's cache holds what the first frames need,
    compiles what it lacks (in background processes on a first start, in this process on
    first use) and answers :meth:`ready` ("can the model search compiled now? with JPS?") and
    :meth:`eta` ("when?"). The model asks it through ``Planner.kernels``; the view shows
    :meth:`status` and asks :meth:`ensure` before a stroke; nobody else keeps flags.

    Stages and what they mean to the model: ``round``, the compiled search round for the start
    map (else searches are interpreted); ``jps-round``, the round with JPS (else species that
    choose JPS search with A*: the same costs); ``model``, the model's other kernels (ready
    before a first frame), and ``crowd``, its separation (before a headless run's first frame; a
    window's animals keep their distance once it is ready); ``paint``, the brush's (a
    window's first start compiles them while it runs: nothing is painted before the first
    stroke, which waits for them);
    ``landscape``, the terrain's drawing (else flat colours)."""

    def __init__(self, config: Config, config_path: object | None = None, jps: bool = False) -> None:
        self.config = config
        self.config_path = config_path
        self.jps = jps  # the start map's round searches with JPS (a species' choice, its 'search')
        self.started = time.perf_counter()
        self.first_start = False  # the cache lacked what the first frames need (:meth:`start`)
        self.background: Background | None = None  # the stages, one process each, in order
        self.model_stage: Background | None = None
        self.paint_stage: Background | None = None  # the brush's (a window's first start)
        self.landscape: Background | None = None
        self.landscape_ready = True
        self.done_stages: dict[str, float] = {}  # stage -> seconds it took (as the children said)
        self.here: set[str] = set()  # stages compiled in this process (a background that failed)
        self.log: Callable[[str], None] = lambda line: print(f"astar-island: {line}", file=sys.stderr, flush=True)

    # ------------------------------------------------------------------ asking
    def ready(self, stage: str) -> bool:
        """Whether ``stage``'s compiled code can run now without compiling in this process."""
        if stage in self.here:
            return True
        bg = self.background
        if stage == "round":
            return bg is None or bg.ready
        if stage == "jps-round":  # (a headless run's background compiles the round only: JPS compiles here)
            if bg is None or (not self.jps and "--round-only" in bg.args):
                return True
            return bg.ready if self.jps else bg.done or "jps-round" in self.done_stages
        if stage in (MODEL_STAGE, CROWD_STAGE):  # (a window's: the model's, then the crowd's while the window runs)
            return self.model_stage is None or self.model_stage.ready or stage in self.done_stages
        if stage == PAINT_STAGE:  # (None: cached, or a headless run's, which never paints)
            return self.paint_stage is None or self.paint_stage.ready
        if stage == "landscape":
            return self.landscape_ready
        if stage in STAGES:
            return bg is None or bg.done or stage in self.done_stages
        raise ValueError(f"unknown stage {stage!r}; known: {', '.join([*STAGES, 'landscape'])}")

    def compiling(self, *stages: str) -> bool:
        """Whether a process of ours still compiles one of ``stages`` (not ready, and its process
        has not ended: one that failed leaves its stage to whoever needs it, :meth:`ensure`)."""
        for stage in stages:
            if stage == "landscape":  # (compiled after the round: waiting for its process to start counts)
                if not self.landscape_ready and (self.landscape is None or not self._landscape_over()):
                    return True
                continue
            proc = self.paint_stage if stage == PAINT_STAGE else self.background
            if not self.ready(stage) and proc is not None and not proc.done:
                return True
        return False

    def seconds(self) -> float:
        return time.perf_counter() - self.started

    def pending(self) -> list[str]:
        """The background's stages not finished yet, in the order they run."""
        if self.background is None or self.background.done:
            return []
        return [s for s in self.order if s not in self.done_stages]

    @property
    def order(self) -> list[str]:
        rest = [] if self.background is None or "--round-only" in self.background.args else REST_STAGES
        return [*ROUND_STAGES, *rest]

    def eta(self, stage: str) -> float | None:
        """Estimated seconds until ``stage`` is ready (0 when it is; None when nothing compiles it):
        the stages still ahead of it, each at its development-machine time scaled by how this
        machine did on the stages it finished."""
        if self.ready(stage):
            return 0.0
        target = {"jps-round": "round" if self.jps else "jps-round"}.get(stage, stage)
        pending = self.pending()
        if target not in pending:
            return None
        ahead = pending[: pending.index(target) + 1]
        running = time.perf_counter() - self._stage_started
        return max(1.0, sum(STAGE_SECONDS[s] for s in ahead) * self._pace() - running)

    def _pace(self) -> float:
        """How much longer than on the development machine the stages finished here took."""
        done = [s for s in self.done_stages if s in STAGE_SECONDS]
        return (sum(self.done_stages[s] for s in done) / sum(STAGE_SECONDS[s] for s in done)) if done else 1.0

    def status(self) -> str:
        """The status bar's words while the search round compiles ("" once it is ready)."""
        if self.ready("round"):
            return ""
        pending = self.pending()
        now = pending[0] if pending else "round"
        eta = self.eta("round")
        left = f", about {eta:.0f} s left" if eta is not None else ""
        return (f"compiling {STAGES[now][1]} ({self.order.index(now) + 1} of {len(self.order)}{left}); "
                "searches in plain Python meanwhile")  # fmt: skip

    # ------------------------------------------------------------------ compiling
    def start(self, headless: bool, compile_view: Callable[[], None] = lambda: None,
              report: Callable[..., None] = lambda *_: None) -> None:  # fmt: skip
        """Find out whether the cache holds the first frames' kernels; if not (a first start), compile
        the model's stage, the brush's (a window's) and the background's (a
        headless run: the round only) in other processes and ``compile_view`` (the drawing's
        kernels) here, then load the model's. ``report(label, None, seconds)``: what a first start
        waits for, and its usual seconds.

        Two cores, and who waits for what decides the order (not priorities: on a busy machine a
        process of lower priority starves). A window waits for the model's stage and the drawing
        (its searches are interpreted meanwhile, its animals do not keep their distance until the
        crowd's stage is done): the model's stage and then the crowd's compile in another process
        from the start, the drawing here beside them, then the background on this core (the round's
        chain is the longest); once the window opens, the brush's (a first stroke waits for it:
        :meth:`ensure`). A
        headless run waits for the round too, the longest chain: it compiles on one core from the
        start, the drawing and then the round's smoothing (which the round's process then loads), the
        model's and the crowd's stages (one process) one after the other on the other; it never
        paints, so it leaves the brush's alone."""
        if kernels_cached(self.config, self.jps):  # (loaded here: a frame's kernels, a stroke's included)
            compile_view()
            return
        if kernels_cached(self.config, self.jps, paint=False):  # all but the brush's: a headless first start's
            compile_view()
            if not headless:  # (a headless run never paints)
                self.paint_stage = self._stage(PAINT_STAGE)  # the window opens, the brush's compile beside
            return
        self.first_start = True
        self.log("first start on this machine: compiling the search kernels in another process "
                 "(numba caches them; later starts take about a second)")  # fmt: skip
        report("first start: compiling the model's and the drawing's kernels (later starts: about a second)",
               None, first_frame_seconds(headless))  # fmt: skip
        if headless:
            self._start_background(headless)
            compile_view()
            self.model_stage = self._stage(SMOOTH_STAGE, MODEL_STAGE, CROWD_STAGE)
            self.model_stage.wait_ready()
        else:
            # The crowd's separation after the model's, in the same process: the window opens once the
            # model's is done and the drawing's compiled here, and its animals keep their distance once
            # the crowd's is done too, a few seconds later (Simulation.step asks; Startup.poll compiles
            # it here if that process failed).
            self.model_stage = self._stage(MODEL_STAGE, CROWD_STAGE)
            compile_view()
            self._start_background(headless)  # (on the core the drawing leaves: the round's chain is the longest)
            self.model_stage.wait_until(lambda: MODEL_STAGE in self.done_stages)
            # The window opens: the brush's (then the round's smoothing, in the same process).
            self.paint_stage = self._stage(PAINT_STAGE, SMOOTH_STAGE)
        rehearse_model(self.config, interpreted=True, jps=self.jps, paint=False, crowd=self.ready(CROWD_STAGE))

    def _stage(self, *names: str) -> Background:
        """A process compiling ``names`` in turn."""
        args = [*config_args(self.config_path), *jps_args(self.jps), *stage_args(list(names))]
        return Background("sim.prepare", args, log=self._heard)

    def _start_background(self, headless: bool) -> None:
        args = config_args(self.config_path) + jps_args(self.jps) + (["--round-only"] if headless else [])
        self._stage_started = time.perf_counter()
        self.background = Background("sim.prepare", args, log=self._heard)

    _stage_started = 0.0

    def _heard(self, line: str) -> None:
        """A child's line: a stage it finished ("  compiled WHAT in N s"), passed on to the log."""
        for name, (_work, what) in STAGES.items():
            if line.strip().startswith(f"compiled {what} in "):
                try:
                    self.done_stages[name] = float(line.split(" in ")[-1].split()[0])
                except ValueError:
                    self.done_stages[name] = 0.0
                self._stage_started = time.perf_counter()
        self.log(line)

    def start_landscape(self) -> None:
        """Compile the landscape's kernel in another process (a window's first start)."""
        self.landscape_ready = False
        self.log("compiling the landscape in another process; flat colours until then")
        self.landscape = Background("sim.view.draw.landscape", [], log=self.log)

    def _landscape_over(self) -> bool:
        """Whether the landscape's process has said its kernel is cached (it goes on with the paths
        view's) or has ended (one that failed leaves the landscape to this process)."""
        assert self.landscape is not None
        return self.landscape.ready or self.landscape.done

    def poll(self) -> list[str]:
        """What became ready since the last poll: ``"landscape"`` once its process is over with it
        (:meth:`_landscape_over`)."""
        news = []
        if not self.landscape_ready and self.landscape is not None and self._landscape_over():
            self.landscape_ready = True
            news.append("landscape")
        return news

    def ensure(self, stage: str, report: Callable[..., None] = lambda *_: None) -> None:
        """Make ``stage`` ready in this process, compiling it here if the cache lacks it (say, the
        round with JPS when a map that chooses JPS is loaded), or waiting for the process that
        compiles it (the brush's, ``paint``, on a window's first start): ``report(label, None,
        seconds)`` says so first."""
        if stage == PAINT_STAGE:
            self._ensure_paint(report)
            return
        if stage != "jps-round":
            raise ValueError(f"only the round with JPS and the brush's kernels are made ready on demand, not {stage!r}")
        if not runs_without_compiling(lambda: compile_round(self.config, jps=True)):
            seconds = STAGE_SECONDS["jps-round"] + (0 if "jps" in self.done_stages else STAGE_SECONDS["jps"])
            report(f"compiling jump point search (once on this machine: about {seconds:.0f} s)", None)
            compile_round(self.config, jps=True)
        self.here.add(stage)

    def _ensure_paint(self, report: Callable[..., None]) -> None:
        stage = self.paint_stage
        if stage is None or self.ready(PAINT_STAGE):
            return
        eta = max(1.0, STAGE_SECONDS[PAINT_STAGE] * self._pace() + 1.0 - (time.perf_counter() - stage.started))
        report("first start: compiling the brush's kernels (later starts: at once)", None, eta)
        if not stage.wait_ready():  # its process failed: compile here
            rehearse_paint(self.config, self.jps)
        self.here.add(PAINT_STAGE)

    def stop(self) -> None:
        """End every background process (what they cached so far stays cached)."""
        for proc in (self.background, self.model_stage, self.paint_stage, self.landscape):
            if proc is not None:
                proc.stop()


#: The background's stages, in order: the round's (a headless run waits for these), then the rest.
ROUND_STAGES = ["searches", "round"]
#: The stage a first frame waits for (the model's kernels), in a process of its own.
MODEL_STAGE = "model"
#: The crowd's separation: a headless first frame waits for it (its model stage compiles it after
#: the model's); a window's first start compiles it in the model's process after the model's, while
#: the window already runs (its animals keep their distance from then on: the window opens ~2 s
#: sooner; before 2026-12-07 it was compiled in the window's process before the window opened).
CROWD_STAGE = "crowd"
#: The round's smoothing (the birds' paths), compiled ahead of the round's process, which then loads
#: it: first in a headless first start's model stage, after the brush's kernels in a window's brush
#: stage (the round's chain is the one a first start waits for; the other core has room).
SMOOTH_STAGE = "smooth"
#: The brush's stage: a window's first start compiles it once the window opens, and its first
#: stroke waits for it (a headless run never paints).
PAINT_STAGE = "paint"
#: The stages a process says :data:`READY` right after (what its parent waits for), going on with
#: the stages after them: the round's, and the brush's (a window's brush stage then compiles the
#: round's smoothing, which the round's process, busy with the batch search meanwhile, then loads).
READY_AFTER = (ROUND_STAGES[-1], PAINT_STAGE)
REST_STAGES = ["rest", "jps", "jps-round", "jps+", "traces"]
#: The rest's last stages, compiled one after the other in one process: each is small beside the
#: others (together 226 MB at most, measured 2026-12-05), and a process of its own costs ~0.8 CPU s
#: to start and to load what the stages before it cached (the three apart: 6.4 CPU s, together 4.9).
SHARED_STAGES = ("jps-round", "jps+", "traces")
#: Stages that share a process where they come in a row: the round's two, the batch search and the
#: round (at most 277 MB; the round need not wait for a second process to start and load the batch
#: search, the longest chain of a headless first start: 2026-12-06), and :data:`SHARED_STAGES`.
#: (The round's and the rest's shared one before: with the batch search too, 320 MB.)
PROCESS_GROUPS = (tuple(ROUND_STAGES), SHARED_STAGES)


def processes(stages: list[str] | tuple[str, ...]) -> list[list[str]]:
    """``stages`` in order, a list a process: one each, but for a group of :data:`PROCESS_GROUPS`,
    whose stages share one where they come in a row, in the group's order."""
    out: list[list[str]] = []
    for stage in stages:
        if out and any(_follows(group, out[-1][-1], stage) for group in PROCESS_GROUPS):
            out[-1].append(stage)
        else:
            out.append([stage])
    return out


def _follows(group: tuple[str, ...], before: str, stage: str) -> bool:
    """Whether ``stage`` comes right after ``before`` in ``group``."""
    return before in group and stage in group and group.index(stage) == group.index(before) + 1


#: Every child process started by :func:`spawn` in this process (ended at exit: :func:`stop_all`).
_CHILDREN: list[subprocess.Popen] = []
_SPAWN_LOCK = threading.Lock()


def spawn(cmd: list[str], **popen: object) -> subprocess.Popen:
    """Start a child that ctrl+C does not reach: SIGINT is ignored in it from its first
    instruction (set before the exec, so no import of its can be interrupted into a
    traceback). The terminal's ctrl+C goes to this process, which ends its children when it
    exits (:func:`stop_all`, at exit); killed without that chance, it still takes them along:
    each child ends with it (:mod:`sim.support.lifeline`, from the child's first import of ``sim``)."""
    env = dict(popen.pop("env", None) or os.environ)  # type: ignore[call-overload]
    popen["env"] = {**env, PARENT_VAR: str(os.getpid())}
    with _SPAWN_LOCK:
        if threading.current_thread() is threading.main_thread():
            # Blocked while the disposition is switched, so a ctrl+C now waits for us, not lost.
            signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
            old = signal.signal(signal.SIGINT, signal.SIG_IGN)
            try:
                proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, **popen)  # type: ignore[call-overload]
            finally:
                signal.signal(signal.SIGINT, old)
                signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
        else:  # signal.signal works in the main thread only: set it in the child, before the exec
            ignore = lambda: signal.signal(signal.SIGINT, signal.SIG_IGN)  # noqa: E731
            proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, preexec_fn=ignore, **popen)  # type: ignore[call-overload]
        _CHILDREN.append(proc)
        return proc


def stop_all(procs: list[subprocess.Popen] | None = None) -> None:
    """End ``procs`` (default: every child :func:`spawn` started) that still run: all are
    told at once, then waited for (a stage ends its own child on SIGTERM)."""
    procs = list(_CHILDREN if procs is None else procs)
    for proc in procs:
        if proc.poll() is None:
            proc.terminate()
    for proc in procs:
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


atexit.register(stop_all)


def jps_args(jps: bool) -> list[str]:
    """``python -m sim.prepare``'s arguments for a start map whose round searches with JPS."""
    return ["--jps"] if jps else []


def stage_args(stages: list[str]) -> list[str]:
    """``python -m sim.prepare``'s arguments to compile ``stages`` in turn in one process."""
    return [arg for stage in stages for arg in ("--stage", stage)]


def config_args(config_path: object | None) -> list[str]:
    return [] if config_path is None else ["--config", str(config_path)]


def compile_rest(config: Config, jps: bool = False) -> None:
    """The engine's public kernels but JPS (``sim.pathfinding.warm_up``: single searches,
    distance fields, smoothing), and the crowd's threaded pass (for the first crowd of thousands:
    until it is ready, the separation's threads wait at Python's barrier)."""
    warm_up(("astar",))
    sim = rehearsal(config, jps)
    if sim is not None:
        sim.compile_crowd()


def compile_jps(config: Config, jps: bool = False) -> None:
    """The engine's JPS searches, single and batched (the compare mode's)."""
    warm_up(("jps",), fields=False)


def compile_jps_round(config: Config, jps: bool = False) -> None:
    """The model's round with JPS (for a map that chooses it, loaded later) unless the round
    already has it. (A stage of its own: with the JPS searches, one process took 294 MB.)"""
    if not jps:
        compile_searches(config, True)
        compile_round(config, jps=True)


def compile_jps_plus(config: Config, jps: bool = False) -> None:
    """The engine's JPS+ searches (the compare mode's JPS+ panel)."""
    warm_up(("jps+",), fields=False)


def compile_traces(config: Config, jps: bool = False) -> None:
    """The search views' traced rounds."""
    sim = rehearsal(config, jps)
    if sim is not None:
        sim.observer = _Tracing()
        for _ in range(8):
            sim.step(0.5)


#: The stages of a first start's compiling: name -> (what it compiles, what it is called).
#: Each runs in a process of its own (compiling several in one takes it past 300 MB, and
#: what one process compiled, the next loads from numba's cache), but for :data:`PROCESS_GROUPS`.
#: A stage's function takes the config and whether the start map's round searches with JPS.
STAGES: dict[str, tuple[Callable[[Config, bool], object], str]] = {
    "model": (_model_stage, "the model's other kernels"),
    "crowd": (compile_crowd, "the crowd's separation"),
    "paint": (rehearse_paint, "the brush's kernels"),
    "smooth": (compile_smoothing, "the smoothing of straight paths"),
    "searches": (compile_searches, "the engine's batch search"),
    "round": (lambda c, jps: compile_round(c, jps=jps), "the search round"),
    "rest": (compile_rest, "the rest of the engine (single searches, distance fields), the crowd's threads"),
    "jps": (compile_jps, "jump point search"),
    "jps-round": (compile_jps_round, "the search round with jump point search"),
    "jps+": (compile_jps_plus, "jump point search with jump tables (JPS+)"),
    "traces": (compile_traces, "the search views' traced rounds"),
}


def main(argv: list[str] | None = None) -> int:
    """``python -m sim.prepare [--config PATH] [--jps] [--round-only | --stage NAME ...]``: compile
    into numba's cache, one stage (:data:`STAGES`) a process (:func:`processes`), printing
    :data:`READY` once the round is cached; ``--stage`` (more than once: each in turn) compiles
    those stages in this process, printing :data:`READY` right after the round's or the brush's
    when one of them is there (:data:`READY_AFTER`; then going on with any after it), else after
    the last; ``--jps``: the
    start map's round searches with JPS (a species' choice).
    Bad input is one line on stderr and exit status 2; a stage that failed is one line from
    this process (the others still run) and exit status 1."""
    from sim.config import ConfigError, load_config
    from sim.support.checks import OneLineParser
    from sim.support.resources import default_config_path

    ap = OneLineParser(prog="python -m sim.prepare", description="Compile kernels into numba's cache.")
    ap.add_argument("--config", help="settings file (its species decide the kernels' types)")
    ap.add_argument("--round-only", action="store_true", help="only what the model's frames need")
    ap.add_argument("--stage", choices=list(STAGES), action="append",
                    help="a stage only, in this process (given more than once: each in turn)")  # fmt: skip
    ap.add_argument("--jps", action="store_true", help="the start map's round searches with JPS (its 'search')")
    args = ap.parse_args(argv)
    try:
        config = load_config(args.config or default_config_path())  # checked here, before any child starts
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    set_first_use("wait")  # a stage compiles on purpose: never an interpreted answer instead
    if args.stage:  # (it ends with its parent: sim.support.lifeline, from its first import)
        ready = False
        for name in args.stage:
            t0 = time.perf_counter()
            work, what = STAGES[name]
            work(config, args.jps)
            print(f"  compiled {what} in {time.perf_counter() - t0:.1f} s", flush=True)
            if name in READY_AFTER and not ready:  # what a run waits for: said at once, then on
                print(READY, flush=True)
                ready = True
        if not ready:
            print(READY, flush=True)
        return 0
    return _run_stages(args)


def _ended(_signum: int, _frame: object) -> None:
    """SIGTERM: exit (stop_all ends the stage's process at exit). A second one, say to the whole
    process group after the demo's own, is ignored: it would break into that clean-up with a traceback."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    sys.exit(1)


def _run_stages(args: argparse.Namespace) -> int:
    """The round after its batch search; then the rest, a process each (:func:`processes`). A
    stage whose process failed is reported in one line and compiled by the next one that needs it
    (or by the demo)."""
    signal.signal(signal.SIGTERM, _ended)  # ended by the demo: stop_all at exit
    failed = 0
    stages = (*ROUND_STAGES, *(() if args.round_only else REST_STAGES))
    for group in processes(stages):
        cmd = [sys.executable, "-m", "sim.prepare", *config_args(args.config), *jps_args(args.jps), *stage_args(group)]
        proc = spawn(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        err = _drained(proc.stderr)
        assert proc.stdout is not None
        for line in proc.stdout:  # passed on as they come: the round's "ready" before the rest is compiled
            line = line.rstrip("\n")
            if line and (line != READY or "round" in group):
                print(line, flush=True)
        proc.wait()
        if proc.returncode != 0:
            failed += 1
            last = next((line for line in reversed(err()) if line.strip()), "no message")
            which = f"stage '{group[0]}'" if len(group) == 1 else "stages '" + "', '".join(group) + "'"
            print(f"error: compiling {which} failed (exit {proc.returncode}): {short_line(last)}",
                  file=sys.stderr, flush=True)  # fmt: skip
    return 1 if failed else 0


def _drained(stream: IO[str] | None) -> Callable[[], list[str]]:
    """Read ``stream`` to its end in a thread (a child blocks once a pipe nobody reads is full);
    returns a function that waits for the end and gives its lines."""
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(stream or ()), daemon=True, name="prepare-stderr")
    reader.start()

    def result() -> list[str]:
        reader.join()
        return [line.rstrip("\n") for line in lines]

    return result


def short_line(text: str, limit: int = 200) -> str:
    """One line of at most ``limit`` characters (the middle cut out)."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit // 2 - 1] + " … " + text[-(limit // 2 - 2) :]


class _Tracing(SearchObserver):
    """An observer that asks for traces, as the search views do."""

    wants_trace = True


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:  # a user's ctrl+C in the terminal (the demo's children ignore it)
        sys.exit(130)
