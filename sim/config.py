"""Settings: ``config.yaml`` loaded once into frozen dataclasses and passed down.

Every field is declared once below with its type and range; one validator walks the
YAML against those declarations (through the project's one :class:`~sim.support.checks.Checker`),
so a bad file gets one clear line:

    config.yaml: key 'species.cow.count': expected a whole number from 0 to 100000, got -3
    config.yaml: unknown key 'serach' (did you mean 'search'?)
"""

from __future__ import annotations

import copy
import functools
import typing
from dataclasses import asdict, dataclass, field, fields, is_dataclass, replace
from pathlib import Path
from typing import Any

from sim.support.checks import MAX_ANIMALS, MAX_SEED, Checker, InputError, short
from sim.support.files import as_path, load_yaml
from sim.world.fauna import FAUNA
from sim.world.terrain import DEFAULT_COLOURS, Terrain, parse_terrain

Colour = tuple[int, int, int]

#: ``species.<key>.search``: "map" follows the map file's ``search`` choice for the species
#: (A* where it names none); "astar" and "jps" choose for every map.
SEARCH_CHOICES = ("map", "astar", "jps")


class ConfigError(InputError):
    """A settings file that cannot be used; the message names the file, key and problem."""


def _f(default: Any, *, lo: float | None = None, hi: float | None = None, colour: bool = False) -> Any:
    """A field with a range (``colour``: RGB values); mutable defaults are copied per instance."""
    meta = {"lo": lo, "hi": hi, "colour": colour}
    if isinstance(default, dict | list):
        return field(default_factory=functools.partial(copy.copy, default), metadata=meta)
    return field(default=default, metadata=meta)


#: The smallest window, in pixels: the least ``window.width`` and ``window.height``, and the size a
#: window dragged smaller is set back to (``sim.view.window``).
MIN_WINDOW = (320, 240)


@dataclass(frozen=True)
class WindowConfig:
    width: int = _f(1280, lo=MIN_WINDOW[0], hi=10000)  # pixels
    height: int = _f(800, lo=MIN_WINDOW[1], hi=10000)
    fps_cap: int = _f(144, lo=0, hi=1000)  # 0 = uncapped
    tile_px: int = _f(8, lo=1, hi=64)  # zoom for maps too large to show whole (pixels per cell)


@dataclass(frozen=True)
class SearchConfig:
    budget_ms: float = _f(3.0, lo=0.05, hi=1000)  # search time per frame; later requests wait
    max_nodes: int = _f(6000, lo=1, hi=10_000_000)  # expansions per search at most
    cooldown_s: float = _f(1.0, lo=0, hi=3600)  # an animal searches again only after this
    cooldown_jitter: float = _f(0.5, lo=0, hi=1)  # each animal's cooldown varies by ± this fraction
    node_cost_us: float = _f(0.1, lo=0, hi=1000)  # model budget clock: charge per expanded node
    call_cost_us: float = _f(3.0, lo=0, hi=100000)  # model budget clock: charge per search
    diagonal: str = _f("no-corner-cutting")  # never | no-corner-cutting | one-obstacle | always
    compare_weight: float = _f(2.0, lo=1, hi=100)  # weighted A*'s weight in compare mode (C)
    threads: int = _f(0, lo=0, hi=256)  # threads for large batches of searches; 0 = every core


@dataclass(frozen=True)
class CrowdConfig:
    spacing: float = _f(0.4, lo=0, hi=1)  # cells animals of one layer keep between them (0 = off)


@dataclass(frozen=True)
class SpeciesConfig:
    count: int = _f(0, lo=0, hi=MAX_ANIMALS)  # animals at start (the species table gives each its own)
    speed: float = _f(3.0, lo=0.1, hi=100)  # cells per second on a multiplier-1 cell
    wander_radius: int = _f(20, lo=1, hi=10000)  # goals are picked within this many cells
    idle_s: tuple[float, float] = _f((0.5, 2.0), lo=0, hi=3600)  # idle time between walks, min and max
    colour: Colour = _f((255, 255, 255), colour=True)  # marker colour (overlay, paths)
    costs: dict[str, float] = _f({}, lo=0, hi=1e6)  # terrain -> multiplier; 0 = impassable
    search: str = _f("map")  # map (the map's choice, else A*) | astar | jps (see SEARCH_CHOICES)


@dataclass(frozen=True)
class Config:
    seed: int = _f(42, lo=0, hi=MAX_SEED)  # seed of the one random generator
    map: str = _f("island")  # map name in maps/ or a path
    max_map_width: int = _f(2048, lo=1, hi=1_000_000)  # largest map accepted
    max_map_height: int = _f(2048, lo=1, hi=1_000_000)
    window: WindowConfig = field(default_factory=WindowConfig)
    search: SearchConfig = field(default_factory=SearchConfig)
    crowd: CrowdConfig = field(default_factory=CrowdConfig)
    species: dict[str, SpeciesConfig] = field(default_factory=dict)
    colours: dict[str, Colour] = _f({}, colour=True)
    source: str = field(default="(defaults)", compare=False)

    def terrain_colours(self) -> dict[Terrain, Colour]:
        """Colour per terrain: the defaults, overridden by the ``colours`` section."""
        out = dict(DEFAULT_COLOURS)
        out.update({parse_terrain(k): v for k, v in self.colours.items()})
        return out


# ------------------------------------------------------------------ validation
def _value(check: Checker, key: str, value: Any, hint: Any, meta: dict) -> Any:
    """``value`` checked against the declared type ``hint`` (and the field's range)."""
    if isinstance(hint, type) and is_dataclass(hint):
        return _section(check, key, value, hint)
    if meta.get("colour") and typing.get_origin(hint) is tuple:
        return check.colour(key, value)
    origin = typing.get_origin(hint)
    if origin is tuple:
        args = typing.get_args(hint)
        if not isinstance(value, list | tuple) or len(value) != len(args):
            check.fail(key, f"expected a list of {len(args)} numbers, got {short(value)}")
        return tuple(_value(check, f"{key}[{i}]", v, a, meta) for i, (v, a) in enumerate(zip(value, args, strict=True)))
    if origin is dict:
        check.mapping(key, value)
        _, vhint = typing.get_args(hint)
        return {str(k): _value(check, f"{key}.{k}", v, vhint, meta) for k, v in value.items()}
    if hint is int:
        return check.integer(key, value, meta.get("lo"), meta.get("hi"))
    if hint is float:
        return check.number(key, value, meta.get("lo"), meta.get("hi"))
    return check.text(key, value)


def _section(check: Checker, key: str, data: Any, cls: type) -> Any:
    if data is None:
        data = {}
    check.mapping(key, data, "a mapping of settings")
    hints = typing.get_type_hints(cls)
    declared = [f for f in fields(cls) if f.name != "source"]
    check.keys(key, data, [f.name for f in declared])
    kwargs = {}
    for f in declared:
        if f.name in data:
            sub = f"{key}.{f.name}" if key else f.name
            kwargs[f.name] = _value(check, sub, data[f.name], hints[f.name], dict(f.metadata))
    return cls(**kwargs)


def _species_defaults() -> dict[str, SpeciesConfig]:
    """Each species' settings when the config says nothing: its row of the species table."""
    out = {}
    for key, facts in FAUNA.items():
        costs = {t.label: float(facts.costs.get(t, 0.0)) for t in Terrain}  # every terrain named
        out[key] = SpeciesConfig(count=facts.count, speed=facts.speed, wander_radius=facts.wander_radius,
                                 idle_s=facts.idle_s, colour=facts.colour, costs=costs)  # fmt: skip
    return out


def _species(check: Checker, data: Any) -> dict[str, SpeciesConfig]:
    """The ``species`` section: each species' settings over its built-in defaults."""
    species = _species_defaults()
    if data is None:
        return species
    check.mapping("species", data, f"a mapping of species ({', '.join(FAUNA)})")
    for key, sdata in data.items():
        if key not in species:
            check.unknown("species", key, FAUNA, "unknown species", inside=True)
        parsed = _section(check, f"species.{key}", sdata, SpeciesConfig)
        given = sdata or {}
        merged = {f.name: getattr(parsed if f.name in given else species[key], f.name) for f in fields(SpeciesConfig)}
        if "costs" in given:
            for name in parsed.costs:
                try:
                    parse_terrain(name)
                except ValueError as exc:
                    check.fail(f"species.{key}.costs.{name}", str(exc))
            merged["costs"] = {**species[key].costs, **{parse_terrain(k).label: v for k, v in parsed.costs.items()}}
        species[key] = SpeciesConfig(**merged)
    for key, spec in species.items():
        check.choice(f"species.{key}.search", spec.search, SEARCH_CHOICES)
        lo, hi = spec.idle_s
        if lo > hi:
            check.fail(f"species.{key}.idle_s", f"min {lo:g} is greater than max {hi:g}")
        if spec.count > 0 and not any(v > 0 for v in spec.costs.values()):
            check.fail(
                f"species.{key}.costs",
                f"every terrain costs 0 (impassable), so {FAUNA[key].label} could stand nowhere; "
                f"give one a multiplier > 0 or set species.{key}.count to 0",
            )
    return species


def parse_config(data: Any, source: str = "config.yaml") -> Config:
    """Validate already-parsed YAML data into a :class:`Config`."""
    check = Checker(source, ConfigError)
    data = {} if data is None else data
    species_data = None
    if isinstance(data, dict):
        data = dict(data)  # the caller's dict stays as it was
        species_data = data.pop("species", None)
    cfg = _section(check, "", data, Config)
    species = _species(check, species_data)
    for name in cfg.colours:
        try:
            parse_terrain(name)
        except ValueError as exc:
            check.fail(f"colours.{name}", str(exc))
    from sim.pathfinding import DIAGONAL_RULES

    check.choice("search.diagonal", cfg.search.diagonal, DIAGONAL_RULES)
    return replace(cfg, species=species, source=source)


def load_config(path: str | Path | None = None) -> Config:
    """Read and validate a settings file (default: the bundled ``config.yaml``); ``ConfigError``
    names the file and what is wrong."""
    if path is None:
        from sim.support.resources import default_config_path

        path = default_config_path()
    path = as_path("path", path)
    data = load_yaml(path, ConfigError, missing="settings file not found").data
    if data is not None and not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a mapping of settings at the top level, got {type(data).__name__}")
    return parse_config(data, str(path))


def check_config(config: object, name: str = "config") -> Config:
    """A :class:`Config` a script built or changed by hand (``Config(...)``, ``dataclasses.replace``)
    checked as a file would be: the same types and ranges, species left out filled from their
    defaults. ``TypeError`` if it is no ``Config``; ``ValueError`` (a :class:`ConfigError`) naming
    the key otherwise. A config from :func:`load_config` passes unchanged."""
    if not isinstance(config, Config):
        raise TypeError(f"{name} must be a Config (from sim.config.load_config), got {short(config)}")
    data = asdict(config)  # (the YAML it could have come from: sections as mappings)
    del data["source"]
    return replace(parse_config(data, name), source=config.source)


def default_config() -> Config:
    """The built-in defaults (what an empty config.yaml gives)."""
    return parse_config({}, "(defaults)")


__all__ = [
    "SEARCH_CHOICES",
    "Config",
    "ConfigError",
    "SearchConfig",
    "SpeciesConfig",
    "WindowConfig",
    "check_config",
    "default_config",
    "load_config",
    "parse_config",
]
