"""Search workspaces: the per-cell buffers a search needs, one set per thread, shared by every grid.

A workspace is sized for the largest grid it has served (in padded cells) and serves any
grid up to that size, whichever species or caller it belongs to: ``g`` (float64),
``parent`` (one byte: a direction) and ``mark`` (uint16 generation stamps), 11 bytes
per cell, plus a heap and a path buffer that grow on demand. Each thread has its own,
so batches can run on all cores without sharing anything.

The per-cell buffers are memory of their own (:func:`sparse_array`): only the pages
searches touch are resident, and every ``FORGET_EVERY`` searches they are given back.
"""

from __future__ import annotations

import mmap
import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from operator import attrgetter
from typing import Any, NamedTuple, TypeVar

import numpy as np

from sim.pathfinding.addresses import SIZE, index_of, index_one
from sim.pathfinding.buckets import BUCKET_SLOTS
from sim.pathfinding.checks import MAX_THREADS, _short
from sim.pathfinding.common import _ENTRIES_FULL, STAT_HEAP_GROWS
from sim.pathfinding.kernel import MAX_GEN, grown_buckets

T = TypeVar("T")


class Buffers(NamedTuple):
    """A workspace's buffers as one record, for compiled code (:meth:`Workspace.buffers`): what a
    search reads and writes per cell, its open list, its stamps. A compiled caller hands back the
    record it got (the open list may have grown, the stamps moved on): :meth:`Workspace.adopt`."""

    g: np.ndarray  # float64 per padded cell (or int64 pairs on the bucket queue)
    parent: np.ndarray  # uint8 per padded cell: the direction of the step into it
    jump_parent: np.ndarray  # int64, two a cell: JPS's jump points (empty until JPS is used)
    mark: np.ndarray  # uint16 per padded cell: generation stamps
    gen: int
    heap: tuple[np.ndarray, np.ndarray]  # (keys, cells)
    buckets: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]  # the bucket queue's tables
    hgen: int
    stats: np.ndarray  # int64 counters: compactions, heap growths


def _indexed(slot: str, first: int, doc: str) -> Any:
    """A :class:`Workspace` array (or tuple of arrays: ``heap``, ``buckets``) kept in its attribute
    ``slot`` and in its index from entry ``first`` (:data:`.addresses.FIELDS`). Setting it writes the
    entries first, all or none (a refused array raises ``ValueError`` and nothing is kept), and only
    for arrays not there already (compiled callers hand the same arrays back in a new tuple), so the
    index never points at an array the workspace has let go. Read as a plain attribute (``attrgetter``).
    (A property; typed ``Any`` so that the class's annotation where it is used gives its type.)"""

    def put(ws: Workspace, value: np.ndarray | tuple[np.ndarray, ...]) -> None:
        arrays = value if isinstance(value, tuple) else (value,)
        old = getattr(ws, slot)
        if _changed(arrays, old if isinstance(old, tuple) else (old,)):
            ws._write_entries(first, *arrays)
        setattr(ws, slot, value)

    return property(attrgetter(slot), put, doc=doc)


class Workspace:
    """One thread's search buffers. ``gen`` stamps the current search's marks."""

    def __init__(self) -> None:
        self.cells = 0
        self._g = np.empty(0, dtype=np.float64)
        self._parent = np.empty(0, dtype=np.uint8)
        self._mark = np.zeros(0, dtype=np.uint16)
        self._jump_parent = np.empty(0, dtype=np.int64)  # JPS only (g and links, jps.record_views): made on first use
        self.gen = 0
        self._heap = (np.empty(1024, dtype=np.float64), np.empty(1024, dtype=np.int32))
        # The bucket queue of uniform grids (see kernel.bucket_core): key heap, int32 and int64 tables, cell stacks.
        slots = BUCKET_SLOTS
        self._buckets = (
            np.empty(slots // 2, np.float64),
            np.zeros((5, slots), np.int32),
            np.empty((3, slots), np.int64),
            np.empty((2, 1024), np.int32),
        )
        self.hgen = 0
        # Short paths, (x, y) rows, one after another (kernel.search_one writes from path_at): a
        # result's path is a view of its rows, not a copy (~0.3 µs of a 3 µs call). A new block
        # is begun when one is full; a kept view keeps its block (PATH_ROWS rows, 8 KiB) alive.
        self._path = np.empty((PATH_ROWS, 2), dtype=np.int32)
        self.path_at = 0
        self._stats = np.zeros(4, dtype=np.int64)  # kernel counters: compactions, heap growths
        #: The arrays above as ``kernel.search_one`` takes them: their addresses (:mod:`.addresses`).
        self.index = np.zeros(SIZE, dtype=np.int64)
        self._write_index()

    def _write_index(self) -> None:
        index_of((self._g, self._parent, self._jump_parent, self._mark, *self._heap, *self._buckets, self._stats,
                  self._path), self.index)  # fmt: skip

    def _write_entries(self, first: int, *arrays: np.ndarray) -> None:
        """Write the index's entries from the ``first``-th (:data:`.addresses.FIELDS`) for ``arrays``:
        all or none (an array refused raises ``ValueError``, and the setters call this before they
        keep anything, so the workspace stays as it was)."""
        index = self.index.copy()
        for k, a in enumerate(arrays, first):
            index_one(k, a, index)
        self.index[:] = index  # (in place: callers may hold the array)

    # The arrays compiled code reads through the index: setting one writes its entries first (:func:`_indexed`).
    g: np.ndarray = _indexed("_g", 0, "float64 per padded cell (or int64 pairs on the bucket queue): costs so far.")
    parent: np.ndarray = _indexed("_parent", 1, "uint8 per padded cell: the direction of the step into it.")
    jump_parent: np.ndarray = _indexed("_jump_parent", 2, "int64, two a cell: JPS's jump points (empty until used).")
    mark: np.ndarray = _indexed("_mark", 3, "uint16 per padded cell: generation stamps.")
    heap: tuple[np.ndarray, np.ndarray] = _indexed("_heap", 4, "The heap's keys (float64) and cells (int32).")
    buckets: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] = _indexed(
        "_buckets", 6, "The bucket queue's four tables (see ``kernel.bucket_core``)."
    )
    stats: np.ndarray = _indexed("_stats", 10, "int64 kernel counters: compactions, heap growths.")
    path: np.ndarray = _indexed("_path", 11, "The block of short paths: int32 ``(PATH_ROWS, 2)``, ``(x, y)`` rows.")

    def ensure(self, cells: int, jps: bool = False) -> None:
        """Make room for a grid of ``cells`` padded cells (never shrinks); ``jps`` needs 16 more bytes a cell."""
        if jps and self._jump_parent.size < 2 * max(cells, self.cells):
            self.jump_parent = sparse_array(2 * max(cells, self.cells), np.int64)
        if cells > self.cells:
            self.g = sparse_array(cells, np.float64)
            self.parent = sparse_array(cells, np.uint8)
            self.mark = sparse_array(cells, np.uint16)
            self.gen = 0
            self.cells = cells

    def grow_open_list(self, status: int, buckets: bool) -> None:
        """Twice the room for a search's open list after its kernel said it was full (``status``,
        ``kernel.search_one``'s; ``buckets``: the search used the bucket queue). Its search
        starts again (with a new stamp), so nothing in the old arrays is kept."""
        self.stats[STAT_HEAP_GROWS] += 1
        if buckets:
            self.buckets = grown_buckets(self.buckets, status == _ENTRIES_FULL)
        else:
            self.heap = (np.empty(2 * self.heap[0].size, np.float64), np.empty(2 * self.heap[1].size, np.int32))

    def stamp(self, cells: int, jps: bool) -> int:
        """:meth:`ensure` (only when the buffers are short) and :meth:`next_gen` in one call."""
        if cells > self.cells or (jps and self._jump_parent.size < 2 * cells):
            self.ensure(cells, jps)
        gen = self.gen + 1  # (next_gen written out: a call less, ~0.1 µs of every search)
        if gen + _RESTARTS >= FORGET_EVERY:
            self.forget()
            gen = 1
        self.gen = gen
        return gen

    def next_gen(self) -> int:
        """A fresh stamp for one search (the buffers are forgotten every ``FORGET_EVERY`` stamps)."""
        self.room_for(1)
        self.gen += 1
        return self.gen

    def buffers(self) -> Buffers:
        """The buffers as one record for compiled code (see :class:`Buffers`)."""
        return Buffers(self._g, self._parent, self._jump_parent, self._mark, self.gen, self._heap, self._buckets,
                       self.hgen, self._stats)  # fmt: skip

    def adopt(self, buffers: Buffers) -> None:
        """Keep what compiled code handed back: the open list as it grew, the stamps as they moved."""
        self.gen, self.heap, self.buckets, self.hgen = buffers.gen, buffers.heap, buffers.buckets, buffers.hgen

    def room_for(self, searches: int) -> None:
        """Make sure ``searches`` more searches get stamps without the kernel clearing the
        marks itself: every :data:`FORGET_EVERY` stamps, :meth:`forget` everything first.
        (A batch larger than the stamps, ~32,000 searches, still clears them in the kernel.)"""
        if self.gen > 0 and self.gen + searches + _RESTARTS >= FORGET_EVERY:
            self.forget()

    def forget(self) -> None:
        """Start the stamps over with every per-cell buffer back to untouched zero pages.

        Clearing ``mark`` by writing would make all of it resident; giving the pages back
        is as quick and also returns what past searches touched (``g`` and ``parent`` mean
        nothing once no mark points at them), so a workspace holds at most what one
        cycle of stamps touched, not the whole map."""
        for a in (self._g, self._parent, self._mark, self._jump_parent):
            if not _release(a):
                a.fill(0)
        self.gen = 0

    @property
    def nbytes(self) -> int:
        arrays = (self._g, self._parent, self._mark, self._jump_parent, *self._heap, *self._buckets, self._path)
        return sum(a.nbytes for a in arrays)


#: Rows of a block of paths (:attr:`Workspace.path`; 8 KiB), and the longest path kept in one as
#: a result's (a view: a block holds at least 32 of them). A longer path is copied out of the block
#: where it fits, else written into an array of its own (a second compiled call, ~0.3 µs more).
PATH_ROWS = 1024
SHORT_PATH = 32
_PRIVATE = hasattr(mmap, "MAP_ANONYMOUS") and hasattr(mmap, "MAP_PRIVATE")
_RESTARTS = 64  # stamps a search may take beyond its own: one per restart with a larger open list
#: Stamps between two :meth:`Workspace.forget` calls (at most ``MAX_GEN``). Searches
#: wandering over a big map touch more and more of its pages; forgetting them this often
#: keeps what stays resident to what a few thousand searches touch, and costs only the
#: page faults of touching them again (~0.5 µs a page, a few per search).
FORGET_EVERY = min(8192, MAX_GEN)


def _changed(new: tuple[np.ndarray, ...], old: tuple[np.ndarray, ...]) -> bool:
    """Whether ``new`` holds another array than ``old`` anywhere."""
    return len(new) != len(old) or any(a is not b for a, b in zip(new, old, strict=False))


def _release(a: np.ndarray) -> bool:
    """Give ``a``'s pages back (they read as zeros again); False when that is not possible here."""
    pages = a.base.obj if isinstance(a.base, memoryview) else a.base
    # Only private anonymous pages are sure to read as zeros once given back.
    if a.size == 0 or not isinstance(pages, mmap.mmap) or not _PRIVATE or not hasattr(mmap, "MADV_DONTNEED"):
        return False
    pages.madvise(mmap.MADV_DONTNEED)
    return True


def sparse_array(n: int, dtype: type) -> np.ndarray:
    """``n`` zeros of ``dtype`` in memory of their own whose pages become resident only where
    written, 4 KiB at a time.

    A search touches a few pages of a map-sized buffer. numpy backs large arrays with
    2 MiB huge pages (it asks the kernel for them), so each search in a new part of a
    big map made 2 MiB resident, and a 2048x2048 workspace ended up whole in memory
    (~45 MB) after a few dozen searches. An anonymous map without huge pages keeps only
    what was touched (and is zero without being written, which ``mark`` relies on).
    """
    size = max(1, n * np.dtype(dtype).itemsize)
    # Unix: private memory (not shared), so pages given back read as zeros.
    pages = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS) if _PRIVATE else mmap.mmap(-1, size)
    if hasattr(mmap, "MADV_NOHUGEPAGE"):  # Linux; elsewhere pages are small already
        pages.madvise(mmap.MADV_NOHUGEPAGE)
    return np.frombuffer(pages, dtype=dtype, count=n)


_local = threading.local()
_pool: ThreadPoolExecutor | None = None
_pool_size = 0
_threads = 0  # 0: as many as the machine has cores


def workspace() -> Workspace:
    """This thread's workspace."""
    try:
        return _local.workspace  # (~0.1 µs less than getattr with a default)
    except AttributeError:
        ws = _local.workspace = Workspace()
        return ws


def set_threads(n: int) -> None:
    """How many threads large batches are split across (0: the machine's cores)."""
    global _threads
    if not isinstance(n, int) or isinstance(n, bool) or not 0 <= n <= MAX_THREADS:
        raise ValueError(f"threads must be a whole number from 0 to {MAX_THREADS} (0: every core), got {_short(n)}")
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


def run_split(fn: Callable[..., T], parts: list[tuple], threads: int) -> list[T]:
    """``fn(*part)`` for every part, answers in order: all but the last on :func:`pool`'s
    ``threads - 1`` workers, the last on this thread, which would otherwise only wait (handing
    it over as well costs one more wake-up, tens of µs on a busy machine). At most
    ``threads`` parts run at once, this thread included."""
    if threads <= 1:
        return [fn(*part) for part in parts]
    jobs = [pool(threads - 1).submit(fn, *part) for part in parts[:-1]]
    last = [fn(*parts[-1])] if parts else []
    return [*(job.result() for job in jobs), *last]
