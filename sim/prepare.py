"""Getting the compiled kernels ready without keeping anyone waiting.

numba compiles each kernel the first time it runs on a machine (~25 s of CPU for what
the demo's first frame needs, ~60 s for everything) and caches it; later starts load it
in about a second. On a first start:

* :func:`kernels_cached` finds out, in a fraction of a second, whether the cache
  already holds what the first frames need (a tiny rehearsal that may load kernels but
  stops at the first one it would have to compile);
* :class:`Background` compiles them in other processes (``python -m sim.prepare``),
  printing one line per phase, one process per stage (:data:`STAGES`): one the model's
  round first (its batch search before it), then (unless ``--round-only``) everything
  else (JPS, traced rounds, distance fields, the single-search variants the compare mode
  uses); another (``--stage model``) the model's other kernels, which this process then
  loads (loading takes far less memory than compiling: every process stays under 300 MB);
* meanwhile the window runs with the planner's interpreted search
  (:mod:`sim.pathfinding.interpreted`), and a headless run does the drawing's own
  compiling and waits only for the round.

Nothing here imports pygame.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable

import numpy as np
from numba.core import event

from sim.config import Config
from sim.maps.data import MapData, MapError
from sim.model.agents import State
from sim.model.observe import SearchObserver
from sim.pathfinding import warm_up
from sim.simulation import Simulation
from sim.world.terrain import Terrain

#: The line a child prints when what its parent waits for is compiled and cached.
READY = "ready"


class _WouldCompile(Exception):
    """Raised inside numba when something is not in the cache (see :func:`kernels_cached`)."""


class _NoCompiling(event.Listener):
    def on_start(self, ev: event.Event) -> None:
        raise _WouldCompile

    def on_end(self, ev: event.Event) -> None:
        pass


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


def rehearse_model(config: Config, frames: int = 8, interpreted: bool = False, jps: bool = False) -> Simulation | None:
    """Run the tiny island a few half-second frames, with a paint stroke on a walking animal's
    path: every compiled function a frame of the model uses is compiled (or loaded); with
    ``interpreted``, all but the search round's (which :func:`compile_round` does); ``jps``:
    the round a map that chooses JPS runs (:func:`rehearsal`)."""
    sim = rehearsal(config, jps)
    if sim is None:
        return None
    sim.planner.interpreted = interpreted
    for frame in range(frames):  # the animals rest, ask for paths, walk, get painted over
        if frame == 5:  # rock on a walking animal's path: the re-planning checks run too
            a = sim.agents
            walking = np.flatnonzero((a.state == State.WALKING) & (a.path_len - a.path_pos >= 2))
            cell = int(a.paths[walking[0], a.path_len[walking[0]] - 1]) if walking.size else 4 * sim.world.width + 5
            sim.paint(cell % sim.world.width, cell // sim.world.width, 0, int(Terrain.ROCK))
        sim.step(0.5)
    return sim


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
        result, _trace = sp.astar.search_many(a.cell[mine], a.cell[mine][::-1], threads=1)
        if sp.kind.straight_paths:
            sp.astar.smooth_batch(result)


def compile_round(config: Config, tracing: bool = False, jps: bool = False) -> None:
    """Compile (or load) the search round alone, at once: one round of every animal of the
    tiny island (the compiled code's types are what count, not the values). ``jps``: the
    round with JPS (:func:`rehearsal`)."""
    sim = rehearsal(config, jps)
    if sim is not None:
        a = sim.agents
        a.goal[:] = a.cell[::-1]
        sim.planner.search_rows(np.arange(a.n, dtype=np.int64), tracing)


def kernels_cached(config: Config, jps: bool = False) -> bool:
    """Whether the model's first frames run on kernels already in numba's cache: the
    rehearsal runs, loading what is cached, and stops at the first thing it would compile.
    ``jps``: the first frames search with JPS (the start map chooses it)."""
    return runs_without_compiling(lambda: rehearse_model(config, jps=jps))


def runs_without_compiling(work: Callable[[], object]) -> bool:
    """Run ``work``, loading compiled kernels from numba's cache; stop (False) at the first
    one it would have to compile."""
    listener = _NoCompiling()
    try:
        with event.install_listener("numba:compile", listener):
            work()
    except _WouldCompile:
        return False
    return True


class Background:
    """``python -m MODULE ARGS`` in a child process that compiles into numba's cache (shared
    through the file system) while this process goes on. Its lines go to ``log`` (default:
    this process's stderr) as they come; :attr:`ready` turns true when it prints
    :data:`READY` (what this process waits for is cached; the child may go on with more)."""

    def __init__(self, module: str, args: list[str], log: Callable[[str], None] | None = None) -> None:
        self.started = time.perf_counter()
        self.log = log or (lambda line: print(line, file=sys.stderr, flush=True))
        self.ready = False
        self._done = threading.Event()
        env = {**os.environ, "PYTHONUNBUFFERED": "1", "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"}
        self.proc = subprocess.Popen([sys.executable, "-m", module, *args], stdin=subprocess.DEVNULL,
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)  # fmt: skip
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
        end = None if timeout is None else time.perf_counter() + timeout
        while not self.ready and not self.done:
            if end is not None and time.perf_counter() > end:
                break
            time.sleep(0.02)
        return self.ready

    def stop(self) -> None:
        """End the child if it still runs (what it cached so far stays cached)."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()


def jps_args(jps: bool) -> list[str]:
    """``python -m sim.prepare``'s arguments for a start map whose round searches with JPS."""
    return ["--jps"] if jps else []


def config_args(config_path: object | None) -> list[str]:
    return [] if config_path is None else ["--config", os.fspath(config_path)]  # type: ignore[arg-type]


def compile_rest(config: Config, jps: bool = False) -> None:
    """The engine's public kernels but JPS (``sim.pathfinding.warm_up``: single searches,
    distance fields, smoothing)."""
    warm_up(("astar",))


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
#: what one process compiled, the next loads from numba's cache).
#: A stage's function takes the config and whether the start map's round searches with JPS.
STAGES: dict[str, tuple[Callable[[Config, bool], None], str]] = {
    "model": (lambda c, jps: rehearse_model(c, interpreted=True, jps=jps), "the model's other kernels"),
    "searches": (compile_searches, "the engine's batch search"),
    "round": (lambda c, jps: compile_round(c, jps=jps), "the search round"),
    "rest": (compile_rest, "the rest of the engine (single searches, distance fields)"),
    "jps": (compile_jps, "jump point search"),
    "jps-round": (compile_jps_round, "the search round with jump point search"),
    "jps+": (compile_jps_plus, "jump point search with jump tables (JPS+)"),
    "traces": (compile_traces, "the search views' traced rounds"),
}


def main(argv: list[str] | None = None) -> int:
    """``python -m sim.prepare [--config PATH] [--jps] [--round-only | --stage NAME]``: compile
    into numba's cache, one stage (:data:`STAGES`) a process, printing :data:`READY` once the
    round is cached; ``--jps``: the start map's round searches with JPS (a species' choice)."""
    import argparse

    from sim.config import load_config
    from sim.support.resources import default_config_path

    ap = argparse.ArgumentParser(prog="python -m sim.prepare", description="Compile kernels into numba's cache.")
    ap.add_argument("--config", help="settings file (its species decide the kernels' types)")
    ap.add_argument("--round-only", action="store_true", help="only what the model's frames need")
    ap.add_argument("--stage", choices=list(STAGES), help="one stage only, in this process")
    ap.add_argument("--jps", action="store_true", help="the start map's round searches with JPS (its 'search')")
    args = ap.parse_args(argv)
    if args.stage:
        t0 = time.perf_counter()
        work, what = STAGES[args.stage]
        work(load_config(args.config or default_config_path()), args.jps)
        print(f"  compiled {what} in {time.perf_counter() - t0:.1f} s", flush=True)
        print(READY, flush=True)
        return 0
    # The round after its batch search; then the rest. A stage whose process failed is
    # compiled by the next one that needs it (or by the demo itself).
    running: list[subprocess.Popen] = []

    def end(_signum: int, _frame: object) -> None:  # ended by the demo: the stage's process too
        for proc in running:
            proc.terminate()
        sys.exit(1)

    signal.signal(signal.SIGTERM, end)
    for stage in ("searches", "round", *(() if args.round_only else ("rest", "jps", "jps-round", "jps+", "traces"))):
        cmd = [sys.executable, "-m", "sim.prepare", *config_args(args.config), *jps_args(args.jps), "--stage", stage]
        running[:] = [subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, text=True)]
        out, _err = running[0].communicate()
        for line in out.splitlines():
            if line and (line != READY or stage == "round"):
                print(line, flush=True)
    return 0


class _Tracing(SearchObserver):
    """An observer that asks for traces, as the search views do."""

    wants_trace = True


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:  # ctrl+C in the terminal reaches every process of the demo: end quietly
        sys.exit(130)
