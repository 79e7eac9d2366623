"""The search queue: requests are served oldest first within a per-frame budget.

Requests beyond the budget wait for the next frame; none is ever dropped. At least
one request is served per frame, so the queue always moves even if one search alone
takes longer than the budget (``max_nodes`` bounds that).

The budget can be charged two ways:

* ``"wall"`` (the live demo): each search is charged the milliseconds it really took.
* ``"model"`` (headless runs, tests): each search is charged
  ``call_cost_us + node_cost_us * expanded``. Timing noise then cannot change which
  requests are served in which frame, so the same seed gives the same run.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable


class SearchScheduler:
    """FIFO of animal indices waiting for a search, served within ``budget_ms`` a frame."""

    def __init__(self, budget_ms: float, clock: str = "wall", node_cost_us: float = 0.2, call_cost_us: float = 15.0):
        if clock not in ("wall", "model"):
            raise ValueError(f"clock must be 'wall' or 'model', got {clock!r}")
        self.budget_ms = budget_ms
        self.clock = clock
        self.node_cost_us = node_cost_us
        self.call_cost_us = call_cost_us
        self.queue: deque[int] = deque()

    def __len__(self) -> int:
        return len(self.queue)

    def request(self, agent: int) -> None:
        self.queue.append(agent)

    def remap(self, remap) -> None:
        """Follow a renumbering of the animals (``remap[old] = new``, -1 = removed)."""
        self.queue = deque(int(remap[a]) for a in self.queue if remap[a] >= 0)

    def serve(self, search: Callable[[int], int]) -> None:
        """Run ``search(agent) -> expanded`` for queued agents until the budget is spent."""
        spent = 0.0
        served = 0
        while self.queue and (served == 0 or spent < self.budget_ms):
            agent = self.queue.popleft()
            t0 = time.perf_counter()
            expanded = search(agent)
            wall_ms = (time.perf_counter() - t0) * 1000.0
            if self.clock == "wall":
                spent += wall_ms
            else:
                spent += (self.call_cost_us + self.node_cost_us * expanded) / 1000.0
            served += 1
