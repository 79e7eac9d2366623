"""Live files: the demo notices within a second when its config or its map changes on disk.

A changed config applies at once (see :mod:`sim.reconfigure`); a bad one is reported on
screen and the running settings stay. A changed map reloads when nothing was painted;
otherwise a notice offers L to reload it (the painting would go). A bad map edit is
reported and the current map, painting included, stays.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from sim.config import ConfigError, load_config
from sim.support.watch import FileWatch
from sim.view.draw.panels import GOOD, WARN

if TYPE_CHECKING:
    from sim.view.context import ViewContext


class LiveFiles:
    """Watches the config file and the current map's file for the app."""

    def __init__(self, app: ViewContext) -> None:
        self.app = app
        self.watch = FileWatch()
        source = Path(app.config.source)
        self.config_path = source if source.is_file() else None
        self.watch.watch(self.config_path)
        self.map_path: Path | None = None
        self.map_changed = False  # the map file changed while the map was painted: L reloads
        self.follow_map()

    def follow_map(self) -> None:
        """Watch the current map's file (after a load or a swap)."""
        self.watch.unwatch(self.map_path)
        source = self.app.sim.world.source
        self.map_path = Path(source) if source and Path(source).is_file() else None
        self.watch.watch(self.map_path)
        self.map_changed = False

    def poll(self, force: bool = False) -> None:
        for path in self.watch.poll(force):
            if path == self.config_path:
                self._config_changed()
            elif path == self.map_path:
                self._map_changed()

    def _config_changed(self) -> None:
        app = self.app
        try:
            config = load_config(self.config_path)
        except ConfigError as exc:
            app.message(f"config not applied, the running settings stay: {exc}", WARN, 12)
            return
        said = app.sim.apply_config(config)
        app.config = config
        app.files.long_work("preparing the search", app.files.compile_jps)  # a species switched to JPS
        app.view.terrain.set_colours(config.terrain_colours())
        app.view.invalidate()
        app.message("config applied: " + (", ".join(said) if said else "nothing changed"), GOOD, 8)

    def _map_changed(self) -> None:
        world = self.app.sim.world
        if np.array_equal(world.terrain, world.original):
            self.reload()
        else:
            self.map_changed = True
            name = self.map_path.name if self.map_path is not None else "the map"
            self.app.message(f"{name} changed on disk: L reloads it (your painting goes)", WARN, 30)

    def reload(self) -> bool:
        """Load the current map's file again; a bad file is reported and the current map stays."""
        if self.map_path is None:
            self.app.message("this map has no file to reload", WARN)
            return False
        return self.app.files.load(self.map_path)
