"""A journal written before issue 20 (format 2: the chain's hashes stored as 64 hex digits)
is read as it is, and upgraded when the controller opens it for writing: its rows stay as
written, an ``upgrade`` record says so, and new rows store the hash's 32 bytes. The chain
is the same on both sides of the upgrade: the tools, the verifier and the display and
feed followers read it whole. The fixture was made by the code of main before issue 20
(tests/fixtures/README.md), never by this code."""

from __future__ import annotations

import contextlib
import io
import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from conftest import REPO, run_replay, write_trace

from controller.cli.tablectl import main as tablectl
from controller.core import registry
from controller.store.chain import GENESIS, canonical, chain_hash
from controller.store.follow import Follower
from controller.store.journal import FORMAT, Journal
from controller.store.records import any_schema
from controller.store.verify import check_full

FIXTURE = REPO / "tests" / "fixtures" / "journal-v2-roulette.sqlite"


@pytest.fixture
def path(tmp_path: Path) -> Path:
    copy = tmp_path / "journal.sqlite"
    shutil.copy(FIXTURE, copy)
    return copy


def rows(path: Path) -> list[tuple[int, str, str | bytes]]:
    con = sqlite3.connect(path)
    try:
        return con.execute("SELECT seq, body, hash FROM records ORDER BY seq").fetchall()
    finally:
        con.close()


def tool(path: Path, *args: str) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        rc = tablectl(["--journal", str(path), *args])
    return rc, out.getvalue()


def upgraded(path: Path, tmp_path: Path) -> list[dict]:
    """The table goes on on the fixture (the dealer closes it); its new records."""
    before = len(rows(path))
    trace = write_trace(tmp_path / "after.jsonl", [
        {"t": 0, "meta": {"table": "roulette", "wheel": "double_zero"}},
        {"t": 100.0, "input": "close_table"}])
    res = run_replay(trace, path)
    assert res.rc == 0, res.stderr
    return [json.loads(body) for _, body, _ in rows(path)[before:]]


def test_the_fixture_comes_from_before_issue_20(path: Path) -> None:
    # Guard: it must stay the old code's (format 2, hex hashes), not be rebuilt.
    con = sqlite3.connect(path)
    try:
        assert con.execute("PRAGMA user_version").fetchone()[0] == 2
        kinds = {k for (k,) in con.execute("SELECT DISTINCT typeof(hash) FROM records")}
        assert kinds == {"text"}
        assert con.execute("SELECT count(*) FROM evidence").fetchone()[0] > 0
        assert con.execute("SELECT count(*) FROM records WHERE type = 'checkpoint'"
                           ).fetchone()[0] > 0
    finally:
        con.close()


def test_a_format_2_journal_reads_as_it_is_without_being_changed(path: Path,
                                                                  tmp_path: Path) -> None:
    before = rows(path)
    with Journal(path, readonly=True) as journal:
        assert journal.format == 2
        report = check_full(journal, any_schema(registry.games()))
    assert report.ok, report.problems
    assert report.batches > 0
    assert tool(path, "verify")[0] == 0
    assert tool(path, "verify", "--full")[0] == 0
    rc, out = tool(path, "recall", "--last", "2")
    assert rc == 0 and "spin 2" in out
    assert tool(path, "export", "--evidence", "2", "--out", str(tmp_path / "e.jsonl"))[0] == 0
    assert '"gpio"' in (tmp_path / "e.jsonl").read_text()
    assert rows(path) == before


def test_a_format_2_journal_is_upgraded_and_its_chain_goes_on(path: Path,
                                                              tmp_path: Path) -> None:
    before = rows(path)
    new = upgraded(path, tmp_path)
    after = rows(path)
    assert after[:len(before)] == before  # every row of format 2 kept, byte for byte
    assert new[0]["type"] == "upgrade"
    assert (new[0]["from_format"], new[0]["to_format"], new[0]["records"]) == (
        2, FORMAT, len(before))
    # New rows: the hash's 32 bytes; the chain runs on from the last hex hash.
    prev = before[-1][2]
    assert isinstance(prev, str)
    for _, body, digest in after[len(before):]:
        assert isinstance(digest, bytes) and len(digest) == 32
        assert digest.hex() == chain_hash(prev, body)
        prev = digest.hex()
    with Journal(path, readonly=True) as journal:
        assert journal.format == FORMAT
        report = check_full(journal, any_schema(registry.games()))
    assert report.ok, report.problems
    assert tool(path, "verify", "--full")[0] == 0
    # The display's and the feed's follower: every row with its hash and the one before,
    # as hex, across the upgrade.
    follower = Follower(path)
    try:
        got = follower.rows(0, 10_000)
    finally:
        follower.close()
    assert [r.seq for r in got] == [seq for seq, _, _ in after]
    link = GENESIS
    for row in got:
        assert row.prev == link and row.hash == chain_hash(link, row.body)
        link = row.hash


def test_an_edited_checkpoint_of_format_2_is_found_after_the_upgrade(
        path: Path, tmp_path: Path) -> None:
    upgraded(path, tmp_path)
    con = sqlite3.connect(path, isolation_level=None)
    seq, body = con.execute("SELECT seq, body FROM records WHERE type = 'checkpoint' "
                            "ORDER BY seq LIMIT 1").fetchone()
    forged = json.loads(body)
    forged["previous"] = 0 if forged["previous"] else 1
    con.execute("UPDATE records SET body = ? WHERE seq = ?", (canonical(forged), seq))
    con.close()
    rc, out = tool(path, "verify", "--full")
    assert rc == 1 and f"record {seq}" in out
