"""How a Mini-Bacará table's records read in the daemon's console log (seed 000): one short
line each, in words (``GameSpec.log_words``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def coup_result(record: dict[str, Any]) -> str:
    """``coup 1: Banca 4; boxes banca 1 2; punto 3``: the Banca's total, then the boxes by
    outcome (each box's Punto is the journal's and recall's; Art. 4-8)."""
    groups: dict[str, list[str]] = {}
    for b in record["boxes"]:
        groups.setdefault(str(b["outcome"]), []).append(str(b["box"]))
    said = "; ".join(f"{outcome} {' '.join(boxes)}" for outcome, boxes in groups.items())
    return (f"coup {record['coup']}: Banca {record['banca']['total']}; "
            + (f"boxes {said}" if said else "no box in play"))


WORDS: dict[str, Callable[[dict[str, Any]], str]] = {"coup_result": coup_result}
"""The console's words for the records ``GameSpec.log`` shows (the others: field by field)."""
