"""Generated islands: terrain from seeded value noise, so big maps need no ASCII art.

Elevation = a few round land masses + fractal noise; moisture = another noise field.
Terrain follows them: water below sea level, a sand rim, grass, forest where moist,
swamp where low and wet, mountain high up, rock on the peaks. Same parameters and
seed, same map.
"""

from __future__ import annotations

import numpy as np

from .terrain import Terrain


def value_noise(rng: np.random.Generator, height: int, width: int, cell: float, octaves: int, rough: float):
    """Fractal value noise in [0, 1], shape ``(height, width)``; ``cell`` = feature size in cells."""
    total = np.zeros((height, width))
    amp, norm = 1.0, 0.0
    for _ in range(octaves):
        gh, gw = int(height / cell) + 2, int(width / cell) + 2
        lattice = rng.random((gh, gw))
        ys = np.arange(height) / cell
        xs = np.arange(width) / cell
        y0, x0 = ys.astype(int), xs.astype(int)
        fy, fx = ys - y0, xs - x0
        fy, fx = fy * fy * (3 - 2 * fy), fx * fx * (3 - 2 * fx)  # smoothstep: no grid creases
        top = lattice[y0][:, x0] * (1 - fx) + lattice[y0][:, x0 + 1] * fx
        bottom = lattice[y0 + 1][:, x0] * (1 - fx) + lattice[y0 + 1][:, x0 + 1] * fx
        total += amp * (top * (1 - fy)[:, None] + bottom * fy[:, None])
        norm += amp
        amp *= rough
        cell = max(1.0, cell / 2)
    return total / norm


def generate_island(
    width: int, height: int, *, seed: int = 0, islands: int = 1, land: float = 0.45, roughness: float = 0.5
) -> np.ndarray:
    """A terrain grid (uint8, ``[y, x]``) of ``islands`` land masses covering about ``land`` of the map."""
    rng = np.random.default_rng(seed)
    ys, xs = np.mgrid[0:height, 0:width]
    u, v = xs / max(1, width - 1), ys / max(1, height - 1)
    mass = np.zeros((height, width))
    # Centres kept off the border so every island has a shore.
    for _ in range(islands):
        cx, cy = rng.uniform(0.2, 0.8), rng.uniform(0.2, 0.8)
        r = rng.uniform(0.18, 0.32) / np.sqrt(islands) * 1.6
        d = np.sqrt(((u - cx) / r) ** 2 + ((v - cy) / r) ** 2)
        mass = np.maximum(mass, np.clip(1 - d, 0, 1))
    feature = max(4.0, min(width, height) / 6)
    noise = value_noise(rng, height, width, feature, 4, roughness)
    moisture = value_noise(rng, height, width, feature * 0.7, 3, 0.5)
    elevation = 0.62 * mass + 0.38 * noise
    edge = np.minimum.reduce([u, 1 - u, v, 1 - v]) * min(width, height)
    elevation *= np.clip(edge / 4, 0, 1)  # a ring of open sea at the border

    sea = np.quantile(elevation, 1 - land)
    above = elevation - sea
    span = max(1e-9, float(above.max()))
    h = above / span  # 0 at the shore, 1 on the highest peak
    t = np.full((height, width), Terrain.WATER, dtype=np.uint8)
    landmask = above > 0
    t[landmask] = Terrain.GRASS
    t[landmask & (h < 0.06)] = Terrain.SAND
    t[landmask & (h >= 0.1) & (moisture > 0.56)] = Terrain.FOREST
    t[landmask & (h >= 0.06) & (h < 0.22) & (moisture < 0.36)] = Terrain.SWAMP
    t[landmask & (h > 0.66)] = Terrain.MOUNTAIN
    t[landmask & (h > 0.86)] = Terrain.ROCK
    return t
