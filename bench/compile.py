"""What a first start spends compiling: each stage's CPU and wall seconds, from an empty cache.

    python -m bench.compile [--runs 1] [--json FILE]

Every stage of :data:`sim.prepare.STAGES` (and the view's: the landscape, the drawing) runs in
a process of its own (but those a first start compiles in one: :func:`sim.prepare.processes`, one
row), in the order a first start runs them, on one numba cache made empty for
the run (a fresh clone's). Prints each stage's CPU seconds (user + system, its process and
children) and wall seconds, and the total: the figure a first start costs this machine. With
``--runs N``, each stage's median over N fresh caches.

Then the first search of each kind in a new process on an empty cache (what a library user's
first call waits for): ``PathGrid(np.ones((256, 256))).search(..., algorithm=X)`` and a weighted
grid, wall seconds each.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from sim.prepare import CROWD_STAGE, MODEL_STAGE, PAINT_STAGE, REST_STAGES, ROUND_STAGES, processes, stage_args

ROOT = Path(__file__).resolve().parent.parent
STAGES = [[MODEL_STAGE], [CROWD_STAGE], [PAINT_STAGE], *processes([*ROUND_STAGES, *REST_STAGES])]  # (a window's order)
VIEW = {
    "landscape": [sys.executable, "-m", "sim.view.draw.landscape"],
    "drawing": [sys.executable, "-c", "import os; os.environ['SDL_VIDEODRIVER'] = 'dummy'; import pygame; "
                "pygame.display.init(); s = pygame.display.set_mode((64, 64)); from sim.config import load_config; "
                "from sim.view.draw.render import rehearse_view; rehearse_view(load_config(), s, False)"],
}  # fmt: skip
FIRST_CALL = (
    "import time, numpy as np; t = time.perf_counter(); from sim.pathfinding import PathGrid; "
    "costs = np.ones((256, 256)) if '{kind}' != 'weighted' else 1 + (np.arange(256 * 256).reshape(256, 256) % 7 == 0); "
    "r = PathGrid(costs).search((0, 0), (255, 200), algorithm='{algorithm}', heuristic={heuristic}); "
    "print(round(time.perf_counter() - t, 2), r.cost)"
)
FIRST_CALLS = {"astar": "astar", "jps": "jps", "jps+": "jps+", "weighted": "astar", "weighted-jps": "jps",
               "landmarks": "astar"}  # fmt: skip


def timed(cmd: list[str], env: dict) -> tuple[float, float, str]:
    """Run ``cmd``; its CPU seconds (user + system of the child and its own children) and wall seconds."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    r = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode != 0:
        raise SystemExit(f"error: {' '.join(cmd[-3:])} failed: {r.stderr.strip().splitlines()[-1:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall, r.stdout


def one_run() -> dict[str, tuple[float, float]]:
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"}
        out = {}
        for group in STAGES:
            cpu, wall, _ = timed([sys.executable, "-m", "sim.prepare", *stage_args(group)], env)
            out[" + ".join(group)] = (cpu, wall)
        for name, cmd in VIEW.items():
            cpu, wall, _ = timed(cmd, env)
            out[name] = (cpu, wall)
    return out


def first_calls() -> dict[str, tuple[float, str]]:
    """Each first call's wall seconds and cost. The call answers while another process compiles
    its kernel (``sim.pathfinding.warm``), which outlives it by design (the next run loads the
    kernel); here that process is ended with the call's own, in its process group, so it does
    not compile into a deleted cache beside the next measurement."""
    out = {}
    for kind, algorithm in FIRST_CALLS.items():
        with tempfile.TemporaryDirectory() as cache:
            env = {**os.environ, "NUMBA_CACHE_DIR": cache}
            heuristic = "'landmarks'" if kind == "landmarks" else None
            code = FIRST_CALL.format(kind=kind.split("-")[0], algorithm=algorithm, heuristic=heuristic)
            t0 = time.perf_counter()
            proc = subprocess.Popen([sys.executable, "-W", "ignore", "-c", code], cwd=ROOT, env=env, text=True,
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)  # fmt: skip
            stdout, stderr = proc.communicate()
            wall = time.perf_counter() - t0
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)  # the background compile it started, if still running
            if proc.returncode != 0:
                raise SystemExit(f"error: the first call ({kind}) failed: {stderr.strip().splitlines()[-1:]}")
            out[kind] = (wall, stdout.strip().split()[-1] if stdout.strip() else "?")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--json", type=Path)
    ap.add_argument("--no-first-calls", action="store_true")
    args = ap.parse_args(argv)
    if args.runs < 1:
        ap.error(f"--runs: expected at least 1, got {args.runs}")
    runs = [one_run() for _ in range(args.runs)]
    figures = {stage: (statistics.median(r[stage][0] for r in runs), statistics.median(r[stage][1] for r in runs))
               for stage in runs[0]}  # fmt: skip
    width = max(12, *map(len, figures))
    print(f"{'stage':<{width}} {'CPU s':>7} {'wall s':>7}")
    for stage, (cpu, wall) in figures.items():
        print(f"{stage:<{width}} {cpu:7.1f} {wall:7.1f}")
    total_cpu = sum(cpu for cpu, _ in figures.values())
    print(f"{'total':<{width}} {total_cpu:7.1f} {sum(w for _, w in figures.values()):7.1f}")
    calls = {} if args.no_first_calls else first_calls()
    for kind, (wall, cost) in calls.items():
        print(f"first call, empty cache, {kind:<13} {wall:6.1f} s  (cost {cost})")
    if args.json:
        args.json.write_text(json.dumps({"stages": figures, "total_cpu_s": total_cpu, "first_calls": calls}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
