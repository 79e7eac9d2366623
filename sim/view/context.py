"""What the window's parts see of the app.

The app's own parts (live files, map files, progress screens, the start-up) see it through
:class:`ViewContext`, a protocol, so they name no concrete ``App`` (no import back up to it).
A mode sees much less: a :class:`ModeContext` — the model, the camera and the world's
drawing, text, messages, the mouse, the file actions, and a way to push and pop modes —
a small object that hands on only those members of the app (anything else is an
``AttributeError``). A mode that needs more names a wider context (:class:`PickerContext`,
:class:`PlayContext`), so what each mode may touch is written down in one place."""

from __future__ import annotations

import operator
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, TypeVar

if TYPE_CHECKING:
    import pygame

    from sim.config import Config
    from sim.instruments.recorder import SearchInstruments
    from sim.simulation import Simulation
    from sim.view.camera import Camera
    from sim.view.draw.panels import Text
    from sim.view.draw.render import WorldView
    from sim.view.draw.search_views import SearchViews
    from sim.view.layout import Frame
    from sim.view.speed import Speed

T = TypeVar("T")


class Report(Protocol):
    """What work run with a progress screen says (``sim.view.progress.Progress.report``): a label,
    how far it is (None: no way to tell), or how many seconds it usually takes."""

    def __call__(self, label: str, fraction: float | None = None, estimate_s: float | None = None) -> None: ...


Colour = tuple[int, int, int]


class FileActions(Protocol):
    """The app's file actions (``app.files``: :class:`sim.view.mapfiles.MapFiles`)."""

    def long_work(self, label: str, work: Callable[[Report], T]) -> T: ...

    def load(self, path: Path) -> bool: ...

    def compile_jps(self, report: Report) -> None: ...

    def ready_to_paint(self) -> None: ...

    def next_map(self) -> None: ...

    def list_maps(self) -> list[Path]: ...

    def unsaved(self) -> bool: ...

    def unless_unsaved(self, what: str, action: Callable[[], object]) -> None: ...

    def save_map(self) -> Path | None: ...

    def screenshot(self) -> Path | None: ...


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
    running: bool
    progress_frames: int
    startup: Any  # sim.view.startup.Startup: the kernels' owner (what is compiled and ready) as the window shows it
    # What the files part itself reads of the app:
    screenshot_dir: Path
    threaded_loads: bool
    progress_delay_s: float

    def draw(self) -> None: ...

    @property
    def show_overlay(self) -> bool: ...

    @property
    def files(self) -> FileActions:
        """Loading, saving, the map list, unsaved painting, screenshots."""

    @property
    def screen(self) -> pygame.Surface: ...

    @property
    def top(self) -> Any: ...

    def message(self, text: str, colour: Colour = ..., seconds: float = ...) -> None: ...

    def push(self, mode: Any) -> None: ...

    def pop(self, mode: Any) -> None: ...

    def ask_to_quit(self) -> None: ...


class ModeContext:
    """A mode's narrow view of the app: the members declared here (the app's own, kept current: a
    map load replaces ``sim``), those in ``writes`` also settable. Nothing else: any other name is
    an ``AttributeError``. A wider context declares more members (:class:`PlayContext`)."""

    sim: Simulation
    cam: Camera
    view: WorldView
    text: Text
    files: FileActions
    mouse: tuple[int, int]
    mods: int
    message: Callable[..., None]  # (text, colour=INK, seconds=6.0)
    push: Callable[[Any], None]  # a mode onto the stack
    pop: Callable[[Any], None]  # that mode off it
    plan: Frame  # this frame's layout and the parts placed so far (sim.view.layout)
    screen: pygame.Surface
    #: Members the mode may also set (declared above or in a subclass).
    writes: ClassVar[tuple[str, ...]] = ()
    _app: ViewContext  # the app itself (not handed on)

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        _hand_on(cls)

    def __init__(self, app: ViewContext | ModeContext) -> None:
        object.__setattr__(self, "_app", app._app if isinstance(app, ModeContext) else app)

    def __setattr__(self, name: str, value: object) -> None:
        if name not in self.writes:
            sets = ", ".join(self.writes) or "nothing"
            raise AttributeError(f"{type(self).__name__} does not set {name!r} (it sets {sets})")
        object.__setattr__(self, name, value)

    @classmethod
    def members(cls) -> frozenset[str]:
        """Every member this context hands on: the names declared in it and its bases."""
        names: set[str] = set()
        for klass in cls.__mro__:
            declared = getattr(klass, "__annotations__", {}).items()
            names |= {n for n, kind in declared if "ClassVar" not in str(kind) and not n.startswith("_")}
        return frozenset(names)

    @property
    def reads(self) -> tuple[str, ...]:
        return tuple(sorted(self.members()))


def _hand_on(cls: type[ModeContext]) -> None:
    """Give ``cls`` a property per member, reading (and for ``writes``, setting) the app's."""
    for name in cls.members():

        def put(self: ModeContext, value: Any, _n: str = name) -> None:
            setattr(object.__getattribute__(self, "_app"), _n, value)

        # A reading is C code (a mode reads ~36 members a frame: ~0.4 µs each as a Python function).
        get = operator.attrgetter(f"_app.{name}")
        setattr(cls, name, property(get, put if name in cls.writes else None))


_hand_on(ModeContext)


class ExportContext(ModeContext):
    """A mode's, and the folder where it saves what it exports (copied code's cost grids)."""

    screenshot_dir: Path


class PickerContext(ModeContext):
    """The map picker's: a mode's, and the folders it lists."""

    maps_dir: Path
    user_maps_dir: Path


class PlayContext(ModeContext):
    """The play mode's: it is the app's home screen, so it also reads the search instruments and
    views, the live files, the mode on top, the help and overlay switches, the speed, and pauses
    or steps the simulation."""

    instruments: SearchInstruments
    search_views: SearchViews
    speed: Speed
    live: Any
    top: Any
    show_help: bool
    show_overlay: bool
    overlay: Any  # the F3 overlay's level (the stress key shows it)
    fps: float
    ask_to_quit: Callable[[], None]
    user_paused: bool
    step_once: bool
    writes = ("user_paused", "step_once")
