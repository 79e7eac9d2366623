"""What every mode has: a key table, ``handle``, ``update``, ``draw``; and the shared camera controls."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

import pygame

from sim.view.context import ModeContext
from sim.view.keys import Binding, KeyTable

if TYPE_CHECKING:
    from sim.view.context import ViewContext


class Mode:
    """One screen of the demo. The app sends events to the mode on top of its stack.

    ``opaque``: the mode paints the whole screen, so the modes below are not drawn.
    ``pauses``: the simulation stands still while this mode is on top.
    ``self.app`` is the mode's narrow view of the app (``context``; a wider one if it names it).
    """

    keys: ClassVar[KeyTable]
    #: What the mode sees of the app (sim.view.context): the model, camera, drawing, messages,
    #: mouse, files, push and pop; a mode that needs more names a wider context.
    context: ClassVar[type[ModeContext]] = ModeContext
    pauses: ClassVar[bool] = False
    #: A modal: it draws over the dimmed rest in the layout's modal region, nothing draws over it
    #: (messages wait), and the modes below it do not see the events it takes.
    modal: ClassVar[bool] = False
    #: Where the mode's keys come in the help (lower first).
    help_order: ClassVar[int] = 50
    #: The play mode's key that opens this mode (action ``"open_mode"``; None: opened another
    #: way). The play mode lists it with its own keys, so a new mode is its file and a line
    #: in ``MODES`` (then ``python -m sim.view.keydocs --write docs/demo.md``).
    opened_by: ClassVar[Binding | None] = None

    @classmethod
    def open(cls, app: ViewContext | ModeContext, play: Mode) -> Mode:
        """A new one of this mode, opened from the play mode ``play``."""
        return cls(app)

    app: ModeContext

    def __init__(self, app: ViewContext | ModeContext) -> None:
        self.app = self.context(app)

    @property
    def opaque(self) -> bool:
        return False

    def handle(self, event: pygame.event.Event) -> bool:
        """Take an event; True when it was used. By default: key presses via the key table."""
        if event.type == pygame.KEYDOWN:
            return self.keys.dispatch(self, event)
        return False

    def after_events(self) -> None:
        """Called once a frame after the frame's events, before the model steps."""

    def update(self, dt: float) -> None:
        """Advance this mode's own state by ``dt`` seconds of wall time."""

    def draw(self, surface: pygame.Surface) -> None:
        """Draw this mode (over the modes below it unless it is opaque)."""

    def status(self) -> list[str]:
        """Words for the status line."""
        return []

    def close(self, _event: object = None) -> None:
        """Leave this mode (back to the one below)."""
        self.app.pop(self)


class CameraControls:
    """Pan and zoom with the mouse: the wheel zooms at the cursor, middle or shift+right drag pans."""

    def __init__(self, app: ModeContext) -> None:
        self.app = app
        self.panning = False

    def handle(self, e: pygame.event.Event) -> bool:
        cam = self.app.cam
        if e.type == pygame.MOUSEWHEEL:
            cam.zoom(1 if e.y > 0 else -1, *self.app.mouse)
            return True
        if e.type == pygame.MOUSEBUTTONDOWN:
            mods = getattr(e, "mod", self.app.mods)
            if e.button == 2 or (e.button == 3 and mods & pygame.KMOD_SHIFT):
                self.panning = True
                return True
        elif e.type == pygame.MOUSEMOTION and self.panning:
            cam.pan(-e.rel[0], -e.rel[1])
            return True
        elif e.type == pygame.MOUSEBUTTONUP and e.button in (2, 3) and self.panning:
            self.panning = False
            return e.button == 2
        return False
