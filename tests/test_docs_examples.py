"""Every Python example in README.md and docs/*.md runs as written (pasted into a file) and prints
what its ``# prints: ...`` comments say (``...`` stands for anything), in that order."""

from __future__ import annotations

import importlib
import os
import re
import subprocess
import sys

import pytest

from tests.conftest import ROOT

DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCKS = [(path, i, block) for path in DOCS
          for i, block in enumerate(re.findall(r"```python\n(.*?)```", path.read_text(), re.S))]  # fmt: skip


def test_the_docs_have_examples_that_say_what_they_print():
    claims = [c for _p, _i, b in BLOCKS for c in re.findall(r"# .*?prints: (.*)$", b, re.M)]
    assert len(BLOCKS) >= 3 and len(claims) >= 8


@pytest.mark.parametrize(("path", "index", "block"), BLOCKS, ids=[f"{p.name}#{i}" for p, i, _b in BLOCKS])
def test_an_example_runs_and_prints_what_it_claims(tmp_path, path, index, block):
    script = tmp_path / "example.py"
    script.write_text(block)
    env = {**os.environ, "SDL_VIDEODRIVER": "dummy", "PYTHONWARNINGS": "ignore"}
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, cwd=ROOT, env=env, timeout=900)
    assert r.returncode == 0, r.stderr[-2000:]
    out = r.stdout.splitlines()
    at = 0
    for claim in re.findall(r"# .*?prints: (.*)$", block, re.M):
        pattern = re.compile(".*".join(re.escape(part) for part in claim.strip().split("...")) + "$")
        while at < len(out) and not pattern.match(out[at]):
            at += 1
        assert at < len(out), f"{path.name} example {index}: nothing printed {claim!r}; it printed {out}"
        at += 1


def test_every_file_and_dotted_name_the_docs_give_exists():
    # The docs name files and functions to read next; after a move (architecture 4 moved the round
    # into sim/pathfinding/rounds.py) three of them still named files that were gone.
    text = "\n".join(path.read_text() for path in DOCS)
    missing = [f for f in sorted(set(re.findall(r"\b(sim/[\w/]+\.py)\b", text))) if not (ROOT / f).is_file()]
    # (and every `python -m MODULE` they tell a reader to run: the fuzz's moved with tests by layer)
    missing += [m for m in sorted(set(re.findall(r"python -m ([\w.]+)", text))) if not _is_module(m.split("."))]
    for dotted in sorted(set(re.findall(r"`(sim(?:\.\w+)+)", text))):
        parts = dotted.split(".")
        # the longest prefix that is a module or package, then attributes down from it
        k = max(i for i in range(1, len(parts) + 1) if _is_module(parts[:i]))
        if k < len(parts):
            obj = importlib.import_module(".".join(parts[:k]))
            for name in parts[k:]:
                if not hasattr(obj, name):
                    missing.append(dotted)
                    break
                obj = getattr(obj, name)
    assert missing == []


def _is_module(parts: list[str]) -> bool:
    folder = ROOT.joinpath(*parts)
    return folder.with_suffix(".py").is_file() or (folder / "__init__.py").is_file()
