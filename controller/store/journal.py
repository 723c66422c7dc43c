"""The journal: every record, in order, in SQLite, hash-chained; raw edges in evidence batches.

Each record is one row: its ``seq`` (1, 2, ...), its body (canonical JSON of the whole
record: ``type``, ``seq``, ``t`` and its fields) and ``hash`` = SHA-256 of the previous
record's hash and this body, so an edit, an insertion or a deletion anywhere breaks the
chain from that record on (project standards, Security: :mod:`controller.store.chain`).
The ``type`` and ``t`` columns copy the body's for queries; :meth:`Journal.verify` checks
them against it. Raw GPIO edges are packed into evidence batches
(:mod:`controller.store.evidence`), each written with the record that closes it, which
carries its SHA-256.

Durability (project standards, Durability): WAL mode with ``synchronous=FULL``. Records are
written in transactions: the table opens one for each input (:meth:`Journal.transaction`),
every record the input causes is staged in it, and one commit (one fsync of the WAL) puts
them on disk together before anything acts on them; after a power cut an input is in the
journal with all its consequences or not at all. An :meth:`append` outside a transaction
is its own. A replay may use ``durable=False`` (a scratch database: commits batched, no
fsync), never the daemon.

Format (``PRAGMA user_version``): 3 since issue 20, when the ``hash`` column took the
32 raw bytes of the SHA-256 instead of its 64 hex digits (a tenth of a roulette spin's
journal); the chain is the same (each hash covers the previous one's hex digits), and
every reader takes the column through :data:`HASH_HEX`, the hex digits of a row of either
kind. Format 2 (issue 8) added the evidence table. A journal of an older format (1: one
record per GPIO edge, no evidence table; 2: hex hashes) is upgraded when opened for
writing: its records stay as they were written, an ``upgrade`` record says so, and new
records follow in the new format.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import time
from collections.abc import Generator, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from controller.core.errors import (
    RESUME_ADVICE,
    TOOL_ADVICE,
    JournalDamaged,
    JournalError,
    JournalWriteError,
    UnreadableBatch,
    UnreadableRecord,
    is_damage,
)
from controller.core.section import why_not_made
from controller.store.chain import (
    GENESIS,
    HASH_HEX,
    VerifyResult,
    canonical,
    chain_digest,
)
from controller.store.evidence import Batch, Edge, batch_fault, pack
from controller.store.readonly import open_readonly

FORMAT = 3
_SCHEMA = """
CREATE TABLE IF NOT EXISTS records (
    seq   INTEGER PRIMARY KEY,
    t     REAL NOT NULL,
    type  TEXT NOT NULL,
    body  TEXT NOT NULL,
    hash  BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS records_type ON records(type);
CREATE TABLE IF NOT EXISTS evidence (
    batch    INTEGER PRIMARY KEY,
    seq      INTEGER NOT NULL,
    first_us INTEGER NOT NULL,
    edges    INTEGER NOT NULL,
    inputs   TEXT NOT NULL,
    data     BLOB NOT NULL
);
"""
_BATCH = 2000  # records per transaction when durable=False
_INSERT = "INSERT INTO records(seq, t, type, body, hash) VALUES (?, ?, ?, ?, ?)"
_INSERT_BATCH = ("INSERT INTO evidence(batch, seq, first_us, edges, inputs, data) "
                 "VALUES (?, ?, ?, ?, ?, ?)")
Row = tuple[int, float, str, str, bytes]
BatchRow = tuple[int, int, int, int, str, bytes]


class Journal:
    """Append-only, hash-chained record store with evidence batches.

    Args:
        path: SQLite file; its folder is created if missing.
        durable: True (the daemon): each transaction committed and fsync'd. False
            (replay scratch databases): commits batched, no fsync.
        readonly: open for reading only (``tablectl``), while the daemon may be writing.

    Raises:
        JournalError: the file is not a database, its last record cannot be read, it is
            of a format newer than this code's, (read only) it does not exist, or its
            folder cannot be made (a regular file in the way, no permission).
    """

    def __init__(self, path: str | Path, *, durable: bool = True, readonly: bool = False) -> None:
        self.path = Path(path)
        self.readonly = readonly
        self.durable = durable
        self.access = "read-only" if readonly else "write"
        # What to do about a record or a page that cannot be read: a tool (read only) says
        # which command lists them, the daemon how to start again.
        self.advice = TOOL_ADVICE if readonly else RESUME_ADVICE
        self._copy: str | None = None
        self.commits = 0  # durable commits made (each one fsync of the WAL)
        self.last_commit_s = 0.0  # the last one, from its first record to its commit (s)
        self.last_write_s = 0.0  # ... and its write alone, BEGIN to COMMIT (s)
        self._began = 0.0
        try:
            if readonly:
                if not self.path.exists():
                    raise JournalError(f"{self.path}: no journal there")
                self._db, self.access, self._copy = open_readonly(self.path)
            else:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._db = sqlite3.connect(self.path, isolation_level=None)
                self._db.execute("PRAGMA journal_mode=WAL")
                self._db.execute(f"PRAGMA synchronous={'FULL' if durable else 'OFF'}")
            self.format = self._open_format()
            row = self._db.execute(
                f"SELECT seq, {HASH_HEX}, t FROM records ORDER BY seq DESC LIMIT 1").fetchone()
            batch = (self._db.execute("SELECT max(batch) FROM evidence").fetchone()[0]
                     if self.format >= 2 else None)
        except sqlite3.DatabaseError as exc:
            if is_damage(exc):
                raise JournalDamaged(self.path, exc, self.advice) from exc
            raise JournalError(f"{self.path}: not a usable journal ({exc})") from exc
        except OSError as exc:  # its folder cannot be made: a file is in the way, no right
            raise JournalError(f"{self.path}: cannot make the journal there: "
                               f"{why_not_made(self.path, exc)}") from exc
        self.last_seq: int = row[0] if row else 0
        self.last_hash: str = row[1] if row else GENESIS
        self.last_t: float = row[2] if row else 0.0
        self._next_batch = (batch or 0) + 1
        self._rows: list[Row] = []  # written, not yet committed (durable=False)
        self._batch_rows: list[BatchRow] = []
        self._staged: list[Row] | None = None  # the open transaction's records
        # ``_staged is not None``, kept as a plain attribute: the table asks it at every
        # input (a replay's 100 edges a spin), where a property's call shows.
        self.in_transaction = False
        self._staged_batches: list[BatchRow] = []
        self._saved: tuple[int, str, float, int, list[Edge]] | None = None
        self._edges: list[Edge] = []  # the open evidence batch
        self._schema_sql: list[str] = []  # run in the next commit (an upgrade)
        self.recent: dict[int, Batch] = {}  # the batches the last transaction closed
        if self.format < FORMAT and not readonly:
            self._upgrade()

    def _open_format(self) -> int:
        version = self._db.execute("PRAGMA user_version").fetchone()[0]
        has_records = self._db.execute(
            "SELECT 1 FROM sqlite_master WHERE name = 'records'").fetchone() is not None
        if version > FORMAT:
            raise JournalError(f"{self.path}: journal format {version} is newer than this "
                               f"controller's ({FORMAT}): run the version that wrote it")
        if self.readonly:
            return version if version else (1 if has_records else FORMAT)
        if not has_records:
            self._db.executescript(_SCHEMA + f"PRAGMA user_version = {FORMAT};")
            return FORMAT
        return version if version else 1

    def _upgrade(self) -> None:
        """Format 1 or 2 to 3, in one transaction: the evidence table (format 1), the
        format number and an ``upgrade`` record; the records stay as written."""
        records = self.last_seq
        self._schema_sql = [s for s in _SCHEMA.split(";") if s.strip()] + [
            f"PRAGMA user_version = {FORMAT}"]
        with self.transaction():
            self.append("upgrade", self.last_t, {"from_format": self.format,
                                                 "to_format": FORMAT, "records": records})
        self.format = FORMAT

    # -- writing -----------------------------------------------------------------------
    @contextmanager
    def transaction(self) -> Iterator[None]:
        """Stage every record appended inside; commit them together (one fsync) at the end.
        Nested use joins the open transaction. On an exception inside, nothing is written
        and the chain's head is as before.

        Raises:
            JournalWriteError: the commit failed (disk full, read-only, I/O): nothing of
                the transaction is on disk, the head is as before it.
        """
        if self._staged is not None:
            yield
            return
        self.begin()
        try:
            yield
        except BaseException:
            self.rollback()
            raise
        self.commit()

    def begin(self) -> None:
        """Open a transaction (:meth:`transaction` is the usual way); the table opens one
        at an input's first record, so an input that journals nothing costs nothing."""
        self._began = time.perf_counter()
        if self.readonly:
            raise JournalError(f"{self.path}: opened read-only")
        self._staged = []
        self.in_transaction = True
        self._staged_batches = []
        self.recent = {}
        self._saved = (self.last_seq, self.last_hash, self.last_t, self._next_batch,
                       self._edges)

    def rollback(self) -> None:
        """Drop the open transaction: nothing of it is written; the head is as before."""
        assert self._saved is not None
        (self.last_seq, self.last_hash, self.last_t, self._next_batch,
         self._edges) = self._saved
        self._staged, self._saved, self.in_transaction = None, None, False
        self._staged_batches = []

    def commit(self) -> None:
        """Write the open transaction, in one SQLite transaction (one fsync when durable).

        Raises:
            JournalWriteError: as :meth:`transaction`; the transaction is dropped.
        """
        rows, batches = self._staged, self._staged_batches
        assert rows is not None
        if not rows:
            self._staged, self._saved, self.in_transaction = None, None, False
            return
        if not self.durable:
            self._rows += rows
            self._batch_rows += batches
            self._staged, self._saved, self.in_transaction = None, None, False
            if len(self._rows) >= _BATCH:
                self.flush()
            return
        try:
            self._write(rows, batches)
        except JournalWriteError:
            self.rollback()
            raise
        self._staged, self._saved, self.in_transaction = None, None, False
        self.commits += 1
        self.last_commit_s = time.perf_counter() - self._began

    def _write(self, rows: list[Row], batches: list[BatchRow]) -> None:
        db = self._db
        began = time.perf_counter()
        try:
            db.execute("BEGIN")
            try:
                for sql in self._schema_sql:
                    db.execute(sql)
                db.executemany(_INSERT, rows)
                if batches:
                    db.executemany(_INSERT_BATCH, batches)
                db.execute("COMMIT")
                self.last_write_s = time.perf_counter() - began
                self._schema_sql = []
            except BaseException:
                if db.in_transaction:
                    db.execute("ROLLBACK")
                raise
        except sqlite3.Error as exc:
            self._schema_sql = []
            what = (f"records {rows[0][0]}-{rows[-1][0]}" if len(rows) > 1
                    else f"record {rows[0][0]}")
            raise JournalWriteError(self.path, what, exc) from exc

    def append(self, type_: str, t: float, fields: dict[str, Any],
               closes_evidence: bool = False) -> tuple[dict[str, Any], str]:
        """Journal one record (staged in the open transaction, else committed at once);
        return it (with ``type``, ``seq``, ``t``) and its JSON body.

        ``t`` in ``fields`` (an event's own time) wins over ``t``; times never go back.
        With ``closes_evidence`` the open evidence batch, if it has edges, is written with
        the record, whose ``evidence`` field is then the batch's reference.

        Raises:
            JournalError: the journal is read-only. JournalWriteError: the record's own
                commit failed (outside a transaction).
        """
        if self._staged is None:
            with self.transaction():
                return self.append(type_, t, fields, closes_evidence)
        seq = self.last_seq + 1
        # Times never go back in the journal, even when two driver threads' events cross.
        t = max(fields.pop("t", t), self.last_t)
        if closes_evidence and self._edges:
            batch = self._close_batch(seq)
            fields["evidence"] = batch.ref()
        record = {"type": type_, "seq": seq, "t": round(t, 6), **fields}
        body = canonical(record)
        digest = chain_digest(self.last_hash, body)
        self._staged.append((seq, record["t"], type_, body, digest))
        self.last_t = record["t"]
        self.last_seq = seq
        self.last_hash = digest.hex()
        return record, body

    def edge(self, t: float, name: str, level: int) -> int:
        """Add a raw GPIO edge (``t`` journal time, seconds) to the open evidence batch;
        return how many edges the batch holds now (1: it is the first)."""
        edges = self._edges
        edges.append((t, name, level))
        return len(edges)

    @property
    def open_edges(self) -> int:
        """Edges in the open evidence batch (not yet journaled)."""
        return len(self._edges)

    @property
    def open_since(self) -> float | None:
        """The time of the open batch's first edge (journal time), None when it is empty."""
        return self._edges[0][0] if self._edges else None

    def _close_batch(self, seq: int) -> Batch:
        batch = pack(self._next_batch, self._edges)
        self._next_batch += 1
        self._edges = []
        assert self._staged is not None
        self._staged_batches.append((batch.batch, seq, batch.first_us, batch.edges,
                                     batch.inputs, batch.data))
        self.recent[batch.batch] = batch
        return batch

    def flush(self) -> None:
        """Write and commit what a ``durable=False`` journal holds back.

        Raises:
            JournalWriteError: the write failed; nothing of it is kept.
        """
        if not self._rows:
            return
        rows, batches = self._rows, self._batch_rows
        self._rows, self._batch_rows = [], []
        self._write(rows, batches)

    def close(self) -> None:
        self.flush()
        self._db.close()
        if self._copy is not None:
            shutil.rmtree(self._copy, ignore_errors=True)
            self._copy = None

    # -- reading -----------------------------------------------------------------------
    def records(self, after: int = 0, types: tuple[str, ...] = ()) -> Iterator[dict[str, Any]]:
        """Records with ``seq`` > ``after`` in order, optionally only of ``types`` (found
        by the ``type`` column: for the tools; recovery reads :meth:`bodies`)."""
        self.flush()
        sql = "SELECT seq, type, body FROM records WHERE seq > ?"
        args: list[Any] = [after]
        if types:
            sql += f" AND type IN ({','.join('?' * len(types))})"
            args.extend(types)
        for seq, type_, body in self._db.execute(sql + " ORDER BY seq", args):
            yield self.parse(seq, type_, body)

    def parse(self, seq: int, type_: str, body: str) -> dict[str, Any]:
        """Record ``seq`` from its body (``type_``: its ``type`` column, to name it).

        Raises:
            UnreadableRecord: the body is not JSON, or not a JSON object.
        """
        try:
            rec = json.loads(body)
        except (ValueError, TypeError):
            raise UnreadableRecord(self.path, seq, str(type_), "its body is not JSON",
                                   self.advice) from None
        if not isinstance(rec, dict):
            raise UnreadableRecord(self.path, seq, str(type_), "its body is not a record",
                                   self.advice)
        if rec.get("seq") != seq or rec.get("type") != type_:
            raise UnreadableRecord(self.path, seq, str(type_), "its body's seq and type "
                                   "are not its row's", self.advice)
        return rec

    def bodies(self, after: int = 0, until: int | None = None
               ) -> Generator[tuple[int, str, str], None, None]:
        """(seq, type column, body) of each record with ``after`` < seq <= ``until``."""
        self.flush()
        sql = "SELECT seq, type, body FROM records WHERE seq > ?"
        args: list[Any] = [after]
        if until is not None:
            sql += " AND seq <= ?"
            args.append(until)
        yield from self._db.execute(sql + " ORDER BY seq", args)

    def last_of(self, type_: str) -> dict[str, Any] | None:
        """The newest record of ``type_``, or None."""
        self.flush()
        row = self._db.execute(
            "SELECT seq, body FROM records WHERE type = ? ORDER BY seq DESC LIMIT 1", (type_,)
        ).fetchone()
        return self.parse(row[0], type_, row[1]) if row else None

    def checkpoints(self) -> Generator[dict[str, Any], None, None]:
        """Every ``checkpoint`` record whose body is one, newest first (a row whose
        ``type`` column was altered is passed over)."""
        self.flush()
        rows = self._db.execute(
            "SELECT body FROM records WHERE type = 'checkpoint' ORDER BY seq DESC")
        for (body,) in rows:
            try:
                rec = json.loads(body)
            except ValueError:
                continue
            if isinstance(rec, dict) and rec.get("type") == "checkpoint":
                yield rec

    def last_checkpoint(self) -> dict[str, Any] | None:
        """The newest checkpoint whose own record holds, the one a restart recovers from
        (:func:`controller.store.verify.checkpoint_fault`: an edited checkpoint is passed
        over), or None."""
        from controller.store.verify import checkpoint_fault

        found = self.checkpoints()
        try:
            return next((rec for rec in found if checkpoint_fault(self, rec) is None), None)
        finally:
            found.close()

    def hash_of(self, seq: int) -> str | None:
        """The stored hash of record ``seq`` (GENESIS for 0), None when there is none."""
        if seq == 0:
            return GENESIS
        self.flush()
        row = self._db.execute(f"SELECT {HASH_HEX} FROM records WHERE seq = ?",
                               (seq,)).fetchone()
        return row[0] if row else None

    def batches(self, first: int = 1, last: int | None = None) -> Iterator[tuple[int, Batch]]:
        """(closing seq, batch) of each evidence batch numbered ``first`` to ``last``."""
        if self.format < 2:
            return
        self.flush()
        sql = ("SELECT seq, batch, first_us, inputs, data, edges FROM evidence "
               "WHERE batch >= ?")
        args: list[Any] = [first]
        if last is not None:
            sql += " AND batch <= ?"
            args.append(last)
        for seq, batch, first_us, inputs, data, edges in self._db.execute(
                sql + " ORDER BY batch", args):
            yield seq, Batch(batch, first_us, inputs, bytes(data), edges)

    def edge_records(self, after_batch: int = 0) -> Iterator[dict[str, Any]]:
        """The raw GPIO edges the journal holds, as ``gpio`` records (``t`` journal time,
        ``input``, ``level``, ``batch``): those of the evidence batches after batch
        ``after_batch``, in order, and (a journal of format 1) its ``gpio`` records. The
        edges of the batch still open are not written yet: they come once it closes.

        Raises:
            UnreadableBatch: a batch is missing, or not the one its record closed
                (:meth:`edges_of`).
        """
        if self.format < 2:
            for rec in self.records(types=("gpio",)):
                yield {**rec, "batch": 0}
        number = after_batch + 1  # batches are numbered on, one by one
        for closing, batch in self.batches(number):
            if batch.batch != number:
                raise UnreadableBatch(self.path, number, "it is missing", self.advice)
            for t, name, level in self.edges_of(closing, batch):
                yield {"type": "gpio", "t": t, "input": name, "level": level,
                       "batch": batch.batch}
            number += 1

    def edges_of(self, closing: int, batch: Batch) -> list[Edge]:
        """The edges of ``batch``, which record ``closing`` closed, once the batch is shown
        to be the one that record's reference names: what a tool reads of the evidence
        (an export, a calibration), never edges altered since.

        Raises:
            UnreadableBatch: it is not that one (:func:`~controller.store.evidence.
                batch_fault`), or cannot be decoded; UnreadableRecord: the record
                cannot be read.
        """
        row = self._db.execute("SELECT type, body FROM records WHERE seq = ?",
                               (closing,)).fetchone()
        ref = self.parse(closing, row[0], row[1]).get("evidence") if row else None
        why = batch_fault(batch, ref, closing)
        if why is None:
            try:
                return batch.decode()
            except ValueError as exc:  # its SHA-256 holds: the code that wrote it erred
                why = f"it cannot be decoded ({exc})"
        raise UnreadableBatch(self.path, batch.batch, why, self.advice)

    def verify(self, since: int = 0) -> VerifyResult:
        """Recompute the hash chain from record ``since`` + 1 (from the first by default)
        to the head, with the stored hash of record ``since`` as the chain's start; name
        the first record that fails (:func:`controller.store.verify.check_chain`)."""
        from controller.store.verify import check_chain

        return check_chain(self, since)

    @contextmanager
    def snapshot(self) -> Iterator[None]:
        """Reads inside see one state of the journal, even while the daemon writes."""
        self.flush()
        self._db.execute("BEGIN")
        try:
            yield
        finally:
            self._db.execute("COMMIT")

    @property
    def db(self) -> sqlite3.Connection:
        """The connection, for the verifier's and the exporter's queries (read only)."""
        self.flush()
        return self._db

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
