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
from numba import njit

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
        out = np.empty(n, np.int64)
        _frames(pos, heading, state, species, self.angle, self.stride, self.last_pos, dt, time, moving, resting,
                glide, self.TURN, self.STEPS_PER_CELL, self.REST_FPS, int(State.WALKING), out)  # fmt: skip
        self.last_time = time
        return out


@njit(cache=True, nogil=True)
def _frames(pos, heading, state, species, angle, stride, last_pos, dt, time, moving, resting, glide, turn_rate,
            steps_per_cell, rest_fps, walking, out):  # fmt: skip
    """:meth:`Gait.frames` for every animal in one pass (~20 numpy passes were 0.1 ms a frame at
    500 animals): turns ``angle`` toward the heading, adds the distance walked to ``stride``,
    moves ``last_pos`` to ``pos`` and writes each sprite index into ``out``."""
    tau = 2.0 * math.pi
    step_angle = tau / HEADINGS
    limit = turn_rate * dt
    rest_tick = np.int64(time * rest_fps)
    for i in range(heading.size):
        diff = (heading[i] * step_angle - angle[i] + math.pi) % tau - math.pi
        angle[i] = (angle[i] + min(max(diff, -limit), limit)) % tau
        walked = math.hypot(pos[i, 0] - last_pos[i, 0], pos[i, 1] - last_pos[i, 1])
        stride[i] += min(walked, 2.0)  # a jump (a map edit moved it) is not a walk
        last_pos[i, 0] = pos[i, 0]
        last_pos[i, 1] = pos[i, 1]
        turn = np.int64(np.rint(angle[i] * (TURNS / tau))) % TURNS
        sp = species[i]
        m, r = moving[sp], resting[sp]
        if state[i] == walking:
            cycle = 2 * m if glide[sp] else m
            at = np.int64(stride[i] * steps_per_cell) % cycle
            frame = at if at < m else m  # past the flaps: the glide, the first resting frame
        else:
            frame = m + (rest_tick + i * 7 // 5) % r
        out[i] = frame * TURNS + turn
