"""Long work (loading, generating or swapping a big map) with a progress screen instead of a frozen window.

The work runs on a worker thread and reports ``(what, fraction)``; the main thread keeps
the window alive (events pumped, a bar drawn; the mouse's moves and releases meanwhile are
handed back after, so a stroke that waited paints where the mouse went, and ends) until it
is done, then hands back its result or re-raises its error. Short work shows nothing: the
screen appears after ``delay_s``.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

import pygame

from sim.view.context import Report
from sim.view.draw.panels import DIM, GOOD, INK, Text

if TYPE_CHECKING:
    from sim.view.context import ViewContext

T = TypeVar("T")


class Progress:
    """What the worker said last: a label and a fraction (None: no way to tell), or how many
    seconds the work usually takes (``estimate_s``: the bar fills with the time instead)."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.fraction: float | None = None
        self.estimate_s: float | None = None
        self.seen: list[float] = []  # fractions reported (tests check they only grow)

    def report(self, label: str, fraction: float | None = None, estimate_s: float | None = None) -> None:
        self.label, self.fraction, self.estimate_s = label, fraction, estimate_s
        if fraction is not None:
            self.seen.append(fraction)


def run_with_progress(app: ViewContext, label: str, work: Callable[[Report], T], delay_s: float = 0.15) -> T:
    """Run ``work(report)`` on a thread while the window shows its progress; returns its result."""
    progress = Progress(label)
    result: list[T] = []
    error: list[BaseException] = []

    def target() -> None:
        try:
            result.append(work(progress.report))
        except BaseException as exc:  # handed to the main thread, raised there
            error.append(exc)

    worker = threading.Thread(target=target, daemon=True)
    start = time.perf_counter()
    worker.start()
    frames = 0
    mouse: list[pygame.event.Event] = []  # moves and releases, handed back after: a stroke that waited goes on
    while worker.is_alive():
        worker.join(0.05)
        if time.perf_counter() - start < delay_s or not worker.is_alive():
            continue
        for e in pygame.event.get():
            if e.type == pygame.QUIT:
                app.running = False  # closed while loading: quit once it is done
            elif e.type in (pygame.MOUSEMOTION, pygame.MOUSEBUTTONUP):
                mouse.append(e)
        progress_screen(app.screen, app.text, progress, time.perf_counter() - start)
        pygame.display.flip()
        frames += 1
    for e in mouse:
        pygame.event.post(e)
    app.progress_frames = frames
    view = getattr(app, "view", None)
    if view is not None:
        view.invalidate()  # the progress screen covered the scene
    if error:
        raise error[0]
    return result[0]


def progress_screen(screen: pygame.Surface, text: Text, progress: Progress, elapsed: float) -> None:
    """The label, a bar (or a moving block when the fraction is unknown) and the seconds so far."""
    screen.fill((16, 22, 34))
    w, h = screen.get_size()
    label = text.render(progress.label, INK, 20)
    screen.blit(label, ((w - label.get_width()) // 2, h // 2 - 44))
    bar = pygame.Rect(w // 4, h // 2 - 8, w // 2, 16)
    pygame.draw.rect(screen, DIM, bar, 1)
    fraction, seconds, estimate = progress.fraction, f"{elapsed:.1f} s", progress.estimate_s
    if fraction is None and estimate:  # by the clock; never full before the work says it is done
        fraction = min(0.97, elapsed / estimate)
        late = f" (about {estimate:.0f} s expected: a busy machine)"
        seconds += f" of about {estimate:.0f} s" if elapsed <= estimate else late
    if fraction is not None:
        pygame.draw.rect(screen, GOOD, (bar.x + 2, bar.y + 2, int((bar.w - 4) * fraction), bar.h - 4))
    else:
        x = bar.x + 2 + int((elapsed * 0.6 % 1.0) * (bar.w - 4 - bar.w // 6))
        pygame.draw.rect(screen, GOOD, (x, bar.y + 2, bar.w // 6, bar.h - 4))
    secs = text.font(14).render(seconds, True, DIM)
    screen.blit(secs, ((w - secs.get_width()) // 2, h // 2 + 20))
