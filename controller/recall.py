"""Game recall from the journal (seed 001 Art. 14: a disputed game recalled in full).

Groups records into games (a spin from its ``spin_start``, a coup from its ``coup_start``,
to its last settlement), and hides what the public may not see yet: the Banca's face-down
card until the dealer turns it (seed 000 Art. 6).
"""

from __future__ import annotations

from typing import Any

from controller.journal import Journal

_GAME_FIELDS = {"spin_start": "spin", "coup_start": "coup"}
HIDDEN = "??"
_CARRIERS = ("serial", "manual_card", "input")


def public_view(record: dict[str, Any], turned: bool = False,
                hide_raw: bool = False) -> dict[str, Any]:
    """A record as a display may show it (seed 000 Art. 6: the Banca's first card is dealt
    face down): a face-down card not yet turned is masked, and with ``hide_raw`` so are the
    records that carried it in (the shoe's raw bytes, a dealer's correction)."""
    kind = record.get("type")
    if kind == "card" and record.get("face_down") and not turned:
        return {**record, "card": HIDDEN}
    if hide_raw and not turned:
        if kind == "serial":
            return {**record, "text": HIDDEN}
        if kind == "manual_card" or (kind == "input" and record.get("action") == "card"):
            return {**record, "card": HIDDEN}
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
        records = _mask_face_down(records, turned)
        games.append({"title": f"{kind} {number}", "records": records})
    return games


def _mask_face_down(records: list[dict[str, Any]], turned: bool) -> list[dict[str, Any]]:
    """Mask the face-down card and the records just before it that carried it in."""
    shown = [public_view(r, turned) for r in records]
    if turned:
        return shown
    for i, rec in enumerate(records):
        if rec["type"] == "card" and rec.get("face_down"):
            j = i - 1
            while j >= 0 and records[j]["type"] in (*_CARRIERS, "misread", "alarm"):
                shown[j] = public_view(records[j], turned, hide_raw=True)
                j -= 1
    return shown
