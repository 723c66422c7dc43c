"""A simulated wheel (equipment): the CONTRACT §1 sensor edges of N consecutive throws.

Pure and deterministic: :func:`simulate_wheel` draws everything from ``random.Random(seed)``,
does no I/O and never touches GPIO; another module plays the events into pins. The sensors'
geometry (angles to edges) is :mod:`sim.wheel_geometry`; the sensor faults are
:mod:`sim.wheel_faults`. What is played on the wheel is not here: the dealer's inputs and the
bets come from a :class:`Dealer` the caller gives (a game's simulation), and which habit of
the wheel a game's rules call what is the game's to say.

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

Habits (per throw; ``HABITS``): ``normal``; ``rotor_reversed`` (the croupier brakes the
rotor to a stop, leaves it 8-15 s and spins it up the other way; the launch comes 0.5-1.5
revolutions after it is back at speed); ``rotor_stops_after_settle`` (an 11 rpm rotor braked
to a stop right after the ball's second ``ball_pocket`` pass, so that reading's revolution
never closes); ``weak_throw`` (the ball leaves the track after 1 or 2 ``ball_a`` passes);
``ball_with_rotor`` (thrown the rotor's way); ``ball_never_settles`` (no ``ball_pocket``
pulse: the dealer takes the ball out after ``suspended_rotor_revolutions``); ``slow_rotor``
(launched at ``slow_rotor_rpm``); ``rotor_braked_in_run`` (braked to a stop while the ball
runs); and ``FAULTS``, a sensor fault (CONTRACT §5) between the launch and the removal of an
otherwise normal throw (``chatter_*``: 3 passes; ``chatter_ball_a_worn``: every pass;
``rotor_b_dead``: dead from part-way through the run). ``WheelSpin.corrections`` counts what a
fault costs the sensors before the second pocket reading.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Protocol

from controller.core.words import one_of
from controller.trace import write_trace
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

__all__ = [  # ball_track_events and rotor_events are re-exported for the tests' traces;
    # write_trace (controller.trace's) for the simulators' callers
    "FAULTS", "HABITS", "THROWS", "Dealer", "Event", "WheelRun", "WheelSimConfig", "WheelSpin",
    "ball_track_events", "rotor_events", "run_wheel", "simulate_wheel", "write_trace",
]

THROWS: tuple[str, ...] = (
    "normal", "rotor_reversed", "rotor_stops_after_settle", "weak_throw", "ball_with_rotor",
    "ball_never_settles", "slow_rotor", "rotor_braked_in_run")
"""How a throw goes on the wheel, sensors sound (see the module's docstring)."""

FAULTS: tuple[str, ...] = (*wheel_faults.EDGE_FAULTS, "rotor_b_dead")
"""Sensor faults struck into an otherwise normal throw (CONTRACT §5)."""

HABITS: tuple[str, ...] = (*THROWS, *FAULTS)
"""Every per-throw habit :func:`simulate_wheel` plays."""


class Dealer(Protocol):
    """What is played on the simulated wheel besides the throws: a game's dealer and its
    players, as trace events (CONTRACT §2). Called in the course of the session, in order;
    ``rng`` is the session's one random source."""

    def opening(self) -> list[Event]:
        """The events that open the session at t = 0."""

    def bets(self, rng: random.Random, t_lo: float, t_hi: float) -> list[Event]:
        """The bets placed between ``t_lo`` and ``t_hi`` seconds, before a launch."""

    def launched(self, launch_t: float, laps: Sequence[float]) -> list[Event]:
        """The dealer's inputs on a ball launched at ``launch_t`` (s) that laps ``laps`` (s)."""


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


@dataclass(frozen=True)
class WheelSpin:
    """What truly happened in one simulated throw.

    Attributes:
        pocket_index: index in the wheel order of the pocket the ball settled in, or None
            if it never settled ("ball_never_settles").
        ball_revolutions: ``ball_a`` activations from the launch until the ball left (the
            real passes, whether a faulty sensor recorded them or not).
        ball_direction, rotor_direction: "cw" or "ccw".
        rotor_rpm: rotor speed at the launch, rpm.
        habit: one of ``HABITS``.
        launch_t: time the dealer released the ball, s.
        leave_t: time the ball left the track, s.
        settle_t: time the ball came to rest in its pocket, s; None if it never did. A ball
            reaching its pocket under ``ball_pocket`` rests only once past it, so every
            ``ball_pocket`` activation is a whole pass.
        remove_t: time the dealer took the ball out of the wheel, s.
        faulty_input: the input a fault strikes.
        corrections: corrections of that input due before the second pocket reading confirms
            the pocket (struck passes; for "rotor_b_dead", revolutions without ``rotor_b``).
        rotor_rest: (start, end) s when the rotor surely stood still: the stop before a
            "rotor_reversed" launch; a stop in the run ("rotor_braked_in_run") or after the
            settle ("rotor_stops_after_settle") until the removal at least. None otherwise.
        ball_passes: the ball's true ``ball_a`` activations, s (``ball_revolutions`` of
            them, whatever a faulty sensor recorded): what a wheel counting revolutions
            itself counts.
    """

    pocket_index: int | None
    ball_revolutions: int
    ball_direction: str
    rotor_direction: str
    rotor_rpm: float
    habit: str
    launch_t: float
    leave_t: float
    settle_t: float | None
    remove_t: float
    faulty_input: str | None
    corrections: int
    rotor_rest: Interval | None
    ball_passes: tuple[float, ...] = ()


@dataclass(frozen=True)
class WheelRun:
    """A simulated session on the wheel: its sensor ``events`` (CONTRACT §2), its
    ``throws``, and the ``rotor``'s motion (its zero marker's angle in time, for equipment
    that reports the rotor by other means than edges: an automated wheel's speed field)."""

    events: list[Event]
    throws: list[WheelSpin]
    rotor: Motion


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


def simulate_wheel(spins: int, seed: int, pockets: int, config: WheelSimConfig,
                   habits: Sequence[str], dealer: Dealer
                   ) -> tuple[list[Event], list[WheelSpin]]:
    """Simulate ``spins`` consecutive throws: their events and what truly happened
    (:func:`run_wheel`'s, without the rotor's motion)."""
    run = run_wheel(spins, seed, pockets, config, habits, dealer)
    return run.events, run.throws


def run_wheel(spins: int, seed: int, pockets: int, config: WheelSimConfig,
              habits: Sequence[str], dealer: Dealer) -> WheelRun:
    """Simulate ``spins`` consecutive throws and return their events, what truly happened
    and the rotor's motion.

    Each throw: the session opens (``dealer.opening()``) for the first, the dealer re-spins
    the rotor (reversing it), ``dealer.bets``, the launch 2-3 rotor revolutions later (so the
    rotor has a clean period and direction), ``dealer.launched``, the ball run, 1-4 s of
    bouncing, the ball resting in a uniformly random pocket for
    ``confirm_rotor_revolutions``, its removal and a pause. Rotor pulses run throughout.
    Habits change this as the module docstring says; a fault strikes only its throw,
    between the launch and the removal.

    Args:
        spins: number of throws, >= 0.
        seed: seeds the only random source, so equal arguments give equal results.
        pockets: the wheel's pocket count N (pocket i is centred i·360/N clockwise of 0).
        config: geometry and physics.
        habits: one of ``HABITS`` per throw.
        dealer: the inputs and bets played on the wheel.

    Returns:
        The :class:`WheelRun`: CONTRACT §2 events sorted by ``t`` (s, rounded to µs), one
        ``WheelSpin`` per throw, the rotor's motion.

    Raises:
        ValueError: an unknown habit, or ``habits`` of the wrong length.
    """
    plan = list(habits)
    if len(plan) != spins:
        raise ValueError(f"habits has {len(plan)} entries for {spins} throws")
    for name in plan:
        if name not in HABITS:
            raise ValueError(f"unknown habit {name!r}; expected {one_of(HABITS)}")

    rng = random.Random(seed)
    cfg = config
    pitch = 360.0 / pockets
    p = cfg.pulse_deg
    decel = cfg.rotor_decel_rpm_per_min / 60.0 * 6.0  # deg/s²: 1 rpm = 6 deg/s

    events: list[Event] = list(dealer.opening())

    rotor_dir = rng.choice(("cw", "ccw"))
    # Start with the marker clear of both rotor sensors: no pulse cut off at t=0.
    theta0 = rng.uniform(0.0, 360.0)
    while any(abs((theta0 - s + 180.0) % 360.0 - 180.0) <= p + 1.0 for s in (0, cfg.rotor_b_deg)):
        theta0 = rng.uniform(0.0, 360.0)
    rotor = Motion(0.0, theta0, 0.0)

    results: list[WheelSpin] = []
    resting: list[tuple[int, float, float]] = []  # (index, settle_t, remove_t)
    rotor_b_dead: list[Interval] = []
    faults: list[wheel_faults.Fault] = []
    t_open = 0.0
    for k, habit in enumerate(plan):
        if k > 0:
            # No open_bets: the table reopens bets itself once a spin is settled.
            rotor_dir = "ccw" if rotor_dir == "cw" else "cw"
            rotor.coast(t_open + rng.uniform(0.5, 2.0), decel)
        rest: Interval | None = None
        turns = (2.0, 3.0)
        if habit == "rotor_reversed":
            if k == 0:  # turning the other way since before the table opened
                rotor.omega = -sign(rotor_dir) * 6.0 * _launch_rpm(rng, cfg, False)
                rotor.coast(rng.uniform(8.0, 12.0), decel)
            # The croupier brakes it to a stop, leaves it, and spins it up the other way.
            rotor.ramp(0.0, rng.uniform(*cfg.brake_deg_s2))
            stopped = rotor.t
            rotor.run(rng.uniform(*cfg.reverse_rest_s))
            rest = (stopped, rotor.t)
            turns = cfg.reverse_launch_revolutions
        if habit == "rotor_stops_after_settle":
            rpm_at_launch = rng.uniform(*cfg.settle_stop_rotor_rpm)
        else:
            rpm_at_launch = _launch_rpm(rng, cfg, habit == "slow_rotor")
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
        events += dealer.bets(rng, t_open + 0.2, launch - 0.2)
        rotor.coast(launch, decel)

        same = habit == "ball_with_rotor"
        ball_dir = rotor_dir if same else ("ccw" if rotor_dir == "cw" else "cw")
        laps, leave_deg = _ball_run(rng, cfg, habit == "weak_throw")
        ball = ball_motion(laps, ball_dir, launch, p, leave_deg)
        leave = ball.t
        ball_a = edges("ball_a", ball.active(0.0, p), math.inf)
        events += ball_a
        events += edges("ball_b", ball.active(cfg.ball_b_deg, p), math.inf)

        events += dealer.launched(launch, laps)

        if habit == "rotor_braked_in_run":
            rotor.coast(launch + rng.uniform(0.2, 0.5) * (leave - launch), decel)
            rotor.ramp(0.0, rng.uniform(*cfg.brake_deg_s2))
            rest = (rotor.t, math.inf)
        fail_t = launch + rng.uniform(0.1, 0.4) * (leave - launch)

        rotor.coast(leave + rng.uniform(*cfg.bounce_s), decel)
        settle: float | None = None
        index: int | None = None
        revolutions = cfg.suspended_rotor_revolutions
        if habit != "ball_never_settles":
            if habit == "rotor_stops_after_settle":
                index = rng.choice(_stoppable_pockets(rotor, cfg, pockets))
            else:
                index = rng.randrange(pockets)
            revolutions = cfg.confirm_rotor_revolutions
            # A ball reaching its pocket under ball_pocket rolls in it until past the sensor,
            # so every activation is a whole pass, which the contract's rule decodes exactly.
            pocket_deg = (rotor.theta + index * pitch - cfg.ball_pocket_deg + 180.0) % 360.0 - 180.0
            ahead = math.copysign(1.0, rotor.omega) * pocket_deg
            rolling = rotor.turn_time(p + 0.5 - ahead, decel) if abs(ahead) <= p + 0.5 else None
            if rolling is not None:
                rotor.coast(rotor.t + rolling, decel)
            settle = rotor.t
            if habit == "rotor_stops_after_settle":
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
            resting.append((index, settle, remove))
            seen = clip(rotor.active(cfg.ball_pocket_deg - index * pitch, p, settle, remove),
                        settle, remove)
            readings = [round(a, 6) for a, _ in seen]
        corrections, faulty = 0, None
        if habit in FAULTS:
            assert settle is not None
            fault, corrections = wheel_faults.strike(
                habit, rng, ball_a=[e["t"] for e in ball_a if e["level"] == 1],
                rotor=rotor, rotor_b_deg=cfg.rotor_b_deg, pulse_deg=p, window=(launch, remove),
                pocket=readings, settle=settle, fail_t=fail_t, passes=cfg.chatter_passes)
            faulty = fault.gpio
            if fault.kind == "dead":
                rotor_b_dead.append((fail_t, remove))
            else:
                faults.append(fault)
        results.append(WheelSpin(
            pocket_index=index, ball_revolutions=len(laps), ball_direction=ball_dir,
            rotor_direction=rotor_dir, rotor_rpm=rpm_at_launch, habit=habit,
            launch_t=round(launch, 6), leave_t=round(leave, 6),
            settle_t=round(settle, 6) if settle is not None else None,
            remove_t=round(remove, 6), faulty_input=faulty, corrections=corrections,
            rotor_rest=(round(rest[0], 6), round(rest[1], 6)) if rest else None,
            ball_passes=tuple(e["t"] for e in ball_a if e["level"] == 1)))
        t_open = remove + rng.uniform(*cfg.pause_s)

    rotor.coast(t_open, decel)
    end = rotor.t
    events += edges("rotor_a", rotor.active(0.0, p), end)
    events += edges("rotor_b", cut(rotor.active(cfg.rotor_b_deg, p), rotor_b_dead), end)
    for i, settle_t, remove_t in resting:
        # The resting ball is in pocket i, centred at θ + i·pitch, seen at ball_pocket_deg.
        seen = clip(rotor.active(cfg.ball_pocket_deg - i * pitch, p, settle_t, remove_t),
                    settle_t, remove_t)
        events += edges("ball_pocket", seen, end)
    events.sort(key=lambda e: e["t"])
    if faults:
        events = wheel_faults.apply(events, faults, count=cfg.chatter_rises,
                                    span_s=cfg.chatter_span_s)
    return WheelRun(events, results, rotor)
