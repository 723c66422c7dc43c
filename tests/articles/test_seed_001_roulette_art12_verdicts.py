"""Seed 001 Art. 12, "tiro no válido", verdict by verdict, and on simulated throws.

First the pure functions every wheel tracker calls (controller.games.roulette.art12), fed
the quantities the seed and CONTRACT §1 name (3 revolutions, 6 rotor revolutions, 5 rpm,
1.5 times the period). Then the invalid throws of the wheel simulator
(controller.games.roulette.simulation), three spins a trace (a valid one, the throw, a
valid one) replayed through the whole controller: each must conclude as the simulator's
truth says, and that truth is the item's reason written here from the article. The Art. 12
tests on traces built from the geometry are in test_seed_001_roulette.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import REASON_ORDER, SIM_SEEDS, ReplayFn, assert_concluded, run_simulated

from controller.games.roulette import art12
from controller.games.roulette.art12 import Finding, Uncertain
from controller.games.roulette.simulation import INVALID_SCENARIOS


# -- the verdict functions ---------------------------------------------------------------
def test_art_12a_fewer_than_three_revolutions_is_invalid() -> None:
    assert art12.too_few_revolutions(2, 2, 3) == Finding(
        "too_few_revolutions", "2 ball revolutions, fewer than 3")
    assert art12.too_few_revolutions(3, 3, 3) is None
    assert art12.too_few_revolutions(3, 5, 4) == Uncertain(
        "ball_a", "between 3 and 5 ball revolutions (passes missed by both ball sensors); "
        "the minimum is 4")  # a range across the minimum is held, never judged


def test_art_12b_ball_and_rotor_the_same_way_is_invalid() -> None:
    assert art12.same_direction("cw", "cw") == Finding("same_direction",
                                                       "ball and rotor both turn cw")
    assert art12.same_direction("ccw", "cw") is None
    assert art12.same_direction(None, None) is None  # not declared without evidence
    assert art12.ball_direction_unmeasured(None, 3, 3) is not None
    assert art12.ball_direction_unmeasured(None, 2, 3) is None  # (a) decides that throw
    assert art12.ball_direction_unmeasured("cw", 9, 3) is None


def test_art_12c_no_pocket_within_six_rotor_revolutions_is_invalid() -> None:
    found = art12.ball_suspended(None, 42.5, 6)
    assert found is not None and found.reason == "ball_suspended"
    assert "6 rotor revolutions" in found.detail and "42.500 s" in found.detail
    late = art12.ball_suspended(43.0, 42.5, 6)
    assert late is not None and late.reason == "ball_suspended"
    assert art12.ball_suspended(42.5, 42.5, 6) is None  # read within the wait: a result


@pytest.mark.parametrize("reason", ["ball_out_of_wheel", "foreign_object",
                                    "wheel_malfunction", "wheel_stopped"])
def test_art_12defg_the_dealer_declares_the_throw_invalid(reason: str) -> None:
    assert art12.declared(reason) == Finding(reason, "declared by the dealer")


@pytest.mark.parametrize("reason", ["too_few_revolutions", "interrupted", "sensor_fault"])
def test_art_12defg_the_dealer_gives_only_the_reasons_a_person_sees(reason: str) -> None:
    with pytest.raises(ValueError, match="d-g"):
        art12.declared(reason)


def test_art_12f_a_rotor_below_five_rpm_or_reversed_after_slowing_is_invalid() -> None:
    slow = art12.wheel_malfunction_slow(4.99, 5.0)
    assert slow is not None and slow.reason == "wheel_malfunction"
    assert art12.wheel_malfunction_slow(5.0, 5.0) is None
    flip = art12.wheel_malfunction_reversed("cw", "ccw", 12.0)
    assert flip is not None and flip.reason == "wheel_malfunction"
    assert art12.wheel_malfunction_reversed("cw", "cw", 12.0) is None
    assert art12.wheel_malfunction_reversed(None, "ccw", 12.0) is None


def test_art_12g_a_rotor_slowed_past_one_and_a_half_periods_or_silent_is_stopped() -> None:
    stopped = art12.wheel_stopped_period(8.0, 5.0, 1.5)
    assert stopped is not None and stopped.reason == "wheel_stopped"
    assert art12.wheel_stopped_period(7.5, 5.0, 1.5) is None  # "more than" 1.5 times
    assert art12.wheel_stopped_period(8.0, None, 1.5) is None
    assert art12.wheel_stopped_silent(20.0, 9.4).reason == "wheel_stopped"
    assert art12.wheel_stopped_still().reason == "wheel_stopped"


def test_art_12_reasons_in_contract_order_first_reason_and_all_of_them() -> None:
    found = {"wheel_stopped": "", "same_direction": "", "too_few_revolutions": "",
             "interrupted": ""}
    assert art12.ordered(found) == ("too_few_revolutions", "same_direction", "wheel_stopped")
    assert art12.REASONS == REASON_ORDER


# -- simulated invalid throws ------------------------------------------------------------
# The simulator's invalid scenarios and the Art. 12 reason (CONTRACT §1) of each.
SIMULATED = {"too_few_revolutions": "too_few_revolutions",  # (a)
             "same_direction": "same_direction",  # (b)
             "ball_suspended": "ball_suspended",  # (c)
             "wheel_slow": "wheel_malfunction",  # (f): a rotor below 5 rpm
             "wheel_stopped": "wheel_stopped"}  # (g)


def assert_simulated_invalid(scenario: str, seed: int, replay: ReplayFn,
                             tmp_path: Path) -> None:
    """The throw of ``scenario`` between two valid ones: each of the three spins concludes
    as the simulator's truth says, the middle one invalid with its item's reason."""
    res, truth, events = run_simulated(scenario, seed, replay, tmp_path)
    assert truth[1].expected == "invalid"
    assert truth[1].reason == SIMULATED[scenario]
    for k, spin in enumerate(truth, 1):
        assert_concluded(res, k, spin, events)


def test_art_12abcfg_every_simulated_invalid_throw_is_tested_here() -> None:
    assert set(INVALID_SCENARIOS) == set(SIMULATED)


@pytest.mark.parametrize("seed", SIM_SEEDS)
def test_art_12a_simulated_weak_throw_is_too_few_revolutions(
        seed: int, replay: ReplayFn, tmp_path: Path) -> None:
    assert_simulated_invalid("too_few_revolutions", seed, replay, tmp_path)


@pytest.mark.parametrize("seed", SIM_SEEDS)
def test_art_12b_simulated_ball_thrown_with_the_rotor_is_same_direction(
        seed: int, replay: ReplayFn, tmp_path: Path) -> None:
    assert_simulated_invalid("same_direction", seed, replay, tmp_path)


@pytest.mark.parametrize("seed", SIM_SEEDS)
def test_art_12c_simulated_ball_that_never_settles_is_suspended(
        seed: int, replay: ReplayFn, tmp_path: Path) -> None:
    assert_simulated_invalid("ball_suspended", seed, replay, tmp_path)


@pytest.mark.parametrize("seed", SIM_SEEDS)
def test_art_12f_simulated_slow_rotor_is_a_wheel_malfunction(
        seed: int, replay: ReplayFn, tmp_path: Path) -> None:
    assert_simulated_invalid("wheel_slow", seed, replay, tmp_path)


@pytest.mark.parametrize("seed", SIM_SEEDS)
def test_art_12g_simulated_rotor_braked_in_the_run_is_stopped(
        seed: int, replay: ReplayFn, tmp_path: Path) -> None:
    assert_simulated_invalid("wheel_stopped", seed, replay, tmp_path)
