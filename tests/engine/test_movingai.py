"""Optimal on public benchmarks: the Moving AI Lab scenarios (see tests/data/README.md)."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from sim.maps.movingai import GROUND, MapFormatError, ground_costs, read_map, read_scenarios
from sim.pathfinding import PathGrid
from tests.conftest import ROOT
from tests.helpers import path_cost, raises_exactly

DATA = ROOT / "tests" / "data"
SUITE = Path(os.environ.get("MOVINGAI_DIR", ROOT.parent / "shared" / "benchmarks" / "movingai"))
SUITE_MAPS = sorted(p.stem for p in SUITE.glob("*.map")) if SUITE.is_dir() else []


def check_scenarios(map_path: Path, scen_path: Path, sample: int | None, algorithms=("astar", "jps")):
    chars = read_map(map_path)
    costs = ground_costs(chars)
    grid = PathGrid(costs)
    scens = [
        s
        for s in read_scenarios(scen_path)
        if chars[s.start[1], s.start[0]] in GROUND and chars[s.goal[1], s.goal[0]] in GROUND
    ]
    assert scens, f"no usable scenarios in {scen_path}"
    if sample is not None and len(scens) > sample:
        # Evenly across the buckets, plus the longest: the hardest queries are kept.
        by_length = sorted(scens, key=lambda s: s.optimal)
        picks = np.linspace(0, len(by_length) - 1, sample).round().astype(int)
        scens = [by_length[i] for i in sorted(set(picks.tolist()))]
    checked = 0
    for s in scens:
        for algorithm in algorithms:
            r = grid.search(s.start, s.goal, algorithm=algorithm)
            assert r.found, f"{map_path.name}:{s.line} {algorithm}: not found"
            assert abs(r.cost - s.optimal) <= s.tolerance, (
                f"{map_path.name}:{s.line} {algorithm}: cost {r.cost} vs optimal {s.optimal}"
            )
            assert tuple(r.path[0]) == s.start and tuple(r.path[-1]) == s.goal
            # Every path is a legal walk (no corner cut, no blocked cell) of the cost reported.
            assert path_cost(costs, r.path, "no-corner-cutting") == pytest.approx(r.cost), (map_path.name, s.line)
        checked += 1
    return checked


@pytest.mark.parametrize("name", ["den312d", "lak303d", "Berlin_0_256"])
def test_every_scenario_of_the_bundled_maps_is_optimal(name):
    n = check_scenarios(DATA / f"{name}.map", DATA / f"{name}.map.scen", sample=None)
    assert n >= 300


@pytest.mark.skipif(not SUITE_MAPS, reason="no Moving AI suite here (shared/benchmarks/movingai or MOVINGAI_DIR)")
@pytest.mark.parametrize("name", SUITE_MAPS or ["-"])
def test_sample_of_every_map_in_the_suite_is_optimal(name):
    check_scenarios(SUITE / f"{name}.map", SUITE / f"{name}.map.scen", sample=40)


def test_crlf_map_reads_like_lf():
    chars = read_map(DATA / "Berlin_0_256.map")
    assert chars.shape == (256, 256)


def test_a_lengths_tolerance_is_half_its_last_printed_digit(tmp_path):
    # %g prints six significant digits and drops trailing zeros: maze512-16-0's "1962" is the
    # length 1962.0042 rounded to 1962.00, so its tolerance is the second decimal's half.
    scen = tmp_path / "m.map.scen"
    rows = ["1962", "4", "1006.71", "2.41421356", "244.95", "125971"]
    scen.write_text("version 1\n" + "".join(f"0\tm.map\t2\t2\t0\t0\t1\t1\t{r}\n" for r in rows))
    tolerances = [s.tolerance for s in read_scenarios(scen)]
    assert tolerances == pytest.approx([0.005, 1e-3, 0.005, 1e-3, 0.005, 0.5])


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ("0 m.map 2 2 0 0 1 1 nan", "the optimal length must be a number >= 0, got 'nan'"),
        ("0 m.map 2 2 0 0 1 1 -3", "the optimal length must be a number >= 0, got '-3'"),
        ("0 m.map 2 2 0 0 1 1 1e400", "the optimal length must be a number >= 0, got '1e400'"),
        ("0 m.map 2 2 0 0 2 1 1.5", "start (0, 0) or goal (2, 1) is outside the 2x2 map"),
        ("0 m.map 2 2 -1 0 1 1 1.5", "start (-1, 0) or goal (1, 1) is outside the 2x2 map"),
        ("0 m.map two 2 0 0 1 1 1.5", "bucket, sizes, coordinates and length must be numbers"),
    ],
)
def test_a_bad_scenario_row_names_file_and_line(tmp_path, row, message):
    scen = tmp_path / "m.map.scen"
    scen.write_text("version 1\n0 m.map 2 2 0 0 1 1 1.41421\n" + row + "\n")
    raises_exactly(lambda: read_scenarios(scen), MapFormatError, f"{scen}:3: {message}")


def test_bad_map_header_names_file_and_line(tmp_path):
    bad = tmp_path / "bad.map"
    bad.write_text("type octile\nheigth 2\nwidth 2\nmap\n..\n..\n")
    with pytest.raises(MapFormatError) as info:
        read_map(bad)
    assert str(info.value) == (f"{bad}:2: expected header line 'height' (type, height, width, map), got 'heigth 2'")
    bad.write_text("type octile\nheight 2\nwidth 3\nmap\n...\n..\n")
    with pytest.raises(MapFormatError, match=r"bad.map:6: row has 2 characters, the header says 3"):
        read_map(bad)
    bad.write_text("type octile\nheight 1\nwidth 3\nmap\n.x.\n")
    with pytest.raises(MapFormatError, match=r"bad.map:5: unknown terrain character 'x' at x=1"):
        read_map(bad)


def test_every_terrain_letter_of_the_format_is_read(tmp_path):
    from sim.maps import load_map
    from sim.world.terrain import Terrain as T

    path = tmp_path / "letters.map"
    path.write_text("type octile\nheight 1\nwidth 7\nmap\n.GSTW@O\n")
    assert load_map(path).terrain.tolist() == [[T.GRASS, T.GRASS, T.SWAMP, T.FOREST, T.WATER, T.ROCK, T.ROCK]]
    chars = read_map(path)
    assert ground_costs(chars).tolist() == [[1, 1, 1, 0, 0, 0, 0]]  # the benchmark's ground: . G S
