"""Seed 001 Art. 12: when a throw is invalid ("tiro no válido"), as pure functions.

Every verdict of Art. 12 is here, one function per finding: measured quantities in (counts,
seconds, rpm, directions "cw" or "ccw"), a :class:`Finding` (or nothing) out. The wheel
trackers (``controller.games.roulette.gpio_wheel``, ``controller.games.roulette.
serial_wheel``) measure and call them; nothing here keeps state, reads a sensor or a clock.
The reason codes and their order are CONTRACT §1's.

The seed's text (``../shared/seeds/001_747107c4675e9df2.txt``) is quoted as it stands;
"MORDAZA" is the placeholder its source put for a word it withheld. Decisions where it
leaves room are RULES.md §1's: (a), (b), (c), (f) and (g) come from the sensors, (d) and
(e), and any case, from the dealer or inspector.

Some evidence cannot decide a verdict with certainty (passes missed by both ball sensors
around the minimum): then the function says so with :class:`Uncertain`, and the spin is
held for the inspector (CONTRACT §5), never given a verdict.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import NamedTuple

from controller.core.words import given

REASONS = (
    "too_few_revolutions",  # (a)
    "same_direction",  # (b)
    "ball_suspended",  # (c)
    "ball_out_of_wheel",  # (d)
    "foreign_object",  # (e)
    "wheel_malfunction",  # (f)
    "wheel_stopped",  # (g)
)
"""The reason codes of CONTRACT §1, in its table's order (Art. 12 a-g)."""

DEALER_REASONS = ("ball_out_of_wheel", "foreign_object", "wheel_malfunction", "wheel_stopped")
"""The reasons a dealer or inspector may give to void a spin (Art. 12 d-g; RULES.md §1)."""


class Finding(NamedTuple):
    """An Art. 12 finding: its ``reason`` (one of :data:`REASONS`) and what was measured, in
    words (``detail``, journaled in the record's ``details``)."""

    reason: str
    detail: str


class Uncertain(NamedTuple):
    """Evidence that cannot decide an Art. 12 verdict: the ``input`` (or cause) at fault and
    why, in words; the spin is held for the inspector (CONTRACT §5)."""

    input: str
    detail: str


def ordered(reasons: Collection[str]) -> tuple[str, ...]:
    """The reasons found, in CONTRACT §1's order: "when more than one applies, report the
    first in this table's order and list all in ``reasons``" (the first is the record's
    ``reason``). Codes that are not Art. 12 reasons are left out."""
    return tuple(r for r in REASONS if r in reasons)


# -- (a) --------------------------------------------------------------------------------
def too_few_revolutions(fewest: int, most: int, minimum: int) -> Finding | Uncertain | None:
    """Art. 12 (a): "Cuando la bolita no ha dado el minimo de vueltas (3) MORDAZA que caiga
    al disco o plato."

    Args:
        fewest: the ball revolutions surely made (``ball_a`` passes, seen or recovered).
        most: the revolutions it may have made (passes both ball sensors may have missed).
        minimum: ``min_ball_revolutions`` (3 by the seed; a jurisdiction may ask for more).

    Returns:
        A finding when even ``most`` is below the minimum; :class:`Uncertain` (``ball_a``)
        when the range straddles it; None when the ball surely made the minimum.
    """
    if most < minimum:
        return Finding("too_few_revolutions", f"{most} ball revolution{'' if most == 1 else 's'}, "
                       f"fewer than {minimum}")
    if fewest < minimum:
        return Uncertain("ball_a", f"between {fewest} and {most} ball revolutions (passes "
                         f"missed by both ball sensors); the minimum is {minimum}")
    return None


# -- (b) --------------------------------------------------------------------------------
def same_direction(ball: str | None, rotor: str | None) -> Finding | None:
    """Art. 12 (b): "Cuando la bolita gira en el mismo sentido de la Ruleta."

    ``ball`` and ``rotor`` are the directions measured ("cw", "ccw"; None when unknown). A
    finding only when both are known and equal.
    """
    if ball is not None and ball == rotor:
        return Finding("same_direction", f"ball and rotor both turn {ball}")
    return None


def ball_direction_unmeasured(ball: str | None, fewest: int, minimum: int) -> Uncertain | None:
    """Art. 12 (b) cannot be judged: the ball made revolutions enough to measure its direction
    (``fewest`` >= ``minimum``) but ``ball_b`` told nothing certain of it (``ball`` None)."""
    if ball is None and fewest >= minimum:
        return Uncertain("ball_b", "the ball's direction was not measured (no lap with one "
                         "ball_b pass in it): Art. 12 (b) cannot be judged")
    return None


# -- (c) --------------------------------------------------------------------------------
def ball_suspended(first_reading: float | None, wait_end: float, wait: float
                   ) -> Finding | None:
    """Art. 12 (c): "Si la bolita queda suspendida de la Ruleta sin caer en cualquiera de los
    casilleros. Se debera esperar como minimo 6 revoluciones para anunciar que el tiro no es
    valido." (RULES.md decision: 6 rotor revolutions from the ball leaving the track.)

    Args:
        first_reading: time (seconds) of the ball's first pocket reading, None if none came
            within the wait.
        wait_end: when the wait of ``wait`` rotor revolutions ended (seconds).
        wait: ``suspended_wait_rotor_revolutions`` (at least the seed's 6).

    Returns:
        A finding when no reading came within the wait, or the pocket confirmed was first
        read after it; None when the ball was read within it (never declared earlier).
    """
    if first_reading is None:
        return Finding("ball_suspended", f"no pocket reading within {wait:g} rotor revolutions "
                       f"of the ball leaving the track (they ended at {wait_end:.3f} s)")
    if first_reading > wait_end:
        return Finding("ball_suspended", f"first pocket reading at {first_reading:.3f} s, "
                       f"after the wait ended at {wait_end:.3f} s")
    return None


# -- (d), (e) and the dealer's reasons ---------------------------------------------------
def declared(reason: str) -> Finding:
    """Art. 12 (d) "Cuando la bolita sale del area de la ruleta por efecto del lanzamiento o
    producto de un rebote", (e) "Si cae un objeto extrano mientras este girando la bolita",
    and (f), (g) as the dealer or inspector sees them: the spin voided by a person with one of
    :data:`DEALER_REASONS`.

    Raises:
        ValueError: ``reason`` is not one of :data:`DEALER_REASONS`.
    """
    if reason not in DEALER_REASONS:
        raise ValueError(f"{given(reason)} is not one of {', '.join(DEALER_REASONS)} (Art. 12 d-g)")
    return Finding(reason, "declared by the dealer")


# -- (f) --------------------------------------------------------------------------------
def wheel_malfunction_slow(rpm: float, min_rpm: float) -> Finding | None:
    """Art. 12 (f): "Cuando el disco o plato sufra algun desperfecto mecanico u otro motivo
    que impida su normal revolucion": a whole rotor revolution at ``rpm`` below ``min_rpm``
    (``min_rotor_rpm``, default 5) while the ball is in play."""
    if rpm < min_rpm:
        return Finding("wheel_malfunction", f"rotor at {rpm:.2f} rpm, below {min_rpm} rpm")
    return None


def wheel_malfunction_reversed(before: str | None, after: str | None, t: float
                               ) -> Finding | None:
    """Art. 12 (f): the rotor's direction flipped from ``before`` to ``after`` (measured in
    the revolution ending at ``t`` seconds) after slowing down, while the ball is in play."""
    if before is not None and after is not None and after != before:
        return Finding("wheel_malfunction",
                       f"rotor direction flipped to {after} at {t:.3f} s after slowing down")
    return None


def wheel_malfunction_sensors(revolutions: int) -> Finding:
    """Art. 12 (f), as CONTRACT §1 (f) detects it: the rotor sensors disagree, ``rotor_a``
    firing every revolution (``revolutions`` of them in a row, steady) while ``rotor_b``
    never fired in the spin: the rotor's direction cannot be measured."""
    return Finding("wheel_malfunction", f"rotor_a fired every revolution ({revolutions} in "
                   "a row, steady) and rotor_b never fired in the spin: the rotor sensors "
                   "disagree")


# -- (g) --------------------------------------------------------------------------------
def wheel_stopped_period(period: float, previous: float | None, max_ratio: float
                         ) -> Finding | None:
    """Art. 12 (g): "Cuando alguien detenga el giro del Disco o Plato": a rotor revolution of
    ``period`` seconds longer than ``max_ratio`` (``max_rotor_period_ratio``, default 1.5)
    times the one before (``previous`` seconds, None when unknown)."""
    if previous is not None and period > max_ratio * previous:
        return Finding("wheel_stopped", f"rotor period {period:.3f} s is more than "
                       f"{max_ratio} x the previous {previous:.3f} s")
    return None


def wheel_stopped_silent(t: float, last_rotor_a: float | None) -> Finding:
    """Art. 12 (g): no ``rotor_a`` activation by ``t`` seconds, twice the rotor's last period
    after its last one at ``last_rotor_a`` (CONTRACT §1), while the ball is in play."""
    return Finding("wheel_stopped", f"no rotor_a activation by {t:.3f} s (twice the last "
                   f"period) after {last_rotor_a:.3f} s")


def wheel_stopped_still() -> Finding:
    """Art. 12 (g): the rotor is not turning while the ball is in play: no ``rotor_a`` known
    (never seen, or silent since it stopped) and no ``rotor_b`` lately either."""
    return Finding("wheel_stopped", "the rotor is not turning while the ball is in play")



# -- what an automated wheel reports of itself (issue 12) --------------------------------
def same_direction_reported(detail: str) -> Finding:
    """Art. 12 (b), "Cuando la bolita gira en el mismo sentido de la Ruleta", as an automated
    wheel's own sensors report it during play (its warning flag 2); ``detail`` says where
    (the status line, its time)."""
    return Finding("same_direction", f"the wheel reported the ball turning with the rotor "
                   f"(warning flag 2): {detail}")


def wheel_malfunction_reported(detail: str) -> Finding:
    """Art. 12 (f), "Cuando el disco o plato sufra algun desperfecto mecanico u otro motivo
    que impida su normal revolucion", as an automated wheel reports it during play: a
    sensor, motor or encoder fault (its warning flag 4); ``detail`` says where."""
    return Finding("wheel_malfunction", f"the wheel reported a sensor, motor or encoder "
                   f"fault (warning flag 4): {detail}")


def reason_not_named(cause: str, detail: str) -> Uncertain:
    """What an automated wheel reports during play that names no Art. 12 reason (the ball
    removed or not sensed, a void game or a failed launch: its flags 1 and 8): the spin is
    not a result, and which article voids it is for the dealer or inspector to say
    (:func:`declared`, RULES.md §1); until then it is held (CONTRACT §5). ``cause`` names
    it (e.g. ``wheel_flag_8``), ``detail`` says what was reported."""
    return Uncertain(cause, f"{detail}: no Art. 12 reason is named; the dealer or inspector "
                     "voids the spin with one (void reason=...) or gives its number "
                     "(confirm_result)")
