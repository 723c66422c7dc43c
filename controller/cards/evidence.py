"""One card game's raw inputs in the journal (``tablectl export --evidence N``).

A game on a shoe depends on every card read from that shoe since its decks were loaded (the
composition, the cut card, the procedures of seed 002 Art. 4-6): its window runs from the
last time the table was as a fresh one is, with new decks due (the journal's start, or a
``shoe_closed`` for ``decks_changed``), to its result. The game's numbers in the replay
count from there.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from controller.games.base import EvidenceWindow
from controller.store.journal import Journal


def window_finder(start: str, result: str, number: str
                  ) -> Callable[[Journal, int], EvidenceWindow | None]:
    """The ``GameSpec.evidence_window`` of a card game whose games start with a ``start``
    record and end with a ``result`` record, numbered by their field ``number``; its limits
    are the start record's ``min_bet`` and ``max_bet``."""

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
        fresh = db.execute("SELECT max(seq) FROM records WHERE type = 'shoe_closed' AND seq < ? "
                           "AND json_extract(body, '$.reason') = 'decks_changed'",
                           (first["seq"],)).fetchone()[0]
        limits = ({"min_bet": first["min_bet"], "max_bet": first["max_bet"]}
                  if "min_bet" in first and "max_bet" in first else None)
        return EvidenceWindow(fresh or 0, last["seq"], limits)

    return evidence_window
