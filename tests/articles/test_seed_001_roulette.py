"""Seed 001 (roulette, Peru 1999) Art. 12, "tiro no válido", through the whole controller.

Each test builds a trace from the CONTRACT §1 geometry (tests/conftest.py) and replays it
with ``table-controller replay`` in virtual time, then reads the journaled records as a
dealer or inspector would. Expected numbers come from the wheel order of
../shared/data/wheels.md (tests/conftest.py) and the thresholds from the seed's text and
CONTRACT §1's defaults (3 ball revolutions, 6 rotor revolutions, 5 rpm, 1.5 × the previous
period, twice the last period), never from the controller. Names follow
tests/articles/README.md: ``test_art_12a_...`` tests Art. 12 (a).

Seed 001's other files: ``_art12_verdicts`` (Art. 12's verdict functions and simulated
throws), ``_art13`` (payouts), ``_art14_16`` (recall, limits).
"""

from __future__ import annotations

from typing import Any

import pytest
from conftest import (
    ORDERS,
    REAL_PERIOD,
    REASON_ORDER,
    SPIN_BETS,
    SUSPENDED_WAIT_REVS,
    Replay,
    ReplayFn,
    Rotor,
    one_spin,
    spin_result,
)

US = 1e-6  # journal times are rounded to the microsecond


def invalid(res: Replay, *reasons: str) -> dict[str, Any]:
    """The one conclusion is spin_invalid with exactly ``reasons`` (CONTRACT §1 order)."""
    assert res.rc == 0
    out = res.outcome()
    assert out["type"] == "spin_invalid", out
    expected = [r for r in REASON_ORDER if r in reasons]
    assert out["reasons"] == expected
    assert out["reason"] == expected[0]
    return out


def settled(res: Replay) -> list[tuple[int, str, int, str, float]]:
    return sorted((s["box"], s["kind"], s["amount"], s["outcome"], s["payout"])
                  for s in res.of("settlement"))


def assert_bets_returned(res: Replay) -> None:
    """Every bet of ``SPIN_BETS``, all of spin 1, is settled once, as a push with payout 0
    (RULES.md §1, Art. 13 decision); nothing else is settled."""
    bets = res.of("bet")
    assert len(bets) == len(SPIN_BETS) and all(b["game"] == 1 for b in bets)
    assert settled(res) == sorted((b["box"], b["kind"], b["amount"], "push", 0) for b in bets)


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


# -- a valid throw ---------------------------------------------------------------------
def test_art_12_valid_throw_gives_the_pocket_where_the_ball_rests(replay: ReplayFn) -> None:
    tb, spin = one_spin(wheel="double_zero", pocket=19)  # index 19 is 00 (wheels.md)
    res = replay(tb)
    assert res.rc == 0
    out = res.outcome()
    assert out["type"] == "spin_result"
    assert out["number"] == ORDERS["double_zero"][19] == "00"
    assert out["ball_revolutions"] == len(spin.ball_a)
    assert (out["ball_direction"], out["rotor_direction"]) == ("ccw", "cw")


def test_art_12_13abc_valid_spin_pays_and_records_the_evidence(replay: ReplayFn) -> None:
    # The everyday spin (real laps, 11 rpm) for contrast: a result, bets settled by Art. 13.
    tb, spin = one_spin(pocket=23, bets=SPIN_BETS)  # single zero index 23 is 1 (red, 1st dozen)
    res = replay(tb)
    out = spin_result(res, "1")
    assert out["ball_revolutions"] == len(spin.ball_a)
    assert (out["ball_direction"], out["rotor_direction"]) == ("ccw", "cw")
    assert out["rotor_rpm"] == pytest.approx(60 / REAL_PERIOD, rel=1e-3)
    got = {(s["kind"], s["outcome"], s["payout"]) for s in res.of("settlement")}
    assert got == {("straight", "lose", -10), ("red", "win", 20), ("dozen", "lose", -5)}


# -- (a) minimum of 3 revolutions -----------------------------------------------------
def test_art_12a_two_revolutions_are_fewer_than_the_minimum_of_3(replay: ReplayFn) -> None:
    tb, spin = one_spin(laps=(0.9, 1.3), bets=SPIN_BETS)
    res = replay(tb)
    out = invalid(res, "too_few_revolutions")
    assert out["t"] >= spin.drop - US  # the count is known once the ball left the track
    assert_bets_returned(res)


def test_art_12a_three_revolutions_are_enough(replay: ReplayFn) -> None:
    tb, spin = one_spin(laps=(0.8, 1.0, 1.3), pocket=9)
    out = spin_result(replay(tb), spin.number or "")
    assert out["ball_revolutions"] == 3


def test_art_12a_minimum_is_configuration(replay: ReplayFn) -> None:
    # South Dakota / Indiana require 4 (RULES.md §1): 3 revolutions are then too few.
    tb, _ = one_spin(laps=(0.8, 1.0, 1.3), min_ball_revolutions=4)
    invalid(replay(tb), "too_few_revolutions")


def test_art_12a_minimum_is_never_configured_below_three(replay: ReplayFn) -> None:
    # "el minimo de vueltas (3)": a trace asking for 2 is refused (RULES.md §1 decision).
    tb, _ = one_spin(laps=(0.9, 1.3), min_ball_revolutions=2)
    res = replay(tb)
    assert res.rc == 2
    assert "min_ball_revolutions" in res.stderr


# -- (b) same direction as the rotor --------------------------------------------------
@pytest.mark.parametrize("direction", ["cw", "ccw"])
def test_art_12b_ball_turning_with_the_rotor_is_invalid(replay: ReplayFn,
                                                        direction: str) -> None:
    tb, spin = one_spin(rotor_dir=direction, ball_dir=direction, bets=SPIN_BETS)
    res = replay(tb)
    out = invalid(res, "same_direction")
    assert out["t"] >= spin.drop - US
    assert_bets_returned(res)


# -- (c) suspended ball: at least 6 rotor revolutions ----------------------------------
def test_art_12c_ball_never_in_a_pocket_is_announced_after_6_rotor_revolutions(
        replay: ReplayFn) -> None:
    six_revs = one_spin(pocket=None)[1].six_revs
    # first_read: the rotor turns on past the 6 revolutions (no reading comes).
    tb, spin = one_spin(pocket=None, bets=SPIN_BETS, first_read=six_revs)
    res = replay(tb)
    out = invalid(res, "ball_suspended")
    # "Se debera esperar como minimo 6 revoluciones" (rotor ones: RULES.md decision).
    assert out["t"] >= spin.drop + SUSPENDED_WAIT_REVS * REAL_PERIOD - US
    assert_bets_returned(res)


@pytest.mark.parametrize("rotor_dir", ["cw", "ccw"])
def test_art_12c_read_just_before_six_revolutions_is_a_result(replay: ReplayFn,
                                                              rotor_dir: str) -> None:
    t6 = one_spin(rotor_dir=rotor_dir, pocket=None)[1].six_revs
    tb, spin = one_spin(rotor_dir=rotor_dir, pocket=None, first_read=t6)
    index, first = pocket_near(spin.rotor, tb.n, t6, after=False)
    assert t6 - REAL_PERIOD / tb.n < first < t6
    tb.pocket([first, first + REAL_PERIOD], REAL_PERIOD)  # confirmed one revolution later
    spin_result(replay(tb), ORDERS["single_zero"][index])


@pytest.mark.parametrize("rotor_dir", ["cw", "ccw"])
def test_art_12c_read_just_after_six_revolutions_is_suspended(replay: ReplayFn,
                                                              rotor_dir: str) -> None:
    t6 = one_spin(rotor_dir=rotor_dir, pocket=None)[1].six_revs
    tb, spin = one_spin(rotor_dir=rotor_dir, pocket=None, bets=SPIN_BETS, first_read=t6)
    _, first = pocket_near(spin.rotor, tb.n, t6, after=True)
    assert t6 < first < t6 + REAL_PERIOD / tb.n
    tb.pocket([first, first + REAL_PERIOD], REAL_PERIOD)
    res = replay(tb)
    out = invalid(res, "ball_suspended")
    # Never announced before the 6 revolutions (journal times are rounded to 1 µs).
    assert out["t"] >= t6 - US
    assert_bets_returned(res)


def test_art_12c_wait_counts_rotor_revolutions_not_seconds(replay: ReplayFn) -> None:
    # A fast rotor (3 s/rev): 6 revolutions are 18 s; a first reading 16 s after the drop
    # (well within 6 revolutions of this rotor) is a result.
    drop = one_spin(periods=(3.0,), pocket=None)[1].drop
    tb, spin = one_spin(periods=(3.0,), pocket=None, first_read=drop + 16.0)
    index, first = pocket_near(spin.rotor, tb.n, spin.drop + 16.0, after=True)
    tb.pocket([first, first + 3.0], 3.0)
    spin_result(replay(tb), ORDERS["single_zero"][index])


def test_art_12c_slowing_rotor_never_declared_before_six_revolutions(replay: ReplayFn) -> None:
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


# -- (d) to (g) declared by the dealer -------------------------------------------------
@pytest.mark.parametrize("reason", ["ball_out_of_wheel", "foreign_object", "wheel_malfunction",
                                    "wheel_stopped"])
def test_art_12defg_declared_by_the_dealer_voids_the_throw(replay: ReplayFn,
                                                           reason: str) -> None:
    # The ball out of the wheel is never read in a pocket; after a foreign object it may be.
    tb, spin = one_spin(pocket=None if reason == "ball_out_of_wheel" else 4, bets=SPIN_BETS)
    t_void = spin.launch + 4.0
    tb.inp(t_void, "void", reason=reason)
    res = replay(tb)
    out = invalid(res, reason)
    assert out["t"] == pytest.approx(t_void, abs=US)
    assert_bets_returned(res)
    # The rest of the voided ball's run is not taken for a new spin.
    assert len(res.of("spin_start")) == 1


# -- (f) wheel malfunction -------------------------------------------------------------
def test_art_12f_rotor_below_5_rpm_while_the_ball_turns(replay: ReplayFn) -> None:
    period = 60 / 4.5  # 4.5 rpm
    tb, spin = one_spin(periods=(period,), launch_phase=0.5, bets=SPIN_BETS)
    # A slow revolution completes while the ball is still on the track.
    assert any(spin.launch < t < spin.ball_a[-1] for t in spin.rotor.a)
    res = replay(tb)
    invalid(res, "wheel_malfunction")
    assert_bets_returned(res)


@pytest.mark.parametrize("rpm", [5.5, 11.0, 60 / REAL_PERIOD, 30.0])
def test_art_12f_rotor_at_real_speeds_is_not_a_malfunction(replay: ReplayFn,
                                                           rpm: float) -> None:
    # 11 rpm is the real median (real-lap-times.md); the contract's floor is 5 rpm.
    tb, spin = one_spin(periods=(60 / rpm,), launch_phase=0.5, pocket=12)
    out = spin_result(replay(tb), spin.number or "")
    assert out["rotor_rpm"] == pytest.approx(rpm, rel=1e-3)


def test_art_12f_real_rotor_series_is_not_a_malfunction(replay: ReplayFn) -> None:
    # real-rotor-revs.csv series 0: 5.269 5.288 5.171 s, repeated.
    tb, spin = one_spin(periods=(5.269, 5.288, 5.171), pocket=30)
    spin_result(replay(tb), spin.number or "")


# -- (g) wheel stopped -----------------------------------------------------------------
def test_art_12g_period_more_than_1_5_times_the_previous(replay: ReplayFn) -> None:
    slow = 1.6 * REAL_PERIOD  # 7.1 rpm: slower but above 5 rpm, so no malfunction
    tb, spin = one_spin(periods=(REAL_PERIOD, REAL_PERIOD, slow, slow, slow, slow),
                        launch_phase=0.9, bets=SPIN_BETS)
    # The long revolution ends while the ball is on the track.
    assert spin.launch < spin.rotor.a[3] < spin.ball_a[-1]
    res = replay(tb)
    invalid(res, "wheel_stopped")
    assert_bets_returned(res)


def test_art_12g_period_1_4_times_the_previous_is_not_stopped(replay: ReplayFn) -> None:
    slower = 1.4 * REAL_PERIOD
    tb, spin = one_spin(periods=(REAL_PERIOD, REAL_PERIOD, slower, slower, slower, slower),
                        launch_phase=0.9, pocket=21)
    assert spin.launch < spin.rotor.a[3] < spin.ball_a[-1]
    spin_result(replay(tb), spin.number or "")


def test_art_12g_no_rotor_a_within_twice_the_last_period(replay: ReplayFn) -> None:
    tb, spin = one_spin(pocket=None, bets=SPIN_BETS)
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


# -- several items at once: the first in CONTRACT §1's order, and all of them ----------
def test_art_12ab_too_few_revolutions_and_same_direction(replay: ReplayFn) -> None:
    tb, _ = one_spin(laps=(0.9, 1.3), rotor_dir="ccw", ball_dir="ccw", bets=SPIN_BETS)
    res = replay(tb)
    invalid(res, "too_few_revolutions", "same_direction")
    assert_bets_returned(res)


def test_art_12bf_same_direction_and_slow_rotor(replay: ReplayFn) -> None:
    tb, _ = one_spin(periods=(60 / 4.5,), launch_phase=0.5, rotor_dir="cw", ball_dir="cw")
    invalid(replay(tb), "same_direction", "wheel_malfunction")


def test_art_12be_void_of_a_ball_already_turning_with_the_rotor(replay: ReplayFn) -> None:
    # After 4 laps both directions are measured and equal: (b) applies as well as (e).
    tb, spin = one_spin(rotor_dir="cw", ball_dir="cw")
    tb.inp(spin.ball_a[4] + 0.1, "void", reason="foreign_object")
    invalid(replay(tb), "same_direction", "foreign_object")
