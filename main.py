"""Start the astar-island demo: ``python main.py`` (see ``python main.py --help``)."""

import sys

from sim.cli import run

if __name__ == "__main__":
    sys.exit(run())
