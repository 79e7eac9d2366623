"""Keeping numba's cache honest when the sources change.

numba keys a cached function on its own file: a caller cached with a callee from another
file (``kernel.search_one`` calling ``jps.jps_core``), or with a constant imported from one,
keeps the old machine code when only that other file changes. So the first import of ``sim``
in a process checks the sources, and when what compiled code is made of changed since the
stamp written beside the cache last time, drops the package's cached kernels (``*.nbi``,
``*.nbc`` where numba keeps them, :func:`cache_folders`: its ``__pycache__`` folders, or their
places under ``NUMBA_CACHE_DIR`` when that is set): they are compiled again, as on a first start.

What compiled code is made of: every file that names ``numba``, the files its compiled code
takes names from (names used in its jitted functions or its top-level statements), and all
that those import in turn (read from their syntax), by content. A change anywhere else
(the view's drawing, a message) keeps the cache. The check itself costs a ``stat`` a file: the
contents are read only when some file's size or modification time moved. A package whose
folders cannot be written (installed read-only) and no ``NUMBA_CACHE_DIR``: numba keeps its
cache in the user's cache folder, and it is left alone there. Standard library only.
"""

from __future__ import annotations

import ast
import hashlib
import os
from pathlib import Path

PACKAGE = Path(os.path.abspath(__file__)).parent.parent  # (as imported, not resolved: numba names its folders so)
STAMP = "sources.stamp"


def cache_folders(package: Path = PACKAGE) -> list[Path]:
    """Where numba keeps the cached kernels of ``package``'s folders, the package's own first:
    each folder's ``__pycache__``, or with ``NUMBA_CACHE_DIR`` set, the folder's place under it
    as numba names it (the folder's name and the SHA-1 of its absolute path:
    ``numba.core.caching._CacheLocator.get_suitable_cache_subpath``)."""
    root = os.path.abspath(package)
    folders = [root, *sorted({os.path.dirname(os.path.abspath(p)) for p in package.rglob("*.py")} - {root})]
    return [_cache_folder(f) for f in folders]


def _cache_folder(folder: str) -> Path:
    """:func:`cache_folders` for one absolute source folder."""
    given = os.environ.get("NUMBA_CACHE_DIR")
    if not given:
        return Path(folder) / "__pycache__"
    return Path(given) / f"{os.path.basename(folder)}_{hashlib.sha1(folder.encode()).hexdigest()}"


def sources_stamp(package: Path = PACKAGE) -> str:
    """A cheap digest of every ``.py`` file under ``package``: relative path, size, mtime."""
    h = hashlib.sha256()
    for path in sorted(package.rglob("*.py")):
        st = path.stat()
        h.update(f"{path.relative_to(package)}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return h.hexdigest()


def _module_of(path: Path, package: Path) -> str:
    parts = [package.name, *path.relative_to(package).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _jitted(node: ast.AST) -> bool:
    """A function numba compiles: decorated with something that names a numba decorator."""
    if not isinstance(node, ast.FunctionDef):
        return False
    return any(any(isinstance(n, ast.Name | ast.Attribute) and getattr(n, "id", getattr(n, "attr", "")) in _JIT
                   for n in ast.walk(d)) for d in node.decorator_list)  # fmt: skip


_JIT = {"njit", "jit", "overload", "overload_method", "generated_jit", "vectorize", "guvectorize", "cfunc"}


def _compiled_names(tree: ast.Module) -> set[str]:
    """The names compiled code can freeze: those used inside jitted functions and in the
    module's own top-level statements (constants made from imported ones), not inside its
    plain functions and classes' methods."""
    used: set[str] = set()
    parts: list[ast.AST] = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            if _jitted(node):
                parts.append(node)
        elif isinstance(node, ast.ClassDef):
            parts += [n for n in node.body if not isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) or _jitted(n)]
        elif not isinstance(node, ast.Import | ast.ImportFrom):
            parts.append(node)
    for part in parts:
        used.update(n.id for n in ast.walk(part) if isinstance(n, ast.Name))
    return used


def _imports(tree: ast.Module, module: str, is_package: bool, numba_file: bool) -> set[str]:
    """The modules ``module`` depends on (absolute names; ``from a import b`` gives ``a`` and
    ``a.b``, one of which is a module). For a file that compiles (``numba_file``), only the
    imports of names its compiled code can freeze (:func:`_compiled_names`)."""
    wanted = _compiled_names(tree) if numba_file else None
    out: set[str] = set()
    for node in tree.body if numba_file else ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names
                       if wanted is None or (a.asname or a.name.partition(".")[0]) in wanted)  # fmt: skip
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = module.split(".")
                up = up[: len(up) - node.level + (1 if is_package else 0)]
                base = ".".join([*up, base] if base else up)
            names = [a.name for a in node.names if wanted is None or (a.asname or a.name) in wanted]
            if names:
                out.add(base)
                out.update(f"{base}.{name}" for name in names)
    return out


def compiled_stamp(package: Path = PACKAGE) -> str:
    """A digest of the contents of what compiled code is made of (see the module's docstring)."""
    files = {_module_of(p, package): p for p in package.rglob("*.py")}
    texts = {m: p.read_bytes() for m, p in files.items()}
    todo = [m for m, text in texts.items() if b"numba" in text]
    seen = set(todo)
    while todo:
        m = todo.pop()
        try:
            tree = ast.parse(texts[m])
        except (SyntaxError, ValueError):
            continue  # the import will say so; its bytes are in the digest anyway
        for name in _imports(tree, m, files[m].name == "__init__.py", b"numba" in texts[m]):
            while name and name not in files:  # a name inside a module: the module
                name = name.rpartition(".")[0]
            if name and name not in seen:
                seen.add(name)
                todo.append(name)
    h = hashlib.sha256()
    for m in sorted(seen):
        h.update(f"{m}\0{hashlib.sha256(texts[m]).hexdigest()}\n".encode())
    return h.hexdigest()


def refresh(package: Path = PACKAGE) -> bool:
    """Drop the package's cached kernels when what they are made of changed since the last
    stamp; returns whether it dropped them. Never raises: a cache it cannot manage is left as is."""
    try:
        cache = _cache_folder(os.path.abspath(package))  # (the stamp's: each place numba may keep it has its own)
        quick = sources_stamp(package)
        old = (cache / STAMP).read_text().split() if (cache / STAMP).is_file() else []
        if old[:1] == [quick]:
            return False
        stamp = compiled_stamp(package)
        dropped = False
        kept = [p for f in cache_folders(package) if f.is_dir() for p in (*f.glob("*.nbi"), *f.glob("*.nbc"))]
        if old[1:2] != [stamp] and (old or kept):
            for path in kept:
                path.unlink(missing_ok=True)
                dropped = True
        cache.mkdir(parents=True, exist_ok=True)
        tmp = cache / f"{STAMP}.{os.getpid()}"
        tmp.write_text(f"{quick}\n{stamp}\n")
        os.replace(tmp, cache / STAMP)
        return dropped
    except OSError:
        return False
