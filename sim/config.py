"""Settings: ``config.yaml`` loaded once into frozen dataclasses and passed down.

Every field is declared once below with its type, range and default; one validator
walks the YAML against those declarations, so a bad file gets one clear line:

    config.yaml: key 'species.cow.count': expected a whole number >= 0, got -3
    config.yaml: unknown key 'serach' (did you mean 'search'?)
"""

from __future__ import annotations

import difflib
import math
import typing
from dataclasses import dataclass, field, fields, is_dataclass
from pathlib import Path
from typing import Any

from .files import parse_yaml, read_text
from .terrain import DEFAULT_COLOURS, Terrain, parse_terrain

Colour = tuple[int, int, int]


class ConfigError(ValueError):
    """A settings file that cannot be used; the message names the file, key and problem."""


def _f(default: Any, *, lo: float | None = None, hi: float | None = None, doc: str = "") -> Any:
    """A field with a range; mutable defaults are copied per instance."""
    meta = {"lo": lo, "hi": hi, "doc": doc}
    if isinstance(default, dict | list):
        return field(default_factory=lambda d=default: type(d)(d), metadata=meta)
    return field(default=default, metadata=meta)


@dataclass(frozen=True)
class WindowConfig:
    width: int = _f(1280, lo=320, hi=10000, doc="window width in pixels")
    height: int = _f(800, lo=240, hi=10000, doc="window height in pixels")
    fps_cap: int = _f(144, lo=0, hi=1000, doc="frames per second at most; 0 = uncapped")
    tile_px: int = _f(8, lo=1, hi=64, doc="zoom for maps too large to show whole (pixels per cell)")


@dataclass(frozen=True)
class SearchConfig:
    budget_ms: float = _f(3.0, lo=0.05, hi=1000, doc="search time per frame; later requests wait")
    max_nodes: int = _f(6000, lo=1, hi=10_000_000, doc="expansions per search at most")
    cooldown_s: float = _f(1.0, lo=0, hi=3600, doc="an animal searches again only after this")
    cooldown_jitter: float = _f(0.5, lo=0, hi=1, doc="each animal's cooldown varies by ± this fraction")
    node_cost_us: float = _f(0.2, lo=0, hi=1000, doc="headless budget: charge per expanded node (µs)")
    call_cost_us: float = _f(15.0, lo=0, hi=100000, doc="headless budget: charge per search (µs)")
    diagonal: str = _f("no-corner-cutting", doc="never | no-corner-cutting | one-obstacle | always")
    compare_weight: float = _f(2.0, lo=1, hi=100, doc="weight of weighted A* in compare mode (C)")


@dataclass(frozen=True)
class SpeciesConfig:
    count: int = _f(100, lo=0, hi=100_000, doc="animals of this species at start")
    speed: float = _f(3.0, lo=0.1, hi=100, doc="cells per second on a multiplier-1 cell")
    wander_radius: int = _f(20, lo=1, hi=10000, doc="goals are picked within this many cells")
    idle_s: tuple[float, float] = _f((0.5, 2.0), lo=0, hi=3600, doc="idle time between walks, min and max")
    colour: Colour = _f((255, 255, 255), lo=0, hi=255, doc="marker colour (overlay, paths)")
    costs: dict[str, float] = _f({}, lo=0, hi=1e6, doc="terrain -> multiplier; 0 = impassable")


@dataclass(frozen=True)
class Config:
    seed: int = _f(42, lo=0, doc="seed of the one random generator")
    map: str = _f("island", doc="map name in maps/ or a path (.yaml or Moving AI .map)")
    max_map_width: int = _f(2048, lo=1, hi=1_000_000, doc="largest map accepted")
    max_map_height: int = _f(2048, lo=1, hi=1_000_000, doc="largest map accepted")
    window: WindowConfig = field(default_factory=WindowConfig)
    search: SearchConfig = field(default_factory=SearchConfig)
    species: dict[str, SpeciesConfig] = field(default_factory=dict)
    colours: dict[str, Colour] = field(default_factory=dict)
    source: str = field(default="(defaults)", compare=False)

    def terrain_colours(self) -> dict[Terrain, Colour]:
        """Colour per terrain: the defaults, overridden by the ``colours`` section."""
        out = dict(DEFAULT_COLOURS)
        out.update({parse_terrain(k): v for k, v in self.colours.items()})
        return out


SPECIES_KEYS = ("cow", "bird", "water")


# ------------------------------------------------------------------ validation
def _expect(kind: Any, meta: dict) -> str:
    lo, hi = meta.get("lo"), meta.get("hi")
    rng = ""
    if lo is not None and hi is not None:
        rng = f" from {lo:g} to {hi:g}"
    elif lo is not None:
        rng = f" >= {lo:g}"
    if kind is int:
        return "a whole number" + rng
    if kind is float:
        return "a number" + rng
    if kind is str:
        return "a string"
    if kind is bool:
        return "true or false"
    return str(kind)


class _Checker:
    def __init__(self, source: str) -> None:
        self.source = source

    def fail(self, path: str, message: str) -> typing.NoReturn:
        where = f"key '{path}'" if path else "top level"
        raise ConfigError(f"{self.source}: {where}: {message}")

    def scalar(self, path: str, value: Any, kind: Any, meta: dict) -> Any:
        ok = {
            int: isinstance(value, int) and not isinstance(value, bool),
            float: isinstance(value, int | float) and not isinstance(value, bool),
            str: isinstance(value, str),
            bool: isinstance(value, bool),
        }[kind]
        if ok and kind in (int, float):
            lo, hi = meta.get("lo"), meta.get("hi")
            ok = math.isfinite(value) and (lo is None or value >= lo) and (hi is None or value <= hi)
        if not ok:
            self.fail(path, f"expected {_expect(kind, meta)}, got {value!r}")
        return float(value) if kind is float else value

    def value(self, path: str, value: Any, hint: Any, meta: dict) -> Any:
        origin = typing.get_origin(hint)
        if is_dataclass(hint):
            return self.section(path, value, hint)
        if origin is tuple:
            args = typing.get_args(hint)
            if not isinstance(value, list | tuple) or len(value) != len(args):
                self.fail(path, f"expected a list of {len(args)} values ({_expect(args[0], meta)}), got {value!r}")
            return tuple(
                self.value(f"{path}[{i}]", v, a, meta) for i, (v, a) in enumerate(zip(value, args, strict=True))
            )
        if origin is dict:
            if not isinstance(value, dict):
                self.fail(path, f"expected a mapping, got {value!r}")
            _, vhint = typing.get_args(hint)
            return {str(k): self.value(f"{path}.{k}", v, vhint, meta) for k, v in value.items()}
        return self.scalar(path, value, hint, meta)

    def section(self, path: str, data: Any, cls: type) -> Any:
        if data is None:
            data = {}
        if not isinstance(data, dict):
            self.fail(path, f"expected a mapping of settings, got {data!r}")
        hints = typing.get_type_hints(cls)
        known = [f.name for f in fields(cls) if f.name != "source"]
        for key in data:
            if key not in known:
                close = difflib.get_close_matches(str(key), known, n=1, cutoff=0.5)
                hint = f" (did you mean '{close[0]}'?)" if close else f"; known keys: {', '.join(known)}"
                name = f"{path}.{key}" if path else str(key)
                raise ConfigError(f"{self.source}: unknown key '{name}'{hint}")
        kwargs = {}
        for f in fields(cls):
            if f.name in data:
                sub = f"{path}.{f.name}" if path else f.name
                kwargs[f.name] = self.value(sub, data[f.name], hints[f.name], dict(f.metadata))
        return cls(**kwargs)


def _species_defaults() -> dict[str, SpeciesConfig]:
    from .species import SPECIES

    out = {}
    for key, cls in SPECIES.items():
        costs = {Terrain(t).label: float(v) for t, v in cls.astar_class.terrain_costs.items()}
        out[key] = SpeciesConfig(speed=cls.default_speed, colour=cls.default_colour, costs=costs)
    return out


def parse_config(data: Any, source: str = "config.yaml") -> Config:
    """Validate already-parsed YAML data into a :class:`Config`."""
    check = _Checker(source)
    data = {} if data is None else data
    species_data = None
    if isinstance(data, dict):
        data = dict(data)  # the caller's dict stays as it was
        species_data = data.pop("species", None)
    cfg = check.section("", data, Config)
    species = _species_defaults()
    if species_data is not None:
        if not isinstance(species_data, dict):
            check.fail("species", f"expected a mapping of species ({', '.join(SPECIES_KEYS)}), got {species_data!r}")
        for key, sdata in species_data.items():
            if key not in species:
                close = difflib.get_close_matches(str(key), SPECIES_KEYS, n=1, cutoff=0.5)
                hint = f" (did you mean '{close[0]}'?)" if close else f"; known species: {', '.join(SPECIES_KEYS)}"
                raise ConfigError(f"{source}: unknown species 'species.{key}'{hint}")
            parsed = check.section(f"species.{key}", sdata, SpeciesConfig)
            given = sdata or {}
            merged = {
                f.name: getattr(parsed if f.name in given else species[key], f.name) for f in fields(SpeciesConfig)
            }
            if "costs" in given:
                merged["costs"] = {**species[key].costs, **parsed.costs}
            species[key] = SpeciesConfig(**merged)
    for key, spec in species.items():
        for name in spec.costs:
            try:
                parse_terrain(name)
            except ValueError as exc:
                check.fail(f"species.{key}.costs.{name}", str(exc))
        lo, hi = spec.idle_s
        if lo > hi:
            check.fail(f"species.{key}.idle_s", f"min {lo:g} is greater than max {hi:g}")
    for name in cfg.colours:
        try:
            parse_terrain(name)
        except ValueError as exc:
            check.fail(f"colours.{name}", str(exc))
    from .pathfinding import DIAGONAL_RULES

    if cfg.search.diagonal not in DIAGONAL_RULES:
        check.fail("search.diagonal", f"expected one of {', '.join(DIAGONAL_RULES)}, got {cfg.search.diagonal!r}")
    return Config(
        **{f.name: getattr(cfg, f.name) for f in fields(Config) if f.name not in ("species", "source")},
        species=species,
        source=source,
    )


def load_config(path: str | Path) -> Config:
    """Read and validate a settings file; ``ConfigError`` names the file and what is wrong."""
    path = Path(path)
    data = parse_yaml(read_text(path, ConfigError, "settings file not found"), path, ConfigError)
    if data is not None and not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a mapping of settings at the top level, got {type(data).__name__}")
    return parse_config(data, str(path))


def default_config() -> Config:
    """The built-in defaults (what an empty config.yaml gives)."""
    return parse_config({}, "(defaults)")


__all__ = [
    "SPECIES_KEYS",
    "Config",
    "ConfigError",
    "SearchConfig",
    "SpeciesConfig",
    "WindowConfig",
    "default_config",
    "load_config",
    "parse_config",
]
