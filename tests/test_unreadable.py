"""A record recovery cannot read stops the start with one line naming it and what to do, and
exit status 3 (``RestartPreventExitStatus``: restarting cannot help), before anything is
journaled; a record the chain check passes but recovery cannot read included. So does a
damaged page of the journal's file (issue 16 item 14); and the commands that line names
(``verify --full``, then ``recall``, ``export``) read a damaged page or a body that is not
JSON with one line naming it, never a traceback."""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO, one_spin, run_replay, write_trace
from conftest import tablectl_on as tablectl

from controller.cli import main as cli
from controller.store.chain import GENESIS, canonical

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


# -- a damaged page (the likeliest corruption on an SD card), a body that is not JSON -----
def damage_page_of(path: Path, seq: int) -> None:
    """Overwrite the cells of the page that holds record ``seq`` (its 8-byte header kept),
    as a failing SD card leaves it; the file still opens as SQLite."""
    con = sqlite3.connect(path)
    size = con.execute("PRAGMA page_size").fetchone()[0]
    con.close()
    data = bytearray(path.read_bytes())
    at = data.find(f'"seq":{seq},'.encode())
    assert at > 0
    page = at // size
    data[page * size + 8:(page + 1) * size] = b"\xa5" * (size - 8)
    path.write_bytes(bytes(data))


@pytest.fixture
def long_journal(tmp_path: Path) -> Path:
    """A replay's journal of 30 simulated spins (some 400 records, many pages, no
    checkpoint: the start reads every record)."""
    trace = tmp_path / "sim.jsonl"
    with contextlib.redirect_stderr(io.StringIO()):
        assert cli.main(["simulate", "--spins", "30", "--seed", "2", "--out", str(trace)]) == 0
    path = tmp_path / "journal.sqlite"
    assert run_replay(trace, path).rc == 0
    assert count(path) > 300
    return path


def test_a_damaged_page_stops_the_daemon_with_exit_3_and_one_line(
        tmp_path: Path, long_journal: Path) -> None:
    damage_page_of(long_journal, 150)
    before = long_journal.read_bytes()
    done = daemon(tmp_path, long_journal)
    assert done.returncode == EXIT_JOURNAL_UNREADABLE  # RestartPreventExitStatus: no restarts
    assert "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines()[-1] == (
        f"table-controller: {long_journal}: the journal's file is damaged (SQLite: database "
        "disk image is malformed). The table cannot resume from it: copy the journal as "
        "evidence, run `tablectl verify --full` on it, then move it aside and start on a "
        "new journal (hardware.md §8)")
    assert long_journal.read_bytes() == before  # nothing journaled
    wal = Path(f"{long_journal}-wal")
    assert not wal.exists() or wal.stat().st_size == 0


def test_the_commands_the_exit_3_line_names_read_a_damaged_page_in_one_line(
        long_journal: Path) -> None:
    damage_page_of(long_journal, 150)
    rc, out, err = tablectl(long_journal, "verify", "--full")
    assert rc == 1 and not err
    assert "SQLite integrity check: " in out and "the journal's file is damaged" in out
    assert out.splitlines()[-1].startswith("FAILED: ")
    for argv in (("recall", "--last", "3"), ("export", "--since", "0")):
        rc, _, err = tablectl(long_journal, *argv)
        assert rc == 1 and err.splitlines() == [
            f"tablectl: {long_journal}: the journal's file is damaged (SQLite: database disk "
            "image is malformed). `tablectl verify --full` lists what else cannot be read "
            "(hardware.md §8)"], argv


@pytest.mark.parametrize("argv", [("recall", "--last", "1"), ("export", "--since", "0"),
                                  ("export", "--evidence", "1"), ("status",)])
def test_a_body_that_is_not_json_is_one_line_naming_it_for_each_command(
        journal: Path, argv: tuple[str, ...]) -> None:
    bet = record_of(journal, "bet")
    con = sqlite3.connect(journal, isolation_level=None)
    con.execute("UPDATE records SET body = '{not json' WHERE seq = ?", (bet["seq"],))
    con.close()
    rc, out, err = tablectl(journal, "verify", "--full")
    assert rc == 1 and not err
    assert out.splitlines()[0] == f"BROKEN: record {bet['seq']}: body is not JSON"
    rc, out, err = tablectl(journal, *argv)
    if argv == ("status",):  # status reads the newest records only: the bet is not among them
        assert rc == 0 and "Traceback" not in err
        return
    assert rc == 1 and err.splitlines() == [
        f"tablectl: {journal}: record {bet['seq']} (bet) cannot be read: its body is not "
        "JSON. `tablectl verify --full` lists what else cannot be read (hardware.md §8)"]


def test_a_journal_no_daemon_sealed_passes_verify_full(journal: Path) -> None:
    # A replay's journal has no seal: that is no fault of it (only a daemon seals).
    rc, out, err = tablectl(journal, "verify", "--full")
    assert (rc, err) == (0, "")
    assert out.startswith("ok: ") and "no seal" not in out


@pytest.mark.parametrize("argv", [("recall", "--last", "1"), ("stats",), ("status",)])
@pytest.mark.parametrize("forged", ["another_seq", "wrong_shape"])
def test_a_forged_body_that_is_json_is_one_line_naming_it_for_each_command(
        journal: Path, argv: tuple[str, ...], forged: str) -> None:
    # The newest result, forged: a body with no seq of its own, or the right seq and
    # type with fields of the wrong kinds (what the held-out tester wrote with sqlite3).
    result = record_of(journal, "spin_result")
    body = ({"type": "spin_result", "number": "x"} if forged == "another_seq" else
            {**result, "number": 17, "spin": "two"})
    rechain(journal, {result["seq"]: body})
    rc, _out, err = tablectl(journal, *argv)
    assert "Traceback" not in err
    if forged == "wrong_shape" and rc == 0:  # a command that only shows it (recall)
        return
    why = ("its body's seq and type are not its row's" if forged == "another_seq" else
           "record 'spin_result': field 'spin': str 'two' where int is due")
    assert rc == 1 and err.splitlines()[-1:] == [
        f"tablectl: {journal}: record {result['seq']} (spin_result) cannot be read: {why}. "
        "`tablectl verify --full` lists what else cannot be read (hardware.md §8)"], err


def test_a_forged_body_with_another_seq_stops_the_start(tmp_path: Path, journal: Path) -> None:
    result = record_of(journal, "spin_result")
    rechain(journal, {result["seq"]: {"type": "spin_result", "number": "x"}})
    done = daemon(tmp_path, journal)
    assert done.returncode == EXIT_JOURNAL_UNREADABLE, done.stderr
    assert f"record {result['seq']} (spin_result) cannot be read" in done.stderr
