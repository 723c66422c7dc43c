"""Checking a journal: its hash chain, its columns, its evidence batches, its records.

:func:`check_start` is what the daemon runs at start and plain ``tablectl verify``: the
checkpoint a restart recovers from, then the chain from it to the head. A checkpoint is
trusted only when its own record holds (:func:`checkpoint_fault`: its hash chains from the
record before it, the record after it chains from its hash, the first seal after it seals
the chain as it is); one that does not is a broken chain, and recovery passes over it to
the newest one that holds (or the journal's start), so an edited checkpoint (limits of
10^9, coup numbers moved on) is never recovered from. :func:`check_chain` then checks the
records from that checkpoint's own to the head (those before it were checked when they
were written and by the last ``tablectl verify --full``): each body is the canonical JSON
of a record with that ``seq``, each hash chains, no ``seq`` is missing, and the ``type``
and ``t`` columns (which queries trust) are the body's; and each seal among them seals the
chain's hash (its MAC needs the auditor's key: :mod:`controller.store.seal`).
:func:`check_full` is ``tablectl verify --full``: SQLite's integrity check of every page,
the chain from the first record, every evidence batch against the SHA-256 its closing record
carries (and every reference against a batch), and every record read as its declared type.
Seals are checked by :mod:`controller.store.seal` (they need the auditor's key).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterable
from contextlib import closing
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from controller.core.errors import UnreadableRecord
from controller.core.words import given
from controller.store.chain import GENESIS, HASH_HEX, VerifyResult, canonical, chain_hash
from controller.store.records import RecordError, Schema, check

if TYPE_CHECKING:
    from controller.store.evidence import Batch
    from controller.store.journal import Journal


def check_chain(journal: Journal, since: int = 0,
                each: Callable[[dict[str, Any]], None] | None = None) -> VerifyResult:
    """Recompute the chain from record ``since`` + 1 to the head (the stored hash of record
    ``since`` starts it; GENESIS for 0); ``each`` sees every record that holds.

    A record fails when its body is not JSON or not the canonical JSON of a record with
    that ``seq``, when its hash is not the chain hash, when its ``type`` or ``t`` column is
    not its body's, or when a ``seq`` is missing.
    """
    prev = journal.hash_of(since)
    first = since + 1
    if prev is None:
        return VerifyResult(False, 0, since, f"record {since} is missing", first)
    prev = prev or GENESIS
    rows = journal.db.execute(
        f"SELECT seq, t, type, body, {HASH_HEX} FROM records WHERE seq > ? ORDER BY seq",
        (since,))
    read = [since]  # the last record read
    try:
        return _chain(rows, prev, first, each, read)
    except sqlite3.DatabaseError as exc:  # a damaged page: nothing past it can be read
        return VerifyResult(False, read[0] - since, read[0] + 1,
                            f"record {read[0] + 1} and those after it cannot be read: the "
                            f"journal's file is damaged (SQLite: {exc})", first,
                            damaged=str(exc))


def _chain(rows: Iterable[tuple[int, float, str, str, str]], prev: str, first: int,
           each: Callable[[dict[str, Any]], None] | None, read: list[int]) -> VerifyResult:
    expected = first
    count = 0
    for seq, t, type_, body, digest in rows:
        read[0] = seq
        count += 1
        if seq != expected:
            return VerifyResult(False, count, expected, f"record {expected} is missing", first)
        try:
            record = json.loads(body)
        except ValueError:
            return VerifyResult(False, count, seq, f"record {seq}: body is not JSON", first)
        if (not isinstance(record, dict) or record.get("seq") != seq
                or canonical(record) != body):
            return VerifyResult(False, count, seq, f"record {seq}: body altered", first)
        if chain_hash(prev, body) != digest:
            return VerifyResult(False, count, seq, f"record {seq}: hash does not chain", first)
        if type_ != record.get("type") or t != record.get("t"):
            return VerifyResult(False, count, seq, f"record {seq}: its type or t column "
                                f"({given(type_)}, {given(t)}) is not its body's "
                                f"({given(record.get('type'))}, {given(record.get('t'))})",
                                first)
        if each is not None:
            each(record)
        prev = digest
        expected += 1
    return VerifyResult(True, count, None, "", first)


def checkpoint_fault(journal: Journal, checkpoint: dict[str, Any]) -> str | None:
    """Why recovery may not trust ``checkpoint`` (a record whose body says it is one), in
    words; None when its record holds: its body is the canonical JSON of a record with its
    ``seq``, its hash chains from the record before it, the record after it (if any)
    chains from its hash, and the first seal after it (if any) seals the chain's hash (a
    checkpoint edited and every hash after it rechained shows there). Records after the
    last seal can be rechained unseen (hardware.md §8)."""
    seq = checkpoint.get("seq")
    db = journal.db
    one = f"SELECT body, {HASH_HEX} FROM records WHERE seq = ?"
    row = db.execute(one, (seq,)).fetchone() if type(seq) is int else None
    if row is None or canonical(checkpoint) != row[0]:
        return "its body is altered"
    assert isinstance(seq, int)
    prev = journal.hash_of(seq - 1)
    if prev is None:
        return f"record {seq - 1}, before it, is missing"
    body, digest = row
    if chain_hash(prev, body) != digest:
        return f"its hash does not chain from record {seq - 1}'s: it was changed"
    after = db.execute(one, (seq + 1,)).fetchone()
    if after is not None and chain_hash(digest, after[0]) != after[1]:
        return f"record {seq + 1} does not chain from its hash: it was changed"
    seal = db.execute("SELECT seq, body FROM records WHERE type = 'seal' AND seq > ? "
                      "ORDER BY seq LIMIT 1", (seq,)).fetchone()
    if seal is not None and (why := seal_fault(journal, seal[0], seal[1])) is not None:
        return f"seal {seal[0]} after it {why}"
    return None


def seal_fault(journal: Journal, seq: int, body: str) -> str | None:
    """Why the seal record ``seq`` (its ``body``) does not seal the chain as it is (its
    head is not the record before it, or its head hash is not the chain's), None when it
    does (a body that is not a seal's is the chain check's to report)."""
    try:
        seal = json.loads(body)
    except ValueError:
        return None
    if not isinstance(seal, dict) or seal.get("type") != "seal":
        return None
    if seal.get("head_seq") != seq - 1 or journal.hash_of(seq - 1) != seal.get("head_hash"):
        return ("does not seal the chain as it is (its head hash is not the chain's): the "
                "records it sealed were changed")
    return None


@dataclass
class StartCheck:
    """What :func:`check_start` found: the ``checkpoint`` recovery may start from (None:
    the journal's start), the chain from its record to the head, and every problem (the
    chain's, each checkpoint passed over, each seal that does not hold), each a line."""

    checkpoint: dict[str, Any] | None
    chain: VerifyResult
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def message(self) -> str:
        return "; ".join(self.problems)


def check_start(journal: Journal) -> StartCheck:
    """The checkpoint a restart recovers from and the records from it to the head (see
    the module doc); what the daemon checks at start and plain ``tablectl verify``. Time
    depends on the records since that checkpoint, not on the journal's size."""
    passed: list[str] = []
    trusted: dict[str, Any] | None = None
    with closing(journal.checkpoints()) as checkpoints:
        for checkpoint in checkpoints:
            why = checkpoint_fault(journal, checkpoint)
            if why is None:
                trusted = checkpoint
                break
            passed.append(f"checkpoint {checkpoint['seq']} does not hold ({why})")
    since = trusted["seq"] - 1 if trusted is not None else 0
    chain = check_chain(journal, since)
    problems = [] if chain.ok else [chain.message]
    for seq, body in journal.db.execute(
            "SELECT seq, body FROM records WHERE type = 'seal' AND seq > ? ORDER BY seq",
            (since,)):
        if (why := seal_fault(journal, seq, body)) is not None:
            problems.append(f"seal {seq} {why}")
    if passed:
        instead = (f"checkpoint {trusted['seq']}" if trusted is not None
                   else "the journal's start")
        problems += [f"{line}: recovery starts from {instead}" for line in passed]
    return StartCheck(trusted, chain, problems)


@dataclass
class FullReport:
    """What ``verify --full`` found: the chain's result, then every other problem (SQLite's
    integrity check, evidence batches, records that cannot be read), each a line."""

    chain: VerifyResult
    problems: list[str] = field(default_factory=list)
    batches: int = 0
    edges: int = 0

    @property
    def ok(self) -> bool:
        return self.chain.ok and not self.problems


def first_damaged(journal: Journal, known: Schema) -> UnreadableRecord | None:
    """The first record of ``journal`` whose body is not a record of its declared type in
    ``known`` (a schema: every game's, ``controller.store.records.any_schema``; the error
    that names it), or None: for a tool that tripped over a record's fields, to say which
    (a whole scan, on that path only)."""
    for seq, type_, body in journal.bodies():
        try:
            check(known, journal.parse(seq, type_, body))
        except UnreadableRecord as exc:
            return exc
        except RecordError as exc:
            return UnreadableRecord(journal.path, seq, str(type_), str(exc), journal.advice)
    return None


def integrity(journal: Journal) -> str:
    """SQLite's ``PRAGMA integrity_check`` of the whole file: "ok", or what is wrong (it
    reads every page: ``tablectl verify --full``, never the daemon's start)."""
    try:
        rows = journal.db.execute("PRAGMA integrity_check").fetchall()
    except sqlite3.DatabaseError as exc:
        return str(exc)
    return "; ".join(r[0] for r in rows)


def check_full(journal: Journal, schema: Schema) -> FullReport:
    """Everything in the journal (see the module doc); ``schema`` reads the records.

    Streamed: the records and the evidence batches are walked side by side, each in its
    order (a batch is written with the record that closes it, so both run in the same
    order), and nothing is kept of either but the problems: memory does not grow with
    the journal."""
    whole = integrity(journal)
    unreadable: list[str] = []
    evidence = _EvidenceWalk(journal)

    def each(record: dict[str, Any]) -> None:
        ref = record.get("evidence")
        if isinstance(ref, dict) and isinstance(ref.get("batch"), int):
            evidence.closed(record["seq"], ref)
        if len(unreadable) < 10:
            try:
                check(schema, record)
            except RecordError as exc:
                unreadable.append(f"record {record['seq']} cannot be read: {exc}")

    report = FullReport(check_chain(journal, 0, each))
    report.problems += _breaks_after(journal, report.chain, each)
    evidence.rest(report.chain.bad_seq if report.chain.damaged is not None else None)
    if whole != "ok":
        report.problems.append(f"SQLite integrity check: {whole}")
    report.problems += unreadable + evidence.problems
    report.batches, report.edges = evidence.batches, evidence.edges
    return report


def _breaks_after(journal: Journal, chain: VerifyResult,
                  each: Callable[[dict[str, Any]], None], limit: int = 10) -> list[str]:
    """The chain's breaks after its first (``chain``), each checked on from the stored hash
    of the record that broke it, so that every altered record is named (at most
    ``limit``) and ``each`` sees every record that holds; none past a damaged page."""
    found: list[str] = []
    while (not chain.ok and chain.damaged is None and chain.bad_seq is not None
           and journal.hash_of(chain.bad_seq) is not None and len(found) < limit):
        chain = check_chain(journal, chain.bad_seq, each)
        if not chain.ok:
            found.append(f"BROKEN: {chain.message}")
    return found


class _EvidenceWalk:
    """The evidence batches, walked in batch order as the records that close them come
    (in seq order, as the chain is checked): nothing of either is kept."""

    def __init__(self, journal: Journal) -> None:
        self._batches = journal.batches()
        self._next: tuple[int, Batch] | None = None
        self.problems: list[str] = []
        self.batches = 0
        self.edges = 0
        self._last = 0  # the last batch read
        self._read()

    def _read(self) -> None:
        try:
            self._next = next(self._batches, None)
        except sqlite3.DatabaseError as exc:
            self._next = None
            self.problems.append(f"evidence batches after batch {self._last} cannot be "
                                 f"read: the journal's file is damaged (SQLite: {exc})")

    def _advance(self) -> None:
        assert self._next is not None
        self.batches += 1
        self.edges += self._next[1].edges
        self._last = self._next[1].batch
        self._read()

    def closed(self, seq: int, ref: dict[str, Any]) -> None:
        """Record ``seq`` says it closes the batch of ``ref`` (its number and SHA-256)."""
        number = ref["batch"]
        while self._next is not None and self._next[1].batch < number:
            self._unclosed()
        if self._next is None or self._next[1].batch > number:
            self.problems.append(f"evidence batch {number} (closed by record {seq}) is missing")
            return
        closing, batch = self._next
        self._advance()
        if closing != seq:
            self.problems.append(f"evidence batch {batch.batch}: no record {closing} closes it")
        elif ref.get("sha256") != batch.sha256 or ref.get("edges") != batch.edges:
            self.problems.append(f"evidence batch {batch.batch}: its SHA-256 is not the one "
                                 f"record {seq} carries: the batch was altered")
        else:
            try:
                batch.decode()
            except ValueError as exc:
                self.problems.append(f"evidence batch {batch.batch}: cannot be decoded: {exc}")

    def _unclosed(self) -> None:
        assert self._next is not None
        closing, batch = self._next
        self.problems.append(f"evidence batch {batch.batch}: no record {closing} closes it")
        self._advance()

    def rest(self, unread: int | None) -> None:
        """The batches no record closed (after the last reference, or a break); with
        ``unread``, the first record a damaged page hides, those it closes are counted
        apart: they cannot be checked."""
        skipped = 0
        while self._next is not None:
            if unread is not None and self._next[0] >= unread:
                skipped += 1
                self._advance()
            else:
                self._unclosed()
        if skipped:
            self.problems.append(f"{skipped} evidence batches closed from record {unread} on "
                                 "are not checked: their records cannot be read")
