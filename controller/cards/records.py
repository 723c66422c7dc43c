"""The card core's record types: what every card table journals of its shoe and its cards
(``controller.cards.shoe``, ``controller.cards.table``, ``controller.cards.game``).

A card game lists them in its ``GameSpec(records=...)`` (``CARD_RECORDS``, and the fields
its :class:`CardTags` add: its game's number, e.g. ``coup``, which the records carry as
their ``tag``); ``controller.cards.spec.card_spec`` lists both.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from controller.store.records import (
    ABSENT,
    NO_FIELDS,
    Absent,
    Extension,
    FieldSpec,
    Record,
    extends,
    record,
)
from controller.store.shared import Alarm, Recovery

Tag = Mapping[str, int]
"""What ties a card table's record to its game: the game's number under the game's own
name (``{"coup": 3}``), in the body of the card core's records that take it (``tag``); the
game declares that field in its schema."""


@record("card")
class Card(Record):
    """A card dealt to ``hand`` ("box 2", "banca"...), ``face_down`` until turned (seed 000
    Art. 6), ``manual`` when the dealer entered it (a misread corrected)."""

    hand: str
    card: str
    face_down: bool
    manual: bool
    tag: Tag = NO_FIELDS


@record("card_turned")
class CardTurned(Record):
    """A face-down card turned: the public may see it from now on."""

    hand: str
    card: str
    tag: Tag = NO_FIELDS


@record("bets_closed")
class BetsClosed(Record):
    """Bets closed and the deal begins: the ``boxes`` in play."""

    boxes: list[int]
    tag: Tag = NO_FIELDS


@record("misread")
class Misread(Record):
    """A card passed the reader unread: by the shoe (``pending`` misreads awaiting the
    dealer's correction) and by the game (the ``hand`` it was due to)."""

    hand: str | Absent = ABSENT
    pending: int | Absent = ABSENT
    tag: Tag = NO_FIELDS


@record("shoe_procedure")
class ShoeProcedure(Record):
    """A step of a shoe procedure (seed 002 Art. 5-6), ``times`` for a step done several
    times, ``by`` for one that asks who."""

    procedure: str
    step: str
    times: int | Absent = ABSENT
    by: str | Absent | None = ABSENT


@record("burn")
class Burn(Record):
    """A card drawn and burned; ``cards_left`` in the shoe by composition."""

    card: str
    cards_left: int


@record("cut_card")
class CutCard(Record):
    """The cut card passed the reader; ``late`` / ``early``: misplaced (seed 002 Art. 5 e)."""

    cards_left: int
    late: bool
    early: bool


@record("shoe_closed")
class ShoeClosed(Record):
    """The shoe closed (``reason``: cut_card, decks_changed, game_finished): the procedure
    after it is due; ``count_out`` True when the count-out comes first (seed 002 Art. 4)."""

    reason: str
    cards_left: int
    note: str | Absent = ABSENT
    count_out: bool | Absent = ABSENT


@record("count_out_card")
class CountOutCard(Record):
    """A card of the count-out of a closed shoe (seed 002 Art. 4, the decks checked
    complete: ``controller.cards.count_out``), dealt to no hand; ``cards_left`` in the shoe
    by composition."""

    card: str
    cards_left: int


@record("count_out")
class CountOut(Record):
    """The dealer ended the count-out: ``cards`` read in it, ``seen`` in the whole shoe,
    the cards of the composition ``missing`` (one entry a copy; [] for complete decks)."""

    cards: int
    seen: int
    missing: list[str]


@record("manual_card")
class ManualCard(Record):
    """The dealer's correction of a misread card."""

    card: str


@record("inspector_clear")
class InspectorClear(Record):
    """The inspector resumed play after the stopping alarms it ``cleared``."""

    note: str
    cleared: list[str]


@record("game_void")
class GameVoid(Record):
    """The inspector voided the game held for him (``controller.cards.held``): its number
    (``game``), ``reason`` and ``by`` as given, the cards read that no hand took
    (``cards_waiting``), the holds it ``cleared``; its stakes' settlements follow."""

    game: int
    reason: str
    by: str
    cards_waiting: int
    cleared: list[str]


@extends
class CardAlarm(Alarm):
    """What a card table's alarms add: whether they stop play, and what was read."""

    stops_play: bool | Absent = ABSENT
    card: str | Absent = ABSENT
    burn: bool | Absent = ABSENT
    text: str | Absent = ABSENT
    reader_code: str | Absent = ABSENT
    mask: int | Absent = ABSENT
    count: int | Absent = ABSENT
    length: int | Absent = ABSENT
    lost: str | Absent | None = ABSENT
    missing: list[str] | Absent = ABSENT
    tag: Tag = NO_FIELDS


@extends
class CardRecovery(Recovery):
    """What a card table's recovery record adds: the shoe and the next hand due."""

    shoe_cards_left: int | Absent = ABSENT
    waiting_for: str | Absent | None = ABSENT
    tag: Tag = NO_FIELDS


CARD_RECORDS: tuple[type, ...] = (Card, CardTurned, BetsClosed, Misread, ShoeProcedure, Burn,
                                  CutCard, ShoeClosed, CountOutCard, CountOut, ManualCard,
                                  InspectorClear, GameVoid, CardAlarm, CardRecovery)
"""The card core's record types and extensions, for a card game's ``GameSpec.records``."""



@dataclass(frozen=True)
class CardTags:
    """How a card game ties the card core's records to its games: a game's number under the
    game's own ``name`` (``coup``) on its alarms and its recovery (optional: none before the
    first game), and on the records of its cards under ``cards`` (default ``name``; draw
    poker's ``hand`` is a box there, so its cards carry ``game``): required on ``card``,
    ``card_turned`` and (``bets_closed``) ``bets_closed``, optional on ``misread`` (the
    shoe's own misreads have none). The records carry it as their ``tag``."""

    name: str
    cards: str | None = None
    bets_closed: bool = True

    def of(self, number: int) -> Tag:
        """The tag of an alarm or a recovery of game ``number``."""
        return {self.name: number}

    def of_cards(self, number: int) -> Tag:
        """The tag of a card record of game ``number``."""
        return {self.cards or self.name: number}

    @property
    def records(self) -> tuple[type, ...]:
        """The extensions that declare the tags, for the game's ``GameSpec.records``."""
        cards = self.cards or self.name
        on: list[tuple[type[Record], str, bool]] = [
            (Card, cards, False), (CardTurned, cards, False),
            *([(BetsClosed, cards, False)] if self.bets_closed else []),
            (Misread, cards, True), (Alarm, self.name, True), (Recovery, self.name, True)]
        return tuple(type(f"{base.__name__}Tag", (), {"SPEC": Extension(
            base.TYPE, (FieldSpec(key, (int,), False, optional),))})
            for base, key, optional in on)
