"""Tile layer data as Tiled writes it -> a ``[y, x]`` array of raw gids (uint32, flip flags
still in the top four bits: ``& GID_MASK`` gives the tile).

Formats (doc.mapeditor.org, "TMX Map Format" > ``<data>``; "JSON Map Format" > Layer):
CSV text, a JSON array, old-style ``<tile gid>`` elements, and base64 of little-endian
uint32 with no compression, zlib, gzip or zstd. Decompression is bounded by the size the
layer must have, so a "zip bomb" costs nothing.
"""

from __future__ import annotations

import base64
import binascii
import re
import warnings
import zlib
from typing import Any

import numpy as np

#: The top four bits of a gid are flip/rotation flags (horizontal, vertical, diagonal, hex 120°).
FLAGS = 0xF0000000
GID_MASK = 0x0FFFFFFF
ENCODINGS = ("csv", "base64")
COMPRESSIONS = ("", "zlib", "gzip", "zstd")


class LayerDataError(ValueError):
    """What is wrong with one layer's data (the reader adds the file and the layer)."""


def gids_from_numbers(values: Any, width: int, height: int) -> np.ndarray:
    """A JSON array or a list of numbers -> gids ``[y, x]``."""
    try:
        arr = np.asarray(values)
    except (ValueError, OverflowError):
        raise LayerDataError("data must be a list of whole numbers (tile gids)") from None
    if arr.ndim != 1 or (arr.size and arr.dtype.kind not in "iu"):
        raise LayerDataError("data must be a list of whole numbers (tile gids)")
    return _shape(arr.astype(np.int64, copy=False), width, height)


def gids_from_csv(text: str, width: int, height: int) -> np.ndarray:
    """CSV text (``1,2,3,\\n4,5,6``) -> gids ``[y, x]``.

    Checked before anything is built: only ASCII digits, commas and white space, and as
    many numbers as the layer has cells (counted from the commas); then parsed by numpy
    in one pass, never as a list of Python strings (a 2048² layer would be ~1 GB of them)."""
    bad = _CSV_BAD.search(text)
    if bad is not None:
        raise LayerDataError(f"CSV data holds {text[bad.start() : bad.start() + 20]!r}, which is not a tile gid")
    body = text.rstrip(" \t\r\n")
    body = body[:-1] if body.endswith(",") else body  # Tiled ends each row with a comma, the last one too
    if _CSV_EMPTY.search(body) or body.lstrip(" \t\r\n").startswith(","):
        raise LayerDataError("CSV data has an empty value between two commas")
    count = body.count(",") + 1 if body.strip(" \t\r\n") else 0
    if count != width * height:
        raise LayerDataError(f"data holds {count} tiles, the layer has {width}x{height} = {width * height}")
    if count == 0:
        return np.zeros((height, width), np.uint32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # numpy only warns when it stops early
        try:
            values = np.fromstring(body, dtype=np.float64, sep=",")  # exact for every gid; a huge one is inf
        except (ValueError, DeprecationWarning):
            raise LayerDataError("CSV data is not a list of tile gids") from None
    if values.size != count:
        raise LayerDataError("CSV data is not a list of tile gids")
    return _shape(values, width, height)


_CSV_BAD = re.compile(r"[^0-9, \t\r\n]")
_CSV_EMPTY = re.compile(r",[ \t\r\n]*,")


def gids_from_base64(text: str, compression: str, width: int, height: int) -> np.ndarray:
    """base64 of little-endian uint32 gids, optionally compressed -> gids ``[y, x]``."""
    if compression not in COMPRESSIONS:
        raise LayerDataError(f"unknown compression {compression[:20]!r}; Tiled writes zlib, gzip, zstd or none")
    try:
        raw = base64.b64decode("".join(text.split()), validate=True)
    except (binascii.Error, ValueError):
        raise LayerDataError("base64 data is not valid base64") from None
    size = 4 * width * height
    if compression:
        raw = _decompress(raw, compression, size)
    if len(raw) != size:
        raise LayerDataError(f"data holds {len(raw) // 4} tiles, the layer has {width}x{height} = {width * height}")
    return np.frombuffer(raw, dtype="<u4").reshape(height, width).astype(np.uint32)


def _decompress(raw: bytes, compression: str, size: int) -> bytes:
    if compression == "zstd":
        return _zstd(raw, size)
    d = zlib.decompressobj(31 if compression == "gzip" else 15)
    try:
        out = d.decompress(raw, size + 1)  # at most one byte more than the layer needs
    except zlib.error as exc:
        raise LayerDataError(f"{compression} data is damaged ({exc})") from None
    if len(out) > size:
        raise LayerDataError(f"{compression} data unpacks to more than the layer's {size // 4} tiles")
    return out


def _zstd(raw: bytes, size: int) -> bytes:
    """zstd needs Python 3.14 (``compression.zstd``) or the ``zstandard`` package."""
    try:
        from compression import zstd  # type: ignore[import-not-found]  # Python 3.14+

        try:
            out = zstd.ZstdDecompressor().decompress(raw, max_length=size + 1)
        except zstd.ZstdError as exc:
            raise LayerDataError(f"zstd data is damaged ({exc})") from None
    except ImportError:
        try:
            import zstandard  # type: ignore[import-not-found]
        except ImportError:
            raise LayerDataError(
                "zstd-compressed layer data cannot be read here (needs Python 3.14 or 'zstandard'); "
                "in Tiled, save tile layers as CSV or Base64 (zlib)"
            ) from None
        try:
            out = zstandard.ZstdDecompressor().decompress(raw, max_output_size=size + 1)
        except zstandard.ZstdError as exc:
            raise LayerDataError(f"zstd data is damaged ({exc})") from None
    if len(out) > size:
        raise LayerDataError(f"zstd data unpacks to more than the layer's {size // 4} tiles")
    return out


def _shape(arr: np.ndarray, width: int, height: int) -> np.ndarray:
    if arr.size != width * height:
        raise LayerDataError(f"data holds {arr.size} tiles, the layer has {width}x{height} = {width * height}")
    if arr.size and not (arr.min() >= 0 and arr.max() <= 0xFFFFFFFF):  # NaN fails too
        raise LayerDataError("data holds a number that is not a tile gid (0 to 4294967295)")
    return arr.astype(np.uint32).reshape(height, width)
