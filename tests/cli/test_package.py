"""The project installs as a package: a wheel gives `astar-island` and `python -m sim`, working anywhere."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile

import pytest

from tests.conftest import ROOT


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """A wheel built from the checkout, installed into a folder of its own (dependencies: this venv's)."""
    base = tmp_path_factory.mktemp("pkg")
    wheels, site = base / "wheels", base / "site"
    run = lambda *a: subprocess.run(a, capture_output=True, text=True, timeout=600, cwd=ROOT)  # noqa: E731
    r = run(sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(wheels), ".")
    assert r.returncode == 0, r.stderr[-3000:]
    (wheel,) = wheels.glob("astar_island-*.whl")
    r = run(sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(site), str(wheel))
    assert r.returncode == 0, r.stderr[-3000:]
    return wheel, site


def run_installed(site, cwd, *args):
    env = {**os.environ, "PYTHONPATH": str(site), "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy",
           "ASTAR_ISLAND_HOME": str(cwd / "home")}  # fmt: skip
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=cwd, env=env, timeout=900)


def test_the_wheel_carries_the_bundled_files_once(installed):
    wheel, _site = installed
    names = zipfile.ZipFile(wheel).namelist()
    for bundled in ("sim/_data/config.yaml", "sim/_data/maps/island.yaml", "sim/_data/maps/lagoon.tmx",
                    "sim/_data/maps/terrain.tsx", "sim/_data/assets/fonts/DejaVuSansMono.ttf",
                    "sim/_data/assets/sprites/cow.png", "sim/__main__.py", "sim/view/app.py"):  # fmt: skip
        assert bundled in names, bundled
    assert not any(n.startswith(("tests/", "bench/", "maps/", "assets/")) for n in names)
    assert not any("-edited" in n for n in names)  # maps a user saved in the checkout are not shipped


@pytest.mark.slow  # the installed copy compiles its kernels from an empty cache
def test_python_m_sim_runs_from_any_folder_on_the_bundled_files(installed, tmp_path):
    _wheel, site = installed
    code = "import sim, sim.support.resources as r; print(sim.__file__); print(r.data_root())"
    r = run_installed(site, tmp_path, "-c", code)
    assert r.returncode == 0, r.stderr
    module, data = r.stdout.split()
    assert module.startswith(str(site)) and data.startswith(str(site))  # the installed copy, not the checkout
    before = sorted(p for p in site.rglob("*") if "__pycache__" not in p.parts)
    r = run_installed(site, tmp_path, "-m", "sim", "--headless", "--frames", "20", "--agents", "30",
                      "--screenshot", "shot.png")  # fmt: skip
    assert r.returncode == 0, r.stderr[-3000:]
    assert "agents: 30" in r.stdout and (tmp_path / "shot.png").stat().st_size > 1000  # written here
    assert sorted(p for p in site.rglob("*") if "__pycache__" not in p.parts) == before  # nothing in the package


def test_the_astar_island_command_exists(installed, tmp_path):
    _wheel, site = installed
    script = site / "bin" / "astar-island"
    assert script.exists()
    r = run_installed(site, tmp_path, str(script), "--headless", "--frames", "5", "--map", "tutorial")
    assert r.returncode == 0, r.stderr[-3000:]
    assert "map: Tutorial" in r.stdout
    # Its usage and error lines name it as the user typed it: no main.py in an installed copy.
    r = run_installed(site, tmp_path, str(script), "--seed", "-1")
    assert r.returncode == 2 and r.stderr == "error: --seed must be >= 0, got -1 (see astar-island --help)\n"
    r = run_installed(site, tmp_path, str(script), "--help")
    assert r.stdout.startswith("usage: astar-island") and "main.py" not in r.stdout
    r = run_installed(site, tmp_path, "-m", "sim", "convert")
    assert r.returncode == 2 and r.stderr.endswith("(see python -m sim convert --help)\n"), r.stderr


def test_saving_a_bundled_map_writes_to_the_user_folder_not_the_package(installed, tmp_path):
    _wheel, site = installed
    code = (
        "import pygame; from sim.support.resources import maps_dir, user_maps_dir; from sim.config import load_config; "
        "from sim.maps import load_map; from sim.view.app import App; "
        "app = App(load_config(), load_map(maps_dir() / 'tutorial.yaml'), maps_dir=maps_dir(), headless=True); "
        "app.sim.paint(5, 5, 1, 'rock'); print(app.files.save_map())"
    )
    r = run_installed(site, tmp_path, "-c", code)
    assert r.returncode == 0, r.stderr[-3000:]
    saved = r.stdout.strip().splitlines()[-1]
    assert saved == str(tmp_path / "home" / "maps" / "tutorial-edited.yaml")
    assert not list(site.rglob("*-edited*"))
