"""Colourings of the map for the views of the search (pure numpy: RGB + alpha per cell).

* the cost field: how one species sees the island (multiplier -> colour, regions outlined);
* the heat map: where search work goes (expansions per cell, fading);
* a distance field: cost to a goal (colour), lines of equal cost.
"""

from __future__ import annotations

import numpy as np

# Cheap -> costly: green, yellow, orange, red.
_RAMP = np.array([(60, 200, 90), (230, 230, 80), (240, 150, 50), (220, 50, 40)], dtype=np.float64)


def ramp(t: np.ndarray) -> np.ndarray:
    """Colours for values ``t`` in [0, 1] along the ramp, shape ``t.shape + (3,)``."""
    t = np.clip(t, 0, 1) * (len(_RAMP) - 1)
    i = np.minimum(t.astype(int), len(_RAMP) - 2)
    f = (t - i)[..., None]
    return _RAMP[i] * (1 - f) + _RAMP[i + 1] * f


def cost_field(costs: np.ndarray, regions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """RGB (uint8, ``[y, x, 3]``) and alpha (0 = impassable: show the hatching beneath).

    Colour follows log(multiplier) between the species' cheapest and costliest cells;
    cells on the border of a connected region are drawn in a light outline colour.
    """
    passable = costs > 0
    rgb = np.zeros((*costs.shape, 3), dtype=np.float64)
    if passable.any():
        lo, hi = np.log(costs[passable].min()), np.log(costs[passable].max())
        t = (np.log(np.where(passable, costs, 1.0)) - lo) / (hi - lo) if hi > lo else np.zeros(costs.shape)
        rgb = ramp(t)
    # A region's border: a passable cell with a 4-neighbour in another region (or blocked).
    padded = np.pad(regions, 1)
    inner = padded[1:-1, 1:-1]
    border = passable & (
        (padded[:-2, 1:-1] != inner)
        | (padded[2:, 1:-1] != inner)
        | (padded[1:-1, :-2] != inner)
        | (padded[1:-1, 2:] != inner)
    )
    rgb[border] = rgb[border] * 0.25 + 0.75 * 255
    alpha = np.where(passable, 255, 0).astype(np.uint8)
    return rgb.astype(np.uint8), alpha


#: The ramp in 256 steps, for colourings made every frame: a look-up a cell instead of the ramp's
#: arithmetic (the heat map of a million cells on screen: ~45 ms a frame through :func:`ramp`). Each
#: step's RGB is one uint32 (bytes R, G, B, 0): numpy gathers a million of those in ~1 ms, where rows
#: of a ``(256, 3)`` table took 11 ms.
_RAMP_256 = ramp(np.linspace(0.0, 1.0, 256)).round().astype(np.uint8)
_RAMP_WORDS = np.concatenate([_RAMP_256, np.zeros((256, 1), np.uint8)], axis=1).view(np.uint32).ravel()
#: The heat map's alpha per level: stronger where more work went.
_HEAT_ALPHA = (70 + (170 * np.arange(256) + 127) // 255).astype(np.uint8)


def heat_colours(heat: np.ndarray, top: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """RGB and alpha for the heat map: log-scaled expansions (``top``: the most a cell has, by
    default ``heat``'s own: give the whole map's when ``heat`` is a window of it), transparent where none."""
    top = float(heat.max(initial=0.0)) if top is None else top
    scale = np.log1p(heat) * np.float32(1.0 / max(np.log1p(top), 1e-6))
    level = np.clip(scale * 255.0 + 0.5, 0.0, 255.0).astype(np.uint8)
    alpha = np.where(heat > 0.05, _HEAT_ALPHA[level], np.uint8(0))
    rgb = _RAMP_WORDS[level].view(np.uint8).reshape(*level.shape, 4)[..., :3]
    return rgb, alpha


CLOSED_RGB = (235, 50, 215)  # a search's expanded cells
OPEN_RGB = (255, 150, 20)  # cells it left on its open list


def footprint_colours(record: np.ndarray, upto: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Closed cells (expanded, up to ``upto`` if given) magenta, open cells orange: colours no
    terrain has (a blue footprint read as water), strong enough to read over every terrain."""
    closed = record > 0 if upto is None else (record > 0) & (record <= upto)
    opened = record == -1 if upto is None else np.zeros(record.shape, dtype=bool)
    rgb = np.zeros((*record.shape, 3), dtype=np.uint8)
    rgb[closed] = CLOSED_RGB
    rgb[opened] = OPEN_RGB
    alpha = np.where(closed | opened, 175, 0).astype(np.uint8)
    return rgb, alpha


def distance_colours(dist: np.ndarray, contours: int = 12) -> tuple[np.ndarray, np.ndarray]:
    """RGB and alpha for a distance field: near the goal green to far red, ``contours`` lines of
    equal cost drawn dark between them; transparent where the field is ``inf`` (not reached)."""
    reached = np.isfinite(dist)
    rgb = np.zeros((*dist.shape, 3), dtype=np.float64)
    alpha = np.where(reached, 200, 0).astype(np.uint8)
    if not reached.any():
        return rgb.astype(np.uint8), alpha
    top = float(dist[reached].max()) or 1.0
    t = np.where(reached, dist, 0.0) / top
    rgb = ramp(t)
    band = np.where(reached, np.floor(t * contours), -1)
    padded = np.pad(band, 1, mode="edge")
    line = reached & ((padded[1:-1, 2:] != band) | (padded[2:, 1:-1] != band))  # a band changes here
    rgb[line] *= 0.35
    return rgb.astype(np.uint8), alpha
