"""The first-start card: what to try first, shown once (until dismissed) on a user's first window.

Any key or click dismisses it and still does what it does (the card never swallows
input); the user folder remembers it was seen (``welcome-seen``), so it does not come back.
"""

from __future__ import annotations

import pygame

from sim.support.resources import user_dir
from sim.view.draw.panels import GOOD, INK, hints

LINES = (
    "Welcome to astar-island: every animal finds its way with A*.",
    hints(
        "paint with the mouse",
        "E watch A* think",
        "C compare",
        "G call a herd",
        "I inspect",
        "F1 all keys",
        sep="  ·  ",
    ),
    "(any key or click closes this)",
)
MARKER = "welcome-seen"


class Welcome:
    """The card; :attr:`showing` until the first key or click (or when seen before)."""

    def __init__(self, enabled: bool = True) -> None:
        try:
            seen = (user_dir() / MARKER).exists()
        except OSError:  # a user folder that cannot be read: show the card (the rest says why)
            seen = False
        self.showing = enabled and not seen

    def handle(self, e: pygame.event.Event) -> None:
        if self.showing and e.type in (pygame.KEYDOWN, pygame.MOUSEBUTTONDOWN):
            self.dismiss()

    def dismiss(self) -> None:
        self.showing = False
        try:
            user_dir().mkdir(parents=True, exist_ok=True)
            (user_dir() / MARKER).write_text("the first-start card was seen\n", encoding="utf-8")
        except OSError:
            pass  # a read-only home: the card comes back next time, nothing worse

    def draw(self, app) -> pygame.Rect | None:
        """The card in the middle of the window (a modal: the rest is dimmed under it)."""
        if not self.showing:
            return None
        from sim.view.compose import modal_panel

        lines = [(LINES[0], GOOD), (LINES[1], INK), (LINES[2], (160, 164, 160))]
        rect = modal_panel(app, "welcome", lines, app.plan.layout.metrics.title, GOOD)
        app.view.dirty.append(rect)
        return rect
