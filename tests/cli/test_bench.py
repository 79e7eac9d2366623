"""The benchmark scripts still run (and report optimal answers) on the bundled data."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

from sim.support.platform import resident_split_mb
from tests.conftest import ROOT


def test_kernel_benchmark_runs_and_its_engine_answers_are_optimal(tmp_path):
    for name in ("den312d.map", "den312d.map.scen"):
        shutil.copy(ROOT / "tests" / "data" / name, tmp_path / name)
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "bench.kernel",
            "--maps",
            str(tmp_path),
            "--queries",
            "3",
            "--repeat",
            "1",
            "--python-queries",
            "1",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=600,
    )
    assert r.returncode == 0, r.stderr
    pooled = next(line for line in r.stdout.splitlines() if line.startswith("POOLED"))
    assert pooled.split()[-1].startswith("100%/100%/")  # A* and JPS optimal on every query (the kernel alone too)
    ratios = next(line for line in r.stdout.splitlines() if line.startswith("pooled against pyastar2d"))
    assert all(f"{name} " in ratios for name in ("A*", "JPS", "JPS+")) and ratios.count("search only") == 3
    table = next(line for line in r.stdout.splitlines() if line.startswith("JPS+ against JPS"))
    assert "den312d " in table and "its table 16 bytes a cell" in table and "ms (1 map)" in table
    assert "pure-Python peer pathfinding on 1 random queries" in r.stdout and "optimal 100%" in r.stdout


def test_kernel_benchmark_refuses_an_empty_folder(tmp_path):
    r = subprocess.run(
        [sys.executable, "-m", "bench.kernel", "--maps", str(tmp_path)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=900,
    )
    assert r.returncode == 2 and r.stderr.strip() == f"error: no .map files in {tmp_path}"


@pytest.mark.parametrize("bench", ["bench.kernel", "bench.weighted"])
def test_the_search_benchmarks_name_a_broken_scenario_file_in_one_line(tmp_path, bench):
    (tmp_path / "m.map").write_text("type octile\nheight 2\nwidth 3\nmap\n...\n...\n")
    (tmp_path / "m.map.scen").write_text("version 1\n0\tm.map\t3\t2\t0\t0\t2\t1\tnan\n")
    r = subprocess.run(
        [sys.executable, "-m", bench, "--maps", str(tmp_path), "--queries", "1", "--repeat", "1"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=900,
    )
    message = f"error: {tmp_path / 'm.map.scen'}:2: the optimal length must be a number >= 0, got 'nan'"
    assert r.returncode == 2 and r.stderr.strip() == message
    bad = subprocess.run([sys.executable, "-m", bench, "--maps", str(tmp_path), "--queries", "0"],
                         capture_output=True, text=True, cwd=ROOT, timeout=900)  # fmt: skip
    assert bad.returncode == 2 and "--queries: expected at least 1, got 0" in bad.stderr
    if bench == "bench.kernel":
        bad = subprocess.run([sys.executable, "-m", bench, "--maps", str(tmp_path), "--python-queries", "-1"],
                             capture_output=True, text=True, cwd=ROOT, timeout=900)  # fmt: skip
        assert bad.returncode == 2 and "--python-queries: expected at least 0, got -1" in bad.stderr


def test_yaml_benchmark_loads_a_saved_map_with_both_loaders(capsys):
    from bench import yaml_load

    yaml_load.main(["--size", "64", "--repeat", "1"])
    out = capsys.readouterr().out
    assert "CSafeLoader" in out and "x faster" in out and "load_map" in out


def test_herd_benchmark_serves_every_animal_with_one_field():
    from bench.demo import herd

    h = herd(animals=120, repeat=1)
    assert h["animals"] == 120 and h["found"] == 120  # the same queries, each searched on its own
    assert 0 < h["field_cells"] < h["search_expanded"]  # one field settles fewer cells than 120 searches expand


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc/self/status is Linux's")
def test_the_resident_split_adds_up_to_what_the_kernel_counts_as_resident():
    # The paint benchmark reports it beside the peak: anonymous pages grow with what the program holds.
    anon0, file0 = resident_split_mb()
    held = np.ones(64 * 2**20 // 8)  # 64 MB, written
    anon1, file1 = resident_split_mb()
    with open("/proc/self/statm") as f:
        resident_mb = int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    assert anon1 - anon0 >= 60 and abs(file1 - file0) < 16 and file1 > 0
    assert abs(anon1 + file1 - resident_mb) < 8  # the rest is shared memory, none here
    assert held.size


def test_paint_benchmark_reports_its_figures_and_what_is_resident(tmp_path):
    out = tmp_path / "paint.json"
    cmd = [sys.executable, "-m", "bench.paint", "--size", "256", "--frames", "5", "--json", str(out)]
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, timeout=900)
    assert r.returncode == 0, r.stderr[-2000:]
    figures = json.loads(out.read_text())
    assert figures["size"] == 256 and figures["frames"] == 5 and figures["paint_frame_ms_p50"] > 0
    if sys.platform.startswith("linux"):
        assert figures["rss_anon_mb"] > 0 and figures["rss_file_mb"] > 0
        assert figures["rss_anon_mb"] + figures["rss_file_mb"] <= figures["peak_rss_mb"] + 8
        assert "MB anonymous +" in r.stdout


def test_weighted_benchmark_runs_and_jps_costs_what_astar_costs(tmp_path):
    for name in ("den312d.map", "den312d.map.scen"):
        shutil.copy(ROOT / "tests" / "data" / name, tmp_path / name)
    r = subprocess.run(
        [sys.executable, "-m", "bench.weighted", "--maps", str(tmp_path), "--queries", "3", "--repeat", "1",
         "--no-demo"],
        capture_output=True, text=True, cwd=ROOT, timeout=600,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    pooled = next(line for line in r.stdout.splitlines() if line.startswith("POOLED"))
    assert pooled.split()[-1] == "100%/100%"  # JPSW's and tcod's costs equal A*'s on every query
    squares = subprocess.run(
        [sys.executable, "-m", "bench.weighted", "--maps", str(tmp_path), "--queries", "3", "--repeat", "1",
         "--no-demo", "--squares", "8"],
        capture_output=True, text=True, cwd=ROOT, timeout=600,
    )  # fmt: skip
    assert squares.returncode == 0, squares.stderr
    assert "squares of 8x8 cells" in squares.stdout
    pooled = next(line for line in squares.stdout.splitlines() if line.startswith("POOLED"))
    assert pooled.split()[-1] == "100%/100%"
    bad = subprocess.run([sys.executable, "-m", "bench.weighted", "--maps", str(tmp_path), "--size", "0"],
                         capture_output=True, text=True, cwd=ROOT, timeout=900)  # fmt: skip
    assert bad.returncode == 2 and "--size: expected at least 1, got 0" in bad.stderr


def test_square_terrain_changes_cost_every_side_cells_and_keeps_walls():
    from bench.weighted import BLOB_COSTS, square_costs

    ground = np.ones((20, 27))
    ground[3:6, 4:9] = 0.0
    out = square_costs(ground, seed=5, side=8)
    assert (out == 0.0).sum() == 15 and (out[ground == 0] == 0).all()
    assert set(np.unique(out[out > 0]).tolist()) <= {1.0, *BLOB_COSTS}
    for ty in range(0, 20, 8):  # one multiplier a square (its free cells)
        for tx in range(0, 27, 8):
            tile = out[ty : ty + 8, tx : tx + 8]
            assert np.unique(tile[tile > 0]).size == 1
    assert np.array_equal(out, square_costs(ground, seed=5, side=8))  # seeded
    assert np.unique(out[out > 0]).size > 1
