"""Seed 001 (roulette, Peru 1999): Art. 12 to 16, through the whole controller.

Each test builds a trace from the CONTRACT §1 geometry (tests/conftest.py) and replays it
with ``table-controller replay`` in virtual time, then reads the journaled records as an
inspector would. Expected numbers and payouts come from the seed's text, quoted below, and
from the wheel order of ../shared/data/wheels.md (tests/conftest.py), never from the
controller. Names follow tests/articles/README.md: ``test_art_12a_...`` tests Art. 12 (a).
"""

from __future__ import annotations

from typing import Any

import pytest
from conftest import ORDERS, REAL_PERIOD, SUSPENDED_WAIT_REVS, TRACES, Event, Replay, ReplayFn
from conftest import one_spin as build_spin

# Art. 13 (b): "1era. Columna : 1, 4, 7, ... 34" and so on; "1era. Docena : Del numero 1 al 12".
COLUMNS = {1: set(range(1, 35, 3)), 2: set(range(2, 36, 3)), 3: set(range(3, 37, 3))}
DOZENS = {1: set(range(1, 13)), 2: set(range(13, 25)), 3: set(range(25, 37))}
# Art. 13 (c): "Color rojo: 1, 3, 5, 7, 9, 12, 14, 16, 18, 19, 21, 23, 25, 27, 30, 32, 34 y 36".
RED = {1, 3, 5, 7, 9, 12, 14, 16, 18, 19, 21, 23, 25, 27, 30, 32, 34, 36}
# Bets every invalid throw here must return (RULES.md §1 decision: a push, payout 0).
BETS: tuple[Event, ...] = (
    {"t": 0.5, "bet": "straight", "box": 1, "amount": 10, "numbers": ["17"]},
    {"t": 0.6, "bet": "red", "box": 2, "amount": 20},
)
US = 1e-6  # journal times are rounded to the microsecond


def conclusion(res: Replay) -> dict[str, Any]:
    assert res.rc == 0
    return res.outcome()


def settled(res: Replay) -> list[tuple[int, str, int, str, float]]:
    return sorted((s["box"], s["kind"], s["amount"], s["outcome"], s["payout"])
                  for s in res.of("settlement"))


def all_returned(res: Replay) -> bool:
    """Every bet placed is settled once, as a push with payout 0."""
    placed = sorted((b["box"], b["kind"], b["amount"], "push", 0) for b in res.of("bet"))
    return bool(placed) and settled(res) == placed


# -- Art. 12: invalid throws ------------------------------------------------------------
def test_art_12_valid_throw_gives_the_pocket_where_the_ball_rests(replay: ReplayFn) -> None:
    tb, spin = build_spin(wheel="double_zero", pocket=19)  # index 19 is 00 (wheels.md)
    out = conclusion(replay(tb))
    assert out["type"] == "spin_result"
    assert out["number"] == ORDERS["double_zero"][19] == "00"
    assert out["ball_revolutions"] == len(spin.ball_a)
    assert (out["ball_direction"], out["rotor_direction"]) == ("ccw", "cw")


def test_art_12a_two_revolutions_are_fewer_than_the_minimum_of_3(replay: ReplayFn) -> None:
    tb, spin = build_spin(laps=(0.9, 1.3), bets=BETS)
    res = replay(tb)
    out = conclusion(res)
    assert (out["type"], out["reason"]) == ("spin_invalid", "too_few_revolutions")
    assert out["t"] >= spin.drop - US  # the count is known once the ball left the track
    assert all_returned(res)


@pytest.mark.parametrize("direction", ["cw", "ccw"])
def test_art_12b_ball_turning_with_the_rotor_is_invalid(replay: ReplayFn,
                                                        direction: str) -> None:
    tb, _ = build_spin(rotor_dir=direction, ball_dir=direction, bets=BETS)
    res = replay(tb)
    out = conclusion(res)
    assert (out["type"], out["reasons"]) == ("spin_invalid", ["same_direction"])
    assert all_returned(res)


def test_art_12c_ball_never_in_a_pocket_is_announced_after_6_rotor_revolutions(
        replay: ReplayFn) -> None:
    six_revs = build_spin(pocket=None)[1].six_revs
    # first_read: the rotor turns on past the 6 revolutions (no reading comes).
    tb, spin = build_spin(pocket=None, bets=BETS, first_read=six_revs)
    res = replay(tb)
    out = conclusion(res)
    assert (out["type"], out["reason"]) == ("spin_invalid", "ball_suspended")
    # "Se debera esperar como minimo 6 revoluciones" (rotor ones: RULES.md decision).
    assert out["t"] >= spin.drop + SUSPENDED_WAIT_REVS * REAL_PERIOD - US
    assert all_returned(res)


@pytest.mark.parametrize("reason", ["ball_out_of_wheel", "foreign_object"])
def test_art_12de_declared_by_the_dealer_voids_the_throw(replay: ReplayFn,
                                                         reason: str) -> None:
    tb, spin = build_spin(pocket=None if reason == "ball_out_of_wheel" else 4, bets=BETS)
    tb.inp(spin.launch + 4.0, "void", reason=reason)
    res = replay(tb)
    out = conclusion(res)
    assert (out["type"], out["reason"]) == ("spin_invalid", reason)
    assert out["t"] == pytest.approx(spin.launch + 4.0, abs=US)
    assert all_returned(res)


# -- Art. 13: payouts ("a to 1": the stake back and a times it) ------------------------
def test_art_13ac_example_trace_straight_on_00_pays_35_and_red_loses(replay: ReplayFn) -> None:
    # ../shared/traces/README.md, spin 2: the ball rests in 00; straight on 00 (box 1, 10)
    # and red (box 2, 20). 00 is a signo, not red (Art. 13 c lists the red numbers).
    res = replay(TRACES / "roulette-two-spins.jsonl")
    assert [o.get("number") for o in res.outcomes] == ["20", "00"]
    spin2 = sorted((s["box"], s["kind"], s["outcome"], s["payout"])
                   for s in res.of("settlement") if s["game"] == 2)
    assert spin2 == [(1, "straight", "win", 35 * 10), (2, "red", "lose", -20)]


@pytest.mark.parametrize("pocket", [5, 14, 30])
def test_art_13b_the_number_s_column_and_dozen_pay_2_to_1_the_others_lose(
        replay: ReplayFn, pocket: int) -> None:
    number = int(ORDERS["single_zero"][pocket])
    bets: list[Event] = []
    for i, which in enumerate((1, 2, 3)):
        bets.append({"t": 0.3 + i / 10, "bet": "column", "box": which, "amount": 10,
                     "which": which})
        bets.append({"t": 0.35 + i / 10, "bet": "dozen", "box": which, "amount": 5,
                     "which": which})
    tb, _ = build_spin(pocket=pocket, bets=bets)
    res = replay(tb)
    assert conclusion(res)["number"] == str(number)
    expected = []
    for which in (1, 2, 3):
        expected.append((which, "column", 10, *(("win", 20) if number in COLUMNS[which]
                                                else ("lose", -10))))
        expected.append((which, "dozen", 5, *(("win", 10) if number in DOZENS[which]
                                              else ("lose", -5))))
    assert settled(res) == sorted(expected)


@pytest.mark.parametrize("pocket", [1, 2, 23])
def test_art_13c_red_and_black_by_the_seed_s_list_pay_1_to_1(replay: ReplayFn,
                                                             pocket: int) -> None:
    number = int(ORDERS["single_zero"][pocket])
    bets: tuple[Event, ...] = ({"t": 0.5, "bet": "red", "box": 1, "amount": 20},
                               {"t": 0.6, "bet": "black", "box": 2, "amount": 20})
    tb, _ = build_spin(pocket=pocket, bets=bets)
    res = replay(tb)
    assert conclusion(res)["number"] == str(number)
    red_wins = number in RED
    assert settled(res) == [(1, "red", 20, *(("win", 20) if red_wins else ("lose", -20))),
                            (2, "black", 20, *(("lose", -20) if red_wins else ("win", 20)))]


# -- Art. 16: limits change after the game in play -------------------------------------
def test_art_16_limits_changed_during_a_spin_apply_after_its_settlement(
        replay: ReplayFn) -> None:
    # Default limits 1-1000 chips. A change to 5-500 asked while the ball turns: the bets
    # of this game are judged under 1-1000, the next game's under 5-500.
    probe = [{"bet": "even", "box": 1, "amount": 4}, {"bet": "odd", "box": 2, "amount": 5},
             {"bet": "low", "box": 3, "amount": 600}]
    tb, spin = build_spin(pocket=8, bets=[{"t": 0.5 + i / 10, **b} for i, b in enumerate(probe)])
    tb.inp(spin.launch + 1.0, "set_limits", min_bet=5, max_bet=500)
    after = spin.rotor.a[-1] + 1.0  # the next game: bets open again after the settlement
    tb.add(*({"t": after + i / 10, **b} for i, b in enumerate(probe)))
    res = replay(tb)
    assert conclusion(res)["type"] == "spin_result"
    last_settlement = max(s["seq"] for s in res.of("settlement"))
    accepted = [(b["amount"], b["seq"] > last_settlement) for b in res.of("bet")]
    assert accepted == [(4, False), (5, False), (600, False), (5, True)]
    refused = [a for a in res.alarms("bet_refused") if a["seq"] > last_settlement]
    assert len(refused) == 2
    (applied,) = [r for r in res.of("config_change") if r["status"] == "applied"]
    assert (applied["min_bet"], applied["max_bet"]) == (5, 500)
    assert applied["seq"] > last_settlement
