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
    spawn:               # optional: areas [x, y, width, height] per species
      cow: [[2, 1, 4, 1]]

or, for big maps, ``generator: island`` with ``width``, ``height``, ``seed`` and
optionally ``islands``, ``land`` (fraction) and ``roughness``.

Every problem is a :class:`MapError` (a ``ValueError``) whose message names the file,
the line where it can tell, and what is wrong.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from sim.maps.data import MapData, MapError
from sim.maps.generate import generate_island
from sim.maps.registry import MapFormat, register_format, text_prefix
from sim.maps.tiled.write import check_writable_text
from sim.support.checks import MAX_ANIMALS, Checker, short
from sim.support.files import load_yaml, parse_yaml, write_atomically, write_new
from sim.world.fauna import FAUNA
from sim.world.geometry import CellRect
from sim.world.terrain import DEFAULT_LEGEND, Terrain, parse_terrain

MAP_KEYS = (
    "name",
    "description",
    "legend",
    "rows",
    "spawn",
    "animals",
    "search",
    "generator",
    "width",
    "height",
    "seed",
    "islands",
    "land",
    "roughness",
)
GENERATORS = ("island",)
#: What a map may choose for a species' searches (``search: {water: jps}``; see MapData.search).
MAP_SEARCHES = ("astar", "jps")
__all__ = ["MAP_SEARCHES", "check_animals", "check_search", "check_spawn", "dump_map", "parse_map", "save_map"]


def parse_map(
    data: Any,
    path: Path,
    text: str = "",
    max_size: tuple[int, int] = (2048, 2048),
    lines: dict[str, int] | None = None,
    progress: Callable[[float], None] | None = None,
) -> MapData:
    """Validate parsed YAML ``data`` (read from ``path``; ``lines`` or ``text`` give line numbers)."""
    if lines is None:
        lines = parse_yaml(text, path, MapError).lines if text else {}
    check = Checker(path, MapError, lines, name_keys=False)
    if data is None:
        raise MapError(f"{path}: the map file is empty")
    if not isinstance(data, dict):
        raise MapError(
            f"{path}: expected a mapping with 'rows' or 'generator' at the top level, got {type(data).__name__}"
        )
    check.keys("", data, MAP_KEYS)
    name = data.get("name", path.stem)
    description = data.get("description", "") or ""
    if not isinstance(name, str) or not isinstance(description, str):
        check.fail("name", "'name' and 'description' must be text")
    if ("rows" in data) == ("generator" in data):
        raise MapError(f"{path}: a map needs exactly one of 'rows' (drawn) or 'generator' (generated)")
    if "generator" in data:
        terrain, kind = _generate(data, check, max_size, progress), "generated"
    else:
        terrain, kind = _rows(data, check, max_size), "yaml"
    spawn = check_spawn(data.get("spawn"), terrain.shape, check)
    animals = check_animals(data.get("animals"), check)
    search = check_search(data.get("search"), check)
    return MapData(name, terrain, description, spawn, path, kind, animals, search=search)


def _legend(data: dict, check: Checker) -> dict[str, Terrain]:
    raw = data.get("legend")
    if raw is None:
        return dict(DEFAULT_LEGEND)
    if not isinstance(raw, dict) or not raw:
        check.fail("legend", "'legend' must map single characters to terrain names")
    legend = {}
    for ch, name in raw.items():
        ch = str(ch)
        if len(ch) != 1 or ch in "\t\n\r":
            check.fail("legend", f"legend key {short(ch)} must be one character (not a tab)")
        try:
            legend[ch] = parse_terrain(name if isinstance(name, str) else short(name))
        except ValueError as exc:
            check.fail(f"legend.{ch}", f"legend {ch!r}: {exc}")
    return legend


def _row_lines(check: Checker, rows: Any, n: int) -> list[int | None]:
    """1-based file line of each of the ``n`` rows (block scalar or list form)."""
    start = check.line("rows")
    if isinstance(rows, list):
        return [check.line(f"rows[{i}]") for i in range(n)]
    return [start + 1 + i if start else None for i in range(n)]


def _rows(data: dict, check: Checker, max_size: tuple[int, int]) -> np.ndarray:
    legend = _legend(data, check)
    raw = data["rows"]
    if isinstance(raw, str):
        rows = raw.split("\n")
        while rows and rows[-1] == "":
            rows.pop()
    elif isinstance(raw, list) and all(isinstance(r, str) for r in raw):
        rows = list(raw)
    else:
        check.fail("rows", "'rows' must be a block of text (rows: |) or a list of strings")
    if not rows or not rows[0]:
        check.fail("rows", "the map has no rows")
    width, height = len(rows[0]), len(rows)
    if width > max_size[0] or height > max_size[1]:
        check.fail("rows", f"map is {width}x{height}, larger than the limit {max_size[0]}x{max_size[1]}")
    lines = _row_lines(check, raw, len(rows))
    lut = np.full(0x110000 if any(ord(c) > 255 for c in legend) else 256, 255, dtype=np.uint8)
    for ch, t in legend.items():
        lut[ord(ch)] = t
    terrain = np.empty((height, width), dtype=np.uint8)
    for y, row in enumerate(rows):
        if "\t" in row:
            check.fail(
                "rows",
                f"tab character in row {y + 1} at column {row.index(chr(9)) + 1}; use legend characters",
                lines[y],
            )
        if len(row) != width:
            check.fail("rows", f"row {y + 1} has {len(row)} characters, expected {width} like the first row", lines[y])
        codes = np.frombuffer(row.encode("utf-32-le"), dtype=np.uint32)
        if codes.max() >= lut.size or (lut[codes] == 255).any():
            bad = next(i for i, c in enumerate(row) if c not in legend)
            check.fail(
                "rows",
                f"unknown character {row[bad]!r} in row {y + 1} at column {bad + 1}; the legend has {''.join(legend)}",
                lines[y],
            )
        terrain[y] = lut[codes]
    return terrain


def _generate(
    data: dict, check: Checker, max_size: tuple[int, int], progress: Callable[[float], None] | None = None
) -> np.ndarray:
    if data["generator"] not in GENERATORS:
        check.fail(
            "generator", f"unknown generator {short(data['generator'])}; expected one of {', '.join(GENERATORS)}"
        )
    for key in ("width", "height"):
        if key not in data:
            raise MapError(f"{check.source}: a generated map needs '{key}'")
    width = check.integer("width", data["width"], 8, 10**6)
    height = check.integer("height", data["height"], 8, 10**6)
    if width > max_size[0] or height > max_size[1]:
        check.fail("width", f"map is {width}x{height}, larger than the limit {max_size[0]}x{max_size[1]}")
    seed = check.integer("seed", data.get("seed", 0), 0, 2**63 - 1)
    islands = check.integer("islands", data.get("islands", 1), 1, 64)
    land = check.number("land", data.get("land", 0.45), 0.05, 0.95)
    rough = check.number("roughness", data.get("roughness", 0.5), 0.0, 1.0)
    return generate_island(width, height, seed=seed, islands=islands, land=land, roughness=rough, progress=progress)


def check_spawn(raw: Any, shape: tuple[int, int], check: Checker) -> dict[str, list[CellRect]]:
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        check.fail("spawn", "'spawn' must map species to lists of [x, y, width, height]")
    out: dict[str, list[CellRect]] = {}
    for species, areas in raw.items():
        if species not in FAUNA:
            check.unknown("spawn", species, FAUNA, "unknown species", inside=True)
        if not isinstance(areas, list) or not all(
            isinstance(r, list) and len(r) == 4 and all(isinstance(v, int) and not isinstance(v, bool) for v in r)
            for r in areas
        ):
            check.fail(f"spawn.{species}", f"spawn '{species}' must be a list of [x, y, width, height] whole numbers")
        for x, y, w, h in areas:
            if w <= 0 or h <= 0 or x < 0 or y < 0 or x + w > shape[1] or y + h > shape[0]:
                check.fail(
                    f"spawn.{species}",
                    f"spawn '{species}' area {short([x, y, w, h])} is not inside the {shape[1]}x{shape[0]} map",
                )
        out[species] = [CellRect.from_xywh(*r) for r in areas]
    return out


def check_animals(raw: Any, check: Checker) -> dict[str, int] | None:
    if raw is None:
        return None
    if not isinstance(raw, dict):
        check.fail("animals", f"'animals' must map species ({', '.join(FAUNA)}) to counts")
    for k, v in raw.items():
        if k not in FAUNA:
            check.unknown("animals", k, FAUNA, "unknown species", inside=True)
        check.integer(f"animals.{k}", v, 0, MAX_ANIMALS, label=f"animals '{k}'")
    return {k: raw.get(k, 0) for k in FAUNA}


def check_search(raw: Any, check: Checker) -> dict[str, str]:
    """A map's ``search`` choices: species key -> ``astar`` or ``jps``."""
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        check.fail("search", f"'search' must map species ({', '.join(FAUNA)}) to {' or '.join(MAP_SEARCHES)}")
    for k, v in raw.items():
        if k not in FAUNA:
            check.unknown("search", k, FAUNA, "unknown species", inside=True)
        check.choice(f"search.{k}", v, MAP_SEARCHES, label=f"search '{k}'")
    return dict(raw)


# ---------------------------------------------------------------------- saving
def dump_map(
    name: str,
    terrain: np.ndarray,
    description: str = "",
    spawn: dict[str, list[CellRect]] | None = None,
    animals: dict[str, int] | None = None,
    search: dict[str, str] | None = None,
) -> str:
    """The YAML text of a drawn map with the default legend (and its spawn areas, counts and
    search choices)."""
    by_id = np.full(256, "#", dtype="<U1")
    for ch, t in DEFAULT_LEGEND.items():
        by_id[t] = ch
    rows = ["".join(by_id[row]) for row in terrain]
    head = _yaml_text({"name": name, "description": description})
    legend = "legend:\n" + "".join(f'  "{ch}": {t.label}\n' for ch, t in DEFAULT_LEGEND.items())
    tail = ""
    if spawn:
        tail += "spawn:\n" + "".join(f"  {k}: {[list(CellRect(*r).xywh) for r in v]}\n" for k, v in spawn.items())
    if animals:
        tail += "animals: {" + ", ".join(f"{k}: {v}" for k, v in animals.items()) + "}\n"
    if search:
        tail += "search: {" + ", ".join(f"{k}: {v}" for k, v in search.items()) + "}\n"
    return head + legend + "rows: |\n" + "".join(f"  {r}\n" for r in rows) + tail


def _yaml_text(fields: dict[str, str]) -> str:
    """``fields`` as YAML that loads back equal: readable Unicode where it round-trips, escaped
    where it would not (YAML folds line breaks such as U+0085 and U+2028 inside a quoted line)."""
    text = yaml.safe_dump(fields, sort_keys=False, allow_unicode=True)
    if parse_yaml(text, "<map header>", MapError).data != fields:
        text = yaml.safe_dump(fields, sort_keys=False, allow_unicode=False)
    return text


def save_map(
    name: str,
    terrain: np.ndarray,
    source: Path | None,
    fallback_dir: Path,
    spawn: dict[str, list[CellRect]] | None = None,
    animals: dict[str, int] | None = None,
    description: str = "",
    search: dict[str, str] | None = None,
) -> Path:
    """Write the map (with its ``description``) as ``<stem>-edited.yaml`` next to ``source``, or in
    ``fallback_dir`` when the source is a bundled map (never written to) or its folder is not
    writable; never overwrites: ``-edited-2``, ``-edited-3``, … ; complete or not at all."""
    from sim.support.resources import is_bundled

    beside = source is not None and not is_bundled(source) and os.access(source.parent, os.W_OK)
    directory = source.parent if source is not None and beside else fallback_dir
    directory.mkdir(parents=True, exist_ok=True)
    stem = re.sub(r"-edited(-\d+)?$", "", source.stem if source is not None else re.sub(r"\W+", "-", name).lower())
    title = f"{name} (edited)" if "(edited)" not in name else name
    for key, value in (("name", title), ("description", description)):
        check_writable_text(directory / f"{stem}-edited.yaml", key, value, xml=False)
    text = dump_map(title, terrain, description, spawn=spawn, animals=animals, search=search).encode("utf-8")
    n = 1
    while True:
        target = directory / (f"{stem}-edited.yaml" if n == 1 else f"{stem}-edited-{n}.yaml")
        try:
            write_new(target, text, MapError)  # complete or not there at all; never replaces a file
            return target
        except FileExistsError:
            n += 1


def _read(path: Path, max_size: tuple[int, int], progress: Callable[[float], None] | None) -> MapData:
    doc = load_yaml(path, MapError)
    return parse_map(doc.data, path, max_size=max_size, lines=doc.lines, progress=progress)


def _write(data: MapData, dst: Path, _colours: object) -> list[Path]:
    for key, value in (("name", data.name), ("description", data.description)):
        check_writable_text(dst, key, value, xml=False)
    text = dump_map(data.name, data.terrain, data.description, data.spawn, data.animals, data.search)
    write_atomically([(dst, text.encode("utf-8"))], MapError)
    return [dst]


def _accept(prefix: bytes) -> bool:
    """A YAML map starts with a key (``name:``, ``rows:``, ``generator:``...) or a comment."""
    text = text_prefix(prefix)
    return bool(re.match(r"(#|---|[A-Za-z_][A-Za-z0-9_.]*\s*:)", text))


register_format(MapFormat("YAML", (".yaml", ".yml"), _read, _write, accept=_accept, rank=0))
