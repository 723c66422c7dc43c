"""The record types of the two Black Jack tables (seed 002, seed 004; CONTRACT §6), and the
``coup`` they add to the card core's and the shared records (``controller.store.records``).

Black Jack Plus and Pot Luck journal the same types; Pot Luck's coups add the pool
(``coup_start``'s ``pool_balance``, the ``pool_balance`` record) and the pool's and the
bonus's settlements their qualifying ``hand`` and ``prize``.
"""

from __future__ import annotations

from typing import Any

from controller.cards.records import CardTags, CardTurned
from controller.store.records import ABSENT, Absent, Record, extends, record
from controller.store.shared import Settlement


@record("coup_start")
class CoupStart(Record):
    """A coup starts with bets open (Art. 7): its number, the decks, the main bet's limits
    (chips), the dealer's rule (``s17``/``h17``); at Pot Luck the pool as it opens."""

    coup: int
    decks: int
    min_bet: int
    max_bet: int
    dealer: str
    pool_balance: int | Absent = ABSENT


@record("bet_placed")
class BetPlaced(Record):
    """An accepted bet (``main``, ``pool``, ``bonus``, ``insurance``), every field of the bet
    input, and the box's ``total`` of that kind (chips)."""

    coup: int
    kind: str
    box: int
    amount: int
    total: int
    numbers: list[str] | Absent = ABSENT
    which: int | Absent = ABSENT
    by: str | Absent = ABSENT
    authorized: bool | Absent = ABSENT


@record("box_refused")
class BoxRefused(Record):
    """A box with bets not dealt in (seed 004 Art. 7: a pool bet and a bet are both due):
    the rule's ``code``, in words, and the bets ``returned`` by kind (chips)."""

    coup: int
    box: int
    code: str
    message: str
    returned: dict[str, int]


@record("insurance_offered")
class InsuranceOffered(Record):
    """The dealer's up card is an ace: insurance offered to ``boxes`` (seed 002 Art. 10),
    each with the most it may take (``{"box", "max"}``, chips). Journaled with the up
    card's ``card_turned``, with the dealer's first input after the deal that is not
    ``second_card_exposed`` (Art. 8; ``chart``)."""

    coup: int
    boxes: list[dict[str, int]]


@record("insurance_closed")
class InsuranceClosed(Record):
    """The dealer closed the insurance question (seed 002 Art. 10): the insurance bets
    taken (``{"box", "amount"}``, chips). ``reason`` ``second_card_exposed``: only in
    journals written before the up card's turn was held until the exposure could no
    longer come (an exposed second card that is no ace withdrew the question then)."""

    coup: int
    boxes: list[dict[str, int]]
    reason: str | Absent = ABSENT


@record("decision")
class Decision(Record):
    """A player's decision for a hand (``hit``, ``stand``, ``double``, ``split``,
    ``surrender``; Art. 8-9); a double's new ``stake`` (chips); ``by`` ``inspector`` for
    his stand of a hand a waiting card would leave without place (absent: the dealer)."""

    coup: int
    box: int
    hand: str
    action: str
    stake: int | Absent = ABSENT
    by: str | Absent = ABSENT


@record("dealer_turn")
class DealerTurn(Record):
    """Every hand is finished: the dealer turns his hole card and plays for the hands still
    ``live`` (CONTRACT §6)."""

    coup: int
    live_hands: list[str]


@record("pool_balance")
class PoolBalance(Record):
    """Pot Luck's pool after a coup (seed 004 Art. 7): the balance ``before``, the pool bets
    ``contributed``, the prizes ``paid`` and the ``balance`` after (chips)."""

    coup: int
    before: int
    contributed: int
    paid: int
    balance: int


@record("coup_result")
class CoupResult(Record):
    """The coup's result: the dealer's hand and every box's hands with their outcomes."""

    coup: int
    dealer: dict[str, Any]
    boxes: list[dict[str, Any]]


@extends
class CardTurnedUp(CardTurned):
    """The dealer's card turned: his ``up_card`` (Art. 8) or his hole card."""

    up_card: bool


@extends
class SettlementPool(Settlement):
    """A double's or a split's stake ``returned`` against a dealer blackjack, a box refused;
    the qualifying ``hand`` of a pool bet or a bonus, and a pool bet's ``prize`` (chips)."""

    returned: int | Absent = ABSENT
    hand: str | Absent = ABSENT
    prize: int | Absent = ABSENT


TAGS = CardTags("coup")
"""Each coup's number, ``coup``, on the card core's records."""

RECORDS: tuple[type, ...] = (CoupStart, BetPlaced, BoxRefused, InsuranceOffered,
                             InsuranceClosed, Decision, DealerTurn, PoolBalance, CoupResult,
                             CardTurnedUp, SettlementPool)
"""Black Jack's own record types and the fields it adds to the card core's and the shared
ones (``card_spec`` adds the card core's and the tags)."""
