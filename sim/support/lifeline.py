"""A child process that ends with its parent, from its first import on.

The demo starts helper processes (``python -m sim.prepare``, the landscape's compiling) with
:func:`sim.prepare.spawn`, which puts its own process id in :data:`PARENT_VAR`. The first
import of ``sim`` in the child calls :func:`watch_parent` before anything heavy (numba, numpy)
is imported: a parent killed without a chance to clean up (SIGKILL, a crash) then never leaves
a child compiling on its own, however early in its start it was. Standard library only.
"""

from __future__ import annotations

import os
import threading
import time

#: The environment variable that names the process a child must not outlive.
PARENT_VAR = "ASTAR_ISLAND_PARENT"
#: The line a child prints when what its parent waits for is compiled and cached (it may go on
#: with more): ``sim.prepare.Background.ready``.
READY = "ready"


def watch_parent(poll_s: float = 0.25) -> None:
    """If this process was started with :data:`PARENT_VAR`, end it (exit status 1, at once) when
    that process is gone. The variable is taken out of the environment, so this process's own
    children are not tied to its parent."""
    expected = os.environ.pop(PARENT_VAR, "")
    if not expected.isdigit():
        return
    parent = int(expected)
    if os.getppid() != parent:  # already orphaned (re-parented) before we got here
        os._exit(1)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(poll_s)
        os._exit(1)  # no clean-up to wait for: what was compiled is in the cache already

    threading.Thread(target=watch, daemon=True, name="end-with-parent").start()
