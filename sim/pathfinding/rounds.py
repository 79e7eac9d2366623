"""Rounds: many searches for several kinds of agent, each on its own grid, in one compiled call.

A game asks for paths for a crowd of several kinds (cows, birds, fish), each kind with its
own cost grid and options (an :class:`~sim.pathfinding.AStar`). :class:`SearchRound` serves
such a round: the requests of every kind, from the check that start and goal lie in one
connected region (known unreachable otherwise: nothing is searched) through the engine's
batch search and, for kinds that want it, paths pulled straight, to the answers in the
round's arrays, as **one** call into compiled code (a large round: one such call per worker
thread; the kernels release the GIL). An answer never depends on the thread that ran it.

>>> import numpy as np
>>> from sim.pathfinding import AStar, RoundKind, SearchRound
>>> terrain = np.zeros((4, 6), dtype=np.uint8)
>>> walker = RoundKind(AStar(terrain, terrain_costs={0: 1.0}), labels=np.ones((4, 6), np.int32))
>>> cells = np.array([[0, 0], [5, 3]], dtype=np.int32)     # (x, y) per request
>>> answers = SearchRound().run([walker], np.zeros(2, np.int64), cells, cells[::-1])
>>> answers.status.tolist(), answers.path_n.tolist()
([0, 0], [6, 6])

Request ``j`` is for kind ``kind_of[j]`` from ``starts[rows[j]]`` to ``goals[rows[j]]``
(``rows`` defaults to ``0 .. k-1``: a caller that keeps its agents' cells in columns hands
the columns and the rows asking, without gathering them first). Its path, as flat cells
``y * width + x``, is ``paths[path_at[j] : path_at[j] + path_n[j]]`` (the partial path
toward the goal when not found); ``status[j]`` is one of the engine's ``STATUS_*``, with
:data:`STATUS_OTHER_REGION` for a request whose goal is in another region. The requests are
checked before anything is searched: a kind, a row or a cell out of range is one exact
``ValueError`` naming the request (``request 1: start (60, 2) is outside the grid ...``).

The arrays the round reads (the kinds' grids, the workspace) cross into compiled code as one
record each (:class:`Buffers` for the workspace); the compiled kinds are kept between rounds
while no kind, option or grid changed (painting is followed through each grid's
:class:`~sim.pathfinding.ChangeCursor`).
"""

from __future__ import annotations

import contextlib
import itertools
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np
from numba import njit
from numpy.typing import NDArray

from sim.pathfinding.astar import AStar, ChangeCursor
from sim.pathfinding.batch import MIN_SPLIT
from sim.pathfinding.checks import _short, as_array, check_index, points_array
from sim.pathfinding.clock import monotonic_s as _now_s
from sim.pathfinding.common import NO_LANDMARKS, STATUS_FOUND, STATUS_OTHER_REGION
from sim.pathfinding.compiled import KernelParams
from sim.pathfinding.field import smooth_all
from sim.pathfinding.interpreted import search_interpreted
from sim.pathfinding.kernel import jumps
from sim.pathfinding.linked import batch_pointer
from sim.pathfinding.workspace import Buffers, run_split, thread_count, workspace

__all__ = ["STATUS_OTHER_REGION", "Buffers", "RoundKind", "RoundResult", "RoundShape", "SearchRound", "gather"]

#: From this many requests (or ``MIN_SPLIT`` of one kind) a round is cut across the threads.
PARALLEL_ROUND = 128


class RoundKind(NamedTuple):
    """One kind of agent in a round: its search (grid and options), its grid's connected
    regions (``labels[y, x]``, 0 where it cannot stand: a request between two regions is
    known unreachable and not searched) and whether its paths are pulled straight (same
    cost, fewer turns: :meth:`~sim.pathfinding.PathGrid.smooth_path`)."""

    astar: AStar
    labels: NDArray[np.integer[Any]]
    straight: bool = False


class RoundShape(NamedTuple):
    """How a round was served: the requests of each compiled round call (one call on one thread,
    or one a thread), or the number of per-kind jobs (kinds with Python hooks or unlike arrays)."""

    calls: tuple[int, ...]
    jobs: int


@dataclass
class RoundResult:
    """A round's answers, row ``j`` for request ``j`` (see the module's docstring)."""

    status: NDArray[np.int8]
    expanded: NDArray[np.int64]
    cost: NDArray[np.float64]  # inf when not found
    paths: NDArray[np.int32]  # flat cells of every path, joined end to end
    path_at: NDArray[np.int64]
    path_n: NDArray[np.int64]
    #: kind index -> (the positions it searched, in order; their expanded cells; offsets), with ``trace``
    traces: dict[int, tuple[NDArray[np.int64], NDArray[np.int32], NDArray[np.int64]]] = field(default_factory=dict)
    kind_ms: dict[int, float] = field(default_factory=dict)  # kind index -> wall ms of its searches
    ms: float = 0.0  # wall ms of the whole round
    shape: RoundShape = field(default_factory=lambda: RoundShape((), 0))

    def path(self, j: int) -> NDArray[np.int32]:
        """Request ``j``'s path as flat cells (``j`` negative: from the end, as a list's index)."""
        k = len(self.status)
        j = check_index("j", j, k, "request", f"the round of {k} requests")
        return self.paths[self.path_at[j] : self.path_at[j] + self.path_n[j]]


class _Compiled(NamedTuple):
    """What the compiled round needs of one kind (by name: a positional tuple once read the wrong
    entry after a field was added, and corrupted memory)."""

    labels: np.ndarray  # its regions
    codes: np.ndarray  # its grid, as the kernels take it (GridArgs) ...
    lut: np.ndarray
    moves: np.ndarray
    padded_width: int
    blocks: np.ndarray
    width: int  # ... and the map's width
    params: KernelParams  # its search's parameters, handed on whole: the kernels unpack them
    straight: bool  # its paths are pulled straight


class SearchRound:
    """Serves rounds of searches (see the module's docstring); keeps what it compiled of the kinds."""

    def __init__(self, threads: int | None = None) -> None:
        #: Threads a large round is cut across (None: :func:`~sim.pathfinding.set_threads`, else every core).
        self.threads = threads
        self.shape = RoundShape((), 0)  # how the last round was served
        self.builds = 0  # how often the kinds were compiled afresh (kept while nothing changed)
        self._kept: tuple[list[object], tuple[_Compiled, ...] | None] | None = None
        self._changes: list[ChangeCursor] = []

    def run(
        self,
        kinds: Sequence[RoundKind],
        kind_of: NDArray[np.integer[Any]],
        starts: NDArray[np.integer[Any]],
        goals: NDArray[np.integer[Any]],
        rows: NDArray[np.int64] | None = None,
        *,
        trace: bool = False,
        jps: bool = True,
        interpreted: bool = False,
    ) -> RoundResult:
        """Search every request (see the module's docstring). ``trace``: every expanded cell too
        (:attr:`RoundResult.traces`). ``jps=False``: kinds that search with JPS use plain A*
        (the same costs; for a caller whose round with JPS is not compiled yet).
        ``interpreted``: each request by the engine's plain-Python search (same costs and rules;
        no traces, paths not pulled straight), for a process whose kernels are still compiling."""
        t0 = time.perf_counter()
        rows, kind_of, starts, goals = _checked(kinds, kind_of, starts, goals, rows)
        if interpreted:
            self.shape = RoundShape((), 0)
            return _interpreted_round(kinds, starts, goals, rows, kind_of, t0)
        threads = self.threads or thread_count()
        k = rows.size
        # A round the threads would not share: too small to pay for handing work over.
        serial = threads == 1 or (k < PARALLEL_ROUND and (k < MIN_SPLIT or np.bincount(kind_of).max() < MIN_SPLIT))
        compiled = self._compiled(kinds, jps)
        if compiled is None:
            return self._by_kind(kinds, rows, kind_of, starts, goals, threads, trace, jps, t0)
        if serial:
            parts = [_part(rows, kind_of, starts, goals, compiled, trace)]
        else:
            bounds = np.linspace(0, k, threads + 1).astype(int)
            parts = run_split(_part, [(rows[lo:hi], kind_of[lo:hi], starts, goals, compiled, trace)
                                      for lo, hi in itertools.pairwise(bounds) if hi > lo], threads)  # fmt: skip
        self.shape = RoundShape(tuple(int(p[0].size) for p in parts), 0)
        return _joined(kind_of, parts, trace, t0, self.shape)

    def prepared(self, kinds: Sequence[RoundKind], jps: bool = True) -> tuple[KernelParams, ...] | None:
        """The parameters each kind's searches run with in a round (see :meth:`run` for ``jps``),
        or None when the kinds are served kind by kind (per-edge Python hooks, or grids whose
        codes or labels differ in type) rather than in the one compiled call."""
        compiled = self._compiled(kinds, jps)
        return None if compiled is None else tuple(k.params for k in compiled)

    # ------------------------------------------------------------------ kinds, compiled
    def _compiled(self, kinds: Sequence[RoundKind], jps: bool) -> tuple[_Compiled, ...] | None:
        """Per kind, what the compiled round needs; None when a kind has per-edge Python hooks, or
        when the kinds' codes or labels differ in type (one compiled call takes the kinds as one
        tuple of like records). Kept while nothing it is built from changes: the kinds and their
        options, the labels arrays, and their grids' terrain (followed with change cursors)."""
        key: list[object] = [jps]  # (flat: a round asks every frame, and a nested key cost ~6 µs more to compare)
        for k in kinds:
            a = k.astar
            key += (a, k.labels, k.straight, a.diagonal, a.heuristic_name, a.max_nodes, a.use_jps)
        painted = [cursor.take() != [] for cursor in self._changes]  # every cursor moves on
        if self._kept is not None and _same(self._kept[0], key) and not any(painted):
            return self._kept[1]
        compiled = _build(kinds, jps)
        self.builds += 1
        self._kept = (key, compiled)
        worlds = {id(k.astar.world): k.astar.world for k in kinds}
        self._changes = [ChangeCursor(w) for w in worlds.values()]
        for cursor in self._changes:
            cursor.take()  # from now on
        return compiled

    def _by_kind(self, kinds: Sequence[RoundKind], rows: np.ndarray, kind_of: np.ndarray, starts: np.ndarray,
                 goals: np.ndarray, threads: int, trace: bool, jps: bool, t0: float) -> RoundResult:  # fmt: skip
        """:meth:`run` for kinds the one call cannot take: a job per kind (:func:`_job`), a
        large kind's requests cut into pieces for the threads."""
        k = rows.size
        if k == 0:  # (also with no kinds at all: nothing to group)
            groups = []
        elif k == 1:
            groups = [(int(kind_of[0]), np.zeros(1, dtype=np.int64))]
        else:  # the positions of each kind, in request order
            order = np.argsort(kind_of, kind="stable")
            ends = np.cumsum(np.bincount(kind_of, minlength=len(kinds))).tolist()
            bounds = zip([0, *ends[:-1]], ends, strict=True)
            groups = [(s, order[lo:hi]) for s, (lo, hi) in enumerate(bounds) if hi > lo]
        jobs = []  # (kind index, positions): a large kind's batch is split across the threads
        for s, pos in groups:
            kinds[s].astar.sync()  # (here, before any thread searches it)
            split = threads if threads > 1 and pos.size >= MIN_SPLIT and not trace else 1
            jobs += [(s, part) for part in (np.array_split(pos, split) if split > 1 else (pos,))]
        out = _Answers.empty(k)
        common = (rows, starts, goals, trace, jps, out)
        self.shape = RoundShape((), len(jobs))
        if threads > 1 and len(jobs) > 1 and (k >= PARALLEL_ROUND or len(jobs) > len(groups)):
            done = run_split(_job, [(kinds[s], pos, *common) for s, pos in jobs], threads)
        else:
            done = [_job(kinds[s], pos, *common) for s, pos in jobs]
        pieces: list[np.ndarray] = []
        traces: dict[int, tuple] = {}
        kind_ms: dict[int, float] = {}
        base = 0
        for (s, _pos), (searched, paths, traced, ms) in zip(jobs, done, strict=True):
            if base:  # each job's paths start at 0 in its own array: place them after the previous ones
                out.path_at[searched] += base
            pieces.append(paths)
            base += paths.size
            kind_ms[s] = kind_ms.get(s, 0.0) + ms
            if traced is not None:
                traces[s] = traced
        paths = pieces[0] if len(pieces) == 1 else np.concatenate(pieces) if pieces else np.zeros(0, np.int32)
        return RoundResult(out.status, out.expanded, out.cost, paths, out.path_at, out.path_n, traces, kind_ms,
                           (time.perf_counter() - t0) * 1000.0, self.shape)  # fmt: skip


def _int_vector(name: str, a: object) -> np.ndarray:
    """``a`` as a 1-D numpy integer array (a list of whole numbers is made one; exact errors otherwise)."""
    if isinstance(a, list | tuple):
        with contextlib.suppress(ValueError):  # (a ragged list stays one, and is refused below)
            a = np.asarray(a)
    if not isinstance(a, np.ndarray) or a.dtype.kind not in "iu":  # (issubdtype: ~1 µs a call)
        got = f"dtype {a.dtype}" if isinstance(a, np.ndarray) else type(a).__name__
        raise TypeError(f"{name} must be a 1-D numpy integer array, got {got}")
    if a.ndim != 1:
        raise ValueError(f"{name} must have shape (k,), got {a.shape}")
    return a


def _checked(kinds: Sequence[RoundKind], kind_of: object, starts: object, goals: object,
             rows: object) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
    """A round's requests checked at the engine's boundary (the compiled round reads them without
    bounds checks: a row or a cell out of range read memory that is not the round's); returns
    ``rows`` (int64), ``kind_of``, ``starts`` and ``goals`` as arrays. The requests are looked at in one compiled pass
    (:func:`_first_bad`: ~1 ns a request; numpy's gathers and reductions took 35 µs for 30)."""
    kind_of = _int_vector("kind_of", kind_of)
    starts, goals = points_array("starts", starts), points_array("goals", goals)  # (their dtypes kept)
    if starts.shape != goals.shape:
        raise ValueError(f"starts and goals must have the same shape, got {starts.shape} and {goals.shape}")
    rows = np.arange(kind_of.size, dtype=np.int64) if rows is None else _int_vector("rows", rows).astype(np.int64)
    if rows.size != kind_of.size:
        raise ValueError(f"rows and kind_of must have the same length, got {rows.size} and {kind_of.size}")
    for i, k in enumerate(kinds):
        if not isinstance(k.astar, AStar):
            raise TypeError(f"kinds[{i}].astar must be an AStar, got {_short(k.astar)}")
        if not isinstance(k.labels, np.ndarray) or k.labels.dtype.kind not in "iu":
            raise TypeError(f"kinds[{i}].labels must be a numpy integer array of region labels, got {_short(k.labels)}")
        if k.labels.shape != np.shape(k.astar.world.terrain):
            raise ValueError(f"kinds[{i}].labels must have its grid's shape {np.shape(k.astar.world.terrain)}, "
                             f"got {k.labels.shape}")  # fmt: skip
    if rows.size == 0:
        return rows, kind_of, starts, goals
    dims = np.array([k.labels.shape for k in kinds], dtype=np.int64).reshape(len(kinds), 2)
    j, what = _first_bad(rows, kind_of, starts, goals, dims)
    if j < 0:
        return rows, kind_of, starts, goals
    if what == 0:
        top = len(kinds)
        raise ValueError(f"kind_of[{j}] is {int(kind_of[j])}; "
                         + (f"kinds are numbered 0 to {top - 1}" if top else "no kinds were given"))  # fmt: skip
    if what == 1:
        top = len(starts)
        raise ValueError(
            f"rows[{j}] is {int(rows[j])}; "
            + (f"starts and goals have rows 0 to {top - 1}" if top else "starts and goals have no rows")
        )
    (x, y), (h, w) = (starts if what == 2 else goals)[rows[j]], dims[kind_of[j]]
    raise ValueError(f"request {j}: {'start' if what == 2 else 'goal'} ({int(x)}, {int(y)}) is outside the grid of "
                     f"width {int(w)} and height {int(h)}")  # fmt: skip


@njit(cache=True, nogil=True)
def _first_bad(rows, kind_of, starts, goals, dims):
    """The first request whose kind (``what`` 0), row (1), start (2) or goal (3) is out of range,
    as ``(j, what)``; ``(-1, -1)`` when every one is in range. ``dims[s]``: kind ``s``'s grid's
    ``(height, width)``."""
    n_kinds, n_rows = dims.shape[0], starts.shape[0]
    for j in range(rows.size):
        s, i = np.int64(kind_of[j]), rows[j]
        if s < 0 or s >= n_kinds:
            return j, 0
        if i < 0 or i >= n_rows:
            return j, 1
        h, w = dims[s, 0], dims[s, 1]
        if not (0 <= starts[i, 0] < w and 0 <= starts[i, 1] < h):
            return j, 2
        if not (0 <= goals[i, 0] < w and 0 <= goals[i, 1] < h):
            return j, 3
    return -1, -1


def _same(a: list[object], b: list[object]) -> bool:
    """Keys equal: their objects by identity (a grid or world compares its contents, not itself),
    their plain values (strings, numbers, None) by value."""
    return len(a) == len(b) and all(x is y or (type(x) is type(y) and isinstance(x, _VALUES) and x == y)
                                    for x, y in zip(a, b, strict=True))  # fmt: skip


_VALUES = (str, int, float, bool, type(None))


def _build(kinds: Sequence[RoundKind], jps: bool) -> tuple[_Compiled, ...] | None:
    """:meth:`SearchRound._compiled`, built afresh."""
    built: list[_Compiled] = []
    for kind in kinds:
        astar = kind.astar
        if astar.has_python_hooks:
            return None
        grid, (codes, lut, moves, padded_width, blocks), params = astar.compiled_batch(jps)
        labels = kind.labels
        if built and (codes.dtype != built[0].codes.dtype or labels.dtype != built[0].labels.dtype):
            return None
        straight = bool(kind.straight)
        built.append(_Compiled(labels, codes, lut, moves, padded_width, blocks, grid.width, params, straight))
    # The kinds' grid data in one type (a compiled tuple is indexed at run time): where a kind jumps,
    # everyone's is jump bits; where one uses landmarks, a landmarks' table; both: a job per kind.
    data = {k.blocks.dtype for k in built}
    bits, table = np.dtype(np.uint64), np.dtype(np.float64)
    if bits in data and table in data:
        return None
    like = {bits: np.zeros((4, 0, 0), np.uint64), table: NO_LANDMARKS}  # (stand-ins where another kind has data)
    for dtype, empty in like.items():
        if dtype in data:
            built = [k if k.blocks.dtype == dtype else k._replace(blocks=empty) for k in built]
    return tuple(built) if built else None


class _Answers(NamedTuple):
    """The per-request answer columns a round (or part of it) writes."""

    status: np.ndarray
    expanded: np.ndarray
    cost: np.ndarray
    path_at: np.ndarray
    path_n: np.ndarray

    @classmethod
    def empty(cls, k: int) -> _Answers:
        return cls(np.full(k, STATUS_OTHER_REGION, np.int8), np.zeros(k, np.int64), np.full(k, np.inf),
                   np.zeros(k, np.int64), np.zeros(k, np.int64))  # fmt: skip


def gather(cells: np.ndarray, at: np.ndarray, n: np.ndarray, pos: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The runs ``cells[at[p] : at[p] + n[p]]`` of positions ``pos``, joined, with their offsets
    (a :class:`RoundResult`'s paths: ``gather(r.paths, r.path_at, r.path_n, pos)``). ``at``, ``n``
    and ``pos`` are 1-D integer arrays (lists are made ones); every run must lie inside ``cells``
    and every position index ``n``: else an exact ``ValueError``/``TypeError``."""
    cells = as_array("cells", cells, "a 1-D numpy integer array")
    if cells.ndim != 1:
        raise ValueError(f"cells must have shape (m,), got {cells.shape}")
    at, n, pos = _int_vector("at", at), _int_vector("n", n), _int_vector("pos", pos)
    if at.shape != n.shape:
        raise ValueError(f"at and n must have the same shape, got {at.shape} and {n.shape}")
    if pos.size and (int(pos.min()) < 0 or int(pos.max()) >= n.size):
        bad = int(pos[(pos < 0) | (pos >= n.size)][0])
        raise ValueError(f"pos {bad} is outside the {n.size} runs")
    if n.size and (int(n.min()) < 0 or int(at.min()) < 0 or int((at + n).max()) > cells.size):
        i = int(np.flatnonzero((n < 0) | (at < 0) | (at + n > cells.size))[0])
        raise ValueError(f"run {i} (at {int(at[i])}, n {int(n[i])}) is not inside the {cells.size} cells")
    return _gather(cells, at, n, pos)


def _gather(cells: np.ndarray, at: np.ndarray, n: np.ndarray, pos: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`gather` of checked arrays (the round's own)."""
    lengths = n[pos]
    offsets = np.concatenate(([0], np.cumsum(lengths))).astype(np.int64)
    idx = np.repeat(at[pos], lengths) + (np.arange(int(offsets[-1])) - np.repeat(offsets[:-1], lengths))
    return cells[idx], offsets


def _joined(kind_of: np.ndarray, parts: list[tuple], want_trace: bool, t0: float, shape: RoundShape) -> RoundResult:
    """The round from its parts' :func:`_round` answers (contiguous, in order): paths and
    traces placed one after the other, each kind's ms summed over the parts."""
    kind_ms: dict[int, float] = {}
    for part in parts:
        for s, t in enumerate(part[6].tolist()):
            if t >= 0.0:
                kind_ms[s] = kind_ms.get(s, 0.0) + t
    if len(parts) == 1:
        status, expanded, cost, paths, path_at, path_n, _ms, cells, trace_at, trace_n = parts[0]
    else:
        counts = [p[0].size for p in parts]
        path_base = np.cumsum([0] + [p[3].size for p in parts[:-1]])
        trace_base = np.cumsum([0] + [p[7].size for p in parts[:-1]])
        status, expanded, cost, paths, path_at, path_n, cells, trace_at, trace_n = (
            np.concatenate([p[i] for p in parts]) for i in (0, 1, 2, 3, 4, 5, 7, 8, 9)
        )
        path_at += np.repeat(path_base, counts)
        trace_at += np.repeat(trace_base, counts)
    traces = {}
    if want_trace:  # per kind: (its searched positions, their cells expanded, offsets)
        searched = status != STATUS_OTHER_REGION
        for s in kind_ms:
            pos = np.flatnonzero((kind_of == s) & searched)
            traces[s] = (pos, *_gather(cells, trace_at, trace_n, pos))
    return RoundResult(status, expanded, cost, paths, path_at, path_n, traces, kind_ms,
                       (time.perf_counter() - t0) * 1000.0, shape)  # fmt: skip


def _interpreted_round(kinds: Sequence[RoundKind], starts: np.ndarray, goals: np.ndarray, rows: np.ndarray,
                       kind_of: np.ndarray, t0: float) -> RoundResult:  # fmt: skip
    """:meth:`SearchRound.run` with ``interpreted``: each request by the engine's interpreted
    search (same costs and rules; no traces, paths not pulled straight)."""
    k = rows.size
    out = _Answers.empty(k)
    pieces: list[list[int]] = []
    at = 0
    kind_ms: dict[int, float] = {}
    for j in range(k):
        t = time.perf_counter()
        i, s = int(rows[j]), int(kind_of[j])
        (sx, sy), (gx, gy) = starts[i].tolist(), goals[i].tolist()
        labels = kinds[s].labels
        if labels[sy, sx] == 0 or labels[sy, sx] != labels[gy, gx]:
            continue
        _grid, (codes, lut, moves, wp, _blocks), params = kinds[s].astar.compiled_batch()
        status, out.expanded[j], c, path = search_interpreted(
            codes, lut, moves, wp, (sy + 1) * wp + sx + 1, (gy + 1) * wp + gx + 1, params
        )
        out.status[j] = status
        out.cost[j] = c if status == STATUS_FOUND else np.inf
        out.path_at[j], out.path_n[j] = at, len(path)
        pieces.append(path)
        at += len(path)
        kind_ms[s] = kind_ms.get(s, 0.0) + (time.perf_counter() - t) * 1000.0
    paths = np.fromiter(itertools.chain.from_iterable(pieces), dtype=np.int32, count=at)
    return RoundResult(out.status, out.expanded, out.cost, paths, out.path_at, out.path_n, {}, kind_ms,
                       (time.perf_counter() - t0) * 1000.0, RoundShape((), 0))  # fmt: skip


def _part(rows: np.ndarray, kind_of: np.ndarray, starts: np.ndarray, goals: np.ndarray,
          kinds: tuple[_Compiled, ...], want_trace: bool) -> tuple:  # fmt: skip
    """Requests ``rows`` (of kinds ``kind_of``) in one compiled call on this thread, with its
    workspace made ready for every kind's grid. Returns :func:`_round`'s answers (the
    workspace's buffers and stamps are kept in the workspace)."""
    ws = workspace()
    for kind in kinds:
        ws.ensure(kind.codes.size, jps=jumps(kind.params.mode))
    ws.room_for(rows.size)
    *answers, buffers = _round(rows, kind_of, starts, goals, kinds, ws.buffers(), want_trace)
    ws.adopt(buffers)
    return tuple(answers)


def _job(kind: RoundKind, pos: np.ndarray, rows: np.ndarray, starts: np.ndarray, goals: np.ndarray,
         want_trace: bool, jps: bool, out: _Answers) -> tuple:  # fmt: skip
    """Kind ``kind``'s requests at positions ``pos``: searched (paths pulled straight for kinds
    that want it; A* where ``jps`` is false), the answers written into ``out`` (``path_at``
    counts from the start of the returned paths). Returns ``(positions searched, paths,
    (positions, trace, trace offsets) or None, wall ms)``."""
    t0 = time.perf_counter()
    astar = kind.astar
    if astar.has_python_hooks:  # per-edge Python hooks: through the engine's batch API
        searched, flat_s, flat_t = _queries(pos, rows, starts, goals, kind.labels, astar.grid.width + 2)
        result, (trace, trace_offsets) = astar.search_padded(flat_s, flat_t, trace=want_trace, threads=1)
        if kind.straight:  # same cost, pulled straight
            result = astar.smooth_batch(result)
        _scatter(searched, result.status, result.expanded, result.cost, result.offsets, out)
        paths = result.paths
    else:
        # One compiled call from the requests to the written answers: each call from Python
        # costs tens of µs once drawing has pushed the interpreter out of the CPU's caches.
        grid, grid_args, params = astar.compiled_batch(jps)
        ws = workspace()
        ws.ensure(grid.cells, jps=jumps(params.mode))
        ws.room_for(pos.size)
        compiled = _Compiled(kind.labels, *grid_args, grid.width, params, bool(kind.straight))
        searched, buffers, paths, trace, trace_offsets = _kind_round(
            pos, rows, starts, goals, compiled, ws.buffers(), want_trace, out
        )
        ws.adopt(buffers)
    traced = (searched, trace, trace_offsets) if want_trace else None
    return searched, paths, traced, (time.perf_counter() - t0) * 1000.0


@njit(cache=True, nogil=True)
def _kind_round(pos, rows, starts, goals, kind, buffers, tracing, out):
    """One kind's requests at positions ``pos``, compiled: the region check (:func:`_queries`),
    the batch (``kernel.search_batch``), smoothing (``field.smooth_all``) and :func:`_scatter`
    into ``out``. Returns ``(searched, buffers, paths, trace, trace_offsets)``."""
    searched, flat_s, flat_t = _queries(pos, rows, starts, goals, kind.labels, kind.padded_width)
    g, parent, jump_parent, mark, gen, heap, buckets, hgen, stats = buffers
    # No node budget, as an int64, not the literal -1: the engine's batch compiled from Python
    # (sim.prepare compiles it that way first, in a process of its own) then serves here too.
    no_budget = np.int64(-1)
    batch = batch_pointer(kind.codes, kind.blocks)  # (called through its address: ``linked``)
    _served, gen, heap, buckets, hgen, status, c, exp, offsets, paths, trace, trace_offsets = batch(
        kind.codes, kind.lut, kind.moves, kind.padded_width, kind.blocks, flat_s, flat_t, kind.params,
        no_budget, g, parent, jump_parent, mark, gen, heap, buckets, hgen, tracing, stats,
    )  # fmt: skip
    paths = paths[: offsets[-1]]
    if kind.straight:  # same cost, pulled straight
        smoothed, smoothed_offsets, _ways = smooth_all(kind.codes, kind.lut, kind.moves, kind.padded_width,
                                                       kind.width, paths, offsets)  # fmt: skip
        paths, offsets = smoothed[: smoothed_offsets[-1]], smoothed_offsets
    _scatter(searched, status, exp, c, offsets, out)
    buffers = Buffers(g, parent, jump_parent, mark, gen, heap, buckets, hgen, stats)
    return searched, buffers, paths, trace[: trace_offsets[-1]], trace_offsets


#: :func:`_kind_round` inlined into :func:`_round`: compiled apart as well (a per-kind job calls it
#: from Python), it would be linked into ``_round`` and compiled there once more. The batch search it
#: calls is reached through its address (``linked.batch_pointer``), not compiled into either.
_kind_round_inlined = njit(cache=True, nogil=True, inline="always")(_kind_round.py_func)


@njit(cache=True, nogil=True)
def _round(rows, kind_of, starts, goals, kinds, buffers, tracing):
    """A whole round on this thread in one compiled call: :func:`_kind_round` for each kind with
    requests in ``rows``, in kind order, the requests of each in order, their paths joined end
    to end, without Python between the kinds' calls (~100 µs a round at 20,000 animals, with a
    drawing's cold caches). With ``tracing``, the cells each search expanded too: row ``j``'s
    are ``traces[trace_at[j] : trace_at[j] + trace_n[j]]``. Returns ``(status, expanded, cost,
    paths, path_at, path_n, ms per kind (-1: none asked), traces, trace_at, trace_n, buffers)``."""
    k = rows.size
    n_kinds = len(kinds)
    out = _Answers(np.full(k, STATUS_OTHER_REGION, np.int8), np.zeros(k, np.int64), np.full(k, np.inf),
                   np.zeros(k, np.int64), np.zeros(k, np.int64))  # fmt: skip
    ms = np.full(n_kinds, -1.0)
    bounds = np.zeros(n_kinds + 1, np.int64)  # the requests of kind s: order[bounds[s]:bounds[s + 1]]
    for j in range(k):
        bounds[kind_of[j] + 1] += 1
    for s in range(n_kinds):
        bounds[s + 1] += bounds[s]
    order = np.empty(k, np.int64)
    fill = bounds[:n_kinds].copy()
    for j in range(k):
        order[fill[kind_of[j]]] = j
        fill[kind_of[j]] += 1
    trace_at = np.zeros(k, np.int64)
    trace_n = np.zeros(k, np.int64)
    paths = np.empty(0, np.int32)
    traces = np.empty(0, np.int32)
    for s in range(n_kinds):
        if bounds[s + 1] == bounds[s]:
            continue
        t0 = _now_s()
        searched, buffers, mine, trace, trace_offsets = _kind_round_inlined(
            order[bounds[s] : bounds[s + 1]], rows, starts, goals, kinds[s], buffers, tracing, out
        )
        if tracing:
            for i in range(searched.size):
                trace_at[searched[i]] = traces.size + trace_offsets[i]
                trace_n[searched[i]] = trace_offsets[i + 1] - trace_offsets[i]
            traces = np.concatenate((traces, trace))
        if paths.size:  # this batch's paths start at 0 in its own array: after the previous ones
            for j in searched:
                out.path_at[j] += paths.size
            paths = np.concatenate((paths, mine))
        else:
            paths = mine
        ms[s] = (_now_s() - t0) * 1000.0
    return (out.status, out.expanded, out.cost, paths, out.path_at, out.path_n, ms, traces, trace_at, trace_n,
            buffers)  # fmt: skip


@njit(cache=True)
def _queries(pos, rows, starts, goals, labels, padded_width):
    """Of the requests at positions ``pos``, those whose start and goal share a region
    (``labels``), with both as padded cells ``(y + 1) * padded_width + x + 1``."""
    keep = np.empty(pos.size, np.int64)
    flat_s = np.empty(pos.size, np.int64)
    flat_t = np.empty(pos.size, np.int64)
    n = 0
    for j in range(pos.size):
        i = rows[pos[j]]
        sx, sy, gx, gy = starts[i, 0], starts[i, 1], goals[i, 0], goals[i, 1]
        here = labels[sy, sx]
        if here != 0 and here == labels[gy, gx]:
            keep[n] = pos[j]
            flat_s[n] = (sy + 1) * padded_width + sx + 1
            flat_t[n] = (gy + 1) * padded_width + gx + 1
            n += 1
    return keep[:n], flat_s[:n], flat_t[:n]


@njit(cache=True)
def _scatter(pos, status, expanded, cost, offsets, out):
    """One kind's batch answers into the round's rows ``pos`` (``path_at`` from the start of the
    batch's own paths)."""
    for j in range(pos.size):
        r = pos[j]
        out.status[r] = status[j]
        out.expanded[r] = expanded[j]
        out.cost[r] = cost[j]
        out.path_at[r] = offsets[j]
        out.path_n[r] = offsets[j + 1] - offsets[j]
