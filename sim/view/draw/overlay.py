"""The F3 overlay: what the searches cost, per second, in words a player can read.

Two levels (F3 twice): *compact* (FPS, searches and cells expanded per second, a graph of search
ms per frame against the budget, a table of the species: searches and cells expanded a second and
what a search takes; a legend) and *detailed* (also the frame's ms, what serves each species, their
latencies, what failed, was capped or re-planned per second, the herds, totals since the start).
Figures are per second over the last two seconds (per frame they are 0 most frames at 150 FPS).
"""

from __future__ import annotations

import re

import pygame

from sim.instruments.recorder import SearchInstruments
from sim.model.species import SEARCH_NAMES
from sim.model.stats import NO_RATE
from sim.simulation import Simulation
from sim.view.draw.panels import DIM, GOOD, INK, PANEL, WARN, Text, hints, wrap, wrap_groups
from sim.view.layout import Line

#: What the overlay's words mean, one term a group (wrapped between groups: :func:`.panels.wrap_groups`).
LEGEND = ("waiting: searches queued", "latency: request to path (p95)", "exp: cells expanded")
GRAPH_LINES = 3  # text lines of height the graph takes


def _k(v: float) -> str:
    """A rate in few characters: 950, 12.4k, 3.1M."""
    if v >= 1e6:
        return f"{v / 1e6:.1f}M"
    if v >= 1e4:
        return f"{v / 1e3:.0f}k"
    if v >= 1e3:
        return f"{v / 1e3:.1f}k"
    return f"{v:.0f}"


def _us(v: float) -> str:
    """A search's time in few characters: 6.1 µs, 24 µs, 1.3 ms."""
    if v >= 1e3:
        return f"{v / 1e3:.1f} ms"
    return f"{v:.1f} µs" if v < 10 else f"{v:.0f} µs"


def overlay_lines(sim: Simulation, ins: SearchInstruments, fps: float, frame_ms: float, paused: bool,
                  detailed: bool) -> tuple[list[Line], list[Line]]:  # fmt: skip
    """The overlay's lines above its graph and below it."""
    keys = [sp.key for sp in sim.species]
    r = ins.history.rates(keys)
    budget = sim.budget.budget_ms
    head: list[Line] = [
        (f"FPS {fps:.0f}{'  PAUSED' if paused else ''}   {_k(r.searches)} searches/s   {_k(r.expanded)} exp/s",
         GOOD),
        (f"waiting {sim.stats.waiting}   latency {r.latency_p95_ms:.0f} ms",
         WARN if sim.stats.waiting > 0 and r.latency_p95_ms > 1000 else INK),
    ]  # fmt: skip
    if sim.stats.held:  # the asking is throttled: more want to wander than the budget serves
        head.append((f"throttled: {_k(sim.stats.held)} wait to ask (serving {_k(sim.stats.capacity)}/s)", WARN))
    if detailed:
        head.insert(1, (f"frame {frame_ms:.1f} ms   animals {sim.agents.n}   t {sim.time:.0f} s", INK))
    tail: list[Line] = [(f"search ms per frame (mean {r.search_ms:.2f}; red: {hints(f'budget {budget:g}')})", DIM)]
    width = max(6, max(len(sp.label) for sp in sim.species))
    tail.append((f"{'':<{width}} {'searches':>8}  {'expanded':>8}  {'each':>6}", DIM))  # (each: a search's time)
    for sp in sim.species:
        s, e, _lat, us = r.per_species.get(sp.key, NO_RATE)
        by = f"  {SEARCH_NAMES[sp.search]}" if detailed else ""
        row = f"{sp.label:<{width}} {_k(s) + '/s':>8}  {_k(e) + '/s':>8}  {_us(us) if s else '-':>6}{by}"
        tail.append((row, sp.spec.colour))
    if detailed:
        st = sim.stats
        lat = (r.per_species.get(sp.key, NO_RATE).latency_p95_ms for sp in sim.species)
        waits = " · ".join(f"{sp.label} {ms:.0f} ms" for sp, ms in zip(sim.species, lat, strict=True))
        tail += [
            (f"latency: {waits}", INK),
            (f"per second: {_k(r.failed)} failed   {_k(r.capped)} capped   {_k(r.replans)} re-planned", INK),
            (f"herds: {st.fields} fields, {st.herded} animals walking down them", INK if st.fields else DIM),
            (f"since start: {sim.totals['searches']} searches, {sim.totals['expanded']} expanded", DIM),
        ]
    tail.append((" · ".join(LEGEND), DIM))
    return head, tail


class Overlay:
    """The overlay's level (0 off, 1 compact, 2 detailed) and its drawing."""

    def __init__(self) -> None:
        self.level = 0

    def cycle(self) -> None:
        self.level = (self.level + 1) % 3

    def plan(self, text: Text, size: int, width: int, lines: tuple[list[Line], list[Line]]) -> tuple[
        list[Line], list[Line], tuple[int, int]]:  # fmt: skip
        """The lines wrapped to ``width`` pixels and the panel's size."""
        font = text.font(size)
        inner = width - 2 * _pad(size)

        def fitted(t: str) -> str:  # (a species' row wrapped would leave "0" on one line and "ms" on the next)
            return t if font.size(t)[0] <= inner else re.sub(" {2,}", " ", t)  # its columns' padding goes first

        def wrapped(t: str) -> list[str]:  # (the legend between its terms, whole: never cut to "…")
            return wrap_groups(font, t.split(" · "), inner, " · ") if " · " in t else wrap(font, fitted(t), inner, 2)

        head, tail = ([(piece, c) for t, c in part for piece in wrapped(t)] for part in lines)
        ls = font.get_linesize()
        widest = max((font.size(t)[0] for t, _ in head + tail), default=0)
        h = (len(head) + len(tail) + GRAPH_LINES) * ls + 2 * _pad(size)
        return head, tail, (min(width, widest + 2 * _pad(size)), h)

    def draw(self, screen: pygame.Surface, text: Text, rect: pygame.Rect, size: int, head: list[Line],
             tail: list[Line], ins: SearchInstruments, budget: float) -> None:  # fmt: skip
        font = text.font(size)
        ls, pad = font.get_linesize(), _pad(size)
        screen.fill(PANEL[:3], rect)
        y = rect.y + pad
        for t, c in head:
            screen.blit(text.render(t, c, size), (rect.x + pad, y))
            y += ls
        graph = pygame.Rect(rect.x + pad, y + 2, rect.w - 2 * pad, GRAPH_LINES * ls - 4)
        _graph(screen, graph, ins.history, budget)
        y += GRAPH_LINES * ls
        for t, c in tail:
            screen.blit(text.render(t, c, size), (rect.x + pad, y))
            y += ls


def _pad(size: int) -> int:
    return max(4, size // 2)


def _graph(screen: pygame.Surface, rect: pygame.Rect, history, budget: float) -> None:
    """Search ms per frame against time (the last ``history.seconds``), the budget as a red line."""
    pygame.draw.rect(screen, (40, 44, 52), rect)
    values = list(history.search_ms)
    top = max(budget * 1.5, max(values, default=0.0), 1e-6)

    def y_of(v: float) -> float:
        return rect.bottom - 1 - (rect.h - 2) * min(v, top) / top

    if len(values) >= 2:
        now = history.times[-1]
        pts = [(rect.right - 1 - (rect.w - 1) * (now - t) / history.seconds, y_of(v))
               for t, v in zip(history.times, values, strict=True)]  # fmt: skip
        pygame.draw.lines(screen, GOOD, False, pts, 1)
    yb = y_of(budget)
    pygame.draw.line(screen, WARN, (rect.x, yb), (rect.right - 1, yb), 1)
