"""What the demo tells the user: the newest message shown in full, and a log of the last 50.

A message replaces the one shown (never a queue running off the screen); in the log, a
message on the same topic as the one before it (the words before its first colon:
"undo: 5 more steps" after "undo: 6 more steps") replaces it, so steps do not pile up.
Errors are also printed to stderr, where a terminal keeps them.
"""

from __future__ import annotations

import sys
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from sim.support.checks import one_line

Colour = tuple[int, int, int]
LOG_SIZE = 50


@dataclass
class Message:
    text: str
    colour: Colour
    at: float  # Messages.clock() when posted
    until: float  # shown until then

    @property
    def topic(self) -> str:
        head, colon, _ = self.text.partition(":")
        return head if colon and len(head) <= 40 else self.text

    def __getitem__(self, i: int) -> object:  # (text, colour, at), as tests and old callers read it
        return (self.text, self.colour, self.at)[i]


def say(line: str) -> None:
    """One line on the terminal (stderr: a headless run's figures stay alone on stdout), one line
    even where a map's or a file's name holds a newline: what the program is doing, and errors."""
    print(f"astar-island: {one_line(line)}", file=sys.stderr, flush=True)


class Messages:
    """The message shown now and the log (oldest first). ``errors`` are the colours that
    count as errors: those messages are also handed to ``echo`` (stderr by default). ``clock``
    (seconds, monotonic) is the one clock that messages and what the view draws of them (their
    fading, the log's ages) are timed by: a test sets it to compare two pictures of one moment."""

    def __init__(
        self,
        errors: tuple[Colour, ...],
        echo: Callable[[str], None] = say,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.errors = errors
        self.echo = echo
        self.clock = clock
        self.log: deque[Message] = deque(maxlen=LOG_SIZE)
        self.current: Message | None = None
        self._held_since: float | None = None  # a modal is up: messages wait (their time stands still)

    def post(self, text: str, colour: Colour, seconds: float = 6.0) -> None:
        now = self.clock()
        msg = Message(text, colour, now, now + seconds)
        if self.log and self.log[-1].topic == msg.topic:
            self.log.pop()  # the same topic again: it replaces the last one
        self.log.append(msg)
        self.current = msg
        if colour in self.errors:
            self.echo(text)

    def shown(self, now: float | None = None) -> Message | None:
        """The message on screen now (None once its time is up)."""
        now = self.clock() if now is None else now
        if self.current is not None and self.current.until <= now:
            self.current = None
        return self.current

    def hold(self, held: bool, now: float | None = None) -> None:
        """While ``held`` (a modal is up) the messages' time stands still: they wait, then show for
        as long as they had left."""
        now = self.clock() if now is None else now
        if held and self._held_since is None:
            self._held_since = now
        elif not held and self._held_since is not None:
            waited = now - self._held_since
            for m in self.log:
                m.until += waited
            self._held_since = None

    def clear(self) -> None:
        """Forget every message (the log too)."""
        self.log.clear()
        self.current = None

    def recent(self, now: float | None = None, most: int = 3) -> list[Message]:
        """The messages still showing, newest first (at most ``most``)."""
        now = self.clock() if now is None else now
        return [m for m in reversed(self.log) if m.until > now][:most]

    def __iter__(self) -> Iterator[Message]:
        return iter(self.log)

    def __len__(self) -> int:
        return len(self.log)

    def __getitem__(self, i: int) -> Message:
        return self.log[i]
