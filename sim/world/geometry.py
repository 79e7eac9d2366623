"""Rectangles of cells. One convention everywhere: :class:`CellRect` ``(x0, y0, x1, y1)``, exclusive ends.

Map files write spawn areas as ``[x, y, width, height]`` (easier to type); they are
converted to :class:`CellRect` when read and back when written, and nowhere else.
"""

from __future__ import annotations

from typing import NamedTuple


class CellRect(NamedTuple):
    """The cells ``x0 <= x < x1``, ``y0 <= y < y1`` (exclusive ends)."""

    x0: int
    y0: int
    x1: int
    y1: int

    @classmethod
    def from_xywh(cls, x: int, y: int, width: int, height: int) -> CellRect:
        """From the file format ``[x, y, width, height]``."""
        return cls(x, y, x + width, y + height)

    @property
    def xywh(self) -> tuple[int, int, int, int]:
        """The file format ``(x, y, width, height)``."""
        return self.x0, self.y0, self.x1 - self.x0, self.y1 - self.y0

    @property
    def width(self) -> int:
        return self.x1 - self.x0

    @property
    def height(self) -> int:
        return self.y1 - self.y0

    @property
    def slices(self) -> tuple[slice, slice]:
        """``grid[rect.slices]`` is the block of a ``[y, x]`` grid."""
        return slice(self.y0, self.y1), slice(self.x0, self.x1)

    def clip(self, width: int, height: int) -> CellRect | None:
        """This rectangle cut to a ``width`` x ``height`` grid; ``None`` if nothing is left."""
        x0, y0 = max(0, self.x0), max(0, self.y0)
        x1, y1 = min(width, self.x1), min(height, self.y1)
        return CellRect(x0, y0, x1, y1) if x0 < x1 and y0 < y1 else None

    def grow(self, margin: int) -> CellRect:
        """This rectangle with ``margin`` cells more on every side (unclipped)."""
        return CellRect(self.x0 - margin, self.y0 - margin, self.x1 + margin, self.y1 + margin)

    def union(self, other: CellRect) -> CellRect:
        return CellRect(min(self.x0, other.x0), min(self.y0, other.y0), max(self.x1, other.x1), max(self.y1, other.y1))
