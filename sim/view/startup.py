"""The start: the compiled kernels loaded, or on a machine's first start compiled in another
process while the window already runs (see :mod:`sim.prepare`). One line per phase, with
seconds, goes to the terminal."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from sim.prepare import Background, config_args, jps_args, kernels_cached, rehearse_model, runs_without_compiling
from sim.simulation import Simulation
from sim.view.draw import landscape
from sim.view.draw.panels import GOOD
from sim.view.draw.render import rehearse_view
from sim.view.progress import run_with_progress

if TYPE_CHECKING:
    from sim.view.context import ViewContext


def say(line: str) -> None:
    """One line on the terminal about what the program is doing (stderr: a headless run's
    figures stay alone on stdout)."""
    print(f"astar-island: {line}", file=sys.stderr, flush=True)


class Startup:
    """Gets the kernels ready for ``app``: loaded when cached (a second or so). On a first
    start another process compiles the search round, then the rest (:mod:`sim.prepare`),
    while this one compiles the frames' other kernels (the model's small ones, the
    drawing's) behind a progress screen, then runs with the interpreted search until
    :meth:`poll` sees the round cached. A headless run waits for the round instead: its
    figures and checksum are the compiled kernels' own."""

    def __init__(self, app: ViewContext, headless: bool, config_path: Path | None, jps: bool = False) -> None:
        self.app = app
        self.headless = headless
        self.jps = jps  # the start map's round searches with JPS (a species' choice, its 'search')
        self.started = time.perf_counter()
        self.prep: Background | None = None
        self.art = True  # the landscape's kernel is loaded (else the terrain is flat until it is)
        self.art_prep: Background | None = None
        if headless:
            self._load_or_start(config_path)
        else:
            label = "preparing the drawing (a first start compiles it: a few seconds)"
            run_with_progress(app, label, lambda _report: self._load_or_start(config_path), 0.3)

    def _load_or_start(self, config_path: Path | None) -> None:
        config, screen = self.app.config, self.app.screen
        if not kernels_cached(config, self.jps):
            say("first start on this machine: compiling the search kernels in another process "
                "(numba caches them; later starts take about a second)")  # fmt: skip
            args = config_args(config_path) + jps_args(self.jps) + (["--round-only"] if self.headless else [])
            self.prep = Background("sim.prepare", args, log=say)
            model = Background("sim.prepare", [*config_args(config_path), *jps_args(self.jps), "--stage", "model"],
                               log=say)  # fmt: skip
            # Meanwhile, here: the drawing's kernels; then the model's, loaded once the other
            # process has them (or compiled here if it failed).
            self._view(config, screen)
            model.wait_ready()
            rehearse_model(config, interpreted=True, jps=self.jps)
        else:
            self._view(config, screen)
        if not self.art and self.prep is None:
            self._start_art()

    def _view(self, config, screen) -> None:
        """The drawing's kernels loaded (or, on a first start, compiled); a window shows flat
        terrain until another process has compiled the landscape."""
        if not self.headless:
            self.art = runs_without_compiling(landscape.rehearse)
        rehearse_view(config, screen, self.art)

    def _start_art(self) -> None:
        say("compiling the landscape in another process; flat colours until then")
        self.art_prep = Background("sim.view.draw.landscape", [], log=say)

    def seconds(self) -> float:
        return time.perf_counter() - self.started

    def begin(self, sim: Simulation) -> None:
        """The simulation exists: a headless run waits for the round, a window interprets meanwhile."""
        if self.prep is None:
            return
        if self.headless:
            self.prep.wait_ready()
            say(f"search round compiled: running ({self.seconds():.1f} s since the start)")
        else:
            sim.planner.interpreted = True
            # Until the background is done (its "jps-round" stage), a map that chooses JPS searches with A*
            # (see Planner.jps_ready).
            sim.planner.jps_ready = self.jps

    def status(self, sim: Simulation) -> str:
        """The status bar's word while the kernels compile in the background ("" otherwise)."""
        if self.prep is None or not sim.planner.interpreted:
            return ""
        return f"compiling the search kernels ({self.seconds():.0f} s; searches in plain Python meanwhile)"

    def window_ready(self) -> None:
        if self.prep is not None and not self.prep.ready:
            say(f"window ready after {self.seconds():.1f} s; until the kernels are compiled, "
                "the animals search with the interpreted A* (fewer a frame)")  # fmt: skip

    def poll(self, sim: Simulation) -> None:
        """Once the background has the round cached, searches switch to the compiled kernels and
        the landscape is compiled (beside the background's later stages: waiting for all of them
        kept the flat colours for ~60 s), and drawn once it is."""
        if not self.art and self.art_prep is None and (self.prep is None or self.prep.ready or self.prep.done):
            self._start_art()
        if not self.art and self.art_prep is not None and self.art_prep.done:
            self.art = True
            self.app.view.terrain.set_art(True)
            say(f"landscape ready after {self.seconds():.1f} s")
        prep = self.prep
        if prep is not None and prep.done and not sim.planner.jps_ready:
            sim.planner.jps_ready = True  # the round with JPS is cached (or compiles here, if the child failed)
        if prep is None or not sim.planner.interpreted or not (prep.ready or prep.done):
            return
        sim.planner.interpreted = False
        if prep.ready:
            say(f"search kernels ready after {self.seconds():.1f} s: full speed")
            self.app.message(f"search kernels compiled ({self.seconds():.0f} s, cached for later starts): full speed",
                             GOOD)  # fmt: skip
        else:  # the child failed: compile here, behind a progress screen
            say("compiling in another process failed; compiling here")
            self.app.files.long_work("compiling the search kernel",
                                     lambda _r: rehearse_model(self.app.config, jps=self.jps))  # fmt: skip

