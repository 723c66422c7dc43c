"""Game recall from the journal (seed 001 Art. 14: a disputed game recalled in full).

Groups records into games (a spin from its ``spin_start``, a coup from its ``coup_start``,
to its last settlement), and hides what the public may not see yet: the Banca's face-down
card until the dealer turns it (seed 000 Art. 6).
"""

from __future__ import annotations

from typing import Any

from controller.journal import Journal

_GAME_FIELDS = {"spin_start": "spin", "coup_start": "coup"}


def public_view(record: dict[str, Any], turned: bool = False) -> dict[str, Any]:
    """A record as a display may show it: a face-down card not yet turned is masked."""
    if record.get("type") == "card" and record.get("face_down") and not turned:
        return {**record, "card": "??"}
    return record


def games_in_full(journal: Journal, last: int) -> list[dict[str, Any]]:
    """The last ``last`` games, each ``{"title", "records"}`` with every record of the game
    (inputs, bets, cards, results, settlements, alarms), in journal order."""
    all_starts = list(journal.records(types=tuple(_GAME_FIELDS)))
    first = max(0, len(all_starts) - last)
    starts = all_starts[first:]
    games: list[dict[str, Any]] = []
    for i, start in enumerate(starts):
        kind = _GAME_FIELDS[start["type"]]
        number = start[kind]
        end = starts[i + 1]["seq"] if i + 1 < len(starts) else None
        previous = all_starts[first + i - 1]["seq"] if first + i > 0 else 0
        # The bets on a game are placed before it starts.
        records: list[dict[str, Any]] = [
            r for r in journal.records(after=previous, types=("bet",))
            if r["seq"] < start["seq"] and r.get("game") == number
        ]
        turned = False
        for rec in journal.records(after=start["seq"] - 1):
            if end is not None and rec["seq"] >= end:
                break
            if rec["type"] == "gpio":
                continue
            if rec["type"] == "card_turned":
                turned = True
            records.append(rec)
        records = [public_view(r, turned) for r in records]
        games.append({"title": f"{kind} {number}", "records": records})
    return games
