"""Where the bundled files are: the default config, the maps, the sprites and the font.

One source of truth: the repository's top-level ``config.yaml``, ``maps/`` and
``assets/``. A checkout (or an editable install) reads them in place; a built wheel
carries a copy in the package (``sim/_data``, made at build time by ``setup.py``) and
reads it through :mod:`importlib.resources`. Nothing is ever written there.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parent.parent


def data_root() -> Path:
    """The folder holding ``config.yaml``, ``maps/`` and ``assets/``."""
    bundled = resources.files("sim") / "_data"
    if bundled.is_dir():
        return Path(str(bundled))
    return CHECKOUT


def default_config_path() -> Path:
    return data_root() / "config.yaml"


def maps_dir() -> Path:
    """The bundled maps."""
    return data_root() / "maps"


def assets_dir() -> Path:
    return data_root() / "assets"


def font_path() -> Path:
    return assets_dir() / "fonts" / "DejaVuSansMono.ttf"


def sprite_path(species_key: str) -> Path:
    return assets_dir() / "sprites" / f"{species_key}.png"
