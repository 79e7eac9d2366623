"""Key tables: each mode declares its keys once, as (keys, what it does, action).

The same table dispatches key presses to the mode's methods and writes the help
overlay (and the README's key tables, which a test keeps in step with these).
"""

from __future__ import annotations

from dataclasses import dataclass
from operator import attrgetter

import pygame


@dataclass(frozen=True)
class Binding:
    """One row: ``keys`` as people write them, what they do, and what runs.

    ``action`` names a method of the mode (or of a part it holds: ``"painting.undo"``),
    called with the event; ``None`` marks a mouse action (handled in the mode's ``handle``,
    listed here for the help). ``codes`` are pygame key codes; ``mods`` a modifier that
    must be held (e.g. ``pygame.KMOD_CTRL``).
    """

    keys: str
    does: str
    action: str | None = None
    codes: tuple[int, ...] = ()
    mods: int = 0


class KeyTable:
    """A mode's bindings, in the order the help shows them."""

    def __init__(self, title: str, bindings: list[Binding]) -> None:
        self.title = title
        self.bindings = bindings
        # Bindings that need a modifier are tried first: ctrl+S saves, plain S pans.
        self._order = sorted(bindings, key=lambda b: b.mods == 0)

    def find(self, key: int, mod: int) -> Binding | None:
        """The binding for this key with these modifiers held, if any."""
        for b in self._order:
            if key in b.codes and (b.mods == 0 or mod & b.mods):
                if b.mods == 0 and mod & pygame.KMOD_CTRL and any(key in o.codes and o.mods for o in self.bindings):
                    continue  # ctrl held but this is the plain binding of a ctrl key
                return b
        return None

    def dispatch(self, target: object, event: pygame.event.Event) -> bool:
        """Run the action bound to this key press on ``target``; False when none is bound."""
        b = self.find(event.key, getattr(event, "mod", 0))
        if b is None or b.action is None:
            return False
        result = attrgetter(b.action)(target)(event)  # a method of the mode, or of a part it holds ("painting.undo")
        return result is not False

    def plus(self, bindings: list[Binding]) -> KeyTable:
        """A table with these rows after this one's (the same title)."""
        return KeyTable(self.title, [*self.bindings, *bindings])

    def rows(self) -> list[tuple[str, str]]:
        """(keys, what they do) for the help and the README."""
        return [(b.keys, b.does) for b in self.bindings]


def key(keys: str, does: str, action: str | None, *codes: int, mods: int = 0) -> Binding:
    """Shorthand for a table row."""
    return Binding(keys, does, action, tuple(codes), mods)


def mouse(keys: str, does: str) -> Binding:
    """A mouse row (handled by the mode's ``handle``)."""
    return Binding(keys, does)


CTRL = pygame.KMOD_CTRL
PLUS_KEYS = (pygame.K_PLUS, pygame.K_EQUALS, pygame.K_KP_PLUS)
MINUS_KEYS = (pygame.K_MINUS, pygame.K_KP_MINUS)


def markdown(tables: list[KeyTable]) -> str:
    """The key tables as Markdown (``#### title`` and a table each), as docs/demo.md shows them."""
    out = []
    for t in tables:
        out += [f"#### {t.title}", "", "| keys | what they do |", "|---|---|"]
        out += [f"| `{keys}` | {does} |" for keys, does in t.rows()]
        out.append("")
    return "\n".join(out)


BEGIN = "<!-- key tables: made by `python -m sim.view.keydocs --write docs/demo.md` from the modes; do not edit -->"
END = "<!-- end of the key tables -->"
