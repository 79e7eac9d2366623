"""Shared helpers of the tests: independent references (a plain Dijkstra and a path checker,
written separately from the engine, so agreement means something) and the synthetic input
that drives the demo (keys and mouse strokes as pygame events)."""

from __future__ import annotations

import contextlib
import heapq
import itertools
import math
import os
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pygame
import pytest
from hypothesis import strategies as st

from sim.model.agents import Outcome
from sim.pathfinding import STATUS_FOUND, STATUS_HIT_LIMIT
from sim.simulation import Simulation
from tests.conftest import ROOT

RULES = ("never", "no-corner-cutting", "one-obstacle", "always")


def raises_exactly(call, exc: type[Exception], message: str) -> None:
    """``call()`` raises ``exc`` with exactly ``message`` (a public boundary's promise)."""
    with pytest.raises(exc) as info:
        call()
    assert str(info.value) == message


def passable(costs: np.ndarray, x: int, y: int) -> bool:
    h, w = costs.shape
    return 0 <= x < w and 0 <= y < h and bool(np.isfinite(costs[y, x]) and costs[y, x] > 0)


def step_allowed(costs: np.ndarray, a: tuple[int, int], b: tuple[int, int], rule: str) -> bool:
    """Whether one step a -> b is legal under the diagonal rule."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    if max(abs(dx), abs(dy)) != 1 or not passable(costs, *b):
        return False
    if dx and dy:
        if rule == "never":
            return False
        side_a = passable(costs, a[0] + dx, a[1])
        side_b = passable(costs, a[0], a[1] + dy)
        if rule == "no-corner-cutting":
            return side_a and side_b
        if rule == "one-obstacle":
            return side_a or side_b
    return True


def step_cost(costs: np.ndarray, a: tuple[int, int], b: tuple[int, int]) -> float:
    length = math.sqrt(2.0) if a[0] != b[0] and a[1] != b[1] else 1.0
    return length * float(costs[b[1], b[0]])


def dijkstra(costs: np.ndarray, start: tuple[int, int], rule: str) -> dict[tuple[int, int], float]:
    """Cheapest cost from ``start`` to every reachable cell."""
    dist = {start: 0.0}
    heap = [(0.0, start)]
    done = set()
    while heap:
        d, u = heapq.heappop(heap)
        if u in done:
            continue
        done.add(u)
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                v = (u[0] + dx, u[1] + dy)
                if (dx or dy) and step_allowed(costs, u, v, rule):
                    nd = d + step_cost(costs, u, v)
                    if nd < dist.get(v, math.inf):
                        dist[v] = nd
                        heapq.heappush(heap, (nd, v))
    return dist


def optimum(costs: np.ndarray, start: tuple[int, int], goal: tuple[int, int], rule: str) -> float:
    """The cheapest cost from ``start`` to ``goal`` (inf when either is blocked or unreachable)."""
    if not (passable(costs, *start) and passable(costs, *goal)):
        return math.inf
    return dijkstra(costs, start, rule).get(goal, math.inf)


def assert_optimal(result, costs: np.ndarray, start: tuple[int, int], goal: tuple[int, int], rule: str) -> None:
    """``result`` (a ``SearchResult``) found what the independent Dijkstra finds, by a legal
    path from ``start`` to ``goal`` that costs what it says."""
    best = optimum(costs, start, goal, rule)
    assert result.found == (best < math.inf)
    if result.found:
        assert result.cost == pytest.approx(best, rel=1e-9)
        assert tuple(result.path[0]) == start and tuple(result.path[-1]) == goal
        assert path_cost(costs, result.path, rule) == pytest.approx(result.cost, rel=1e-9)


def pts(path) -> list[tuple[int, int]]:
    """A path (the engine's ``(n, 2)`` array, or a list of points) as a list of ``(x, y)`` tuples."""
    return [(int(x), int(y)) for x, y in (path.tolist() if isinstance(path, np.ndarray) else path)]


def path_cost(costs: np.ndarray, path, rule: str) -> float:
    """Sum of the steps' costs; asserts every step is legal."""
    total = 0.0
    for a, b in itertools.pairwise(pts(path)):
        assert step_allowed(costs, a, b, rule), f"illegal step {a} -> {b} under {rule}"
        total += step_cost(costs, a, b)
    return total


# ------------------------------------------------------------------ driving the demo
STEP = 1 / 60


def key(k, mod=0):
    pygame.event.post(pygame.event.Event(pygame.KEYDOWN, key=k, mod=mod, unicode=""))
    pygame.event.post(pygame.event.Event(pygame.KEYUP, key=k, mod=mod))


def drag(app, cells, button=1):
    """Post a mouse stroke through these cells (x, y) with the given button held."""
    pts = [tuple(int(v) for v in app.cam.to_screen(x, y)) for x, y in cells]
    held = tuple(int(button == b) for b in (1, 2, 3))
    pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=pts[0], button=button))
    prev = pts[0]
    for p in pts[1:]:
        rel = (p[0] - prev[0], p[1] - prev[1])
        pygame.event.post(pygame.event.Event(pygame.MOUSEMOTION, pos=p, rel=rel, buttons=held))
        prev = p
    pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONUP, pos=pts[-1], button=button))


def remaining_steps_legal(sim, sp, rows) -> bool:
    """Vectorised: the steps from each animal's last cell through the rest of its path."""
    a = sim.agents
    if rows.size == 0:
        return True
    w = sim.world.width
    free = (sp.costs > 0).ravel()
    paths = a.paths[rows]
    cols = np.arange(paths.shape[1] - 1)
    ahead = (cols >= a.path_pos[rows, None] - 1) & (cols + 1 < a.path_len[rows, None])
    p, q = paths[:, :-1], paths[:, 1:]
    dx, dy = q % w - p % w, q // w - p // w
    ok = free[q] & (np.abs(dx) <= 1) & (np.abs(dy) <= 1)
    diag = (dx != 0) & (dy != 0)
    rule = sim.config.search.diagonal
    side_a, side_b = free[p + dx], free[p + dy * w]
    if rule == "no-corner-cutting":
        ok &= ~diag | (side_a & side_b)
    elif rule == "one-obstacle":
        ok &= ~diag | side_a | side_b
    elif rule == "never":
        ok &= ~diag
    return bool((ok | ~ahead).all())


# ------------------------------------------------------------------ species the tests define
def _species():
    from sim.model.species import CowAStar, WaterCreatureAStar

    class JumpingFish(WaterCreatureAStar):
        """Water creatures that opt into jump point search."""

        use_jps = True

    class EdgeHookCow(CowAStar):
        """The original design's per-edge hook, same semantics as the table."""

        def cost(self, source, target):
            m = CowAStar.terrain_costs.get(int(self.world.terrain[target[1], target[0]]), 0.0)
            return m * (math.sqrt(2) if source[0] != target[0] and source[1] != target[1] else 1.0)

    return JumpingFish, EdgeHookCow


JumpingFish, EdgeHookCow = _species()


# ------------------------------------------------------------------ running the program
def run_cli(*args: str, timeout: float = 900) -> subprocess.CompletedProcess:
    """``main.py --headless --frames 1 ARGS`` in a child process, on SDL's dummy drivers."""
    return subprocess.run(
        [sys.executable, str(ROOT / "main.py"), "--headless", "--frames", "1", *args],
        capture_output=True, text=True, cwd=ROOT, timeout=timeout,
        env={**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"},
    )  # fmt: skip


def assert_one_line(r: subprocess.CompletedProcess, path: object, fragment: str) -> None:
    """Exit status 2 and one short stderr line that names ``path`` and holds ``fragment``."""
    assert r.returncode == 2, r.stderr[-2000:]
    assert "Traceback" not in r.stderr
    assert r.stderr.count("\n") == 1, r.stderr
    assert r.stderr.startswith(f"error: {path}"), r.stderr
    assert fragment in r.stderr, r.stderr
    assert len(r.stderr) - len(str(path)) < 300  # every quoted value is cut short (the path is the user's own)


def assert_file_refused(option: str, path, text: str, fragment: str) -> None:
    """Write ``text`` to ``path``, give it to the program as ``option``: exit 2, one line naming it."""
    path.write_text(text)
    assert_one_line(run_cli(option, str(path)), path, fragment)


#: A ``sitecustomize`` that holds the process whose command line contains ``HOLD_WHO`` at the
#: moment ``HOLD_AT`` (``"import NAME"``: that module's first import; ``"cache write"``: its first
#: write into numba's cache, i.e. after its imports, compiling), tells the FIFO ``HOLD_FIFO``
#: ("held PID") and waits there until a signal ends it.
HOLD_HOOK = """
import os, sys, select
_at, _who, _fifo = os.environ["HOLD_AT"], os.environ["HOLD_WHO"], os.environ["HOLD_FIFO"]
with open("/proc/self/cmdline", "rb") as f:
    _cmd = f.read().replace(b"\\0", b" ").decode()
_cache = os.environ.get("NUMBA_CACHE_DIR", "\\0")
_held = False

def _hold(event, args):
    global _held
    if _held:
        return
    if event == "import":
        hit = _at == "import " + str(args[0])
    elif event == "open":
        path = str(args[0])  # an index or data file of a compiled function (not numba's probe of the folder)
        hit = (_at == "cache write" and path.startswith(_cache) and "w" in str(args[1] or "")
               and (".nbi" in path or ".nbc" in path))
    else:
        return
    if hit and _who in _cmd:
        _held = True
        fd = os.open(_fifo, os.O_WRONLY)
        os.write(fd, ("held %d\\n" % os.getpid()).encode())
        os.close(fd)
        select.select([], [], [])  # until a signal: SIGINT raises here, if the process lets it

sys.addaudithook(_hold)
"""


class Hold:
    """Holds one process of a family at one moment (:data:`HOLD_HOOK`) and tells the test when it
    is there, by an event (a FIFO's line), not by polling: ``env`` for the family's first process,
    then :meth:`wait`."""

    def __init__(self, tmp_path: Path, who: str, at: str, env: dict | None = None) -> None:
        hook = tmp_path / "hook"
        hook.mkdir()
        (hook / "sitecustomize.py").write_text(HOLD_HOOK)
        self.fifo = tmp_path / "held"
        os.mkfifo(self.fifo)
        base = env if env is not None else os.environ
        self.env = {**base, "PYTHONPATH": os.pathsep.join(filter(None, [str(hook), base.get("PYTHONPATH")])),
                    "HOLD_AT": at, "HOLD_WHO": who, "HOLD_FIFO": str(self.fifo)}  # fmt: skip
        self.line: str | None = None
        self._event = threading.Event()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        with open(self.fifo) as f:  # opens when the held process does
            self.line = f.readline()
        self._event.set()

    def wait(self, proc: subprocess.Popen, limit: float = 600.0) -> bool:
        """Until the process is held (True) or ``proc`` ended first (False). ``limit`` (minutes) is
        a guard against a hang: a slow machine only waits longer."""
        threading.Thread(target=lambda: (proc.wait(), self._event.set()), daemon=True).start()
        assert self._event.wait(limit), "nothing was held and the process did not end"
        return (self.line or "").startswith("held")

    def close(self) -> None:
        """Let the reader go if nothing was held (a writer that opens and closes: end of file)."""
        with contextlib.suppress(OSError):  # nobody reads any more: nothing to let go
            os.close(os.open(self.fifo, os.O_WRONLY | os.O_NONBLOCK))


# ------------------------------------------------------------------ shared builders
def sim_on(name: str = "island.yaml", counts: dict | None = None, animals: int | None = None, config=None,
           **search) -> Simulation:  # fmt: skip
    """A simulation on a shipped map (``maps/NAME``) with the bundled config (or ``config``), its
    ``search`` settings overridden; ``counts`` per species, or ``animals`` split in the config's ratio."""
    from dataclasses import replace

    from sim.config import load_config
    from sim.maps import load_map
    from sim.simulation import species_counts

    config = config or load_config(ROOT / "config.yaml")
    if search:
        config = replace(config, search=replace(config.search, **search))
    if counts is None and animals is not None:
        counts = species_counts(config, animals)
    return Simulation(config, load_map(ROOT / "maps" / name), counts=counts)


def press(app, k, mod=0) -> None:
    """A key pressed and released, then one frame: what a person's key press does."""
    key(k, mod)
    app.frame(STEP)


def resize(app, size: tuple[int, int]) -> None:
    """The window made ``size`` (as a user drags its edge), then one frame."""
    pygame.display.set_mode(size)
    app._resized()
    app.frame(STEP)


def click(app, cell, button=1, mod=0) -> None:
    """A click on map cell ``cell`` (``(x, y)``), then one frame."""
    x, y = app.cam.to_screen(*cell)
    pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=(int(x), int(y)), button=button, mod=mod))
    pygame.event.post(pygame.event.Event(pygame.MOUSEBUTTONUP, pos=(int(x), int(y)), button=button, mod=mod))
    app.frame(STEP)


def run_main(*args: str, timeout: float = 900) -> subprocess.CompletedProcess:
    """``main.py ARGS`` in a child process, on SDL's dummy drivers."""
    return subprocess.run([sys.executable, str(ROOT / "main.py"), *args], capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT,
                          env={**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"})  # fmt: skip


# ------------------------------------------------------------------ a round, against the engine's batch API
def expected_round(sim: Simulation, rows: np.ndarray, traces: dict | None = None) -> list:
    """Per row: (outcome, expanded, cost or nan, path cells), from ``AStar.search_many`` and
    ``PathGrid.smooth_many`` (for kinds that fly), one species at a time. Into ``traces``, per
    species: (positions searched, the cells each expanded, as lists)."""
    a = sim.agents
    out: list = [None] * rows.size
    for sp in sim.species:
        mine = np.flatnonzero(a.species[rows] == sp.index)
        labels = sp.regions
        cells, goals = a.cell[rows[mine]], a.goal[rows[mine]]
        here = labels[cells[:, 1], cells[:, 0]]
        same = (here != 0) & (here == labels[goals[:, 1], goals[:, 0]])
        for j in mine[~same]:
            out[j] = (int(Outcome.OTHER_REGION), 0, np.nan, [])
        if not same.any():
            continue
        result, (trace, trace_offsets) = sp.astar.search_many_traced(cells[same], goals[same], threads=1)
        if traces is not None:
            cut = trace_offsets.tolist()
            traces[sp.index] = (mine[same].tolist(), [trace[i:j].tolist() for i, j in itertools.pairwise(cut)])
        paths, offsets = result.paths, result.offsets
        if sp.kind.straight_paths:
            paths, offsets = sp.grid.smooth_many(paths, offsets, diagonal=sp.astar.diagonal)
        for q, j in enumerate(mine[same]):
            st = int(result.status[q])
            outcome = {STATUS_FOUND: Outcome.FOUND, STATUS_HIT_LIMIT: Outcome.CAPPED}.get(st, Outcome.FAILED)
            cost = float(result.cost[q]) if st == STATUS_FOUND else np.nan
            out[j] = (int(outcome), int(result.expanded[q]), cost, paths[offsets[q] : offsets[q + 1]].tolist())
    return out


def got_round(rnd) -> list[tuple[int, int, float, list[int]]]:
    return [
        (int(rnd.outcome[j]), int(rnd.expanded[j]), float(rnd.cost[j]),
         rnd.paths[rnd.path_at[j] : rnd.path_at[j] + rnd.path_n[j]].tolist())
        for j in range(rnd.rows.size)
    ]  # fmt: skip


def check_round(sim: Simulation, threads: int, seed: int = 7, k: int | None = None,
                trace: bool = False) -> tuple[int, list]:  # fmt: skip
    """Every animal (or ``k`` of them) asks at once, for a random goal (many in other regions);
    the round's answers (and with ``trace``, the cells each search expanded) must be the
    engine's. Returns how the planner says it served the round (``Planner.round_shape``): the
    per-species jobs and the rows of each compiled round call."""
    a = sim.agents
    rng = np.random.default_rng(seed)
    h, w = sim.world.terrain.shape
    a.goal[:] = np.stack((rng.integers(0, w, a.n), rng.integers(0, h, a.n)), axis=1)
    rows = rng.permutation(a.n).astype(np.int64)[:k]  # queue order mixes the species
    sim.planner.threads = threads
    rnd = sim.planner.search_rows(rows, trace)
    jobs, compiled = sim.planner.round_shape.jobs, list(sim.planner.round_shape.calls)
    present = {int(s) for s in a.species[rows]}
    assert set(rnd.species_ms) == present and all(ms >= 0.0 for ms in rnd.species_ms.values())
    # Measured inside the compiled call(s), in ms: within the round's wall time (per thread).
    assert sum(rnd.species_ms.values()) <= rnd.ms * threads
    traces: dict = {}
    want = expected_round(sim, rows, traces)
    if trace:
        assert set(rnd.trace) == present
        for s, (pos, cells, offsets) in rnd.trace.items():
            got_trace = (pos.tolist(), [cells[i:j].tolist() for i, j in itertools.pairwise(offsets.tolist())])
            assert got_trace == traces[s], s
    else:
        assert rnd.trace == {}
    got = got_round(rnd)
    if rows.size >= 40:  # the check covers both
        assert {int(Outcome.FOUND), int(Outcome.OTHER_REGION)} <= {e[0] for e in want}
    for j, (g, e) in enumerate(zip(got, want, strict=True)):
        assert g[:2] == e[:2] and g[3] == e[3], (j, g, e)
        assert (np.isnan(g[2]) and np.isnan(e[2])) or g[2] == pytest.approx(e[2], rel=1e-12), (j, g[2], e[2])
    return jobs, compiled


# ------------------------------------------------------------------ builders for property tests
@st.composite
def weighted_grids(draw, values=(0.0, 0.0, 0.3, 0.85, 1.0, 1.0, 2.5, 5.0), max_side=30):
    """A grid of up to ``max_side`` cells a side, and a start and goal on passable cells
    (a blocked endpoint now and then: that case has its own answer too)."""
    h = draw(st.integers(1, max_side))
    w = draw(st.integers(1, max_side))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    costs = rng.choice(np.array(values, dtype=np.float64), size=(h, w))
    free = np.argwhere(costs > 0)
    if len(free) == 0 or draw(st.integers(0, 19)) == 0:
        start = (draw(st.integers(0, w - 1)), draw(st.integers(0, h - 1)))
        goal = (draw(st.integers(0, w - 1)), draw(st.integers(0, h - 1)))
    else:
        (sy, sx), (gy, gx) = free[draw(st.integers(0, len(free) - 1))], free[draw(st.integers(0, len(free) - 1))]
        start, goal = (int(sx), int(sy)), (int(gx), int(gy))
    return costs, start, goal


def free_pairs(costs: np.ndarray, rng: np.random.Generator, k: int) -> tuple[np.ndarray, np.ndarray]:
    """``k`` random starts and goals on passable cells, as ``(k, 2)`` arrays of ``(x, y)``."""
    free = np.argwhere(costs > 0)[:, ::-1]
    return free[rng.integers(len(free), size=k)], free[rng.integers(len(free), size=k)]


def learn_query(sp, length=14):
    """Two cells ``length`` apart that the species can walk between (found by a search)."""
    grid = sp.grid
    free = np.argwhere(grid.passable_mask())
    for y, x in free[len(free) // 3 :: 97]:
        for dx, dy in ((length, 4), (-length, 5), (4, length), (3, -length)):
            goal = (int(x + dx), int(y + dy))
            inside = 0 <= goal[0] < grid.width and 0 <= goal[1] < grid.height
            if inside and grid.passable(*goal) and grid.search((int(x), int(y)), goal).found:
                return (int(x), int(y)), goal
    raise AssertionError("no query")


def open_learn(app, sp_key="cow"):
    """The learn view (E) opened on ``app``, with ``sp_key``'s species picked (S)."""
    from sim.view.modes.learn import LearnMode

    app.frame(STEP)
    press(app, pygame.K_e)
    mode = app.top
    assert isinstance(mode, LearnMode) and app.paused
    while app.sim.species[mode.species].key != sp_key:
        press(app, pygame.K_s)
    return mode
