"""The Moving AI Lab grid benchmark formats (``.map`` and ``.map.scen``): reading, and writing ``.map``.

Format: N. Sturtevant, "Benchmarks for Grid-Based Pathfinding", IEEE TCIAIG 4(2), 2012;
https://movingai.com/benchmarks/grids.html. Quirks handled: CRLF line endings, no
final newline, tab- or space-separated scenario fields, blank lines.

Errors are :class:`MapFormatError` (a :class:`~sim.maps.data.MapError`) naming the file and line.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from sim.maps.data import MapData, MapError
from sim.maps.registry import MapFormat, register_format, text_prefix
from sim.support.checks import parse_whole
from sim.support.files import read_text, write_atomically
from sim.world.terrain import TERRAINS, Terrain

#: Characters a ground agent may walk on in the benchmark's convention.
GROUND = frozenset(".GS")
KNOWN = frozenset(".G@OTSW")

#: How the benchmark's characters become this project's terrain.
TERRAIN_OF: dict[str, Terrain] = {
    ".": Terrain.GRASS,
    "G": Terrain.GRASS,
    "S": Terrain.SWAMP,
    "T": Terrain.FOREST,
    "W": Terrain.WATER,
    "@": Terrain.ROCK,
    "O": Terrain.ROCK,
}
#: And back (see the terrain table: sand and mountain have no character of their own).
CHAR_OF: dict[Terrain, str] = {info.terrain: info.movingai for info in TERRAINS}


class MapFormatError(MapError):
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


def _header_value(path: Path, lines: list[str], i: int, key: str) -> str:
    if i >= len(lines):
        raise MapFormatError(f"{path}:{i + 1}: file ends inside the header")
    parts = lines[i].split()
    if not parts or parts[0] != key:
        got = lines[i][:60]
        raise MapFormatError(f"{path}:{i + 1}: expected header line {key!r} (type, height, width, map), got {got!r}")
    if key == "map":
        if len(parts) != 1:
            raise MapFormatError(f"{path}:{i + 1}: expected 'map' alone on its line, got {lines[i][:60]!r}")
        return ""
    if len(parts) != 2:
        raise MapFormatError(f"{path}:{i + 1}: expected '{key} <value>', got {lines[i][:60]!r}")
    return parts[1]


def read_map(path: str | Path) -> np.ndarray:
    """Read a ``.map`` file into an array of single characters (dtype ``<U1``), indexed ``[y, x]``."""
    path = Path(path)
    # (A byte-order mark, which some editors put first, and spaces or tabs at a row's end are
    # dropped: no terrain is written with them. Any other character is named where it stands.)
    text = read_text(path, MapFormatError, encoding="utf-8-sig")
    lines = [line.rstrip(" \t") for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n")]
    kind = _header_value(path, lines, 0, "type")
    if kind != "octile":
        raise MapFormatError(f"{path}:1: map type {kind[:30]!r} is not supported; only 'type octile' grids are")
    size = {}
    for i, key in ((1, "height"), (2, "width")):
        value = _header_value(path, lines, i, key)
        number = parse_whole(value, 1, 1_000_000) if value.isdigit() else None
        if number is None:
            raise MapFormatError(f"{path}:{i + 1}: {key} must be a whole number from 1 to 1000000, got {value[:30]!r}")
        size[key] = number
    _header_value(path, lines, 3, "map")
    height, width = size["height"], size["width"]
    rows = lines[4 : 4 + height]
    if len(rows) < height:
        raise MapFormatError(f"{path}: the header says {height} rows, the file has {len(rows)}")
    extra = next((i for i, line in enumerate(lines[4 + height :]) if line.strip()), None)
    if extra is not None:
        raise MapFormatError(f"{path}:{5 + height + extra}: more rows than the header's height {height}")
    for y, row in enumerate(rows):
        if len(row) != width:
            raise MapFormatError(f"{path}:{y + 5}: row has {len(row)} characters, the header says {width}")
        bad = set(row) - KNOWN
        if bad:
            ch = sorted(bad)[0]
            raise MapFormatError(f"{path}:{y + 5}: unknown terrain character {ch!r} at x={row.index(ch)}")
    return np.array([list(r) for r in rows], dtype="<U1").reshape(height, width)


def load_movingai(path: Path, max_size: tuple[int, int]) -> MapData:
    """A ``.map`` file as this project's terrain (see :data:`TERRAIN_OF`)."""
    chars = read_map(path)
    h, w = chars.shape
    if w > max_size[0] or h > max_size[1]:
        raise MapFormatError(f"{path}: map is {w}x{h}, larger than the limit {max_size[0]}x{max_size[1]}")
    terrain = np.full(chars.shape, Terrain.ROCK, dtype=np.uint8)
    for ch, t in TERRAIN_OF.items():
        terrain[chars == ch] = t
    return MapData(path.stem, terrain, "Moving AI Lab benchmark map", {}, path, "movingai")


def dump_movingai(terrain: np.ndarray) -> str:
    """The ``.map`` text of a terrain grid (sand becomes ground, mountain out of bounds)."""
    lut = np.array([CHAR_OF.get(Terrain(t), "@") if t < len(Terrain) else "@" for t in range(256)])
    rows = ["".join(lut[row]) for row in terrain]
    h, w = terrain.shape
    return f"type octile\nheight {h}\nwidth {w}\nmap\n" + "\n".join(rows) + "\n"


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
        try:
            bucket, w, h, sx, sy, gx, gy = (int(fields[i]) for i in (0, 2, 3, 4, 5, 6, 7))
            optimal = float(fields[8])
        except ValueError:
            raise MapFormatError(f"{path}:{no}: bucket, sizes, coordinates and length must be numbers") from None
        if not all(0 <= x < w and 0 <= y < h for x, y in ((sx, sy), (gx, gy))):
            raise MapFormatError(f"{path}:{no}: start ({sx}, {sy}) or goal ({gx}, {gy}) is outside the {w}x{h} map")
        if not 0.0 <= optimal < float("inf"):
            raise MapFormatError(f"{path}:{no}: the optimal length must be a number >= 0, got {fields[8]!r}")
        printed = fields[8]
        # Half the last printed digit. Without a point the length went through C's %g (six
        # significant digits, trailing zeros dropped): "1962" is 1962.00 (1962.004 on
        # maze512-16-0), so its last digit is the second decimal.
        digits = len(printed.lstrip("+-").split(".")[0].lstrip("0")) or 1
        decimals = len(printed.split(".")[1]) if "." in printed else 6 - digits
        tol = max(1e-3, 0.5 * 10.0**-decimals)
        out.append(Scenario(bucket, (sx, sy), (gx, gy), optimal, tol, no))
    return out


MOVINGAI_LOSES = (
    "a Moving AI map keeps only ground, trees, swamp, water and walls: sand became ground '.', "
    "mountain and rock '@'; name, description, spawn areas and counts are not kept"
)


def _read(path: Path, max_size: tuple[int, int], _progress: object) -> MapData:
    return load_movingai(path, max_size)


def _write(data: MapData, dst: Path, _colours: object) -> list[Path]:
    write_atomically([(dst, dump_movingai(data.terrain).encode("utf-8"))], MapError)
    return [dst]


register_format(MapFormat("Moving AI", (".map",), _read, _write, MOVINGAI_LOSES,
                          accept=lambda prefix: text_prefix(prefix).startswith("type "), rank=2))  # fmt: skip
