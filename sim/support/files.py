"""Reading the user's files: bounded, safe, and every problem one short line naming the file.

* A file is checked before it is opened: a folder, a FIFO or device, a symbolic-link
  loop or a file over the size limit is refused with what it is (opening a FIFO would
  wait forever).
* YAML is parsed with PyYAML's safe loader only (the C one when the wheel has it:
  ``CSafeLoader``, same safety, ~30x faster on big maps). Before anything is built,
  the event stream is scanned: aliases (``*name``, the "billion laughs" bomb) are
  refused and nesting is capped, so no input can blow up memory or the stack. Duplicate
  keys and lone surrogates (``"\\ud800"``) are errors with their line.
"""

from __future__ import annotations

import errno
import os
import re
import stat
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from sim.support.checks import MAX_DIGITS, short

#: PyYAML's C loader when the installed wheel has it (same safe constructor, much faster).
SafeLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

MAX_DEPTH = 32  # nesting levels; real configs and maps use 3
MAX_BYTES = 64 * 1024 * 1024  # a 2048x2048 drawn map is ~4 MB
_SURROGATE = re.compile("[\ud800-\udfff]")
_INT_TAG = "tag:yaml.org,2002:int"


def check_file(path: Path, error: type[ValueError], missing: str = "file not found", max_bytes: int = MAX_BYTES) -> int:
    """Size of the regular file at ``path``; anything else is ``error`` saying what it is."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise error(f"{path}: {missing}") from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise error(f"{path}: symbolic link loop (the link points back to itself)") from None
        raise error(f"{path}: cannot read: {exc.strerror}") from None
    if stat.S_ISDIR(st.st_mode):
        raise error(f"{path}: is a folder, not a file") from None
    if not stat.S_ISREG(st.st_mode):
        kind = "a FIFO (named pipe)" if stat.S_ISFIFO(st.st_mode) else "a device or socket"
        raise error(f"{path}: is {kind}, not a regular file") from None
    if st.st_size > max_bytes:
        raise error(f"{path}: file is {st.st_size / 2**20:.1f} MB, larger than the limit of {max_bytes / 2**20:g} MB")
    return st.st_size


def as_path(name: str, value: object) -> Path:
    """A path argument of a library call (``str`` or ``os.PathLike``), or an exact ``TypeError``."""
    if isinstance(value, bytes) or not isinstance(value, str | os.PathLike):
        raise TypeError(f"{name} must be a str or a path, got {short(value)}")
    return Path(value)


def check_writable(path: Path, error: type[ValueError], label: str = "") -> None:
    """A file about to be written: ``error`` (prefixed ``label``, else the path) when ``path`` is a
    folder or its folder is missing or not writable; checked before the work, not after it."""
    name = label or str(path)
    if path.is_dir():
        raise error(f"{name}: is a folder; give a file name")
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        raise error(f"{name}: folder {parent} does not exist")
    if not os.access(parent, os.W_OK):
        raise error(f"{name}: folder {parent} is not writable")


def write_atomically(files: list[tuple[Path, bytes]], error: type[ValueError]) -> None:
    """Write each ``(path, data)`` as one unit: all or nothing, old files kept byte for byte.

    Each file goes to a temporary file in its own folder, is flushed to the disk
    (``fsync``), and only when every one is complete are they renamed over their
    destinations (a rename within a folder is atomic). A full disk, a size limit or any
    other failure removes what was written and leaves every existing file as it was;
    a failure between two renames puts the first one's old file back. A path that is a
    symbolic link is written through: the file it points to is replaced, the link stays; one
    that points to anything but a regular file (or to nothing) is ``error``, nothing written."""
    files = [(_real_target(path, error), data) for path, data in files]
    temps: list[Path] = []
    try:
        for path, data in files:
            temps.append(_write_temp(path, data))
    except OSError as exc:
        for tmp in temps:
            tmp.unlink(missing_ok=True)
        raise error(f"{files[len(temps)][0]}: cannot write: {exc.strerror or exc}; nothing was changed") from None
    backups: list[tuple[Path, Path | None]] = []
    try:
        for (path, _), tmp in zip(files, temps, strict=True):
            backups.append((path, _keep_old(path)))
            os.replace(tmp, path)
    except OSError as exc:
        for path, old in reversed(backups):
            if old is not None:
                os.replace(old, path)
            else:
                path.unlink(missing_ok=True)
        for tmp in temps:
            tmp.unlink(missing_ok=True)
        raise error(f"{path}: cannot write: {exc.strerror or exc}; nothing was changed") from None
    for _, old in backups:
        if old is not None:
            old.unlink(missing_ok=True)


def _real_target(path: Path, error: type[ValueError]) -> Path:
    """``path``, or the regular file its link points to (see :func:`write_atomically`)."""
    if not path.is_symlink():
        return path
    real = Path(os.path.realpath(path))
    try:
        regular = stat.S_ISREG(os.stat(real).st_mode)
    except OSError:
        regular = False
    if not regular:
        raise error(f"{path}: is a link to {real}, which is no regular file; nothing was written")
    return real


def write_new(path: Path, data: bytes, error: type[ValueError]) -> None:
    """Write a file that must not exist yet: complete or not at all. ``FileExistsError``
    when it exists (nothing written); a failure (a full disk) leaves no file behind."""
    try:
        tmp = _write_temp(path, data)
    except OSError as exc:
        raise error(f"{path}: cannot write: {exc.strerror or exc}; nothing was saved") from None
    try:
        os.link(tmp, path)  # fails if the name is taken: no race with another writer
    except FileExistsError:
        raise
    except OSError:  # a file system without hard links: exclusive create, then the bytes
        _write_exclusive(path, data, error)
    finally:
        tmp.unlink(missing_ok=True)


def _write_exclusive(path: Path, data: bytes, error: type[ValueError]) -> None:
    try:
        with open(path, "xb") as fh:
            fh.write(data)
    except FileExistsError:
        raise
    except OSError as exc:
        path.unlink(missing_ok=True)
        raise error(f"{path}: cannot write: {exc.strerror or exc}; nothing was saved") from None


def _write_temp(path: Path, data: bytes) -> Path:
    fd, name = tempfile.mkstemp(prefix=f".{path.name[:40]}.", suffix=".tmp", dir=_folder(path))
    tmp = Path(name)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, _mode_for(path))
    except OSError:
        tmp.unlink(missing_ok=True)
        raise
    return tmp


def _folder(path: Path) -> Path:
    return path.parent if str(path.parent) else Path(".")


def _mode_for(path: Path) -> int:
    """The old file's permissions, or a new file's (0666 less the umask), not mkstemp's 0600."""
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        mask = os.umask(0)
        os.umask(mask)
        return 0o666 & ~mask


def _keep_old(path: Path) -> Path | None:
    """A second name for the file at ``path`` (a hard link, else a copy), or None if there is none."""
    if not os.path.lexists(path):
        return None
    fd, name = tempfile.mkstemp(prefix=f".{path.name[:40]}.", suffix=".old", dir=_folder(path))
    os.close(fd)
    old = Path(name)
    try:
        old.unlink()
        os.link(path, old)
    except OSError:
        import shutil

        shutil.copy2(path, old)
    return old


def read_text(
    path: Path,
    error: type[ValueError],
    missing: str = "file not found",
    encoding: str = "utf-8",
    max_bytes: int = MAX_BYTES,
) -> str:
    """The file's text; a problem becomes ``error("<path>: <what is wrong>")``."""
    size = check_file(path, error, missing, max_bytes)
    try:
        with open(path, "rb") as fh:
            raw = fh.read(size + 1)  # not read(max_bytes): that would set aside the whole limit first
    except OSError as exc:
        raise error(f"{path}: cannot read: {exc.strerror or exc}") from None
    if len(raw) > max_bytes:
        raise error(f"{path}: file is larger than the limit of {max_bytes / 2**20:g} MB")
    try:
        return raw.decode(encoding)
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        name = "ASCII" if encoding == "ascii" else "UTF-8"
        raise error(f"{path}:{line}: not {name} text (byte 0x{raw[exc.start]:02x})") from None


@dataclass
class YamlDocument:
    """Parsed YAML and where its keys are: ``lines["species.cow.count"]`` is a 1-based line."""

    data: Any
    lines: dict[str, int] = field(default_factory=dict)
    text: str = ""


def parse_yaml(text: str, path: Path | str, error: type[ValueError]) -> YamlDocument:
    """Parse ``text`` safely (see the module doc); problems name ``path`` and the line."""
    _scan_events(text, path, error)
    loader = SafeLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return YamlDocument(None, {}, text)
        lines = _walk(node, path, error)
        data = loader.construct_document(node)
    except yaml.YAMLError as exc:
        raise error(_yaml_message(exc, path)) from None
    finally:
        loader.dispose()
    return YamlDocument(data, lines, text)


def load_yaml(
    path: Path, error: type[ValueError], missing: str = "file not found", max_bytes: int = MAX_BYTES
) -> YamlDocument:
    """Read and parse a YAML file (bounded, safe)."""
    return parse_yaml(read_text(path, error, missing, max_bytes=max_bytes), path, error)


def _yaml_message(exc: yaml.YAMLError, path: Path | str) -> str:
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    where = f":{mark.line + 1}" if mark is not None else ""
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    return f"{path}{where}: not valid YAML: {short(problem, 100)[1:-1]}"


def _scan_events(text: str, path: Path | str, error: type[ValueError]) -> None:
    """Refuse aliases and deep nesting from the event stream, before any value is built."""
    depth = 0
    try:
        for ev in yaml.parse(text, Loader=SafeLoader):
            if isinstance(ev, yaml.MappingStartEvent | yaml.SequenceStartEvent):
                depth += 1
                if depth > MAX_DEPTH:
                    raise error(f"{path}:{_line(ev)}: nested more than {MAX_DEPTH} levels deep")
            elif isinstance(ev, yaml.MappingEndEvent | yaml.SequenceEndEvent):
                depth -= 1
            elif isinstance(ev, yaml.AliasEvent):
                raise error(
                    f"{path}:{_line(ev)}: YAML aliases ({short('*' + str(ev.anchor), 40)[1:-1]}) "
                    "are not supported; write the value out"
                )
    except yaml.YAMLError as exc:
        raise error(_yaml_message(exc, path)) from None


def _walk(root: yaml.Node, path: Path | str, error: type[ValueError]) -> dict[str, int]:
    """Key paths -> lines; duplicate keys and lone surrogates are errors (iterative: no recursion)."""
    lines: dict[str, int] = {}
    stack: list[tuple[yaml.Node, str]] = [(root, "")]
    while stack:
        node, key = stack.pop()
        line = node.start_mark.line + 1
        if isinstance(node, yaml.ScalarNode):
            bad = _SURROGATE.search(node.value)
            if bad:
                raise error(
                    f"{path}:{line}: invalid character (lone surrogate {bad.group()!r}) in {short(key or 'a value')}"
                )
            _no_long_int(node, path, error)
        elif isinstance(node, yaml.SequenceNode):
            for i, item in enumerate(node.value):
                sub = f"{key}[{i}]"
                lines[sub] = item.start_mark.line + 1
                stack.append((item, sub))
        elif isinstance(node, yaml.MappingNode):
            seen: dict[str, int] = {}
            for k, v in node.value:
                name = k.value if isinstance(k, yaml.ScalarNode) else None
                if name is not None:
                    _no_surrogate(name, path, k.start_mark.line + 1, error)
                    _no_long_int(k, path, error)
                    if name in seen:
                        full = f"{key}.{name}" if key else name
                        raise error(
                            f"{path}:{k.start_mark.line + 1}: duplicate key {short(full)} (first at line {seen[name]})"
                        )
                    seen[name] = k.start_mark.line + 1
                    sub = f"{key}.{name}" if key else name
                    lines[sub] = k.start_mark.line + 1
                else:
                    sub = f"{key}.?"
                    stack.append((k, sub))
                stack.append((v, sub))
    return lines


def _no_long_int(node: yaml.ScalarNode, path: Path | str, error: type[ValueError]) -> None:
    """A whole number of more than :data:`MAX_DIGITS` digits is refused before it is built
    (Python's int() refuses 4,300 digits with a traceback, and no setting needs 25)."""
    if node.tag == _INT_TAG and len(node.value) > MAX_DIGITS + 2:
        raise error(
            f"{path}:{node.start_mark.line + 1}: the number {short(node.value, 30)} has more than {MAX_DIGITS} digits"
        )


def _no_surrogate(text: str, path: Path | str, line: int, error: type[ValueError]) -> None:
    """A lone surrogate (``"\ud800"``) cannot be encoded: refuse it where it is written."""
    bad = _SURROGATE.search(text)
    if bad:
        raise error(f"{path}:{line}: invalid character (lone surrogate {bad.group()!r})")


def _line(ev: yaml.Event) -> str:
    """The 1-based line a YAML parse event starts on ("?" when the parser did not say)."""
    return str(ev.start_mark.line + 1) if ev.start_mark is not None else "?"
