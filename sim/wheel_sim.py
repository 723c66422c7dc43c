"""A simulated wheel (equipment): the CONTRACT §1 sensor edges of N consecutive throws.

Pure and deterministic: :func:`simulate_wheel` draws everything from ``random.Random(seed)``,
does no I/O and never touches GPIO; another module plays the events into pins. The sensors'
geometry (angles to edges) is :mod:`sim.wheel_geometry`, the wheel's settings and the laws
of a throw :mod:`sim.wheel_physics`, the sensor faults :mod:`sim.wheel_faults`. What is
played on the wheel is not here: the dealer's inputs and the bets come from a
:class:`Dealer` the caller gives (a game's simulation), and which habit of the wheel a
game's rules call what is the game's to say.

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
from typing import Protocol

from controller.core.words import one_of
from controller.trace import write_trace
from sim import wheel_faults
from sim.wheel_geometry import (
    Event,
    Interval,
    Motion,
    ball_motion,
    ball_track_events,
    clip,
    cut,
    edges,
    rotor_events,
    sign,
)
from sim.wheel_physics import (
    WheelSimConfig,
    ball_run,
    brake_after_second_pass,
    launch_rpm,
    stoppable_pockets,
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
    session = _Session(random.Random(seed), pockets, config, dealer)
    for k, habit in enumerate(plan):
        session.throw(k, habit)
    return session.end()


@dataclass
class _Ball:
    """One throw's ball: its direction, lap times (s), ``ball_a`` edges and when it left."""

    direction: str
    laps: list[float]
    ball_a: list[Event]
    leave: float


class _Session:
    """The wheel through a session, throw after throw (:func:`run_wheel`): the rotor's one
    motion, the events so far, and what strikes the sensors once the session ends (the
    rotor's and the resting balls' pulses run throughout). Every draw comes from ``rng``,
    in the order the throws happen."""

    def __init__(self, rng: random.Random, pockets: int, cfg: WheelSimConfig,
                 dealer: Dealer) -> None:
        self.rng, self.cfg, self.dealer = rng, cfg, dealer
        self.pockets, self.pitch, self.p = pockets, 360.0 / pockets, cfg.pulse_deg
        self.decel = cfg.rotor_decel_rpm_per_min / 60.0 * 6.0  # deg/s²: 1 rpm = 6 deg/s
        self.events: list[Event] = list(dealer.opening())
        self.rotor_dir = rng.choice(("cw", "ccw"))
        # Start with the marker clear of both rotor sensors: no pulse cut off at t=0.
        theta0 = rng.uniform(0.0, 360.0)
        while any(abs((theta0 - s + 180.0) % 360.0 - 180.0) <= self.p + 1.0
                  for s in (0, cfg.rotor_b_deg)):
            theta0 = rng.uniform(0.0, 360.0)
        self.rotor = Motion(0.0, theta0, 0.0)
        self.throws: list[WheelSpin] = []
        self.resting: list[tuple[int, float, float]] = []  # (index, settle_t, remove_t)
        self.rotor_b_dead: list[Interval] = []
        self.faults: list[wheel_faults.Fault] = []
        self.t_open = 0.0

    def throw(self, k: int, habit: str) -> None:
        """Throw ``k`` of the session, as ``habit`` says: the re-spin and the bets, the
        ball's run, its rest and removal, a fault it suffers; then the pause."""
        rng, rotor = self.rng, self.rotor
        rest, turns = self._respin(k, habit)
        rpm, launch = self._launch(k, habit, rest, turns)
        ball = self._ball(habit, launch)
        if habit == "rotor_braked_in_run":
            rotor.coast(launch + rng.uniform(0.2, 0.5) * (ball.leave - launch), self.decel)
            rotor.ramp(0.0, rng.uniform(*self.cfg.brake_deg_s2))
            rest = (rotor.t, math.inf)
        fail_t = launch + rng.uniform(0.1, 0.4) * (ball.leave - launch)
        index, settle, braked = self._settle(habit, ball.leave)
        rest = braked or rest
        remove = self._remove(settle is not None)
        if rest is not None and rest[1] == math.inf:
            rest = (rest[0], remove)
        readings: list[float] = []
        if index is not None and settle is not None:
            self.resting.append((index, settle, remove))
            seen = clip(rotor.active(self.cfg.ball_pocket_deg - index * self.pitch, self.p,
                                     settle, remove), settle, remove)
            readings = [round(a, 6) for a, _ in seen]
        faulty, corrections = self._fault(habit, ball, (launch, remove), readings, settle,
                                          fail_t)
        self.throws.append(WheelSpin(
            pocket_index=index, ball_revolutions=len(ball.laps), ball_direction=ball.direction,
            rotor_direction=self.rotor_dir, rotor_rpm=rpm, habit=habit,
            launch_t=round(launch, 6), leave_t=round(ball.leave, 6),
            settle_t=round(settle, 6) if settle is not None else None,
            remove_t=round(remove, 6), faulty_input=faulty, corrections=corrections,
            rotor_rest=(round(rest[0], 6), round(rest[1], 6)) if rest else None,
            ball_passes=tuple(e["t"] for e in ball.ball_a if e["level"] == 1)))
        self.t_open = remove + rng.uniform(*self.cfg.pause_s)

    def _respin(self, k: int, habit: str) -> tuple[Interval | None, tuple[float, float]]:
        """The dealer re-spins the rotor the other way after the last throw (a
        "rotor_reversed" throw brakes it to rest first): when it stood still, and the
        rotor revolutions to the launch."""
        rng, rotor, cfg = self.rng, self.rotor, self.cfg
        if k > 0:
            # No open_bets: the table reopens bets itself once a spin is settled.
            self.rotor_dir = "ccw" if self.rotor_dir == "cw" else "cw"
            rotor.coast(self.t_open + rng.uniform(0.5, 2.0), self.decel)
        if habit != "rotor_reversed":
            return None, (2.0, 3.0)
        if k == 0:  # turning the other way since before the table opened
            rotor.omega = -sign(self.rotor_dir) * 6.0 * launch_rpm(rng, cfg, False)
            rotor.coast(rng.uniform(8.0, 12.0), self.decel)
        # The croupier brakes it to a stop, leaves it, and spins it up the other way.
        rotor.ramp(0.0, rng.uniform(*cfg.brake_deg_s2))
        stopped = rotor.t
        rotor.run(rng.uniform(*cfg.reverse_rest_s))
        return (stopped, rotor.t), cfg.reverse_launch_revolutions

    def _launch(self, k: int, habit: str, rest: Interval | None,
                turns: tuple[float, float]) -> tuple[float, float]:
        """The rotor's speed at the launch (rpm) and the launch's time, ``turns`` rotor
        revolutions after the re-spin; the bets are placed before it."""
        rng, rotor, cfg, decel = self.rng, self.rotor, self.cfg, self.decel
        if habit == "rotor_stops_after_settle":
            rpm = rng.uniform(*cfg.settle_stop_rotor_rpm)
        else:
            rpm = launch_rpm(rng, cfg, habit == "slow_rotor")
        # Spin the rotor a little faster so that it has slowed to rpm by the launch
        # (v² = u² − 2·decel·angle).
        wait_deg = rng.uniform(*turns) * 360.0
        spun = sign(self.rotor_dir) * math.sqrt((6.0 * rpm) ** 2 + 2.0 * decel * wait_deg)
        if k == 0 and rest is None:
            rotor.omega = spun  # already turning at t=0
        else:
            rotor.ramp(spun, cfg.respin_accel_deg_s2)
        wait = rotor.turn_time(wait_deg, decel)
        assert wait is not None  # spun fast enough to turn wait_deg, by construction
        launch = rotor.t + wait
        self.events += self.dealer.bets(rng, self.t_open + 0.2, launch - 0.2)
        rotor.coast(launch, decel)
        return rpm, launch

    def _ball(self, habit: str, launch: float) -> _Ball:
        """The ball launched at ``launch`` against the rotor ("ball_with_rotor": with it),
        its run to where it leaves the track, and the dealer's inputs on it."""
        cfg = self.cfg
        other = "ccw" if self.rotor_dir == "cw" else "cw"
        direction = self.rotor_dir if habit == "ball_with_rotor" else other
        laps, leave_deg = ball_run(self.rng, cfg, habit == "weak_throw")
        ball = ball_motion(laps, direction, launch, self.p, leave_deg)
        ball_a = edges("ball_a", ball.active(0.0, self.p), math.inf)
        self.events += ball_a
        self.events += edges("ball_b", ball.active(cfg.ball_b_deg, self.p), math.inf)
        self.events += self.dealer.launched(launch, laps)
        return _Ball(direction, laps, ball_a, ball.t)

    def _settle(self, habit: str, leave: float
                ) -> tuple[int | None, float | None, Interval | None]:
        """After bouncing, the ball's pocket (index) and when it came to rest, or None
        ("ball_never_settles"); a "rotor_stops_after_settle" rotor's rest, from its stop
        (open-ended)."""
        rng, rotor, cfg, p = self.rng, self.rotor, self.cfg, self.p
        rotor.coast(leave + rng.uniform(*cfg.bounce_s), self.decel)
        if habit == "ball_never_settles":
            return None, None, None
        if habit == "rotor_stops_after_settle":
            index = rng.choice(stoppable_pockets(rotor, cfg, self.pockets))
        else:
            index = rng.randrange(self.pockets)
        # A ball reaching its pocket under ball_pocket rolls in it until past the sensor,
        # so every activation is a whole pass, which the contract's rule decodes exactly.
        pocket_deg = ((rotor.theta + index * self.pitch - cfg.ball_pocket_deg + 180.0)
                      % 360.0 - 180.0)
        ahead = math.copysign(1.0, rotor.omega) * pocket_deg
        rolling = rotor.turn_time(p + 0.5 - ahead, self.decel) if abs(ahead) <= p + 0.5 else None
        if rolling is not None:
            rotor.coast(rotor.t + rolling, self.decel)
        settle = rotor.t
        if habit != "rotor_stops_after_settle":
            return index, settle, None
        brake_after_second_pass(rng, rotor, cfg, index * self.pitch, self.decel)
        return index, settle, (rotor.t, math.inf)

    def _remove(self, settled: bool) -> float:
        """When the dealer takes the ball out: after ``confirm_rotor_revolutions`` of a
        ball at rest, ``suspended_rotor_revolutions`` of one that never settled; a stopped
        rotor never turns, so then after a while."""
        cfg = self.cfg
        revolutions = cfg.confirm_rotor_revolutions if settled else cfg.suspended_rotor_revolutions
        wait = self.rotor.turn_time(revolutions * 360.0, self.decel)
        remove = self.rotor.t + (wait if wait is not None else self.rng.uniform(8.0, 12.0))
        self.rotor.coast(remove, self.decel)
        return remove

    def _fault(self, habit: str, ball: _Ball, window: Interval, readings: list[float],
               settle: float | None, fail_t: float) -> tuple[str | None, int]:
        """A fault ``habit`` strikes its input with between the launch and the removal
        (``window``): the input and the corrections it costs; (None, 0) for no fault."""
        if habit not in FAULTS:
            return None, 0
        assert settle is not None
        fault, corrections = wheel_faults.strike(
            habit, self.rng, ball_a=[e["t"] for e in ball.ball_a if e["level"] == 1],
            rotor=self.rotor, rotor_b_deg=self.cfg.rotor_b_deg, pulse_deg=self.p,
            window=window, pocket=readings, settle=settle, fail_t=fail_t,
            passes=self.cfg.chatter_passes)
        if fault.kind == "dead":
            self.rotor_b_dead.append((fail_t, window[1]))
        else:
            self.faults.append(fault)
        return fault.gpio, corrections

    def end(self) -> WheelRun:
        """The session's run: the rotor's and the resting balls' pulses up to the last
        pause, every event in time order, the faults struck into them."""
        rotor, cfg, p = self.rotor, self.cfg, self.p
        rotor.coast(self.t_open, self.decel)
        end = rotor.t
        events = self.events
        events += edges("rotor_a", rotor.active(0.0, p), end)
        events += edges("rotor_b", cut(rotor.active(cfg.rotor_b_deg, p), self.rotor_b_dead),
                        end)
        for i, settle_t, remove_t in self.resting:
            # The resting ball is in pocket i, centred at θ + i·pitch, seen at ball_pocket_deg.
            seen = clip(rotor.active(cfg.ball_pocket_deg - i * self.pitch, p, settle_t,
                                     remove_t), settle_t, remove_t)
            events += edges("ball_pocket", seen, end)
        events.sort(key=lambda e: e["t"])
        if self.faults:
            events = wheel_faults.apply(events, self.faults, count=cfg.chatter_rises,
                                        span_s=cfg.chatter_span_s)
        return WheelRun(events, self.throws, rotor)
