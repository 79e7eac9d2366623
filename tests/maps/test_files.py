"""Maps and settings as files: formats, round trips, and a clear line for every bad input."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pygame
import pytest
import yaml

from sim.cli import main
from sim.config import ConfigError, default_config, load_config, parse_config
from sim.maps import MapError, list_maps, load_map, save_map
from sim.maps.generate import generate_island
from sim.world.geometry import CellRect
from sim.world.terrain import Terrain as T
from tests.conftest import ROOT, SHIPPED_MAPS
from tests.helpers import key

SHARED = ROOT.parent / "shared" / "benchmarks" / "movingai"


def write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(textwrap.dedent(text).lstrip("\n"))
    return p


GOOD_ROWS = """
name: tiny
rows: |
  ~~~~~~~~
  ~~....~~
  ~~.TT.~~
  ~~~~~~~~
"""

# (file name, contents, the message expected after "error: ")
BAD_MAPS = [
    ("malformed.yaml", "name: [unclosed\nrows: |\n  ~~\n", "{p}:2: not valid YAML"),
    ("tab.yaml", "rows: |\n  ~~..~~\n  ~~.\t~~\n", "{p}:3: tab character in row 2 at column 4; use legend characters"),
    (
        "unknown.yaml",
        "rows: |\n  ~~..~~\n  ~~.x~~\n",
        "{p}:3: unknown character 'x' in row 2 at column 4; the legend has ~:.T%^#",
    ),
    ("ragged.yaml", "rows: |\n  ~~..~~\n  ~~..~\n", "{p}:3: row 2 has 5 characters, expected 6 like the first row"),
    ("empty.yaml", "", "{p}: the map file is empty"),
    ("norows.yaml", "name: x\nrows: |\n\n", "{p}:2: the map has no rows"),
    (
        "huge.yaml",
        "generator: island\nwidth: 5000\nheight: 100\n",
        "{p}:2: map is 5000x100, larger than the limit 2048x2048",
    ),
    (
        "types.yaml",
        "generator: island\nwidth: wide\nheight: 100\n",
        "{p}:2: 'width' must be a whole number from 8 to 1000000, got 'wide'",
    ),
    ("listrows.yaml", "rows: 42\n", "{p}:1: 'rows' must be a block of text (rows: |) or a list of strings"),
    ("key.yaml", "nmae: x\nrows: |\n  ~~\n", "{p}:1: unknown key 'nmae' (did you mean 'name'?)"),
    (
        "nofish.yaml",
        "rows: |\n  ....\n  ....\nanimals: {cow: 3, water: 5}\n",
        "{p}: no cell where water creatures can stand (they need water); add some or set species.water.count to 0",
    ),
    (
        "badheader.map",
        "type octile\nheigth 2\nwidth 2\nmap\n..\n..\n",
        "{p}:2: expected header line 'height' (type, height, width, map), got 'heigth 2'",
    ),
]


@pytest.mark.parametrize(("name", "text", "expected"), BAD_MAPS, ids=[b[0] for b in BAD_MAPS])
def test_bad_map_file_gives_one_clear_line_and_exit_2(tmp_path, capsys, name, text, expected):
    p = tmp_path / name
    p.write_text(text)
    code = main(["--headless", "--frames", "1", "--map", str(p)])
    err = capsys.readouterr().err.strip()
    assert code == 2
    assert err.startswith("error: " + expected.format(p=p)), err
    assert "\n" not in err and "Traceback" not in err


def test_missing_map_file_suggests_a_close_name(capsys):
    assert main(["--headless", "--frames", "1", "--map", "islnd"]) == 2
    assert capsys.readouterr().err.strip() == "error: islnd: map not found (did you mean 'island'?)"


BAD_CONFIGS = [
    ("serach:\n  budget_ms: 2\n", "{p}: unknown key 'serach' (did you mean 'search'?)"),
    (
        "species:\n  cow:\n    count: -3\n",
        "{p}: key 'species.cow.count': expected a whole number from 0 to 100000, got -3",
    ),
    ("window:\n  width: big\n", "{p}: key 'window.width': expected a whole number from 320 to 10000, got 'big'"),
    ("species:\n  cow:\n    costz: {}\n", "{p}: unknown key 'species.cow.costz' (did you mean 'costs'?)"),
    ("seed: [1\n", "{p}:2: not valid YAML"),
    ("- just\n- a list\n", "{p}: expected a mapping of settings at the top level, got list"),
]


@pytest.mark.parametrize(("text", "expected"), BAD_CONFIGS)
def test_bad_config_gives_one_clear_line_and_exit_2(tmp_path, capsys, text, expected):
    p = tmp_path / "config.yaml"
    p.write_text(text)
    assert main(["--headless", "--frames", "1", "--config", str(p)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: " + expected.format(p=p)), err


def test_no_traceback_from_the_real_command_line(tmp_path):
    bad = write(tmp_path, "ragged.yaml", "rows: |\n  ~~..~~\n  ~~..~\n")
    missing = tmp_path / "nope.yaml"
    for args in (["--map", str(bad)], ["--config", str(missing)]):
        r = subprocess.run(
            [sys.executable, str(ROOT / "main.py"), "--headless", "--frames", "1", *args],
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=900,
        )
        assert r.returncode == 2
        assert r.stderr.count("\n") == 1 and "Traceback" not in r.stderr
    assert r.stderr == f"error: {missing}: settings file not found\n"


def test_shipped_config_and_defaults_agree():
    shipped, defaults = load_config(ROOT / "config.yaml"), default_config()
    assert shipped.species["cow"].costs["grass"] == defaults.species["cow"].costs["grass"] == 0.85
    assert {k: v.count for k, v in shipped.species.items()} == {"water": 100, "cow": 250, "bird": 150}
    with pytest.raises(ConfigError, match="min 3 is greater than max 1"):
        parse_config({"species": {"bird": {"idle_s": [3, 1]}}})


def test_shipped_config_names_every_setting():
    # config.yaml is where a user learns the settings: each key of the config's sections
    # (and of every species) must be written there, not only known to the code.
    from dataclasses import fields

    from sim.config import Config, SearchConfig, SpeciesConfig, WindowConfig

    shipped = yaml.safe_load((ROOT / "config.yaml").read_text())
    sections = {"window": WindowConfig, "search": SearchConfig}
    missing = [f.name for f in fields(Config) if f.name != "source" and f.name not in shipped]
    for name, cls in sections.items():
        missing += [f"{name}.{f.name}" for f in fields(cls) if f.name not in shipped[name]]
    for species, spec in shipped["species"].items():
        missing += [f"species.{species}.{f.name}" for f in fields(SpeciesConfig) if f.name not in spec]
    assert missing == []


def test_config_path_option_is_used(tmp_path, capsys):
    p = write(tmp_path, "c.yaml", "species:\n  cow: {count: 3}\n  bird: {count: 2}\n  water: {count: 1}\n")
    assert main(["--headless", "--frames", "2", "--config", str(p), "--map", "island"]) == 0
    assert "agents: 6" in capsys.readouterr().out


def test_a_map_may_name_its_own_animal_counts(tmp_path, capsys):
    assert main(["--headless", "--frames", "2", "--map", "tutorial"]) == 0
    assert "agents: 80" in capsys.readouterr().out  # animals: {cow: 40, bird: 20, water: 20}
    assert main(["--headless", "--frames", "2", "--map", "tutorial", "--agents", "30"]) == 0
    assert "agents: 30" in capsys.readouterr().out  # --agents wins
    bad = write(tmp_path, "a.yaml", "rows: |\n  ~~..~~\nanimals: {cows: 3}\n")
    with pytest.raises(MapError, match=r"a.yaml:3: unknown species 'cows' in 'animals' \(did you mean 'cow'\?\)"):
        load_map(bad)
    bad.write_text("rows: |\n  ~~..~~\nanimals: {cow: -1}\n")
    with pytest.raises(MapError, match=r"animals 'cow' must be a whole number from 0 to 100000, got -1"):
        load_map(bad)


def test_shipped_maps_cover_the_brief():
    maps = {p.stem: load_map(p) for p in list_maps(ROOT / "maps") if p.name in SHIPPED_MAPS}
    assert {"island", "tutorial", "archipelago", "river", "fortress", "lagoon"} <= set(maps)
    assert maps["lagoon"].kind == "tiled" and maps["lagoon"].spawn and maps["lagoon"].animals
    h, w = maps["island"].terrain.shape
    assert 140 <= w <= 180 and 90 <= h <= 110
    h, w = maps["tutorial"].terrain.shape
    assert 35 <= w <= 45 and 20 <= h <= 30
    assert maps["archipelago"].kind == "generated" and min(maps["archipelago"].terrain.shape) >= 256
    for name, m in maps.items():
        assert set(np.unique(m.terrain)) <= set(range(7)), name


def test_generated_maps_are_deterministic():
    a = generate_island(120, 90, seed=3, islands=4)
    assert (a == generate_island(120, 90, seed=3, islands=4)).all()
    assert not (a == generate_island(120, 90, seed=4, islands=4)).all()
    assert {T.WATER, T.SAND, T.GRASS} <= set(np.unique(a).tolist())


def test_saved_map_loads_back_identical_and_is_never_overwritten(tmp_path):
    src = write(tmp_path, "tiny.yaml", GOOD_ROWS)
    m = load_map(src)
    painted = m.terrain.copy()
    painted[1, 3] = T.ROCK
    painted[2, 2] = T.SWAMP
    first = save_map(m.name, painted, src, tmp_path, {"cow": [CellRect(2, 1, 4, 2)]}, {"cow": 3, "bird": 0, "water": 1})
    second = save_map(m.name, painted, src, tmp_path)
    assert first.name == "tiny-edited.yaml" and second.name == "tiny-edited-2.yaml"
    again = load_map(first)
    assert (again.terrain == painted).all() and again.name == "tiny (edited)"
    assert again.spawn == {"cow": [CellRect(2, 1, 4, 2)]} and again.animals == {"cow": 3, "bird": 0, "water": 1}
    assert (load_map(src).terrain == m.terrain).all()  # the original is untouched


def test_a_users_map_saves_beside_it_a_bundled_map_into_the_user_folder(tmp_path):
    own = tmp_path / "mine"
    own.mkdir()
    src = write(own, "tiny.yaml", GOOD_ROWS)
    m = load_map(src)
    user = tmp_path / "user-maps"
    assert save_map(m.name, m.terrain, src, user).parent == own  # the user's folder: next to the original
    bundled = ROOT / "maps" / "tutorial.yaml"
    b = load_map(bundled)
    before = sorted(p.name for p in (ROOT / "maps").iterdir())
    out = save_map(b.name, b.terrain, bundled, user)
    assert out == user / "tutorial-edited.yaml"  # never written among the bundled maps
    assert sorted(p.name for p in (ROOT / "maps").iterdir()) == before


def test_generated_map_saves_as_rows_and_round_trips(tmp_path):
    m = load_map(ROOT / "maps" / "archipelago.yaml")
    out = save_map(m.name, m.terrain, None, tmp_path)
    assert (load_map(out).terrain == m.terrain).all()
    assert "rows: |" in out.read_text()


def test_list_form_rows_and_custom_legend(tmp_path):
    p = write(
        tmp_path,
        "legend.yaml",
        """
        name: custom
        legend: {"w": water, "g": grass}
        rows:
          - wwww
          - wggw
        spawn:
          cow: [[1, 1, 2, 1]]
        """,
    )
    m = load_map(p)
    assert m.terrain.tolist() == [[0, 0, 0, 0], [0, 2, 2, 0]]
    assert m.spawn == {"cow": [CellRect.from_xywh(1, 1, 2, 1)]}
    bad = write(tmp_path, "legend2.yaml", 'legend: {"w": lava}\nrows: |\n  ww\n')
    with pytest.raises(MapError, match=r"legend2.yaml:1: legend 'w': unknown terrain 'lava'"):
        load_map(bad)


def test_movingai_map_loads_with_the_terrain_mapping():
    m = load_map(ROOT / "tests" / "data" / "den312d.map")
    assert m.kind == "movingai" and m.terrain.shape == (81, 65)
    assert set(np.unique(m.terrain).tolist()) <= {T.GRASS, T.ROCK, T.FOREST, T.SWAMP, T.WATER}


def test_a_moving_ai_map_saved_with_a_byte_order_mark_crlf_or_trailing_spaces_reads_as_the_plain_one(tmp_path):
    # (before: a byte-order mark was "not ASCII text (byte 0xef)", a row with trailing spaces
    # "row has 6 characters, the header says 3"; neither writes any terrain)
    plain = tmp_path / "plain.map"
    plain.write_bytes(b"type octile\nheight 2\nwidth 3\nmap\n.T.\n.@W\n")
    want = load_map(plain).terrain
    for name, raw in (("bom.map", b"\xef\xbb\xbf" + plain.read_bytes()),
                      ("crlf.map", plain.read_bytes().replace(b"\n", b"\r\n")),
                      ("spaces.map", b"type octile  \nheight 2\nwidth 3\t\nmap \n.T. \n.@W\t \n\n")):  # fmt: skip
        (tmp_path / name).write_bytes(raw)
        assert np.array_equal(load_map(tmp_path / name).terrain, want), name
    other = tmp_path / "other.map"
    other.write_bytes("type octile\nheight 1\nwidth 3\nmap\n.\u00e9.\n".encode())
    with pytest.raises(MapError, match=r"other.map:5: unknown terrain character 'é' at x=1$"):
        load_map(other)
    inside = tmp_path / "inside.map"
    inside.write_bytes(b"type octile\nheight 1\nwidth 3\nmap\n. .\n")  # (a space inside a row is not dropped)
    with pytest.raises(MapError, match=r"inside.map:5: unknown terrain character ' ' at x=1$"):
        load_map(inside)


@pytest.mark.skipif(not (SHARED / "icecrown.map").exists(), reason="Moving AI suite not present")
def test_movingai_swamp_and_water_import():
    m = load_map(SHARED / "icecrown.map")
    assert {T.SWAMP, T.WATER, T.GRASS, T.ROCK} <= set(np.unique(m.terrain).tolist())


def test_movingai_map_runs_without_the_species_it_cannot_hold(make_app):
    app = make_app("tests/data/den312d.map", counts={"cow": 20, "bird": 20, "water": 20})
    assert app.sim.counts["water"] == 0 and app.sim.agents.n == 40
    assert any("water creatures" in m[0] for m in app.messages)
    start = app.sim.agents.pos.copy()
    for _ in range(120):
        app.frame(1 / 60)
    assert app.sim.totals["searches"] >= 40 and app.sim.totals["failed"] == 0
    assert (np.abs(app.sim.agents.pos - start).max(axis=1) > 0.5).sum() >= 20  # the animals really roam


def test_next_map_key_swaps_and_respawns_on_valid_cells(make_app):
    app = make_app("maps/archipelago.yaml", counts={"cow": 40, "bird": 40, "water": 40})
    key(pygame.K_n)  # next after archipelago (sorted): fortress
    app.frame(1 / 60)
    sim = app.sim
    assert sim.world.name == "Fortress" and sim.agents.n == 500  # the config's counts
    for sp in sim.species:
        mine = sim.agents.species == sp.index
        assert (sp.costs[sim.agents.cell[mine, 1], sim.agents.cell[mine, 0]] > 0).all()
    key(pygame.K_TAB)
    app.frame(1 / 60)
    assert sim.world.name == "Island"


def test_picker_lists_maps_and_enter_loads(make_app):
    app = make_app("maps/tutorial.yaml")
    key(pygame.K_m)
    app.frame(1 / 60)
    picker = app.top
    assert [p.stem for p in picker.maps][:2] == ["archipelago", "fortress"]
    assert picker.maps[picker.selected].stem == "tutorial"
    key(pygame.K_UP)
    key(pygame.K_RETURN)
    app.frame(1 / 60)
    assert app.top is app.play and app.sim.world.name == "River and lakes"


def test_bad_map_in_the_running_demo_is_reported_and_nothing_is_lost(make_app, tmp_path):
    app = make_app("maps/tutorial.yaml")
    app.sim.paint(20, 12, 2, T.ROCK)
    painted = app.sim.world.terrain.copy()
    n = app.sim.agents.n
    # Ragged rows; water creatures asked for by the map, with no water for them.
    for text in ("rows: |\n  ~~..~~\n  ~~..~\n", "rows: |\n  ....\nanimals: {water: 3}\n"):
        bad = write(tmp_path, "bad.yaml", text)
        assert app.files.load(bad) is False
        assert (app.sim.world.terrain == painted).all() and app.sim.agents.n == n
        assert app.messages[-1][0].startswith("could not load map: ")
    app.frame(1 / 60)
    assert (app.sim.world.terrain == painted).all()


def test_ctrl_s_saves_next_to_the_original(make_app, tmp_path):
    src = tmp_path / "tut.yaml"
    src.write_text((ROOT / "maps" / "tutorial.yaml").read_text())
    app = make_app(load_map(src))
    app.sim.paint(20, 12, 1, T.ROCK)
    key(pygame.K_s, pygame.KMOD_CTRL)
    app.frame(1 / 60)
    saved = tmp_path / "tut-edited.yaml"
    assert saved.exists() and (load_map(saved).terrain == app.sim.world.terrain).all()
    assert app.messages[-1][0] == f"saved {saved}"


def test_only_safe_load_is_used():
    for path in (ROOT / "sim").rglob("*.py"):
        text = path.read_text()
        assert "yaml.load(" not in text and "yaml.unsafe_load" not in text and "yaml.full_load" not in text, path
    assert yaml.safe_load("a: 1") == {"a": 1}


def test_a_map_without_habitat_for_a_species_it_did_not_ask_for_loads_with_a_notice(tmp_path):
    from sim.config import load_config
    from sim.simulation import Simulation

    p = tmp_path / "meadow.yaml"
    p.write_text("rows: |\n  ....\n  ....\n")  # no water, and the map names no animals
    sim = Simulation(load_config(ROOT / "config.yaml"), load_map(p))
    assert sim.counts["water"] == 0 and sim.counts["cow"] > 0
    assert any("no cell for water creatures" in n for n in sim.notices)


def test_one_registry_of_formats_serves_loading_converting_the_picker_and_the_help(tmp_path):
    from sim.maps import FORMATS, format_of, list_maps, map_suffixes
    from sim.maps.convert import convert

    assert [f.name for f in FORMATS if f.is_map] == ["YAML", "Tiled", "Moving AI"]
    assert format_of(Path("X.MAP")).name == "Moving AI" and format_of(Path("a.YML")).name == "YAML"
    src = tmp_path / "DEN.MAP"
    src.write_text("type octile\nheight 2\nwidth 3\nmap\n.@.\n...\n")
    assert load_map(src).terrain.shape == (2, 3)  # read as Moving AI, not parsed as YAML
    (tmp_path / "notes.txt").write_text("x")
    assert [p.name for p in list_maps(tmp_path)] == ["DEN.MAP"]
    assert set(map_suffixes()) == {".yaml", ".yml", ".tmx", ".tmj", ".json", ".map"}
    with pytest.raises(MapError, match=r"unknown map format '\.txt'; use one of \.yaml, \.yml, \.tmx"):
        convert(src, tmp_path / "out.txt")

    def run_main(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, str(ROOT / "main.py"), *args], capture_output=True, text=True,
                              cwd=ROOT, timeout=900)  # fmt: skip

    r = run_main("convert", "--help")
    assert "YAML (.yaml, .yml), Tiled (.tmx, .tmj, .json), Moving AI (.map)" in " ".join(r.stdout.split())
    r = run_main("convert", str(src), str(tmp_path / "out.map"))
    assert r.returncode == 0 and "note: a Moving AI map keeps only" in r.stdout, r.stderr


@pytest.mark.parametrize("ending", [".yaml", ".tmj", ".map"])
def test_convert_force_onto_a_link_writes_through_it_and_keeps_the_link(tmp_path, ending):
    real = tmp_path / "real" / f"kept{ending}"
    real.parent.mkdir()
    real.write_bytes(b"old")
    link = tmp_path / f"link{ending}"
    link.symlink_to(real)
    assert main(["convert", str(ROOT / "maps" / "tutorial.yaml"), str(link), "--force"]) == 0
    assert link.is_symlink() and link.resolve() == real  # the link stays a link ...
    assert load_map(real).terrain.shape == load_map(ROOT / "maps" / "tutorial.yaml").terrain.shape  # ... to the map
    assert not [p for p in real.parent.iterdir() if p.name.endswith(".tmp")]  # no temporary file left


@pytest.mark.parametrize("target", ["/dev/null", "folder", "missing.yaml"])
def test_convert_force_onto_a_link_to_a_device_a_folder_or_nothing_refuses_and_writes_nothing(tmp_path, capsys, target):
    (tmp_path / "folder").mkdir()
    link = tmp_path / "out.yaml"
    link.symlink_to(target if target.startswith("/") else tmp_path / target)
    assert main(["convert", str(ROOT / "maps" / "tutorial.yaml"), str(link), "--force"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"error: {link}: is a link to") and "\n" not in err, err
    assert link.is_symlink() and not (tmp_path / "missing.yaml").exists()


def test_a_format_registers_itself_and_is_chosen_by_its_content(tmp_path):
    """A script registers a format of its own (as Pillow's plugins do): loading, the picker's list and
    the help follow; a map whose ending lies is read by what its first bytes say."""
    from sim.maps import MapFormat, formats, register_format
    from sim.maps.formats import describe
    from sim.maps.registry import _FORMATS

    def read(path, max_size, _progress):
        rows = path.read_text().split()[1:]
        terrain = np.array([[int(c) for c in row] for row in rows], dtype=np.uint8)
        return MapData(path.stem, terrain, "", {}, path, "digits")

    from sim.maps import MapData

    formats()  # the package's own found first: they are what is put back
    saved = list(_FORMATS)
    try:
        register_format(MapFormat("Digits", (".dig",), read, None, accept=lambda b: b.startswith(b"DIGITS")))
        (tmp_path / "a.dig").write_text("DIGITS\n0112\n2233\n")
        assert load_map(tmp_path / "a.dig").terrain.tolist() == [[0, 1, 1, 2], [2, 2, 3, 3]]
        assert "Digits (.dig)" in describe() and any(f.name == "Digits" for f in formats())
        assert [p.name for p in list_maps(tmp_path)] == ["a.dig"]
        (tmp_path / "b.yaml").write_text("DIGITS\n33\n")  # the ending says YAML, the content says Digits
        assert load_map(tmp_path / "b.yaml").terrain.tolist() == [[3, 3]]
    finally:
        _FORMATS[:] = saved


@pytest.mark.parametrize("shipped, disguise", [("island.yaml", ".txt"), ("lagoon.tmx", ".dat"), ("lagoon.tmx", "")])
def test_a_map_with_a_wrong_or_no_ending_is_read_by_its_content(tmp_path, shipped, disguise):
    import shutil

    for extra in ("terrain.tsx", "terrain.png"):
        shutil.copy(ROOT / "maps" / extra, tmp_path / extra)
    disguised = tmp_path / f"renamed{disguise}"
    shutil.copy(ROOT / "maps" / shipped, disguised)
    assert (load_map(disguised).terrain == load_map(ROOT / "maps" / shipped).terrain).all()


def test_a_moving_ai_map_without_its_ending_is_read_by_its_header(tmp_path):
    path = tmp_path / "room"
    path.write_text("type octile\nheight 2\nwidth 3\nmap\n.@.\n...\n")
    assert load_map(path).terrain.shape == (2, 3)


def test_a_map_whose_name_holds_a_newline_is_one_line_on_the_terminal(tmp_path, capsys):
    """A "name: |" block ends in a newline (and may hold more): the run's lines stayed whole."""
    data = yaml.safe_load((ROOT / "maps" / "tutorial.yaml").read_text())
    data["name"] = "Two\nlines\n"
    (tmp_path / "m.yaml").write_text(yaml.safe_dump(data))
    assert main(["--headless", "--frames", "2", "--map", str(tmp_path / "m.yaml")]) == 0
    out, err = capsys.readouterr()
    assert "map: Two lines  seed:" in out and "astar-island: Two lines (40x25)" in err
    assert not any(line.startswith("lines") for line in (out + err).splitlines())
