"""tablectl: status and verify on a journal left by a replay; recall's line width;
analyze; the progress bar.

Recall (seed 001 Art. 14) and the limits in status (Art. 16) are seed 001's article tests
(tests/articles/test_seed_001_roulette_art14_16.py)."""

from __future__ import annotations

import io
import json
import sqlite3
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest
from conftest import run_replay

from controller.cli import main as cli
from controller.cli.tablectl import main as tablectl_main
from controller.core import registry


def test_verify_passes_on_an_untouched_journal(example_journal: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    assert tablectl_main(["--journal", str(example_journal), "verify"]) == 0
    assert capsys.readouterr().out.startswith("ok: ")


def test_verify_names_the_first_edited_record_and_exits_1(
        example_journal: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = sqlite3.connect(example_journal)
    seq = db.execute("SELECT seq FROM records WHERE type = 'settlement' LIMIT 1").fetchone()[0]
    db.execute("UPDATE records SET body = replace(body, '\"payout\":350', '\"payout\":3500') "
               "WHERE seq = ?", (seq,))
    db.commit()
    db.close()
    assert tablectl_main(["--journal", str(example_journal), "verify"]) == 1
    assert f"record {seq}" in capsys.readouterr().out


def test_status_shows_the_last_spin_and_the_table_state(
        example_journal: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert tablectl_main(["--journal", str(example_journal), "status"]) == 0
    out = capsys.readouterr().out
    assert "spin 2: 00 (14 ball revolutions" in out
    assert "table state  bets_open" in out


def test_status_names_the_game_of_a_replay_journal(
        example_journal: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # A replay journals no startup record: the spin records say it is a roulette.
    assert tablectl_main(["--journal", str(example_journal), "status"]) == 0
    out = capsys.readouterr().out
    assert "game         roulette\n" in out
    assert "shoe " not in out


def test_tablectl_reads_while_a_writer_holds_the_journal(example_journal: Path) -> None:
    writer = sqlite3.connect(example_journal)
    writer.execute("BEGIN IMMEDIATE")
    try:
        done = subprocess.run([sys.executable, "-m", "controller.cli.tablectl", "--journal",
                               str(example_journal), "verify"], capture_output=True, text=True,
                              timeout=60)
    finally:
        writer.rollback()
        writer.close()
    assert done.returncode == 0, done.stderr


def test_a_missing_journal_is_one_clear_error(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    assert tablectl_main(["--journal", str(tmp_path / "none.sqlite"), "recall", "1"]) == 1
    assert "none.sqlite: no journal there" in capsys.readouterr().err
    # Status says what it finds, a table not yet started too: exit 0.
    assert tablectl_main(["--journal", str(tmp_path / "none.sqlite"), "status"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert out.startswith("daemon NOT RUNNING, no journal at ") and "none.sqlite yet" in out


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


@pytest.mark.parametrize("game", registry.names())
def test_recall_keeps_every_line_under_100_columns(
        game: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    trace, journal = tmp_path / "trace.jsonl", tmp_path / "journal.sqlite"
    count = "--spins" if registry.spec(game).recall.number == "spin" else "--coups"
    with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
        assert cli.main(["simulate", "--table", game, count, "12", "--seed", "4",
                         "--out", str(trace)]) == 0
    assert run_replay(trace, journal).rc == 0
    capsys.readouterr()
    assert tablectl_main(["--journal", str(journal), "recall", "--last", "3"]) == 0
    out = capsys.readouterr().out
    assert out.count("\n== ") == 2 and out.startswith("== ")
    assert [x for x in out.splitlines() if len(x) >= 100] == []
    assert tablectl_main(["--journal", str(journal), "recall", "--last", "3", "--json"]) == 0
    games = json.loads(capsys.readouterr().out)
    # Words are cut at spaces only: the SHA-256 of a spin's evidence stays whole.
    starts = [r for g in games for r in g["records"] if r["type"] == "spin_start"]
    assert len(starts) == (3 if game == "roulette" else 0)
    for rec in starts:
        assert rec["evidence"]["sha256"] in out

