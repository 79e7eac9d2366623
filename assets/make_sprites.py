"""Draws the animal sprites (top-down pixel art, 16x16, facing east) into assets/sprites/.

    python assets/make_sprites.py

The PNGs are committed; this script is how they were made. The renderer rotates them
to 8 headings and scales them to the zoom.
"""

from __future__ import annotations

import os
from pathlib import Path

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
import pygame

OUT = Path(__file__).parent / "sprites"
OUTLINE = (30, 26, 24)


def cow() -> pygame.Surface:
    s = pygame.Surface((16, 16), pygame.SRCALPHA)
    pygame.draw.ellipse(s, OUTLINE, (1, 3, 12, 10))
    pygame.draw.ellipse(s, (246, 242, 232), (2, 4, 10, 8))
    for spot in ((4, 5, 3, 3), (8, 8, 3, 3), (3, 9, 2, 2)):
        pygame.draw.ellipse(s, (40, 36, 34), spot)
    pygame.draw.rect(s, OUTLINE, (11, 5, 5, 6))
    pygame.draw.rect(s, (246, 242, 232), (12, 6, 3, 4))
    pygame.draw.rect(s, (236, 160, 160), (14, 6, 2, 4))  # muzzle
    s.set_at((12, 4), (210, 200, 170))  # horns
    s.set_at((12, 11), (210, 200, 170))
    pygame.draw.line(s, OUTLINE, (0, 8), (1, 8))  # tail
    return s


def bird() -> pygame.Surface:
    s = pygame.Surface((16, 16), pygame.SRCALPHA)
    wing = (200, 64, 44)
    pygame.draw.polygon(s, OUTLINE, [(5, 7), (9, 0), (10, 1), (9, 7)])
    pygame.draw.polygon(s, OUTLINE, [(5, 8), (9, 15), (10, 14), (9, 8)])
    pygame.draw.polygon(s, wing, [(6, 7), (9, 1), (9, 7)])
    pygame.draw.polygon(s, wing, [(6, 8), (9, 14), (9, 8)])
    pygame.draw.ellipse(s, OUTLINE, (2, 5, 11, 6))
    pygame.draw.ellipse(s, (240, 96, 64), (3, 6, 9, 4))
    pygame.draw.polygon(s, (250, 200, 60), [(12, 7), (15, 8), (12, 9)])  # beak
    pygame.draw.polygon(s, OUTLINE, [(0, 6), (3, 8), (0, 10)])  # tail
    s.set_at((10, 7), (20, 20, 20))
    return s


def fish() -> pygame.Surface:
    s = pygame.Surface((16, 16), pygame.SRCALPHA)
    body = (80, 220, 210)
    pygame.draw.polygon(s, OUTLINE, [(0, 3), (5, 8), (0, 13)])
    pygame.draw.polygon(s, (60, 170, 170), [(1, 5), (4, 8), (1, 11)])
    pygame.draw.ellipse(s, OUTLINE, (3, 4, 13, 8))
    pygame.draw.ellipse(s, body, (4, 5, 11, 6))
    pygame.draw.line(s, (200, 250, 245), (6, 6), (12, 6))  # shine
    pygame.draw.line(s, (60, 170, 170), (8, 5), (8, 10))  # gill
    s.set_at((12, 7), (20, 20, 20))
    return s


def main() -> None:
    pygame.init()
    OUT.mkdir(exist_ok=True)
    for name, draw in (("cow", cow), ("bird", bird), ("water", fish)):
        pygame.image.save(draw(), str(OUT / f"{name}.png"))
        print("wrote", OUT / f"{name}.png")


if __name__ == "__main__":
    main()
