"""The learn view: watch a search think on the real map, one expansion at a time.

The search replayed is the engine's own (``PathGrid.search_state``: the kernel stopped after k
expansions), so its counts and costs are what ``PathGrid.search`` gives; drag the start, the
goal or a wall and it runs again at once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pygame

from sim.instruments.learn import SPEEDS, STRATEGIES, Lesson, describe, snippet
from sim.model.species import SPECIES
from sim.view.compose import panel_clear_of, side_panel
from sim.view.context import ExportContext, ModeContext
from sim.view.draw.learn_view import NUMBERS_AT, draw_state, legend, panel_lines
from sim.view.draw.legends import place as place_legend
from sim.view.draw.panels import GOOD, INK, WARN
from sim.view.keys import CTRL, MINUS_KEYS, PLUS_KEYS, KeyTable, key, mouse
from sim.view.modes.base import CameraControls, Mode
from sim.view.modes.export import copy_as_code, wall_for
from sim.view.modes.framing import footprint, frame_cells, keep_in_view
from sim.view.modes.painting import Painting
from sim.view.modes.query_mouse import QueryMouse
from sim.world.terrain import Terrain

if TYPE_CHECKING:
    from sim.pathfinding import SearchState
    from sim.view.context import ViewContext

MIN_TILE = 24  # px per cell the view zooms to (at least) once a query is picked
STRATEGY_KEYS = tuple(range(pygame.K_1, pygame.K_1 + len(STRATEGIES)))


class LearnMode(Mode):
    """One query, one strategy, stepped through; the simulation pauses."""

    context = ExportContext
    app: ExportContext
    pauses = True
    help_order = 12
    opened_by = key("E", "learn: watch A* think, step by step (open list, F = G + H, came-from)", "open_mode",
                    pygame.K_e)  # fmt: skip
    keys = KeyTable(
        "Learn (E)",
        [
            mouse("click", "pick the start, then the goal (or open E with an animal selected: its query)"),
            mouse("drag S or G", "move the start or the goal: the search runs again as you drag"),
            mouse("left drag", "paint walls; right drag: restore the terrain (both re-run the search)"),
            key("Space", "play / pause", "toggle_play", pygame.K_SPACE),
            key("←  →", "one expansion back / on (shift: 10)", "step", pygame.K_LEFT, pygame.K_RIGHT),
            key("↑  ↓", f"speed: {SPEEDS[0]} … {SPEEDS[-1]} expansions a second", "speed", pygame.K_UP, pygame.K_DOWN),
            key("Home  End", "the first step / the end", "jump", pygame.K_HOME, pygame.K_END),
            key(
                f"1 … {len(STRATEGIES)}  Tab",
                "strategy: " + ", ".join(s[0] for s in STRATEGIES),
                "pick_strategy",
                *STRATEGY_KEYS,
                pygame.K_TAB,
            ),
            key("+  -", "weighted A*'s weight", "change_weight", *PLUS_KEYS, *MINUS_KEYS),
            key("S", "species: " + ", ".join(SPECIES), "next_species", pygame.K_s),
            key("D", "diagonal rule", "cycle_diagonal", pygame.K_d),
            key("K", "copy as code: the engine call that gives this (terminal and F2 log)", "copy_code", pygame.K_k),
            key("N", "a new query", "new_query", pygame.K_n),
            key("ctrl+Z", "undo the last wall", "painting.undo", pygame.K_z, mods=CTRL),
            key("E / Esc", "back to the island", "close", pygame.K_e, pygame.K_ESCAPE),
        ],
    )

    def __init__(self, app: ViewContext | ModeContext, selected: int | None = None) -> None:
        super().__init__(app)
        self.camera = CameraControls(self.app)
        self.painting = Painting(self.app)
        self.painting.brush_radius = 0
        sim = self.app.sim
        self.species = int(sim.agents.species[selected]) if selected is not None else 0
        self.lesson = Lesson(diagonal=sim.config.search.diagonal, weight=sim.config.search.compare_weight)
        self.mouse = QueryMouse(self)
        self._shown: tuple[int, int] | None = None  # the current cell last frame (the view follows it as it moves)
        self._revision = -1
        self._learned: tuple[int, int, str] | None = None  # the grid, revision and rule whose landmarks are made
        self._was = (self.app.cam.tile, self.app.cam.x, self.app.cam.y)  # the view to go back to
        self._wall()
        if selected is not None:
            a = sim.agents
            goal = tuple(int(v) for v in a.goal[selected])
            cell = tuple(int(v) for v in a.cell[selected])
            grid = self.grid
            if min(goal) >= 0 and grid.passable(*goal) and grid.passable(*cell) and goal != cell:
                self.lesson.start, self.lesson.goal = (cell[0], cell[1]), (goal[0], goal[1])
                self.run()
                self.frame_query()
                self.lesson.playing = True

    @classmethod
    def open(cls, app, play) -> LearnMode:
        """The learn view for the query of the animal the play mode has selected (else cows, pick one)."""
        return cls(app, getattr(play, "selected", None))

    @property
    def opaque(self) -> bool:
        return True

    @property
    def grid(self):
        return self.app.sim.species[self.species].grid

    def _wall(self) -> None:
        """The brush: a terrain this species cannot enter (rock, else the first such)."""
        self.painting.brush = wall_for(self.app.sim.species[self.species].spec.costs)

    # ---------------------------------------------------------------- running
    def run(self, to_end: bool = False) -> None:
        self._revision = self.app.sim.world.revision
        grid, options = self.grid, self.lesson.options
        learned = (id(grid), self._revision, options.diagonal)
        if options.heuristic == "landmarks" and self._learned != learned:
            # Their table, made here behind a progress screen: ~5 s on a 2048x2048 map, where the search
            # below made it with the window standing still. (Kept by the grid: at once after the first.)
            rule = options.diagonal
            self.app.files.long_work("learning the map's landmarks", lambda _r: grid.landmarks(diagonal=rule))
            self._learned = learned
        self.lesson.rerun(grid, self._revision, to_end=to_end)

    def state(self) -> SearchState | None:
        if not self.lesson.ready or self.lesson.note:
            return None
        return self.lesson.state(self.grid, self.app.sim.world.revision)

    def frame_query(self) -> None:
        les = self.lesson
        assert les.start is not None and les.goal is not None
        frame_cells(self.app.cam, self.app.plan.layout, les.start, les.goal, MIN_TILE)

    # ---------------------------------------------------------------- events
    def handle(self, e: pygame.event.Event) -> bool:
        if self.camera.handle(e) or self.mouse.handle(e):
            return True
        return super().handle(e)

    @property
    def drag(self) -> str | None:
        """``"start"`` / ``"goal"`` while one is dragged, ``"paint"`` while painting, else None."""
        return self.mouse.drag

    def after_events(self) -> None:
        if self.drag == "paint":
            self.painting.flush()

    # ---------------------------------------------------------------- actions
    def toggle_play(self, _e: object = None) -> None:
        self.lesson.toggle()

    def step(self, e: pygame.event.Event) -> None:
        shift = bool(getattr(e, "mod", 0) & pygame.KMOD_SHIFT)
        self.lesson.step_by((10 if shift else 1) * (1 if e.key == pygame.K_RIGHT else -1))

    def speed(self, e: pygame.event.Event) -> None:
        self.lesson.faster(e.key == pygame.K_UP)

    def jump(self, e: pygame.event.Event) -> None:
        if e.key == pygame.K_END:
            self.lesson.to_end()
        else:
            self.lesson.step, self.lesson.playing = 0.0, False

    def pick_strategy(self, e: pygame.event.Event) -> None:
        les = self.lesson
        if e.key == pygame.K_TAB:
            les.cycle_strategy(-1 if getattr(e, "mod", 0) & pygame.KMOD_SHIFT else 1)
        else:
            les.strategy = e.key - pygame.K_1
        self.run()
        les.playing = True
        if les.ready:  # (replaces the query's hint, which named the strategy before)
            self.say_hint()

    def say_hint(self) -> None:
        """What the keys and the mouse do now, naming the strategy that runs (a message)."""
        self.app.message(f"{self.lesson.label}: Space pauses, arrows step, drag S or G, paint walls")

    def change_weight(self, e: pygame.event.Event) -> None:
        les = self.lesson
        les.change_weight(e.key in PLUS_KEYS)
        if STRATEGIES[les.strategy][2]:
            self.run()
            les.playing = True
        else:
            self.app.message(f"weight {les.weight:g}: for weighted A* (key {STRATEGIES.index(STRATEGIES[3]) + 1})")

    def next_species(self, _e: object = None) -> None:
        sim, les = self.app.sim, self.lesson
        self.species = (self.species + 1) % len(sim.species)
        self._wall()
        grid = self.grid
        if les.ready and not (grid.passable(*les.start) and grid.passable(*les.goal)):  # type: ignore[misc]
            les.start = les.goal = None
            self.app.message(f"{sim.species[self.species].label} cannot stand there: pick a new start and goal")
        self.run()

    def cycle_diagonal(self, _e: object = None) -> None:
        from sim.pathfinding import DIAGONAL_RULES

        rules = list(DIAGONAL_RULES)
        les = self.lesson
        les.diagonal = rules[(rules.index(les.diagonal) + 1) % len(rules)]
        self.run()

    def new_query(self, _e: object = None) -> None:
        les = self.lesson
        les.start = les.goal = None
        les.playing = False
        self.run()
        self.app.message("click the start, then the goal")

    def copy_code(self, _e: object = None) -> None:
        """The engine calls that reproduce the screen (:func:`~sim.view.modes.export.copy_as_code`)."""
        state = self.state()
        if state is None:
            self.app.message("pick a start and a goal first", WARN)
            return
        sp = self.app.sim.species[self.species]
        name = self.app.sim.world.name or "the map"
        copy_as_code(self.app, f"learn-{sp.key}", self.grid.costs,
                     lambda path: snippet(path, self.lesson, state, sp.label, name))  # fmt: skip

    def close(self, _e: object = None) -> None:
        cam = self.app.cam
        cam.tile, cam.x, cam.y = self._was
        cam.clamp()
        super().close()

    # ---------------------------------------------------------------- frame
    def update(self, dt: float) -> None:
        les = self.lesson
        if les.ready and self.app.sim.world.revision != self._revision:
            self.run(to_end=self.drag == "paint")  # the map changed (painted, undone): search again
        les.advance(dt)
        state = self.state()
        if state is not None and state.current is not None and self.drag is None and state.current != self._shown:
            keep_in_view(self.app.cam, self.app.plan.layout, state.current)  # (stepped, played or jumped to it)
        self._shown = state.current if state is not None else None

    def draw(self, surface: pygame.Surface) -> None:
        app, les = self.app, self.lesson
        app.view.sync()
        app.view.terrain.draw(surface, app.cam)
        app.view.invalidate()
        state = self.state()
        jumps = les.algorithm == "jps"
        if state is not None:
            scans = les.scans(self.grid, state) if self.drag is None else None
            assert les.start is not None and les.goal is not None
            draw_state(surface, app.text, app.cam, state, jumps, scans, les.start, les.goal)
        elif les.start is not None:
            x, y = app.cam.to_screen(*les.start)
            pygame.draw.circle(surface, (0, 0, 0), (x, y), max(6, app.cam.tile * 0.45) + 2)
            pygame.draw.circle(surface, (60, 220, 90), (x, y), max(6, app.cam.tile * 0.45))
        side_panel(app, "right", "learn", panel_lines(les, state, app.sim.species[self.species].label))
        if state is not None:
            scans_on = jumps and self.grid.uniform
            place_legend(app, legend(jumps, scans_on, app.cam.tile >= NUMBERS_AT, les.algorithm == "field",
                                     state.g_weight, state.h_weight))  # fmt: skip
            hover = self.hover_lines(state)
            if hover:  # (the right column first: the query is framed left of it)
                panel_clear_of(app, "learn-cell", hover, footprint(app.cam, state, les.start, les.goal))

    def hover_lines(self, state: SearchState) -> list[tuple[str, tuple[int, int, int]]]:
        """What the cell under the mouse says (nothing off the map or over the side column)."""
        app, les = self.app, self.lesson
        lay = app.plan.layout
        if not lay.map.collidepoint(app.mouse) or lay.right.collidepoint(app.mouse):
            return []
        x, y = app.cam.cell_index_at(*app.mouse)
        if not app.sim.world.inside(x, y):
            return []
        terrain = Terrain(int(app.sim.world.terrain[y, x])).name.lower()
        rows = describe(state, (x, y), self.grid.passable_mask(), terrain, les.algorithm == "jps",
                        les.algorithm == "field")  # fmt: skip
        return [(rows[0], GOOD)] + [(r, INK) for r in rows[1:]]

    def status(self) -> list[str]:
        return ["LEARN"]
