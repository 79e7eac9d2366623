"""The map picker: the maps in maps/ as a list; Enter or a click loads one."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pygame

from sim.view.context import PickerContext
from sim.view.draw.panels import map_picker
from sim.view.draw.previews import Preview, preview
from sim.view.keys import KeyTable, key, mouse
from sim.view.modes.base import Mode

if TYPE_CHECKING:
    from sim.view.context import ModeContext, ViewContext


class MapPickerMode(Mode):
    """A list of the maps; the simulation keeps running beneath it."""

    help_order = 20
    opened_by = key("M", "map picker", "open_mode", pygame.K_m)
    keys = KeyTable(
        "Map picker (M)",
        [
            key("↑  ↓", "choose a map", "move", pygame.K_UP, pygame.K_DOWN),
            key("PgUp  PgDn", "ten maps up or down", "move", pygame.K_PAGEUP, pygame.K_PAGEDOWN),
            key("Home  End", "the first or the last map", "move", pygame.K_HOME, pygame.K_END),
            key("Enter", "load it", "choose", pygame.K_RETURN, pygame.K_KP_ENTER),
            mouse("click", "load the map clicked"),
            mouse("wheel", "move through the list"),
            key("M / Esc", "close the list", "close", pygame.K_m, pygame.K_ESCAPE),
        ],
    )

    modal = True
    context = PickerContext  # a mode's, and the map folders
    app: PickerContext

    def __init__(self, app: ViewContext | ModeContext) -> None:
        super().__init__(app)
        maps: list[Path] = self.app.files.list_maps()
        # In the order shown: the bundled maps, then the user's.
        bundled = self.app.maps_dir
        self.maps = [p for p in maps if p.parent == bundled] + [p for p in maps if p.parent != bundled]
        current = str(self.app.sim.world.source or "")
        self.selected = next((i for i, p in enumerate(self.maps) if str(p) == current), 0)
        self._rects: list[pygame.Rect] = []

    def handle(self, e: pygame.event.Event) -> bool:
        if e.type == pygame.MOUSEBUTTONDOWN and e.button == 1:
            for i, r in enumerate(self._rects):
                if r.collidepoint(e.pos):
                    self.selected = i
                    self.choose()
            return True
        if e.type == pygame.MOUSEWHEEL:  # a notch a map, up the list as the wheel turns up
            self._go(self.selected - int(e.y))
            return True
        if e.type in (pygame.MOUSEBUTTONDOWN, pygame.MOUSEBUTTONUP, pygame.MOUSEMOTION, pygame.MOUSEWHEEL):
            return True
        return super().handle(e)

    def move(self, e: pygame.event.Event) -> None:
        n = len(self.maps)
        if n and e.key in (pygame.K_UP, pygame.K_DOWN):  # (round from one end to the other)
            self.selected = (self.selected + (-1 if e.key == pygame.K_UP else 1)) % n
        else:  # a page or an end: stops there
            step = {pygame.K_PAGEUP: -10, pygame.K_PAGEDOWN: 10, pygame.K_HOME: -n, pygame.K_END: n}[e.key]
            self._go(self.selected + step)

    def _go(self, i: int) -> None:
        """Choose map ``i``, or the nearest end of the list."""
        if self.maps:
            self.selected = min(max(i, 0), len(self.maps) - 1)

    def choose(self, _e: object = None) -> None:
        if self.maps:
            chosen = self.maps[self.selected]
            self.close()
            self.app.files.unless_unsaved(f"loading {chosen.name}", lambda: self.app.files.load(chosen))

    def entries(self) -> list[tuple[str, Path]]:
        """The maps in the order shown, each with its heading: bundled with the program, or the user's own."""
        yours = f"your maps ({self.app.user_maps_dir})"
        return [("bundled maps" if p.parent == self.app.maps_dir else yours, p) for p in self.maps]

    def preview_of(self, path: Path) -> Preview:
        """What the list shows of the map at ``path`` (read once per version of its file)."""
        return preview(path, self.app.view.terrain.colours)

    def draw(self, surface: pygame.Surface) -> None:
        current = str(self.app.sim.world.source or "")
        lay = self.app.plan.layout
        box = lay.modal
        self._rects, drawn = map_picker(surface, self.app.text, box, self.entries(), self.preview_of, self.selected,
                                        current, lay.metrics.body)  # fmt: skip
        self.app.plan.put("picker", box, drawn, lay.metrics.body, modal=True)
        self.app.view.dirty.append(pygame.Rect(0, 0, *surface.get_size()))
