"""Compare mode's mouse on its panels: drag S or G (every strategy runs again as it moves), drag from
any other cell to paint walls, or click a panel (it alone, large)."""

from __future__ import annotations

from typing import Any

import pygame

from sim.view.draw.search_views import Panel
from sim.view.modes.export import wall_for

Cell = tuple[int, int]


class PanelDrag:
    """One press on the panels, from button down to up. ``mode``: the compare mode (its ``cmp``,
    ``panels``, ``run``, ``move_end``)."""

    def __init__(self, mode: Any) -> None:
        self.mode = mode
        self.kind: str | None = None  # "start" / "goal" while dragged, "press" / "paint" for a press elsewhere
        self.pressed: tuple[Panel, Cell] | None = None  # the panel and cell the press began on
        self.region: tuple[int, int, int, int] | None = None  # the cells the panels show, held while dragging
        self.last: Cell = (0, 0)  # the last cell painted, in a stroke
        self.brush = wall_for({})

    def hit(self, pos: tuple[int, int]) -> tuple[Panel, Cell] | None:
        for p in self.mode.panels:
            cell = p.cell_at(pos)
            if cell is not None:
                return p, cell
        return None

    def press(self, e: pygame.event.Event) -> None:
        """On S or G it starts dragging it; elsewhere it is a click unless the mouse moves to another
        cell before the release: then it paints walls."""
        cmp = self.mode.cmp
        self.pressed = self.hit(e.pos)
        if self.pressed is None:
            self.kind = None
            return
        cell = self.pressed[1]
        self.kind = "start" if cell == cmp.start else "goal" if cell == cmp.goal else "press"
        if self.kind != "press":
            self.region = self.pressed[0].region  # the panels hold still while the search follows the mouse

    def motion(self, e: pygame.event.Event) -> None:
        if self.pressed is None:
            return
        panel, first = self.pressed
        cell = panel.cell_at(e.pos)
        if cell is None:
            return
        sim = self.mode.app.sim
        if self.kind in ("start", "goal"):
            self.mode.move_end(cell, self.kind)
        elif self.kind == "press" and cell != first:  # a drag, not a click: walls from where it began
            self.kind, self.region = "paint", panel.region
            self.brush = wall_for(sim.species[self.mode.cmp.species].spec.costs)
            self.mode.app.files.ready_to_paint()
            sim.begin_stroke()
            sim.paint_stroke([first, cell], 0, self.brush)
            self.last = cell
        elif self.kind == "paint" and cell != self.last:
            sim.paint_stroke([self.last, cell], 0, self.brush)
            self.last = cell

    def release(self) -> None:
        kind, pressed = self.kind, self.pressed
        self.kind, self.pressed, self.region = None, None, None
        cmp = self.mode.cmp
        if kind == "press" and pressed is not None:  # a click: that panel alone, large (again: all)
            cmp.shown = None if cmp.shown is not None or pressed[0].run >= len(cmp.runs) else pressed[0].run
            return
        if kind == "paint":
            self.mode.app.sim.end_stroke()
        self.mode.run()  # released: the replay starts again, every strategy from its first expansion
        cmp.playing = True
