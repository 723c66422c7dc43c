"""The record types every table writes (or reads in older journals), declared once.

Fields as :mod:`controller.store.records` reads them: a default of ``ABSENT`` makes a field
optional; ``X | None`` may be null. A game adds its own tag to a shared record (roulette
its ``game`` number on an alarm, a card game its ``coup``) with ``@extends`` (a subclass)
in its package's ``records.py``. CONTRACT §3 fixes ``alarm`` and ``settlement``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from controller.store.records import ABSENT, NO_FIELDS, Absent, Record, record


@record("alarm")
class Alarm(Record):
    """Something a person must know: ``code`` (a short name) and ``message`` in words; a
    refused bet's alarm carries the bet input whole (``bet``), its one record."""

    code: str
    message: str
    bet: dict[str, Any] | Absent = ABSENT
    dropped: int | Absent = ABSENT
    """``journal_failing``: the hardware events dropped while the journal failed (a card
    table's shoe bytes among them: ``controller.cards.waiting``)."""


@record("input", extra=True)
class Input(Record):
    """A dealer's or inspector's input (CONTRACT §2 ``input``), its arguments as given
    (``args``: the undeclared fields of the body); ``source`` ``button`` for a press of a
    dealer button on a card table."""

    action: str
    source: str | Absent = ABSENT
    args: Mapping[str, Any] = NO_FIELDS


@record("dealer")
class Dealer(Record):
    """Who deals from now on (``tablectl input dealer name=...``): the dealer of every
    game after it, until the next (issue 21: surveillance's figures per dealer)."""

    name: str


@record("serial")
class Serial(Record):
    """Bytes that arrived on a serial port, ``text`` one character per byte (latin-1).

    A batch of a wheel's lines (issue 20), journaled with the record they led to or at
    most ``HELD_MAX_S`` after the first (``controller.core.held``), has ``since``, the
    journal time of its first line's first byte (s), and ``lines``: per line, in order,
    its first byte's time in µs after the line before it, and ``+size`` (its length in
    ``text``) unless it repeats the line before it byte for byte (then it is not in
    ``text`` again): ``"0+25 500012 499980+25"``. Journals of before read ``[[us after
    since, size], ...]``."""

    port: str
    text: str
    since: float | Absent = ABSENT
    lines: str | list[Any] | Absent = ABSENT


@record("port")
class Port(Record):
    """A serial port went away (``up`` false) or came back."""

    port: str
    up: bool
    detail: str


@record("startup")
class Startup(Record):
    """The daemon started: its version, config file, game, and whether simulated."""

    version: str
    config: str
    game: str
    simulated: bool


@record("shutdown")
class Shutdown(Record):
    """The daemon stops in order (SIGTERM, SIGINT): nothing after it until a ``startup``."""

    reason: str


@record("state")
class State(Record):
    """A move of a table's round (``from`` -> ``to`` on ``trigger``), with the limits in
    force for its ``game`` (seed 001 Art. 16)."""

    game: int
    trigger: str
    from_: str
    to: str
    limits: dict[str, int]


@record("config_change")
class ConfigChange(Record):
    """A setting the pit changed: limits ``requested`` during a game, ``applied`` after it
    (seed 001 Art. 16)."""

    key: str
    min_bet: int
    max_bet: int
    status: str
    note: str | Absent = ABSENT


@record("settlement")
class Settlement(Record):
    """One bet settled (CONTRACT §3): ``payout`` is the net amount won (0 on a push, minus
    the stake on a loss), in chips."""

    game: int
    box: int
    kind: str
    amount: int
    outcome: str
    payout: float
    numbers: list[str] | Absent = ABSENT
    which: int | Absent = ABSENT
    note: str | Absent = ABSENT


@record("recovery")
class Recovery(Record):
    """A card table resumed after a restart: ``inputs`` played again since ``since`` (the
    checkpoint it started from; 0: the journal's start), the records they gave that
    matched the journal, the first ``mismatch`` (None when all did), the ``state``."""

    inputs: int
    records_checked: int
    mismatch: str | None
    state: str
    since: int | Absent = ABSENT
    records_completed: int | Absent = ABSENT  # journals of format 1 only


@record("checkpoint")
class Checkpoint(Record):
    """A game boundary (a settled spin, a closed shoe): ``state`` holds what a fresh table
    of ``game`` needs to go on from here (its own part, given by the game); a restart
    verifies and recovers from the last one. ``previous`` is the seq of the checkpoint
    before it (0: none)."""

    game: str
    boundary: str
    state: dict[str, Any]
    previous: int


@record("evidence", closes_evidence=True)
class Evidence(Record):
    """Closes the open evidence batch of raw GPIO edges when no decision did: ``reason``
    ``interval`` (between spins, while the rotor turns), ``size``, or ``stop``."""

    reason: str


@record("seal")
class Seal(Record):
    """A forward-secure seal of the journal up to ``head_seq`` (its ``head_hash``), with the
    key of ``epoch``: ``mac`` = HMAC-SHA256 over them, ``sealed_at`` and ``interval_s``
    (the cadence promised), ``controller.store.seal``."""

    epoch: int
    head_seq: int
    head_hash: str
    sealed_at: float
    interval_s: float
    mac: str


@record("upgrade")
class Upgrade(Record):
    """The journal was upgraded from format ``from_format`` (its ``records`` kept as
    written) to ``to_format``."""

    from_format: int
    to_format: int
    records: int


@record("gpio", legacy=True)
class Gpio(Record):
    """A raw GPIO edge as format 1 journaled it, one record an edge (read, never made:
    edges now go into evidence batches)."""

    input: str
    level: int


@record("bet_request", legacy=True, extra=True)
class BetRequest(Record):
    """A card table's bet input as journals before issue 7 held it (read, never made)."""


RECORDS: tuple[type, ...] = (Alarm, Input, Dealer, Serial, Port, Startup, Shutdown, State,
                             ConfigChange, Settlement, Recovery, Checkpoint, Evidence, Seal,
                             Upgrade, Gpio, BetRequest)
"""The shared record types, in every table's schema."""
