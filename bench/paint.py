"""Painting a big map: a stroke per frame across a generated 2048x2048 island, headless.

    python -m bench.paint [--size 2048] [--frames 300] [--agents 500] [--json FILE]

Each frame paints one disc of a stroke (radius 3, rock, then back to the original) a
few cells on from the last, the way a mouse drag does, then runs the frame (search,
movement, drawing). Prints the median and the worst of paint + frame in ms and the
peak resident memory; the run is a fresh process, so the peak is this run's.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

STEP = 1 / 60


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", type=int, default=2048)
    ap.add_argument("--frames", type=int, default=300)
    ap.add_argument("--agents", type=int, default=500)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
    from sim.config import load_config
    from sim.maps import load_map
    from sim.simulation import species_counts
    from sim.support.platform import peak_rss_mb, resident_split_mb
    from sim.view.app import App

    with tempfile.TemporaryDirectory() as tmp:
        spec = Path(tmp) / "big.yaml"
        spec.write_text(
            f"name: Big island\ngenerator: island\nwidth: {args.size}\nheight: {args.size}\nseed: 5\nislands: 3\n"
        )
        config = load_config()
        data = load_map(spec, max_size=(args.size, args.size))
        app = App(config, data, maps_dir=Path(tmp), counts=species_counts(config, args.agents), clock="model",
                  headless=True)  # fmt: skip
    for _ in range(60):  # warm up: kernels loaded, first searches served
        app.frame(STEP)
    sim = app.sim
    rng = np.random.default_rng(args.seed)
    x, y = args.size // 2, args.size // 2
    times = []
    for i in range(args.frames):
        if i % 40 == 0:  # a new stroke somewhere else
            x, y = (int(v) for v in rng.integers(args.size // 8, args.size - args.size // 8, 2))
        x = int(np.clip(x + rng.integers(-3, 4), 0, args.size - 1))
        y = int(np.clip(y + rng.integers(-3, 4), 0, args.size - 1))
        terrain = None if (i // 40) % 3 == 2 else 6  # rock, or restore what the map had
        t0 = time.perf_counter()
        sim.paint(x, y, 3, terrain)
        app.frame(STEP)
        times.append((time.perf_counter() - t0) * 1000.0)
    t = np.array(times)
    result = {
        "size": args.size,
        "agents": sim.agents.n,
        "frames": args.frames,
        "paint_frame_ms_p50": float(np.median(t)),
        "paint_frame_ms_p95": float(np.percentile(t, 95)),
        "paint_frame_ms_max": float(t.max()),
        "peak_rss_mb": peak_rss_mb(),
        "replans": sim.totals["replans"],
    }
    split = resident_split_mb()
    # What is resident at the end, by kind: anonymous memory is the program's own; file-backed
    # pages (the libraries' code) vary with the kernel's page cache (bench/RESULTS.md).
    result["rss_anon_mb"], result["rss_file_mb"] = split if split else (None, None)
    print(
        f"{args.size}x{args.size}, {sim.agents.n} animals: paint + frame ms p50 {result['paint_frame_ms_p50']:.2f}, "
        f"p95 {result['paint_frame_ms_p95']:.2f}, max {result['paint_frame_ms_max']:.2f}; "
        f"peak rss {result['peak_rss_mb']:.0f} MB"
        + (f" (at the end: {split[0]:.0f} MB anonymous + {split[1]:.0f} MB file-backed)" if split else "")
        + f"; {result['replans']} re-plans"
    )
    if args.json:
        args.json.write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
