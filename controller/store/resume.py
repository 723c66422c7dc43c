"""What a restart reads: the last checkpoint and every record after it, each checked.

A game's ``recover_from`` starts from :func:`since_checkpoint`: the newest ``checkpoint``
of its table's game (the state a fresh table needs at that game boundary) and the records
after it, read from their bodies (never trusting the ``type`` column, which the start's
chain check compares) and checked as their declared types, so a record recovery cannot
read stops the start with :class:`~controller.core.errors.UnreadableRecord` (exit 3)
instead of being misread. Time and memory depend on the records since the checkpoint,
not on the journal's size.
"""

from __future__ import annotations

import json
from typing import Any

from controller.core.errors import UnreadableRecord
from controller.core.words import given
from controller.store.journal import Journal
from controller.store.records import Declares, RecordError, check, schema


def since_checkpoint(journal: Journal, spec: Declares
                     ) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
    """(the last checkpoint of the table's game ``spec``, or None; the records after it,
    in order).

    Raises:
        UnreadableRecord: a record after it is not JSON, or not a record the game's table
            writes (unknown type, unknown or missing field, a value of the wrong type).
    """
    known = schema(spec)
    game = spec.name
    checkpoint = journal.last_checkpoint()
    if checkpoint is not None:
        read(journal, checkpoint["seq"], str(checkpoint.get("type")), json.dumps(checkpoint),
             known)
        if checkpoint.get("game") != game:
            raise UnreadableRecord(journal.path, checkpoint["seq"], "checkpoint",
                                   f"it is a {given(checkpoint.get('game'))} table's, this "
                                   f"table is {game!r}")
    after = checkpoint["seq"] if checkpoint is not None else 0
    rows = journal.bodies(after)
    try:
        out = [read(journal, seq, column, body, known) for seq, column, body in rows]
    finally:
        rows.close()
    return checkpoint, out


def read(journal: Journal, seq: int, column: str, body: str, known: Any) -> dict[str, Any]:
    """One record from its body, checked as its type (``known``: the table's schema).

    Raises:
        UnreadableRecord: as :func:`since_checkpoint`.
    """
    try:
        rec = json.loads(body)
    except ValueError:
        raise UnreadableRecord(journal.path, seq, column, "its body is not JSON") from None
    if not isinstance(rec, dict) or rec.get("seq") != seq:
        raise UnreadableRecord(journal.path, seq, column, "its body is not a record of that seq")
    try:
        check(known, rec)
    except RecordError as exc:
        raise UnreadableRecord(journal.path, seq, str(rec.get("type")), str(exc)) from None
    return rec
