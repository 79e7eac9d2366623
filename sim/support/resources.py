"""Where the files are: the bundled config, maps, sprites and font, and the user's own folder.

One source of truth: the repository's top-level ``config.yaml``, ``maps/`` and
``assets/``. A checkout (or an editable install) reads them in place; a built wheel
carries a copy in the package (``sim/_data``, made at build time by ``setup.py``) and
reads it through :mod:`importlib.resources`. Nothing is ever written there: maps the
user saves go to :func:`user_maps_dir`, screenshots to the current folder.
"""

from __future__ import annotations

import os
import sys
from importlib import resources
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[2]  # sim/support/resources.py -> the checkout


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


def user_dir() -> Path:
    """The user's own folder for astar-island: ``$ASTAR_ISLAND_HOME``, else the platform's place
    for application data (``~/.local/share/astar-island`` on Linux)."""
    home = os.environ.get("ASTAR_ISLAND_HOME")
    if home:
        return Path(home)
    if sys.platform == "win32":
        return Path(os.environ.get("APPDATA", Path.home() / "AppData" / "Roaming")) / "astar-island"
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Application Support" / "astar-island"
    return Path(os.environ.get("XDG_DATA_HOME", Path.home() / ".local" / "share")) / "astar-island"


def user_maps_dir() -> Path:
    """Where maps saved from the demo go when they cannot go next to their original."""
    return user_dir() / "maps"


def is_bundled(path: Path) -> bool:
    """Whether ``path`` is one of the bundled files (never written to): the default config, a
    file under the bundled ``maps/`` or ``assets/``."""
    resolved = Path(path).resolve()
    if resolved == default_config_path().resolve():
        return True
    return any(resolved.is_relative_to(d.resolve()) for d in (maps_dir(), assets_dir()))
