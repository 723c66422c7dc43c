"""The journal's type index, checked before a tool answers from the journal.

The tools find records by type (``status``'s last game, ``recall``'s games, ``stats``'
spins, the checkpoint a replay recovers from) through SQLite's ``records_type`` index. A
damaged page of that index (the likeliest corruption on an SD card, hardware.md §8) does
not always make SQLite fail: its queries may miss records without a word, and the tool
would answer wrongly. So, before the answer, :func:`check_type_index`:

- turns ``PRAGMA cell_size_check`` on for the connection: each page SQLite reads from then
  on has its cells checked against the page's bounds, and one that fails is an error
  (``SQLITE_CORRUPT``: one line) instead of a miss;
- counts the index's entries, reading each of its pages (so checked), against the records:
  one entry each, from record 1 to the head.

Cost: the index is some 5% of the file (17 MB of 350 MB for a million records); counting
it took 10 ms of CPU, pages cached, on the bench's million-record journal. Not seen: an
entry whose key bytes were altered in place on a page still well formed (``tablectl
verify --full`` compares the index with the table, row by row).
"""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING

from controller.core.errors import JournalDamaged, is_damage

if TYPE_CHECKING:
    from controller.store.journal import Journal

INDEX = "records_type"


def check_type_index(journal: Journal) -> None:
    """Stop when the journal's type index cannot be trusted to find every record.

    Raises:
        JournalDamaged: a page of the index is damaged, or it does not hold one entry per
            record (the line says which, and ``journal.advice`` what to do).
        sqlite3.DatabaseError: another SQLite error reading it.
    """
    db = journal.db
    db.execute("PRAGMA cell_size_check = ON")
    if db.execute("SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?",
                  (INDEX,)).fetchone() is None:
        return  # no index: queries by type read the table itself
    try:
        with journal.snapshot():  # one state of the journal, while the daemon writes
            (head,) = db.execute("SELECT coalesce(max(seq), 0) FROM records").fetchone()
            (listed,) = db.execute(f"SELECT count(*) FROM records INDEXED BY {INDEX}"
                                   ).fetchone()
    except sqlite3.DatabaseError as exc:
        if not is_damage(exc):
            raise
        raise JournalDamaged(journal.path, exc, journal.advice,
                             why=f"a page of its type index: SQLite: {exc}") from exc
    if listed != head:
        raise JournalDamaged(journal.path, None, journal.advice,
                             why=f"its type index lists {listed} of its {head} records")
