"""``tablectl verify``: the journal's hash chain, record by record."""

from __future__ import annotations

import json

from controller.store.journal import Journal


def run(journal: Journal, as_json: bool = False) -> int:
    """Exit 0 with the count when the chain holds; 1 naming the first bad record."""
    result = journal.verify()
    if as_json:
        print(json.dumps({"ok": result.ok, "records": result.records,
                          "bad_seq": result.bad_seq, "message": result.message or None,
                          "journal": str(journal.path)}, indent=2, sort_keys=True))
    elif result.ok:
        print(f"ok: {result.records} records, hash chain intact ({journal.path})")
    else:
        print(f"BROKEN at record {result.bad_seq}: {result.message} ({journal.path})")
    return 0 if result.ok else 1
