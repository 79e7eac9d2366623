"""The herds' distance field view (B): colour by cost to the goal, lines of equal cost, flow arrows.

While a field is still growing it is drawn as far as it has got: the view shows the
reverse Dijkstra spreading out from the goal over a few frames.
"""

from __future__ import annotations

import math

import numpy as np
import pygame

from sim.instruments import fields
from sim.model.herds import Herd
from sim.pathfinding import STEPS
from sim.view.camera import Camera
from sim.view.draw.legends import Legend
from sim.view.draw.search_views import blit_cells

ARROW_PX = 28  # about one flow arrow per this many pixels


class FieldView:
    """Draws one herd's field; the colouring is cached until the field changes."""

    def __init__(self) -> None:
        self._key: tuple | None = None
        self._colours: tuple[np.ndarray, np.ndarray] | None = None

    def draw(self, screen: pygame.Surface, cam: Camera, herd: Herd) -> None:
        key = (herd.id, id(herd.growth), herd.settled, herd.ready, id(herd.field))
        if key != self._key:
            self._colours = fields.distance_colours(herd.field)
            self._key = key
        assert self._colours is not None
        blit_cells(screen, cam, *self._colours)
        if herd.steps is not None:
            self._arrows(screen, cam, herd.steps)
        gx, gy = cam.to_screen(*herd.goal)
        r = max(6, cam.tile)
        pygame.draw.circle(screen, (0, 0, 0), (gx, gy), r + 2, 3)
        pygame.draw.circle(screen, (255, 255, 255), (gx, gy), r, 2)

    @staticmethod
    def _arrows(screen: pygame.Surface, cam: Camera, steps: np.ndarray) -> None:
        """An arrow along the next step every few cells (only on screen; a bounded number)."""
        c0, r0, c1, r1 = cam.visible_cells()
        stride = max(1, math.ceil(ARROW_PX / cam.tile))
        half = cam.tile * min(stride, 3) * 0.45
        for y in range(r0 + stride // 2, r1, stride):
            row = steps[y]
            for x in range(c0 + stride // 2, c1, stride):
                k = int(row[x])
                if k < 0:
                    continue
                dx, dy = STEPS[k]
                norm = math.hypot(dx, dy)
                cx, cy = cam.to_screen(x, y)
                ux, uy = dx / norm, dy / norm
                tip = (cx + ux * half, cy + uy * half)
                tail = (cx - ux * half, cy - uy * half)
                pygame.draw.line(screen, (20, 20, 30), tail, tip, 2)
                left = (tip[0] - ux * 5 - uy * 4, tip[1] - uy * 5 + ux * 4)
                right = (tip[0] - ux * 5 + uy * 4, tip[1] - uy * 5 - ux * 4)
                pygame.draw.polygon(screen, (20, 20, 30), (tip, left, right))


def field_legend(herd: Herd, species_label: str, members: int) -> Legend:
    """What a herd's field shows, and how far it has grown."""
    reached = int(np.isfinite(herd.field).sum())
    state = "complete" if herd.ready else "growing"
    return Legend(
        f"herd field: {species_label} to {herd.goal} (B: next, off)",
        notes=[f"{state}: {reached} cells, {herd.ms:.1f} ms so far",
               f"{members} animals walking down it, {herd.arrived} arrived",
               "green near, red far; dark lines: equal cost; arrows: the next step"],
    )  # fmt: skip
