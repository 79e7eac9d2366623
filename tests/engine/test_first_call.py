"""A library user's first search on a machine where nothing is compiled: answered at once by the
plain-Python search (said once through warnings) while another process compiles the kernel;
then the compiled kernel, loaded from numba's cache. How long each takes is bench.compile's."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys

import pytest

from tests.conftest import ROOT

SCRIPT = """
import json, warnings
import numpy as np
from sim.pathfinding import PathGrid, first_use
from sim.pathfinding import warm
from tests.helpers import optimum

costs = np.ones((40, 60)) if {weighted} == 0 else 1.0 + (np.arange(2400).reshape(40, 60) % 5 == 0)
costs[10:30, 20] = 0
grid = PathGrid(costs)
with warnings.catch_warnings(record=True) as said:
    warnings.simplefilter("always")
    first = grid.search((2, 20), (55, 25), algorithm="{algorithm}", heuristic={heuristic})
    again = grid.search((3, 20), (55, 26), algorithm="{algorithm}", heuristic={heuristic})
started = [p is not None for p in warm._compiling.values()]
warm.wait_for_background()
compiled = grid.search((2, 20), (55, 25), algorithm="{algorithm}", heuristic={heuristic})
warm.set_first_use("wait")
print(json.dumps(dict(policy=first_use(), said=[str(w.message) for w in said], started=started,
    first=first.cost, again=again.cost, compiled=compiled.cost, ready=sorted(map(list, warm._ready)),
    want=optimum(costs, (2, 20), (55, 25), "no-corner-cutting"),
    want_again=optimum(costs, (3, 20), (55, 26), "no-corner-cutting"))))
"""


@pytest.mark.slow
@pytest.mark.parametrize("algorithm, weighted", [("astar", 0), ("jps", 0), ("jps+", 0), ("astar", 1), ("jps", 1),
                                                  ("landmarks", 0), ("landmarks", 1)])  # fmt: skip
def test_a_first_call_on_an_empty_cache_answers_optimally_then_runs_compiled(tmp_path, algorithm, weighted):
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    # ("landmarks": A* with heuristic="landmarks", its own kernel)
    script = SCRIPT.format(algorithm="astar" if algorithm == "landmarks" else algorithm, weighted=weighted,
                           heuristic='"landmarks"' if algorithm == "landmarks" else None)  # fmt: skip
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, env=env, timeout=900)
    assert r.returncode == 0, r.stderr[-2000:]
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert out["first"] == pytest.approx(out["want"], rel=1e-9)  # optimal while the kernel compiles
    assert out["again"] == pytest.approx(out["want_again"], rel=1e-9)
    assert out["compiled"] == pytest.approx(out["want"], rel=1e-9)
    assert len(out["said"]) == 1 and "another process compiles it" in out["said"][0]  # once
    assert out["started"] == [True]
    data = {"jps+": "table", "jps": "bits", "landmarks": "landmarks"}.get(algorithm, "none")
    assert ["one", data, "|u1"] in out["ready"]


OPTIONS = [{}, {"algorithm": "dijkstra"}, {"algorithm": "greedy"}, {"weight": 2.5}, {"heuristic": "euclidean"},
           {"heuristic": "chebyshev"}, {"max_nodes": 9}, {"diagonal": "always"}, {"diagonal": "never"},
           {"diagonal": "one-obstacle"}]  # fmt: skip


@pytest.mark.parametrize("weighted", [False, True])
def test_the_plain_python_search_takes_the_kernels_own_path(weighted):
    # What answers while a kernel compiles (a first call on a machine: warm's "answer") walks the
    # kernel's own order (the bucket queue's stacks, the heap's 4-ary sifts and held successor,
    # the canonical successors), so it returns the same path, not just one as short. (Before: a
    # heapq by (f, h, cell) took other ties: the README's example printed [11, 50] for [11, 51].)
    import numpy as np

    from sim.pathfinding import PathGrid, set_first_use
    from sim.pathfinding.interpreted import search_interpreted
    from sim.pathfinding.plans import padded_ends, plan_of_call

    set_first_use("wait")
    rng = np.random.default_rng(17 + weighted)
    checked = 0
    for _ in range(40):
        h, w = int(rng.integers(3, 36)), int(rng.integers(3, 36))
        values, p = ([1.0, 1.5, 2.0, 0.0], [0.5, 0.15, 0.1, 0.25]) if weighted else ([1.0, 0.0], [0.75, 0.25])
        grid = PathGrid(rng.choice(values, size=(h, w), p=p))
        free = np.argwhere(grid.passable_mask())[:, ::-1]
        for _ in range(3):
            s, t = (tuple(int(v) for v in free[rng.integers(len(free))]) for _ in range(2))
            if s == t:
                continue
            for opts in OPTIONS:
                want = grid.search(s, t, **opts)
                diagonal, heuristic = opts.get("diagonal", "no-corner-cutting"), opts.get("heuristic")
                weight, algorithm, max_nodes = (
                    opts.get("weight", 1.0),
                    opts.get("algorithm", "astar"),
                    opts.get("max_nodes"),
                )
                plan = plan_of_call(grid, None, diagonal, heuristic, weight, algorithm, max_nodes)
                codes, lut, moves, padded_width, _blocks = grid.kernel_args(plan.rule)
                ends = padded_ends(s, t, w, h)
                status, expanded, cost, path = search_interpreted(codes, lut, moves, padded_width, *ends, plan.params)
                cells = [[c % w, c // w] for c in path]
                assert expanded == want.expanded and (cost == want.cost or cost == pytest.approx(want.cost, rel=1e-12))
                assert (status == 0) == want.found
                assert cells == (want.path if want.found else want.partial_path).tolist()
                checked += 1
    assert checked > 1000


@pytest.mark.slow
def test_a_script_that_ends_while_the_kernel_compiles_ends_quietly_and_the_compile_goes_on(tmp_path):
    """Python said "ResourceWarning: subprocess N is still running" at the end of such a script; the
    background compile is left running on purpose (it fills the cache for the next run)."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    # (As a program that records warnings does, as pytest does: the end's warning showed then.)
    script = ("import warnings\nimport numpy as np\nfrom sim.pathfinding import PathGrid, warm\n"
              "with warnings.catch_warnings(record=True) as said:\n"
              "    warnings.simplefilter('always')\n"
              "    print(PathGrid(np.ones((9, 9))).search((0, 0), (8, 8)).cost)\n"
              "print([p.pid for p in warm._compiling.values() if p is not None])\n"
              "print(*[w.message for w in said], file=__import__('sys').stderr)\n")  # fmt: skip
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, env=env, timeout=900)
    assert r.returncode == 0, r.stderr[-2000:]
    cost, pids = r.stdout.strip().splitlines()[-2:]
    assert float(cost) == pytest.approx(8 * 2**0.5)
    assert "another process compiles it" in r.stderr
    assert "ResourceWarning" not in r.stderr and "still running" not in r.stderr, r.stderr
    (pid,) = json.loads(pids)
    _wait_for_exit(pid, 900)  # (the orphan's end: no stray work left for the tests after this one)
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, env=env, timeout=900)
    assert r.returncode == 0 and r.stdout.strip().splitlines()[-1] == "[]", r.stdout  # cached: nothing compiles
    assert "another process compiles it" not in r.stderr


def _wait_for_exit(pid: int, timeout: float) -> None:
    """Until process ``pid`` (not a child of ours: an orphan) has ended, told by the kernel through a
    pidfd (readable once it exits), or ``timeout`` seconds have passed."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return  # ended already
    try:
        ready, _, _ = select.select([fd], [], [], timeout)
        assert ready, f"the background compile {pid} still runs after {timeout} s"
    finally:
        os.close(fd)
