"""Records nothing acts on yet, held for the next commit (issue 20: fewer fsyncs).

Two kinds are held: the lines of a game whose serial input is evidence
(``GameSpec.serial_evidence``: a wheel's status lines, two a second, most repeating the
one before) and a game's note alarms (``GameSpec.note_alarms``: a GPIO wheel's
``sensor_fault``, a correction of raw edges that are evidence too). The game reads each
line and makes each note at once; only the records they lead to (a state, a spin's
start, its verdict) are decisions. So they are not committed on their own: they go into
the commit of the next record the table journals, before it, in the order they came, or,
when none comes, into a commit of their own at most ``HELD_MAX_S`` after the first of
them (a background timer).

A kill before that commit loses them, with the raw edges and the bytes of a line not yet
complete that they describe, and loses nothing a verdict, a payout or a person's answer
rests on: every record that uses them is journaled after them, in the same commit.

A batch of a port's lines is one ``serial`` record: ``text`` the lines' bytes (a line
that repeats the one before it byte for byte is not written again), ``since`` the journal
time of the first line's first byte (s), ``lines`` one ``[us, size]`` a line (its first
byte's time in µs after ``since``, its length in ``text``, 0 for a repeat); a lone line
is ``text`` alone (``controller.store.shared.Serial``).
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

    def __bool__(self) -> bool:
        return bool(self._lines or self._notes)

    def line(self, t: float, port: str, text: str) -> bool:
        """Hold a line of ``port`` that began at ``t`` (journal time); True when it is the
        first thing held (a timer is due)."""
        first = not self
        self._lines.append((t, port, text))
        return first

    def note(self, t: float, type_: str, fields: dict[str, Any]) -> bool:
        """Hold a note (a record of ``type_`` at journal time ``t``); True when it is the
        first thing held."""
        first = not self
        self._notes.append((t, type_, fields))
        return first

    def take(self) -> list[Held]:
        """Every record held, oldest first (a port's lines as one ``serial`` record, at
        its first line's time), and nothing held any more."""
        lines, self._lines = self._lines, []
        out, self._notes = self._notes, []
        for port in dict.fromkeys(p for _, p, _ in lines):
            mine = [(t, text) for t, p, text in lines if p == port]
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
    entries: list[list[int]] = []
    previous = None
    for t, text in lines:
        repeat = text == previous
        entries.append([round((t - since) * 1e6), 0 if repeat else len(text)])
        if not repeat:
            parts.append(text)
        previous = text
    return {"text": "".join(parts), "since": round(since, 6), "lines": entries}
