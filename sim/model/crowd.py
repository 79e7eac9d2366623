"""Separation: animals keep a small distance from their neighbours, in one compiled pass.

Each frame every animal is pushed away from the animals of its own drawing layer (birds
from birds, walkers from walkers) closer than ``spacing`` cells, half the overlap each,
found through a spatial hash of the squares they stand in, ``spacing`` a side (a counting
sort into a table of one plane per layer, the map's rows of squares folded onto about four
slots an animal when there are more: O(n) a frame). The pushes are computed from last
frame's positions for everyone before anyone moves, so the result does not depend on the
order animals are visited or on the thread count. Rules:

* a push never puts an animal on a cell its species cannot stand on, nor across a
  corner between two cells it cannot stand on (a diagonal move needs both sides open),
  so it stays in its region;
* an animal walking a path is never pushed backwards (only sideways or ahead) and stays
  within ``0.45`` cells of the line to its next path cell, and only where walking on from
  there crosses no cell it may not stand on (beside an orthogonal step, or a diagonal one
  whose two corner cells are open): it always gets where it goes, on its own ground;
* a resting animal may be pushed onto a neighbouring cell, so a
  crowd that arrives at one spot, or is swept off a painted area, spreads out.

The push is at most :data:`MAX_PUSH` cells a frame, so crowds spread smoothly. An animal's
``cell`` follows its ``pos`` (:func:`~sim.model.agents.cell_of`) after every push.
"""

from __future__ import annotations

import math
import os
import threading
import weakref

import numba
import numpy as np
from numba import njit

from sim.model.agents import State, cell_of
from sim.pathfinding import run_split, thread_count
from sim.support import barrier, memory
from sim.support.prefetch import prefetch

#: The largest push a frame, in cells; a smaller one than MIN_PUSH is not made.
MAX_PUSH = 0.08
MIN_PUSH = 0.0005
#: How far a walking animal may be pushed off the line to its next path cell, in cells.
LANE = 0.45
#: Fewer animals than this a part are not worth handing to a thread; at most MAX_PARTS parts.
SPLIT = 4000
MAX_PARTS = 2  # (_starts takes one part or two)
#: Animals a part moves in a row (see _moves).
BLOCK = 256
#: How many animals ahead the moves ask for their pushes (the other part's are in the other core's
#: cache). Measured with the moves' arithmetic vectorised (Dec 2026), 100,000 animals on two
#: threads: 4 took 3.38-3.45 ms, 16 3.19-3.34 (before it, 2 was slower and 4, 8, 16 the same).
AHEAD = 16
#: The pairs' work is estimated in runs of this many slots (see _split).
RUN = 1024
#: A slot of ``c`` animals is estimated ``c (c + WORK)`` of the pairs' work: ``c`` candidates an
#: animal, and a fixed cost. Fitted at 100,000 on the island (Dec 2026, the app's pass timed
#: inside): at the middle entry part 0 took ~10 % longer than part 1, with 2 they are level.
WORK = 2
#: A part of fewer animals than this counts them in 16 bits (see Crowd._lay_out).
COUNTS_16 = 1 << 16
#: At most this many columns of squares in the hash's table (wider maps get wider squares).
MAX_COLUMNS = 4096


@njit(cache=True, nogil=True, inline="always")
def _slot(x, y, layer, grid):
    """The table slot of point ``(x, y)`` in a drawing layer. ``grid``: see :meth:`Crowd._lay_out`;
    squares ``side`` a side (at least the spacing), the map's ``columns`` x ``lines`` of them in
    one plane per layer of ``rows`` rows (a power of two, at least 4; the lines folded onto
    them when there are more) of ``stride = columns + 2`` slots (an empty column either side:
    a square's neighbours in a row are one stretch), after an empty row. A point off the map
    counts as on its edge."""
    inv, columns, lines, rows, stride = grid[0], grid[1], grid[2], grid[3], grid[4]
    c = min(max(math.floor((x + 0.5) * inv), 0), columns - 1) + 1
    r = min(max(math.floor((y + 0.5) * inv), 0), lines - 1) & (rows - 1)
    return (layer * rows + r + 1) * stride + c


@njit(cache=True, nogil=True, inline="always")
def _open(terrain, stands, s, x, y):
    h, w = terrain.shape
    return 0 <= x < w and 0 <= y < h and stands[s, terrain[y, x]]


@njit(cache=True, nogil=True)  # (called, not inlined: only pushes that leave a cell get here)
def _allowed(terrain, stands, s, nx, ny, cx, cy):
    """Whether an animal of species ``s`` on cell ``(cx, cy)`` may be put at point ``(nx,
    ny)``: its cell one it may stand on, and not reached across a corner between two it
    may not."""
    ux, uy = math.floor(nx + 0.5), math.floor(ny + 0.5)
    same = ux == cx and uy == cy
    diagonal = ux != cx and uy != cy
    return same or (
        _open(terrain, stands, s, ux, uy)
        and (not diagonal or (_open(terrain, stands, s, ux, cy) and _open(terrain, stands, s, cx, uy)))
    )


@njit(cache=True, nogil=True)  # (called, not inlined: two animals on one point are rare)
def _apart(i, j, spacing):
    """The push on ``i`` from ``j`` standing on the very same point, as ``(x, y)``: half the
    spacing, in a fixed direction from the pair's table entries (opposite for ``j``; the table's
    order is the same whatever ran where)."""
    lo, hi = min(i, j), max(i, j)
    a = ((lo * 2654435761 + hi * 40503) % 6283) / 1000.0 + (math.pi if i > j else 0.0)
    return 0.5 * spacing * math.cos(a), 0.5 * spacing * math.sin(a)


# The spatial hash is a counting sort of the animals by slot, in three passes that parts of the
# crowd (ranges of animals) can run on threads: count, find where each part's entries start, place.
# Entries come by slot, then by part, then by animal (the second part's backwards): the same
# whatever ran where. A square is at least ``spacing`` a side, so an animal's neighbours are in
# its own square and the eight around it; of those, the earlier entries (each pair once) are two
# stretches of the table: three squares in the row before, and the square to the left with its
# own up to itself. Looking up where they are once a square, not once an animal, made the pairs
# 40 % faster (Dec 2026).


@njit(cache=True, nogil=True)
def _count(lo, hi, pos, species, layer_of, grid, ints, mine, middle):
    """Animals ``lo .. hi-1``: their cells and slots, their rank among this part's animals of
    the same slot, ``mine[b + 1]``: how many of them are in slot ``b``, and ``mine[0]``: how
    many are in a slot before ``middle``."""
    mine[:] = 0
    cx, cy, rank, slot = ints[0], ints[1], ints[3], ints[4]
    below = 0
    for i in range(np.uint64(lo), np.uint64(hi)):  # (unsigned indices: see sim.pathfinding.common)
        cx[i] = math.floor(pos[i, 0] + 0.5)
        cy[i] = math.floor(pos[i, 1] + 0.5)
        slot[i] = b = _slot(pos[i, 0], pos[i, 1], layer_of[species[i]], grid)
        below += b < middle
        ub = np.uint64(b + 1)
        rank[i] = mine[ub]
        mine[ub] += 1
    mine[0] = below


@njit(cache=True, nogil=True, inline="always")
def _work(c):
    """The pairs' estimated work in a slot of ``c`` animals (see _split)."""
    return c * (c + WORK)


@njit(cache=True, nogil=True)
def _starts(j, per_part, counts, middle, work):
    """Where each slot's entries start (``counts``, one more: the end) from every part's counts
    (one part or two; see _count): part 0 the slots before ``middle``, part 1 the rest (from
    how many animals are before it), so the two halves of the table's sums run side by side.
    Also each run of :data:`RUN` slots' pairs' work, estimated (see :func:`_split`), into
    ``work`` (``middle`` is a multiple of RUN)."""
    parts, end = per_part.shape[0], counts.size - 1
    b0, b1, running = 0, end, 0
    if parts == 2:
        b0, b1 = (0, middle) if j == 0 else (middle, end)
        running = 0 if j == 0 else np.int64(per_part[0, 0]) + np.int64(per_part[1, 0])
    last = per_part[parts - 1]  # (part 0's counts again when there is one part: not added)
    for r in range(b0 // RUN, (b1 + RUN - 1) // RUN):
        effort = 0
        for b in range(r * RUN, min(r * RUN + RUN, b1)):
            counts[b] = running
            c = np.int64(per_part[0, b + 1]) + (np.int64(last[b + 1]) if parts == 2 else 0)
            running += c
            effort += _work(c)
        work[r] = effort
    if b1 == end:
        counts[end] = running


@njit(cache=True, nogil=True, inline="always")  # (compiled once, in its caller)
def _split(parts, counts, work):
    """Where the pairs' parts meet (see _pair_pushes): the first table entry of the slot where
    the table's estimated work passes its half (each slot ``c (c + WORK)``, ``c`` animals: an
    entry's candidates grow with the animals around it, about as many as in its own square), so
    the dense half of a crowd does not keep the other part waiting. The same whatever ran where."""
    if parts == 1:
        return counts[counts.size - 1]
    half = (work.sum() + 1) // 2
    done, r = 0, 0
    while r < work.size - 1 and done + work[r] < half:
        done += work[r]
        r += 1
    b = r * RUN
    while b < counts.size - 1:
        done += _work(np.int64(counts[b + 1]) - counts[b])
        if done >= half:
            break
        b += 1
    return counts[min(b, counts.size - 1)]


@njit(cache=True, nogil=True)
def _place(lo, hi, floats, ints, counts, after, pos):
    """Animals ``lo .. hi-1`` into the table (``ints[2]``: each entry's slot; ``ints[3]``: each
    animal's entry), with what the scan reads (position, slot) side by side in memory. The
    first part fills each slot's entries from its start, in order, the second (``after``) from
    its end, backwards: it needs no count from the other part (a line from the other core's
    memory an animal: ~50 µs a part at 100,000), and the order is the same whatever ran where."""
    sc, rank, slot = ints[2], ints[3], ints[4]
    for i in range(lo, hi):
        b = slot[i]
        o = counts[b + 1] - 1 - rank[i] if after else counts[b] + rank[i]
        rank[i] = o  # from now on: where animal i is in the table
        floats[o, 0], floats[o, 1] = pos[i, 0], pos[i, 1]
        sc[o] = b


@njit(cache=True, nogil=True, inline="always")
def _push(i, j, ex, ey, spacing):
    """The push on table entry ``i`` from entry ``j`` at ``(ex, ey)`` = i - j (32-bit): half the
    overlap, away from ``j``; none when they are ``spacing`` or more apart. No branch on the
    distance: it is as often in as out."""
    d2 = ex * ex + ey * ey
    if d2 < np.float32(1e-12):  # on the very same point
        fx, fy = _apart(np.int64(i), np.int64(j), spacing)
        return np.float32(fx), np.float32(fy)
    d = math.sqrt(d2)
    k = np.float32(0.5) * max(np.float32(spacing) - d, np.float32(0.0)) / d
    return k * ex, k * ey


@njit(cache=True, nogil=True, inline="always")
def _pair(i, xi, yi, p, floats, buf, spacing):
    """The push on table entry ``i`` at ``(xi, yi)`` from entry ``p`` (see _push), taken off
    ``p``'s sum in ``buf`` at once; returns it, for ``i``'s own sum."""
    fx, fy = _push(i, p, xi - floats[p, 0], yi - floats[p, 1], spacing)
    buf[p, 0] -= fx
    buf[p, 1] -= fy
    return fx, fy


@njit(cache=True, nogil=True)
def _pair_pushes(j, spacing, grid, floats, ints, counts, buf, work, ends):
    """Half the overlap of every pair closer than ``spacing`` whose later table entry is in part
    ``j``'s stretch of the table (parts meet where :func:`_split` says), added to both (away
    from each other) in ``buf`` (entries, 2), which this part alone writes: parts can run on
    threads, and summing the parts' buffers in a fixed order gives the same pushes whatever ran
    where. ``ends[0, j]``: where this part's stretch ends; ``ends[1, j]``: the first entry it
    may write (the row of squares before its first, or with a fold its plane's first: the fold's
    last row reaches back to it), so the moves read its sums from there only (see _summed)."""
    slot_of = ints[2]
    parts = ends.shape[1]
    mid = _split(parts, counts, work)
    lo, hi = (0, mid) if j == 0 else (mid, counts[counts.size - 1])
    rows, stride, per_stride, folded = grid[3], grid[4], grid[5], grid[6]
    low = lo
    if lo < hi:
        first = slot_of[lo]
        if folded:
            plane = (np.int64((first + 0.5) * per_stride) - 1) // rows
            low = counts[(plane * rows + 1) * stride]
        else:
            low = counts[first - stride - 1]
    ends[0, j], ends[1, j] = hi, low
    buf[low:hi, :] = 0.0  # none before ``low`` or after ``hi`` is written (nor read: see _moves)
    o = lo
    while o < hi:  # a square at a time: its entries look at the same stretches
        b = slot_of[o]
        end = min(counts[b + 1], hi)
        # Earlier entries only (each pair once): the row of squares before (three squares, one
        # stretch), then the square to the left and this one, up to the entry itself. The row
        # before is wholly earlier in the table (in a table with no fold, the row before a
        # plane's first is empty) and the row after wholly later, but where a fold wraps round.
        # A slot may also hold a far row folded onto it: the distance leaves it out.
        before, wrap, q, c = b - stride - 1, False, 0, 0
        if folded:  # (the row's number: a multiply, not a 64-bit division of ~40 cycles)
            q = np.int64((b + 0.5) * per_stride)
            c, r = b - q * stride, (q - 1) & (rows - 1)
            before = (q - 1 if r else q + rows - 1) * stride + c - 1
            wrap = r == rows - 1
        a0, a1 = counts[before], counts[before + 3]
        n0 = a1 - a0 if a1 <= o else 0
        s0 = counts[b - 1]
        for o2 in range(o, end):
            uo = np.uint64(o2)  # (unsigned indices: see sim.pathfinding.common)
            xi, yi, i = floats[uo, 0], floats[uo, 1], uo
            px, py = np.float32(0.0), np.float32(0.0)
            for t in range(n0 + o2 - s0):  # one loop: its end is the branch a CPU guesses wrong
                fx, fy = _pair(i, xi, yi, np.uint64(a0 + t if t < n0 else s0 + t - n0), floats, buf, spacing)
                px += fx
                py += fy
            if wrap:  # the fold's last row: the row after (its first) is earlier
                after = (q - rows + 1) * stride + c - 1
                for p in range(counts[after], counts[after + 3]):
                    fx, fy = _pair(i, xi, yi, p, floats, buf, spacing)
                    px += fx
                    py += fy
            buf[uo, 0] += px
            buf[uo, 1] += py
        o = end


@njit(cache=True, nogil=True, error_model="numpy")
def _proposed(m, xs, ys, state, aim, leg, w, cells, scratch):
    """The first ``m`` of a block's pushed animals (see :func:`_moves`: at ``xs, ys``, their
    pushes ``scratch``'s first two): each one's point after its push cut to :data:`MAX_PUSH`,
    and a walker's within its lane: never backwards, within :data:`LANE` of the line from its
    last path cell ``leg`` to the one it walks toward ``aim``. Into ``scratch``: the point;
    whether to leave a walker be (at its target, or not a step from it); whether its step is a
    diagonal one, and that step's two corner cells (flat), for the rules' terrain test.

    One loop with no branch, for the vectoriser: everything is computed for every animal and
    the answer chosen (a select), four animals an instruction. Tens of cycles of square roots
    and divisions an animal, and ~1.5 mispredicted branches in the scalar code (its backward
    test, its diagonal test), were most of the pass (Dec 2026, with the gathering in _moves:
    1.41-1.45 -> 0.76-0.80 ms a part at 100,000 animals, the same positions to the bit).
    ``error_model="numpy"``: the lanes that are not chosen may divide by zero. Indices are
    unsigned (see sim.pathfinding.common) and every array a 1-D one of its own, so that the
    loop vectorises."""
    px_, py_, nx_, ny_, skip, diagonal, corner1, corner2 = scratch
    inv_w, last = 1.0 / w, np.int64(cells - 1)
    for i in range(np.uint64(m)):
        px, py = px_[i], py_[i]
        size2 = px * px + py * py
        cut = size2 > MAX_PUSH * MAX_PUSH
        k = MAX_PUSH / math.sqrt(size2)
        px, py = (px * k, py * k) if cut else (px, py)
        x, y = xs[i], ys[i]
        nx, ny = x + px, y + py
        # A walker's step: from (bx, by) to (ax, ay); cells by a multiply, not a 64-bit division.
        a, b = aim[i], leg[i]
        ay, by = np.int64((a + 0.5) * inv_w), np.int64((b + 0.5) * inv_w)
        ax, bx = a - ay * w, b - by * w
        tx, ty, sx, sy = float(ax), float(ay), float(bx), float(by)
        fx, fy = tx - x, ty - y
        fl2 = fx * fx + fy * fy
        along = px * fx + py * fy  # (times the distance to the target)
        backwards = along < 0.0  # the push's part backwards, taken out
        wx, wy = (nx - along * fx / fl2, ny - along * fy / fl2) if backwards else (nx, ny)
        lx, ly = tx - sx, ty - sy
        ll = lx * lx + ly * ly  # 0, 1 or 2 (one step)
        u = min(max(((wx - sx) * lx + (wy - sy) * ly) * (1.0 if ll == 1.0 else 0.5), 0.0), 1.0)
        u = 0.0 if ll == 0.0 else u
        ox, oy = wx - (sx + u * lx), wy - (sy + u * ly)
        off2 = ox * ox + oy * oy
        k = LANE / math.sqrt(off2)
        wx, wy = (sx + u * lx + ox * k, sy + u * ly + oy * k) if off2 > LANE * LANE else (wx, wy)
        walking = state[i] == State.WALKING
        nx_[i], ny_[i] = (wx, wy) if walking else (nx, ny)
        dx, dy = ax - bx, ay - by
        far = (dx > 1) | (dx < -1) | (dy > 1) | (dy < -1)
        skip[i] = walking & ((fl2 < 1e-18) | far)
        diagonal[i] = d = walking & (dx != 0) & (dy != 0) & (not far)
        # (cell 0 when not a diagonal step; clamped, so a stale step never reads off the map)
        corner1[i] = min(max(by * w + ax, 0), last) if d else 0
        corner2[i] = min(max(ay * w + bx, 0), last) if d else 0


@njit(cache=True, nogil=True, inline="always")
def _summed(i, n, where, bufs, ends):
    """Animal ``i``'s push: the parts' sums at its table entry ``where[i]``, added in order (see
    _pair_pushes: part ``k`` wrote entries from ``ends[1, k]`` to ``ends[0, k]`` only): one
    part's but near where the parts meet (a line from the other core's memory an animal cost
    ~0.1 ms a part at 100,000). Asks for the entry :data:`AHEAD` animals on as well: it is far
    from this one's, and the pass would wait on each in turn."""
    ahead = where[min(np.int64(i) + AHEAD, n - 1)]
    k = np.int64(ahead >= ends[0, 0]) * (bufs.shape[0] - 1)  # (no branch: in either part as often)
    prefetch(bufs.ctypes.data + (k * bufs.shape[1] + ahead) * bufs.strides[1])
    o = where[i]
    uo = np.uint64(o)
    px, py = 0.0, 0.0
    for k in range(bufs.shape[0]):
        if o < ends[0, k] and o >= ends[1, k]:
            px += bufs[k, uo, 0]
            py += bufs[k, uo, 1]
    return px, py


@njit(cache=True, nogil=True)
def _moves(part, n, cols, terrain, stands, ints, bufs, ends, scratch):
    """Part ``part``'s animals moved by their pushes (the parts' sums, added in order, at
    most :data:`MAX_PUSH` long) within the rules (see the module doc); each on its own, so
    parts can run on threads. Part ``part`` of ``ends.shape[1]`` moves every so many blocks of
    :data:`BLOCK` animals (species come in runs, and some cost more to move than others: each
    part gets its share of all), a block in three loops: the pushes gathered, the points they lead to
    (:func:`_proposed`, no branch), then the rules' tests against the terrain and the moves.
    ``ends``: where each part wrote pushes (see _pair_pushes, _summed). ``scratch``: this
    part's own (see Crowd._lay_out). Returns how many moved.
    ``cols``: the agents' columns it reads, ``(pos, cell, state, species, aim, leg)``."""
    pos, cell, state, species, aim, leg = cols
    reals, whole = scratch
    px_, py_, nx_, ny_, xs, ys = reals[0], reals[1], reals[2], reals[3], reals[4], reals[5]
    skip, diagonal, corner1, corner2 = whole[0], whole[1], whole[2], whole[3]
    which, aims, legs, states = whole[4], whole[5], whole[6], whole[7]
    moved = 0
    w = terrain.shape[1]
    codes = terrain.reshape(terrain.size)
    cx, cy, where = ints[0], ints[1], ints[3]
    for start in range(part * BLOCK, n, ends.shape[1] * BLOCK):
        # The block's pushed animals (a push smaller than MIN_PUSH is not made), side by side.
        kept = np.int64(0)  # (not the literal 0: numba compiled _proposed for it as well, 0.3 CPU s)
        for t in range(min(start + BLOCK, n) - start):
            i = np.uint64(start + t)  # (unsigned: see sim.pathfinding.common)
            px, py = _summed(i, n, where, bufs, ends)
            which[kept], px_[kept], py_[kept], xs[kept], ys[kept] = t, px, py, pos[i, 0], pos[i, 1]
            aims[kept], legs[kept], states[kept] = aim[i], leg[i], state[i]
            kept += px * px + py * py >= MIN_PUSH * MIN_PUSH  # (no branch: as often yes as no)
        _proposed(
            kept, xs, ys, states, aims, legs, w, codes.size, (px_, py_, nx_, ny_, skip, diagonal, corner1, corner2)
        )
        for t in range(kept):
            i = np.uint64(start + which[t])
            s = species[i]
            # Left be: a walker at its target or not a step from it, or a walker on a diagonal
            # step past a corner it may not stand on (off its line there it could cut the
            # corner). One test, the corners' looked up for all: a branch a CPU guesses.
            if skip[t] | (diagonal[t] & (not (stands[s, codes[corner1[t]]] & stands[s, codes[corner2[t]]]))):
                continue
            walking = state[i] == State.WALKING
            nx, ny = nx_[t], ny_[t]
            # The common case first, on its own: a push within the cell (a test that
            # also looks at the neighbouring cells made the whole pass ~30 % slower).
            if (cell_of(nx) != cx[i] or cell_of(ny) != cy[i]) and not _allowed(
                terrain, stands, s, nx, ny, cx[i], cy[i]
            ):
                if walking:
                    continue
                # A resting animal against a wall slides along it: the push's part along one axis.
                if _allowed(terrain, stands, s, nx, pos[i, 1], cx[i], cy[i]):
                    ny = pos[i, 1]
                elif _allowed(terrain, stands, s, pos[i, 0], ny, cx[i], cy[i]):
                    nx = pos[i, 0]
                else:
                    continue
            pos[i, 0], pos[i, 1] = nx, ny
            cell[i, 0], cell[i, 1] = cell_of(nx), cell_of(ny)  # cell follows pos, walking or not
            moved += 1
    return moved


@njit(cache=True, nogil=True, inline="always")  # (compiled once, in _run)
def _part(job, state, parts):
    """One part's whole pass (``job``: its arguments for each step, see Crowd._lay_out) as one
    compiled call, waiting for the other parts at a compiled barrier after each step but the
    last (:mod:`sim.support.barrier`); returns how many it moved."""
    count, starts, place, pairs, moves = job
    _count(*count)
    barrier.arrive_and_wait(state, parts)
    _starts(*starts)
    barrier.arrive_and_wait(state, 2 * parts)
    _place(*place)
    barrier.arrive_and_wait(state, 3 * parts)
    _pair_pushes(*pairs)
    barrier.arrive_and_wait(state, 4 * parts)
    return _moves(*moves)


@njit(cache=True, nogil=True)
def _run(job, state, parts, moved, j, seen):
    """Part ``j``'s pass (:func:`_part`; how many it moved into ``moved[j]``). The last part is
    the caller's, once it has started the pass (:func:`barrier.release`): it waits for every
    part to be done and returns how many moved in all. Any other is a worker's, on a thread of
    its own that stays in this call: it waits for each pass (``seen``: see
    :func:`barrier.await_release`), runs it, and returns 0 when told to stop (a thread's
    hand-over costs ~80 µs a pass through Python's pool; a futex wake-up a few µs)."""
    lead = j == parts - 1
    while True:
        if not lead:
            seen = barrier.await_release(state, seen)
            if seen < 0:
                return 0
        moved[j] = _part(job, state, parts)
        if not lead:
            barrier.arrive(state, 5 * parts)
            continue
        barrier.arrive_and_wait(state, 5 * parts)
        return moved.sum()


#: A pass's steps in order; a part's job holds each one's arguments (see Crowd._lay_out, _part).
_STEPS = (_count, _starts, _place, _pair_pushes, _moves)


class Crowd:
    """The separation step's scratch memory, kept between frames."""

    def __init__(self) -> None:
        self._floats = np.zeros((0, 2), np.float32)  # the table's x, y side by side: one line to read
        self._ints = np.zeros((5, 0), np.int32)  # cells x, y; each entry's slot; rank (then entry); slot
        self._counts = np.zeros(0, np.int32)  # where each slot's entries start (one more: the end)
        self._per_part = np.zeros((1, 1), np.uint16)  # each part's animals a slot (see _count)
        self._bufs = np.zeros((1, 0, 2), np.float32)  # per part: pushes by table entry, x and y side by side
        self._key: tuple = (0, 0.0, *[None] * 4)  # what the jobs were laid out for
        self._jobs: list[tuple] = []  # each part's arguments for each pass (see separate)
        self._moved = np.zeros(MAX_PARTS, np.int64)  # how many each part moved (see _run)
        self._workers = _Workers()  # the threaded pass's (see _run)
        weakref.finalize(self, self._workers.stop)

    def _lay_out(self, key: tuple) -> None:
        """The scratch memory and the kernels' arguments for a crowd of ``n`` (kept while the
        crowd, the map and the arrays stay: laying them out costs tens of µs)."""
        self._workers.stop()  # (they hold the old jobs' arrays)
        n, spacing, cols, terrain, stands, layer_of = key
        pos, species = cols.pos, cols.species
        self._key = key
        # One table plane for each layer in use; layers numbered from 0 in order.
        layer_of = np.unique(layer_of, return_inverse=True)[1].astype(np.int64).reshape(-1)
        planes = int(layer_of.max(initial=0)) + 1
        if self._floats.shape[0] < n:  # 32-bit scratch: half the memory to sweep
            self._floats = memory.zeros((2 * n, 2), np.float32)
            self._ints = memory.zeros((5, 2 * n), np.int32)
        # The table (see _slot): squares ``spacing`` a side (wider where the map is more than
        # MAX_COLUMNS of them across), every column of them, the lines of them folded onto a power of
        # two of rows (at least 4, so the rows before and after a square are two rows of the table)
        # with about 4 n slots in all, or no fold (and an empty row at the end) when the map fits.
        h, w = terrain.shape
        side = max(spacing, (w + 1) / MAX_COLUMNS)
        columns, lines = math.floor(w / side) + 1, math.floor(h / side) + 1
        stride = columns + 2
        rows = 4
        while rows <= lines and planes * 2 * rows * stride <= max(4 * n, 64):
            rows *= 2
        grid = (1.0 / side, columns, lines, rows, stride, 1.0 / stride, rows <= lines)
        slots = (planes * rows + 1) * stride
        # The parts are fixed by the crowd's size, not by the threads, so the sums are too.
        parts = max(1, min(MAX_PARTS, n // SPLIT))
        # A part's counts in 16 bits while a part has fewer than 65,536 animals (up to 131,070 in
        # all): half the memory to zero, sweep and look up a frame (~0.1 ms less at 100,000).
        kind = np.uint16 if -(-n // parts) < COUNTS_16 else np.int32
        if self._counts.size != slots + 1 or self._per_part.shape[0] != parts or self._per_part.dtype != kind:
            self._counts = memory.zeros(slots + 1, np.int32)
            self._per_part = memory.zeros((parts, slots + 1), kind)
        f, k, c, per_part = self._floats, self._ints, self._counts, self._per_part
        if self._bufs.shape[0] != parts or self._bufs.shape[1] < n:
            self._bufs = memory.zeros((parts, f.shape[0], 2), np.float32)
        ends = [(j + 1) * n // parts for j in range(parts)]  # each part's animals (count, place) end there
        middle = slots // 2 // RUN * RUN  # (see _starts)
        work = np.zeros((slots + RUN) // RUN, np.int64)  # (see _starts)
        ends_arr = np.zeros((2, parts), np.int64)  # where each part's pairs end and write from (_pair_pushes)
        # Each part's own scratch for its moves, a block at a time (see _moves, _proposed).
        # (Two arrays, not eight: each array a compiled call takes from Python costs ~0.5 µs.)
        scratch = [(np.zeros((6, BLOCK)), np.zeros((8, BLOCK), np.int64)) for _ in range(parts)]
        # The columns the moves read, not all the agents' (a compiled call from Python looks at
        # every array it is given: ~1 µs each when a frame's drawing has left them out of cache).
        moving = (cols.pos, cols.cell, cols.state, cols.species, cols.aim, cols.leg)
        self._jobs = [
            (
                (lo, hi, pos, species, layer_of, grid, k, per_part[j], middle),
                (j, per_part, c, middle, work),
                (lo, hi, f, k, c, j > 0, pos),
                (j, spacing, grid, f, k, c, self._bufs[j], work, ends_arr),
                (j, n, moving, terrain, stands, k, self._bufs, ends_arr, scratch[j]),
            )
            for j, (lo, hi) in enumerate(zip([0, *ends[:-1]], ends, strict=True))
        ]

    def _abandon(self) -> None:
        """After a pass this thread never joined: its workers are left where they are, and the next
        pass gets workers, a barrier and scratch of its own. A woken worker may not have run yet
        (a busy machine): it still does its first step in the old scratch before it waits for good,
        and in the new pass's that raced with it (a test saw other positions under load)."""
        self._workers.abandon()
        self._floats = np.zeros((0, 2), np.float32)
        self._ints = np.zeros((5, 0), np.int32)
        self._counts = np.zeros(0, np.int32)
        self._per_part = np.zeros((1, 1), np.uint16)
        self._bufs = np.zeros((1, 0, 2), np.float32)
        self._moved = np.zeros(MAX_PARTS, np.int64)
        self._key = (0, 0.0, *[None] * 4)  # (laid out anew, in new arrays)

    def compile_parts(self, agents, terrain: np.ndarray, stands: np.ndarray, layer_of: np.ndarray,
                      spacing: float) -> None:  # fmt: skip
        """Compile (or load) the threaded pass's kernel (:func:`_run`) for these arrays (as
        :meth:`separate` takes them; a crowd of any size: the types are the same), without running
        it. A first start does it in a background stage (``sim.prepare``'s "rest"), so the first
        crowd large enough to be cut into parts (thousands of animals: the stress key's) finds it
        ready; until then :meth:`separate` is told to wait at Python's barrier instead."""
        if barrier.AVAILABLE and agents.n:
            self._lay_out((agents.n, spacing if spacing > 0 else 1.0, agents.columns, terrain, stands, layer_of))
            j = len(self._jobs) - 1
            args = (self._jobs[j], self._workers.state, j + 1, self._moved, j, 0)
            _run.compile(tuple(numba.typeof(x) for x in args))

    def separate(self, agents, terrain: np.ndarray, stands: np.ndarray, layer_of: np.ndarray, spacing: float,
                 threads: int | None = None, compiled_barrier: bool = barrier.AVAILABLE) -> int:  # fmt: skip
        """One pass over the whole crowd (see the module doc); returns how many moved.
        ``stands[species, terrain]``: where each species may stand; ``layer_of[species]``
        (0 .. 3). Large crowds are cut into parts (by their size alone) that run on up to
        ``threads`` threads (None: the engine's thread count); every part reads the same
        positions and the parts' sums are added in order, so the result is the same with any
        number of threads. ``compiled_barrier``: the parts wait for each other in compiled code
        (:mod:`sim.support.barrier`, where there is one: Linux on x86-64), the first on a thread
        of the crowd's own that sleeps there between frames (:func:`_run`), rather than at
        ``threading.Barrier`` on the engine's pool; the same result either way."""
        n = agents.n
        if n < 2 or spacing <= 0:
            return 0
        key = (n, spacing, agents.columns, terrain, stands, layer_of)
        if key[:2] != self._key[:2] or any(x is not y for x, y in zip(key[2:], self._key[2:], strict=True)):
            self._lay_out(key)  # else the same crowd, map and arrays as last frame: the same jobs
        jobs = self._jobs
        threads = min(len(jobs), threads or thread_count())
        if threads == 1:
            for k, step in enumerate(_STEPS[:-1]):
                for job in jobs:
                    step(*job[k])
            moved = [_moves(*job[4]) for job in jobs]
        elif compiled_barrier and barrier.AVAILABLE and threads == len(jobs):  # (a thread a part: all arrive)
            workers = self._workers
            workers.serve(jobs, self._moved)
            # The workers are woken first, then this thread's call is set up (~20 µs to look at
            # its arrays when a frame's drawing has left them out of cache) while they wake.
            barrier.release(workers.state)
            try:
                return int(_run(jobs[-1], workers.state, len(jobs), self._moved, len(jobs) - 1, 0))
            except BaseException:  # (an interrupt before the call: the workers wait in the pass)
                self._abandon()
                raise
        else:  # one hand-over a frame; every part waits for all after each pass but the last
            gate = threading.Barrier(len(jobs))

            def part(j: int) -> int:
                for k, step in enumerate(_STEPS[:-1]):
                    step(*jobs[j][k])
                    gate.wait()
                return _moves(*jobs[j][4])

            moved = run_split(part, [(j,) for j in range(len(jobs))], threads)
        return int(sum(moved))


class _Workers:
    """The threaded pass's worker threads (see _run), the jobs they serve and the barrier state
    they wait on."""

    def __init__(self) -> None:
        self.state = barrier.barrier_state()
        self.threads: list[threading.Thread] = []
        self.serving = (0, 0)  # the jobs (id) and the process (a forked child has no workers)

    def serve(self, jobs: list[tuple], moved: np.ndarray) -> None:
        """Threads for ``jobs``' parts but the last, unless they run already."""
        if self.serving == (id(jobs), os.getpid()):
            return
        self.stop()
        seen = barrier.go_word(self.state)
        for j, job in enumerate(jobs[:-1]):
            args = (job, self.state, len(jobs), moved, j, seen)
            thread = threading.Thread(target=_run, args=args, name=f"crowd-{j}", daemon=True)
            thread.start()
            self.threads.append(thread)
        self.serving = (id(jobs), os.getpid())

    def stop(self) -> None:
        """Tell the workers to return, and wait for them (a crowd laid out anew, or gone)."""
        if self.threads and self.threads[0].is_alive():
            barrier.stop(self.state)
            for thread in self.threads:
                thread.join(timeout=5.0)  # (never hang: a worker left in a pass was abandoned)
            self.state[:] = 0
        self.threads.clear()
        self.serving = (0, 0)

    def abandon(self) -> None:
        """Leave the workers where they are (waiting in a pass the caller never joined: they sleep
        on the old state for good) and give the next ones a state of their own."""
        self.threads.clear()
        self.state = barrier.barrier_state()
        self.serving = (0, 0)
