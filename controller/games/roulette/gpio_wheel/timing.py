"""How far the stamps of one spin can be trusted, and each pocket reading's angle error
(issue 16: timing you cannot trust; CONTRACT §1 "Winning pocket", §5).

A pocket is decoded from three stamps: the reading's and the two ``rotor_a`` passes of its
revolution. A constant delay of all three cancels out; what moves the pocket is how much
later one was stamped than another (a pin factory without kernel timestamps, a loaded
kernel, a player that fell behind). The evidence shows that spread where the geometry
fixes a time: ``rotor_b`` comes a fixed angle after ``rotor_a`` (a fixed share of each
revolution, whatever its period, at a heavy rotor's nearly steady speed within a turn),
and a resting ball passes ``ball_pocket`` at the same point of each revolution. The
largest departure seen (:func:`stamp_spread`, seconds) bounds each reading's angle error:
its fraction of a turn is off by at most twice it over the period (the reading against
the revolution's start, the period's own end against its start). When that bound reaches
the edge of the decoded pocket the number is not certain: the spin is held with it as the
candidate.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence

from controller.games.roulette.gpio_wheel.rotor import Revolution
from controller.games.roulette.gpio_wheel.spin_record import PocketReading

RESOLUTION_S = 1e-6  # a trace's and a driver's stamps: to the microsecond


def rotor_b_spread(revs: Sequence[Revolution]) -> float:
    """The largest departure (seconds) of a ``rotor_b`` stamp from the share of its
    revolution the others put it at (clockwise it follows ``rotor_a``, counterclockwise it
    precedes the next one), over whole measured revolutions ``revs``."""
    offsets = [((r.b_at - r.start) / r.period if r.direction == "cw"
                else (r.end - r.b_at) / r.period, r.period)
               for r in revs if r.b_at is not None and r.direction is not None]
    if len(offsets) < 2:
        return 0.0
    middle = statistics.median(o for o, _ in offsets)
    return max(abs(o - middle) * p for o, p in offsets)


def pair_spread(first: PocketReading, second: PocketReading | None) -> float:
    """How far (seconds) two readings of the resting ball, about a turn apart and each
    decoded in its own revolution, disagree about where in its turn the ball is: the same
    point of each revolution. (A second reading not decoded yet was checked against the
    turn the rotor's trend predicts, to a quarter pocket: :func:`pockets.confirmed`.)
    """
    if (second is None or first.period is None or second.period is None
            or first.orphan or second.orphan):
        return 0.0  # a release's time is not the pass's: no measure of the stamps
    return abs(second.fraction - first.fraction) * first.period


def stamp_spread(revs: Sequence[Revolution], first: PocketReading | None,
                 second: PocketReading | None) -> float:
    """The largest spread (seconds) between stamps that the evidence shows, at least the
    stamps' resolution."""
    pair = pair_spread(first, second) if first is not None else 0.0
    return max(RESOLUTION_S, rotor_b_spread(revs), pair)


def angle_error_deg(spread: float, period: float) -> float:
    """The bound of a reading's angle error (degrees) in a revolution of ``period`` s."""
    return 360.0 * 2.0 * spread / period


def bound_readings(readings: Sequence[PocketReading], spread: float) -> None:
    """Give each decoded reading its angle error bound, from the spin's ``spread``."""
    for reading in readings:
        if reading.period is not None:
            reading.error_deg = angle_error_deg(spread, reading.period)


def untrusted(reading: PocketReading, spread: float) -> str | None:
    """Why ``reading``'s pocket is not certain (its error bound reaches the pocket's
    edge), in words; None when it is certain."""
    if reading.error_deg is None or reading.margin_deg is None:
        return None
    if reading.error_deg < reading.margin_deg:
        return None
    return (f"the reading at {reading.t:.3f} s decodes to {reading.number} with an angle "
            f"error of up to {reading.error_deg:.2f}° (stamps up to {1000 * spread:.1f} ms "
            f"off where the rotor puts them), {reading.margin_deg:.2f}° from the pocket's "
            "edge: the timing cannot be trusted")
