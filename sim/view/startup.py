"""The start: the compiled kernels loaded, or on a machine's first start compiled in other
processes while the window already runs. What is compiled and ready is :class:`sim.prepare.Kernels`'
business; this shows it: one line per phase, with seconds, on the terminal, a progress screen
while the drawing's kernels compile, the status bar's stage and estimate, a message when the
compiled search takes over."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from sim.pathfinding import runs_without_compiling
from sim.prepare import CROWD_STAGE, PAINT_STAGE, Kernels, compile_crowd, rehearse_model
from sim.simulation import Simulation
from sim.support.platform import usable_cores
from sim.view.draw import landscape
from sim.view.draw.panels import GOOD
from sim.view.draw.render import rehearse_view
from sim.view.messages import say
from sim.view.progress import run_with_progress

if TYPE_CHECKING:
    from sim.view.context import ViewContext

#: The frame rate at most while a first start compiles what the window waits for (the search round,
#: the brush's kernels, the landscape) on a machine of at most :data:`FEW_CORES` cores, where those
#: processes and the window's outnumber the cores: the window's frames took ~45 % of a core at 144
#: FPS (their searches interpreted), ~13 % at 30, and the compiling gets the rest. On the 2-core
#: development machine (2026-12-07) the compiled search was ready after a median 27.0 s instead of
#: 30.0 (five runs each), the brush's kernels after 5.2-6.6 s of compiling instead of 6.5-8.7.
COMPILING_FPS = 30
#: Up to this many cores (the brush's stage, the round's and the window's processes: three), the
#: window makes room for the compiling (:data:`COMPILING_FPS`).
FEW_CORES = 3
_CORES = usable_cores()


class Startup:
    """Gets the kernels ready for ``app`` through its :class:`~sim.prepare.Kernels`: loaded when
    cached (a second or so). On a first start other processes compile the search round, then
    the rest, while this one compiles the frames' other kernels (the model's small ones, the
    drawing's) behind a progress screen, then runs with the interpreted search until the
    round is ready. A headless run waits for the round instead: its figures and checksum are
    the compiled kernels' own."""

    def __init__(self, app: ViewContext, headless: bool, config_path: Path | None, jps: bool = False) -> None:
        self.app = app
        self.headless = headless
        self.kernels = Kernels(app.config, config_path, jps)
        self.kernels.log = say
        self._switched = False  # the compiled search took over (said once)
        if headless:
            self.kernels.start(True, lambda: rehearse_view(app.config, app.screen, True))
        else:
            label = "loading the compiled kernels"  # (a first start's report says what it compiles, how long)
            run_with_progress(app, label, lambda report: self.kernels.start(False, self._view, report), 0.3)
            if not self.kernels.ready("landscape") and self.kernels.background is None:
                self.kernels.start_landscape()
        # The crowd's separation ready from the start, or (a window's first start) once said so.
        self._crowd = self.kernels.ready(CROWD_STAGE)

    @property
    def art(self) -> bool:
        """Whether the landscape's kernel is loaded (else the terrain is flat until it is)."""
        return self.kernels.ready("landscape")

    def _view(self) -> None:
        """The drawing's kernels loaded (or, on a first start, compiled); a window shows flat
        terrain until another process has compiled the landscape."""
        self.kernels.landscape_ready = runs_without_compiling(landscape.rehearse)
        rehearse_view(self.app.config, self.app.screen, self.kernels.landscape_ready)

    def seconds(self) -> float:
        return self.kernels.seconds()

    def begin(self, sim: Simulation) -> None:
        """The simulation exists: it asks the kernels what is ready; a headless run waits for the round."""
        sim.planner.kernels = self.kernels
        if self.kernels.background is not None and self.headless:
            self.kernels.background.wait_ready()
            self._switched = True  # compiled from the first frame: nothing to switch, nothing to say
            say(f"search round compiled: running ({self.seconds():.1f} s since the start)")

    def status(self, sim: Simulation) -> str:
        """The status bar's words while the kernels compile in the background ("" otherwise)."""
        return self.kernels.status()

    def fps_cap(self, configured: int, cores: int | None = None) -> int:
        """The frame rate at most for the next frame: ``configured`` (the config's ``fps_cap``, 0:
        none), but :data:`COMPILING_FPS` while a first start still compiles what the window waits
        for on a machine of ``cores`` (default: this one's) up to :data:`FEW_CORES`, so that the
        compiling gets the cores."""
        if (cores or _CORES) > FEW_CORES or not self.kernels.compiling("round", "landscape", PAINT_STAGE):
            return configured
        return COMPILING_FPS if configured <= 0 else min(configured, COMPILING_FPS)

    def window_ready(self) -> None:
        if not self.kernels.ready("round"):
            overlap = "" if self.kernels.ready(CROWD_STAGE) else " and may overlap"
            say(f"window ready after {self.seconds():.1f} s; until the kernels are compiled, "
                f"the animals search with the interpreted A* (fewer a frame){overlap}")  # fmt: skip

    def poll(self, sim: Simulation) -> None:
        """Once the round is ready, searches are compiled (they ask the kernels each round) and the
        landscape is compiled (beside the background's later stages: waiting for all of them kept
        the flat colours for ~60 s), and drawn once it is."""
        k = self.kernels
        bg = k.background
        if not self._crowd:  # (a window's first start: the separation compiles while it runs)
            if not k.ready(CROWD_STAGE) and k.model_stage is not None and k.model_stage.done:  # (its process failed)
                say("compiling the crowd's separation in another process failed; compiling here")
                config = self.app.config
                self.app.files.long_work("compiling the crowd's separation", lambda _r: compile_crowd(config, k.jps))
                k.here.add(CROWD_STAGE)
            if k.ready(CROWD_STAGE):
                self._crowd = True
                say(f"the crowd's separation ready after {self.seconds():.1f} s: the animals keep their distance")
        if not k.ready("landscape") and k.landscape is None and (bg is None or bg.ready or bg.done):
            k.start_landscape()
        if "landscape" in k.poll():
            self.app.view.terrain.set_art(True)
            say(f"landscape ready after {self.seconds():.1f} s")
        if self._switched or bg is None or not (bg.ready or bg.done):
            return
        self._switched = True
        if bg.ready:
            say(f"search kernels ready after {self.seconds():.1f} s: full speed")
            self.app.message(f"search kernels compiled ({self.seconds():.0f} s, cached for later starts): full speed",
                             GOOD)  # fmt: skip
        else:  # the child failed: compile here, behind a progress screen
            say("compiling in another process failed; compiling here")
            self.app.files.long_work("compiling the search kernel",
                                     lambda _r: rehearse_model(self.app.config, jps=k.jps))  # fmt: skip
            k.here.update({"round", "jps-round"})
