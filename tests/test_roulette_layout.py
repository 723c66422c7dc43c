"""The roulette layout's wheels and bet records (controller.games.roulette.layout), beyond
what seed 001 Art. 13 says: the wheel orders of ../shared/data/wheels.md, what a bet keeps,
the errors of a wheel or pocket that does not exist. Art. 13's bets and payouts are seed
001's article tests (tests/articles/test_seed_001_roulette_art13.py).

Every expected value here is written by hand from ../shared/data/wheels.md (tests/conftest.py
``ORDERS``): never from the code under test.
"""

from __future__ import annotations

import pytest
from conftest import ORDERS, SIGNOS

from controller.games.roulette.layout import RED, WHEEL_ORDERS, layout_for, make_bet, settle

WHEELS = ("single_zero", "double_zero")
ONE_TO_36 = [str(n) for n in range(1, 37)]


# ---- wheels ---------------------------------------------------------------------------------


@pytest.mark.parametrize("wheel", WHEELS)
def test_wheel_order_is_wheels_md(wheel: str) -> None:
    order = WHEEL_ORDERS[wheel]
    assert order == ORDERS[wheel]
    assert len(set(order)) == len(order) == {"single_zero": 37, "double_zero": 38}[wheel]
    assert set(order) == set(ONE_TO_36) | SIGNOS[wheel]
    assert order[0] == "0"
    layout = layout_for(wheel)
    assert layout.wheel == wheel
    assert layout.order == order
    assert layout.numbers == frozenset(ORDERS[wheel])
    assert set(layout.signos) == SIGNOS[wheel]


def test_double_zero_sits_at_index_19_opposite_zero() -> None:
    assert WHEEL_ORDERS["double_zero"].index("00") == 19
    assert "00" not in WHEEL_ORDERS["single_zero"]


@pytest.mark.parametrize("wheel", WHEELS)
def test_colours_alternate_between_signos(wheel: str) -> None:
    # A transcription check on wheels.md: real wheels alternate red and black.
    order = ORDERS[wheel]
    for a, b in zip(order, order[1:] + order[:1], strict=True):
        if a not in SIGNOS[wheel] and b not in SIGNOS[wheel]:
            assert (a in RED) != (b in RED), (a, b)


def test_unknown_wheel_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="european"):
        layout_for("european")


# ---- a bet and a pocket ------------------------------------------------------------------


def test_bet_keeps_what_was_placed() -> None:
    bet = make_bet(layout_for("double_zero"), "split", 4, 25, ["20", "17"])
    assert (bet.kind, bet.box, bet.amount, bet.wheel) == ("split", 4, 25, "double_zero")
    assert (bet.numbers, bet.which, bet.covered) == (("20", "17"), None, {"17", "20"})
    dozen = make_bet(layout_for("single_zero"), "dozen", 2, 5, [], 2)
    assert (dozen.numbers, dozen.which) == ((), 2)


def test_settle_refuses_a_pocket_not_on_the_wheel() -> None:
    bet = make_bet(layout_for("single_zero"), "red", 1, 5)
    for pocket in ("00", "37", "", "7 "):
        with pytest.raises(ValueError, match="not a pocket"):
            settle(bet, pocket)
