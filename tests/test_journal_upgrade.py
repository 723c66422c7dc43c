"""A journal written before issue 8 (format 1: one record per GPIO edge, no evidence table)
is read and upgraded when the controller opens it: its records stay as they were written,
an ``upgrade`` record says so, and the table resumes from them. The fixtures were made by
the code of main before issue 8 (tests/fixtures/README.md), never by this code."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

from conftest import REPO, run_replay, write_trace

from controller.core import registry
from controller.store.journal import FORMAT, Journal
from controller.store.records import any_schema
from controller.store.verify import check_full

FIXTURES = REPO / "tests" / "fixtures"


def copy(tmp_path: Path, name: str) -> Path:
    path = tmp_path / "journal.sqlite"
    shutil.copy(FIXTURES / name, path)
    return path


def rows(path: Path) -> list[tuple[int, str, str]]:
    con = sqlite3.connect(path)
    try:
        return con.execute("SELECT seq, body, hash FROM records ORDER BY seq").fetchall()
    finally:
        con.close()


def test_a_format_1_journal_reads_as_it_is_without_being_changed(tmp_path: Path) -> None:
    path = copy(tmp_path, "journal-v1-roulette.sqlite")
    before = rows(path)
    with Journal(path, readonly=True) as journal:
        assert journal.format == 1
        assert journal.verify().ok
        assert [r["type"] for r in journal.records()].count("gpio") == 104
    assert rows(path) == before


def test_a_roulette_journal_of_format_1_is_upgraded_and_resumed(tmp_path: Path) -> None:
    path = copy(tmp_path, "journal-v1-roulette.sqlite")
    before = rows(path)
    # The table comes back after the power cut of the fixture: the dealer closes it.
    trace = write_trace(tmp_path / "after.jsonl", [
        {"t": 0, "meta": {"table": "roulette", "wheel": "double_zero"}},
        {"t": 100.0, "input": "close_table"}])
    res = run_replay(trace, path)
    assert res.rc == 0, res.stderr
    after = rows(path)
    assert after[:len(before)] == before  # every record of format 1 kept, byte for byte
    new = [json.loads(body) for _, body, _ in after[len(before):]]
    assert new[0]["type"] == "upgrade"
    assert (new[0]["from_format"], new[0]["to_format"], new[0]["records"]) == (1, FORMAT, 118)
    # Spin 2 was in play at the cut: voided, its two bets returned once.
    voided = [r for r in new if r["type"] == "spin_invalid"]
    assert [(r["spin"], r["reason"]) for r in voided] == [(2, "interrupted")]
    returned = [(r["box"], r["outcome"], r["payout"]) for r in new if r["type"] == "settlement"]
    assert sorted(returned) == [(1, "push", 0), (2, "push", 0)]
    with Journal(path, readonly=True) as journal:
        assert journal.format == FORMAT
        report = check_full(journal, any_schema(registry.games()))
    assert report.ok, report.problems


def test_a_mini_baccarat_journal_of_format_1_resumes_its_coup(tmp_path: Path) -> None:
    path = copy(tmp_path, "journal-v1-mini-baccarat.sqlite")
    before = rows(path)
    # The four cards the fixture's coup 1 still waits for (../shared/traces/README.md).
    objects = [{"t": 0, "meta": {"table": "mini_baccarat", "decks": 4}},
               # The restart stops for the cards dealt while down (issue 16 item 2): none.
               {"t": 19.5, "input": "lost_cards", "cards": []}]
    objects += [{"t": 20.0 + i, "serial": "shoe", "text": f"[Game]<Card:{card}>\r\n"}
                for i, card in enumerate(("4H", "JS", "4D", "8D"))]
    res = run_replay(write_trace(tmp_path / "rest.jsonl", objects), path,
                     "--config", "embedded:mini-baccarat-sim.toml")
    assert res.rc == 0, res.stderr
    assert rows(path)[:len(before)] == before
    (recovery,) = res.of("recovery")
    assert recovery["mismatch"] is None and recovery["state"] == "dealing"
    (result,) = res.of("coup_result")
    assert {b["box"]: b["outcome"] for b in result["boxes"]} == {2: "banca", 4: "punto",
                                                                 5: "punto"}
    assert sorted((r["box"], r["kind"], r["payout"]) for r in res.of("settlement")) == [
        (2, "banca", 9), (4, "punto", 50), (5, "banca", -20)]


def test_the_fixtures_come_from_before_issue_8(tmp_path: Path) -> None:
    # Guard: they must stay the old code's (format 1, edges as records), not be rebuilt.
    for name in ("journal-v1-roulette.sqlite", "journal-v1-mini-baccarat.sqlite"):
        con = sqlite3.connect(copy(tmp_path, name))
        try:
            assert con.execute("PRAGMA user_version").fetchone()[0] == 0
            assert con.execute("SELECT 1 FROM sqlite_master WHERE name = 'evidence'"
                               ).fetchone() is None
        finally:
            con.close()
