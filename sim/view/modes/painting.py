"""Painting the map in the play mode: brushes, strokes, undo and redo, reset and save."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pygame

from sim.world.terrain import BRUSHES, Terrain

if TYPE_CHECKING:
    from sim.view.context import ViewContext

BRUSH_MAX = 20


class Painting:
    """The play mode's painting tools (a mixin: its methods are actions in the play mode's key table).

    A stroke is everything painted from a mouse button's press to its release; it undoes as one step.
    """

    app: ViewContext
    tool: str

    def init_painting(self) -> None:
        self.brush = Terrain.ROCK
        self.brush_radius = 1
        self._paint_last: tuple[int, int] | None = None

    def paint_event(self, e: pygame.event.Event) -> None:
        """Left drag paints the brush, right drag restores the original terrain."""
        sim = self.app.sim
        if e.type == pygame.MOUSEBUTTONDOWN and e.button in (1, 3) and (e.button == 3 or self.tool == "paint"):
            sim.begin_stroke()  # everything until the button is released undoes as one step
            self._paint_last = None
            self._paint_to(e.pos, self.brush if e.button == 1 else None)
        elif e.type == pygame.MOUSEMOTION and self._paint_last is not None:
            if e.buttons[0] and self.tool == "paint":
                self._paint_to(e.pos, self.brush)
            elif e.buttons[2]:
                self._paint_to(e.pos, None)
        elif e.type == pygame.MOUSEBUTTONUP and e.button in (1, 3):
            self._paint_last = None
            sim.end_stroke()

    def _paint_to(self, pos: tuple[int, int], terrain: int | None) -> None:
        """Paint from the last painted cell to the cell under ``pos``, with no gaps."""
        cx, cy = self.app.cam.cell_index_at(*pos)
        x0, y0 = self._paint_last if self._paint_last is not None else (cx, cy)
        steps = max(abs(cx - x0), abs(cy - y0), 1)
        for s in range(1 if self._paint_last is not None else 0, steps + 1):
            x = round(x0 + (cx - x0) * s / steps)
            y = round(y0 + (cy - y0) * s / steps)
            self.app.sim.paint(x, y, self.brush_radius, terrain)
        self._paint_last = (cx, cy)

    def pick_brush(self, e: pygame.event.Event) -> None:
        self.brush = BRUSHES[e.key - pygame.K_1]

    def brush_size(self, e: pygame.event.Event) -> None:
        step = 1 if e.key == pygame.K_RIGHTBRACKET else -1
        self.brush_radius = min(BRUSH_MAX, max(0, self.brush_radius + step))

    def reset_map(self, _e: object = None) -> None:
        def reset() -> None:
            self.app.sim.reset_map()
            self.app.message("map reset to how it was loaded (ctrl+Z undoes it)")

        self.app.unless_unsaved("resetting the map", reset)

    def save_map(self, _e: object = None) -> None:
        self.app.save_map()

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
