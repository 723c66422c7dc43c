"""Pot Luck's pool and bonus (seed 004 Art. 7): the operator's tables of qualifying hands, and
what a box wins by them.

Seed 004 Art. 7 makes every player place a pool bet and a bet, and a bonus ("bono", blacked
out in the scan) optional; the hands that win the pool and the bonus pay table are on the
missing pages, so they are the operator's configuration (RULES.md §5 Decision): each table
lists qualifying hands (:class:`HandPattern`) with the share of the pool or the multiple of
the bonus bet they pay.

Decisions (the missing pages; stated here and in the example config):

- A box qualifies by one of its hands as played to the end: its cards then (after a split,
  either hand; the best-paying hand counts, once per box). A surrendered hand does not
  qualify: its cards were collected (seed 002 Art. 9, "las cartas repartidas al jugador").
- Every pool bet of a box in play goes into the pool when the coup is settled; then the
  qualifying boxes are paid in box order, each its share of the pool as it stands then,
  rounded down to whole chips (what is left over stays in the pool). The pool bet's
  settlement pays the prize less the bet put in (``payout`` is the net amount won).
- A bonus pays its multiple of the bonus bet ("a to 1", the stake returned) when the box
  qualifies, else loses.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from controller.cards.card import Card
from controller.games.blackjack.rules import is_blackjack, total


@dataclass(frozen=True)
class HandPattern:
    """A qualifying hand; every condition given must hold, those left None are not asked.

    Attributes:
        name: the operator's name for it (``suited_blackjack``), in the records.
        prize: the share of the pool (0 to 1) or the bonus's multiple (to 1).
        ranks: exactly these ranks, in any order (``("7", "7", "7")``: three sevens).
        suited: every card of one suit (True), or not all of one suit (False).
        blackjack: the hand is a blackjack (True), or is not (False).
        total: the hand's total (seed 004 Art. 3).
        cards: the number of cards in the hand.
    """

    name: str
    prize: Fraction
    ranks: tuple[str, ...] | None = None
    suited: bool | None = None
    blackjack: bool | None = None
    total: int | None = None
    cards: int | None = None

    def matches(self, cards: Sequence[Card], from_split: bool) -> bool:
        """Whether a played hand (``from_split``: made by a split) is this pattern."""
        if self.ranks is not None and sorted(c.rank for c in cards) != sorted(self.ranks):
            return False
        if self.suited is not None and (len({c.suit for c in cards}) == 1) != self.suited:
            return False
        if self.blackjack is not None and is_blackjack(cards, from_split) != self.blackjack:
            return False
        if self.total is not None and total(cards)[0] != self.total:
            return False
        return self.cards is None or len(cards) == self.cards


@dataclass(frozen=True)
class PayTable:
    """A table of qualifying hands, in the operator's order (the first of equal prizes wins)."""

    hands: tuple[HandPattern, ...] = ()

    def best(self, hands: Sequence[tuple[Sequence[Card], bool]]) -> HandPattern | None:
        """The best-paying pattern any of a box's played hands (cards, from a split) is, or
        None when none qualifies."""
        found: HandPattern | None = None
        for pattern in self.hands:
            if any(pattern.matches(cards, split) for cards, split in hands) and (
                    found is None or pattern.prize > found.prize):
                found = pattern
        return found


def pool_prize(share: Fraction, balance: int) -> int:
    """A qualifying box's prize: its share of the pool's ``balance``, in whole chips rounded
    down (the remainder stays in the pool)."""
    return math.floor(share * balance)
