"""The ball on the track, from ``ball_a`` and ``ball_b`` (CONTRACT §1, §5; seed 001 Art. 12 a).

The passes a sensor missed, told from the other sensor or from the lap times; what the
tracker counts as revolutions for Art. 12 (a) comes from here. Each function changes the
:class:`Spin` it is given and returns the sentence of the ``ball_a`` correction it made
(a ``missed_pass`` counted against ``ball_a``'s error budget), or None.

Decisions where the contract leaves room (hardware.md, "Spin verdicts"):
- A pass missed by ``ball_a`` and seen by ``ball_b`` is recovered from ``ball_b`` (certain).
- A gap in which both missed passes counts the laps it can hold: at most gap / last lap (a
  ball does not speed up), at least the fewest laps growing by at most
  ``drop_timeout_factor`` each; when the two differ the revolutions are a range.
- A pass after the ball was taken for gone whose next lap is a quarter shorter than the
  ball's last one is a second ball (:class:`Revival`), not this ball's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from controller.games.roulette.gpio_wheel.spin_record import Spin

_LAP_JITTER = 0.02  # a lap may look this much shorter than the one before (sensor timing)
_SECOND_BALL_LAP = 0.25  # a lap this much shorter than the last: another ball


def lap_count_range(gap: float, last_lap: float, growth: float) -> tuple[int, int]:
    """How many laps a gap of ``gap`` seconds between two passes can hold, after a lap of
    ``last_lap`` seconds: (fewest, most). A decelerating ball never laps faster than before
    (most = gap / last_lap), and a lap is at most ``growth`` × the one before (fewest)."""
    most = max(1, int(gap / last_lap * (1 + _LAP_JITTER)))
    fewest, total, lap = 0, 0.0, last_lap
    while total < gap * (1 - _LAP_JITTER) and fewest < most:
        lap *= growth
        total += lap
        fewest += 1
    return max(1, fewest), most


def fill_gap(spin: Spin, last: float, t: float, growth: float) -> str | None:
    """Passes ``ball_a`` missed between its passes at ``last`` and ``t`` (CONTRACT §5): each
    ``ball_b`` pass in the gap but one is a pass seen by ``ball_b`` alone (certain); with
    none, the laps the gap can hold (``lap_count_range``, ``growth`` the drop timeout factor)
    are passes both missed, the uncertain ones counted in ``spin.extra_max``."""
    passes = spin.passes
    lap = last - passes[-2] if len(passes) >= 2 else None
    bs = [b for b in spin.ball_b if last < b < t]
    if len(bs) >= 2:
        # One ball_b pass belongs to a neighbouring ball_a pass; each other one is a
        # pass ball_a missed, seen by ball_b: certain.
        direction = spin.ball_direction
        partner_at_start = direction == "cw" or (
            direction is None and bs[0] - last < t - bs[-1])
        lone = bs[1:] if partner_at_start else bs[:-1]
        for b in lone:
            spin.recovered.append({"t": round(b, 6), "from": "ball_b"})
            passes.append(b)
        return (f"ball_a missed {len(lone)} pass(es) of the ball between {last:.3f} s and "
                f"{t:.3f} s; recovered from ball_b")
    if lap is None:
        return None
    fewest, most = lap_count_range(t - last, lap, growth)
    if most == 1:
        return None
    for k in range(1, fewest):
        passes.append(last + (t - last) * k / fewest)
        spin.recovered.append({"t": round(passes[-1], 6), "from": "lap_time"})
    spin.extra_max += most - fewest
    return (f"a lap of {t - last:.3f} s after one of {lap:.3f} s at {t:.3f} s: both ball "
            f"sensors missed {fewest - 1} to {most - 1} pass(es)")


def confirm_tentative(spin: Spin) -> str | None:
    """The ball was seen again after a pass recovered from ``ball_b`` alone: certain."""
    if spin.tentative is None:
        return None
    message = (f"ball_a missed a pass of the ball at about {spin.tentative:.3f} s; recovered "
               "from ball_b")
    spin.tentative = None
    return message


def recover_first_pass(spin: Spin) -> str | None:
    """A ``ball_a`` pass missed before the first one seen, told by ``ball_b`` once the
    ball's direction is known: turning clockwise a pass's ``ball_b`` edge follows it,
    counterclockwise it comes just before it; any other ``ball_b`` edge between the
    launch and the first ``ball_a`` pass is a pass ``ball_a`` missed. The launch's own
    ``ball_b`` edge, turning clockwise, is the ball released just before ``ball_b``."""
    passes, direction = spin.passes, spin.ball_direction
    if len(passes) < 2 or direction is None:
        return None
    first, near = passes[0], 0.25 * (passes[1] - passes[0])
    before = [b for b in spin.ball_b if spin.launch_t <= b < first]
    lone = ([b for b in before if b > spin.launch_t] if direction == "cw"
            else [b for b in before if first - b > near])
    if not lone:
        return None
    passes[:0] = lone
    spin.recovered[:0] = [{"t": round(b, 6), "from": "ball_b"} for b in lone]
    return (f"ball_a missed {len(lone)} pass(es) of the ball before {first:.3f} s; "
            "recovered from ball_b")


def pass_after_last(spin: Spin, min_lap_s: float) -> float | None:
    """At the drop timeout: a ``ball_b`` pass more than half a lap (``min_lap_s`` before a
    lap is known) after the last ``ball_a`` one, which ``ball_a`` may have missed."""
    passes = spin.passes
    last = passes[-1] if passes else spin.launch_t
    lap = last - passes[-2] if len(passes) >= 2 else None
    half = 0.5 * lap if lap is not None else min_lap_s
    lone = [b for b in spin.ball_b if b > last + half]
    return lone[0] if lone else None


def take_ball_b_pass(spin: Spin, b: float) -> str | None:
    """Take the ``ball_b`` pass at ``b`` as one ``ball_a`` missed. Turning clockwise
    ``ball_b`` follows ``ball_a``: the ball passed both, certain. Counterclockwise ``ball_b``
    comes 20° before ``ball_a``: the ball may have left the track between them, so the pass
    is tentative (``spin.tentative``) until the ball is seen again."""
    spin.recovered.append({"t": round(b, 6), "from": "ball_b"})
    certain = spin.ball_direction == "cw"
    if not certain:
        spin.tentative = b
    spin.passes.append(b)
    return (f"ball_a missed a pass of the ball at about {b:.3f} s; recovered from ball_b"
            if certain else None)


def drop_tentative(spin: Spin) -> None:
    """Judging the track with a last pass recovered from ``ball_b`` alone and no ``ball_a``
    after it: a missed pass, or a ball that left the track between the two sensors. One
    revolution more is possible, not certain (``spin.extra_max``)."""
    if spin.tentative is not None and spin.passes and spin.passes[-1] == spin.tentative:
        spin.passes.pop()
        spin.recovered.pop()
        spin.extra_max += 1
        spin.tentative = None


@dataclass(frozen=True)
class Revival:
    """What the spin's ball track was when a pass came after the ball was taken for gone
    (``left_t``): a pass both sensors missed, or a second ball (issue 16). The first lap
    after it tells: a ball never laps faster than it did before it slowed
    (:meth:`impossible`); then :meth:`undo` puts the track back."""

    left_t: float
    wait: Any
    passes: int
    recovered: int
    extra_max: int
    ball_b: int
    last_lap: float

    @classmethod
    def take(cls, spin: Spin, wait: Any) -> Revival | None:
        passes = spin.passes
        if spin.left_t is None or len(passes) < 2:
            return None
        return cls(spin.left_t, wait, len(passes), len(spin.recovered), spin.extra_max,
                   len(spin.ball_b), passes[-1] - passes[-2])

    def impossible(self, spin: Spin, t: float) -> bool:
        """A ``ball_a`` pass at ``t`` after the revival makes a lap much shorter than the
        ball's last one before it left (a quarter off: sensor timing, a real lap series'
        own unevenness): not the same ball."""
        passes = spin.passes
        return (len(passes) > self.passes
                and t - passes[-1] < (1 - _SECOND_BALL_LAP) * self.last_lap)

    def undo(self, spin: Spin) -> None:
        """The spin's track as it was before the revival (the second ball is no evidence)."""
        del spin.passes[self.passes:]
        del spin.recovered[self.recovered:]
        del spin.ball_b[self.ball_b:]
        spin.extra_max = self.extra_max
        spin.tentative = None
        spin.left_t = self.left_t
