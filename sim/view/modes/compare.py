"""Compare mode: one query, four strategies side by side, replayed in the kernel's expansion order."""

from __future__ import annotations

import pygame

from sim.instruments.compare import Comparison
from sim.model.species import SPECIES
from sim.view.context import ExportContext
from sim.view.draw.panels import WARN
from sim.view.draw.search_views import Panel, draw_compare
from sim.view.keys import CTRL, MINUS_KEYS, PLUS_KEYS, KeyTable, key, mouse
from sim.view.modes.base import CameraControls, Mode
from sim.view.modes.export import copy_as_code
from sim.view.modes.painting import Painting
from sim.view.modes.panel_drag import PanelDrag

SPECIES_KEYS = tuple(range(pygame.K_1, pygame.K_1 + len(SPECIES)))


class CompareMode(Mode):
    """The simulation pauses; clicks pick a start and a goal; the strategies' searches replay."""

    context = ExportContext
    app: ExportContext
    pauses = True
    help_order = 10
    opened_by = key("C", "compare Dijkstra, greedy, A*, weighted A*, JPS, JPS+, field", "open_mode", pygame.K_c)
    keys = KeyTable(
        "Compare (C)",
        [
            mouse("click", "pick the start, then the goal; then a panel: it alone, large (again: all of them)"),
            mouse("drag S or G", "in a panel: move the start or the goal; every strategy runs again as you drag"),
            mouse("left drag", "in a panel: paint walls (ctrl+Z undoes); every strategy runs again"),
            mouse("right click", "a new query: back to the map"),
            key(f"1 … {len(SPECIES)}", "species: " + ", ".join(SPECIES), "pick_species", *SPECIES_KEYS),
            key("D", "diagonal rule", "cycle_diagonal", pygame.K_d),
            key("E", "heuristic", "cycle_heuristic", pygame.K_e),
            key("+  -", "weighted A*'s weight", "change_weight", *PLUS_KEYS, *MINUS_KEYS),
            key("Space", "play / pause the replay", "toggle_play", pygame.K_SPACE),
            key("←  →", "step the replay (shift: 10 steps)", "step", pygame.K_LEFT, pygame.K_RIGHT),
            key("↑  ↓", "replay speed", "speed", pygame.K_UP, pygame.K_DOWN),
            key("R", "replay from the start", "replay", pygame.K_r),
            key("Tab", "one strategy large / all of them", "cycle_shown", pygame.K_TAB),
            key(
                "K", "copy as code: the engine calls behind every panel (terminal and F2 log)", "copy_code", pygame.K_k
            ),
            key("ctrl+Z", "undo the last wall", "painting.undo", pygame.K_z, mods=CTRL),
            key("N", "a new query: back to the map", "new_query", pygame.K_n),
            key("C / Esc", "back to the island", "close", pygame.K_c, pygame.K_ESCAPE),
        ],
    )

    def __init__(self, app, selected: int | None = None) -> None:
        super().__init__(app)
        self.camera = CameraControls(self.app)
        sim = self.app.sim
        species = int(sim.agents.species[selected]) if selected is not None else self._index("cow")
        s = sim.config.search
        self.cmp = Comparison(species, diagonal=s.diagonal, weight=s.compare_weight)
        self.panels: list[Panel] = []  # as last drawn, for clicks and drags
        self.painting = Painting(self.app)  # (for ctrl+Z)
        self.drag = PanelDrag(self)
        self._revision = self.app.sim.world.revision

    @classmethod
    def open(cls, app, play) -> CompareMode:
        """Compare for the species of the animal the play mode has selected (else cows)."""
        return cls(app, getattr(play, "selected", None))

    @property
    def opaque(self) -> bool:
        return bool(self.cmp.runs)

    def _index(self, key: str) -> int:
        return next(sp.index for sp in self.app.sim.species if sp.key == key)

    def run(self) -> None:
        cmp = self.cmp
        self._revision = self.app.sim.world.revision
        if cmp.start is not None and cmp.goal is not None:
            sp = self.app.sim.species[cmp.species]
            cmp.run(sp.grid, straight=sp.kind.straight_paths)

    def offer(self) -> str:
        """Where the strategies left out would run: the species whose costs are all one (JPS+)."""
        cmp, sim = self.cmp, self.app.sim
        if not any("JPS+" in why and "one cost" in why for why in cmp.left_out):
            return ""
        keys = [f"{sp.label} ({sp.index + 1})" for sp in sim.species if sp.grid.uniform and sp.index != cmp.species]
        return f"; it runs for {', '.join(keys)} here" if keys else "; no species has one cost on this map"

    # ---------------------------------------------------------------- events
    def handle(self, e: pygame.event.Event) -> bool:
        if self.camera.handle(e):
            return True
        cmp = self.cmp
        if e.type == pygame.MOUSEBUTTONDOWN and e.button == 1:
            if not cmp.runs:
                self.click(e.pos)
            else:
                self.drag.press(e)
            return True
        if e.type == pygame.MOUSEMOTION and self.drag.kind is not None:
            self.drag.motion(e)
            return True
        if e.type == pygame.MOUSEBUTTONUP and e.button == 1 and self.drag.kind is not None:
            self.drag.release()
            return True
        if e.type == pygame.MOUSEBUTTONDOWN and e.button == 3 and self.cmp.runs:
            self.new_query()
            return True
        if e.type in (pygame.MOUSEBUTTONDOWN, pygame.MOUSEBUTTONUP, pygame.MOUSEMOTION):
            return True  # comparing: the mouse does nothing else
        return super().handle(e)

    def move_end(self, cell: tuple[int, int], which: str) -> None:
        """The dragged start or goal to ``cell`` where the species can stand: every strategy runs
        again at once and shows its finished search while the drag goes on."""
        cmp = self.cmp
        sp = self.app.sim.species[cmp.species]
        if not self.app.sim.world.inside(*cell) or not sp.grid.passable(*cell):
            return
        if (cmp.start if which == "start" else cmp.goal) == cell:
            return
        if which == "start":
            cmp.start = cell
        else:
            cmp.goal = cell
        self.run()
        cmp.step = float(cmp.longest)
        cmp.playing = False

    def click(self, pos: tuple[int, int]) -> None:
        cmp = self.cmp
        x, y = self.app.cam.cell_index_at(*pos)
        sp = self.app.sim.species[cmp.species]
        if not self.app.sim.world.inside(x, y) or not sp.grid.passable(x, y):
            self.app.message(f"{sp.label} cannot stand there", WARN)
            return
        if cmp.start is None:
            cmp.start = (x, y)
        else:
            cmp.goal = (x, y)
            self.run()

    # ---------------------------------------------------------------- actions
    def new_query(self, _e: object = None) -> None:
        self.cmp.clear()

    def pick_species(self, e: pygame.event.Event) -> None:
        self.cmp.clear(self._index(list(SPECIES)[e.key - pygame.K_1]))

    def cycle_diagonal(self, _e: object = None) -> None:
        self.cmp.cycle_diagonal()
        self.run()

    def cycle_heuristic(self, _e: object = None) -> None:
        self.cmp.cycle_heuristic()
        self.run()

    def change_weight(self, e: pygame.event.Event) -> None:
        cmp = self.cmp
        cmp.weight = min(10.0, cmp.weight + 0.5) if e.key in PLUS_KEYS else max(1.0, cmp.weight - 0.5)
        self.run()

    def toggle_play(self, _e: object = None) -> None:
        cmp = self.cmp
        cmp.playing = not cmp.playing
        if cmp.playing and cmp.done:
            cmp.step = 0.0

    def step(self, e: pygame.event.Event) -> None:
        shift = bool(getattr(e, "mod", 0) & pygame.KMOD_SHIFT)
        self.cmp.step_by((10 if shift else 1) * (1 if e.key == pygame.K_RIGHT else -1))

    def speed(self, e: pygame.event.Event) -> None:
        cmp = self.cmp
        cmp.speed = min(64.0, cmp.speed * 2) if e.key == pygame.K_UP else max(1 / 16, cmp.speed / 2)

    def replay(self, _e: object = None) -> None:
        self.cmp.step, self.cmp.playing = 0.0, True

    def cycle_shown(self, _e: object = None) -> None:
        cmp = self.cmp
        n = len(cmp.runs)
        cmp.shown = None if not n else 0 if cmp.shown is None else (cmp.shown + 1 if cmp.shown + 1 < n else None)

    # ---------------------------------------------------------------- frame
    def update(self, dt: float) -> None:
        cmp = self.cmp
        if cmp.runs and self.app.sim.world.revision != self._revision:  # painted or undone: all run again
            self.run()
            if self.drag.kind == "paint":
                cmp.step, cmp.playing = float(cmp.longest), False
        cmp.advance(dt)

    def copy_code(self, _e: object = None) -> None:
        """The engine calls behind the panels (:func:`~sim.view.modes.export.copy_as_code`)."""
        cmp = self.cmp
        if not cmp.runs:
            self.app.message("pick a start and a goal first", WARN)
            return
        sp = self.app.sim.species[cmp.species]
        name = self.app.sim.world.name or "the map"
        copy_as_code(self.app, f"compare-{sp.key}", sp.grid.costs, lambda path: cmp.code(path, sp.label, name))

    def draw(self, surface: pygame.Surface) -> None:
        cmp, app = self.cmp, self.app
        if not cmp.runs:
            for p, colour in ((cmp.start, (80, 255, 120)), (cmp.goal, (255, 80, 80))):
                if p is not None:
                    pygame.draw.circle(surface, colour, app.cam.to_screen(*p), max(4, app.cam.tile))
        lay = app.plan.layout
        area = lay.content
        if app.plan.has("overlay"):  # the overlay has the top of the left column: the panels keep right of it
            left = app.plan.layout.left
            area = pygame.Rect(left.right, area.y, area.right - left.right, area.h)
        self.panels, header = draw_compare(surface, app.text, app.view, cmp, app.sim.species[cmp.species].label,
                                           area, lay.metrics, self.drag.region, self.offer())  # fmt: skip
        app.plan.put("compare", area, header, lay.metrics.body)

    def status(self) -> list[str]:
        return ["COMPARE"]
