"""How a draw-poker hand reads in ``tablectl status`` and ``recall`` (seed 003)."""

from __future__ import annotations

from typing import Any


def summary(record: dict[str, Any]) -> str:
    """One line for a ``hand_result`` record: how it ended, who won, the pot and the rake."""
    pot = record.get("pot", {})
    winners = record.get("winners") or []
    shown = {b["box"]: b.get("rank") for b in record.get("boxes", [])}
    if winners:
        who = ", ".join(f"box {w}" + (f" ({shown[w]})" if shown.get(w) else "")
                        for w in winners)
        won = f"{'split' if len(winners) > 1 else 'won'} by {who}"
    else:
        won = "no winner, stakes returned"
    return (f"hand {record['hand']}: {record.get('outcome')}, {won}; antes {pot.get('antes')}"
            f", bets {pot.get('bets')}, rake {pot.get('rake')}")


def detail(record: dict[str, Any]) -> str:
    """The hands shown, in words, one line a hand after the summary (the others are never
    shown)."""
    return "".join(f"\nbox {b['box']} {' '.join(b['cards'])} {b['rank']}"
                   for b in record.get("boxes", []) if b.get("shown"))
