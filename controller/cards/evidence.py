"""One card game's raw inputs in the journal (``tablectl export --evidence N``).

A game on a shoe depends on every card read from that shoe since its decks were loaded (the
composition, the cut card, the procedures of seed 002 Art. 4-6): its window runs from the
last time the table was as a fresh one is, with new decks due (the journal's start, or a
``shoe_closed`` for ``decks_changed``; at a table whose every game has its deck gathered
again first, seed 003 num. 2, any ``shoe_closed``), to its result. The game's numbers in
the replay count from there.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from controller.core.contract import EvidenceWindow
from controller.store.journal import Journal

Settings = Callable[[dict[str, Any]], dict[str, Any]]
"""The first game's start record after the window's origin -> the trace's ``meta`` keys of
what stood then (``EvidenceWindow.meta``)."""


def window_finder(start: str, result: str, number: str, *,
                  fresh: tuple[str, ...] = ("decks_changed",),
                  limits: tuple[str, str] = ("min_bet", "max_bet"),
                  settings: Settings | None = None,
                  ) -> Callable[[Journal, int], EvidenceWindow | None]:
    """The ``GameSpec.evidence_window`` of a card game whose games start with a ``start``
    record and end with a ``result`` record, numbered by their field ``number``.

    Args:
        fresh: the ``shoe_closed`` reasons after which the table is as a fresh one (the
            procedure a fresh table needs is due, the shoe's count starts again).
        limits: the start record's fields of the limits in force (minimum, maximum;
            chips), given to the trace as ``{"min_bet", "max_bet"}``.
        settings: the game's settings at the origin, read off the first start record
            after it (Pot Luck's pool balance).
    """

    def evidence_window(journal: Journal, game: int) -> EvidenceWindow | None:
        db = journal.db
        found = []
        for kind in (start, result):
            row = db.execute(f"SELECT body FROM records WHERE type = ? AND "
                             f"json_extract(body, '$.{number}') = ? ORDER BY seq DESC LIMIT 1",
                             (kind, game)).fetchone()
            found.append(json.loads(row[0]) if row else None)
        first, last = found
        if first is None or last is None:
            return None
        marks = ",".join("?" * len(fresh))
        origin = db.execute("SELECT max(seq) FROM records WHERE type = 'shoe_closed' AND seq < ? "
                            f"AND json_extract(body, '$.reason') IN ({marks})",
                            (first["seq"], *fresh)).fetchone()[0] or 0
        low, high = limits
        in_force = ({"min_bet": first[low], "max_bet": first[high]}
                    if low in first and high in first else None)
        meta: dict[str, Any] = {}
        if settings is not None:
            row = db.execute("SELECT body FROM records WHERE type = ? AND seq > ? ORDER BY seq "
                             "LIMIT 1", (start, origin)).fetchone()
            meta = settings(json.loads(row[0]))
        return EvidenceWindow(origin, last["seq"], in_force, meta=meta)

    return evidence_window
