"""One layout owns the screen: in every mode, with the overlay off, compact or detailed, with and
without a message, under every modal, at 1280x800, 900x560 and 1920x1080 (and the smallest and a
4K window), the parts the frame placed never overlap (a modal may: it dims the rest), each stays
inside the window, and every line of text each drew fits its rectangle, measured with the real font."""

from __future__ import annotations

import itertools
import re

import numpy as np
import pygame
import pytest

from sim.view.layout import BASE_HEIGHT, Metrics
from tests.helpers import STEP, click, key, learn_query, open_learn, press, resize

SIZES = [(1280, 800), (900, 560), (1920, 1080)]
OVERLAY = [0, 1, 2]
MODES = ["play", "inspect", "compare", "picker", "confirm", "help", "log", "welcome"]
LONG = ("could not load map: /home/someone/a folder with a long name/maps/island-edited-7.yaml:12: "
        "spawn 'cow' area [0, 0, 2, 2] has no cell where cows can stand")  # fmt: skip


def enter(app, mode: str) -> None:
    """Put ``app`` into ``mode`` (from the play screen)."""
    sim = app.sim
    if mode == "inspect":  # an animal inspected, with the legends the right column stacks under it
        walker = int(np.flatnonzero(sim.agents.species == 0)[0])
        app.top.select(walker)
        app.top.show_paths = True
        app.instruments.enable_heat(True)
        app.top.field_species = 1
    elif mode == "compare":
        land = np.argwhere(sim.species[0].regions > 0)
        (y0, x0), (y1, x1) = land[0], land[-1]
        press(app, pygame.K_c)
        click(app, (int(x0), int(y0)))
        click(app, (int(x1), int(y1)))
    elif mode == "picker":
        press(app, pygame.K_m)
    elif mode == "confirm":
        app.ask_to_quit()
    elif mode == "help":
        press(app, pygame.K_F1)
    elif mode == "log":
        press(app, pygame.K_F2)
    elif mode == "welcome":
        app.welcome.showing = True


def check(app, what: str) -> None:
    placed = app.plan.placed
    screen = pygame.Rect((0, 0), app.screen.get_size())
    for p in placed:
        assert screen.contains(p.rect), (what, p.name, p.rect)
        if p.size:  # its text fits its rectangle, in the real font
            font = app.text.font(p.size)
            widest = max((font.size(t)[0] for t in p.lines), default=0)
            assert widest <= p.rect.w, (what, p.name, widest, p.rect.w, max(p.lines, key=lambda t: font.size(t)[0]))
            rows = len(p.lines) if p.name not in ("help", "compare", "picker") else 0  # (laid out in columns)
            assert rows * font.get_linesize() <= p.rect.h, (what, p.name, rows, p.rect)
    for a, b in itertools.combinations([p for p in placed if not p.modal], 2):
        if a.name == "compare" and b.name != "overlay":  # compare's region holds its own panels only
            continue
        assert not a.rect.colliderect(b.rect), (what, a.name, a.rect, b.name, b.rect)


def every_screen(app):
    """Each mode with the overlay off, compact and detailed, with and without a message: put on
    the screen and drawn, one after another; yields ``(mode, overlay level, message?)``."""
    for mode, level, message in itertools.product(MODES, OVERLAY, (False, True)):
        while app.modes[-1] is not app.play:  # back to the play screen
            app.pop(app.modes[-1])
        app.show_help = app.show_log = app.welcome.showing = False
        app.top.select(None)
        app.top.show_paths, app.top.field_species = False, None
        app.instruments.enable_heat(False)
        app.messages.clear()
        app.overlay.level = level
        enter(app, mode)
        if message:
            app.message(LONG)
        app.frame(STEP)
        yield mode, level, message


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_no_two_parts_overlap_and_every_text_fits(make_app, size):
    app = make_app("maps/island.yaml", counts={"cow": 60, "bird": 30, "water": 20})
    resize(app, size)
    for mode, level, message in every_screen(app):
        what = f"{size} {mode} overlay={level} message={message}"
        check(app, what)
        names = [p.name for p in app.plan.placed]
        modal = [p for p in app.plan.placed if p.modal]
        if mode in ("picker", "confirm", "help", "log", "welcome"):
            assert len(modal) == 1 and "message" not in names and "overlay" not in names, (what, names)
        else:
            assert not modal and ("message" in names) == message and ("overlay" in names) == (level > 0), (what, names)
        if mode == "inspect":
            assert {"inspector", "legend"} <= set(names), (what, names)
            inspector = next(p for p in app.plan.placed if p.name == "inspector")
            x, y = app.cam.to_screen(*app.sim.agents.pos[app.top.selected])
            assert not inspector.rect.collidepoint(x, y), what  # never over the animal it inspects


@pytest.mark.parametrize("size", [(320, 240), (640, 360), (1000, 240), (320, 900)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_smallest_windows_the_config_allows_keep_every_text_inside_its_part(make_app, size):
    # (before: at 320x240 F1 never returned, a help column a turn, until memory ran out; legend rows,
    # the map picker's and the log's titles and compare's bar chart ran past their parts)
    app = make_app("maps/island.yaml", counts={"cow": 60, "bird": 30, "water": 20})
    resize(app, size)
    for mode, level, message in every_screen(app):
        check(app, f"{size} {mode} overlay={level} message={message}")


def test_a_window_dragged_smaller_than_the_least_is_set_back_to_it(make_app):
    from sim.view.window import MIN_SIZE

    app = make_app("maps/island.yaml", counts={"cow": 20, "bird": 10, "water": 5})
    for size in ((1, 1), (40, 30), (2000, 60), (60, 1500)):
        resize(app, size)  # (before: at 1x1 a panel's height came out negative: pygame.error)
        want = (max(size[0], MIN_SIZE[0]), max(size[1], MIN_SIZE[1]))
        assert app.screen.get_size() == want, size
        for mode in MODES:
            while app.modes[-1] is not app.play:
                app.pop(app.modes[-1])
            app.show_help = app.show_log = app.welcome.showing = False
            enter(app, mode)
            app.frame(STEP)
    # The window manager's new size is there before its event is: the next frame (here a screenshot
    # taken first thing) must not draw at it (bench.monkey seed 26: "Invalid resolution for Surface").
    press(app, pygame.K_F1)
    key(pygame.K_F12)  # a key queued before the window manager's resize
    pygame.display.set_mode((1, 1))
    app.frame(STEP)
    assert app.screen.get_size() == MIN_SIZE and any(m[0].startswith("screenshot saved") for m in app.messages)


def test_help_pages_end_however_little_room_there_is():
    from sim.view.draw.panels import Text, help_pages

    pygame.font.init()  # (run alone, no other test has done it)

    class Table:
        def __init__(self, title: str, n: int) -> None:
            self.title, self.n = title, n

        def rows(self) -> list[tuple[str, str]]:
            return [(f"k{i}", f"does thing {i}") for i in range(self.n)]

    text = Text()
    tables = [Table(f"mode {n}", n) for n in (1, 5, 7, 8, 9, 30)]  # blocks of 3 to 32 lines
    for height in (0, 20, 60, 120, 400):
        pages = help_pages(text, tables, 300, height, 14)
        rows = [r for page in pages for _x, col in page for r in col if r[2] == "row"]
        assert [r[0] for r in rows] == [f"k{i}" for t in tables for i in range(t.n)], height  # every row, once


def test_a_keys_wrapped_lines_stay_in_one_column():
    """A block goes on in the next column between two keys, never inside one key's wrapped lines
    (the help at 1280x800 showed the end of Esc's line at the top of the next column)."""
    from sim.view.draw.panels import Text, help_pages

    pygame.font.init()

    class Table:
        def __init__(self, title: str, n: int) -> None:
            self.title, self.n = title, n

        def rows(self) -> list[tuple[str, str]]:  # descriptions of 1 to 4 lines at this width
            return [(f"k{i}", " ".join(["word"] * (3 + 9 * (i % 4)))) for i in range(self.n)]

    tables = [Table(f"mode {n}", n) for n in (3, 11, 17, 30)]
    for height in (0, 100, 150, 200, 260, 333, 400, 555, 700):
        pages = help_pages(Text(), tables, 700, height, 14)
        for page in pages:
            for _x, col in page:
                for before, line in zip([("", "", "title", 0), *col], col, strict=False):
                    if line[2] == "row" and not line[0]:  # the next line of a key's entry
                        assert before[2] == "row", (height, col)
        rows = [r[0] for page in pages for _x, col in page for r in col if r[2] == "row" and r[0]]
        assert rows == [f"k{i}" for t in tables for i in range(t.n)], height  # every key, once, in order


def test_a_block_continued_in_the_next_column_measures_its_own_keys():
    """Each column's part of a block has a key column as wide as its own widest key (at most 0.4 of
    the column): the help's "Play (continued)" kept the first part's, wide for "ctrl+Y /
    ctrl+shift+Z", and wrapped its long descriptions beside "U" and "R" in a narrow strip."""
    from sim.view.draw.panels import Text, help_pages

    pygame.font.init()
    text = Text()
    font = text.font(14)
    gap = font.size("  ")[0]

    class Table:
        title = "mode"

        def rows(self) -> list[tuple[str, str]]:  # one wide key first, then short ones with long text
            return [("ctrl+shift+wide key", "does"), *((f"k{i}", " ".join(["word"] * 14)) for i in range(40))]

    for width, height in ((700, 300), (900, 400), (1200, 500)):
        cap = int((width - gap * (max(1, width // 350) - 1)) // max(1, width // 350) * 0.4)
        parts = [col for page in help_pages(text, [Table()], width, height, 14) for _x, col in page]
        assert len(parts) >= 2, (width, height)  # (the block goes on in the next column)
        for col in parts:
            key_w = {line[3] for line in col}
            widest = max(font.size(line[0])[0] for line in col if line[2] == "row")
            assert len(key_w) == 1 and key_w.pop() in (widest + gap, cap), (width, height, col)


def test_keys_wrap_between_alternatives_and_go_on_indented():
    from sim.view.draw.panels import Text, wrap_keys

    pygame.font.init()
    font = Text().font(14)
    width = font.size("arrows / W A S")[0]  # (a word-by-word wrap left "D" alone, read as a key)
    assert wrap_keys(font, "arrows / W A S D", width) == ["arrows /", " W A S D"]
    assert wrap_keys(font, ", (comma)  . (period)", width) == [", (comma)", " . (period)"]
    assert wrap_keys(font, "ctrl+Y / ctrl+shift+Z", width) == ["ctrl+Y /", " ctrl+shift+Z"]
    assert wrap_keys(font, "F1 / H", width) == ["F1 / H"]
    for keys in ("middle or shift+right drag", "a b c d e f g h i j k l m n o p q r s t u v w x y z " * 3):
        lines = wrap_keys(font, keys, width)
        assert len(lines) <= 3 and all(font.size(line)[0] <= width for line in lines), lines


def test_the_overlay_takes_at_most_12_percent_of_the_window_compact(make_app):
    app = make_app("maps/island.yaml")
    resize(app, (1280, 800))
    app.overlay.level = 1
    for _ in range(120):
        app.frame(STEP)
    overlay = next(p for p in app.plan.placed if p.name == "overlay")
    assert overlay.rect.w * overlay.rect.h <= 0.12 * 1280 * 800


@pytest.mark.parametrize("size", [(800, 500), (3840, 2160)])
def test_the_parts_reflow_from_the_smallest_window_to_4k(make_app, size):
    app = make_app("maps/island.yaml", counts={"cow": 40, "bird": 20, "water": 10})
    resize(app, size)
    app.overlay.level = 2
    enter(app, "inspect")
    app.message(LONG)
    app.frame(STEP)
    check(app, f"{size}")
    assert app.plan.layout.metrics.body == Metrics.of(size[1]).body and app.cam.view_h == app.plan.layout.map.h
    if size[1] > BASE_HEIGHT:  # fonts grow with the window
        assert app.plan.layout.metrics.body > 14


def test_help_text_is_at_least_14_px_at_1280x800_and_turns_pages_where_it_does_not_fit(make_app):
    app = make_app("maps/island.yaml")
    resize(app, (1280, 800))
    press(app, pygame.K_F1)
    help_part = next(p for p in app.plan.placed if p.name == "help")
    assert help_part.size >= 14
    resize(app, (900, 560))
    seen = set()
    for _ in range(6):  # every page, each fitting (the check) and each different
        check(app, "help at 900x560")
        page = tuple(next(p for p in app.plan.placed if p.name == "help").lines)
        seen.add(page)
        key(pygame.K_RIGHT)
        app.frame(STEP)
    rows = sum(len(t.rows()) for t in app.tables())
    shown = {line for page in seen for line in page}
    assert len([line for line in shown if "  " in line]) >= rows  # every key's row is on some page


@pytest.mark.parametrize("overlay", [0, 2])
@pytest.mark.parametrize("size", [(800, 500), (900, 560), (1280, 800), (1920, 1080)])
def test_compare_keeps_every_key_hint_whole_on_one_line(make_app, size, overlay):
    """The compare screen's key hints and colour legend wrap between hints, never inside one ("Tab" at
    a line's end and "one/all" on the next read as two hints), and none is elided (at 900x560 the
    legend's colours had gone to an ellipsis). Where every hint would take more than half the screen,
    the main ones and "F1 every key" stand for them, and each panel still shows its map."""
    app = make_app("maps/island.yaml", counts={"cow": 10, "bird": 5, "water": 5})
    resize(app, size)
    app.overlay.level = overlay
    enter(app, "compare")
    app.message(LONG)
    app.frame(STEP)
    check(app, f"compare at {size}")
    header = next(p for p in app.plan.placed if p.name == "compare").lines
    every = ["1-3 species", "click a panel: large", "drag S or G, or paint walls: all run again",
             "right click or N: new query", "Space play/pause", "← → step", "↑ ↓ speed", "R replay",
             "Tab one/all", "K copy as code", "Esc or C: back"]  # fmt: skip
    main = ["click a panel: large", "N new query", "Space play/pause", "R replay", "Tab one/all", "Esc back",
            "F1 every key"]  # fmt: skip
    legend = ["closed: magenta", "left open: orange", "jump points: rings"]
    compact = any("F1 every key" in line for line in header)
    assert not compact or size[1] <= 560, (size, header)  # (every hint wherever they fit)
    for hint in (main if compact else every) + legend:
        assert sum(hint in line for line in header) == 1, (size, hint, header)
    assert not any(line.strip() == "…" for line in header), header
    panels = app.top.panels
    assert panels and all(p.place.w > 0 and p.place.h > 0 for p in panels), (size, [p.place for p in panels])
    titles = next(line for line in header if line.startswith(("cells expanded", "expanded")))
    assert titles in ("cells expanded   path cost", "expanded   cost"), titles  # (the bar chart's columns)


def test_the_bar_charts_titles_never_run_into_each_other(make_app):
    """The compare bar chart's first column title fits its column, else both take their short names
    (at 900x560 "cells expanded" had run into "path cost")."""
    from sim.view.draw.search_views import chart_titles

    app = make_app("maps/island.yaml", counts={"cow": 4, "bird": 2, "water": 2})
    font = app.text.font(Metrics.of(560).small)
    long_w = font.size("cells expanded")[0]
    assert chart_titles(font, long_w + 8) == ("cells expanded", "path cost")
    for col_w in (long_w + 7, long_w // 2):
        assert chart_titles(font, col_w) == ("expanded", "cost")


@pytest.mark.parametrize("size", [(800, 500), (900, 560), (1280, 800)])
def test_key_hints_stay_whole_when_a_panel_wraps_them(make_app, size):
    """The learn panel's, the inspector's and the welcome card's key hints break between hints only
    ("End" at a line's end and "1-7 strategy" on the next read as other keys)."""
    app = make_app("maps/island.yaml", counts={"cow": 10, "bird": 5, "water": 5})
    resize(app, size)
    app.overlay.level = 2

    def lines_of(name: str) -> list[str]:
        return [t.replace("\u00a0", " ") for t in next(p for p in app.plan.placed if p.name == name).lines]

    def whole(lines: list[str], groups: list[str]) -> None:
        for group in groups:
            assert sum(group in line for line in lines) == 1, (size, group, lines)

    app.welcome.showing = True
    app.frame(STEP)
    whole(lines_of("welcome"), ["paint with the mouse", "E watch A* think", "G call a herd", "F1 all keys"])
    app.welcome.showing = False
    enter(app, "inspect")
    app.frame(STEP)
    whole(lines_of("inspector"), ["F follow", "Esc / click ground: deselect", "magenta: closed", "orange: left open"])
    app.top.select(None)
    mode = open_learn(app)
    start, goal = learn_query(app.sim.species[mode.species])
    click(app, start)
    click(app, goal)
    app.frame(STEP)
    whole(lines_of("learn"), ["Space play", "←→ step", "↑↓ speed", "1-7 strategy", "K code", "F1 keys"])
    check(app, f"learn at {size}")


def test_a_wrapped_line_never_starts_with_the_space_it_broke_at(make_app):
    """Hints two spaces apart: where the line breaks between them, the next line starts with the hint,
    not with a space (an indented line keeps its indent)."""
    from sim.view.draw.panels import hints, wrap

    app = make_app("maps/island.yaml", counts={"cow": 4, "bird": 2, "water": 2})
    font = app.text.font(14)
    line = hints("Space play", "←→ step", "↑↓ speed", "End", "1-7 strategy", "K code", "F1 keys")
    for width in range(font.size("1-7 strategy")[0], font.size(line)[0] + 1, 3):
        pieces = wrap(font, line, width, max_lines=20)
        assert all(not piece.startswith(" ") for piece in pieces), (width, pieces)
        assert " ".join(p.strip() for p in pieces).split() == line.split(), (width, pieces)
    assert wrap(font, "  (93, 33) F 2.05", 400) == ["  (93, 33) F 2.05"]


@pytest.mark.parametrize("level", [1, 2])
@pytest.mark.parametrize("size", [(800, 500), (900, 560), (1280, 800)])
def test_the_overlays_species_rows_never_wrap(make_app, size, level):
    """Each species' row of the overlay (searches, cells expanded, what a search takes, and in the
    detailed level what serves it) stays one line: in a narrow window its columns close up rather than
    leave "0" at one line's end and "ms" on the next."""
    app = make_app("maps/island.yaml", counts={"cow": 10, "bird": 5, "water": 5})
    resize(app, size)
    app.overlay.level = level
    enter(app, "inspect")  # (the inspector's column beside it)
    app.frame(STEP)
    check(app, f"overlay at {size}")
    lines = next(p for p in app.plan.placed if p.name == "overlay").lines
    row = r" +\S+/s +\S+/s +(-|\S+ [µm]s)" + (r" +(A\*|JPS)" if level == 2 else "")
    for sp in app.sim.species:
        rows = [line for line in lines if line.startswith(sp.label) and "/s" in line]
        assert len(rows) == 1 and re.fullmatch(re.escape(sp.label) + row, rows[0]), (size, sp.label, lines)


@pytest.mark.parametrize("size", [(800, 500), (900, 560), (1280, 800)])
def test_a_compare_panels_title_is_never_cut_off(make_app, size):
    """Where "JPSW (weighted jump points)" would run past its panel's edge, the panel says "JPSW"."""
    from sim.view.draw.search_views import panel_label

    app = make_app("maps/island.yaml", counts={"cow": 10, "bird": 5, "water": 5})
    resize(app, size)
    enter(app, "compare")
    app.frame(STEP)
    font = app.text.font(app.plan.layout.metrics.small)
    assert app.top.panels
    for panel in app.top.panels:
        label = app.top.cmp.runs[panel.run].label
        shown = panel_label(label, font, panel.rect.w - 12)
        assert font.size(shown)[0] <= panel.rect.w - 12, (size, label, shown, panel.rect)
        assert shown == label or label.startswith(shown) or shown in ("Field", "Greedy"), (label, shown)


@pytest.mark.parametrize(("size", "level"), [((640, 400), 1), ((900, 560), 1), ((900, 560), 2), ((1280, 800), 2)])
def test_the_overlays_legend_wraps_between_its_terms(make_app, size, level):
    """The F3 overlay's legend breaks between its terms, each whole on one line where one holds it,
    and loses nothing: at 900x560 "latency: request to" stood over "path (p95)", the next line
    beginning with the " · "."""
    terms = ["waiting: searches queued", "latency: request to path (p95)", "exp: cells expanded"]
    app = make_app("maps/island.yaml", counts={"cow": 10, "bird": 5, "water": 5})
    resize(app, size)
    app.overlay.level = level
    app.frame(STEP)
    check(app, f"overlay at {size}")
    lines = next(p for p in app.plan.placed if p.name == "overlay").lines
    legend = lines[next(i for i, line in enumerate(lines) if line.startswith("waiting:")) :]
    assert " ".join(legend).replace(" · ", " ").split() == " ".join(terms).split(), legend  # all of it, in order
    assert not any(line.strip().startswith("·") or line.strip().endswith("·") for line in legend), legend
    if size[0] >= 640:  # (a panel wide enough for the longest term)
        for term in terms:
            assert sum(term in line for line in legend) == 1, (term, legend)


@pytest.mark.parametrize("width", [60, 120, 200, 320, 2000])
def test_groups_wrap_between_groups_and_lose_nothing(width):
    """:func:`wrap_groups` (the compare header's hints, the overlay's legend): one line, ``gap``
    apart, where all fit; else " · " between groups, each whole where a line holds it, broken at
    spaces only where it alone is wider than a line; never a line that begins or ends with the " · "."""
    from sim.view.draw.panels import wrap_groups

    pygame.font.init()
    font = pygame.font.Font(None, 18)
    groups = ["waiting: searches queued", "latency: request to path (p95)", "exp: cells expanded", "K copy"]
    lines = wrap_groups(font, groups, width, gap="   ")
    if font.size("   ".join(groups))[0] <= width:
        assert lines == ["   ".join(groups)]
    assert " ".join(lines).replace(" · ", " ").split() == " ".join(groups).split()  # all, in order
    assert not any(line.startswith("·") or line.endswith("·") for line in lines), lines
    for g in groups:
        if font.size(g)[0] <= width:
            assert sum(g in line for line in lines) == 1, (g, lines)
    assert all(font.size(line)[0] <= width for line in lines if " " in line), lines


@pytest.mark.parametrize("width", [150, 220, 320, 2000])
def test_a_labelled_line_wraps_under_its_value(width):
    """A panel's wrapped line with a label column ("  straight  4 segments: ...", the inspector's)
    continues under its value, not back at the panel's edge; a line without a short label keeps
    its own indent; nothing is lost and no piece is wider than the panel."""
    from sim.view.draw.panels import hang, hints, wrap_hanging

    pygame.font.init()
    font = pygame.font.Font(None, 18)
    assert hang("  straight  4 segment(s): the path") == " " * 12
    assert hang("    3 s  map: x.yaml line 3: bad") == " " * 9
    assert hang("        grid = PathGrid(costs)  # why") == " " * 8  # (code: a long 'label' is no label)
    assert hang("a plain message") == ""
    assert hang(hints("Space play", "←→ step", "K code")) == ""  # (groups side by side: no label)
    assert hang("open 32   closed 16   next 3") == ""
    line = "  straight  4 segment(s): A*'s grid path pulled straight (thin line)"
    lines = wrap_hanging(font, line, width, max_lines=None)
    assert " ".join(lines).split() == line.split()
    assert all(font.size(piece)[0] <= width for piece in lines), lines
    if len(lines) == 1:
        assert font.size(line)[0] <= width
    for piece in lines[1:]:
        assert piece.startswith(" " * 12) and piece[12] != " ", lines


@pytest.mark.parametrize("width", [180, 260, 330, 420, 900])
def test_a_legends_note_keeps_its_terms_whole(width):
    """The herd field's note, "green near, red far; dark lines: equal cost; arrows: the next step",
    wraps between its terms (at 1280x800 it showed "arrows:" at a line's end, "the next step" under
    it); nothing lost, no line wider than the panel."""
    from sim.view.draw.legends import Legend
    from sim.view.draw.panels import Text

    pygame.font.init()
    text = Text()
    terms = ["green near, red far", "dark lines: equal cost", "arrows: the next step"]
    legend = Legend("herd field", notes=["; ".join(terms)])
    lines = legend.lines(text, 14, width)[1:]
    font = text.font(14)
    assert " ".join(lines).replace(";", "").split() == " ".join(terms).split()
    for term in terms:
        assert sum(term in line for line in lines) == 1, (term, lines)
    assert all(font.size(line)[0] <= width for line in lines), lines
    assert legend.size(text, 14, width)[0] <= width
