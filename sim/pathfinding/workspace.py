"""Search workspaces: the per-cell buffers a search needs, one set per thread, shared by every grid.

A workspace is sized for the largest grid it has served (in padded cells) and serves any
grid up to that size, whichever species or caller it belongs to: ``g`` (float64),
``parent`` (one byte: a direction) and ``mark`` (uint16 generation stamps), 11 bytes
per cell, plus a heap and a path buffer that grow on demand. Each thread has its own,
so batches can run on all cores without sharing anything.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from .kernel import MAX_GEN


class Workspace:
    """One thread's search buffers. ``gen`` stamps the current search's marks."""

    def __init__(self) -> None:
        self.cells = 0
        self.g = np.empty(0, dtype=np.float64)
        self.parent = np.empty(0, dtype=np.uint8)
        self.mark = np.zeros(0, dtype=np.uint16)
        self.jump_parent = np.empty(0, dtype=np.int32)  # JPS only: allocated on its first use
        self.gen = 0
        self.heap = (np.empty(1024, dtype=np.float64), np.empty(1024, dtype=np.int32))
        # The bucket queue of uniform grids (see buckets.py): key heap, int32 and int64 tables, cell stacks.
        slots = 1024
        self.buckets = (
            np.empty(slots // 2, np.float64),
            np.zeros((5, slots), np.int32),
            np.empty((3, slots), np.int64),
            np.empty((2, 1024), np.int32),
        )
        self.hgen = 0
        self.path = np.empty(256, dtype=np.int32)
        self.stats = np.zeros(4, dtype=np.int64)  # kernel counters: compactions, heap growths

    def ensure(self, cells: int, jps: bool = False) -> None:
        """Make room for a grid of ``cells`` padded cells (never shrinks); ``jps`` needs 4 more bytes a cell."""
        if jps and self.jump_parent.size < max(cells, self.cells):
            self.jump_parent = np.empty(max(cells, self.cells), dtype=np.int32)
        if cells > self.cells:
            # np.empty / np.zeros map pages lazily: only the cells searches touch become resident.
            self.g = np.empty(cells, dtype=np.float64)
            self.parent = np.empty(cells, dtype=np.uint8)
            self.mark = np.zeros(cells, dtype=np.uint16)
            self.gen = 0
            self.cells = cells

    def next_gen(self) -> int:
        """A fresh stamp for one search; the marks are cleared when the stamps run out."""
        self.gen += 1
        if self.gen >= MAX_GEN:
            self.mark.fill(0)
            self.gen = 1
        return self.gen

    @property
    def nbytes(self) -> int:
        arrays = (self.g, self.parent, self.mark, self.jump_parent, *self.heap, *self.buckets, self.path)
        return sum(a.nbytes for a in arrays)


_local = threading.local()
_pool: ThreadPoolExecutor | None = None
_pool_size = 0
_threads = 0  # 0: as many as the machine has cores


def workspace() -> Workspace:
    """This thread's workspace."""
    ws = getattr(_local, "workspace", None)
    if ws is None:
        ws = _local.workspace = Workspace()
    return ws


def set_threads(n: int) -> None:
    """How many threads large batches are split across (0: the machine's cores)."""
    global _threads
    if not isinstance(n, int) or isinstance(n, bool) or n < 0:
        raise ValueError(f"threads must be a whole number >= 0 (0: every core), got {n!r}")
    _threads = n


_CORES = os.cpu_count() or 1


def thread_count() -> int:
    """The threads a batch may use now."""
    return _threads or _CORES


def pool(n: int) -> ThreadPoolExecutor:
    """A pool of ``n`` worker threads (kept for the next batch)."""
    global _pool, _pool_size
    if _pool is None or _pool_size != n:
        if _pool is not None:
            _pool.shutdown(wait=True)
        _pool = ThreadPoolExecutor(max_workers=n, thread_name_prefix="astar")
        _pool_size = n
    return _pool
