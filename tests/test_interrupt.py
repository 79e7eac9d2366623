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
from tests.helpers import wait_for

HOLD = '''
import os, sys, select
_at, _who, _log = os.environ["HOLD_AT"], os.environ["HOLD_WHO"], os.environ["HOLD_LOG"]
with open("/proc/self/cmdline", "rb") as f:
    _cmd = f.read().replace(b"\\0", b" ").decode()
_cache = os.environ.get("NUMBA_CACHE_DIR", "\\0")
_held = False

def _hold(event, args):
    global _held
    if _held:
        return
    if event == "import":
        hit = _at == "import " + str(args[0])
    elif event == "open":
        hit = _at == "cache write" and str(args[0]).startswith(_cache) and "w" in str(args[1] or "")
    else:
        return
    if hit and _who in _cmd:
        _held = True
        fd = os.open(_log, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
        os.write(fd, ("held %d\\n" % os.getpid()).encode())
        os.close(fd)
        select.select([], [], [])  # until a signal: SIGINT raises here, if the process lets it

sys.addaudithook(_hold)
'''


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
    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(HOLD)
    log = tmp_path / "held.log"
    env = {**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy",
           "NUMBA_CACHE_DIR": str(tmp_path / "cache"),  # a first start: nothing is cached
           "PYTHONPATH": os.pathsep.join(filter(None, [str(hook), os.environ.get("PYTHONPATH")])),
           "HOLD_AT": at, "HOLD_WHO": who, "HOLD_LOG": str(log)}  # fmt: skip

    def terminal_like() -> None:  # ctrl+C not ignored, as in a terminal
        signal.signal(signal.SIGINT, signal.SIG_DFL)

    demo = subprocess.Popen([sys.executable, "main.py", "--headless", "--frames", "60"], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                            preexec_fn=terminal_like)  # fmt: skip
    try:
        wait_for(lambda: (log.exists() and log.read_text().startswith("held")) or demo.poll() is not None,
                 f"{who} held at {at}")  # fmt: skip
        assert demo.poll() is None, demo.communicate()[1][-2000:]
        family = family_of(demo.pid)
        os.killpg(demo.pid, signal.SIGINT)  # what ctrl+C in a terminal does: the whole group
        _out, err = demo.communicate(timeout=120)
        assert "Traceback" not in err, err[-3000:]
        assert demo.returncode == 130, err[-2000:]
        assert err.strip().splitlines()[-1] == "astar-island: interrupted"
        _gone, alive = psutil.wait_procs(family[1:], timeout=120)
        assert not alive, [p.cmdline() for p in alive]
    finally:
        for p in family_of(demo.pid):
            p.kill()


def test_ctrl_c_in_a_window_first_start_ends_every_process_with_one_line(tmp_path):
    """The window (SDL's dummy driver) while its children compile: the same one line."""
    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(HOLD)
    log = tmp_path / "held.log"
    env = {**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy",
           "NUMBA_CACHE_DIR": str(tmp_path / "cache"),
           "PYTHONPATH": os.pathsep.join(filter(None, [str(hook), os.environ.get("PYTHONPATH")])),
           "HOLD_AT": "import numba", "HOLD_WHO": "--stage model", "HOLD_LOG": str(log)}  # fmt: skip
    demo = subprocess.Popen([sys.executable, "main.py"], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))  # fmt: skip
    try:
        wait_for(lambda: (log.exists() and log.read_text().startswith("held")) or demo.poll() is not None, "held")
        assert demo.poll() is None, demo.communicate()[1][-2000:]
        family = family_of(demo.pid)
        os.killpg(demo.pid, signal.SIGINT)
        _out, err = demo.communicate(timeout=120)
        assert demo.returncode == 130 and "Traceback" not in err, err[-3000:]
        assert err.strip().splitlines()[-1] == "astar-island: interrupted"
        _gone, alive = psutil.wait_procs(family[1:], timeout=120)
        assert not alive
    finally:
        for p in family_of(demo.pid):
            p.kill()


def test_a_compiling_stage_ends_when_its_parent_is_killed(tmp_path):
    """Killed without a chance to clean up (SIGKILL), the parent leaves no stage compiling."""
    env = {**os.environ, "SDL_VIDEODRIVER": "dummy", "NUMBA_CACHE_DIR": str(tmp_path)}
    parent = subprocess.Popen([sys.executable, "-m", "sim.prepare"], cwd=ROOT, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    try:
        stage: list[psutil.Process] = []

        def started() -> bool:
            stage[:] = [p for p in psutil.Process(parent.pid).children() if "--stage" in " ".join(p.cmdline())]
            return bool(stage)

        wait_for(started, "the first stage started")
        parent.kill()
        parent.wait()
        _gone, alive = psutil.wait_procs(stage, timeout=120)
        assert not alive, "the stage kept compiling after its parent was killed"
    finally:
        parent.kill()
