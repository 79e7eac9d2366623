"""Many searches on one grid in one compiled call: :class:`BatchResult` and how a batch is run.

A batch runs in the calling thread, or, when it is large, split into contiguous parts
run at once on the worker threads (each with its own workspace; the kernels release
the GIL). Every query's result depends only on the grid and the query, so the results
are identical whatever the number of threads. With a node budget the rule is the
sequential one (queries are taken in order while the expansions so far are below the
budget); threads then work in rounds and the answer is cut where that rule says.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from sim.pathfinding import kernel as _k
from sim.pathfinding.checks import check_index
from sim.pathfinding.compiled import KernelParams
from sim.pathfinding.paths import as_path
from sim.pathfinding.workspace import run_split, workspace

#: Below this many queries a batch stays in one thread (handing work over costs ~50 µs).
MIN_SPLIT = 64


@dataclass(frozen=True)
class BatchResult:
    """The answers to ``search_many``: row ``i`` is query ``i``.

    ``found``, ``cost`` (``inf`` when not found), ``expanded``, ``status`` (one of the
    ``STATUS_*`` codes) and ``hit_limit`` are arrays of one row per query. Paths are one
    flat int32 array of cells ``y * width + x``: query ``i``'s is ``paths[offsets[i]:offsets[i+1]]``,
    the full path when found, else the partial path toward the goal (as
    ``SearchResult.walk_path``). Only the first ``served`` queries were searched (a node
    budget stopped the rest: their status is ``STATUS_NOT_SERVED``).
    """

    found: np.ndarray
    cost: np.ndarray
    expanded: np.ndarray
    status: np.ndarray
    hit_limit: np.ndarray
    paths: np.ndarray
    offsets: np.ndarray
    served: int
    width: int

    @classmethod
    def made(cls, status: np.ndarray, cost: np.ndarray, expanded: np.ndarray, paths: np.ndarray,
             offsets: np.ndarray, served: int, width: int) -> BatchResult:  # fmt: skip
        """A result from a batch's arrays (``found`` and ``hit_limit`` from ``status``), made
        without the frozen ``__init__``'s nine ``object.__setattr__`` calls (~1 µs of a small
        batch's ~18 µs); read-only as ever."""
        result = object.__new__(cls)
        result.__dict__.update(
            found=status == _k.STATUS_FOUND, cost=cost, expanded=expanded, status=status,
            hit_limit=status == _k.STATUS_HIT_LIMIT, paths=paths, offsets=offsets, served=served, width=width,
        )  # fmt: skip
        return result

    def __len__(self) -> int:
        return len(self.found)

    def path(self, i: int) -> NDArray[np.int32]:
        """Query ``i``'s path (full or partial) as an ``(n, 2)`` int32 array of ``(x, y)``; ``i``
        counts from the end when negative, as a list's index does."""
        k = len(self.found)
        i = check_index("i", i, k, "query", f"the batch of {k} queries")
        return as_path(self.paths[self.offsets[i] : self.offsets[i + 1]], self.width)

    @classmethod
    def of(cls, results: list, width: int) -> BatchResult:
        """A batch made of single ``SearchResult``s (for searches the kernel cannot run)."""
        status = np.array(
            [_k.STATUS_FOUND if r.found else _k.STATUS_HIT_LIMIT if r.hit_limit else
             _k.STATUS_UNREACHABLE if r.expanded else _k.STATUS_BLOCKED for r in results], dtype=np.int8,
        )  # fmt: skip
        walks = [(r.walk_path[:, 1] * width + r.walk_path[:, 0]).astype(np.int32) for r in results]
        offsets = np.concatenate(([0], np.cumsum([len(w) for w in walks]))).astype(np.int64)
        return cls(
            status == _k.STATUS_FOUND, np.array([r.cost for r in results], dtype=np.float64),
            np.array([r.expanded for r in results], dtype=np.int64), status, status == _k.STATUS_HIT_LIMIT,
            np.concatenate(walks) if walks else np.zeros(0, np.int32), offsets, len(results), width,
        )  # fmt: skip


@dataclass
class Part:
    """One contiguous part of a batch, as the kernel left it."""

    served: int
    status: np.ndarray
    cost: np.ndarray
    expanded: np.ndarray
    offsets: np.ndarray
    paths: np.ndarray
    trace: np.ndarray
    trace_offsets: np.ndarray


def run_part(grid_args: tuple, starts: np.ndarray, goals: np.ndarray, params: KernelParams, node_budget: int,
             trace: bool, cells: int) -> Part:  # fmt: skip
    """Run queries in this thread with its own workspace (the kernel releases the GIL)."""
    ws = workspace()
    ws.ensure(cells, jps=_k.jumps(params.mode))
    ws.room_for(starts.size)
    served, ws.gen, ws.heap, ws.buckets, ws.hgen, status, cost, expanded, offsets, paths, trace_buf, trace_offsets = (
        _k.search_batch(*grid_args, starts, goals, params, node_budget, ws.g, ws.parent, ws.jump_parent, ws.mark,
                        ws.gen, ws.heap, ws.buckets, ws.hgen, trace, ws.stats)
    )  # fmt: skip
    return Part(served, status, cost, expanded, offsets, paths, trace_buf, trace_offsets)


def run_batch(grid_args: tuple, starts: np.ndarray, goals: np.ndarray, params: KernelParams, node_budget: int | None,
              trace: bool, cells: int, threads: int) -> tuple[Part, int]:  # fmt: skip
    """All queries (or those a node budget allows), on ``threads`` threads; returns the
    merged part and how many were served."""
    k = starts.size
    budget = -1 if node_budget is None else node_budget
    if threads <= 1 or k < MIN_SPLIT:
        part = run_part(grid_args, starts, goals, params, budget, trace, cells)
        return part, part.served
    if node_budget is None:
        return _merge(_parallel(grid_args, starts, goals, params, trace, cells, threads)), k
    # Rounds of speculative work, cut where the sequential rule stops taking queries.
    parts, done, spent = [], 0, 0
    round_size = max(MIN_SPLIT, 4 * threads)
    while done < k and spent < node_budget:
        lo, hi = done, min(k, done + round_size)
        merged = _merge(_parallel(grid_args, starts[lo:hi], goals[lo:hi], params, trace, cells, threads))
        before = spent + np.concatenate(([0], np.cumsum(merged.expanded)))[:-1]
        take = int(np.searchsorted(before >= node_budget, True))  # queries started while under budget
        parts.append(_cut(merged, take))
        done += take
        spent += int(merged.expanded[:take].sum())
        if take < hi - lo:
            break
    out = _merge(parts)
    pad = k - out.status.size  # the queries never taken
    return _pad(out, pad), done


def _parallel(grid_args, starts, goals, params, trace, cells, threads) -> list[Part]:
    bounds = np.linspace(0, starts.size, threads + 1).astype(int)
    parts = [(grid_args, starts[a:b], goals[a:b], params, -1, trace, cells)
             for a, b in itertools.pairwise(bounds) if b > a]  # fmt: skip
    return run_split(run_part, parts, threads)


def _merge(parts: list[Part]) -> Part:
    """Parts in order as one part (offsets shifted); no parts is an empty part."""
    if len(parts) == 1:
        return parts[0]
    if not parts:
        zero = np.zeros(1, np.int64)
        empty = np.zeros(0, np.int32)
        return Part(0, np.zeros(0, np.int8), np.zeros(0), np.zeros(0, np.int64), zero, empty, empty, zero)
    offsets, trace_offsets, paths, traces = [np.zeros(1, np.int64)], [np.zeros(1, np.int64)], [], []
    base = tbase = 0
    for p in parts:
        offsets.append(p.offsets[1:] + base)
        trace_offsets.append(p.trace_offsets[1:] + tbase)
        paths.append(p.paths[: p.offsets[-1]])
        traces.append(p.trace[: p.trace_offsets[-1]])
        base += int(p.offsets[-1])
        tbase += int(p.trace_offsets[-1])
    return Part(
        sum(p.served for p in parts),
        np.concatenate([p.status for p in parts]),
        np.concatenate([p.cost for p in parts]),
        np.concatenate([p.expanded for p in parts]),
        np.concatenate(offsets),
        np.concatenate(paths) if paths else np.zeros(0, np.int32),
        np.concatenate(traces) if traces else np.zeros(0, np.int32),
        np.concatenate(trace_offsets),
    )


def _cut(p: Part, n: int) -> Part:
    """The first ``n`` queries of a part."""
    return Part(n, p.status[:n], p.cost[:n], p.expanded[:n], p.offsets[: n + 1], p.paths[: p.offsets[n]],
                p.trace[: p.trace_offsets[n]], p.trace_offsets[: n + 1])  # fmt: skip


def _pad(p: Part, n: int) -> Part:
    """``n`` more queries, not served."""
    if n == 0:
        return p
    return Part(
        p.served,
        np.concatenate((p.status, np.full(n, _k.STATUS_NOT_SERVED, np.int8))),
        np.concatenate((p.cost, np.full(n, np.inf))),
        np.concatenate((p.expanded, np.zeros(n, np.int64))),
        np.concatenate((p.offsets, np.full(n, p.offsets[-1]))),
        p.paths,
        p.trace,
        np.concatenate((p.trace_offsets, np.full(n, p.trace_offsets[-1]))),
    )
