"""Sensor faults of a simulated wheel (CONTRACT §5): the edges a rig records when a sensor lies.

A fault rewrites the edges of one input (CONTRACT §2 ``gpio`` events) at chosen passes, each
named by its rise time (seconds):

- ``drop_pass``: both edges of the pass are gone (a dirty lens, a kernel-dropped edge pair);
- ``drop_fall``: its fall is gone, so the input reads active until its next pass rises;
- ``chatter``: the pass becomes ``count`` rises within ``span_s`` (a worn reed switch
  bouncing), all inside the real pulse, the last one ending with the real fall.

:func:`strike` chooses the passes of a fault scenario of :mod:`sim.wheel_sim`;
:func:`apply` rewrites the edges; :func:`revolutions_without_b` counts what a dead
``rotor_b`` costs. Pure: the only randomness is the ``random.Random`` passed in.
"""

from __future__ import annotations

import math
import random
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

from sim.wheel_geometry import Event, Interval, Motion, cut

_MATCH_S = 2e-6  # a struck pass is named by its rise time, to the trace's microsecond

# Fault scenario -> (kind of fault, the input it strikes). "rotor_b_dead" is not here: a dead
# sensor is a hole in its active intervals (sim.wheel_geometry.cut), not an edge rewrite.
EDGE_FAULTS: dict[str, tuple[str, str]] = {
    "missed_pass": ("drop_pass", "ball_a"),
    "missing_fall": ("drop_fall", "ball_a"),
    "chatter_ball_a": ("chatter", "ball_a"),
    "chatter_ball_a_worn": ("chatter", "ball_a"),
    "chatter_rotor_a": ("chatter", "rotor_a"),
    "chatter_rotor_b": ("chatter", "rotor_b"),
    "chatter_pocket": ("chatter", "ball_pocket"),
}


@dataclass(frozen=True)
class Fault:
    """``kind`` (``drop_pass``, ``drop_fall``, ``chatter``; ``dead``: the whole input, see
    :func:`strike`) on the passes of ``gpio`` that rise at ``rises`` (seconds, as written in
    the trace: rounded to the microsecond)."""

    kind: str
    gpio: str
    rises: tuple[float, ...]


def strike(scenario: str, rng: random.Random, *, ball_a: Sequence[float], rotor: Motion,
           rotor_b_deg: float, pulse_deg: float, window: Interval, pocket: Sequence[float],
           settle: float, fail_t: float, passes: int) -> tuple[Fault, int]:
    """The fault a fault scenario injects in one spin, and the corrections of its input a
    controller makes before the pocket is confirmed by its second reading.

    Args:
        scenario: a key of ``EDGE_FAULTS``, or "rotor_b_dead": then the fault is
            ``Fault("dead", "rotor_b", ())``, ``rotor_b`` dead from ``fail_t`` to the removal
            (a hole in its active intervals, sim.wheel_geometry.cut), and the
            corrections are :func:`revolutions_without_b` until the second reading.
        rng: the simulator's random source.
        ball_a: the spin's ``ball_a`` rises, s, in run order (one per ball revolution).
        rotor: the rotor's marker, built until the removal at least.
        rotor_b_deg, pulse_deg: the rotor sensors' geometry, degrees.
        window: (launch, removal) of the spin, s: rotor passes are struck only within it.
        pocket: the resting ball's ``ball_pocket`` rises, s.
        settle: when the ball came to rest, s.
        fail_t: when ``rotor_b`` dies in "rotor_b_dead", s.
        passes: how many passes a ``chatter_*`` scenario strikes (``_worn``: every one).

    ``missed_pass`` and ``missing_fall`` strike one ``ball_a`` pass in the middle of the run
    (never the first two nor the last two); ``chatter_ball_a`` ``passes`` consecutive passes
    anywhere in the run; ``chatter_rotor_a``/``_b`` ``passes`` consecutive passes from the last
    one before the settle (the revolutions that decode the pocket); ``chatter_pocket`` the
    first ``passes`` readings.
    """
    if scenario == "rotor_b_dead":
        dead = (fail_t, window[1])
        return Fault("dead", "rotor_b", ()), revolutions_without_b(
            rotor, rotor_b_deg, pulse_deg, dead, pocket[1])
    kind, gpio = EDGE_FAULTS[scenario]
    n = len(ball_a)
    if scenario in ("missed_pass", "missing_fall"):
        if n < 5:
            raise ValueError(f"{scenario} needs a run of at least 5 ball revolutions, got {n}")
        chosen: Sequence[float] = [ball_a[rng.randrange(2, n - 2)]]
    elif scenario == "chatter_ball_a_worn":
        chosen = ball_a
    elif scenario == "chatter_ball_a":
        start = rng.randrange(0, max(1, n - passes + 1))
        chosen = ball_a[start:start + passes]
    elif gpio == "ball_pocket":
        chosen = pocket[:passes]
    else:
        lo, hi = window
        deg = 0.0 if gpio == "rotor_a" else rotor_b_deg
        ups = [a for a, _ in rotor.active(deg, pulse_deg, lo, hi) if lo <= a <= hi]
        start = max(0, sum(t <= settle for t in ups) - 1)
        chosen = ups[start:start + passes]
    if not chosen:
        raise ValueError(f"{scenario}: no {gpio} pass to strike in this spin")
    confirmed = pocket[1] if len(pocket) > 1 else math.inf  # the pocket is confirmed then
    return (Fault(kind, gpio, tuple(round(t, 6) for t in chosen)),
            sum(t < confirmed for t in chosen))


def revolutions_without_b(rotor: Motion, rotor_b_deg: float, pulse_deg: float, dead: Interval,
                          until: float) -> int:
    """Rotor revolutions (``rotor_a`` to ``rotor_a``) ending after ``rotor_b`` died at
    ``dead[0]`` s and by ``until`` s in which a ``rotor_b`` dead over ``dead`` never fired:
    the corrections a controller makes for it up to ``until``."""
    lo = dead[0]
    a_ups = [a for a, _ in rotor.active(0.0, pulse_deg, lo - 30.0, until)]
    b_ups = [b for b, _ in cut(rotor.active(rotor_b_deg, pulse_deg, lo - 30.0, until), [dead])]
    # As written in the trace (to the µs): a rotor_a edge at the time of the reading comes
    # first in it, so its revolution counts.
    return sum(1 for a0, a1 in pairwise(a_ups)
               if lo < a1 and round(a1, 6) <= until and not any(a0 < b < a1 for b in b_ups))


def apply(events: list[Event], faults: Sequence[Fault], *, count: int = 5,
          span_s: float = 0.003) -> list[Event]:
    """``events`` (a trace's, sorted by time) with ``faults`` applied, sorted by time.

    Args:
        events: CONTRACT §2 events; only the ``gpio`` edges of the struck inputs change.
        faults: each struck pass must rise in ``events`` and fall later.
        count: rises of a chattering pass.
        span_s: the chattering rises all fall within this many seconds of the first.

    Raises:
        ValueError: a struck pass that is not in ``events``, or too short to chatter.
    """
    struck: dict[str, dict[float, str]] = {}
    for fault in faults:
        for t in fault.rises:
            struck.setdefault(fault.gpio, {})[t] = fault.kind
    times = {name: sorted(kinds) for name, kinds in struck.items()}
    pending: dict[str, tuple[int, str]] = {}  # input -> (index of its struck rise, kind)
    drop: set[int] = set()
    chattered: dict[int, list[Event]] = {}
    for i, event in enumerate(events):
        name = event.get("gpio")
        if name not in struck:
            continue
        if name in pending:
            j, kind = pending.pop(name)
            if event["level"] != 0:
                raise ValueError(f"{name} pass at {events[j]['t']} s has no fall to fault")
            if kind == "drop_pass":
                drop.add(j)
            elif kind == "chatter":
                chattered[j] = _chatter(events[j], event, count, span_s)
            drop.add(i)
        elif event["level"] == 1:
            ts = times[name]
            k = bisect_left(ts, event["t"] - _MATCH_S)
            if k < len(ts) and abs(ts[k] - event["t"]) <= _MATCH_S:
                pending[name] = (i, struck[name].pop(ts.pop(k)))
    left = sorted(t for kinds in struck.values() for t in kinds)
    if pending or left:
        raise ValueError(f"no whole pass of a struck input rises at "
                         f"{', '.join(map(str, left)) or 'no time'} s (or it never falls: "
                         f"{', '.join(sorted(pending)) or 'none'})")
    out: list[Event] = []
    for i, event in enumerate(events):
        if i in chattered:
            out += chattered[i]
        elif i not in drop:
            out.append(event)
    return sorted(out, key=lambda e: e["t"])


def _chatter(rise: Event, fall: Event, count: int, span_s: float) -> list[Event]:
    """``count`` rises spread over less than ``span_s`` (and the pulse), each but the last
    falling halfway to the next; the last falls with the real pulse."""
    a, b = rise["t"], fall["t"]
    step = min(span_s, b - a) / count
    if step < 4e-6:
        raise ValueError(f"{rise['gpio']} pass at {a} s is too short to chatter")
    name = rise["gpio"]
    out: list[Event] = []
    for j in range(count):
        t = a + j * step
        out.append({"t": round(t, 6), "gpio": name, "level": 1})
        end = b if j == count - 1 else t + step / 2
        out.append({"t": round(end, 6), "gpio": name, "level": 0})
    return out
