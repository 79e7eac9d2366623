"""Tiled maps: real files Tiled wrote read right (checked against pytiled-parser, an independent
reader), exports open in that reader and load back identically, hostile files are one line."""

from __future__ import annotations

import base64
import json
import re
import shutil
import xml.etree.ElementTree as ET
import zlib
from pathlib import Path

import numpy as np
import pytest
import pytiled_parser
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sim.maps import MapError, list_maps, load_map, resolve_map, write_map
from sim.maps.tiled import write_tiled
from sim.maps.tiled.model import MAX_CHUNKS
from sim.world.geometry import CellRect
from sim.world.terrain import Terrain
from tests.conftest import ROOT
from tests.helpers import assert_file_refused

DATA = ROOT / "tests" / "data" / "tiled"
NAMES = [t.label for t in Terrain]
MASK = 0x0FFFFFFF


@pytest.fixture
def tiled(tmp_path) -> Path:
    """A writable copy of the Tiled test files."""
    shutil.copytree(DATA, tmp_path / "tiled")
    return tmp_path / "tiled"


def give_terrains(tileset: Path, pick, how: str = "property") -> None:
    """Tag tiles of a .tsx/.json tileset: ``pick(local_id)`` is a terrain name or None.
    ``how``: a custom property 'terrain', or the tile's ``class`` / ``type``."""
    if tileset.suffix == ".tsx":
        root = ET.parse(tileset).getroot()
        count = int(root.get("tilecount"))
        tiles = {int(t.get("id")): t for t in root.findall("tile")}
        for local in range(count):
            name = pick(local)
            if name is None:
                continue
            tile = tiles.get(local)
            if tile is None:
                tile = tiles[local] = ET.SubElement(root, "tile", id=str(local))
            if how == "property":
                props = tile.find("properties")
                if props is None:
                    props = ET.Element("properties")
                    tile.insert(0, props)
                ET.SubElement(props, "property", name="terrain", value=name)
            else:
                tile.attrib.pop("class", None)  # Tiled writes one of the two
                tile.set(how, name)
        ET.ElementTree(root).write(tileset, encoding="UTF-8", xml_declaration=True)
    else:
        data = json.loads(tileset.read_text())
        tiles = {t["id"]: t for t in data.get("tiles", [])}
        for local in range(data["tilecount"]):
            name = pick(local)
            if name is None:
                continue
            tile = tiles.setdefault(local, {"id": local})
            if how == "property":
                tile.setdefault("properties", []).append({"name": "terrain", "type": "string", "value": name})
            else:
                tile.pop("class", None)
                tile[how] = name
        data["tiles"] = sorted(tiles.values(), key=lambda t: t["id"])
        tileset.write_text(json.dumps(data))


def reference_layers(path: Path) -> list[tuple[str, np.ndarray, bool]]:
    """(name, gids [y, x] without flags, visible) of every tile layer, bottom first, by pytiled-parser."""
    out = []

    def walk(layers, shown):
        for layer in layers:
            visible = shown and layer.visible
            if isinstance(layer, pytiled_parser.TileLayer):
                out.append((layer.name, np.array(layer.data, dtype=np.int64) & MASK, visible))
            elif isinstance(layer, pytiled_parser.LayerGroup):
                walk(layer.layers or [], visible)

    walk(pytiled_parser.parse_map(path).layers, True)
    return out


def expected_terrain(path: Path, terrain_of_gid) -> np.ndarray:
    """The topmost visible layer's terrain per cell, from the reference reader's gids."""
    layers = [g for _name, g, visible in reference_layers(path) if visible]
    out = np.full(layers[0].shape, 255, dtype=np.int64)
    for gids in layers:
        t = np.vectorize(terrain_of_gid, otypes=[np.int64])(gids)
        out = np.where(t != 255, t, out)
    return out


def by_id(local: int) -> str:
    return NAMES[local % len(NAMES)]


# ------------------------------------------------------------------ real files Tiled wrote
LAYER_FORMATS = ["all_layer_types/map", "b64/map", "b64_zlib/map", "b64_gzip/map"]


@pytest.mark.parametrize("suffix", [".tmx", ".json"])
@pytest.mark.parametrize("name", LAYER_FORMATS)
def test_every_layer_encoding_reads_like_the_reference(tiled, name, suffix):
    for ts in ("tileset.tsx", "tileset.json"):
        give_terrains(tiled / "pytiled" / "layer_tests" / "all_layer_types" / ts, by_id)
    path = tiled / "pytiled" / "layer_tests" / (name + suffix)
    m = load_map(path)
    expected = expected_terrain(path, lambda g: (g - 1) % 7 if g else 255)
    assert (m.terrain == expected).all()
    assert m.kind == "tiled" and m.terrain.shape == (6, 8) and m.name == "map"


def test_zstd_layers_read_or_say_clearly_why_not(tiled):
    give_terrains(tiled / "pytiled" / "layer_tests" / "all_layer_types" / "tileset.json", by_id)
    for path in (tiled / "pytiled" / "layer_tests" / "b64_zstd").glob("map.*"):
        try:
            import zstandard  # noqa: F401
        except ImportError:
            try:
                from compression import zstd  # noqa: F401
            except ImportError:
                with pytest.raises(MapError) as info:
                    load_map(path)
                msg = str(info.value)
                assert "zstd-compressed layer data cannot be read here" in msg and "Base64 (zlib)" in msg
                assert "\n" not in msg and msg.startswith(str(path))
                continue
        assert (load_map(path).terrain == np.arange(48).reshape(6, 8) % 7).all()


def test_a_real_map_without_terrains_names_the_first_cell_its_tile_and_the_fix():
    path = DATA / "tiled-examples" / "desert.tmx"
    (name, gids, _), *_ = reference_layers(path)
    with pytest.raises(MapError) as info:
        load_map(path)
    assert str(info.value) == (
        f"{path}: cell (0, 0) (and 1599 more cells): tile {gids[0, 0] - 1} of tileset 'Desert' (desert.tsx) "
        f"(layer '{name}') has no terrain; give it a property 'terrain' "
        "(water, sand, grass, forest, swamp, mountain, rock) in Tiled"
    )


def rpg_terrains(tiled: Path) -> tuple[Path, dict[int, int]]:
    """The RPG example with terrains on every Ground tile and on even-numbered other tiles."""
    path = tiled / "tiled-examples" / "rpg" / "island.tmx"
    layers = reference_layers(path)
    ground = {int(g) - 1 for g in np.unique(layers[0][1]) if g}
    terrain = {k: k % 7 for k in range(936) if k in ground or k % 2 == 0}
    give_terrains(path.with_name("beach_tileset.tsx"), lambda k: NAMES[terrain[k]] if k in terrain else None)
    return path, terrain


def test_topmost_visible_layer_with_a_terrain_wins_on_a_real_three_layer_map(tiled):
    path, terrain = rpg_terrains(tiled)
    expected = expected_terrain(path, lambda g: terrain.get(g - 1, 255) if g else 255)
    m = load_map(path)
    assert (m.terrain == expected).all()
    layers = reference_layers(path)
    ground = np.vectorize(lambda g: terrain[g - 1])(layers[0][1])
    assert (m.terrain != ground).any()  # the upper layers really cover some cells


def test_hidden_layers_and_hidden_groups_do_not_count(tiled):
    path, terrain = rpg_terrains(tiled)
    text = path.read_text()
    hidden = text.replace('<layer id="3" name="Over"', '<layer id="3" name="Over" visible="0"')
    path.write_text(hidden)
    expected = expected_terrain(path, lambda g: terrain.get(g - 1, 255) if g else 255)
    assert (load_map(path).terrain == expected).all()
    grouped = text.replace(
        '<layer id="2" name="Fringe"', '<group id="9" name="decor" visible="0">\n <layer id="2" name="Fringe"'
    )
    grouped = grouped.replace("</layer>\n <objectgroup", "</layer>\n </group>\n <objectgroup")
    path.write_text(grouped)
    ground = np.vectorize(lambda g: terrain[g - 1])(reference_layers(path)[0][1])
    assert (load_map(path).terrain == ground).all()  # the group hides both layers inside it


@pytest.mark.parametrize("how", ["class", "type"])
def test_a_tiles_class_names_its_terrain_when_it_has_no_property(tiled, how):
    ts = tiled / "pytiled" / "map_tests" / "external_tileset_dif_dir" / "tileset" / "tileset.tsx"
    path = ts.parent.parent / "map.tmx"  # a real map whose tiles have the class "tile": no terrain
    with pytest.raises(
        MapError, match=r"cell \(0, 0\) .*: tile \d of tileset 'tileset' \(tileset.tsx\) \(layer 'Layer 1'\) has no"
    ):
        load_map(path)
    give_terrains(ts, lambda k: ["Water", "grass", "rock", "sand"][k], how)
    with pytest.raises(MapError, match=r"cell \(4, 0\) \(and 43 more cells\): no visible tile layer has a tile here"):
        load_map(path)  # its first four cells now have terrains; the rest of this map is empty
    for ts in ("tileset.tsx", "tileset.json"):
        give_terrains(tiled / "pytiled" / "layer_tests" / "all_layer_types" / ts, by_id, how)
    for path in (tiled / "pytiled" / "layer_tests" / "b64").glob("map.*"):
        assert (load_map(path).terrain == np.arange(48).reshape(6, 8) % 7).all()


def test_json_written_before_tiled_1_2_keeps_tile_data_in_objects_keyed_by_id(tmp_path):
    # Tiled up to 1.1 wrote "tileproperties"/"tilepropertytypes" and "tiles" as objects keyed
    # by the tile id (as in a Tiled 1.1.6 file: {"0": {"isStable": false, "name": "air"}, ...}).
    doc = {
        "type": "map", "version": 1, "tiledversion": "1.1.6", "orientation": "orthogonal", "renderorder": "right-down",
        "infinite": False, "width": 3, "height": 2, "tilewidth": 32, "tileheight": 32, "nextobjectid": 1,
        "layers": [{"type": "tilelayer", "name": "level", "data": [1, 2, 3, 3, 2, 1], "width": 3, "height": 2,
                    "opacity": 1, "visible": True, "x": 0, "y": 0}],
        "tilesets": [{
            "firstgid": 1, "name": "js13k", "columns": 3, "tilecount": 3, "tilewidth": 32, "tileheight": 32,
            "image": "tiles.png", "imagewidth": 96, "imageheight": 32, "margin": 0, "spacing": 0,
            "tileproperties": {"0": {"terrain": "water", "isStable": False}, "1": {"terrain": "grass"}},
            "tilepropertytypes": {"0": {"terrain": "string", "isStable": "bool"}, "1": {"terrain": "string"}},
            "tiles": {"2": {"type": "sand"}},
        }],
    }  # fmt: skip
    path = tmp_path / "old.json"
    path.write_text(json.dumps(doc))
    w, g, s = Terrain.WATER, Terrain.GRASS, Terrain.SAND
    assert load_map(path).terrain.tolist() == [[w, g, s], [s, g, w]]
    doc["tilesets"][0]["tileproperties"]["x1"] = {"terrain": "rock"}
    path.write_text(json.dumps(doc))
    with pytest.raises(MapError) as info:
        load_map(path)
    assert str(info.value) == f"{path}: tilesets[0].tileproperties.'x1': expected a whole number, got 'x1'"


def test_a_terrain_property_that_names_no_terrain_is_an_error_with_a_hint(tiled):
    ts = tiled / "pytiled" / "map_tests" / "external_tileset_dif_dir" / "tileset" / "tileset.json"
    give_terrains(ts, lambda k: "gras")
    with pytest.raises(MapError) as info:
        load_map(ts.parent.parent / "map.json")
    message = str(info.value)  # the map the user opened first (its folders cut short if long), then the tileset
    assert message.split(": ")[0].endswith("external_tileset_dif_dir/map.json") and len(message) <= 292, message
    assert message.endswith(
        "tileset/tileset.json: tiles[0]: tile 0 of tileset 'tileset' (tileset.json): property 'terrain' is 'gras', "
        "not a terrain (did you mean 'grass'?)"
    )


def test_a_json_map_may_use_an_xml_tileset_and_an_empty_map_says_so(tiled):
    path = tiled / "pytiled" / "map_tests" / "cross_format_tileset" / "map.json"
    give_terrains(path.with_name("tileset.tsx"), by_id)
    with pytest.raises(MapError, match="cell \\(0, 0\\) \\(and 47 more cells\\): the map has no visible tile layer"):
        load_map(path)


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("pytiled/map_tests/hexagonal/map.tmx", ":2: hexagonal maps are not supported, only orthogonal ones"),
        ("pytiled/map_tests/hexagonal/map.json", ": hexagonal maps are not supported, only orthogonal ones"),
        ("tiled-examples/isometric_grass_and_water.tmx", ":2: isometric maps are not supported, only orthogonal ones"),
        ("tiled-examples/hexagonal-mini.tmx", ":2: hexagonal maps are not supported, only orthogonal ones"),
        ("tiled-examples/rpg/beach_tileset.tsx", ":2: a tileset (.tsx), not a map: open a map that uses it"),
    ],
)  # fmt: skip
def test_maps_this_project_cannot_use_get_one_exact_line(name, message):
    path = DATA / name
    with pytest.raises(MapError) as info:
        load_map(path)
    assert str(info.value).startswith(f"{path}{message}")
    assert "\n" not in str(info.value)


# ------------------------------------------------------------------ exports
@pytest.mark.parametrize("suffix", [".tmx", ".tmj", ".json"])
@pytest.mark.parametrize("shipped", ["tutorial.yaml", "fortress.yaml", "river.yaml"])
def test_an_export_opens_in_another_reader_and_loads_back_identically(tmp_path, shipped, suffix):
    m = load_map(ROOT / "maps" / shipped)
    path = tmp_path / f"out{suffix}"
    written = write_tiled(path, m.name, m.terrain, m.description, m.spawn, m.animals)
    assert written == [path, tmp_path / "out-tiles.png"]
    ref = pytiled_parser.parse_map(path)
    (tileset,) = ref.tilesets.values()
    assert {k: t.properties["terrain"] for k, t in tileset.tiles.items()} == dict(enumerate(NAMES))
    assert {k: t.class_ for k, t in tileset.tiles.items()} == dict(enumerate(NAMES))
    assert (np.array(ref.layers[0].data) == m.terrain.astype(np.int64) + 1).all()
    assert ref.properties["name"] == m.name and ref.properties.get("description", "") == m.description
    assert tileset.image.name == "out-tiles.png" and (tileset.image_width, tileset.image_height) == (112, 16)
    back = load_map(path)
    assert (back.terrain == m.terrain).all() and back.terrain.dtype == np.uint8
    assert (back.name, back.description, back.spawn, back.animals) == (m.name, m.description, m.spawn, m.animals)


def test_the_tileset_image_shows_the_terrain_colours(tmp_path):
    import pygame

    m = load_map(ROOT / "maps" / "tutorial.yaml")
    colours = {t: (10 * int(t), 200, 255 - int(t)) for t in Terrain}
    write_tiled(tmp_path / "m.tmx", m.name, m.terrain, colours=colours)
    image = pygame.image.load(str(tmp_path / "m-tiles.png"))
    assert image.get_size() == (16 * len(Terrain), 16)
    for t in Terrain:
        assert tuple(image.get_at((16 * int(t) + 8, 8)))[:3] == colours[t]


spawn_rects = st.builds(
    lambda x, y, w, h: CellRect.from_xywh(x, y, w, h),
    st.integers(0, 9), st.integers(0, 7), st.integers(1, 3), st.integers(1, 3),
)  # fmt: skip


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    terrain=st.integers(1, 2**31).map(lambda s: np.random.default_rng(s).integers(0, 7, (11, 13), dtype=np.uint8)),
    name=st.text(min_size=1, max_size=30).filter(lambda s: s.strip() == s and "\r" not in s),
    description=st.text(max_size=60).filter(lambda s: "\r" not in s),
    spawn=st.dictionaries(st.sampled_from(["cow", "bird", "water"]), st.lists(spawn_rects, min_size=1, max_size=3)),
    counts=st.none() | st.tuples(*[st.integers(0, 100_000)] * 3),
    suffix=st.sampled_from([".tmx", ".tmj"]),
)
def test_any_map_round_trips_exactly_through_tiled(tmp_path, terrain, name, description, spawn, counts, suffix):
    name = "".join(c for c in name if c.isprintable()) or "m"
    description = "".join(c for c in description if c.isprintable() or c == "\n")
    animals = dict(zip(("cow", "bird", "water"), counts, strict=True)) if counts else None
    path = tmp_path / f"rt{suffix}"
    write_tiled(path, name, terrain, description, spawn, animals)
    back = load_map(path)
    assert (back.terrain == terrain).all()
    assert (back.name, back.description, back.spawn, back.animals) == (name, description, spawn, animals)


# ------------------------------------------------------------------ hostile files
def tmx(layer_data: str, encoding: str = 'encoding="csv"', width: int = 2, height: int = 1, head: str = "") -> str:
    return (
        f'<?xml version="1.0" encoding="UTF-8"?>\n{head}'
        f'<map version="1.10" orientation="orthogonal" width="{width}" height="{height}" tilewidth="16" tileheight="16" infinite="0">\n'  # noqa: E501
        ' <tileset firstgid="1" name="t" tilewidth="16" tileheight="16" tilecount="2" columns="2">\n'
        '  <tile id="0" type="water"/>\n  <tile id="1"><properties><property name="terrain" value="rock"/></properties></tile>\n'  # noqa: E501
        " </tileset>\n"
        f' <layer id="1" name="L" width="{width}" height="{height}">\n  <data {encoding}>{layer_data}</data>\n </layer>\n</map>\n'  # noqa: E501
    )  # fmt: skip


def b64(values, compress=None) -> str:
    raw = np.array(values, dtype="<u4").tobytes()
    return base64.b64encode(compress(raw) if compress else raw).decode()


BOMB = '<!DOCTYPE map [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>\n'

HOSTILE = {
    "laughs.tmx": (tmx("&b;", head=BOMB), ":2: XML document type declarations (DOCTYPE, ENTITY) are not accepted"),
    "external.tmx": (tmx("1,2", head='<!DOCTYPE map SYSTEM "file:///etc/passwd">\n'), ":2: XML document type declarations"),  # noqa: E501
    "zip_bomb.tmx": (
        tmx(base64.b64encode(zlib.compress(bytes(50_000_000), 9)).decode(), 'encoding="base64" compression="zlib"'),
        ":8: layer 'L': zlib data unpacks to more than the layer's 2 tiles",
    ),
    "bad_b64.tmx": (tmx("!!!!", 'encoding="base64"'), ":8: layer 'L': base64 data is not valid base64"),
    "short.tmx": (tmx(b64([1]), 'encoding="base64"'), ":8: layer 'L': data holds 1 tiles, the layer has 2x1 = 2"),
    "damaged.tmx": (tmx(base64.b64encode(b"xx").decode(), 'encoding="base64" compression="gzip"'), ":8: layer 'L': gzip data is damaged"),  # noqa: E501
    "brotli.tmx": (tmx(b64([1, 2]), 'encoding="base64" compression="brotli"'), "layer 'L': unknown compression 'brotli'"),  # noqa: E501
    "csv_text.tmx": (tmx("1,two"), ":8: layer 'L': CSV data holds 'two', which is not a tile gid"),
    "csv_long.tmx": (tmx("1,2,1"), "layer 'L': data holds 3 tiles, the layer has 2x1 = 2"),
    "no_tileset.tmx": (tmx("1,9"), "cell (1, 0): tile 8 of tileset 't' (no_tileset.tmx:3) (layer 'L') has no terrain"),
    "empty_cell.tmx": (tmx("0,1"), "cell (0, 0): no visible tile layer has a tile here"),
    "not_xml.tmx": ("<map><layer></map>", ":1: not valid XML: mismatched tag"),
    "huge.tmx": (tmx("1,1", width=100_000), ":2: map is 100000x1, larger than the limit 2048x2048"),
    "width_text.tmx": (tmx("1,1").replace('width="2"', 'width="two"', 1), ":2: <map> 'width' must be a whole number, got 'two'"),  # noqa: E501
    "missing_tsx.tmx": (
        tmx("1,1").replace('<tileset firstgid="1" name="t"', '<tileset firstgid="1" source="gone.tsx"/>\n <tileset firstgid="9" name="t"'),  # noqa: E501
        ":3: tileset 'gone.tsx': file not found (looked for ",
    ),
    "json_bad.tmj": ('{"type": "map", "width": 2,,}', ":1: not valid JSON: Expecting property name"),
    "json_width.tmj": ('{"type": "map", "orientation": "orthogonal", "width": true, "height": 1, "tilewidth": 16, "tileheight": 16}',  # noqa: E501
                       ": width: expected whole number, got True"),
    "json_data.tmj": (
        json.dumps({"type": "map", "orientation": "orthogonal", "width": 2, "height": 1, "tilewidth": 16, "tileheight": 16,  # noqa: E501
                    "tilesets": [], "layers": [{"type": "tilelayer", "name": "L", "width": 2, "height": 1, "data": [1, 1.5]}]}),  # noqa: E501
        ": layers[0].data: layer 'L': data must be a list of whole numbers (tile gids)",
    ),
    "json_tileset.json": ('{"type": "tileset", "name": "x"}', ": type: this is a Tiled tileset, not a map: open a map that uses it"),  # noqa: E501
    "json_deep.tmj": ("[" * 100_000 + "]" * 100_000, ""),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_tiled_files_are_one_line_and_exit_2(tmp_path, name):
    assert_file_refused("--map", tmp_path / name, *HOSTILE[name])


def test_flip_flags_in_gids_are_ignored(tmp_path):
    path = tmp_path / "flips.tmx"
    flipped = [1 | 0x80000000, 2 | 0x40000000 | 0x20000000, 1 | 0x10000000, 2]
    path.write_text(tmx(b64(flipped, zlib.compress), 'encoding="base64" compression="zlib"', width=4))
    assert load_map(path).terrain.tolist() == [[Terrain.WATER, Terrain.ROCK, Terrain.WATER, Terrain.ROCK]]


@pytest.mark.parametrize("declared", ["UTF88", "ISO-8859-1", "UTF-16", "ascii"])
def test_a_declared_encoding_other_than_utf8_is_read_as_the_utf8_the_file_holds(tmp_path, declared):
    # Found by a byte-flipping fuzz: expat looked the declared name up and an unknown one
    # ("UTF88") escaped as a LookupError traceback; Tiled writes UTF-8 and the file is read as such.
    path = tmp_path / "enc.tmx"
    text = tmx("1,2").replace('encoding="UTF-8"', f'encoding="{declared}"', 1).replace('name="L"', 'name="Lé"')
    path.write_text(text, encoding="utf-8")
    assert load_map(path).terrain.tolist() == [[Terrain.WATER, Terrain.ROCK]]


def test_old_style_xml_tile_elements_are_read(tmp_path):
    path = tmp_path / "old.tmx"
    path.write_text(tmx('<tile gid="2"/><tile gid="1"/>', ""))
    assert load_map(path).terrain.tolist() == [[Terrain.ROCK, Terrain.WATER]]


def test_spawn_objects_with_an_unknown_species_name_the_line(tmp_path):
    obj = '<object id="1" type="cows" x="0" y="0" width="16" height="16"/>'
    text = tmx("1,2").replace("</map>", f' <objectgroup id="2" name="Spawn">\n  {obj}\n </objectgroup>\n</map>')
    (tmp_path / "s.tmx").write_text(text)
    with pytest.raises(MapError, match=r"s\.tmx:11: unknown species 'cows' in 'spawn' \(did you mean 'cow'\?\)"):
        load_map(tmp_path / "s.tmx")


# ------------------------------------------------------------------ infinite maps
INFINITE = ["infinite_map/map.tmx", "infinite_map/map.json", "infinite_map_b64/map.tmx", "infinite_map_b64/map.json"]


def reference_infinite(path: Path) -> np.ndarray:
    """The gids [y, x] of an infinite map's one tile layer by pytiled-parser, cut to the smallest
    rectangle that holds every tile (the chunks laid by this test, not by the reader under test)."""
    (layer,) = pytiled_parser.parse_map(path).layers
    cells = {}
    for chunk in layer.chunks:
        for dy, row in enumerate(chunk.data):
            for dx, gid in enumerate(row):
                if gid & MASK:
                    cells[(chunk.coordinates.x + dx, chunk.coordinates.y + dy)] = gid & MASK
    xs, ys = [x for x, _ in cells], [y for _, y in cells]
    out = np.zeros((max(ys) - min(ys) + 1, max(xs) - min(xs) + 1), np.int64)
    for (x, y), gid in cells.items():
        out[y - min(ys), x - min(xs)] = gid
    return out


@pytest.mark.parametrize("name", INFINITE)
def test_infinite_maps_tiled_wrote_read_like_the_reference(tiled, name):
    for ts in ("tileset.tsx", "tileset.json"):
        give_terrains(tiled / "pytiled" / "layer_tests" / "all_layer_types" / ts, by_id)
    path = tiled / "pytiled" / "layer_tests" / name
    m = load_map(path)
    gids = reference_infinite(path)
    assert m.terrain.shape == gids.shape == (6, 8)  # the chunks are 8 rows; their last two are empty
    assert (m.terrain == (gids - 1) % 7).all()


def infinite_tmx(chunks: dict[tuple[int, int], list[list[int]]], encoding: str = "csv", objects: str = "") -> str:
    """An infinite .tmx map (tile 1 water, tile 2 rock) with ``chunks``: (x, y) -> rows of gids."""
    parts = []
    for (x, y), rows in chunks.items():
        flat = [g for row in rows for g in row]
        body = ",".join(map(str, flat)) if encoding == "csv" else b64(flat, zlib.compress)
        parts.append(f'   <chunk x="{x}" y="{y}" width="{len(rows[0])}" height="{len(rows)}">{body}</chunk>\n')
    attrs = 'encoding="csv"' if encoding == "csv" else 'encoding="base64" compression="zlib"'
    text = tmx("\n" + "".join(parts) + "  ", attrs, width=30, height=20).replace('infinite="0"', 'infinite="1"')
    return text.replace("</map>", f' <objectgroup id="2" name="spawn">\n{objects} </objectgroup>\n</map>')


# Two chunks left of and above Tiled's origin, one right of it; a rock (2) in a sea of water (1).
WATER_ROCK = {(-4, -2): [[1, 1, 1, 1], [1, 1, 2, 1]], (0, -2): [[1, 1, 0, 0], [2, 1, 0, 0]]}


@pytest.mark.parametrize("encoding", ["csv", "base64"])
def test_an_infinite_map_is_the_smallest_rectangle_with_every_tile_and_spawn_moves_with_it(tmp_path, encoding):
    # The spawn area is drawn in pixels from Tiled's origin: cells (-3, -2) and (-2, -2) there.
    obj = '  <object id="1" type="cow" x="-48" y="-32" width="32" height="16"/>\n'
    (tmp_path / "inf.tmx").write_text(infinite_tmx(WATER_ROCK, encoding, obj))
    m = load_map(tmp_path / "inf.tmx")
    w, r = Terrain.WATER, Terrain.ROCK
    assert m.terrain.tolist() == [[w, w, w, w, w, w], [w, w, r, w, r, w]]
    assert m.spawn["cow"] == [CellRect(1, 0, 3, 1)]  # x0, y0, x1, y1


def test_an_infinite_json_map_reads_like_the_same_tmx(tmp_path):
    (tmp_path / "inf.tmx").write_text(infinite_tmx(WATER_ROCK))
    tmx_map = load_map(tmp_path / "inf.tmx")
    doc = {
        "type": "map", "orientation": "orthogonal", "infinite": True, "width": 30, "height": 20,
        "tilewidth": 16, "tileheight": 16,
        "tilesets": [{"firstgid": 1, "name": "t", "tilewidth": 16, "tileheight": 16, "tilecount": 2,
                      "tiles": [{"id": 0, "type": "water"}, {"id": 1, "type": "rock"}]}],
        "layers": [{"type": "tilelayer", "name": "L", "width": 30, "height": 20, "startx": -4, "starty": -2,
                    "chunks": [{"x": x, "y": y, "width": len(rows[0]), "height": len(rows),
                                "data": [g for row in rows for g in row]} for (x, y), rows in WATER_ROCK.items()]}],
    }  # fmt: skip
    (tmp_path / "inf.tmj").write_text(json.dumps(doc))
    assert (load_map(tmp_path / "inf.tmj").terrain == tmx_map.terrain).all()


@pytest.mark.parametrize(
    ("chunks", "message"),
    [
        ({(0, 0): [[0, 0]]}, ":2: the infinite map has no tiles in its visible tile layers"),
        ({(-3000, 0): [[1]], (0, 0): [[1]]}, ":2: the infinite map's tiles span 3001x1 (from (-3000, 0) to (0, 0)), "
                                               "larger than the limit 2048x2048"),
        ({(-5, 7): [[1, 0, 1]]}, ": cell (1, 0) ((-4, 7) in Tiled): no visible tile layer has a tile here"),
        ({(1 << 31, 0): [[1]]}, ":9: <chunk> 'x' must be at most 1073741824, got 2147483648"),
    ],
)  # fmt: skip
def test_infinite_maps_that_cannot_be_used_get_one_line(tmp_path, chunks, message):
    path = tmp_path / "inf.tmx"
    path.write_text(infinite_tmx(chunks))
    with pytest.raises(MapError) as info:
        load_map(path)
    assert str(info.value).startswith(f"{path}{message}")
    assert "\n" not in str(info.value)


@pytest.mark.parametrize(("flag", "error"), [(True, None), (1, None), (False, "not infinite"), (0, "not infinite"),
                                             ("yes", "infinite: expected true or false, got 'yes'"),
                                             (2, "infinite: expected true or false, got 2")])  # fmt: skip
def test_a_json_maps_infinite_flag_is_true_or_false_or_one_or_zero(tmp_path, flag, error):
    chunk = {"x": -1, "y": 0, "width": 1, "height": 1, "data": [2]}
    doc = {
        "type": "map", "orientation": "orthogonal", "infinite": flag, "width": 3, "height": 3, "tilewidth": 16,
        "tileheight": 16, "layers": [{"type": "tilelayer", "name": "L", "chunks": [chunk]}],
        "tilesets": [{"firstgid": 1, "name": "t", "tilecount": 2, "tiles": [{"id": 1, "type": "rock"}]}],
    }  # fmt: skip
    (tmp_path / "m.tmj").write_text(json.dumps(doc))
    if error is None:
        assert load_map(tmp_path / "m.tmj").terrain.tolist() == [[Terrain.ROCK]]
    else:
        with pytest.raises(MapError, match=error):
            load_map(tmp_path / "m.tmj")


@pytest.mark.parametrize("suffix", [".tmx", ".tmj"])
def test_an_infinite_maps_layer_written_without_chunks_is_one_chunk_at_the_origin(tmp_path, suffix):
    # Not as Tiled writes it (other tools may): the layer's own data, its width and height, from (0, 0).
    path = tmp_path / ("m" + suffix)
    if suffix == ".tmx":
        path.write_text(tmx("1,2,2,1", width=2, height=2).replace('infinite="0"', 'infinite="1"'))
    else:
        path.write_text(json.dumps({
            "type": "map", "orientation": "orthogonal", "infinite": True, "width": 9, "height": 9, "tilewidth": 16,
            "tileheight": 16,
            "layers": [{"type": "tilelayer", "name": "L", "width": 2, "height": 2, "data": [1, 2, 2, 1]}],
            "tilesets": [{"firstgid": 1, "name": "t", "tilecount": 2, "tiles": [{"id": 0, "type": "water"},
                                                                                {"id": 1, "type": "rock"}]}],
        }))  # fmt: skip
    w, r = Terrain.WATER, Terrain.ROCK
    assert load_map(path).terrain.tolist() == [[w, r], [r, w]]


def test_chunks_in_a_map_that_is_not_infinite_and_too_many_chunks_are_refused(tmp_path):
    path = tmp_path / "finite.tmx"
    path.write_text(infinite_tmx(WATER_ROCK).replace('infinite="1"', 'infinite="0"'))
    with pytest.raises(MapError, match="layer 'L' is stored in chunks, but the map is not infinite"):
        load_map(path)
    many = {(x, 0): [[1]] for x in range(MAX_CHUNKS + 1)}
    path.write_text(infinite_tmx(many))
    with pytest.raises(MapError, match=f"layer 'L': the map's tile layers hold more than {MAX_CHUNKS:,} chunks"):
        load_map(path)


def test_the_shipped_lagoon_saved_as_an_infinite_map_loads_identically(tmp_path):
    """lagoon.tmx's two layers (CSV, and base64+zlib in a group) cut into 16x16 chunks laid from
    (-37, -21), its spawn rectangles moved the same: terrain, art layers and spawn are unchanged."""
    shutil.copy(ROOT / "maps" / "terrain.tsx", tmp_path)
    finite = load_map(ROOT / "maps" / "lagoon.tmx")
    text = (ROOT / "maps" / "lagoon.tmx").read_text().replace('infinite="0"', 'infinite="1"')
    ox, oy = -37, -21
    datas = list(re.finditer(r"<data [^>]*>.*?</data>", text, re.S))
    assert len(datas) == len(finite.art.layers) == 2
    for m, raw in reversed(list(zip(datas, finite.art.layers, strict=True))):
        chunks = []
        for cy in range(oy - oy % 16 - 16, oy + raw.shape[0] + 16, 16):
            for cx in range(ox - ox % 16 - 16, ox + raw.shape[1] + 16, 16):
                block = np.zeros((16, 16), np.uint32)
                ys, xs = np.mgrid[cy - oy : cy - oy + 16, cx - ox : cx - ox + 16]
                inside = (xs >= 0) & (xs < raw.shape[1]) & (ys >= 0) & (ys < raw.shape[0])
                block[inside] = raw[ys[inside], xs[inside]]
                if block.any():
                    chunks.append(f'<chunk x="{cx}" y="{cy}" width="16" height="16">{b64(block.ravel())}</chunk>')
        text = text[: m.start()] + '<data encoding="base64">' + "\n".join(chunks) + "</data>" + text[m.end() :]
    moved = re.sub(r'(<object [^>]*?) x="(\d+)" y="(\d+)"',
                   lambda m: f'{m[1]} x="{int(m[2]) + ox * 16}" y="{int(m[3]) + oy * 16}"', text)  # fmt: skip
    assert moved.count('x="-') >= 2
    (tmp_path / "lagoon.tmx").write_text(moved)
    infinite = load_map(tmp_path / "lagoon.tmx")
    assert (infinite.terrain == finite.terrain).all() and infinite.spawn == finite.spawn
    assert all((a == b).all() for a, b in zip(infinite.art.layers, finite.art.layers, strict=True))


def test_an_infinite_map_converts_to_a_finite_one_and_back_exactly(tmp_path):
    (tmp_path / "inf.tmx").write_text(infinite_tmx(WATER_ROCK))
    m = load_map(tmp_path / "inf.tmx")
    write_tiled(tmp_path / "out.tmx", m.name, m.terrain, m.description, m.spawn)
    back = load_map(tmp_path / "out.tmx")
    assert (back.terrain == m.terrain).all() and back.spawn == m.spawn


# ------------------------------------------------------------------ picker, names, convert
def test_the_picker_lists_tiled_maps_but_not_tilesets_or_images(tmp_path):
    m = load_map(ROOT / "maps" / "tutorial.yaml")
    for suffix in (".tmx", ".tmj", ".json"):
        write_tiled(tmp_path / f"a{suffix}", m.name, m.terrain)
    (tmp_path / "t.tsx").write_text("<tileset/>")
    (tmp_path / "t.tsj").write_text("{}")
    names = [p.name for p in list_maps(tmp_path)]
    assert names == ["a.json", "a.tmj", "a.tmx"]
    assert resolve_map("a", tmp_path).name in names


def test_the_picker_orders_names_as_a_person_does(tmp_path):
    m = load_map(ROOT / "maps" / "tutorial.yaml")
    names = ["level10.yaml", "Level2.yaml", "level1.yaml", "alps.tmx", "Zurich.yaml", "level2b.yaml", "b.json"]
    for name in names:
        write_map(m, tmp_path / name)
    assert [p.name for p in list_maps(tmp_path)] == [
        "alps.tmx",
        "b.json",
        "level1.yaml",
        "Level2.yaml",
        "level2b.yaml",
        "level10.yaml",
        "Zurich.yaml",
    ]


def convert(*args: str):
    import subprocess
    import sys

    return subprocess.run([sys.executable, str(ROOT / "main.py"), "convert", *args],
                          capture_output=True, text=True, cwd=ROOT, timeout=900)  # fmt: skip


def test_convert_yaml_to_tiled_to_yaml_is_exact(tmp_path):
    src = ROOT / "maps" / "tutorial.yaml"
    r = convert(str(src), str(tmp_path / "t.tmx"))
    assert r.returncode == 0 and r.stdout == f"wrote {tmp_path / 't.tmx'} and {tmp_path / 't-tiles.png'}\n", r.stderr
    assert convert(str(tmp_path / "t.tmx"), str(tmp_path / "t.tmj")).returncode == 0
    assert convert(str(tmp_path / "t.tmj"), str(tmp_path / "back.yaml")).returncode == 0
    a, b = load_map(src), load_map(tmp_path / "back.yaml")
    assert (a.terrain == b.terrain).all() and (a.name, a.description, a.spawn, a.animals) == (
        b.name,
        b.description,
        b.spawn,
        b.animals,
    )


def test_convert_to_and_from_moving_ai(tmp_path):
    r = convert(str(ROOT / "maps" / "tutorial.yaml"), str(tmp_path / "t.map"))
    assert r.returncode == 0 and "note: a Moving AI map keeps only" in r.stdout
    from sim.maps.movingai import read_map

    chars = read_map(tmp_path / "t.map")
    t = load_map(ROOT / "maps" / "tutorial.yaml").terrain
    assert ((chars == "W") == (t == Terrain.WATER)).all() and ((chars == "@") == (t >= Terrain.MOUNTAIN)).all()
    assert convert(str(tmp_path / "t.map"), str(tmp_path / "t.tmx")).returncode == 0
    assert (load_map(tmp_path / "t.tmx").terrain == load_map(tmp_path / "t.map").terrain).all()


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["{tmp}/none.yaml", "{tmp}/x.tmx"], "{tmp}/none.yaml: file not found"),
        (["maps/tutorial.yaml", "{tmp}/x.txt"], "{tmp}/x.txt: unknown map format '.txt'"),
        (["maps/tutorial.yaml", "{tmp}/exists.yaml"], "{tmp}/exists.yaml: already exists; add --force to replace it"),
        (["maps/tutorial.yaml", "{tmp}/png.tmx"], "{tmp}/png-tiles.png: already exists; add --force"),
        (["maps/tutorial.yaml", "{tmp}/no/such/x.tmx"], "{tmp}/no/such/x.tmx: folder {tmp}/no/such does not exist"),
        (["{tmp}/exists.yaml", "{tmp}/exists.yaml", "--force"], "{tmp}/exists.yaml: the source and the target are the same file"),  # noqa: E501
        (["maps/tutorial.yaml"], "the following arguments are required: dst"),
    ],
)  # fmt: skip
def test_convert_errors_are_one_line_and_exit_2(tmp_path, args, fragment):
    shutil.copy(ROOT / "maps" / "tutorial.yaml", tmp_path / "exists.yaml")
    (tmp_path / "png-tiles.png").write_bytes(b"mine")
    r = convert(*(a.format(tmp=tmp_path) for a in args))
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "Traceback" not in r.stderr, r.stderr
    assert fragment.format(tmp=tmp_path) in r.stderr
    assert (tmp_path / "png-tiles.png").read_bytes() == b"mine"  # nothing of the user's is overwritten


def test_convert_with_force_replaces(tmp_path):
    (tmp_path / "x.yaml").write_text("mine")
    assert convert("maps/tutorial.yaml", str(tmp_path / "x.yaml"), "--force").returncode == 0
    assert load_map(tmp_path / "x.yaml").name == "Tutorial island"


def test_the_shipped_tiled_map_uses_its_upper_layer_and_the_picker_lists_it(maps_copy):
    path = maps_copy / "lagoon.tmx"
    m = load_map(path)
    assert m.name == "Lagoon (a Tiled map)" and m.animals == {"cow": 40, "bird": 25, "water": 25}
    (ground, g, _), (walls, w, _) = reference_layers(path)
    assert (ground, walls) == ("ground", "walls and wood")
    expected = np.where(w != 0, w - 1, g - 1)  # the upper layer wherever it has a tile
    assert (m.terrain == expected).all() and (w != 0).sum() > 50
    assert "lagoon.tmx" in [p.name for p in list_maps(maps_copy)]
    assert not [p for p in list_maps(maps_copy) if p.suffix in (".tsx", ".png")]
