"""The GPIO wheel tracker: spins from the five wheel sensors (CONTRACT §1, §5; seed 001 Art. 12).

:class:`GpioWheelTracker` is fed every raw edge of the wheel inputs, in time order, on the
controller thread. Edges become activations through
:class:`~controller.games.roulette.gpio_wheel.sensors.EdgeFilter` (chatter merged, missed
edges corrected, each input's corrections counted); the rotor is followed by
:class:`~controller.games.roulette.gpio_wheel.rotor.RotorTracker`; from the ball's launch
the tracker keeps the ball's passes (:mod:`.ball_track`), the moment it leaves the track,
the pocket readings (:mod:`.pockets`) and the Art. 12 (c) wait (:mod:`.suspended_wait`),
until the spin is concluded: a confirmed result, an invalid spin ("tiro no válido") with
its reasons (:mod:`controller.games.roulette.art12`), or a spin **held** for the inspector
when the evidence is not certain (CONTRACT §5).

Decisions where the contract leaves room (hardware.md, "Spin verdicts"):
- The ball is off the track ``drop_timeout_factor`` × the last lap after its last pass (that
  time starts the Art. 12 (c) wait), but (a) and (b) are judged only once a pass missed by
  both ball sensors could no longer come (``f + f²`` laps, f the factor), or at the first
  pocket reading: a running ball is never taken for a dropped one, nor for a new launch.
- (a) is held when the revolutions are a range that straddles the minimum.
- A spin whose corrected evidence is not certain is held: an input over its error budget,
  revolutions uncertain across the minimum, ``rotor_a`` silent while ``rotor_b`` fires, the
  rotor stopped after the ball was read but before the pocket was confirmed.
"""

from __future__ import annotations

from collections import deque
from types import MappingProxyType
from typing import Any

from controller.core.contract import Schedule, TimerHandle
from controller.core.events import PortStatus, SerialData
from controller.games.roulette import art12
from controller.games.roulette.config import WHEEL_INPUTS, RouletteConfig
from controller.games.roulette.gpio_wheel import ball_track, pockets
from controller.games.roulette.gpio_wheel.pocket_sensor import PocketSensor, unread_at_rest
from controller.games.roulette.gpio_wheel.readings import PocketReadings
from controller.games.roulette.gpio_wheel.rotor import Revolution, RotorTracker, rotor_b_dead
from controller.games.roulette.gpio_wheel.sensors import Correction, EdgeFilter
from controller.games.roulette.gpio_wheel.spin_record import PocketReading, Spin
from controller.games.roulette.gpio_wheel.suspended_wait import SuspendedWait
from controller.games.roulette.wheel import SpinOutcome, WheelListener


class GpioWheelTracker(PocketReadings):
    """Turns wheel-sensor edges into concluded spins (a :class:`~controller.games.roulette.
    wheel.WheelTracker`; seed 001 Art. 12; CONTRACT §1, §5).

    Args:
        cfg: thresholds (seconds, rpm, revolutions); defaults are the seed's.
        order: the wheel's pockets clockwise from 0 (wheels.md); index 0 is pocket 0.
        schedule: ``schedule(deadline_s, callback)`` runs a callback on the controller
            thread at a clock time and returns a handle with ``cancel()``.
        listener: told of each launch (it gives the spin's number), the automatic "no va
            más" (a ball lap over ``auto_no_more_bets_lap_s``, once a spin), each
            conclusion and every alarm.
    """

    inputs: tuple[str, ...] = WHEEL_INPUTS
    ports: tuple[str, ...] = ()

    def __init__(self, cfg: RouletteConfig, order: tuple[str, ...], schedule: Schedule,
                 listener: WheelListener) -> None:
        self.cfg = cfg
        self.order = order
        self.n = len(order)
        self.schedule = schedule
        self.listener = listener
        self.rotor = RotorTracker(cfg.min_rotor_rpm, cfg.max_rotor_period_ratio, schedule,
                                  self._rotor_silent)
        self.filter = EdgeFilter(cfg.min_lap_s, cfg.min_rotor_period_s, cfg.sensor_error_budget)
        self.spin: Spin | None = None
        self._drop_timer: TimerHandle | None = None
        self._judge_timer: TimerHandle | None = None
        self._rotor_deadline: TimerHandle | None = None
        self._track_until = float("-inf")  # a ball-track edge up to then is the spin's ball
        self._wait: SuspendedWait | None = None  # from the moment the ball left the track
        self._long_lap_called = False
        self._prev_whole: Revolution | None = None
        self._pocket_sensor = PocketSensor()
        self._revival: ball_track.Revival | None = None  # a pass after the ball left
        self._recent: deque[Revolution] = deque(maxlen=8)  # measured whole revolutions

    # -- what the game asks --------------------------------------------------------
    @property
    def in_play(self) -> bool:
        return self.spin is not None and not self.spin.concluded

    @property
    def busy(self) -> str | None:
        """The last spin's ball may still be on the track: no new spin is opened."""
        spin = self.spin
        if spin is not None and (spin.left_t is None or not spin.track_judged):
            return f"the ball of spin {spin.number} is still on the track"
        return None

    @property
    def closed_to_bets(self) -> str | None:
        """Never: the table's own state says when bets are taken (the dealer's "no va
        más", or the ball's automatic one)."""
        return None

    def sensors(self, now: float) -> dict[str, Any]:
        """Nothing besides the GPIO levels (the hardware's own view)."""
        return {}

    def started(self, t: float) -> None:
        """Nothing to time: the sensors' edges come when the ball and the rotor pass."""

    def resumed(self, ball_may_run: bool) -> None:
        """Nothing to keep: a ball still on the track shows in its edges (``busy``)."""

    # -- what the game feeds -------------------------------------------------------
    def edge(self, t: float, name: str, level: int) -> None:
        """A raw edge of a wheel input: ``name`` to ``level`` (1 active) at ``t`` seconds.
        Corrections are journaled as ``sensor_fault`` alarms, once per input and kind in a
        spin, and counted against the input's budget."""
        rise, orphan, correction = self.filter.edge(name, t, level)
        if correction is not None:
            self._fault(correction)
        if name == "rotor_b" and level == 0:
            self.rotor.rotor_b_fell(t)
        if rise is None:
            return
        t = rise
        if name == "rotor_a":
            self._rotor_a(t)
        elif name == "rotor_b":
            spin = self.spin
            if spin is not None and not spin.concluded:  # in_play, inline: per edge
                spin.rotor_b_seen += 1
            self.rotor.rotor_b(t)
        elif name == "ball_pocket":
            self._pocket(t, orphan)
        else:
            self._ball(name, t)

    def serial(self, data: SerialData) -> None:
        self.listener.alarm("unexpected_input", f"{len(data.data)} bytes on serial port "
                            f"{data.port!r}: a roulette table reads no serial port")

    def port_status(self, status: PortStatus) -> None:
        """The GPIO wheel reads no serial port."""

    def void(self, t: float, reason: str) -> None:
        """A dealer or inspector declares the spin in play invalid (Art. 12 d-g)."""
        spin = self.spin
        assert spin is not None and not spin.concluded, "void with no spin in play"
        self._judge_direction(spin)
        spin.add(art12.declared(reason))
        spin.declared = True  # a person decided: no evidence is waited for
        self._conclude(t, None)

    def timing_doubt(self, t: float, why: str) -> str | None:
        """An edge stamped ``t`` came after a timeout it precedes had fired: the
        spin in play may have been measured without edges of its own, so it is held
        (``stall``), never decided (CONTRACT §5); what was held, or None. An edge from
        before the verdict of a spin already concluded cannot change what was journaled
        and paid: it is said once, for a person to check that spin."""
        spin = self.spin
        if spin is None:
            return None
        if spin.concluded:
            if spin.doubted or t > spin.concluded_t:
                return None
            spin.doubted = True
            return (f"spin {spin.number} was concluded at {spin.concluded_t:.3f} s without "
                    "it: its verdict stands, for a person to check")
        spin.held.setdefault("stall", why)
        return f"spin {spin.number} is held for a person"

    # -- sensor faults -------------------------------------------------------------
    def _fault(self, correction: Correction) -> None:
        spin = self.spin
        if spin is not None and not spin.concluded:
            spin.faults.setdefault(correction.input, []).append(correction.message)
        if self.filter.first(correction):
            self.listener.alarm("sensor_fault", correction.message)

    def _missed_ball_a(self, message: str | None, unseen: bool = False) -> None:
        """A pass ``ball_a`` missed: journaled; counted against its error budget only when
        no sensor saw it (``unseen``: counted from the lap times). A pass ``ball_b`` saw is
        counted from ``ball_b``, certain (issue 16)."""
        if message is None:
            return
        if unseen:
            self._fault(self.filter.count("ball_a", "missed_pass", message))
        else:
            self._fault(Correction("ball_a", "seen_by_ball_b", message))

    # -- launches and the ball -----------------------------------------------------
    def _ball(self, name: str, t: float) -> None:
        """A ball-track activation: the running ball's pass, or the launch of a new spin
        when the table takes one. A running ball never starts a spin (CONTRACT §5): an
        activation up to ``_track_until`` belongs to the last spin's ball (still running,
        or a pass both sensors missed may still come)."""
        spin = self.spin
        if spin is not None and not spin.concluded and spin.track_judged:  # in play
            self._second_ball(spin, name, t)
            return
        if spin is None or t > self._track_until:
            number = self.listener.ball_launched(t, f"{name} at {t:.3f} s")
            if number is None:
                return
            self._launch(number, t, name)
        if name == "ball_a":
            self._ball_a(t)
        else:
            self._ball_b(t)

    def _launch(self, number: int, t: float, name: str) -> None:
        """Start tracking spin ``number`` at ``t`` (the first ball activation, of sensor
        ``name``: where the ball was released, for the dealer's signature)."""
        self._cancel()
        self.filter.reset()
        self.spin = Spin(number, t, launch_rotor_direction=self.rotor.direction,
                         release=PocketReading(t), release_deg=(
                             0.0 if name == "ball_a" else self.cfg.ball_b_deg))
        self._revival = None
        self._wait = None
        self._long_lap_called = False
        self._track_until = t + self.cfg.launch_timeout_s

    def _ball_a(self, t: float) -> None:
        spin = self._track(t)
        if spin is None:
            return
        revival = self._revival
        if revival is not None and revival.impossible(spin, t):
            self._second_ball_on_track(spin, revival, t)
            return
        passes = spin.passes
        self._missed_ball_a(ball_track.confirm_tentative(spin))
        if passes:
            extra, known = spin.extra_max, len(spin.recovered)
            message = ball_track.fill_gap(spin, passes[-1], t, self.cfg.drop_timeout_factor)
            recovered = spin.recovered
            unseen = spin.extra_max > extra or (len(recovered) > known and any(
                r["from"] != "ball_b" for r in recovered[known:]))
            self._missed_ball_a(message, unseen)
        passes.append(t)
        self._after_pass(spin, t)

    def _ball_b(self, t: float) -> None:
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
            self._fault(self.filter.count(
                "ball_pocket", "while_running",
                f"ball_pocket fired at {spin.readings[0].t:.3f} s while the ball was still on "
                f"the track (passing at {t:.3f} s): not a reading"))
            spin.readings.clear()
        if spin.left_t is not None:
            # The ball was taken for gone, but it is on the track: a missed pass (or a
            # second ball, which its next lap shows).
            self._revival = ball_track.Revival.take(spin, self._wait)
            spin.left_t = None
            self._wait = None
            if self._judge_timer is not None:
                self._judge_timer.cancel()
                self._judge_timer = None
            passes = spin.passes
            lap = passes[-1] - passes[-2] if len(passes) >= 2 else self.cfg.launch_timeout_s
            self._arm_drop(t + self.cfg.drop_timeout_factor * lap)
        return spin

    def _after_pass(self, spin: Spin, t: float) -> None:
        passes = spin.passes
        f = self.cfg.drop_timeout_factor
        if len(passes) >= 2:
            lap = t - passes[-2]
            limit = self.cfg.auto_no_more_bets_lap_s
            if limit and lap > limit and not self._long_lap_called:
                self._long_lap_called = True
                self.listener.auto_no_more_bets(None)
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
        lone = ball_track.pass_after_last(spin, self.cfg.min_lap_s)
        if lone is not None:
            self._missed_ball_a(ball_track.confirm_tentative(spin))
            self._missed_ball_a(ball_track.take_ball_b_pass(spin, lone))
            self._after_pass(spin, lone)
            return
        spin.left_t = t
        self._wait = SuspendedWait(t, self.rotor.last_a,
                                   self.cfg.suspended_wait_rotor_revolutions)
        if spin.readings:
            # Read in a pocket and no pass since: the ball is off the track.
            self._judge_track(t)
            if not spin.concluded:
                self._check_confirmed(t)
            return
        self._judge_timer = self.schedule(self._track_until,
                                          lambda: self._judge_track(self._track_until))

    # -- the rotor -----------------------------------------------------------------
    def _rotor_a(self, t: float) -> None:
        without_b = not self.rotor.b_since_a
        rev = self.rotor.rotor_a(t, self.in_play)
        if rev is None:
            self._prev_whole = None
            return
        for name, message in rev.faults:
            self._fault(self.filter.count(name, "missed_pass", message))
        prev, self._prev_whole = self._prev_whole, (rev if rev.whole else None)
        if rev.b_at is not None:
            self._recent.append(rev)
        spin = self.spin
        if spin is None or spin.concluded:
            return
        if spin.launch_t < rev.end:
            spin.add(rotor_b_dead(spin.periods_without_b, rev.period, without_b,
                                  spin.rotor_b_seen, spin.launch_rotor_direction,
                                  self.cfg.sensor_error_budget))
        self._revolution(spin, rev, pockets.free_trend(rev, prev))

    def _revolution(self, spin: Spin, rev: Revolution, trend: float | None) -> None:
        if rev.end > spin.launch_t and (spin.left_t is None or rev.start < spin.left_t):
            if rev.whole:
                spin.rotor_periods.append(rev.period)
            if rev.direction is not None and rev.measured:
                spin.rotor_dirs[rev.direction] += 1
        if rev.reasons and not (self._pocket_sensor.failed(spin)
                                or unread_at_rest(spin, rev.start, rev.reasons[0].detail)):
            for finding in rev.reasons:
                spin.add(finding)
        if rev.uncertain:
            spin.held.setdefault("rotor", rev.faults[0][1])
        if rev.whole and rev.direction is not None:
            pockets.decode(spin.readings, rev, self.order, trend, self.cfg.ball_pocket_deg)
            if spin.release is not None:  # the pocket under the ball at its release
                pockets.decode([spin.release], rev, self.order, None, spin.release_deg)
            self._held_for_second_ball(spin, rev.end)
            if spin.concluded:
                return
            if spin.track_judged and spin.pending_direction:
                spin.pending_direction = False
                self._judge_direction(spin)
            self._check_confirmed(rev.end)
        if spin.concluded:
            return
        if spin.track_judged and spin.reasons:
            self._conclude(rev.end, None)
        elif spin.left_t is not None:
            self._count_wait(spin, rev)

    def _rotor_silent(self, t: float) -> None:
        """No ``rotor_a`` within twice the last period (CONTRACT §1, §5; Art. 12 g)."""
        spin = self.spin
        if spin is None or spin.concluded:
            return
        if self.rotor.turned_without_a(t):
            spin.held.setdefault("rotor_a", f"rotor_a silent since {self.rotor.last_a:.3f} s "
                                 "while rotor_b still fires: a sensor fault")
        elif spin.readings:
            spin.held.setdefault("rotor", f"the rotor stopped (no rotor_a by {t:.3f} s) after "
                                 "the ball was read in a pocket, before two readings "
                                 "confirmed it")
        elif not (self._pocket_sensor.failed(spin) or unread_at_rest(
                spin, self.rotor.last_a, f"no rotor_a by {t:.3f} s")):
            spin.add(art12.wheel_stopped_silent(t, self.rotor.last_a))
        if spin.track_judged:
            self._conclude(t, None)

    # -- verdicts ------------------------------------------------------------------
    def _judge_track(self, t: float) -> None:
        """Art. 12 (a) and (b), once the ball is surely off the track."""
        spin = self.spin
        if spin is None or spin.track_judged:
            return
        if self._judge_timer is not None:
            self._judge_timer.cancel()
            self._judge_timer = None
        spin.track_judged = True
        self._revival = None
        self._track_until = float("-inf")
        if spin.concluded:
            return
        ball_track.drop_tentative(spin)
        self._missed_ball_a(ball_track.recover_first_pass(spin))
        low, high = len(spin.passes), len(spin.passes) + spin.extra_max
        need = self.cfg.min_ball_revolutions
        spin.add(art12.too_few_revolutions(low, high, need))
        # Laps enough to have measured it: ball_b said nothing certain (CONTRACT §5).
        spin.add(art12.ball_direction_unmeasured(spin.ball_direction, low, need))
        if self._spin_rotor_direction() is None:
            spin.pending_direction = True
            if self.rotor.last_a is None:
                slowest = 60.0 / self.cfg.min_rotor_rpm
                if any(b > t - 2 * slowest for b in self.rotor.turning_b(t)):
                    spin.held.setdefault("rotor_a", "rotor_a silent while rotor_b shows the "
                                         "rotor turning: a sensor fault")
                else:
                    spin.add(art12.wheel_stopped_still())
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
        spin.add(art12.same_direction(spin.ball_direction, self._spin_rotor_direction()))

    def _count_wait(self, spin: Spin, rev: Revolution) -> None:
        """Art. 12 (c), at each revolution after the ball left the track."""
        wait = self._wait
        assert wait is not None
        if wait.count(rev, self.rotor.period):
            assert wait.deadline is not None
            if not any(r.t <= wait.deadline for r in spin.readings):
                self._judge_track(rev.end)  # (a) and (b) come first in any case
                if spin.concluded:
                    return
                if not self._pocket_sensor.failed(spin):
                    spin.add(art12.ball_suspended(None, wait.deadline, wait.revolutions))
                self._conclude(rev.end, None)
            return
        if wait.after_deadline >= 2 and spin.track_judged:
            # Read within the wait, but a fault kept the readings from confirming one
            # pocket: the ball was not suspended; nothing certain is known of where it is.
            spin.held.setdefault("ball_pocket", "the ball was read within the wait of Art. 12 "
                                 "(c), but the readings did not confirm one pocket")
            self._conclude(rev.end, None)

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

    def _conclude(self, t: float, index: int | None) -> None:
        """Conclude the spin: its frozen :class:`SpinOutcome` to the listener, once."""
        spin = self.spin
        assert spin is not None
        spin.concluded, spin.concluded_t = True, t
        self._pocket_sensor.concluded(spin)
        if any(r.period is not None and r.error_deg is None for r in spin.readings):
            decoded = [r for r in spin.readings if r.period is not None]
            self._bound_readings(spin, decoded[0])
        if self._rotor_deadline is not None:
            self._rotor_deadline.cancel()
            self._rotor_deadline = None
        if not spin.declared:
            for name, count in self.filter.over_budget().items():
                if name == "rotor_b" and "wheel_malfunction" in spin.reasons and len(
                        spin.periods_without_b) > self.cfg.sensor_error_budget:
                    continue  # its silence is the certain finding of (f), not a doubt
                spin.held.setdefault(name, f"{count} corrections of {name} in this spin, over "
                                     f"the budget of {self.cfg.sensor_error_budget}")
        reasons = art12.ordered(spin.reasons)
        held = {} if spin.declared else dict(spin.held)
        periods = spin.rotor_periods or ([self.rotor.period] if self.rotor.period else [])
        rpm = round(60.0 / periods[-1], 3) if periods else None
        certain = index is not None and not reasons and not held
        direction = self._spin_rotor_direction()
        if held:
            reasons = ()
        candidate = None
        if held:
            shown = index if index is not None else pockets.first_decoded(spin.readings)
            candidate = None if shown is None else self.order[shown]
        self.listener.spin_concluded(SpinOutcome(
            spin=spin.number, t=t,
            number=self.order[index] if certain and index is not None else None,
            index=index if certain else None,
            reasons=reasons,
            rotor_direction=direction,
            rotor_rpm=rpm,
            evidence=spin.evidence(reasons, direction, rpm),
            held=MappingProxyType(held),
            candidate=candidate,
            declared=spin.declared,
        ))
