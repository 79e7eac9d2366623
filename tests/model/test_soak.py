"""A short soak: thousands of steps with random painting, resets and map swaps; invariants every step."""

from __future__ import annotations

from bench.soak import Soak


def test_short_soak_keeps_every_invariant_every_step():
    soak = Soak(agents=150, seed=3)
    for i in range(5200):  # two map swaps, five resets, ~1,000 strokes
        soak.step(i)
        soak.check()
    assert soak.edits["swap"] == 2 and soak.edits["reset"] == 5 and soak.edits["paint"] == 1040
    assert soak.sim.totals["searches"] > 2000 and soak.sim.totals["replans"] > 0


def test_the_soak_check_can_fail():
    soak = Soak(agents=20, seed=1)
    for i in range(30):
        soak.step(i)
    soak.check()
    soak.sim.agents.pos[0] += 2.5  # an animal two and a half cells from its cell
    try:
        soak.check()
    except AssertionError as exc:
        assert "away from its cell" in str(exc)
    else:
        raise AssertionError("the check missed a broken invariant")
    soak.sim.agents.pos[0] -= 2.5
    soak.requests[3] += 1  # a request that was never served nor waits
    try:
        soak.check()
    except AssertionError as exc:
        assert "request was lost" in str(exc)
    else:
        raise AssertionError("the check missed a lost request")
