"""What ``tablectl status`` says of a Mini-Bacará table, from its journal: the coup under way
and the shoe (seed 000; the shoe procedures of seed 002 Art. 5-6: ``controller.cards.status``)."""

from __future__ import annotations

from typing import Any

from controller.cards.status import card_status, table_state
from controller.core.contract import GameStatus
from controller.store.journal import Journal

_COUP_STATES = ("coup_start", "bets_closed", "coup_result")


def status(journal: Journal) -> GameStatus:
    """The coup's state in words, the last shoe procedure step and the cards left."""
    return card_status(journal, table_state(journal, _COUP_STATES, _coup_state, _first))


def _coup_state(rec: dict[str, Any]) -> str:
    kind = rec["type"]
    if kind == "coup_start":
        return f"bets open, coup {rec['coup']}"
    if kind == "bets_closed":
        return f"dealing coup {rec['coup']}"
    return f"coup {rec['coup']} over"


def _first(recovery: dict[str, Any] | None) -> str:
    """Before any coup or shoe record: the first procedure, or the state a ``recovery``
    record names (a game state id) in words."""
    if recovery is None:
        return "shoe procedure new_decks due (seed 002 Art. 5)"
    state, coup = recovery.get("state"), recovery.get("coup")
    if state == "idle":
        return "no coup yet"
    if state == "bets_open":
        return f"bets open, coup {coup}"
    if state == "coup_over":
        return f"coup {coup} over"
    return f"dealing coup {coup}"
