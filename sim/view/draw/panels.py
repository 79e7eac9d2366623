"""Text panels drawn over the world: overlay (F3), help (F1/H), status line, cell readout, map list."""

from __future__ import annotations

import numpy as np
import pygame

from sim.instruments.recorder import SearchInstruments
from sim.model.species import SEARCH_NAMES
from sim.simulation import Simulation
from sim.support.resources import font_path
from sim.view.keys import KeyTable

INK = (236, 236, 228)
DIM = (160, 164, 160)
WARN = (255, 120, 100)
GOOD = (140, 230, 140)
PANEL = (12, 16, 24, 228)


class Text:
    """Renders text with the bundled monospace font (cached per size)."""

    def __init__(self) -> None:
        self._fonts: dict[int, pygame.font.Font] = {}
        self._rendered: dict[tuple, pygame.Surface] = {}
        self._panels: dict[tuple, pygame.Surface] = {}

    def render(self, text: str, colour: tuple[int, int, int], size: int) -> pygame.Surface:
        """The rendered line, cached (the status line repeats the same words every frame)."""
        key = (text, colour, size)
        found = self._rendered.get(key)
        if found is None:
            if len(self._rendered) > 512:
                self._rendered.clear()
            found = self._rendered[key] = self.font(size).render(text, True, colour)
        return found

    def font(self, size: int) -> pygame.font.Font:
        if size not in self._fonts:
            self._fonts[size] = pygame.font.Font(str(font_path()), size)
        return self._fonts[size]

    def panel(
        self,
        screen: pygame.Surface,
        lines: list[tuple[str, tuple[int, int, int]]],
        at: tuple[int, int],
        size: int = 14,
        opaque: bool = False,
    ) -> pygame.Rect:
        """Lines of text on a translucent panel (``opaque``: on the panel colour, not
        translucent); returns the panel's rectangle.

        The composed panel is cached: the readout and the overlay repeat the same lines
        for many frames, and composing one costs more than the rest of a light frame."""
        box = self.panel_surface(lines, size, opaque)
        screen.blit(box, at)
        return pygame.Rect(at, box.get_size())

    def panel_surface(self, lines: list[tuple[str, tuple[int, int, int]]], size: int = 14,
                      opaque: bool = False) -> pygame.Surface:  # fmt: skip
        """The composed panel (cached); ``opaque``: on the panel colour without translucency."""
        key = (tuple(lines), size, opaque)
        box = self.cached(key)
        if box is None:
            box = self.keep(key, self._compose(lines, size, opaque))
        return box

    def cached(self, key: tuple) -> pygame.Surface | None:
        """A composed panel or bar kept under ``key``, if there is one."""
        return self._panels.get(key)

    def keep(self, key: tuple, surface: pygame.Surface) -> pygame.Surface:
        """Keep a composed panel or bar under ``key`` (at most ~64 of them); returns it."""
        if len(self._panels) > 64:
            self._panels.clear()
        self._panels[key] = surface
        return surface

    def _compose(self, lines: list[tuple[str, tuple[int, int, int]]], size: int, opaque: bool) -> pygame.Surface:
        font = self.font(size)
        rendered = [font.render(t, True, c) for t, c in lines]
        w = max((r.get_width() for r in rendered), default=0) + 16
        h = sum(font.get_linesize() for _ in rendered) + 12
        box = pygame.Surface((w, h)) if opaque else pygame.Surface((w, h), pygame.SRCALPHA)
        box.fill(PANEL[:3] if opaque else PANEL)
        y = 6
        for r in rendered:
            box.blit(r, (8, y))
            y += font.get_linesize()
        return box


def panel_right(
    screen: pygame.Surface, text: Text, lines: list[tuple[str, tuple[int, int, int]]], top: int, size: int = 14
) -> pygame.Rect:
    """A panel flush with the right edge of the screen."""
    w = max((text.font(size).size(t)[0] for t, _ in lines), default=0) + 16
    return text.panel(screen, lines, (screen.get_width() - w - 8, top), size)


Line = tuple[str, tuple[int, int, int]]
GRAPH_LINES = 4  # text lines of room the graph takes at the bottom of the overlay


def overlay(
    screen: pygame.Surface, text: Text, sim: Simulation, instruments: SearchInstruments, fps: float,
    frame_ms: float, paused: bool,
) -> None:  # fmt: skip
    """FPS, frame time and what the searches cost this frame, in total and per species, and a graph."""
    budget = sim.budget.budget_ms
    lines = _frame_lines(sim, instruments, fps, frame_ms, paused) + _species_lines(sim)
    lines += _total_lines(sim, instruments)
    lines += [("", INK)] * GRAPH_LINES
    box = text.panel(screen, lines, (8, 8), 13)
    ls = text.font(13).get_linesize()
    graph = pygame.Rect(box.x + 8, box.bottom - GRAPH_LINES * ls - 6, box.w - 16, GRAPH_LINES * ls)
    _graph(screen, graph, instruments.history, budget)


def _frame_lines(
    sim: Simulation, instruments: SearchInstruments, fps: float, frame_ms: float, paused: bool
) -> list[Line]:
    s, budget = sim.stats, sim.budget.budget_ms
    latency = instruments.history.latency_p95_ms()
    return [
        (
            f"FPS {fps:6.1f}   frame {frame_ms:5.2f} ms   animals {sim.agents.n}"
            f"   t {sim.time:7.1f} s{'   PAUSED' if paused else ''}",
            INK,
        ),
        (
            f"searches {s.searches:3d}   expanded {s.expanded:6d}   search {s.search_ms:5.2f} ms"
            f" (budget {budget:g})   latency p95 {latency:5.0f} ms   waiting {s.waiting}",
            WARN if s.search_ms > budget else INK,
        ),
        (f"failed {s.failed}   capped {s.capped}   re-planned {s.replans}   (this frame)", INK),
        (
            f"herds: {s.fields} fields   {s.field_cells} cells settled   {s.field_ms:5.2f} ms   "
            f"{s.herded} animals walking down them",
            INK if s.fields else DIM,
        ),
        ("", INK),
    ]


def _species_lines(sim: Simulation) -> list[Line]:
    """A table of this frame's searches per species and what serves them (A* or JPS: then
    "expanded" counts jump points); the label column is as wide as its longest label, so the
    figures stay under their headings ("water creatures (4000)")."""
    counts = np.bincount(sim.agents.species, minlength=len(sim.species))
    labels = [f"{sp.label} ({int(counts[sp.index])})" for sp in sim.species]
    w = max([16, *(len(label) + 1 for label in labels)])
    lines = [(f"{'':{w}}{'searches':>9}{'expanded':>10}{'ms':>8}{'failed':>8}{'capped':>8}{'by':>5}", DIM)]
    for sp, label in zip(sim.species, labels, strict=True):
        c = sim.stats.per_species.get(sp.key)
        figures = (0, 0, 0.0, 0, 0) if c is None else (c.searches, c.expanded, c.ms, c.failed, c.capped)
        lines.append(
            (
                f"{label:{w}}{figures[0]:9d}{figures[1]:10d}{figures[2]:8.2f}{figures[3]:8d}{figures[4]:8d}"
                f"{SEARCH_NAMES[sp.search]:>5}",
                sp.spec.colour,
            )
        )
    return lines


def _total_lines(sim: Simulation, instruments: SearchInstruments) -> list[Line]:
    t, budget = sim.totals, sim.budget.budget_ms
    peak = max(instruments.history.search_ms, default=0.0)
    return [
        ("", INK),
        (
            f"since start: {t['searches']} searches, {t['expanded']} expanded, {t['failed']} failed,"
            f" {t['capped']} capped, {t['replans']} re-planned",
            DIM,
        ),
        ("", INK),
        (f"search ms per frame, last 5 s: peak {peak:.2f}  (red line: budget {budget:g})", DIM),
    ]


def _graph(screen: pygame.Surface, rect: pygame.Rect, history, budget: float) -> None:
    """Search ms per frame against time (the last ``history.seconds``), the budget as a red line."""
    pygame.draw.rect(screen, (40, 44, 52), rect)
    values = list(history.search_ms)
    top = max(budget * 1.5, max(values, default=0.0), 1e-6)

    def y_of(v: float) -> float:
        return rect.bottom - 1 - (rect.h - 2) * min(v, top) / top

    if len(values) >= 2:
        now = history.times[-1]
        pts = [
            (rect.right - 1 - (rect.w - 1) * (now - t) / history.seconds, y_of(v))
            for t, v in zip(history.times, values, strict=True)
        ]
        pygame.draw.lines(screen, GOOD, False, pts, 1)
    yb = y_of(budget)
    pygame.draw.line(screen, WARN, (rect.x, yb), (rect.right - 1, yb), 1)


KEY = (250, 214, 120)  # key names in the help: apart from what they do at a glance


def help_panel(screen: pygame.Surface, text: Text, tables: list[KeyTable]) -> pygame.Rect:
    """Every mode's keys, grouped by mode, in as many columns as the window needs, on an opaque
    page over everything but the status bar (nothing shows through); returns its rectangle.
    The font shrinks until the columns fit (a 1000x640 window takes them at 11 px)."""
    page = pygame.Rect(0, 0, screen.get_width(), screen.get_height() - status_height(text))
    screen.fill(PANEL[:3], page)
    title = text.render("astar-island: keys and mouse   (F1 or Esc closes)", GOOD, 15)
    screen.blit(title, (16, 10))
    top = 16 + title.get_height()
    for size in (14, 13, 12, 11, 10, 9):
        font = text.font(size)
        rows_fit = max(8, (page.height - top - 8) // font.get_linesize())
        columns = _columns([], [_block(t) for t in tables], rows_fit)
        widths = [_column_width(font, col) for col in columns]
        if sum(widths) + 24 * len(columns) <= page.width - 16:
            break
    x = 16
    for col, (kw, dw) in zip(columns, [_split_width(font, c) for c in columns], strict=True):
        y = top
        for keys, does, kind in col:
            if kind == "title":
                screen.blit(text.render(keys, GOOD, size), (x, y))
            elif kind == "row":
                screen.blit(text.render(keys, KEY, size), (x + 8, y))
                screen.blit(text.render(does, INK, size), (x + 8 + kw + 12, y))
            y += font.get_linesize()
        x += 8 + kw + 12 + dw + 24
    return page


def _block(table: KeyTable) -> list[tuple[str, str, str]]:
    """A mode's table as help lines: its title, its rows, a blank line."""
    return [(table.title, "", "title")] + [(k, d, "row") for k, d in table.rows()] + [("", "", "gap")]


def _split_width(font: pygame.font.Font, col: list[tuple[str, str, str]]) -> tuple[int, int]:
    """Widths of a column's key part and description part, in pixels."""
    keys = max((font.size(k)[0] for k, _d, kind in col if kind == "row"), default=0)
    does = max([font.size(d)[0] for _k, d, kind in col if kind == "row"] +
               [font.size(k)[0] - keys - 20 for k, _d, kind in col if kind == "title"], default=0)  # fmt: skip
    return keys, max(does, 0)


def _column_width(font: pygame.font.Font, col: list[tuple[str, str, str]]) -> int:
    kw, dw = _split_width(font, col)
    return 8 + kw + 12 + dw


def _columns(title: list, blocks: list[list], rows_fit: int) -> list[list]:
    """Blocks stacked into columns of at most ``rows_fit`` lines (a block is never split)."""
    columns = [list(title)]
    for block in blocks:
        if len(columns[-1]) + len(block) > max(rows_fit, 8) and len(columns[-1]) > len(title):
            columns.append([])
        columns[-1].extend(block)
    return columns


def status_height(text: Text) -> int:
    """Pixels the status bar takes at the bottom of the window."""
    return text.font(14).get_linesize() + 8


def status_line(screen: pygame.Surface, text: Text, parts: list[tuple[str, tuple[int, int, int]]]) -> pygame.Rect:
    """The bar at the bottom of the window; returns its rectangle. The composed bar is
    cached: it says the same for many frames."""
    h = status_height(text)
    key = ("status", tuple(parts), screen.get_width(), h)
    bar = text.cached(key)
    if bar is None:
        bar = pygame.Surface((screen.get_width(), h))
        bar.fill(PANEL[:3])
        x = 8
        for t, c in parts:
            r = text.render(t, c, 14)
            bar.blit(r, (x, 4))
            x += r.get_width() + 18
        text.keep(key, bar)
    top = screen.get_height() - h
    screen.blit(bar, (0, top))
    return pygame.Rect(0, top, screen.get_width(), h)


def bars_height(text: Text) -> int:
    """Pixels the bars at the bottom take (the status bar and, above it, the readout's strip):
    the map's view ends above them, so no row of the map is hidden under a bar."""
    return status_height(text) + text.panel_surface([("Xg", INK)], 13, opaque=True).get_height() + 8


def bottom_strip(screen: pygame.Surface, text: Text) -> pygame.Rect:
    """The strip between the map's view and the status bar, filled with the panel colour
    (the readout is drawn on it); returns its rectangle."""
    top = screen.get_height() - bars_height(text)
    rect = pygame.Rect(0, top, screen.get_width(), bars_height(text) - status_height(text))
    screen.fill(PANEL[:3], rect)
    return rect


def readout_rect(screen: pygame.Surface, text: Text, line: str) -> pygame.Rect:
    """Where :func:`readout_bar` puts ``line``: bottom left, just above the status bar."""
    box = text.panel_surface([(line, INK)], 13, opaque=True)
    bottom = screen.get_height() - status_height(text)
    return pygame.Rect((8, bottom - box.get_height() - 4), box.get_size())


def readout_bar(screen: pygame.Surface, text: Text, line: str) -> pygame.Rect:
    """One line on an opaque panel at the bottom left, just above the status bar; returns its
    rectangle. Opaque like the status bar, so a frame draws it over the scene without
    putting back or redrawing what is under it (a translucent one cost ~0.08 ms a frame)."""
    rect = readout_rect(screen, text, line)
    return text.panel(screen, [(line, INK)], rect.topleft, 13, opaque=True)


def map_picker(screen: pygame.Surface, text: Text, sections: list[tuple[str, list]], selected: int,
               current: str) -> list[pygame.Rect]:  # fmt: skip
    """The maps under their headings (``sections``: heading and :class:`~.previews.Preview` list),
    each with a thumbnail, its size, name and description; as many as fit around the selected
    one. Returns each entry's rectangle (for clicks; empty where not shown)."""
    from sim.view.draw.previews import THUMB, one_line

    font, small = text.font(15), text.font(13)
    row_h = max(THUMB[1] + 8, font.get_linesize() + 2 * small.get_linesize() + 6)
    sw, sh = screen.get_size()
    width = min(sw - 32, 760)
    entries = [(h, p) for h, previews in sections for p in previews]
    room = max(1, (sh - status_height(text) - 120) // row_h)
    first = min(max(0, selected - room // 2), max(0, len(entries) - room))
    box = pygame.Rect((sw - width) // 2, 16, width, sh - status_height(text) - 32)
    screen.fill(PANEL[:3], box)
    pygame.draw.rect(screen, GOOD, box, 1)
    screen.blit(text.render("Choose a map (↑ ↓ Enter, or click; Esc closes)", GOOD, 16), (box.x + 12, box.y + 8))
    y = box.y + 40
    rects = [pygame.Rect(0, 0, 0, 0)] * len(entries)
    heading = None
    for i in range(first, min(len(entries), first + room)):
        head, p = entries[i]
        if head != heading:
            heading = head
            screen.blit(text.render(head, DIM, 13), (box.x + 12, y))
            y += small.get_linesize() + 2
        rect = pygame.Rect(box.x + 8, y, width - 16, row_h - 4)
        if i == selected:
            screen.fill((40, 52, 70), rect)
            pygame.draw.rect(screen, GOOD, rect, 1)
        if p.thumbnail is not None:
            screen.blit(p.thumbnail, p.thumbnail.get_rect(center=(rect.x + 6 + THUMB[0] // 2, rect.centery)))
        x = rect.x + THUMB[0] + 18
        here = "   (current)" if str(p.path) == current else ""
        title = f"{p.name}   {p.size}   {p.path.name}{here}" if not p.error else f"{p.path.name}{here}"
        screen.blit(text.render(title, GOOD if i == selected else INK, 15), (x, rect.y + 2))
        about = f"does not load: {p.error}" if p.error else one_line(p.description) or "(no description)"
        for k, line in enumerate(wrap(small, about, rect.right - x - 8, max_lines=2)):
            at = (x, rect.y + 4 + font.get_linesize() + k * small.get_linesize())
            screen.blit(text.render(line, WARN if p.error else DIM, 13), at)
        rects[i] = rect
        y += row_h
    return rects


def wrap(font: pygame.font.Font, line: str, width: int, max_lines: int = 3) -> list[str]:
    """``line`` in lines of at most ``width`` pixels, broken at spaces; a word too long for a
    line (a path) loses its middle, never its end; past ``max_lines`` the middle of the
    message goes (its start and its reason stay)."""
    from sim.support.checks import cut_middle

    lines: list[str] = []
    for word in line.split(" "):
        while font.size(word)[0] > width and len(word) > 8:
            word = cut_middle(word, len(word) - max(1, len(word) // 8))
        if lines and font.size(lines[-1] + " " + word)[0] <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    if len(lines) > max_lines:
        lines = [*lines[: max_lines - 2], "…", lines[-1]]
    return lines


def message_panel(screen: pygame.Surface, text: Text, message: str, colour: tuple[int, int, int]) -> pygame.Rect:
    """The newest message in full, on an opaque panel at the top centre; returns its rectangle
    (the caller marks it dirty: the scene under it is put back when it goes)."""
    font = text.font(15)
    lines = wrap(font, message, max(120, screen.get_width() - 56))
    box = text.panel_surface([(line, colour) for line in lines], 15, opaque=True)
    rect = box.get_rect(midtop=(screen.get_width() // 2, 8))
    screen.blit(box, rect)
    pygame.draw.rect(screen, colour, rect, 1)
    return rect


def log_panel(screen: pygame.Surface, text: Text, entries: list[tuple[str, tuple[int, int, int], str]]) -> pygame.Rect:
    """The message log (``(text, colour, age)`` oldest first): as many of the newest as fit,
    each wrapped to the window, on an opaque panel; returns its rectangle."""
    font = text.font(13)
    width = max(160, screen.get_width() - 48)
    room = (screen.get_height() - status_height(text) - 40) // font.get_linesize() - 2
    lines: list[Line] = []
    for message, colour, age in reversed(entries):
        wrapped = wrap(font, f"{age:>6}  {message}", width)
        if len(lines) + len(wrapped) > room:
            break
        lines = [(w, colour) for w in wrapped] + lines
    title = [(f"messages: the last {len(entries)} (F2 or Esc closes)", GOOD), ("", INK)]
    box = text.panel_surface(title + (lines or [("no messages yet", DIM)]), 13, opaque=True)
    rect = box.get_rect(topleft=(16, 16))
    screen.blit(box, rect)
    return rect


def swatch_panel(screen: pygame.Surface, text: Text, title: str,
                 rows: list[tuple[tuple[int, int, int] | None, str]], footer: str = "") -> pygame.Rect:  # fmt: skip
    """A legend at the top right: a title, then a colour swatch (None: hatched, "impassable")
    and its label per row, and a footer; returns its rectangle."""
    font = text.font(13)
    ls = font.get_linesize()
    width = max([font.size(title)[0]] + [font.size(label)[0] + 30 for _, label in rows] + [font.size(footer)[0]]) + 16
    height = ls * (len(rows) + 1 + (1 if footer else 0)) + 12
    rect = pygame.Rect(screen.get_width() - width - 8, 8, width, height)
    screen.fill(PANEL[:3], rect)
    screen.blit(text.render(title, GOOD, 13), (rect.x + 8, rect.y + 6))
    for i, (colour, label) in enumerate(rows):
        y = rect.y + 6 + ls * (i + 1)
        box = pygame.Rect(rect.x + 8, y + 2, 18, ls - 4)
        if colour is None:
            screen.fill((40, 40, 40), box)
            for k in range(-box.h, box.w, 4):
                pygame.draw.line(screen, (120, 120, 120), (box.x + max(k, 0), box.y + max(-k, 0)),
                                 (box.x + min(k + box.h, box.w), box.y + min(box.h, box.w - k)))  # fmt: skip
        else:
            screen.fill(colour, box)
        pygame.draw.rect(screen, (0, 0, 0), box, 1)
        screen.blit(text.render(label, INK, 13), (box.right + 8, y))
    if footer:
        screen.blit(text.render(footer, DIM, 13), (rect.x + 8, rect.y + 6 + ls * (len(rows) + 1)))
    return rect


def scale_panel(
    screen: pygame.Surface, text: Text, title: str, colours: np.ndarray, low: str, high: str
) -> pygame.Rect:
    """A legend at the top right with a colour scale (``colours``: (n, 3) uint8 from low to high)
    and its two end labels; returns its rectangle."""
    font = text.font(13)
    ls = font.get_linesize()
    bar_w = max(220, font.size(low)[0] + font.size(high)[0] + 24)  # both end labels fit under it
    width = max(font.size(title)[0], bar_w) + 16
    rect = pygame.Rect(screen.get_width() - width - 8, 8, width, ls * 3 + 20)
    screen.fill(PANEL[:3], rect)
    screen.blit(text.render(title, GOOD, 13), (rect.x + 8, rect.y + 6))
    bar = pygame.Rect(rect.x + 8, rect.y + 8 + ls, bar_w, ls)
    for i in range(bar_w):
        c = colours[min(len(colours) - 1, i * len(colours) // bar_w)]
        pygame.draw.line(screen, (int(c[0]), int(c[1]), int(c[2])), (bar.x + i, bar.y), (bar.x + i, bar.bottom))
    pygame.draw.rect(screen, (0, 0, 0), bar, 1)
    screen.blit(text.render(low, INK, 13), (bar.x, bar.bottom + 2))
    hi = text.render(high, INK, 13)
    screen.blit(hi, (bar.right - hi.get_width(), bar.bottom + 2))
    return rect
