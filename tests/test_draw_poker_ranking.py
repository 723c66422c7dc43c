"""The ranking of seed 003 num. 16-18 (controller/games/draw_poker/ranking.py), against the
seed's text hand by hand, and against a second ranking written here from the text alone.

The reference below shares no code with the controller's: it groups the ranks by how often
they occur, as the seed describes each category, and orders the categories as num. 16
lists them. Hypothesis draws pairs of hands from one deck and both rankings must order them
alike.
"""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.cards.card import Card, full_deck, parse_card
from controller.games.draw_poker.ranking import Category, rank_hand, winners

# Num. 16, "en orden creciente".
ORDER = ["CARTA MAYOR", "PAR SIMPLE", "PAR DOBLE", "PIERNA O TRIO", "ESCALERA", "COLOR",
         "FULL", "PÓKER", "ESCALERA COLOR", "ESCALERA REAL"]
VALUE = {r: i for i, r in enumerate("23456789TJQKA", start=2)}  # num. 18: ace highest


def cards(text: str) -> list[Card]:
    return [parse_card(c) for c in text.split()]


def reference(hand: list[Card]) -> tuple[int, list[int]]:
    """(category index in ORDER, the ranks that compare) from the seed's definitions."""
    counts = Counter(VALUE[c.rank] for c in hand)
    # Groups first, larger groups before smaller, higher before lower; then the rest.
    ranks = sorted(counts, key=lambda r: (counts[r], r), reverse=True)
    shape = sorted(counts.values(), reverse=True)
    suited = len({c.suit for c in hand}) == 1
    distinct = sorted(counts, reverse=True)
    top = None
    if len(distinct) == 5:
        if distinct[0] - distinct[4] == 4:
            top = distinct[0]
        elif distinct == [14, 5, 4, 3, 2]:  # "antes del 2"
            top = 5
    if top is not None and suited:
        return (9 if top == 14 else 8), [top]
    if shape == [4, 1]:
        return 7, ranks
    if shape == [3, 2]:
        return 6, ranks
    if suited:
        return 5, ranks
    if top is not None:
        return 4, [top]
    return {(3, 1, 1): 3, (2, 2, 1): 2, (2, 1, 1, 1): 1}.get(tuple(shape), 0), ranks


def test_num_16_the_categories_in_increasing_order() -> None:
    ladder = ["KS QH 9D 5C 3S", "9S 9H KD 5C 3S", "9S 9H 5D 5C 3S", "9S 9H 9D 5C 3S",
              "5S 6H 7D 8C 9S", "KS QS 9S 5S 3S", "9S 9H 9D 5C 5S", "9S 9H 9D 9C 3S",
              "5H 6H 7H 8H 9H", "TD JD QD KD AD"]
    values = [rank_hand(cards(h)) for h in ladder]
    assert values == sorted(values) and len(set(values)) == 10
    assert [v.category for v in values] == list(Category)


@pytest.mark.parametrize(("better", "worse"), [
    ("QS QH 4D 3C 2S", "JS JH AD KC QD"),      # num. 17: the higher pair
    ("QS QH 5D 3C 2S", "QD QC 4H 3D 2H"),      # equal pairs: the highest other card
    ("QS QH 9D 8C 3S", "QD QC 9H 8D 2H"),      # ... and the next (num. 18)
    ("KS KH 3D 3C 2S", "QS QH JD JC AS"),      # two pair: the higher pair
    ("KS KH 5D 5C 2S", "KD KC 4H 4D AH"),      # then the other pair
    ("KS KH 5D 5C 7S", "KD KC 5H 5S 6H"),      # then the fifth card
    ("4S 4H 4D 2C 3S", "3H 3D 3C AS KH"),      # trio: the higher trio
    ("6S 7H 8D 9C TS", "AS 2H 3D 4C 5S"),      # the ace low: A-2-3-4-5 is the lowest
    ("TS JH QD KC AS", "9S TH JD QC KS"),      # the ace high: 10-J-Q-K-A the highest
    ("AS KS 5S 4S 2S", "AH QH JH TH 8H"),      # flush: highest card, then the next
    ("4S 4H 4D 2C 2S", "3H 3D 3C AS AH"),      # full: the trio decides
    ("5S 5H 5D 5C 2S", "4S 4H 4D 4C AS"),      # poker: the higher four
    ("6H 7H 8H 9H TH", "AD 2D 3D 4D 5D"),      # straight flush: as the straight
    ("TS JS QS KS AS", "9H TH JH QH KH"),      # royal flush above every straight flush
    ("AS KH QD JC 9S", "KS QH JD TC 8S"),      # high card: the ace highest
])
def test_num_17_18_the_better_hand_wins(better: str, worse: str) -> None:
    assert rank_hand(cards(better)) > rank_hand(cards(worse))


def test_num_17_no_straight_wraps_round_the_ace() -> None:
    assert rank_hand(cards("QS KH AD 2C 3S")).category == Category.high_card


def test_num_18_suits_never_count() -> None:
    hands = ["AS KS 9H 6D 3C", "AH KH 9D 6C 3S", "AD KD 9C 6S 3H"]
    assert winners({i: rank_hand(cards(h)) for i, h in enumerate(hands, 1)}) == [1, 2, 3]
    assert rank_hand(cards("TS JS QS KS AS")) == rank_hand(cards("TH JH QH KH AH"))


def test_a_hand_is_five_different_cards() -> None:
    for bad in ("AS KS QS JS", "AS KS QS JS TS 9S", "AS AS QS JS TS"):
        with pytest.raises(ValueError):
            rank_hand(cards(bad))


@settings(max_examples=1500, deadline=None)
@given(st.permutations(full_deck()))
def test_num_16_18_the_ranking_orders_two_hands_as_the_reference(deck: list[Card]) -> None:
    first, second = deck[:5], deck[5:10]
    ours = rank_hand(first), rank_hand(second)
    ref = reference(first), reference(second)
    assert ours[0].category == ref[0][0] and ours[1].category == ref[1][0]
    assert (ours[0] > ours[1]) == (ref[0] > ref[1])
    assert (ours[0] == ours[1]) == (ref[0] == ref[1])
