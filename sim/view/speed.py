"""Simulation speed: how many model steps a frame runs (½x, 1x, 2x, 4x, 8x).

A faster speed is the same simulation, not a bigger time step: at 2x a frame runs two
steps of the frame's ``dt``, at ½x every other frame runs one. So N frames at 2x give
exactly the state of 2N frames at 1x (same seed, same inputs), searches and all.
"""

from __future__ import annotations

SPEEDS = (0.5, 1.0, 2.0, 4.0, 8.0)


class Speed:
    """The current speed and the fraction of a step carried over between frames."""

    def __init__(self, factor: float = 1.0) -> None:
        if factor not in SPEEDS:
            raise ValueError(f"speed must be one of {', '.join(f'{s:g}' for s in SPEEDS)}, got {factor!r}")
        self.index = SPEEDS.index(factor)
        self._carry = 0.0  # exact: every factor is a power of two

    @property
    def factor(self) -> float:
        return SPEEDS[self.index]

    @property
    def label(self) -> str:
        return "½x" if self.factor == 0.5 else f"{self.factor:g}x"

    def faster(self) -> bool:
        """One level up; False when already at the fastest."""
        if self.index + 1 >= len(SPEEDS):
            return False
        self.index += 1
        return True

    def slower(self) -> bool:
        """One level down; False when already at the slowest."""
        if self.index == 0:
            return False
        self.index -= 1
        return True

    def steps(self) -> int:
        """How many model steps this frame runs."""
        self._carry += self.factor
        n = int(self._carry)
        self._carry -= n
        return n
