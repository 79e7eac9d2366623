"""A barrier for compiled code on threads: the parts of a pass wait for each other without
going back to Python between its steps.

A wait spins on a shared counter for about :data:`SPIN_CYCLES` processor cycles (the other
part is usually a few µs behind), then sleeps in the kernel on a futex until the last part to
arrive wakes it. Spinning alone is fast on an idle machine but holds a core that a busy
machine's other work (or the partner itself) needs; sleeping alone costs a wake-up of tens of µs
at every step (``threading.Barrier`` also takes the GIL back each time: ~50 µs a wait here).
Measured on the separation at 100,000 animals (bench/RESULTS.md, 2026-12-05): ~0.2 ms a frame
less than four ``threading.Barrier`` waits on an idle machine, and the same with both cores busy.

The workers that run a pass's other parts stay in compiled code between passes, asleep in
:func:`await_release` until the caller's :func:`release` starts the next: handing a part to a
thread through Python's pool (its queue, a lock, the GIL) cost ~80 µs a pass here, a futex
wake-up a few µs (~60 when the woken core has slept through a busy frame).

Linux on x86-64 only (:data:`AVAILABLE`): the futex is a system call whose number differs by
processor, and the cycle counter is the processor's. Elsewhere the callers keep Python's
barrier. Not for general use: the waits assume every party arrives.
"""

from __future__ import annotations

import os
import platform
import sys
import threading
import time

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

#: Whether :func:`arrive_and_wait` may be called here.
AVAILABLE = sys.platform.startswith("linux") and platform.machine() == "x86_64"
#: How long a wait spins before it sleeps, in processor cycles (~25 µs at 4 GHz; 600,000
#: measured no better on an idle machine and worse on a busy one).
SPIN_CYCLES = 100_000

_SYS_FUTEX = 202  # x86-64
_FUTEX_WAIT_PRIVATE, _FUTEX_WAKE_PRIVATE = 128, 129
_WORD = 8  # the futex word's place in the state, in int64s (its own cache line)
_GO = 2 * _WORD  # the go word (how many passes the workers were told to run), on a line of its own
_STOP = _GO + 1  # set (with a last release) when the workers are to return


def barrier_state() -> np.ndarray:
    """A new barrier's shared state (the arrivals; on lines of their own the futex word and
    the workers' go word with the stop flag)."""
    return np.zeros(3 * _WORD, np.int64)


@intrinsic
def _add(typingctx, address, value):
    """Atomically add ``value`` to the int64 at ``address``; returns the value before."""
    sig = types.int64(types.intp, types.int64)

    def codegen(context, builder, signature, args):
        ptr = builder.inttoptr(args[0], ir.IntType(64).as_pointer())
        return builder.atomic_rmw("add", ptr, args[1], "seq_cst")

    return sig, codegen


@intrinsic
def _load(typingctx, address):
    """Atomically load the int64 at ``address``."""
    sig = types.int64(types.intp)

    def codegen(context, builder, signature, args):
        ptr = builder.inttoptr(args[0], ir.IntType(64).as_pointer())
        return builder.load_atomic(ptr, "seq_cst", 8)

    return sig, codegen


@intrinsic
def _futex(typingctx, address, op, value):
    """``syscall(SYS_futex, address, op, value, NULL, NULL, 0)`` on the int32 at ``address``."""
    sig = types.int64(types.intp, types.int64, types.int64)

    def codegen(context, builder, signature, args):
        i64 = ir.IntType(64)
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(i64, [i64], var_arg=True), "syscall")
        null = ir.Constant(i64, 0)
        return builder.call(fn, [ir.Constant(i64, _SYS_FUTEX), args[0], args[1], args[2], null, null, null])

    return sig, codegen


@intrinsic
def _cycles(typingctx):
    """The processor's cycle counter."""
    sig = types.int64()

    def codegen(context, builder, signature, args):
        fn = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.IntType(64), []), "llvm.readcyclecounter"
        )
        return builder.call(fn, [])

    return sig, codegen


@njit(cache=True, nogil=True)
def arrive(state, target):
    """Arrive at a barrier without waiting (see :func:`arrive_and_wait`); the last to arrive
    wakes the sleepers. Returns whether this arrival was the last."""
    count = state.ctypes.data
    if _add(count, 1) + 1 < target:
        return False
    word = count + _WORD * 8  # (the futex reads the low 32 bits: little-endian)
    _add(word, 1)
    _futex(word, _FUTEX_WAKE_PRIVATE, 2147483647)
    return True


@njit(cache=True, nogil=True)
def arrive_and_wait(state, target):
    """Arrive at a barrier and return once ``target`` arrivals in all have been counted in
    ``state`` (from :func:`barrier_state`, zeroed by :func:`release`): with ``parts`` parties,
    the k-th wait of a pass (from 1) has ``target = k * parts``. The last to arrive wakes the
    sleepers. Only where :data:`AVAILABLE`."""
    if arrive(state, target):
        return
    count = state.ctypes.data
    word = count + _WORD * 8
    t0 = _cycles()
    while _load(count) < target:
        if _cycles() - t0 > SPIN_CYCLES:
            seen = _load(word) & 0xFFFFFFFF
            if _load(count) >= target:
                break
            # Sleeps only while the word is still ``seen``: a wake between the two loads above
            # changed it, so the call returns at once (no lost wake-up).
            _futex(word, _FUTEX_WAIT_PRIVATE, seen)


@njit(cache=True, nogil=True)
def release(state):
    """Start a pass: zero the arrivals and wake the workers sleeping in :func:`await_release`.
    Call it only when no party of the last pass is still waiting (the caller waited for all)."""
    state[0] = 0
    go = state.ctypes.data + _GO * 8
    _add(go, 1)
    _futex(go, _FUTEX_WAKE_PRIVATE, 2147483647)


@njit(cache=True, nogil=True)
def await_release(state, seen):
    """A worker's wait for the next pass: sleeps (no spin: passes come a frame apart) until the go
    word is no longer ``seen`` (its value at the worker's last pass, or at its start); returns
    the new value, or -1 when the worker is to return (:func:`stop`)."""
    go = state.ctypes.data + _GO * 8
    while True:
        now = _load(go)
        if now != seen:
            return -1 if state[_STOP] else now
        _futex(go, _FUTEX_WAIT_PRIVATE, now & 0xFFFFFFFF)


@njit(cache=True, nogil=True)
def _volley(state, trips, side):
    """``trips`` hand-overs of the int64 ``state[0]`` between two threads (``side`` 0 and 1),
    each waiting for the other's increment; returns the cycles it took (-1: the partner never
    answered within ~10**11 cycles: ~40 s)."""
    word = state.ctypes.data
    t0 = _cycles()
    for i in range(trips):
        if side == 0:
            _add(word, 1)
        want = 2 * i + 2 - side  # (side 0 waits for the answer to its own increment)
        while _load(word) != want:
            if _cycles() - t0 > 100_000_000_000:
                return -1
        if side == 1:
            _add(word, 1)
    return _cycles() - t0


def round_trip_ns(trips: int = 100_000) -> float | None:
    """How long one cache line takes to go from one core to another and back here, in ns (the
    median of three volleys of ``trips`` hand-overs, the two threads pinned to the first two cores
    this process may use); None where :data:`AVAILABLE` is false or there is one core.

    What every hand-over between the parts of a threaded pass pays: two cores that share a
    last-level cache answer in ~50 ns; on a virtual machine whose two cores the host has put
    under different caches (an AMD EPYC's core complexes), ~320 ns, and a pass whose parts
    read what the other wrote runs ~1.6x as long (docs/performance.md)."""
    if isinstance(trips, bool) or not isinstance(trips, int):
        raise TypeError(f"trips must be an int, got {trips!r}")
    if trips < 1:
        raise ValueError(f"trips must be at least 1, got {trips}")
    cpus = sorted(os.sched_getaffinity(0)) if AVAILABLE else []
    if len(cpus) < 2:
        return None
    state = np.zeros(8, np.int64)

    def answer() -> None:
        os.sched_setaffinity(0, {cpus[1]})  # (this thread only)
        _volley(state, trips, 1)

    _volley(state, 0, 0)  # (compiled, or loaded from the cache, before anything is timed)
    own = os.sched_getaffinity(0)
    times: list[float] = []
    try:
        os.sched_setaffinity(0, {cpus[0]})
        for _ in range(3):
            state[0] = 0
            other = threading.Thread(target=answer, daemon=True)
            other.start()
            t0 = time.perf_counter_ns()
            cycles = _volley(state, trips, 0)
            t1 = time.perf_counter_ns()
            other.join()
            if cycles < 0:
                return None
            times.append((t1 - t0) / trips)
    finally:
        os.sched_setaffinity(0, own)
    return sorted(times)[1]


def go_word(state: np.ndarray) -> int:
    """The go word now: a new worker's ``seen`` (see :func:`await_release`)."""
    return int(state[_GO])


def stop(state: np.ndarray) -> None:
    """Tell the workers waiting on ``state`` to return (then join their threads; zero ``state``
    before new workers wait on it)."""
    state[_STOP] = 1
    release(state)
