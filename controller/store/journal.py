"""The journal: every record, in order, in SQLite, hash-chained.

Each record is one row: its ``seq`` (1, 2, ...), its body (canonical JSON of the whole
record: ``type``, ``seq``, ``t`` and its fields) and ``hash`` = SHA-256 of the previous
record's hash and this body, so an edit, an insertion or a deletion anywhere breaks the
chain from that record on (project standards, Security).

Durability (project standards, Durability): WAL mode with ``synchronous=FULL``, and each record
is committed before :meth:`Journal.append` returns, so a record is on disk before anything
acts on it. A replay may use ``durable=False`` (a scratch database; commits are batched and
not synced), never the daemon.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import shutil
import sqlite3
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from json.encoder import encode_basestring_ascii as encode_basestring
from pathlib import Path
from typing import Any

from controller.core.config import why_not_made
from controller.core.errors import JournalError

GENESIS = "0" * 64
_SCHEMA = """
CREATE TABLE IF NOT EXISTS records (
    seq   INTEGER PRIMARY KEY,
    t     REAL NOT NULL,
    type  TEXT NOT NULL,
    body  TEXT NOT NULL,
    hash  TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS records_type ON records(type);
"""
_BATCH = 2000  # records per transaction when durable=False
_INSERT = "INSERT INTO records(seq, t, type, body, hash) VALUES (?, ?, ?, ?, ?)"


# ASCII only: a body is one line for any reader, whatever characters a record holds
# (U+0085 and U+2028 end a line for some).
_ENCODER = json.JSONEncoder(sort_keys=True, separators=(",", ":"), allow_nan=False)


def canonical(record: dict[str, Any]) -> str:
    """The one JSON text of a record that its hash covers (sorted keys, no spaces, ASCII).

    Flat records of strings and numbers (GPIO edges: most of a journal) are written
    directly; the text is the same as the JSON encoder's, only faster.
    """
    parts = []
    for key in sorted(record):
        value = record[key]
        kind = type(value)
        if kind is str:
            parts.append(f"{encode_basestring(key)}:{encode_basestring(value)}")
        elif kind is int or (kind is float and math.isfinite(value)):
            parts.append(f"{encode_basestring(key)}:{value!r}")
        else:
            return _ENCODER.encode(record)
    return "{" + ",".join(parts) + "}"


def chain_hash(prev_hash: str, body: str) -> str:
    """SHA-256 (hex) of the previous record's hash, a newline and this record's body."""
    return hashlib.sha256(f"{prev_hash}\n{body}".encode()).hexdigest()


@dataclass(frozen=True)
class VerifyResult:
    """Outcome of :func:`verify`: ``ok``, how many records were checked, the first bad one."""

    ok: bool
    records: int
    bad_seq: int | None = None
    message: str = ""


class Journal:
    """Append-only, hash-chained record store.

    Args:
        path: SQLite file; its folder is created if missing.
        durable: True (the daemon): commit and fsync each record. False (replay scratch
            databases): batch commits, no fsync.
        readonly: open for reading only (``tablectl``), while the daemon may be writing.

    Raises:
        JournalError: the file is not a database, fails ``PRAGMA integrity_check``, (read
            only) does not exist, or its folder cannot be made (a regular file stands where
            a folder of its path should be, or no permission).
    """

    def __init__(self, path: str | Path, *, durable: bool = True, readonly: bool = False) -> None:
        self.path = Path(path)
        self.readonly = readonly
        self.durable = durable
        self.access = "read-only" if readonly else "write"
        self._copy: str | None = None
        try:
            if readonly:
                if not self.path.exists():
                    raise JournalError(f"{self.path}: no journal there")
                self._db, self.access, self._copy = _open_readonly(self.path)
            else:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._db = sqlite3.connect(self.path, isolation_level=None)
                self._db.execute("PRAGMA journal_mode=WAL")
                self._db.execute(f"PRAGMA synchronous={'FULL' if durable else 'OFF'}")
                self._db.executescript(_SCHEMA)
            check = self._db.execute("PRAGMA integrity_check").fetchone()[0]
        except sqlite3.DatabaseError as exc:
            raise JournalError(f"{self.path}: not a usable journal ({exc})") from exc
        except OSError as exc:  # its folder cannot be made: a file is in the way, no right
            raise JournalError(f"{self.path}: cannot make the journal there: "
                               f"{why_not_made(self.path, exc)}") from exc
        if check != "ok":
            raise JournalError(f"{self.path}: integrity_check failed: {check}")
        row = self._db.execute(
            "SELECT seq, hash, t FROM records ORDER BY seq DESC LIMIT 1").fetchone()
        self.last_seq: int = row[0] if row else 0
        self.last_hash: str = row[1] if row else GENESIS
        self.last_t: float = row[2] if row else 0.0
        self._rows: list[tuple[int, float, str, str, str]] = []

    def append(self, type_: str, t: float, fields: dict[str, Any]) -> tuple[dict[str, Any], str]:
        """Journal one record; return it (with ``type``, ``seq``, ``t``) and its JSON body.

        Durable journals commit (fsync) before returning.

        Raises:
            JournalError: the journal is read-only or the write failed (disk full, I/O).
        """
        if self.readonly:
            raise JournalError(f"{self.path}: opened read-only")
        seq = self.last_seq + 1
        # An emitter may pass the event's own time (a serial chunk's arrival) as "t". Times
        # never go back in the journal, even when two driver threads' events cross.
        t = max(fields.pop("t", t), self.last_t)
        record = {"type": type_, "seq": seq, "t": round(t, 6), **fields}
        body = canonical(record)
        digest = chain_hash(self.last_hash, body)
        self._write((seq, record["t"], type_, body, digest))
        self.last_t = record["t"]
        self.last_seq = seq
        self.last_hash = digest
        return record, body

    def append_edge(self, t: float, name: str, level: int) -> tuple[dict[str, Any], str]:
        """Journal a ``gpio`` record (the hot path: most of a journal is GPIO edges).

        The same record and body as ``append("gpio", t, {"input": name, "level": level})``,
        written without the generic encoder; ``name`` is an input name of CONTRACT §1.
        """
        if self.readonly:
            raise JournalError(f"{self.path}: opened read-only")
        seq = self.last_seq + 1
        t = round(max(t, self.last_t), 6)
        body = f'{{"input":"{name}","level":{level},"seq":{seq},"t":{t!r},"type":"gpio"}}'
        digest = chain_hash(self.last_hash, body)
        self._write((seq, t, "gpio", body, digest))
        self.last_t = t
        self.last_seq = seq
        self.last_hash = digest
        return {"type": "gpio", "seq": seq, "t": t, "input": name, "level": level}, body

    def _write(self, row: tuple[int, float, str, str, str]) -> None:
        if self.durable:
            try:
                # Autocommit: one fsync'd transaction per record.
                self._db.execute(_INSERT, row)
            except sqlite3.Error as exc:
                raise JournalError(f"{self.path}: write of record {row[0]} failed: {exc}") from exc
        else:
            self._rows.append(row)
            if len(self._rows) >= _BATCH:
                self.flush()

    def flush(self) -> None:
        """Write and commit a pending batch (``durable=False``).

        Raises:
            JournalError: the write failed; nothing of the batch is kept.
        """
        if not self._rows:
            return
        rows, self._rows = self._rows, []
        try:
            with self._db:
                self._db.execute("BEGIN")
                self._db.executemany(_INSERT, rows)
        except sqlite3.Error as exc:
            raise JournalError(f"{self.path}: write of records {rows[0][0]}-{rows[-1][0]} "
                               f"failed: {exc}") from exc

    def close(self) -> None:
        self.flush()
        self._db.close()
        if self._copy is not None:
            shutil.rmtree(self._copy, ignore_errors=True)
            self._copy = None

    def records(self, after: int = 0, types: tuple[str, ...] = ()) -> Iterator[dict[str, Any]]:
        """Records with ``seq`` > ``after`` in order, optionally only of ``types``."""
        self.flush()
        sql = "SELECT body FROM records WHERE seq > ?"
        args: list[Any] = [after]
        if types:
            sql += f" AND type IN ({','.join('?' * len(types))})"
            args.extend(types)
        for (body,) in self._db.execute(sql + " ORDER BY seq", args):
            yield json.loads(body)

    def last_of(self, type_: str) -> dict[str, Any] | None:
        """The newest record of ``type_``, or None."""
        self.flush()
        row = self._db.execute(
            "SELECT body FROM records WHERE type = ? ORDER BY seq DESC LIMIT 1", (type_,)
        ).fetchone()
        return json.loads(row[0]) if row else None

    def verify(self) -> VerifyResult:
        """Recompute the hash chain from the first record; name the first record that fails.

        A record fails when its body is not the canonical JSON of a record with that
        ``seq``, when its hash is not the chain hash, or when a ``seq`` is missing.
        """
        self.flush()
        prev = GENESIS
        expected = 1
        count = 0
        rows = self._db.execute("SELECT seq, body, hash FROM records ORDER BY seq")
        for seq, body, digest in rows:
            count += 1
            if seq != expected:
                return VerifyResult(False, count, expected, f"record {expected} is missing")
            try:
                record = json.loads(body)
            except ValueError:
                return VerifyResult(False, count, seq, f"record {seq}: body is not JSON")
            if record.get("seq") != seq or canonical(record) != body:
                return VerifyResult(False, count, seq, f"record {seq}: body altered")
            if chain_hash(prev, body) != digest:
                return VerifyResult(False, count, seq, f"record {seq}: hash does not chain")
            prev = digest
            expected += 1
        return VerifyResult(True, count)

    @contextmanager
    def snapshot(self) -> Iterator[None]:
        """Reads inside see one state of the journal, even while the daemon writes."""
        self.flush()
        self._db.execute("BEGIN")
        try:
            yield
        finally:
            self._db.execute("COMMIT")

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _open_readonly(path: Path) -> tuple[sqlite3.Connection, str, str | None]:
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
