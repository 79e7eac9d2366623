"""Editing the map: painting, reset, and undo/redo of whole strokes (a mixin of :class:`Simulation`).

Every change goes through here, so the undo history, the cost grids (through the world's
change log) and the animals (re-planning where a change cuts their path) stay in step.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from numbers import Integral

import numpy as np

from sim.model.agents import Agents
from sim.model.replan import rescue_stranded, stop_crossing
from sim.model.species import SpeciesRuntime
from sim.support.checks import MAX_COORDINATE, short, whole_number
from sim.world.geometry import CellRect
from sim.world.history import Edit, EditHistory
from sim.world.history import apply as apply_edit
from sim.world.terrain import Terrain, parse_terrain
from sim.world.world import World


class Editing:
    """Map edits for the simulation; see the module doc."""

    world: World
    agents: Agents
    species: list[SpeciesRuntime]
    history: EditHistory
    _replans_pending: int

    def paint(self, cx: int, cy: int, radius: int, terrain: int | str | None) -> CellRect | None:
        """Paint ``terrain`` (a :class:`Terrain`, its id or name; ``None`` = the map's original)
        in a disc of ``radius`` cells around ``(cx, cy)``; animals whose path it cuts re-plan."""
        cx = whole_number("cx", cx, -MAX_COORDINATE, MAX_COORDINATE)
        cy = whole_number("cy", cy, -MAX_COORDINATE, MAX_COORDINATE)
        radius = whole_number("radius", radius, 0, MAX_COORDINATE)
        if isinstance(terrain, str):
            terrain = parse_terrain(terrain)
        elif terrain is not None and (
            isinstance(terrain, bool) or not isinstance(terrain, Integral) or not 0 <= terrain < len(Terrain)
        ):
            raise ValueError(
                f"terrain must be a terrain id from 0 to {len(Terrain) - 1}, a name or None, got {short(terrain)}"
            )
        w, h = self.world.width, self.world.height
        box = CellRect(cx - radius, cy - radius, cx + radius + 1, cy + radius + 1).clip(w, h)
        if box is None:
            return None
        before = self.world.terrain[box.slices].copy()
        with self._edit():
            rect = self.world.paint(cx, cy, radius, terrain)
            if rect is not None:
                self.history.touch(rect, before)
                self._after_change(rect, before)
        return rect

    def reset_map(self) -> CellRect | None:
        """Restore the whole map to its original terrain (one step of undo)."""
        before = self.world.terrain.copy()
        with self._edit():
            rect = self.world.reset()
            if rect is not None:
                self.history.touch(rect, before)
                self._after_change(rect, before)
        return rect

    @contextmanager
    def _edit(self) -> Iterator[None]:
        """A change outside a stroke is a stroke of its own (one step of undo)."""
        own = not self.history.in_stroke
        if own:
            self.history.begin()
        try:
            yield
        finally:
            if own:
                self.history.end(self.world.terrain)

    # ------------------------------------------------------------------ undo
    def begin_stroke(self) -> None:
        """Start a stroke: the paints until :meth:`end_stroke` undo as one step (mouse down to up)."""
        self.history.begin()

    def end_stroke(self) -> None:
        self.history.end(self.world.terrain)

    def undo(self) -> CellRect | None:
        """Undo the last stroke (or reset); returns the rectangle changed, or None if there is none."""
        return self._step(self.history.undo_stack, self.history.redo_stack, forward=False)

    def redo(self) -> CellRect | None:
        """Redo the last undone stroke; returns the rectangle changed, or None."""
        return self._step(self.history.redo_stack, self.history.undo_stack, forward=True)

    def _step(self, source: deque[Edit], target: deque[Edit], forward: bool) -> CellRect | None:
        if self.history.in_stroke:
            self.end_stroke()  # an undo in the middle of a stroke first closes it
        if not source:
            return None
        edit = source.pop()
        before = apply_edit(self.world.terrain, edit, forward)
        target.append(edit)
        self.world.changed(edit.rect)
        self._after_change(edit.rect, before)  # animals re-plan as after painting
        return edit.rect

    def _after_change(self, rect: CellRect, before: np.ndarray) -> None:
        changed = self.world.terrain[rect.slices] != before[: rect.height, : rect.width]
        self._replans_pending += stop_crossing(self.agents, self.species, self.world.width, rect, changed)
        self._replans_pending += rescue_stranded(self.agents, self.species)
