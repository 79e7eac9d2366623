"""The demo window: a thin loop of events -> active mode -> update -> draw -> tick.

Input is read from the events themselves (``event.pos``, ``event.buttons``), never from
``pygame.mouse.get_pos()``, so synthetic events drive it exactly like a person does,
also under SDL's dummy video driver. Modes live on a stack: the top one gets the
events; keys it does not use fall through to the global table (help, overlay, screenshot).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TypeVar

import pygame

from sim.config import Config
from sim.instruments.recorder import SearchInstruments
from sim.maps import MapData
from sim.pathfinding import set_first_use
from sim.simulation import Simulation, check_map, searches_with_jps
from sim.support.resources import user_maps_dir
from sim.view import compose, events
from sim.view.camera import Camera
from sim.view.draw.overlay import Overlay
from sim.view.draw.panels import INK, WARN, Text
from sim.view.draw.render import WorldView, land_box
from sim.view.draw.search_views import SearchViews
from sim.view.keys import KeyTable, key
from sim.view.layout import Frame, Layout
from sim.view.live import LiveFiles
from sim.view.mapfiles import MapFiles
from sim.view.messages import Messages
from sim.view.modes import MODES, ConfirmMode, Mode, PlayMode
from sim.view.speed import Speed
from sim.view.startup import Startup
from sim.view.welcome import Welcome
from sim.view.window import Window

Colour = tuple[int, int, int]
T = TypeVar("T")


class App:
    """The running demo. ``headless`` opens no real window (use SDL's dummy driver)."""

    keys = KeyTable(
        "Everywhere",
        [
            key("F1 / H", "this help", "toggle_help", pygame.K_F1, pygame.K_h),
            key("F2", "message log: the last 50 messages", "toggle_log", pygame.K_F2),
            key("F3", "search-cost overlay: compact, detailed, off", "toggle_overlay", pygame.K_F3),
            key("F11", "fullscreen / window", "toggle_fullscreen", pygame.K_F11),
            key("F12", "save a screenshot (screenshots/)", "screenshot_key", pygame.K_F12),
            key("Esc", "close the help, or what the mode says", "escape", pygame.K_ESCAPE),
        ],
    )

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
        config_path: Path | None = None,
    ) -> None:
        check_map(config, map_data, counts)  # a map it cannot take: its MapError now, before any compiling
        # The demo compiles its kernels its own way (sim.prepare.Kernels): an engine search (compare, the
        # inspector) waits for its kernel rather than answering from the plain-Python search meanwhile.
        set_first_use("wait")
        self.config = config
        self.maps_dir = maps_dir  # the bundled maps (never written to)
        self.user_maps_dir = user_maps_dir()  # where saved maps go; the picker lists both
        self.screenshot_dir = screenshot_dir
        self.window = Window((config.window.width, config.window.height), headless)
        pygame.font.init()
        self.text = Text()
        self.running = True
        self.threaded_loads = not headless  # long loads on a thread, with a progress screen
        self.progress_frames = 0  # progress screens drawn by the last long load
        self.progress_delay_s = 0.15  # work shorter than this shows no progress screen
        self.files = MapFiles(self)  # loading, saving, the map list, screenshots
        self.startup = Startup(self, headless, config_path, searches_with_jps(config, map_data))
        self.sim = self.files.long_work(
            f"preparing {map_data.name}", lambda _report: Simulation(config, map_data, counts=counts, clock=clock)
        )
        self.startup.begin(self.sim)
        self.instruments = SearchInstruments(self.sim)
        self._layout: Layout | None = None  # the regions of the window (sim.view.layout), per size
        self.plan: Frame = compose.begin(self)  # this frame's parts: where each went
        w, h = self.screen.get_size()
        self.cam = Camera(w, self.plan.layout.map.h, self.sim.world.width, self.sim.world.height,
                          focus=land_box(self.sim.world.terrain))  # fmt: skip
        self.cam.zoom_to_fit()
        self.view = WorldView(self.sim, self.cam, art=self.startup.art)
        self.search_views = SearchViews(self.sim, self.view, self.instruments)
        self._ui_state(headless, (w // 2, h // 2))
        self.play = PlayMode(self)
        self.modes: list[Mode] = [self.play]
        for notice in self.sim.notices:
            self.message(notice, WARN)
        self.live = LiveFiles(self)
        self.draw()  # the first picture, not shown yet: the view's caches are built before the first frame

    def _ui_state(self, headless: bool, mouse: tuple[int, int]) -> None:
        """What the window itself keeps: pause, speed, the overlay, help and log, input, the clocks."""
        self.user_paused = False  # Space; a mode may pause the simulation too
        self.speed = Speed()  # , and . (½x to 8x)
        self.step_once = False  # / while paused: the next frame runs one step
        self.overlay = Overlay()  # F3: off, compact, detailed
        self.show_help = self.show_log = False
        self.help_page = 0
        self.mouse = mouse
        self.messages = Messages(errors=(WARN,))  # errors are printed to stderr too
        self.welcome = Welcome(enabled=not headless)  # the first-start card
        self.mods = 0  # modifier keys held, from the key events in order (a click reads them as of itself)
        self.fps = self.frame_ms = self.clock_s = 0.0  # clock_s: the app's own clock, the sum of frame steps
        self._ema_ms: float | None = None
        self.clock = pygame.time.Clock()

    # ---------------------------------------------------------------- modes
    @property
    def top(self) -> Mode:
        return self.modes[-1]

    @property
    def paused(self) -> bool:
        """Whether the simulation stands still: Space, or a mode that pauses it (compare)."""
        return self.user_paused or self.top.pauses

    def push(self, mode: Mode) -> None:
        self.modes.append(mode)

    def pop(self, mode: Mode) -> None:
        if mode in self.modes[1:]:
            self.modes.remove(mode)

    def tables(self) -> list[KeyTable]:
        """Every key table, for the help: global keys first, then each mode's."""
        return [self.keys] + [m.keys for m in sorted(MODES, key=lambda m: m.help_order)]

    # ---------------------------------------------------------------- messages
    def message(self, text: str, colour: Colour = INK, seconds: float = 6.0) -> None:
        """Show ``text`` in full for a few seconds (it replaces the one shown) and log it (F2);
        an error (``WARN``) goes to stderr too."""
        self.messages.post(text, colour, seconds)

    # ---------------------------------------------------------------- input
    def handle(self, e: pygame.event.Event) -> None:
        """One event: the window's own (quit, resize, modifiers, the card, help and log), else the
        mode on top, else the global keys (:func:`sim.view.events.handle`)."""
        events.handle(self, e)

    def toggle_help(self, _e: object = None) -> None:
        self.show_help = not self.show_help

    def toggle_log(self, _e: object = None) -> None:
        self.show_log = not self.show_log

    @property
    def show_overlay(self) -> bool:
        return self.overlay.level > 0

    def toggle_overlay(self, _e: object = None) -> None:
        self.overlay.cycle()

    def toggle_fullscreen(self, _e: object = None) -> None:
        if problem := self.window.toggle_fullscreen():
            self.message(problem, WARN)
        self._resized()

    def _resized(self) -> None:
        self.window.resized()
        self.plan = compose.begin(self)
        w, _h = self.screen.get_size()
        self.cam.resize(w, self.plan.layout.map.h)
        self.view.invalidate()

    @property
    def screen(self) -> pygame.Surface:
        """The display surface (a new one after F11)."""
        return self.window.surface

    def screenshot_key(self, _e: object = None) -> None:
        self.files.screenshot()

    escape = lambda self, _e=None: self.ask_to_quit()  # noqa: E731  (Esc with nothing open asks to quit)

    def ask_to_quit(self) -> None:
        """Quit after a yes (Esc again or Enter), offering to save unsaved painting."""
        unsaved = self.files.unsaved()
        question = "quit? your painting is not saved" if unsaved else "quit?"
        self.push(ConfirmMode(self, question, self.quit, esc_says_yes=True, offer_save=unsaved))

    def quit(self) -> None:
        self.running = False

    # ---------------------------------------------------------------- loop
    def update(self, dt: float) -> None:
        """Advance the model: ``speed`` steps of ``dt`` a frame, none while paused but for a single step."""
        steps = (1 if self.step_once else 0) if self.paused else self.speed.steps()
        self.step_once = False
        self.startup.poll(self.sim)
        self.sim.advance(dt, steps)
        if steps:
            self.instruments.after_step(dt * steps)
        self.clock_s += dt  # advances while paused too, so the graph keeps scrolling
        self.view.terrain.clock = self.clock_s  # the water's glints
        self.instruments.frame(self.clock_s, self.sim.stats)
        for mode in self.modes:
            mode.update(dt)
        self.view.sync()

    def draw(self) -> None:
        """The frame: the modes (the world, their panels), the overlay, the messages, a modal over a
        dimmed rest, the bars; each part in its region (:mod:`sim.view.compose`)."""
        self.plan = compose.begin(self)
        self.view.bars.begin_frame(self.plan.layout.map.bottom)  # (the readout and the status bar below it)
        modal = compose.modal(self)
        self.messages.hold(modal is not None)  # messages wait while a modal is up
        draw_overlay = compose.overlay(self) if self.show_overlay and modal is None else None  # (its place first)
        below = [m for m in self.modes if not m.modal]
        first = max(i for i, m in enumerate(below) if i == 0 or m.opaque)
        for mode in below[first:]:
            mode.draw(self.screen)
        if draw_overlay is not None:
            draw_overlay()
        if modal is None:
            compose.messages(self)
        else:
            compose.dim(self)
            if self.top.modal:
                self.top.draw(self.screen)
            elif modal == "help":
                compose.help_page(self)
            elif modal == "log":
                compose.message_log(self)
            else:
                self.welcome.draw(self)
        compose.status_bar(self)

    def frame(self, dt: float) -> float:
        """One frame: events, update, draw, flip. Returns its wall time in ms."""
        t0 = time.perf_counter()
        self.live.poll()
        events = pygame.event.get()
        if self.window.too_small():  # (the window's new size is there before its event: nothing may draw at it)
            self._resized()
        for e in events:
            self.handle(e)
        for mode in self.modes:
            mode.after_events()
        self.update(dt)
        self.draw()
        pygame.display.flip()
        self.frame_ms = (time.perf_counter() - t0) * 1000.0
        # Smoothed frame time; gives the FPS figure where no clock ticks (headless runs).
        self._ema_ms = self.frame_ms if self._ema_ms is None else 0.9 * self._ema_ms + 0.1 * self.frame_ms
        if not self.clock.get_fps():
            self.fps = 1000.0 / max(self._ema_ms, 1e-3)
        return self.frame_ms

    def run(self) -> None:
        """The interactive loop, until Esc or the window is closed."""
        self.startup.window_ready()
        while self.running:
            dt = self.clock.tick(self.startup.fps_cap(self.config.window.fps_cap)) / 1000.0
            self.fps = self.clock.get_fps()
            self.frame(min(dt, 0.1))
        pygame.quit()


def _age(seconds: float) -> str:
    """How long ago, short: 12 s, 4 min."""
    return f"{seconds:.0f} s" if seconds < 90 else f"{seconds / 60:.0f} min"
