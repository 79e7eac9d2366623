"""A monotonic clock compiled code can read (the rounds time each kind's searches with it)."""

from __future__ import annotations

import sys
import time

import numpy as np
from numba import njit, objmode, types

__all__ = ["monotonic_s"]

if hasattr(time, "CLOCK_MONOTONIC") and sys.platform != "win32":
    # Called by name, so numba can cache the code that calls it (a ctypes pointer cannot be).
    _clock_gettime = types.ExternalFunction("clock_gettime", types.int32(types.int32, types.voidptr))
    _MONOTONIC = time.CLOCK_MONOTONIC

    @njit(cache=True, nogil=True)
    def monotonic_s() -> float:
        """A monotonic clock for compiled code, in seconds (from an arbitrary start).

        ``clock_gettime`` directly: no GIL and ~40 ns, where ``objmode``'s
        ``time.perf_counter()`` takes the GIL and, with the caches the drawing left
        cold, cost ~20 µs a reading inside the search rounds it timed."""
        ts = np.empty(2, np.int64)  # struct timespec: seconds, nanoseconds
        _clock_gettime(_MONOTONIC, ts.ctypes.data)
        return ts[0] + ts[1] * 1e-9

else:

    @njit(cache=True)
    def monotonic_s() -> float:
        """A monotonic clock for compiled code, in seconds (from an arbitrary start)."""
        with objmode(t="float64"):
            t = time.perf_counter()
        return t
