"""``tablectl verify``: the journal's hash chain, record by record."""

from __future__ import annotations

from controller.store.journal import Journal


def run(journal: Journal) -> int:
    """Exit 0 with the count when the chain holds; 1 naming the first bad record."""
    result = journal.verify()
    if result.ok:
        print(f"ok: {result.records} records, hash chain intact ({journal.path})")
        return 0
    print(f"BROKEN at record {result.bad_seq}: {result.message} ({journal.path})")
    return 1
