"""Painting the map in the play mode: brushes, strokes, undo and redo, reset and save."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pygame

from sim.world.terrain import BRUSHES, Terrain

if TYPE_CHECKING:
    from sim.view.context import ModeContext

BRUSH_MAX = 20


class Painting:
    """The play mode's painting tools, a part the mode holds (its methods are actions of the
    mode's key table: ``"painting.undo"``). ``on``: the left button paints (the mode's tool
    is the brush; the right button restores either way).

    A stroke is everything painted from a mouse button's press to its release; it undoes as one step.
    """

    def __init__(self, app: ModeContext) -> None:
        self.app = app
        self.on = True
        self.brush = Terrain.ROCK
        self.brush_radius = 1
        self._paint_last: tuple[int, int] | None = None  # the stroke's last cell painted (None: no stroke)
        self._stroke: list[tuple[int, int]] = []  # cells the mouse passed this frame, not painted yet
        self._stroke_terrain: int | None = None

    def event(self, e: pygame.event.Event) -> None:
        """Left drag paints the brush, right drag restores the original terrain. The cells the
        mouse passes are painted once a frame (:meth:`flush`): one model call a frame."""
        sim = self.app.sim
        if e.type == pygame.MOUSEBUTTONDOWN and e.button in (1, 3) and (e.button == 3 or self.on):
            self.flush()
            self.app.files.ready_to_paint()  # (a first start: the brush's kernels may still compile)
            sim.begin_stroke()  # everything until the button is released undoes as one step
            self._stroke_terrain = self.brush if e.button == 1 else None
            self._paint_last = None
            self._stroke = [self.app.cam.cell_index_at(*e.pos)]
        elif e.type == pygame.MOUSEMOTION and (self._paint_last is not None or self._stroke):
            if (e.buttons[0] and self.on) or e.buttons[2]:
                self._stroke.append(self.app.cam.cell_index_at(*e.pos))
        elif e.type == pygame.MOUSEBUTTONUP and e.button in (1, 3) and (self._paint_last is not None or self._stroke):
            self.flush()
            self._paint_last = None
            sim.end_stroke()

    def flush(self) -> None:
        """Paint the cells the mouse passed since the last flush, joined to the last one painted,
        as one :meth:`~sim.simulation.Simulation.paint_stroke` (the app calls this once a frame)."""
        if not self._stroke:
            return
        points = ([self._paint_last] if self._paint_last is not None else []) + self._stroke
        self.app.sim.paint_stroke(points, self.brush_radius, self._stroke_terrain)
        self._paint_last = self._stroke[-1]
        self._stroke = []

    def pick_brush(self, e: pygame.event.Event) -> None:
        self.brush = BRUSHES[e.key - pygame.K_1]

    def brush_size(self, e: pygame.event.Event) -> None:
        step = 1 if e.key == pygame.K_RIGHTBRACKET else -1
        self.brush_radius = min(BRUSH_MAX, max(0, self.brush_radius + step))

    def reset_map(self, _e: object = None) -> None:
        def reset() -> None:
            self.app.files.ready_to_paint()
            self.app.sim.reset_map()
            self.app.message("map reset to how it was loaded (ctrl+Z undoes it)")

        self.app.files.unless_unsaved("resetting the map", reset)

    def save_map(self, _e: object = None) -> None:
        self.app.files.save_map()

    def undo(self, e: pygame.event.Event) -> None:
        if getattr(e, "mod", 0) & pygame.KMOD_SHIFT:  # ctrl+shift+Z is redo
            self.redo(e)
            return
        self._history_step(self.app.sim.undo(), "undo", len(self.app.sim.history.undo_stack))

    def redo(self, _e: object = None) -> None:
        self._history_step(self.app.sim.redo(), "redo", len(self.app.sim.history.redo_stack))

    def _history_step(self, rect: object, what: str, left: int) -> None:
        self._paint_last = None  # a stroke in progress ends here
        if rect is None:
            self.app.message(f"nothing to {what}")
        else:
            self.app.message(f"{what}: {left} more step{'s' if left != 1 else ''}")
