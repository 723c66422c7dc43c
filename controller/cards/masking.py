"""Cards dealt face down, hidden from the public until they are turned: the one implementation,
used live (a card table's ``present``, on the records one input caused) and in recall
(``controller.store.recall``, on a whole game's records).

Seed 000 Art. 6 deals the house's first card face down until the dealer turns it; seed 002
Art. 8 the dealer's hole card; seed 003 num. 6 every player's cards. The rule knows no
game, only the card core's records:

- a ``card`` record with ``face_down: true`` shows ``"??"`` for its card until a
  ``card_turned`` record of the same hand and card follows (each turn reveals one such
  card, the earliest: a hand dealt two alike face down, one turned, keeps one hidden);
- the records that carried such a card in are masked with it: the raw shoe bytes
  (``serial`` text), the dealer's correction (``input`` ``card``, ``manual_card``); that is,
  those of the input that dealt it, and those just before it (a line split across reads, a
  misread corrected by hand);
- while a face-down card may be in flight or out (from the deal's start, a card game's
  ``bets_closed``), whatever may name a card's face is masked too (:func:`raw_view`): the
  raw shoe bytes (part of a line may hold it); the card fields (``card``, ``cards``) of
  every dealer input, whatever their form and whether taken or refused (cards a player
  throws face down, seed 003 num. 9, are never turned; ``lost_cards`` typed as a string;
  a ``refuse_card`` too late); an alarm's ``card`` (a card read but placed in no hand)
  and ``text`` (a raw line the reader sent damaged: ``[Game]<Card:A5>``, ``rd:KS>``), in
  those fields and where its message quotes them or the card fields of the input it
  refuses;
- a ``checkpoint`` never shows the cards its shoe counted (:func:`checkpoint_view`):
  they include cards never shown (a folded hand's, the discards).

Live, nothing journaled later can be known: a card is masked when it is dealt face down,
whatever follows in the same input, and the game says whether the shoe's bytes may carry a
face-down card now. In recall, the whole game is known: a card turned since is shown, and
once every face-down card is turned nothing is hidden. The journal keeps every record whole.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from typing import Any

Record = dict[str, Any]

HIDDEN = "??"
"""What the public sees of a card still face down."""
DEAL_STARTS = "bets_closed"
"""The record a card game journals when bets close and the deal begins."""
CHECKPOINT = "checkpoint"
"""The table's record of its state for a restart (``controller.core.table``)."""
TURNED = "card_turned"
"""The record a card game journals when it turns a face-down card (``hand``, ``card``)."""

_INPUTS = ("serial", "input")  # records that start what one input caused
_CARRIERS = ("serial", "manual_card", "input")
# Records walked over, back from a face-down card, to the carriers just before it.
_BEFORE = (*_CARRIERS, "misread", "alarm")
# The fields of a dealer's input (and of the correction's record) that name cards, in
# whatever form he typed them (a list, a string, "[9H]" without quotes).
_CARD_FIELDS = ("card", "cards")
# The fields of an alarm that quote what the shoe sent or read: a card, a raw line.
_ALARM_FIELDS = ("card", "text")


def public_view(record: Record, turned: bool = False, hide_raw: bool = False) -> Record:
    """A record as a display may show it: a face-down card not yet turned is masked, and
    with ``hide_raw`` so is whatever may carry a card's face in (see :func:`raw_view`).
    Any other record is itself."""
    kind = record.get("type")
    if kind == "card" and record.get("face_down") and not turned:
        return {**record, "card": HIDDEN}
    if hide_raw and not turned:
        return raw_view(record)
    return record


def raw_view(record: Record, typed: Sequence[str] = ()) -> Record:
    """``record`` with every card's face it may carry masked, while a card of the game
    may be face down: the shoe's raw bytes (``serial`` ``text``); the card fields of a
    dealer's input and of his correction (``card``, ``cards``, whatever their form: a
    refused input names a card as surely as an accepted one); an alarm's ``card`` and
    ``text`` (a card read but placed nowhere, a raw line the reader sent damaged), and
    those and ``typed`` (the card fields of the input the alarm answers, as text) where
    its message quotes them. Any other record is itself."""
    kind = record.get("type")
    if kind == "serial":
        return {**record, "text": HIDDEN}
    if kind in ("input", "manual_card"):
        masked = {k: _hidden(record[k]) for k in _CARD_FIELDS if k in record}
        return {**record, **masked} if masked else record
    if kind != "alarm":
        return record
    quoted = [record[k] for k in _ALARM_FIELDS if isinstance(record.get(k), str) and record[k]]
    words = [*quoted, *typed]
    if not words:
        return record
    message = str(record.get("message", ""))
    for word in sorted(words, key=len, reverse=True):  # a line before the card in it
        message = message.replace(repr(word), HIDDEN).replace(word, HIDDEN)
    masked = {k: HIDDEN for k in _ALARM_FIELDS if isinstance(record.get(k), str)}
    return {**record, **masked, **({"message": message} if "message" in record else {})}


def _hidden(value: Any) -> Any:
    return [HIDDEN] * len(value) if isinstance(value, list) else HIDDEN


def typed_cards(record: Record) -> list[str]:
    """The text of the card fields of a dealer's input (none for another record): what
    an alarm refusing it may quote. A character alone names no card."""
    if record.get("type") != "input":
        return []
    words: list[str] = []
    for key in _CARD_FIELDS:
        value = record.get(key)
        for item in value if isinstance(value, list) else [value]:
            if item is not None and len(text := str(item)) > 1:
                words.append(text)
    if isinstance(record.get("cards"), list):
        words.append(json.dumps(record["cards"]))  # a message may quote it whole
    return words


def mask_face_down(records: Sequence[Record], *, reveal_turned: bool,
                   raw_hidden_from: int | None) -> list[Record]:
    """``records`` (in journal order) as the public may see them (see the module doc).

    Args:
        records: consecutive records of the journal.
        reveal_turned: a ``card_turned`` among ``records`` reveals its card (recall); False
            live, where a card is shown as it was dealt.
        raw_hidden_from: index in ``records`` from which raw shoe bytes may carry a
            face-down card; None when none may.
    """
    turned = Counter((r.get("hand"), r.get("card")) for r in records
                     if reveal_turned and r.get("type") == TURNED)
    any_turned = bool(turned)
    hidden = []
    for i, r in enumerate(records):
        if r.get("type") == "card" and r.get("face_down"):
            key = (r.get("hand"), r.get("card"))
            if turned[key]:
                turned[key] -= 1  # one turn reveals one card: two alike stay one hidden
            else:
                hidden.append(i)
    if any_turned and not hidden:
        # Every face-down card is turned: nothing is hidden any more, but the cards that
        # never were face up (a void coup's, the count-out's) in a checkpoint.
        return [checkpoint_view(r) for r in records]
    shown = list(records)
    for i in hidden:
        shown[i] = public_view(records[i])
    typed: list[list[str]] = []  # the card fields of the input each record answers
    for r in records:
        typed.append(typed_cards(r) if r.get("type") in _INPUTS or not typed else typed[-1])

    def hide_raw(i: int) -> None:
        if not (records[i].get("type") == "card" and records[i].get("face_down")):
            shown[i] = raw_view(records[i], typed[i])

    if raw_hidden_from is not None:
        for i in range(raw_hidden_from, len(records)):
            hide_raw(i)
    for i in hidden:
        # The input that dealt it, whole ...
        start = next((j for j in range(i, -1, -1) if records[j].get("type") in _INPUTS), 0)
        end = next((j for j in range(i + 1, len(records))
                    if records[j].get("type") in _INPUTS), len(records))
        for j in range(start, end):
            hide_raw(j)
        # ... and the carriers just before the card.
        j = i - 1
        while j >= 0 and records[j].get("type") in _BEFORE:
            hide_raw(j)
            j -= 1
    return [checkpoint_view(r) for r in shown]


def checkpoint_view(record: Record) -> Record:
    """A ``checkpoint`` record (any other record is itself) without the cards its shoe
    counted (``state.shoe.counts``, what a restart needs): they are every card the shoe
    gave since it was loaded, those never shown included (a folded or void hand's, the
    discards: seed 003 num. 7, 8 d, 9; a coup voided before its hole card was turned).
    The public sees how many, as ``{"??": n}``."""
    if record.get("type") != CHECKPOINT:
        return record
    state = record.get("state")
    if not isinstance(state, dict) or not isinstance(shoe := state.get("shoe"), dict):
        return record
    counts = shoe.get("counts")
    if not isinstance(counts, dict) or not counts:
        return record
    total = sum(n for n in counts.values() if isinstance(n, int))
    return {**record, "state": {**state, "shoe": {**shoe, "counts": {HIDDEN: total}}}}


def present_input(records: Sequence[Record], face_down_pending: bool) -> list[Record]:
    """Live: the records one input caused, as the public may see them now;
    ``face_down_pending`` says whether the shoe's bytes may carry a face-down card now (the
    game's :meth:`~controller.cards.game.CardGame.face_down_pending`)."""
    return mask_face_down(records, reveal_turned=False,
                          raw_hidden_from=0 if face_down_pending else None)


def present_game(records: Sequence[Record]) -> list[Record]:
    """Recall: one game's records (its prelude and itself), as the public may see them
    now: raw shoe bytes from the deal's start on may carry a face-down card."""
    start = next((i + 1 for i, r in enumerate(records) if r.get("type") == DEAL_STARTS), None)
    return mask_face_down(records, reveal_turned=True, raw_hidden_from=start)


class LiveMask:
    """Records in journal order, one at a time, as the public may see them when they are
    committed (the display, the feed): nothing later is known, so a face-down card stays
    ``"??"`` (its ``card_turned`` record, when it comes, shows it) and, from a deal's start
    (``bets_closed``) until the next game starts, whatever may name a card's face is
    masked (:func:`raw_view`): any of it may be a face-down card (a line split across
    reads or damaged, a card a player throws face down, a dealer's input typed wrong).

    Args:
        game_start: the record type that starts a game (the game's ``RecallSpec.start``);
            a game that journals no ``bets_closed`` is never masked.
    """

    def __init__(self, game_start: str) -> None:
        self.game_start = game_start
        self._raw_hidden = False
        self._typed: list[str] = []  # the card fields of the last input, as text

    def view(self, record: Record) -> Record:
        """``record`` as the public may see it now (the same dict when nothing is hidden)."""
        kind = record.get("type")
        if kind == DEAL_STARTS:
            self._raw_hidden = True
        elif kind == self.game_start:
            self._raw_hidden = False
        if kind in _INPUTS:
            self._typed = typed_cards(record)
        if kind == "card" and record.get("face_down"):
            return public_view(record)
        if kind == CHECKPOINT:
            return checkpoint_view(record)
        return raw_view(record, self._typed) if self._raw_hidden else record
