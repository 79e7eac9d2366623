"""One layout owns the window: every part of the screen gets its region, and two parts never
overlap unless one is a modal (which dims the rest).

The regions, made afresh whenever the window's size changes (800x500 up to 4K):

* ``status`` (the bar at the bottom) and ``readout`` (the strip above it: the cell under the
  cursor); ``map`` is everything above them, where the world is drawn;
* ``messages``: a band at the top of the map, messages newest first;
* ``left``: a column under the band (the F3 overlay, and the inspector when the animal it
  inspects is on the right);
* ``right``: a column under the band (the inspector, legends, the minimap), stacked;
* ``modal``: the middle, for questions, help, the message log, the map picker, the welcome card.

Fonts and margins scale with the window's height (:class:`Metrics`). Parts are placed through
a :class:`Frame` (one a frame): it hands out rectangles column by column, stacking them, and
keeps what it placed (:attr:`Frame.placed`: each part's name, rectangle, text lines and font
size), so a test can check that nothing overlaps and every line fits. Nothing here draws.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import pygame

Colour = tuple[int, int, int]
Line = tuple[str, Colour]
#: The window height the base sizes are for (text 14 px, margins 8 px at 800 px).
BASE_HEIGHT = 800


@dataclass(frozen=True)
class Metrics:
    """Sizes that scale with the window's height: fonts (px), margins and paddings (px)."""

    scale: float

    @classmethod
    def of(cls, height: int) -> Metrics:
        return cls(min(2.7, max(0.8, height / BASE_HEIGHT)))

    def px(self, base: float) -> int:
        return max(1, round(base * self.scale))

    @property
    def body(self) -> int:  # panels' text
        return max(12, self.px(14))

    @property
    def small(self) -> int:  # secondary text: legends' notes, the readout
        return max(11, self.px(13))

    @property
    def title(self) -> int:
        return max(13, self.px(16))

    @property
    def margin(self) -> int:
        return self.px(8)

    @property
    def pad(self) -> int:  # inside a panel, around its text (as sim.view.compose.pad_of(body))
        return max(4, self.body // 2)


@dataclass(frozen=True)
class Layout:
    """The regions of a window of ``size`` (see the module's docstring)."""

    size: tuple[int, int]
    metrics: Metrics
    status: pygame.Rect
    readout: pygame.Rect
    map: pygame.Rect
    messages: pygame.Rect
    left: pygame.Rect
    right: pygame.Rect
    modal: pygame.Rect

    @classmethod
    def of(cls, size: tuple[int, int], line_height: Callable[[int], int]) -> Layout:
        """The layout of a window of ``size``; ``line_height(px)``: a font's line height."""
        w, h = size
        m = Metrics.of(h)
        g, pad = m.margin, m.pad
        status_h = line_height(m.body) + 2 * pad
        readout_h = line_height(m.small) + 2 * pad
        status = pygame.Rect(0, h - status_h, w, status_h)
        readout = pygame.Rect(0, status.y - readout_h, w, readout_h)
        map_rect = pygame.Rect(0, 0, w, readout.y)
        messages = pygame.Rect(g, g, w - 2 * g, 2 * line_height(m.body) + 2 * pad)
        top = messages.bottom + g
        column_h = max(0, map_rect.bottom - g - top)
        left_w = min(int(w * 0.4), m.px(470))
        right_w = min(int(w * 0.4), m.px(440), w - left_w - 3 * g)
        left = pygame.Rect(g, top, left_w, column_h)
        right = pygame.Rect(w - g - right_w, top, right_w, column_h)
        modal_w = min(w - 4 * g, m.px(1100))
        modal = pygame.Rect((w - modal_w) // 2, top, modal_w, column_h)
        return cls((w, h), m, status, readout, map_rect, messages, left, right, modal)

    @property
    def content(self) -> pygame.Rect:
        """The map region under the message band: what a full-screen mode (compare) lays out in."""
        return pygame.Rect(0, self.messages.bottom, self.size[0], self.map.bottom - self.messages.bottom)


@dataclass
class Placed:
    """One part as it was placed this frame: its region's rectangle, the text it drew (and the
    font size), and whether it is a modal."""

    name: str
    rect: pygame.Rect
    lines: list[str] = field(default_factory=list)
    size: int = 0
    modal: bool = False


class Frame:
    """The parts placed in one frame (see the module's docstring)."""

    def __init__(self, layout: Layout) -> None:
        self.layout = layout
        self.placed: list[Placed] = []
        self._used = {"left": 0, "right": 0}  # pixels taken from the top of each column

    def column(self, side: str) -> pygame.Rect:
        """What is left of column ``side`` (``"left"`` or ``"right"``)."""
        full = self.layout.left if side == "left" else self.layout.right
        used = self._used[side]
        return pygame.Rect(full.x, full.y + used, full.w, max(0, full.h - used))

    def take(self, side: str, size: tuple[int, int], name: str, lines: list[str] | None = None,
             font: int = 0) -> pygame.Rect | None:  # fmt: skip
        """A rectangle of ``size`` (clipped to the column's width) at the top of what is left of
        column ``side``, right-aligned in the right column; None when it does not fit."""
        room = self.column(side)
        w, h = min(size[0], room.w), size[1]
        if h > room.h or w <= 0:
            return None
        x = room.right - w if side == "right" else room.x
        rect = pygame.Rect(x, room.y, w, h)
        self._used[side] += h + self.layout.metrics.margin
        self.placed.append(Placed(name, rect, list(lines or []), font))
        return rect

    def has(self, name: str) -> bool:
        """Whether a part called ``name`` was placed this frame."""
        return any(p.name == name for p in self.placed)

    def put(self, name: str, rect: pygame.Rect, lines: list[str] | None = None, font: int = 0,
            modal: bool = False) -> pygame.Rect:  # fmt: skip
        """Record a part placed in a region of its own (the bars, the message band, a modal)."""
        self.placed.append(Placed(name, pygame.Rect(rect), list(lines or []), font, modal))
        return rect
