"""How a Black Jack table's records read in the daemon's console log (seeds 002, 004): one
short line each, in words (``GameSpec.log_words``); the journal keeps every card."""

from __future__ import annotations

from typing import Any

from controller.core import logs
from controller.games.blackjack.recall import hand_words

_ORDER = ("win", "push", "lose", "surrender")


def coup_result(record: dict[str, Any]) -> str:
    """``coup 2: dealer bust 23; boxes win 1 2 (hand 2); lose 7``: the dealer's hand, then
    the boxes' hands by outcome (their cards and chips are the journal's and the
    settlement lines')."""
    groups: dict[str, list[str]] = {}
    for box in record["boxes"]:
        for i, hand in enumerate(box["hands"]):
            outcome = "surrender" if hand.get("surrendered") else hand.get("outcome")
            label = f"{box['box']}" + (" (hand 2)" if i else "")
            groups.setdefault(str(outcome or "unsettled"), []).append(label)
    order = sorted(groups, key=lambda o: _ORDER.index(o) if o in _ORDER else len(_ORDER))
    said = "; ".join(f"{outcome} {' '.join(groups[outcome])}" for outcome in order)
    return f"coup {record['coup']}: dealer {hand_words(record['dealer'])}; " + (
        f"boxes {said}" if said else "no box in play")


def decision(record: dict[str, Any]) -> str:
    """``coup 1: box 2 double, 300 chips at stake`` (seed 002 Art. 8-9)."""
    stake = f", {record['stake']} chips at stake" if record.get("stake") is not None else ""
    return f"coup {record['coup']}: {record['hand']} {record['action']}{stake}"


def pool_balance(record: dict[str, Any]) -> str:
    """``coup 1: pool 518 chips (500 + 18 contributed - 0 paid)`` (seed 004 Art. 7)."""
    return (f"coup {record['coup']}: pool {record['balance']} chips ({record['before']} + "
            f"{record['contributed']} contributed - {record['paid']} paid)")


def box_refused(record: dict[str, Any]) -> str:
    """``coup 3: box 4 refused: <why>; returned main 10, pool 2``."""
    returned = ", ".join(f"{kind} {n}" for kind, n in record.get("returned", {}).items())
    return (f"coup {record['coup']}: box {record['box']} refused ({record['code']}): "
            f"{record['message']}" + (f"; returned {returned} chips" if returned else ""))


def coup_start(record: dict[str, Any]) -> str:
    """``coup 1: bets open, 6 decks, limits 5–1000 chips, dealer s17, pool 500 chips``."""
    pool = (f", pool {record['pool_balance']} chips"
            if record.get("pool_balance") is not None else "")
    return (f"coup {record['coup']}: bets open, {record['decks']} decks, limits "
            f"{record['min_bet']}–{record['max_bet']} chips, dealer {record['dealer']}{pool}")


WORDS: dict[str, logs.LineWords] = {
    "coup_start": coup_start, "coup_result": coup_result, "decision": decision,
    "pool_balance": pool_balance, "box_refused": box_refused,
    "bet_placed": (logs.bet_accepted, ("box", "kind", "amount", "total", "coup"))}
"""The console's words for the records ``GameSpec.log`` shows."""
