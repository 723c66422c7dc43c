"""Pure geometry of a wheel's sensors: angles in time, and the edges they make.

Angles in degrees, clockwise seen from above (CONTRACT §1); times in seconds. A
:class:`Motion` is an angle made of constant-acceleration pieces (the rotor's zero marker, or
the ball on its track); :meth:`Motion.active` gives the time intervals while it is within a
sensor's window, and :func:`edges` turns those intervals into CONTRACT §2 ``gpio`` events
(rounded to the microsecond). :func:`ball_track_events` and :func:`rotor_events` build the
``ball_a``/``ball_b`` and ``rotor_a``/``rotor_b`` edges of given lap and revolution times.

No randomness and no I/O: :mod:`sim.wheel_sim` draws the physics and uses these.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

Event = dict[str, Any]
Interval = tuple[float, float]

EPS = 1e-9  # seconds: intervals this close touch; angles this close coincide


@dataclass(frozen=True)
class Segment:
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
        way = math.copysign(1.0, self.omega0 if self.omega0 != 0.0 else self.acc)
        root = math.sqrt(max(0.0, self.omega0 * self.omega0 + 2.0 * self.acc * delta))
        dt = 2.0 * delta / (self.omega0 + way * root)
        return min(max(self.t0 + dt, self.t0), self.t1)


class Motion:
    """An angle (degrees) made of constant-acceleration pieces, built forward in time."""

    def __init__(self, t: float, theta: float, omega: float) -> None:
        self.segments: list[Segment] = []
        self.t = t
        self.theta = theta
        self.omega = omega

    def run(self, duration: float, acc: float = 0.0) -> None:
        """Move for ``duration`` s at constant acceleration ``acc`` (deg/s²)."""
        if duration <= 0.0:
            return
        seg = Segment(self.t, self.t + duration, self.theta, self.omega, acc)
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
            first = math.ceil((lo - centre - half) / 360.0 - EPS)
            last = math.floor((hi - centre + half) / 360.0 + EPS)
            for m in range(first, last + 1):
                w_lo = max(lo, centre + 360.0 * m - half)
                w_hi = min(hi, centre + 360.0 * m + half)
                if w_lo > w_hi + EPS:
                    continue
                if hi - lo < EPS:  # at rest inside the window
                    found.append((seg.t0, seg.t1))
                    break
                ta, tb = seg.time_at(w_lo), seg.time_at(w_hi)
                found.append((min(ta, tb), max(ta, tb)))
        return merge(found)


def merge(intervals: list[Interval]) -> list[Interval]:
    """Sorted, touching intervals joined (a window can span two segments)."""
    out: list[Interval] = []
    for a, b in sorted(intervals):
        if out and a <= out[-1][1] + EPS:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


def clip(intervals: list[Interval], lo: float, hi: float) -> list[Interval]:
    """The parts of ``intervals`` within [``lo``, ``hi``] s."""
    return [(max(a, lo), min(b, hi)) for a, b in intervals if b > lo and a < hi]


def cut(intervals: list[Interval], holes: list[Interval]) -> list[Interval]:
    """``intervals`` minus ``holes`` (a dead sensor shows nothing during a hole)."""
    for h_lo, h_hi in holes:
        kept: list[Interval] = []
        for a, b in intervals:
            kept += clip([(a, b)], -math.inf, h_lo) + clip([(a, b)], h_hi, math.inf)
        intervals = kept
    return intervals


def edges(gpio: str, intervals: list[Interval], end: float) -> list[Event]:
    """Rising and falling edges; a pulse still on at ``end`` (the trace's end) stays on.

    Pulses shorter than the trace's microsecond resolution (a target grazing a window's
    edge) are dropped rather than written as a rise and fall at the same time, and pulses
    that touch at that resolution (a target turning back inside a window: the two pieces of
    motion meet at the turning point only to within its precision) are one pulse.
    """
    events: list[Event] = []
    for a, b in intervals:
        if round(b, 6) <= round(a, 6):
            continue
        if events and events[-1]["level"] == 0 and events[-1]["t"] >= round(a, 6):
            events.pop()  # still active: the pulse goes on
        else:
            events.append({"t": round(a, 6), "gpio": gpio, "level": 1})
        if b < end - EPS:
            events.append({"t": round(b, 6), "gpio": gpio, "level": 0})
    return events


def ahead_of(motion: Motion, target_deg: float) -> float:
    """Degrees, in [0, 360), ``motion`` still has to turn in its direction of turn (the sign of
    ``motion.omega``) to reach the angle ``target_deg`` (mod 360°)."""
    return (math.copysign(1.0, motion.omega) * (target_deg - motion.theta)) % 360.0


def sign(direction: str) -> float:
    """+1 for "cw" (angles grow), -1 for "ccw"; ValueError for anything else."""
    if direction not in ("cw", "ccw"):
        raise ValueError(f"direction must be 'cw' or 'ccw', got {direction!r}")
    return 1.0 if direction == "cw" else -1.0


def ball_motion(
    lap_times: Sequence[float], direction: str, t0: float, pulse_deg: float, leave_deg: float
) -> Motion:
    """The ball's angle on its track: released at ``t0`` s just past ``ball_a``, reaching it
    again after each of ``lap_times`` (s) at a constant speed within each lap, then going on
    ``leave_deg`` degrees at the last lap's speed until it leaves the track (``.t``)."""
    if not lap_times or min(lap_times) <= 0.0:
        raise ValueError("lap_times must be a non-empty list of positive seconds")
    if not 0.0 < leave_deg < 360.0:
        raise ValueError(f"leave_deg must be in (0, 360), got {leave_deg}")
    s = sign(direction)
    # Released just past ball_a, so the first lap ends at the next activation like the others.
    motion = Motion(t0, s * pulse_deg, 0.0)
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
    motion = ball_motion(lap_times, direction, t0, pulse_deg, leave_deg)
    events = edges("ball_a", motion.active(0.0, pulse_deg), math.inf)
    events += edges("ball_b", motion.active(ball_b_deg, pulse_deg), math.inf)
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
    motion = _rotor_motion(rev_times, direction, t0, pulse_deg)
    events = edges("rotor_a", motion.active(0.0, pulse_deg), math.inf)
    events += edges("rotor_b", motion.active(rotor_b_deg, pulse_deg), math.inf)
    return sorted(events, key=lambda e: e["t"])


def _rotor_motion(rev_times: Sequence[float], direction: str, t0: float,
                  pulse_deg: float) -> Motion:
    if not rev_times or min(rev_times) <= 0.0:
        raise ValueError("rev_times must be a non-empty list of positive seconds")
    s = sign(direction)
    half_first = rev_times[0] / 2.0
    # The marker enters the rotor_a window (at -pulse_deg in its direction) at t0.
    motion = Motion(t0 - half_first, -s * (pulse_deg + 180.0), s * 360.0 / rev_times[0])
    motion.run(half_first)
    for rev in rev_times:
        motion.omega = s * 360.0 / rev
        motion.run(rev)
    motion.run(rev_times[-1] / 2.0)
    return motion


def resting_ball_events(
    rev_times: Sequence[float],
    direction: str,
    t0: float,
    pocket_index: int,
    pockets: int,
    *,
    ball_pocket_deg: float = 0.0,
    rotor_b_deg: float = 10.0,
    pulse_deg: float = 2.0,
    ball_pulse_deg: float | None = None,
) -> list[Event]:
    """The rotor's edges (:func:`rotor_events`) and the ``ball_pocket`` edges of a ball at
    rest in pocket ``pocket_index`` (of ``pockets``, centred ``index·360/pockets`` clockwise
    of the zero marker) turning with the rotor: what the commissioning of hardware.md sees.

    Args:
        ball_pocket_deg: where the pocket sensor is, clockwise of ``rotor_a`` (degrees).
        ball_pulse_deg: the pocket sensor's half window on the ball (default ``pulse_deg``;
            wider than the marker's, its activations come earlier in the turn).
    """
    motion = _rotor_motion(rev_times, direction, t0, pulse_deg)
    half = pulse_deg if ball_pulse_deg is None else ball_pulse_deg
    centre = ball_pocket_deg - pocket_index * 360.0 / pockets
    events = edges("rotor_a", motion.active(0.0, pulse_deg), math.inf)
    events += edges("rotor_b", motion.active(rotor_b_deg, pulse_deg), math.inf)
    events += edges("ball_pocket", motion.active(centre, half), math.inf)
    return sorted(events, key=lambda e: e["t"])
