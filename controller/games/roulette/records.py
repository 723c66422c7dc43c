"""Roulette's record types (seed 001; CONTRACT §3, §5), and the ``game`` number it adds to
shared alarms (``controller.store.records``).

A spin's start, its conclusion (result, invalid, held) close the open evidence batch: they
carry the SHA-256 of the raw GPIO edges since the last one (``evidence``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import fields
from typing import Any

from controller.store.records import ABSENT, Absent, Group, Record, extends, group, record
from controller.store.shared import Alarm


@record("spin_start", closes_evidence=True)
class SpinStart(Record):
    """A ball launched: spin ``spin`` starts with ``bets`` on the layout and its limits."""

    spin: int
    bets: int
    limits: dict[str, int]


@group
class Measured(Group):
    """What the wheel measured of a spin (CONTRACT §3), whichever its source: revolutions,
    directions, laps and rotor periods (seconds), pocket readings, the details of each
    reason; a spin voided by a restart has none. A wheel that reports over serial (issue
    12) gives what its status lines said: the ball revolutions only in its extended lines
    (null when it gave none: unknown, never guessed), its game counter and warning flags,
    the lines read, the bare number lines, the line that concluded the spin, and what
    stayed ``uncertain`` beside an Art. 12 reason. A spin's conclusion carries it as its
    ``measured`` (the wheel's tracker makes it), its fields in the record's body."""

    ball_revolutions: int | Absent | None = ABSENT
    ball_direction: str | Absent | None = ABSENT
    rotor_direction: str | Absent | None = ABSENT
    rotor_rpm: float | Absent | None = ABSENT
    launch_t: float | Absent = ABSENT
    left_t: float | Absent | None = ABSENT
    lap_times: list[float] | Absent = ABSENT
    rotor_periods: list[float] | Absent = ABSENT
    pocket_readings: list[dict[str, Any]] | Absent = ABSENT
    details: dict[str, Any] | Absent = ABSENT
    release_index: int | Absent = ABSENT  # the pocket under the ball at its launch
    ball_revolutions_max: int | Absent = ABSENT
    recovered_passes: list[dict[str, Any]] | Absent = ABSENT
    sensor_faults: dict[str, int] | Absent = ABSENT
    decided_by: str | Absent = ABSENT  # a held spin decided by a person (CONTRACT §5)
    # Issue 16: a held spin parked (its bets frozen while the next games go on), and the
    # decision on it (journaled whenever it comes, with the settlements of its bets).
    parked: bool | Absent = ABSENT
    held_for: dict[str, str] | Absent | None = ABSENT
    # The serial wheel's (controller.games.roulette.serial_wheel.play).
    no_more_bets_t: float | Absent | None = ABSENT
    wheel_source: str | Absent = ABSENT
    wheel_game: int | Absent = ABSENT
    wheel_flags: list[int] | Absent = ABSENT
    wheel_flags_before_launch: list[int] | Absent = ABSENT
    rotor_rpm_min: float | Absent | None = ABSENT
    status_lines: int | Absent = ABSENT
    bare_numbers: list[str | None] | Absent = ABSENT
    state5_numbers: list[str | None] | Absent = ABSENT  # NN of the state-5 lines of play
    candidates: list[str] | Absent = ABSENT  # a held spin: the numbers its lines gave
    concluded_by: str | Absent | None = ABSENT
    uncertain: dict[str, str] | Absent = ABSENT


_MEASURED = frozenset(f.name for f in fields(Measured))


def measured_of(record: Mapping[str, Any], leave: Iterable[str] = ()) -> Measured:
    """What a journaled spin record (a dict) holds of its measurements, but ``leave``."""
    return Measured(**{k: v for k, v in record.items() if k in _MEASURED and k not in leave})


@record("spin_result", closes_evidence=True)
class SpinResult(Record):
    """A result: the winning ``number`` and its ``pocket_index`` in the wheel order."""

    spin: int
    number: str
    pocket_index: int
    measured: Measured = Measured()


@record("spin_invalid", closes_evidence=True)
class SpinInvalid(Record):
    """A spin voided ("tiro no válido", Art. 12): the first ``reason`` and all ``reasons``."""

    spin: int
    reason: str
    reasons: list[str]
    measured: Measured = Measured()


@record("spin_held", closes_evidence=True)
class SpinHeld(Record):
    """A spin held for the inspector (CONTRACT §5): why, and the number the evidence
    points to (``candidate``), if any."""

    spin: int
    reason: str
    candidate: str | None
    measured: Measured = Measured()


@record("bet")
class Bet(Record):
    """A bet taken for ``game``: every field of the bet input (CONTRACT §2)."""

    game: int
    kind: str
    box: int
    amount: int
    numbers: list[str] | Absent = ABSENT
    which: int | Absent = ABSENT


@record("limits_announced")
class LimitsAnnounced(Record):
    """Seed 001 Art. 16: the players are told of a limits change before it takes effect
    ("previa comunicación a los jugadores que se encuentran en la mesa"): the limits to come
    (whole chips); ``applies`` ``now`` (the table is closed) or ``after_game`` (once game
    ``game`` is settled); the ``text`` a display shows, "from the next spin, limits
    5–500"."""

    game: int
    min_bet: int
    max_bet: int
    applies: str
    text: str


@extends
class AlarmGame(Alarm):
    game: int | Absent = ABSENT


RECORDS: tuple[type, ...] = (SpinStart, SpinResult, SpinInvalid, SpinHeld, Bet, LimitsAnnounced,
                             AlarmGame)
"""Everything a roulette table journals besides the shared records."""
