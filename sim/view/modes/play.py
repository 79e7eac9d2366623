"""The play mode: watch the island, paint terrain, inspect an animal and follow it, open the other views."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import pygame

from sim.instruments.inspector import cell_info, pick_animal
from sim.pathfinding import ChangeCursor
from sim.view.context import ModeContext, PlayContext
from sim.view.draw.minimap import Minimap
from sim.view.draw.panels import readout_bar
from sim.view.draw.sprites import SpriteBank
from sim.view.keys import CTRL, MINUS_KEYS, PLUS_KEYS, KeyTable, key, mouse
from sim.view.modes.base import CameraControls, Mode
from sim.view.modes.herding import Herding
from sim.view.modes.painting import Painting
from sim.view.modes.side import place_inspector, side_panels
from sim.view.stress import Stress
from sim.world.terrain import BRUSHES, Terrain

if TYPE_CHECKING:
    from sim.view.context import ViewContext

PAN_KEYS = {
    pygame.K_LEFT: (-1, 0), pygame.K_a: (-1, 0),
    pygame.K_RIGHT: (1, 0), pygame.K_d: (1, 0),
    pygame.K_UP: (0, -1), pygame.K_w: (0, -1),
    pygame.K_DOWN: (0, 1), pygame.K_s: (0, 1),
}  # fmt: skip
PAN_SPEED = 700.0  # pixels per second


#: The play mode's keys and mouse (data: the help and the README tables are made from it).
PLAY_KEYS = KeyTable(
    "Play",
    [
        mouse("left drag", "paint the brush (default: rock)"),
        mouse("right drag", "restore the map's original terrain"),
        mouse("ctrl+click", "inspect the animal under the cursor"),
        mouse("wheel", "zoom at the cursor"),
        mouse("middle or shift+right drag", "pan"),
        key(
            f"1 … {len(BRUSHES)}",
            "brush: " + " ".join(t.label for t in BRUSHES),
            "painting.pick_brush",
            *range(pygame.K_1, pygame.K_1 + len(BRUSHES)),
        ),
        key("[  ]", "brush size", "painting.brush_size", pygame.K_LEFTBRACKET, pygame.K_RIGHTBRACKET),
        key("arrows / W A S D", "pan", "hold_pan", *PAN_KEYS),
        key("Space", "pause", "toggle_pause", pygame.K_SPACE),
        key(
            ", (comma)  . (period)", "slower / faster: ½x 1x 2x 4x 8x", "change_speed", pygame.K_COMMA, pygame.K_PERIOD
        ),
        key("/", "pause and step one frame", "step_frame", pygame.K_SLASH),
        key("ctrl+Z", "undo the last stroke (or reset)", "painting.undo", pygame.K_z, mods=CTRL),
        key("ctrl+Y / ctrl+shift+Z", "redo", "painting.redo", pygame.K_y, mods=CTRL),
        key("P", "show every path", "toggle_paths", pygame.K_p),
        key("+  -", "add / remove 50 animals", "change_animals", *PLUS_KEYS, *MINUS_KEYS),
        key("U", "stress: ramp to 20,000 then 100,000 animals and back (U again: back now)", "stress_key", pygame.K_u),
        key("R", "reset the map to how it was loaded", "painting.reset_map", pygame.K_r),
        key("N / Tab", "next map in maps/", "next_map", pygame.K_n, pygame.K_TAB),
        key("L", "reload the map from its file (it changed on disk)", "reload_map", pygame.K_l),
        key("Home", "zoom to fit the land (the whole map when it has no sea)", "fit_view", pygame.K_HOME),
        key("O", "minimap for maps larger than the window (click it to jump)", "toggle_minimap", pygame.K_o),
        key("T", "terrain look: landscape, flat colours, the map's own tiles (Tiled maps)", "cycle_look", pygame.K_t),
        key("ctrl+S", "save the painted map as a new YAML file", "painting.save_map", pygame.K_s, mods=CTRL),
        key("I", "inspect tool: click an animal to see its search", "toggle_inspect", pygame.K_i),
        key("F", "camera follows the selected animal", "toggle_follow", pygame.K_f),
        key("V", "cost field: how each species sees the island", "cycle_field", pygame.K_v),
        key("X", "heat map of search work (last ~10 s)", "toggle_heat", pygame.K_x),
        key("G", "herd call: cows, birds, water, off; then click (shift: whole region)", "herding.tool", pygame.K_g),
        key("B", "show a herd's distance field (next, off)", "herding.cycle_field", pygame.K_b),
        key("Esc", "close what is open (animal, tool, view), else ask to quit", "escape", pygame.K_ESCAPE),
    ],
)


class CellReadout:
    """The readout of one cell: its terrain, each species' cost and region. The same cell of
    the same map, unpainted (its changes followed with a ChangeCursor), with the same species
    says the same, so the line is kept across frames. (Objects are compared by identity: a
    new map or new costs are new objects.)"""

    def __init__(self) -> None:
        self._key: tuple | None = None  # the cell, the map and the species the line is for
        self._changes: ChangeCursor | None = None  # the map's changes since
        self._line: str | None = None

    def line(self, sim, cell: tuple[int, int]) -> str | None:
        """The readout line of ``cell`` (None off the map)."""
        key = (cell, sim.world, *sim.species)
        old = self._key
        same = old is not None and old[0] == cell and len(old) == len(key)
        same = same and old is not None and all(a is b for a, b in zip(old[1:], key[1:], strict=True))
        if self._changes is None or self._changes.source is not sim.world:
            self._changes, same = ChangeCursor(sim.world), False
        if self._changes.take() != [] or not same:  # (a new cursor's first take says: everything)
            info = cell_info(sim, *cell)
            self._key, self._line = key, None if info is None else info.text()
        return self._line


def inspecting(tool: str, e: pygame.event.Event, mods: int) -> bool:
    """Whether a left click inspects: with the inspect tool (I), or with ctrl held at the click;
    the modifiers come from the event, else from the events in order (``App.mods``), never a poll."""
    at_click = getattr(e, "mod", None)
    return tool == "inspect" or bool((mods if at_click is None else at_click) & pygame.KMOD_CTRL)


class PlayMode(Mode):
    """The base mode: the simulation runs, the mouse paints (or inspects), keys open the views."""

    help_order, keys = 0, PLAY_KEYS
    context = PlayContext  # the home screen: pauses, steps, reads the instruments (sim.view.context)
    app: PlayContext

    def __init__(self, app: ViewContext | ModeContext) -> None:
        super().__init__(app)
        self.painting = Painting(ModeContext(app))  # the brush, strokes, undo/redo, reset and save
        self.herding = Herding(ModeContext(app))  # calling herds (G) and showing their fields (B)
        self.stress = Stress(self.app)  # the stress key (U)
        self.camera = CameraControls(ModeContext(app))  # (its parts see only what any mode sees)
        self.minimap = Minimap()
        self.follow = False
        self.show_paths = False
        self.field_species: int | None = None  # V: whose cost field is shown
        self._held: set[int] = set()
        self.readout = CellReadout()

    @property
    def tool(self) -> str:
        """What a left click does: "paint" (the brush) or "inspect" (I)."""
        return "paint" if self.painting.on else "inspect"

    @tool.setter
    def tool(self, value: str) -> None:
        self.painting.on = value == "paint"

    # ---------------------------------------------------------------- events
    def handle(self, e: pygame.event.Event) -> bool:
        if e.type == pygame.MOUSEBUTTONDOWN and e.button == 1 and self.minimap.jump(self.app.cam, e.pos):
            return True
        if self.camera.handle(e):
            return True
        if e.type == pygame.KEYUP:
            self._held.discard(e.key)
        elif self.herding.click(e):
            pass
        elif e.type == pygame.MOUSEBUTTONDOWN and e.button == 1 and inspecting(self.tool, e, self.app.mods):
            self._inspect_at(e.pos)
        elif e.type in (pygame.MOUSEBUTTONDOWN, pygame.MOUSEMOTION, pygame.MOUSEBUTTONUP):
            self.painting.event(e)
        return super().handle(e)

    def _inspect_at(self, pos: tuple[int, int]) -> None:
        """Select the animal nearest the click within :meth:`_reach_px`, else say nobody is there."""
        i = self._animal_at(pos)
        if i is None and self.selected is None:
            self.app.message(f"no animal within {self._reach_px():.0f} px of the click")
        self.select(i)

    def _reach_px(self) -> float:
        """How near a click must be to an animal, in pixels: its sprite's reach plus a few, and
        never under 18 px, so at small zoom (a few px a cell) the reach in cells grows."""
        return max(SpriteBank.size_for(self.app.cam.tile) / 2 + 6, 18.0)

    def _animal_at(self, pos: tuple[int, int]) -> int | None:
        tile = self.app.cam.tile
        x, y = self.app.cam.cell_at(*pos)
        return pick_animal(self.app.sim, x - 0.5, y - 0.5, radius=max(1.0, self._reach_px() / tile))

    # ---------------------------------------------------------------- actions (the key table's)
    def hold_pan(self, e: pygame.event.Event) -> None:
        self._held.add(e.key)

    def toggle_pause(self, _e: object = None) -> None:
        self.app.user_paused = not self.app.user_paused

    def change_speed(self, e: pygame.event.Event) -> None:
        speed = self.app.speed
        changed = speed.faster() if e.key == pygame.K_PERIOD else speed.slower()
        self.app.message(f"speed {speed.label}" + ("" if changed else " (the limit)"))

    def step_frame(self, _e: object = None) -> None:
        self.app.user_paused = True
        self.app.step_once = True

    def toggle_paths(self, _e: object = None) -> None:
        self.show_paths = not self.show_paths

    def stress_key(self, _e: object = None) -> None:
        self.stress.toggle()

    def change_animals(self, e: pygame.event.Event) -> None:
        (self.app.sim.add_animals if e.key in PLUS_KEYS else self.app.sim.remove_animals)(50)

    def reload_map(self, _e: object = None) -> None:
        self.app.files.unless_unsaved("reloading the map from its file", self.app.live.reload)

    def next_map(self, _e: object = None) -> None:
        self.app.files.unless_unsaved("loading the next map", self.app.files.next_map)

    def fit_view(self, _e: object = None) -> None:
        self.app.cam.zoom_to_fit()

    def toggle_minimap(self, _e: object = None) -> None:
        self.minimap.enabled = not self.minimap.enabled

    def cycle_look(self, _e: object = None) -> None:
        self.app.message(self.app.view.terrain.cycle_look(self.app.sim.map.art, self.app.sim.world.original))

    def toggle_inspect(self, _e: object = None) -> None:
        self.tool = "inspect" if self.tool == "paint" else "paint"
        self.app.message(f"tool: {self.tool}" + (" (click an animal)" if self.tool == "inspect" else ""))

    def toggle_follow(self, _e: object = None) -> bool:
        if self.selected is None:
            return False
        self.follow = not self.follow
        return True

    openers: tuple[type[Mode], ...] = ()  # the modes opened by a key of theirs (set by opens())

    @classmethod
    def opens(cls, modes: tuple[type[Mode], ...]) -> None:
        """Open ``modes`` by the keys they name (``Mode.opened_by``), listed with the mode's own."""
        cls.openers = tuple(m for m in modes if m.opened_by is not None)
        cls.keys = PLAY_KEYS.plus([m.opened_by for m in cls.openers if m.opened_by is not None])

    def open_mode(self, e: pygame.event.Event) -> None:
        """The key of a mode in :attr:`openers`: push a new one of it."""
        mode = next(m for m in self.openers if m.opened_by is not None and e.key in m.opened_by.codes)
        self.app.push(mode.open(self.app, self))

    def cycle_field(self, _e: object = None) -> None:
        n = len(self.app.sim.species)
        f = self.field_species
        self.field_species = 0 if f is None else (f + 1 if f + 1 < n else None)

    def toggle_heat(self, _e: object = None) -> None:
        ins = self.app.instruments
        ins.enable_heat(ins.heat is None)

    def escape(self, _e: object = None) -> None:
        """Close the innermost thing open (see :func:`_close_innermost`), else ask to quit."""
        if not _close_innermost(self):
            self.app.ask_to_quit()

    # ---------------------------------------------------------------- inspecting
    @property
    def selected(self) -> int | None:
        """The inspected animal (its searches' footprints are recorded)."""
        return self.app.instruments.selected

    def select(self, i: int | None) -> None:
        """Select animal ``i`` (None: deselect) and show the footprint of its last search."""
        self.app.instruments.select(i)
        self.follow = self.follow and i is not None

    # ---------------------------------------------------------------- frame
    def after_events(self) -> None:
        self.painting.flush()  # the frame's painting: one model call

    def update(self, dt: float) -> None:
        self.stress.update(dt)
        cam = self.app.cam
        dx = sum(PAN_KEYS[k][0] for k in self._held)
        dy = sum(PAN_KEYS[k][1] for k in self._held)
        if dx or dy:
            cam.pan(dx * PAN_SPEED * dt, dy * PAN_SPEED * dt)
        sel = self.selected
        if sel is None:
            self.follow = False
        elif self.follow:
            x, y = self.app.sim.agents.pos[sel]
            cam.x = (x + 0.5) * cam.tile - cam.view_w / 2
            cam.y = (y + 0.5) * cam.tile - cam.view_h / 2
            cam.clamp()

    def draw(self, surface: pygame.Surface) -> None:
        app, views = self.app, self.app.search_views
        sel = self.selected
        inspector = place_inspector(self) if sel is not None else None  # (it may pan the view first)
        plain = app.top is self and not (app.show_help or app.show_overlay)
        layers = self._scene_layers()
        if plain and not layers:
            app.view.draw_scene(surface, True)  # may redraw only what moved
        else:
            app.view.invalidate()  # this frame draws more than the scene: the next one repaints
            if self.field_species is None:  # (the cost field covers the terrain)
                app.view.terrain.draw(surface, app.cam)
            for layer in layers:
                layer(surface)
            app.view.draw_animals(surface)
        if sel is not None:
            views.draw_highlight(surface, sel)
        hover = self._hover()
        if hover is not None and hover != sel:  # who a click would pick, before the click
            app.view.dirty.append(views.draw_hover(surface, hover))
        if app.top is self and not app.show_help and self.tool == "paint":
            colour = app.view.terrain.colours[self.painting.brush]  # the config's colours, as the map shows them
            app.view.draw_brush(surface, app.mouse, self.painting.brush_radius, colour)
        if inspector is not None:
            inspector()
        side_panels(self, surface)
        lay = app.plan.layout
        line = self._readout_line_now() if app.top is self and not app.show_help else None
        view = app.view
        shown = readout_bar(surface, app.text, lay.readout, line, lay.metrics.small,  # opaque, shown every frame
                            lambda bar: view.bars.shown(surface, "readout", lay.readout, bar, view.dirty))  # fmt: skip
        app.plan.put("readout", lay.readout, [shown], lay.metrics.small)

    def _scene_layers(self) -> list[Callable[[pygame.Surface], object]]:
        """The layers on this frame, drawn under the animals: any makes the frame a full repaint (the
        incremental one puts back only what animals and ``view.dirty`` covered), so a layer added here
        cannot leave stale pixels; what is drawn over the scene marks its rectangle in ``view.dirty``."""
        views, ins, field = self.app.search_views, self.app.instruments, self.field_species
        on = [(field is not None, lambda s: views.draw_cost_field(s, field or 0)), (ins.heat is not None,
              views.draw_heat), (self.herding.shown() is not None, self.herding.draw_field),
              (self.selected is not None, lambda s: views.draw_last_search(s, ins.record, ins.record_event)),
              (self.show_paths, self.app.view.draw_paths)]  # fmt: skip
        return [draw for shown, draw in on if shown]

    def _hover(self) -> int | None:
        """The animal under the cursor while a click would inspect (the tool, or ctrl held)."""
        app = self.app
        if app.top is not self or not (self.tool == "inspect" or app.mods & pygame.KMOD_CTRL):
            return None
        return self._animal_at(app.mouse)

    def _readout_line_now(self) -> str | None:
        """The readout of the cell under the cursor (None off the map)."""
        return self.readout.line(self.app.sim, self.app.cam.cell_index_at(*self.app.mouse))

    def status(self) -> list[str]:
        brush = self.painting
        words = [f"brush {Terrain(brush.brush).label} r{brush.brush_radius}" if self.tool == "paint" else "INSPECT"]
        words += self.herding.status()
        # Every view that is on says so (Esc closes them, innermost first).
        if self.field_species is not None:
            words.append(f"COST FIELD {self.app.sim.species[self.field_species].label} (V)")
        if self.app.instruments.heat is not None:
            words.append("HEAT MAP (X)")
        if self.herding.field_index is not None:
            words.append("HERD FIELD (B)")
        if self.show_paths:
            words.append("ALL PATHS (P)")
        if self.follow:
            words.append("FOLLOW (F)")
        return words + self.stress.status()


def _close_innermost(play: PlayMode) -> bool:
    """What Esc closes, innermost first: the inspected animal, the inspect tool, the herd
    call, the cost field (V), the heat map (X), a herd's field (B), every path (P). False
    when nothing was open."""
    if play.selected is not None:
        play.select(None)
    elif play.tool != "paint":
        play.toggle_inspect()
    elif play.herding.herd_species is not None:
        play.herding.herd_species = None
        play.app.message("herd call off")
    elif play.field_species is not None:
        play.field_species = None
    elif play.app.instruments.heat is not None:
        play.toggle_heat()
    elif play.herding.field_index is not None:
        play.herding.field_index = None
    elif play.show_paths:
        play.show_paths = False
    else:
        return False
    return True
