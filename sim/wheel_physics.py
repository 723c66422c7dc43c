"""The simulated wheel's physics (:mod:`sim.wheel_sim`'s): its settings
(:class:`WheelSimConfig`) and the laws a throw follows, the ball's run on the track, the
rotor's launch speed, the croupier's hand braking the rotor under a resting ball. Pure: every
draw comes from the ``rng`` given. Calibrated on ../shared/data/real-lap-times.md (see
:mod:`sim.wheel_sim`'s docstring).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from itertools import pairwise

from sim.wheel_geometry import Motion, ahead_of


@dataclass
class WheelSimConfig:
    """Wheel geometry and physics of ``simulate``. Times in seconds, angles in degrees.

    Attributes:
        ball_b_deg, rotor_b_deg: sensor positions clockwise of the ``_a`` sensors (CONTRACT §1).
        ball_pocket_deg: the pocket sensor's position clockwise of ``rotor_a`` (0° in the
            contract; a sensor mounted off it, for the commissioning of hardware.md). The
            "rotor_stops_after_settle" habit brakes for a sensor at 0°.
        pulse_deg: a sensor is active while its target is within this angle of it.
        rotor_rpm: (min, max) rotor speed at launch, rpm; the brief's 10-30 rpm.
        rotor_rpm_median: median launch speed, rpm; 11 rpm = the real median 5.3 s/rev.
        rotor_decel_rpm_per_min: constant rotor deceleration, rpm per minute. The real series
            show no trend over 2-4 revolutions under their ~0.1 s jitter; 0.3 rpm/min keeps
            consecutive periods within 0.3 % at 10 rpm, so the contract's decoding with the
            last period stays within about 1° of the true pocket (half a pocket is 4.7°).
        slow_rotor_rpm: (min, max) launch speed of a "slow_rotor" throw, rpm (below 5).
        respin_accel_deg_s2: the dealer's hand braking and re-spinning the rotor, deg/s².
        brake_deg_s2: (min, max) deceleration of the croupier's hand bringing the rotor to
            a stop ("rotor_braked_in_run", "rotor_reversed", "rotor_stops_after_settle"), deg/s².
        ball_first_lap_s: (min, mode, max) of the triangular law of the first lap time from
            the launch to the first ``ball_a`` activation: median 0.54 s and 90 % in
            0.41-0.72 s, as the real first laps (0.39-0.75 s).
        ball_friction_rev_s2: constant part a of the ball's deceleration, rev/s² (fit).
        ball_drag_per_rev: drag coefficient c in dω/dt = −a − c·ω², per revolution (fit).
        ball_leave_speed_rev_s: (min, max) speed at which the ball leaves the track, rev/s;
            around the fitted 0.45 rev/s; spreads the last laps.
        bounce_s: (min, max) time the ball bounces between leaving the track and settling.
        confirm_rotor_revolutions: rotor revolutions the ball rests in its pocket before the
            dealer removes it; >= 2 so the controller sees two activations to confirm.
        suspended_rotor_revolutions: in "ball_never_settles", rotor revolutions after the
            bounce time without any ``ball_pocket`` pulse before the dealer takes the ball.
        pause_s: (min, max) time between removing the ball and opening the next bets.
        reverse_rest_s: (min, max) time the rotor rests, stopped, in "rotor_reversed".
        reverse_launch_revolutions: (min, max) rotor revolutions from the end of the re-spin
            to the launch in "rotor_reversed" (2-3 otherwise).
        settle_stop_rotor_rpm: (min, max) launch speed in "rotor_stops_after_settle", rpm.
        chatter_passes: passes a ``chatter_*`` fault strikes (``chatter_ball_a_worn``:
            every ``ball_a`` pass of the run).
        chatter_rises: rises of a chattering pass, all within ``chatter_span_s`` seconds.
    """

    ball_b_deg: float = 20.0
    rotor_b_deg: float = 10.0
    ball_pocket_deg: float = 0.0
    pulse_deg: float = 2.0
    rotor_rpm: tuple[float, float] = (10.0, 30.0)
    rotor_rpm_median: float = 11.0
    rotor_decel_rpm_per_min: float = 0.3
    slow_rotor_rpm: tuple[float, float] = (2.5, 4.5)
    respin_accel_deg_s2: float = 45.0
    brake_deg_s2: tuple[float, float] = (15.0, 40.0)
    ball_first_lap_s: tuple[float, float, float] = (0.36, 0.50, 0.80)
    ball_friction_rev_s2: float = 0.091
    ball_drag_per_rev: float = 0.031
    ball_leave_speed_rev_s: tuple[float, float] = (0.42, 0.48)
    bounce_s: tuple[float, float] = (1.0, 4.0)
    confirm_rotor_revolutions: float = 3.0
    suspended_rotor_revolutions: float = 8.0
    pause_s: tuple[float, float] = (3.0, 8.0)
    reverse_rest_s: tuple[float, float] = (8.0, 15.0)
    reverse_launch_revolutions: tuple[float, float] = (0.5, 1.5)
    settle_stop_rotor_rpm: tuple[float, float] = (10.0, 12.0)
    chatter_passes: int = 3
    chatter_rises: int = 5
    chatter_span_s: float = 0.003


def ball_time(u: float, omega0: float, a: float, c: float) -> float:
    """Seconds to travel ``u`` revolutions from speed ``omega0`` under dω/dt = −a − c·ω²."""
    big_a = math.atan(omega0 * math.sqrt(c / a))
    arg = math.cos(big_a) * math.exp(c * u)
    return math.inf if arg > 1.0 else (big_a - math.acos(arg)) / math.sqrt(a * c)


def ball_run(rng: random.Random, cfg: WheelSimConfig, few_laps: bool) -> tuple[list[float], float]:
    """Lap times (s) and degrees travelled after the last activation until the ball leaves."""
    a, c = cfg.ball_friction_rev_s2, cfg.ball_drag_per_rev
    leave_speed = rng.uniform(*cfg.ball_leave_speed_rev_s)
    first = (360.0 - 2.0 * cfg.pulse_deg) / 360.0  # revolutions to the first activation
    if few_laps:
        # A weak throw: pick where it leaves (after 1 or 2 activations), then its speed
        # from ω² = (ω0² + a/c)·e^(−2cu) − a/c.
        leave_u = first + rng.choice((0, 1)) + rng.uniform(60.0, 300.0) / 360.0
        omega0 = math.sqrt((leave_speed**2 + a / c) * math.exp(2.0 * c * leave_u) - a / c)
    else:
        lap1 = rng.triangular(
            cfg.ball_first_lap_s[0], cfg.ball_first_lap_s[2], cfg.ball_first_lap_s[1]
        )
        lo, hi = first / lap1, 3.0 * first / lap1  # it decelerates: ω0 > mean speed
        for _ in range(60):
            mid = (lo + hi) / 2.0
            lo, hi = (mid, hi) if ball_time(first, mid, a, c) > lap1 else (lo, mid)
        omega0 = (lo + hi) / 2.0
        leave_u = math.log((omega0**2 + a / c) / (leave_speed**2 + a / c)) / (2.0 * c)
    times = []
    u = first
    while u < leave_u:
        times.append(ball_time(u, omega0, a, c))
        u += 1.0
    laps = [t1 - t0 for t0, t1 in pairwise([0.0, *times])]
    return laps, (leave_u - (u - 1.0)) * 360.0


def launch_rpm(rng: random.Random, cfg: WheelSimConfig, slow: bool) -> float:
    if slow:
        return rng.uniform(*cfg.slow_rotor_rpm)
    lo, hi = cfg.rotor_rpm
    # lo + (hi − lo)·U^e has median rotor_rpm_median: most spins near 11 rpm, a tail to 30.
    exponent = math.log((hi - lo) / (cfg.rotor_rpm_median - lo)) / math.log(2.0)
    return lo + (hi - lo) * rng.random() ** exponent


_PAST_DEG = 0.5  # the croupier brakes the rotor once the ball is this far past ball_pocket
_STOP_MARGIN_DEG = 1.0  # and it stops at least this short of the rotor_a window


def stoppable_pockets(rotor: Motion, cfg: WheelSimConfig, n: int) -> list[int]:
    """Pockets (indices) in which a resting ball lets the croupier brake the rotor, turning
    at ``rotor.omega`` deg/s, to a stop (at most ``brake_deg_s2``) right after the ball's
    pass under ``ball_pocket`` and short of the next ``rotor_a`` activation."""
    s, w, p = math.copysign(1.0, rotor.omega), abs(rotor.omega), cfg.pulse_deg
    need = w * w / (2.0 * cfg.brake_deg_s2[1]) + _STOP_MARGIN_DEG
    # Braking starts with pocket i at p + _PAST_DEG past the sensor (in the direction of turn),
    # so the marker, i·360/n behind it, still has this far to go to rotor_a's window.
    return [i for i in range(n) if (s * i * 360.0 / n - 2.0 * p - _PAST_DEG) % 360.0 >= need]


def brake_after_second_pass(rng: random.Random, rotor: Motion, cfg: WheelSimConfig,
                             pocket_deg: float, decel: float) -> None:
    """Coast until the resting ball (``pocket_deg`` clockwise of the marker) has made its
    second pass under ``ball_pocket``, then brake to a stop before ``rotor_a`` fires again."""
    s, p = math.copysign(1.0, rotor.omega), cfg.pulse_deg
    # The first pass ends when the pocket is p past the sensor: the marker at s·p − pocket.
    turn = rotor.turn_time(ahead_of(rotor, s * p - pocket_deg) + 360.0 + _PAST_DEG, decel)
    assert turn is not None  # a rotor at about 11 rpm turns two more revolutions
    rotor.coast(rotor.t + turn, decel)
    least = rotor.omega**2 / (2.0 * (ahead_of(rotor, -s * p) - _STOP_MARGIN_DEG))
    lo, hi = cfg.brake_deg_s2
    assert least <= hi, "the pocket was drawn from stoppable_pockets"
    rotor.ramp(0.0, rng.uniform(max(lo, least), hi))


