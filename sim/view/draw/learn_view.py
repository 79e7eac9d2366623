"""Drawing the learn view: a search's state over the map, cell by cell (the open list, the closed set,
the current and next cells, came-from arrows, G/H/F in each cell, the path, JPS's jumps), and its key."""

from __future__ import annotations

import math

import numpy as np
import pygame
from numpy.typing import NDArray

from sim.instruments.learn import STRATEGIES, JumpScans, Lesson
from sim.pathfinding import SearchState
from sim.support.arrays import nonzero_yx
from sim.view.camera import Camera
from sim.view.draw.legends import Legend
from sim.view.draw.panels import DIM, GOOD, INK, WARN, Text, hints
from sim.view.draw.search_views import cells_surface

Colour = tuple[int, int, int]
# Colours chosen to stand out on every terrain (water blue, sand, greens, grey rock): the sets are
# filled translucent and outlined; what is one cell (current, next) is drawn as thick rings.
CLOSED: Colour = (200, 70, 210)  # magenta, as in compare mode
OPEN: Colour = (255, 200, 40)  # amber
NEXT: Colour = (255, 255, 255)
CURRENT: Colour = (255, 90, 40)
PATH: Colour = (90, 235, 255)
ARROW: Colour = (20, 16, 24)
ARROW_UNDER_NUMBERS: Colour = (246, 244, 236)  # where the cells' numbers show: black digits read over it
JUMP: Colour = (225, 195, 255)  # pale violet: not the next ring's white
SCAN: Colour = (250, 250, 210)
FORCED: Colour = (255, 60, 60)
START: Colour = (60, 220, 90)
GOAL: Colour = (235, 60, 50)
NUMBERS_AT = 32  # px per cell from which each cell shows its G, H and F


def draw_state(screen: pygame.Surface, text: Text, cam: Camera, state: SearchState, jumps: bool,
               scans: JumpScans | None, start: tuple[int, int], goal: tuple[int, int]) -> None:  # fmt: skip
    """The search at ``state.step`` over the terrain already drawn (visible cells only)."""
    c0, r0, c1, r1 = cam.visible_cells()
    if c1 <= c0 or r1 <= r0:
        return
    tile = cam.tile
    ox, oy = round(c0 * tile - cam.x), round(r0 * tile - cam.y)
    closed = state.closed[r0:r1, c0:c1]
    open_ = state.open[r0:r1, c0:c1]
    rgb = np.zeros((*closed.shape, 3), np.uint8)
    rgb[closed] = CLOSED
    rgb[open_] = OPEN
    alpha = np.where(closed, 140, np.where(open_, 150, 0)).astype(np.uint8)
    surf = pygame.transform.scale(cells_surface(rgb, alpha, screen), ((c1 - c0) * tile, (r1 - r0) * tile))
    screen.blit(surf, (ox, oy))
    _grid_lines(screen, cam, c0, r0, c1, r1)
    _outline(screen, cam, closed, c0, r0, CLOSED)
    _outline(screen, cam, open_, c0, r0, OPEN)
    if scans is not None:
        _scans(screen, cam, scans, state.step)
    if jumps:
        _jump_lines(screen, cam, state, c0, r0, c1, r1)
    else:
        _arrows(screen, cam, state, c0, r0, c1, r1)
    if state.done and state.result.found and len(state.result.path) > 1:
        if tile >= NUMBERS_AT:  # a frame a cell: a line through the cells hid their numbers
            edge = max(2, tile // 12)
            for x, y in state.result.path.tolist():
                px, py = round(x * tile - cam.x), round(y * tile - cam.y)
                pygame.draw.rect(screen, PATH, (px + 1, py + 1, tile - 1, tile - 1), edge)
        else:
            pts = [cam.to_screen(int(x), int(y)) for x, y in state.result.path]
            pygame.draw.lines(screen, (0, 0, 0), False, pts, max(4, tile // 4 + 2))
            pygame.draw.lines(screen, PATH, False, pts, max(2, tile // 4))
    cur, nxt = state.current, state.next
    if cur is not None:
        _ring(screen, cam, cur, CURRENT, max(3, tile // 8))
    if nxt is not None and not state.done:
        # (at the cell's edge where the numbers show: inset, as at smaller zooms, it crossed them)
        _ring(screen, cam, nxt, NEXT, max(2, tile // 10), inset=0 if tile >= NUMBERS_AT else max(2, tile // 8))
    if tile >= NUMBERS_AT:  # (over the rings: a ring drawn over them hid the current cell's G and H)
        _numbers(screen, text, cam, state, c0, r0, c1, r1)
    font = text.font(max(10, int(tile * 0.55)))
    for p, colour, letter in ((start, START, "S"), (goal, GOAL, "G")):
        _marker(screen, font, cam.to_screen(*p), max(6.0, tile * 0.42), colour, letter)


def _grid_lines(screen: pygame.Surface, cam: Camera, c0: int, r0: int, c1: int, r1: int) -> None:
    """Faint cell borders: cells become things to count."""
    if cam.tile < 12:
        return
    colour = (0, 0, 0)
    layer = pygame.Surface(screen.get_size(), pygame.SRCALPHA)
    x0, y0 = c0 * cam.tile - cam.x, r0 * cam.tile - cam.y
    x1, y1 = c1 * cam.tile - cam.x, r1 * cam.tile - cam.y
    for c in range(c0, c1 + 1):
        x = round(c * cam.tile - cam.x)
        pygame.draw.line(layer, (*colour, 40), (x, y0), (x, y1))
    for r in range(r0, r1 + 1):
        y = round(r * cam.tile - cam.y)
        pygame.draw.line(layer, (*colour, 40), (x0, y), (x1, y))
    screen.blit(layer, (0, 0))


def _outline(screen: pygame.Surface, cam: Camera, mask: NDArray[np.bool_], c0: int, r0: int, colour: Colour) -> None:
    """A thin border round each cell of ``mask`` (the open list reads as separate cells)."""
    t = cam.tile
    if t < 8:
        return
    for y, x in zip(*np.nonzero(mask), strict=True):
        px, py = round((c0 + x) * t - cam.x), round((r0 + y) * t - cam.y)
        pygame.draw.rect(screen, colour, (px + 1, py + 1, t - 2, t - 2), 1)


def _arrows(screen: pygame.Surface, cam: Camera, state: SearchState, c0: int, r0: int, c1: int, r1: int) -> None:
    """An arrow in every reached cell pointing to the cell it came from (Red Blob Games' drawing)."""
    t = cam.tile
    parent = state.parent[r0:r1, c0:c1]
    w = state.width
    ys, xs = np.nonzero(parent >= 0)
    if ys.size == 0 or t < 10:
        return
    p = parent[ys, xs]
    dx = (p % w) - (xs + c0)
    dy = (p // w) - (ys + r0)
    norm = np.hypot(dx, dy)
    ux, uy = dx / norm, dy / norm
    length = t * 0.36
    head = max(3.0, t * 0.16)
    colour = ARROW_UNDER_NUMBERS if t >= NUMBERS_AT else ARROW
    for x, y, a, b in zip((xs + c0).tolist(), (ys + r0).tolist(), ux.tolist(), uy.tolist(), strict=True):
        cx, cy = cam.to_screen(x, y)
        tail = (cx - a * length * 0.55, cy - b * length * 0.55)
        tip = (cx + a * length, cy + b * length)
        pygame.draw.line(screen, colour, tail, tip, max(1, t // 16))
        left = (tip[0] - a * head - b * head * 0.6, tip[1] - b * head + a * head * 0.6)
        right = (tip[0] - a * head + b * head * 0.6, tip[1] - b * head - a * head * 0.6)
        pygame.draw.polygon(screen, colour, (tip, left, right))


def _jump_lines(screen: pygame.Surface, cam: Camera, state: SearchState, c0: int, r0: int, c1: int,
                r1: int) -> None:  # fmt: skip
    """JPS: a line from each jump point to the point it was reached from (through the turn of a
    diagonal-then-straight run), an arrowhead at the parent's end, rings on the points."""
    w = state.width
    ys, xs = nonzero_yx(state.parent >= 0)
    ps = state.parent[ys, xs]
    pxs, pys = ps % w, ps // w
    # Only the lines that may cross the window (a line from off screen may): a map of 2048x2048 cells
    # reaches thousands of jump points, each a Python step to draw.
    seen = (np.maximum(xs, pxs) >= c0 - 1) & (np.minimum(xs, pxs) <= c1) & \
           (np.maximum(ys, pys) >= r0 - 1) & (np.minimum(ys, pys) <= r1)  # fmt: skip
    t = cam.tile
    for x, y, px, py in zip(xs[seen].tolist(), ys[seen].tolist(), pxs[seen].tolist(), pys[seen].tolist(), strict=True):
        d = min(abs(x - px), abs(y - py))
        turn = (px + d * np.sign(x - px), py + d * np.sign(y - py))
        pts = [cam.to_screen(x, y), cam.to_screen(*turn), cam.to_screen(px, py)]
        pygame.draw.lines(screen, (0, 0, 0), False, pts, max(3, t // 8 + 2))
        pygame.draw.lines(screen, JUMP, False, pts, max(1, t // 8))
        a, b = pts[-2], pts[-1]
        n = math.hypot(b[0] - a[0], b[1] - a[1]) or 1.0
        ux, uy = (b[0] - a[0]) / n, (b[1] - a[1]) / n
        head = max(5.0, t * 0.3)
        tip = (b[0] - ux * t * 0.3, b[1] - uy * t * 0.3)
        left = (tip[0] - ux * head - uy * head * 0.5, tip[1] - uy * head + ux * head * 0.5)
        right = (tip[0] - ux * head + uy * head * 0.5, tip[1] - uy * head - ux * head * 0.5)
        pygame.draw.polygon(screen, JUMP, (tip, left, right))
    if t < NUMBERS_AT:  # the jump points as rings (from 32 px their numbers mark them), those on screen
        y0, x0 = max(r0 - 1, 0), max(c0 - 1, 0)  # (a ring round a cell just off screen shows in part)
        points = state.open[y0 : r1 + 1, x0 : c1 + 1] | state.closed[y0 : r1 + 1, x0 : c1 + 1]
        for y, x in zip(*np.nonzero(points), strict=True):
            pygame.draw.circle(screen, (0, 0, 0), cam.to_screen(int(x) + x0, int(y) + y0), max(4, t * 0.4),
                               max(2, t // 10))  # fmt: skip


def _scans(screen: pygame.Surface, cam: Camera, scans: JumpScans, step: int) -> None:
    """The runs each expansion so far scanned, faint; the forced neighbours that made its points, marked."""
    t = cam.tile
    layer = pygame.Surface(screen.get_size(), pygame.SRCALPHA)
    for k in range(min(step, len(scans.segments))):
        last = k == step - 1
        colour = (*SCAN, 200 if last else 90)
        for x0, y0, x1, y1 in scans.segments[k]:
            pygame.draw.line(layer, colour, cam.to_screen(x0, y0), cam.to_screen(x1, y1), max(2, t // 6))
    screen.blit(layer, (0, 0))
    for k in range(min(step, len(scans.forced))):
        for x, y in scans.forced[k]:
            cx, cy = cam.to_screen(x, y)
            r = max(3.0, t * 0.2)
            pygame.draw.polygon(
                screen, (0, 0, 0), ((cx, cy - r - 2), (cx + r + 2, cy + r + 1), (cx - r - 2, cy + r + 1))
            )
            pygame.draw.polygon(screen, FORCED, ((cx, cy - r), (cx + r, cy + r * 0.8), (cx - r, cy + r * 0.8)))


def _numbers(screen: pygame.Surface, text: Text, cam: Camera, state: SearchState, c0: int, r0: int, c1: int,
             r1: int) -> None:  # fmt: skip
    """G (top left), H (top right) and F (below, larger) in every reached cell."""
    t = cam.tile
    small, big = max(8, t // 4 - 1), max(10, int(t * 0.34))
    g = state.g[r0:r1, c0:c1]
    ys, xs = np.nonzero(np.isfinite(g))
    f = state.f[r0:r1, c0:c1]
    h = state.h[r0:r1, c0:c1]
    show_h = state.h_weight > 0
    show_g = state.g_weight > 0 and show_h  # (Dijkstra, the field: F is G, shown once)
    for y, x in zip(ys.tolist(), xs.tolist(), strict=True):
        px, py = round((c0 + x) * t - cam.x), round((r0 + y) * t - cam.y)
        g_label = text.render(_short(g[y, x]), (0, 0, 0), small) if show_g else None
        h_label = text.render(_short(h[y, x]), (0, 0, 0), small) if show_h else None
        g_at, h_at = label_spots(t, g_label.get_size() if g_label else None, h_label.get_size() if h_label else None)
        if g_label is not None:
            screen.blit(g_label, (px + g_at[0], py + g_at[1]))
        if h_label is not None:
            screen.blit(h_label, (px + h_at[0], py + h_at[1]))
        label = text.render(_short(f[y, x], 100), (0, 0, 0), big)
        screen.blit(label, (px + (t - label.get_width()) // 2, py + t - label.get_height()))


Size = tuple[int, int]


def label_spots(t: int, g: Size | None, h: Size | None) -> tuple[Size, Size]:
    """Where G's and H's labels (their ``(w, h)`` sizes in px, None: not shown) go in a cell of ``t``
    px, from its top-left corner: G top left, H top right, or a line lower where the two would
    touch (two decimals each in a small cell read as one number: "2.59.3")."""
    g_at = (2, 1)
    if h is None:
        return g_at, (0, 0)
    left = g[0] + 2 if g is not None else 0
    below = h[1] - 2 if left + 3 + h[0] > t - 2 else 0
    return g_at, (t - h[0] - 2, 1 + below)


def _short(v: float, decimals_below: float = 10) -> str:
    """A cell's number in at most 3-4 characters: 0.8, 9.6, 12, 140 (one decimal below ``decimals_below``)."""
    return "" if not math.isfinite(v) else f"{v:.0f}" if v >= decimals_below else f"{v:.1f}"


def _ring(screen: pygame.Surface, cam: Camera, cell: tuple[int, int], colour: Colour, width: int,
          inset: int = 0) -> None:  # fmt: skip
    t = cam.tile
    px, py = round(cell[0] * t - cam.x), round(cell[1] * t - cam.y)
    rect = pygame.Rect(px + inset, py + inset, t - 2 * inset, t - 2 * inset)
    pygame.draw.rect(screen, (0, 0, 0), rect.inflate(4, 4), width + 2)
    pygame.draw.rect(screen, colour, rect, width)


def _marker(screen: pygame.Surface, font: pygame.font.Font, p: tuple[float, float], r: float, colour: Colour,
            letter: str) -> None:  # fmt: skip
    pygame.draw.circle(screen, (0, 0, 0), p, r + 2)
    pygame.draw.circle(screen, colour, p, r)
    label = font.render(letter, True, (0, 0, 0))
    screen.blit(label, label.get_rect(center=(int(p[0]), int(p[1]))))


def legend(
    jumps: bool, scans: bool, numbers: bool, field_view: bool, g_weight: float = 1.0, h_weight: float = 1.0
) -> Legend:
    """The learn view's key."""
    rows: list[tuple[Colour | None, str]] = [
        (CLOSED, "closed: expanded, cost final" if not field_view else "settled: cost to the goal final"),
        (OPEN, "open list (the frontier)"),
        (NEXT, "next: least F, taken off next"),
        (CURRENT, "current: expanded last"),
        (PATH, "the path, once found"),
        (START, "S start (drag it)"),
        (GOAL, "G goal (drag it)"),
    ]
    if jumps:
        rows.insert(4, (JUMP, "jump from point to point"))
        if scans:
            rows.insert(5, (SCAN, "cells its jumps scanned"))
            rows.insert(6, (FORCED, "forced neighbour"))
    notes = ["arrows point to where each cell was reached from"] if not jumps else []
    if numbers:
        if h_weight == 0:
            notes.append("in each cell: G, its cost so far (= F)" if not field_view else "in each cell: its cost to G")
        else:
            notes.append("in each cell: G top left, H top right, F below")
    return Legend("key", rows, notes=notes)


def panel_lines(les: Lesson, state: SearchState | None, species: str) -> list[tuple[str, Colour]]:
    """The learn view's side panel: the strategy, the step, the current and next cells' numbers, the
    head of the open list, the result; its keys."""
    lines = [(f"Learn: {les.label} — {species}", GOOD)]
    if les.note:
        return [*lines, (les.note, WARN)]
    if state is None:
        what = "click the start" if les.start is None else "click the goal"
        return [*lines, (what, INK), ("cells: where this species can stand", DIM)]
    what = "settled" if les.algorithm == "field" else "expanded"
    mode = "playing" if les.playing else "paused" if not state.done else "done"
    lines.append((f"{what} {state.step} of {state.total}   {mode}, {les.speed}/s", INK))
    lines.append((f"open {np.count_nonzero(state.open)}   closed {np.count_nonzero(state.closed)}", INK))
    if les.algorithm == "field":
        lines.append(("grown from G until it settles S: one field serves every start", DIM))
    else:
        gw, hw = state.g_weight, state.h_weight
        rule = "F = H (greedy)" if gw == 0 else "F = G (Dijkstra: no H)" if hw == 0 else \
            "F = G + H" if hw == 1 else f"F = G + {hw:g}·H"  # fmt: skip
        lines.append((f"open list order: least {rule}", DIM))
        if state.canonical:  # (the engine's A* and Dijkstra, where a cell's 3x3 costs the same: kernel.canonical)
            lines.append(("amid one cost a cell opens only steps no path as short takes", DIM))
    cur = state.current
    if cur is not None:
        lines.append((f"current {cur}: {_gfh(state, cur)}", INK))
    nxt = state.next
    if nxt is not None and not state.done:
        lines.append((f"next {nxt}: {_gfh(state, nxt)}", INK))
        lines += [(f"  {row}", DIM) for row in _open_list(state, nxt)]
    if state.done:
        r = state.result
        lines.append((f"{state.status}: cost {r.cost:.2f}, {len(r.path)} cells" if r.found else
                      f"{state.status}: no path", GOOD if r.found else WARN))  # fmt: skip
    where = "PathGrid.distance_field" if les.algorithm == "field" else "PathGrid.search"
    lines.append((f"the engine's own search, replayed: counts and cost are {where}'s", DIM))
    keys = hints("Space play", "←→ step", "↑↓ speed", "End", f"1-{len(STRATEGIES)} strategy", "K code", "F1 keys")
    lines.append((keys, DIM))
    return lines


def _gfh(state: SearchState, cell: tuple[int, int]) -> str:
    g, h = float(state.g[cell[1], cell[0]]), float(state.h[cell[1], cell[0]])
    if not math.isfinite(g):
        return "not reached"
    if state.g_weight == 0:
        return f"H {h:.2f} = F"
    if state.h_weight == 0:
        return f"G {g:.2f} = F"
    w = state.h_weight
    return f"G {g:.2f} + {'' if w == 1 else f'{w:g}·'}H {h:.2f} = F {g + w * h:.2f}"


def _open_list(state: SearchState, nxt: tuple[int, int], most: int = 5) -> list[str]:
    """The head of the open list, least F first (the kernel's next first; ties as the kernel breaks them)."""
    ys, xs = nonzero_yx(state.open)
    h = state.h[ys, xs]
    f = state.g_weight * state.g[ys, xs] + state.h_weight * h  # (state.f for these cells: it makes every cell's)
    order = np.lexsort((h, f))[: most + 1]
    rows = [(int(xs[i]), int(ys[i]), float(f[i])) for i in order if (int(xs[i]), int(ys[i])) != nxt][: most - 1]
    out = [f"{(x, y)} F {v:.2f}" for x, y, v in rows]
    more = ys.size - 1 - len(rows)
    if more > 0:
        out.append(f"… {more} more on the open list")
    return out
