"""Which cells a brush stroke covers, in time and memory bounded by the map, not by the stroke.

A stroke is the straight lines through its points (``(x, y)`` whole numbers), rasterised as
:func:`sim.world.world.line_cells` does (exact integer steps, rounded half to even), and a
disc of ``radius`` around every cell of them (a cell ``(x, y)`` is in the disc around
``(cx, cy)`` when ``(x-cx)² + (y-cy)² <= r² + r``). Clipping happens here, once, before
anything is allocated:

* the radius is at most the map's diagonal (a disc that large around any cell of the map
  covers the whole map, so inside the map nothing changes; around a cell far outside it,
  a larger brush would reach in further: it paints as the capped one);
* of each line, only the steps whose cells lie within the radius of the map are visited,
  found by binary search (a line may be two billion cells long, a stroke may have
  100,000 points);
* the discs are never stamped one by one: each column of line cells gives every map row
  one interval (from the nearest line cell of the column above and below it), and a
  difference array adds them up: time ``O(rows x columns)`` of the region the stroke can
  touch, plus the steps visited; memory a few bytes a cell of that region.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit
from numpy.typing import NDArray

_NONE = np.int64(-(2**62))  # "no line cell in this column above the map" (and, negated, below)


def capped_radius(radius: int, width: int, height: int) -> int:
    """The radius a stroke paints with on a ``width`` x ``height`` map (see the module doc)."""
    return min(int(radius), math.ceil(math.hypot(width, height)))


def cover(
    points: NDArray[np.int64], radius: int, width: int, height: int
) -> tuple[tuple[int, int, int, int], NDArray[np.bool_]] | None:
    """The cells a stroke covers on a ``width`` x ``height`` map: ``((x0, y0, x1, y1), mask)``
    with the mask of that rectangle (``[y, x]``, exclusive ends), or None when it misses the
    map. ``points``: (k, 2) ``x, y``, each within 10**9 of the map (checked by the caller)."""
    r = capped_radius(radius, width, height)
    pts = np.ascontiguousarray(points, dtype=np.int64).reshape(-1, 2)
    box = np.zeros(4, np.int64)
    mask = _cover(pts, r, width, height, box)
    if mask.shape[0] == 0:
        return None
    x0, y0, x1, y1 = (int(v) for v in box)
    return (x0, y0, x1, y1), mask


@njit(cache=True, nogil=True, inline="always")
def _rounded(q: int, rem: int, steps: int) -> int:
    """q + rem / steps (0 <= rem < steps) rounded half to even."""
    twice = 2 * rem
    return q + 1 if twice > steps or (twice == steps and q % 2 == 1) else q


@njit(cache=True, nogil=True)
def _cell(a: int, b: int, s: int, steps: int) -> int:
    """Step ``s`` of ``steps`` from ``a`` to ``b``, rounded half to even (exactly: integers
    only, no float; |b - a| and steps are at most ~2e9, their product fits in 63 bits)."""
    num = (b - a) * s  # the exact offset is num / steps
    q = num // steps
    return a + _rounded(q, num - q * steps, steps)


@njit(cache=True, nogil=True)
def _steps_within(a: int, b: int, steps: int, lo: int, hi: int) -> tuple[int, int]:
    """The steps s in [0, steps] whose coordinate ``_cell(a, b, s, steps)`` lies in [lo, hi):
    one interval, as the coordinate is monotone in s (empty when first > last). Binary
    searches: ~31 evaluations, however long the line."""
    if a == b:
        return (0, steps) if lo <= a < hi else (1, 0)
    sign = 1 if b > a else -1
    # first: the least s whose coordinate (times sign) reaches the band's near edge
    near, far = (lo, hi - 1) if sign > 0 else (hi - 1, lo)
    first = _least(a, b, steps, sign, sign * near)
    last = _least(a, b, steps, sign, sign * far + 1) - 1
    return first, last


@njit(cache=True, nogil=True)
def _least(a: int, b: int, steps: int, sign: int, bound: int) -> int:
    """The least s in [0, steps + 1] with sign * _cell(a, b, s, steps) >= bound (steps + 1: none)."""
    lo, hi = 0, steps + 1
    while lo < hi:
        mid = (lo + hi) // 2
        if sign * _cell(a, b, mid, steps) >= bound:
            hi = mid
        else:
            lo = mid + 1
    return lo


@njit(cache=True, nogil=True)
def _cover(pts, r, width, height, box):
    wide = width + 2 * r  # the columns a line cell may be in and still reach the map
    # A line between two points stays within their rows, so only the map's rows between the
    # stroke's lowest and highest point can hold a line cell: ``rows`` keeps those, from ``oy``
    # (a disc's stroke: one row, not a map-sized array to clear every time the brush moves).
    ymin, ymax = pts[0, 1], pts[0, 1]
    for i in range(1, pts.shape[0]):
        ymin, ymax = min(ymin, pts[i, 1]), max(ymax, pts[i, 1])
    oy = min(max(ymin, 0), height)
    rows = np.zeros((max(min(ymax + 1, height) - oy, 0), wide), np.bool_)  # line cells by row from oy, by column
    top = np.full(wide, _NONE)  # per column, the lowest line cell above the map (y < 0)
    bottom = np.full(wide, -_NONE)  # and the highest below it (y >= height)
    used = np.zeros(wide, np.bool_)
    _rasterise(pts, r, width, height, rows, oy, top, bottom, used)
    return _discs(r, width, height, rows, oy, top, bottom, used, box)


@njit(cache=True, nogil=True)
def _rasterise(pts, r, width, height, rows, oy, top, bottom, used):
    """Every cell of the stroke's lines within the map grown by r, into its column's sources."""
    lox, hix, loy, hiy = -r, width + r, -r, height + r
    for i in range(pts.shape[0]):  # the first point, then each line's steps after its start
        a, b = pts[max(i - 1, 0), 0], pts[max(i - 1, 0), 1]
        c, d = pts[i, 0], pts[i, 1]
        steps = max(abs(c - a), abs(d - b))
        if i == 0:
            steps, first, last = 1, 1, 1 if lox <= c < hix and loy <= d < hiy else 0
        elif steps == 0:
            continue
        else:
            f0, l0 = _steps_within(a, c, steps, lox, hix)
            f1, l1 = _steps_within(b, d, steps, loy, hiy)
            first, last = max(1, f0, f1), min(l0, l1)
        # Step by step without a division: delta * s = q * steps + rem, kept exact. (Written
        # out here: numba's inlining of a helper made this loop ten times slower.)
        dx, dy = c - a, d - b
        qx, qy = (dx * first) // steps, (dy * first) // steps
        rx, ry = dx * first - qx * steps, dy * first - qy * steps
        for _s in range(first, last + 1):
            cx = a + qx + (1 if 2 * rx > steps or (2 * rx == steps and qx % 2 == 1) else 0)  # half to even
            cy = b + qy + (1 if 2 * ry > steps or (2 * ry == steps and qy % 2 == 1) else 0)
            q = cx + r
            if cy < 0:
                top[q] = max(top[q], cy)
            elif cy >= height:
                bottom[q] = min(bottom[q], cy)
            else:
                rows[cy - oy, q] = True
            used[q] = True
            rx += dx
            if rx >= steps:
                rx -= steps
                qx += 1
            elif rx < 0:
                rx += steps
                qx -= 1
            ry += dy
            if ry >= steps:
                ry -= steps
                qy += 1
            elif ry < 0:
                ry += steps
                qy -= 1


@njit(cache=True, nogil=True)
def _discs(r, width, height, rows, oy, top, bottom, used, box):
    """The mask of the cells within the brush of a source, over the rectangle written to ``box``."""
    qs = np.flatnonzero(used)
    ny = rows.shape[0]  # the map's rows oy .. oy + ny - 1; no line cell in any other
    if qs.size == 0:
        return np.zeros((0, 0), np.bool_)
    # The rectangle the discs can touch: the line cells' columns and rows, grown by r, on the map.
    x0, x1 = max(0, qs[0] - 2 * r), min(width, qs[-1] + 1)
    ylo, yhi = height, -1
    for q in qs:
        if top[q] != _NONE:
            ylo = min(ylo, top[q])
        if bottom[q] != -_NONE:
            yhi = max(yhi, bottom[q])
        for yy in range(ny):
            if rows[yy, q]:
                ylo, yhi = min(ylo, oy + yy), max(yhi, oy + yy)
                break
        for yy in range(ny - 1, -1, -1):
            if rows[yy, q]:
                ylo, yhi = min(ylo, oy + yy), max(yhi, oy + yy)
                break
    y0, y1 = max(0, ylo - r), min(height, yhi + r + 1)
    if x0 >= x1 or y0 >= y1:
        return np.zeros((0, 0), np.bool_)
    r2 = r * r + r
    half = np.empty(r + 1, np.int64)  # half[dy]: the disc's half-width dy rows from its centre
    for dy in range(r + 1):
        w = int(math.sqrt(r2 - dy * dy))  # corrected to the exact integer root below
        while w * w > r2 - dy * dy:
            w -= 1
        while (w + 1) * (w + 1) <= r2 - dy * dy:
            w += 1
        half[dy] = w
    diff = np.zeros((y1 - y0, x1 - x0 + 1), np.int32)
    for q in qs:  # every column of line cells: for each row, its nearest line cell's disc
        cx = q - r
        above = top[q]  # the nearest line cell at or above the row, scanning down
        for yy in range(min(y0, oy), y1):  # (above oy, no row has a line cell)
            if oy <= yy < oy + ny and rows[yy - oy, q]:
                above = yy
            if yy >= y0:
                _interval(diff, yy - y0, yy - above, cx, r, half, x0, x1)
        below = bottom[q]
        for yy in range(max(y1, oy + ny) - 1, y0 - 1, -1):  # (below oy + ny, no line cell either)
            if oy <= yy < oy + ny and rows[yy - oy, q]:
                below = yy
            if yy < y1:
                _interval(diff, yy - y0, below - yy, cx, r, half, x0, x1)
    mask = np.empty((y1 - y0, x1 - x0), np.bool_)
    for yy in range(y1 - y0):
        run = 0
        for xx in range(x1 - x0):
            run += diff[yy, xx]
            mask[yy, xx] = run > 0
    box[0], box[1], box[2], box[3] = x0, y0, x1, y1
    return mask


@njit(cache=True, nogil=True, inline="always")
def _interval(diff, row, dy, cx, r, half, x0, x1):
    """Row ``row`` is covered from ``cx - w`` to ``cx + w`` by a line cell ``dy`` rows away."""
    if 0 <= dy <= r:
        w = half[dy]
        lo, hi = max(cx - w, x0), min(cx + w + 1, x1)
        if lo < hi:
            diff[row, lo - x0] += 1
            diff[row, hi - x0] -= 1
