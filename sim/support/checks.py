"""One checker for everything a user writes (config files and maps): short, exact messages.

Values quoted in a message are cut to a short ``repr`` (a hostile file must not turn
an error line into megabytes), an unknown name suggests the closest known one, and
every message names the file and the key or line.
"""

from __future__ import annotations

import argparse
import difflib
import math
import numbers
import re
from collections.abc import Iterable
from typing import Any, NoReturn

QUOTE_LIMIT = 80
MAX_ANIMALS = 100_000  # per species, wherever a count is given (config, map, script, --agents split)
MAX_SEED = 2**63 - 1  # the largest seed, in the config (`seed`) or on the command line (`--seed`)
MAX_DIGITS = 24  # a whole number in a file has at most this many digits (Python refuses over 4,300)
MAX_COORDINATE = 10**9  # a cell coordinate a script may name, in or far outside the map
MAX_DT = 3600.0  # seconds one step may advance (time stays finite however long a script runs)
MAX_STEPS = 100_000  # steps in one advance() call
MESSAGE_LIMIT = 292  # characters of an error message at most ("error: " and it: < 300); the middle goes
_WHOLE = re.compile(r"[ \t\r\n]*([+-]?)([0-9]+)[ \t\r\n]*\Z")  # ASCII digits only: "¹".isdigit() is True


class OneLineParser(argparse.ArgumentParser):
    """Command-line option errors are one line and exit status 2, like every other error here."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"error: {message} (see {self.prog} --help)\n")


class InputError(ValueError):
    """A file or argument that cannot be used: one line, never longer than :data:`MESSAGE_LIMIT`.

    The one place every message is bounded: whatever a reader quotes, a hostile file
    cannot turn the line into megabytes. A long message first loses the middle of its leading
    path (its folders: the file's name and line stay), then its own middle, so the file and
    the reason stay."""

    def __init__(self, message: object = "") -> None:
        super().__init__(bounded(one_line(str(message)), MESSAGE_LIMIT))


def one_line(text: str) -> str:
    """``text`` on one line: each line break, with the spaces around it, one space (a map's name
    may hold newlines: a "name: |" block ends in one)."""
    return re.sub(r"\s*[\r\n\v\f\x1c-\x1e\x85\u2028\u2029]+\s*", " ", text)


def bounded(message: str, limit: int) -> str:
    """``message`` in at most ``limit`` characters (see :class:`InputError`)."""
    if len(message) <= limit:
        return message
    head, sep, rest = message.partition(": ")
    if sep and len(head) > 80:  # a path of many folders: its middle goes first
        head = cut_middle(head, max(80, limit - len(rest) - len(sep)))
        message = head + sep + rest
    return cut_middle(message, limit)


def cut_middle(text: str, limit: int) -> str:
    """``text`` with its middle replaced by "…" when longer than ``limit`` (both ends kept)."""
    if len(text) <= limit:
        return text
    head = (limit - 1) // 2
    return text[:head] + "…" + text[len(text) - (limit - 1 - head) :]


def short_path(path: object, limit: int = QUOTE_LIMIT) -> str:
    """A path for a message: whole when short, else its start and its end (the file name)."""
    return cut_middle(str(path), limit)


def parse_whole(text: object, lo: int | None = None, hi: int | None = None, max_digits: int = MAX_DIGITS) -> int | None:
    """A whole number written in ``text`` (ASCII digits, optional sign, at most ``max_digits``
    digits) within ``[lo, hi]``, else None. The one integer parser for text from files (XML
    attributes, CSV cells, YAML and JSON numbers): no Unicode digits, no 4,300-digit traps."""
    if not isinstance(text, str) or len(text) > max_digits + 16:
        return None
    m = _WHOLE.match(text)
    if m is None or len(m.group(2)) > max_digits:
        return None
    value = int(m.group(2))
    value = -value if m.group(1) == "-" else value
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        return None
    return value


def short(value: Any, limit: int = QUOTE_LIMIT) -> str:
    """``repr(value)`` cut to about ``limit`` characters (never expands a huge value first)."""
    if isinstance(value, str | bytes) and len(value) > limit:
        value = value[: limit + 1]
    elif isinstance(value, list | tuple) and len(value) > 8:
        value = type(value)(value[:8])  # a long list: the first few are enough to recognise it
    elif isinstance(value, dict) and len(value) > 8:
        value = dict(list(value.items())[:8])
    try:
        text = _bounded_repr(value, limit)
    except RecursionError:
        text = f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _bounded_repr(value: Any, limit: int, depth: int = 0) -> str:
    """A repr that stops descending once it has enough text (nested values can be huge)."""
    if depth > 4:
        return "…"
    if isinstance(value, list | tuple):
        parts = []
        for v in value[:8]:
            parts.append(_bounded_repr(v, limit, depth + 1))
            if sum(map(len, parts)) > limit:
                break
        more = ", …" if len(value) > len(parts) else ""
        o, c = ("[", "]") if isinstance(value, list) else ("(", ",)" if len(value) == 1 else ")")
        return o + ", ".join(parts) + more + c
    if isinstance(value, dict):
        parts = []
        for k, v in list(value.items())[:8]:
            parts.append(f"{_bounded_repr(k, limit, depth + 1)}: {_bounded_repr(v, limit, depth + 1)}")
            if sum(map(len, parts)) > limit:
                break
        more = ", …" if len(value) > len(parts) else ""
        return "{" + ", ".join(parts) + more + "}"
    if isinstance(value, str) and len(value) > limit:
        value = value[: limit + 1]
    return repr(value)


def whole_number(name: str, value: object, minimum: int | None = None, maximum: int | None = None) -> int:
    """``value`` as an int for a scripting call (bool is no number), or an exact error."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be a whole number, got {short(value)}")
    n = int(value)
    if minimum is not None and n < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {short(value)}")
    if maximum is not None and n > maximum:
        raise ValueError(f"{name} must be <= {maximum}, got {short(value)}")
    return n


def real_number(name: str, value: object, minimum: float | None = None, maximum: float | None = None) -> float:
    """``value`` as a finite float for a scripting call, or an exact error (a whole number too
    large for a float is one too: ``10**400``)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number, got {short(value)}")
    try:
        number = float(value)
    except OverflowError:
        number = math.inf
    if not math.isfinite(number) or (minimum is not None and number < minimum):
        bound = "" if minimum is None else f" >= {minimum:g}"
        raise ValueError(f"{name} must be a finite number{bound}, got {short(value)}")
    if maximum is not None and number > maximum:
        raise ValueError(f"{name} must be <= {maximum:g}, got {short(value)}")
    return number


def did_you_mean(name: object, known: Iterable[str], what: str = "known") -> str:
    """The hint after an unknown name: `` (did you mean 'x'?)`` or ``; known: a, b, c``."""
    known = list(known)
    close = difflib.get_close_matches(str(name)[:QUOTE_LIMIT], known, n=1, cutoff=0.5)
    if close:
        return f" (did you mean '{close[0]}'?)"
    return f"; {what}: {', '.join(known)}" if known else ""


def _num(v: float) -> str:
    """A bound as people write it: 1000000, 0.05, 1e+12; a whole-number bound given as an int exactly
    (the seed's 9223372036854775807, not 9.22337e+18, which reads as less than a seed it refuses)."""
    if isinstance(v, int):
        return str(v)
    return str(int(v)) if float(v).is_integer() and abs(v) < 1e9 else f"{v:g}"


def describe_range(kind: str, lo: float | None, hi: float | None) -> str:
    """ "a whole number from 0 to 10" and the like."""
    noun = {"int": "a whole number", "float": "a number"}[kind]
    if lo is not None and hi is not None:
        return f"{noun} from {_num(lo)} to {_num(hi)}"
    if lo is not None:
        return f"{noun} >= {_num(lo)}"
    return noun


class Checker:
    """Validates values read from one file; a problem raises ``error`` with one short line.

    ``where(key)`` says where a key is: ``"<file>: key 'a.b'"`` for settings, or
    ``"<file>:<line>"`` when the file's lines are known (``lines`` maps a key path to
    its 1-based line).
    """

    def __init__(
        self, source: object, error: type[ValueError], lines: dict[str, int] | None = None, name_keys: bool = True
    ) -> None:
        self.source = str(source)
        self.error = error
        self.lines = lines or {}
        self.name_keys = name_keys

    def line(self, key: str) -> int | None:
        return self.lines.get(key)

    def where(self, key: str = "", line: int | None = None) -> str:
        line = line if line is not None else self.line(key)
        place = f"{self.source}:{line}" if line and not self.name_keys else self.source
        if self.name_keys:
            return f"{place}: key '{key}'" if key else f"{place}: top level"
        return place

    def fail(self, key: str, message: str, line: int | None = None) -> NoReturn:
        raise self.error(f"{self.where(key, line)}: {message}")

    def unknown(
        self, key: str, name: object, known: Iterable[str], what: str = "unknown key", inside: bool = False
    ) -> NoReturn:
        """An unknown name, with the closest known one: "unknown key 'a.b'", or with ``inside``
        "unknown species 'cows' in 'animals'"."""
        full = f"{key}.{name}" if key else str(name)
        word = what.split()[-1]  # "species" is its own plural
        hint = did_you_mean(name, known, "known keys" if what == "unknown key" else word.removesuffix("s") + "s")
        line = self.line(full) or self.line(key)
        place = f"{self.source}:{line}" if line and not self.name_keys else self.source
        if inside:
            label = f"{short(str(name))} in '{key}'"
        else:
            label = f"'{short(full)[1:-1]}'" if isinstance(name, str) else short(full)
        raise self.error(f"{place}: {what} {label}{hint}")

    def bad(self, key: str, expected: str, value: Any, label: str | None = None) -> NoReturn:
        """``value`` is not ``expected``: settings name the key, maps name the line and the key."""
        if self.name_keys:
            self.fail(key, f"expected {expected}, got {short(value)}")
        self.fail(key, f"{label or repr(key)} must be {expected}, got {short(value)}")

    def integer(
        self, key: str, value: Any, lo: int | None = None, hi: int | None = None, label: str | None = None
    ) -> int:
        ok = isinstance(value, int) and not isinstance(value, bool)
        if not ok or (lo is not None and value < lo) or (hi is not None and value > hi):
            self.bad(key, describe_range("int", lo, hi), value, label)
        return int(value)

    def number(
        self, key: str, value: Any, lo: float | None = None, hi: float | None = None, label: str | None = None
    ) -> float:
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        if ok:
            ok = math.isfinite(value) and (lo is None or value >= lo) and (hi is None or value <= hi)
        if not ok:
            self.bad(key, describe_range("float", lo, hi), value, label)
        return float(value)

    def text(self, key: str, value: Any, label: str | None = None) -> str:
        if not isinstance(value, str):
            self.bad(key, "text", value, label)
        return value

    def choice(self, key: str, value: Any, options: Iterable[str], label: str | None = None) -> str:
        options = list(options)
        if not isinstance(value, str) or value not in options:
            self.bad(key, f"one of {', '.join(options)}", value, label)
        return value

    def mapping(self, key: str, value: Any, what: str = "a mapping", label: str | None = None) -> dict:
        if not isinstance(value, dict):
            self.bad(key, what, value, label)
        return value

    def keys(self, key: str, data: dict, known: Iterable[str]) -> None:
        """Every key of ``data`` must be one of ``known``."""
        known = list(known)
        for k in data:
            if k not in known:
                self.unknown(key, k, known)

    def colour(self, key: str, value: Any) -> tuple[int, int, int]:
        """An RGB colour: three whole numbers from 0 to 255."""
        if not isinstance(value, list | tuple) or len(value) != 3:
            self.bad(key, "a colour [red, green, blue] of whole numbers from 0 to 255", value)
        r, g, b = (self.integer(f"{key}[{i}]", v, 0, 255) for i, v in enumerate(value))
        return r, g, b
