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


def box_result(record: dict[str, Any]) -> str:
    """``coup 1, box 3: 7D TD 7 against the Banca's 6H 2H 8 (natural), Banca wins (Art.
    9 a)``: one box decided, before its bets are settled (Art. 9 g); an encart is said."""
    won = {"punto": "Punto wins", "banca": "Banca wins"}.get(record["outcome"], "standoff")
    article = record["article"]

    def hand(cards: list[str], total: int, natural: bool) -> str:
        return f"{' '.join(cards)} {total}{' (natural)' if natural else ''}"

    banca_natural = len(record["banca_cards"]) == 2 and record["banca_total"] >= 8
    return (f"coup {record['coup']}, box {record['box']}: "
            f"{hand(record['cards'], record['total'], record['natural'])} against the "
            f"Banca's {hand(record['banca_cards'], record['banca_total'], banca_natural)}"
            f"{', encart' if record['encart'] else ''}, {won} "
            f"(Art. {article[:-1]} {article[-1]})")


def coup_start(record: dict[str, Any]) -> str:
    """``coup 1: bets open, 4 decks, limits 1–1000 chips``."""
    return f"coup {record['coup']}: bets open, {record['decks']} decks, {logs.limits(record)}"


WORDS: dict[str, logs.LineWords] = {
    "box_result": (box_result, ("coup", "box", "total", "banca_total", "outcome", "article",
                                "cards", "banca_cards", "natural", "encart")),
    "coup_result": coup_result,
    "coup_start": (coup_start, ("coup", "decks", "min_bet", "max_bet")),
    "bet_placed": (logs.bet_accepted, ("box", "kind", "amount", "total", "coup")),
}
"""The console's words for a Mini-Bacará table's records (the others: the kernel's, or
field by field)."""
