"""The demo's modes: one class each, with ``handle(event) -> bool``, ``update(dt)``, ``draw(surface)``
and a key table. To add a mode, subclass :class:`~.base.Mode` in a new file here, list it in
:data:`MODES` (the help and docs/demo.md list exactly these) and push it on the app's mode
stack from a key of the mode that opens it.
"""

from sim.view.modes.base import CameraControls, Mode
from sim.view.modes.compare import CompareMode
from sim.view.modes.confirm import ConfirmMode
from sim.view.modes.picker import MapPickerMode
from sim.view.modes.play import PlayMode

#: Every mode, listed explicitly (not registered by import side effect): the help shows their keys.
MODES: tuple[type[Mode], ...] = (PlayMode, CompareMode, MapPickerMode, ConfirmMode)

__all__ = ["MODES", "CameraControls", "CompareMode", "ConfirmMode", "MapPickerMode", "Mode", "PlayMode"]
