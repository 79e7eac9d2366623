"""Generated islands: terrain from seeded value noise, so big maps need no ASCII art.

Elevation = a few round land masses + fractal noise; moisture = another noise field.
Terrain follows them: water below sea level, a sand rim, grass, forest where moist,
swamp where low and wet, mountain high up, rock on the peaks. Same parameters and
seed, same map.

Everything is computed in blocks of rows, so a 2048x2048 map needs one full float
grid (the elevation: the sea level is a quantile of it) and a few block-sized
temporaries, not a dozen full grids. ``progress(fraction)`` is called as it goes.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from sim.world.terrain import Terrain

ROWS = 128  # rows per block


class ValueNoise:
    """Fractal value noise in [0, 1] of a ``height`` x ``width`` grid; ``cell`` = feature size in cells.

    The random lattices are drawn when it is made (in the generator's order), so rows
    can be evaluated in any order and in blocks.
    """

    def __init__(self, rng: np.random.Generator, height: int, width: int, cell: float, octaves: int, rough: float):
        self.width = width
        self.octaves: list[tuple[np.ndarray, float, float]] = []  # (lattice, cell size, amplitude)
        amp = 1.0
        for _ in range(octaves):
            gh, gw = int(height / cell) + 2, int(width / cell) + 2
            self.octaves.append((rng.random((gh, gw)), cell, amp))
            amp *= rough
            cell = max(1.0, cell / 2)
        self.norm = sum(a for _, _, a in self.octaves)

    def rows(self, y0: int, y1: int) -> np.ndarray:
        """The noise of rows ``y0 <= y < y1``, shape ``(y1 - y0, width)``."""
        total = np.zeros((y1 - y0, self.width))
        for lattice, cell, amp in self.octaves:
            ys = np.arange(y0, y1) / cell
            xs = np.arange(self.width) / cell
            yi, xi = ys.astype(int), xs.astype(int)
            fy, fx = ys - yi, xs - xi
            fy, fx = fy * fy * (3 - 2 * fy), fx * fx * (3 - 2 * fx)  # smoothstep: no grid creases
            top = lattice[yi][:, xi] * (1 - fx) + lattice[yi][:, xi + 1] * fx
            bottom = lattice[yi + 1][:, xi] * (1 - fx) + lattice[yi + 1][:, xi + 1] * fx
            total += amp * (top * (1 - fy)[:, None] + bottom * fy[:, None])
        return total / self.norm


def value_noise(rng: np.random.Generator, height: int, width: int, cell: float, octaves: int, rough: float):
    """Fractal value noise in [0, 1], shape ``(height, width)``; ``cell`` = feature size in cells."""
    return ValueNoise(rng, height, width, cell, octaves, rough).rows(0, height)


def generate_island(
    width: int, height: int, *, seed: int = 0, islands: int = 1, land: float = 0.45, roughness: float = 0.5,
    progress: Callable[[float], None] | None = None,
) -> np.ndarray:  # fmt: skip
    """A terrain grid (uint8, ``[y, x]``) of ``islands`` land masses covering about ``land`` of the map."""
    rng = np.random.default_rng(seed)
    # Centres kept off the border so every island has a shore.
    masses = []
    for _ in range(islands):
        cx, cy = rng.uniform(0.2, 0.8), rng.uniform(0.2, 0.8)
        r = rng.uniform(0.18, 0.32) / np.sqrt(islands) * 1.6
        masses.append((cx, cy, r))
    feature = max(4.0, min(width, height) / 6)
    noise = ValueNoise(rng, height, width, feature, 4, roughness)
    moisture = ValueNoise(rng, height, width, feature * 0.7, 3, 0.5)
    u = np.arange(width)[None, :] / max(1, width - 1)
    elevation = np.empty((height, width))
    for y0 in range(0, height, ROWS):
        y1 = min(height, y0 + ROWS)
        v = np.arange(y0, y1)[:, None] / max(1, height - 1)
        mass = np.zeros((y1 - y0, width))
        for cx, cy, r in masses:
            d = np.sqrt(((u - cx) / r) ** 2 + ((v - cy) / r) ** 2)
            mass = np.maximum(mass, np.clip(1 - d, 0, 1))
        block = 0.62 * mass + 0.38 * noise.rows(y0, y1)
        edge = np.minimum(np.minimum(u, 1 - u), np.minimum(v, 1 - v)) * min(width, height)
        elevation[y0:y1] = block * np.clip(edge / 4, 0, 1)  # a ring of open sea at the border
        if progress:
            progress(0.7 * y1 / height)

    sea = np.quantile(elevation, 1 - land)
    span = max(1e-9, float((elevation - sea).max()))
    t = np.empty((height, width), dtype=np.uint8)
    for y0 in range(0, height, ROWS):
        y1 = min(height, y0 + ROWS)
        t[y0:y1] = _classify(elevation[y0:y1] - sea, span, moisture.rows(y0, y1))
        if progress:
            progress(0.7 + 0.3 * y1 / height)
    return t


def _classify(above: np.ndarray, span: float, moisture: np.ndarray) -> np.ndarray:
    """Terrain from height above the sea and moisture (one block of rows)."""
    h = above / span  # 0 at the shore, 1 on the highest peak
    t = np.full(above.shape, Terrain.WATER, dtype=np.uint8)
    landmask = above > 0
    t[landmask] = Terrain.GRASS
    t[landmask & (h < 0.06)] = Terrain.SAND
    t[landmask & (h >= 0.1) & (moisture > 0.56)] = Terrain.FOREST
    t[landmask & (h >= 0.06) & (h < 0.22) & (moisture < 0.36)] = Terrain.SWAMP
    t[landmask & (h > 0.66)] = Terrain.MOUNTAIN
    t[landmask & (h > 0.86)] = Terrain.ROCK
    return t
