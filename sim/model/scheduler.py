"""The search queue and the per-frame budget: requests are served oldest first; none is dropped.

Requests beyond the budget wait for the next frame; at least one request is served per
frame, so the queue always moves even if one search alone takes longer than the budget
(``max_nodes`` bounds that).

The budget can be charged two ways:

* ``"wall"`` (the live demo): the searches are charged the milliseconds they really took.
* ``"model"`` (headless runs, tests, scripts): each search is charged
  ``call_cost_us + node_cost_us * expanded``. Timing noise then cannot change which
  requests are served in which frame, so the same seed gives the same run, on any
  machine and with any number of threads.
"""

from __future__ import annotations

import numpy as np
from numba import njit

CLOCKS = ("wall", "model")


class SearchQueue:
    """Animal indices waiting for a search, oldest first (a numpy ring, pushed and popped in bulk)."""

    def __init__(self) -> None:
        self._buf = np.empty(64, dtype=np.int64)
        self._head = 0
        self._tail = 0

    def __len__(self) -> int:
        return self._tail - self._head

    def __iter__(self):
        return iter(self.items().tolist())

    def items(self) -> np.ndarray:
        """The waiting animals, oldest first (a view: do not keep it across pushes)."""
        return self._buf[self._head : self._tail]

    def push(self, agents: np.ndarray) -> None:
        """Queue ``agents`` (in that order) behind everyone waiting."""
        k = len(agents)
        if self._tail + k > self._buf.size:
            live = self.items().copy()
            size = max(self._buf.size, 2 * (live.size + k))
            self._buf = np.empty(size, dtype=np.int64)
            self._buf[: live.size] = live
            self._head, self._tail = 0, live.size
        self._buf[self._tail : self._tail + k] = agents
        self._tail += k

    def peek(self, k: int) -> np.ndarray:
        """The ``k`` oldest (or all, if fewer wait)."""
        return self._buf[self._head : min(self._tail, self._head + k)].copy()

    def pop(self, k: int) -> None:
        """Drop the ``k`` oldest (they were served)."""
        self._head = min(self._tail, self._head + k)

    def clear(self) -> None:
        self._head = self._tail = 0

    def remap(self, remap: np.ndarray) -> None:
        """Follow a renumbering of the animals (``remap[old] = new``, -1 = removed)."""
        items = self.items()
        new = remap[items]
        kept = new[new >= 0]
        self.clear()
        self.push(kept)


class SearchBudget:
    """How much search one frame may do, and how a search is charged to it (see the module doc)."""

    def __init__(self, budget_ms: float, clock: str = "model", node_cost_us: float = 0.2, call_cost_us: float = 15.0):
        if clock not in CLOCKS:
            raise ValueError(f"clock must be 'wall' or 'model', got {clock!r}")
        self.budget_ms = budget_ms
        self.clock = clock
        self.node_cost_us = node_cost_us
        self.call_cost_us = call_cost_us

    def charge(self, spent_ms: float, expanded: np.ndarray, first: bool) -> tuple[int, float, float]:
        """The model clock on a round of searches, in order (``expanded``: cells each expanded;
        ``spent_ms`` already gone this frame). Each search is charged ``call_cost_us +
        node_cost_us * expanded``; the budget takes each one that starts while it is not spent
        (``first``: the frame has served none yet, so at least one). Returns how many it takes,
        the ms spent after them, and the mean charge of the round's searches."""
        return _charge(spent_ms, expanded, first, self.budget_ms, self.call_cost_us, self.node_cost_us)


@njit(cache=True)
def _charge(spent_ms, expanded, first, budget_ms, call_us, node_us):
    """:meth:`SearchBudget.charge`, in one compiled pass."""
    take = 0
    total = 0.0
    for j in range(expanded.size):
        c = (call_us + node_us * expanded[j]) / 1000.0
        total += c
        if spent_ms < budget_ms or (first and take == 0):
            spent_ms += c
            take += 1
    return take, spent_ms, total / max(1, expanded.size)
