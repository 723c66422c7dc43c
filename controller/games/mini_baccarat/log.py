"""How a Mini-Bacará table's records read in the daemon's console log (seed 000): one short
line each, in words (``GameSpec.log_words``)."""

from __future__ import annotations

from typing import Any

from controller.core import logs


def coup_result(record: dict[str, Any]) -> str:
    """``coup 1: Banca 4; boxes banca 1 2; punto 3``: the Banca's total, then the boxes by
    outcome (each box's Punto is the journal's and recall's; Art. 4-8)."""
    groups: dict[str, list[str]] = {}
    for b in record["boxes"]:
        groups.setdefault(str(b["outcome"]), []).append(str(b["box"]))
    said = "; ".join(f"{outcome} {' '.join(boxes)}" for outcome, boxes in groups.items())
    return (f"coup {record['coup']}: Banca {record['banca']['total']}; "
            + (f"boxes {said}" if said else "no box in play"))


def coup_start(record: dict[str, Any]) -> str:
    """``coup 1: bets open, 4 decks, limits 1–1000 chips``."""
    return f"coup {record['coup']}: bets open, {record['decks']} decks, {logs.limits(record)}"


WORDS: dict[str, logs.LineWords] = {
    "coup_result": coup_result,
    "coup_start": (coup_start, ("coup", "decks", "min_bet", "max_bet")),
    "bet_placed": (logs.bet_accepted, ("box", "kind", "amount", "total", "coup")),
}
"""The console's words for a Mini-Bacará table's records (the others: the kernel's, or
field by field)."""
