"""Following a journal read-only as the daemon commits: the display's and the feed's source.

A follower never writes the journal and the daemon never waits for it (project standards,
Architecture): it opens the file with SQLite's ``mode=ro`` and reads the rows after its
cursor. It wakes on the kernel's word, not a timer: an inotify watch on the journal's
folder reports each write of the WAL (a commit) and a journal made, removed or moved
over (replaced). ``PRAGMA data_version`` then tells whether anything was committed since
the last read, so a wake that brought nothing costs one pragma. Where inotify cannot be
had, :meth:`Follower.wait` falls back to sleeping its timeout, which callers keep long
(seconds), never a busy loop.

The journal may be missing (not made yet), unreadable, or replaced by another file (a new
inode): :attr:`Follower.problem` says which in words and :attr:`Follower.generation`
counts the files followed, so a reader starts again from the first record of a new one.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import json
import os
import select
import sqlite3
import struct
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.store.chain import GENESIS, HASH_HEX

_IN_MODIFY = 0x002
_IN_CLOSE_WRITE = 0x008
_IN_MOVED_TO = 0x080
_IN_CREATE = 0x100
_IN_DELETE = 0x200
_IN_MOVED_FROM = 0x040
_MASK = _IN_MODIFY | _IN_CLOSE_WRITE | _IN_MOVED_TO | _IN_CREATE | _IN_DELETE | _IN_MOVED_FROM
_IN_NONBLOCK = 0o4000
_IN_CLOEXEC = 0o2000000
_EVENT = struct.Struct("iIII")
CHUNK = 500
"""Rows read at a time: a reader's memory stays bounded whatever the backlog."""


@dataclass(frozen=True)
class Row:
    """One committed record as the journal holds it: ``seq``, its chain ``hash``, the hash
    of the record before it (``prev``; GENESIS for the first) and its canonical ``body``
    (JSON text)."""

    seq: int
    hash: str
    prev: str
    body: str

    def record(self) -> dict[str, Any]:
        """The record its body holds.

        Raises:
            ValueError: the body is not JSON, not a record, or not this row's (its seq):
                a damaged or forged record, which a reader names and passes over.
        """
        rec = json.loads(self.body)  # json.JSONDecodeError is a ValueError
        if not isinstance(rec, dict) or rec.get("seq") != self.seq:
            raise ValueError("its body is not this row's record")
        return rec


class _Inotify:
    """A non-blocking inotify watch on one folder, through libc (no extra package)."""

    def __init__(self, folder: Path) -> None:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        fd = libc.inotify_init1(_IN_NONBLOCK | _IN_CLOEXEC)
        if fd < 0:
            raise OSError(ctypes.get_errno(), "inotify_init1")
        if libc.inotify_add_watch(fd, os.fsencode(folder), _MASK) < 0:
            err = ctypes.get_errno()
            os.close(fd)
            raise OSError(err, f"inotify_add_watch {folder}")
        self.fd = fd

    def wait(self, names: set[str], timeout: float) -> bool:
        """Block up to ``timeout`` s for an event on one of ``names``; True if one came."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            ready, _, _ = select.select([self.fd], [], [], left)
            if not ready:
                return False
            if any(name in names for name in self._drain()):
                return True

    def _drain(self) -> Iterator[str]:
        try:
            data = os.read(self.fd, 65536)
        except BlockingIOError:
            return
        offset = 0
        while offset + _EVENT.size <= len(data):
            _, _, _, length = _EVENT.unpack_from(data, offset)
            start = offset + _EVENT.size
            yield data[start:start + length].rstrip(b"\0").decode(errors="replace")
            offset = start + length

    def close(self) -> None:
        os.close(self.fd)


class Follower:
    """Reads a journal's committed records in order, as they are committed.

    Args:
        path: the journal (SQLite file) the daemon writes.

    Use :meth:`rows` for the records after a ``seq`` (bounded chunks), :meth:`wait` to
    block until something may have changed; neither raises for a journal missing,
    unreadable or replaced: :attr:`problem` says so (None while all is well).
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.problem: str | None = None
        self.generation = 0
        self._db: sqlite3.Connection | None = None
        self._inode: tuple[int, int] | None = None
        self._version: int | None = None
        self._names = {self.path.name, f"{self.path.name}-wal"}
        self._watch: _Inotify | None = None
        try:
            self._watch = _Inotify(self.path.parent)
        except OSError:
            self._watch = None  # no folder yet, or no inotify: wait() sleeps instead

    @property
    def uses_inotify(self) -> bool:
        return self._watch is not None

    def _connect(self) -> sqlite3.Connection | None:
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            self._drop("no journal at " + str(self.path))
            return None
        except OSError as exc:
            self._drop(f"{self.path}: {exc.strerror}")
            return None
        inode = (st.st_dev, st.st_ino)
        if self._db is not None and inode == self._inode:
            return self._db
        self._drop(None)
        try:
            db = sqlite3.connect(f"{self.path.resolve().as_uri()}?mode=ro", uri=True,
                                 isolation_level=None, check_same_thread=False)
            db.execute("SELECT 1 FROM records LIMIT 1").fetchall()
        except sqlite3.Error as exc:
            self.problem = f"{self.path}: journal cannot be read ({exc})"
            return None
        if inode != self._inode:
            self.generation += 1  # a new file (the first, or one put in the old one's place)
        self._db, self._inode, self.problem = db, inode, None
        return db

    def _drop(self, problem: str | None) -> None:
        if self._db is not None:
            self._db.close()
        self._db, self._version = None, None
        if problem is not None:
            self.problem = problem

    def changed(self) -> bool:
        """Whether a commit may have come since the last call (``data_version``)."""
        db = self._connect()
        if db is None:
            return False
        try:
            version = db.execute("PRAGMA data_version").fetchone()[0]
        except sqlite3.Error as exc:
            self._drop(f"{self.path}: journal cannot be read ({exc})")
            return False
        new = version != self._version
        self._version = version
        return new

    def rows(self, after: int = 0, limit: int = CHUNK) -> list[Row]:
        """Up to ``limit`` records with seq > ``after``, in order, each with the hash of
        the one before it; [] when there are none or the journal cannot be read."""
        db = self._connect()
        if db is None:
            return []
        try:
            prev_row = db.execute(f"SELECT {HASH_HEX} FROM records WHERE seq = ?",
                                  (after,)).fetchone() if after else None
            got = db.execute(f"SELECT seq, {HASH_HEX}, body FROM records WHERE seq > ? "
                             "ORDER BY seq LIMIT ?", (after, limit)).fetchall()
        except sqlite3.Error as exc:
            self._drop(f"{self.path}: journal cannot be read ({exc})")
            return []
        prev = prev_row[0] if prev_row else GENESIS
        out = []
        for seq, hash_, body in got:
            out.append(Row(seq, hash_, prev, body))
            prev = hash_
        return out

    def head(self) -> int:
        """The last committed seq (0 for none or an unreadable journal)."""
        db = self._connect()
        if db is None:
            return 0
        try:
            return int(db.execute("SELECT coalesce(max(seq), 0) FROM records").fetchone()[0])
        except sqlite3.Error:
            return 0

    def wait(self, timeout: float) -> None:
        """Block until the journal's files change or ``timeout`` s pass (the kernel wakes
        it: no polling while inotify is there)."""
        if self._watch is None:
            time.sleep(timeout)
            try:
                self._watch = _Inotify(self.path.parent)
            except OSError:
                self._watch = None
            return
        self._watch.wait(self._names, timeout)

    def close(self) -> None:
        self._drop(None)
        if self._watch is not None:
            self._watch.close()
            self._watch = None
