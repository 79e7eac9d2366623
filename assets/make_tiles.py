"""Draws the bundled Tiled tileset image, maps/terrain.png: one 16x16 tile per terrain, in
the order of sim.world.terrain (water, sand, grass, forest, swamp, mountain, rock).

    python assets/make_tiles.py

The PNG is committed; this script is how it was made. Each tile is the middle cell of a
3x3 patch of that terrain drawn by the demo's own landscape renderer
(sim/view/draw/landscape.py) at 16 pixels a cell, so a Tiled map drawn with its own tiles
(key T in the demo) has the same grain, tree crowns, reeds and relief as the landscape.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
import pygame  # noqa: E402

from sim.view.draw.landscape import landscape  # noqa: E402
from sim.world.terrain import DEFAULT_COLOURS, Terrain  # noqa: E402

TILE = 16
OUT = ROOT / "maps" / "terrain.png"


def tiles() -> pygame.Surface:
    colours = np.array([DEFAULT_COLOURS[t] for t in Terrain], np.float32)
    sheet = pygame.Surface((TILE * len(Terrain), TILE))
    for t in Terrain:
        patch = np.full((3, 3), int(t), np.uint8)
        pixels, _ = landscape(patch, colours, TILE, TILE, TILE, TILE, TILE)  # the middle cell
        rgb = np.stack([(pixels >> s) & 255 for s in (16, 8, 0)], axis=-1).astype(np.uint8)
        sheet.blit(pygame.image.frombuffer(np.ascontiguousarray(rgb).tobytes(), (TILE, TILE), "RGB"), (TILE * t, 0))
    return sheet


def main() -> None:
    pygame.image.save(tiles(), str(OUT))
    print("wrote", OUT)


if __name__ == "__main__":
    main()
