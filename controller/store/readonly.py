"""Opening a journal for reading only (``tablectl``, the display, the feed) while the
daemon may be writing it, or after it stopped, whatever the reader may write.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import tempfile
from pathlib import Path


def open_readonly(path: Path) -> tuple[sqlite3.Connection, str, str | None]:
    """Open ``path`` for reading only; returns the connection, how it was opened
    (``access``) and a scratch folder to remove on close, if any.

    A WAL journal's reader must write its ``-shm`` index file beside the journal. While the
    daemon runs, that file exists and a reader of the admin group may only read it; once the
    daemon closed the journal it is gone, and a reader who cannot write the folder gets
    "attempt to write a readonly database". Then, with no ``-wal`` left, the journal is
    opened ``immutable`` (nobody writes it: no lock, no index); with a ``-wal`` left by a
    daemon that did not close (power cut, kill) and no index to read, journal and WAL are
    copied to a private scratch folder and the copy is read, so no committed record is
    missed. ``access`` is ``read-only``, ``immutable`` or ``copy``.

    Raises:
        sqlite3.DatabaseError: the journal cannot be read (not a database, no right).
        OSError: the copy failed.
    """
    uri = path.resolve().as_uri()
    db = sqlite3.connect(f"{uri}?mode=ro", uri=True, isolation_level=None)
    try:
        db.execute("SELECT count(*) FROM sqlite_master").fetchone()
        return db, "read-only", None
    except sqlite3.OperationalError:
        db.close()
        if os.access(path.parent, os.W_OK):
            raise
    wal = Path(f"{path}-wal")
    if not wal.exists() or wal.stat().st_size == 0:
        return (sqlite3.connect(f"{uri}?mode=ro&immutable=1", uri=True, isolation_level=None),
                "immutable", None)
    scratch = tempfile.mkdtemp(prefix="journal-copy-")
    copy = Path(scratch) / path.name
    try:
        shutil.copyfile(path, copy)
        shutil.copyfile(wal, f"{copy}-wal")
    except OSError:
        shutil.rmtree(scratch, ignore_errors=True)
        raise
    return (sqlite3.connect(f"{copy.as_uri()}?mode=ro", uri=True, isolation_level=None),
            "copy", scratch)
