"""Text panels drawn over the world: overlay (F3), help (F1/H), status line, cell readout, map list."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pygame

from sim.support.checks import one_line
from sim.support.resources import font_path
from sim.view.keys import KeyTable

INK = (236, 236, 228)
DIM = (160, 164, 160)
WARN = (255, 120, 100)
GOOD = (140, 230, 140)
PANEL = (12, 16, 24, 228)


#: Control characters that are no line break (those :func:`one_line` makes spaces) as their escapes.
_UNSEEN = {c: f"\\x{c:02x}" for c in (*range(32), 0x7F)} | {0x09: "\\t"}


def visible(text: str) -> str:
    """``text`` as one line: each line break one space (as on the terminal: :func:`one_line`; a map's
    name may end in one), every other control character (a tab, a bell, ...) written as its escape."""
    return text if text.isprintable() else one_line(text).translate(_UNSEEN)


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
            found = self._rendered[key] = self.font(size).render(visible(text), True, colour)
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

    def cached(self, key: tuple) -> Any:
        """A composed panel or bar (or what its maker keeps with it) under ``key``, if there is one."""
        return self._panels.get(key)

    def keep(self, key: tuple, surface: Any) -> Any:
        """Keep a composed panel or bar under ``key`` (at most ~64 of them); returns it."""
        if len(self._panels) > 64:
            self._panels.clear()
        self._panels[key] = surface
        return surface

    def _compose(self, lines: list[tuple[str, tuple[int, int, int]]], size: int, opaque: bool) -> pygame.Surface:
        font = self.font(size)
        rendered = [font.render(visible(t), True, c) for t, c in lines]
        w = max((r.get_width() for r in rendered), default=0) + 16
        h = sum(font.get_linesize() for _ in rendered) + 12
        box = pygame.Surface((w, h)) if opaque else pygame.Surface((w, h), pygame.SRCALPHA)
        box.fill(PANEL[:3] if opaque else PANEL)
        y = 6
        for r in rendered:
            box.blit(r, (8, y))
            y += font.get_linesize()
        return box


KEY = (250, 214, 120)  # key names in the help: apart from what they do at a glance


HelpRow = tuple[str, str, str, int]  # keys, what they do, "title"/"row"/"gap", the key column's width


def help_pages(text: Text, tables: list[KeyTable], width: int, height: int, size: int) -> list[
    list[tuple[int, list[HelpRow]]]]:  # fmt: skip
    """Every mode's keys as pages of columns that fit ``width`` x ``height`` pixels at font ``size``:
    each page a list of ``(x, column)``. As many columns a page as ~350 px (at 14 px text) allow;
    descriptions wrap to the column; a mode's block goes on in the next column (titled "continued")
    where the column ends, between two keys (a key's wrapped lines stay together), and a block of a
    few rows is not split."""
    font = text.font(size)
    ls = font.get_linesize()
    rows_fit = max(6, (height - 2 * ls) // ls)
    gap = font.size("  ")[0]
    ncols = max(1, width // (25 * size))
    cw = (width - gap * (ncols - 1)) // ncols
    columns: list[list[HelpRow]] = [[]]

    def block(title: str, rows: list[tuple[str, str]]) -> list[list[HelpRow]]:
        """A table's title, one entry a key (its wrapped lines), a gap; the key column as wide as the
        widest of these keys (each column's part of a block measures its own keys: "ctrl+Y /
        ctrl+shift+Z" in one left no room beside "U" and "Home" for their descriptions in the next)."""
        key_w = min(int(cw * 0.4), max((font.size(k)[0] for k, _ in rows), default=0) + gap)
        entries: list[list[HelpRow]] = [[(title, "", "title", key_w)]]
        for k, d in rows:  # keys too wide for their column wrap too: nothing is cut
            keys = wrap_keys(font, k, key_w - gap)
            does = wrap(font, d, max(40, cw - key_w - gap), max_lines=4)
            entries.append([(keys[i] if i < len(keys) else "", does[i] if i < len(does) else "", "row", key_w)
                            for i in range(max(len(keys), len(does)))])  # fmt: skip
        return [*entries, [("", "", "gap", key_w)]]

    for table in tables:
        rows, title = table.rows(), table.title
        entries = block(title, rows)
        while entries:
            left = rows_fit - len(columns[-1])
            total = sum(len(e) for e in entries)
            if total <= left:
                columns[-1].extend(line for e in entries for line in e)
                break
            # A short block, or little room: the next column, unless this one is still empty (a window
            # so small that a short block fits no column: then it is split like a long one; moving it on
            # from an empty column looped for ever, a column a turn, until memory ran out).
            if columns[-1] and (left < 6 or (total <= 8 and left < total)):
                columns.append([])
                continue
            take, used = 0, 0  # whole entries that fit (an entry cut in two read as two keys' worth)
            while take < len(entries) and used + len(entries[take]) <= left:
                used += len(entries[take])
                take += 1
            if take <= 1 and columns[-1]:  # no key would be left under the title: all to the next column
                columns.append([])
                continue
            # (An empty column holds the title and the first key at least: a key takes at most 4 lines,
            # wrapped, and a column at least 6, rows_fit.) The entries after the title are the rows', in
            # order; those that go here measured alone: no more lines than before, often fewer.
            columns[-1].extend(line for e in block(title, rows[: take - 1])[:-1] for line in e)
            rows, title = rows[take - 1 :], f"{table.title} (continued)"
            entries = block(title, rows) if rows else []  # (no title over a gap alone)
            columns.append([])
    columns = [c for c in columns if c]
    return [[(k * (cw + gap), col) for k, col in enumerate(columns[i : i + ncols])]
            for i in range(0, len(columns), ncols)]  # fmt: skip


def status_line(screen: pygame.Surface, text: Text, parts: list[tuple[str, tuple[int, int, int]]], rect: pygame.Rect,
                size: int, kept: Callable[[pygame.Surface], bool] | None = None) -> list[str]:  # fmt: skip
    """The bar at the bottom of the window, in ``rect``: as many of ``parts`` as fit, in order;
    returns those drawn. The composed bar is cached: it says the same for many frames. ``kept``,
    asked with the bar's picture, says whether the screen shows it there already (then it is not
    copied again)."""
    key = ("status", tuple(parts), rect.size, size)
    cached = text.cached(key)
    if cached is None:
        font = text.font(size)
        shown: list[str] = []
        x, gap = max(4, size // 2), font.size("  ")[0]
        for t, _c in parts:
            if x + font.size(t)[0] > rect.w - 4:
                break
            shown.append(t)
            x += font.size(t)[0] + gap
        bar = pygame.Surface(rect.size)
        bar.fill(PANEL[:3])
        x = max(4, size // 2)
        for t, c in parts[: len(shown)]:
            r = text.render(t, c, size)
            bar.blit(r, (x, (rect.h - r.get_height()) // 2))
            x += r.get_width() + gap
        cached = (bar, shown)  # (measuring the parts again each frame cost ~30 µs)
        text.keep(key, cached)
    bar, shown = cached
    if kept is None or not kept(bar):
        screen.blit(bar, rect.topleft)
    return list(shown)


def readout_bar(screen: pygame.Surface, text: Text, rect: pygame.Rect, line: str | None, size: int,
                kept: Callable[[pygame.Surface], bool] | None = None) -> str:  # fmt: skip
    """The strip above the status bar, in ``rect``: ``line`` (the cell under the cursor) cut to fit,
    on the panel colour; opaque and shown every frame, so nothing under it needs putting back.
    Returns the text drawn. ``kept``: as :func:`status_line`'s."""
    key = ("readout", line, rect.size, size)
    cached = text.cached(key)
    if cached is None:
        bar = pygame.Surface(rect.size)
        bar.fill(PANEL[:3])
        shown = fit_width(text.font(size), line, rect.w - size) if line else ""
        if shown:
            r = text.render(shown, INK, size)
            bar.blit(r, (size // 2, (rect.h - r.get_height()) // 2))
        cached = (bar, shown)  # (measuring the line again each frame cost ~15 µs)
        text.keep(key, cached)
    bar, shown = cached
    if kept is None or not kept(bar):
        screen.blit(bar, rect.topleft)
    return shown


def fit_width(font: pygame.font.Font, line: str, width: int) -> str:
    """``line``, its end cut off (with "…") until it is at most ``width`` pixels wide."""
    if font.size(line)[0] <= width:
        return line
    while line and font.size(line + "…")[0] > width:
        line = line[:-1]
    return line + "…"


def map_picker(screen: pygame.Surface, text: Text, box: pygame.Rect, entries: Sequence[tuple[str, Path]],
               preview_of: Callable[[Path], Any], selected: int, current: str,
               size: int) -> tuple[list[pygame.Rect], list[str]]:  # fmt: skip
    """The maps under their headings (``entries``: heading and path, in order; ``preview_of`` gives
    a path's :class:`~.previews.Preview`) in ``box``, each with a thumbnail, its size, name and its
    whole description (wrapped); as many as fit around the selected one, and only those are read
    (a folder of hundreds of maps read them all every frame). Returns each entry's rectangle (for
    clicks; empty where not shown) and every line drawn."""
    from sim.view.draw.previews import THUMB

    small = max(10, size - 1)
    font, note = text.font(size), text.font(small)
    pad = max(4, size // 2)
    screen.fill(PANEL[:3], box)
    pygame.draw.rect(screen, GOOD, box, 1)
    where = f"   {selected + 1} of {len(entries)}" if len(entries) > 1 else ""
    title = f"Choose a map (↑ ↓ Enter, or click; Esc closes){where}"
    if font.size(title)[0] > box.w - 2 * pad:  # a narrow window: the short form, then cut
        title = fit_width(font, f"Maps (↑ ↓ Enter; Esc){where}", box.w - 2 * pad)
    screen.blit(text.render(title, GOOD, size), (box.x + pad, box.y + pad))
    drawn = [title]
    x = box.x + pad + THUMB[0] + 2 * pad
    width = box.right - pad - x
    shown: dict[int, tuple[Any, list[str], int]] = {}  # entry -> its preview, description lines, height

    def entry(i: int) -> tuple[Any, list[str], int]:
        if i not in shown:
            p = preview_of(entries[i][1])
            about = _about(note, p, width)
            shown[i] = p, about, max(THUMB[1] + pad, font.get_linesize() + len(about) * note.get_linesize() + pad)
        return shown[i]

    top, bottom = box.y + 2 * pad + font.get_linesize(), box.bottom - pad
    first = selected  # as many around the selected one as fit
    used = entry(selected)[2] if entries else 0
    while first > 0 and used + entry(first - 1)[2] + note.get_linesize() <= (bottom - top) // 2 + entry(selected)[2]:
        first -= 1
        used += entry(first)[2]
    rects = [pygame.Rect(0, 0, 0, 0)] * len(entries)
    y, heading = top, None
    for i in range(first, len(entries)):
        head = entries[i][0]
        p, about, height = entry(i)
        extra = note.get_linesize() + 2 if head != heading else 0
        if y + extra + height > bottom:
            break
        if head != heading:
            heading = head
            screen.blit(text.render(head, DIM, small), (box.x + pad, y))
            drawn.append(head)
            y += extra
        rect = pygame.Rect(box.x + pad // 2, y, box.w - pad, height - 2)
        drawn += _picker_entry(screen, text, rect, p, about, i == selected, str(p.path) == current,
                               (box.x + pad, x, width), size)  # fmt: skip
        rects[i] = rect
        y += height
    return rects, drawn


def _picker_entry(screen: pygame.Surface, text: Text, rect: pygame.Rect, p: Any, about: list[str], selected: bool,
                  current: bool, xs: tuple[int, int, int], size: int) -> list[str]:  # fmt: skip
    """One map of the list in ``rect``: its thumbnail at ``xs[0]``, its name line and description at
    ``xs[1]`` (``xs[2]`` wide). Returns the lines drawn."""
    thumb_x, x, width = xs
    font, note, small = text.font(size), text.font(max(10, size - 1)), max(10, size - 1)
    if selected:
        screen.fill((40, 52, 70), rect)
        pygame.draw.rect(screen, GOOD, rect, 1)
    if p.thumbnail is not None:
        screen.blit(p.thumbnail, p.thumbnail.get_rect(midleft=(thumb_x, rect.centery)))
    here = "   (current)" if current else ""
    name = f"{p.name}   {p.size}   {p.path.name}{here}" if not p.error else f"{p.path.name}{here}"
    name = fit_width(font, name, width)
    screen.blit(text.render(name, GOOD if selected else INK, size), (x, rect.y + 2))
    for k, line in enumerate(about):
        screen.blit(text.render(line, WARN if p.error else DIM, small),
                    (x, rect.y + 2 + font.get_linesize() + k * note.get_linesize()))  # fmt: skip
    return [name, *about]


def _about(font: pygame.font.Font, p, width: int) -> list[str]:
    """A map's description (or why it does not load), whole, wrapped to ``width`` pixels."""
    from sim.view.draw.previews import one_line

    words = f"does not load: {p.error}" if p.error else one_line(p.description) or "(no description)"
    return wrap(font, words, width, max_lines=6)


#: What joins the words of one hint: a no-break space, drawn as a space, where :func:`wrap` never breaks.
KEEP = "\u00a0"


def hints(*groups: str, sep: str = "  ") -> str:
    """Key hints (``"K code"``, ``"F1 keys"``) on one line, ``sep`` apart, each kept whole when the
    line wraps: "End" at a line's end and "1-7 strategy" on the next read as other hints."""
    return sep.join(group.replace(" ", KEEP) for group in groups)


def wrap_keys(font: pygame.font.Font, keys: str, width: int, max_lines: int = 3) -> list[str]:
    """Key names in lines of at most ``width`` pixels, broken between alternatives first (after
    " /" and " or", at two spaces: "arrows /" over "W A S D", not "arrows / W A S" over "D", which
    read as a key of its own), then at spaces; the lines after the first indented by a space, so
    they read as the same keys."""
    if font.size(keys)[0] <= width:
        return [keys]
    lines: list[str] = []
    for part in re.split(r"(?<= /) |(?<= or) |  ", keys):
        if lines and font.size(lines[-1] + " " + part)[0] <= width:
            lines[-1] += " " + part
        else:
            lines.extend(wrap(font, part, width - (font.size(" ")[0] if lines else 0), max_lines=None))
    if len(lines) > max_lines:
        lines = wrap(font, keys, width - font.size(" ")[0], max_lines=max_lines)
    return [lines[0], *(" " + line for line in lines[1:])]


def wrap_groups(font: pygame.font.Font, groups: list[str], width: int, gap: str = "   ", sep: str = " · ") -> list[str]:
    """``groups`` (a key and what it does, a term and what it means) on as many lines of ``width``
    pixels as they need: ``gap`` apart on one line, else ``sep`` apart, each group whole on one line
    (never "latency: request to" over "path (p95)", nor a line that begins with the " · ") unless it
    alone is wider than a line, and none left out (a hint cut short would hide a key)."""
    line = gap.join(groups)
    if font.size(line)[0] <= width:
        return [line]
    lines: list[str] = []
    for group in groups:
        if lines and font.size(f"{lines[-1]}{sep}{group}")[0] <= width:
            lines[-1] += f"{sep}{group}"
        else:
            lines += wrap(font, group, width, max_lines=None)
    return lines


#: A line's label column: its indent, a short label, then two spaces or more ("  cost      12.3").
_LABEL = re.compile(r"( *)(\S(?:[^ ]| (?! ))*?)( {2,})(?=\S)")


def hang(line: str) -> str:
    """The indent a wrapped ``line``'s continuations take: under its value where it starts with a
    short label and one value ("  straight  4 segments: ..." continues under "4"), else its own
    indent."""
    m = _LABEL.match(line)
    # (Key hints, "Space play  ←→ step  ...", are groups side by side, not a label and its value.)
    if m and len(m.group(2)) <= 18 and KEEP not in line and "  " not in line[m.end() :]:
        return " " * m.end()
    return line[: len(line) - len(line.lstrip(" "))]


def wrap_hanging(font: pygame.font.Font, line: str, width: int, max_lines: int | None = 3) -> list[str]:
    """:func:`wrap`, with the continuations indented by :func:`hang` (a label's value reads as one
    column, not back at the panel's edge), where that leaves them at least half the width."""
    lines = wrap(font, line, width, max_lines)
    indent = hang(line)
    indent_w = font.size(indent)[0] if indent else 0
    if len(lines) < 2 or not indent or indent_w > width // 2 or not line.startswith(lines[0]):
        return lines
    rest = line[len(lines[0]) :].lstrip(" ")
    tail = wrap(font, rest, width - indent_w, None if max_lines is None else max(2, max_lines - 1))
    return [lines[0], *(indent + t for t in tail)]


def wrap(font: pygame.font.Font, line: str, width: int, max_lines: int | None = 3) -> list[str]:
    """``line`` in lines of at most ``width`` pixels, broken at spaces; a word too long for a
    line (a path) loses its middle, never its end; past ``max_lines`` (None: no limit) the middle of the
    message goes (its start and its reason stay)."""
    from sim.support.checks import cut_middle

    lines: list[str] = []
    for word in line.split(" "):
        while font.size(word)[0] > width and len(word) > 8:
            word = cut_middle(word, len(word) - max(1, len(word) // 8))
        if lines and font.size(lines[-1] + " " + word)[0] <= width:
            lines[-1] += " " + word
        elif word or not lines:  # (a space where the line breaks is dropped, not carried to the next)
            lines.append(word)
    if max_lines is not None and len(lines) > max_lines:
        lines = [*lines[: max_lines - 2], "…", lines[-1]]
    return lines
