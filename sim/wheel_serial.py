"""A simulated automated wheel (equipment): the status lines its firmware sends over RS-232
for the throws of :mod:`sim.wheel_sim` (issue 12).

The same throws that :func:`sim.wheel_sim.run_wheel` writes as sensor edges are written here
as the lines a wheel with its own sensors sends (the protocol of
``controller/protocols/wheel_status.py``: ``*X;S;GGG;NN;W;SSS;D``, extended ``;RR;B``), as
CONTRACT §2 ``serial`` events on one port: one seed, the same spins both ways.

The wheel is a SlingShot 2 (``wheel_model = "slingshot2"``: its counter runs 1-256, then
wraps to 1; flag 1 is "ball removed").

Per throw: state 1 (start: the game counter moves on when the last game gave a number),
state 2 (bets open, the rotor turning) until the launch, state 3 (ball in the rim) until
the dealer's "no va más" time, state 4 until the wheel reads the number (0.4 s after the
ball settles), the bare number line, state 5 until the ball is taken out. ``NN`` is the
previous number in states 1-4 (two spaces before the first, one digit padded with a space)
and the new one from state 5. ``SSS`` is the rotor's speed (``speed_unit_rpm`` a unit) and
``D`` its direction; at speed 0 ``D`` already shows the way the croupier spins it next (a
``rotor_reversed`` throw flips it in state 2). A line on each change, repeated every
``line_period_s``.

What the wheel's own sensors report of a throw: ``ball_with_rotor`` raises flag 2 from its
second lap; ``weak_throw`` flag 8 (a void game) once the ball drops; a ball that never
settles stays in state 4 until it is taken out, then flag 1 (ball removed) and a new game
with the same counter. Slow and braked rotors show in ``SSS``.

Habits of real wheels, each on by default (:class:`StatusLineSimConfig`): the bare number
line; command answers interleaved; a failed launch (flag 8 in state 2, then the relaunch);
state 5 as one line, then silence until the ball is out; garbled lines; lines split across
reads; and after the last throw an idle stretch: a self-test (``SSS`` not a speed), a
silence of minutes delivered at its end as one burst split into partial reads, a power cycle
(the counter restarts at 001, ``NN`` blank, a version line), and thousands of idle lines
with a fault flag up.

Pure and deterministic: the only randomness is the ``random.Random`` passed in; no I/O.
"""

from __future__ import annotations

import bisect
import random
from collections.abc import Sequence
from dataclasses import dataclass

from sim.wheel_geometry import Event, Motion
from sim.wheel_sim import WheelSpin

_ANSWERS = ("*P OK", "*P NO", "*o BUSY", "*u OK", "*T s 14.0 17.5")
_CHANGE_S = 0.02  # a line this soon after each change of state or flags


@dataclass(frozen=True)
class StatusLineSimConfig:
    """An automated wheel's firmware and habits. Times in seconds.

    Attributes:
        port: the serial port's name in the trace (``wheel``).
        line_period_s: the status line repeats this often.
        speed_unit_rpm: rpm one unit of ``SSS`` is (0.1: tenths of rpm).
        extended: send the extended fields ``RR`` (ball revolutions) and ``B`` (ball
            direction).
        bare_number: send the bare winning number just before state 5.
        answers_every_s: a command answer about this often (0: never).
        failed_launch_every: every Nth throw, a failed launch first (0: never).
        single_five_every: every Nth throw, state 5 is one line, then silence until the
            ball is out (0: never).
        garble_every: every Nth throw, one repeated line of state 4 garbled (0: never).
        split_share: the share of lines that arrive in two reads.
        idle_lines: idle lines with a fault flag up after the power cycle.
        self_test_lines: lines of the self-test in the idle stretch.
        burst_silence_s: the silence in the idle stretch delivered as one burst (0: none).
        power_cycle: the wheel is switched off and on in the idle stretch.
    """

    port: str = "wheel"
    line_period_s: float = 0.5
    speed_unit_rpm: float = 0.1
    extended: bool = False
    bare_number: bool = True
    answers_every_s: float = 45.0
    failed_launch_every: int = 5
    single_five_every: int = 6
    garble_every: int = 4
    split_share: float = 0.1
    idle_lines: int = 2000
    self_test_lines: int = 12
    burst_silence_s: float = 180.0
    power_cycle: bool = True


@dataclass
class _Phase:
    """From ``t`` on the wheel shows ``state`` with ``number`` (NN), ``flags`` (W) and
    ``game`` (GGG), for ``throw`` (its index) when a ball is in play or just played."""

    t: float
    state: int
    number: str | None
    flags: int
    game: int
    throw: int | None = None
    speed: int | None = None  # a fixed SSS (idle, self-test); None: the rotor's
    single: bool = False  # state 5 shown once


def status_lines(throws: Sequence[WheelSpin], rotor: Motion, calls: Sequence[float],
                 labels: Sequence[str], rng: random.Random,
                 config: StatusLineSimConfig | None = None) -> list[Event]:
    """The wheel's status lines for ``throws``, as CONTRACT §2 ``serial`` events.

    Args:
        throws: the session's throws (:func:`sim.wheel_sim.run_wheel`).
        rotor: the rotor's motion in that session.
        calls: for each throw, when "no va más" is called (s): the wheel's state 4.
        labels: the pocket numbers by wheel-order index ("0", "32", ...).
        rng: the random source of the wheel's habits (a stream of its own, so the throws
            are the same whatever the habits).
        config: the firmware and habits (default: all on, standard lines).

    Returns:
        ``{"t", "serial", "text"}`` events in time order (s, rounded to µs); each line ends
        in CR.

    Raises:
        ValueError: ``calls`` and ``throws`` differ in length.
    """
    cfg = config or StatusLineSimConfig()
    if len(calls) != len(throws):
        raise ValueError(f"{len(calls)} no-more-bets times for {len(throws)} throws")
    phases, specials, quiet = _timeline(throws, calls, labels, rng, cfg)
    end = phases[-1].t + cfg.idle_lines * cfg.line_period_s
    emitted = _emit(phases, throws, rotor, cfg, quiet, end)
    kept = [(t, text) for t, text in specials if not any(a <= t < b for a, b in quiet)]
    # At one time, the bare number (or an answer) comes before the status line.
    order = sorted([(t, 0, x) for t, x in kept] + [(t, 1, x) for t, x in emitted])
    lines = [(t, x) for t, _, x in order]
    lines = _garble(lines, phases, throws, cfg, rng)
    return _reads(lines, phases, cfg, rng)


def _timeline(throws: Sequence[WheelSpin], calls: Sequence[float], labels: Sequence[str],
              rng: random.Random, cfg: StatusLineSimConfig
              ) -> tuple[list[_Phase], list[tuple[float, str]], list[tuple[float, float]]]:
    """The phases of the session, the lines outside the status stream (bare numbers,
    answers, version), and the stretches with no line (single state 5, power off)."""
    phases: list[_Phase] = []
    specials: list[tuple[float, str]] = []
    quiet: list[tuple[float, float]] = []
    game = 1 + rng.randint(20, 900) % 256  # a SlingShot 2 counts its games 1-256
    shown: str | None = None
    start = 0.1
    gave_number = False
    for k, w in enumerate(throws):
        if gave_number:
            game = game % 256 + 1
        phases.append(_Phase(start, 1, shown, 0, game))
        opened = min(start + 1.5, w.launch_t - 0.5)
        phases.append(_Phase(opened, 2, shown, 0, game))
        if _every(cfg.failed_launch_every, k) and w.launch_t - 2.5 > opened + 0.5:
            phases.append(_Phase(w.launch_t - 2.5, 2, shown, 8, game))  # and relaunched
            phases.append(_Phase(w.launch_t - 1.0, 2, shown, 0, game))
        flag_at: dict[float, int] = {}
        if w.habit == "ball_with_rotor" and len(w.ball_passes) > 1:
            flag_at[w.ball_passes[1]] = 2  # the wheel's sensors see it by the second lap
        if w.habit == "weak_throw":
            flag_at[w.leave_t + 0.3] = 8  # the throw voided by the wheel
        read = None if w.settle_t is None else w.settle_t + 0.4
        call = max(calls[k], w.launch_t + 0.3)
        if read is not None:
            call = min(call, read - 0.1)
        steps = [(w.launch_t, 3), (call, 4)]
        if read is not None:
            steps.append((read, 5))
        marks = sorted([*((t, None) for t, _ in steps), *((t, f) for t, f in flag_at.items())],
                       key=lambda x: x[0])
        state, flags = 3, 0
        number = labels[w.pocket_index] if w.pocket_index is not None else None
        for t, flag in marks:
            if flag is None:
                state = next(s for st, s in steps if st == t)
            else:
                flags |= flag
            single = state == 5 and _every(cfg.single_five_every, k)
            phases.append(_Phase(t, state, number if state == 5 else shown, flags, game, k,
                                 single=single))
        if read is not None and number is not None:
            if cfg.bare_number:
                specials.append((read, number))
            if _every(cfg.single_five_every, k):
                quiet.append((read + _CHANGE_S + 0.01, w.remove_t))
            shown, gave_number = number, True
            start = w.remove_t
        else:
            phases.append(_Phase(w.remove_t, 4, shown, flags | 1, game, k))  # ball removed
            gave_number = False
            start = w.remove_t + 1.0
    # The idle stretch: a start, then closed; a self-test; a silence and its burst; a power
    # cycle; idle lines with a fault flag up.
    phases.append(_Phase(start, 1, shown, 0, game % 256 + 1 if gave_number else game))
    t = start + 1.5
    game = phases[-1].game
    phases.append(_Phase(t, 6, shown, 0, game, speed=0))
    t += 20 * cfg.line_period_s
    for i in range(cfg.self_test_lines):
        phases.append(_Phase(t, 6, shown, 0, game, speed=(111 * (i % 9 + 1))))
        t += cfg.line_period_s
    phases.append(_Phase(t, 6, shown, 0, game, speed=0))
    t += 10 * cfg.line_period_s
    if cfg.burst_silence_s:
        t += cfg.burst_silence_s + 10 * cfg.line_period_s
    if cfg.power_cycle:
        quiet.append((t, t + 20.0))
        t += 20.0
        specials.append((t, "*V 4.12 status-line wheel simulator"))
        phases.append(_Phase(t + 0.2, 6, None, 4, 1, speed=0))
    if cfg.answers_every_s:
        a = rng.uniform(5.0, cfg.answers_every_s)
        while a < t:
            specials.append((a, rng.choice(_ANSWERS)))
            a += rng.uniform(0.5, 1.5) * cfg.answers_every_s
    return phases, specials, quiet


def _every(n: int, k: int) -> bool:
    return n > 0 and k % n == n - 1


def _emit(phases: list[_Phase], throws: Sequence[WheelSpin], rotor: Motion,
          cfg: StatusLineSimConfig, quiet: list[tuple[float, float]], end: float
          ) -> list[tuple[float, str]]:
    """One line on each change, then one every ``line_period_s`` until ``end``."""
    starts = [p.t for p in phases]
    times = {round(p.t + _CHANGE_S, 6) for p in phases}
    t = 0.1
    while t < end:
        times.add(round(t, 6))
        t += cfg.line_period_s
    seg_t0 = [s.t0 for s in rotor.segments]
    out: list[tuple[float, str]] = []
    shown_single: set[int] = set()
    for t in sorted(times):
        if any(a <= t < b for a, b in quiet):
            continue
        i = bisect.bisect_right(starts, t) - 1
        if i < 0:
            continue
        phase = phases[i]
        if phase.single:
            if i in shown_single:
                continue
            shown_single.add(i)
        out.append((t, _line(phase, t, throws, rotor, seg_t0, cfg)))
    return out


def _line(phase: _Phase, t: float, throws: Sequence[WheelSpin], rotor: Motion,
          seg_t0: list[float], cfg: StatusLineSimConfig) -> str:
    omega = _omega(rotor, seg_t0, t)
    if phase.speed is not None:
        speed, direction = phase.speed, 0
    else:
        speed = min(999, round(abs(omega) / 6.0 / cfg.speed_unit_rpm))
        ahead = omega if omega != 0.0 else _next_turn(rotor, seg_t0, t)
        direction = 1 if ahead < 0 else 0
    nn = "  " if phase.number is None else f"{phase.number:>2}"
    text = f"*X;{phase.state};{phase.game:03d};{nn};{phase.flags:X};{speed:03d};{direction}"
    if cfg.extended:
        rr, b = "  ", " "
        if phase.throw is not None and phase.state in (3, 4, 5):
            w = throws[phase.throw]
            count = sum(1 for a in w.ball_passes if a <= t)
            rr = f"{count:>2}"
            b = " " if count == 0 else ("0" if w.ball_direction == "cw" else "1")
        text += f";{rr};{b}"
    return text


def _omega(rotor: Motion, seg_t0: list[float], t: float) -> float:
    """The rotor's angular speed at ``t``, deg/s (clockwise positive)."""
    i = bisect.bisect_right(seg_t0, t) - 1
    if i < 0:
        return rotor.segments[0].omega0 if rotor.segments else 0.0
    seg = rotor.segments[i]
    if t > seg.t1:
        return rotor.omega if i == len(rotor.segments) - 1 else 0.0
    return seg.omega0 + seg.acc * (t - seg.t0)


def _next_turn(rotor: Motion, seg_t0: list[float], t: float) -> float:
    """At rest at ``t``: the sign (deg/s or deg/s², clockwise positive) of the rotor's next
    motion, the way the croupier spins it; 0 when it never turns again."""
    for seg in rotor.segments[max(0, bisect.bisect_right(seg_t0, t) - 1):]:
        if seg.t1 > t and (seg.omega0 != 0.0 or seg.acc != 0.0):
            return seg.omega0 if seg.omega0 != 0.0 else seg.acc
    return 0.0


def _garble(lines: list[tuple[float, str]], phases: list[_Phase],
            throws: Sequence[WheelSpin], cfg: StatusLineSimConfig, rng: random.Random
            ) -> list[tuple[float, str]]:
    """Every ``garble_every``-th throw, one line of state 4 that repeats the one before
    becomes ``*X;4;14*X;*X;4;146; 9;0;158;0``: a cut line and a restart on one line."""
    if not cfg.garble_every:
        return lines
    out = list(lines)
    for k, w in enumerate(throws):
        if not _every(cfg.garble_every, k):
            continue
        picks = [i for i in range(1, len(out))
                 if w.launch_t < out[i][0] < w.remove_t and out[i][1].startswith("*X;4;")
                 and out[i][1][:12] == out[i - 1][1][:12] and i + 1 < len(out)
                 and out[i + 1][1].startswith("*X;4;")]
        if picks:
            i = rng.choice(picks)
            t, text = out[i]
            out[i] = (t, text[:rng.randint(4, 9)] + "*X;" + text)
    return out


def _reads(lines: list[tuple[float, str]], phases: list[_Phase], cfg: StatusLineSimConfig,
           rng: random.Random) -> list[Event]:
    """The lines as the port delivers them: some split across two reads; the silence of
    the idle stretch held back and delivered at its end in one burst of partial reads."""
    burst: tuple[float, float] | None = None
    if cfg.burst_silence_s:
        closed = [p.t for p in phases if p.state == 6 and p.speed == 0]
        if len(closed) >= 2:
            begin = closed[1] + 5 * cfg.line_period_s
            burst = (begin, begin + cfg.burst_silence_s)
    events: list[Event] = []
    held: list[str] = []
    for n, (t, text) in enumerate(lines):
        data = text + "\r"
        if burst is not None and burst[0] <= t < burst[1]:
            held.append(data)
            continue
        if held:
            _burst(events, burst[1] if burst else t, "".join(held), cfg, rng)
            held = []
        if rng.random() < cfg.split_share and len(data) > 2:
            cut = rng.randint(1, len(data) - 1)
            # The rest comes 3 ms later, before the next line starts on the wire.
            rest = t + 0.003 if n + 1 == len(lines) or lines[n + 1][0] > t + 0.003 else t
            events.append(_event(t, data[:cut], cfg))
            events.append(_event(rest, data[cut:], cfg))
        else:
            events.append(_event(t, data, cfg))
    if held:
        _burst(events, burst[1] if burst else 0.0, "".join(held), cfg, rng)
    return events


def _burst(events: list[Event], t: float, data: str, cfg: StatusLineSimConfig,
           rng: random.Random) -> None:
    """``data`` delivered at once at ``t``, in reads of 1-64 bytes."""
    pos = 0
    while pos < len(data):
        n = rng.randint(1, 64)
        events.append(_event(t, data[pos:pos + n], cfg))
        pos += n


def _event(t: float, text: str, cfg: StatusLineSimConfig) -> Event:
    return {"t": round(t, 6), "serial": cfg.port, "text": text}
