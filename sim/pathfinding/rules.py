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


def eight_connected(rule: int) -> bool:
    """Whether reachability under ``rule`` needs 8-connectivity.

    Only ``"always"`` can join two cells that 4-steps cannot: under the other rules a
    legal diagonal step has a passable side cell, and the two straight steps through it
    reach the same cell.
    """
    return rule == DIAG_ALWAYS
