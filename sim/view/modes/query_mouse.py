"""The learn view's mouse: click the start and the goal, drag either (the search runs again at each
cell), drag elsewhere to paint walls (right drag: restore the terrain)."""

from __future__ import annotations

from typing import Any

import pygame

from sim.view.draw.panels import WARN

Cell = tuple[int, int]


class QueryMouse:
    """``mode``: the learn view (its ``lesson``, ``painting``, ``grid``, ``run``, ``frame_query``)."""

    def __init__(self, mode: Any) -> None:
        self.mode = mode
        self.drag: str | None = None  # "start" / "goal" while one is dragged, "paint" while painting

    def handle(self, e: pygame.event.Event) -> bool:
        mode = self.mode
        les, app = mode.lesson, mode.app
        if e.type == pygame.MOUSEBUTTONDOWN and e.button in (1, 3):
            cell = app.cam.cell_index_at(*e.pos)
            if e.button == 1 and les.ready and cell in (les.start, les.goal):
                self.drag = "start" if cell == les.start else "goal"
            elif not les.ready:
                if e.button == 1:
                    self.pick(cell)
            else:
                self.drag = "paint"
                mode.painting.event(e)
        elif e.type == pygame.MOUSEMOTION and self.drag in ("start", "goal"):
            self.move_end(app.cam.cell_index_at(*e.pos))
        elif e.type == pygame.MOUSEMOTION and self.drag == "paint":
            mode.painting.event(e)
        elif e.type == pygame.MOUSEBUTTONUP and self.drag is not None:
            if self.drag == "paint":
                mode.painting.event(e)
                mode.painting.flush()
            self.drag = None
            mode.run()  # released: stepping starts again from the first expansion
            les.playing = True
        return e.type in (pygame.MOUSEBUTTONDOWN, pygame.MOUSEBUTTONUP, pygame.MOUSEMOTION)

    def pick(self, cell: Cell) -> None:
        mode = self.mode
        les, app = mode.lesson, mode.app
        sp = app.sim.species[mode.species]
        if not app.sim.world.inside(*cell) or not sp.grid.passable(*cell):
            app.message(f"{sp.label} cannot stand there: pick a cell they can", WARN)
            return
        if les.start is None:
            les.start = cell
            app.message("start picked: now click the goal")
            return
        les.goal = cell
        mode.run()
        mode.frame_query()
        les.playing = True
        mode.say_hint()

    def move_end(self, cell: Cell) -> None:
        """The dragged start or goal to ``cell`` (where the species can stand): the finished search shows."""
        mode = self.mode
        les = mode.lesson
        if not mode.app.sim.world.inside(*cell) or not mode.grid.passable(*cell):
            return
        if (les.start if self.drag == "start" else les.goal) == cell:
            return
        if self.drag == "start":
            les.start = cell
        else:
            les.goal = cell
        mode.run(to_end=True)
