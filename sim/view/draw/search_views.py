"""Drawing the views of the search: footprint, cost field, heat map, inspector, comparison."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import NamedTuple

import numpy as np
import pygame

from sim.instruments import fields
from sim.instruments.compare import REPLAY_S, Comparison, StrategyRun
from sim.instruments.recorder import HEAT_TIME_S, SearchInstruments
from sim.model.observe import SearchEvent
from sim.simulation import Simulation
from sim.view.camera import Camera
from sim.view.draw.legends import Legend
from sim.view.draw.panels import DIM, GOOD, INK, WARN, Text, hints, wrap, wrap_groups
from sim.view.draw.render import WorldView


def cells_surface(rgb: np.ndarray, alpha: np.ndarray, like: pygame.Surface) -> pygame.Surface:
    """A 1-pixel-per-cell surface with per-pixel alpha from ``[y, x]`` arrays, to be drawn on ``like``
    (the screen): their rows are the image's rows as they are (made through ``surfarray``, which wants
    ``[x, y]``, the transposed copy took twice as long), and its bytes are in ``like``'s order where that is
    32-bit BGR(A), as SDL's windows and pygame's own alpha surfaces are. SDL blends a surface whose
    channels sit where the screen's do in its vector path; one whose channels it must reorder, pixel by
    pixel: a full-screen overlay of 1,280 x 740 pixels took 11.5 ms to draw in RGBA, 0.25 ms in BGRA."""
    h, w = alpha.shape
    bgr = like.get_bitsize() == 32 and like.get_shifts()[:3] == (16, 8, 0)
    rgba = np.empty((h, w, 4), np.uint8)
    rgba[..., :3] = rgb[..., ::-1] if bgr else rgb
    rgba[..., 3] = alpha
    return pygame.image.frombuffer(rgba.data, (w, h), "BGRA" if bgr else "RGBA")  # (the surface keeps rgba)


def blit_cells(screen: pygame.Surface, cam: Camera, rgb: np.ndarray, alpha: np.ndarray) -> None:
    """Draw per-cell colours (whole-map ``[y, x]`` arrays) through the camera; visible part only."""
    blit_colouring(screen, cam, lambda rgb, alpha: (rgb, alpha), rgb, alpha)


def blit_colouring(screen: pygame.Surface, cam: Camera, colour: Callable[..., tuple[np.ndarray, np.ndarray]],
                   *cells: np.ndarray) -> None:  # fmt: skip
    """Draw ``colour(*windows)`` (RGB and alpha ``[y, x]``) through the camera, ``windows`` being the
    visible part of each whole-map array in ``cells``: a colouring made each frame is made for the cells
    on screen only (the heat map of a 2048x2048 map, coloured whole, took 280 ms a frame)."""
    c0, r0, c1, r1 = cam.visible_cells()
    if c1 <= c0 or r1 <= r0:
        return
    surf = cells_surface(*colour(*(a[r0:r1, c0:c1] for a in cells)), screen)
    scaled = pygame.transform.scale(surf, ((c1 - c0) * cam.tile, (r1 - r0) * cam.tile))
    screen.blit(scaled, (round(c0 * cam.tile - cam.x), round(r0 * cam.tile - cam.y)))


_hatch_cache: dict[tuple[int, int], pygame.Surface] = {}


def hatch(size: tuple[int, int]) -> pygame.Surface:
    """A screen-sized pattern of diagonal stripes (what "impassable" looks like)."""
    if size not in _hatch_cache:
        s = pygame.Surface(size)
        s.fill((34, 30, 36))
        w, h = size
        for x in range(-h, w, 9):
            pygame.draw.line(s, (92, 80, 96), (x, h), (x + h, 0), 2)
        _hatch_cache.clear()
        _hatch_cache[size] = s
    return _hatch_cache[size]


class SearchViews:
    """The cost field (V), the heat map (X) and the selected animal's search."""

    def __init__(self, sim: Simulation, view: WorldView, instruments: SearchInstruments) -> None:
        self.sim = sim
        self.view = view
        self.instruments = instruments
        self._field_key: tuple | None = None
        self._field: tuple[np.ndarray, np.ndarray] | None = None

    def draw_cost_field(self, screen: pygame.Surface, species: int) -> None:
        sp = self.sim.species[species]
        key = (species, self.sim.world.revision, id(self.sim.world.terrain))
        if key != self._field_key:
            self._field = fields.cost_field(sp.costs, sp.regions)
            self._field_key = key
        assert self._field is not None
        screen.blit(hatch(screen.get_size()), (0, 0))
        blit_cells(screen, self.view.cam, *self._field)

    def cost_field_legend(self, species: int) -> Legend:
        """Each terrain's multiplier with the colour it gets (the same log scale as the field)."""
        sp = self.sim.species[species]
        n_regions = int(sp.regions.max())
        costs = sorted(sp.spec.costs.items(), key=lambda kv: kv[1])
        passable = [m for _, m in costs if m > 0]
        lo, hi = (math.log(min(passable)), math.log(max(passable))) if passable else (0.0, 0.0)
        rows: list[tuple[tuple[int, int, int] | None, str]] = []
        for name, m in costs:
            if m <= 0:
                rows.append((None, f"{name}: impassable"))
                continue
            t = (math.log(m) - lo) / (hi - lo) if hi > lo else 0.0
            r, g, b = fields.ramp(np.array(t)).astype(np.uint8).tolist()
            rows.append(((r, g, b), f"{name}: x{m:g}"))
        title = f"how {sp.label} see the island (V: next, off)"
        return Legend(title, rows, notes=[f"outlined: {n_regions} connected regions"])

    def heat_legend(self) -> Legend | None:
        """The heat map's scale: cells expanded per map cell, recent searches weighing most, log-scaled."""
        heat = self.instruments.heat
        if heat is None:
            return None
        top = max(float(heat.max()), 0.0)
        colours = fields.ramp(np.linspace(0.0, 1.0, 64)).astype(np.uint8)
        ticks = [_number(math.expm1(f * math.log1p(top))) for f in (0.0, 1 / 3, 2 / 3, 1.0)]
        unit = f"expansions per cell, fading by 1/e in {HEAT_TIME_S:g} s (log scale)"
        return Legend("heat map: where searches work (X: off)", bar=colours, ticks=ticks, unit=unit)

    def paths_legend(self) -> Legend:
        """P's key: each species' paths in its colour, a ring at its goal."""
        rows: list[tuple[tuple[int, int, int] | None, str]] = [
            (sp.spec.colour, f"{sp.label}: path to walk, ring at its goal") for sp in self.sim.species
        ]
        return Legend("every path (P: off)", rows)

    def draw_heat(self, screen: pygame.Surface) -> None:
        heat = self.instruments.heat
        if heat is not None:
            top = float(heat.max(initial=0.0))  # (the whole map's: the colours do not change as the camera moves)
            blit_colouring(screen, self.view.cam, lambda window: fields.heat_colours(window, top), heat)

    def draw_last_search(self, screen: pygame.Surface, record: np.ndarray | None, event: SearchEvent | None) -> None:
        """The selected animal's last search (under the sprites): footprint, partial path dashed."""
        cam = self.view.cam
        if record is not None:
            blit_colouring(screen, cam, fields.footprint_colours, record)
        if event is not None and event.result is not None and not event.result.found:
            pts = [cam.to_screen(x, y) for x, y in event.result.partial_path]
            for p, q in zip(pts[::2], pts[1::2], strict=False):  # dashed: every other step
                pygame.draw.line(screen, WARN, p, q, 3)
        elif event is not None and event.result is not None and len(event.result.path) > 1:
            sp = next(sp for sp in self.sim.species if sp.key == event.species)
            if sp.kind.straight_paths:  # the grid path A* found, under the straight one it walks
                pts = [cam.to_screen(x, y) for x, y in event.result.path]
                pygame.draw.lines(screen, (255, 255, 255), False, pts, 1)

    def draw_hover(self, screen: pygame.Surface, i: int) -> pygame.Rect:
        """A thin ring on the animal a click would pick; returns what it covered."""
        cam = self.view.cam
        x, y = cam.to_screen(*self.sim.agents.pos[i])
        r = max(7, cam.tile * 0.8)
        pygame.draw.circle(screen, (0, 0, 0), (x, y), r + 1, 3)
        pygame.draw.circle(screen, (255, 255, 255), (x, y), r, 1)
        return _ring_rect(x, y, r)

    def draw_highlight(self, screen: pygame.Surface, i: int) -> None:
        """The selected animal (above the sprites): its remaining path and a ring."""
        cam = self.view.cam
        self.view.draw_paths(screen, only=i, width=3)
        x, y = cam.to_screen(*self.sim.agents.pos[i])
        r = max(8, cam.tile)
        pygame.draw.circle(screen, (0, 0, 0), (x, y), r + 2, 3)
        pygame.draw.circle(screen, (255, 255, 120), (x, y), r, 2)


def _ring_rect(x: float, y: float, r: float) -> pygame.Rect:
    return pygame.Rect(int(x - r - 4), int(y - r - 4), int(2 * r + 9), int(2 * r + 9))


def inspector_lines(lines: list[str], colour) -> list[tuple[str, tuple[int, int, int]]]:
    """The inspector's panel: the animal's description (``instruments.inspector.describe``), the keys."""
    rows = [(lines[0], colour)] + [(t, INK if not t.startswith("  ") else DIM) for t in lines[1:]]
    keys = [("", INK), (hints("F follow", "Esc / click ground: deselect"), DIM),
            (hints("magenta: closed", "orange: left open"), DIM)]  # fmt: skip
    return [*rows, *keys]


def _number(v: float) -> str:
    return f"{v:.0f}" if v >= 10 or v == 0 else f"{v:.1f}"


# ----------------------------------------------------------------- compare mode
def _fit(region: tuple[int, int, int, int], box: pygame.Rect) -> tuple[float, pygame.Rect]:
    """Scale (px per cell) and placement to show ``region`` (c0, r0, c1, r1) inside ``box``."""
    c0, r0, c1, r1 = region
    scale = max(0.0, min(box.w / (c1 - c0), box.h / (r1 - r0)))
    w, h = int((c1 - c0) * scale), int((r1 - r0) * scale)
    return scale, pygame.Rect(box.x + (box.w - w) // 2, box.y + (box.h - h) // 2, w, h)


class Panel(NamedTuple):
    """A strategy's panel as drawn: its run, its rectangle, where its map went and at what scale
    (px per cell), and the cells it shows (``c0, r0, c1, r1``): what a click or a drag hits."""

    run: int
    rect: pygame.Rect
    place: pygame.Rect
    scale: float
    region: tuple[int, int, int, int]

    def cell_at(self, pos: tuple[int, int]) -> tuple[int, int] | None:
        """The map cell under screen ``pos`` in this panel's map (None: not on its map)."""
        if not self.place.collidepoint(pos):
            return None
        return (self.region[0] + int((pos[0] - self.place.x) / self.scale),
                self.region[1] + int((pos[1] - self.place.y) / self.scale))  # fmt: skip


def draw_compare(screen: pygame.Surface, text: Text, view: WorldView, cmp: Comparison, species_label: str,
                 area: pygame.Rect, metrics, region: tuple[int, int, int, int] | None = None,
                 offer: str = "") -> tuple[list[Panel], list[str]]:  # fmt: skip
    """The comparison screen in ``area`` (the layout's content region): every strategy's panel side
    by side, or one large (Tab or a click). Header lines (settings, keys, replay) beside a bar chart
    of each strategy's cells expanded and path cost, then the panels. ``region``: the cells the
    panels show (default: all any search touched); ``offer``: where the strategies left out would
    run. Returns the panels drawn (what a click or a drag hits) and the header's lines."""
    small = metrics.small
    sw = area.w
    bottom = area.bottom - metrics.margin
    chart_w = min(metrics.px(520), int(sw * 0.42)) if cmp.runs else 0
    text_w = sw - chart_w - 24
    head = [f"compare — {species_label}", f"diagonal (D): {cmp.diagonal}", f"heuristic (E): {cmp.heuristic}",
            f"weight (+/-): {cmp.weight:g}"]  # fmt: skip
    picking = "click the start" if cmp.start is None else "click the goal" if not cmp.runs else "click a panel: large"
    keys = [f"1-{len(view.sim.species)} species", picking, "drag S or G, or paint walls: all run again",
            "right click or N: new query", "Space play/pause", "← → step", "↑ ↓ speed", "R replay", "Tab one/all",
            "K copy as code", "Esc or C: back"]  # fmt: skip
    state = "playing" if cmp.playing else "done" if cmp.done else "paused"
    legend = ["closed: magenta", "left open: orange", "jump points: rings"]
    status = [f"replay: each search at its own pace, all ending together ({REPLAY_S / cmp.speed:g} s)", state,
              *legend, "times: median of several calls, nothing compiled or built inside the clock"]  # fmt: skip
    lines = _compare_header(text, metrics, cmp, head, keys, status, offer, text_w)
    if cmp.runs and _height(text, lines) > (bottom - area.y) // 2:  # a small window: the panels come first
        keys = [picking, "N new query", "Space play/pause", "R replay", "Tab one/all", "Esc back", "F1 every key"]
        lines = _compare_header(text, metrics, cmp, head, keys, [state, *legend], offer, text_w)
    chart_h = (len(cmp.runs) + 1) * text.font(small).get_linesize() + 12 if cmp.runs else 0
    top = area.y + 6 + max(_height(text, lines), chart_h) + 6
    pygame.draw.rect(screen, (14, 18, 26), (area.x, area.y, sw, (bottom + 6 - area.y) if cmp.runs else top - area.y))
    y = area.y + 6
    for line, colour, size in lines:
        screen.blit(text.font(size).render(line, True, colour), (area.x + 12, y))
        y += text.font(size).get_linesize()
    header = [t for t, _c, _s in lines]
    if cmp.runs:
        chart = pygame.Rect(area.right - chart_w - 8, area.y + 6, chart_w, chart_h)
        header += bar_chart(screen, text.font(small), cmp, chart)
    if cmp.start is None or cmp.goal is None or not cmp.runs:
        return [], header
    region = region or cmp.region
    assert region is not None  # (set with the runs)
    c0, r0, c1, r1 = region
    terrain = view.terrain.base.subsurface((c0, r0, c1 - c0, r1 - r0))
    area = pygame.Rect(area.x + 8, top, sw - 16, bottom - top)
    shown = list(range(len(cmp.runs))) if cmp.shown is None else [cmp.shown]
    cols, rows = panel_grid(len(shown), area.w, area.h)
    cw, ch = area.w // cols, area.h // rows
    font = text.font(small)
    panels = []
    for slot, k in enumerate(shown):
        cell = pygame.Rect(area.x + (slot % cols) * cw, area.y + (slot // cols) * ch, cw - 8, ch - 8)
        place, scale = _draw_run(screen, font, cmp, k, cell, region, terrain)
        panels.append(Panel(k, cell, place, scale, region))
    return panels, header


def _compare_header(text: Text, metrics, cmp: Comparison, head: list[str], keys: list[str], status: list[str],
                    offer: str, width: int) -> list[tuple[str, tuple[int, int, int], int]]:  # fmt: skip
    """The compare screen's header lines ``(text, colour, font size)`` in ``width`` px: the settings
    (``head``), the key hints, and once searches ran the replay's ``status`` and why a strategy has
    no panel."""
    big, small = metrics.body, metrics.small
    lines = [(line, GOOD, big) for line in wrap_groups(text.font(big), head, width)]
    lines += [(line, DIM, small) for line in wrap_groups(text.font(small), keys, width)]
    if cmp.runs:
        lines += [(line, INK, small) for line in wrap_groups(text.font(small), status, width)]
        for why in cmp.left_out:
            where = offer if "one cost" in why else ""  # (another species helps only there)
            note = f"no panel: {why}{where}"
            lines += [(line, WARN, small) for line in wrap(text.font(small), note, width, max_lines=None)]
    return lines


def _height(text: Text, lines: list[tuple[str, tuple[int, int, int], int]]) -> int:
    """Pixels the header's ``lines`` take, a line each in its own font."""
    return sum(text.font(size).get_linesize() for _t, _c, size in lines)


def chart_titles(font: pygame.font.Font, col_w: int) -> tuple[str, str]:
    """The bar chart's two column titles for columns ``col_w`` px wide: "cells expanded" and "path
    cost", or "expanded" and "cost" where the first would run into the second."""
    return ("cells expanded", "path cost") if font.size("cells expanded")[0] + 8 <= col_w else ("expanded", "cost")


def bar_chart(screen: pygame.Surface, font: pygame.font.Font, cmp: Comparison, box: pygame.Rect) -> list[str]:
    """Each strategy's cells expanded (its work, the first measure) and its path's cost, as bars
    scaled to the largest; returns its words, a line a row."""
    line = font.get_linesize()
    label_w = max(font.size(_short_label(r.label))[0] for r in cmp.runs) + 8
    col_w = (box.w - label_w) // 2
    widest = max(font.size(t)[0] for r in cmp.runs for t in (f"{r.result.expanded}", f"{r.result.cost:.1f}", "no path"))
    if col_w < widest + 6:  # too narrow for a number beside its bar: no chart (the panels show the figures)
        return []
    heads = list(zip(chart_titles(font, col_w), (0, 1), strict=True))
    rows = ["   ".join(title for title, _ in heads)]
    for title, i in heads:
        screen.blit(font.render(title, True, GOOD), (box.x + label_w + i * col_w, box.y))
    most = max(max(r.result.expanded for r in cmp.runs), 1)
    dear = max((r.result.cost for r in cmp.runs if r.result.found), default=1.0) or 1.0
    for j, run in enumerate(cmp.runs):
        y = box.y + (j + 1) * line
        name = _short_label(run.label)
        screen.blit(font.render(name, True, INK), (box.x, y))
        words = [name]
        values = [(run.result.expanded / most, f"{run.result.expanded}", (200, 70, 210)),
                  ((run.result.cost / dear) if run.result.found else 0.0,
                   f"{run.result.cost:.1f}" if run.result.found else "no path", (90, 235, 255))]  # fmt: skip
        for i, (share, label, colour) in enumerate(values):
            x = box.x + label_w + i * col_w
            number = font.render(label, True, INK)
            room = col_w - number.get_width() - 12
            bar = max(1, int(room * share)) if share > 0 else 0
            pygame.draw.rect(screen, colour, (x, y + 3, bar, line - 6))
            screen.blit(number, (x + bar + 4, y))
            words.append(label)
        rows.append(" ".join(words))
    return rows


def panel_label(label: str, font: pygame.font.Font, width: int) -> str:
    """A panel's title in ``width`` px: the strategy's name with its note ("JPSW (weighted jump
    points)"), or without it where that would be cut off at the panel's edge."""
    return label if font.size(label)[0] <= width else _short_label(label)


def _short_label(label: str) -> str:
    """A strategy's name without its note in brackets ("JPS (jump points)" -> "JPS")."""
    name = label.split(" (")[0]
    return name.replace("Distance field", "Field").replace("Greedy best-first", "Greedy")


def panel_grid(n: int, width: int, height: int) -> tuple[int, int]:
    """Columns and rows for ``n`` compare panels in an area of ``width`` x ``height`` px: three
    columns (two when the area is taller than wide), four for more than six panels where each
    still gets 300 px (below that their figures would not fit on two lines)."""
    wide = 4 if n > 6 and width >= 4 * 300 else 3
    cols = 1 if n == 1 else wide if width >= height else 2
    return cols, math.ceil(n / cols)


def panel_lines(run: StrategyRun, words: list[str], font: pygame.font.Font, width: int) -> list[str]:
    """A panel's text under its label: the figures (``words``) on one line, else two; or its
    note ("not applicable here: why"), on two lines when one is too narrow."""
    if not run.note:
        return _figure_lines(words, font, width)
    head, _, why = run.note.partition(": ")
    return [run.note] if font.size(run.note)[0] <= width or not why else [head + ":", why]


def fit_words(words: list[str], font: pygame.font.Font, width: int) -> str:
    """``words`` joined by the widest gap (3, 2, then 1 space) that fits ``width`` pixels;
    with one space when none fits (the caller clips)."""
    for gap in ("   ", "  "):
        line = gap.join(words)
        if font.size(line)[0] <= width:
            return line
    return " ".join(words)


def _draw_run(
    screen: pygame.Surface, font: pygame.font.Font, cmp: Comparison, k: int, cell: pygame.Rect,
    region: tuple[int, int, int, int], terrain: pygame.Surface,
) -> tuple[pygame.Rect, float]:  # fmt: skip
    """One strategy's panel: its figures (on two lines when one is too narrow), the map, the
    cells expanded so far, then its path and clear markers at the start, the goal and (JPS)
    every jump point."""
    run = cmp.runs[k]
    c0, r0, c1, r1 = region
    step = cmp.shown_steps(run)
    pygame.draw.rect(screen, (28, 34, 46), cell)
    r = run.result
    done = step >= r.expanded
    verb = "settled" if run.algorithm == "field" else "expanded"
    words = [f"{verb} {min(step, r.expanded)}/{r.expanded}"]
    words += [f"cost {r.cost:.2f}", f"length {len(r.path)}", f"{run.ms:.2f} ms"] if r.found else ["no path"]
    if run.first_ms > 3 * run.ms and run.first_ms > 1.0:  # a cold cache the preparing could not warm: said so
        words.append(f"first call {run.first_ms:.1f} ms")
    lines = panel_lines(run, words, font, cell.w - 12)
    clip = screen.get_clip()
    screen.set_clip(cell)
    screen.blit(font.render(panel_label(run.label, font, cell.w - 12), True, GOOD), (cell.x + 6, cell.y + 4))
    y = cell.y + 4 + font.get_linesize()
    for line in lines:
        screen.blit(font.render(line, True, WARN if run.note else INK), (cell.x + 6, y))
        y += font.get_linesize()
    screen.set_clip(clip)
    box = pygame.Rect(cell.x + 4, y + 2, cell.w - 8, cell.bottom - y - 6)
    scale, place = _fit(region, box)
    if place.w < 1 or place.h < 1:  # (a window too small for the map under the figures: the figures alone)
        return place, scale
    screen.blit(pygame.transform.scale(terrain, place.size), place.topleft)
    # Cells expanded so far, in the kernel's order; at the end the open list and the path.
    record = run.record[r0:r1, c0:c1]
    if scale < 1.0:  # more cells than pixels: colour one cell a pixel, as the scaling would pick them
        rows = np.arange(place.h) * (r1 - r0) // place.h
        cols = np.arange(place.w) * (c1 - c0) // place.w
        record = record[rows[:, None], cols[None, :]]  # (a replay of 2048x2048 coloured ~1 M cells a panel a frame)
    rgb, alpha = fields.footprint_colours(record, None if done else min(step, r.expanded))
    screen.blit(pygame.transform.scale(cells_surface(rgb, alpha, screen), place.size), place.topleft)

    def at(x: int, y: int) -> tuple[float, float]:
        return place.x + (x - c0 + 0.5) * scale, place.y + (y - r0 + 0.5) * scale

    if run.algorithm in ("jps", "jps+"):  # the jump points: few, each a ring (a single cell would vanish)
        w = run.record.shape[1]
        for cell_index in run.order[:step].tolist():
            p = at(cell_index % w, cell_index // w)
            pygame.draw.circle(screen, (0, 0, 0), p, max(3.0, scale * 0.9), 3)
            pygame.draw.circle(screen, (255, 255, 255), p, max(3.0, scale * 0.9), 1)
    if done and r.found and len(r.path) > 1:
        thin = len(run.straight) > 1
        width = max(2, int(scale / 2))
        pygame.draw.lines(screen, (255, 255, 255), False, [at(*p) for p in r.path], 1 if thin else width)
        if thin:  # the path pulled straight (birds): its segments over the grid path
            pygame.draw.lines(screen, (90, 230, 255), False, [at(*p) for p in run.straight], width)
    assert cmp.start is not None and cmp.goal is not None  # (a query was run)
    _marker(screen, font, at(*cmp.start), max(5.0, scale * 1.2), (60, 220, 90), "S")
    _marker(screen, font, at(*cmp.goal), max(5.0, scale * 1.2), (235, 60, 50), "G")
    return place, scale


def _figure_lines(words: list[str], font: pygame.font.Font, width: int) -> list[str]:
    """The figures on one line when they fit, else on two (never cut at the panel's edge)."""
    line = fit_words(words, font, width)
    if font.size(line)[0] <= width or len(words) < 2:
        return [line]
    half = (len(words) + 1) // 2
    return [fit_words(words[:half], font, width), fit_words(words[half:], font, width)]


def _marker(screen: pygame.Surface, font: pygame.font.Font, p: tuple[float, float], r: float,
            colour: tuple[int, int, int], letter: str) -> None:  # fmt: skip
    """A start or goal marker: a filled disc with a dark rim and its letter when there is room."""
    pygame.draw.circle(screen, (0, 0, 0), p, r + 2)
    pygame.draw.circle(screen, colour, p, r)
    if r >= 7:
        label = font.render(letter, True, (0, 0, 0))
        screen.blit(label, label.get_rect(center=(int(p[0]), int(p[1]))))
