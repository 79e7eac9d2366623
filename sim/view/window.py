"""The display: a resizable window that F11 turns fullscreen and back, sharp on HiDPI screens.

HiDPI: pygame-ce documents the SDL hint ``SDL_WINDOWS_DPI_AWARENESS``; set to
``permonitorv2`` before the display starts, Windows stops scaling the window's bitmap up
(blurry) and gives one pixel per pixel. Other platforms already draw 1:1 with
``set_mode``. A user's own setting of the hint wins.
"""

from __future__ import annotations

import os

import pygame

from sim.config import MIN_WINDOW

os.environ.setdefault("SDL_WINDOWS_DPI_AWARENESS", "permonitorv2")

#: The smallest window the screen's layout is made for (the config's least ``window.width`` and
#: ``window.height``). A window dragged smaller is set back to it: below it the parts have no room
#: (at 1x1 a panel's height came out negative and the frame raised ``pygame.error``).
MIN_SIZE = MIN_WINDOW


class Window:
    """The display surface and its mode. ``surface`` changes when the mode does: read it each frame."""

    def __init__(self, size: tuple[int, int], headless: bool = False, title: str = "astar-island") -> None:
        pygame.display.init()
        self.headless = headless
        self.windowed_size = size
        self.fullscreen = False
        self.surface = pygame.display.set_mode(size, 0 if headless else pygame.RESIZABLE)
        pygame.display.set_caption(title)

    @property
    def size(self) -> tuple[int, int]:
        return self.surface.get_size()

    def toggle_fullscreen(self) -> str | None:
        """Switch between fullscreen (the desktop's size) and the window; an error message, or None."""
        try:
            if self.fullscreen:
                self.surface = pygame.display.set_mode(self.windowed_size, pygame.RESIZABLE)
            else:
                self.windowed_size = self.size
                self.surface = pygame.display.set_mode((0, 0), pygame.FULLSCREEN)
        except pygame.error as exc:
            self.surface = pygame.display.get_surface() or self.surface
            return f"fullscreen is not available here ({exc})"
        self.fullscreen = not self.fullscreen
        return None

    def too_small(self) -> bool:
        """Whether the display is smaller than :data:`MIN_SIZE` (a window manager's resize, not handled yet)."""
        w, h = (pygame.display.get_surface() or self.surface).get_size()
        return w < MIN_SIZE[0] or h < MIN_SIZE[1]

    def resized(self) -> None:
        """After the user resized the window: pick up the display surface as it is now, set back
        to :data:`MIN_SIZE` where it is smaller."""
        surface = pygame.display.get_surface() or self.surface
        w, h = surface.get_size()
        if self.too_small():
            try:
                flags = 0 if self.headless else pygame.RESIZABLE
                surface = pygame.display.set_mode((max(w, MIN_SIZE[0]), max(h, MIN_SIZE[1])), flags)
            except pygame.error:  # (kept as it is: the frame then draws what fits)
                pass
        self.surface = surface
