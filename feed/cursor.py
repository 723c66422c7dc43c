"""The feed's cursor: the last seq the broker acknowledged (PUBACK), in a file of its own.

The journal is the queue (store and forward): the feed sends what follows its cursor, so
nothing lives only in memory. The file is one JSON line, ``{"seq": N, "hash": H}``, H the
chain hash of record N, so a journal put in the old one's place (a new table, a restored
card) is told from the one the cursor belongs to. It is replaced atomically (a temporary
file, fsync, rename, fsync of the folder): a kill leaves the old cursor or the new one,
and an old one only means records sent twice, which the floor's key absorbs.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from controller.store.chain import GENESIS


@dataclass(frozen=True)
class Cursor:
    """``seq`` acknowledged up to, and that record's ``hash`` (GENESIS for seq 0)."""

    seq: int = 0
    hash: str = GENESIS


def read_cursor(path: str | Path) -> tuple[Cursor, str | None]:
    """The cursor in ``path`` (seq 0 when there is none) and, when the file is there but
    cannot be used, why in words (the feed then starts from the first record)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        return Cursor(int(data["seq"]), str(data["hash"])), None
    except FileNotFoundError:
        return Cursor(), None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        return Cursor(), f"cursor {path} cannot be used ({exc}): sending from the first record"


def write_cursor(path: str | Path, cursor: Cursor) -> None:
    """Replace the cursor file atomically and durably.

    Raises:
        OSError: the folder cannot be written (the caller says so and keeps going).
    """
    target = Path(path)
    tmp = target.with_name(target.name + ".tmp")
    with open(tmp, "w", encoding="utf-8") as out:
        out.write(json.dumps({"seq": cursor.seq, "hash": cursor.hash}) + "\n")
        out.flush()
        os.fsync(out.fileno())
    os.replace(tmp, target)
    folder = os.open(target.parent, os.O_RDONLY)
    try:
        os.fsync(folder)
    finally:
        os.close(folder)
