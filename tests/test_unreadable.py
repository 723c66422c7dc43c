"""A record recovery cannot read stops the start with one line naming it and what to do, and
exit status 3 (``RestartPreventExitStatus``: restarting cannot help), before anything is
journaled; a record the chain check passes but recovery cannot read included."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO, one_spin, run_replay, write_trace

from controller.store.journal import GENESIS, canonical

EXIT_JOURNAL_UNREADABLE = 3


def rechain(path: Path, change: dict[int, dict]) -> None:
    """Replace the bodies of ``change`` (seq -> record) and rechain every hash, as a tool
    that wrote a bad record through SQLite would leave the journal."""
    con = sqlite3.connect(path, isolation_level=None)
    rows = con.execute("SELECT seq, body FROM records ORDER BY seq").fetchall()
    con.execute("BEGIN")
    prev = GENESIS
    for seq, body in rows:
        if seq in change:
            body = canonical(change[seq])
            con.execute("UPDATE records SET type = ? WHERE seq = ?", (change[seq]["type"], seq))
        prev = hashlib.sha256(f"{prev}\n{body}".encode()).hexdigest()
        con.execute("UPDATE records SET body = ?, hash = ? WHERE seq = ?", (body, prev, seq))
    con.execute("COMMIT")
    con.close()


@pytest.fixture
def journal(tmp_path: Path) -> Path:
    path = tmp_path / "journal.sqlite"
    tb, _ = one_spin(pocket=8, bets=({"t": 0.5, "bet": "red", "box": 2, "amount": 20},))
    assert run_replay(write_trace(tmp_path / "a.jsonl", tb.events()), path).rc == 0
    return path


def record_of(path: Path, type_: str) -> dict:
    con = sqlite3.connect(path)
    try:
        (body,) = con.execute("SELECT body FROM records WHERE type = ? LIMIT 1",
                              (type_,)).fetchone()
    finally:
        con.close()
    return json.loads(body)


def daemon(tmp_path: Path, journal: Path) -> subprocess.CompletedProcess[str]:
    text = (REPO / "controller/data/default.toml").read_text()
    text = text.replace('path = "var/journal.sqlite"', f'path = "{journal}"')
    config = tmp_path / "table.toml"
    config.write_text(text + f'\n[control]\nsocket = "{tmp_path / "c.sock"}"\n')
    return subprocess.run([sys.executable, "-m", "controller.cli.main", "run", "--config",
                           str(config)], capture_output=True, text=True, timeout=60,
                          cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(REPO)})


def count(path: Path) -> int:
    con = sqlite3.connect(path)
    try:
        return int(con.execute("SELECT count(*) FROM records").fetchone()[0])
    finally:
        con.close()


def test_a_record_missing_a_field_stops_the_daemon_with_exit_3(tmp_path: Path,
                                                               journal: Path) -> None:
    bet = record_of(journal, "settlement")
    del bet["payout"]
    rechain(journal, {bet["seq"]: bet})
    records = count(journal)
    done = daemon(tmp_path, journal)
    assert done.returncode == EXIT_JOURNAL_UNREADABLE
    lines = done.stderr.strip().splitlines()
    assert lines[-1].startswith("table-controller: ")
    assert f"record {bet['seq']} (settlement) cannot be read" in lines[-1]
    assert "missing field 'payout'" in lines[-1] and "tablectl verify --full" in lines[-1]
    assert count(journal) == records  # nothing journaled: no startup, no recovery


def test_a_record_of_a_type_no_game_declares_stops_the_replay_too(tmp_path: Path,
                                                                  journal: Path) -> None:
    bet = record_of(journal, "bet")
    rechain(journal, {bet["seq"]: {**bet, "type": "hand_result"}})
    res = run_replay(write_trace(tmp_path / "b.jsonl", [{"t": 0, "meta": {"table": "roulette"}},
                                                        {"t": 1, "input": "close_table"}]),
                     journal)
    assert res.rc == EXIT_JOURNAL_UNREADABLE and not res.records
    assert f"record {bet['seq']} (hand_result) cannot be read" in res.stderr
    assert "is not one this table writes" in res.stderr


def test_a_body_that_is_not_json_stops_the_start(tmp_path: Path, journal: Path) -> None:
    con = sqlite3.connect(journal, isolation_level=None)
    con.execute("UPDATE records SET body = '{not json' WHERE seq = 3")
    con.close()
    done = daemon(tmp_path, journal)
    assert done.returncode == EXIT_JOURNAL_UNREADABLE
    assert "record 3" in done.stderr and "its body is not JSON" in done.stderr
