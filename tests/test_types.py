"""Types a checker passes: mypy over all of sim/ (the settings in pyproject.toml), and the marker
that tells checkers the installed package is typed."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys

import pytest

from tests.conftest import ROOT


def test_the_package_says_it_is_typed_and_ignores_little():
    assert (ROOT / "sim" / "py.typed").is_file()
    ignores = [line for path in (ROOT / "sim").rglob("*.py") for line in path.read_text().splitlines()
               if "# type: ignore" in line]  # fmt: skip
    assert len(ignores) <= 30
    text = (ROOT / "pyproject.toml").read_text()
    assert "ignore_errors" not in text and re.search(r'files = \["sim"\]', text)


@pytest.mark.skipif(shutil.which("mypy", path=str(ROOT / ".venv" / "bin")) is None and
                    not (ROOT / ".venv" / "bin" / "mypy").exists(), reason="mypy is a dev extra")  # fmt: skip
def test_mypy_passes_over_the_package():
    mypy = ROOT / ".venv" / "bin" / "mypy"
    cmd = [str(mypy)] if mypy.exists() else [sys.executable, "-m", "mypy"]
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, timeout=900)
    assert r.returncode == 0, r.stdout[-3000:]
