"""Seed 001 Art. 12 (invalid throws, "tiro no válido") through the whole controller.

Each case is a trace built from the CONTRACT §1 geometry (tests/conftest.py), replayed in
virtual time; the test reads the journaled records as a dealer or inspector would. Test
names carry the article letter. Thresholds are the contract's defaults: 3 ball
revolutions, 6 rotor revolutions, 5 rpm, 1.5 × the previous period, twice the last period.
"""

from __future__ import annotations

from typing import Any

import pytest
from conftest import (
    ORDERS,
    REAL_PERIOD,
    REASON_ORDER,
    SUSPENDED_WAIT_REVS,
    Event,
    Replay,
    ReplayFn,
    Rotor,
    one_spin,
)

# Bets placed before every spin here: an invalid spin returns each of them (RULES.md §1,
# Art. 13 decision: push, payout 0), exactly once.
BETS: tuple[Event, ...] = (
    {"t": 0.5, "bet": "straight", "box": 1, "amount": 10, "numbers": ["17"]},
    {"t": 0.6, "bet": "red", "box": 2, "amount": 20},
    {"t": 0.7, "bet": "dozen", "box": 3, "amount": 5, "which": 2},
)
# Journal times are rounded to the microsecond.
US = 1e-6


def invalid(res: Replay, *reasons: str) -> dict[str, Any]:
    """The one conclusion is spin_invalid with exactly ``reasons`` (CONTRACT §1 order)."""
    assert res.rc == 0
    out = res.outcome()
    assert out["type"] == "spin_invalid", out
    expected = [r for r in REASON_ORDER if r in reasons]
    assert out["reasons"] == expected
    assert out["reason"] == expected[0]
    return out


def result(res: Replay, number: str) -> dict[str, Any]:
    assert res.rc == 0
    out = res.outcome()
    assert out["type"] == "spin_result", out
    assert out["number"] == number
    return out


def assert_bets_returned(res: Replay, spin: int = 1) -> None:
    """Every bet of the spin is settled once, as a push with payout 0."""
    bets = [b for b in res.of("bet") if b["game"] == spin]
    settled = [s for s in res.of("settlement") if s["game"] == spin]
    assert len(bets) == len(BETS)
    assert sorted((s["box"], s["kind"], s["amount"]) for s in settled) == sorted(
        (b["box"], b["kind"], b["amount"]) for b in bets)
    for s in settled:
        assert (s["outcome"], s["payout"]) == ("push", 0), s


def pocket_near(rotor: Rotor, n: int, t: float, after: bool, offset: float = 0.25
                ) -> tuple[int, float]:
    """The pocket whose pass under ``ball_pocket`` comes last before ``t`` (or first after
    it) on a constant-speed rotor, and the time of that pass (within 1/n revolution of t)."""
    p = rotor.periods[0]
    steps = (t - rotor.a[0]) / p * n  # pockets passed since the first rotor_a
    m = int((steps - offset) // 1) + (1 if after else 0)
    s = m % n
    index = (n - s) % n if rotor.dirs[0] == "cw" else s
    return index, rotor.a[0] + (m + offset) / n * p


# -- (a) minimum of 3 revolutions -----------------------------------------------------
def test_art12a_two_revolutions_are_too_few(replay: ReplayFn) -> None:
    tb, spin = one_spin(laps=(0.9, 1.3), bets=BETS)
    res = replay(tb)
    out = invalid(res, "too_few_revolutions")
    # The count is only known once the ball left the track.
    assert out["t"] >= spin.drop - US
    assert_bets_returned(res)


def test_art12a_three_revolutions_are_enough(replay: ReplayFn) -> None:
    tb, spin = one_spin(laps=(0.8, 1.0, 1.3), pocket=9)
    out = result(replay(tb), spin.number or "")
    assert out["ball_revolutions"] == 3


def test_art12a_minimum_is_configuration(replay: ReplayFn) -> None:
    # South Dakota / Indiana require 4 (RULES.md §1): 3 revolutions are then too few.
    tb, _ = one_spin(laps=(0.8, 1.0, 1.3), min_ball_revolutions=4)
    invalid(replay(tb), "too_few_revolutions")


# -- (b) same direction as the rotor --------------------------------------------------
@pytest.mark.parametrize("direction", ["cw", "ccw"])
def test_art12b_ball_turning_with_the_rotor(replay: ReplayFn, direction: str) -> None:
    tb, spin = one_spin(rotor_dir=direction, ball_dir=direction, bets=BETS)
    res = replay(tb)
    out = invalid(res, "same_direction")
    assert out["t"] >= spin.drop - US
    assert_bets_returned(res)


# -- (c) suspended ball: at least 6 rotor revolutions ----------------------------------
@pytest.mark.parametrize("rotor_dir", ["cw", "ccw"])
def test_art12c_read_just_before_six_revolutions_is_a_result(replay: ReplayFn,
                                                             rotor_dir: str) -> None:
    t6 = one_spin(rotor_dir=rotor_dir, pocket=None)[1].six_revs
    tb, spin = one_spin(rotor_dir=rotor_dir, pocket=None, first_read=t6)
    index, first = pocket_near(spin.rotor, tb.n, t6, after=False)
    assert t6 - REAL_PERIOD / tb.n < first < t6
    tb.pocket([first, first + REAL_PERIOD], REAL_PERIOD)  # confirmed one revolution later
    result(replay(tb), ORDERS["single_zero"][index])


@pytest.mark.parametrize("rotor_dir", ["cw", "ccw"])
def test_art12c_read_just_after_six_revolutions_is_suspended(replay: ReplayFn,
                                                             rotor_dir: str) -> None:
    t6 = one_spin(rotor_dir=rotor_dir, pocket=None)[1].six_revs
    tb, spin = one_spin(rotor_dir=rotor_dir, pocket=None, bets=BETS, first_read=t6)
    _, first = pocket_near(spin.rotor, tb.n, t6, after=True)
    assert t6 < first < t6 + REAL_PERIOD / tb.n
    tb.pocket([first, first + REAL_PERIOD], REAL_PERIOD)
    res = replay(tb)
    out = invalid(res, "ball_suspended")
    # Never announced before the 6 revolutions (journal times are rounded to 1 µs).
    assert out["t"] >= t6 - US
    assert_bets_returned(res)


def test_art12c_never_read_is_suspended_at_six_revolutions(replay: ReplayFn) -> None:
    t6 = one_spin(pocket=None)[1].six_revs
    tb, spin = one_spin(pocket=None, bets=BETS, first_read=t6)
    res = replay(tb)
    out = invalid(res, "ball_suspended")
    assert out["t"] >= spin.six_revs - US


def test_art12c_wait_counts_rotor_revolutions_not_seconds(replay: ReplayFn) -> None:
    # A fast rotor (3 s/rev): 6 revolutions are 18 s; a first reading 16 s after the drop
    # (well within 6 revolutions of this rotor) is a result.
    drop = one_spin(periods=(3.0,), pocket=None)[1].drop
    tb, spin = one_spin(periods=(3.0,), pocket=None, first_read=drop + 16.0)
    index, first = pocket_near(spin.rotor, tb.n, spin.drop + 16.0, after=True)
    tb.pocket([first, first + 3.0], 3.0)
    result(replay(tb), ORDERS["single_zero"][index])


def test_art12c_slowing_rotor_never_declared_before_six_revolutions(replay: ReplayFn) -> None:
    # 20 rpm until the drop, then each revolution 1.2 × the previous (never 1.5 ×, and
    # above 5 rpm for the 6 revolutions): no (f) or (g), only the suspended ball.
    tb, spin = one_spin(periods=(3.0,), pocket=None, first_read=60.0)
    k0 = max(k for k, t in enumerate(spin.rotor.a) if t <= spin.drop)
    periods = [3.0] * (k0 + 1) + [3.0 * 1.2 ** i for i in range(1, 10)]
    assert 60 / periods[k0 + 7] > 5
    rotor = Rotor(1.0, periods, ["cw"] * len(periods))
    tb.remove("rotor_a", "rotor_b").add(*rotor.events())
    f = (spin.drop - rotor.a[k0]) / periods[k0]
    # When the marker has turned 6 × 360° since the drop.
    six = rotor.progress_time(k0 + f + SUSPENDED_WAIT_REVS)
    out = invalid(replay(tb), "ball_suspended")
    assert out["t"] >= six - US


def test_art12c_ball_read_before_the_drop_timeout(replay: ReplayFn) -> None:
    # The ball falls and is read in its pocket before 1.5 × the last lap has passed with no
    # ball_a: the reading itself shows the ball left the track.
    tb, spin = one_spin(pocket=17, settle_after_drop=-1.5)
    assert spin.reads[0] < spin.drop
    out = result(replay(tb), spin.number or "")
    assert out["ball_revolutions"] == len(spin.ball_a)


def test_art12c_ball_hopping_to_the_next_pocket_gives_where_it_rests(replay: ReplayFn) -> None:
    # Read once in pocket 10, then twice in pocket 11: only the two equal consecutive
    # readings confirm a result (CONTRACT §1).
    tb, spin = one_spin(pocket=None, first_read=0.0)
    hop = spin.rotor.pocket_times(10, tb.n, spin.drop + 1.0, 1)
    rest = spin.rotor.pocket_times(11, tb.n, hop[0] + 1.0, 2)
    assert rest[0] - hop[0] < REAL_PERIOD
    tb.pocket(hop + rest, REAL_PERIOD)
    result(replay(tb), ORDERS["single_zero"][11])


# -- (d), (e) declared by the dealer ---------------------------------------------------
@pytest.mark.parametrize("reason", ["ball_out_of_wheel", "foreign_object", "wheel_malfunction",
                                    "wheel_stopped"])
def test_art12de_void_by_the_dealer(replay: ReplayFn, reason: str) -> None:
    # The ball out of the wheel is never read in a pocket; after a foreign object it may be.
    pocket = None if reason == "ball_out_of_wheel" else 4
    tb, spin = one_spin(pocket=pocket, bets=BETS)
    t_void = spin.launch + 4.0
    tb.inp(t_void, "void", reason=reason)
    res = replay(tb)
    out = invalid(res, reason)
    assert out["t"] == pytest.approx(t_void, abs=US)
    assert_bets_returned(res)
    # The rest of the voided ball's run is not taken for a new spin.
    assert len(res.of("spin_start")) == 1


def sensor_faults(res: Replay, name: str) -> list[dict[str, Any]]:
    """The ``sensor_fault`` alarms that name input ``name`` (CONTRACT §5)."""
    return [a for a in res.alarms("sensor_fault") if a["message"].startswith(name)]


# -- (f) wheel malfunction -------------------------------------------------------------
@pytest.mark.parametrize("rotor_dir", ["cw", "ccw"])
def test_art12f_rotor_b_missing_for_a_revolution_is_a_sensor_fault(replay: ReplayFn,
                                                                   rotor_dir: str) -> None:
    # CONTRACT §5: rotor_a measured the revolution whole at the usual period, so the rotor
    # turned on the same way; rotor_b missed one pass. Corrected: the spin stands.
    tb, spin = one_spin(rotor_dir=rotor_dir, bets=BETS)
    rotor = spin.rotor
    # Revolution 2 runs while the ball is on the track; its rotor_b pulse is missing.
    assert spin.launch < rotor.a[2] < rotor.a[3] < spin.ball_a[-1]
    tb.remove("rotor_a", "rotor_b").add(*rotor.events(drop_b=[2]))
    res = replay(tb)
    out = result(res, spin.number or "")
    assert out["rotor_direction"] == rotor_dir
    assert sensor_faults(res, "rotor_b")


def flip_one_revolution(rotor: Rotor, k: int) -> Rotor:
    """The same rotor, its revolution k read the other way round (rotor_b on the wrong side
    of rotor_a): the direction flips and flips back."""
    dirs = list(rotor.dirs)
    dirs[k] = "ccw" if dirs[k] == "cw" else "cw"
    return Rotor(rotor.t0, rotor.periods, dirs)


@pytest.mark.parametrize("rotor_dir", ["cw", "ccw"])
def test_art12f_one_revolution_read_reversed_at_steady_speed_is_a_sensor_fault(
        replay: ReplayFn, rotor_dir: str) -> None:
    # 20 rpm: five revolutions while the ball is in play, one of them read reversed. A rotor
    # cannot reverse without slowing down, which rotor_a would show: rotor_b lied (§5).
    tb, spin = one_spin(rotor_dir=rotor_dir, periods=(3.0,), bets=BETS)
    assert spin.launch < spin.rotor.a[2] < spin.rotor.a[3] < spin.ball_a[-1]
    tb.remove("rotor_a", "rotor_b").add(*flip_one_revolution(spin.rotor, 2).events())
    res = replay(tb)
    out = result(res, spin.number or "")
    assert out["rotor_direction"] == rotor_dir
    assert sensor_faults(res, "rotor_b")


@pytest.mark.parametrize("rotor_dir", ["cw", "ccw"])
def test_art12f_one_reversed_revolution_is_not_same_direction(replay: ReplayFn,
                                                              rotor_dir: str) -> None:
    # 11 rpm: the rotor turned rotor_dir for the two revolutions before the launch and the
    # one the ball was launched in; only the faulty revolution reads the ball's direction.
    tb, spin = one_spin(rotor_dir=rotor_dir)
    assert spin.launch < spin.rotor.a[2] < spin.rotor.a[3] < spin.ball_a[-1]
    tb.remove("rotor_a", "rotor_b").add(*flip_one_revolution(spin.rotor, 2).events())
    res = replay(tb)
    assert "same_direction" not in res.outcome().get("reasons", [])
    result(res, spin.number or "")


def test_art12f_rotor_below_5_rpm_while_the_ball_turns(replay: ReplayFn) -> None:
    period = 60 / 4.5  # 4.5 rpm
    tb, spin = one_spin(periods=(period,), launch_phase=0.5, bets=BETS)
    # A slow revolution completes while the ball is still on the track.
    assert any(spin.launch < t < spin.ball_a[-1] for t in spin.rotor.a)
    res = replay(tb)
    invalid(res, "wheel_malfunction")
    assert_bets_returned(res)


@pytest.mark.parametrize("rpm", [5.5, 11.0, 60 / REAL_PERIOD, 30.0])
def test_art12f_rotor_at_real_speeds_is_not_a_malfunction(replay: ReplayFn, rpm: float) -> None:
    # 11 rpm is the real median (real-lap-times.md); the contract's floor is 5 rpm.
    tb, spin = one_spin(periods=(60 / rpm,), launch_phase=0.5, pocket=12)
    out = result(replay(tb), spin.number or "")
    assert out["rotor_rpm"] == pytest.approx(rpm, rel=1e-3)


def test_art12f_real_rotor_series_is_not_a_malfunction(replay: ReplayFn) -> None:
    # real-rotor-revs.csv series 0: 5.269 5.288 5.171 s, repeated.
    tb, spin = one_spin(periods=(5.269, 5.288, 5.171), pocket=30)
    result(replay(tb), spin.number or "")


# -- (g) wheel stopped -----------------------------------------------------------------
def test_art12g_period_more_than_1_5_times_the_previous(replay: ReplayFn) -> None:
    slow = 1.6 * REAL_PERIOD  # 7.1 rpm: slower but above 5 rpm, so no malfunction
    tb, spin = one_spin(periods=(REAL_PERIOD, REAL_PERIOD, slow, slow, slow, slow),
                        launch_phase=0.9, bets=BETS)
    # The long revolution ends while the ball is on the track.
    assert spin.launch < spin.rotor.a[3] < spin.ball_a[-1]
    res = replay(tb)
    invalid(res, "wheel_stopped")
    assert_bets_returned(res)


def test_art12g_period_1_4_times_the_previous_is_not_stopped(replay: ReplayFn) -> None:
    slower = 1.4 * REAL_PERIOD
    tb, spin = one_spin(periods=(REAL_PERIOD, REAL_PERIOD, slower, slower, slower, slower),
                        launch_phase=0.9, pocket=21)
    assert spin.launch < spin.rotor.a[3] < spin.ball_a[-1]
    result(replay(tb), spin.number or "")


def test_art12g_no_rotor_a_within_twice_the_last_period(replay: ReplayFn) -> None:
    tb, spin = one_spin(pocket=None, bets=BETS)
    # Someone stops the rotor: its last pass is the one after the launch.
    stopped = Rotor(1.0, [REAL_PERIOD, REAL_PERIOD], ["cw", "cw"])
    assert spin.launch < stopped.a[-1] < spin.ball_a[-1]
    tb.remove("rotor_a", "rotor_b").add(*stopped.events())
    deadline = stopped.a[-1] + 2 * REAL_PERIOD
    tb.inp(deadline + 10.0, "close_table")  # time goes on at the table
    res = replay(tb)
    out = invalid(res, "wheel_stopped")
    assert out["t"] >= deadline - US
    assert_bets_returned(res)


# -- several reasons at once -----------------------------------------------------------
def test_art12ab_too_few_revolutions_and_same_direction(replay: ReplayFn) -> None:
    tb, _ = one_spin(laps=(0.9, 1.3), rotor_dir="ccw", ball_dir="ccw", bets=BETS)
    res = replay(tb)
    invalid(res, "too_few_revolutions", "same_direction")
    assert_bets_returned(res)


def test_art12bf_same_direction_and_slow_rotor(replay: ReplayFn) -> None:
    tb, _ = one_spin(periods=(60 / 4.5,), launch_phase=0.5, rotor_dir="cw", ball_dir="cw")
    invalid(replay(tb), "same_direction", "wheel_malfunction")


def test_art12fg_rotor_a_missed_once_is_a_sensor_fault(replay: ReplayFn) -> None:
    # rotor_b fires twice, one period apart, while the rotor_a "period" doubles: the rotor
    # turned on at its speed and rotor_a missed a pass (CONTRACT §5), not (f) nor (g).
    tb, spin = one_spin(bets=BETS)
    assert spin.launch < spin.rotor.a[2] < spin.ball_a[-1]
    tb.remove("rotor_a", "rotor_b").add(*spin.rotor.events(drop_a=[2]))
    res = replay(tb)
    result(res, spin.number or "")
    assert sensor_faults(res, "rotor_a")


def test_art12be_void_of_a_ball_already_turning_with_the_rotor(replay: ReplayFn) -> None:
    # After 4 laps both directions are measured and equal: (b) applies as well as (e).
    tb, spin = one_spin(rotor_dir="cw", ball_dir="cw")
    tb.inp(spin.ball_a[4] + 0.1, "void", reason="foreign_object")
    invalid(replay(tb), "same_direction", "foreign_object")


def test_art12_valid_spin_pays_and_records_the_evidence(replay: ReplayFn) -> None:
    # The everyday spin (real laps, 11 rpm) for contrast: a result, bets settled by Art. 13.
    tb, spin = one_spin(pocket=23, bets=BETS)  # single zero index 23 is 1 (red, 1st dozen)
    res = replay(tb)
    out = result(res, "1")
    assert out["ball_revolutions"] == len(spin.ball_a)
    assert (out["ball_direction"], out["rotor_direction"]) == ("ccw", "cw")
    assert out["rotor_rpm"] == pytest.approx(60 / REAL_PERIOD, rel=1e-3)
    got = {(s["kind"], s["outcome"], s["payout"]) for s in res.of("settlement")}
    assert got == {("straight", "lose", -10), ("red", "win", 20), ("dozen", "lose", -5)}
