"""A roulette wheel simulator that writes CONTRACT §2 trace events for N consecutive spins.

Pure and deterministic: ``simulate`` draws everything from ``random.Random(seed)``, does no
I/O and never touches GPIO; another module plays the events into pins. ``write_trace`` is the
only I/O here. The sensors' geometry (angles to edges) is :mod:`sim.wheel_geometry`;
the sensor faults are :mod:`sim.wheel_faults`.

Geometry (CONTRACT §1; angles in degrees, clockwise seen from above): ``ball_a`` at 0°,
``ball_b`` at ``ball_b_deg``; ``rotor_a`` at 0°, ``rotor_b`` at ``rotor_b_deg``; ``ball_pocket``
at 0°. The rotor angle θ(t) is the position of the zero marker (centre of pocket 0), and pocket
i of the wheel order is centred at θ + i·360/N. A sensor is active while its target is within
``pulse_deg`` of it, so an activation (rising edge) happens ``pulse_deg`` before the target is
centred; the rotor marker and a resting ball share that offset, which is why the contract's
decoding rule k = round(f·N) recovers the pocket.

Physics (calibrated on ../shared/data/real-lap-times.md and its two CSVs):

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

Scenarios (per spin; ``SimulatedSpin.expected`` says what a controller must conclude):
``valid``; two wheel habits, results too: ``rotor_reversed`` (the croupier brakes the rotor to
a stop, leaves it 8-15 s and spins it up the other way; the launch comes 0.5-1.5 revolutions
after it is back at speed) and ``rotor_stops_after_settle`` (an 11 rpm rotor braked to a stop
right after the ball's second ``ball_pocket`` pass, so that reading's revolution never
closes); ``INVALID_SCENARIOS``, Art. 12 invalid spins; and ``FAULT_SCENARIOS``, a sensor fault
(CONTRACT §5) between the launch and the removal of an otherwise valid spin, a result while
its corrections stay within the controller's error budget (``chatter_*``: 3 passes), held
beyond it (``chatter_ball_a_worn``: every pass; ``rotor_b_dead``: dead from part-way through
the run, in about 2 spins out of 5).
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

from controller.games.roulette.layout import WHEEL_ORDERS, layout_for
from sim import wheel_faults
from sim.wheel_geometry import (
    Event,
    Interval,
    Motion,
    ahead_of,
    ball_motion,
    ball_track_events,
    clip,
    cut,
    edges,
    rotor_events,
    sign,
)

__all__ = [  # ball_track_events and rotor_events are re-exported for the tests' traces
    "FAULT_SCENARIOS", "INVALID_SCENARIOS", "SCENARIOS", "Event", "SimulatedSpin",
    "WheelSimConfig", "ball_track_events", "rotor_events", "simulate", "write_trace",
]

# Scenario -> the CONTRACT §1 reason of its Art. 12 invalid spin.
_INVALID_REASON = {"too_few_revolutions": "too_few_revolutions", "same_direction": "same_direction",
                   "ball_suspended": "ball_suspended", "wheel_slow": "wheel_malfunction",
                   "wheel_stopped": "wheel_stopped"}

INVALID_SCENARIOS: tuple[str, ...] = tuple(_INVALID_REASON)
"""Scenarios whose true verdict is an Art. 12 invalid spin (``SimulatedSpin.reason``)."""

FAULT_SCENARIOS: tuple[str, ...] = (*wheel_faults.EDGE_FAULTS, "rotor_b_dead")
"""Scenarios that inject a sensor fault into an otherwise valid spin (CONTRACT §5)."""

SCENARIOS: tuple[str, ...] = (
    "valid", "rotor_reversed", "rotor_stops_after_settle", *INVALID_SCENARIOS, *FAULT_SCENARIOS)
"""Every per-spin scenario ``simulate`` accepts."""

_OUTSIDE_BETS = ("red", "black", "even", "odd", "low", "high")


@dataclass
class WheelSimConfig:
    """Wheel geometry and physics of ``simulate``. Times in seconds, angles in degrees.

    Attributes:
        wheel: "single_zero" or "double_zero" (pocket order: controller.games.roulette.layout).
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
        brake_deg_s2: (min, max) deceleration of the croupier's hand bringing the rotor to
            a stop ("wheel_stopped", "rotor_reversed", "rotor_stops_after_settle"), deg/s².
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
        reverse_rest_s: (min, max) time the rotor rests, stopped, in "rotor_reversed".
        reverse_launch_revolutions: (min, max) rotor revolutions from the end of the re-spin
            to the launch in "rotor_reversed" (2-3 otherwise).
        settle_stop_rotor_rpm: (min, max) launch speed in "rotor_stops_after_settle", rpm.
        chatter_passes: passes a ``chatter_*`` scenario strikes (``chatter_ball_a_worn``:
            every ``ball_a`` pass of the run).
        chatter_rises: rises of a chattering pass, all within ``chatter_span_s`` seconds.
        sensor_error_budget: the controller's corrections allowed per input in one spin
            (``[roulette] sensor_error_budget``, CONTRACT §5): a fault scenario needing more
            is expected to be held.
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
    reverse_rest_s: tuple[float, float] = (8.0, 15.0)
    reverse_launch_revolutions: tuple[float, float] = (0.5, 1.5)
    settle_stop_rotor_rpm: tuple[float, float] = (10.0, 12.0)
    chatter_passes: int = 3
    chatter_rises: int = 5
    chatter_span_s: float = 0.003
    sensor_error_budget: int = 3


@dataclass(frozen=True)
class SimulatedSpin:
    """The true outcome of one simulated spin, to check a controller against.

    Attributes:
        pocket_index: index in the wheel order of the pocket the ball settled in, or None
            if it never settled ("ball_suspended").
        number: that pocket's number ("0".."36", "00"), or None.
        ball_revolutions: ``ball_a`` activations from the launch until the ball left (the
            real passes, whether a faulty sensor recorded them or not).
        ball_direction, rotor_direction: "cw" or "ccw".
        rotor_rpm: rotor speed at the launch, rpm.
        scenario: one of ``SCENARIOS``.
        launch_t: time the dealer released the ball, s.
        leave_t: time the ball left the track, s.
        settle_t: time the ball came to rest in its pocket, s; None if it never did. A ball
            reaching its pocket under ``ball_pocket`` rests only once past it, so every
            ``ball_pocket`` activation is a whole pass.
        remove_t: time the dealer took the ball out of the wheel, s.
        expected: what a controller must conclude (CONTRACT §1, §5): "result" (``number``),
            "invalid" (``reason``) or "held" (``number`` is what the inspector would confirm).
        reason: the CONTRACT §1 reason of an invalid spin, "sensor_fault" if held, else None.
        faulty_input: the input a fault scenario strikes (its ``sensor_fault`` alarms name it).
        corrections: corrections of that input due before the second pocket reading confirms
            the pocket (struck passes; for "rotor_b_dead", revolutions without ``rotor_b``);
            held when over ``WheelSimConfig.sensor_error_budget``.
        rotor_rest: (start, end) s when the rotor surely stood still: the stop before a
            "rotor_reversed" launch; a stop in the run ("wheel_stopped") or after the settle
            ("rotor_stops_after_settle") until the removal at least. None otherwise.
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
    expected: str
    reason: str | None
    faulty_input: str | None
    corrections: int
    rotor_rest: Interval | None


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


_PAST_DEG = 0.5  # the croupier brakes the rotor once the ball is this far past ball_pocket
_STOP_MARGIN_DEG = 1.0  # and it stops at least this short of the rotor_a window


def _stoppable_pockets(rotor: Motion, cfg: WheelSimConfig, n: int) -> list[int]:
    """Pockets (indices) in which a resting ball lets the croupier brake the rotor, turning
    at ``rotor.omega`` deg/s, to a stop (at most ``brake_deg_s2``) right after the ball's
    pass under ``ball_pocket`` and short of the next ``rotor_a`` activation."""
    s, w, p = math.copysign(1.0, rotor.omega), abs(rotor.omega), cfg.pulse_deg
    need = w * w / (2.0 * cfg.brake_deg_s2[1]) + _STOP_MARGIN_DEG
    # Braking starts with pocket i at p + _PAST_DEG past the sensor (in the direction of turn),
    # so the marker, i·360/n behind it, still has this far to go to rotor_a's window.
    return [i for i in range(n) if (s * i * 360.0 / n - 2.0 * p - _PAST_DEG) % 360.0 >= need]


def _brake_after_second_pass(rng: random.Random, rotor: Motion, cfg: WheelSimConfig,
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
    assert least <= hi, "the pocket was drawn from _stoppable_pockets"
    rotor.ramp(0.0, rng.uniform(max(lo, least), hi))


def simulate(
    spins: int, seed: int, config: WheelSimConfig, scenarios: Sequence[str] | None = None
) -> tuple[list[Event], list[SimulatedSpin]]:
    """Simulate ``spins`` consecutive spins and return their trace and true outcomes.

    Each spin: ``open_bets`` (at t=0 for the first), the dealer re-spins the rotor (reversing
    it), a few bets, the launch 2-3 rotor revolutions later (so the controller has a clean
    period and direction), ``no_more_bets``, the ball run, 1-4 s of bouncing, the ball
    resting in a uniformly random pocket for ``confirm_rotor_revolutions``, its removal and a
    pause. Rotor pulses run throughout. Scenarios change this as the module docstring says;
    a fault strikes only its spin, between the launch and the removal.

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
    rotor = Motion(0.0, theta0, 0.0)

    results: list[SimulatedSpin] = []
    pockets: list[tuple[int, float, float]] = []  # (index, settle_t, remove_t)
    rotor_b_dead: list[Interval] = []
    faults: list[wheel_faults.Fault] = []
    t_open = 0.0
    for k, scenario in enumerate(plan):
        if k > 0:
            # No open_bets: the table reopens bets itself once a spin is settled.
            rotor_dir = "ccw" if rotor_dir == "cw" else "cw"
            rotor.coast(t_open + rng.uniform(0.5, 2.0), decel)
        rest: Interval | None = None
        turns = (2.0, 3.0)
        if scenario == "rotor_reversed":
            if k == 0:  # turning the other way since before the table opened
                rotor.omega = -sign(rotor_dir) * 6.0 * _launch_rpm(rng, cfg, False)
                rotor.coast(rng.uniform(8.0, 12.0), decel)
            # The croupier brakes it to a stop, leaves it, and spins it up the other way.
            rotor.ramp(0.0, rng.uniform(*cfg.brake_deg_s2))
            stopped = rotor.t
            rotor.run(rng.uniform(*cfg.reverse_rest_s))
            rest = (stopped, rotor.t)
            turns = cfg.reverse_launch_revolutions
        if scenario == "rotor_stops_after_settle":
            rpm_at_launch = rng.uniform(*cfg.settle_stop_rotor_rpm)
        else:
            rpm_at_launch = _launch_rpm(rng, cfg, scenario == "wheel_slow")
        # Launch some revolutions after the re-spin; spin the rotor a little faster so that
        # it has slowed to rpm_at_launch by then (v² = u² − 2·decel·angle).
        wait_deg = rng.uniform(*turns) * 360.0
        spun = sign(rotor_dir) * math.sqrt((6.0 * rpm_at_launch) ** 2 + 2.0 * decel * wait_deg)
        if k == 0 and rest is None:
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
        ball = ball_motion(laps, ball_dir, launch, p, leave_deg)
        leave = ball.t
        ball_a = edges("ball_a", ball.active(0.0, p), math.inf)
        events += ball_a
        events += edges("ball_b", ball.active(cfg.ball_b_deg, p), math.inf)

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
            rest = (rotor.t, math.inf)
        fail_t = launch + rng.uniform(0.1, 0.4) * (leave - launch)

        rotor.coast(leave + rng.uniform(*cfg.bounce_s), decel)
        settle: float | None = None
        index: int | None = None
        revolutions = cfg.suspended_rotor_revolutions
        if scenario != "ball_suspended":
            if scenario == "rotor_stops_after_settle":
                index = rng.choice(_stoppable_pockets(rotor, cfg, len(order)))
            else:
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
            if scenario == "rotor_stops_after_settle":
                _brake_after_second_pass(rng, rotor, cfg, index * pitch, decel)
                rest = (rotor.t, math.inf)
        wait = rotor.turn_time(revolutions * 360.0, decel)
        # A stopped rotor never turns: the dealer waits a while, then takes the ball.
        remove = rotor.t + (wait if wait is not None else rng.uniform(8.0, 12.0))
        rotor.coast(remove, decel)
        if rest is not None and rest[1] == math.inf:
            rest = (rest[0], remove)

        readings: list[float] = []
        if index is not None and settle is not None:
            pockets.append((index, settle, remove))
            seen = clip(rotor.active(-index * pitch, p, settle, remove), settle, remove)
            readings = [round(a, 6) for a, _ in seen]
        corrections, faulty = 0, None
        if scenario in FAULT_SCENARIOS:
            assert settle is not None
            fault, corrections = wheel_faults.strike(
                scenario, rng, ball_a=[e["t"] for e in ball_a if e["level"] == 1],
                rotor=rotor, rotor_b_deg=cfg.rotor_b_deg, pulse_deg=p, window=(launch, remove),
                pocket=readings, settle=settle, fail_t=fail_t, passes=cfg.chatter_passes)
            faulty = fault.gpio
            if fault.kind == "dead":
                rotor_b_dead.append((fail_t, remove))
            else:
                faults.append(fault)

        if scenario in _INVALID_REASON:
            expected, reason = "invalid", _INVALID_REASON[scenario]
        elif corrections > cfg.sensor_error_budget:
            expected, reason = "held", "sensor_fault"
        else:
            expected, reason = "result", None
        results.append(SimulatedSpin(
            pocket_index=index, number=order[index] if index is not None else None,
            ball_revolutions=len(laps), ball_direction=ball_dir, rotor_direction=rotor_dir,
            rotor_rpm=rpm_at_launch, scenario=scenario, launch_t=round(launch, 6),
            leave_t=round(leave, 6), settle_t=round(settle, 6) if settle is not None else None,
            remove_t=round(remove, 6), expected=expected, reason=reason,
            faulty_input=faulty, corrections=corrections,
            rotor_rest=(round(rest[0], 6), round(rest[1], 6)) if rest else None))
        t_open = remove + rng.uniform(*cfg.pause_s)

    rotor.coast(t_open, decel)
    end = rotor.t
    events += edges("rotor_a", rotor.active(0.0, p), end)
    events += edges("rotor_b", cut(rotor.active(cfg.rotor_b_deg, p), rotor_b_dead), end)
    for i, settle_t, remove_t in pockets:
        # The resting ball is in pocket i, centred at θ + i·pitch, seen at 0°.
        seen = clip(rotor.active(-i * pitch, p, settle_t, remove_t), settle_t, remove_t)
        events += edges("ball_pocket", seen, end)
    events.sort(key=lambda e: e["t"])
    if faults:
        events = wheel_faults.apply(events, faults, count=cfg.chatter_rises,
                                    span_s=cfg.chatter_span_s)
    return [{"t": 0, "meta": meta}, *events], results


def write_trace(path: str | os.PathLike[str], events: Sequence[Event]) -> None:
    """Write ``events`` as a JSON Lines trace (CONTRACT §2): compact, times rounded to µs."""
    with open(path, "w", encoding="utf-8", newline="\n") as out:
        for event in events:
            line = {**event, "t": round(event["t"], 6)}
            out.write(json.dumps(line, separators=(",", ":"), ensure_ascii=False) + "\n")
