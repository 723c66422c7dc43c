"""How a Black Jack coup reads in ``tablectl status`` and ``recall`` (seeds 002, 004)."""

from __future__ import annotations

from typing import Any


def hand_words(hand: dict[str, Any]) -> str:
    """A hand of a ``coup_result`` in words: "blackjack", "bust 24", "soft 19", "20"."""
    if hand.get("blackjack"):
        return "blackjack"
    if hand.get("bust"):
        return f"bust {hand['total']}"
    return f"soft {hand['total']}" if hand.get("soft") else str(hand["total"])


def summary(record: dict[str, Any]) -> str:
    """One line for a ``coup_result`` record: the dealer's hand and each hand's outcome."""
    parts = []
    for box in record["boxes"]:
        for i, hand in enumerate(box["hands"]):
            label = f"box {box['box']}" + (" hand 2" if i else "")
            doubled = " doubled" if hand.get("doubled") else ""
            outcome = "surrender" if hand.get("surrendered") else hand.get("outcome")
            parts.append(f"{label} {hand_words(hand)}{doubled} {outcome}")
    return f"coup {record['coup']}: dealer {hand_words(record['dealer'])}; {', '.join(parts)}"


def detail(record: dict[str, Any]) -> str:
    """The cards behind the summary: the dealer's, then each box's."""
    boxes = "; ".join(f"box {b['box']} " + " / ".join(" ".join(h["cards"]) for h in b["hands"])
                      for b in record["boxes"])
    return f" (dealer {' '.join(record['dealer']['cards'])}; {boxes})"
