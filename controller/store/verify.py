"""Checking a journal: its hash chain, its columns, its evidence batches, its records.

:func:`check_chain` is what the daemon runs at start, from its last checkpoint (the records
before it were checked when they were written and by the last ``tablectl verify --full``):
each body is the canonical JSON of a record with that ``seq``, each hash chains, no ``seq``
is missing, and the ``type`` and ``t`` columns (which queries trust) are the body's.
:func:`check_full` is ``tablectl verify --full``: SQLite's integrity check of every page,
the chain from the first record, every evidence batch against the SHA-256 its closing record
carries (and every reference against a batch), and every record read as its declared type.
Seals are checked by :mod:`controller.store.seal` (they need the auditor's key).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from controller.core.words import given
from controller.store.records import RecordError, Schema, check

if TYPE_CHECKING:
    from controller.store.journal import Journal, VerifyResult


def check_chain(journal: Journal, since: int = 0,
                each: Callable[[dict[str, Any]], None] | None = None) -> VerifyResult:
    """Recompute the chain from record ``since`` + 1 to the head (the stored hash of record
    ``since`` starts it; GENESIS for 0); ``each`` sees every record that holds.

    A record fails when its body is not JSON or not the canonical JSON of a record with
    that ``seq``, when its hash is not the chain hash, when its ``type`` or ``t`` column is
    not its body's, or when a ``seq`` is missing.
    """
    from controller.store.journal import GENESIS, VerifyResult, canonical, chain_hash

    prev = journal.hash_of(since)
    first = since + 1
    if prev is None:
        return VerifyResult(False, 0, since, f"record {since} is missing", first)
    prev = prev or GENESIS
    expected = first
    count = 0
    rows = journal.db.execute(
        "SELECT seq, t, type, body, hash FROM records WHERE seq > ? ORDER BY seq", (since,))
    for seq, t, type_, body, digest in rows:
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


def check_full(journal: Journal, schema: Schema) -> FullReport:
    """Everything in the journal (see the module doc); ``schema`` reads the records.

    Streamed: the records and the evidence batches are walked side by side, each in its
    order (a batch is written with the record that closes it, so both run in the same
    order), and nothing is kept of either but the problems: memory does not grow with
    the journal."""
    integrity = journal.integrity()
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
    evidence.rest()
    if integrity != "ok":
        report.problems.append(f"SQLite integrity check: {integrity}")
    report.problems += unreadable + evidence.problems
    report.batches, report.edges = evidence.batches, evidence.edges
    return report


class _EvidenceWalk:
    """The evidence batches, walked in batch order as the records that close them come."""

    def __init__(self, journal: Journal) -> None:
        self._batches = journal.batches()
        self._next = next(self._batches, None)
        self.problems: list[str] = []
        self.batches = 0
        self.edges = 0

    def _advance(self) -> None:
        assert self._next is not None
        self.batches += 1
        self.edges += self._next[1].edges
        self._next = next(self._batches, None)

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

    def rest(self) -> None:
        """The batches no record closed (after the last reference, or the chain's break)."""
        while self._next is not None:
            self._unclosed()
