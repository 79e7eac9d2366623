"""Headless runs: the same simulation and rendering on SDL's dummy driver, fixed 1/60 s steps.

Searches are charged to the budget by the deterministic cost model (see sim.model.scheduler), so
the same seed gives the same checksum; the ms figures reported are measured wall time.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np

from sim.support.checks import one_line
from sim.support.platform import peak_rss_mb
from sim.view.app import App

STEP = 1.0 / 60.0


def run(app: App, frames: int) -> dict:
    """Run ``frames`` frames as fast as possible; return the figures (see ``summary_lines``)."""
    frame_ms, search_ms, searches, expanded, queue, latency, crowd_ms = [], [], [], [], [], [], []
    asked, held = [], []
    t0 = time.perf_counter()
    for _ in range(frames):
        frame_ms.append(app.frame(STEP))
        s = app.sim.stats
        search_ms.append(s.search_ms)
        crowd_ms.append(s.crowd_ms)
        searches.append(s.searches)
        expanded.append(s.expanded)
        queue.append(s.waiting)
        latency.append(s.latency)
        asked.append(s.asked)
        held.append(s.held)
        if not app.running:
            break
    wall = time.perf_counter() - t0
    return _figures(app, wall, frame_ms, search_ms, searches, expanded, queue, latency, crowd_ms, asked, held)


def _figures(app: App, wall: float, frame_ms, search_ms, searches, expanded, queue, latency, crowd_ms, asked, held):
    """The figures of a run from its per-frame series (``wall``: its seconds)."""
    n = len(frame_ms)
    fm, sm = np.array(frame_ms), np.array(search_ms)
    lat = np.concatenate(latency) * 1000.0 if latency else np.zeros(0)
    lat = lat if lat.size else np.zeros(1)
    return {
        "frames": n,
        "agents": app.sim.agents.n,
        "map": app.sim.world.name,
        "seed": app.config.seed,
        "fps": n / wall if wall > 0 else 0.0,
        "frame_ms_p50": float(np.percentile(fm, 50)),
        "frame_ms_p95": float(np.percentile(fm, 95)),
        "frame_ms_max": float(fm.max()),
        "search_ms_p50": float(np.percentile(sm, 50)),
        "search_ms_p95": float(np.percentile(sm, 95)),
        "search_ms_max": float(sm.max()),
        "budget_ms": app.sim.budget.budget_ms,
        "crowd_ms_p50": float(np.percentile(crowd_ms, 50)),
        "crowd_ms_p95": float(np.percentile(crowd_ms, 95)),
        "searches_per_s": sum(searches) / wall if wall > 0 else 0.0,
        "expanded_per_s": sum(expanded) / wall if wall > 0 else 0.0,
        "searches": int(sum(searches)),
        "search_us_per_search": 1000.0 * float(sm.sum()) / max(1, int(sum(searches))),
        "latency_ms_p50": float(np.percentile(lat, 50)),
        "latency_ms_p95": float(np.percentile(lat, 95)),
        "latency_ms_max": float(lat.max()),
        "queue_p95": float(np.percentile(queue, 95)),
        "asked_per_s": sum(asked) / (n * STEP) if n else 0.0,  # simulated seconds: what the model asks
        "served_per_s": sum(searches) / (n * STEP) if n else 0.0,
        "held_p95": float(np.percentile(held, 95)) if held else 0.0,
        "failed": app.sim.totals["failed"],
        "capped": app.sim.totals["capped"],
        "peak_rss_mb": peak_rss_mb(),
        "checksum": app.sim.checksum(),
        "series": {
            "frame_ms": frame_ms,
            "search_ms": search_ms,
            "searches": searches,
            "expanded": expanded,
            "queue": queue,
        },
    }


def summary_lines(r: dict) -> list[str]:
    return [
        f"frames: {r['frames']}  agents: {r['agents']}  map: {one_line(str(r['map'])).strip()}  seed: {r['seed']}",
        f"fps: {r['fps']:.1f}",
        f"frame ms p50/p95/max: {r['frame_ms_p50']:.2f} / {r['frame_ms_p95']:.2f} / {r['frame_ms_max']:.2f}",
        f"search ms per frame p50/p95/max: {r['search_ms_p50']:.3f} / {r['search_ms_p95']:.3f} / "
        f"{r['search_ms_max']:.3f}  (budget {r['budget_ms']:g})",
        f"searches per s: {r['searches_per_s']:.0f}  (search time per search: {r['search_us_per_search']:.1f} µs)",
        f"latency ms p50/p95/max: {r['latency_ms_p50']:.1f} / {r['latency_ms_p95']:.1f} / {r['latency_ms_max']:.1f}"
        f"  (request to path, simulated time)  queue p95: {r['queue_p95']:.0f}",
        f"asked / served per simulated s: {r['asked_per_s']:.0f} / {r['served_per_s']:.0f}"
        f"  (waiting to ask p95: {r['held_p95']:.0f})",
        f"nodes expanded per s: {r['expanded_per_s']:.0f}",
        f"separation ms per frame p50/p95: {r['crowd_ms_p50']:.3f} / {r['crowd_ms_p95']:.3f}",
        f"failed / capped searches: {r['failed']} / {r['capped']}",
        f"peak rss: {r['peak_rss_mb']:.0f} MB"
        if r["peak_rss_mb"] is not None
        else "peak rss: n/a (not measurable here)",
        f"checksum: {r['checksum']}",
    ]


def write_json(r: dict, path: Path) -> None:
    path.write_text(json.dumps(r, indent=1))


def save_screenshot(app: App, path: Path) -> None:
    """The last frame as a PNG, whatever the name's ending (pygame would pick the format by it:
    a Targa file for ``shot.txt``)."""
    import pygame

    with open(path, "wb") as out:
        pygame.image.save(app.screen, out, "png")
