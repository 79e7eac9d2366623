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
    sections = picker.sections()
    assert [head.split(" (")[0] for head, _ in sections] == ["bundled maps", "your maps"]
    bundled, yours = sections[0][1], sections[1][1]
    tutorial = next(p for p in bundled if p.path.name == "tutorial.yaml")
    assert tutorial.size == "40x25" and tutorial.thumbnail is not None and tutorial.description
    assert yours[0].error.startswith("line 3: row 2 has 1 characters") and yours[0].thumbnail is None
    island = next(i for i, p in enumerate(picker.maps) if p.name == "island.yaml")
    picker.selected = island
    key(pygame.K_RETURN)
    app.frame(STEP)
    assert app.sim.world.name == "Island"


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
