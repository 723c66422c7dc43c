"""Draw poker's record types (seed 003; CONTRACT §7), and the hand number it adds to the card
core's and the shared records (``controller.store.records``): ``hand`` on its own records,
on an alarm and on a recovery; ``game`` on a ``card``, ``card_turned`` and ``misread``, whose
``hand`` is the box's ("box 2"). Amounts in chips; a share of the 5% to the cent is a
float."""

from __future__ import annotations

from typing import Any

from controller.cards.records import BetsClosed, CardTags
from controller.store.records import ABSENT, Absent, Record, extends, record
from controller.store.shared import Settlement


@record("hand_start")
class HandStart(Record):
    """A hand starts with the antes open (num. 4), within the house's ante limits."""

    hand: int
    min_ante: int
    max_ante: int
    min_later_bet: int | Absent = ABSENT  # num. 21, when the config sets them
    max_later_bet: int | Absent = ABSENT


@record("ante_placed")
class AntePlaced(Record):
    """An accepted ante, every field of the bet input, and the hand's agreed ``ante``."""

    hand: int
    kind: str
    box: int
    amount: int
    ante: int
    numbers: list[str] | Absent = ABSENT
    which: int | Absent = ABSENT


@record("mano")
class Mano(Record):
    """The dealer named the player who speaks first (num. 8)."""

    hand: int
    box: int


@record("round_start")
class RoundStart(Record):
    """A betting round opens (num. 8, 12): the boxes in turn ``order``, the ``ante``, the
    ``cap`` of a bet in the round, the ``article``."""

    hand: int
    round: int
    order: list[int]
    ante: int
    cap: int
    article: str


@record("round_action")
class RoundAction(Record):
    """A player's action in a round: the chips ``put`` in, the round's ``level``, his
    ``total`` in the round, the ``pot`` after it."""

    hand: int
    round: int
    box: int
    action: str
    put: int
    level: int
    total: int
    pot: int


@record("draw_start")
class DrawStart(Record):
    """The draw opens (num. 9): the players in discard ``order``, from Mano."""

    hand: int
    order: list[int]


@record("draw")
class Draw(Record):
    """A player's discard: how many cards he threw (the cards are face down: not named)."""

    hand: int
    box: int
    discarded: int


@record("hand_void")
class HandVoid(Record):
    """A player's hand is void (num. 10, 11): why, the cards he held, his stake returned."""

    hand: int
    box: int
    reason: str
    cards_held: int
    article: str
    message: str


@record("mano_nula")
class ManoNula(Record):
    """Every player passed in the first round (num. 8 b): the antes are returned."""

    hand: int
    article: str
    message: str


@record("rake")
class Rake(Record):
    """The house's 5% (num. 15, 19) on the antes and the losers' bets, to the cent, and
    the losing chips integrated into the Banca."""

    hand: int
    antes: float
    losers_bets: float
    base: float
    rake_antes: float
    rake_bets: float
    rake: float
    losing_chips: float
    percent: int
    article: str


@record("hand_result")
class HandResult(Record):
    """The hand's end: its ``outcome`` (showdown, folds, mano_nula, void), Mano, the ante,
    the last bettor, every box (cards shown or ``??``), the winners and the pot."""

    hand: int
    outcome: str
    mano: int
    ante: int | None
    last_bettor: int | None
    boxes: list[dict[str, Any]]
    winners: list[int]
    pot: dict[str, Any]


@extends
class BetsClosedHand(BetsClosed):
    """The deal begins (num. 5): the hand, its agreed ante, Mano, the antes in the pot."""

    hand: int
    ante: int
    mano: int
    antes: int


@extends
class SettlementShares(Settlement):
    """A winner's shares (num. 19): the antes less the 5%, the others' bets less the 5%,
    his own bets returned."""

    antes_less_rake: float | Absent = ABSENT
    others_bets_less_rake: float | Absent = ABSENT
    own_bets_returned: float | Absent = ABSENT


TAGS = CardTags("hand", cards="game", bets_closed=False)
"""Each hand's number on the card core's records: ``hand`` on an alarm and a recovery,
``game`` on a card's records (their ``hand`` is the box's)."""

RECORDS: tuple[type, ...] = (HandStart, AntePlaced, Mano, RoundStart, RoundAction, DrawStart,
                             Draw, HandVoid, ManoNula, Rake, HandResult, BetsClosedHand,
                             SettlementShares)
"""Draw poker's own record types and the fields it adds to the card core's and the shared
ones (``card_spec`` adds the card core's and the tags)."""
