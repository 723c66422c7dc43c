"""Spin tracking and validation from the wheel's sensors (CONTRACT §1, §5; seed 001 Art. 12).

The :class:`SpinTracker` is fed every edge of the wheel inputs, in time order, on the
controller thread. Edges become activations through
:class:`controller.games.roulette.sensors.EdgeFilter` (chatter merged, missed edges corrected,
each input's corrections counted); the rotor is followed by
:class:`controller.games.roulette.rotor.RotorTracker`; from the ball's launch the tracker keeps
the ball's passes, its direction, the moment it leaves the track and the pocket readings,
until the spin is concluded: a confirmed result, an invalid spin ("tiro no válido") with its
reasons, or a spin **held** for the inspector when the evidence is not certain (CONTRACT §5).

Decisions where the contract leaves room (hardware.md, "Spin verdicts"):
- A pass missed by ``ball_a`` and seen by ``ball_b`` is recovered from ``ball_b`` (certain).
  A gap in which both missed passes counts the laps it can hold: at most gap / last lap (a
  ball does not speed up), at least the fewest laps growing by at most
  ``drop_timeout_factor`` each; when the two differ the revolutions are a range, and (a) is
  held when the range straddles the minimum.
- The ball is off the track ``drop_timeout_factor`` × the last lap after its last pass (that
  time starts the Art. 12 (c) wait), but (a) and (b) are judged only once a pass missed by
  both ball sensors could no longer come (``f + f²`` laps, f the factor), or at the first
  pocket reading: a running ball is never taken for a dropped one, nor for a new launch.
- A pocket reading is decoded with the whole rotor revolution it falls in. Two consecutive
  readings give the pocket when both decode to it, or when the second comes one rotor turn
  after the first, to within a quarter pocket of the turn its rotor's trend predicts (the same
  pocket by construction), without waiting for the second's revolution to close.
- Art. 12 (c): the 6 rotor revolutions count from the moment the ball left the track; a ball
  first read within them and confirmed is a result, never declared suspended earlier.
- A spin whose corrected evidence is not certain is held: an input over its error budget,
  revolutions uncertain across the minimum, ``rotor_a`` silent while ``rotor_b`` fires, the
  rotor stopped after the ball was read but before the pocket was confirmed.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass

from controller.games.roulette.config import RouletteConfig
from controller.games.roulette.rotor import Revolution, RotorTracker, Schedule, TimerHandle
from controller.games.roulette.sensors import Correction, EdgeFilter
from controller.games.roulette.spin_record import (
    DEALER_REASONS,
    REASONS,
    PocketReading,
    Spin,
    SpinOutcome,
    lap_count_range,
)

__all__ = ["DEALER_REASONS", "REASONS", "Schedule", "SpinOutcome", "SpinTracker"]

_FREE_ROTOR = 0.05  # a rotor turning freely changes its period by less than this a turn


@dataclass
class _Wait:
    """Art. 12 (c) bookkeeping: rotor revolutions since the ball left the track."""

    start: float | None
    ends: list[float]
    fraction: float = 0.0
    after_deadline: int = 0


class SpinTracker:
    """Turns wheel-sensor edges into concluded spins (seed 001 Art. 12; CONTRACT §1, §5).

    Args:
        cfg: thresholds (seconds, rpm, revolutions); defaults are the seed's.
        order: the wheel's pockets clockwise from 0 (wheels.md); index 0 is pocket 0.
        schedule: ``schedule(deadline_s, callback)`` runs a callback on the controller
            thread at a clock time and returns a handle with ``cancel()``.
        on_conclude: called once per spin with its :class:`SpinOutcome`.
        on_alarm: ``on_alarm(code, message)`` for sensor faults and edges nobody expects.
        on_long_lap: called once per spin when a ball lap exceeds
            ``auto_no_more_bets_lap_s`` (automatic "no va más").
    """

    def __init__(self, cfg: RouletteConfig, order: tuple[str, ...], schedule: Schedule,
                 on_conclude: Callable[[SpinOutcome], None],
                 on_alarm: Callable[[str, str], None],
                 on_long_lap: Callable[[], None] | None = None) -> None:
        self.cfg = cfg
        self.order = order
        self.n = len(order)
        self.schedule = schedule
        self.on_conclude = on_conclude
        self.on_alarm = on_alarm
        self.on_long_lap = on_long_lap
        self.rotor = RotorTracker(cfg.min_rotor_rpm, cfg.max_rotor_period_ratio, schedule,
                                  self._rotor_silent)
        self.filter = EdgeFilter(cfg.min_lap_s, cfg.min_rotor_period_s, cfg.sensor_error_budget)
        self.spin: Spin | None = None
        self._drop_timer: TimerHandle | None = None
        self._judge_timer: TimerHandle | None = None
        self._rotor_deadline: TimerHandle | None = None
        self._track_until = float("-inf")  # a ball-track edge up to then is the spin's ball
        self._wait = _Wait(None, [])
        self._long_lap_called = False
        self._prev_whole: Revolution | None = None

    # -- edges -----------------------------------------------------------------------
    def edge(self, name: str, t: float, level: int) -> tuple[float | None, bool]:
        """A raw edge of a wheel input: (activation time or None, orphan pocket release).
        Corrections are journaled as ``sensor_fault`` alarms, once per input and kind in
        a spin, and counted against the input's budget."""
        activation, orphan, correction = self.filter.edge(name, t, level)
        if correction is not None:
            self._fault(correction)
        return activation, orphan

    def _fault(self, correction: Correction) -> None:
        spin = self.spin
        if spin is not None and not spin.concluded:
            spin.faults.setdefault(correction.input, []).append(correction.message)
        if self.filter.first(correction):
            self.on_alarm("sensor_fault", correction.message)

    def _count_fault(self, name: str, kind: str, message: str) -> None:
        self._fault(self.filter._count(name, kind, message))

    # -- launches and the ball ---------------------------------------------------------
    def owns_track_edge(self, t: float) -> bool:
        """A ball-track activation at ``t`` belongs to the last spin's ball (still running,
        or a pass both sensors missed may still come): it is never a new launch."""
        return self.spin is not None and t <= self._track_until

    @property
    def ball_running(self) -> bool:
        """The last spin's ball may still be on the track."""
        spin = self.spin
        return spin is not None and (spin.left_t is None or not spin.track_judged)

    @property
    def in_play(self) -> bool:
        return self.spin is not None and not self.spin.concluded

    def launch(self, spin_number: int, t: float) -> Spin:
        """Start tracking a new spin at ``t`` (the first ball activation)."""
        self._cancel()
        self.filter.reset()
        self.spin = Spin(spin_number, t, launch_rotor_direction=self.rotor.direction)
        self._wait = _Wait(None, [])
        self._long_lap_called = False
        self._track_until = t + self.cfg.launch_timeout_s
        return self.spin

    def ball_a(self, t: float) -> None:
        spin = self._track(t)
        if spin is None:
            return
        passes = spin.passes
        self._confirm_tentative(spin)
        if passes:
            self._fill_gap(spin, passes[-1], t)
        passes.append(t)
        self._after_pass(spin, t)

    def ball_b(self, t: float) -> None:
        spin = self._track(t)
        if spin is None:
            return
        spin.ball_b.append(t)
        if not spin.passes:
            # No ball_a pass yet: ball_b alone keeps the ball on the track (ball_a may be
            # dead; its passes are then recovered from ball_b at the drop timeout).
            self._arm_drop(t + self.cfg.launch_timeout_s)
            self._track_until = max(self._track_until, t + self.cfg.launch_timeout_s * (
                1 + self.cfg.drop_timeout_factor))

    def _track(self, t: float) -> Spin | None:
        spin = self.spin
        if spin is None or t > self._track_until:
            return None
        if spin.readings and not spin.concluded:
            # The ball runs on: what ball_pocket saw was not this ball at rest.
            self._count_fault("ball_pocket", "while_running",
                              f"ball_pocket fired at {spin.readings[0].t:.3f} s while the ball "
                              f"was still on the track (passing at {t:.3f} s): not a reading")
            spin.readings.clear()
        if spin.left_t is not None:
            # The ball was taken for gone, but it is on the track: a missed pass.
            spin.left_t = None
            spin.suspended_deadline = None
            self._wait = _Wait(None, [])
            if self._judge_timer is not None:
                self._judge_timer.cancel()
                self._judge_timer = None
            passes = spin.passes
            lap = passes[-1] - passes[-2] if len(passes) >= 2 else self.cfg.launch_timeout_s
            self._arm_drop(t + self.cfg.drop_timeout_factor * lap)
        return spin

    def _fill_gap(self, spin: Spin, last: float, t: float) -> None:
        """Passes ``ball_a`` missed between ``last`` and ``t`` (CONTRACT §5)."""
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
            self._count_fault("ball_a", "missed_pass",
                              f"ball_a missed {len(lone)} pass(es) of the ball between "
                              f"{last:.3f} s and {t:.3f} s; recovered from ball_b")
            return
        if lap is None:
            return
        fewest, most = lap_count_range(t - last, lap, self.cfg.drop_timeout_factor)
        if most == 1:
            return
        for k in range(1, fewest):
            passes.append(last + (t - last) * k / fewest)
            spin.recovered.append({"t": round(passes[-1], 6), "from": "lap_time"})
        spin.extra_max += most - fewest
        self._count_fault("ball_a", "missed_pass",
                          f"a lap of {t - last:.3f} s after one of {lap:.3f} s at {t:.3f} s: "
                          f"both ball sensors missed {fewest - 1} to {most - 1} pass(es)")

    def _confirm_tentative(self, spin: Spin) -> None:
        """The ball was seen again after a pass recovered from ``ball_b`` alone: certain."""
        if spin.tentative is not None:
            self._count_fault("ball_a", "missed_pass",
                              f"ball_a missed a pass of the ball at about {spin.tentative:.3f} "
                              "s; recovered from ball_b")
            spin.tentative = None

    def _recover_first_pass(self, spin: Spin) -> None:
        """A ``ball_a`` pass missed before the first one seen, told by ``ball_b`` once the
        ball's direction is known: turning clockwise a pass's ``ball_b`` edge follows it,
        counterclockwise it comes just before it; any other ``ball_b`` edge between the
        launch and the first ``ball_a`` pass is a pass ``ball_a`` missed. The launch's own
        ``ball_b`` edge, turning clockwise, is the ball released just before ``ball_b``."""
        passes, direction = spin.passes, spin.ball_direction
        if len(passes) < 2 or direction is None:
            return
        first, near = passes[0], 0.25 * (passes[1] - passes[0])
        before = [b for b in spin.ball_b if spin.launch_t <= b < first]
        lone = ([b for b in before if b > spin.launch_t] if direction == "cw"
                else [b for b in before if first - b > near])
        if not lone:
            return
        passes[:0] = lone
        spin.recovered[:0] = [{"t": round(b, 6), "from": "ball_b"} for b in lone]
        self._count_fault("ball_a", "missed_pass",
                          f"ball_a missed {len(lone)} pass(es) of the ball before "
                          f"{first:.3f} s; recovered from ball_b")

    def _after_pass(self, spin: Spin, t: float) -> None:
        passes = spin.passes
        f = self.cfg.drop_timeout_factor
        if len(passes) >= 2:
            lap = t - passes[-2]
            limit = self.cfg.auto_no_more_bets_lap_s
            if limit and lap > limit and not self._long_lap_called and self.on_long_lap:
                self._long_lap_called = True
                self.on_long_lap()
            self._track_until = t + (f + f * f) * lap
            self._arm_drop(t + f * lap)
        else:
            self._track_until = t + self.cfg.launch_timeout_s * (1 + f)
            self._arm_drop(t + self.cfg.launch_timeout_s)

    def _arm_drop(self, deadline: float) -> None:
        if self._drop_timer is not None:
            self._drop_timer.cancel()
        self._drop_timer = self.schedule(deadline, lambda: self._dropped(deadline))

    def _dropped(self, t: float) -> None:
        """No ball pass by the drop timeout: a ``ball_b`` pass since the last ``ball_a``
        one is a pass ``ball_a`` missed; else the ball left the track at ``t``."""
        self._drop_timer = None
        spin = self.spin
        assert spin is not None
        passes = spin.passes
        last = passes[-1] if passes else spin.launch_t
        lap = last - passes[-2] if len(passes) >= 2 else None
        half = 0.5 * lap if lap is not None else self.cfg.min_lap_s
        lone = [b for b in spin.ball_b if b > last + half]
        if lone:
            self._confirm_tentative(spin)
            spin.recovered.append({"t": round(lone[0], 6), "from": "ball_b"})
            if spin.ball_direction == "cw":  # ball_b follows ball_a: the ball passed both
                self._count_fault("ball_a", "missed_pass",
                                  f"ball_a missed a pass of the ball at about {lone[0]:.3f} s; "
                                  "recovered from ball_b")
            else:
                # Counterclockwise ball_b comes 20° before ball_a: the ball may have left the
                # track between them. Certain only if the ball is seen again.
                spin.tentative = lone[0]
            passes.append(lone[0])
            self._after_pass(spin, lone[0])
            return
        self._left(t)
        if spin.readings:
            # Read in a pocket and no pass since: the ball is off the track.
            self._judge_track(t)
            if not spin.concluded:
                self._check_confirmed(t)
            return
        self._judge_timer = self.schedule(self._track_until,
                                          lambda: self._judge_track(self._track_until))

    def _left(self, t: float) -> None:
        spin = self.spin
        assert spin is not None
        spin.left_t = t
        self._wait = _Wait(self.rotor.last_a, [])

    # -- pocket readings ---------------------------------------------------------------
    def pocket(self, t: float, orphan: bool = False) -> None:
        """A ``ball_pocket`` reading; ignored unless a spin is waiting for its pocket
        (between spins the last ball still rests in its pocket and passes the sensor)."""
        spin = self.spin
        if spin is None or spin.concluded:
            return
        spin.readings.append(PocketReading(t, orphan=orphan))
        if spin.left_t is None:
            # Judged when the drop timeout shows the ball off the track: a ball_pocket
            # glitch while the ball still runs must not end its run (CONTRACT §5).
            return
        if not spin.track_judged:
            self._judge_track(t)  # read after the drop: the ball is surely off the track
            if spin.concluded:
                return
        self._check_confirmed(t)

    # -- the rotor ---------------------------------------------------------------------
    def rotor_a(self, t: float) -> None:
        rev = self.rotor.rotor_a(t, self.in_play)
        if rev is None:
            self._prev_whole = None
            return
        for name, message in rev.faults:
            self._count_fault(name, "missed_pass", message)
        prev, self._prev_whole = self._prev_whole, (rev if rev.whole else None)
        spin = self.spin
        if spin is None or spin.concluded:
            return
        # How fast the period changes a turn, known when the rotor turns freely (a few %
        # at most): it predicts the next turn's period well within a quarter pocket.
        trend = (rev.period - prev.period if prev is not None and rev.whole
                 and prev.end == rev.start
                 and abs(rev.period - prev.period) <= _FREE_ROTOR * rev.period else None)
        self._revolution(spin, rev, trend)

    def rotor_b(self, t: float) -> None:
        self.rotor.rotor_b(t)

    def _revolution(self, spin: Spin, rev: Revolution, trend: float | None) -> None:
        if rev.end > spin.launch_t and (spin.left_t is None or rev.start < spin.left_t):
            if rev.whole:
                spin.rotor_periods.append(rev.period)
            if rev.direction is not None and rev.measured:
                spin.rotor_dirs[rev.direction] += 1
        for reason, detail in rev.reasons:
            spin.add_reason(reason, detail)
        if rev.uncertain:
            spin.held.setdefault("rotor", rev.faults[0][1])
        if rev.whole and rev.direction is not None:
            for reading in spin.readings:
                if reading.index is None and rev.start <= reading.t < rev.end:
                    k = round((reading.t - rev.start) / rev.period * self.n) % self.n
                    reading.index = (self.n - k) % self.n if rev.direction == "cw" else k
                    reading.number = self.order[reading.index]
                    reading.period = rev.period
                    reading.fraction = (reading.t - rev.start) / rev.period
                    reading.trend = trend
            if spin.track_judged and spin.pending_direction:
                spin.pending_direction = False
                self._judge_direction(spin)
            self._check_confirmed(rev.end)
        if spin.concluded:
            return
        if spin.track_judged and spin.reasons:
            self._conclude(rev.end, None)
        elif spin.left_t is not None:
            self._count_wait(rev)

    def _rotor_silent(self, t: float) -> None:
        """No ``rotor_a`` within twice the last period (CONTRACT §1, §5; Art. 12 g)."""
        spin = self.spin
        if spin is None or spin.concluded:
            return
        if self.rotor.turned_without_a():
            spin.held.setdefault("rotor_a", f"rotor_a silent since {self.rotor.last_a:.3f} s "
                                 "while rotor_b still fires: a sensor fault")
        elif spin.readings:
            spin.held.setdefault("rotor", f"the rotor stopped (no rotor_a by {t:.3f} s) after "
                                 "the ball was read in a pocket, before two readings "
                                 "confirmed it")
        else:
            spin.add_reason("wheel_stopped",
                            f"no rotor_a activation by {t:.3f} s (twice the last period) "
                            f"after {self.rotor.last_a:.3f} s")
        if spin.track_judged:
            self._conclude(t, None)

    # -- verdicts ----------------------------------------------------------------------
    def _judge_track(self, t: float) -> None:
        """Art. 12 (a) and (b), once the ball is surely off the track."""
        spin = self.spin
        if spin is None or spin.track_judged:
            return
        if self._judge_timer is not None:
            self._judge_timer.cancel()
            self._judge_timer = None
        spin.track_judged = True
        self._track_until = float("-inf")
        if spin.concluded:
            return
        if spin.tentative is not None and spin.passes and spin.passes[-1] == spin.tentative:
            # The last ball_b pass, with no ball_a after it: a missed pass or a ball that left
            # the track between the two sensors. One revolution more is possible, not certain.
            spin.passes.pop()
            spin.recovered.pop()
            spin.extra_max += 1
            spin.tentative = None
        self._recover_first_pass(spin)
        low, high = len(spin.passes), len(spin.passes) + spin.extra_max
        need = self.cfg.min_ball_revolutions
        if high < need:
            spin.add_reason("too_few_revolutions",
                            f"{high} ball revolutions, fewer than {need}")
        elif low < need:
            spin.held.setdefault("ball_a", f"between {low} and {high} ball revolutions (passes "
                                 f"missed by both ball sensors); the minimum is {need}")
        if spin.ball_direction is None and low >= need:
            # Laps enough to have measured it: ball_b said nothing certain (CONTRACT §5).
            spin.held.setdefault("ball_b", "the ball's direction was not measured (no lap "
                                 "with one ball_b pass in it): Art. 12 (b) cannot be judged")
        if self._spin_rotor_direction() is None:
            spin.pending_direction = True
            if self.rotor.last_a is None:
                slowest = 60.0 / self.cfg.min_rotor_rpm
                if any(b > t - 2 * slowest for b in self.rotor.b_since_a):
                    spin.held.setdefault("rotor_a", "rotor_a silent while rotor_b shows the "
                                         "rotor turning: a sensor fault")
                else:
                    spin.add_reason("wheel_stopped",
                                    "the rotor is not turning while the ball is in play")
            else:
                # The rotor was being acquired afresh: its first whole revolution tells;
                # a rotor that never completes one at the slowest speed has stopped.
                wait = 2 * 60.0 / self.cfg.min_rotor_rpm
                self._rotor_deadline = self.schedule(t + wait, lambda: self._rotor_silent(t + wait))
        else:
            self._judge_direction(spin)
        if spin.reasons or spin.held:
            self._conclude(t, None)

    def _judge_direction(self, spin: Spin) -> None:
        ball_dir = spin.ball_direction
        if ball_dir is not None and ball_dir == self._spin_rotor_direction():
            spin.add_reason("same_direction", f"ball and rotor both turn {ball_dir}")

    def _check_confirmed(self, now: float) -> None:
        spin = self.spin
        assert spin is not None
        if not spin.track_judged:
            return
        readings = spin.readings
        for first, second in itertools.pairwise(readings):
            if first.index is None or first.period is None:
                continue
            gap = second.t - first.t
            same = (second.index == first.index
                    and 0.5 * first.period <= gap <= 1.5 * first.period)
            one_turn = (second.index is None and first.trend is not None
                        and not (first.orphan or second.orphan)
                        and abs(gap - first.period - first.fraction * first.trend)
                        <= first.period / (4 * self.n))
            if not (same or one_turn):
                continue
            deadline = spin.suspended_deadline
            if deadline is not None and first.t > deadline:
                spin.add_reason("ball_suspended",
                                f"first pocket reading at {first.t:.3f} s, after the wait ended "
                                f"at {deadline:.3f} s")
                self._conclude(now, None)
            else:
                self._conclude(now, first.index)
            return

    def _count_wait(self, rev: Revolution) -> None:
        """Art. 12 (c), at each revolution after the ball left the track, counted in real
        rotor revolutions: each one's own period places the moment the 6th ends."""
        spin = self.spin
        wait_state = self._wait
        assert spin is not None and spin.left_t is not None
        if wait_state.start is None:
            wait_state.start = rev.start
        ends = wait_state.ends
        turns = max(1, round(rev.period / self.rotor.period)) if self.rotor.period else 1
        for k in range(1, turns + 1):  # a revolution with missed rotor_a passes counts them
            ends.append(rev.start + (rev.end - rev.start) * k / turns)
        if len(ends) == turns:
            span = ends[0] - wait_state.start
            wait_state.fraction = min(max((spin.left_t - wait_state.start) / span, 0.0), 1.0)
        wait = self.cfg.suspended_wait_rotor_revolutions
        if spin.suspended_deadline is None:
            elapsed = len(ends) - wait_state.fraction
            if elapsed < wait:
                return
            start = ends[-2] if len(ends) > 1 else wait_state.start
            into = wait - (len(ends) - 1 - wait_state.fraction)
            deadline = start + into * (ends[-1] - start)
            spin.suspended_deadline = deadline
            if not any(r.t <= deadline for r in spin.readings):
                self._judge_track(rev.end)  # (a) and (b) come first in any case
                if spin.concluded:
                    return
                spin.add_reason("ball_suspended",
                                f"no pocket reading within {wait:g} rotor revolutions of the "
                                f"ball leaving the track (they ended at {deadline:.3f} s)")
                self._conclude(rev.end, None)
            return
        wait_state.after_deadline += 1
        if wait_state.after_deadline >= 2 and spin.track_judged:
            # Read within the wait, but a fault kept the readings from confirming one
            # pocket: the ball was not suspended; nothing certain is known of where it is.
            spin.held.setdefault("ball_pocket", "the ball was read within the wait of Art. 12 "
                                 "(c), but the readings did not confirm one pocket")
            self._conclude(rev.end, None)

    def void(self, t: float, reason: str) -> bool:
        """A dealer or inspector declares the spin invalid (Art. 12 d-g); False if no spin."""
        spin = self.spin
        if spin is None or spin.concluded:
            return False
        self._judge_direction(spin)
        spin.add_reason(reason, "declared by the dealer")
        spin.declared = True  # a person decided: no evidence is waited for
        self._conclude(t, None)
        return True

    def _spin_rotor_direction(self) -> str | None:
        """The rotor's direction during the spin: most of its whole revolutions; on a tie
        the direction it had at the launch."""
        spin = self.spin
        if spin is not None:
            cw, ccw = spin.rotor_dirs["cw"], spin.rotor_dirs["ccw"]
            if cw != ccw:
                return "cw" if cw > ccw else "ccw"
            if spin.launch_rotor_direction is not None:
                return spin.launch_rotor_direction
        return self.rotor.direction

    def _cancel(self) -> None:
        for name in ("_drop_timer", "_judge_timer", "_rotor_deadline"):
            timer = getattr(self, name)
            if timer is not None:
                timer.cancel()
                setattr(self, name, None)

    def _candidate(self, index: int | None) -> str | None:
        """The number the evidence points to, for the inspector of a held spin."""
        if index is None:
            decoded = [r.index for r in self.spin.readings if r.index is not None] \
                if self.spin else []
            index = decoded[0] if decoded else None
        return None if index is None else self.order[index]

    def _conclude(self, t: float, index: int | None) -> None:
        spin = self.spin
        assert spin is not None
        spin.concluded = True
        if self._rotor_deadline is not None:
            self._rotor_deadline.cancel()
            self._rotor_deadline = None
        if not spin.declared:
            for name, count in self.filter.over_budget().items():
                spin.held.setdefault(name, f"{count} corrections of {name} in this spin, over "
                                     f"the budget of {self.cfg.sensor_error_budget}")
        reasons = [r for r in REASONS if r in spin.reasons]
        held = {} if spin.declared else dict(spin.held)
        periods = spin.rotor_periods or ([self.rotor.period] if self.rotor.period else [])
        rpm = round(60.0 / periods[-1], 3) if periods else None
        certain = index is not None and not reasons and not held
        outcome = SpinOutcome(
            spin=spin, t=t,
            number=self.order[index] if certain and index is not None else None,
            index=index if certain else None,
            reasons=[] if held else reasons,
            rotor_direction=self._spin_rotor_direction(),
            rotor_rpm=rpm,
            held=held,
            candidate=self._candidate(index) if held else None,
        )
        self.on_conclude(outcome)

