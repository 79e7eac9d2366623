"""numba's cache is dropped when what compiled code is made of changed (a cached caller keeps a
callee or a constant from another file otherwise), and kept while it did not."""

from __future__ import annotations

import os

from sim.support.kernel_cache import STAMP, refresh
from tests.conftest import ROOT

A = """from numba import njit
from .sub.b import Y
from .sub.view import Z

@njit
def f():
    return Y

def g():
    return Z
"""


def make_package(root):
    """``pkg``: a compiled module ``a`` whose jitted ``f`` uses ``sub.b``'s constant, and whose
    plain ``g`` uses ``sub.view``'s (compiled code never sees it)."""
    (root / "sub").mkdir(parents=True)
    (root / "__init__.py").write_text("")
    (root / "sub" / "__init__.py").write_text("")
    (root / "a.py").write_text(A)
    (root / "sub" / "b.py").write_text("Y = 2\n")
    (root / "sub" / "view.py").write_text("Z = 1\n")
    for folder in (root / "__pycache__", root / "sub" / "__pycache__"):
        folder.mkdir()
        (folder / "f-1.py311.nbi").write_bytes(b"index")
        (folder / "f-1.py311.1.nbc").write_bytes(b"code")


def cached(root):
    return sorted(p.name for p in root.rglob("*.nb[ic]"))


def compiled_since(root, name):
    (root / "sub" / "__pycache__" / name).write_bytes(b"index")


def test_a_changed_source_drops_the_cache_and_an_unchanged_one_keeps_it(tmp_path):
    root = tmp_path / "pkg"
    make_package(root)
    assert refresh(root)  # no stamp yet: a cache of unknown sources goes
    assert cached(root) == [] and (root / "__pycache__" / STAMP).is_file()
    compiled_since(root, "g-2.py311.nbi")
    assert not refresh(root) and cached(root) == ["g-2.py311.nbi"]  # same sources: kept
    (root / "sub" / "b.py").write_text("Y = 3  # the constant changed, the compiled file did not\n")
    assert refresh(root) and cached(root) == []
    compiled_since(root, "h-3.py311.nbi")
    (root / "a.py").write_text(A.replace("return Y", "return Y + 1"))  # the compiled file
    assert refresh(root) and cached(root) == []


def test_a_change_that_compiled_code_does_not_see_keeps_the_cache(tmp_path):
    root = tmp_path / "pkg"
    make_package(root)
    refresh(root)
    compiled_since(root, "g-2.py311.nbi")
    (root / "sub" / "view.py").write_text("Z = 2  # the view changed\n")
    assert not refresh(root) and cached(root) == ["g-2.py311.nbi"]
    st = (root / "a.py").stat()
    os.utime(root / "a.py", ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))  # touched, same content
    assert not refresh(root) and cached(root) == ["g-2.py311.nbi"]


def test_a_stamp_that_cannot_be_written_is_no_error(tmp_path):
    root = tmp_path / "pkg"
    make_package(root)
    (root / "__pycache__" / STAMP).mkdir()  # the stamp's place is taken: it cannot be written
    assert refresh(root) is False  # no exception: the import of sim must never fail for this


CACHED_A = """from numba import njit
from .sub.b import Y

@njit(cache=True)
def f():
    return Y
"""


def test_with_numba_cache_dir_set_a_changed_callee_file_is_not_answered_from_the_old_cache(tmp_path):
    """numba keeps its cache under ``NUMBA_CACHE_DIR`` when that is set (a read-only install, CI):
    the stale caller must go from there too (numba itself keys ``f`` on ``a.py`` alone)."""
    import subprocess
    import sys

    root = tmp_path / "pkg"
    make_package(root)
    (root / "a.py").write_text(CACHED_A)
    for p in root.rglob("*.nb[ic]"):
        p.unlink()
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba cache"),
           "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)])}  # fmt: skip
    run = ("from pathlib import Path; from sim.support.kernel_cache import refresh; "
           f"refresh(Path({str(root)!r})); import pkg.a; print(pkg.a.f())")  # fmt: skip

    def answer() -> str:
        r = subprocess.run([sys.executable, "-c", run], capture_output=True, text=True, env=env, timeout=300)
        assert r.returncode == 0, r.stderr[-2000:]
        return r.stdout.strip()

    assert answer() == "2"
    assert list((tmp_path / "numba cache").rglob("*.nbi"))  # numba cached f there, not in the package
    assert not list(root.rglob("*.nbi"))
    (root / "sub" / "b.py").write_text("Y = 3\n")  # the callee's file changed, f's did not
    assert answer() == "3"
