"""The compiled barrier the separation's parts wait at (sim.support.spin): parts on threads that
each finish a step before any starts the next see everything the others wrote in it, whatever
order the threads run in."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from numba import njit

from sim.support.spin import arrive_and_wait


@njit(nogil=True)
def _steps(j, parts, steps, seen, counter):
    """Part ``j``: at each step, write its mark, wait for all, then count the marks it sees."""
    for s in range(steps):
        seen[s, 0, j] = s + 1
        arrive_and_wait(counter, parts * (s + 1))
        total = 0
        for k in range(parts):
            total += seen[s, 0, k] == s + 1
        seen[s, 1, j] = total


@pytest.mark.parametrize("parts", [1, 2, 3])
def test_every_part_sees_every_other_parts_step_before_the_next(parts):
    """Three parts on a two-core machine: a part that spins must give its core away, or the late
    one would not run (the test would then hang, not pass)."""
    steps = 300
    seen = np.zeros((steps, 2, parts), np.int64)
    counter = np.zeros(8, np.int64)
    with ThreadPoolExecutor(parts) as pool:
        for job in [pool.submit(_steps, j, parts, steps, seen, counter) for j in range(parts)]:
            job.result()
    assert counter[0] == parts * steps
    assert (seen[:, 0] == np.arange(1, steps + 1)[:, None]).all()
    assert (seen[:, 1] == parts).all()
