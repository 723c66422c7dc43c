"""Seed 000 (Mini-Bacará, decree 217/978): the Punto y Banca rules its Art. 1 applies, on the
pure functions of controller/games/mini_baccarat/rules.py and analysis.py, and a property
of whole coups on the game against an oracle written here from RULES.md §2.

The decree applies "la reglamentación del Juego de 'Punto y Banca'" (Art. 1); RULES.md §2
writes out its tableau, which the tables below copy by hand. The exact analysis is checked
against the published figures of ../shared/data/baccarat-exact.md (copied by hand), which
only an engine that follows that tableau reproduces. Nothing here comes from the code's
output. Names follow tests/articles/README.md.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mini_baccarat_helpers import GameTable

from controller.cards.card import full_deck, parse_card
from controller.core.errors import RuleViolation
from controller.games.mini_baccarat.analysis import analyze, insurance_probability
from controller.games.mini_baccarat.rules import (
    banca_draws,
    box_draws,
    hand_total,
    is_encart,
    is_natural,
    outcome,
)

# The tableau of RULES.md §2, written out by hand: row = the Banca's two-card total,
# column = the points of the box's third card 0..9; "D" draw, "S" stand.
# "box drew: 0-2 draws; 3 draws unless the third card is 8; 4 draws on 2-7; 5 on 4-7;
#  6 on 6-7; 7 stands."
TABLEAU = {
    0: "DDDDDDDDDD",
    1: "DDDDDDDDDD",
    2: "DDDDDDDDDD",
    3: "DDDDDDDDSD",
    4: "SSDDDDDDSS",
    5: "SSSSDDDDSS",
    6: "SSSSSSDDSS",
    7: "SSSSSSSSSS",
}
# "when a box stood (no third card), the Banca draws on 0-5 and stands on 6-7"
BOX_STOOD = {0: "D", 1: "D", 2: "D", 3: "D", 4: "D", 5: "D", 6: "S", 7: "S"}

# Points by rank, from RULES.md: "Ten and figures count 0, ace 1".
POINTS = {"A": 1, "T": 0, "J": 0, "Q": 0, "K": 0} | {str(n): n for n in range(2, 10)}


# -- Art. 1: the Punto y Banca tableau; Art. 7: naturals -----------------------------------
@pytest.mark.parametrize("banca_total", range(8))
@pytest.mark.parametrize("third", [None, *range(10)])
def test_art_1_tableau_every_banca_total_against_every_third_card(
    banca_total: int, third: int | None
) -> None:
    expected = BOX_STOOD[banca_total] if third is None else TABLEAU[banca_total][third]
    assert banca_draws(banca_total, third) is (expected == "D")


@pytest.mark.parametrize("banca_total", [8, 9])
@pytest.mark.parametrize("third", [None, *range(10)])
def test_art_7_banca_natural_never_draws(banca_total: int, third: int | None) -> None:
    assert banca_draws(banca_total, third) is False


def test_art_1_8_box_draws_on_0_to_4_stands_on_6_to_9_and_chooses_on_five() -> None:
    for total in range(5):
        assert box_draws(total, None) is True
    for total in range(6, 10):
        assert box_draws(total, None) is False
    assert box_draws(5, "draw") is True  # "pedir", Art. 8
    assert box_draws(5, "stand") is False  # "plantar", Art. 8
    with pytest.raises(ValueError):
        box_draws(5, None)


def test_art_1_7_9d_hand_totals_naturals_and_encart() -> None:
    cards = [parse_card(c) for c in ("9S", "7C", "KD")]
    assert hand_total(cards) == 6  # 9 + 7 + 0 = 16
    assert hand_total([parse_card("AS"), parse_card("7H")]) == 8
    assert is_natural([parse_card("AS"), parse_card("7H")])
    assert not is_natural([parse_card("AS"), parse_card("3H"), parse_card("4H")])  # 3 cards
    six, seven = [parse_card("3C"), parse_card("3D")], [parse_card("2C"), parse_card("5D")]
    assert is_encart(six, [parse_card("QH"), parse_card("6S")])
    assert is_encart(seven, [parse_card("4H"), parse_card("3S")])
    assert not is_encart(six, seven)
    assert outcome(six, seven) == "banca"
    assert outcome(seven, six) == "punto"
    assert outcome(six, [parse_card("6H"), parse_card("KS")]) == "standoff"


# -- the exact analysis of one box against the Banca (../shared/data/baccarat-exact.md) ----
# Art. 1 (the tableau), Art. 8 (the box on five draws or stands) and Art. 10 (Banca wins
# paid 90%: "EV Banca 10%") decide every figure; the 4-deck sabot is Art. 2's.
# decks, box on five: P(Banca), P(box), P(standoff), EV Punto %, EV Banca 10% %, EV Banca 5% %
EXACT = [
    (4, "draw", 0.458761, 0.446340, 0.094898, -1.2421, -3.3455, -1.0517),
    (4, "stand", 0.461824, 0.446525, 0.091651, -1.5299, -3.0884, -0.7792),
    (6, "draw", 0.458653, 0.446279, 0.095069, -1.2374, -3.3491, -1.0558),
    (6, "stand", 0.461706, 0.446464, 0.091831, -1.5242, -3.0929, -0.7843),
    (8, "draw", 0.458597, 0.446247, 0.095156, -1.2351, -3.3509, -1.0579),
    (8, "stand", 0.461645, 0.446432, 0.091923, -1.5214, -3.0951, -0.7869),
]


@pytest.mark.parametrize(
    ("decks", "five", "banca", "box", "standoff", "ev_punto", "ev_banca_10", "ev_banca_5"),
    EXACT,
)
def test_art_1_8_10_analyze_reproduces_the_exact_table(
    decks: int,
    five: str,
    banca: float,
    box: float,
    standoff: float,
    ev_punto: float,
    ev_banca_10: float,
    ev_banca_5: float,
) -> None:
    result = analyze(decks, five)
    assert result["p_banca"] == pytest.approx(banca, abs=5e-7)
    assert result["p_box"] == pytest.approx(box, abs=5e-7)
    assert result["p_standoff"] == pytest.approx(standoff, abs=5e-7)
    assert 100 * result["ev_punto"] == pytest.approx(ev_punto, abs=5e-5)
    assert 100 * result["ev_banca_10"] == pytest.approx(ev_banca_10, abs=5e-5)
    assert 100 * result["ev_banca_5"] == pytest.approx(ev_banca_5, abs=5e-5)
    n = 52 * decks
    assert result["deals"] == n * (n - 1) * (n - 2) * (n - 3) * (n - 4) * (n - 5)
    assert (
        result["banca_deals"] + result["box_deals"] + result["standoff_deals"] == (result["deals"])
    )


def test_art_1_2_analyze_four_decks_raw_counts_are_exact() -> None:
    result = analyze(4, "draw")
    assert result["deals"] == 75_297_571_090_560
    assert result["banca_deals"] == 34_543_624_867_840
    assert result["box_deals"] == 33_608_344_225_792
    assert result["standoff_deals"] == 7_145_601_996_928


def test_art_11_insurance_probability_four_decks_is_64_over_207() -> None:
    p = insurance_probability(4)
    assert p == Fraction(64, 207)  # 64 tens and figures among the 207 cards left
    assert float(3 * p - 1) == pytest.approx(-0.0725, abs=5e-5)  # EV at 2 to 1: -7.25%


# -- Art. 1, 7, 9: random shoes and random boxes against an oracle written from RULES.md ---
def _total(cards: list[str]) -> int:
    return sum(POINTS[c[:-1]] for c in cards) % 10


def _banca_draws_oracle(banca_total: int, third: str | None) -> bool:
    if third is None:
        return BOX_STOOD[banca_total] == "D"
    return TABLEAU[banca_total][POINTS[third[:-1]]] == "D"


@st.composite
def _coups(draw: st.DrawFn) -> tuple[dict[int, tuple[bool, bool]], list[str], dict[int, str]]:
    boxes = draw(st.sets(st.integers(1, 5), min_size=1))
    bets = {b: draw(st.sampled_from([(True, False), (False, True), (True, True)])) for b in boxes}
    shoe = draw(st.lists(st.sampled_from([str(c) for c in full_deck()]), min_size=20, max_size=20))
    fives = {b: draw(st.sampled_from(["draw", "stand"])) for b in boxes}
    return bets, shoe, fives


@settings(max_examples=300, deadline=None)
@given(_coups())
def test_art_1_7_9_property_every_card_in_one_hand_and_only_the_cards_the_rules_need(
    case: tuple[dict[int, tuple[bool, bool]], list[str], dict[int, str]],
) -> None:
    bets, shoe, fives = case
    table = GameTable()
    game = table.game
    game.open_bets(0)
    for box, (punto, banca) in bets.items():
        if punto:
            table.bet("punto", box, 10)
        if banca:
            table.bet("banca", box, 10)
    game.no_more_bets(0)
    dealt = 0
    while game.state != "coup_over":
        if game.state == "five_options":
            for box in sorted(bets):
                if game.state != "five_options":
                    break
                if bets[box][0]:  # only a box with a Punto bet chooses (Art. 8 Decision)
                    try:
                        game.five_choice(0, box, fives[box])
                    except RuleViolation as refusal:
                        assert refusal.code == "not_a_five"
            assert game.state != "five_options"
            continue
        assert game.needs_card() is not None
        game.card(0, parse_card(shoe[dealt]))
        dealt += 1

    (result,) = table.of("coup_result")
    hands = {b["box"]: b["cards"] for b in result["boxes"]} | {0: result["banca"]["cards"]}
    # every card drawn is in exactly one hand, in the order it came out of the shoe
    assert sorted(c for h in hands.values() for c in h) == sorted(shoe[:dealt])
    assert [c["card"] for c in table.of("card")] == shoe[:dealt]
    assert all(2 <= len(h) <= 3 for h in hands.values())
    for b in result["boxes"]:
        assert b["total"] == _total(b["cards"])
    assert result["banca"]["total"] == _total(hands[0])

    # the oracle: who needed a third card, and who won
    banca2 = hands[0][:2]
    banca_natural = _total(banca2) >= 8
    banca_needs_third = False
    for box, cards in hands.items():
        if box == 0:
            continue
        two = _total(cards[:2])
        de_aire = banca_natural or two >= 8
        choice = fives[box] if bets[box][0] else "stand"
        box_draws_oracle = two <= 4 or (two == 5 and choice == "draw")
        assert (len(cards) == 3) is (not de_aire and box_draws_oracle)
        third = cards[2] if len(cards) == 3 else None
        draws_against = not de_aire and _banca_draws_oracle(_total(banca2), third)
        banca_needs_third |= draws_against
        opposed = hands[0] if draws_against else banca2
        p, q = _total(cards), _total(opposed)
        expected = "punto" if p > q else "banca" if q > p else "standoff"
        (box_result,) = [b for b in result["boxes"] if b["box"] == box]
        assert box_result["outcome"] == expected
    assert (len(hands[0]) == 3) is banca_needs_third
