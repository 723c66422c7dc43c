"""What ``tablectl status`` says of a Mini-Bacará table, from its journal: the coup under way
and the shoe (seed 000; the shoe procedures of seed 002 Art. 5-6)."""

from __future__ import annotations

from typing import Any

from controller.cards.masking import public_view
from controller.cards.status import COUNT_OUT_STATES, count_out_state
from controller.cards.status import newest as _newest
from controller.cards.status import shoe_line as _shoe_line
from controller.cards.status import shoe_status as _shoe_status
from controller.core.contract import GameStatus
from controller.store.journal import Journal


def status(journal: Journal) -> GameStatus:
    """The coup's state in words, the last shoe procedure step and the cards left."""
    shoe = _shoe_status(journal)
    step = journal.last_of("shoe_procedure")
    return GameStatus(state=_card_table_state(journal),
                      fields={"shoe": shoe, "last_shoe_step": public_view(step) if step else None},
                      lines=[("shoe", _shoe_line(shoe))])


# A shoe closed for this reason needs this procedure next (controller.cards.shoe).
_PROCEDURE_AFTER = {"cut_card": "cut_card", "decks_changed": "new_decks"}
_COUP_STATES = ("coup_start", "bets_closed", "coup_result", "shoe_procedure", "shoe_closed",
                *COUNT_OUT_STATES)


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
    counting = count_out_state(rec)
    if counting is not None:
        return counting
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
