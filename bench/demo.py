"""Demo benchmark: the headless mode (rendering on) at 500 and 2,000 animals, against the bars.

    python -m bench.demo [--frames 1200] [--map island] [--seed 42]

Each run is a fresh process (so peak memory is that run's). Prints the figures and
whether each bar of the demo is met: 500 animals >= 110 FPS with search ms p95 within
the budget; 2,000 animals >= 60 FPS and < 300 MB resident.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def run(agents: int, frames: int, map_name: str, seed: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "figures.json"
        cmd = [
            sys.executable,
            str(ROOT / "main.py"),
            "--headless",
            "--frames",
            str(frames),
            "--agents",
            str(agents),
            "--map",
            map_name,
            "--seed",
            str(seed),
            "--json",
            str(out),
        ]
        subprocess.run(cmd, check=True, capture_output=True, cwd=ROOT)
        return json.loads(out.read_text())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--frames", type=int, default=1200)
    ap.add_argument("--map", default="island")
    ap.add_argument("--seed", type=int, default=42)
    args = ap.parse_args(argv)
    print(
        f"{'animals':>8} {'fps':>8} {'frame ms p50/p95':>17} {'search ms p50/p95/max':>22} {'budget':>7}"
        f" {'searches/s':>11} {'rss MB':>7}  bars"
    )
    ok = True
    for agents, min_fps in ((500, 110), (2000, 60)):
        r = run(agents, args.frames, args.map, args.seed)
        bars = [f"fps>={min_fps}: {'yes' if r['fps'] >= min_fps else 'NO'}"]
        if agents == 500:
            bars.append(f"search p95<=budget: {'yes' if r['search_ms_p95'] <= r['budget_ms'] else 'NO'}")
        else:
            bars.append(f"rss<300MB: {'yes' if r['peak_rss_mb'] < 300 else 'NO'}")
        ok &= all(b.endswith("yes") for b in bars)
        print(
            f"{agents:>8} {r['fps']:>8.1f} {r['frame_ms_p50']:>8.2f}/{r['frame_ms_p95']:<8.2f}"
            f" {r['search_ms_p50']:>7.3f}/{r['search_ms_p95']:.3f}/{r['search_ms_max']:<7.3f} {r['budget_ms']:>7g}"
            f" {r['searches_per_s']:>11.0f} {r['peak_rss_mb']:>7.0f}  {'; '.join(bars)}",
            flush=True,
        )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
