"""Connected regions of a species' passable cells, so impossible goals are known before any search.

Two cells share a region when an animal can walk from one to the other. Which steps
are legal is the engine's rule (:mod:`sim.pathfinding.rules`): under "never",
"no-corner-cutting" and "one-obstacle" that is 4-connectivity (a legal diagonal step
always has a passable side cell, so two straight steps reach the same cell); only
"always" joins cells diagonally, and then 8-connectivity is used.

Regions are labelled once per map, then kept up to date as cells change, at a cost
that follows the change and the regions it touches, never the map:

* a cell that becomes passable joins the regions around it; when it joins several, the
  smaller ones are relabelled to the largest;
* cells that become blocked can only split the region they were in. A breadth-first
  search starts from each of their passable neighbours at once, all fronts one step at a
  time; fronts that meet are one piece, and the search stops as soon as one piece is
  left (nothing split; usually a few cells around the cut), or when a piece runs out of
  cells, which makes it a region of its own.

The updates' scratch memory (visit stamps, which front reached a cell) is the main
thread's search workspace (its marks and JPS's int32 array), so regions keep no
whole-map array beyond their labels; labelling from scratch uses a stack it frees.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.pathfinding.checks import as_array
from sim.pathfinding.grid import check_2d
from sim.pathfinding.options import check_diagonal
from sim.pathfinding.rules import eight_connected
from sim.pathfinding.workspace import workspace

__all__ = ["Regions", "label_regions"]

_D4 = np.array(((1, 0), (-1, 0), (0, 1), (0, -1)), dtype=np.int64)
_D8 = np.array(((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, 1), (1, -1), (-1, -1)), dtype=np.int64)


@njit(cache=True)
def _label_all(free, dirs, labels, stack, limit):
    """Label every region from scratch (0 = impassable); returns the number of regions, or -1
    as soon as there would be more than ``limit`` (the labels' type cannot hold them)."""
    h, w = free.shape
    count = 0
    for y0 in range(h):
        for x0 in range(w):
            if not free[y0, x0] or labels[y0, x0] != 0:
                continue
            count += 1
            if count > limit:
                return -1
            labels[y0, x0] = count
            stack[0] = y0 * w + x0
            top = 1
            while top > 0:
                top -= 1
                y = stack[top] // w
                x = stack[top] - y * w
                for d in range(dirs.shape[0]):
                    nx = x + dirs[d, 0]
                    ny = y + dirs[d, 1]
                    if 0 <= ny < h and 0 <= nx < w and free[ny, nx] and labels[ny, nx] == 0:
                        labels[ny, nx] = count
                        stack[top] = ny * w + nx
                        top += 1
    return count


@njit(cache=True)
def _relabel(labels, start, old, new, dirs, queue):
    """Give the region ``old`` that holds flat cell ``start`` the label ``new``; returns its size."""
    h, w = labels.shape
    labels.flat[start] = new
    queue[0] = start
    head, tail = 0, 1
    while head < tail:
        c = queue[head]
        head += 1
        y = c // w
        x = c - y * w
        for d in range(dirs.shape[0]):
            nx = x + dirs[d, 0]
            ny = y + dirs[d, 1]
            if 0 <= ny < h and 0 <= nx < w and labels[ny, nx] == old:
                labels[ny, nx] = new
                queue[tail] = ny * w + nx
                tail += 1
    return tail


@njit(cache=True)
def _find(parent, i):
    while parent[i] != i:
        parent[i] = parent[parent[i]]
        i = parent[i]
    return i


@njit(cache=True)
def _seed(seeds, stamp, gen, owner, parent, pending, queue):
    """Start one front per seed (a seed already reached joins that front); returns
    ``(fronts alive, cells queued)``."""
    alive = seeds.size
    tail = 0
    for i in range(seeds.size):
        c = seeds[i]
        if stamp[c] == gen:
            r = _find(parent, owner[c])
            if r != i:
                parent[i] = r
                alive -= 1
            continue
        stamp[c] = gen
        owner[c] = i
        queue[tail] = c
        tail += 1
        pending[i] += 1
    return alive, tail


@njit(cache=True)
def _cut_off(labels, region, queue, tail, parent, owner, front, label, sizes):
    """The piece of ``front`` is a region of its own: give its visited cells ``label``."""
    count = 0
    for j in range(tail):
        v = queue[j]
        if labels.flat[v] == region and _find(parent, owner[v]) == front:
            labels.flat[v] = label
            count += 1
    sizes[label] = count
    sizes[region] -= count


@njit(cache=True)
def _split(labels, region, seeds, dirs, stamp, gen, owner, queue, next_label, sizes):
    """Decide whether ``region`` fell apart after some of its cells were blocked.

    ``seeds`` are its cells next to the blocked ones. Each starts a front; fronts that
    meet are joined (union-find); a group of fronts with nothing left to explore is a
    separate piece and is relabelled ``next_label``, ``next_label + 1``, ... . Stops
    when one group is left. ``stamp``/``owner`` are scratch arrays indexed by flat cell
    (``stamp[c] == gen``: visited, by front ``owner[c]``). Returns the next free label.
    """
    h, w = labels.shape
    parent = np.arange(seeds.size)
    pending = np.zeros(seeds.size, dtype=np.int64)  # queued cells per front (summed at the root)
    alive, tail = _seed(seeds, stamp, gen, owner, parent, pending, queue)
    head = 0
    while alive > 1 and head < tail:
        c = queue[head]
        head += 1
        f = _find(parent, owner[c])
        pending[f] -= 1
        y = c // w
        x = c - y * w
        for d in range(dirs.shape[0]):
            nx = x + dirs[d, 0]
            ny = y + dirs[d, 1]
            if not (0 <= ny < h and 0 <= nx < w) or labels[ny, nx] != region:
                continue
            n = ny * w + nx
            if stamp[n] != gen:
                stamp[n] = gen
                owner[n] = f
                queue[tail] = n
                tail += 1
                pending[f] += 1
            else:
                g = _find(parent, owner[n])
                if g != f:  # two fronts met: one piece
                    parent[g] = f
                    pending[f] += pending[g]
                    pending[g] = 0
                    alive -= 1
        if pending[f] == 0 and alive > 1:  # nothing left to explore: cut off from the others
            _cut_off(labels, region, queue, tail, parent, owner, f, next_label, sizes)
            next_label += 1
            alive -= 1
    return next_label


@njit(cache=True)
def _open_cells(labels, sizes, cells, dirs, next_label):
    """Cells that became passable join the regions around them; several regions merge into the
    largest (the others are relabelled, starting from the neighbour that showed them)."""
    h, w = labels.shape
    for i in range(cells.size):
        c = cells[i]
        y = c // w
        x = c - y * w
        label = 0
        for d in range(dirs.shape[0]):  # the largest region around keeps its label
            nx = x + dirs[d, 0]
            ny = y + dirs[d, 1]
            if 0 <= ny < h and 0 <= nx < w:
                other = labels[ny, nx]
                if other != 0 and (label == 0 or sizes[other] > sizes[label]):
                    label = other
        if label == 0:
            label = next_label
            next_label += 1
        for d in range(dirs.shape[0]):
            nx = x + dirs[d, 0]
            ny = y + dirs[d, 1]
            if 0 <= ny < h and 0 <= nx < w:
                other = labels[ny, nx]
                if other != 0 and other != label:
                    queue = np.empty(sizes[other], dtype=np.int64)
                    moved = _relabel(labels, ny * w + nx, other, label, dirs, queue)
                    sizes[label] += moved
                    sizes[other] -= moved
        labels[y, x] = label
        sizes[label] += 1
    return next_label


def _free_map(labels: np.ndarray, x0: int, y0: int, free: np.ndarray) -> np.ndarray:
    """The whole map's passability: the labels' outside the block at ``(x0, y0)``, ``free`` inside."""
    out = labels != 0
    out[y0 : y0 + free.shape[0], x0 : x0 + free.shape[1]] = free
    return out


class Regions:
    """Region labels (``[y, x]``; 0 = impassable, 1.. = regions) for one passability grid.

    Labels are uint16 (2 bytes a cell) while there are at most 65,535 of them, else int32;
    when new labels would run past the type, everything is labelled afresh (renumbered).
    """

    def __init__(self, free: np.ndarray, diagonal: str = "no-corner-cutting") -> None:
        rule = check_diagonal(diagonal)  # (the engine's own check: its exact messages)
        free = np.ascontiguousarray(free, dtype=np.bool_)
        if free.ndim != 2:
            raise ValueError(f"free must be 2-D (indexed [y, x]), got {free.ndim}-D with shape {free.shape}")
        self._diagonal = diagonal
        self.dirs = _D8 if eight_connected(rule) else _D4
        self._label(free)

    def _label(self, free: np.ndarray) -> None:
        # A stack of its own, freed on return: on a big map a flood fill touches most of
        # it, and a workspace array would keep those pages resident for good (17 MB at
        # 2048x2048) even when no search ever uses JPS.
        stack = np.empty(free.size, dtype=np.int32)
        for dtype in (np.uint16, np.int32):
            labels = np.zeros(free.shape, dtype=dtype)
            count = _label_all(free, self.dirs, labels, stack, np.iinfo(dtype).max)
            if count >= 0:
                break
        self.labels: np.ndarray = labels
        self.sizes = np.bincount(labels.reshape(-1), minlength=count + 1).astype(np.int64)
        self.sizes[0] = 0
        self.next_label = count + 1

    def _room(self, new: int) -> None:
        """Make sure ``new`` more labels fit the labels' type (else label afresh: renumbered)."""
        if self.next_label + new > np.iinfo(self.labels.dtype).max:
            self._label(self.labels != 0)

    @property
    def count(self) -> int:
        """How many regions have cells."""
        return int((self.sizes[1:] > 0).sum())

    def update(self, x0: int, y0: int, free: np.ndarray) -> None:
        """The block of cells at ``(x0, y0)`` (``free``'s shape, ``[y, x]``) is now passable where
        ``free`` (the block's new passability) says."""
        h, w = free.shape
        if w * h * 4 > self.labels.size:  # most of the map (a reset): label afresh
            self._label(_free_map(self.labels, x0, y0, free))
            return
        block = self.labels[y0 : y0 + h, x0 : x0 + w]
        was = block != 0
        blocked = was & ~free
        opened = ~was & free
        if blocked.any():
            self._block(x0, y0, blocked)
        if opened.any():
            self._open(x0, y0, opened)

    # ------------------------------------------------------------------ cells becoming blocked
    def _block(self, x0: int, y0: int, blocked: np.ndarray) -> None:
        h, w = self.labels.shape
        ys, xs = np.nonzero(blocked)
        ys, xs = ys + y0, xs + x0
        lost = self.labels[ys, xs]
        self.labels[ys, xs] = 0
        np.subtract.at(self.sizes, lost, 1)
        for region in np.unique(lost).tolist():
            nx = xs[lost == region, None] + self.dirs[None, :, 0]
            ny = ys[lost == region, None] + self.dirs[None, :, 1]
            ok = (nx >= 0) & (nx < w) & (ny >= 0) & (ny < h)
            nx, ny = nx[ok], ny[ok]
            keep = self.labels[ny, nx] == region
            seeds = np.unique(ny[keep] * w + nx[keep]).astype(np.int64)
            if seeds.size > 1:
                self._room(seeds.size)
                self._split(region, seeds)

    def _split(self, region: int, seeds: np.ndarray) -> None:
        ws = workspace()
        h, w = self.labels.shape
        ws.ensure(h * w, jps=True)
        gen = ws.next_gen()
        stamp = ws.mark  # a search's open stamp value, unused by any search now
        # JPS's scratch array: its values never outlive a search. (Not g: integers written
        # into a float array leave denormals there, and arithmetic on them is ~4x slower.)
        owner = ws.jump_parent
        queue = np.empty(int(self.sizes[region]) + seeds.size, dtype=np.int64)
        self._grow_sizes(self.next_label + seeds.size)
        self.next_label = _split(
            self.labels, region, seeds, self.dirs, stamp, np.uint16(2 * gen), owner, queue, self.next_label, self.sizes
        )

    # ------------------------------------------------------------------ cells becoming passable
    def _open(self, x0: int, y0: int, opened: np.ndarray) -> None:
        ys, xs = np.nonzero(opened)
        cells = ((ys + y0) * self.labels.shape[1] + xs + x0).astype(np.int64)
        self._room(cells.size)
        self._grow_sizes(self.next_label + cells.size + 1)
        self.next_label = _open_cells(self.labels, self.sizes, cells, self.dirs, self.next_label)

    def _grow_sizes(self, n: int) -> None:
        if n >= self.sizes.size:
            self.sizes = np.concatenate(
                (self.sizes, np.zeros(max(n + 1, 2 * self.sizes.size) - self.sizes.size, np.int64))
            )


def label_regions(costs: np.ndarray, diagonal: str = "no-corner-cutting") -> tuple[np.ndarray, int]:
    """Region ids (``[y, x]``; 0 = impassable, 1..n regions) and the count n, from scratch."""
    a = as_array("costs", costs, "a 2-D numpy array of numbers")
    check_2d("costs", a, bools=True)  # (an empty grid has no regions: 0, as it always had)
    regions = Regions(a > 0, diagonal)
    return regions.labels, regions.next_label - 1
