"""Random hostile Tiled documents: a hypothesis strategy, and a long fuzz run of the readers.

Documents are built from Tiled's own structure (map, tilesets inline and external,
tile layers in every encoding, groups, object layers, properties), then values are
swapped for hostile ones (numbers with thousands of digits, Unicode digits, 2^63,
0 and negatives, NaN, lone surrogates, control characters, long names, paths with NUL)
and, sometimes, the bytes are cut or flipped. Whatever comes out, loading it must
either work or raise ``MapError`` with one short line that starts with the file.

``python -m tests.maps.tiled_fuzz --minutes 10`` runs it for that long (new examples every
run, with a 2 GB address-space limit so that an oversized allocation is a crash, not
a swap storm) and prints how many documents it tried and every failure.
"""

from __future__ import annotations

import argparse
import base64
import json
import sys
import tempfile
import time
import traceback
import zlib
from pathlib import Path
from xml.sax.saxutils import escape, quoteattr

from hypothesis import strategies as st

HOSTILE_INTS = [0, -1, 1, 2, 7, 255, 256, 2**28 - 1, 2**28, 2**31, 2**32, 2**63, 2**64, 10**12, 10**30]
HOSTILE_TEXT = ["9" * 5000, "¹", "٣", "１", "1e9", "-0", " 1", "0x10", "", "nan", "inf", "1.5", "\ud800", "a\x01b",
                "\x00", "x" * 100_000, "../" * 20 + "etc/passwd", "..", "/dev/zero", "ts.tsj", "ts.tsx"]  # fmt: skip

ints = st.one_of(st.integers(-3, 12), st.sampled_from(HOSTILE_INTS), st.integers())
texts = st.one_of(st.text(max_size=12), st.sampled_from(HOSTILE_TEXT))
scalars = st.one_of(ints, texts, st.floats(allow_nan=True), st.booleans(), st.none())
TERRAINS = ["water", "sand", "grass", "forest", "swamp", "mountain", "rock", "lava", ""]


def sometimes(draw, default: object, hostile: st.SearchStrategy) -> object:
    """``default`` most of the time (so documents are often valid and reach the deep checks),
    a hostile value about one time in sixteen."""
    return draw(hostile) if draw(st.integers(0, 15)) == 0 else default


@st.composite
def tileset(draw, external: bool) -> dict:
    tiles = [
        {"id": sometimes(draw, i, ints),
         "properties": [{"name": sometimes(draw, "terrain", st.sampled_from(["x", ""])), "type": "string",
                         "value": sometimes(draw, TERRAINS[i % 7], st.one_of(st.sampled_from(TERRAINS), scalars))}]}
        for i in range(sometimes(draw, 4, st.integers(0, 6)))
    ]  # fmt: skip
    ts = {"name": sometimes(draw, "terrain", texts), "tilecount": sometimes(draw, 4, ints), "tiles": tiles,
          "tilewidth": sometimes(draw, 16, ints), "tileheight": 16}  # fmt: skip
    if external:
        ts["type"] = sometimes(draw, "tileset", st.sampled_from(["map", 3]))
    return ts


@st.composite
def layer_data(draw, w: int, h: int) -> tuple[str, object, str]:
    """``(encoding, data, compression)`` for a ``w`` x ``h`` layer, sometimes the wrong size or broken."""
    n = max(0, w * h + sometimes(draw, 0, st.sampled_from([-1, 1, 1000])))
    gids = [sometimes(draw, draw(st.integers(1, 4)), ints) for _ in range(min(n, 36))]
    gids = (gids * (n // max(len(gids), 1) + 1))[:n] if gids else [0] * n
    encoding = sometimes(draw, draw(st.sampled_from(["csv", "base64"])), st.sampled_from(["plain", "weird"]))
    compression = draw(st.sampled_from(["", "zlib", "gzip"])) if encoding == "base64" else ""
    compression = sometimes(draw, compression, st.sampled_from(["zstd", "brotli"]))
    if encoding != "base64":
        return encoding, gids, compression
    raw = b"".join((g & 0xFFFFFFFF).to_bytes(4, "little") for g in gids if isinstance(g, int))
    if compression == "zlib":
        raw = zlib.compress(raw)
    elif compression == "gzip":
        c = zlib.compressobj(wbits=31)
        raw = c.compress(raw) + c.flush()
    text = base64.b64encode(raw).decode()
    if sometimes(draw, False, st.just(True)) and text:
        text = text[: draw(st.integers(0, len(text)))] + draw(st.sampled_from(["", "!", "=", "AAAA"]))
    return encoding, text, compression


@st.composite
def chunk(draw, encoding: str, compression: str) -> dict:
    """One chunk of an infinite map's layer (its data in the layer's encoding), sometimes hostile."""
    cw, ch = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    enc, data, _ = draw(layer_data(cw, ch))
    if (enc == "base64") != (encoding == "base64"):  # the layer's encoding is the chunk's
        data = sometimes(draw, [1] * (cw * ch), scalars) if encoding != "base64" else sometimes(draw, "", texts)
    return {"x": sometimes(draw, draw(st.integers(-8, 8)), ints), "y": sometimes(draw, draw(st.integers(-8, 8)), ints),
            "width": sometimes(draw, cw, ints), "height": sometimes(draw, ch, ints), "data": data}  # fmt: skip


@st.composite
def document(draw) -> dict:
    """A Tiled map as a dict (the JSON layout; :func:`to_tmx` writes the same as XML)."""
    w, h = draw(st.integers(1, 6)), draw(st.integers(1, 6))
    tilesets = []
    for _ in range(sometimes(draw, 1, st.integers(0, 3))):
        firstgid = sometimes(draw, 1, ints)
        if sometimes(draw, False, st.just(True)):
            tilesets.append({"firstgid": firstgid, "source": sometimes(draw, "ts.tsj", texts)})
        else:
            tilesets.append({"firstgid": firstgid, **draw(tileset(external=False))})
    layers = []
    for i in range(sometimes(draw, 2, st.integers(0, 3))):
        kind = "tilelayer" if i == 0 else sometimes(draw, "objectgroup", st.sampled_from(["tilelayer", "group"]))
        if kind == "tilelayer":
            encoding, data, compression = draw(layer_data(w, h))
            layer = {"type": kind, "name": sometimes(draw, "ground", texts), "width": sometimes(draw, w, ints),
                     "height": h, "encoding": encoding, "data": data, "compression": compression,
                     "visible": sometimes(draw, True, scalars)}  # fmt: skip
            if draw(st.booleans()):  # an infinite map's layout (the map says it is one, or sometimes not)
                del layer["data"]
                layer["chunks"] = [draw(chunk(encoding, compression)) for _ in range(draw(st.integers(0, 3)))]
            layers.append(layer)
        elif kind == "group":
            layers.append({"type": kind, "name": "g", "layers": []})
        else:
            objects = [{"type": draw(st.sampled_from(["cow", "bird", "water", "goat"])),
                        **{k: sometimes(draw, draw(st.integers(0, 64)), st.one_of(st.floats(), ints))
                           for k in ("x", "y", "width", "height")}}
                       for _ in range(draw(st.integers(0, 2)))]  # fmt: skip
            layers.append({"type": kind, "name": "spawn", "objects": objects})
    chunked = any("chunks" in layer for layer in layers)  # (then the map is infinite, but sometimes)
    props = [{"name": draw(st.sampled_from(["name", "description", "animals.cow", "animals.goat", "x"])),
              "type": draw(st.sampled_from(["string", "int", "float", "bool"])), "value": draw(scalars)}
             for _ in range(draw(st.integers(0, 2)))]  # fmt: skip
    return {"type": "map", "orientation": sometimes(draw, "orthogonal", st.sampled_from(["hexagonal", 5])),
            "width": sometimes(draw, w, ints), "height": h, "tilewidth": sometimes(draw, 16, ints),
            "tileheight": 16, "infinite": sometimes(draw, chunked, st.just(not chunked)), "tilesets": tilesets,
            "layers": layers, "properties": props}  # fmt: skip


def _attr(value: object) -> str:
    return quoteattr(str(value))


def to_tmx(doc: dict) -> str:
    """The document as TMX text (hostile values go in as written, so XML may be broken too)."""
    out = [f'<map orientation={_attr(doc["orientation"])} width={_attr(doc["width"])} height={_attr(doc["height"])} '
           f'tilewidth={_attr(doc["tilewidth"])} tileheight="16" infinite="{int(doc["infinite"])}">']  # fmt: skip
    out.append("<properties>")
    for p in doc["properties"]:
        out.append(f"<property name={_attr(p['name'])} type={_attr(p['type'])} value={_attr(p['value'])}/>")
    out.append("</properties>")
    for ts in doc["tilesets"]:
        if "source" in ts:
            out.append(f"<tileset firstgid={_attr(ts['firstgid'])} source={_attr(ts['source'])}/>")
            continue
        out.append(f"<tileset firstgid={_attr(ts['firstgid'])} name={_attr(ts['name'])} "
                   f"tilecount={_attr(ts['tilecount'])}>")  # fmt: skip
        for t in ts["tiles"]:
            p = t["properties"][0]
            out.append(f"<tile id={_attr(t['id'])}><properties><property name={_attr(p['name'])} "
                       f"value={_attr(p['value'])}/></properties></tile>")  # fmt: skip
        out.append("</tileset>")
    for layer in doc["layers"]:
        if layer["type"] == "tilelayer":
            enc = layer["encoding"]
            held = layer.get("chunks", [None])  # (None: the layer's own data)
            text = ""
            for c in held:
                data = layer["data"] if c is None else c["data"]
                body = "".join(f"<tile gid={_attr(g)}/>" for g in data) if enc == "plain" and isinstance(data, list) \
                    else _text(data)  # fmt: skip
                text += body if c is None else (f"<chunk x={_attr(c['x'])} y={_attr(c['y'])} width={_attr(c['width'])} "
                                                f"height={_attr(c['height'])}>{body}</chunk>")  # fmt: skip
            if enc == "plain":
                out.append(f"<layer name={_attr(layer['name'])} width={_attr(layer['width'])} "
                           f"height={_attr(layer['height'])}><data>{text}</data></layer>")  # fmt: skip
                continue
            out.append(f"<layer name={_attr(layer['name'])} width={_attr(layer['width'])} "
                       f"height={_attr(layer['height'])}><data encoding={_attr(enc)} "
                       f"compression={_attr(layer['compression'])}>{text}</data></layer>")  # fmt: skip
        elif layer["type"] == "objectgroup":
            out.append('<objectgroup name="spawn">')
            for o in layer["objects"]:
                out.append(f"<object type={_attr(o['type'])} x={_attr(o['x'])} y={_attr(o['y'])} "
                           f"width={_attr(o['width'])} height={_attr(o['height'])}/>")  # fmt: skip
            out.append("</objectgroup>")
        else:
            out.append('<group name="g"/>')
    out.append("</map>")
    return "\n".join(out)


def _text(data: object) -> str:
    """Layer data as XML text: CSV of a list, a string as it is (escaped: hostile text may hold markup)."""
    if isinstance(data, list):
        return ",".join(map(str, data))
    return escape(str(data))


def to_tmj(doc: dict) -> str:
    return json.dumps(doc)


@st.composite
def tiled_files(draw) -> dict[str, bytes]:
    """``{file name: bytes}``: the map (``map.tmx`` or ``map.tmj``) and maybe an external tileset."""
    doc = draw(document())
    as_xml = draw(st.booleans())
    text = to_tmx(doc) if as_xml else to_tmj(doc)
    raw = text.encode("utf-8", errors="surrogatepass")
    if sometimes(draw, False, st.just(True)) and raw:  # a damaged file
        i = draw(st.integers(0, len(raw) - 1))
        raw = raw[:i] + draw(st.binary(max_size=4)) + raw[i + draw(st.integers(0, 8)) :]
    files = {"map.tmx" if as_xml else "map.tmj": raw}
    ts = draw(tileset(external=True))
    if draw(st.booleans()):
        files["ts.tsj"] = json.dumps(ts).encode("utf-8", errors="surrogatepass")
    else:
        body = "".join(f"<tile id={_attr(t['id'])}/>" for t in ts["tiles"])
        files["ts.tsx"] = (f"<tileset name={_attr(ts['name'])} tilecount={_attr(ts['tilecount'])}>{body}</tileset>"
                           ).encode("utf-8", errors="surrogatepass")  # fmt: skip
    return files


def check_files(folder: Path, files: dict[str, bytes]) -> bool:
    """Write ``files`` into ``folder`` and load the map: it loads (True), or one short ``MapError`` line."""
    from sim.maps import MapError, load_map

    for name, raw in files.items():
        (folder / name).write_bytes(raw)
    path = folder / next(n for n in files if n.startswith("map."))
    try:
        load_map(path, max_size=(64, 64))
    except MapError as exc:
        message = str(exc)
        # The file at fault leads: the map, or the tileset file where the problem is written.
        assert "\n" not in message and message.startswith(str(folder)), message
        assert len(message) <= 400, len(message)
        return False
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--memory-gb", type=float, default=2.0, help="address-space limit of this process")
    args = parser.parse_args(argv)
    import resource

    limit = int(args.memory_gb * 2**30)
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    from hypothesis import HealthCheck, given, settings

    end = time.monotonic() + 60 * args.minutes
    tried, loaded, failures = 0, 0, []

    @settings(max_examples=10**9, deadline=None, database=None, derandomize=False,
              suppress_health_check=list(HealthCheck))  # fmt: skip
    @given(files=tiled_files())
    def run(files: dict[str, bytes]) -> None:
        nonlocal tried, loaded
        if time.monotonic() > end:
            raise _Done
        tried += 1
        with tempfile.TemporaryDirectory() as tmp:
            try:
                loaded += check_files(Path(tmp), files)
            except Exception as exc:  # every failure is recorded, the run goes on
                failures.append((files, "".join(traceback.format_exception_only(exc)).strip()))

    while time.monotonic() < end:
        try:
            run()
        except _Done:
            break
    elapsed = args.minutes * 60 - max(0.0, end - time.monotonic())
    print(f"tiled fuzz: {tried} documents in {elapsed / 60:.1f} min ({loaded} loaded, the rest refused in one line), "
          f"{len(failures)} failures")  # fmt: skip
    for files, what in failures[:20]:
        print("FAIL", what[:300], {k: v[:200] for k, v in files.items()})
    return 1 if failures else 0


class _Done(Exception):
    pass


if __name__ == "__main__":
    sys.exit(main())
