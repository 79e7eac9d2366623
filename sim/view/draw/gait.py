"""What each animal's sprite shows this frame: which way it faces and which animation frame.

Numpy over the whole crowd, no Python per animal. The model's heading (8 directions, the
next path step's) is the target; the drawn heading turns toward it at :attr:`Gait.TURN`
radians per second of model time, in 16 steps. Moving frames advance with the distance
walked (so half speed walks at half the pace, and a paused model stands still); resting
frames (a cow grazing, a fish drifting) advance with the model's clock. A flier glides
every other stretch of its cycle. Nothing here changes the model.
"""

from __future__ import annotations

import math

import numpy as np

from sim.model.agents import HEADINGS, State
from sim.view.draw.sprites import TURNS


class Gait:
    """Per-animal drawing state: facing angle and distance walked, kept between frames."""

    TURN = 3.0 * math.pi  # radians a second of model time
    STEPS_PER_CELL = 2.5  # moving frames per cell walked
    REST_FPS = 1.5  # resting frames per second of model time

    def __init__(self) -> None:
        self.angle = np.zeros(0)
        self.stride = np.zeros(0)
        self.last_pos = np.zeros((0, 2))
        self.last_time = 0.0

    def _reset(self, heading: np.ndarray, pos: np.ndarray, time: float) -> None:
        self.angle = heading.astype(np.float64) * (2 * math.pi / HEADINGS)
        self.stride = np.zeros(heading.size)
        self.last_pos = pos.copy()
        self.last_time = time

    def frames(
        self, pos: np.ndarray, heading: np.ndarray, state: np.ndarray, species: np.ndarray, time: float,
        moving: np.ndarray, resting: np.ndarray, glide: np.ndarray,
    ) -> np.ndarray:  # fmt: skip
        """Each animal's sprite within its species' sheet: ``frame * TURNS + heading``.

        ``pos`` (n, 2) cells, ``heading`` the model's (0 .. 7), ``state`` the agents' states,
        ``time`` the model's seconds; per species: ``moving``/``resting`` frame counts and
        ``glide`` (its moving cycle alternates flapping with the first resting frame)."""
        n = heading.size
        if self.angle.size != n or time < self.last_time:  # animals came or went, or a reset
            self._reset(heading, pos, time)
        dt = time - self.last_time
        target = heading.astype(np.float64) * (2 * math.pi / HEADINGS)
        diff = (target - self.angle + math.pi) % (2 * math.pi) - math.pi
        self.angle = (self.angle + np.clip(diff, -self.TURN * dt, self.TURN * dt)) % (2 * math.pi)
        walked = np.hypot(*(pos - self.last_pos).T)
        self.stride += np.minimum(walked, 2.0)  # a jump (a map edit moved it) is not a walk
        self.last_pos = pos.copy()
        self.last_time = time
        turn = np.rint(self.angle * (TURNS / (2 * math.pi))).astype(np.int64) % TURNS
        m, r = moving[species], resting[species]
        step = (self.stride * self.STEPS_PER_CELL).astype(np.int64)
        cycle = np.where(glide[species], 2 * m, m)
        at = step % cycle
        flapping = np.where(at < m, at, m)  # past the flaps: the glide, the first resting frame
        rest = m + (np.int64(time * self.REST_FPS) + np.arange(n) * 7 // 5) % r
        frame = np.where(state == State.WALKING, flapping, rest)
        return frame * TURNS + turn
