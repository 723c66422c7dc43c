"""A basic strategy for the simulated players (multi-deck, the dealer standing on soft 17,
double after a split, late surrender): what a careful player does, so that a simulated coup
sees every decision the regulation offers. Not a rule of the game: the table never asks it.
"""

from __future__ import annotations

from collections.abc import Sequence

from controller.cards.card import Card
from controller.games.blackjack.rules import total, value

# Pairs to split against the up card (2 to 11, 11 an ace), by the pair's card value.
_SPLITS = {
    1: range(2, 12), 8: range(2, 12), 10: range(0), 5: range(0),
    9: (2, 3, 4, 5, 6, 8, 9), 7: range(2, 8), 6: range(2, 7), 4: (5, 6),
    3: range(2, 8), 2: range(2, 8),
}


def decide(cards: Sequence[Card], up: Card, *, can_split: bool, can_double: bool,
           can_surrender: bool) -> str:
    """The basic-strategy decision for a hand against the dealer's up card: ``surrender``,
    ``split``, ``double``, ``hit`` or ``stand`` (only those the ``can_*`` flags allow)."""
    u = value(up)
    u = 11 if u == 1 else u
    points, soft = total(cards)
    if can_surrender and not soft and ((points == 16 and u in (9, 10, 11))
                                       or (points == 15 and u == 10)):
        return "surrender"
    if can_split and u in _SPLITS[value(cards[0])]:
        return "split"
    if soft:
        return _soft(points, u, can_double)
    return _hard(points, u, can_double)


def _soft(points: int, u: int, can_double: bool) -> str:
    doubles = {13: (5, 6), 14: (5, 6), 15: (4, 5, 6), 16: (4, 5, 6), 17: (3, 4, 5, 6),
               18: (3, 4, 5, 6)}
    if can_double and u in doubles.get(points, ()):
        return "double"
    if points >= 19 or (points == 18 and u in (2, 3, 4, 5, 6, 7, 8)):
        return "stand"
    return "hit"


def _hard(points: int, u: int, can_double: bool) -> str:
    doubles = {9: range(3, 7), 10: range(2, 10), 11: range(2, 11)}
    if can_double and u in doubles.get(points, ()):
        return "double"
    if points >= 17 or (13 <= points <= 16 and u <= 6) or (points == 12 and 4 <= u <= 6):
        return "stand"
    return "hit"
