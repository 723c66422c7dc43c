"""The emit a card table's recovery plays its journaled inputs again through: each
record the table makes must be the next one journaled (``controller.cards.table``)."""

from __future__ import annotations

import json
from typing import Any

from controller.store.records import Record, unpack

NOT_COMPARED = frozenset({"t", "message"})  # fields a replayed record may differ in


class Replayed:
    """The emit used while inputs are played again on restart.

    Each record the table makes must be the next one already journaled (same type and
    fields, its words for people, ``message``, aside), and is answered with it. Nothing is
    journaled: an input is in the journal whole or not at all, so a replay that goes beyond
    the journal's records, or differs from them, is a ``mismatch`` (reported in the
    ``recovery`` record), never completed.
    """

    def __init__(self, journaled: list[dict[str, Any]]) -> None:
        self.journaled = journaled
        self.index = 0
        self.matched = 0
        self.mismatch: str | None = None

    def __call__(self, record: Record, /, *, t: float | None = None) -> dict[str, Any]:
        type_, fields = unpack(record, t)
        if self.index < len(self.journaled):
            rec = self.journaled[self.index]
            self.index += 1
            # A message is words for people: a newer version may word it anew.
            differs = [k for k, v in fields.items()
                       if k not in NOT_COMPARED and rec.get(k) != _as_json(v)]
            if rec["type"] == type_ and not differs:
                self.matched += 1
            elif self.mismatch is None:
                self.mismatch = (f"record {rec['seq']} is {rec['type']}, replay made {type_}"
                                 if rec["type"] != type_ else f"record {rec['seq']} "
                                 f"({type_}) differs from the replay's in {', '.join(differs)}")
            return rec
        if self.mismatch is None:
            self.mismatch = (f"the replay made a {type_} record after the journal's last: "
                             "the journal ends in the middle of an input (cut)")
        return {"type": type_, **fields}

    def end(self) -> None:
        """Every input was played again: a journaled record left over was made by none of
        them (added after the last input: a forged settlement, say), a mismatch too."""
        if self.index < len(self.journaled) and self.mismatch is None:
            rec = self.journaled[self.index]
            self.mismatch = (f"record {rec['seq']} ({rec['type']}) follows the last input and "
                             "no input makes it")


def _as_json(value: Any) -> Any:
    """``value`` as it reads back from the journal (tuples become lists...)."""
    return json.loads(json.dumps(value))
