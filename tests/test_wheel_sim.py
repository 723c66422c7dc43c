"""drivers.wheel_sim against CONTRACT §1-2 and the real lap times (real-lap-times.md).

The decoding and direction rules here are written from CONTRACT §1, test-side, so the
simulator's geometry is checked against the contract, not against itself.
"""

from __future__ import annotations

import json
import statistics
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from itertools import accumulate
from pathlib import Path
from typing import Any

import pytest

from controller.roulette_layout import WHEEL_ORDERS, layout_for, make_bet
from drivers.wheel_sim import (
    SCENARIOS,
    SimulatedSpin,
    WheelSimConfig,
    ball_track_events,
    rotor_events,
    simulate,
    write_trace,
)

Event = dict[str, Any]
Sims = dict[str, tuple[list[Event], list[SimulatedSpin]]]  # per wheel: simulate(200, ...)

# Real series from /work/shared/data/real-ball-laps.csv (series 0 and 68, 10 and 25 laps)
# and real-rotor-revs.csv (series 0).
REAL_BALL_10 = [0.679, 0.672, 0.679, 0.737, 0.784, 0.887, 0.922, 0.991, 1.378, 1.799]
# fmt: off
REAL_BALL_25 = [
    0.440, 0.400, 0.400, 0.401, 0.450, 0.378, 0.420, 0.469, 0.474, 0.608, 0.478, 0.559, 0.612,
    0.630, 0.653, 0.662, 0.708, 0.788, 0.829, 0.850, 0.901, 1.089, 1.431, 1.840, 1.961,
]
# fmt: on
REAL_ROTOR = [5.269, 5.288, 5.171]


Rises = dict[str, list[float]]


def index(events: Sequence[Event]) -> Rises:
    """Activation (rising edge) times per input, sorted, for fast look-ups."""
    ups: Rises = {}
    for e in events:
        if "gpio" in e and e["level"] == 1:
            ups.setdefault(e["gpio"], []).append(e["t"])
    return ups


def rises(ups: Rises, gpio: str, lo: float = 0.0, hi: float = float("inf")) -> list[float]:
    ts = ups.get(gpio, [])
    return ts[bisect_left(ts, lo) : bisect_right(ts, hi)]


def decode_pocket(ups: Rises, t: float, rotor_direction: str, n: int) -> int:
    """CONTRACT §1 "Winning pocket" for a ball_pocket activation at t."""
    a = rises(ups, "rotor_a", hi=t)
    fn = (t - a[-1]) / (a[-1] - a[-2]) * n
    assert abs(fn - round(fn)) < 0.25, "well within half a pocket, not by luck"
    k = round(fn) % n
    return (n - k) % n if rotor_direction == "cw" else k


def direction(ups: Rises, first: str, second: str, lo: float, hi: float) -> str:
    """CONTRACT §1 "Direction": first then second within half a revolution means cw."""
    a = rises(ups, first, lo, hi)
    revolution = a[1] - a[0]
    b = rises(ups, second, a[0], a[0] + revolution / 2)
    return "cw" if b else "ccw"


@pytest.fixture(scope="module")
def many() -> Sims:
    return {w: simulate(200, 11, WheelSimConfig(wheel=w)) for w in WHEEL_ORDERS}


def test_deterministic_for_a_seed() -> None:
    assert simulate(4, 5, WheelSimConfig()) == simulate(4, 5, WheelSimConfig())
    assert simulate(4, 5, WheelSimConfig())[0] != simulate(4, 6, WheelSimConfig())[0]


def test_trace_shape(many: Sims) -> None:
    for wheel, (events, spins) in many.items():
        assert events[0] == {"t": 0, "meta": {"table": "roulette", "wheel": wheel}}
        assert events[1] == {"t": 0, "input": "open_bets"}
        times = [e["t"] for e in events]
        assert times == sorted(times)
        # Bets open once: the controller reopens them itself after each settlement.
        assert sum(e.get("input") == "open_bets" for e in events) == 1
        nmb = [e["t"] for e in events if e.get("input") == "no_more_bets"]
        assert len(nmb) == len(spins)
        for t, spin in zip(nmb, spins, strict=True):
            assert spin.launch_t < t <= spin.launch_t + 3.0 + 1e-6
            assert t < spin.leave_t


def test_pulses_alternate_per_input(many: Sims) -> None:
    for events, _ in many.values():
        for gpio in ("ball_a", "ball_b", "rotor_a", "rotor_b", "ball_pocket"):
            levels = [e["level"] for e in events if e.get("gpio") == gpio]
            assert levels, gpio
            assert levels == [1 - i % 2 for i in range(len(levels))], gpio


def test_bets_are_valid_on_the_wheel(many: Sims) -> None:
    for wheel, (events, _) in many.items():
        layout = layout_for(wheel)
        bets = [e for e in events if "bet" in e]
        assert bets
        for e in bets:
            make_bet(layout, e["bet"], e["box"], e["amount"], e.get("numbers"), e.get("which"))


@pytest.mark.parametrize("wheel", sorted(WHEEL_ORDERS))
def test_contract_decoding_recovers_the_true_pocket(wheel: str, many: Sims) -> None:
    events, spins = many[wheel]
    ups = index(events)
    n = len(WHEEL_ORDERS[wheel])
    assert {s.rotor_direction for s in spins} == {"cw", "ccw"}
    for spin in spins:
        assert spin.settle_t is not None and spin.pocket_index is not None
        seen = rises(ups, "ball_pocket", spin.settle_t, spin.remove_t)
        assert len(seen) >= 2, "two activations to confirm"
        for t in seen:
            assert decode_pocket(ups, t, spin.rotor_direction, n) == spin.pocket_index
        assert WHEEL_ORDERS[wheel][spin.pocket_index] == spin.number


def test_directions_decode_from_sensor_order(
    many: Sims,
) -> None:
    events, spins = many["single_zero"]
    ups = index(events)
    for spin in spins:
        assert spin.ball_direction != spin.rotor_direction
        assert (
            direction(ups, "ball_a", "ball_b", spin.launch_t, spin.leave_t) == spin.ball_direction
        )
        # The rotor's last two turns before the launch, after the dealer's re-spin.
        a = rises(ups, "rotor_a", hi=spin.launch_t)
        assert direction(ups, "rotor_a", "rotor_b", a[-2], spin.launch_t) == spin.rotor_direction


def test_ball_revolutions_are_ball_a_activations(
    many: Sims,
) -> None:
    for events, spins in many.values():
        ups = index(events)
        ends = [s.launch_t for s in spins[1:]] + [float("inf")]
        for spin, next_launch in zip(spins, ends, strict=True):
            assert len(rises(ups, "ball_a", spin.launch_t, spin.leave_t)) == spin.ball_revolutions
            assert not rises(ups, "ball_a", spin.leave_t, next_launch)
            assert spin.launch_t < spin.leave_t < spin.settle_t < spin.remove_t  # type: ignore[operator]


def test_calibrated_on_real_data(many: Sims) -> None:
    # real-lap-times.md: first lap median 0.54 s (interquartile 0.48-0.61 s), 6-25 laps,
    # median 10 (11 for series that run until the ball left), rotor median 5.3 s/rev.
    first_laps, laps, rpms, periods = [], [], [], []
    for events, spins in many.values():
        ups = index(events)
        for spin in spins:
            a = rises(ups, "ball_a", spin.launch_t, spin.leave_t)
            first_laps.append(a[1] - a[0])
            laps.append(spin.ball_revolutions)
            rpms.append(spin.rotor_rpm)
            r = rises(ups, "rotor_a", hi=spin.launch_t)
            periods.append(r[-1] - r[-2])
    assert 0.48 <= statistics.median(first_laps) <= 0.61
    assert min(laps) >= 6 and max(laps) <= 25
    assert 9 <= statistics.median(laps) <= 13
    assert min(rpms) >= 10.0 and max(rpms) <= 30.0 and max(rpms) > 20.0
    assert 10.0 <= statistics.median(rpms) <= 12.0
    assert 4.8 <= statistics.median(periods) <= 5.8


def test_real_lap_times_give_exactly_their_revolutions() -> None:
    for laps in (REAL_BALL_10, REAL_BALL_25):
        for way in ("cw", "ccw"):
            events = ball_track_events(laps, way, t0=2.0)
            ups = index(events)
            expected = [round(2.0 + t, 6) for t in accumulate(laps)]
            assert rises(ups, "ball_a") == pytest.approx(expected, abs=1e-6)
            assert direction(ups, "ball_a", "ball_b", 0.0, 1e9) == way


def test_real_rotor_revolutions_give_their_periods() -> None:
    for way in ("cw", "ccw"):
        events = rotor_events(REAL_ROTOR, way, t0=1.0)
        ups = index(events)
        a = rises(ups, "rotor_a")
        assert a == pytest.approx([1.0, *(1.0 + t for t in accumulate(REAL_ROTOR))], abs=1e-6)
        assert len(rises(ups, "rotor_b")) == len(a)
        assert direction(ups, "rotor_a", "rotor_b", 0.0, 1e9) == way


def scenario_run(name: str, seed: int) -> tuple[Rises, list[SimulatedSpin]]:
    """Spin 1 of three plays scenario ``name``; returns its activations and true outcomes."""
    events, spins = simulate(3, seed, WheelSimConfig(), ["valid", name, "valid"])
    assert spins[1].scenario == name
    return index(events), spins


@pytest.mark.parametrize("seed", range(5))
def test_scenario_too_few_revolutions(seed: int) -> None:
    ups, spins = scenario_run("too_few_revolutions", seed)
    s = spins[1]
    assert s.ball_revolutions in (1, 2)
    assert len(rises(ups, "ball_a", s.launch_t, s.leave_t)) == s.ball_revolutions


@pytest.mark.parametrize("seed", range(5))
def test_scenario_same_direction(seed: int) -> None:
    ups, spins = scenario_run("same_direction", seed)
    s = spins[1]
    assert s.ball_direction == s.rotor_direction
    assert direction(ups, "ball_a", "ball_b", s.launch_t, s.leave_t) == s.rotor_direction


@pytest.mark.parametrize("seed", range(5))
def test_scenario_ball_suspended(seed: int) -> None:
    ups, spins = scenario_run("ball_suspended", seed)
    s = spins[1]
    assert s.settle_t is None and s.pocket_index is None and s.number is None
    assert not rises(ups, "ball_pocket", s.leave_t, spins[2].launch_t)
    assert len(rises(ups, "rotor_a", s.leave_t, s.remove_t)) >= 8


@pytest.mark.parametrize("seed", range(5))
def test_scenario_wheel_malfunction_sensor(seed: int) -> None:
    ups, spins = scenario_run("wheel_malfunction_sensor", seed)
    s = spins[1]
    a = rises(ups, "rotor_a", s.leave_t, s.remove_t)
    assert a, "rotor_a keeps firing"
    assert not rises(ups, "rotor_b", s.leave_t, s.remove_t - 1e-6)
    assert rises(ups, "rotor_b", s.remove_t, spins[2].launch_t), "repaired for the next spin"


@pytest.mark.parametrize("seed", range(5))
def test_scenario_wheel_slow(seed: int) -> None:
    ups, spins = scenario_run("wheel_slow", seed)
    s = spins[1]
    assert s.rotor_rpm < 5.0
    a = rises(ups, "rotor_a", hi=s.remove_t)
    assert 60.0 / (a[-1] - a[-2]) < 5.0


@pytest.mark.parametrize("seed", range(5))
def test_scenario_wheel_stopped(seed: int) -> None:
    ups, spins = scenario_run("wheel_stopped", seed)
    s = spins[1]
    assert not rises(ups, "rotor_a", s.leave_t, s.remove_t)
    assert not rises(ups, "rotor_b", s.leave_t, s.remove_t)
    assert rises(ups, "rotor_a", s.remove_t, spins[2].launch_t), "re-spun for the next spin"


def test_every_scenario_in_one_trace() -> None:
    events, spins = simulate(len(SCENARIOS), 9, WheelSimConfig(wheel="double_zero"), SCENARIOS)
    assert [s.scenario for s in spins] == list(SCENARIOS)
    times = [e["t"] for e in events]
    assert times == sorted(times)


def test_rejects_unknown_scenario_and_wheel() -> None:
    with pytest.raises(ValueError, match="scenario"):
        simulate(1, 1, WheelSimConfig(), ["nope"])
    with pytest.raises(ValueError, match="entries"):
        simulate(2, 1, WheelSimConfig(), ["valid"])
    with pytest.raises(ValueError, match="wheel"):
        simulate(1, 1, WheelSimConfig(wheel="triple_zero"))


def test_write_trace_round_trips(tmp_path: Path) -> None:
    events, _ = simulate(2, 4, WheelSimConfig(wheel="double_zero"))
    path = tmp_path / "trace.jsonl"
    write_trace(path, events)
    lines = path.read_text(encoding="utf-8").splitlines()
    assert [json.loads(line) for line in lines] == events
    assert ": " not in lines[0]
