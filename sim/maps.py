"""Map files: YAML maps (drawn rows or a generator), Moving AI ``.map`` imports, saving.

A YAML map::

    name: Tutorial island
    description: optional text
    legend:              # optional; these are the defaults
      "~": water
      ":": sand
      ".": grass
      "T": forest
      "%": swamp
      "^": mountain
      "#": rock
    rows: |
      ~~~~~~~~
      ~~::..~~
    spawn:               # optional: rectangles [x, y, width, height] per species
      cow: [[2, 1, 4, 1]]

or, for big maps, ``generator: island`` with ``width``, ``height``, ``seed`` and
optionally ``islands``, ``land`` (fraction) and ``roughness``.

Every problem is a :class:`MapError` (a ``ValueError``) whose message names the file,
the line where it can tell, and what is wrong.
"""

from __future__ import annotations

import difflib
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from .files import parse_yaml, read_text
from .mapgen import generate_island
from .movingai import MapFormatError, read_map
from .terrain import Terrain, parse_terrain

DEFAULT_LEGEND: dict[str, Terrain] = {
    "~": Terrain.WATER,
    ":": Terrain.SAND,
    ".": Terrain.GRASS,
    "T": Terrain.FOREST,
    "%": Terrain.SWAMP,
    "^": Terrain.MOUNTAIN,
    "#": Terrain.ROCK,
}
MOVINGAI_TERRAIN: dict[str, Terrain] = {
    ".": Terrain.GRASS,
    "G": Terrain.GRASS,
    "S": Terrain.SWAMP,
    "T": Terrain.FOREST,
    "W": Terrain.WATER,
    "@": Terrain.ROCK,
    "O": Terrain.ROCK,
}
MAP_KEYS = (
    "name",
    "description",
    "legend",
    "rows",
    "spawn",
    "animals",
    "generator",
    "width",
    "height",
    "seed",
    "islands",
    "land",
    "roughness",
)
GENERATORS = ("island",)

Rect = tuple[int, int, int, int]  # x, y, width, height


class MapError(ValueError):
    """A map that cannot be used; the message names the file, line and problem."""


@dataclass
class MapData:
    """A loaded map. ``terrain`` is uint8 terrain ids indexed ``[y, x]``."""

    name: str
    terrain: np.ndarray
    description: str = ""
    spawn: dict[str, list[Rect]] = field(default_factory=dict)
    source: Path | None = None
    kind: str = "yaml"  # "yaml", "generated" or "movingai"
    animals: dict[str, int] | None = None  # the map's own animal counts, if it names them


def list_maps(directory: Path) -> list[Path]:
    """The map files in ``directory`` (YAML and Moving AI), sorted by name."""
    if not directory.is_dir():
        return []
    return sorted(p for p in directory.iterdir() if p.suffix in (".yaml", ".yml", ".map") and p.is_file())


def resolve_map(name: str, directory: Path) -> Path:
    """A map name (``island``) or path (``maps/island.yaml``, ``x.map``) -> an existing file."""
    direct = Path(name)
    if direct.is_file():
        return direct
    for candidate in (directory / name, directory / f"{name}.yaml", directory / f"{name}.map"):
        if candidate.is_file():
            return candidate
    known = [p.stem for p in list_maps(directory)]
    close = difflib.get_close_matches(name, known, n=1)
    hint = (
        f" (did you mean '{close[0]}'?)" if close else (f"; maps in {directory}: {', '.join(known)}" if known else "")
    )
    raise MapError(f"{name}: map not found{hint}")


def load_map(path: str | Path, *, max_size: tuple[int, int] = (2048, 2048)) -> MapData:
    """Load a ``.yaml`` map or a Moving AI ``.map``; ``max_size`` is (width, height) at most."""
    path = Path(path)
    if path.suffix == ".map":
        return _load_movingai(path, max_size)
    text = read_text(path, MapError)
    data = parse_yaml(text, path, MapError)
    return parse_map(data, path, text, max_size)


def parse_map(data: Any, path: Path, text: str = "", max_size: tuple[int, int] = (2048, 2048)) -> MapData:
    """Validate parsed YAML ``data`` (read from ``path``; ``text`` gives line numbers)."""

    def fail(message: str, line: int | None = None) -> MapError:
        return MapError(f"{path}{f':{line}' if line else ''}: {message}")

    if data is None:
        raise fail("the map file is empty")
    if not isinstance(data, dict):
        raise fail(f"expected a mapping with 'rows' or 'generator' at the top level, got {type(data).__name__}")
    for key in data:
        if key not in MAP_KEYS:
            close = difflib.get_close_matches(str(key), MAP_KEYS, n=1, cutoff=0.5)
            hint = f" (did you mean '{close[0]}'?)" if close else f"; known keys: {', '.join(MAP_KEYS)}"
            raise fail(f"unknown key '{key}'{hint}", _key_line(text, str(key)))
    name = data.get("name", path.stem)
    description = data.get("description", "") or ""
    if not isinstance(name, str) or not isinstance(description, str):
        raise fail("'name' and 'description' must be text", _key_line(text, "name"))
    if ("rows" in data) == ("generator" in data):
        raise fail("a map needs exactly one of 'rows' (drawn) or 'generator' (generated)")

    if "generator" in data:
        terrain = _generate(data, fail, text, max_size)
        kind = "generated"
    else:
        terrain = _rows(data, fail, text, max_size)
        kind = "yaml"
    spawn = _spawn(data.get("spawn"), terrain.shape, fail, text)
    animals = _animals(data.get("animals"), fail, text)
    return MapData(name, terrain, description, spawn, path, kind, animals)


def _key_line(text: str, key: str) -> int | None:
    """1-based line of a top-level ``key:`` in the YAML text, if it can be found."""
    m = re.search(rf"^{re.escape(key)}\s*:", text, flags=re.MULTILINE)
    return text.count("\n", 0, m.start()) + 1 if m else None


def _row_lines(text: str, n: int) -> list[int | None]:
    """1-based file line of each of the ``n`` rows (block scalar or list form)."""
    start = _key_line(text, "rows")
    if start is None:
        return [None] * n
    lines = text.split("\n")
    head = lines[start - 1].split(":", 1)[1].strip()
    if head.startswith(("|", ">")):
        return [start + 1 + i for i in range(n)]
    found = [i + 1 for i in range(start, len(lines)) if lines[i].lstrip().startswith("-")]
    return (found + [None] * n)[:n]


def _legend(data: dict, fail, text: str) -> dict[str, Terrain]:
    raw = data.get("legend")
    if raw is None:
        return dict(DEFAULT_LEGEND)
    if not isinstance(raw, dict) or not raw:
        raise fail("'legend' must map single characters to terrain names", _key_line(text, "legend"))
    legend = {}
    for ch, name in raw.items():
        ch = str(ch)
        if len(ch) != 1 or ch in "\t\n\r":
            raise fail(f"legend key {ch!r} must be one character (not a tab)", _key_line(text, "legend"))
        try:
            legend[ch] = parse_terrain(str(name))
        except ValueError as exc:
            raise fail(f"legend {ch!r}: {exc}", _key_line(text, "legend")) from None
    return legend


def _rows(data: dict, fail, text: str, max_size: tuple[int, int]) -> np.ndarray:
    legend = _legend(data, fail, text)
    raw = data["rows"]
    if isinstance(raw, str):
        rows = raw.split("\n")
        while rows and rows[-1] == "":
            rows.pop()
    elif isinstance(raw, list) and all(isinstance(r, str) for r in raw):
        rows = list(raw)
    else:
        raise fail("'rows' must be a block of text (rows: |) or a list of strings", _key_line(text, "rows"))
    if not rows or not rows[0]:
        raise fail("the map has no rows", _key_line(text, "rows"))
    lines = _row_lines(text, len(rows))
    width, height = len(rows[0]), len(rows)
    if width > max_size[0] or height > max_size[1]:
        raise fail(
            f"map is {width}x{height}, larger than the limit {max_size[0]}x{max_size[1]}", _key_line(text, "rows")
        )
    lut = np.full(0x110000 if any(ord(c) > 255 for c in legend) else 256, 255, dtype=np.uint8)
    for ch, t in legend.items():
        lut[ord(ch)] = t
    terrain = np.empty((height, width), dtype=np.uint8)
    for y, row in enumerate(rows):
        if "\t" in row:
            raise fail(
                f"tab character in row {y + 1} at column {row.index(chr(9)) + 1}; use legend characters", lines[y]
            )
        if len(row) != width:
            raise fail(f"row {y + 1} has {len(row)} characters, expected {width} like the first row", lines[y])
        codes = np.frombuffer(row.encode("utf-32-le"), dtype=np.uint32)
        if codes.max() >= lut.size or (lut[codes] == 255).any():
            bad = next(i for i, c in enumerate(row) if c not in legend)
            raise fail(
                f"unknown character {row[bad]!r} in row {y + 1} at column {bad + 1}; the legend has {''.join(legend)}",
                lines[y],
            )
        terrain[y] = lut[codes]
    return terrain


def _int_param(data: dict, key: str, default: int | None, lo: int, hi: int, fail, text: str) -> int:
    value = data.get(key, default)
    if value is None:
        raise fail(f"a generated map needs '{key}'")
    if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
        raise fail(f"'{key}' must be a whole number from {lo} to {hi}, got {value!r}", _key_line(text, key))
    return value


def _float_param(data: dict, key: str, default: float, lo: float, hi: float, fail, text: str) -> float:
    value = data.get(key, default)
    if not isinstance(value, int | float) or isinstance(value, bool) or not lo <= value <= hi:
        raise fail(f"'{key}' must be a number from {lo:g} to {hi:g}, got {value!r}", _key_line(text, key))
    return float(value)


def _generate(data: dict, fail, text: str, max_size: tuple[int, int]) -> np.ndarray:
    if data["generator"] not in GENERATORS:
        raise fail(
            f"unknown generator {data['generator']!r}; expected one of {', '.join(GENERATORS)}",
            _key_line(text, "generator"),
        )
    width = _int_param(data, "width", None, 8, 10**6, fail, text)
    height = _int_param(data, "height", None, 8, 10**6, fail, text)
    if width > max_size[0] or height > max_size[1]:
        raise fail(
            f"map is {width}x{height}, larger than the limit {max_size[0]}x{max_size[1]}", _key_line(text, "width")
        )
    seed = _int_param(data, "seed", 0, 0, 2**63 - 1, fail, text)
    islands = _int_param(data, "islands", 1, 1, 64, fail, text)
    land = _float_param(data, "land", 0.45, 0.05, 0.95, fail, text)
    rough = _float_param(data, "roughness", 0.5, 0.0, 1.0, fail, text)
    return generate_island(width, height, seed=seed, islands=islands, land=land, roughness=rough)


def _spawn(raw: Any, shape: tuple[int, int], fail, text: str) -> dict[str, list[Rect]]:
    if raw is None:
        return {}
    line = _key_line(text, "spawn")
    if not isinstance(raw, dict):
        raise fail("'spawn' must map species to lists of [x, y, width, height]", line)
    out: dict[str, list[Rect]] = {}
    for species, rects in raw.items():
        if not isinstance(rects, list) or not all(
            isinstance(r, list) and len(r) == 4 and all(isinstance(v, int) and not isinstance(v, bool) for v in r)
            for r in rects
        ):
            raise fail(f"spawn '{species}' must be a list of [x, y, width, height] whole numbers", line)
        for x, y, w, h in rects:
            if w <= 0 or h <= 0 or x < 0 or y < 0 or x + w > shape[1] or y + h > shape[0]:
                raise fail(f"spawn '{species}' area {[x, y, w, h]} is not inside the {shape[1]}x{shape[0]} map", line)
        out[str(species)] = [tuple(r) for r in rects]
    return out


def _animals(raw: Any, fail, text: str) -> dict[str, int] | None:
    if raw is None:
        return None
    line = _key_line(text, "animals")
    known = ("cow", "bird", "water")
    if not isinstance(raw, dict):
        raise fail("'animals' must map species (cow, bird, water) to counts", line)
    for k, v in raw.items():
        if k not in known:
            close = difflib.get_close_matches(str(k), known, n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else f"; known species: {', '.join(known)}"
            raise fail(f"unknown species '{k}' in 'animals'{hint}", line)
        if not isinstance(v, int) or isinstance(v, bool) or not 0 <= v <= 100_000:
            raise fail(f"animals '{k}' must be a whole number from 0 to 100000, got {v!r}", line)
    return {k: raw.get(k, 0) for k in known}


def _load_movingai(path: Path, max_size: tuple[int, int]) -> MapData:
    try:
        chars = read_map(path)
    except MapFormatError as exc:
        raise MapError(str(exc)) from None
    h, w = chars.shape
    if w > max_size[0] or h > max_size[1]:
        raise MapError(f"{path}: map is {w}x{h}, larger than the limit {max_size[0]}x{max_size[1]}")
    terrain = np.full(chars.shape, Terrain.ROCK, dtype=np.uint8)
    for ch, t in MOVINGAI_TERRAIN.items():
        terrain[chars == ch] = t
    return MapData(path.stem, terrain, "Moving AI Lab benchmark map", {}, path, "movingai")


# ---------------------------------------------------------------------- saving
def dump_map(
    name: str,
    terrain: np.ndarray,
    description: str = "",
    spawn: dict[str, list[Rect]] | None = None,
    animals: dict[str, int] | None = None,
) -> str:
    """The YAML text of a drawn map with the default legend (and its spawn areas and counts)."""
    by_id = np.full(256, "#", dtype="<U1")
    for ch, t in DEFAULT_LEGEND.items():
        by_id[t] = ch
    rows = ["".join(by_id[row]) for row in terrain]
    head = yaml.safe_dump({"name": name, "description": description}, sort_keys=False, allow_unicode=True)
    legend = "legend:\n" + "".join(f'  "{ch}": {t.label}\n' for ch, t in DEFAULT_LEGEND.items())
    tail = ""
    if spawn:
        tail += "spawn:\n" + "".join(f"  {k}: {[list(r) for r in v]}\n" for k, v in spawn.items())
    if animals:
        tail += "animals: {" + ", ".join(f"{k}: {v}" for k, v in animals.items()) + "}\n"
    return head + legend + "rows: |\n" + "".join(f"  {r}\n" for r in rows) + tail


def save_map(
    name: str,
    terrain: np.ndarray,
    source: Path | None,
    fallback_dir: Path,
    spawn: dict[str, list[Rect]] | None = None,
    animals: dict[str, int] | None = None,
) -> Path:
    """Write the map as ``<stem>-edited.yaml`` next to ``source`` (or in ``fallback_dir`` if
    that folder is not writable); never overwrites: ``-edited-2``, ``-edited-3``, … ."""
    directory = source.parent if source is not None and os.access(source.parent, os.W_OK) else fallback_dir
    stem = re.sub(r"-edited(-\d+)?$", "", source.stem if source is not None else re.sub(r"\W+", "-", name).lower())
    n = 1
    while True:
        target = directory / (f"{stem}-edited.yaml" if n == 1 else f"{stem}-edited-{n}.yaml")
        try:
            with open(target, "x", encoding="utf-8") as fh:  # "x": fails if it exists, no race
                title = f"{name} (edited)" if "(edited)" not in name else name
                fh.write(dump_map(title, terrain, spawn=spawn, animals=animals))
            return target
        except FileExistsError:
            n += 1
