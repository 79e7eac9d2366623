"""Draws the animal sprite sheets into assets/sprites/ (top-down, facing east).

    python assets/make_sprites.py

The PNGs are committed; this script is how they were made. A sheet is a grid of 64x64
frames: row 0 is the cycle an animal shows while it moves, row 1 the one while it rests
(a fully transparent frame ends a row early). Each frame is drawn at twice the size and
scaled down smoothly. The renderer (``sim/view/draw/sprites.py``) rotates the frames to
16 headings and scales them to the zoom; moving frames advance with the distance walked,
resting ones with the model's time.

* cow: four walking frames (legs and tail swing), two grazing (head down, turning);
* bird: four flapping frames (wings spread, half up, up, half down), one gliding; the
  renderer adds its shadow on the ground;
* water creature: four swimming frames (tail beat, a wake behind), two drifting.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
import pygame

OUT = Path(__file__).parent / "sprites"
FRAME = 64  # pixels, in the sheet
S = 2 * FRAME  # drawn at twice the size
OUTLINE = (34, 28, 26)

Point = tuple[float, float]


def _surface() -> pygame.Surface:
    return pygame.Surface((S, S), pygame.SRCALPHA)


def _pt(x: float, y: float) -> tuple[int, int]:
    """Drawing coordinates from frame units (-1 .. 1, centre 0, x east, y south)."""
    return round(S / 2 + x * S / 2), round(S / 2 + y * S / 2)


def _ellipse(s: pygame.Surface, colour, cx: float, cy: float, rx: float, ry: float, outline: int = 0) -> None:
    x0, y0 = _pt(cx - rx, cy - ry)
    x1, y1 = _pt(cx + rx, cy + ry)
    if outline:
        pygame.draw.ellipse(s, OUTLINE, (x0 - outline, y0 - outline, x1 - x0 + 2 * outline, y1 - y0 + 2 * outline))
    pygame.draw.ellipse(s, colour, (x0, y0, x1 - x0, y1 - y0))


def _poly(s: pygame.Surface, colour, points: list[Point], outline: int = 0) -> None:
    pts = [_pt(x, y) for x, y in points]
    pygame.draw.polygon(s, colour, pts)
    if outline:
        pygame.draw.polygon(s, OUTLINE, pts, outline)


# ---------------------------------------------------------------- cow
HIDE = (248, 244, 236)
PATCH = (44, 38, 36)
MUZZLE = (238, 168, 160)


def cow(step: int | None, graze: int | None = None) -> pygame.Surface:
    """``step`` 0..3: a walking frame; ``graze`` 0..1: a grazing frame (head down and to a side)."""
    s = _surface()
    swing = math.sin(step * math.pi / 2) if step is not None else 0.0
    # Legs: hooves sticking out at the sides, diagonal pairs moving together.
    for lx, side in ((0.3, -1), (0.3, 1), (-0.3, -1), (-0.3, 1)):
        phase = swing if (lx > 0) == (side > 0) else -swing
        _ellipse(s, OUTLINE, lx + 0.16 * phase, side * 0.34, 0.1, 0.075)
    # Tail, swinging.
    tail = (swing if step is not None else 0.4 * (1 if graze else -1)) * 0.12
    pygame.draw.line(s, OUTLINE, _pt(-0.5, 0), _pt(-0.78, tail), 6)
    _ellipse(s, PATCH, -0.8, tail, 0.05, 0.05)
    # Body with patches.
    _ellipse(s, HIDE, 0.0, 0.0, 0.52, 0.31, outline=4)
    _ellipse(s, PATCH, -0.18, -0.1, 0.16, 0.12)
    _ellipse(s, PATCH, 0.16, 0.13, 0.13, 0.09)
    _ellipse(s, PATCH, -0.34, 0.14, 0.08, 0.07)
    # Head: forward when walking; lower (further, smaller) and turned when grazing.
    hx, hy, size = (0.6, 0.0, 1.0) if graze is None else (0.68, 0.08 * (1 if graze else -1), 0.85)
    _ellipse(s, HIDE, hx, hy, 0.17 * size, 0.15 * size, outline=4)
    _ellipse(s, MUZZLE, hx + 0.13 * size, hy, 0.08 * size, 0.11 * size)
    for side in (-1, 1):  # horns and ears
        _poly(s, (222, 210, 176), [(hx - 0.02, hy + side * 0.1 * size), (hx + 0.02, hy + side * 0.24 * size),
                                   (hx + 0.06, hy + side * 0.1 * size)], outline=2)  # fmt: skip
        _ellipse(s, HIDE, hx - 0.08, hy + side * 0.17 * size, 0.05, 0.035, outline=2)
    return s


# ---------------------------------------------------------------- bird
WING = (178, 72, 46)
WING_DARK = (96, 40, 30)
BELLY = (250, 224, 200)


def bird(span: float, sweep: float = 0.0) -> pygame.Surface:
    """Wings at ``span`` of their full reach (1 spread, small: raised, seen from above)."""
    s = _surface()
    for side in (-1, 1):
        tip_y, tip_x = side * (0.18 + 0.72 * span), -0.12 - 0.25 * sweep - 0.15 * (1 - span)
        wing = [(0.16, side * 0.08), (0.06, side * (0.1 + 0.45 * span)), (tip_x, tip_y),
                (-0.08, side * (0.1 + 0.3 * span)), (-0.18, side * 0.08)]  # fmt: skip
        _poly(s, WING, wing, outline=3)
        _poly(s, WING_DARK, [(tip_x + 0.05, tip_y * 0.8), (tip_x, tip_y), (tip_x - 0.05, tip_y * 0.75)])
    _poly(s, WING_DARK, [(-0.3, 0), (-0.58, -0.16), (-0.5, 0), (-0.58, 0.16)], outline=3)  # forked tail
    _ellipse(s, BELLY, 0.0, 0.0, 0.34, 0.11, outline=3)
    _ellipse(s, WING, 0.02, 0.0, 0.2, 0.06)
    _ellipse(s, BELLY, 0.3, 0.0, 0.1, 0.09, outline=3)  # head
    _poly(s, (250, 196, 60), [(0.38, -0.04), (0.5, 0), (0.38, 0.04)], outline=2)  # beak
    return s


# ---------------------------------------------------------------- water creature
SKIN = (86, 214, 204)
BACK = (40, 130, 134)
FOAM = (230, 246, 250)


def fish(beat: float, wake: bool) -> pygame.Surface:
    """Tail bent by ``beat`` (-1 .. 1); with a wake of foam behind while swimming."""
    s = _surface()
    if wake:
        for k, spread in enumerate((0.22, 0.32, 0.4)):
            x = -0.55 - 0.13 * k
            for side in (-1, 1):
                pygame.draw.line(s, FOAM, _pt(x + 0.08, side * (spread - 0.08)), _pt(x, side * spread), 6)
    body = [(0.5, 0.0), (0.36, -0.16), (0.05, -0.2), (-0.25, -0.12 + 0.04 * beat), (-0.4, 0.06 * beat),
            (-0.25, 0.12 + 0.04 * beat), (0.05, 0.2), (0.36, 0.16)]  # fmt: skip
    tail_x, tail_y = -0.42, 0.08 * beat
    _poly(s, BACK, [(tail_x, tail_y), (tail_x - 0.2, tail_y - 0.2 + 0.1 * beat), (tail_x - 0.14, tail_y),
                    (tail_x - 0.2, tail_y + 0.2 + 0.1 * beat)], outline=3)  # fmt: skip
    for side in (-1, 1):  # pectoral fins
        _poly(s, BACK, [(0.18, side * 0.16), (0.02, side * (0.32 - 0.04 * beat * side)), (0.06, side * 0.15)],
              outline=2)  # fmt: skip
    _poly(s, SKIN, body, outline=3)
    _poly(s, BACK, [(0.3, 0.0), (0.1, -0.06), (-0.3, 0.02 * beat), (0.1, 0.06)])  # back stripe
    for side in (-1, 1):
        _ellipse(s, (20, 30, 34), 0.33, side * 0.09, 0.035, 0.035)
    return s


def sheet(moving: list[pygame.Surface], resting: list[pygame.Surface]) -> pygame.Surface:
    """Two rows of 64x64 frames, each scaled down smoothly from its drawing."""
    cols = max(len(moving), len(resting))
    out = pygame.Surface((cols * FRAME, 2 * FRAME), pygame.SRCALPHA)
    for row, frames in enumerate((moving, resting)):
        for col, frame in enumerate(frames):
            out.blit(pygame.transform.smoothscale(frame, (FRAME, FRAME)), (col * FRAME, row * FRAME))
    return out


SHEETS: dict[str, Callable[[], pygame.Surface]] = {
    "cow": lambda: sheet([cow(k) for k in range(4)], [cow(None, 0), cow(None, 1)]),
    "bird": lambda: sheet([bird(1.0), bird(0.6, 0.3), bird(0.25, 0.5), bird(0.6, 0.3)], [bird(0.95, 0.55)]),
    "water": lambda: sheet([fish(b, True) for b in (0.0, 1.0, 0.0, -1.0)], [fish(0.4, False), fish(-0.4, False)]),
}


def main() -> None:
    pygame.init()
    OUT.mkdir(exist_ok=True)
    for name, make in SHEETS.items():
        pygame.image.save(make(), str(OUT / f"{name}.png"))
        print("wrote", OUT / f"{name}.png")


if __name__ == "__main__":
    main()
