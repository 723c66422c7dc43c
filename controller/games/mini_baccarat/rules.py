"""Mini-Bacará rules on hands (seed 000, decree 217/978, applying Punto y Banca 526/977).

Layer 1 of the game (see :mod:`controller.games.mini_baccarat.game`): pure functions on hands
given as cards or point values, and the table's fixed numbers (Art. 2).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Literal

from controller.cards.card import Card
from controller.core.words import given

BOXES = (1, 2, 3, 4, 5)
"""The numbered boxes ("casilleros") of the layout, five seated bettors (Art. 2)."""
DECKS = 4
"""Decks in the sabot of a Mini-Bacará table (Art. 2: "los cuatro mazos")."""

BET_KINDS = ("punto", "banca", "insurance")
BET_RECORD = "bet_placed"
"""The record of an accepted bet: every field of the bet input, its coup and the box's total."""
FIVE_CHOICES = ("draw", "stand")
INSURANCE_RULES = ("natural_nine", "banca_natural")
"""When insurance wins (Art. 11 Decision): ``natural_nine`` the Banca's two cards total a
natural nine (default, by analogy with Black Jack); ``banca_natural`` any Banca natural."""

Outcome = Literal["punto", "banca", "standoff"]
Hand = Sequence[Card | int]
"""A hand as cards, or as baccarat point values 0-9 (the exact analysis uses points)."""

BANCA = 0
"""Internal key of the Banca's hand beside the box numbers 1-5."""


# --------------------------------------------------------------------------------------
# 1. Rules (Punto y Banca as applied by Art. 1, 7-11)
# --------------------------------------------------------------------------------------


def points(card: Card | int) -> int:
    """Points of a card in Punto y Banca: ace 1, two to nine face value, ten and figures 0
    (RULES.md §2, decree 526/977 as practised: "Ten and figures count 0, ace 1"). A point
    value 0-9 (the exact analysis deals in points) is itself."""
    if isinstance(card, int):
        return card
    if card.rank == "A":
        return 1
    if card.rank in "TJQK":
        return 0
    return int(card.rank)


def hand_total(cards: Iterable[Card | int]) -> int:
    """Total of a hand, 0-9: the sum of its points modulo 10 (ten and figures 0, ace 1)."""
    return sum(points(c) for c in cards) % 10


def is_natural(cards: Hand) -> bool:
    """True for 8 or 9 on the first two cards: the hand is decided "de aire" (Art. 7)."""
    return len(cards) == 2 and hand_total(cards) >= 8


def is_encart(box: Hand, banca: Hand) -> bool:
    """True for "encart" (Art. 9 d): box and Banca both 6, or both 7, on two cards.

    The coup is a standoff and nobody takes another card.
    """
    return len(box) == 2 and len(banca) == 2 and hand_total(box) == hand_total(banca) in (6, 7)


def box_draws(total: int, five_choice: str | None) -> bool:
    """Whether a box on this two-card ``total`` takes a third card (Punto y Banca tableau).

    The box draws ("pedir") on 0-4 and stands ("plantar") on 6-7; naturals (8-9) stand; on
    five it does what ``five_choice`` says, ``"draw"`` or ``"stand"`` (Art. 8).

    Raises:
        ValueError: ``total`` is five and ``five_choice`` is neither "draw" nor "stand".
    """
    if total <= 4:
        return True
    if total == 5:
        if five_choice not in FIVE_CHOICES:
            raise ValueError(f"a box on five needs a choice, 'draw' or 'stand': "
                             f"{given(five_choice)}")
        return five_choice == "draw"
    return False


def banca_draws(banca_total: int, box_third_card_points: int | None) -> bool:
    """Whether the Banca, on its two-card ``banca_total``, draws against one box.

    ``box_third_card_points`` is the points (0-9) of that box's third card, or None when
    the box stood on two cards. Box stood: the Banca draws on 0-5 and stands on 6-7. Box
    drew: 0-2 draw; 3 draws unless the third card is 8; 4 draws on 2-7; 5 on 4-7; 6 on
    6-7; 7 stands. A natural (8-9) always stands. (RULES.md §2, decree 526/977.)
    """
    if box_third_card_points is None:
        return banca_total <= 5
    third = box_third_card_points
    if banca_total <= 2:
        return True
    if banca_total == 3:
        return third != 8
    if banca_total == 4:
        return 2 <= third <= 7
    if banca_total == 5:
        return 4 <= third <= 7
    if banca_total == 6:
        return 6 <= third <= 7
    return False


def decided_on_two_cards(box: Hand, banca: Hand) -> bool:
    """True when a natural on either side (Art. 7, 9 a-c) or an encart (Art. 9 d) decides."""
    return is_natural(box) or is_natural(banca) or is_encart(box, banca)


def box_takes_third(box: Hand, banca: Hand, five_choice: str | None) -> bool:
    """Whether a two-card ``box`` gets a third card against the Banca's first two cards."""
    return not decided_on_two_cards(box, banca) and box_draws(hand_total(box), five_choice)


def banca_takes_third(box: Hand, banca: Hand) -> bool:
    """Whether the two-card Banca draws against ``box`` (two or three cards, complete).

    Art. 9 e: the Banca plays each box separately; this says on which side of that
    article's split the box falls.
    """
    if decided_on_two_cards(box[:2], banca):
        return False
    third = points(box[2]) if len(box) == 3 else None
    return banca_draws(hand_total(banca), third)


def outcome(box: Hand, banca: Hand) -> Outcome:
    """Who wins: the higher total; equal totals are a standoff (Art. 9)."""
    p, b = hand_total(box), hand_total(banca)
    if p > b:
        return "punto"
    if b > p:
        return "banca"
    return "standoff"


def insurance_wins(banca: Hand, pays_on: str = "natural_nine") -> bool:
    """Whether insurance ("cobertura o seguro", Art. 11) wins on the Banca's two cards.

    ``pays_on`` is one of INSURANCE_RULES; the default is the RULES.md Decision.
    """
    if pays_on == "natural_nine":
        return is_natural(banca) and hand_total(banca) == 9
    return is_natural(banca)


def banca_win_payout(amount: int) -> int | float:
    """Net chips won by a winning Banca bet of ``amount`` chips: 90% of it (Art. 10).

    The decree says "se pagará solamente como premio un noventa por ciento de la apuesta":
    exactly 9/10 of the stake, not floored. A whole number of chips is returned as an int;
    otherwise the exact amount with 2 decimals (e.g. 15 chips win 13.5), for the cashier to
    settle the fraction.
    """
    whole, rest = divmod(amount * 9, 10)
    return whole if rest == 0 else round(amount * 9 / 10, 2)


def _label(hand: int) -> str:
    return "banca" if hand == BANCA else f"box {hand}"


def _cards(cards: Iterable[Card]) -> list[str]:
    return [str(c) for c in cards]
