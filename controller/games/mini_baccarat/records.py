"""Mini-Bacará's record types (seed 000), and the ``coup`` it adds to the card core's and the
shared records (``controller.store.records``)."""

from __future__ import annotations

from typing import Any

from controller.cards.records import CardTags
from controller.store.records import ABSENT, Absent, Record, record


@record("coup_start")
class CoupStart(Record):
    """A coup starts with bets open (Art. 4): its number, the decks, the limits (chips)."""

    coup: int
    decks: int
    min_bet: int
    max_bet: int


@record("bet_placed")
class BetPlaced(Record):
    """An accepted bet, every field of the bet input, and the box's ``total`` of that kind."""

    coup: int
    kind: str
    box: int
    amount: int
    total: int
    numbers: list[str] | Absent = ABSENT
    which: int | Absent = ABSENT
    by: str | Absent = ABSENT
    authorized: bool | Absent = ABSENT


@record("five_choice")
class FiveChoice(Record):
    """A box on five draws or stands (Art. 8), ``by`` the dealer or the rule."""

    coup: int
    box: int
    choice: str
    by: str


@record("insurance_offered")
class InsuranceOffered(Record):
    """The Banca's first card is a nine: insurance offered to ``boxes`` (Art. 11)."""

    coup: int
    boxes: list[dict[str, int]]


@record("insurance_closed")
class InsuranceClosed(Record):
    """The Banca's second card is out: insurance closed (Art. 11)."""

    coup: int


@record("box_result")
class BoxResult(Record):
    """One box against the Banca (Art. 9), decided by ``article``."""

    coup: int
    box: int
    cards: list[str]
    total: int
    natural: bool
    encart: bool
    banca_cards: list[str]
    banca_total: int
    outcome: str
    article: str


@record("coup_result")
class CoupResult(Record):
    """The coup's result: the Banca's hand and every box's."""

    coup: int
    banca: dict[str, Any]
    boxes: list[dict[str, Any]]


TAGS = CardTags("coup")
"""Each coup's number, ``coup``, on the card core's records."""

RECORDS: tuple[type, ...] = (CoupStart, BetPlaced, FiveChoice, InsuranceOffered,
                             InsuranceClosed, BoxResult, CoupResult)
"""Mini-Bacará's own record types (``card_spec`` adds the card core's and the tags)."""
