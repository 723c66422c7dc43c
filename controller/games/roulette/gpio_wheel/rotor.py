"""The rotor, from ``rotor_a`` and ``rotor_b`` (CONTRACT §1, §5; seed 001 Art. 12 f, g).

:class:`RotorTracker` follows the rotor at all times, whether a ball is in play or not. Each
``rotor_a`` activation closes a :class:`Revolution`; the revolution is *whole* when exactly
one ``rotor_b`` activation fell in it, so that its period and direction were both measured.
Only whole revolutions decode a pocket or judge the rotor.

Sensor faults (CONTRACT §5) are told apart from the rotor's own behaviour by the other sensor:
- no ``rotor_b`` in a revolution of the usual period: ``rotor_b`` missed a pass; the period
  stands, and the direction is the one before (a rotor cannot reverse without slowing down,
  which ``rotor_a`` would show);
- two or more ``rotor_b`` in a "revolution" whose period is that many usual periods:
  ``rotor_a`` missed passes; the rotor turned on at its speed, and nothing is judged of it;
- anything else that is not one ``rotor_b`` per revolution: the revolution is not measured
  whole; the tracker acquires the rotor afresh from its next sensor pairs.

A rotor silent for more than twice its last period has stopped. With no ball in play that is
the croupier stopping the wheel to spin it the other way: the rotor is acquired afresh (its
speed and direction from its next sensor pairs), and no revolution spans the silence.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field

from controller.core.contract import Schedule, TimerHandle
from controller.games.roulette import art12
from controller.games.roulette.art12 import Finding

# A rotor is steady when its period is within this share of the one before. A free rotor
# changes by well under 1 % a turn, but real-rotor-revs.csv, timed by hand, varies by up to
# 31 % from one turn to the next: a steady reading must accept that. A merged "revolution"
# of k periods, within this share of k × the last period and with its k rotor_b passes
# evenly spread, is k - 1 missed rotor_a passes.
_STEADY = 0.35
_MULTIPLE = 0.1  # a revolution this close to whole turns of the last: passes missed


@dataclass(slots=True)  # not frozen: some 10 a spin are made, each field set by a call
class Revolution:
    """One rotor revolution, from ``start`` to ``end`` (``rotor_a`` activations, seconds).

    ``period`` in seconds; ``direction`` "cw", "ccw" or None (not known); ``measured`` when
    ``rotor_b`` gave that direction in this very revolution (else it is carried over from
    the one before); ``whole`` when its period and direction are both known (it decodes
    pocket readings); ``faults`` name the
    sensor faults seen in it (CONTRACT §5); ``reasons`` the Art. 12 (f)/(g) findings;
    ``uncertain`` when, with a ball in play, the rotor changed speed and
    its sensors disagree, so that nothing certain is known of it.
    """

    start: float
    end: float
    period: float
    direction: str | None
    whole: bool
    measured: bool = False
    faults: tuple[tuple[str, str], ...] = ()
    reasons: tuple[Finding, ...] = ()
    uncertain: bool = False
    b_at: float | None = None  # its one rotor_b activation, when measured

    @property
    def rpm(self) -> float:
        return 60.0 / self.period


@dataclass
class RotorTracker:
    """The rotor's period (seconds), speed (rpm) and direction, from its two sensors.

    Args:
        min_rotor_rpm: below this a whole revolution is Art. 12 (f) ``wheel_malfunction``.
        max_rotor_period_ratio: a whole revolution longer than this × the one before is
            Art. 12 (g) ``wheel_stopped``.
        schedule: the controller loop's timer (``schedule(deadline_s, callback)``).
        on_silent: called with the time the rotor was found silent (twice its last period
            after its last ``rotor_a``), before the tracker forgets the rotor's speed.
    """

    min_rotor_rpm: float
    max_rotor_period_ratio: float
    schedule: Schedule
    on_silent: Callable[[float], None]
    last_a: float | None = None
    period: float | None = None
    direction: str | None = None
    b_since_a: list[float] = field(default_factory=list)
    _timer: TimerHandle | None = None
    _b_up: float | None = None  # the rise of a rotor_b pass not fallen yet
    _rested: set[float] = field(default_factory=set)  # rises of passes the rotor rested in

    @property
    def acquired(self) -> bool:
        """Speed and direction are known from a whole revolution."""
        return self.period is not None and self.direction is not None

    def rotor_b(self, t: float) -> None:
        self.b_since_a.append(t)
        self._b_up = t

    def rotor_b_fell(self, t: float) -> None:
        """``rotor_b`` went inactive at ``t``: a pass that lasted over a quarter of the last
        period (a pass lasts about 1 %) was the rotor at rest with its marker in front of
        ``rotor_b``, not a turn."""
        up, self._b_up = self._b_up, None
        if up is not None and self._resting(up, t):
            self._rested.add(up)

    def _resting(self, rise: float, now: float) -> bool:
        return now - rise > 0.25 * (self.period or 60.0 / self.min_rotor_rpm)

    def turning_b(self, now: float) -> list[float]:
        """The ``rotor_b`` passes since the last ``rotor_a`` that show the rotor turning: not
        one it rested in (issue 16: up from 54.95 s to 60.99 s is a rotor at rest)."""
        return [b for b in self.b_since_a if b not in self._rested
                and not (b == self._b_up and self._resting(b, now))]

    def rotor_a(self, t: float, ball_in_play: bool) -> Revolution | None:
        """Close the revolution that ``rotor_a`` at ``t`` ends; None while acquiring."""
        rev = self._close(t, ball_in_play)
        self._arm(t)  # with the period this revolution measured
        return rev

    def _close(self, t: float, ball_in_play: bool) -> Revolution | None:
        last, bs, prev = self.last_a, self.b_since_a, self.period
        self.b_since_a = []
        self._rested.clear()
        if last is None:
            self.last_a = t
            return None
        period = t - last
        self.last_a = t
        faults: list[tuple[str, str]] = []
        steady = prev is not None and abs(period - prev) <= _STEADY * prev
        k = len(bs)
        if k != 1 and not ball_in_play:
            # Between spins the croupier stops and reverses the rotor, sometimes within half
            # a turn (no rotor_b pass, or two): nothing is carried over; acquired afresh.
            self.period = None
            self.direction = None
            return Revolution(last, t, period, None, False)
        if ball_in_play and prev is not None and self._both_missed(period, prev, k):
            # Whole turns at the rotor's own speed with both sensors short of a pass each:
            # they missed passes, or a hand braked the rotor to just that speed. Which, the
            # evidence cannot say: never Art. 12 (g) on it, held (CONTRACT §5).
            self.period = None
            self.direction = None
            return Revolution(last, t, period, None, False, uncertain=True, faults=(
                ("rotor_a", f"rotor_a and rotor_b missed passes: a rotor revolution of "
                            f"{period:.3f} s ending at {t:.3f} s is {round(period / prev)} of "
                            f"{prev:.3f} s, with {k} rotor_b pass(es)"),))
        if k == 1:
            direction = "cw" if bs[0] - last < t - bs[0] else "ccw"
            if (ball_in_play and self.direction is not None and direction != self.direction
                    and steady):
                # A rotor cannot reverse without slowing down, which rotor_a would show:
                # rotor_b fired on the wrong side of rotor_a (CONTRACT §5).
                faults.append(("rotor_b", f"rotor_b read the rotor turning {direction} in a "
                                          f"revolution ending at {t:.3f} s of the same period "
                                          f"as the one before ({self.direction}): a fault"))
                return self._whole(last, t, period, self.direction, prev, ball_in_play,
                                   False, faults)
            return self._whole(last, t, period, direction, prev, ball_in_play, True, faults,
                               b_at=bs[0])
        if k == 0 and steady:
            faults.append(("rotor_b", f"rotor_b missed its pass in the rotor revolution ending "
                                      f"at {t:.3f} s; the rotor's period is steady"))
            return self._whole(last, t, period, self.direction, prev, ball_in_play, False,
                               faults)
        spacing = [b - a for a, b in itertools.pairwise(bs)]
        ratio = self.max_rotor_period_ratio
        if (prev is not None and k >= 2 and prev / ratio <= period / k <= prev * ratio
                and all(abs(gap - period / k) <= _STEADY * period / k for gap in spacing)):
            faults.append(("rotor_a", f"rotor_a missed {k - 1} pass(es) before {t:.3f} s: "
                                      f"{k} rotor_b passes {period:.3f} s apart in all"))
            return Revolution(last, t, period, self.direction, False, faults=tuple(faults))
        # Nothing of this revolution is measured: the rotor is acquired afresh from here.
        self.period = None
        self.direction = None
        if not steady and prev is not None:
            # Its speed changed: slowed, stopped or reversed (a reversal leaves no rotor_b
            # between, or two). Between spins that is the croupier's doing; with a ball in
            # play the rotor was stopped (Art. 12 g) or, when it came round at about its
            # speed with its sensors disagreeing, nothing certain is known of it.
            if not ball_in_play:
                return Revolution(last, t, period, None, False)
            stopped = art12.wheel_stopped_period(period, prev, self.max_rotor_period_ratio)
            if stopped is not None:
                return Revolution(last, t, period, None, False, reasons=(stopped,))
            return Revolution(last, t, period, None, False, uncertain=True, faults=(
                ("rotor_b", f"rotor_b fired {k} times in a rotor revolution of {period:.3f} s "
                            f"(the one before: {prev:.3f} s) ending at {t:.3f} s"),))
        # No rotor_b in a revolution that is not shorter than the last: rotor_b is silent
        # (a short one with none is a rotor_a pass too many).
        silent_b = k > 0 or prev is None or period >= prev / (1 + _STEADY)
        faults.append(("rotor_b" if silent_b else "rotor_a",
                       f"rotor_b fired {k} times in a rotor revolution of {period:.3f} s ending "
                       f"at {t:.3f} s (expected once)"))
        return Revolution(last, t, period, None, False, faults=tuple(faults))

    @staticmethod
    def _both_missed(period: float, prev: float, k: int) -> bool:
        """A revolution of ``period`` seconds is a whole number m >= 2 of the last one
        (``prev``, within :data:`_MULTIPLE`) and ``rotor_b`` passed fewer than m times
        (``k``): both sensors missed a pass (a rotor slows by a few percent a turn)."""
        turns = round(period / prev)
        return turns >= 2 and k < turns and abs(period / turns - prev) <= _MULTIPLE * prev

    def _whole(self, start: float, end: float, period: float, direction: str | None,
               prev: float | None, ball_in_play: bool, measured: bool,
               faults: list[tuple[str, str]], b_at: float | None = None) -> Revolution:
        findings = (
            art12.wheel_malfunction_slow(60.0 / period, self.min_rotor_rpm),
            art12.wheel_stopped_period(period, prev, self.max_rotor_period_ratio),
            art12.wheel_malfunction_reversed(self.direction, direction, end)
            if ball_in_play else None,
        )
        reasons = tuple(f for f in findings if f is not None)
        self.period = period
        if direction is not None:
            self.direction = direction
        return Revolution(start, end, period, direction, direction is not None, measured,
                          tuple(faults), reasons, b_at=b_at)

    def _arm(self, t: float) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self.period is not None:
            deadline = t + 2 * self.period
            self._timer = self.schedule(deadline, lambda: self._silent(deadline))

    def _silent(self, t: float) -> None:
        """No ``rotor_a`` within twice the last period: the rotor stopped, or its sensor is
        quiet. While ``rotor_b`` shows it turning, a missed ``rotor_a`` pass (and a slower
        turn) is waited for, up to four periods. Then the caller judges it (Art. 12 g with a
        ball in play); the rotor is acquired afresh, so no revolution is ever measured
        across the silence."""
        self._timer = None
        last, period = self.last_a, self.period
        if (last is not None and period is not None and self.turned_without_a(t)
                and t + period <= last + 4 * period):
            deadline = t + period
            self._timer = self.schedule(deadline, lambda: self._silent(deadline))
            return
        self.on_silent(t)
        self.last_a = None
        self.period = None
        self.direction = None
        self.b_since_a = []
        self._rested.clear()

    def turned_without_a(self, now: float) -> bool:
        """``rotor_b`` passed past half a turn after the last ``rotor_a`` (its own pass
        follows ``rotor_a`` by ``rotor_b_deg`` turning clockwise, and precedes it turning
        counterclockwise), by ``now`` seconds: the rotor turned on while ``rotor_a`` was
        silent. A ``rotor_b`` that stays up is a rotor at rest in front of it."""
        if self.last_a is None or self.period is None:
            return False
        last, period = self.last_a, self.period
        return any(b > last + 0.5 * period for b in self.turning_b(now))


def rotor_b_dead(run: list[float], period: float, without_b: bool, b_seen: int,
                 launch_direction: str | None, budget: int) -> Finding | None:
    """CONTRACT §1 (f) at a rotor revolution of ``period`` seconds closed in a spin in
    play: ``rotor_a`` fires every revolution, steadily (``run``: the periods so far with no
    ``rotor_b``, kept here), and ``rotor_b`` not once in the spin (``b_seen``) nor in the
    turn before it (``launch_direction`` None: the direction was not known at the launch),
    for more revolutions than the error ``budget``: the sensors disagree, certain (issue
    16), not a sensor fault to hold for. None otherwise."""
    if not without_b or b_seen:
        run.clear()
        return None
    if run and abs(period - run[-1]) > _STEADY * run[-1]:
        run.clear()  # not steady: rotor_a's own passes are in doubt
    run.append(period)
    if launch_direction is None and len(run) > budget:
        return art12.wheel_malfunction_sensors(len(run))
    return None
