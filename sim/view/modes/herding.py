"""Calling herds in the play mode: G picks a species, a click calls it; B shows the fields."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pygame

from sim.view.draw.field_view import FieldView, field_legend
from sim.view.draw.legends import Legend

if TYPE_CHECKING:
    from sim.view.context import ModeContext

HERD_RADIUS = 40  # cells: a click calls the species' animals this close (shift+click: its whole region)


class Herding:
    """The play mode's herd tool and field view, a part the mode holds (its methods are
    actions of the mode's key table: ``"herding.tool"``)."""

    def __init__(self, app: ModeContext) -> None:
        self.app = app
        self.herd_species: int | None = None  # G: whose animals a click calls
        self.field_index: int | None = None  # B: which herd's field is shown
        self.field_view = FieldView()

    def tool(self, _e: object = None) -> None:
        """G: cows, birds, water creatures, off."""
        n = len(self.app.sim.species)
        s = self.herd_species
        self.herd_species = 0 if s is None else (s + 1 if s + 1 < n else None)
        if self.herd_species is None:
            self.app.message("herd call off")
        else:
            label = self.app.sim.species[self.herd_species].label
            self.app.message(f"herd call: click to call {label} within {HERD_RADIUS} cells (shift: the whole region)")

    def click(self, e: pygame.event.Event) -> bool:
        """A left click with the herd tool on: call the herd there; True when it was used."""
        if self.herd_species is None or e.type != pygame.MOUSEBUTTONDOWN or e.button != 1:
            return False
        sim = self.app.sim
        x, y = self.app.cam.cell_index_at(*e.pos)
        mods = getattr(e, "mod", self.app.mods)
        sp = sim.species[self.herd_species]
        herd = sim.herds.call(sp.index, (x, y), None if mods & pygame.KMOD_SHIFT else HERD_RADIUS)
        if herd is None:
            self.app.message(f"no {sp.label} can come to ({x}, {y})")
            return True
        self.app.message(f"{herd.called} {sp.label} called to ({x}, {y}): one distance field serves them all")
        self.field_index = sim.herds.herds.index(herd)
        return True

    def cycle_field(self, _e: object = None) -> None:
        """B: show the next herd's field, or none."""
        n = len(self.app.sim.herds.herds)
        if n == 0:
            self.field_index = None
            self.app.message("no herd yet: G, then click where to call it")
            return
        i = self.field_index
        self.field_index = 0 if i is None else (i + 1 if i + 1 < n else None)

    def shown(self):
        herds = self.app.sim.herds.herds
        if self.field_index is None or not herds:
            return None
        return herds[min(self.field_index, len(herds) - 1)]

    def draw_field(self, surface: pygame.Surface) -> None:
        herd = self.shown()
        if herd is None:
            return
        self.field_view.draw(surface, self.app.cam, herd)

    def legend(self) -> Legend | None:
        herd = self.shown()
        if herd is None:
            return None
        sim = self.app.sim
        return field_legend(herd, sim.species[herd.species].label, int(sim.herds.members(herd).size))

    def status(self) -> list[str]:
        if self.herd_species is None:
            return []
        return [f"HERD {self.app.sim.species[self.herd_species].label}: click"]
