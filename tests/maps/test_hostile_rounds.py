"""Hostile input, class by class: what a file or a script can throw at the Tiled readers,
``convert`` and the scripting API. Each class is fixed at its cause; each test builds
several cases of its class, not only the one first reported.

1. tracebacks from small inputs (huge numbers, Unicode digits, 2^63, NUL and surrogates);
2. a declared size that would allocate before it is checked;
3. amplification (one tileset file named hundreds of times);
4. ``convert`` that loses data (a full disk, a FIFO where the image goes);
5. ``convert`` output that does not load back;
6. error lines of 100,000 characters;
7. content of a file that is not a tileset echoed in the error;
8. ``firstgid`` 0 read one id off;
9. the scripting API's integers and times unbounded.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import tempfile
import tracemalloc
import zlib
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sim.config import ConfigError, load_config
from sim.maps import MapData, MapError, load_map
from sim.maps.convert import convert, write_map
from sim.pathfinding import PathGrid, set_threads
from sim.world.terrain import Terrain as T
from tests.conftest import ROOT
from tests.helpers import assert_one_line, raises_exactly, run_cli
from tests.maps.tiled_fuzz import check_files, tiled_files

BIG = "9" * 5000
GRASS = [{"id": 0, "properties": [{"name": "terrain", "type": "string", "value": "grass"}]}]
TSX_GRASS = '<tile id="0"><properties><property name="terrain" value="grass"/></properties></tile>'


def tmj(**changes) -> dict:
    """A valid 2x1 .tmj map of grass; ``changes`` replace its top-level keys."""
    doc = {"type": "map", "orientation": "orthogonal", "width": 2, "height": 1, "tilewidth": 16, "tileheight": 16,
           "tilesets": [{"firstgid": 1, "name": "t", "tilecount": 1, "tiles": GRASS}],
           "layers": [{"type": "tilelayer", "name": "g", "width": 2, "height": 1, "data": [1, 1]}]}  # fmt: skip
    doc.update(changes)
    return doc


def tmx(layers: str = '<layer name="g" width="2" height="1"><data encoding="csv">1,1</data></layer>',
        tileset: str = f'<tileset firstgid="1" name="t" tilecount="1">{TSX_GRASS}</tileset>', head: str = "",
        width: str = "2", height: str = "1") -> str:  # fmt: skip
    return (f'<?xml version="1.0"?>\n<map orientation="orthogonal" width="{width}" height="{height}" tilewidth="16" '
            f'tileheight="16"{head}>\n{tileset}\n{layers}\n</map>\n')  # fmt: skip


def spawn(obj: dict) -> dict:
    """The grass map with one spawn rectangle ``obj`` for cows."""
    group = {"type": "objectgroup", "name": "spawn", "objects": [{"type": "cow", **obj}]}
    return tmj(layers=[*tmj()["layers"], group])


def refused(path: Path, text: str | bytes, fragment: str, error: type[Exception] = MapError) -> str:
    """Write ``text`` to ``path``; loading it is one short ``error`` line naming the file and ``fragment``."""
    if isinstance(text, str):
        text = text.encode("utf-8", errors="surrogatepass")
    path.write_bytes(text)
    with pytest.raises(error) as info:
        (load_config if error is ConfigError else load_map)(path)
    message = str(info.value)
    assert message.startswith(str(path)) and "\n" not in message, message
    assert len(message) <= 292, len(message)
    assert fragment in message, message
    return message


# ------------------------------------------------------------------ 1. small inputs, no traceback
SMALL = {
    "json_long_int.tmj": ('{"type": "map", "width": ' + BIG + "}", ":1: a number with more than 24 digits"),
    "json_long_int_deep.tmj": (json.dumps(tmj(layers=[])).replace('"tileheight": 16', f'"tileheight": {BIG}'),
                               "a number with more than 24 digits"),
    "firstgid_2_63.tmj": (json.dumps(tmj(tilesets=[{"firstgid": 2**63, "name": "t", "tiles": GRASS}])),
                          "tilesets[0].firstgid: must be at most 268435455"),
    "firstgid_2_64.tmx": (tmx(tileset=f'<tileset firstgid="{2**64}" name="t">{TSX_GRASS}</tileset>'),
                          "<tileset> 'firstgid' must be at most 268435455"),
    "csv_superscript.tmx": (tmx('<layer name="g" width="2" height="1"><data encoding="csv">1,\u00b2</data></layer>'),
                            "CSV data holds '²', which is not a tile gid"),
    "csv_arabic.tmx": (tmx('<layer name="g" width="2" height="1"><data encoding="csv">1,\u0663</data></layer>'),
                       "CSV data holds"),
    "gid_superscript.tmx": (tmx('<layer name="g" width="2" height="1"><data><tile gid="\u00b9"/><tile gid="1"/>'
                                "</data></layer>"), "tile gid '¹' is not a whole number"),
    "id_fullwidth.tmx": (tmx(tileset='<tileset firstgid="1" name="t"><tile id="\uff11"/></tileset>'),
                         "<tile> 'id' must be a whole number"),
    "width_long.tmx": (tmx(width=BIG), "<map> 'width' must be a whole number"),
    "property_long_int.tmx": (tmx(head="").replace("</map>", '<properties><property name="animals.cow" type="int" '
                                                             f'value="{BIG}"/></properties></map>'),
                              "property 'animals.cow' is not a valid int"),
    "spawn_1e308.tmj": (json.dumps(spawn({"x": 1e308, "y": 0, "width": 1e308, "height": 16})),
                        "spawn area is far outside the map"),
    "spawn_huge_int.tmj": (json.dumps(spawn({"x": 10**23, "y": 0, "width": 16, "height": 16})),
                           "spawn area is far outside the map"),
    "tile_width_400.tmj": (json.dumps(tmj(tilewidth=int("9" * 400))), "a number with more than 24 digits"),
    "source_nul.tmj": (json.dumps(tmj(tilesets=[{"firstgid": 1, "source": "a\x00b.tsj"}])),
                       "tileset source 'a\\x00b.tsj' is not a file name"),
    "source_nul.tmx": (tmx(tileset='<tileset firstgid="1" source="a&#0;.tsx"/>'), "not valid XML"),
    "source_surrogate.tmj": ('{"type": "map", "tilesets": [{"firstgid": 1, "source": "a\\ud800.tsj"}]}',
                             "lone surrogate"),
    "name_surrogate.tmj": (json.dumps(tmj(properties=[{"name": "name", "type": "string", "value": "x"}]))
                           .replace('"value": "x"', '"value": "x\\udc80"'), "lone surrogate"),
    "key_surrogate.tmj": ('{"\\ud800": 1}', "lone surrogate"),
    "yaml_long_int.yaml": (f"generator: island\nwidth: {BIG}\nheight: 10\n", ":2: the number"),
    "yaml_long_key.yaml": (f"rows: |\n  ..\n{'9' * 900}: 1\n", ":3: the number"),
    "movingai_long.map": (f"type octile\nheight {BIG}\nwidth 2\nmap\n..\n", ":2: height must be a whole number"),
    "yaml_long_hex.yaml": (f"rows: |\n  ..\nanimals: {{cow: 0x{'f' * 3000}}}\n", ":3: the number"),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(SMALL))
def test_small_hostile_inputs_are_one_line_not_a_traceback(tmp_path, name):
    refused(tmp_path / name, *SMALL[name])


@pytest.mark.parametrize(
    "text", [f"seed: {BIG}\n", f"search:\n  max_nodes: {BIG}\n", f"species:\n  cow:\n    count: {BIG}\n"]
)
def test_a_config_with_a_number_of_thousands_of_digits_is_one_line(tmp_path, text):
    refused(tmp_path / "config.yaml", text, "has more than 24 digits", ConfigError)


def test_a_tiled_map_with_a_surrogate_in_its_name_fails_in_one_line_through_the_program(tmp_path):

    path = tmp_path / "s.tmj"
    path.write_text(json.dumps(tmj(properties=[{"name": "name", "type": "string", "value": "\ud800"}])))
    assert_one_line(run_cli("--map", str(path)), path, "lone surrogate")
    r = subprocess.run([sys.executable, str(ROOT / "main.py"), "convert", str(path), str(tmp_path / "o.yaml")],
                       capture_output=True, text=True, cwd=ROOT, timeout=900)  # fmt: skip
    assert_one_line(r, path, "lone surrogate")


# ------------------------------------------------------------------ 2. sizes checked before allocating
def peak_mb(call) -> float:
    tracemalloc.start()
    try:
        call()
    except MapError:
        pass
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return peak / 2**20


@pytest.mark.parametrize(
    "doc",
    [
        tmj(tilesets=[{"firstgid": 1, "name": "t", "tilecount": 10**9, "tiles": GRASS}]),
        tmj(tilesets=[{"firstgid": 1, "name": "t", "tilecount": 2**28 - 1, "tiles": GRASS}]),
        tmj(tilesets=[{"firstgid": 1, "name": "t", "tiles": [dict(GRASS[0], id=2**28 - 1), *GRASS]}]),
        tmj(tilesets=[{"firstgid": 1, "name": "t", "tiles": [dict(GRASS[0], id=10**12)]}]),
    ],
)
def test_a_declared_tile_count_or_id_allocates_nothing(tmp_path, doc):
    path = tmp_path / "m.tmj"
    path.write_text(json.dumps(doc))
    assert peak_mb(lambda: load_map(path)) < 10


def test_a_declared_tile_count_in_xml_allocates_nothing_and_the_map_loads(tmp_path):
    path = tmp_path / "m.tmx"
    path.write_text(tmx(tileset=f'<tileset firstgid="1" name="t" tilecount="268435455">{TSX_GRASS}</tileset>'))
    assert peak_mb(lambda: load_map(path)) < 10
    assert load_map(path).terrain.tolist() == [[2, 2]]


def test_csv_data_is_counted_before_it_is_split(tmp_path):
    """A 2048² layer whose CSV holds one value too many (or far too many): refused from the
    commas' count, without a list of millions of strings (~1.26 GB)."""
    for extra in (1, 500_000):
        n = 2048 * 2048 + extra
        path = tmp_path / f"csv{extra}.tmx"
        data = "1," * (n - 1) + "1"
        path.write_text(tmx(f'<layer name="g" width="2048" height="2048"><data encoding="csv">{data}</data></layer>',
                            width="2048", height="2048"))  # fmt: skip
        message: list[str] = []
        peak = peak_mb(lambda p=path, n=n, m=message: m.append(refused(p, p.read_bytes(), f"data holds {n} tiles")))
        assert message and peak < 60, peak  # the file's own text is ~16 MB


def test_many_attributes_on_one_element_are_refused_before_they_are_built(tmp_path):
    attributes = " ".join(f'a{i}=""' for i in range(300_000))
    path = tmp_path / "attrs.tmx"
    path.write_text(tmx().replace("<map ", f"<map {attributes} "))
    assert peak_mb(lambda: refused(path, path.read_bytes(), "an XML tag longer than 65,536 characters")) < 40
    path.write_text(tmx().replace("<map ", "<map " + " ".join(f'a{i}=""' for i in range(100)) + " "))
    refused(path, path.read_bytes(), "<map> has more than 64 attributes")


def test_layers_are_bounded_in_total_not_only_one_by_one(tmp_path):
    """Many compressed 2048² layers, each one allowed alone: refused once their total passes
    the budget, before the next is decompressed (80 such layers once took 1.5 GB)."""
    import base64

    raw = base64.b64encode(zlib.compress(np.ones(2048 * 2048, "<u4").tobytes(), 9)).decode()
    data = f'<data encoding="base64" compression="zlib">{raw}</data>'
    layer = f'<layer name="g" width="2048" height="2048">{data}</layer>'
    path = tmp_path / "layers.tmx"
    path.write_text(tmx(layer * 12, width="2048", height="2048"))
    peak = peak_mb(lambda: refused(path, path.read_bytes(), "the map's tile layers hold more than 16,777,216 tiles"))
    assert peak < 120, peak
    path.write_text(tmx(layer * 2, width="2048", height="2048"))
    assert load_map(path).terrain.shape == (2048, 2048)  # a few full-size layers still load


# ------------------------------------------------------------------ 3. amplification
def opened(path: Path) -> list[str]:
    """The files Python opens while ``load_map(path)`` runs (an audit hook: no patching)."""
    seen: list[str] = []
    _OPENS.append(seen)
    try:
        load_map(path)
    except MapError:
        pass
    finally:
        _OPENS.remove(seen)
    return seen


_OPENS: list[list[str]] = []


def _audit(event: str, args: tuple) -> None:
    if event == "open" and _OPENS and isinstance(args[0], str | bytes | os.PathLike):
        _OPENS[-1].append(os.fsdecode(args[0]))


sys.addaudithook(_audit)


@pytest.mark.parametrize("suffix", [".tsx", ".tsj"])
def test_an_external_tileset_named_many_times_is_read_once(tmp_path, suffix):
    ts = tmp_path / f"big{suffix}"
    if suffix == ".tsx":
        ts.write_text(f'<tileset name="t" tilewidth="16" tileheight="16" tilecount="1">{TSX_GRASS}</tileset>')
    else:
        ts.write_text(json.dumps({"type": "tileset", "name": "t", "tilewidth": 16, "tileheight": 16, "tilecount": 1,
                                  "tiles": GRASS}))  # fmt: skip
    refs = [{"firstgid": 1 + 10 * i, "source": ts.name} for i in range(200)]
    path = tmp_path / "m.tmj"
    path.write_text(json.dumps(tmj(tilesets=refs)))
    assert load_map(path).terrain.tolist() == [[2, 2]]
    assert opened(path).count(str(ts)) == 1
    xml = tmp_path / "m.tmx"
    xml.write_text(tmx(tileset="".join(f'<tileset firstgid="{1 + 10 * i}" source="{ts.name}"/>' for i in range(200))))
    assert load_map(xml).terrain.tolist() == [[2, 2]]
    assert opened(xml).count(str(ts)) == 1


def test_too_many_tilesets_are_refused_before_any_is_read(tmp_path):
    ts = tmp_path / "t.tsj"
    ts.write_text(json.dumps({"type": "tileset", "name": "t", "tilewidth": 16, "tileheight": 16, "tilecount": 1}))
    path = tmp_path / "m.tmj"
    path.write_text(json.dumps(tmj(tilesets=[{"firstgid": 1 + i, "source": "t.tsj"} for i in range(300)])))
    refused(path, path.read_bytes(), "more than 256 tilesets")
    assert str(ts) not in opened(path)
    xml = tmp_path / "m.tmx"
    xml.write_text(tmx(tileset='<tileset firstgid="1" source="t.tsj"/>' * 300))
    refused(xml, xml.read_bytes(), "more than 256 tilesets")
    assert str(ts) not in opened(xml)


def test_a_missing_tileset_named_many_times_is_looked_for_once_and_named_once(tmp_path):
    path = tmp_path / "m.tmj"
    path.write_text(json.dumps(tmj(tilesets=[{"firstgid": 1 + i, "source": "gone.tsj"} for i in range(100)])))
    message = refused(path, path.read_bytes(), "tileset 'gone.tsj': file not found")
    assert message.count("gone.tsj") == 2  # the name as written, and where it was looked for


# ------------------------------------------------------------------ 4. convert never loses data
SRC = ROOT / "maps" / "island.yaml"


def run_convert(*args: str, limit: int | None = None) -> subprocess.CompletedProcess:
    """``main.py convert`` in a child process, optionally with a file-size limit (a "full disk")."""
    code = (
        "import resource, signal, sys, runpy\n"
        f"limit = {limit!r}\n"
        "if limit:\n"
        "    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
        "    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))\n"
        f"sys.argv = ['main.py', 'convert', *{list(args)!r}]\n"
        f"runpy.run_path({str(ROOT / 'main.py')!r}, run_name='__main__')\n"
    )
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=900)


@pytest.mark.parametrize("suffix", [".yaml", ".tmx", ".tmj", ".map"])
def test_a_full_disk_leaves_the_old_file_byte_for_byte_and_nothing_else(tmp_path, suffix):
    dst = tmp_path / f"mine{suffix}"
    old = b"my own map, written by hand\n" * 3
    dst.write_bytes(old)
    before = sorted(os.listdir(tmp_path))
    r = run_convert(str(SRC), str(dst), "--force", limit=8192)
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert r.stderr.count("\n") == 1 and "nothing was changed" in r.stderr, r.stderr
    assert dst.read_bytes() == old
    assert sorted(os.listdir(tmp_path)) == before  # no temporary file, no tileset image left behind


def test_the_map_and_its_tileset_image_are_written_as_one_unit(tmp_path):
    dst = tmp_path / "m.tmx"
    image = tmp_path / "m-tiles.png"
    dst.write_bytes(b"old map")
    image.write_bytes(b"old image")
    r = run_convert(str(SRC), str(dst), "--force", limit=4096)  # the image fits, the map does not
    assert r.returncode == 2, r.stderr
    assert (dst.read_bytes(), image.read_bytes()) == (b"old map", b"old image")
    assert sorted(os.listdir(tmp_path)) == ["m-tiles.png", "m.tmx"]
    r = run_convert(str(SRC), str(dst), "--force")
    assert r.returncode == 0, r.stderr
    assert (load_map(dst).terrain == load_map(SRC).terrain).all() and image.read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize("force", [False, True])
def test_a_fifo_where_the_image_or_the_map_goes_is_refused_not_waited_on(tmp_path, force):
    for target, fifo in (("a.tmx", "a-tiles.png"), ("b.tmj", "b.tmj")):
        os.mkfifo(tmp_path / fifo)
        args = [str(SRC), str(tmp_path / target)] + (["--force"] if force else [])
        r = run_convert(*args)
        assert r.returncode == 2 and "is a FIFO, device or socket, not a regular file" in r.stderr, r.stderr


def test_an_existing_huge_image_is_compared_by_size_not_read(tmp_path):
    image = tmp_path / "m-tiles.png"
    with open(image, "wb") as fh:
        fh.truncate(1536 * 2**20)  # a 1.5 GB sparse file
    r = run_convert(str(SRC), str(tmp_path / "m.tmx"))
    assert r.returncode == 2 and "m-tiles.png: already exists; add --force" in r.stderr, r.stderr
    assert image.stat().st_size == 1536 * 2**20


def test_an_identical_image_is_no_loss(tmp_path):
    assert run_convert(str(SRC), str(tmp_path / "m.tmx")).returncode == 0
    r = run_convert(str(SRC), str(tmp_path / "m.tmj"))
    assert r.returncode == 0, r.stderr  # t.tmx and t.tmj share t-tiles.png


# ------------------------------------------------------------------ 5. what convert writes loads back
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    name=st.text(max_size=20),
    description=st.text(max_size=40),
    seed=st.integers(0, 2**32 - 1),
    suffix=st.sampled_from([".yaml", ".tmx", ".tmj"]),
)
def test_whatever_convert_writes_loads_back_equal_or_nothing_is_written(name, description, seed, suffix):
    terrain = np.random.default_rng(seed).integers(0, 7, (5, 7), dtype=np.uint8)
    with tempfile.TemporaryDirectory() as tmp:
        dst = Path(tmp) / f"rt{suffix}"
        data = MapData(name, terrain, description)
        try:
            write_map(data, dst)
        except MapError as exc:
            assert str(exc).startswith(str(dst)) and "\n" not in str(exc)
            assert os.listdir(tmp) == []  # refused before anything was written
            return
        back = load_map(dst)
        assert (back.terrain == terrain).all()
        assert (back.name, back.description) == (name if name or suffix != ".yaml" else back.name, description)


@pytest.mark.parametrize("name", ["\ud800", "a\udfffb"])
@pytest.mark.parametrize("suffix", [".yaml", ".tmx", ".tmj"])
def test_a_surrogate_in_a_name_is_refused_before_writing(tmp_path, name, suffix):
    with pytest.raises(MapError, match="lone surrogate"):
        write_map(MapData(name, np.zeros((2, 2), np.uint8)), tmp_path / f"x{suffix}")
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("char", ["\x00", "\x01", "\x1b", "\x1f", "\ufffe"])
def test_control_characters_cannot_go_into_xml_and_say_so(tmp_path, char):
    with pytest.raises(MapError, match=rf"U\+{ord(char):04X}.*write \.tmj or \.yaml"):
        write_map(MapData(f"a{char}b", np.zeros((2, 2), np.uint8)), tmp_path / "x.tmx")
    for suffix in (".yaml", ".tmj"):
        write_map(MapData(f"a{char}b", np.zeros((2, 2), np.uint8), f"d{char}"), tmp_path / f"x{suffix}")
        assert (load_map(tmp_path / f"x{suffix}").name, load_map(tmp_path / f"x{suffix}").description) == (
            f"a{char}b",
            f"d{char}",
        )


def test_tabs_returns_and_newlines_survive_xml(tmp_path):
    for name, description in (("a\tb\rc", "one\r\ntwo\rthree\tfour"), ("x\ny", "\r")):
        write_map(MapData(name, np.zeros((2, 2), np.uint8), description), tmp_path / "x.tmx")
        back = load_map(tmp_path / "x.tmx")
        assert (back.name, back.description) == (name, description)


# ------------------------------------------------------------------ 6. short lines
def test_long_names_and_paths_are_quoted_short(tmp_path):
    long = "L" * 100_000
    cases = {
        "layer.tmj": json.dumps(tmj(layers=[{"type": "tilelayer", "name": long, "width": 3, "height": 1,
                                             "data": [1, 1, 1]}])),
        "tileset.tmj": json.dumps(tmj(tilesets=[{"firstgid": 1, "name": long, "tiles": []}])),
        "source.tmj": json.dumps(tmj(tilesets=[{"firstgid": 1, "source": "d/" * 20_000 + "x.tsj"}])),
        "layer.tmx": tmx(f'<layer name="{long}" width="3" height="1"><data encoding="csv">1,1,1</data></layer>'),
        "tileset.tmx": tmx(tileset=f'<tileset firstgid="1" name="{long[:60_000]}"/>'),
        "source.tmx": tmx(tileset=f'<tileset firstgid="1" source="{"d/" * 20_000}x.tsx"/>'),
    }  # fmt: skip
    for name, text in cases.items():
        path = tmp_path / name
        path.write_text(text)
        with pytest.raises(MapError) as info:
            load_map(path)
        message = str(info.value)
        head = message.split(": ")[0].split(":")[0]  # the file named first (a line may follow): whole, or
        whole = head == str(path)  # its folders cut in the middle
        assert whole or (head.startswith(str(path)[:30]) and head.endswith(f"/{name}") and "…" in head), message
        assert len(message) <= 292, (name, len(message))


def test_every_input_error_is_bounded_in_one_place():
    assert len(str(MapError("x" * 10**6 + " the reason"))) == 292
    assert str(MapError("x" * 10**6 + " the reason")).endswith("the reason")
    assert len(str(ConfigError("y" * 10**5))) == 292


# ------------------------------------------------------------------ 7. no content from a file that is not a tileset
@pytest.mark.parametrize("content", [
    {"name": "SECRET-TOKEN-123", "password": "hunter2"},
    {"name": "SECRET-TOKEN-123", "type": "tileset"},
    {"type": "SECRET-TOKEN-123"},
    ["SECRET-TOKEN-123"],
])  # fmt: skip
def test_a_json_file_outside_the_maps_folder_is_never_echoed(tmp_path, content):
    (tmp_path / "private").mkdir()
    (tmp_path / "private" / "data.json").write_text(json.dumps(content))
    (tmp_path / "maps").mkdir()
    path = tmp_path / "maps" / "m.tmj"
    path.write_text(json.dumps(tmj(tilesets=[{"firstgid": 1, "source": "../private/data.json"}])))
    with pytest.raises(MapError) as info:
        load_map(path)
    assert "SECRET" not in str(info.value) and "hunter2" not in str(info.value)
    assert "not a Tiled tileset" in str(info.value) or "expected a JSON object" in str(info.value)
    assert str(info.value).startswith(str(path)) and "/private/data.json" in str(info.value)


def test_an_xml_file_that_is_not_a_tileset_is_never_echoed(tmp_path):
    (tmp_path / "t.tsx").write_text("<SECRET-TOKEN-123/>")
    path = tmp_path / "m.tmx"
    path.write_text(tmx(tileset='<tileset firstgid="1" source="t.tsx"/>'))
    with pytest.raises(MapError) as info:
        load_map(path)
    assert "SECRET" not in str(info.value) and "not a Tiled tileset" in str(info.value)
    # the map the user opened comes first, then the tileset it names, with the tileset's own line
    assert str(info.value).startswith(f"{path}:") and "tileset /" in str(info.value)
    assert "t.tsx:1: not a Tiled tileset" in str(info.value)


# ------------------------------------------------------------------ 8. firstgid 0
@pytest.mark.parametrize("firstgid", [0, -1])
def test_firstgid_below_1_is_refused_in_both_formats(tmp_path, firstgid):
    ts = [{"firstgid": firstgid, "name": "t", "tilecount": 2, "tiles": [dict(GRASS[0], id=1)]}]
    refused(tmp_path / "m.tmj", json.dumps(tmj(tilesets=ts)), "tilesets[0].firstgid: must be at least 1")
    refused(
        tmp_path / "m.tmx",
        tmx(tileset=f'<tileset firstgid="{firstgid}" name="t">{TSX_GRASS}</tileset>'),
        "<tileset> 'firstgid' must be at least 1",
    )


# ------------------------------------------------------------------ 9. the scripting API
@pytest.fixture(scope="module")
def sim():
    from sim.simulation import Simulation

    s = Simulation(load_config(ROOT / "config.yaml"), load_map(ROOT / "maps" / "tutorial.yaml"),
                   counts={"cow": 5, "bird": 5, "water": 5})  # fmt: skip
    s.step(1 / 60)
    return s


def test_the_scripting_api_bounds_every_integer_and_keeps_time_finite(sim):
    before = (sim.time, sim.checksum())
    cases = [
        (lambda: sim.paint(10**20, 5, 1, "rock"), ValueError, "cx must be <= 1000000000, got 100000000000000000000"),
        (lambda: sim.paint(5, -(10**20), 1, "rock"), ValueError,
         "cy must be >= -1000000000, got -100000000000000000000"),
        (lambda: sim.paint(5, 5, 2**70, "rock"), ValueError,
         "radius must be <= 1000000000, got 1180591620717411303424"),
        (lambda: sim.step(1e308), ValueError, "dt must be <= 3600, got 1e+308"),
        (lambda: sim.step(10**400), ValueError, f"dt must be a finite number >= 0, got {str(10**400)[:79]}…"),
        (lambda: sim.advance(1 / 60, 10**18), ValueError, "steps must be <= 100000, got 1000000000000000000"),
        (lambda: sim.advance(1e308, 2), ValueError, "dt must be <= 3600, got 1e+308"),
        (lambda: sim.call_herd("cow", (10**20, 0)), ValueError,
         "goal x must be <= 1000000000, got 100000000000000000000"),
        (lambda: sim.remove_animals(1.5), TypeError, "total must be a whole number, got 1.5"),
    ]  # fmt: skip
    for call, exc, message in cases:
        raises_exactly(call, exc, message)
    assert (sim.time, sim.checksum()) == before
    for _ in range(3):
        sim.step(3600.0)  # the largest step, three times: time stays finite
    assert math.isfinite(sim.time)
    # The largest radius is capped at the map's diagonal (docs/scripting.md): from the farthest
    # centre it paints nothing; from the map's corner, the whole map, at once.
    assert sim.paint(-(10**9), 5, 10**9, "rock") is None
    assert sim.paint(0, 0, 10**9, "rock") == (0, 0, sim.world.width, sim.world.height)
    assert (sim.world.terrain == T.ROCK).all()


def test_the_engine_bounds_counts_threads_and_costs():
    g = PathGrid(np.ones((4, 5)))
    one = np.zeros((1, 2), int)
    cases = [
        (lambda: g.search((0, 0), (3, 3), max_nodes=2**70), ValueError,
         "max_nodes must be <= 4611686018427387904, got 1180591620717411303424"),
        (lambda: g.search_many(one, one, node_budget=2**70), ValueError,
         "node_budget must be <= 4611686018427387904, got 1180591620717411303424"),
        (lambda: g.search_many(one, one, threads=10**9), ValueError,
         "threads must be a whole number from 1 to 256 or None, got 1000000000"),
        (lambda: g.search_many(one, one, threads=10**6), ValueError,
         "threads must be a whole number from 1 to 256 or None, got 1000000"),
        (lambda: set_threads(10**9), ValueError,
         "threads must be a whole number from 0 to 256 (0: every core), got 1000000000"),
    ]  # fmt: skip
    for call, exc, message in cases:
        raises_exactly(call, exc, message)
    assert g.search((0, 0), (3, 3), max_nodes=2**62).found
    assert math.isinf(g.distance_field((0, 0), max_cost=10**400).max()) is False  # a huge int: no limit
    assert g.distance_field((0, 0), max_cost=10**400)[3, 4] == g.distance_field((0, 0))[3, 4]


# ------------------------------------------------------------------ a short fuzz of the Tiled readers
@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(files=tiled_files())
def test_random_hostile_tiled_documents_load_or_are_one_short_line(files):
    with tempfile.TemporaryDirectory() as tmp:
        check_files(Path(tmp), files)


def test_convert_reads_and_writes_all_three_formats_through_the_function(tmp_path):
    out = convert(SRC, tmp_path / "i.tmj")
    assert [p.name for p in out] == ["i.tmj", "i-tiles.png"]
    back = convert(tmp_path / "i.tmj", tmp_path / "i.yaml")
    assert back == [tmp_path / "i.yaml"] and (load_map(tmp_path / "i.yaml").terrain == load_map(SRC).terrain).all()


def test_a_json_file_of_millions_of_keys_is_refused_before_it_is_parsed(tmp_path):
    path = tmp_path / "keys.tmj"
    path.write_text("{" + ",".join(f'"k{i}":0' for i in range(1_100_000)) + "}")
    assert peak_mb(lambda: refused(path, path.read_bytes(), "more than 1,000,000 keys")) < 60


def test_saving_keeps_the_description_and_a_full_disk_leaves_no_half_file(tmp_path):
    from sim.maps import save_map

    terrain = load_map(SRC).terrain
    path = save_map("Mine", terrain, None, tmp_path, description="a bay\nwith two lines")
    assert (load_map(path).name, load_map(path).description) == ("Mine (edited)", "a bay\nwith two lines")
    code = (
        "import resource, signal, sys\n"
        "from pathlib import Path\n"
        f"sys.path.insert(0, {str(ROOT)!r})\n"
        "from sim.maps import load_map, save_map, MapError\n"
        f"t = load_map({str(SRC)!r}).terrain\n"
        "signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
        "resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))\n"
        "try:\n"
        f"    save_map('Full', t, None, Path({str(tmp_path / 'full')!r}))\n"
        "except MapError as e:\n"
        "    print(e)\n"
    )
    (tmp_path / "full").mkdir()
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=900)
    assert "cannot write" in r.stdout and "nothing was saved" in r.stdout, r.stdout + r.stderr
    assert os.listdir(tmp_path / "full") == []
