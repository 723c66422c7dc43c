"""The shoe as ``tablectl status`` tells it, from a card table's journal: the last procedure
step and the cards left (the card core's records: ``shoe_procedure``, ``burn``, ``cut_card``,
``shoe_closed``, ``card``, ``recovery``), the table's state after a record of its shoe, and
the restart that resumed it. A card game's status module adds its own game's words
(:func:`table_state`, :func:`card_status`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from controller.cards.masking import public_view
from controller.core.contract import GameStatus
from controller.store.journal import Journal

_Rec = dict[str, Any]


def newest(journal: Journal, types: Sequence[str]) -> dict[str, Any] | None:
    """The newest record of any of ``types``, or None."""
    found = [rec for kind in types if (rec := journal.last_of(kind)) is not None]
    return max(found, key=lambda rec: rec["seq"], default=None)


def shoe_status(journal: Journal) -> dict[str, Any]:
    """The shoe: its last procedure step, and its cards left where a record says.

    ``cards_left`` is exact at record ``cards_left_seq`` (a burn, the cut card, the shoe's
    closing, a restart); ``cards_dealt_since`` counts the card records after it. None while
    a procedure is under way (the cards are out of the shoe).
    """
    step = journal.last_of("shoe_procedure")
    status: dict[str, Any] = {
        "last_step": {k: step[k] for k in ("seq", "procedure", "step")} if step else None,
        "cards_left": None, "cards_left_seq": None, "cards_dealt_since": None,
    }
    counted = newest(journal, ("burn", "cut_card", "shoe_closed", "count_out_card",
                               "recovery"))
    # A procedure step after it (the burn's own step aside) gathered the cards: the
    # count is known again at the procedure's burn.
    reshuffling = step is not None and counted is not None and (
        step["seq"] > counted["seq"] and step["step"] != "burn")
    if counted is not None and not reshuffling:
        left = counted.get("cards_left", counted.get("shoe_cards_left"))
        if isinstance(left, int):
            dealt = sum(1 for _ in journal.records(after=counted["seq"], types=("card",)))
            status.update(cards_left=left, cards_left_seq=counted["seq"],
                          cards_dealt_since=dealt)
    return status


COUNT_OUT_STATES = ("count_out_card", "count_out")
"""The count-out's records (``controller.cards.count_out``), for a table's state."""


def count_out_state(rec: dict[str, Any]) -> str | None:
    """The table's state in words after a record of the count-out (a ``shoe_closed`` that
    calls for one among them); None for any other record."""
    kind = rec["type"]
    if kind == "shoe_closed" and rec.get("count_out"):
        return f"count-out due (shoe closed: {rec['reason']}), then count_out_done"
    if kind == "count_out_card":
        return f"count-out under way: {rec['cards_left']} cards of the shoe not seen yet"
    if kind == "count_out":
        if rec["missing"]:
            return (f"decks incomplete ({len(rec['missing'])} cards never seen): new decks "
                    "due (new_shoe), then their procedure")
        return "decks counted out complete: the procedure after the cut card due"
    return None


def shoe_line(shoe: dict[str, Any]) -> str:
    """``shoe_status`` in one line of words for ``tablectl status``."""
    step = shoe["last_step"]
    parts = [f"last step {step['procedure']}: {step['step']}" if step else "no procedure step"]
    if shoe["cards_left"] is not None:
        left = shoe["cards_left"] - shoe["cards_dealt_since"]
        parts.append(f"{left} cards left in the shoe ({shoe['cards_left']} at "
                     f"#{shoe['cards_left_seq']}, {shoe['cards_dealt_since']} dealt since)")
    return "; ".join(parts)


# A shoe closed for this reason needs this procedure next (controller.cards.shoe).
_PROCEDURE_AFTER = {"cut_card": "cut_card", "decks_changed": "new_decks"}
SHOE_STATES = ("shoe_procedure", "shoe_closed", *COUNT_OUT_STATES)
"""The shoe's records that say where a card table is, between its games."""


def shoe_state(rec: _Rec) -> str | None:
    """The table's state in words after a record of its shoe (:data:`SHOE_STATES`): the
    count-out, a procedure under way or complete (its burn completes it, seed 002 Art. 5 g,
    6 d), the procedure due after the shoe closed; None for any other record."""
    counting = count_out_state(rec)
    if counting is not None:
        return counting
    kind = rec["type"]
    if kind == "shoe_procedure":
        if rec["step"] == "burn":
            return f"shoe procedure {rec['procedure']} complete: the next coup may open"
        return f"shoe procedure {rec['procedure']} under way, last step {rec['step']}"
    if kind == "shoe_closed":
        procedure = _PROCEDURE_AFTER.get(rec.get("reason", ""), "cut_card")
        return f"shoe procedure {procedure} due (shoe closed: {rec.get('reason')})"
    return None


def resumed(text: str, rec: _Rec | None, recovery: _Rec | None) -> str:
    """``text``, the table's state after ``rec``, and the restart that resumed it when the
    ``recovery`` record is newer: its seq, and the card the table waits for."""
    if recovery is not None and (rec is None or recovery["seq"] > rec["seq"]):
        text += f"; resumed after a restart (seq {recovery['seq']})"
        if recovery.get("waiting_for"):
            text += f", waiting for the card of {recovery['waiting_for']}"
    return text


def table_state(journal: Journal, own: Sequence[str], words: Callable[[_Rec], str],
                first: Callable[[_Rec | None], str]) -> str:
    """A card table's state in words, where its newest record left it: one of the game's
    ``own`` types (``words`` of it) or of its shoe (:func:`shoe_state`); before any,
    ``first`` of the newest ``recovery`` record (None: none); and the restart that resumed
    it (:func:`resumed`)."""
    rec = newest(journal, (*own, *SHOE_STATES))
    recovery = journal.last_of("recovery")
    text = first(recovery) if rec is None else shoe_state(rec) or words(rec)
    return resumed(text, rec, recovery)


def card_status(journal: Journal, state: str) -> GameStatus:
    """``tablectl status`` of a card table: its ``state`` in words and its shoe (the last
    procedure step as the public sees it, the cards left: :func:`shoe_status`)."""
    shoe = shoe_status(journal)
    step = journal.last_of("shoe_procedure")
    return GameStatus(state=state,
                      fields={"shoe": shoe, "last_shoe_step": public_view(step) if step else None},
                      lines=[("shoe", shoe_line(shoe))])
