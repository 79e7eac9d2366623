"""What the window's parts (modes, live files, progress screens, the start-up) see of the app:
a protocol, so they name no concrete ``App`` (no import back up to it) and what they may use
is written down in one place. It is still wide; narrowing it per part is the next step."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

if TYPE_CHECKING:
    import pygame

    from sim.config import Config
    from sim.instruments.recorder import SearchInstruments
    from sim.simulation import Simulation
    from sim.view.camera import Camera
    from sim.view.draw.panels import Text
    from sim.view.draw.render import WorldView
    from sim.view.draw.search_views import SearchViews
    from sim.view.speed import Speed

T = TypeVar("T")
Colour = tuple[int, int, int]


class FileActions(Protocol):
    """The app's file actions (``app.files``: :class:`sim.view.mapfiles.MapFiles`)."""

    def long_work(self, label: str, work: Callable[..., T]) -> T: ...

    def load(self, path: Path) -> bool: ...

    def next_map(self) -> None: ...

    def list_maps(self) -> list[Path]: ...

    def unsaved(self) -> bool: ...

    def unless_unsaved(self, what: str, action: Callable[[], object]) -> None: ...

    def save_map(self) -> Path | None: ...

    def screenshot(self) -> Path: ...


class ViewContext(Protocol):
    """The app as its parts use it (see :class:`sim.view.app.App` for what each member is)."""

    config: Config
    sim: Simulation
    cam: Camera
    view: WorldView
    search_views: SearchViews
    instruments: SearchInstruments
    text: Text
    speed: Speed
    live: Any
    mouse: tuple[int, int]
    mods: int
    maps_dir: Path
    user_maps_dir: Path
    user_paused: bool
    step_once: bool
    show_help: bool
    show_overlay: bool
    running: bool
    progress_frames: int
    files: FileActions  # loading, saving, the map list, unsaved painting, screenshots
    # What the files part itself reads of the app:
    screenshot_dir: Path
    threaded_loads: bool
    progress_delay_s: float

    def draw(self) -> None: ...

    @property
    def screen(self) -> pygame.Surface: ...

    @property
    def top(self) -> Any: ...

    def message(self, text: str, colour: Colour = ..., seconds: float = ...) -> None: ...

    def push(self, mode: Any) -> None: ...

    def pop(self, mode: Any) -> None: ...

    def ask_to_quit(self) -> None: ...
