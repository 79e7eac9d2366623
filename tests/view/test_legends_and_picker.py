"""Legends for every view that is on, and a map picker that shows what each map is."""

from __future__ import annotations

import numpy as np
import pygame
import pytest

from tests.helpers import STEP, key


def test_every_view_that_is_on_says_so_in_the_status_bar(make_app):
    app = make_app("maps/tutorial.yaml", counts={"cow": 5, "bird": 0, "water": 0})
    for k in (pygame.K_v, pygame.K_x, pygame.K_p):
        key(k)
    app.frame(STEP)
    words = app.play.status()
    assert "COST FIELD cows (V)" in words and "HEAT MAP (X)" in words and "ALL PATHS (P)" in words
    for _ in range(3):
        key(pygame.K_ESCAPE)  # Esc closes them one by one
    app.frame(STEP)
    assert not any(w.endswith(("(V)", "(X)", "(P)")) for w in app.play.status())


def test_the_cost_field_legend_has_a_swatch_per_terrain_in_the_fields_own_colours(make_app):
    from sim.instruments import fields

    app = make_app("maps/island.yaml", counts={"cow": 5, "bird": 0, "water": 0})
    key(pygame.K_v)
    app.frame(STEP)
    sp = app.sim.species[0]
    placed = next(p for p in app.plan.placed if p.name == "legend")  # where the layout put it this frame
    rect, size = placed.rect, placed.size
    # The swatch of the cheapest terrain has the colour the field gives its cells.
    cheapest = min((m, t) for t, m in sp.spec.costs.items() if m > 0)
    expected = tuple(int(v) for v in fields.ramp(__import__("numpy").array(0.0)))
    line, pad = app.text.font(size).get_linesize(), max(4, size // 2)
    costs = sorted(sp.spec.costs.items(), key=lambda kv: kv[1])
    row = [t for t, _ in costs].index(cheapest[1])
    label = f"{cheapest[1]}: x{cheapest[0]:g}"
    title_lines = placed.lines.index(label) - row  # the title may take more than one line
    swatch = app.screen.get_at((rect.x + pad + 4, rect.y + pad + line * (title_lines + row) + line // 2))[:3]
    assert tuple(swatch) == expected
    assert rect.h >= line * (len(costs) + 2)


def test_the_picker_shows_headings_thumbnails_sizes_and_why_a_map_does_not_load(make_app):
    app = make_app("maps/tutorial.yaml", counts={"cow": 5, "bird": 0, "water": 0})
    app.user_maps_dir.mkdir(parents=True, exist_ok=True)
    (app.user_maps_dir / "broken.yaml").write_text("rows: |\n  ~~\n  ~\n")
    key(pygame.K_m)
    app.frame(STEP)
    picker = app.top
    entries = picker.entries()
    assert [head.split(" (")[0] for head in dict(entries)] == ["bundled maps", "your maps"]
    bundled = [picker.preview_of(p) for head, p in entries if head == "bundled maps"]
    yours = [picker.preview_of(p) for head, p in entries if head != "bundled maps"]
    tutorial = next(p for p in bundled if p.path.name == "tutorial.yaml")
    assert tutorial.size == "40x25" and tutorial.thumbnail is not None and tutorial.description
    assert yours[0].error.startswith("line 3: row 2 has 1 characters") and yours[0].thumbnail is None
    island = next(i for i, p in enumerate(picker.maps) if p.name == "island.yaml")
    picker.selected = island
    key(pygame.K_RETURN)
    app.frame(STEP)
    assert app.sim.world.name == "Island"


def test_a_folder_of_hundreds_of_maps_is_read_only_where_the_list_shows_it(make_app, monkeypatch):
    """With 300 maps the list read every map every frame, and its cache of 256 emptied itself each
    time: every frame read them all again. It reads those it shows; PgDn, End and Home move far."""
    import shutil

    from sim.view.draw import previews

    app = make_app("maps/tutorial.yaml", counts={"cow": 5, "bird": 0, "water": 0})
    app.user_maps_dir.mkdir(parents=True, exist_ok=True)
    for i in range(300):
        shutil.copy(app.maps_dir / "tutorial.yaml", app.user_maps_dir / f"m{i}.yaml")
    read: list[str] = []
    load = previews.load_map
    monkeypatch.setattr(previews, "load_map", lambda path: read.append(path.name) or load(path))
    key(pygame.K_m)
    for _ in range(3):
        app.frame(STEP)
    picker = app.top
    n = len(picker.maps)
    assert n == 306 and 0 < len(read) <= 20, len(read)  # the rows on screen (and one either side), once
    assert _picker_lines(app)[0].endswith(f"{picker.selected + 1} of {n}")
    for k, want in ((pygame.K_PAGEDOWN, picker.selected + 10), (pygame.K_END, n - 1), (pygame.K_PAGEDOWN, n - 1),
                    (pygame.K_HOME, 0), (pygame.K_PAGEUP, 0), (pygame.K_UP, n - 1)):  # fmt: skip
        key(k)
        app.frame(STEP)
        assert picker.selected == want, pygame.key.name(k)
    key(pygame.K_HOME)
    for notches, want in ((-3, 3), (1, 2), (5, 0)):  # the wheel: down 3, up 1, up past the top
        pygame.event.post(pygame.event.Event(pygame.MOUSEWHEEL, x=0, y=notches, flipped=False))
        app.frame(STEP)
        assert picker.selected == want, notches
    key(pygame.K_UP)
    app.frame(STEP)
    assert "m299.yaml" in read and len(read) <= 80  # the last page read when it was shown, and not much more
    shown = _picker_lines(app)
    assert any("m299.yaml" in line for line in shown) and shown[0].endswith(f"{n} of {n}")


def _picker_lines(app) -> list[str]:
    return next(p.lines for p in app.plan.placed if p.name == "picker")


@pytest.mark.parametrize("width", [120, 333, 64, 40])
def test_a_legends_colour_bar_shows_each_colour_in_its_columns(width):
    # Column i of the bar is colours[i * n // w] (drawn once a bar and size now; a line a column before).
    from sim.view.draw.legends import Legend
    from sim.view.draw.panels import Text

    pygame.font.init()
    colours = np.array([(10 * k, 255 - 7 * k, (31 * k) % 256) for k in range(20)], np.uint8)
    legend = Legend("t", bar=colours, ticks=["0", "1"], unit="u")
    screen = pygame.Surface((width + 60, 200), 0, 32)
    text = Text()
    rect = pygame.Rect(5, 5, width + 20, 150)
    legend.draw(screen, rect, text, 13)
    pixels = pygame.surfarray.array3d(screen)
    pad, ls = max(4, 13 // 2), text.font(13).get_linesize()
    x0, y0, inner = rect.x + pad, rect.y + pad + ls + 2, rect.w - 2 * pad  # the bar, under the title's line
    for i in range(1, inner - 1):  # (its border is black)
        assert tuple(pixels[x0 + i, y0 + (ls - 4) // 2]) == tuple(colours[i * len(colours) // inner])


def test_a_name_with_a_newline_or_a_tab_is_drawn_as_one_line():
    """A map file called "new<newline>line.yaml" was drawn on two lines, over the description under it:
    a line break is a space, another control character its escape."""
    from sim.view.draw.panels import Text, visible

    pygame.font.init()
    text = Text()
    assert visible("new\nline.yaml") == "new line.yaml" and visible("Two\nlines\n") == "Two lines "
    assert visible("tab\there\x00\x7f") == "tab\\there\\x00\\x7f" and visible("ünïcødé 地図") == "ünïcødé 地図"
    one = text.render("newline.yaml", (255, 255, 255), 14).get_height()
    assert text.render("new\nline.yaml", (255, 255, 255), 14).get_height() == one
    assert (
        text.panel_surface([("a\nb", (255, 255, 255))]).get_height()
        == text.panel_surface([("ab", (255, 255, 255))]).get_height()
    )
