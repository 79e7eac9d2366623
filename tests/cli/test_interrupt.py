"""Ctrl+C at any moment of a first start ends every process with one line and exit 130.

Driven deterministically, never by sleeping and hoping: a ``sitecustomize`` module on
``PYTHONPATH`` holds one chosen process of the demo's family at one chosen moment (an
import, or its first write into numba's cache, i.e. after its imports, compiling), says so
in a file, and waits there; the test waits for that line (however slow the machine is),
then sends SIGINT to the whole process group as a terminal's ctrl+C does.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import psutil
import pytest

from tests.conftest import ROOT
from tests.helpers import Hold


def family_of(pid: int) -> list[psutil.Process]:
    try:
        root = psutil.Process(pid)
        return [root, *root.children(recursive=True)]
    except psutil.NoSuchProcess:
        return []


# (which process, at which moment): the demo itself, the compiling parent, a stage of it, the
# model's stage, before, during and after their imports.
MOMENTS = [
    ("main.py", "import numba"),  # the demo, before its first child exists
    ("main.py", "import sim.simulation"),
    ("main.py", "cache write"),  # the demo compiling the drawing, its children running
    ("--round-only", "import numpy"),  # the compiling parent, at its first imports
    ("--stage searches", "import numba"),  # a stage, in the middle of its imports
    ("--stage model", "import sim.simulation"),
    ("--stage searches", "cache write"),  # a stage, compiling (its imports done)
]


@pytest.mark.parametrize("who, at", MOMENTS)
def test_ctrl_c_at_any_moment_of_a_first_start_ends_every_process_with_one_line(tmp_path, who, at):
    interrupted_while_held(tmp_path, who, at, ["--headless", "--frames", "60"])


@pytest.mark.parametrize("who", ["--stage model", "--stage paint"])
def test_ctrl_c_in_a_window_first_start_ends_every_process_with_one_line(tmp_path, who):
    """The window (SDL's dummy driver) while its children compile (the model's stage, or the
    brush's, which starts once the drawing is compiled): the same one line."""
    interrupted_while_held(tmp_path, who, "import numba", [])


def interrupted_while_held(tmp_path, who: str, at: str, args: list[str]) -> None:
    """``main.py ARGS`` on a first start, ``who`` held at ``at``, then ctrl+C: exit 130, the one
    line last, no traceback from any process, every process of the family ended."""
    env = {**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy",
           "NUMBA_CACHE_DIR": str(tmp_path / "cache")}  # a first start: nothing is cached  # fmt: skip
    hold = Hold(tmp_path, who, at, env)
    # ctrl+C not ignored in it, as in a terminal
    demo = subprocess.Popen([sys.executable, "main.py", *args], cwd=ROOT, env=hold.env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))  # fmt: skip
    try:
        assert hold.wait(demo), f"{who} was never held at {at}: " + demo.communicate()[1][-2000:]
        family = family_of(demo.pid)
        os.killpg(demo.pid, signal.SIGINT)  # what ctrl+C in a terminal does: the whole group
        _out, err = demo.communicate(timeout=600)
        assert "Traceback" not in err, err[-3000:]
        assert demo.returncode == 130, err[-2000:]
        assert err.strip().splitlines()[-1] == "astar-island: interrupted"
        _gone, alive = psutil.wait_procs(family[1:], timeout=600)
        assert not alive, [p.cmdline() for p in alive]
    finally:
        hold.close()
        for p in family_of(demo.pid):
            p.kill()


@pytest.mark.parametrize("at", ["import numba", "cache write"])
def test_a_compiling_stage_ends_when_its_parent_is_killed(tmp_path, at):
    """Killed without a chance to clean up (SIGKILL), the parent leaves no stage compiling: the
    stage, held in the middle of its imports or while it compiles, ends by itself."""
    hold = Hold(tmp_path, "--stage searches", at, {**os.environ, "SDL_VIDEODRIVER": "dummy",
                                                               "NUMBA_CACHE_DIR": str(tmp_path / "cache")})  # fmt: skip
    parent = subprocess.Popen([sys.executable, "-m", "sim.prepare"], cwd=ROOT, env=hold.env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    try:
        assert hold.wait(parent), f"the first stage never got to {at}"
        stage = [p for p in psutil.Process(parent.pid).children() if "--stage" in p.cmdline()]
        parent.kill()
        parent.wait()
        _gone, alive = psutil.wait_procs(stage, timeout=600)
        assert stage and not alive, "the stage kept compiling after its parent was killed"
    finally:
        hold.close()
        parent.kill()
