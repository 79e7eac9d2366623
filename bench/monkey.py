"""Monkey: the demo's window (headless) under random input, every frame checked for an exception
and for animals out of place.

    python -m bench.monkey [--seeds 1-10] [--frames 1500] [--config PATH]

For each seed: the App on one of the shipped maps (a copy, in a temporary folder, so saved maps
and screenshots go there), then random keys (some with ctrl or shift), clicks and drags with
every button, mouse moves, wheel turns and window resizes, a few a frame. Esc is pressed rarely
and the app is kept running when it asks to quit. A frame that raises, or after which an animal's
``cell`` is not the cell that holds its ``pos`` on ground it may stand on, prints the traceback and
the last events posted, and the run exits with status 1. It found two crashes in compare mode
(2026-12-05: N then an arrow key; one panel large, then D).
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import sys
import tempfile
import time
import traceback
from pathlib import Path

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
# SDL turns SIGINT and SIGTERM into a quit event, which the monkey keeps running through (on
# purpose): without this, `timeout` or Ctrl-C could not stop it.
os.environ.setdefault("SDL_NO_SIGNAL_HANDLERS", "1")

import pygame

ROOT = Path(__file__).resolve().parent.parent
MAPS = ("archipelago.yaml", "fortress.yaml", "island.yaml", "lagoon.tmx", "river.yaml", "tutorial.yaml")
FILES = ("terrain.tsx", "terrain.png")  # (the Tiled map's tileset and its image)
NAMED = [f"F{i}" for i in range(1, 13)] + [
    "SPACE", "TAB", "ESCAPE", "RETURN", "BACKSPACE", "DELETE", "LEFT", "RIGHT", "UP", "DOWN", "PLUS", "MINUS",
    "EQUALS", "LEFTBRACKET", "RIGHTBRACKET", "HOME", "END", "PAGEUP", "PAGEDOWN", "KP_PLUS", "KP_MINUS", "COMMA",
    "PERIOD", "SLASH",
]  # fmt: skip
KEYS = sorted({getattr(pygame, f"K_{c}") for c in "abcdefghijklmnopqrstuvwxyz0123456789"}
              | {getattr(pygame, f"K_{n}") for n in NAMED})  # fmt: skip
SIZES = ((1, 1), (200, 150), (320, 240), (640, 360), (320, 900), (900, 560), (1280, 800), (1920, 1080))


def _events(rng: random.Random, size: tuple[int, int]) -> list[pygame.event.Event]:
    """One random action as its events: a key, a stroke, a move, a wheel turn or a resize."""
    w, h = size
    r = rng.random()
    if r < 0.45:
        k = rng.choice(KEYS)
        mod = rng.choice((0, 0, 0, pygame.KMOD_CTRL, pygame.KMOD_SHIFT))
        if (k == pygame.K_ESCAPE and rng.random() < 0.7) or (k == pygame.K_q and mod):
            return []
        down = pygame.event.Event(pygame.KEYDOWN, key=k, mod=mod, unicode="")
        return [down, pygame.event.Event(pygame.KEYUP, key=k, mod=mod)]
    if r < 0.75:
        p, b = (rng.randrange(-20, w + 20), rng.randrange(-20, h + 20)), rng.choice((1, 1, 2, 3))
        out = [pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=p, button=b, mod=0)]
        for _ in range(rng.randrange(5)):
            q = (rng.randrange(w), rng.randrange(h))
            held = tuple(int(b == i) for i in (1, 2, 3))
            out.append(pygame.event.Event(pygame.MOUSEMOTION, pos=q, rel=(q[0] - p[0], q[1] - p[1]), buttons=held))
            p = q
        return [*out, pygame.event.Event(pygame.MOUSEBUTTONUP, pos=p, button=b, mod=0)]
    if r < 0.9:
        q = (rng.randrange(w), rng.randrange(h))
        return [pygame.event.Event(pygame.MOUSEMOTION, pos=q, rel=(1, 1), buttons=(0, 0, 0))]
    if r < 0.97:
        y = rng.choice((-3, -1, 1, 3))
        return [pygame.event.Event(pygame.MOUSEWHEEL, x=0, y=y, flipped=False, precise_x=0.0, precise_y=float(y))]
    w, h = rng.choice(SIZES)
    return [pygame.event.Event(pygame.VIDEORESIZE, size=(w, h), w=w, h=h)]


def run(seed: int, frames: int, config_path: Path | None = None) -> bool:
    """One seed's run; whether every frame went through with every animal where it stands."""
    from sim.config import load_config
    from sim.maps import load_map
    from sim.model.replan import misplaced
    from sim.pathfinding import set_first_use
    from sim.view.app import App

    set_first_use("wait")
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as tmp:
        maps = Path(tmp) / "maps"
        maps.mkdir()
        for name in MAPS + FILES:
            shutil.copy(ROOT / "maps" / name, maps / name)
        os.environ["ASTAR_ISLAND_HOME"] = str(Path(tmp) / "user")
        config = load_config(config_path or ROOT / "config.yaml")
        app = App(config, load_map(maps / rng.choice(MAPS)), maps_dir=maps, counts=None, clock="model",
                  headless=True, screenshot_dir=Path(tmp) / "shots")  # fmt: skip
        posted: list[pygame.event.Event] = []
        t0 = time.perf_counter()
        for f in range(frames):
            for _ in range(rng.choice((0, 0, 1, 1, 2, 3))):
                for e in _events(rng, app.screen.get_size()):
                    if e.type == pygame.VIDEORESIZE:  # the window manager's part: the window is that size now
                        pygame.display.set_mode(e.size)  # (on SDL's dummy driver a posted event alone sizes nothing)
                    posted.append(e)
                    pygame.event.post(e)
            try:
                app.frame(1 / 60)
                wrong = misplaced(app.sim.agents, app.sim.species, app.sim.world.terrain)
                if wrong:
                    raise AssertionError("; ".join(wrong))
            except Exception:
                print(f"seed {seed}: an exception at frame {f}", file=sys.stderr)
                traceback.print_exc()
                last = [pygame.event.event_name(e.type) + f"({getattr(e, 'key', getattr(e, 'button', ''))})"
                        for e in posted[-12:]]  # fmt: skip
                print(f"seed {seed}: the last events: {' '.join(last)}", file=sys.stderr)
                return False
            app.running = True  # (the monkey asked to quit: go on)
            del posted[:-64]
        seconds, n = time.perf_counter() - t0, app.sim.agents.n
        print(f"seed {seed}: {frames} frames in {seconds:.1f} s, {n} animals at the end")
    pygame.display.quit()
    return True


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", default="1-10", help="a seed or a range: 7, 1-10")
    ap.add_argument("--frames", type=int, default=1500)
    ap.add_argument("--config", type=Path, help="settings file (default: the bundled config.yaml)")
    args = ap.parse_args(argv)
    lo, _, hi = args.seeds.partition("-")
    try:
        seeds = range(int(lo), int(hi or lo) + 1)
    except ValueError:
        ap.error(f"--seeds: expected a whole number or a range like 1-10, got {args.seeds!r}")
    if args.frames < 1:
        ap.error(f"--frames: expected at least 1, got {args.frames}")
    return 0 if all(run(seed, args.frames, args.config) for seed in seeds) else 1


if __name__ == "__main__":
    sys.exit(main())
