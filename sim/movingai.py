"""Reading the Moving AI Lab grid benchmark formats (``.map`` and ``.map.scen``).

Format: N. Sturtevant, "Benchmarks for Grid-Based Pathfinding", IEEE TCIAIG 4(2), 2012;
https://movingai.com/benchmarks/grids.html. Quirks handled: CRLF line endings, no
final newline, tab- or space-separated scenario fields, blank lines.

Errors are :class:`MapFormatError` (a ``ValueError``) naming the file and line.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .files import read_text

#: Characters a ground agent may walk on in the benchmark's convention.
GROUND = frozenset(".GS")
KNOWN = frozenset(".G@OTSW")


class MapFormatError(ValueError):
    """A map file that cannot be read; the message names the file, line and problem."""


@dataclass(frozen=True, slots=True)
class Scenario:
    """One benchmark query: points are ``(x, y)``; ``optimal`` is the listed length."""

    bucket: int
    start: tuple[int, int]
    goal: tuple[int, int]
    optimal: float
    tolerance: float  # half the last printed digit, at least 1e-3
    line: int


def read_map(path: str | Path) -> np.ndarray:
    """Read a ``.map`` file into an array of single characters (dtype ``<U1``), indexed ``[y, x]``."""
    path = Path(path)
    text = read_text(path, MapFormatError, encoding="ascii")
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    header: dict[str, str] = {}
    expected = ("type", "height", "width", "map")
    for i, key in enumerate(expected):
        if i >= len(lines):
            raise MapFormatError(f"{path}:{i + 1}: file ends inside the header")
        parts = lines[i].split()
        if not parts or parts[0] != key:
            raise MapFormatError(
                f"{path}:{i + 1}: expected header line {key!r} (type, height, width, map), got {lines[i]!r}"
            )
        header[key] = parts[1] if len(parts) > 1 else ""
    try:
        height, width = int(header["height"]), int(header["width"])
    except ValueError:
        raise MapFormatError(f"{path}:2: height and width must be whole numbers") from None
    if height <= 0 or width <= 0:
        raise MapFormatError(f"{path}:2: height and width must be positive, got {height}x{width}")
    rows = lines[4 : 4 + height]
    if len(rows) < height:
        raise MapFormatError(f"{path}: the header says {height} rows, the file has {len(rows)}")
    for y, row in enumerate(rows):
        if len(row) != width:
            raise MapFormatError(f"{path}:{y + 5}: row has {len(row)} characters, the header says {width}")
        bad = set(row) - KNOWN
        if bad:
            ch = sorted(bad)[0]
            raise MapFormatError(f"{path}:{y + 5}: unknown terrain character {ch!r} at x={row.index(ch)}")
    return np.array([list(r) for r in rows], dtype="<U1")


def ground_costs(chars: np.ndarray) -> np.ndarray:
    """The benchmark's cost grid: 1.0 on ``.``, ``G``, ``S``; 0 (blocked) elsewhere."""
    return np.isin(chars, list(GROUND)).astype(np.float64)


def read_scenarios(path: str | Path) -> list[Scenario]:
    """Read a ``.map.scen`` file (``version 1`` or ``1.0``)."""
    path = Path(path)
    lines = read_text(path, MapFormatError, encoding="ascii").splitlines()
    if not lines or not lines[0].startswith("version"):
        raise MapFormatError(f"{path}:1: expected 'version 1' or 'version 1.0'")
    out = []
    for no, line in enumerate(lines[1:], start=2):
        fields = line.split()
        if not fields:
            continue
        if len(fields) != 9:
            raise MapFormatError(f"{path}:{no}: expected 9 fields, got {len(fields)}")
        bucket, sx, sy, gx, gy = (int(fields[i]) for i in (0, 4, 5, 6, 7))
        printed = fields[8]
        # Half the last printed digit; a length printed without a point is a whole number.
        decimals = len(printed.split(".")[1]) if "." in printed else None
        tol = 1e-3 if decimals is None else max(1e-3, 0.5 * 10.0**-decimals)
        out.append(Scenario(bucket, (sx, sy), (gx, gy), float(printed), tol, no))
    return out
