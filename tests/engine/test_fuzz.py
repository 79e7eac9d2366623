"""Fuzzing the file parsers: any text either loads or raises the project's own error type.

Never another exception, never more than a second of CPU time or 200 MB: the loader
caps the file size, the nesting depth and refuses aliases, so no input can make it
work for long or build something huge. (CPU time, not wall-clock time, so a busy
machine cannot make the test fail.)
"""

from __future__ import annotations

import tempfile
import time
import tracemalloc
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sim.config import ConfigError, load_config
from sim.maps import MapError, load_map
from tests.conftest import ROOT

MAP_WORDS = ["name:", "rows:", "legend:", "spawn:", "animals:", "generator: island", "width:", "height:", "seed:",
             "islands:", "land:", "roughness:", "|", "-", "cow:", "bird:", "water:", '"~": water', "&a", "*a", "[",
             "]", "{", "}", ",", ":", "~~..TT", "##^^%%", "\n", "\n  ", "  ", "0", "1", "12", "-3", "1e9", "null",
             "!!binary", "!!python/object:os.system", "\\ud800", '"', "'", "#", "\t"]  # fmt: skip
CONFIG_WORDS = ["seed:", "map:", "window:", "search:", "species:", "colours:", "budget_ms:", "max_nodes:",
                "diagonal:", "threads:", "cow:", "bird:", "water:", "count:", "speed:", "costs:", "colour:", "idle_s:",
                "rock:", "grass:", "[300, 0, 0]", "[1, 2]", "{water: 0}", "&x", "*x", "[", "]", "{", "}", ",", "\n",
                "\n  ", "\n    ", "0", "-1", "2.5", "1e400", "nan", "true", "never", "'a'", "\\ud800", "#"]  # fmt: skip


def yamlish(words: list[str]) -> st.SearchStrategy[str]:
    """Text made of YAML-ish pieces (most fuzz lands on syntax and keys), or any text at all."""
    pieces = st.lists(st.one_of(st.sampled_from(words), st.text(max_size=6)), max_size=40).map(" ".join)
    return st.one_of(pieces, st.text(max_size=300), st.binary(max_size=200).map(lambda b: b.decode("latin-1")))


def bounded(load, text: str, suffix: str, allowed: type[Exception]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"fuzz{suffix}"
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
        tracemalloc.start()
        cpu = time.process_time()
        try:
            load(path)
        except allowed as exc:
            assert "\n" not in str(exc) and str(exc).startswith(str(path)), str(exc)
        finally:
            used = time.process_time() - cpu
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
    assert used < 1.0, f"{used:.2f} s of CPU"
    assert peak < 200 * 2**20, f"{peak / 2**20:.0f} MB"


SETTINGS = settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# One-time costs (imports, loading the compiled kernels) are not the parser's: pay them first.
load_config(ROOT / "config.yaml")
load_map(ROOT / "maps" / "tutorial.yaml")


@SETTINGS
@given(text=yamlish(MAP_WORDS))
def test_any_map_text_loads_or_is_a_map_error(text):
    bounded(lambda p: load_map(p, max_size=(256, 256)), text, ".yaml", MapError)


@SETTINGS
@given(text=yamlish(["type octile", "height 2", "width 3", "map", "...", "@T.", "\r\n", "\n", "GSWO", "x"]))
def test_any_movingai_text_loads_or_is_a_map_error(text):
    bounded(lambda p: load_map(p, max_size=(256, 256)), text, ".map", MapError)


@SETTINGS
@given(text=yamlish(CONFIG_WORDS))
def test_any_config_text_loads_or_is_a_config_error(text):
    bounded(load_config, text, ".yaml", ConfigError)
