"""Demo benchmark: the headless mode (rendering on) at 500 to 100,000 animals, and painting a big map.

    python -m bench.demo [--frames 1200] [--map island] [--seed 1] [--only 500,5000,20000,100000,paint]

Each run is a fresh process (so peak memory is that run's). Prints the figures and
whether each bar is met:

* 500 animals: >= 1,500 FPS with the landscape, animation and separation (#29; the bar
  was 2,000 FPS before them), search ms p95 within the budget;
* 5,000 animals: reported (no bar);
* 20,000 animals: >= 60 FPS, latency p95 <= 100 ms (#44; was 250), <= 8 µs of search time per
  search, separation (sim.model.crowd) <= 1 ms a frame (median);
* 100,000 animals: >= 30 FPS, latency p95 <= 1 s, peak RSS <= 600 MB; separation <= 3 ms (#44);

each with latency p50/p95 (request to path), queue p95, held p95 (idle animals waiting to ask:
the planner lets them ask only as fast as the queue is served, planner.MAX_WAIT_S), searches
asked (joined the queue) against served per simulated second, and separation ms; "cores ns": a
cache line's round trip between the first two cores, just before and after the run
(``sim.support.barrier.round_trip_ns``): a host may put a virtual machine's two cores under one
last-level cache (~50 ns) or two (~320 ns), and the threaded separation takes ~1.6x as long in
the second case (docs/performance.md);
* 2048x2048 island, 500 animals: paint stroke + frame <= 16 ms median, <= 300 MB resident.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from sim.support.barrier import round_trip_ns

ROOT = Path(__file__).resolve().parent.parent
#: A round trip between the first two cores longer than this (ns) means they do not share a
#: last-level cache (~50 ns when they do, ~320 when not, on the AMD development machine).
APART_NS = 150
CROWDS = {500: {"fps": 1500, "search_p95_in_budget": True}, 5000: {},
          20000: {"fps": 60, "latency_ms_p95": 100, "search_us_per_search": 8, "crowd_ms": 1.0},
          100000: {"fps": 30, "latency_ms_p95": 1000, "crowd_ms": 3.0, "rss_mb": 600}}  # fmt: skip


def crowd(agents: int, frames: int, map_name: str, seed: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "figures.json"
        cmd = [sys.executable, str(ROOT / "main.py"), "--headless", "--frames", str(frames), "--agents", str(agents),
               "--map", map_name, "--seed", str(seed), "--json", str(out)]  # fmt: skip
        subprocess.run(cmd, check=True, capture_output=True, cwd=ROOT)
        return json.loads(out.read_text())


def paint(frames: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "paint.json"
        cmd = [sys.executable, "-m", "bench.paint", "--frames", str(frames), "--json", str(out)]
        subprocess.run(cmd, check=True, capture_output=True, cwd=ROOT)
        return json.loads(out.read_text())


def warm_cache() -> None:
    """A short run of each kind first, in processes of their own: with numba's cache empty
    (a fresh clone) they compile, so the measured runs only load (a first run's compiling
    is neither search time nor resident memory of the demo)."""
    with tempfile.TemporaryDirectory() as tmp:
        cmds = [[str(ROOT / "main.py"), "--headless", "--frames", "30", "--agents", "300", "--json", f"{tmp}/a.json"],
                ["-m", "bench.paint", "--size", "256", "--frames", "5", "--json", f"{tmp}/b.json"]]  # fmt: skip
        for cmd in cmds:
            subprocess.run([sys.executable, *cmd], check=True, capture_output=True, cwd=ROOT)


def crowd_bars(agents: int, r: dict) -> list[str]:
    bar = CROWDS[agents]
    out = [f"fps>={bar['fps']}: {'yes' if r['fps'] >= bar['fps'] else 'NO'}"] if "fps" in bar else []
    if bar.get("search_p95_in_budget"):
        out.append(f"search p95<=budget: {'yes' if r['search_ms_p95'] <= r['budget_ms'] else 'NO'}")
    if "latency_ms_p95" in bar:
        out.append(
            f"latency p95<={bar['latency_ms_p95']}ms: {'yes' if r['latency_ms_p95'] <= bar['latency_ms_p95'] else 'NO'}"
        )
    if "search_us_per_search" in bar:
        ok = r["search_us_per_search"] <= bar["search_us_per_search"]
        out.append(f"<={bar['search_us_per_search']}µs/search: {'yes' if ok else 'NO'}")
    if "rss_mb" in bar:
        out.append(f"rss<={bar['rss_mb']}MB: {'yes' if (r['peak_rss_mb'] or 0) <= bar['rss_mb'] else 'NO'}")
    if "crowd_ms" in bar:
        out.append(f"separation p50<={bar['crowd_ms']}ms: {'yes' if r['crowd_ms_p50'] <= bar['crowd_ms'] else 'NO'}")
    return out


def herd(animals: int = 1000, map_name: str = "island", repeat: int = 5) -> dict:
    """One herd call against every animal searching on its own: ``animals`` cows (those in the
    goal's region) to one point, one distance field plus following it, against one
    ``search_many`` of the same queries (the engine's fastest way to run them one by one)."""
    import numpy as np

    from sim.config import load_config
    from sim.maps import load_map, resolve_map
    from sim.simulation import Simulation

    sim = Simulation(load_config(), load_map(resolve_map(map_name)), counts={"cow": 2 * animals, "bird": 0, "water": 0})
    cow = sim.species[0]
    goal = (87, 40) if map_name == "island" else tuple(int(v) for v in cow.habitable()[len(cow.habitable()) // 2])
    region = cow.regions[goal[1], goal[0]]
    a = sim.agents
    keep = np.zeros(a.n, dtype=bool)
    keep[np.flatnonzero(cow.regions[a.cell[:, 1], a.cell[:, 0]] == region)[:animals]] = True
    sim.remove(keep)  # exactly ``animals`` cows, all in the goal's region
    rows = np.arange(a.n)
    starts, goals = a.cell[rows].astype(np.int64), np.tile(np.array(goal), (rows.size, 1))
    field_ms, search_ms = [], []
    for _ in range(repeat):
        t0 = time.perf_counter()
        herd = sim.herds.call(cow.index, goal)
        sim.herds.update(1 << 40)  # the whole field at once, then everyone's path down it
        field_ms.append((time.perf_counter() - t0) * 1000)
        settled = herd.settled
        sim.herds.dismiss(herd)
        t0 = time.perf_counter()
        result = cow.grid.search_many(starts, goals, diagonal=cow.astar.diagonal, max_nodes=10**9)
        search_ms.append((time.perf_counter() - t0) * 1000)
    return {
        "animals": int(rows.size), "goal": goal, "map": map_name, "field_ms": statistics.median(field_ms),
        "field_cells": int(settled), "search_ms": statistics.median(search_ms),
        "search_expanded": int(result.expanded.sum()), "found": int(result.found.sum()),
    }  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--frames", type=int, default=1200)
    ap.add_argument("--map", default="island")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--only", default="500,5000,20000,100000,paint,herd",
                    help="comma-separated: 500,5000,20000,100000,paint,herd")  # fmt: skip
    args = ap.parse_args(argv)
    wanted = args.only.split(",")
    ok = True
    print("warming numba's cache (compiles on a first run)...", flush=True)
    warm_cache()
    print(f"{'animals':>8} {'fps':>8} {'frame ms p50/p95':>17} {'search ms p50/p95':>18} {'µs/search':>9}"
          f" {'latency ms p50/p95':>19} {'queue p95':>9} {'held p95':>8} {'asked/served per s':>19}"
          f" {'sep. ms':>7} {'rss MB':>7} {'cores ns':>9}  bars")  # fmt: skip
    for agents in (500, 5000, 20000, 100000):
        if str(agents) not in wanted:
            continue
        before = round_trip_ns()
        r = crowd(agents, args.frames, args.map, args.seed)
        after = round_trip_ns() if before is not None else None
        cores = "-" if before is None else f"{before:.0f}/{after or 0:.0f}"
        bars = crowd_bars(agents, r)
        ok &= all(b.endswith("yes") for b in bars)
        if max(before or 0, after or 0) > APART_NS:  # (said, not excused: the bars stand as measured)
            bars.append("the cores were under different caches: threaded figures slower")
        print(
            f"{agents:>8} {r['fps']:>8.1f} {r['frame_ms_p50']:>8.2f}/{r['frame_ms_p95']:<8.2f}"
            f" {r['search_ms_p50']:>8.3f}/{r['search_ms_p95']:<9.3f} {r['search_us_per_search']:>9.1f}"
            f" {r['latency_ms_p50']:>9.1f}/{r['latency_ms_p95']:<9.1f} {r['queue_p95']:>9.0f} {r['held_p95']:>8.0f}"
            f" {r['asked_per_s']:>9.0f}/{r['served_per_s']:<9.0f} {r['crowd_ms_p50']:>7.2f}"
            f" {r['peak_rss_mb'] or 0:>7.0f} {cores:>9}  {'; '.join(bars)}",
            flush=True,
        )
    if "paint" in wanted:
        p = paint(300)
        bars = [
            f"p50<=16ms: {'yes' if p['paint_frame_ms_p50'] <= 16 else 'NO'}",
            f"rss<=300MB: {'yes' if (p['peak_rss_mb'] or 0) <= 300 else 'NO'}",
        ]
        ok &= all(b.endswith("yes") for b in bars)
        anon, file = p.get("rss_anon_mb"), p.get("rss_file_mb")
        split = "" if anon is None else f" (end: {anon:.0f} anon + {file:.0f} file)"
        print(
            f"paint {p['size']}x{p['size']}, {p['agents']} animals: paint + frame ms p50/p95/max "
            f"{p['paint_frame_ms_p50']:.2f}/{p['paint_frame_ms_p95']:.2f}/{p['paint_frame_ms_max']:.2f}, "
            f"peak rss {p['peak_rss_mb'] or 0:.0f} MB{split}  {'; '.join(bars)}"
        )
    if "herd" in wanted:
        h = herd()
        print(
            f"herd: {h['animals']} cows called to {h['goal']} on {h['map']}: one field {h['field_ms']:.2f} ms "
            f"({h['field_cells']} cells settled, paths included) vs {h['animals']} searches {h['search_ms']:.2f} ms "
            f"({h['search_expanded']} nodes expanded): {h['search_ms'] / h['field_ms']:.1f}x the time, "
            f"{h['search_expanded'] / max(1, h['field_cells']):.0f}x the nodes"
        )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
