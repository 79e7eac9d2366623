"""The demo's modes: one class each, with ``handle(event) -> bool``, ``update(dt)``, ``draw(surface)``
and a key table. To add a mode, subclass :class:`~.base.Mode` in a new file here (its
``opened_by`` names the play mode's key that opens it) and list it in :data:`MODES` (the
help and docs/demo.md list exactly these; remake the docs' tables with ``python -m
sim.view.keydocs --write docs/demo.md``).
"""

from sim.view.modes.base import CameraControls, Mode
from sim.view.modes.compare import CompareMode
from sim.view.modes.confirm import ConfirmMode
from sim.view.modes.learn import LearnMode
from sim.view.modes.picker import MapPickerMode
from sim.view.modes.play import PlayMode

#: Every mode, listed explicitly (not registered by import side effect): the help shows their keys.
MODES: tuple[type[Mode], ...] = (PlayMode, LearnMode, CompareMode, MapPickerMode, ConfirmMode)
PlayMode.opens(MODES)  # the play mode opens each mode that names its key (Mode.opened_by)

__all__ = ["MODES", "CameraControls", "CompareMode", "ConfirmMode", "LearnMode", "MapPickerMode", "Mode", "PlayMode"]
