"""Seed 001 Art. 12, "tiro no válido", verdict by verdict: the pure functions every wheel
tracker calls (controller.games.roulette.art12), fed the quantities the seed and CONTRACT §1
name (3 revolutions, 6 rotor revolutions, 5 rpm, 1.5 times the period)."""

from __future__ import annotations

import pytest
from conftest import REASON_ORDER

from controller.games.roulette import art12
from controller.games.roulette.art12 import Finding, Uncertain


def test_art12_a_fewer_than_three_revolutions_is_invalid() -> None:
    assert art12.too_few_revolutions(2, 2, 3) == Finding(
        "too_few_revolutions", "2 ball revolutions, fewer than 3")
    assert art12.too_few_revolutions(3, 3, 3) is None
    assert art12.too_few_revolutions(3, 5, 4) == Uncertain(
        "ball_a", "between 3 and 5 ball revolutions (passes missed by both ball sensors); "
        "the minimum is 4")  # a range across the minimum is held, never judged


def test_art12_b_ball_and_rotor_the_same_way_is_invalid() -> None:
    assert art12.same_direction("cw", "cw") == Finding("same_direction",
                                                       "ball and rotor both turn cw")
    assert art12.same_direction("ccw", "cw") is None
    assert art12.same_direction(None, None) is None  # not declared without evidence
    assert art12.ball_direction_unmeasured(None, 3, 3) is not None
    assert art12.ball_direction_unmeasured(None, 2, 3) is None  # (a) decides that throw
    assert art12.ball_direction_unmeasured("cw", 9, 3) is None


def test_art12_c_no_pocket_within_six_rotor_revolutions_is_invalid() -> None:
    found = art12.ball_suspended(None, 42.5, 6)
    assert found is not None and found.reason == "ball_suspended"
    assert "6 rotor revolutions" in found.detail and "42.500 s" in found.detail
    late = art12.ball_suspended(43.0, 42.5, 6)
    assert late is not None and late.reason == "ball_suspended"
    assert art12.ball_suspended(42.5, 42.5, 6) is None  # read within the wait: a result


@pytest.mark.parametrize("reason", ["ball_out_of_wheel", "foreign_object",
                                    "wheel_malfunction", "wheel_stopped"])
def test_art12_d_to_g_the_dealer_declares_the_throw_invalid(reason: str) -> None:
    assert art12.declared(reason) == Finding(reason, "declared by the dealer")


@pytest.mark.parametrize("reason", ["too_few_revolutions", "interrupted", "sensor_fault"])
def test_art12_the_dealer_gives_only_the_reasons_a_person_sees(reason: str) -> None:
    with pytest.raises(ValueError, match="d-g"):
        art12.declared(reason)


def test_art12_f_a_rotor_below_five_rpm_or_reversed_after_slowing_is_invalid() -> None:
    slow = art12.wheel_malfunction_slow(4.99, 5.0)
    assert slow is not None and slow.reason == "wheel_malfunction"
    assert art12.wheel_malfunction_slow(5.0, 5.0) is None
    flip = art12.wheel_malfunction_reversed("cw", "ccw", 12.0)
    assert flip is not None and flip.reason == "wheel_malfunction"
    assert art12.wheel_malfunction_reversed("cw", "cw", 12.0) is None
    assert art12.wheel_malfunction_reversed(None, "ccw", 12.0) is None


def test_art12_g_a_rotor_slowed_past_one_and_a_half_periods_or_silent_is_stopped() -> None:
    stopped = art12.wheel_stopped_period(8.0, 5.0, 1.5)
    assert stopped is not None and stopped.reason == "wheel_stopped"
    assert art12.wheel_stopped_period(7.5, 5.0, 1.5) is None  # "more than" 1.5 times
    assert art12.wheel_stopped_period(8.0, None, 1.5) is None
    assert art12.wheel_stopped_silent(20.0, 9.4).reason == "wheel_stopped"
    assert art12.wheel_stopped_still().reason == "wheel_stopped"


def test_art12_contract_order_first_reason_and_all_of_them() -> None:
    found = {"wheel_stopped": "", "same_direction": "", "too_few_revolutions": "",
             "interrupted": ""}
    assert art12.ordered(found) == ("too_few_revolutions", "same_direction", "wheel_stopped")
    assert art12.REASONS == REASON_ORDER
