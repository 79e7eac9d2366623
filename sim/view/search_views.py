"""Drawing the views of the search: footprint, cost field, heat map, inspector, comparison."""

from __future__ import annotations

import math

import numpy as np
import pygame

from .. import fields
from ..camera import Camera
from ..compare import Comparison
from ..instruments import SearchInstruments
from ..observe import SearchEvent
from ..simulation import Simulation
from .panels import DIM, GOOD, INK, WARN, Text, panel_right
from .render import WorldView


def cells_surface(rgb: np.ndarray, alpha: np.ndarray) -> pygame.Surface:
    """A 1-pixel-per-cell surface with per-pixel alpha from ``[y, x]`` arrays."""
    h, w = alpha.shape
    surf = pygame.Surface((w, h), pygame.SRCALPHA)
    pygame.surfarray.blit_array(surf, np.ascontiguousarray(rgb.transpose(1, 0, 2)))
    pixels = pygame.surfarray.pixels_alpha(surf)
    pixels[...] = alpha.T
    del pixels  # unlock the surface
    return surf


def blit_cells(screen: pygame.Surface, cam: Camera, rgb: np.ndarray, alpha: np.ndarray) -> None:
    """Draw per-cell colours (whole-map ``[y, x]`` arrays) through the camera; visible part only."""
    c0, r0, c1, r1 = cam.visible_cells()
    if c1 <= c0 or r1 <= r0:
        return
    surf = cells_surface(rgb[r0:r1, c0:c1], alpha[r0:r1, c0:c1])
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

    def cost_field_legend(self, screen: pygame.Surface, text: Text, species: int) -> None:
        sp = self.sim.species[species]
        n_regions = int(sp.regions.max())
        lines = [(f"how {sp.label} see the island (V: next, off)", GOOD)]
        for name, m in sorted(sp.spec.costs.items(), key=lambda kv: kv[1]):
            lines.append((f"  {name:9} {'impassable (hatched)' if m <= 0 else f'x{m:g}'}", INK))
        lines.append((f"green cheap -> red costly; outlined: {n_regions} connected regions", DIM))
        panel_right(screen, text, lines, 8, 13)

    def draw_heat(self, screen: pygame.Surface) -> None:
        heat = self.instruments.heat
        if heat is not None:
            blit_cells(screen, self.view.cam, *fields.heat_colours(heat))

    def draw_last_search(self, screen: pygame.Surface, record: np.ndarray | None, event: SearchEvent | None) -> None:
        """The selected animal's last search (under the sprites): footprint, partial path dashed."""
        cam = self.view.cam
        if record is not None:
            blit_cells(screen, cam, *fields.footprint_colours(record))
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


def inspector_panel(screen: pygame.Surface, text: Text, lines: list[str], colour) -> None:
    rows = [(lines[0], colour)] + [(t, INK if not t.startswith("  ") else DIM) for t in lines[1:]]
    rows += [("", INK), ("F follow  Esc / click ground: deselect", DIM), ("blue: closed  amber: left open", DIM)]
    panel_right(screen, text, rows, 8, 14)


# ----------------------------------------------------------------- compare mode
def _fit(region: tuple[int, int, int, int], box: pygame.Rect) -> tuple[float, pygame.Rect]:
    """Scale (px per cell) and placement to show ``region`` (c0, r0, c1, r1) inside ``box``."""
    c0, r0, c1, r1 = region
    scale = min(box.w / (c1 - c0), box.h / (r1 - r0))
    w, h = int((c1 - c0) * scale), int((r1 - r0) * scale)
    return scale, pygame.Rect(box.x + (box.w - w) // 2, box.y + (box.h - h) // 2, w, h)


def compare_region(cmp: Comparison, shape: tuple[int, int]) -> tuple[int, int, int, int]:
    """The cells worth showing: everything any strategy touched, plus the endpoints, padded."""
    h, w = shape
    touched = np.zeros(shape, dtype=bool)
    for run in cmp.runs:
        touched |= run.record != 0
    ys, xs = np.nonzero(touched)
    xs = np.append(xs, [cmp.start[0], cmp.goal[0]])
    ys = np.append(ys, [cmp.start[1], cmp.goal[1]])
    pad = 3
    return (
        max(0, int(xs.min()) - pad),
        max(0, int(ys.min()) - pad),
        min(w, int(xs.max()) + pad + 1),
        min(h, int(ys.max()) + pad + 1),
    )


def draw_compare(screen: pygame.Surface, text: Text, view: WorldView, cmp: Comparison, species_label: str) -> None:
    """The comparison screen: every strategy's panel side by side, or one large (Tab)."""
    sw, sh = screen.get_size()
    if cmp.runs:
        screen.fill((14, 18, 26))
    else:
        pygame.draw.rect(screen, (14, 18, 26), (0, 0, sw, 50))
    head = (
        f"compare — {species_label}   diagonal (D): {cmp.diagonal}   heuristic (E): {cmp.heuristic}"
        f"   weight (+/-): {cmp.weight:g}"
    )
    screen.blit(text.font(15).render(head, True, GOOD), (12, 8))
    picking = "click the start" if cmp.start is None else "click the goal" if not cmp.runs else "click: new query"
    keys = (
        f"1-3 species   {picking}   Space play/pause   ← → step   ↑ ↓ speed   R replay   Tab one/all   Esc or C: back"
    )
    screen.blit(text.font(13).render(keys, True, DIM), (12, 30))
    if cmp.start is None or cmp.goal is None or not cmp.runs:
        return
    region = compare_region(cmp, view.sim.world.terrain.shape)
    c0, r0, c1, r1 = region
    terrain = view.terrain.base.subsurface((c0, r0, c1 - c0, r1 - r0))
    area = pygame.Rect(8, 54, sw - 16, sh - 62)
    shown = list(range(len(cmp.runs))) if cmp.shown is None else [cmp.shown]
    cols = math.ceil(math.sqrt(len(shown)))
    rows = math.ceil(len(shown) / cols)
    cw, ch = area.w // cols, area.h // rows
    font = text.font(13)
    for slot, k in enumerate(shown):
        cell = pygame.Rect(area.x + (slot % cols) * cw, area.y + (slot // cols) * ch, cw - 8, ch - 8)
        _draw_run(screen, font, cmp, k, cell, region, terrain)
    step = int(cmp.step)
    status = f"replay {step}/{cmp.longest} expansions   {'playing' if cmp.playing else 'paused'}   {cmp.speed:.0f}/s"
    screen.blit(font.render(status, True, DIM), (sw - font.size(status)[0] - 12, 10))


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
) -> None:  # fmt: skip
    """One strategy's panel: its figures, the map, the cells expanded so far, then its path."""
    run = cmp.runs[k]
    c0, r0, c1, r1 = region
    step = int(cmp.step)
    pygame.draw.rect(screen, (28, 34, 46), cell)
    r = run.result
    done = step >= r.expanded
    verb = "settled" if run.algorithm == "field" else "expanded"
    words = [f"{verb} {min(step, r.expanded)}/{r.expanded}"]
    words += [f"cost {r.cost:.2f}", f"length {len(r.path)}", f"{run.ms:.2f} ms"] if r.found else ["no path"]
    figures = fit_words(words, font, cell.w - 12)
    clip = screen.get_clip()
    screen.set_clip(cell)
    screen.blit(font.render(run.label, True, GOOD), (cell.x + 6, cell.y + 4))
    screen.blit(font.render(run.note or figures, True, WARN if run.note else INK), (cell.x + 6, cell.y + 20))
    screen.set_clip(clip)
    box = pygame.Rect(cell.x + 4, cell.y + 40, cell.w - 8, cell.h - 44)
    scale, place = _fit(region, box)
    screen.blit(pygame.transform.scale(terrain, place.size), place.topleft)
    # Cells expanded so far, in the kernel's order; at the end the open list and the path.
    rgb, alpha = fields.footprint_colours(run.record[r0:r1, c0:c1], None if done else min(step, r.expanded))
    screen.blit(pygame.transform.scale(cells_surface(rgb, alpha), place.size), place.topleft)

    def at(x: int, y: int) -> tuple[float, float]:
        return place.x + (x - c0 + 0.5) * scale, place.y + (y - r0 + 0.5) * scale

    if done and r.found and len(r.path) > 1:
        thin = len(run.straight) > 1
        width = max(2, int(scale / 2))
        pygame.draw.lines(screen, (255, 255, 255), False, [at(*p) for p in r.path], 1 if thin else width)
        if thin:  # the path pulled straight (birds): its segments over the grid path
            pygame.draw.lines(screen, (90, 230, 255), False, [at(*p) for p in run.straight], width)
    for p, colour in ((cmp.start, (80, 255, 120)), (cmp.goal, (255, 80, 80))):
        pygame.draw.circle(screen, colour, at(*p), max(4, scale * 0.8))
        pygame.draw.circle(screen, (0, 0, 0), at(*p), max(4, scale * 0.8), 1)
