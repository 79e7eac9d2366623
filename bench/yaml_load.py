"""How long a large saved map takes to load: PyYAML's pure-Python SafeLoader against the
C-accelerated CSafeLoader the project uses (same safe constructors), and the project's full
``load_map`` (safety scans, checks and terrain decoding included).

    python -m bench.yaml_load [--size 512] [--repeat 5]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import yaml

from sim.maps import load_map, save_map
from sim.maps.generate import generate_island


def _median_ms(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=int, default=512, help="map side in cells")
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        terrain = generate_island(args.size, args.size, seed=1, islands=6)
        path = save_map("bench", terrain, None, Path(tmp))
        text = path.read_text()
        pure = _median_ms(lambda: yaml.load(text, Loader=yaml.SafeLoader), args.repeat)
        fast_loader = getattr(yaml, "CSafeLoader", None)
        fast = _median_ms(lambda: yaml.load(text, Loader=fast_loader), args.repeat) if fast_loader else float("nan")
        full = _median_ms(lambda: load_map(path), args.repeat)
    print(f"saved {args.size}x{args.size} map: {len(text) / 1e6:.2f} MB")
    print(f"  yaml SafeLoader (pure Python) {pure:8.1f} ms")
    print(f"  yaml CSafeLoader              {fast:8.1f} ms   {pure / fast:5.1f}x faster")
    print(f"  sim.maps.load_map (all checks) {full:7.1f} ms")


if __name__ == "__main__":
    main()
