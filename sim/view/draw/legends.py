"""Legends and keys, drawn as side panels: a title, rows of colour swatches with their labels, a
colour bar with numbers and its unit under it, notes. Each is measured with the real font before it
is placed (:meth:`Legend.size`), so the layout hands it a rectangle it fits."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pygame

from sim.view.draw.panels import DIM, GOOD, INK, PANEL, Text, wrap, wrap_groups

Colour = tuple[int, int, int]


@dataclass
class Legend:
    """A legend. ``rows``: ``(colour or None (hatched: impassable), label)``; ``bar``: ``(n, 3)``
    colours low to high, with ``ticks`` (labels spread under it, first at the left end, last at
    the right) and ``unit`` under them; ``notes``: dim lines at the end."""

    title: str
    rows: list[tuple[Colour | None, str]] = field(default_factory=list)
    bar: np.ndarray | None = None
    ticks: list[str] = field(default_factory=list)
    unit: str = ""
    notes: list[str] = field(default_factory=list)

    def lines(self, text: Text, size: int, width: int) -> list[str]:
        """Every line of text it draws, wrapped to ``width`` pixels (the panel's inside)."""
        font = text.font(size)
        out = wrap(font, self.title, width, max_lines=3)
        out += [piece for _c, label in self.rows for piece in self._row(font, label, size, width)]
        if self.bar is not None:
            out += ["  ".join(self.ticks)] + ([self.unit] if self.unit else [])
        out += [piece for note in self.notes for piece in _note(font, note, width)]
        return out

    @staticmethod
    def _row(font: pygame.font.Font, label: str, size: int, width: int) -> list[str]:
        """A row's label in lines that fit beside its swatch in ``width`` pixels (the panel's inside)."""
        return wrap(font, label, width - _swatch(size) - _pad(size), max_lines=3)

    def size(self, text: Text, size: int, width: int) -> tuple[int, int]:
        """The panel's size when it may be at most ``width`` pixels wide."""
        font, pad = text.font(size), _pad(size)
        inner = width - 2 * pad
        swatch = _swatch(size)
        widths = [font.size(t)[0] for t in wrap(font, self.title, inner, max_lines=3)]
        widths += [
            swatch + pad + font.size(t)[0] for _c, label in self.rows for t in self._row(font, label, size, inner)
        ]
        widths += [font.size(n)[0] for note in self.notes for n in _note(font, note, inner)]
        if self.bar is not None:
            widths += [font.size("  ".join(self.ticks))[0], font.size(self.unit)[0], 12 * size]
        rows = len(self.lines(text, size, inner)) + (1 if self.bar is not None else 0)
        return min(width, max(widths, default=0) + 2 * pad), rows * font.get_linesize() + 2 * pad

    def draw(self, screen: pygame.Surface, rect: pygame.Rect, text: Text, size: int) -> None:
        font, pad = text.font(size), _pad(size)
        ls, inner = font.get_linesize(), rect.w - 2 * pad
        screen.fill(PANEL[:3], rect)
        x, y = rect.x + pad, rect.y + pad
        for t in wrap(font, self.title, inner, max_lines=3):
            screen.blit(text.render(t, GOOD, size), (x, y))
            y += ls
        sw = _swatch(size)
        for colour, label in self.rows:
            box = pygame.Rect(x, y + 2, sw, ls - 4)
            _swatch_box(screen, box, colour)
            for t in self._row(font, label, size, inner):  # (beside its swatch; wrapped in a narrow column)
                screen.blit(text.render(t, INK, size), (box.right + pad, y))
                y += ls
        if self.bar is not None:
            bar = pygame.Rect(x, y + 2, inner, ls - 4)
            screen.blit(_bar_surface(self.bar, bar.w, bar.h + 1), bar.topleft)
            pygame.draw.rect(screen, (0, 0, 0), bar, 1)
            y += ls
            n = len(self.ticks)
            for k, tick in enumerate(self.ticks):  # spread: the first at the left end, the last at the right
                tw = font.size(tick)[0]
                tx = x + (inner - tw) * k // max(1, n - 1)
                screen.blit(text.render(tick, INK, size), (tx, y))
            y += ls
            if self.unit:
                screen.blit(text.render(self.unit, DIM, size), (x, y))
                y += ls
        for note in self.notes:
            for t in _note(font, note, inner):
                screen.blit(text.render(t, DIM, size), (x, y))
                y += ls


def _note(font: pygame.font.Font, note: str, width: int) -> list[str]:
    """A note in lines of ``width`` pixels, its terms ("dark lines: equal cost; arrows: the next
    step") kept whole: never "arrows:" at a line's end and "the next step" under it."""
    return wrap_groups(font, note.split("; "), width, gap="; ", sep="; ")


_bars: dict[tuple[bytes, int, int], pygame.Surface] = {}


def _bar_surface(colours: np.ndarray, w: int, h: int) -> pygame.Surface:
    """A colour bar ``w`` x ``h`` pixels: column ``i`` in ``colours[i * n // w]`` (``n`` colours, RGB
    rows). Made once a bar and size (a line a column took ~1 ms a frame of Python)."""
    key = (np.ascontiguousarray(colours, np.uint8).tobytes(), w, h)
    surf = _bars.get(key)
    if surf is None:
        n = len(colours)
        row = np.asarray(colours, np.uint8)[np.minimum(n - 1, np.arange(w) * n // max(1, w))]
        surf = pygame.surfarray.make_surface(np.ascontiguousarray(np.repeat(row[:, None, :], max(h, 1), axis=1)))
        _bars.clear()  # (one bar on screen at a time)
        _bars[key] = surf
    return surf


def _pad(size: int) -> int:
    return max(4, size // 2)


def _swatch(size: int) -> int:
    return int(size * 1.3)


def _swatch_box(screen: pygame.Surface, box: pygame.Rect, colour: Colour | None) -> None:
    if colour is None:  # hatched: impassable
        screen.fill((40, 40, 40), box)
        for k in range(-box.h, box.w, 4):
            pygame.draw.line(screen, (120, 120, 120), (box.x + max(k, 0), box.y + max(-k, 0)),
                             (box.x + min(k + box.h, box.w), box.y + min(box.h, box.w - k)))  # fmt: skip
    else:
        screen.fill(colour, box)
    pygame.draw.rect(screen, (0, 0, 0), box, 1)


def place(app, legend: Legend, side: str = "right", name: str = "legend") -> pygame.Rect | None:
    """Put ``legend`` at the top of what is left of column ``side``; drawn, marked dirty, returned
    (None when the column has no room left)."""
    plan = app.plan
    size = plan.layout.metrics.small
    room = plan.column(side)
    box = legend.size(app.text, size, room.w)
    rect = plan.take(side, box, name, legend.lines(app.text, size, box[0] - 2 * _pad(size)), size)
    if rect is not None:
        legend.draw(app.screen, rect, app.text, size)
        app.view.dirty.append(rect)
    return rect
