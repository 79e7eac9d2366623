"""``python -m sim``: the demo (see ``python -m sim --help``)."""

import sys

from .cli import main

sys.exit(main())
