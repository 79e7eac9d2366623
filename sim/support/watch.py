"""Noticing that files changed on disk: a cheap poll of their size and modification time.

Editors save in different ways (in place, or a new file renamed over the old one), so a
file counts as changed when its size, modification time or inode differ from the last
look; a file that disappears and comes back counts too. Polling (``os.stat`` on a couple
of files at most every ``interval`` seconds) needs no platform API and costs nothing.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

Signature = tuple[int, int, int] | None


def signature(path: Path) -> Signature:
    """What identifies this version of the file (``None`` if it is not there)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size, st.st_ino


class FileWatch:
    """Watches a few files; :meth:`poll` names the ones that changed since the last poll."""

    def __init__(self, interval: float = 0.5, clock: Callable[[], float] = time.monotonic) -> None:
        self.interval = interval  # seconds between looks (the demo promises to notice within 1 s)
        self.clock = clock
        self._seen: dict[Path, Signature] = {}
        self._next = 0.0

    def watch(self, path: Path | str | None) -> None:
        """Start watching ``path`` as it is now (None or "" is ignored)."""
        if path:
            p = Path(path)
            self._seen[p] = signature(p)

    def unwatch(self, path: Path | str | None) -> None:
        if path:
            self._seen.pop(Path(path), None)

    def poll(self, force: bool = False) -> list[Path]:
        """The watched files that changed (and exist) since the last look; at most every ``interval``."""
        now = self.clock()
        if not force and now < self._next:
            return []
        self._next = now + self.interval
        changed = []
        for path, seen in self._seen.items():
            sig = signature(path)
            if sig != seen:
                self._seen[path] = sig
                if sig is not None:  # gone: wait until it is back (an editor mid-save)
                    changed.append(path)
        return changed
