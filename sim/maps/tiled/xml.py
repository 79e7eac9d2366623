"""A small, safe XML reader for Tiled's ``.tmx``/``.tsx`` files (expat, from the standard library).

Safe by refusal: a document type declaration (and with it every entity, the root of the
"billion laughs" and external-entity attacks) is an error, since Tiled never writes one;
nesting is at most :data:`MAX_DEPTH` deep and a file at most :data:`MAX_ELEMENTS` elements
(the per-tile ``<tile gid>`` children of old-style layer data are kept as numbers, not
elements). Every element keeps its 1-based line, so errors can name it.
"""

from __future__ import annotations

import re
from array import array
from dataclasses import dataclass, field
from pathlib import Path
from typing import NoReturn
from xml.parsers import expat

from sim.support.checks import parse_whole, short

MAX_DEPTH = 64
MAX_ELEMENTS = 2_000_000
MAX_ATTRIBUTES = 64  # on one element; Tiled writes at most ~20
MAX_TAG = 65_536  # characters between "<" and ">": expat builds a tag's attributes at once, so bound it first
MAX_TILE_GIDS = 2048 * 2048  # old-style <tile gid> children in one file, all layers together
_LONG_TAG = re.compile(rb"<[^<>]{%d}" % MAX_TAG)


@dataclass
class Element:
    """One XML element: ``tag``, ``attrib``, ``children``, its text, and the ``line`` it starts on."""

    tag: str
    attrib: dict[str, str]
    line: int
    children: list[Element] = field(default_factory=list)
    parts: list[str] = field(default_factory=list)
    gids: array | None = None  # <data> (or <chunk>) without encoding: its <tile gid="..."/> children (uint32)

    @property
    def text(self) -> str:
        return "".join(self.parts)

    def find(self, tag: str) -> Element | None:
        return next((c for c in self.children if c.tag == tag), None)

    def findall(self, tag: str) -> list[Element]:
        return [c for c in self.children if c.tag == tag]


class _Builder:
    """The expat callbacks: builds the :class:`Element` tree, refusing what is not safe."""

    def __init__(self, path: Path, error: type[ValueError], parser: expat.XMLParserType) -> None:
        self.path, self.error, self.parser = path, error, parser
        self.stack: list[Element] = []
        self.root: Element | None = None
        self.count = 0
        self.gids = 0

    def fail(self, message: str) -> NoReturn:
        raise self.error(f"{self.path}:{self.parser.CurrentLineNumber}: {message}")

    def doctype(self, *_args: object) -> None:
        self.fail("XML document type declarations (DOCTYPE, ENTITY) are not accepted; Tiled never writes them")

    def start(self, tag: str, attrib: dict[str, str]) -> None:
        parent = self.stack[-1] if self.stack else None
        if parent is not None and parent.tag in ("data", "chunk") and tag == "tile":
            self._tile_gid(parent, attrib.get("gid", "0"))
            self.stack.append(parent)  # its end pops this again
            return
        self.count += 1
        if self.count > MAX_ELEMENTS:
            self.fail(f"more than {MAX_ELEMENTS:,} XML elements")
        if len(attrib) > MAX_ATTRIBUTES:
            self.fail(f"<{short(tag, 30)[1:-1]}> has more than {MAX_ATTRIBUTES} attributes")
        if len(self.stack) >= MAX_DEPTH:
            self.fail(f"XML nested more than {MAX_DEPTH} levels deep")
        node = Element(tag, attrib, self.parser.CurrentLineNumber)
        if parent is None:
            self.root = node
        else:
            parent.children.append(node)
        self.stack.append(node)

    def _tile_gid(self, data: Element, gid: str) -> None:
        if data.gids is None:
            data.gids = array("I")
        value = parse_whole(gid, 0, 0xFFFFFFFF)
        if value is None:
            self.fail(f"tile gid {short(gid, 20)} is not a whole number from 0 to 4294967295")
        self.gids += 1
        if self.gids > MAX_TILE_GIDS:
            self.fail(f"more than {MAX_TILE_GIDS:,} <tile> elements in layer data")
        data.gids.append(value)

    def end(self, _tag: str) -> None:
        self.stack.pop()

    def chars(self, text: str) -> None:
        if self.stack:
            self.stack[-1].parts.append(text)


def parse_xml(data: bytes, path: Path, error: type[ValueError]) -> Element:
    """The root element of the XML document ``data`` (UTF-8, read from ``path``, whatever its
    declaration names); problems raise ``error``."""
    long_tag = _LONG_TAG.search(data)
    if long_tag is not None:
        line = data.count(b"\n", 0, long_tag.start()) + 1
        raise error(f"{path}:{line}: an XML tag longer than {MAX_TAG:,} characters (too many or too long attributes)")
    # The text was read as UTF-8 (``read_text``); naming it here overrides the declaration's
    # ``encoding="..."``, which expat would otherwise look up (an unknown name is a LookupError).
    parser = expat.ParserCreate(encoding="UTF-8")
    builder = _Builder(path, error, parser)
    parser.StartDoctypeDeclHandler = builder.doctype
    parser.EntityDeclHandler = builder.doctype
    parser.StartElementHandler = builder.start
    parser.EndElementHandler = builder.end
    parser.CharacterDataHandler = builder.chars
    parser.buffer_text = True
    try:
        parser.Parse(data, True)
    except expat.ExpatError as exc:
        raise error(f"{path}:{exc.lineno}: not valid XML: {expat.ErrorString(exc.code)}") from None
    if builder.root is None:
        raise error(f"{path}: the file is empty")
    return builder.root
