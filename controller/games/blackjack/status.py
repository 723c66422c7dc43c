"""What ``tablectl status`` says of a Black Jack table, from its journal: the coup under way,
the shoe (seed 002 / 004 Art. 4-6) and, at Pot Luck, the pool (seed 004 Art. 7)."""

from __future__ import annotations

from typing import Any

from controller.cards.masking import public_view
from controller.cards.status import (
    COUNT_OUT_STATES,
    count_out_state,
    newest,
    shoe_line,
    shoe_status,
)
from controller.core.contract import GameStatus
from controller.store.journal import Journal

_STATES = ("coup_start", "bets_closed", "decision", "dealer_turn", "coup_result",
           "shoe_procedure", "shoe_closed", *COUNT_OUT_STATES)
# A shoe closed for this reason needs this procedure next (controller.cards.shoe).
_PROCEDURE_AFTER = {"cut_card": "cut_card", "decks_changed": "new_decks"}


def status(journal: Journal) -> GameStatus:
    """The coup's state in words, the shoe's last step and cards left, the pool's balance."""
    shoe = shoe_status(journal)
    step = journal.last_of("shoe_procedure")
    fields: dict[str, Any] = {"shoe": shoe,
                              "last_shoe_step": public_view(step) if step else None}
    lines = [("shoe", shoe_line(shoe))]
    pool = pool_balance(journal)
    if pool is not None:
        fields["pool_balance"] = pool
        lines.append(("pool", f"{pool} chips"))
    return GameStatus(state=_state(journal), fields=fields, lines=lines)


def pool_balance(journal: Journal) -> int | None:
    """Pot Luck's pool, in chips, from its newest ``pool_balance`` or ``coup_start``
    record; None when the journal has neither (not a Pot Luck table, or no coup yet)."""
    rec = newest(journal, ("pool_balance", "coup_start"))
    if rec is None:
        return None
    value = rec.get("balance", rec.get("pool_balance"))
    return value if isinstance(value, int) else None


def _state(journal: Journal) -> str:
    rec = newest(journal, _STATES)
    text = "shoe procedure new_decks due (Art. 5)" if rec is None else _words(rec)
    recovery = journal.last_of("recovery")
    if recovery is not None and (rec is None or recovery["seq"] > rec["seq"]):
        text += f"; resumed after a restart (seq {recovery['seq']})"
        if recovery.get("waiting_for"):
            text += f", waiting for the card of {recovery['waiting_for']}"
    return text


def _words(rec: dict[str, Any]) -> str:
    counting = count_out_state(rec)
    if counting is not None:
        return counting
    kind = rec["type"]
    if kind == "coup_start":
        return f"bets open, coup {rec['coup']}"
    if kind == "bets_closed":
        return f"dealing coup {rec['coup']}"
    if kind == "decision":
        return f"coup {rec['coup']}: the players act (last: {rec['hand']} {rec['action']})"
    if kind == "dealer_turn":
        return f"coup {rec['coup']}: the dealer's turn"
    if kind == "coup_result":
        return f"coup {rec['coup']} over"
    if kind == "shoe_procedure":
        if rec["step"] == "burn":  # the burn completes a procedure (Art. 5 g, 6 d)
            return f"shoe procedure {rec['procedure']} complete: the next coup may open"
        return f"shoe procedure {rec['procedure']} under way, last step {rec['step']}"
    procedure = _PROCEDURE_AFTER.get(rec.get("reason", ""), "cut_card")
    return f"shoe procedure {procedure} due (shoe closed: {rec.get('reason')})"
