"""numba's cache is dropped when any source of the package changed (a cached caller keeps a
callee from another file otherwise), and kept while none did."""

from __future__ import annotations

import os

from sim.support.kernel_cache import STAMP, refresh


def make_package(root):
    (root / "sub").mkdir(parents=True)
    (root / "a.py").write_text("x = 1\n")
    (root / "sub" / "b.py").write_text("y = 2\n")
    for folder in (root / "__pycache__", root / "sub" / "__pycache__"):
        folder.mkdir()
        (folder / "f-1.py311.nbi").write_bytes(b"index")
        (folder / "f-1.py311.1.nbc").write_bytes(b"code")


def cached(root):
    return sorted(p.name for p in root.rglob("*.nb[ic]"))


def test_a_changed_source_drops_the_cache_and_an_unchanged_one_keeps_it(tmp_path):
    root = tmp_path / "pkg"
    make_package(root)
    assert refresh(root)  # no stamp yet: a cache of unknown sources goes
    assert cached(root) == [] and (root / "__pycache__" / STAMP).is_file()
    (root / "sub" / "__pycache__" / "g-2.py311.nbi").write_bytes(b"index")  # compiled since
    assert not refresh(root) and cached(root) == ["g-2.py311.nbi"]  # same sources: kept
    (root / "sub" / "b.py").write_text("y = 3  # the callee changed, the caller did not\n")
    assert refresh(root) and cached(root) == []
    (root / "__pycache__" / "h-3.py311.nbi").write_bytes(b"index")
    st = (root / "a.py").stat()
    os.utime(root / "a.py", ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))  # same size, touched
    assert refresh(root) and cached(root) == []


def test_a_stamp_that_cannot_be_written_is_no_error(tmp_path):
    root = tmp_path / "pkg"
    make_package(root)
    (root / "__pycache__" / STAMP).mkdir()  # the stamp's place is taken: it cannot be written
    assert refresh(root) is False  # no exception: the import of sim must never fail for this
