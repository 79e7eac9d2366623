"""The benchmark scripts still run (and report optimal answers) on the bundled data."""

from __future__ import annotations

import shutil
import subprocess
import sys

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
    assert pooled.split()[-1].startswith("100%/100%/")  # A* and JPS optimal on every query
    assert "pure-Python peer pathfinding on 1 random queries" in r.stdout and "optimal 100%" in r.stdout


def test_kernel_benchmark_refuses_an_empty_folder(tmp_path):
    r = subprocess.run(
        [sys.executable, "-m", "bench.kernel", "--maps", str(tmp_path)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert r.returncode == 2 and r.stderr.strip() == f"error: no .map files in {tmp_path}"


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
