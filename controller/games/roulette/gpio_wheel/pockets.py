"""The winning pocket, from ``ball_pocket`` readings and the rotor (CONTRACT §1, §5).

A reading is decoded with the whole rotor revolution it falls in (CONTRACT §1 "Winning
pocket"). Two consecutive readings give the pocket when both decode to it about one rotor
turn apart, or when the second comes one rotor turn after the first to within a quarter
pocket of the turn its rotor's trend predicts (the same pocket by construction), without
waiting for the second's revolution to close. Whether that pocket is a result or the ball
was suspended is Art. 12 (c) (:func:`controller.games.roulette.art12.ball_suspended`).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from controller.games.roulette.gpio_wheel.rotor import Revolution
from controller.games.roulette.gpio_wheel.spin_record import PocketReading

_FREE_ROTOR = 0.05  # a rotor turning freely changes its period by less than this a turn


def free_trend(rev: Revolution, prev: Revolution | None) -> float | None:
    """How much longer (seconds) the whole revolution ``rev`` was than ``prev``, the whole one
    just before it, when the rotor turned freely (a few % a turn at most): it predicts the
    next turn's period well within a quarter pocket. None otherwise."""
    if (prev is not None and rev.whole and prev.end == rev.start
            and abs(rev.period - prev.period) <= _FREE_ROTOR * rev.period):
        return rev.period - prev.period
    return None


def decode(readings: Sequence[PocketReading], rev: Revolution, order: tuple[str, ...],
           trend: float | None, pocket_deg: float = 0.0) -> None:
    """Decode the readings not decoded yet that fall in the whole revolution ``rev`` (its
    direction known): k = round(f × N) mod N at fraction f of it; index (N − k) mod N turning
    clockwise, k counterclockwise (CONTRACT §1).

    ``pocket_deg`` is the ``ball_pocket`` sensor's angle clockwise of ``rotor_a``
    (``[roulette] ball_pocket_deg``; the contract's 0° by default, where this is exactly
    the rule above): the pocket under a sensor at φ is the one the rule gives at fraction
    f − φ/360 turning clockwise, f + φ/360 counterclockwise.
    """
    n = len(order)
    shift = pocket_deg / 360.0 if rev.direction == "cw" else -pocket_deg / 360.0
    for reading in readings:
        if reading.index is None and rev.start <= reading.t < rev.end:
            x = ((reading.t - rev.start) / rev.period - shift) * n
            k = round(x) % n
            reading.margin_deg = (0.5 - abs(x - round(x))) * 360.0 / n
            reading.index = (n - k) % n if rev.direction == "cw" else k
            reading.number = order[reading.index]
            reading.period = rev.period
            reading.fraction = (reading.t - rev.start) / rev.period
            reading.trend = trend


def confirmed(readings: Sequence[PocketReading], pockets: int) -> PocketReading | None:
    """The first reading of the first pair of consecutive readings that confirms a pocket
    (see the module's docstring), or None; ``pockets`` is N, the wheel's pocket count."""
    for first, second in itertools.pairwise(readings):
        if first.index is None or first.period is None:
            continue
        gap = second.t - first.t
        same = (second.index == first.index
                and 0.5 * first.period <= gap <= 1.5 * first.period)
        one_turn = (second.index is None and first.trend is not None
                    and not (first.orphan or second.orphan)
                    and abs(gap - first.period - first.fraction * first.trend)
                    <= first.period / (4 * pockets))
        if same or one_turn:
            return first
    return None


def first_decoded(readings: Sequence[PocketReading]) -> int | None:
    """The pocket (index) of the first reading decoded, for the inspector of a held spin."""
    decoded = [r.index for r in readings if r.index is not None]
    return decoded[0] if decoded else None
