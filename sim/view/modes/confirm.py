"""Asking before something cannot be taken back: quitting, and throwing away unsaved painting
(loading another map, reloading, resetting). One question on top of the running demo."""

from __future__ import annotations

from collections.abc import Callable

import pygame

from sim.view.compose import modal_panel
from sim.view.draw.panels import DIM, GOOD, INK, WARN
from sim.view.keys import CTRL, KeyTable, key, mouse
from sim.view.modes.base import Mode


class ConfirmMode(Mode):
    """``question`` with a yes (Enter; Esc too when ``esc_says_yes``, for "Esc again quits"),
    ``ctrl+S`` to save the painting first when ``offer_save``, and no (any other key or a click)."""

    help_order = 95
    modal = True
    keys = KeyTable(
        "Asked before quitting or losing painting",
        [
            key("Enter", "yes, go on", "yes", pygame.K_RETURN, pygame.K_KP_ENTER),
            key("ctrl+S", "save the painted map first, then go on", "save_then_yes", pygame.K_s, mods=CTRL),
            key("Esc", "quitting: yes (Esc again); otherwise: no, stay", "escape", pygame.K_ESCAPE),
            mouse("any other key or a click", "no, stay"),
        ],
    )

    def __init__(self, app, question: str, action: Callable[[], object], *, esc_says_yes: bool = False,
                 offer_save: bool = False) -> None:  # fmt: skip
        super().__init__(app)
        self.question = question
        self.action = action
        self.esc_says_yes = esc_says_yes
        self.offer_save = offer_save

    def handle(self, e: pygame.event.Event) -> bool:
        if e.type == pygame.KEYDOWN:
            if not self.keys.dispatch(self, e):
                self.no()
            return True
        if e.type == pygame.MOUSEBUTTONDOWN:
            self.no()
            return True
        return e.type in (pygame.MOUSEBUTTONUP, pygame.MOUSEMOTION, pygame.MOUSEWHEEL)

    def yes(self, _e: object = None) -> None:
        self.close()
        self.action()

    def save_then_yes(self, _e: object = None) -> bool:
        if not self.offer_save:
            return False
        if self.app.files.save_map() is not None:
            self.yes()
        else:
            self.close()  # saving failed (the message says why): stay
        return True

    def escape(self, _e: object = None) -> None:
        if self.esc_says_yes:
            self.yes()
        else:
            self.no()

    def no(self, _e: object = None) -> None:
        self.close()

    def draw(self, surface: pygame.Surface) -> None:
        save = "   ctrl+S: save it first" if self.offer_save else ""
        esc = "Esc again or Enter: yes" if self.esc_says_yes else "Enter: yes   Esc: no"
        lay = self.app.plan.layout
        colour = WARN if self.offer_save else GOOD
        lines = [(self.question, colour), (f"{esc}{save}", INK), ("any other key: no", DIM)]
        self.app.view.dirty.append(modal_panel(self.app, "question", lines, lay.metrics.title, colour))
