"""Hostile and careless input: every bad file is one short line and exit status 2, never a traceback.

Crafted the way an attacker or a careless user would: alias bombs, deep nesting, lone
surrogates, duplicate keys, out-of-range colours, odd Moving AI headers, FIFOs and link
loops, outputs that cannot be written; and the engine's boundary with exact messages.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tracemalloc

import numpy as np
import pytest
import yaml

from sim.cli import main
from sim.config import ConfigError, parse_config
from sim.maps import MapError, load_map
from sim.pathfinding import AStar, PathGrid, find_path, gather, label_regions
from sim.support.files import parse_yaml
from tests.conftest import ROOT
from tests.helpers import assert_file_refused, assert_one_line, raises_exactly, run_cli

# A "billion laughs" bomb: a few hundred bytes that expand to 9**8 strings.
BOMB = "".join(f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 9) if i else ', '.join(['lol'] * 9)}]\n" for i in range(8))
DEEP = "[" * 500 + "]" * 500

BAD_MAPS = {
    "bomb_width.yaml": (BOMB + "generator: island\nwidth: *l7\nheight: 10\n", "YAML aliases"),
    "bomb_generator.yaml": (BOMB + "generator: *l7\nwidth: 10\nheight: 10\n", "YAML aliases"),
    "bomb_legend.yaml": (BOMB + 'legend: {"~": *l7}\nrows: |\n  ~~\n', "YAML aliases"),
    "bomb_animals.yaml": (BOMB + "rows: |\n  ~~\nanimals: {cow: *l7}\n", "YAML aliases"),
    "deep.yaml": ("generator: island\nwidth: " + DEEP + "\nheight: 10\n", "nested more than 32 levels deep"),
    "surrogate_rows.yaml": ('rows: "\\ud800~~"\n', ""),
    "surrogate_legend.yaml": ('legend: {"\\ud800": water}\nrows: |\n  ~~\n', ""),
    "dup_legend.yaml": ('legend:\n  "~": water\n  "~": sand\nrows: |\n  ~~\n', "duplicate key 'legend.~'"),
    "dup_rows.yaml": ("rows: |\n  ~~\nrows: |\n  ..\n", "duplicate key 'rows' (first at line 1)"),
    "spawn_species.yaml": (
        "rows: |\n  ~~..\n  ~~..\nspawn:\n  cows: [[2, 0, 2, 2]]\n",
        "unknown species 'cows' in 'spawn' (did you mean 'cow'?)",
    ),
    "spawn_nocell.yaml": (
        "rows: |\n  ~~..\n  ~~..\nspawn:\n  cow: [[0, 0, 2, 2]]\n",
        "spawn 'cow' area [0, 0, 2, 2] has no cell where cows can stand",
    ),
    "hex.map": ("type hexagonal\nheight 1\nwidth 2\nmap\n..\n", "map type 'hexagonal' is not supported"),
    "blank_type.map": ("type\nheight 1\nwidth 2\nmap\n..\n", "expected 'type <value>'"),
    "extra_rows.map": ("type octile\nheight 2\nwidth 2\nmap\n..\n..\n..\n..\n", "more rows than the header's height 2"),
    "two_heights.map": ("type octile\nheight 4 5\nwidth 2\nmap\n..\n..\n..\n..\n", "expected 'height <value>'"),
}

BAD_CONFIGS = {
    "bomb_seed.yaml": (BOMB + "seed: *l7\n", "YAML aliases"),
    "bomb_budget.yaml": (BOMB + "search:\n  budget_ms: *l7\n", "YAML aliases"),
    "bomb_colour.yaml": (BOMB + "colours:\n  rock: *l7\n", "YAML aliases"),
    "bomb_species.yaml": (BOMB + "species: *l7\n", "YAML aliases"),
    "bomb_costs.yaml": (BOMB + "species:\n  cow:\n    costs: *l7\n", "YAML aliases"),
    "deep.yaml": ("seed: " + DEEP + "\n", "nested more than 32 levels deep"),
    "rock_colour.yaml": (
        "colours:\n  rock: [300, 0, 0]\n",
        "key 'colours.rock[0]': expected a whole number from 0 to 255",
    ),
    "water_colour.yaml": ("colours:\n  water: [0, 300, 0]\n", "key 'colours.water[1]'"),
    "colour_arity.yaml": ("colours:\n  water: [0, 3]\n", "key 'colours.water': expected a colour"),
    "dup_key.yaml": ("seed: 1\nseed: 2\n", "duplicate key 'seed' (first at line 1)"),
    "big_seed.yaml": ("seed: 99999999999999999999\n", f"key 'seed': expected a whole number from 0 to {2**63 - 1}"),
    "dog.yaml": ("species:\n  dog: {count: 3}\n", "unknown species 'dog' in 'species'; species: cow, bird, water"),
    "dup_nested.yaml": ("search:\n  budget_ms: 2\n  budget_ms: 3\n", "duplicate key 'search.budget_ms'"),
    "all_zero.yaml": (
        "species:\n  water:\n    costs: {water: 0}\n",
        "key 'species.water.costs': every terrain costs 0",
    ),
}


@pytest.mark.parametrize("name", sorted(BAD_MAPS))
def test_bad_map_file_is_one_line_and_exit_2(tmp_path, name):
    assert_file_refused("--map", tmp_path / name, *BAD_MAPS[name])


@pytest.mark.parametrize("name", sorted(BAD_CONFIGS))
def test_bad_config_file_is_one_line_and_exit_2(tmp_path, name):
    assert_file_refused("--config", tmp_path / name, *BAD_CONFIGS[name])


def test_an_alias_bomb_costs_almost_no_memory(tmp_path):
    path = tmp_path / "bomb.yaml"
    path.write_text(BOMB + "generator: island\nwidth: *l7\nheight: 10\n")
    tracemalloc.start()
    try:
        with pytest.raises(MapError, match="YAML aliases"):
            load_map(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 5 * 2**20


@pytest.mark.parametrize("loader", ["CSafeLoader", "SafeLoader"])
def test_lone_surrogates_are_refused_by_either_yaml_loader(monkeypatch, loader):
    import sim.support.files

    monkeypatch.setattr(sim.support.files, "SafeLoader", getattr(yaml, loader, yaml.SafeLoader))
    for text in ('rows: "\\ud800~~"\n', 'legend: {"\\ud800": water}\n'):
        with pytest.raises(MapError) as info:
            parse_yaml(text, "m.yaml", MapError)
        assert str(info.value).startswith("m.yaml:1: ") and "\n" not in str(info.value)


def test_duplicate_keys_anywhere_are_refused_with_their_line():
    with pytest.raises(ConfigError, match=r"^c.yaml:4: duplicate key 'species.cow.speed' \(first at line 3\)$"):
        parse_yaml("species:\n  cow:\n    speed: 2\n    speed: 3\n", "c.yaml", ConfigError)


def test_a_species_that_config_makes_homeless_names_the_config_key(make_app, tmp_path):
    # count 0 in the config, but the map asks for some: the config key is named, not "(they need )"
    from dataclasses import replace

    from sim.config import load_config
    from sim.maps import parse_map
    from sim.simulation import Simulation

    config = load_config(ROOT / "config.yaml")
    water = replace(config.species["water"], count=0, costs={k: 0.0 for k in config.species["water"].costs})
    config = replace(config, species={**config.species, "water": water})
    data = parse_map(yaml.safe_load("rows: |\n  ~~..\nanimals: {water: 3}\n"), tmp_path / "m.yaml")
    with pytest.raises(MapError, match=r"key 'species.water.costs' makes every terrain impassable for water creatures"):
        Simulation(config, data)


def test_a_folder_a_fifo_and_a_link_loop_say_what_they_are(tmp_path):
    folder = tmp_path / "maps.yaml"
    folder.mkdir()
    assert_one_line(run_cli("--map", str(folder)), folder, "is a folder, not a file")
    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)
    assert_one_line(run_cli("--map", str(fifo), timeout=900), fifo, "is a FIFO (named pipe), not a regular file")
    a, b = tmp_path / "a.yaml", tmp_path / "b.yaml"
    a.symlink_to(b)
    b.symlink_to(a)
    assert_one_line(run_cli("--map", str(a)), a, "symbolic link loop")
    conf = tmp_path / "conf.yaml"
    conf.mkdir()
    assert_one_line(run_cli("--config", str(conf)), conf, "is a folder, not a file")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--frames", "0"], "error: --frames must be >= 1, got 0 (see main.py --help)"),
        (["--frames", "abc"], "error: argument --frames: invalid int value: 'abc'"),
        (["--agents", "-5"], "error: --agents must be >= 0, got -5"),
        (["--agents", "1000000"], "error: --agents must be at most 100000, got 1000000"),
        # (named as typed: it had said "config: key 'seed': ... from 0 to 9.22337e+18", a bound below the seed)
        (["--seed", str(2**63)], f"error: --seed must be at most {2**63 - 1}, got {2**63}"),
        (["--json", "{missing}/out.json"], "error: --json {missing}/out.json: folder {missing} does not exist"),
        (["--json", "{tmp}"], "error: --json {tmp}: is a folder; give a file name"),
        (["--screenshot", "{missing}/s.png"], "error: --screenshot {missing}/s.png: folder {missing} does not exist"),
        (["--screenshot", "{tmp}"], "error: --screenshot {tmp}: is a folder; give a file name"),
    ],
)
def test_bad_options_are_one_line_before_anything_runs(tmp_path, args, message):
    fill = {"tmp": str(tmp_path), "missing": str(tmp_path / "nope")}
    args = [a.format(**fill) for a in args]
    r = run_cli(*args)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "Traceback" not in r.stderr
    assert r.stderr.startswith(message.format(**fill)), r.stderr
    assert "frames:" not in r.stdout  # refused before the run, not after it


@pytest.mark.parametrize("option", ["--json", "--screenshot"])
def test_an_output_that_cannot_be_written_after_the_run_is_one_line_and_exit_2(tmp_path, monkeypatch, capsys, option):
    # The folder is checked before the run, but the write can still fail (/proc as root, a full
    # disk): one line, not an OSError traceback.
    import errno

    from sim.view import headless

    def full(*_args: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(headless, "write_json" if option == "--json" else "save_screenshot", full)
    out = tmp_path / "out.file"
    assert main(["--headless", "--frames", "1", "--map", "tutorial", option, str(out)]) == 2
    captured = capsys.readouterr()
    assert "checksum:" in captured.out  # the run's figures came first
    assert captured.err.splitlines()[-1] == f"error: {option} {out}: cannot write: No space left on device"


def test_quoted_values_are_cut_short():
    with pytest.raises(ConfigError) as info:
        parse_config({"seed": "x" * 10_000})
    assert len(str(info.value)) < 200 and "…" in str(info.value)
    with pytest.raises(ConfigError) as info:
        parse_config({"colours": {"rock": list(range(100_000))}})
    assert len(str(info.value)) < 250


def test_the_main_function_gives_the_same_one_line(tmp_path, capsys):
    path = tmp_path / "m.yaml"
    path.write_text(BOMB + "generator: island\nwidth: *l7\nheight: 10\n")
    assert main(["--headless", "--frames", "1", "--map", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "YAML aliases" in err


@pytest.mark.parametrize("args", [["--frames", "3"], ["--json", "{tmp}/f.json"], ["--screenshot", "{tmp}/s.png"]])
def test_headless_options_without_headless_are_refused_before_a_window_opens(tmp_path, capsys, args):
    """Without --headless a window ran on for ever, never stopping at --frames nor writing --json."""
    args = [a.format(tmp=tmp_path) for a in args]
    with pytest.raises(SystemExit) as stop:
        main(args)
    err = capsys.readouterr().err
    assert stop.value.code == 2 and err.count("\n") == 1, err
    assert err.startswith(f"error: {args[0]} is for headless runs: add --headless"), err
    assert not any(tmp_path.iterdir())  # nothing written


# ------------------------------------------------------------------ the engine's boundary
def test_multipliers_too_large_to_add_up_safely_are_refused():
    costs = np.ones((4, 5))
    costs[1, 2] = 1e300
    with pytest.raises(ValueError) as info:
        find_path(costs, (0, 0), (4, 3))
    assert str(info.value) == (
        "costs must be at most 1e+12 where passable (0, negative, NaN or inf mark impassable cells), "
        "got 1e+300 at (2, 1)"
    )
    grid = PathGrid(np.ones((4, 5)))
    with pytest.raises(ValueError, match=r"^patch must be at most 1e\+12 where passable"):
        grid.update(0, 0, np.full((1, 1), 1e13))
    # Just under the limit is fine, and the cost stays finite and optimal.
    costs[1, 2] = 1e12
    r = find_path(costs, (0, 1), (4, 1))
    assert r.found and np.isfinite(r.cost) and r.cost == pytest.approx(4 + 2 * (np.sqrt(2) - 1) + 0, rel=1e-9)


@pytest.mark.parametrize(
    ("call", "exc", "message"),
    [
        (lambda g: g.search((0, 0), (4, 3), trace=_ro(np.zeros(10, np.int32))), ValueError,
         "trace must be writeable, got a read-only array"),
        (lambda g: g.search((0, 0), (4, 3), record=_ro(np.zeros((4, 5), np.int32))), ValueError,
         "record must be writeable, got a read-only array"),
        (lambda g: g.search((0, 0), (4, 3), diagonal=["never"]), TypeError, "diagonal must be a string, got ['never']"),
        (lambda g: g.search((0, 0), (4, 3), heuristic=3), TypeError, "heuristic must be a string, got 3"),
        (lambda g: g.search((0, 0), (4, 3), algorithm=None), TypeError, "algorithm must be a string, got None"),
        (lambda g: g.update(0, 0, np.ones(4)), ValueError,
         "patch must be 2-D (indexed [y, x]), got 1-D with shape (4,)"),
        (lambda g: g.update(0, 0, "abc"), TypeError, "patch must be a numpy array, not str"),
        (lambda g: g.update(1.5, 0, np.ones((1, 1))), TypeError, "x0 must be an int, got 1.5"),
        (lambda g: g.update(0, True, np.ones((1, 1))), TypeError, "y0 must be an int, got True"),
        (lambda g: g.update(4, 0, np.ones((1, 2))), ValueError,
         "patch of width 2 and height 1 at (4, 0) does not fit the grid of width 5 and height 4"),
        (lambda g: g.search_many(np.array([[0, 0]]), np.array([[9, 0]])), ValueError,
         "goals[0] (9, 0) is outside the grid of width 5 and height 4"),
        (lambda g: g.search_many(np.array([[0.5, 0]]), np.array([[1, 0]])), TypeError,
         "starts must be a (k, 2) array of int (x, y) points, got dtype float64"),
        (lambda g: g.search_many(np.zeros(2, int), np.zeros((1, 2), int)), ValueError,
         "starts must have shape (k, 2), got (2,)"),
        (lambda g: g.search_many(np.zeros((2, 2), int), np.zeros((1, 2), int)), ValueError,
         "starts and goals must have the same length, got 2 and 1"),
        (lambda g: g.search_many(np.zeros((1, 2), int), np.zeros((1, 2), int), node_budget=-1), ValueError,
         "node_budget must be >= 0, got -1"),
        (lambda g: g.search_many(np.zeros((1, 2), int), np.zeros((1, 2), int), node_budget=1.5), TypeError,
         "node_budget must be an int or None, got 1.5"),
        # Ragged or nested sequences numpy cannot make one array of: ours, not numpy's message.
        (lambda g: g.search_many([[0, 0], [1]], [[1, 1], [2, 2]]), TypeError,
         "starts must be a (k, 2) array of int (x, y) points, got [[0, 0], [1]]"),
        (lambda g: g.search_many([[1, 1]], [[0, (0, 1)]]), TypeError,
         "goals must be a (k, 2) array of int (x, y) points, got [[0, (0, 1)]]"),
        (lambda g: g.update(0, 0, [[1, 1], [1]]), TypeError,
         "patch must be a 2-D numpy array of numbers, got [[1, 1], [1]]"),
        (lambda g: label_regions([[1, 1], [1]]), TypeError,
         "costs must be a 2-D numpy array of numbers, got [[1, 1], [1]]"),
        (lambda g: gather([[1], [1, 2]], [0], [1], [0]), TypeError,
         "cells must be a 1-D numpy integer array, got [[1], [1, 2]]"),
        (lambda g: PathGrid.from_codes([[0, 1], [1]], [1.0]), TypeError,
         "codes must be a 2-D numpy integer array, got [[0, 1], [1]]"),
        (lambda g: PathGrid.from_codes(np.zeros((2, 2)), [1.0]), TypeError,
         "codes must be a 2-D numpy integer array, got dtype float64"),
        (lambda g: PathGrid.from_codes(np.zeros(4, int), [1.0]), ValueError,
         "codes must be 2-D (indexed [y, x]), got 1-D with shape (4,)"),
        (lambda g: PathGrid.from_codes(np.zeros((2, 2), int), None), TypeError,
         "lut must be a non-empty 1-D numpy array of multipliers, got None"),
        (lambda g: PathGrid.from_codes(np.zeros((2, 2), int), "ab"), TypeError,
         "lut must be a non-empty 1-D numpy array of multipliers, got 'ab'"),
        (lambda g: PathGrid.from_codes(np.zeros((2, 2), int), [[1.0], [1.0, 2.0]]), TypeError,
         "lut must be a non-empty 1-D numpy array of multipliers, got [[1.0], [1.0, 2.0]]"),
        (lambda g: PathGrid.from_codes(np.zeros((3, 3), np.uint8), [1.0]).update_codes(0, 0, np.ones((1, 1))),
         TypeError, "codes must be a 2-D numpy integer array, got dtype float64"),
        (lambda g: AStar("island"), TypeError, "world must be a 2-D integer array of terrain ids or have terrain, "
         "revision and changes_since (like sim.world.World), got 'island'"),
    ],
)  # fmt: skip
def test_engine_boundary_errors_are_exact(call, exc, message):
    raises_exactly(lambda: call(PathGrid(np.ones((4, 5)))), exc, message)


def _ro(a: np.ndarray) -> np.ndarray:
    a.flags.writeable = False
    return a


def test_the_scripting_api_refuses_bad_arguments_with_exact_errors_and_keeps_its_state():
    import math
    from dataclasses import replace

    from sim.config import Config, load_config
    from sim.maps import resolve_map
    from sim.simulation import Simulation

    sim = Simulation(load_config(ROOT / "config.yaml"), load_map(ROOT / "maps" / "tutorial.yaml"),
                     counts={"cow": 10, "bird": 5, "water": 5})  # fmt: skip
    sim.step(1 / 60)
    before = (sim.time, sim.checksum(), sim.world.terrain.copy())
    cases = [
        (lambda: sim.step(math.nan), ValueError, "dt must be a finite number >= 0, got nan"),
        (lambda: sim.step(-0.5), ValueError, "dt must be a finite number >= 0, got -0.5"),
        (lambda: sim.step("1"), TypeError, "dt must be a number, got '1'"),
        (lambda: sim.advance(1 / 60, 1.5), TypeError, "steps must be a whole number, got 1.5"),
        (lambda: sim.advance(1 / 60, -1), ValueError, "steps must be >= 0, got -1"),
        (lambda: sim.paint(5.5, 5, 1, "rock"), TypeError, "cx must be a whole number, got 5.5"),
        (lambda: sim.paint(5, True, 1, "rock"), TypeError, "cy must be a whole number, got True"),
        (lambda: sim.paint(5, 5, -1, "rock"), ValueError, "radius must be >= 0, got -1"),
        (lambda: sim.paint(5, 5, math.inf, "rock"), TypeError, "radius must be a whole number, got inf"),
        (lambda: sim.paint(5, 5, 1, 2.5), ValueError,
         "terrain must be a terrain id from 0 to 6, a name or None, got 2.5"),
        (lambda: sim.paint(5, 5, 1, [1]), ValueError,
         "terrain must be a terrain id from 0 to 6, a name or None, got [1]"),
        (lambda: sim.call_herd("cow", "ab"), TypeError, "goal must be an (x, y) tuple of whole numbers, got 'ab'"),
        (lambda: sim.call_herd("cow", ("a", 1)), TypeError, "goal x must be a whole number, got 'a'"),
        (lambda: sim.call_herd("cow", ((1, 2), 3)), TypeError, "goal x must be a whole number, got (1, 2)"),
        (lambda: sim.call_herd("cow", (3, [])), TypeError, "goal y must be a whole number, got []"),
        (lambda: sim.call_herd("cow", (3, 3), math.nan), ValueError, "radius must be a finite number >= 0, got nan"),
    ]  # fmt: skip
    config, tutorial = sim.config, sim.map
    cases += [
        (lambda: Simulation(config, "tutorial"), TypeError,
         "map_data must be a MapData (from sim.maps.load_map), got 'tutorial'"),
        (lambda: Simulation(config, tutorial, counts={"cows": 3}), ValueError,
         "counts: unknown species 'cows' (did you mean 'cow'?)"),
        (lambda: Simulation(config, tutorial, counts={"cow": 10**9}), ValueError,
         "counts['cow'] must be at most 100000, got 1000000000"),
        (lambda: Simulation(config, tutorial, counts={"cow": -1}), ValueError, "counts['cow'] must be >= 0, got -1"),
        (lambda: Simulation(config, tutorial, clock="fast"), ValueError, "clock must be 'wall' or 'model', got 'fast'"),
        (lambda: sim.load_map(None), TypeError, "map_data must be a MapData (from sim.maps.load_map), got None"),
        (lambda: load_map(None), TypeError, "path must be a str or a path, got None"),
        (lambda: resolve_map(5), TypeError, "name must be a str or a path, got 5"),
        (lambda: load_config(b"config.yaml"), TypeError, "path must be a str or a path, got b'config.yaml'"),
        (lambda: sim.load_map(tutorial, counts=[3]), TypeError,
         "counts must be a dict of species key -> number of animals, got [3]"),
        # A config built or changed by hand is checked as a file would be, before anything changes.
        (lambda: Simulation(None, tutorial), TypeError,
         "config must be a Config (from sim.config.load_config), got None"),
        (lambda: sim.apply_config("config.yaml"), TypeError,
         "config must be a Config (from sim.config.load_config), got 'config.yaml'"),
        (lambda: sim.apply_config(replace(config, search=replace(config.search, budget_ms=-5))), ValueError,
         "config: key 'search.budget_ms': expected a number from 0.05 to 1000, got -5"),
        (lambda: sim.apply_config(replace(config, species={**config.species, "dog": config.species["cow"]})),
         ValueError, "config: unknown species 'dog' in 'species'; species: cow, bird, water"),
        (lambda: Simulation(replace(config, search=replace(config.search, diagonal="sideways")), tutorial), ValueError,
         "config: key 'search.diagonal': expected one of never, no-corner-cutting, one-obstacle, always, "
         "got 'sideways'"),
    ]  # fmt: skip
    for call, exc, message in cases:
        raises_exactly(call, exc, message)
    assert (sim.time, sim.checksum()) == before[:2] and (sim.world.terrain == before[2]).all()
    assert sim.config is config and sim.step(1 / 60) is not None  # a refused config left the old one working
    assert Simulation(Config(), tutorial).config.species.keys() == config.species.keys()  # left out: the defaults
    assert sim.paint(np.int64(5), np.int32(5), np.int64(0), "rock") is not None  # numpy ints are whole numbers


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: find_path(np.broadcast_to(1.0, (100_000, 100_000)), (0, 0), (1, 1)), "costs"),
        (lambda: PathGrid(np.broadcast_to(np.uint8(1), (40_000, 40_000))), "costs"),
        (lambda: PathGrid.from_codes(np.broadcast_to(np.uint8(1), (9000, 8192)), [1.0]), "codes"),
    ],
)
def test_a_grid_too_big_to_allocate_is_a_value_error_before_any_allocation(call, name):
    tracemalloc.start()
    try:
        with pytest.raises(ValueError) as info:
            call()
        _now, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    message = str(info.value)
    assert message.startswith(f"{name} has ") and "a grid may have at most 67,108,864 (8192 × 8192)" in message
    assert peak < 10 * 2**20  # refused before anything of the grid's size was made


def test_boundary_messages_never_hold_an_array_repr():
    grid = PathGrid(np.ones((5, 5)))
    with pytest.raises(TypeError) as info:
        grid.smooth_path({"not": "a path", "x": np.ones((3, 3))})
    assert "\n" not in str(info.value) and len(str(info.value)) <= 300


def test_unreadable_map_folders_are_said_once_and_the_rest_is_listed(make_app, monkeypatch, capsys):
    """A user maps folder that cannot be read (mode 000 for a user; simulated here, since root
    reads anything): the picker and N list the bundled maps, and the folder is named once, on
    screen and in the terminal."""
    import pathlib

    from sim.maps import list_maps
    from tests.helpers import key

    app = make_app("maps/tutorial.yaml", counts={"cow": 2, "bird": 1, "water": 1})
    locked = app.user_maps_dir
    locked.mkdir(parents=True, exist_ok=True)
    real_iterdir = pathlib.Path.iterdir

    def iterdir(self):
        if self == locked:
            raise PermissionError(13, "Permission denied", str(self))
        return real_iterdir(self)

    monkeypatch.setattr(pathlib.Path, "iterdir", iterdir)
    raises_exactly(lambda: list_maps(locked), MapError, f"{locked}: cannot read the folder: Permission denied")
    listed = app.files.list_maps()
    assert listed and all(p.parent == app.maps_dir for p in listed)
    import pygame

    for k in (pygame.K_n, pygame.K_m, pygame.K_ESCAPE, pygame.K_n):  # next map, the picker, next map again
        key(k)
        app.frame(1 / 60)
    said = [m for m in app.messages.log if "cannot read the folder" in m.text]
    assert len(said) == 1 and str(locked) in said[0].text
    assert capsys.readouterr().err.count("cannot read the folder") == 1


def test_a_bad_map_on_a_first_start_is_one_line_before_any_compiling(tmp_path):
    """An empty numba cache (a machine's first start): the map's error is the only line, at
    once, not after the kernels compiled (and the compiling never started)."""
    bad = tmp_path / "nocell.yaml"
    bad.write_text(BAD_MAPS["spawn_nocell.yaml"][0])
    env = {**os.environ, "SDL_VIDEODRIVER": "dummy", "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    r = subprocess.run([sys.executable, str(ROOT / "main.py"), "--headless", "--frames", "1", "--map", str(bad)],
                       capture_output=True, text=True, cwd=ROOT, timeout=900, env=env)  # fmt: skip
    assert_one_line(r, bad, BAD_MAPS["spawn_nocell.yaml"][1])
    assert not list((tmp_path / "cache").rglob("*.nbi"))  # nothing was compiled for it
