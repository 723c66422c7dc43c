"""Black Jack rules on hands (controller/games/blackjack/rules.py): seed 004 Art. 3 card values,
the dealer's rule and the RULES.md §4 decisions. Expected values are worked out by hand here."""

from __future__ import annotations

from fractions import Fraction

import pytest

from controller.cards.card import parse_card
from controller.games.blackjack.rules import (
    Rules,
    chips,
    dealer_draws,
    insurance_wins,
    is_blackjack,
    is_bust,
    is_pair,
    may_double,
    settle_hand,
    total,
)


def hand(text: str) -> list:
    return [parse_card(c) for c in text.split()]


@pytest.mark.parametrize(("cards", "expected"), [
    ("AS AD AC 6S", (19, True)),   # one ace 11, two 1: soft 19
    ("KS AH", (21, True)),         # a figure then an ace
    ("AH 6D KC", (17, False)),     # the ace back to 1
    ("AS AD", (12, True)),
    ("AS AD AC AH", (14, True)),
    ("AS AD AC AH 7S", (21, True)),
    ("TS 9H 5D", (24, False)),     # bust: the hard total
    ("AS 5H AC KD 9S", (26, False)),
    ("QS JH", (20, False)),
    ("2S 3H", (5, False)),
])
def test_totals_count_an_ace_eleven_or_one(cards: str, expected: tuple[int, bool]) -> None:
    assert total(hand(cards)) == expected


def test_a_point_value_is_a_card_s_value_in_the_exact_analysis() -> None:
    assert total([1, 1, 1, 6]) == (19, True) and total([10, 1]) == (21, True)


def test_blackjack_is_two_cards_of_21_never_after_a_split() -> None:
    assert is_blackjack(hand("KS AH")) and is_blackjack(hand("AH TD"))
    assert not is_blackjack(hand("KS AH"), from_split=True)
    assert not is_blackjack(hand("7S 7H 7D"))
    assert is_bust(hand("TS 9H 5D")) and not is_bust(hand("AS AD AC 6S"))


@pytest.mark.parametrize(("cards", "s17", "h17"), [
    ("TS 6H", True, True), ("TS 7H", False, False), ("AS 6H", False, True),
    ("AS 5H AD", False, True),  # soft 17 of three cards
    ("AS 6H KD", False, False),  # hard 17
    ("AS 7H", False, False), ("5S 5H", True, True), ("AS AD", True, True),
])
def test_the_dealer_draws_to_16_and_on_a_soft_17_only_by_h17(
        cards: str, s17: bool, h17: bool) -> None:
    assert dealer_draws(hand(cards), hits_soft_17=False) is s17
    assert dealer_draws(hand(cards), hits_soft_17=True) is h17


def test_doubles_on_the_first_two_cards_as_the_table_allows() -> None:
    any_two = Rules()
    assert may_double(hand("5S 7H"), False, any_two) is None
    assert "first two cards" in str(may_double(hand("2S 3H 4D"), False, any_two))
    assert "9 or 10 or 11" in str(may_double(hand("5S 7H"), False, Rules(double_on="9_10_11")))
    assert may_double(hand("5S 6H"), False, Rules(double_on="10_11")) is None
    assert may_double(hand("AS 9H"), False, Rules(double_on="10_11")) is None  # hard 10
    assert "after a split" in str(may_double(hand("5S 6H"), True,
                                             Rules(double_after_split=False)))


def test_a_pair_is_two_of_a_rank_or_of_a_value() -> None:
    assert is_pair(hand("8S 8D"), Rules()) and not is_pair(hand("KS QD"), Rules())
    assert is_pair(hand("KS QD"), Rules(split_pairs="same_value"))
    assert not is_pair(hand("8S 8D 8H"), Rules())


@pytest.mark.parametrize(("mine", "dealer", "outcome"), [
    ("TS 9H", "TD 8C", "win"), ("TS 8H", "TD 9C", "lose"), ("TS 8H", "9D 9C", "push"),
    ("TS 9H 5D", "TD 6C 9S", "lose"),  # a bust hand loses, whatever the dealer holds
    ("TS 9H", "TD 6C 9S", "win"), ("AS KH", "7D 7C 7S", "win"),  # blackjack over a 21
    ("AS KH", "AD QC", "push"), ("7S 7D 7H", "AD QC", "lose"),
])
def test_a_hand_against_the_dealer(mine: str, dealer: str, outcome: str) -> None:
    assert settle_hand(hand(mine), False, hand(dealer)) == outcome


def test_insurance_wins_on_a_ten_or_a_figure_in_the_hole() -> None:
    assert all(insurance_wins(parse_card(c)) for c in ("TS", "JH", "QD", "KC"))
    assert not any(insurance_wins(parse_card(c)) for c in ("AS", "9H", "2C"))


def test_chips_are_whole_or_halves() -> None:
    assert chips(Fraction(-5, 2)) == -2.5 and isinstance(chips(Fraction(30, 2)), int)
