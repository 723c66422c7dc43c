"""The GPIO wheel tracker's pocket readings and second balls (CONTRACT §1 "Winning pocket",
§5; seed 001 Art. 12 c; issue 16), a part of
:class:`~controller.games.roulette.gpio_wheel.tracker.GpioWheelTracker` of its own.

A reading is kept once the ball is off the track; two confirm the pocket
(:mod:`.pockets`), each with its angle error bound from the stamps' timing
(:mod:`.timing`): a bound that reaches the pocket's edge holds the spin with its
candidate. A ball on the track after the spin's ball left it is a second ball: an alarm,
no evidence of the first, and the spin held with the candidate of its earlier readings.
"""

from __future__ import annotations

from collections import deque

from controller.games.roulette import art12
from controller.games.roulette.config import RouletteConfig
from controller.games.roulette.gpio_wheel import ball_track, pockets, timing
from controller.games.roulette.gpio_wheel.pocket_sensor import PocketSensor
from controller.games.roulette.gpio_wheel.rotor import Revolution
from controller.games.roulette.gpio_wheel.spin_record import PocketReading, Spin
from controller.games.roulette.gpio_wheel.suspended_wait import SuspendedWait
from controller.games.roulette.wheel import WheelListener


class PocketReadings:
    """The readings' and second balls' part of the tracker (its state and its verdicts
    are the tracker's: the names below are declared for the type checker)."""

    cfg: RouletteConfig
    n: int
    listener: WheelListener
    spin: Spin | None
    _pocket_sensor: PocketSensor
    _recent: deque[Revolution]
    _revival: ball_track.Revival | None
    _wait: SuspendedWait | None

    def _judge_track(self, t: float) -> None:
        raise NotImplementedError

    def _conclude(self, t: float, index: int | None) -> None:
        raise NotImplementedError

    def _cancel(self) -> None:
        raise NotImplementedError

    def _pocket(self, t: float, orphan: bool) -> None:
        """A ``ball_pocket`` reading; ignored unless a spin is waiting for its pocket
        (between spins the last ball still rests in its pocket and passes the sensor)."""
        self._pocket_sensor.activation(t)
        spin = self.spin
        if spin is None or spin.concluded:
            return
        if spin.second_ball is not None:
            return  # either ball's: no evidence of this spin's
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

    def _check_confirmed(self, now: float) -> None:
        """Two readings confirm the pocket: a result, unless it was first read after the
        Art. 12 (c) wait had ended."""
        spin = self.spin
        assert spin is not None
        if not spin.track_judged:
            return
        first = pockets.confirmed(spin.readings, self.n)
        if first is None:
            return
        doubt = timing.untrusted(first, self._bound_readings(spin, first))
        if doubt is not None:
            spin.held.setdefault("timing", doubt)
        deadline = self._wait.deadline if self._wait is not None else None
        wait = self.cfg.suspended_wait_rotor_revolutions
        late = art12.ball_suspended(first.t, deadline, wait) if deadline is not None else None
        if late is not None:
            spin.add(late)
            self._conclude(now, None)
        else:
            self._conclude(now, first.index)

    def _bound_readings(self, spin: Spin, first: PocketReading | None) -> float:
        """Give the spin's decoded readings their angle error bound (issue 16), from the
        spread of the stamps of this spin's rotor and of ``first`` and the reading after
        it; returns the spread (seconds)."""
        readings = spin.readings
        later = readings[readings.index(first) + 1:] if first in readings else []
        revs = [r for r in self._recent if r.end > spin.launch_t]  # this spin's rotor
        spread = timing.stamp_spread(revs, first, later[0] if later else None)
        timing.bound_readings(readings, spread)
        return spread

    def _second_ball(self, spin: Spin, name: str, t: float) -> None:
        """A ball on the track while the spin's own ball is surely off it (the track was
        judged) and its pocket not yet confirmed: a second ball (issue 16). An alarm,
        and no evidence of the first: the pocket readings from now on may be either
        ball's, so the spin is held with the candidate its earlier readings give."""
        if spin.second_ball is not None:
            return
        spin.second_ball = t
        read = (f"; read once at {spin.readings[0].t:.3f} s" if spin.readings
                else "; not read in a pocket yet")
        self.listener.alarm("second_ball", f"{name} at {t:.3f} s: a second ball on the track "
                            f"after the ball of spin {spin.number} left it{read}")
        spin.held.setdefault("second_ball", f"a second ball was on the track at {t:.3f} s "
                             "before the pocket was confirmed; the readings after it are "
                             "not evidence of this spin's ball")
        self._held_for_second_ball(spin, t)

    def _second_ball_on_track(self, spin: Spin, revival: ball_track.Revival,
                              t: float) -> None:
        """The passes since the ball was taken for gone are a second ball's: the track
        goes back to what the first ball left, and the second ball is an alarm."""
        self._revival = None
        revival.undo(spin)
        self._wait = revival.wait
        self._cancel()
        self._judge_track(t)  # the first ball's (a) and (b), off the track since left_t
        self._second_ball(spin, "ball_a", t)

    def _held_for_second_ball(self, spin: Spin, t: float) -> None:
        """Conclude the spin held once each reading before the second ball is decoded
        (its rotor revolution closed): the candidate is the first one's pocket."""
        if (spin.second_ball is not None and not spin.concluded
                and all(r.index is not None for r in spin.readings)):
            self._conclude(t, None)
