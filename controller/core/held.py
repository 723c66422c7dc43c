"""Records nothing acts on yet, held for the next commit (issue 20: fewer fsyncs).

Two kinds are held: the lines of a game whose serial input is evidence
(``GameSpec.serial_evidence``: a wheel's status lines, two a second, most repeating the
one before) and a game's note alarms (``GameSpec.note_alarms``: a GPIO wheel's
``sensor_fault``, a correction of raw edges that are evidence too). The game reads each
line and makes each note at once; only the records they lead to (a state, a spin's
start, its verdict) are decisions. So they are not committed on their own: they go into
the commit of the next record they may lead to, before it, in the order they came (notes:
any record; lines: any but those of a bet or a person's input, which no line leads to:
the wheel's own lines, its link's silence, its timers), or, when none comes, into a commit
of their own at most ``HELD_MAX_S`` after the first of them (a background timer), and at
a stop.

A kill before that commit loses them, with the raw edges and the bytes of a line not yet
complete that they describe, and loses nothing a verdict, a payout or a person's answer
rests on: every record that uses them is journaled after them, in the same commit.

A batch of a port's lines is one ``serial`` record: ``text`` the lines' bytes (a line
that repeats the one before it byte for byte is not written again), ``since`` the journal
time of the first line's first byte (s), ``lines`` one entry a line, space-separated:
its first byte's time in µs after the line before it's (the first's after ``since``, so
0), then ``+size`` (its length in ``text``) when it is not a repeat: ``"0+25 500012
499980+25"``. A lone line is ``text`` alone (``controller.store.shared.Serial``).
"""

from __future__ import annotations

from typing import Any

HELD_MAX_S = 30.0
"""A held line or note is journaled at most this long (s, controller clock) after the
first held: the most a kill can lose of them."""

Held = tuple[float, str, dict[str, Any]]
"""A record to journal: (journal time, s; its type; its fields, without ``t``)."""


class HeldRecords:
    """The lines and notes held for the next commit, in the order they came."""

    def __init__(self) -> None:
        self._lines: list[tuple[float, str, str]] = []  # (journal time, port, text)
        self._notes: list[Held] = []
        # Something is held: read before every record, a plain attribute (a __bool__
        # would be a call each time).
        self.any = False

    def counts(self) -> tuple[int, int]:
        """(lines, notes) held now."""
        return len(self._lines), len(self._notes)

    def line(self, t: float, port: str, text: str) -> bool:
        """Hold a line of ``port`` that began at ``t`` (journal time); True when it is the
        first thing held (a timer is due)."""
        first = not self.any
        self._lines.append((t, port, text))
        self.any = True
        return first

    def note(self, t: float, type_: str, fields: dict[str, Any]) -> bool:
        """Hold a note (a record of ``type_`` at journal time ``t``); True when it is the
        first thing held."""
        first = not self.any
        self._notes.append((t, type_, fields))
        self.any = True
        return first

    def take(self, lines: bool = True) -> list[Held]:
        """Every note held and (``lines``) every line, oldest first (a port's lines as
        one ``serial`` record, at its first line's time), no longer held."""
        out, self._notes = self._notes, []
        self.any = bool(self._lines) and not lines
        if not lines:
            return out
        held, self._lines = self._lines, []
        for port in dict.fromkeys(p for _, p, _ in held):
            mine = [(t, text) for t, p, text in held if p == port]
            fields: dict[str, Any] = {"port": port, "text": mine[0][1]}
            if len(mine) > 1:
                fields.update(batch_of_lines(mine))
            out.append((mine[0][0], "serial", fields))
        return sorted(out, key=lambda held: held[0])


def batch_of_lines(lines: list[tuple[float, str]]) -> dict[str, Any]:
    """The ``text``, ``since`` and ``lines`` of a batch of a port's lines ((journal time,
    text) each, in order): a line that repeats the one before it is not written again."""
    since = lines[0][0]
    parts: list[str] = []
    entries: list[str] = []
    previous, last_us = None, 0
    for t, text in lines:
        us = round((t - since) * 1e6)
        entry = str(us - last_us)
        last_us = us
        if text != previous:
            parts.append(text)
            entry += f"+{len(text)}"
        entries.append(entry)
        previous = text
    return {"text": "".join(parts), "since": round(since, 6), "lines": " ".join(entries)}


def lines_of(rec: dict[str, Any]) -> list[tuple[float, str]]:
    """Each line of a batch of lines (a ``serial`` record with ``lines``), as (journal
    time, s; its text), in order. A journal written before the compact form has ``lines``
    as ``[[us after since, size], ...]`` (size 0: a repeat); both are read.

    Raises:
        ValueError: ``lines`` is neither form, or its sizes run past ``text``.
    """
    text, since = rec["text"], rec["since"]
    lines = rec["lines"]
    pairs: list[tuple[int, int]] = []
    if isinstance(lines, str):
        at = 0
        for entry in lines.split():
            delta, _, length = entry.partition("+")
            at += int(delta)
            pairs.append((at, int(length) if length else 0))
    elif isinstance(lines, list):
        pairs = [(int(us), int(size)) for us, size in lines]
    else:
        raise ValueError(f"lines is {type(lines).__name__}, not a string")
    out: list[tuple[float, str]] = []
    start, line = 0, ""
    for us, size in pairs:
        if size:
            if start + size > len(text):
                raise ValueError(f"a size of {size} runs past the text")
            line = text[start:start + size]
            start += size
        out.append((round(since + us / 1e6, 6), line))
    return out
