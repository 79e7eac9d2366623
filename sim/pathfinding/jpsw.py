"""Weighted terrain for jump point search (JPSW: Carlson, Moghadam, Harabor, Stuckey & Ebrahimi,
"Optimal Pathfinding on Weighted Grid Maps", AAAI 2023), on this engine's costs: a step costs
its length times the multiplier of the cell it enters.

JPS keeps, of all optimal paths, those first in a canonical order; JPSW's order, used here, is
(cost, number of steps, then "diagonal first" — an "orthogonal last" tie-break: at the first
step where two paths differ, the diagonal one comes first). A path first in that order has
every prefix first in it too, so at a cell ``y`` entered from ``p`` a step to neighbour ``n``
can be pruned when some other path from ``p`` to ``n`` that avoids ``y`` comes before
``p -> y -> n``: it costs less, or as much in fewer steps, or as much in as many steps and
is diagonal first. :func:`successor_table` applies that rule with every such path of one or
two steps, per cell and arrival direction, to the grid's real multipliers and walls. On a
grid of one multiplier it gives JPS's natural and forced neighbours exactly.

A jump goes on through a cell while its successors there are only the natural ones of its
direction, and also stops before a cell of another multiplier, so each run costs one
multiplier per leg (a diagonal leg, then a straight one): :mod:`.jps` prices it from the
turning point and the end. :func:`weighted_blocks` gives :mod:`.jps` the table with the grid's
bits: planes 0-3 the free cells (as for uniform grids), 4-7 the cells where a straight scan
in that orientation stops, and from plane 8 on one uint64 per padded cell whose byte ``d`` is
its successor directions when entered by direction ``d``. No successor set holds the way back,
so for a diagonal ``d`` that bit is a flag instead: the next cell that way has another
multiplier (the diagonal jump stops here). The search reads only the table and the bits, never
the multipliers, so it runs as fast on uniform grids as it did before weighted ones were served.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.pathfinding.jps import PLANES, build_blocks
from sim.pathfinding.rules import DX, DY

_LEN = np.array((1.0, 1.0, 1.0, 1.0, np.sqrt(2.0), np.sqrt(2.0), np.sqrt(2.0), np.sqrt(2.0)))


@njit(cache=True, inline="always")
def _legal(wts, x, y, dx, dy):
    """Whether the step from the free cell ``(x, y)`` of the block ``wts`` (multipliers ``[y, x]``,
    0 = blocked) by ``(dx, dy)`` is legal (no corner cutting)."""
    if wts[y + dy, x + dx] <= 0.0:
        return False
    return dx == 0 or dy == 0 or (wts[y, x + dx] > 0.0 and wts[y + dy, x] > 0.0)


@njit(cache=True, inline="always")
def _k_of(dx, dy):
    for k in range(8):
        if DX[k] == dx and DY[k] == dy:
            return k
    return -1


@njit(cache=True, inline="always")
def _before(cost, steps, diag1, diag2, via_cost, via_diag1, via_diag2):
    """Whether a detour (``cost``, ``steps``, first and second step diagonal?) comes before the
    two-step path through the cell in the canonical order."""
    if cost != via_cost:
        return cost < via_cost
    if steps != 2:
        return steps < 2
    if diag1 != via_diag1:
        return diag1
    return diag2 and not via_diag2


@njit(cache=True)
def _cell_successors(wts, d):
    """The successor directions (8 bits) of the centre of ``wts`` (the 5x5 block of multipliers
    around a free cell, ``[y, x]``) entered by direction ``d``."""
    x = y = 2
    px, py = x - DX[d], y - DY[d]
    out = 0
    for k in range(8):
        if not _legal(wts, x, y, DX[k], DY[k]):
            continue
        nx, ny = x + DX[k], y + DY[k]
        if nx == px and ny == py:
            continue  # back where it came from
        wn = wts[ny, nx]
        via = _LEN[d] * wts[y, x] + _LEN[k] * wn
        via_d1, via_d2 = d >= 4, k >= 4
        pruned = False
        ex, ey = nx - px, ny - py
        if abs(ex) <= 1 and abs(ey) <= 1 and _legal(wts, px, py, ex, ey):
            j = _k_of(ex, ey)
            pruned = _before(_LEN[j] * wn, 1, j >= 4, False, via, via_d1, via_d2)
        for j in range(8):
            if pruned:
                break
            mx, my = px + DX[j], py + DY[j]
            if (mx == x and my == y) or (mx == nx and my == ny) or abs(nx - mx) > 1 or abs(ny - my) > 1:
                continue
            if _legal(wts, px, py, DX[j], DY[j]) and _legal(wts, mx, my, nx - mx, ny - my):
                j2 = _k_of(nx - mx, ny - my)
                pruned = _before(_LEN[j] * wts[my, mx] + _LEN[j2] * wn, 2, j >= 4, j2 >= 4, via, via_d1, via_d2)
        if not pruned:
            out |= 1 << k
    return out


@njit(cache=True)
def _walled_successors(wts, d):
    """:func:`_cell_successors` where every free cell of ``wts`` has one multiplier: JPS's own
    rules, which the general one gives there (a test compares them). Straight: on, and each side
    with its diagonal when the cell behind the side is blocked; diagonal: itself and its two parts.
    Only legal steps count."""
    dx, dy = DX[d], DY[d]
    if dx != 0 and dy != 0:
        out = 0
        for k in (d, _k_of(dx, 0), _k_of(0, dy)):
            if _legal(wts, 2, 2, DX[k], DY[k]):
                out |= 1 << k
        return out
    out = (1 << d) if _legal(wts, 2, 2, dx, dy) else 0
    for side in (-1, 1):
        sx, sy = (0, side) if dx != 0 else (side, 0)  # the side, across the direction
        if wts[2 + sy - dy, 2 + sx - dx] <= 0.0:  # the cell behind the side is blocked: forced
            for kx, ky in ((sx, sy), (sx + dx, sy + dy)):
                if _legal(wts, 2, 2, kx, ky):
                    out |= 1 << _k_of(kx, ky)
    return out


@njit(cache=True)
def _block(codes, lut, width, x, y, wts):
    """Fill ``wts`` with the 5x5 block of multipliers around ``(x, y)`` (0 outside the grid).
    Returns 2 when they are all one free multiplier (then the successors are JPS's natural
    ones, as every rule above only reads that block), 1 when the free ones are, 0 otherwise."""
    height = codes.size // width
    w0 = lut[codes[y * width + x]]
    one, free_one = True, True
    for yy in range(5):
        for xx in range(5):
            cx, cy = x + xx - 2, y + yy - 2
            v = lut[codes[cy * width + cx]] if 0 <= cx < width and 0 <= cy < height else 0.0
            wts[yy, xx] = v
            one = one and v == w0
            free_one = free_one and (v == w0 or v <= 0.0)
    return 2 if one else 1 if free_one else 0


@njit(cache=True)
def _key(codes, width, height, x, y):
    """The codes of the 5x5 block around ``(x, y)`` (0 outside the grid), a byte each, as four
    words ``k0 .. k3`` after whether they all fit a byte: ``(fits, k0, k1, k2, k3)``."""
    k0 = k1 = k2 = k3 = np.uint64(0)
    for j in range(25):
        cx, cy = x + j % 5 - 2, y + j // 5 - 2
        c = np.int64(codes[cy * width + cx]) if 0 <= cx < width and 0 <= cy < height else 0
        if c > 255:
            return False, k0, k1, k2, k3
        v = np.uint64(c) << np.uint64(8 * (j & 7))
        if j < 8:
            k0 |= v
        elif j < 16:
            k1 |= v
        elif j < 24:
            k2 |= v
        else:
            k3 |= v
    return True, k0, k1, k2, k3


@njit(cache=True)
def _find(table, bits, k0, k1, k2, k3):
    """Where the block of codes ``k0 .. k3`` (:func:`_key`) is in the lookup rows of ``table``
    (from row 512 on, ``2**bits`` of them): ``(slot, found)``; the slot is free when not found,
    -1 when neither it nor a free one is within 8 of where its hash points."""
    h = k0 * np.uint64(0x9E3779B97F4A7C15) ^ k1 * np.uint64(0xC2B2AE3D27D4EB4F)
    h ^= k2 * np.uint64(0x165667B19E3779F9) ^ k3 * np.uint64(0x27D4EB2F165667C5)
    s = np.int64(h >> np.uint64(64 - bits))
    for _ in range(8):
        row = table[512 + s]
        if row[4] == 0:
            return s, False
        if row[0] == k0 and row[1] == k1 and row[2] == k2 and row[3] == k3:
            return s, True
        s = (s + 1) & ((1 << bits) - 1)
    return -1, False


@njit(cache=True)
def _entry(wts, walled):
    """A free cell's entry from its 5x5 block ``wts``: a byte of successors per arrival direction
    (255: never entered that way); ``walled``: the block's free cells have one multiplier (JPS's
    own rules, :func:`_walled_successors`)."""
    word = np.uint64(0)
    for d in range(8):
        if wts[2 - DY[d], 2 - DX[d]] > 0.0 and _legal(wts, 2 - DX[d], 2 - DY[d], DX[d], DY[d]):
            succ = _walled_successors(wts, d) if walled else _cell_successors(wts, d)
            word |= np.uint64(succ) << np.uint64(8 * d)
        else:
            word |= np.uint64(255) << np.uint64(8 * d)
    for d in range(4, 8):  # a diagonal jump stops before another multiplier: the flag is the way back's bit
        ahead = wts[2 + DY[d], 2 + DX[d]]
        if ahead > 0.0 and ahead != wts[2, 2]:
            word |= np.uint64(1 << (11 - d)) << np.uint64(8 * d)
    return word


@njit(cache=True)
def _walls(wts):
    """The 3x3 around the centre of ``wts`` as 9 bits, one a free cell: all JPS's own rules read."""
    walls = 0
    for j in range(9):
        walls |= (1 << j) if wts[1 + j // 3, 1 + j % 3] > 0.0 else 0
    return walls


#: :func:`_key`'s answer where nothing is looked up.
_NO_KEY = (False, np.uint64(0), np.uint64(0), np.uint64(0), np.uint64(0))


@njit(cache=True)
def successor_table(codes, lut, width, out, stops, y0, y1, x0, x1, general=False):
    """For the padded cells ``y0 <= y < y1``, ``x0 <= x < x1``: ``out[i]`` (uint64) gets, in
    byte ``d``, the successor directions of cell ``i`` entered by direction ``d``; ``stops[o,
    y, x]`` (bool, orientation ``o`` = straight direction 0-3) whether a straight jump that
    way stops at the cell: it has a successor besides going on, or the next cell that way
    is free and of another multiplier. A cell's entries read its 5x5 block: after a change, call
    it on the change grown by 2. ``general``: the general rule everywhere, nothing looked up (for
    tests). Terrain repeats its blocks, so an entry is worked out once a call and looked up after
    that: by the 3x3 walls around a cell where JPS's own rules apply (rows 0-511 of a table), else
    by the block's codes (a hash table after them; where blocks hardly repeat it stops looking)."""
    height = codes.size // width
    natural = np.uint64(0)
    for d in range(8):  # JPS's natural neighbours: the direction, and a diagonal's two parts
        nat = (1 << d) | (((1 << _k_of(DX[d], 0)) | (1 << _k_of(0, DY[d]))) if d >= 4 else 0)
        natural |= np.uint64(nat) << np.uint64(8 * d)
    wts = np.zeros((5, 5))
    bits = 6  # the hash table's slots: about twice as many as cells, at most 2**14
    while bits < 14 and (1 << bits) < 2 * max(y1 - y0, 1) * max(x1 - x0, 1):
        bits += 1
    table = np.zeros((512 + (1 << bits), 5), np.uint64)  # (an entry is never 0: an empty row or slot)
    memo, looked, hits = not general, 0, 0
    for y in range(max(y0, 1), min(y1, height - 1)):
        for x in range(max(x0, 1), min(x1, width - 1)):
            i = y * width + x
            w0 = lut[codes[i]]
            for o in range(4):
                ahead = lut[codes[i + DX[o] + DY[o] * width]]
                stops[o, y, x] = w0 > 0.0 and ahead > 0.0 and ahead != w0
            if w0 <= 0.0:
                out[i] = 0
                continue
            fits, k0, k1, k2, k3 = _key(codes, width, height, x, y) if memo else _NO_KEY
            slot, found = _find(table, bits, k0, k1, k2, k3) if fits else (-1, False)
            looked, hits = looked + fits, hits + found
            memo = memo and not (looked == 4096 and hits < 2048)  # blocks hardly repeat (scattered walls)
            if found:
                word = table[512 + slot, 4]
            else:
                kind = _block(codes, lut, width, x, y, wts)
                walls = _walls(wts) if kind == 1 and not general else -1
                word = natural if kind == 2 else (table[walls, 4] if walls >= 0 else np.uint64(0))
                if word == 0:
                    word = _entry(wts, walls >= 0)
                    if walls >= 0:
                        table[walls, 4] = word
                if slot >= 0:
                    table[512 + slot, 0], table[512 + slot, 1], table[512 + slot, 2] = k0, k1, k2
                    table[512 + slot, 3], table[512 + slot, 4] = k3, word
            out[i] = word
            for o in range(4):
                stops[o, y, x] |= (word >> np.uint64(8 * o)) & np.uint64(255 & ~(1 << o)) != np.uint64(0)


def weighted_blocks(codes: np.ndarray, lut: np.ndarray, width: int) -> tuple[np.ndarray, np.ndarray]:
    """The JPS data of a weighted padded grid (``codes``/``lut`` as the kernels take them; see
    the module's docstring): uint64 ``(PLANES + k, 1, words)``: the planes of
    :func:`.jps.build_blocks` with the straight stops, then the successor table (one word per
    padded cell, over as many planes as it needs); and the stops (bool ``(4, H, W)``), which
    :func:`repair_weighted_blocks` needs."""
    height = codes.size // width
    stops = np.zeros((4, height, width), np.bool_)
    bits = build_blocks(np.zeros((height, width), np.bool_), stops)
    per = bits.shape[1] * bits.shape[2]
    out = np.zeros((PLANES + -(-codes.size // per), bits.shape[1], bits.shape[2]), np.uint64)
    repair_weighted_blocks(out, stops, codes, lut, width, 0, 0, width, height)
    return out, stops


def repair_weighted_blocks(blocks: np.ndarray, stops: np.ndarray, codes: np.ndarray, lut: np.ndarray, width: int,
                           x0: int, y0: int, x1: int, y1: int) -> None:  # fmt: skip
    """Bring :func:`weighted_blocks`' data up to date after the padded cells ``x0 <= x < x1``,
    ``y0 <= y < y1`` changed: the table and stops of the cells whose 5x5 block holds one, then
    the bit planes (~3 ms on a 512x512 grid)."""
    height = codes.size // width
    table = blocks.reshape(-1)[PLANES * blocks.shape[1] * blocks.shape[2] :][: codes.size]
    successor_table(codes, lut, width, table, stops, y0 - 2, y1 + 2, x0 - 2, x1 + 2)
    blocks[:PLANES] = build_blocks((lut[codes] > 0).reshape(height, width), stops)
