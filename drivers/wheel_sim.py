"""A roulette wheel simulator that writes CONTRACT §2 trace events for N consecutive spins.

Pure and deterministic: ``simulate`` draws everything from ``random.Random(seed)``, does no
I/O and never touches GPIO; another module plays the events into pins. ``write_trace`` is the
only I/O here.

Geometry (CONTRACT §1; angles in degrees, clockwise seen from above): ``ball_a`` at 0°,
``ball_b`` at ``ball_b_deg``; ``rotor_a`` at 0°, ``rotor_b`` at ``rotor_b_deg``; ``ball_pocket``
at 0°. The rotor angle θ(t) is the position of the zero marker (centre of pocket 0), and pocket
i of the wheel order is centred at θ + i·360/N. A sensor is active while its target is within
``pulse_deg`` of it, so an activation (rising edge) happens ``pulse_deg`` before the target is
centred; the rotor marker and a resting ball share that offset, which is why the contract's
decoding rule k = round(f·N) recovers the pocket.

Physics (calibrated on /work/shared/data/real-lap-times.md and its two CSVs):

- Rotor: launched between 10 and 30 rpm with a median of 11 rpm (real revolutions: median
  5.3 s), then slowing by a small constant deceleration. The dealer re-spins it before each
  spin in the opposite direction (dealers alternate; the first direction is random), so the
  rotor stops and reverses between spins, when no ball is in play.
- Ball: angular speed ω (rev/s) obeys dω/dt = −a − c·ω² (rolling friction plus air drag),
  which has a closed form, so its ``ball_a`` activation times are exact. Fitted by least
  squares to the 145 real series that run until the ball left (last lap > 1.6 s): their lap
  times aligned on the last lap, and their lap count given their first lap: a = 0.091 rev/s²,
  c = 0.031 /rev, the ball leaving the track at about 0.45 rev/s. The first lap (median
  0.54 s as the real data, 90 % within 0.41-0.72 s) then gives 6-19 laps, median 11 (real:
  median 11 for these series, 6-25 for all).
  Between two ``ball_a`` activations the ball's angle is interpolated linearly, so a trace
  built from given lap times has its activations exactly at their cumulative sums.
"""

from __future__ import annotations

import json
import math
import os
import random
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

from controller.roulette_layout import WHEEL_ORDERS, layout_for

Event = dict[str, Any]
Interval = tuple[float, float]

SCENARIOS: tuple[str, ...] = (
    "valid",
    "too_few_revolutions",
    "same_direction",
    "ball_suspended",
    "wheel_malfunction_sensor",
    "wheel_slow",
    "wheel_stopped",
)
"""Per-spin scenarios ``simulate`` accepts; all but "valid" make an invalid spin (CONTRACT §1)."""

_OUTSIDE_BETS = ("red", "black", "even", "odd", "low", "high")
_EPS = 1e-9  # seconds: intervals this close touch; angles this close coincide


@dataclass
class WheelSimConfig:
    """Wheel geometry and physics of ``simulate``. Times in seconds, angles in degrees.

    Attributes:
        wheel: "single_zero" or "double_zero" (pocket order: controller.roulette_layout).
        ball_b_deg, rotor_b_deg: sensor positions clockwise of the ``_a`` sensors (CONTRACT §1).
        pulse_deg: a sensor is active while its target is within this angle of it.
        rotor_rpm: (min, max) rotor speed at launch, rpm; the brief's 10-30 rpm.
        rotor_rpm_median: median launch speed, rpm; 11 rpm = the real median 5.3 s/rev.
        rotor_decel_rpm_per_min: constant rotor deceleration, rpm per minute. The real series
            show no trend over 2-4 revolutions under their ~0.1 s jitter; 0.3 rpm/min keeps
            consecutive periods within 0.3 % at 10 rpm, so the contract's decoding with the
            last period stays within about 1° of the true pocket (half a pocket is 4.7°).
        slow_rotor_rpm: (min, max) launch speed in the "wheel_slow" scenario, rpm (< 5).
        respin_accel_deg_s2: the dealer's hand braking and re-spinning the rotor, deg/s².
        brake_deg_s2: (min, max) deceleration bringing the rotor to a stop in
            "wheel_stopped", deg/s².
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
        suspended_rotor_revolutions: in "ball_suspended", rotor revolutions after the
            bounce time without any ``ball_pocket`` pulse before the dealer takes the ball.
        no_more_bets_lap_s, no_more_bets_after_s: the dealer calls no more bets at the first
            ``ball_a`` activation ending a lap this long, or this long after the launch,
            whichever comes first.
        pause_s: (min, max) time between removing the ball and opening the next bets.
    """

    wheel: str = "single_zero"
    ball_b_deg: float = 20.0
    rotor_b_deg: float = 10.0
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
    no_more_bets_lap_s: float = 0.8
    no_more_bets_after_s: float = 3.0
    pause_s: tuple[float, float] = (3.0, 8.0)


@dataclass(frozen=True)
class SimulatedSpin:
    """The true outcome of one simulated spin, to check a controller against.

    Attributes:
        pocket_index: index in the wheel order of the pocket the ball settled in, or None
            if it never settled ("ball_suspended").
        number: that pocket's number ("0".."36", "00"), or None.
        ball_revolutions: ``ball_a`` activations from the launch until the ball left.
        ball_direction, rotor_direction: "cw" or "ccw".
        rotor_rpm: rotor speed at the launch, rpm.
        scenario: one of ``SCENARIOS``.
        launch_t: time the dealer released the ball, s.
        leave_t: time the ball left the track, s.
        settle_t: time the ball came to rest in its pocket, s; None if it never did. A ball
            reaching its pocket under ``ball_pocket`` rests only once past it, so every
            ``ball_pocket`` activation is a whole pass.
        remove_t: time the dealer took the ball out of the wheel, s.
    """

    pocket_index: int | None
    number: str | None
    ball_revolutions: int
    ball_direction: str
    rotor_direction: str
    rotor_rpm: float
    scenario: str
    launch_t: float
    leave_t: float
    settle_t: float | None
    remove_t: float


@dataclass(frozen=True)
class _Segment:
    """Angle θ(t) = theta0 + omega0·(t − t0) + acc·(t − t0)²/2 on [t0, t1], monotonic."""

    t0: float
    t1: float
    theta0: float
    omega0: float
    acc: float

    def angle(self, t: float) -> float:
        dt = t - self.t0
        return self.theta0 + self.omega0 * dt + 0.5 * self.acc * dt * dt

    def time_at(self, theta: float) -> float:
        delta = theta - self.theta0
        if delta == 0.0:
            return self.t0
        # The smaller root, in the form that does not cancel when acc is tiny.
        sign = math.copysign(1.0, self.omega0 if self.omega0 != 0.0 else self.acc)
        root = math.sqrt(max(0.0, self.omega0 * self.omega0 + 2.0 * self.acc * delta))
        dt = 2.0 * delta / (self.omega0 + sign * root)
        return min(max(self.t0 + dt, self.t0), self.t1)


class _Motion:
    """An angle (degrees) made of constant-acceleration pieces, built forward in time."""

    def __init__(self, t: float, theta: float, omega: float) -> None:
        self.segments: list[_Segment] = []
        self.t = t
        self.theta = theta
        self.omega = omega

    def run(self, duration: float, acc: float = 0.0) -> None:
        """Move for ``duration`` s at constant acceleration ``acc`` (deg/s²)."""
        if duration <= 0.0:
            return
        seg = _Segment(self.t, self.t + duration, self.theta, self.omega, acc)
        self.segments.append(seg)
        self.t = seg.t1
        self.theta = seg.angle(seg.t1)
        self.omega += acc * duration

    def coast(self, until: float, decel: float) -> None:
        """Slow down by ``decel`` (deg/s², >= 0) until ``until``, stopping at rest."""
        if until <= self.t:
            return
        if self.omega != 0.0 and decel > 0.0:
            stop_after = abs(self.omega) / decel
            step = min(stop_after, until - self.t)
            self.run(step, -math.copysign(decel, self.omega))
            if step == stop_after:
                self.omega = 0.0  # exactly at rest, not a rounding residue
        self.run(until - self.t)

    def ramp(self, omega: float, accel: float) -> None:
        """Change speed to ``omega`` (deg/s) at ``accel`` (deg/s²), through rest if reversing."""
        if self.omega * omega < 0.0:
            self.ramp(0.0, accel)
        self.run(abs(omega - self.omega) / accel, math.copysign(accel, omega - self.omega))
        self.omega = omega

    def turn_time(self, degrees: float, decel: float) -> float | None:
        """Seconds from now to turn ``degrees`` while coasting, or None if it stops first."""
        w = abs(self.omega)
        disc = w * w - 2.0 * decel * degrees
        if w == 0.0 or disc < 0.0:
            return None
        return 2.0 * degrees / (w + math.sqrt(disc))

    def active(self, centre: float, half: float, t_lo: float = -math.inf,
               t_hi: float = math.inf) -> list[Interval]:
        """Time intervals while the angle is within ``half`` of ``centre`` (mod 360°),
        looking only at the segments that overlap [``t_lo``, ``t_hi``] s."""
        found: list[Interval] = []
        for seg in self.segments:
            if seg.t1 < t_lo or seg.t0 > t_hi:
                continue
            a, b = seg.angle(seg.t0), seg.angle(seg.t1)
            lo, hi = min(a, b), max(a, b)
            first = math.ceil((lo - centre - half) / 360.0 - _EPS)
            last = math.floor((hi - centre + half) / 360.0 + _EPS)
            for m in range(first, last + 1):
                w_lo = max(lo, centre + 360.0 * m - half)
                w_hi = min(hi, centre + 360.0 * m + half)
                if w_lo > w_hi + _EPS:
                    continue
                if hi - lo < _EPS:  # at rest inside the window
                    found.append((seg.t0, seg.t1))
                    break
                ta, tb = seg.time_at(w_lo), seg.time_at(w_hi)
                found.append((min(ta, tb), max(ta, tb)))
        return _merge(found)


def _merge(intervals: list[Interval]) -> list[Interval]:
    """Sorted, touching intervals joined (a window can span two segments)."""
    out: list[Interval] = []
    for a, b in sorted(intervals):
        if out and a <= out[-1][1] + _EPS:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


def _clip(intervals: list[Interval], lo: float, hi: float) -> list[Interval]:
    return [(max(a, lo), min(b, hi)) for a, b in intervals if b > lo and a < hi]


def _cut(intervals: list[Interval], holes: list[Interval]) -> list[Interval]:
    """``intervals`` minus ``holes`` (a dead sensor shows nothing during a hole)."""
    for h_lo, h_hi in holes:
        kept: list[Interval] = []
        for a, b in intervals:
            kept += _clip([(a, b)], -math.inf, h_lo) + _clip([(a, b)], h_hi, math.inf)
        intervals = kept
    return intervals


def _edges(gpio: str, intervals: list[Interval], end: float) -> list[Event]:
    """Rising and falling edges; a pulse still on at ``end`` (the trace's end) stays on.

    Pulses shorter than the trace's microsecond resolution (a target grazing a window's
    edge) are dropped rather than written as a rise and fall at the same time.
    """
    events: list[Event] = []
    for a, b in intervals:
        if round(b, 6) <= round(a, 6):
            continue
        events.append({"t": round(a, 6), "gpio": gpio, "level": 1})
        if b < end - _EPS:
            events.append({"t": round(b, 6), "gpio": gpio, "level": 0})
    return events


def _sign(direction: str) -> float:
    if direction not in ("cw", "ccw"):
        raise ValueError(f"direction must be 'cw' or 'ccw', got {direction!r}")
    return 1.0 if direction == "cw" else -1.0


def _ball_motion(
    lap_times: Sequence[float], direction: str, t0: float, pulse_deg: float, leave_deg: float
) -> _Motion:
    if not lap_times or min(lap_times) <= 0.0:
        raise ValueError("lap_times must be a non-empty list of positive seconds")
    if not 0.0 < leave_deg < 360.0:
        raise ValueError(f"leave_deg must be in (0, 360), got {leave_deg}")
    s = _sign(direction)
    # Released just past ball_a, so the first lap ends at the next activation like the others.
    motion = _Motion(t0, s * pulse_deg, 0.0)
    for i, lap in enumerate(lap_times):
        span = 360.0 - 2.0 * pulse_deg if i == 0 else 360.0
        motion.omega = s * span / lap
        motion.run(lap)
    motion.omega = s * 360.0 / lap_times[-1]
    motion.run(leave_deg / 360.0 * lap_times[-1])
    return motion


def ball_track_events(
    lap_times: Sequence[float],
    direction: str,
    t0: float,
    *,
    ball_b_deg: float = 20.0,
    pulse_deg: float = 2.0,
    leave_deg: float = 180.0,
) -> list[Event]:
    """``ball_a``/``ball_b`` edges of one ball run, its activations at given lap times.

    The ball is released at ``t0`` just past ``ball_a`` and activates ``ball_a`` at
    t0 + lap_times[0], t0 + lap_times[0] + lap_times[1], ... (exactly, to the microsecond),
    moving at a constant speed within each lap; so a real series of n laps
    (real-ball-laps.csv) gives n ball revolutions (CONTRACT §1). After the last activation it
    goes on ``leave_deg`` degrees at the last lap's speed and leaves the track.

    Args:
        lap_times: seconds per lap, > 0.
        direction: "cw" or "ccw", the ball's direction seen from above.
        t0: launch time, s.
        ball_b_deg, pulse_deg: geometry in degrees (CONTRACT §1 defaults).
        leave_deg: degrees travelled after the last ``ball_a`` activation, in (0, 360).

    Returns:
        Events sorted by time, each ``{"t": s, "gpio": "ball_a"|"ball_b", "level": 1|0}``.

    Raises:
        ValueError: empty or non-positive lap times, bad direction or ``leave_deg``.
    """
    motion = _ball_motion(lap_times, direction, t0, pulse_deg, leave_deg)
    events = _edges("ball_a", motion.active(0.0, pulse_deg), math.inf)
    events += _edges("ball_b", motion.active(ball_b_deg, pulse_deg), math.inf)
    return sorted(events, key=lambda e: e["t"])


def rotor_events(
    rev_times: Sequence[float],
    direction: str,
    t0: float,
    *,
    rotor_b_deg: float = 10.0,
    pulse_deg: float = 2.0,
) -> list[Event]:
    """``rotor_a``/``rotor_b`` edges of a rotor with given revolution times.

    ``rotor_a`` activates at t0, t0 + rev_times[0], t0 + rev_times[0] + rev_times[1], ...
    (exactly), so the periods a controller measures are ``rev_times`` (real-rotor-revs.csv).
    The rotor turns at a constant speed within each revolution, and the events cover half a
    revolution before the first and after the last activation, so every ``rotor_a`` pulse
    has its ``rotor_b`` partner.

    Args:
        rev_times: seconds per rotor revolution, > 0.
        direction: "cw" or "ccw", the rotor's direction seen from above.
        t0: time of the first ``rotor_a`` activation, s.
        rotor_b_deg, pulse_deg: geometry in degrees (CONTRACT §1 defaults).

    Returns:
        Events sorted by time, each ``{"t": s, "gpio": "rotor_a"|"rotor_b", "level": 1|0}``.

    Raises:
        ValueError: empty or non-positive revolution times, or a bad direction.
    """
    if not rev_times or min(rev_times) <= 0.0:
        raise ValueError("rev_times must be a non-empty list of positive seconds")
    s = _sign(direction)
    half_first = rev_times[0] / 2.0
    # The marker enters the rotor_a window (at -pulse_deg in its direction) at t0.
    motion = _Motion(t0 - half_first, -s * (pulse_deg + 180.0), s * 360.0 / rev_times[0])
    motion.run(half_first)
    for rev in rev_times:
        motion.omega = s * 360.0 / rev
        motion.run(rev)
    motion.run(rev_times[-1] / 2.0)
    events = _edges("rotor_a", motion.active(0.0, pulse_deg), math.inf)
    events += _edges("rotor_b", motion.active(rotor_b_deg, pulse_deg), math.inf)
    return sorted(events, key=lambda e: e["t"])


def _ball_time(u: float, omega0: float, a: float, c: float) -> float:
    """Seconds to travel ``u`` revolutions from speed ``omega0`` under dω/dt = −a − c·ω²."""
    big_a = math.atan(omega0 * math.sqrt(c / a))
    arg = math.cos(big_a) * math.exp(c * u)
    return math.inf if arg > 1.0 else (big_a - math.acos(arg)) / math.sqrt(a * c)


def _ball_run(rng: random.Random, cfg: WheelSimConfig, few_laps: bool) -> tuple[list[float], float]:
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
            lo, hi = (mid, hi) if _ball_time(first, mid, a, c) > lap1 else (lo, mid)
        omega0 = (lo + hi) / 2.0
        leave_u = math.log((omega0**2 + a / c) / (leave_speed**2 + a / c)) / (2.0 * c)
    times = []
    u = first
    while u < leave_u:
        times.append(_ball_time(u, omega0, a, c))
        u += 1.0
    laps = [t1 - t0 for t0, t1 in pairwise([0.0, *times])]
    return laps, (leave_u - (u - 1.0)) * 360.0


def _launch_rpm(rng: random.Random, cfg: WheelSimConfig, slow: bool) -> float:
    if slow:
        return rng.uniform(*cfg.slow_rotor_rpm)
    lo, hi = cfg.rotor_rpm
    # lo + (hi − lo)·U^e has median rotor_rpm_median: most spins near 11 rpm, a tail to 30.
    exponent = math.log((hi - lo) / (cfg.rotor_rpm_median - lo)) / math.log(2.0)
    return lo + (hi - lo) * rng.random() ** exponent


def _bets(rng: random.Random, wheel: str, t_lo: float, t_hi: float) -> list[Event]:
    layout = layout_for(wheel)
    splits = sorted(sorted(pair) for pair in layout.splits)  # sorted: frozenset order varies
    events: list[Event] = []
    for t in sorted(rng.uniform(t_lo, t_hi) for _ in range(rng.randint(1, 4))):
        bet: Event = {"t": round(t, 6)}
        kind = rng.choice(("straight", "straight", "split", "dozen", "column", "outside"))
        if kind == "straight":
            bet.update(bet="straight", numbers=[rng.choice(layout.order)])
        elif kind == "split":
            bet.update(bet="split", numbers=rng.choice(splits))
        elif kind in ("dozen", "column"):
            bet.update(bet=kind, which=rng.randint(1, 3))
        else:
            bet.update(bet=rng.choice(_OUTSIDE_BETS))
        bet.update(box=rng.randint(1, 5), amount=rng.choice((5, 10, 20, 50)))
        events.append(bet)
    return events


def simulate(
    spins: int, seed: int, config: WheelSimConfig, scenarios: Sequence[str] | None = None
) -> tuple[list[Event], list[SimulatedSpin]]:
    """Simulate ``spins`` consecutive spins and return their trace and true outcomes.

    Each spin: ``open_bets`` (at t=0 for the first), the dealer re-spins the rotor (reversing
    it), a few bets, the launch at least two rotor revolutions later (so the controller has a
    clean period and direction), ``no_more_bets``, the ball run, 1-4 s of bouncing, the ball
    resting in a uniformly random pocket for ``confirm_rotor_revolutions``, its removal and a
    pause. Rotor pulses run throughout.

    Args:
        spins: number of spins, >= 0.
        seed: seeds the only random source, so equal arguments give equal results.
        config: geometry and physics.
        scenarios: one of ``SCENARIOS`` per spin; None means all "valid".

    Returns:
        (events, spins): CONTRACT §2 events sorted by ``t`` (s, rounded to µs), starting with
        ``{"t": 0, "meta": ...}`` and ``open_bets``; and one ``SimulatedSpin`` per spin.

    Raises:
        ValueError: an unknown wheel or scenario, or ``scenarios`` of the wrong length.
    """
    if config.wheel not in WHEEL_ORDERS:
        raise ValueError(f"unknown wheel {config.wheel!r}; expected one of {sorted(WHEEL_ORDERS)}")
    plan = list(scenarios) if scenarios is not None else ["valid"] * spins
    if len(plan) != spins:
        raise ValueError(f"scenarios has {len(plan)} entries for {spins} spins")
    for name in plan:
        if name not in SCENARIOS:
            raise ValueError(f"unknown scenario {name!r}; expected one of {SCENARIOS}")

    rng = random.Random(seed)
    cfg = config
    order = WHEEL_ORDERS[cfg.wheel]
    pitch = 360.0 / len(order)
    p = cfg.pulse_deg
    decel = cfg.rotor_decel_rpm_per_min / 60.0 * 6.0  # deg/s²: 1 rpm = 6 deg/s

    meta: dict[str, Any] = {"table": "roulette", "wheel": cfg.wheel}
    defaults = WheelSimConfig()
    for key in ("ball_b_deg", "rotor_b_deg"):
        if getattr(cfg, key) != getattr(defaults, key):
            meta[key] = getattr(cfg, key)
    events: list[Event] = [{"t": 0, "input": "open_bets"}]

    rotor_dir = rng.choice(("cw", "ccw"))
    # Start with the marker clear of both rotor sensors: no pulse cut off at t=0.
    theta0 = rng.uniform(0.0, 360.0)
    while any(abs((theta0 - s + 180.0) % 360.0 - 180.0) <= p + 1.0 for s in (0, cfg.rotor_b_deg)):
        theta0 = rng.uniform(0.0, 360.0)
    rotor = _Motion(0.0, theta0, 0.0)

    results: list[SimulatedSpin] = []
    pockets: list[tuple[int, float, float]] = []  # (index, settle_t, remove_t)
    rotor_b_dead: list[Interval] = []
    t_open = 0.0
    for k, scenario in enumerate(plan):
        if k > 0:
            # No open_bets: the table reopens bets itself once a spin is settled.
            rotor_dir = "ccw" if rotor_dir == "cw" else "cw"
            rotor.coast(t_open + rng.uniform(0.5, 2.0), decel)
        rpm_at_launch = _launch_rpm(rng, cfg, scenario == "wheel_slow")
        # Launch 2-3 revolutions after the re-spin; spin the rotor a little faster so that it
        # has slowed to rpm_at_launch by then (v² = u² − 2·decel·angle).
        wait_deg = rng.uniform(2.0, 3.0) * 360.0
        spun = _sign(rotor_dir) * math.sqrt((6.0 * rpm_at_launch) ** 2 + 2.0 * decel * wait_deg)
        if k == 0:
            rotor.omega = spun  # already turning at t=0
        else:
            rotor.ramp(spun, cfg.respin_accel_deg_s2)
        wait = rotor.turn_time(wait_deg, decel)
        assert wait is not None  # spun fast enough to turn wait_deg, by construction
        launch = rotor.t + wait
        events += _bets(rng, cfg.wheel, t_open + 0.2, launch - 0.2)
        rotor.coast(launch, decel)

        same = scenario == "same_direction"
        ball_dir = rotor_dir if same else ("ccw" if rotor_dir == "cw" else "cw")
        laps, leave_deg = _ball_run(rng, cfg, scenario == "too_few_revolutions")
        ball = _ball_motion(laps, ball_dir, launch, p, leave_deg)
        leave = ball.t
        events += _edges("ball_a", ball.active(0.0, p), math.inf)
        events += _edges("ball_b", ball.active(cfg.ball_b_deg, p), math.inf)

        t_nmb = launch + cfg.no_more_bets_after_s
        t_lap = launch
        for lap in laps:
            t_lap += lap
            if lap >= cfg.no_more_bets_lap_s:
                t_nmb = min(t_nmb, t_lap)
                break
        events.append({"t": round(t_nmb, 6), "input": "no_more_bets"})

        if scenario == "wheel_stopped":
            rotor.coast(launch + rng.uniform(0.2, 0.5) * (leave - launch), decel)
            rotor.ramp(0.0, rng.uniform(*cfg.brake_deg_s2))
        fail_t = launch + rng.uniform(0.1, 0.4) * (leave - launch)

        rotor.coast(leave + rng.uniform(*cfg.bounce_s), decel)
        settle: float | None = None
        index: int | None = None
        revolutions = cfg.suspended_rotor_revolutions
        if scenario != "ball_suspended":
            index = rng.randrange(len(order))
            revolutions = cfg.confirm_rotor_revolutions
            # A ball reaching its pocket under ball_pocket rolls in it until past the sensor,
            # so every activation is a whole pass, which the contract's rule decodes exactly.
            pocket_deg = (rotor.theta + index * pitch + 180.0) % 360.0 - 180.0
            ahead = math.copysign(1.0, rotor.omega) * pocket_deg
            rolling = rotor.turn_time(p + 0.5 - ahead, decel) if abs(ahead) <= p + 0.5 else None
            if rolling is not None:
                rotor.coast(rotor.t + rolling, decel)
            settle = rotor.t
        wait = rotor.turn_time(revolutions * 360.0, decel)
        # A stopped rotor never turns: the dealer waits a while, then takes the ball.
        remove = rotor.t + (wait if wait is not None else rng.uniform(8.0, 12.0))
        rotor.coast(remove, decel)
        if index is not None and settle is not None:
            pockets.append((index, settle, remove))
        if scenario == "wheel_malfunction_sensor":
            rotor_b_dead.append((fail_t, remove))

        results.append(
            SimulatedSpin(
                pocket_index=index,
                number=order[index] if index is not None else None,
                ball_revolutions=len(laps),
                ball_direction=ball_dir,
                rotor_direction=rotor_dir,
                rotor_rpm=rpm_at_launch,
                scenario=scenario,
                launch_t=round(launch, 6),
                leave_t=round(leave, 6),
                settle_t=round(settle, 6) if settle is not None else None,
                remove_t=round(remove, 6),
            )
        )
        t_open = remove + rng.uniform(*cfg.pause_s)

    rotor.coast(t_open, decel)
    end = rotor.t
    events += _edges("rotor_a", rotor.active(0.0, p), end)
    events += _edges("rotor_b", _cut(rotor.active(cfg.rotor_b_deg, p), rotor_b_dead), end)
    for i, settle_t, remove_t in pockets:
        # The resting ball is in pocket i, centred at θ + i·pitch, seen at 0°.
        seen = _clip(rotor.active(-i * pitch, p, settle_t, remove_t), settle_t, remove_t)
        events += _edges("ball_pocket", seen, end)
    events.sort(key=lambda e: e["t"])
    return [{"t": 0, "meta": meta}, *events], results


def write_trace(path: str | os.PathLike[str], events: Sequence[Event]) -> None:
    """Write ``events`` as a JSON Lines trace (CONTRACT §2): compact, times rounded to µs."""
    with open(path, "w", encoding="utf-8", newline="\n") as out:
        for event in events:
            line = {**event, "t": round(event["t"], 6)}
            out.write(json.dumps(line, separators=(",", ":"), ensure_ascii=False) + "\n")
