"""The demo's window and everything drawn in it: the only package that imports pygame.

* :mod:`.app`: the window loop (events -> active mode -> update -> draw -> tick);
* :mod:`.modes`: one class per mode (play, compare, map picker), each with its key table;
* :mod:`.keys`: key tables, which also make the help overlay;
* :mod:`.render`, :mod:`.panels`, :mod:`.search_views`: drawing;
* :mod:`.headless`: the same loop on SDL's dummy driver, with figures.
"""

import os

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")  # before anything here imports pygame
