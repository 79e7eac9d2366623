"""The sprites' animation: frames advance with distance walked (and with model time when
resting), the drawn heading turns smoothly in 16 steps, and a paused model stands still."""

from __future__ import annotations

import itertools
import math

import numpy as np

from sim.model.agents import State
from sim.view.draw.gait import Gait
from sim.view.draw.sprites import TURNS

MOVING, RESTING, GLIDE = np.array([4, 4]), np.array([2, 1]), np.array([False, True])


def run(gait, pos, heading, state, species, time):
    return gait.frames(pos, heading, state, species, time, MOVING, RESTING, GLIDE)


def test_walking_frames_follow_the_distance_not_the_clock():
    gait = Gait()
    species = np.zeros(2, np.int64)
    state = np.full(2, State.WALKING)
    heading = np.zeros(2, np.int8)
    pos = np.zeros((2, 2))
    run(gait, pos, heading, state, species, 0.0)
    seen = [[], []]
    for step in range(1, 41):  # animal 1 walks twice as fast as animal 0
        pos[:, 0] = (step * 0.1, step * 0.2)
        k = run(gait, pos, heading, state, species, step / 30)
        for i in range(2):
            seen[i].append(int(k[i]) // TURNS)
    # Frames per cell walked are the same for both: 4 cells and 8 cells walked.
    changes = [sum(a != b for a, b in itertools.pairwise(s)) for s in seen]
    assert changes[1] >= 1.8 * changes[0] > 0
    assert set(seen[0]) == {0, 1, 2, 3}
    # Paused: the clock and the positions stand still, so does every frame.
    k1 = run(gait, pos, heading, state, species, 40 / 30)
    k2 = run(gait, pos, heading, state, species, 40 / 30)
    assert np.array_equal(k1, k2)


def test_resting_frames_follow_the_model_clock():
    gait = Gait()
    species = np.zeros(3, np.int64)
    state = np.full(3, State.IDLE)
    pos, heading = np.zeros((3, 2)), np.zeros(3, np.int8)
    frames = {int(run(gait, pos, heading, state, species, t)[0]) // TURNS for t in np.arange(0, 4, 0.1)}
    assert frames == {4, 5}  # the two resting frames after the four moving ones
    at = run(Gait(), pos, heading, state, species, 0.0) // TURNS
    assert len(set(at.tolist())) > 1  # not all in step


def test_the_drawn_heading_turns_through_the_steps_between():
    gait = Gait()
    species = np.zeros(1, np.int64)
    state = np.full(1, State.IDLE)
    pos = np.zeros((1, 2))
    run(gait, pos, np.array([0], np.int8), state, species, 0.0)  # facing east
    turns = []
    t = 0.0
    for _ in range(30):
        t += 1 / 60
        turns.append(int(run(gait, pos, np.array([4], np.int8), state, species, t)[0]) % TURNS)  # now west
    assert turns[-1] == 8  # west: 8 of 16
    assert len(set(turns)) >= 6  # passing through the headings between, not a jump
    reached = next(i for i, h in enumerate(turns) if h == 8)
    assert abs((reached + 1) / 60 - math.pi / Gait.TURN) < 0.1


def test_fliers_glide_between_flaps():
    gait = Gait()
    species = np.ones(1, np.int64)
    state = np.full(1, State.WALKING)
    pos, heading = np.zeros((1, 2)), np.zeros(1, np.int8)
    run(gait, pos, heading, state, species, 0.0)
    frames = []
    for step in range(1, 80):
        pos[0, 0] = step * 0.1
        frames.append(int(run(gait, pos, heading, state, species, step / 60)[0]) // TURNS)
    assert set(frames) == {0, 1, 2, 3, 4}  # four flaps and the glide (the resting frame)
    assert frames.count(4) > len(frames) // 3
