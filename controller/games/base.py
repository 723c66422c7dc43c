"""What every game gets from the table: a way to journal records.

A game never writes the journal itself: it calls ``emit``, which appends the record to the
journal (committed, hash-chained) and returns it with its ``seq``; only then does the game
act on it (project standards, Durability).
"""

from __future__ import annotations

from typing import Any, Protocol


class Emit(Protocol):
    """Journal one record of ``type_`` with ``fields`` (JSON-serialisable); return it whole.

    The returned dict has ``type``, ``seq``, ``t`` and the fields.
    """

    def __call__(self, type_: str, /, **fields: Any) -> dict[str, Any]: ...

