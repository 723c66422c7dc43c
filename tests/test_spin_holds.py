"""Held where the evidence is uncertain, decided where it is certain (issue 16, items 4, 6,
7, 8; CONTRACT §1, §5; seed 001 Art. 12).

Each trace is built from the contract's geometry (tests/conftest.py, sim/wheel_geometry):
the truth (the pocket the ball rests in, the revolutions it made) is the scenario's, never
the controller's. Every test runs twice, idle and with a busy second process (``load``).
"""

from __future__ import annotations

from typing import Any

import pytest
from conftest import (
    ORDERS,
    REAL_LAPS,
    REAL_PERIOD,
    Replay,
    ReplayFn,
    Rotor,
    TraceBuilder,
    drop_time,
    one_spin,
)

from sim.wheel_geometry import Motion, edges

SINGLE = ORDERS["single_zero"]


def conclusions(res: Replay) -> list[dict[str, Any]]:
    return res.of("spin_result", "spin_invalid", "spin_held")


def faults_named(res: Replay, name: str) -> list[str]:
    return [a["message"] for a in res.alarms("sensor_fault") if a["message"].startswith(name)]


# -- item 4: a second ball after one pocket reading -----------------------------------------
def second_ball_trace(first_reads: int, soon: bool = False
                      ) -> tuple[TraceBuilder, Any, float]:
    """Spin 1's ball rests in 36 and is read ``first_reads`` times, then lifted; a second
    ball is launched 0.6 rotor turns after the first reading (or, with none, once no pass
    of the first ball can come: ``f + f²`` of its last laps after its last pass; ``soon``:
    2 s after the drop, while a pass both sensors missed still could) and rests in 19,
    read twice."""
    tb, spin = one_spin(pocket=SINGLE.index("36"), reads=first_reads, tail_revs=12.0,
                        bets=({"t": 0.5, "bet": "straight", "box": 1, "amount": 10,
                               "numbers": ["36"]},))
    f, last = 2.0, spin.ball_a[-1] - spin.ball_a[-2]
    start = spin.reads[0] if spin.reads else spin.ball_a[-1] + (f + f * f) * last
    second = spin.drop + 2.0 if soon else start + 0.6 * REAL_PERIOD
    ball2 = tb.ball(second, REAL_LAPS, "ccw")
    tb.pocket(spin.rotor.pocket_times(SINGLE.index("19"), tb.n, drop_time(ball2) + 1.0, 2),
              REAL_PERIOD)
    return tb, spin, second


def test_a_second_ball_after_one_reading_holds_with_the_first_candidate(
        replay: ReplayFn, load: str) -> None:
    tb, spin, _second = second_ball_trace(1)
    res = replay(tb)
    (held,) = conclusions(res)
    assert (held["type"], held["reason"], held["candidate"]) == ("spin_held", "sensor_fault",
                                                                 "36")
    assert "second_ball" in held["details"]
    (alarm,) = res.alarms("second_ball")
    assert "second ball" in alarm["message"] and "spin 1" in alarm["message"]
    assert f"read once at {spin.reads[0]:.3f} s" in alarm["message"]
    # The second ball's readings are not evidence of the first: no result, no void.
    assert [r["t"] for r in held["pocket_readings"]] == [round(spin.reads[0], 6)]
    assert not res.of("settlement")


@pytest.mark.parametrize("soon", [False, True])
def test_a_second_ball_before_any_reading_is_held_never_its_pocket(
        replay: ReplayFn, load: str, soon: bool) -> None:
    # Soon after the drop its first pass may be one both sensors missed; its next lap,
    # far shorter than the first ball's last (a ball never speeds up), shows another ball.
    tb, spin, _second = second_ball_trace(0, soon)
    res = replay(tb)
    (held,) = conclusions(res)
    assert held["type"] == "spin_held" and held["candidate"] is None
    assert "second_ball" in held["details"] and res.alarms("second_ball")
    assert held["ball_revolutions"] == len(spin.ball_a)  # the first ball's, alone


def test_the_inspector_confirms_the_spin_held_for_a_second_ball(
        replay: ReplayFn, load: str) -> None:
    tb, spin, _second = second_ball_trace(1)
    tb.inp(spin.reads[0] + 80.0, "confirm_result", number="36", by="inspector")
    res = replay(tb)
    (out,) = res.of("spin_result")
    assert (out["number"], out["decided_by"]) == ("36", "inspector")
    (pay,) = res.of("settlement")
    assert (pay["outcome"], pay["payout"]) == ("win", 350)


# -- item 6: no hold where the evidence was certain -----------------------------------------
@pytest.mark.parametrize("again", ["ccw", "cw"])
def test_a_rotor_resting_in_front_of_rotor_b_then_turned_again_is_no_fault(
        replay: ReplayFn, load: str, again: str) -> None:
    # The rotor turns counterclockwise, coasts to rest with its zero marker in front of
    # rotor_b (10°, 350° after rotor_a turning ccw: rotor_b up for 5 s), is turned again
    # (on, or the other way) and the ball is launched half a second later.
    tb = TraceBuilder()
    tb.inp(0.1, "open_bets")
    period = 3.0
    omega = -360.0 / period
    marker = Motion(1.0 - period / 2, 180.0, omega)  # at rotor_a (0°) at 1.0 s
    marker.run(period / 2 + 4 * period)
    marker.coast(marker.t + 700.0 / abs(omega) + 1e-6, omega * omega / 700.0)
    assert abs(marker.theta % 360.0 - 10.0) < 1e-6 and marker.omega == 0.0
    marker.run(5.0)  # at rest, rotor_b up
    turned = marker.t
    marker.ramp((1.0 if again == "cw" else -1.0) * 360.0 / REAL_PERIOD, 90.0)
    marker.run(70.0)
    end = marker.t
    tb.add(*edges("rotor_a", marker.active(0.0, 2.0), end),
           *edges("rotor_b", marker.active(10.0, 2.0), end))
    up = [e["t"] for e in tb._events if e.get("gpio") == "rotor_b"]
    assert any(b - a > 4.5 for a, b in zip(up[::2], up[1::2], strict=False))
    ball_dir = "ccw" if again == "cw" else "cw"
    ball = tb.ball(turned + 0.5, REAL_LAPS, ball_dir)
    tb.inp(turned + 3.5, "no_more_bets")
    drop = drop_time(ball)
    pocket = 14
    reads = [e for e in edges("ball_pocket", marker.active(-pocket * 360.0 / tb.n, 2.0,
                                                          drop + 1.0), end)
             if e["t"] > drop + 1.0][:4]
    tb.add(*reads)
    res = replay(tb)
    (out,) = conclusions(res)
    assert out["type"] == "spin_result", out
    assert (out["number"], out["rotor_direction"], out["ball_direction"]) == (
        SINGLE[pocket], again, ball_dir)


def test_rotor_b_dead_for_the_whole_spin_is_art12f_not_a_hold(
        replay: ReplayFn, load: str) -> None:
    # CONTRACT §1 (f): the rotor sensors disagree. rotor_a fires every revolution.
    tb, _spin = one_spin(pocket=14, bets=({"t": 0.5, "bet": "red", "box": 1, "amount": 10},))
    tb.remove("rotor_b")
    res = replay(tb)
    (out,) = conclusions(res)
    assert (out["type"], out["reason"]) == ("spin_invalid", "wheel_malfunction"), out
    assert "rotor_b never fired" in out["details"]["wheel_malfunction"]
    assert [(s["outcome"], s["payout"]) for s in res.of("settlement")] == [("push", 0)]
    # The alarms name the sensor that is silent, never rotor_a.
    assert faults_named(res, "rotor_b") and not faults_named(res, "rotor_a")


def test_every_edge_reported_twice_at_the_same_time_and_level_is_no_correction(
        replay: ReplayFn, load: str) -> None:
    # lgpio can report a level again: every gpio line comes twice, same time, same level.
    tb, spin = one_spin(pocket=21)
    tb.add(*[dict(e) for e in tb._events if "gpio" in e])
    res = replay(tb)
    (out,) = conclusions(res)
    assert out["type"] == "spin_result", out
    assert (out["number"], out["ball_revolutions"]) == (spin.number, len(REAL_LAPS))
    assert not res.alarms("sensor_fault")


@pytest.mark.parametrize("ball_dir", ["cw", "ccw"])
def test_ball_a_missing_four_passes_ball_b_saw_counts_from_ball_b(
        replay: ReplayFn, load: str, ball_dir: str) -> None:
    tb, spin = one_spin(rotor_dir="ccw" if ball_dir == "cw" else "cw", pocket=27)
    missed = [spin.ball_a[k] for k in (1, 3, 5, 7)]
    tb._events = [e for e in tb._events if not (
        e.get("gpio") == "ball_a" and any(abs(e["t"] - t) < 0.01 for t in missed))]
    res = replay(tb)
    (out,) = conclusions(res)
    assert out["type"] == "spin_result", out
    assert (out["number"], out["ball_revolutions"], out["ball_direction"]) == (
        spin.number, len(REAL_LAPS), ball_dir)
    assert faults_named(res, "ball_a")  # journaled, for maintenance


def test_passes_no_sensor_saw_still_spend_the_budget(replay: ReplayFn, load: str) -> None:
    # Both ball sensors miss three passes: counted from the lap times, over a budget of 2.
    tb, spin = one_spin(pocket=27, sensor_error_budget=2)
    missed = [spin.ball_a[k] for k in (2, 5, 8)]
    tb._events = [e for e in tb._events if not (
        e.get("gpio") in ("ball_a", "ball_b") and any(abs(e["t"] - t) < 0.1 for t in missed))]
    res = replay(tb)
    (out,) = conclusions(res)
    assert out["type"] == "spin_held" and "ball_a" in out["details"], out


# -- item 7: a dead ball_pocket ----------------------------------------------------------------
def test_a_dead_ball_pocket_is_named_and_the_spin_held(replay: ReplayFn, load: str) -> None:
    # ball_pocket dead from the start; two spins whose balls rest in a pocket unread. The
    # rotor slows 1.6 x a turn after the second ball left the track (as a rotor does
    # while the dealer waits): not evidence of the wheel while nothing can read the ball.
    tb = TraceBuilder()
    tb.inp(0.1, "open_bets")
    launch1 = 1.0 + 1.3 * REAL_PERIOD
    drop1 = drop_time(tb.ball(launch1, REAL_LAPS, "ccw"))
    reopen = drop1 + 8 * REAL_PERIOD  # after Art. 12 (c)'s six revolutions
    tb.inp(reopen, "open_bets")
    tb.bet(reopen + 0.5, "straight", 1, 10, numbers=["8"])
    launch2 = reopen + 3.0
    drop2 = drop_time(tb.ball(launch2, REAL_LAPS, "ccw"))
    steady = int((drop2 + REAL_PERIOD - 1.0) / REAL_PERIOD) + 1
    periods = [REAL_PERIOD] * steady + [REAL_PERIOD * 1.6 ** k for k in range(1, 5)]
    tb.add(*Rotor(1.0, periods, ["cw"] * len(periods)).events())
    tb.inp(drop2 + 200.0, "confirm_result", number="8", by="inspector")
    res = replay(tb)
    first, second, decided = conclusions(res)
    # Spin 1: nothing yet says the sensor failed; the contract's Art. 12 (c).
    assert (first["type"], first["reason"]) == ("spin_invalid", "ball_suspended")
    assert (second["type"], second["spin"]) == ("spin_held", 2)
    assert list(second["details"]) == ["ball_pocket"]
    assert "ball_pocket has not fired since the launch of spin 1" in (
        second["details"]["ball_pocket"])
    assert (decided["type"], decided["number"]) == ("spin_result", "8")
    assert [(s["game"], s["outcome"]) for s in res.of("settlement")] == [(2, "win")]


def test_the_first_spin_after_ball_pocket_dies_is_held_never_voided(
        replay: ReplayFn, load: str) -> None:
    # Spin 1's ball rests in 5 and ball_pocket reads it twice; then the sensor dies. Spin
    # 2's ball rests in 8 (the truth) unread, and the rotor slows 1.6 x a turn after that
    # ball left the track (the dealer waits): a wheel stopped after the game was decided,
    # no Art. 12 (g). Nothing earlier says the sensor failed; the spin is held anyway.
    tb = TraceBuilder()
    tb.inp(0.1, "open_bets")
    launch1 = 1.0 + 1.3 * REAL_PERIOD
    drop1 = drop_time(tb.ball(launch1, REAL_LAPS, "ccw"))
    reopen = drop1 + 3 * REAL_PERIOD
    tb.inp(reopen, "open_bets")
    tb.bet(reopen + 0.5, "straight", 1, 10, numbers=["8"])
    launch2 = reopen + 3.0
    drop2 = drop_time(tb.ball(launch2, REAL_LAPS, "ccw"))
    steady = int((drop2 + REAL_PERIOD - 1.0) / REAL_PERIOD) + 1
    periods = [REAL_PERIOD] * steady + [REAL_PERIOD * 1.6 ** k for k in range(1, 5)]
    rotor = Rotor(1.0, periods, ["cw"] * len(periods))
    tb.add(*rotor.events())
    tb.pocket(rotor.pocket_times(SINGLE.index("5"), tb.n, drop1 + 1.0, 2), REAL_PERIOD)
    tb.inp(drop2 + 200.0, "confirm_result", number="8", by="inspector")
    res = replay(tb)
    first, second, decided = conclusions(res)
    assert (first["type"], first["number"]) == ("spin_result", "5")
    assert (second["type"], second["spin"]) == ("spin_held", 2)
    assert list(second["details"]) == ["ball_pocket"]
    assert "before ball_pocket read it in a pocket" in second["details"]["ball_pocket"]
    assert not [r for r in res.of("spin_invalid")]
    assert (decided["type"], decided["number"]) == ("spin_result", "8")
    assert [(s["game"], s["outcome"], s["payout"]) for s in res.of("settlement")] == [
        (2, "win", 350)]


# -- item 8: the inspector voids a held spin for any Art. 12 reason ---------------------------
def straddling() -> tuple[TraceBuilder, Any]:
    """Four ball revolutions, the third missed by both ball sensors: 4 or 5 revolutions,
    and the table asks for 5: held (Art. 12 a uncertain). The truth is 4: too few."""
    tb, spin = one_spin(laps=(0.6, 0.6, 0.7, 1.2), pocket=9, min_ball_revolutions=5,
                        bets=({"t": 0.5, "bet": "red", "box": 1, "amount": 10},))
    third = spin.ball_a[2]
    tb._events = [e for e in tb._events if not (
        e.get("gpio") in ("ball_a", "ball_b") and abs(e["t"] - third) < 0.1)]
    return tb, spin


@pytest.mark.parametrize("reason", ["too_few_revolutions", "same_direction",
                                    "ball_suspended"])
def test_art_12_abc_an_inspector_voids_a_held_spin_for_the_true_reason(
        replay: ReplayFn, reason: str) -> None:
    tb, spin = straddling()
    tb.inp(spin.drop + 60.0, "void", reason=reason, by="inspector")
    res = replay(tb)
    held, out = conclusions(res)
    assert held["type"] == "spin_held" and "ball_a" in held["details"]
    assert (out["type"], out["reason"], out["decided_by"]) == ("spin_invalid", reason,
                                                               "inspector")
    assert [(s["outcome"], s["payout"]) for s in res.of("settlement")] == [("push", 0)]


def test_art_12_abc_are_the_sensors_while_the_spin_is_in_play(replay: ReplayFn) -> None:
    tb, spin = one_spin(pocket=9)
    tb.inp(spin.ball_a[2] + 0.1, "void", reason="too_few_revolutions")
    res = replay(tb)
    (refused,) = [a["message"] for a in res.alarms("input_refused") if "void" in a["message"]]
    assert "(Art. 12 d-g); a held spin takes any of a-g" in refused
    assert res.outcome()["type"] == "spin_result"
