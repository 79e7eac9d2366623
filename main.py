"""Start the astar-island demo: ``python main.py`` (see ``python main.py --help``)."""

import sys

if __name__ == "__main__":
    try:
        from sim.cli import run
    except KeyboardInterrupt:  # ctrl+C before anything started: one line, as at any later moment
        print("astar-island: interrupted", file=sys.stderr)
        sys.exit(130)
    sys.exit(run())
