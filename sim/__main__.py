"""``python -m sim``: the demo (see ``python -m sim --help``)."""

import sys

from sim.cli import run

sys.exit(run())
