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
    """Everything in the journal (see the module doc); ``schema`` reads the records."""
    integrity = journal.integrity()
    refs: dict[int, tuple[int, dict[str, Any]]] = {}
    unreadable: list[str] = []

    def each(record: dict[str, Any]) -> None:
        ref = record.get("evidence")
        if isinstance(ref, dict) and isinstance(ref.get("batch"), int):
            refs[ref["batch"]] = (record["seq"], ref)
        if len(unreadable) < 10:
            try:
                check(schema, record)
            except RecordError as exc:
                unreadable.append(f"record {record['seq']} cannot be read: {exc}")

    report = FullReport(check_chain(journal, 0, each))
    if integrity != "ok":
        report.problems.append(f"SQLite integrity check: {integrity}")
    report.problems += unreadable
    seen: set[int] = set()
    for seq, batch in journal.batches():
        seen.add(batch.batch)
        report.batches += 1
        report.edges += batch.edges
        owner = refs.get(batch.batch)
        if owner is None or owner[0] != seq:
            report.problems.append(f"evidence batch {batch.batch}: no record {seq} closes it")
            continue
        ref = owner[1]
        if ref.get("sha256") != batch.sha256 or ref.get("edges") != batch.edges:
            report.problems.append(f"evidence batch {batch.batch}: its SHA-256 is not the one "
                                   f"record {seq} carries: the batch was altered")
            continue
        try:
            batch.decode()
        except ValueError as exc:
            report.problems.append(f"evidence batch {batch.batch}: cannot be decoded: {exc}")
    for number in sorted(set(refs) - seen):
        report.problems.append(f"evidence batch {number} (closed by record {refs[number][0]}) "
                               "is missing")
    return report
