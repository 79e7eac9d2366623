"""Build hook: the wheel carries the top-level config.yaml, maps/ and assets/ as sim/_data.

The repository keeps one copy of them at the top (where ``make run`` and a checkout read
them, see ``sim/support/resources.py``); a built package gets a copy, made here at build time.
Everything else is declared in pyproject.toml.
"""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
BUNDLED = ("config.yaml", "maps", "assets")
SKIP = shutil.ignore_patterns("__pycache__", "*.pyc", "*-edited.yaml", "*-edited-*.yaml", "make_sprites.py")


class BuildWithData(build_py):
    def run(self) -> None:
        super().run()
        target = Path(self.build_lib) / "sim" / "_data"
        if target.exists():
            shutil.rmtree(target)
        target.mkdir(parents=True)
        for name in BUNDLED:
            src = ROOT / name
            if src.is_dir():
                shutil.copytree(src, target / name, ignore=SKIP)
            else:
                shutil.copy2(src, target / name)


setup(cmdclass={"build_py": BuildWithData})
