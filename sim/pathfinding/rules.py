"""Movement rules on the grid: which diagonal steps are legal. One owner for the whole project.

The compiled kernels, the pure-Python reference search, region labelling and
re-planning after painting all ask :func:`diagonal_allowed` (numba calls it inline;
Python callers use it directly), so the rule can never disagree between them.

A diagonal step from ``(x, y)`` to ``(x + dx, y + dy)`` squeezes between the two
orthogonal "side" cells ``(x + dx, y)`` and ``(x, y + dy)``:

* ``"never"``: no diagonal steps (4-connected);
* ``"no-corner-cutting"``: both side cells must be passable (the Moving AI rule);
* ``"one-obstacle"``: at least one side cell must be passable;
* ``"always"``: diagonal steps are always allowed (8-connected).
"""

from __future__ import annotations

import numpy as np
from numba import njit

DIAG_NEVER = 0
DIAG_NO_CORNER_CUTTING = 1
DIAG_ONE_OBSTACLE = 2
DIAG_ALWAYS = 3

#: Rule names (as in config files and the API) -> the kernels' rule codes.
DIAGONAL_RULES: dict[str, int] = {
    "never": DIAG_NEVER,
    "no-corner-cutting": DIAG_NO_CORNER_CUTTING,
    "one-obstacle": DIAG_ONE_OBSTACLE,
    "always": DIAG_ALWAYS,
}


#: The 8 directions: k = 0..3 straight (east, west, south, north; y grows downward),
#: 4..7 diagonal. A step in direction k moves by (DX[k], DY[k]).
DX = np.array((1, -1, 0, 0, 1, -1, 1, -1), dtype=np.int64)
DY = np.array((0, 0, 1, -1, 1, 1, -1, -1), dtype=np.int64)
NO_PARENT = 8  # "no direction": the start of a search


@njit(cache=True, inline="always")
def diagonal_allowed(rule, side_a_free, side_b_free):
    """Whether a diagonal step may pass between its two side cells (``True`` = passable)."""
    if rule == DIAG_ALWAYS:
        return True
    if rule == DIAG_NO_CORNER_CUTTING:
        return side_a_free and side_b_free
    if rule == DIAG_ONE_OBSTACLE:
        return side_a_free or side_b_free
    return False


def moves_of(codes: np.ndarray, lut: np.ndarray, width: int, rule: int) -> np.ndarray:
    """:func:`build_moves` over the whole padded grid, with numpy (nothing to compile): the
    first searches of a process whose kernels are still compiling use it."""
    free = (lut[codes] > 0.0).reshape(-1, width)
    h = free.shape[0]
    moves = np.zeros((h, width), dtype=np.uint8)
    inner = (slice(1, h - 1), slice(1, width - 1))

    def at(dx: int, dy: int) -> np.ndarray:
        return free[1 + dy : h - 1 + dy, 1 + dx : width - 1 + dx]

    here = free[inner]
    for k in range(4 if rule == DIAG_NEVER else 8):
        dx, dy = int(DX[k]), int(DY[k])
        legal = here & at(dx, dy)
        if k >= 4:
            a, b = at(dx, 0), at(0, dy)
            side = {DIAG_ALWAYS: True, DIAG_NO_CORNER_CUTTING: a & b, DIAG_ONE_OBSTACLE: a | b}[rule]
            legal &= side
        moves[inner] |= legal.astype(np.uint8) << k
    return moves.reshape(-1)


def eight_connected(rule: int) -> bool:
    """Whether reachability under ``rule`` needs 8-connectivity.

    Only ``"always"`` can join two cells that 4-steps cannot: under the other rules a
    legal diagonal step has a passable side cell, and the two straight steps through it
    reach the same cell.
    """
    return rule == DIAG_ALWAYS


@njit(cache=True)
def build_moves(codes, lut, width, rule, moves, y0, y1, x0, x1):
    """Fill ``moves`` (padded, flattened, uint8) for the padded rows ``y0 <= y < y1`` and
    columns ``x0 <= x < x1``: bit k of ``moves[i]`` is set when the step from cell ``i`` in
    direction k is legal (both cells passable and, for a diagonal, ``diagonal_allowed``).

    ``codes``/``lut`` as in the kernels: a cell is passable where ``lut[codes[i]] > 0``.
    Call it on the changed cells grown by one: a cell's moves depend on its neighbours.
    """
    n_dirs = 4 if rule == DIAG_NEVER else 8
    for y in range(max(y0, 1), min(y1, codes.size // width - 1)):
        for x in range(max(x0, 1), min(x1, width - 1)):
            i = y * width + x
            m = 0
            if lut[codes[i]] > 0.0:
                for k in range(n_dirs):
                    v = i + DX[k] + DY[k] * width
                    if lut[codes[v]] <= 0.0:
                        continue
                    if k >= 4 and not diagonal_allowed(
                        rule, lut[codes[i + DX[k]]] > 0.0, lut[codes[i + DY[k] * width]] > 0.0
                    ):
                        continue
                    m |= 1 << k
            moves[i] = m


@njit(cache=True)
def step_legal(moves, width, p, q):
    """Whether the step from padded cell ``p`` to the adjacent padded cell ``q`` is legal."""
    d = q - p
    for k in range(8):
        if DX[k] + DY[k] * width == d:
            return (moves[p] >> k) & 1 == 1
    return False
