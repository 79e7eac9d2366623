"""The key tables as docs: ``python -m sim.view.keydocs [--write docs/demo.md]``.

docs/demo.md holds every mode's key table between two markers; this writes them from the
modes' own tables (a test fails when they differ), so the docs never need editing by hand.
"""

from __future__ import annotations

import sys

from sim.view.app import App
from sim.view.keys import BEGIN, END, KeyTable, markdown
from sim.view.modes import MODES


def all_tables() -> list[KeyTable]:
    """The global table, then every mode's, in the help's order."""
    return [App.keys] + [m.keys for m in sorted(MODES, key=lambda m: m.help_order)]


def main(argv: list[str] | None = None) -> int:
    """``python -m sim.view.keydocs [--write FILE]``: print the key tables, or put them into FILE
    between its markers."""
    import argparse
    from pathlib import Path

    ap = argparse.ArgumentParser(prog="python -m sim.view.keydocs")
    ap.add_argument("--write", type=Path, help="a Markdown file with the markers: replace what is between them")
    args = ap.parse_args(argv)
    text = markdown(all_tables())
    if args.write is None:
        print(text)
        return 0
    doc = args.write.read_text(encoding="utf-8")
    head, rest = doc.split(BEGIN, 1)
    _old, tail = rest.split(END, 1)
    args.write.write_text(f"{head}{BEGIN}\n\n{text}\n{END}{tail}", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
