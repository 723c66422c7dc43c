"""What ``tablectl status`` says of a Mini-Bacará table, from its journal: the coup under way
and the shoe (seed 000; the shoe procedures of seed 002 Art. 5-6)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from controller.games.base import GameStatus
from controller.store.journal import Journal
from controller.store.recall import public_view


def status(journal: Journal) -> GameStatus:
    """The coup's state in words, the last shoe procedure step and the cards left."""
    shoe = _shoe_status(journal)
    step = journal.last_of("shoe_procedure")
    return GameStatus(state=_card_table_state(journal),
                      fields={"shoe": shoe, "last_shoe_step": public_view(step) if step else None},
                      lines=[("shoe", _shoe_line(shoe))])


def _newest(journal: Journal, types: Sequence[str]) -> dict[str, Any] | None:
    """The newest record of any of ``types``, or None."""
    found = [rec for kind in types if (rec := journal.last_of(kind)) is not None]
    return max(found, key=lambda rec: rec["seq"], default=None)


# A shoe closed for this reason needs this procedure next (controller.cards.shoe).
_PROCEDURE_AFTER = {"cut_card": "cut_card", "decks_changed": "new_decks"}
_COUP_STATES = ("coup_start", "bets_closed", "coup_result", "shoe_procedure", "shoe_closed")


def _card_table_state(journal: Journal) -> str:
    """A card table's state in words, from its newest coup or shoe record.

    Only roulette journals ``state`` records; a card table's state is where its newest
    ``coup_start``, ``bets_closed``, ``coup_result``, ``shoe_procedure`` or ``shoe_closed``
    left it. A newer ``recovery`` record (a restart) resumed that same state.
    """
    rec = _newest(journal, _COUP_STATES)
    recovery = journal.last_of("recovery")
    if rec is None:
        text = ("shoe procedure new_decks due (seed 002 Art. 5)" if recovery is None
                else _recovered_state(recovery))
    else:
        text = _coup_state(rec)
    if recovery is not None and (rec is None or recovery["seq"] > rec["seq"]):
        text += f"; resumed after a restart (seq {recovery['seq']})"
        if recovery.get("waiting_for"):
            text += f", waiting for the card of {recovery['waiting_for']}"
    return text


def _coup_state(rec: dict[str, Any]) -> str:
    kind = rec["type"]
    if kind == "coup_start":
        return f"bets open, coup {rec['coup']}"
    if kind == "bets_closed":
        return f"dealing coup {rec['coup']}"
    if kind == "coup_result":
        return f"coup {rec['coup']} over"
    if kind == "shoe_procedure":
        if rec["step"] == "burn":  # the burn completes a procedure (seed 002 Art. 5 g, 6)
            return f"shoe procedure {rec['procedure']} complete: the next coup may open"
        return f"shoe procedure {rec['procedure']} under way, last step {rec['step']}"
    procedure = _PROCEDURE_AFTER.get(rec.get("reason", ""), "cut_card")
    return f"shoe procedure {procedure} due (shoe closed: {rec.get('reason')})"


def _recovered_state(rec: dict[str, Any]) -> str:
    """The state a ``recovery`` record names (a game state id) in words."""
    state, coup = rec.get("state"), rec.get("coup")
    if state == "idle":
        return "no coup yet"
    if state == "bets_open":
        return f"bets open, coup {coup}"
    if state == "coup_over":
        return f"coup {coup} over"
    return f"dealing coup {coup}"


def _shoe_status(journal: Journal) -> dict[str, Any]:
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
    counted = _newest(journal, ("burn", "cut_card", "shoe_closed", "recovery"))
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


def _shoe_line(shoe: dict[str, Any]) -> str:
    step = shoe["last_step"]
    parts = [f"last step {step['procedure']}: {step['step']}" if step else "no procedure step"]
    if shoe["cards_left"] is not None:
        parts.append(f"{shoe['cards_left']} cards left at seq {shoe['cards_left_seq']}, "
                     f"{shoe['cards_dealt_since']} dealt since")
    return "; ".join(parts)
