"""The play mode's side panels: the inspector, placed where it never hides the animal it inspects,
then the legends of what is shown and the minimap, stacked in the layout's columns."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import pygame

from sim.instruments.inspector import describe
from sim.view.compose import panel_box, side_panel
from sim.view.context import PlayContext
from sim.view.draw.legends import place as place_legend
from sim.view.draw.search_views import inspector_lines

context = PlayContext  # what these parts of the play mode see of the app (tests/test_architecture.py)
PlayMode = Any  # sim.view.modes.play.PlayMode (not imported: it imports this module)


def place_inspector(play: PlayMode) -> Callable[[], object] | None:
    """The inspector's place, taken before the world is drawn: the column away from the animal it
    inspects if it fits there, else one where it does not cover the animal, else the right column
    with the view panned so the animal stands left of it. Returns what draws it."""
    app, sel = play.app, play.selected
    assert sel is not None
    plan, cam = app.plan, app.cam
    colour = app.sim.species[app.sim.agents.species[sel]].spec.colour
    lines = inspector_lines(describe(app.sim, sel), colour)
    x, y = cam.to_screen(*app.sim.agents.pos[sel])
    near, far = ("right", "left") if x >= plan.layout.right.x - 2 * plan.layout.metrics.margin else ("left", "right")
    for side in (far, near, "right"):
        box = panel_box(app, side, lines)
        if box is None:
            continue
        if box.collidepoint(x, y):
            if side != "right":
                continue
            cam.x += x - (box.x - 3 * plan.layout.metrics.margin)  # pan: the animal stands left of the panel
            cam.clamp()
            x, y = cam.to_screen(*app.sim.agents.pos[sel])
            app.view.invalidate()
        return functools.partial(side_panel, app, side, "inspector", lines)
    return None


def side_panels(play: PlayMode, surface: pygame.Surface) -> None:
    """The side panels after the inspector: the legends of what is shown, then the minimap; each
    stacked in its column."""
    app, views, sel = play.app, play.app.search_views, play.selected
    legends = [views.cost_field_legend(play.field_species) if play.field_species is not None else None,
               play.herding.legend(), views.heat_legend() if sel is None else None,
               views.paths_legend() if play.show_paths else None]  # fmt: skip
    for legend in legends:
        if legend is not None:
            place_legend(app, legend)
    world = app.sim.world
    room = app.plan.column("right")
    mini = play.minimap.draw(surface, app.cam, world.terrain, world.revision, app.view.terrain.colours, room)
    if mini is not None:
        app.plan.put("minimap", mini)
        app.view.dirty.append(mini)
