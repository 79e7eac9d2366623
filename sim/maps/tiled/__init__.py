"""Tiled maps (mapeditor.org): read ``.tmx``/``.tmj``/``.json`` maps, write them back.

See :mod:`.model` for how tiles become terrain, :mod:`.write` for what an exported map holds.
"""

from __future__ import annotations

from sim.maps.tiled.read import read_doc, read_tiled
from sim.maps.tiled.write import image_path, write_tiled

__all__ = ["image_path", "read_doc", "read_tiled", "write_tiled"]
