"""One spin's raw inputs in the journal (``tablectl export --evidence N``; CONTRACT §2, §3).

A spin's window runs from the previous spin's verdict to its own (the last one when it was
held, then decided; a parked spin decided after later games: to its hold, then the
decision): the rotor's edges between the two spins (a fresh tracker acquires the
rotor from them, as after a restart, CONTRACT §5), the dealer's inputs, the bets, the
ball's and the pocket's edges; of a wheel that reports over serial (issue 12), its status
lines on port ``wheel``. The limits in force are its ``spin_start``'s; bets reopened by
themselves after the previous spin become an ``open_bets`` input first; the wheel source is
the one its verdict says measured it (a replay's journal may be read with another config).
"""

from __future__ import annotations

import json
from typing import Any

from controller.core.contract import EvidenceWindow
from controller.store.journal import Journal

_VERDICTS = ("spin_result", "spin_invalid", "spin_held")
_OPENS = ("open_bets", "open_table")


def _records_of(journal: Journal, types: tuple[str, ...], spin: int) -> list[dict[str, Any]]:
    sql = (f"SELECT body FROM records WHERE type IN ({','.join('?' * len(types))}) "
           "AND json_extract(body, '$.spin') = ? ORDER BY seq")
    return [json.loads(body) for (body,) in journal.db.execute(sql, (*types, spin))]


def evidence_window(journal: Journal, spin: int) -> EvidenceWindow | None:
    """The window of spin ``spin`` (None when the journal holds no start of it)."""
    starts = _records_of(journal, ("spin_start",), spin)
    verdicts = _records_of(journal, _VERDICTS, spin)
    if not starts or not verdicts:
        return None
    start, end = starts[-1], verdicts[-1]
    postlude: tuple[dict[str, Any], ...] = ()
    if end.get("parked") and end["type"] != "spin_held":
        # Decided after later games (issue 16): the window closes at the hold, and the
        # decision, for the one spin a fresh table holds, is played after it.
        held = [r for r in verdicts if r["type"] == "spin_held"]
        postlude, end = (_decision(end),), held[-1] if held else end
    before = [r for r in _records_of(journal, _VERDICTS, spin - 1) if r["seq"] < start["seq"]]
    origin = before[-1]["seq"] if before else 0
    opened = journal.db.execute(
        "SELECT 1 FROM records WHERE type = 'input' AND seq > ? AND seq < ? "
        f"AND json_extract(body, '$.action') IN ({','.join('?' * len(_OPENS))}) LIMIT 1",
        (origin, start["seq"], *_OPENS)).fetchone()
    return EvidenceWindow(origin, end["seq"], start.get("limits"),
                          () if opened else ({"input": "open_bets"},), meta=_source(end),
                          postlude=postlude)


def _decision(verdict: dict[str, Any]) -> dict[str, Any]:
    """The input that decided a parked spin, from its decision record (no ``spin``: a
    fresh table numbers its one spin 1)."""
    by = {"by": verdict["decided_by"]} if verdict.get("decided_by") else {}
    if verdict["type"] == "spin_result":
        return {"input": "confirm_result", "number": verdict["number"], **by}
    return {"input": "void", "reason": verdict["reason"], **by}


def _source(verdict: dict[str, Any]) -> dict[str, Any]:
    """The wheel source that measured a spin, as a trace's meta: its verdict's
    ``wheel_source`` (the serial wheel's), else the GPIO wheel's when it measured laps;
    nothing for a spin voided with no measurement (a restart's)."""
    if "wheel_source" in verdict:
        return {"wheel_source": verdict["wheel_source"]}
    return {"wheel_source": "gpio"} if "lap_times" in verdict else {}
