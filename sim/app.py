"""The demo window: a thin loop of events -> update -> draw -> tick.

Input is read from the events themselves (``event.pos``, ``event.buttons``), never from
``pygame.mouse.get_pos()``, so synthetic events drive it exactly like a person does,
also under SDL's dummy video driver.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

import numpy as np
import pygame

from .camera import Camera
from .compare import Comparison
from .config import Config
from .inspector import describe, pick_animal, replay_last_search
from .maps import MapData, MapError, list_maps, load_map, save_map
from .pathfinding import warm_up
from .regions import label_regions
from .render import WorldView
from .search_views import SearchViews, draw_compare, inspector_panel
from .simulation import SearchEvent, Simulation
from .terrain import Terrain
from .ui import GOOD, INK, WARN, Text, help_panel, map_picker, overlay, splash, status_line

#: Keys 1-7 pick these brushes.
BRUSHES = (Terrain.ROCK, Terrain.WATER, Terrain.SAND, Terrain.GRASS, Terrain.FOREST, Terrain.SWAMP, Terrain.MOUNTAIN)
PAN_KEYS = {
    pygame.K_LEFT: (-1, 0), pygame.K_a: (-1, 0),
    pygame.K_RIGHT: (1, 0), pygame.K_d: (1, 0),
    pygame.K_UP: (0, -1), pygame.K_w: (0, -1),
    pygame.K_DOWN: (0, 1), pygame.K_s: (0, 1),
}  # fmt: skip
PAN_SPEED = 700.0  # pixels per second
COMPARE_SPECIES = ("cow", "bird", "water")  # keys 1-3 in compare mode


class App:
    """The running demo. ``headless`` opens no real window (use SDL's dummy driver)."""

    def __init__(
        self,
        config: Config,
        map_data: MapData,
        *,
        maps_dir: Path,
        counts: dict[str, int] | None = None,
        clock: str = "wall",
        headless: bool = False,
        screenshot_dir: Path = Path("screenshots"),
    ) -> None:
        self.config = config
        self.maps_dir = maps_dir
        self.screenshot_dir = screenshot_dir
        pygame.display.init()
        pygame.font.init()
        flags = 0 if headless else pygame.RESIZABLE
        self.screen = pygame.display.set_mode((config.window.width, config.window.height), flags)
        pygame.display.set_caption("astar-island")
        self.text = Text()
        self._warm_up(show=not headless)
        self.sim = Simulation(config, map_data, counts=counts, clock=clock)
        w, h = self.screen.get_size()
        self.cam = Camera(w, h, self.sim.world.width, self.sim.world.height, tile=config.window.tile_px)
        self.cam.start_view(config.window.tile_px)
        self.view = WorldView(self.sim, self.cam)
        self.search_views = SearchViews(self.sim, self.view)
        self.tool = "paint"  # or "inspect" (I)
        self.follow = False
        self.sel_record: np.ndarray | None = None
        self.sel_event: SearchEvent | None = None
        self.field_species: int | None = None  # V: whose cost field is shown
        self.compare: Comparison | None = None
        self._paused_before_compare = False
        self.running = True
        self.paused = False
        self.show_paths = False
        self.show_overlay = False
        self.show_help = False
        self.picker: list[Path] | None = None
        self.picker_sel = 0
        self._picker_rects: list[pygame.Rect] = []
        self.brush = Terrain.ROCK
        self.colours = config.terrain_colours()  # for the brush outline
        self.brush_radius = 1
        self.mouse = (w // 2, h // 2)
        self._paint_last: tuple[int, int] | None = None
        self._panning = False
        self._held: set[int] = set()
        self.messages: list[tuple[str, tuple[int, int, int], float]] = []
        for notice in self.sim.notices:
            self.message(notice, WARN)
        self.fps = 0.0
        self.frame_ms = 0.0
        self.clock_s = 0.0  # the app's own clock: sum of frame steps
        self.clock = pygame.time.Clock()

    def _warm_up(self, show: bool) -> None:
        """Compile or load the kernels; in a window, show a message meanwhile instead of freezing."""

        def work() -> None:
            warm_up()
            label_regions(np.ones((2, 2)))

        if not show:
            work()
            return
        worker = threading.Thread(target=work, daemon=True)
        worker.start()
        dots = 0
        while worker.is_alive():
            pygame.event.pump()
            splash(self.screen, self.text, "compiling search kernel", dots)
            pygame.display.flip()
            dots += 1
            worker.join(0.25)

    # ---------------------------------------------------------------- messages
    def message(self, text: str, colour: tuple[int, int, int] = INK, seconds: float = 6.0) -> None:
        """Show a line in the status bar for a few seconds."""
        self.messages = [m for m in self.messages if m[0] != text][-3:]
        self.messages.append((text, colour, time.monotonic() + seconds))

    # ---------------------------------------------------------------- input
    def handle(self, e: pygame.event.Event) -> None:
        if e.type == pygame.QUIT:
            self.running = False
        elif e.type == pygame.KEYDOWN:
            self._key(e)
        elif e.type == pygame.KEYUP:
            self._held.discard(e.key)
        elif e.type == pygame.MOUSEMOTION:
            self._motion(e)
        elif e.type == pygame.MOUSEBUTTONDOWN:
            self._button_down(e)
        elif e.type == pygame.MOUSEBUTTONUP:
            self.mouse = e.pos
            if e.button in (1, 3):
                self._paint_last = None
            if e.button in (2, 3):
                self._panning = False
        elif e.type == pygame.MOUSEWHEEL:
            self.cam.zoom(1 if e.y > 0 else -1, *self.mouse)
        elif e.type in (pygame.VIDEORESIZE, pygame.WINDOWSIZECHANGED):
            self.cam.resize(*self.screen.get_size())

    def _key(self, e: pygame.event.Event) -> None:
        k = e.key
        ctrl = bool(getattr(e, "mod", 0) & pygame.KMOD_CTRL)
        if self.picker is not None:
            self._picker_key(k)
            return
        if self.compare is not None and self._compare_key(k, e):
            return
        if k == pygame.K_ESCAPE:
            if self.show_help:
                self.show_help = False
            elif self.selected is not None:
                self.select(None)
            else:
                self.running = False
        elif k == pygame.K_i:
            self.tool = "inspect" if self.tool == "paint" else "paint"
            self.message(f"tool: {self.tool}" + (" (click an animal)" if self.tool == "inspect" else ""))
        elif k == pygame.K_f and self.selected is not None:
            self.follow = not self.follow
        elif k == pygame.K_c:
            self.open_compare()
        elif k == pygame.K_v:
            n = len(self.sim.species)
            self.field_species = (
                0 if self.field_species is None else (self.field_species + 1 if self.field_species + 1 < n else None)
            )
        elif k == pygame.K_x:
            self.sim.enable_heat(self.sim.heat is None)
        elif k == pygame.K_s and ctrl:
            self.save_map()
        elif k in PAN_KEYS:
            self._held.add(k)
        elif k == pygame.K_SPACE:
            self.paused = not self.paused
        elif k == pygame.K_p:
            self.show_paths = not self.show_paths
        elif k in (pygame.K_PLUS, pygame.K_EQUALS, pygame.K_KP_PLUS):
            self.sim.add_animals(50)
        elif k in (pygame.K_MINUS, pygame.K_KP_MINUS):
            self.sim.remove_animals(50)
        elif k == pygame.K_r:
            rect = self.sim.reset_map()
            if rect is not None:
                self.view.terrain_changed(rect)
            self.message("map reset to how it was loaded")
        elif k == pygame.K_F12:
            self.screenshot()
        elif k in (pygame.K_h, pygame.K_F1):
            self.show_help = not self.show_help
        elif k == pygame.K_F3:
            self.show_overlay = not self.show_overlay
        elif pygame.K_1 <= k <= pygame.K_7:
            self.brush = BRUSHES[k - pygame.K_1]
        elif k == pygame.K_LEFTBRACKET:
            self.brush_radius = max(0, self.brush_radius - 1)
        elif k == pygame.K_RIGHTBRACKET:
            self.brush_radius = min(20, self.brush_radius + 1)
        elif k in (pygame.K_n, pygame.K_TAB):
            self.next_map()
        elif k == pygame.K_m:
            self.open_picker()

    def _button_down(self, e: pygame.event.Event) -> None:
        self.mouse = e.pos
        if self.picker is not None:
            if e.button == 1:
                for i, r in enumerate(self._picker_rects):
                    if r.collidepoint(e.pos):
                        self.picker_sel = i
                        self._picker_key(pygame.K_RETURN)
            return
        mods = pygame.key.get_mods() | getattr(e, "mod", 0)
        if e.button == 2 or (e.button == 3 and mods & pygame.KMOD_SHIFT):
            self._panning = True
        elif self.compare is not None:  # comparing: clicks pick cells; no painting
            if e.button == 1:
                self._compare_click(e.pos)
        elif e.button == 1 and (self.tool == "inspect" or mods & pygame.KMOD_CTRL):
            x, y = self.cam.cell_at(*e.pos)
            self.select(pick_animal(self.sim, x - 0.5, y - 0.5, radius=max(1.0, 10 / self.cam.tile)))
        elif e.button == 1:
            self._paint_to(e.pos, self.brush)
        elif e.button == 3:
            self._paint_to(e.pos, None)

    def _motion(self, e: pygame.event.Event) -> None:
        self.mouse = e.pos
        if self._panning:
            self.cam.pan(-e.rel[0], -e.rel[1])
        elif self.picker is None and self.compare is None and self.tool == "paint" and e.buttons[0]:
            if self._paint_last is not None:  # a stroke that began as a paint click
                self._paint_to(e.pos, self.brush)
        elif self.picker is None and self.compare is None and e.buttons[2]:
            self._paint_to(e.pos, None)

    def _paint_to(self, pos: tuple[int, int], terrain: int | None) -> None:
        """Paint from the last painted cell to the cell under ``pos``, with no gaps."""
        cx, cy = self.cam.cell_index_at(*pos)
        x0, y0 = self._paint_last if self._paint_last is not None else (cx, cy)
        steps = max(abs(cx - x0), abs(cy - y0), 1)
        for s in range(1 if self._paint_last is not None else 0, steps + 1):
            x = round(x0 + (cx - x0) * s / steps)
            y = round(y0 + (cy - y0) * s / steps)
            rect = self.sim.paint(x, y, self.brush_radius, terrain)
            if rect is not None:
                self.view.terrain_changed(rect)
        self._paint_last = (cx, cy)

    # ---------------------------------------------------------------- inspecting
    @property
    def selected(self) -> int | None:
        """The inspected animal (the simulation records its searches' footprints)."""
        return self.sim.record_agent

    def select(self, i: int | None) -> None:
        """Select animal ``i`` (None: deselect) and show the footprint of its last search."""
        self.sim.record_agent = i
        self.sel_record = self.sel_event = None
        self.follow = self.follow and i is not None
        if i is not None:
            replay = replay_last_search(self.sim, i)
            if replay is not None:
                self.sel_record, self.sel_event = replay

    # ---------------------------------------------------------------- comparing
    def open_compare(self) -> None:
        """Enter compare mode (the simulation pauses until it is left)."""
        sel = self.selected
        species = int(self.sim.agents.species[sel]) if sel is not None else self._species_index("cow")
        self.compare = Comparison(
            species, diagonal=self.config.search.diagonal, weight=self.config.search.compare_weight
        )
        self._paused_before_compare = self.paused
        self.paused = True

    def close_compare(self) -> None:
        self.compare = None
        self.paused = self._paused_before_compare

    def _species_index(self, key: str) -> int:
        return next(sp.index for sp in self.sim.species if sp.key == key)

    def _compare_run(self) -> None:
        cmp = self.compare
        if cmp is not None and cmp.start is not None and cmp.goal is not None:
            cmp.run(self.sim.species[cmp.species].astar.grid)

    def _compare_click(self, pos: tuple[int, int]) -> None:
        cmp = self.compare
        assert cmp is not None
        if cmp.runs:  # back to the map for a new query
            cmp.runs, cmp.start, cmp.goal = [], None, None
            return
        x, y = self.cam.cell_index_at(*pos)
        sp = self.sim.species[cmp.species]
        if not self.sim.world.inside(x, y) or sp.costs[y, x] <= 0:
            self.message(f"{sp.species.label} cannot stand there", WARN)
            return
        if cmp.start is None:
            cmp.start = (x, y)
        else:
            cmp.goal = (x, y)
            self._compare_run()

    def _compare_key(self, k: int, e: pygame.event.Event) -> bool:
        """Keys in compare mode; returns False for keys it leaves to the normal handling."""
        cmp = self.compare
        assert cmp is not None
        shift = bool(getattr(e, "mod", 0) & pygame.KMOD_SHIFT)
        if k in (pygame.K_ESCAPE, pygame.K_c):
            self.close_compare()
        elif pygame.K_1 <= k <= pygame.K_3:
            cmp.species = self._species_index(COMPARE_SPECIES[k - pygame.K_1])
            cmp.runs, cmp.start, cmp.goal = [], None, None
        elif k == pygame.K_d:
            cmp.cycle_diagonal()
            self._compare_run()
        elif k == pygame.K_e:
            cmp.cycle_heuristic()
            self._compare_run()
        elif k in (pygame.K_PLUS, pygame.K_EQUALS, pygame.K_KP_PLUS, pygame.K_MINUS, pygame.K_KP_MINUS):
            up = k in (pygame.K_PLUS, pygame.K_EQUALS, pygame.K_KP_PLUS)
            cmp.weight = min(10.0, cmp.weight + 0.5) if up else max(1.0, cmp.weight - 0.5)
            self._compare_run()
        elif k == pygame.K_SPACE:
            cmp.playing = not cmp.playing
            if cmp.playing and cmp.step >= cmp.longest:
                cmp.step = 0.0
        elif k in (pygame.K_RIGHT, pygame.K_LEFT):
            cmp.step_by((10 if shift else 1) * (1 if k == pygame.K_RIGHT else -1))
        elif k == pygame.K_UP:
            cmp.speed *= 2
        elif k == pygame.K_DOWN:
            cmp.speed = max(1.0, cmp.speed / 2)
        elif k == pygame.K_r:
            cmp.step, cmp.playing = 0.0, True
        elif k == pygame.K_TAB:
            n = len(cmp.runs)
            cmp.shown = 0 if cmp.shown is None else (cmp.shown + 1 if cmp.shown + 1 < n else None)
        elif k in (pygame.K_F1, pygame.K_h, pygame.K_F12, pygame.K_F3):
            return False
        return True

    # ---------------------------------------------------------------- maps
    def load(self, path: Path) -> bool:
        """Swap to the map at ``path``; on a bad map say so on screen and keep the current one."""
        try:
            data = load_map(path, max_size=(self.config.max_map_width, self.config.max_map_height))
            self.sim.load_map(data)
        except MapError as exc:
            self.message(f"could not load map: {exc}", WARN, 10)
            return False
        self.view.rebuild()
        self.select(None)
        self.message(f"loaded {data.name} ({data.terrain.shape[1]}x{data.terrain.shape[0]})", GOOD)
        for notice in self.sim.notices:
            self.message(notice, WARN)
        return True

    def next_map(self) -> None:
        maps = list_maps(self.maps_dir)
        if not maps:
            self.message(f"no maps in {self.maps_dir}", WARN)
            return
        current = Path(self.sim.world.source or "")
        names = [p.resolve() for p in maps]
        i = names.index(current.resolve()) if current.is_file() and current.resolve() in names else -1
        for k in range(1, len(maps) + 1):  # skip maps that fail, say why, keep going round once
            if self.load(maps[(i + k) % len(maps)]):
                return

    def open_picker(self) -> None:
        self.picker = list_maps(self.maps_dir)
        current = str(self.sim.world.source or "")
        self.picker_sel = next((i for i, p in enumerate(self.picker) if str(p) == current), 0)

    def _picker_key(self, k: int) -> None:
        assert self.picker is not None
        if k in (pygame.K_ESCAPE, pygame.K_m):
            self.picker = None
        elif k == pygame.K_UP and self.picker:
            self.picker_sel = (self.picker_sel - 1) % len(self.picker)
        elif k == pygame.K_DOWN and self.picker:
            self.picker_sel = (self.picker_sel + 1) % len(self.picker)
        elif k in (pygame.K_RETURN, pygame.K_KP_ENTER) and self.picker:
            chosen = self.picker[self.picker_sel]
            self.picker = None
            self.load(chosen)

    def save_map(self) -> Path | None:
        source = Path(self.sim.world.source) if self.sim.world.source else None
        try:
            m = self.sim.map
            path = save_map(self.sim.world.name, self.sim.world.terrain, source, self.maps_dir, m.spawn, m.animals)
        except OSError as exc:
            self.message(f"could not save the map: {exc}", WARN, 10)
            return None
        self.message(f"saved {path}", GOOD)
        return path

    def screenshot(self) -> Path:
        self.screenshot_dir.mkdir(parents=True, exist_ok=True)
        stamp = time.strftime("%Y%m%d-%H%M%S")
        path = self.screenshot_dir / f"astar-island-{stamp}-{self.sim.frame:06d}.png"
        self.draw()
        pygame.image.save(self.screen, str(path))
        self.message(f"screenshot saved: {path}", GOOD)
        return path

    # ---------------------------------------------------------------- loop
    def update(self, dt: float) -> None:
        dx = sum(PAN_KEYS[k][0] for k in self._held)
        dy = sum(PAN_KEYS[k][1] for k in self._held)
        if dx or dy:
            self.cam.pan(dx * PAN_SPEED * dt, dy * PAN_SPEED * dt)
        if self.compare is not None:
            self.compare.advance(dt)
        if not self.paused:
            self.sim.step(dt)
        self.clock_s += dt  # advances while paused too, so the graph keeps scrolling
        self.sim.history.push(self.clock_s, self.sim.stats.search_ms)
        sel = self.selected
        if sel is not None:
            ev = self.sim.last_record_event
            if ev is not None and ev.agent == sel and ev is not self.sel_event:
                self.sel_record, self.sel_event = self.sim.last_record, ev  # its newest search, live
            if self.follow:
                x, y = self.sim.agents.pos[sel]
                self.cam.x = (x + 0.5) * self.cam.tile - self.cam.view_w / 2
                self.cam.y = (y + 0.5) * self.cam.tile - self.cam.view_h / 2
                self.cam.clamp()

    def draw(self) -> None:
        if self.field_species is not None:
            self.search_views.draw_cost_field(self.screen, self.field_species)
        else:
            self.view.terrain.draw(self.screen, self.cam)
        self.search_views.draw_heat(self.screen)
        sel = self.selected
        if sel is not None:
            self.search_views.draw_last_search(self.screen, self.sel_record, self.sel_event)
        if self.show_paths:
            self.view.draw_paths(self.screen)
        self.view.draw_animals(self.screen)
        if sel is not None:
            self.search_views.draw_highlight(self.screen, sel)
        if self.field_species is not None:
            self.search_views.cost_field_legend(self.screen, self.text, self.field_species)
        if sel is not None:
            colour = self.sim.species[self.sim.agents.species[sel]].spec.colour
            inspector_panel(self.screen, self.text, describe(self.sim, sel), colour)
        if self.compare is not None:
            cmp = self.compare
            for p, colour in ((cmp.start, (80, 255, 120)), (cmp.goal, (255, 80, 80))):
                if p is not None:
                    pygame.draw.circle(self.screen, colour, self.cam.to_screen(*p), max(4, self.cam.tile))
            draw_compare(self.screen, self.text, self.view, cmp, self.sim.species[cmp.species].species.label)
        elif self.picker is None and not self.show_help and self.tool == "paint":
            self.view.draw_brush(self.screen, self.mouse, self.brush_radius, self.colours[self.brush])
        if self.show_overlay:
            overlay(self.screen, self.text, self.sim, self.fps, self.frame_ms, self.paused)
        now = time.monotonic()
        self.messages = [m for m in self.messages if m[2] > now]
        w, h = self.sim.world.width, self.sim.world.height
        parts = [
            (f"{self.sim.world.name} {w}x{h}", INK),
            (f"brush {Terrain(self.brush).label} r{self.brush_radius}" if self.tool == "paint" else "INSPECT", INK),
            (f"{self.sim.agents.n} animals", INK),
            ("PAUSED" if self.paused else "", WARN),
            ("HEAT" if self.sim.heat is not None else "", WARN),
            ("F1 help  F3 overlay", (150, 150, 150)),
        ]
        parts += [(t, c) for t, c, _ in self.messages]
        status_line(self.screen, self.text, [p for p in parts if p[0]])
        if self.show_help:
            help_panel(self.screen, self.text)
        if self.picker is not None:
            self._picker_rects = map_picker(
                self.screen, self.text, self.picker, self.picker_sel, str(self.sim.world.source or "")
            )

    def frame(self, dt: float) -> float:
        """One frame: events, update, draw, flip. Returns its wall time in ms."""
        t0 = time.perf_counter()
        for e in pygame.event.get():
            self.handle(e)
        self.update(dt)
        self.draw()
        pygame.display.flip()
        self.frame_ms = (time.perf_counter() - t0) * 1000.0
        # Smoothed frame time; gives the FPS figure where no clock ticks (headless runs).
        self._ema_ms = 0.9 * getattr(self, "_ema_ms", self.frame_ms) + 0.1 * self.frame_ms
        if not self.clock.get_fps():
            self.fps = 1000.0 / max(self._ema_ms, 1e-3)
        return self.frame_ms

    def run(self) -> None:
        """The interactive loop, until Esc or the window is closed."""
        while self.running:
            dt = self.clock.tick(self.config.window.fps_cap) / 1000.0
            self.fps = self.clock.get_fps()
            self.frame(min(dt, 0.1))
        pygame.quit()
