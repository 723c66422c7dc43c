"""Black Jack rules on hands: card values, totals, the dealer's drawing rule, what a hand may
do, and what a hand wins (seed 004 Art. 3; seed 002 Art. 8-10; RULES.md §4 Decisions).

Layer 1 of the game (the package's ``__init__`` maps each article to its module): pure
functions on hands given as cards or as point values (1 for an ace, 2 to 10; the exact
analysis deals in values), and the table's rules decisions (:class:`Rules`). Amounts are
chips.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction

from controller.cards.card import Card

TEN_RANKS = ("T", "J", "Q", "K")
"""The ranks worth ten points: "Las figuras ... K, Q y J ... diez (10) puntos" and the ten."""
DEALER_RULES = ("s17", "h17")
"""The dealer stands on all 17s (``s17``, default) or hits a soft 17 (``h17``)."""
DOUBLE_ON = ("any_two", "9_10_11", "10_11")
"""Which first two cards may be doubled on (RULES.md §4 Decision: any two)."""
SPLIT_PAIRS = ("same_rank", "same_value")
"""A pair for a split: two cards of the same rank (default; a K and a Q are no pair), or of
the same value."""
DEALER_BLACKJACK_TAKES = ("original_bets", "all_bets")
"""What a dealer blackjack takes (RULES.md §4 Decision; he does not check for blackjack
before the players act): only each hand's original bet (default; doubles and split bets
are returned), or every bet."""
INSURANCE_PAYS = 2
"""Seed 002 Art. 10: insurance "recibe un premio en proporción de dos a uno"."""

Hand = Sequence[Card | int]
"""A hand as cards, or as point values (1 for an ace, 2 to 10)."""


@dataclass(frozen=True)
class Rules:
    """The rules decisions of a Black Jack table (RULES.md §4; the seeds' pages are missing).

    Attributes:
        blackjack_pays: what a player's blackjack wins per chip staked (3/2: "3 to 2").
        dealer: ``s17`` (the dealer stands on all 17s) or ``h17`` (he hits a soft 17).
        double_on: which first two cards may be doubled (``DOUBLE_ON``).
        double_after_split: a hand made by a split may double on its two cards.
        split_pairs: what makes a pair (``SPLIT_PAIRS``); a box splits once.
        split_aces_one_card: each hand of split aces takes one card and stands.
        dealer_blackjack_takes: ``DEALER_BLACKJACK_TAKES``.
    """

    blackjack_pays: Fraction = Fraction(3, 2)
    dealer: str = "s17"
    double_on: str = "any_two"
    double_after_split: bool = True
    split_pairs: str = "same_rank"
    split_aces_one_card: bool = True
    dealer_blackjack_takes: str = "original_bets"

    @property
    def hits_soft_17(self) -> bool:
        return self.dealer == "h17"


def value(card: Card | int) -> int:
    """The points of a card (seed 004 Art. 3): an ace 1 here (or 11, :func:`total`), K, Q, J
    and the ten 10, two to nine their face. A point value (1 to 10) is itself."""
    if isinstance(card, int):
        return card
    if card.rank == "A":
        return 1
    if card.rank in TEN_RANKS:
        return 10
    return int(card.rank)


def total(cards: Iterable[Card | int]) -> tuple[int, bool]:
    """A hand's total and whether it is soft (seed 004 Art. 3: "El As tendrá un valor de
    once (11) o un (1) punto").

    Every ace counts 1, and one of them 11 when that keeps the hand at 21 or under: the
    hand is then soft (A, A, A, 6 is soft 19; A, 6, K is hard 17). A bust hand's total is
    its hard total (CONTRACT §6), never soft.
    """
    hard = 0
    aces = False
    for card in cards:
        points = value(card)
        hard += points
        aces = aces or points == 1
    if aces and hard + 10 <= 21:
        return hard + 10, True
    return hard, False


def is_blackjack(cards: Hand, from_split: bool = False) -> bool:
    """An ace and a ten-point card as a hand's first two cards, in either order (K then A
    is a blackjack); never a hand made by a split (21 after a split is 21, not a
    blackjack: CONTRACT §6, RULES.md §4)."""
    return not from_split and len(cards) == 2 and total(cards)[0] == 21


def is_bust(cards: Iterable[Card | int]) -> bool:
    """Over 21 with every ace counted 1."""
    return total(cards)[0] > 21


def dealer_draws(cards: Hand, hits_soft_17: bool) -> bool:
    """Whether the dealer takes another card: he draws to 16 and stands on 17 and over;
    on a soft 17 he draws when the table's rule is ``h17`` (RULES.md §4 Decision)."""
    points, soft = total(cards)
    return points < 17 or (points == 17 and soft and hits_soft_17)


def dealer_final(cards: Hand) -> str:
    """The dealer's finished hand as the exact analysis counts it: ``blackjack``, ``bust``
    or its total ("17" to "21")."""
    if is_blackjack(cards):
        return "blackjack"
    if is_bust(cards):
        return "bust"
    return str(total(cards)[0])


def may_double(cards: Hand, from_split: bool, rules: Rules) -> str | None:
    """Why a hand may not double, or None when it may: on its first two cards only, on the
    totals ``rules.double_on`` allows, and after a split only when the table allows it."""
    if len(cards) != 2:
        return "a hand doubles on its first two cards only"
    if from_split and not rules.double_after_split:
        return "this table does not double after a split"
    hard = sum(value(c) for c in cards)
    allowed = {"any_two": None, "9_10_11": (9, 10, 11), "10_11": (10, 11)}[rules.double_on]
    if allowed is not None and hard not in allowed:
        return f"this table doubles on {' or '.join(map(str, allowed))} only, not {hard}"
    return None


def is_pair(cards: Hand, rules: Rules) -> bool:
    """Two cards that may be split: the same rank (or the same value, ``same_value``)."""
    if len(cards) != 2:
        return False
    first, second = cards
    if rules.split_pairs == "same_rank" and isinstance(first, Card) and isinstance(second, Card):
        return first.rank == second.rank
    return value(first) == value(second)


def settle_hand(cards: Hand, from_split: bool, dealer: Hand) -> str:
    """A finished, not surrendered hand against the dealer's finished hand: ``win``,
    ``lose`` or ``push`` (a bust hand loses whatever the dealer holds; a blackjack beats
    any other 21; two blackjacks push)."""
    mine = is_blackjack(cards, from_split)
    theirs = is_blackjack(dealer)
    if is_bust(cards):
        return "lose"
    if mine or theirs:
        return "push" if mine and theirs else "win" if mine else "lose"
    if is_bust(dealer):
        return "win"
    me, him = total(cards)[0], total(dealer)[0]
    return "win" if me > him else "lose" if me < him else "push"


def insurance_wins(hole_card: Card | int) -> bool:
    """Seed 002 Art. 10: insurance wins when the dealer's hole card "será una figura o un
    10"."""
    return value(hole_card) == 10


def chips(amount: Fraction | int) -> int | float:
    """An amount of chips as journaled: an int when whole, else a float (half a chip on a
    surrendered odd bet, a 3 to 2 blackjack on one)."""
    amount = Fraction(amount)
    return int(amount) if amount.denominator == 1 else float(amount)
