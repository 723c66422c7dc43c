"""What ``tablectl status`` says of a roulette table, from its journal (seed 001 Art. 16)."""

from __future__ import annotations

from typing import Any

from controller.core.contract import GameStatus
from controller.store.journal import Journal


def status(journal: Journal) -> GameStatus:
    """The table's state (its state machine's last move), the limits in force and the
    spins parked for a decision (issue 16)."""
    state = journal.last_of("state")  # roulette journals its state machine's moves
    limits = _limits_status(journal)
    parked = parked_spins(journal)
    lines = [("limits", _limits_line(limits))]
    for i, held in enumerate(parked):
        lines.append(("parked" if i == 0 else "", _parked_line(held)))
    return GameStatus(state=state["to"] if state else "closed",
                      fields={"limits": limits, "parked": [
                          {"spin": h["spin"], "seq": h["seq"], "candidate": h.get("candidate"),
                           "details": h.get("details"), "bets": h["bets_frozen"]}
                          for h in parked]},
                      lines=lines)


def parked_spins(journal: Journal) -> list[dict[str, Any]]:
    """The ``spin_held`` records of spins parked and not decided yet, oldest first, each
    with ``bets_frozen``: how many bets wait with it. Holds are rare: only they and the
    records around each parked one are read, never the whole journal's bets."""
    parked: dict[int, dict[str, Any]] = {}
    for rec in journal.records(types=("spin_held",)):
        if rec.get("parked"):
            parked[int(rec["spin"])] = rec
    if not parked:
        return []
    first = min(rec["seq"] for rec in parked.values())
    for rec in journal.records(after=first, types=("spin_result", "spin_invalid")):
        parked.pop(int(rec["spin"]), None)
    return [{**parked[s], "bets_frozen": _bets_of(journal, parked[s])} for s in sorted(parked)]


def _bets_of(journal: Journal, held: dict[str, Any]) -> int:
    """How many bets of ``held``'s spin were taken: those since the game before it ended."""
    (since,) = journal.db.execute(
        "SELECT coalesce(max(seq), 0) FROM records WHERE type IN "
        "('spin_result', 'spin_invalid', 'spin_held') AND seq < ?", (held["seq"],)).fetchone()
    return sum(1 for rec in journal.records(after=since, types=("bet",))
               if rec["seq"] < held["seq"] and rec.get("game") == held["spin"])


def _parked_line(held: dict[str, Any]) -> str:
    why = "; ".join(str(v) for v in (held.get("details") or {}).values())
    points = held.get("candidate") or " or ".join(held.get("candidates") or [])
    to = f"points to {points}" if points else "points to no number"
    return (f"spin {held['spin']} (seq {held['seq']}) {to}, bets frozen: {why}; decide "
            f"it: tablectl input confirm_result number=N spin={held['spin']} (or void "
            f"reason=... spin={held['spin']})")


def _limits_status(journal: Journal) -> dict[str, Any] | None:
    """A roulette table's limits (seed 001 Art. 16) from its journal, or None before any
    record carries them: ``min_bet``, ``max_bet`` in force, ``seq`` of the record that
    says so (a ``state`` record carries its game's limits; an ``applied`` change made while
    the table was closed may be newer), and ``pending``: a change requested during the game
    in progress, applied once that game is settled (``min_bet``, ``max_bet``,
    ``requested_seq``), or None."""
    state = journal.last_of("state")
    in_force: dict[str, int] | None = state.get("limits") if state else None
    seq = state["seq"] if state is not None and in_force is not None else 0
    pending: dict[str, int] | None = None
    for rec in journal.records(types=("config_change",)):
        if rec.get("key") != "limits":
            continue
        limits = {"min_bet": rec["min_bet"], "max_bet": rec["max_bet"]}
        if rec.get("status") == "applied":
            pending = None
            if rec["seq"] > seq:
                in_force, seq = limits, rec["seq"]
        elif rec.get("status") == "requested":
            pending = {**limits, "requested_seq": rec["seq"]}
    if in_force is None:
        return None
    return {"min_bet": in_force["min_bet"], "max_bet": in_force["max_bet"], "seq": seq,
            "pending": pending}


def _limits_line(limits: dict[str, Any] | None) -> str:
    if limits is None:
        return "none journaled yet (the config's [limits] apply)"
    line = f"{limits['min_bet']}-{limits['max_bet']} chips in force (seq {limits['seq']})"
    pending = limits["pending"]
    if pending:
        line += (f"; {pending['min_bet']}-{pending['max_bet']} requested at seq "
                 f"{pending['requested_seq']}, from the next game (Art. 16)")
    return line
