"""The shoe as ``tablectl status`` tells it, from a card table's journal: the last procedure
step and the cards left (the card core's records: ``shoe_procedure``, ``burn``, ``cut_card``,
``shoe_closed``, ``card``, ``recovery``). A card game's status module adds its own game."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from controller.store.journal import Journal


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
