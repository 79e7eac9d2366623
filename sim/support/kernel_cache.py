"""Keeping numba's cache honest when the sources change.

numba keys a cached function on its own file: a caller cached with a callee from another
file (``kernel.search_one`` calling ``jps.jps_core``) keeps the old callee's machine code
when only the callee's file changes. So the first import of ``sim`` in a process compares
a stamp of every source file of the package (path, size, modification time) with the one
written beside the cache last time, and on a difference drops the package's cached
kernels (``*.nbi``, ``*.nbc`` in its ``__pycache__`` folders): they are compiled again,
as on a first start. A package whose folders cannot be written (installed read-only)
keeps its cache where numba puts it and is left alone. Standard library only; a few ms.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent
STAMP = "sources.stamp"


def sources_stamp(package: Path = PACKAGE) -> str:
    """A digest of every ``.py`` file under ``package``: relative path, size, mtime."""
    h = hashlib.sha256()
    for path in sorted(package.rglob("*.py")):
        st = path.stat()
        h.update(f"{path.relative_to(package)}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return h.hexdigest()


def refresh(package: Path = PACKAGE) -> bool:
    """Drop the package's cached kernels when its sources changed since the last stamp;
    returns whether it dropped them. Never raises: a cache it cannot manage is left as is."""
    cache = package / "__pycache__"
    try:
        stamp = sources_stamp(package)
        old = (cache / STAMP).read_text() if (cache / STAMP).is_file() else None
        if old == stamp:
            return False
        dropped = False
        if old is not None or any(package.rglob("*.nbi")):
            for path in [*package.rglob("*.nbi"), *package.rglob("*.nbc")]:
                path.unlink(missing_ok=True)
                dropped = True
        cache.mkdir(exist_ok=True)
        tmp = cache / f"{STAMP}.{os.getpid()}"
        tmp.write_text(stamp)
        os.replace(tmp, cache / STAMP)
        return dropped
    except OSError:
        return False
