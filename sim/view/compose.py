"""The window's own parts, each in its region of the layout (:mod:`sim.view.layout`): the F3
overlay (the left column), the message band (newest first, fading), the pages that are modals
(help, the message log, the welcome card: they dim the rest and nothing draws over them), the
readout strip and the status bar. The modes draw the world and their own panels, asking the
frame for rectangles; what every part placed is kept in ``app.plan.placed``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pygame

from sim.view.draw.panels import (
    DIM,
    GOOD,
    INK,
    KEY,
    PANEL,
    WARN,
    Text,
    fit_width,
    help_pages,
    status_line,
    wrap_hanging,
)
from sim.view.layout import Frame, Layout, Line

App = Any  # sim.view.app.App (not imported: it imports this module)

DIM_ALPHA = 150  # how dark a modal makes the rest (of 255)


def panel(screen: pygame.Surface, text: Text, rect: pygame.Rect, lines: list[Line], size: int,
          border: tuple[int, int, int] | None = None) -> None:  # fmt: skip
    """``lines`` on an opaque panel filling ``rect`` (padded as :func:`panel_size` measures)."""
    screen.fill(PANEL[:3], rect)
    font, pad = text.font(size), pad_of(size)
    y = rect.y + pad
    for t, c in lines:
        screen.blit(text.render(t, c, size), (rect.x + pad, y))
        y += font.get_linesize()
    if border is not None:
        pygame.draw.rect(screen, border, rect, 1)


def pad_of(size: int) -> int:
    return max(4, size // 2)


def panel_size(text: Text, lines: list[Line], size: int) -> tuple[int, int]:
    font, pad = text.font(size), pad_of(size)
    w = max((font.size(t)[0] for t, _ in lines), default=0)
    return w + 2 * pad, len(lines) * font.get_linesize() + 2 * pad


def fit(text: Text, lines: list[Line], size: int, width: int, max_lines: int = 3) -> list[Line]:
    """``lines`` wrapped to fit a panel ``width`` pixels wide (each line to at most ``max_lines``)."""
    font, inner = text.font(size), width - 2 * pad_of(size)
    return [(piece, c) for t, c in lines for piece in wrap_hanging(font, t, inner, max_lines=max_lines)]


def panel_box(app: Any, side: str, lines: list[Line], size: int | None = None) -> pygame.Rect | None:
    """Where :func:`side_panel` would put ``lines`` in column ``side`` now (None: no room)."""
    plan = app.plan
    size = size or plan.layout.metrics.body
    room = plan.column(side)
    w, h = panel_size(app.text, fit(app.text, lines, size, room.w), size)
    if h > room.h:
        return None
    w = min(w, room.w)
    return pygame.Rect(room.right - w if side == "right" else room.x, room.y, w, h)


def side_panel(app: Any, side: str, name: str, lines: list[Line], size: int | None = None,
               border: tuple[int, int, int] | None = None) -> pygame.Rect | None:  # fmt: skip
    """A panel of ``lines`` at the top of what is left of column ``side``, wrapped to the column's
    width; drawn, marked dirty (the scene under it is put back when it goes) and returned (None when
    the column has no room left)."""
    plan = app.plan
    size = size or plan.layout.metrics.body
    room = plan.column(side)
    fitted = fit(app.text, lines, size, room.w)
    rect = plan.take(side, panel_size(app.text, fitted, size), name, [t for t, _ in fitted], size)
    if rect is not None:
        panel(app.screen, app.text, rect, fitted, size, border)
        app.view.dirty.append(rect)
    return rect


def panel_clear_of(app: Any, name: str, lines: list[Line], avoid: pygame.Rect | None) -> pygame.Rect | None:
    """A panel of ``lines`` where it hides nothing of ``avoid`` (the screen box of what a mode shows on
    the map): at the top of the right column where it has room, else at the top or the foot of the
    left column, whichever keeps clear of ``avoid`` (the top when neither does). Returns its rectangle
    (None: no room anywhere)."""
    rect = side_panel(app, "right", name, lines)
    if rect is not None:
        return rect
    top = panel_box(app, "left", lines)
    if top is None or avoid is None or not top.colliderect(avoid):
        return side_panel(app, "left", name, lines)
    plan, size = app.plan, app.plan.layout.metrics.body
    room = plan.column("left")
    foot = top.move(0, room.bottom - top.bottom)
    if foot.colliderect(avoid):
        return side_panel(app, "left", name, lines)
    fitted = fit(app.text, lines, size, room.w)  # (as side_panel: the same lines, at the column's foot)
    plan.put(name, foot, [t for t, _ in fitted], size)
    panel(app.screen, app.text, foot, fitted, size)
    app.view.dirty.append(foot)
    return foot


def overlay(app: App) -> Callable[[], None] | None:
    """The F3 overlay: its place at the top of the left column is taken now (before the modes ask for
    theirs); the returned function draws it (after the world is drawn)."""
    from sim.view.draw.overlay import overlay_lines

    plan, ov = app.plan, app.overlay
    size = plan.layout.metrics.body
    lines = overlay_lines(app.sim, app.instruments, app.fps, app.frame_ms, app.paused, ov.level == 2)
    head, tail, box = ov.plan(app.text, size, plan.column("left").w, lines)
    rect = plan.take("left", box, "overlay", [t for t, _ in head + tail], size)
    if rect is None:
        return None

    def draw() -> None:
        assert rect is not None
        ov.draw(app.screen, app.text, rect, size, head, tail, app.instruments, app.sim.budget.budget_ms)
        app.view.dirty.append(rect)

    return draw


def messages(app: App) -> None:
    """The newest messages in the band at the top, newest first, each fading over its last second."""
    plan = app.plan
    band, size = plan.layout.messages, plan.layout.metrics.body
    font = app.text.font(size)
    now = app.messages.clock()
    y = band.y
    for msg in app.messages.recent(now):
        lines = fit(app.text, [(msg.text, msg.colour)], size, band.w, max_lines=2)
        w, h = panel_size(app.text, lines, size)
        if y + h > band.bottom:
            break
        rect = pygame.Rect(band.centerx - w // 2, y, w, h)
        fade = min(1.0, max(0.0, msg.until - now))
        k = 0.35 + 0.65 * fade
        colour = (int(msg.colour[0] * k), int(msg.colour[1] * k), int(msg.colour[2] * k))
        panel(app.screen, app.text, rect, [(t, colour) for t, _ in lines], size, colour)
        plan.put("message", rect, [t for t, _ in lines], size)
        app.view.dirty.append(rect)
        y = rect.bottom + max(2, font.get_linesize() // 6)


def dim(app: App) -> None:
    """Darken everything but the status bar under a modal."""
    lay = app.plan.layout
    shade = pygame.Surface((lay.size[0], lay.status.y), pygame.SRCALPHA)
    shade.fill((0, 0, 0, DIM_ALPHA))
    app.screen.blit(shade, (0, 0))
    app.view.invalidate()  # the next frame repaints the whole scene


def modal_panel(app: Any, name: str, lines: list[Line], size: int, border: tuple[int, int, int]) -> pygame.Rect:
    """``lines`` (wrapped) on a panel centred in the modal region; returns its rectangle."""
    region = app.plan.layout.modal
    fitted = fit(app.text, lines, size, region.w, max_lines=6)
    w, h = panel_size(app.text, fitted, size)
    rect = pygame.Rect(0, 0, min(w, region.w), min(h, region.h))
    rect.center = region.center
    panel(app.screen, app.text, rect, fitted, size, border)
    app.plan.put(name, rect, [t for t, _ in fitted], size, modal=True)
    return rect


def help_page(app: App) -> None:
    """Every mode's keys, grouped, in columns of the modal region; pages when they do not fit (the
    arrows turn them)."""
    plan = app.plan
    region, size = plan.layout.modal, plan.layout.metrics.body
    pages = help_pages(app.text, app.tables(), region.w - 2 * pad_of(size), region.h - 2 * pad_of(size), size)
    app.help_page = min(app.help_page, len(pages) - 1)
    page = pages[app.help_page]
    app.screen.fill(PANEL[:3], region)
    pygame.draw.rect(app.screen, GOOD, region, 1)
    font, pad = app.text.font(size), pad_of(size)
    more = f"   page {app.help_page + 1} of {len(pages)}: ← → turn" if len(pages) > 1 else ""
    title = f"keys and mouse   (F1 or Esc closes){more}"
    if font.size(title)[0] > region.w - 2 * pad:  # a narrow window: the short form, then cut
        short = f"keys {app.help_page + 1}/{len(pages)} ← →  Esc" if len(pages) > 1 else "keys  (Esc closes)"
        title = fit_width(font, short, region.w - 2 * pad)
    app.screen.blit(app.text.render(title, GOOD, size), (region.x + pad, region.y + pad))
    drawn = [title]
    top = region.y + pad + font.get_linesize() + pad
    for x, column in page:
        y = top
        for key_text, does, kind, key_w in column:
            if kind == "title":
                app.screen.blit(app.text.render(key_text, GOOD, size), (region.x + pad + x, y))
                drawn.append(key_text)
            elif kind == "row":
                app.screen.blit(app.text.render(key_text, KEY, size), (region.x + pad + x + pad, y))
                app.screen.blit(app.text.render(does, INK, size), (region.x + pad + x + pad + key_w, y))
                drawn.append(f"{key_text}  {does}")
            y += font.get_linesize()
    plan.put("help", region, drawn, size, modal=True)


def message_log(app: App) -> None:
    """The last messages, newest at the bottom, as many as fit the modal region."""
    plan = app.plan
    region, size = plan.layout.modal, plan.layout.metrics.small
    font = app.text.font(size)
    room = (region.h - 2 * pad_of(size)) // font.get_linesize() - 2
    now = app.messages.clock()
    lines: list[Line] = []
    for m in reversed(list(app.messages)):
        age = now - m.at
        when = f"{age:5.0f} s  " if age < 90 else f"{age / 60:3.0f} min  "
        first, *rest = m.text.split("\n")  # (a message of several lines: copied code, each line as it is)
        wrapped = fit(app.text, [(when + first, m.colour)] + [(" " * len(when) + r, m.colour) for r in rest], size,
                      region.w, max_lines=3)  # fmt: skip
        if len(lines) + len(wrapped) > room:
            break
        lines = wrapped + lines
    heading = f"messages: the last {len(app.messages)} (F2 or Esc closes)"
    title = [*fit(app.text, [(heading, GOOD)], size, region.w, max_lines=2), ("", INK)]
    body = title + (lines or [("no messages yet", DIM)])
    app.screen.fill(PANEL[:3], region)
    pygame.draw.rect(app.screen, GOOD, region, 1)
    panel(app.screen, app.text, pygame.Rect(region.x, region.y, region.w, region.h), body, size)
    pygame.draw.rect(app.screen, GOOD, region, 1)
    plan.put("log", region, [t for t, _ in body], size, modal=True)


def begin(app: App) -> Frame:
    """A new frame's plan, on the layout of the window's present size."""
    size = app.screen.get_size()
    if app._layout is None or app._layout.size != size:
        app._layout = Layout.of(size, lambda px: app.text.font(px).get_linesize())
    return Frame(app._layout)


def modal(app: App) -> str | None:
    """The modal part up now, if any: a modal mode on top (a question, the map picker), the help,
    the message log, the welcome card."""
    if app.top.modal:
        return type(app.top).__name__
    if app.show_help:
        return "help"
    if app.show_log:
        return "log"
    return "welcome" if app.welcome.showing else None


def status_bar(app: App) -> None:
    """The bar at the bottom: the map, the modes' words, animals, speed, pause, compiling, the keys."""
    sim = app.sim
    parts = [(f"{sim.world.name} {sim.world.width}x{sim.world.height}", INK)]
    parts += [(word, INK) for mode in app.modes for word in mode.status()]
    speed = app.speed.label if app.speed.factor != 1 else ""
    parts += [(f"{sim.agents.n} animals", INK), (speed, WARN), ("PAUSED" if app.paused else "", WARN)]
    parts += [(app.startup.status(sim), WARN), ("F1 help  F2 messages  F3 overlay", DIM)]
    # Opaque, full width and shown every frame (copied only when something reached its rows: view.bars):
    # nothing under it needs putting back (not "dirty").
    lay = app.plan.layout
    view = app.view
    shown = status_line(app.screen, app.text, [p for p in parts if p[0]], lay.status, lay.metrics.body,
                        lambda bar: view.bars.shown(app.screen, "status", lay.status, bar, view.dirty))  # fmt: skip
    app.plan.put("status", lay.status, ["  ".join(shown)], lay.metrics.body)  # (one line of parts)
