"""The value of a five-card poker hand, as seed 003 (Montevideo, Reglamento de Poker) ranks it.

Num. 16, the categories, low to high ("en orden creciente"): high card ("carta mayor"), one
pair ("par simple"), two pair ("par doble"), three of a kind ("pierna o trío"), straight
("escalera"), flush ("color"), full house ("full"), four of a kind ("póker"), straight flush
("escalera color"), royal flush ("escalera real", 10-J-Q-K-A of one suit).

Num. 17 and 18, within a category:

- a pair: the higher pair, then the highest other card, and so on (num. 18: "define la carta
  más alta siguiente");
- two pair: the higher pair, then the other pair, then the fifth card;
- three of a kind and four of a kind: the higher trio or four (one deck: two hands never hold
  the same), then the other cards;
- a full house: the trio ("Define el Full quien tenga el trío de cartas de mayor valor"),
  then the pair;
- a straight, and a straight flush: the highest card; the ace goes "antes del 2 y después
  del Rey (K)", so A-2-3-4-5 is the lowest straight (five high) and 10-J-Q-K-A the highest;
  a straight never wraps round the ace (Q-K-A-2-3 is no straight);
- a flush and high card: the highest card, then the next, down to the fifth;
- the ace is the highest card in every comparison, then K, Q, J, 10 down to 2 (num. 18);
- the suit never counts ("En ningún caso el 'palo' se tendrá en cuenta"); equal values
  tie, and a tie shares the pot (num. 18, :mod:`controller.games.draw_poker.payment`).

A hand's value is a :class:`HandValue`, (category, ranks): tuples compare as the seed
ranks, so the greater value wins and equal values tie. :func:`value_of` is the whole rule,
on the five ranks sorted high to low and whether the suits are all one; the table and the
census (:mod:`controller.games.draw_poker.analysis`) both call it for every hand.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import IntEnum
from typing import NamedTuple

from controller.cards.card import Card

ACE = 14
RANK_VALUES = {"2": 2, "3": 3, "4": 4, "5": 5, "6": 6, "7": 7, "8": 8, "9": 9, "T": 10,
               "J": 11, "Q": 12, "K": 13, "A": ACE}
"""Num. 18: the ace is the highest card, then K (13), Q, J, 10 down to 2."""


class Category(IntEnum):
    """Num. 16, in increasing order; ``name`` is the word of the records (``rank``)."""

    high_card = 0         # carta mayor
    one_pair = 1          # par simple
    two_pair = 2          # par doble
    three_of_a_kind = 3   # pierna o trío
    straight = 4          # escalera
    flush = 5             # color
    full_house = 6        # full
    four_of_a_kind = 7    # póker
    straight_flush = 8    # escalera color
    royal_flush = 9       # escalera real


class HandValue(NamedTuple):
    """A hand's value: its ``category`` and the ``ranks`` (2-14) that break ties within it,
    most significant first. A greater value wins; equal values tie (suits never count)."""

    category: Category
    ranks: tuple[int, ...]


_C = Category
# Five ranks sorted high to low with some equal: which adjacent ones are equal, (a == b,
# b == c, c == d, d == e), gives the category and the order of the ranks that compare
# (indices into the five): the group first, then the rest high to low.
_GROUPED: dict[tuple[bool, bool, bool, bool], tuple[Category, tuple[int, ...]]] = {
    (True, True, True, False): (_C.four_of_a_kind, (0, 4)),
    (False, True, True, True): (_C.four_of_a_kind, (1, 0)),
    (True, True, False, True): (_C.full_house, (0, 3)),
    (True, False, True, True): (_C.full_house, (2, 0)),
    (True, True, False, False): (_C.three_of_a_kind, (0, 3, 4)),
    (False, True, True, False): (_C.three_of_a_kind, (1, 0, 4)),
    (False, False, True, True): (_C.three_of_a_kind, (2, 0, 1)),
    (True, False, True, False): (_C.two_pair, (0, 2, 4)),
    (True, False, False, True): (_C.two_pair, (0, 3, 2)),
    (False, True, False, True): (_C.two_pair, (1, 3, 0)),
    (True, False, False, False): (_C.one_pair, (0, 2, 3, 4)),
    (False, True, False, False): (_C.one_pair, (1, 0, 3, 4)),
    (False, False, True, False): (_C.one_pair, (2, 0, 1, 4)),
    (False, False, False, True): (_C.one_pair, (3, 0, 1, 2)),
}
_DISTINCT = (False, False, False, False)


def value_of(ranks: tuple[int, int, int, int, int], flush: bool) -> HandValue:
    """The value of a hand of five cards (num. 16-18).

    Args:
        ranks: the five ranks, 2 to 14 (ace), sorted from high to low.
        flush: the five cards are of one suit.

    Raises:
        KeyError: five equal ranks (no French deck holds them).
    """
    a, b, c, d, e = ranks
    key = (a == b, b == c, c == d, d == e)
    if key == _DISTINCT:
        if a - e == 4:
            top = a
        elif a == ACE and b == 5:  # A-2-3-4-5: the ace before the 2, five high (num. 17)
            top = 5
        else:
            return HandValue(_C.flush if flush else _C.high_card, ranks)
        if flush:
            return HandValue(_C.royal_flush if top == ACE else _C.straight_flush, (top,))
        return HandValue(_C.straight, (top,))
    category, order = _GROUPED[key]
    return HandValue(category, tuple([ranks[i] for i in order]))


def rank_hand(cards: Iterable[Card]) -> HandValue:
    """The value of five cards (num. 16-18).

    Raises:
        ValueError: not five cards, or the same card twice (one deck, num. 1).
    """
    hand = list(cards)
    if len(hand) != 5 or len(set(hand)) != 5:
        raise ValueError(f"a poker hand is five different cards: {[str(c) for c in hand]}")
    ranks = sorted((RANK_VALUES[c.rank] for c in hand), reverse=True)
    flush = len({c.suit for c in hand}) == 1
    return value_of((ranks[0], ranks[1], ranks[2], ranks[3], ranks[4]), flush)


def winners(values: dict[int, HandValue]) -> list[int]:
    """The boxes whose value is the highest of ``values`` (box: value), several on a tie
    (num. 18), in the order of ``values``."""
    best = max(values.values())
    return [box for box, value in values.items() if value == best]
