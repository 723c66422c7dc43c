"""What ``tablectl status`` says of a draw-poker table, from its journal: the hand under way,
and the shuffles due before the next one (seed 003 num. 2)."""

from __future__ import annotations

from typing import Any

from controller.cards.status import newest, resumed
from controller.core.contract import GameStatus
from controller.core.words import words
from controller.games.draw_poker.shoe import MIN_SHUFFLES
from controller.store.journal import Journal

_HAND_RECORDS = ("hand_start", "bets_closed", "round_start", "draw_start", "hand_result",
                 "shoe_procedure", "shoe_closed")


def status(journal: Journal) -> GameStatus:
    """The hand's state in words; the last shoe procedure step."""
    rec = newest(journal, _HAND_RECORDS)
    step = journal.last_of("shoe_procedure")
    fields: dict[str, Any] = {"last_shoe_step": (
        {k: step.get(k) for k in ("seq", "procedure", "step", "times", "by")} if step else None)}
    text = resumed(_state(rec), rec, journal.last_of("recovery"))
    line = "no procedure step" if step is None else (
        f"last step {step['procedure']}: {step['step']}"
        + (f" ({step['times']} times)" if step.get("times") else ""))
    return GameStatus(state=text, fields=fields, lines=[("deck", line)])


def _state(rec: dict[str, Any] | None) -> str:
    if rec is None:
        return "shuffles due before the first hand (seed 003 num. 2)"
    kind = rec["type"]
    if kind == "hand_start":
        return f"antes open, hand {rec['hand']}"
    if kind == "bets_closed":
        return f"dealing hand {rec['hand']} to boxes {words(rec['boxes'])}"
    if kind == "round_start":
        return f"hand {rec['hand']}: betting round {rec['round']}, from box {rec['order'][0]}"
    if kind == "draw_start":
        return f"hand {rec['hand']}: the draw, from box {rec['order'][0]}"
    if kind == "hand_result":
        return f"hand {rec['hand']} over ({rec['outcome']})"
    if kind == "shoe_procedure":
        if rec["step"] == "cut" or rec.get("times", 0) >= MIN_SHUFFLES:
            return f"deck shuffled (last step {rec['step']}): the next hand may open"
        return (f"shuffle {rec.get('times', 0)} of at least {MIN_SHUFFLES} before the next "
                "hand (seed 003 num. 2)")
    closed = f"; deck closed: {rec['reason']}" if rec.get("reason") else ""
    return f"shuffles due before the next hand (seed 003 num. 2{closed})"
