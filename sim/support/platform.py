"""What differs between operating systems, in one place (no Unix-only import elsewhere)."""

from __future__ import annotations

import os
import sys


def usable_cores() -> int:
    """The cores this process may run on: its CPU affinity where the platform has one (Linux: a
    container or ``taskset`` may allow fewer than the machine has), else every core."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def peak_rss_mb() -> float | None:
    """This process's peak resident memory in MB, or ``None`` where the platform does not say."""
    try:
        import resource  # Unix only
    except ImportError:
        return _windows_peak_mb()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 2**20 if sys.platform == "darwin" else peak / 1024.0  # bytes on macOS, KB elsewhere


def resident_split_mb() -> tuple[float, float] | None:
    """This process's resident memory now, in MB, as ``(anonymous, file-backed)``, or ``None``
    where the platform does not say (Linux only). File-backed pages are mostly the shared
    libraries' code (numba's LLVM alone is ~180 MB on disk): how much of it counts as resident
    depends on what the kernel's page cache holds, not on this program."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            fields = dict(line.split(":", 1) for line in f if ":" in line)
        return int(fields["RssAnon"].split()[0]) / 1024.0, int(fields["RssFile"].split()[0]) / 1024.0
    except (OSError, KeyError, ValueError):
        return None


def _windows_peak_mb() -> float | None:
    if sys.platform != "win32":
        return None
    try:
        import ctypes
        from ctypes import wintypes

        class Counters(ctypes.Structure):
            _fields_ = [
                ("cb", wintypes.DWORD),
                ("PageFaultCount", wintypes.DWORD),
                ("PeakWorkingSetSize", ctypes.c_size_t),
                ("WorkingSetSize", ctypes.c_size_t),
                ("QuotaPeakPagedPoolUsage", ctypes.c_size_t),
                ("QuotaPagedPoolUsage", ctypes.c_size_t),
                ("QuotaPeakNonPagedPoolUsage", ctypes.c_size_t),
                ("QuotaNonPagedPoolUsage", ctypes.c_size_t),
                ("PagefileUsage", ctypes.c_size_t),
                ("PeakPagefileUsage", ctypes.c_size_t),
            ]

        counters = Counters()
        counters.cb = ctypes.sizeof(Counters)
        process = ctypes.windll.kernel32.GetCurrentProcess()
        if not ctypes.windll.psapi.GetProcessMemoryInfo(process, ctypes.byref(counters), counters.cb):
            return None
        return counters.PeakWorkingSetSize / 2**20
    except (OSError, AttributeError):
        return None
