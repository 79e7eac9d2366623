"""Undo and redo for map edits: whole strokes, a reset included, in bounded memory.

An edit is stored sparsely: the rectangle it touched and, for each cell that changed,
its flat index in that rectangle and its terrain before and after (6 bytes a cell), so a
long stroke across a big map costs what it changed, not what it spans. The oldest edits
are dropped once the history holds more than ``max_bytes`` or ``max_steps``.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from sim.world.geometry import CellRect

MAX_BYTES = 64 * 2**20
MAX_STEPS = 500


@dataclass(frozen=True)
class Edit:
    """The cells of ``rect`` that changed: flat indices into the rectangle, values before and after."""

    rect: CellRect
    index: np.ndarray  # int32, into rect's cells in row order
    before: np.ndarray  # uint8
    after: np.ndarray  # uint8

    @cached_property
    def nbytes(self) -> int:
        """Its memory in bytes, worked out once: the history adds up every edit's at each dab (500 of them)."""
        return self.index.nbytes + self.before.nbytes + self.after.nbytes

    @classmethod
    def between(cls, rect: CellRect, before: np.ndarray, after: np.ndarray) -> Edit | None:
        """The edit that turns block ``before`` into block ``after`` (both ``rect``-sized), or None."""
        changed = np.flatnonzero(before != after)
        if changed.size == 0:
            return None
        return cls(rect, changed.astype(np.int32), before.reshape(-1)[changed], after.reshape(-1)[changed])


class EditHistory:
    """Strokes of painting (``begin``, ``touch`` per dab, ``end``) and the undo/redo stacks."""

    def __init__(self, max_bytes: int = MAX_BYTES, max_steps: int = MAX_STEPS) -> None:
        self.max_bytes = max_bytes
        self.max_steps = max_steps
        self.undo_stack: deque[Edit] = deque()
        self.redo_stack: deque[Edit] = deque()
        self._stroke: list[tuple[CellRect, np.ndarray]] | None = None  # (rect, terrain before) per dab
        self.dropped = 0  # edits forgotten to stay within the bounds

    @property
    def in_stroke(self) -> bool:
        return self._stroke is not None

    def begin(self) -> None:
        """Start a stroke: every change until :meth:`end` undoes as one step."""
        if self._stroke is None:
            self._stroke = []

    def touch(self, rect: CellRect, before: np.ndarray) -> None:
        """A change inside the current stroke: ``before`` is ``rect``'s terrain before it."""
        if self._stroke is not None:
            self._stroke.append((rect, before))

    def end(self, terrain: np.ndarray) -> Edit | None:
        """Close the stroke against the current ``terrain``; the edit is pushed (redo is cleared)."""
        dabs, self._stroke = self._stroke, None
        if not dabs:
            return None
        union = dabs[0][0]
        for rect, _ in dabs[1:]:
            union = union.union(rect)
        after = terrain[union.slices].copy()
        before = after.copy()
        for rect, block in reversed(dabs):  # the earliest value of each cell wins
            before[rect.y0 - union.y0 : rect.y1 - union.y0, rect.x0 - union.x0 : rect.x1 - union.x0] = block
        edit = Edit.between(union, before, after)
        if edit is not None:
            self.push(edit)
        return edit

    def push(self, edit: Edit) -> None:
        self.undo_stack.append(edit)
        self.redo_stack.clear()
        self._trim()

    def _trim(self) -> None:
        total = sum(e.nbytes for e in self.undo_stack)
        while self.undo_stack and (total > self.max_bytes or len(self.undo_stack) > self.max_steps):
            total -= self.undo_stack.popleft().nbytes
            self.dropped += 1

    def clear(self) -> None:
        self.undo_stack.clear()
        self.redo_stack.clear()
        self._stroke = None

    @property
    def nbytes(self) -> int:
        return sum(e.nbytes for e in self.undo_stack) + sum(e.nbytes for e in self.redo_stack)


def apply(terrain: np.ndarray, edit: Edit, forward: bool) -> np.ndarray:
    """Write ``edit``'s after (``forward``) or before values into ``terrain``; returns the block as it was."""
    block = terrain[edit.rect.slices]  # a view: written in place
    old = block.copy()
    ys, xs = np.divmod(edit.index, edit.rect.width)
    block[ys, xs] = edit.after if forward else edit.before
    return old
