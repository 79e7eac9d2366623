"""The demo's files: loading maps (behind a progress screen when long), the map list, saving, screenshots."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import pygame

from sim.maps import list_maps, load_map, save_map
from sim.maps.data import MapData, MapError
from sim.view.context import Report
from sim.view.draw.panels import GOOD, WARN
from sim.view.progress import run_with_progress

if TYPE_CHECKING:
    from sim.view.context import ViewContext

T = TypeVar("T")


class MapFiles:
    """The app's file actions, a part the app holds (``app.files``): loading maps (behind a
    progress screen when long), the map list, unsaved painting, saving, screenshots."""

    def __init__(self, app: ViewContext) -> None:
        self.app = app
        self.saved_revision = -1  # the world's revision when it was last saved (-1: never)
        self._unreadable: set[Path] = set()  # folders already reported as unreadable (said once)

    def list_maps(self) -> list[Path]:
        """The bundled maps, then the user's saved ones; a folder that cannot be read is said
        once (on screen and in the terminal) and the maps of the others are listed."""
        maps: list[Path] = []
        for folder in (self.app.maps_dir, self.app.user_maps_dir):
            try:
                maps += list_maps(folder)
            except MapError as exc:
                if folder not in self._unreadable:
                    self._unreadable.add(folder)
                    self.app.message(f"{exc}; its maps are left out", WARN, 10)
        return maps

    def long_work(self, label: str, work: Callable[[Report], T]) -> T:
        """``work(report)``: on a thread behind a progress screen in a window, else right here."""
        if self.app.threaded_loads:
            return run_with_progress(self.app, label, work, self.app.progress_delay_s)
        return work(lambda *_: None)

    def load(self, path: Path) -> bool:
        """Swap to the map at ``path``; on a bad map say so on screen and keep the current one."""
        limit = (self.app.config.max_map_width, self.app.config.max_map_height)

        def work(report: Report) -> MapData:
            report(f"reading {path.name}", None)
            data = load_map(path, max_size=limit, progress=lambda f: report(f"generating {path.name}", f))
            report(f"placing the animals on {data.name}", None)
            self.app.sim.load_map(data)
            self.compile_jps(report)
            return data

        try:
            data = self.long_work(f"loading {path.name}", work)
        except MapError as exc:
            self.app.message(f"could not load map: {exc}", WARN, 10)
            return False
        self.app.view.rebuild()
        self.app.live.follow_map()
        self.app.message(f"loaded {data.name} ({data.width}x{data.height})", GOOD)
        for notice in self.app.sim.notices:
            self.app.message(notice, WARN)
        return True

    def compile_jps(self, report: Report) -> None:
        """Species that search with JPS (as the map or the config chose) need the round with JPS.
        When no cache holds it and no other process is compiling it, the kernels' owner compiles
        it here (on a load's worker thread, behind its progress screen), not inside a frame.
        Nothing to do when no species jumps, or while the background still compiles it (the
        species search with A* until then)."""
        sim = self.app.sim
        if not sim.planner.jps_ready or sim.planner.interpreted or all(sp.search != "jps" for sp in sim.species):
            return
        self.app.startup.kernels.ensure("jps-round", report)

    def ready_to_paint(self) -> None:
        """The brush's kernels ready before a stroke changes the map: on a window's first start
        another process may still compile them, and the stroke waits for it behind a progress
        screen (once; the window opened without waiting for them)."""
        kernels = self.app.startup.kernels
        if not kernels.ready("paint"):
            self.long_work("preparing the brush", lambda report: kernels.ensure("paint", report))

    def next_map(self) -> None:
        maps = self.list_maps()
        if not maps:
            self.app.message(f"no maps in {self.app.maps_dir}", WARN)
            return
        current = Path(self.app.sim.world.source or "")
        names = [p.resolve() for p in maps]
        i = names.index(current.resolve()) if current.is_file() and current.resolve() in names else -1
        for k in range(1, len(maps) + 1):  # skip maps that fail, say why, keep going round once
            if self.load(maps[(i + k) % len(maps)]):
                return

    def unsaved(self) -> bool:
        """Whether the map was painted since it was loaded or saved (and differs from its file)."""
        world = self.app.sim.world
        if world.revision == self.saved_revision:
            return False
        return bool((world.terrain != self.app.sim.map.terrain).any())

    def unless_unsaved(self, what: str, action: Callable[[], object]) -> None:
        """Do ``action`` (which would throw away the painting: ``what``), asking first if unsaved."""
        if not self.unsaved():
            action()
            return
        from sim.view.modes.confirm import ConfirmMode

        self.app.push(ConfirmMode(self.app, f"{what}: your painting is not saved. Go on?", action, offer_save=True))

    def save_map(self) -> Path | None:
        sim = self.app.sim
        source = Path(sim.world.source) if sim.world.source else None
        try:
            m = sim.map
            path = save_map(
                sim.world.name,
                sim.world.terrain,
                source,
                self.app.user_maps_dir,
                m.spawn,
                m.animals,
                m.description,
                m.search,
            )
        except (OSError, MapError) as exc:
            self.app.message(f"could not save the map: {exc}", WARN, 10)
            return None
        self.saved_revision = self.app.sim.world.revision
        self.app.message(f"saved {path}", GOOD)
        return path

    def screenshot(self) -> Path | None:
        """Save the window as a PNG in the user folder's screenshots; a folder that cannot be
        written is said on screen (None)."""
        stamp = time.strftime("%Y%m%d-%H%M%S")
        path = self.app.screenshot_dir / f"astar-island-{stamp}-{self.app.sim.frame:06d}.png"
        self.app.draw()
        try:
            self.app.screenshot_dir.mkdir(parents=True, exist_ok=True)
            pygame.image.save(self.app.screen, str(path))
        except (OSError, pygame.error) as exc:
            self.app.message(f"could not save the screenshot in {self.app.screenshot_dir}: {exc}", WARN, 10)
            return None
        self.app.message(f"screenshot saved: {path}", GOOD)
        return path
