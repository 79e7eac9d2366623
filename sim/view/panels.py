"""Text panels drawn over the world: overlay (F3), help (F1/H), status line, map list, splash."""

from __future__ import annotations

from pathlib import Path

import pygame

from ..instruments import SearchInstruments
from ..resources import font_path
from ..simulation import Simulation
from .keys import KeyTable

INK = (236, 236, 228)
DIM = (160, 164, 160)
WARN = (255, 120, 100)
GOOD = (140, 230, 140)
PANEL = (12, 16, 24, 228)


class Text:
    """Renders text with the bundled monospace font (cached per size)."""

    def __init__(self) -> None:
        self._fonts: dict[int, pygame.font.Font] = {}

    def font(self, size: int) -> pygame.font.Font:
        if size not in self._fonts:
            self._fonts[size] = pygame.font.Font(str(font_path()), size)
        return self._fonts[size]

    def panel(
        self, screen: pygame.Surface, lines: list[tuple[str, tuple[int, int, int]]], at: tuple[int, int], size: int = 14
    ) -> pygame.Rect:
        """Lines of text on a translucent panel; returns the panel's rectangle."""
        font = self.font(size)
        rendered = [font.render(t, True, c) for t, c in lines]
        w = max((r.get_width() for r in rendered), default=0) + 16
        h = sum(font.get_linesize() for _ in rendered) + 12
        box = pygame.Surface((w, h), pygame.SRCALPHA)
        box.fill(PANEL)
        y = 6
        for r in rendered:
            box.blit(r, (8, y))
            y += font.get_linesize()
        screen.blit(box, at)
        return pygame.Rect(at, (w, h))


def panel_right(
    screen: pygame.Surface, text: Text, lines: list[tuple[str, tuple[int, int, int]]], top: int, size: int = 14
) -> pygame.Rect:
    """A panel flush with the right edge of the screen."""
    w = max((text.font(size).size(t)[0] for t, _ in lines), default=0) + 16
    return text.panel(screen, lines, (screen.get_width() - w - 8, top), size)


def overlay(
    screen: pygame.Surface,
    text: Text,
    sim: Simulation,
    instruments: SearchInstruments,
    fps: float,
    frame_ms: float,
    paused: bool,
) -> None:
    """FPS, frame time and what the searches cost this frame, in total and per species."""
    s = sim.stats
    budget = sim.scheduler.budget_ms
    lines = [
        (
            f"FPS {fps:6.1f}   frame {frame_ms:5.2f} ms   animals {sim.agents.n}"
            f"   t {sim.time:7.1f} s{'   PAUSED' if paused else ''}",
            INK,
        ),
        (
            f"searches {s.searches:3d}   expanded {s.expanded:6d}   search {s.search_ms:5.2f} ms"
            f" (budget {budget:g})   waiting {s.waiting}",
            WARN if s.search_ms > budget else INK,
        ),
        (f"failed {s.failed}   capped {s.capped}   re-planned {s.replans}   (this frame)", INK),
        ("", INK),
        (f"{'':22}{'searches':>9}{'expanded':>10}{'ms':>8}{'failed':>8}{'capped':>8}", DIM),
    ]
    for sp in sim.species:
        c = s.per_species.get(sp.key)
        n = int((sim.agents.species == sp.index).sum())
        label = f"{sp.label} ({n})"
        if c is None:
            lines.append((f"{label:16}{0:9d}{0:10d}{0:8.2f}{0:8d}{0:8d}", sp.spec.colour))
        else:
            lines.append(
                (f"{label:16}{c.searches:9d}{c.expanded:10d}{c.ms:8.2f}{c.failed:8d}{c.capped:8d}", sp.spec.colour)
            )
    t = sim.totals
    lines += [
        ("", INK),
        (
            f"since start: {t['searches']} searches, {t['expanded']} expanded, {t['failed']} failed,"
            f" {t['capped']} capped, {t['replans']} re-planned",
            DIM,
        ),
        ("", INK),
        (
            f"search ms per frame, last 5 s: peak {max(instruments.history.search_ms, default=0.0):.2f}"
            f"  (red line: budget {budget:g})",
            DIM,
        ),
        ("", INK),
        ("", INK),
        ("", INK),
        ("", INK),
    ]
    box = text.panel(screen, lines, (8, 8), 13)
    graph = pygame.Rect(
        box.x + 8, box.bottom - 4 * text.font(13).get_linesize() - 6, box.w - 16, 4 * text.font(13).get_linesize()
    )
    _graph(screen, graph, instruments.history, budget)


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


def help_panel(screen: pygame.Surface, text: Text, tables: list[KeyTable]) -> None:
    """Every mode's keys, from their key tables, in two columns when they do not fit in one."""
    blocks: list[list[tuple[str, tuple[int, int, int]]]] = []
    for table in tables:
        block = [(table.title, GOOD)] + [(f"  {keys:22}{does}", INK) for keys, does in table.rows()] + [("", INK)]
        blocks.append(block)
    size = 14 if screen.get_height() >= 700 else 12
    font = text.font(size)
    rows_fit = max(8, (screen.get_height() - 60) // font.get_linesize())
    columns: list[list[tuple[str, tuple[int, int, int]]]] = [
        [("astar-island — keys and mouse (F1 closes)", GOOD), ("", INK)]
    ]
    for block in blocks:
        if len(columns[-1]) + len(block) > rows_fit:
            columns.append([])
        columns[-1].extend(block)
    widths = [max(font.size(t)[0] for t, _ in col) + 16 for col in columns]
    x = max(8, (screen.get_width() - sum(widths) - 8 * (len(columns) - 1)) // 2)
    for col, w in zip(columns, widths, strict=True):
        text.panel(screen, col, (x, 8), size)
        x += w + 8


def status_line(screen: pygame.Surface, text: Text, parts: list[tuple[str, tuple[int, int, int]]]) -> None:
    font = text.font(14)
    h = font.get_linesize() + 8
    bar = pygame.Surface((screen.get_width(), h), pygame.SRCALPHA)
    bar.fill(PANEL)
    x = 8
    for t, c in parts:
        r = font.render(t, True, c)
        bar.blit(r, (x, 4))
        x += r.get_width() + 18
    screen.blit(bar, (0, screen.get_height() - h))


def map_picker(screen: pygame.Surface, text: Text, maps: list[Path], selected: int, current: str) -> list[pygame.Rect]:
    """The list of maps; returns each entry's rectangle (for clicks)."""
    font = text.font(16)
    lines = [("Choose a map (↑ ↓ Enter, click; Esc closes)", GOOD), ("", INK)]
    for i, p in enumerate(maps):
        mark = "▶ " if i == selected else "  "
        here = "   (current)" if str(p) == current else ""
        lines.append((f"{mark}{p.name}{here}", GOOD if i == selected else INK))
    w = max(font.size(t)[0] for t, _ in lines) + 16
    h = len(lines) * font.get_linesize() + 12
    at = ((screen.get_width() - w) // 2, max(8, (screen.get_height() - h) // 2))
    box = text.panel(screen, lines, at, 16)
    ls = font.get_linesize()
    return [pygame.Rect(box.x, box.y + 6 + (i + 2) * ls, box.w, ls) for i in range(len(maps))]


def splash(screen: pygame.Surface, text: Text, message: str, dots: int) -> None:
    screen.fill((16, 22, 34))
    font = text.font(22)
    r = font.render(message + "." * (dots % 4), True, INK)
    screen.blit(r, ((screen.get_width() - r.get_width()) // 2, screen.get_height() // 2 - 20))
    sub = text.font(14).render("first run only: numba compiles the search kernel and caches it", True, DIM)
    screen.blit(sub, ((screen.get_width() - sub.get_width()) // 2, screen.get_height() // 2 + 20))
