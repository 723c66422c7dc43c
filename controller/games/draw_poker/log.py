"""How a draw-poker table's records read in the daemon's console log (seed 003): one short
line each, in words (``GameSpec.log_words``); the journal keeps every card and figure."""

from __future__ import annotations

from typing import Any

from controller.core import logs
from controller.core.words import words


def hand_start(record: dict[str, Any]) -> str:
    """``hand 1: antes open, 1–100 chips`` (num. 4, 21)."""
    return (f"hand {record['hand']}: antes open, {record['min_ante']}–{record['max_ante']} "
            "chips")


def bets_closed(record: dict[str, Any]) -> str:
    """``hand 1: dealing to boxes 2, 3, 4, 5; ante 25, pot 100; Mano box 2``."""
    return (f"hand {record['hand']}: dealing to boxes {words(record['boxes'])}; ante "
            f"{record['ante']}, pot {record['antes']}; Mano box {record['mano']}")


def round_action(record: dict[str, Any]) -> str:
    """``hand 4 round 2: box 1 bet 50, pot 250`` (num. 7-13)."""
    put = f" {record['put']}" if record.get("put") else ""
    return (f"hand {record['hand']} round {record['round']}: box {record['box']} "
            f"{record['action']}{put}, pot {record['pot']}")


def draw(record: dict[str, Any]) -> str:
    """``hand 4: box 1 draws 3`` (num. 9)."""
    return f"hand {record['hand']}: box {record['box']} draws {record['discarded']}"


def with_message(record: dict[str, Any]) -> str:
    """``hand 1: <the record's message>`` (hand_void, mano_nula: the message names the
    article)."""
    return f"hand {record['hand']}: {record['message']}"


def rake(record: dict[str, Any]) -> str:
    """``hand 3: rake 0.2 chips, 5% of 4 (antes 4, losers' bets 0)`` (num. 15, 19)."""
    return (f"hand {record['hand']}: rake {words(record['rake'])} chips, {record['percent']}% "
            f"of {words(record['base'])} (antes {words(record['antes'])}, losers' bets "
            f"{words(record['losers_bets'])})")


def hand_result(record: dict[str, Any]) -> str:
    """``hand 1: showdown, box 2 wins (three_of_a_kind), rake 2.25``; ``boxes 1 3 split``;
    ``hand 2: mano_nula, no winner: stakes returned`` (num. 8, 14-15; the chips are the
    settlement lines')."""
    winners = record.get("winners") or []
    ranks = [b.get("rank") for b in record.get("boxes", []) if b.get("box") in winners]
    rank = next((f" ({r})" for r in ranks if r), "")
    if not winners:
        return f"hand {record['hand']}: {record['outcome']}, no winner: stakes returned"
    who = (f"box {winners[0]} wins" if len(winners) == 1
           else f"boxes {' '.join(str(w) for w in winners)} split")
    rake = (record.get("pot") or {}).get("rake")
    return f"hand {record['hand']}: {record['outcome']}, {who}{rank}, rake {words(rake)}"


WORDS: dict[str, logs.LineWords] = {
    "hand_start": hand_start, "bets_closed": bets_closed, "round_action": round_action,
    "draw": draw, "hand_void": with_message, "mano_nula": with_message, "rake": rake,
    "hand_result": hand_result}
"""The console's words for the records ``GameSpec.log`` shows."""
