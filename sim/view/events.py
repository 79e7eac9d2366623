"""The window's events: quit, resize, the modifier keys in event order, the welcome card, help and
the message log, then the mode on top, then the global keys."""

from __future__ import annotations

from typing import Any

import pygame

from sim.view.modes import ConfirmMode


def handle(app: Any, e: pygame.event.Event) -> None:
    """See :meth:`sim.view.app.App.handle`."""
    if e.type == pygame.QUIT:  # the window's close button: asks only for unsaved painting
        if app.files.unsaved() and not isinstance(app.top, ConfirmMode):
            app.ask_to_quit()
        else:
            app.running = False
        return
    if e.type in (pygame.VIDEORESIZE, pygame.WINDOWSIZECHANGED):
        app._resized()
        return
    if hasattr(e, "pos") and e.type in (pygame.MOUSEMOTION, pygame.MOUSEBUTTONDOWN, pygame.MOUSEBUTTONUP):
        app.mouse = e.pos
    if e.type in (pygame.KEYDOWN, pygame.KEYUP):  # the modifiers as of this event, in event order
        app.mods = _mods(app.mods, e)
    if app.welcome.showing:
        app.welcome.handle(e)
        if e.type == pygame.KEYDOWN and e.key == pygame.K_ESCAPE:
            return  # Esc closed the card, the innermost thing open
    if e.type == pygame.KEYDOWN and e.key == pygame.K_ESCAPE and (app.show_help or app.show_log):
        app.show_help = app.show_log = False  # Esc closes the innermost thing open
        return
    if app.show_help and e.type == pygame.KEYDOWN and e.key in (pygame.K_LEFT, pygame.K_RIGHT):
        app.help_page = max(0, app.help_page + (1 if e.key == pygame.K_RIGHT else -1))  # (drawing caps it)
        return
    if app.top.handle(e):
        return
    if e.type == pygame.KEYDOWN:
        app.keys.dispatch(app, e)


def _mods(held: int, e: pygame.event.Event) -> int:
    """The modifier keys held after key event ``e``: its own ``mod``; the modifier key itself (down
    sets it, up clears it) too, since its event may not carry it yet."""
    held = getattr(e, "mod", held)
    if e.key in _MOD_KEYS:
        held = held | _MOD_KEYS[e.key] if e.type == pygame.KEYDOWN else held & ~_MOD_KEYS[e.key]
    return held


#: Modifier keys -> their bits: a key event for the modifier itself may not carry it in ``mod`` yet.
_MOD_KEYS = {
    pygame.K_LCTRL: pygame.KMOD_LCTRL, pygame.K_RCTRL: pygame.KMOD_RCTRL,
    pygame.K_LSHIFT: pygame.KMOD_LSHIFT, pygame.K_RSHIFT: pygame.KMOD_RSHIFT,
}  # fmt: skip
