"""The journal's hash chain and storage (Art. 14: a disputed game can be recalled in full,
and any tampering with the record is found).

Each record's hash is SHA-256 over the previous hash and the record's canonical body;
verify() must name the first record that does not hold: an edited body, a deleted
record, two records swapped. Editing is done with plain SQL on the file, as a tamperer
would.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.core import registry
from controller.core.errors import JournalError
from controller.store.chain import canonical
from controller.store.journal import Journal
from controller.store.records import any_schema
from controller.store.verify import check_full

N = 8


@pytest.fixture
def path(tmp_path: Path) -> Iterator[Path]:
    """A closed journal of N bet records."""
    db = tmp_path / "journal.sqlite"
    with Journal(db) as journal:
        for i in range(1, N + 1):
            journal.append("bet", float(i), {"game": 1, "box": i, "kind": "red", "amount": 10})
    yield db


def sql(db: Path, *statements: str) -> None:
    con = sqlite3.connect(db, isolation_level=None)
    try:
        for statement in statements:
            con.execute(statement)
    finally:
        con.close()


def body_of(db: Path, seq: int) -> str:
    con = sqlite3.connect(db)
    try:
        return con.execute("SELECT body FROM records WHERE seq = ?", (seq,)).fetchone()[0]
    finally:
        con.close()


def first_bad(db: Path) -> int | None:
    with Journal(db, readonly=True) as journal:
        result = journal.verify()
    assert result.ok is (result.bad_seq is None)
    return result.bad_seq


def test_untouched_journal_verifies(path: Path) -> None:
    with Journal(path, readonly=True) as journal:
        result = journal.verify()
        assert result.ok and result.records == N
        assert [r["seq"] for r in journal.records()] == list(range(1, N + 1))


def test_chain_is_sha256_of_previous_hash_and_body(path: Path) -> None:
    # Anyone can check the chain without our code: hash_n = sha256(hex(hash_{n-1}) "\n"
    # body_n), stored as its 32 bytes (format 3).
    con = sqlite3.connect(path)
    rows = con.execute("SELECT body, hash FROM records ORDER BY seq").fetchall()
    con.close()
    prev = "0" * 64
    for body, digest in rows:
        assert digest == hashlib.sha256(f"{prev}\n{body}".encode()).digest()
        prev = digest.hex()


def test_edited_body_is_found(path: Path) -> None:
    # A bet of 10 turned into 1000, still valid canonical JSON with the right seq.
    edited = body_of(path, 5).replace('"amount":10', '"amount":1000')
    assert edited != body_of(path, 5)
    sql(path, f"UPDATE records SET body = '{edited}' WHERE seq = 5")
    assert first_bad(path) == 5


def test_every_edited_body_is_named_by_the_full_check(path: Path) -> None:
    for seq in (3, 6):
        edited = body_of(path, seq).replace('"amount":10', '"amount":1000')
        sql(path, f"UPDATE records SET body = '{edited}' WHERE seq = {seq}")
    with Journal(path, readonly=True) as journal:
        report = check_full(journal, any_schema(registry.games()))
    assert report.chain.bad_seq == 3
    assert report.problems == ["BROKEN: record 6: hash does not chain"]


def test_edited_body_and_rehashed_record_breaks_the_next(path: Path) -> None:
    # The tamperer also recomputes record 5's hash: record 6 no longer chains.
    con = sqlite3.connect(path)
    prev = con.execute("SELECT hash FROM records WHERE seq = 4").fetchone()[0].hex()
    con.close()
    edited = body_of(path, 5).replace('"amount":10', '"amount":1000')
    digest = hashlib.sha256(f"{prev}\n{edited}".encode()).hexdigest()
    sql(path, f"UPDATE records SET body = '{edited}', hash = X'{digest}' WHERE seq = 5")
    assert first_bad(path) == 6


def test_reformatted_body_is_found(path: Path) -> None:
    # Same content, other spacing: not the canonical body the hash covers.
    spaced = json.dumps(json.loads(body_of(path, 3)), indent=1)
    sql(path, f"UPDATE records SET body = '{spaced}' WHERE seq = 3")
    assert first_bad(path) == 3


@pytest.mark.parametrize("seq", [1, 4, N])
def test_deleted_record_is_found(path: Path, seq: int) -> None:
    sql(path, f"DELETE FROM records WHERE seq = {seq}")
    if seq == N:
        # The last record gone leaves a shorter chain that holds; the count tells.
        with Journal(path, readonly=True) as journal:
            assert journal.verify().records == N - 1
    else:
        assert first_bad(path) == seq


def test_swapped_records_are_found(path: Path) -> None:
    # Records 3 and 4 exchange places (rows keep their seq, bodies and hashes move).
    sql(path,
        "UPDATE records SET seq = -3 WHERE seq = 3",
        "UPDATE records SET seq = 3 WHERE seq = 4",
        "UPDATE records SET seq = 4 WHERE seq = -3")
    assert first_bad(path) == 3


def test_swapped_and_renumbered_records_are_found(path: Path) -> None:
    # The tamperer also fixes the seq inside the swapped bodies: the chain still breaks.
    b3, b4 = json.loads(body_of(path, 3)), json.loads(body_of(path, 4))
    b3["seq"], b4["seq"] = 4, 3
    new3 = json.dumps(b4, sort_keys=True, separators=(",", ":"))
    new4 = json.dumps(b3, sort_keys=True, separators=(",", ":"))
    sql(path, f"UPDATE records SET body = '{new3}' WHERE seq = 3",
        f"UPDATE records SET body = '{new4}' WHERE seq = 4")
    assert first_bad(path) == 3


def test_reopened_journal_continues_the_chain(path: Path) -> None:
    with Journal(path) as journal:
        record, _ = journal.append("alarm", 9.0, {"code": "x", "message": "after restart"})
        assert record["seq"] == N + 1
    with Journal(path, readonly=True) as journal:
        assert journal.verify().ok and journal.verify().records == N + 1


# -- storage ------------------------------------------------------------------------
def test_corrupted_index_fails_integrity_check(path: Path) -> None:
    # Damage the type index on disk (the WAL was checkpointed on close): its keys no longer
    # match the rows. The file still opens as SQLite; PRAGMA integrity_check must catch it.
    con = sqlite3.connect(path)
    root = con.execute("SELECT rootpage FROM sqlite_master WHERE name = 'records_type'"
                       ).fetchone()[0]
    size = con.execute("PRAGMA page_size").fetchone()[0]
    con.close()
    data = bytearray(path.read_bytes())
    page = slice((root - 1) * size, root * size)
    assert data[page].count(b"bet") == N
    data[page] = data[page].replace(b"bet", b"bez")
    path.write_bytes(bytes(data))
    # The daemon's start reads no page it does not need (its time must not grow with the
    # journal); `verify --full` reads them all and names the damage.
    with Journal(path, readonly=True) as journal:
        report = check_full(journal, any_schema(registry.games()))
    assert not report.ok and "integrity check" in report.problems[0]


def test_damaged_table_page_is_refused(path: Path) -> None:
    con = sqlite3.connect(path)
    root = con.execute("SELECT rootpage FROM sqlite_master WHERE name = 'records'").fetchone()[0]
    size = con.execute("PRAGMA page_size").fetchone()[0]
    con.close()
    data = bytearray(path.read_bytes())
    data[(root - 1) * size:root * size] = b"\xa5" * size
    path.write_bytes(bytes(data))
    with pytest.raises(JournalError):
        Journal(path, readonly=True)


def test_not_a_database_is_refused(tmp_path: Path) -> None:
    bogus = tmp_path / "journal.sqlite"
    bogus.write_text("this is not a journal\n" * 100)
    with pytest.raises(JournalError) as err:
        Journal(bogus)
    assert str(bogus) in str(err.value)


def test_read_only_open_of_a_missing_journal_fails(tmp_path: Path) -> None:
    with pytest.raises(JournalError):
        Journal(tmp_path / "none.sqlite", readonly=True)
    assert not (tmp_path / "none.sqlite").exists()


def test_read_only_while_a_writer_is_open(tmp_path: Path) -> None:
    db = tmp_path / "journal.sqlite"
    writer = Journal(db)
    try:
        writer.append("bet", 1.0, {"game": 1, "box": 1, "kind": "red", "amount": 10})
        reader = Journal(db, readonly=True)
        try:
            assert [r["seq"] for r in reader.records()] == [1]
            assert reader.verify().ok
            # The writer goes on; the reader sees each committed record.
            writer.append("bet", 2.0, {"game": 1, "box": 2, "kind": "black", "amount": 10})
            assert [r["seq"] for r in reader.records()] == [1, 2]
            assert reader.last_of("bet")["box"] == 2  # type: ignore[index]
            assert reader.verify().records == 2
            with pytest.raises(JournalError):
                reader.append("alarm", 3.0, {"code": "x", "message": "must not write"})
        finally:
            reader.close()
        writer.append("bet", 3.0, {"game": 1, "box": 3, "kind": "odd", "amount": 10})
    finally:
        writer.close()
    with Journal(db, readonly=True) as journal:
        assert journal.verify().ok and journal.verify().records == 3



_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=12)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.text(max_size=8), _JSON, max_size=6))
def test_a_body_is_the_json_encoders_text_of_its_record(record: dict) -> None:
    # The hash covers this text: the fast writer must give the encoder's, byte for byte,
    # or a journal written before it would no longer verify.
    encoder = json.JSONEncoder(sort_keys=True, separators=(",", ":"), allow_nan=False)
    try:
        want = encoder.encode(record)
    except ValueError:  # NaN or infinity: the encoder's error, from canonical too
        with pytest.raises(ValueError):
            canonical(record)
        return
    assert canonical(record) == want
