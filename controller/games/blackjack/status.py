"""What ``tablectl status`` says of a Black Jack table, from its journal: the coup under way,
the shoe (seed 002 / 004 Art. 4-6) and, at Pot Luck, the pool (seed 004 Art. 7)."""

from __future__ import annotations

from typing import Any

from controller.cards.status import card_status, newest, table_state
from controller.core.contract import GameStatus
from controller.store.journal import Journal

_STATES = ("coup_start", "bets_closed", "decision", "dealer_turn", "coup_result")


def status(journal: Journal) -> GameStatus:
    """The coup's state in words, the shoe's last step and cards left, the pool's balance."""
    out = card_status(journal, table_state(journal, _STATES, _words,
                                           lambda _: "shoe procedure new_decks due (Art. 5)"))
    pool = pool_balance(journal)
    if pool is not None:
        out.fields["pool_balance"] = pool
        out.lines.append(("pool", f"{pool} chips"))
    return out


def pool_balance(journal: Journal) -> int | None:
    """Pot Luck's pool, in chips, from its newest ``pool_balance`` or ``coup_start``
    record; None when the journal has neither (not a Pot Luck table, or no coup yet)."""
    rec = newest(journal, ("pool_balance", "coup_start"))
    if rec is None:
        return None
    value = rec.get("balance", rec.get("pool_balance"))
    return value if isinstance(value, int) else None


def _words(rec: dict[str, Any]) -> str:
    kind = rec["type"]
    if kind == "coup_start":
        return f"bets open, coup {rec['coup']}"
    if kind == "bets_closed":
        return f"dealing coup {rec['coup']}"
    if kind == "decision":
        return f"coup {rec['coup']}: the players act (last: {rec['hand']} {rec['action']})"
    if kind == "dealer_turn":
        return f"coup {rec['coup']}: the dealer's turn"
    return f"coup {rec['coup']} over"
