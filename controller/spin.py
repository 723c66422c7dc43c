"""Spin tracking and validation from the wheel's sensors (CONTRACT §1; seed 001 Art. 12).

The :class:`SpinTracker` is fed every activation of the wheel inputs, in time order, on the
controller thread. It keeps the rotor's period and direction at all times and, from the
ball's launch, the ball's laps, its direction, the moment it leaves the track and the pocket
readings, until the spin is concluded: a confirmed result, or an invalid spin ("tiro no
válido") with its reasons. Nothing is declared before the evidence is in.

Decisions where CONTRACT §1 leaves room (documented in hardware.md):
- A pocket reading is decoded when the rotor revolution it falls in is complete (at the
  next ``rotor_a``), with that revolution's own period: the most exact "rotor period" for a
  slowing rotor, and the rotor direction of that very revolution.
- A ``ball_pocket`` release with no activation before it (the ball came to rest under the
  sensor) is a reading at the release time, journaled with an alarm.
- Art. 12 (c): the 6 rotor revolutions count from the moment the ball is detected off the
  track. A ball read in a pocket within them, and confirmed one revolution later, is a
  result; with no reading within them the spin is ``ball_suspended``, never earlier.
- A spin already invalid when the ball leaves the track (a, b, f, g) is concluded then,
  without waiting for the pocket.
- The ball's direction needs one complete lap; with none it is unknown and (b) is not
  declared on no evidence.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from controller.config import RouletteConfig

# CONTRACT §1 order: the first applicable is `reason`, all are listed in `reasons`.
REASONS = (
    "too_few_revolutions",
    "same_direction",
    "ball_suspended",
    "ball_out_of_wheel",
    "foreign_object",
    "wheel_malfunction",
    "wheel_stopped",
)
DEALER_REASONS = ("ball_out_of_wheel", "foreign_object", "wheel_malfunction", "wheel_stopped")


class TimerHandle(Protocol):
    def cancel(self) -> None: ...


Schedule = Callable[[float, Callable[[], None]], TimerHandle]


@dataclass
class PocketReading:
    """One pass of the resting ball under ``ball_pocket`` at ``t`` seconds.

    ``index`` is the decoded pocket (wheel order index) once its rotor revolution is
    complete; ``orphan`` marks a release seen without its activation.
    """

    t: float
    orphan: bool = False
    index: int | None = None
    number: str | None = None

    def as_record(self) -> dict[str, Any]:
        return {"t": round(self.t, 6), "index": self.index, "number": self.number,
                "orphan": self.orphan}


@dataclass
class Spin:
    """Everything measured of one spin, from the launch to its conclusion."""

    spin: int
    launch_t: float
    ball_a: list[float] = field(default_factory=list)
    ball_b: list[float] = field(default_factory=list)
    votes: dict[str, int] = field(default_factory=lambda: {"cw": 0, "ccw": 0})
    left_t: float | None = None
    rotor_periods: list[float] = field(default_factory=list)
    rotor_dirs: dict[str, int] = field(default_factory=lambda: {"cw": 0, "ccw": 0})
    readings: list[PocketReading] = field(default_factory=list)
    reasons: dict[str, str] = field(default_factory=dict)
    suspended_deadline: float | None = None
    launch_rotor_direction: str | None = None
    concluded: bool = False

    @property
    def lap_times(self) -> list[float]:
        a = self.ball_a
        return [round(a[i + 1] - a[i], 6) for i in range(len(a) - 1)]

    @property
    def ball_direction(self) -> str | None:
        cw, ccw = self.votes["cw"], self.votes["ccw"]
        if cw == ccw:
            return None
        return "cw" if cw > ccw else "ccw"

    def add_reason(self, reason: str, detail: str) -> None:
        self.reasons.setdefault(reason, detail)

    def ordered_reasons(self) -> list[str]:
        return [r for r in REASONS if r in self.reasons]


@dataclass(frozen=True)
class SpinOutcome:
    """A concluded spin: ``number`` is set for a result, ``reasons`` for an invalid spin."""

    spin: Spin
    t: float
    number: str | None
    index: int | None
    reasons: list[str]
    rotor_direction: str | None
    rotor_rpm: float | None

    def evidence(self) -> dict[str, Any]:
        """The measurements behind the outcome, for the journal and recall."""
        s = self.spin
        return {
            "ball_revolutions": len(s.ball_a),
            "ball_direction": s.ball_direction,
            "rotor_direction": self.rotor_direction,
            "rotor_rpm": self.rotor_rpm,
            "launch_t": round(s.launch_t, 6),
            "left_t": None if s.left_t is None else round(s.left_t, 6),
            "lap_times": s.lap_times,
            "rotor_periods": [round(p, 6) for p in s.rotor_periods],
            "pocket_readings": [r.as_record() for r in s.readings],
            "details": {r: s.reasons[r] for r in self.reasons},
        }


class SpinTracker:
    """Turns wheel-sensor activations into concluded spins (seed 001 Art. 12).

    Args:
        cfg: thresholds (seconds, rpm, revolutions); defaults are the seed's.
        order: the wheel's pockets clockwise from 0 (wheels.md); index 0 is pocket 0.
        schedule: ``schedule(deadline_s, callback)`` runs a callback on the controller
            thread at a clock time and returns a handle with ``cancel()``.
        on_conclude: called once per spin with its :class:`SpinOutcome`.
        on_alarm: ``on_alarm(code, message)`` for edges nobody expects.
        on_long_lap: called once per spin when a ball lap exceeds
            ``auto_no_more_bets_lap_s`` (automatic "no va más").
    """

    def __init__(
        self,
        cfg: RouletteConfig,
        order: tuple[str, ...],
        schedule: Schedule,
        on_conclude: Callable[[SpinOutcome], None],
        on_alarm: Callable[[str, str], None],
        on_long_lap: Callable[[], None] | None = None,
    ) -> None:
        self.cfg = cfg
        self.order = order
        self.n = len(order)
        self.schedule = schedule
        self.on_conclude = on_conclude
        self.on_alarm = on_alarm
        self.on_long_lap = on_long_lap
        # Rotor, tracked at all times.
        self.rotor_last_a: float | None = None
        self.rotor_period: float | None = None
        self.rotor_direction: str | None = None
        self.rotor_b_since_a: list[float] = []
        self._rotor_timer: TimerHandle | None = None
        # Ball, during a spin.
        self.spin: Spin | None = None
        self._drop_timer: TimerHandle | None = None
        self._wait_start: float | None = None
        self._wait_ends: list[float] = []
        self._wait_fraction = 0.0
        self._revs_after_wait = 0
        self._long_lap_called = False

    # -- entry points --------------------------------------------------------------
    def launch(self, spin_number: int, t: float) -> Spin:
        """Start tracking a new spin at ``t`` (the first ball activation)."""
        self.spin = Spin(spin_number, t, launch_rotor_direction=self.rotor_direction)
        self._long_lap_called = False
        return self.spin

    @property
    def ball_running(self) -> bool:
        """A ball is on the track (a spin's ball, even when the spin was already voided)."""
        return self.spin is not None and self.spin.left_t is None

    def _spin_on_track(self, name: str, t: float) -> Spin | None:
        """The spin a ball-sensor activation belongs to, or None when it is not a lap of a
        spin in play (a voided spin's ball is followed; a ball past its drop is an alarm)."""
        spin = self.spin
        if spin is None:
            return None
        if spin.concluded:
            last_edge = max(spin.ball_a[-1:] + spin.ball_b[-1:], default=spin.launch_t)
            if spin.left_t is not None and t - last_edge < self.cfg.launch_timeout_s:
                # A pass missed by the sensor made the ball look gone: it is the same throw,
                # still running, never the launch of a new spin.
                self.on_alarm("unexpected_edge", f"{name} at {t:.3f} s: the ball of spin "
                              f"{spin.spin} is still on the track after its spin was decided")
                spin.left_t = None
            self._follow_voided_ball(spin, t)
            if spin.left_t is None:
                (spin.ball_a if name == "ball_a" else spin.ball_b).append(t)
            return None
        if spin.left_t is not None:
            self.on_alarm("unexpected_edge", f"{name} at {t:.3f} s after the ball left the track")
            return None
        return spin

    def ball_a(self, t: float) -> None:
        spin = self._spin_on_track("ball_a", t)
        if spin is None:
            return
        a = spin.ball_a
        if a:
            start = a[-1]
            lap = t - start
            for tb in spin.ball_b:
                if start < tb < t:
                    spin.votes["cw" if tb - start < t - tb else "ccw"] += 1
            timeout = self.cfg.drop_timeout_factor * lap
            limit = self.cfg.auto_no_more_bets_lap_s
            if limit and lap > limit and not self._long_lap_called and self.on_long_lap:
                self._long_lap_called = True
                self.on_long_lap()
        else:
            timeout = self.cfg.launch_timeout_s
        a.append(t)
        self._arm_drop(t + timeout)

    def ball_b(self, t: float) -> None:
        spin = self._spin_on_track("ball_b", t)
        if spin is None:
            return
        spin.ball_b.append(t)
        if not spin.ball_a:
            self._arm_drop(t + self.cfg.launch_timeout_s)

    def pocket(self, t: float, orphan: bool = False) -> None:
        """A ``ball_pocket`` reading; ignored unless a spin is waiting for its pocket
        (between spins the last ball still rests in its pocket and passes the sensor)."""
        spin = self.spin
        if spin is None or spin.concluded:
            if spin is not None and spin.left_t is None:
                self._left(t)
            return
        if spin.left_t is None:
            # A ball read in a pocket is off the track, whatever the drop timer says.
            self._left(t)
            if spin.concluded:
                return
        spin.readings.append(PocketReading(t, orphan=orphan))

    def rotor_a(self, t: float) -> None:
        last = self.rotor_last_a
        spin = self.spin
        active = spin is not None and not spin.concluded
        if last is not None and t <= last:
            # Two activations at one instant: a glitch, not a revolution of zero seconds.
            self.on_alarm("unexpected_edge", f"rotor_a at {t:.6f} s again, no time after the "
                          "last one: ignored")
            return
        bs = self.rotor_b_since_a
        if not active and bs and self.rotor_period and t - bs[-1] < self.rotor_period / 2:
            # Between spins the dealer may reverse the rotor: rotor_b then rotor_a within
            # half a revolution is counterclockwise now (CONTRACT §1), whatever it was.
            self.rotor_direction = "ccw"
        revolution: tuple[float, float, str | None] | None = None
        if last is not None:
            period = t - last
            bs = self.rotor_b_since_a
            direction: str | None = None
            faults: list[tuple[str, str]] = []
            if len(bs) != 1:
                faults.append(("wheel_malfunction",
                               f"rotor_b fired {len(bs)} times in the rotor revolution ending "
                               f"at {t:.3f} s (expected once)"))
            else:
                direction = "cw" if bs[0] - last < t - bs[0] else "ccw"
                other = "ccw" if direction == "cw" else "cw"
                # Dealers reverse the rotor between spins; only a flip during a spin is a fault.
                if active and spin is not None and spin.rotor_dirs[other] > 0:
                    faults.append(("wheel_malfunction",
                                   f"rotor direction flipped to {direction} at {t:.3f} s"))
                self.rotor_direction = direction
            rpm = 60.0 / period
            if rpm < self.cfg.min_rotor_rpm:
                faults.append(("wheel_malfunction",
                               f"rotor at {rpm:.2f} rpm, below {self.cfg.min_rotor_rpm} rpm"))
            prev = self.rotor_period
            if prev is not None and period > self.cfg.max_rotor_period_ratio * prev:
                faults.append(("wheel_stopped",
                               f"rotor period {period:.3f} s is more than "
                               f"{self.cfg.max_rotor_period_ratio} x the previous {prev:.3f} s"))
            self.rotor_period = period
            if active:
                assert spin is not None
                for reason, detail in faults:
                    spin.add_reason(reason, detail)
            revolution = (last, period, direction)
        self.rotor_last_a = t
        self.rotor_b_since_a = []
        if self._rotor_timer is not None:
            self._rotor_timer.cancel()
        if self.rotor_period is not None:
            self._rotor_timer = self.schedule(t + 2 * self.rotor_period, self._rotor_silent)
        if not active:
            return
        assert spin is not None
        if revolution is not None:
            self._revolution_done(revolution[0], t, revolution[1], revolution[2])
        if spin.concluded:
            return
        self._maybe_conclude_faulty(t)
        if not spin.concluded and spin.left_t is not None:
            self._count_wait(t)

    def rotor_b(self, t: float) -> None:
        self.rotor_b_since_a.append(t)
        spin = self.spin
        last_a, period = self.rotor_last_a, self.rotor_period
        if ((spin is None or spin.concluded) and last_a is not None and period
                and t - last_a < period / 2):
            self.rotor_direction = "cw"  # rotor_a then rotor_b: clockwise now (see rotor_a)
        if len(self.rotor_b_since_a) == 2 and spin is not None and not spin.concluded:
            spin.add_reason("wheel_malfunction",
                            f"rotor_b fired twice without rotor_a (at {t:.3f} s)")
            self._maybe_conclude_faulty(t)

    def void(self, t: float, reason: str) -> bool:
        """A dealer or inspector declares the spin invalid (Art. 12 d-g); False if no spin."""
        spin = self.spin
        if spin is None or spin.concluded:
            return False
        ball_dir = spin.ball_direction
        if ball_dir is not None and ball_dir == self._spin_rotor_direction():
            spin.add_reason("same_direction", f"ball and rotor both turn {ball_dir}")
        spin.add_reason(reason, "declared by the dealer")
        self._conclude(t, None)
        return True

    def abandon(self) -> None:
        """Forget the spin in progress (its outcome was journaled elsewhere)."""
        self._cancel_spin_timers()
        self.spin = None

    @property
    def in_play(self) -> bool:
        return self.spin is not None and not self.spin.concluded

    # -- internals -------------------------------------------------------------------
    def _rotor_silent(self) -> None:
        """No rotor_a within twice the last period: the rotor stopped (Art. 12 g)."""
        period = self.rotor_period
        self._rotor_timer = None
        self.rotor_period = None
        spin = self.spin
        if spin is not None and not spin.concluded and period is not None:
            assert self.rotor_last_a is not None
            now = self.rotor_last_a + 2 * period
            spin.add_reason("wheel_stopped",
                            f"no rotor_a activation within {2 * period:.3f} s "
                            f"(twice the last period) after {self.rotor_last_a:.3f} s")
            self._maybe_conclude_faulty(now)

    def _revolution_done(self, start: float, end: float, period: float,
                         direction: str | None) -> None:
        spin = self.spin
        if spin is None or spin.concluded:
            return
        if end > spin.launch_t and (spin.left_t is None or start < spin.left_t):
            spin.rotor_periods.append(period)
            if direction is not None:
                spin.rotor_dirs[direction] += 1
        if direction is None:
            return
        newly: list[PocketReading] = []
        for reading in spin.readings:
            if reading.index is None and start <= reading.t < end:
                k = round((reading.t - start) / period * self.n) % self.n
                reading.index = (self.n - k) % self.n if direction == "cw" else k
                reading.number = self.order[reading.index]
                newly.append(reading)
        if newly:
            self._check_confirmed(end)

    def _check_confirmed(self, now: float) -> None:
        spin = self.spin
        assert spin is not None
        decoded = [r for r in spin.readings if r.index is not None]
        if len(decoded) < 2:
            return
        first, second = decoded[-2], decoded[-1]
        period = self.rotor_period or 0.0
        gap = second.t - first.t
        if first.index != second.index or not 0.5 * period <= gap <= 1.5 * period:
            return
        deadline = spin.suspended_deadline
        if deadline is not None and first.t > deadline:
            spin.add_reason("ball_suspended",
                            f"first pocket reading at {first.t:.3f} s, after the wait ended at "
                            f"{deadline:.3f} s")
            self._conclude(now, None)
            return
        self._conclude(now, first.index)

    def _follow_voided_ball(self, spin: Spin, t: float) -> None:
        # A spin voided while its ball still runs: follow the ball until it leaves, so
        # that its laps are not taken for the launch of a new spin.
        if spin.left_t is None:
            last = spin.ball_a[-1] if spin.ball_a else spin.launch_t
            lap = t - last
            self._arm_drop(t + max(self.cfg.drop_timeout_factor * lap, self.cfg.launch_timeout_s))

    def _arm_drop(self, deadline: float) -> None:
        if self._drop_timer is not None:
            self._drop_timer.cancel()
        self._drop_timer = self.schedule(deadline, lambda: self._left(deadline))

    def _left(self, t: float) -> None:
        """The ball left the track at ``t``: judge (a) and (b), then wait for the pocket."""
        spin = self.spin
        assert spin is not None
        if self._drop_timer is not None:
            self._drop_timer.cancel()
            self._drop_timer = None
        spin.left_t = t
        if spin.concluded:
            return
        revs = len(spin.ball_a)
        if revs < self.cfg.min_ball_revolutions:
            spin.add_reason("too_few_revolutions",
                            f"{revs} ball revolutions, fewer than {self.cfg.min_ball_revolutions}")
        ball_dir = spin.ball_direction
        rotor_dir = self._spin_rotor_direction()
        if ball_dir is not None and ball_dir == rotor_dir:
            spin.add_reason("same_direction", f"ball and rotor both turn {ball_dir}")
        if self.rotor_period is None:
            spin.add_reason("wheel_stopped", "the rotor is not turning while the ball is in play")
        if spin.reasons:
            self._conclude(t, None)
            return
        self._wait_start = self.rotor_last_a
        self._wait_ends = []
        self._revs_after_wait = 0

    def _count_wait(self, t: float) -> None:
        """Art. 12 (c), at each ``rotor_a`` after the ball left the track.

        The wait is counted in real rotor revolutions: each revolution's own period places
        the moment the 6th ends, so a slowing rotor never ends it early. With no pocket
        reading by then the ball is suspended; with one, its confirming pass may follow
        (up to two more revolutions).
        """
        spin = self.spin
        assert spin is not None and spin.left_t is not None and self._wait_start is not None
        ends = self._wait_ends
        ends.append(t)
        if len(ends) == 1:
            self._wait_fraction = min(max((spin.left_t - self._wait_start)
                                          / (t - self._wait_start), 0.0), 1.0)
        wait = self.cfg.suspended_wait_rotor_revolutions
        if spin.suspended_deadline is None:
            elapsed = len(ends) - self._wait_fraction
            if elapsed < wait:
                return
            start = ends[-2] if len(ends) > 1 else self._wait_start
            into = wait - (len(ends) - 1 - self._wait_fraction)
            deadline = start + into * (t - start)
            spin.suspended_deadline = deadline
            if not any(r.t <= deadline for r in spin.readings):
                spin.add_reason("ball_suspended",
                                f"no pocket reading within {wait:g} rotor revolutions of the "
                                f"ball leaving the track (they ended at {deadline:.3f} s)")
                self._conclude(t, None)
            return
        self._revs_after_wait += 1
        if self._revs_after_wait >= 2:
            spin.add_reason("ball_suspended", "pocket readings did not confirm one pocket")
            self._conclude(t, None)

    def _maybe_conclude_faulty(self, t: float) -> None:
        spin = self.spin
        if spin is not None and spin.left_t is not None and spin.reasons and not spin.concluded:
            self._conclude(t, None)

    def _spin_rotor_direction(self) -> str | None:
        """The rotor's direction during the spin: most of its revolutions; on a tie (a
        faulty revolution against a good one) the direction it had at the launch."""
        spin = self.spin
        if spin is not None:
            cw, ccw = spin.rotor_dirs["cw"], spin.rotor_dirs["ccw"]
            if cw != ccw:
                return "cw" if cw > ccw else "ccw"
            if spin.launch_rotor_direction is not None:
                return spin.launch_rotor_direction
        return self.rotor_direction

    def _cancel_spin_timers(self, keep_drop: bool = False) -> None:
        if self._drop_timer is not None and not keep_drop:
            self._drop_timer.cancel()
            self._drop_timer = None

    def _conclude(self, t: float, index: int | None) -> None:
        spin = self.spin
        assert spin is not None
        spin.concluded = True
        self._cancel_spin_timers(keep_drop=spin.left_t is None)
        reasons = spin.ordered_reasons()
        periods = spin.rotor_periods or ([self.rotor_period] if self.rotor_period else [])
        rpm = round(60.0 / periods[-1], 3) if periods else None
        outcome = SpinOutcome(
            spin=spin, t=t,
            number=self.order[index] if index is not None and not reasons else None,
            index=index if not reasons else None,
            reasons=reasons,
            rotor_direction=self._spin_rotor_direction(),
            rotor_rpm=rpm,
        )
        self.on_conclude(outcome)
