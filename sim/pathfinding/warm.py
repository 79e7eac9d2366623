"""A first search that does not wait for the compiler.

numba compiles a kernel the first time it runs on a machine (5-20 s for the A* and JPS kernels)
and caches it; later processes load it in a fraction of a second. So that a library user's
first call does not sit silently for that long, the first search of each kind of kernel in a
process is *tried* with compiling forbidden (:func:`attempt`): if the kernel is cached, that
is the answer; if it is not, the kernel is compiled by another process in the background
(``python -m sim.pathfinding.warming KIND``, into numba's cache) and meanwhile searches are
answered by the engine's plain-Python search (:mod:`.interpreted`: the same costs and rules,
so the same optimal cost; for JPS, the A* path of that cost, and ``expanded`` counts A*'s
nodes), said once through :mod:`warnings`. Once the background process is done, the next
search loads the compiled kernel.

:func:`set_first_use` chooses: ``"answer"`` (the default, above) or ``"wait"`` (compile in
this process, as numba does by itself: the same answers from the first call on, which a
program that must repeat exactly, or a test, wants). The demo compiles its own way
(``sim.prepare``) and waits.
"""

from __future__ import annotations

import atexit
import os
import subprocess
import sys
import threading
import warnings
from collections.abc import Callable
from typing import TypeVar

import numpy as np
from numba.core import event

T = TypeVar("T")
POLICIES = ("answer", "wait")
#: Set in the background process's environment: it compiles, it never starts another.
WARMING_VAR = "SIM_PATHFINDING_WARMING"
_policy = "wait" if os.environ.get(WARMING_VAR) else "answer"
_ready: set[tuple] = set()  # kernel kinds known to run without compiling in this process
READY = _ready  # (read by the search's fast path; only ever added to)
_compiling: dict[tuple, subprocess.Popen | None] = {}  # kinds a background process compiles
_warned: set[tuple] = set()
_lock = threading.Lock()


class WouldCompile(Exception):
    """Raised inside numba when a kernel about to run is not compiled (see :func:`attempt`)."""


class _NoCompiling(event.Listener):
    """Stops a compile that starts on one thread (other threads compile as they like)."""

    def __init__(self) -> None:
        self.thread = threading.get_ident()

    def on_start(self, ev: event.Event) -> None:
        if threading.get_ident() == self.thread:
            raise WouldCompile

    def on_end(self, ev: event.Event) -> None:
        pass


def runs_without_compiling(work: Callable[[], object]) -> bool:
    """Run ``work``, loading compiled kernels from numba's cache; stop (False) at the first
    one it would have to compile."""
    try:
        with event.install_listener("numba:compile", _NoCompiling()):
            work()
    except WouldCompile:
        return False
    return True


def set_first_use(policy: str) -> None:
    """``"answer"``: a search whose kernel is not compiled yet is answered by the plain-Python
    search while another process compiles it; ``"wait"``: it compiles here first."""
    global _policy
    if policy not in POLICIES:
        raise ValueError(f"policy must be one of {', '.join(map(repr, POLICIES))}, got {policy!r}")
    _policy = policy


def first_use() -> str:
    return _policy


class waiting:
    """``with waiting():`` the policy is ``"wait"`` inside (what compiles kernels on purpose uses it)."""

    def __enter__(self) -> None:
        self._was = _policy
        set_first_use("wait")

    def __exit__(self, *exc: object) -> None:
        set_first_use(self._was)


def attempt(kind: tuple, compiled: Callable[[], T]) -> tuple[bool, T | None]:
    """``compiled()`` if the kernels of ``kind`` run without compiling here (or the policy is
    ``"wait"``): ``(True, its answer)``. Else ``(False, None)``, and ``kind`` is being compiled
    in the background: the caller answers another way."""
    if kind in _ready or _policy == "wait":
        out = compiled()
        _ready.add(kind)
        return True, out
    with _lock:
        proc = _compiling.get(kind)
        if proc is not None and proc.poll() is None:
            return False, None  # still compiling
    found: list[T] = []
    if runs_without_compiling(lambda: found.append(compiled())):
        _ready.add(kind)
        return True, found[0]
    with _lock:
        proc = _compiling.get(kind)
        if proc is not None and proc.poll() is not None:
            # Done, yet still not loadable (the cache cannot be written here): compile in this process.
            _compiling.pop(kind)
            _ready.add(kind)
            return True, compiled()
        if kind not in _compiling:
            _compiling[kind] = _start(kind)
    if kind not in _warned:
        _warned.add(kind)
        warnings.warn(
            f"sim.pathfinding: the {_name(kind)} kernel is not compiled on this machine yet; another process "
            "compiles it (once: 5-20 s) and searches are answered by the plain-Python search meanwhile "
            "(same optimal costs); set_first_use('wait') compiles here instead",
            RuntimeWarning,
            stacklevel=_callers_level(),
        )
    return False, None


_PACKAGE = os.path.dirname(os.path.abspath(__file__))


def _callers_level() -> int:
    """The ``stacklevel`` that names the first caller outside the engine (the user's line)."""
    frame, level = sys._getframe(1), 1
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE):
        frame, level = frame.f_back, level + 1  # type: ignore[assignment]
    return level


def _name(kind: tuple) -> str:
    return {"none": "A*", "bits": "jump point search", "table": "JPS+", "landmarks": "landmarks' A*"}.get(
        kind[1], str(kind)
    )


def _start(kind: tuple) -> subprocess.Popen | None:
    """``python -m sim.pathfinding.warming`` for ``kind``, or None when no process can be started."""
    entry, data, codes = kind
    try:
        return subprocess.Popen(
            [sys.executable, "-m", "sim.pathfinding.warming", entry, data, codes],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            env={**os.environ, "PYTHONWARNINGS": "ignore", WARMING_VAR: "1"},
        )  # fmt: skip
    except OSError:
        return None


@atexit.register
def _leave_compiling() -> None:
    """At exit, leave the background compiles running (they fill the cache for the next process),
    on purpose: without Python's "ResourceWarning: subprocess N is still running", which a user's
    script printed at its end when its first search had been answered while a kernel compiled.
    (``Popen`` has no "detach"; a return code set by hand is what stops its warning. The process,
    orphaned, is reaped by the system when it ends.)"""
    if not _lock.acquire(timeout=1.0):  # (never hang an exit on a thread that holds it)
        return
    try:
        for proc in _compiling.values():
            if proc is not None and proc.poll() is None:
                proc.returncode = 0
    finally:
        _lock.release()


def wait_for_background(timeout: float | None = None) -> None:
    """Wait until every background compile started so far has ended (tests, benchmarks)."""
    for proc in list(_compiling.values()):
        if proc is not None:
            proc.wait(timeout)


def kind_of(entry: str, blocks: np.ndarray, codes: np.ndarray) -> tuple[str, str, str]:
    """Which compiled kernel a call runs: its entry (``"one"``: a single search, ``"many"``: a
    batch), its grid data (none, JPS's bits, JPS+'s table, the landmarks') and its codes' type."""
    data = ("landmarks" if blocks.dtype == np.float64 else "none" if blocks.dtype != np.uint64
            else "table" if blocks.shape[0] == 1 else "bits")  # fmt: skip
    return entry, data, codes.dtype.str
