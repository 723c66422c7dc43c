"""tablectl: status, recall and verify on a journal left by a replay (Art. 14: recall)."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import one_spin, run_replay, write_trace

from controller.cli.main import main as controller_main
from controller.cli.tablectl import main as tablectl_main

EXAMPLE = Path(__file__).resolve().parents[2] / "shared" / "traces" / "roulette-two-spins.jsonl"


@pytest.fixture
def journal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    if not EXAMPLE.exists():
        pytest.skip("../shared/traces is not beside the checkout")
    path = tmp_path / "journal.sqlite"
    assert controller_main(["replay", str(EXAMPLE), "--journal", str(path)]) == 0
    capsys.readouterr()
    return path


def test_verify_passes_on_an_untouched_journal(journal: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    assert tablectl_main(["--journal", str(journal), "verify"]) == 0
    assert capsys.readouterr().out.startswith("ok: ")


def test_verify_names_the_first_edited_record_and_exits_1(
        journal: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = sqlite3.connect(journal)
    seq = db.execute("SELECT seq FROM records WHERE type = 'settlement' LIMIT 1").fetchone()[0]
    db.execute("UPDATE records SET body = replace(body, '\"payout\":350', '\"payout\":3500') "
               "WHERE seq = ?", (seq,))
    db.commit()
    db.close()
    assert tablectl_main(["--journal", str(journal), "verify"]) == 1
    assert f"record {seq}" in capsys.readouterr().out


def test_status_shows_the_last_spin_and_the_table_state(
        journal: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert tablectl_main(["--journal", str(journal), "status"]) == 0
    out = capsys.readouterr().out
    assert "spin 2: 00 (14 ball revolutions" in out
    assert "table state  bets_open" in out


def test_status_names_the_game_of_a_replay_journal(
        journal: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # A replay journals no startup record: the spin records say it is a roulette.
    assert tablectl_main(["--journal", str(journal), "status"]) == 0
    out = capsys.readouterr().out
    assert "game         roulette\n" in out
    assert "shoe " not in out


def test_recall_gives_each_spin_in_full_with_its_bets_and_settlements(
        journal: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert tablectl_main(["--journal", str(journal), "recall", "--last", "1"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("== spin 2")
    assert '"numbers": ["00"]' in out  # the straight bet, placed before the launch
    assert '"payout": 350' in out and '"payout": -20' in out
    assert "spin 1" not in out


def test_recall_gives_each_record_to_one_spin_only(
        journal: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Art. 14: a disputed spin recalled in full, and nothing of the next spin in it.
    assert tablectl_main(["--journal", str(journal), "recall", "--last", "2", "--json"]) == 0
    spin1, spin2 = json.loads(capsys.readouterr().out)
    assert [spin1["title"], spin2["title"]] == ["spin 1", "spin 2"]
    assert not [r for r in spin1["records"] if r["type"] in ("bet", "bet_request")]
    last = spin1["records"][-1]
    assert last["type"] == "state" and last["trigger"] == "reopen"  # spin 1 ends there
    # Spin 2's bets, placed after the reopen, open its block, before its spin_start.
    types = [r["type"] for r in spin2["records"]]
    assert types[:types.index("spin_start")] == ["bet", "bet"]
    seqs = [r["seq"] for game in (spin1, spin2) for r in game["records"]]
    assert seqs == sorted(set(seqs))
    assert not [r for game in (spin1, spin2) for r in game["records"] if r["type"] == "gpio"]


def test_recall_ends_a_voided_spin_at_its_last_settlement_when_no_reopen_follows(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from controller.store.journal import Journal

    path = tmp_path / "voided.sqlite"
    with Journal(path, durable=False) as journal:
        for type_, fields in [
            ("spin_start", {"spin": 1}),
            ("state", {"game": 2, "trigger": "restart", "from": "ball_in_play", "to": "closed"}),
            ("spin_invalid", {"spin": 1, "reason": "interrupted", "reasons": ["interrupted"]}),
            ("settlement", {"game": 1, "box": 1, "kind": "red", "amount": 10,
                            "outcome": "push", "payout": 0}),
            ("input", {"action": "open_bets"}),
            ("state", {"game": 2, "trigger": "open_bets", "from": "closed", "to": "bets_open"}),
            ("bet", {"game": 2, "box": 1, "kind": "red", "amount": 10}),
            ("gpio", {"input": "ball_launch", "level": 1}),
            ("spin_start", {"spin": 2}),
        ]:
            journal.append(type_, 1.0, fields)
    assert tablectl_main(["--journal", str(path), "recall", "--last", "2", "--json"]) == 0
    spin1, spin2 = json.loads(capsys.readouterr().out)
    assert [r["type"] for r in spin1["records"]] == [
        "spin_start", "state", "spin_invalid", "settlement"]
    assert [r["type"] for r in spin2["records"]] == ["input", "state", "bet", "spin_start"]


def test_tablectl_reads_while_a_writer_holds_the_journal(journal: Path) -> None:
    writer = sqlite3.connect(journal)
    writer.execute("BEGIN IMMEDIATE")
    try:
        done = subprocess.run([sys.executable, "-m", "controller.cli.tablectl", "--journal",
                               str(journal), "verify"], capture_output=True, text=True,
                              timeout=60)
    finally:
        writer.rollback()
        writer.close()
    assert done.returncode == 0, done.stderr


def test_a_missing_journal_is_one_clear_error(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    assert tablectl_main(["--journal", str(tmp_path / "none.sqlite"), "status"]) == 1
    assert "none.sqlite: no journal there" in capsys.readouterr().err


def test_analyze_prints_the_published_figures(capsys: pytest.CaptureFixture[str]) -> None:
    # ../shared/data/baccarat-exact.md, 4 decks, box draws on five.
    assert tablectl_main(["analyze", "mini_baccarat", "--decks", "4"]) == 0
    out = capsys.readouterr().out
    for figure in ("0.458761", "0.446340", "0.094898", "-1.2421%", "-3.3455%", "-1.0517%"):
        assert figure in out


def test_progress_bar_appears_only_after_a_second() -> None:
    import io

    from controller.cli.tablectl import ProgressBar

    quick, slow = io.StringIO(), io.StringIO()
    bar = ProgressBar(quick)
    bar.update(0.5)
    bar.close()
    late = ProgressBar(slow, after_s=0.0)
    late.update(0.5)
    late.close()
    assert quick.getvalue() == ""
    assert "50.0%" in slow.getvalue() and slow.getvalue().endswith("\n")


# -- limits (seed 001 Art. 16): the ones in force, and a change waiting for its game ----------
def limits_journal(tmp_path: Path, settle: bool) -> Path:
    """A change requested during a game: the game played out (``settle``), or the journal
    while that game's bets are still open."""
    tb, spin = one_spin(pocket=8)
    tb.inp(spin.launch + 1.0, "set_limits", min_bet=5, max_bet=500)
    events = tb.events()
    if not settle:
        events = [events[0], {"t": 0.1, "input": "open_bets"},
                  {"t": 0.2, "input": "set_limits", "min_bet": 5, "max_bet": 500}]
    db = tmp_path / "journal.sqlite"
    assert run_replay(write_trace(tmp_path / "t.jsonl", events), db).rc == 0
    return db


def test_art16_status_shows_the_limits_in_force_and_the_change_waiting(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = limits_journal(tmp_path, settle=False)
    assert tablectl_main(["--journal", str(db), "status"]) == 0
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if x.startswith("limits"))
    assert "1-1000 chips in force" in line and "5-500 requested" in line
    assert tablectl_main(["--journal", str(db), "status", "--json"]) == 0
    limits = json.loads(capsys.readouterr().out)["limits"]
    assert (limits["min_bet"], limits["max_bet"]) == (1, 1000)
    assert (limits["pending"]["min_bet"], limits["pending"]["max_bet"]) == (5, 500)


def test_art16_status_shows_the_new_limits_once_the_game_is_settled(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = limits_journal(tmp_path, settle=True)
    assert tablectl_main(["--journal", str(db), "status", "--json"]) == 0
    limits = json.loads(capsys.readouterr().out)["limits"]
    assert (limits["min_bet"], limits["max_bet"], limits["pending"]) == (5, 500, None)
