"""A commit that fails (disk full, read-only file system): the table does not go on as if the
input had been journaled. Nothing of it is on disk, shown or answered as accepted; by
default the daemon stops with exit 4; the ``on_commit_failure`` hook (issue 11's) can answer
instead and bring the game back to the journal's state (``Table.rebuild``)."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path
from typing import Any

import pytest
from conftest import write_trace

from controller.cli import main as cli
from controller.cli.compose import load_config
from controller.core.clock import VirtualClock
from controller.core.contract import Verdict
from controller.core.errors import JournalWriteError
from controller.core.events import DealerInput
from controller.core.loop import EventLoop
from controller.core.table import Table
from controller.store.journal import Journal


def make(tmp_path: Path) -> tuple[Table, Journal, list[str]]:
    journal = Journal(tmp_path / "j.sqlite", durable=True)
    clock = VirtualClock()
    loop = EventLoop(clock, lambda e: None)
    shown: list[str] = []
    table = Table(load_config(), journal, loop.call_at, clock.now, shown.append)
    loop.handler = table.handle
    return table, journal, shown


def read_only(journal: Journal, on: bool) -> None:
    # The connection refuses every write, as a file system remounted read-only does.
    journal.db.execute(f"PRAGMA query_only = {'ON' if on else 'OFF'}")


def stored(path: Path) -> int:
    con = sqlite3.connect(path)
    try:
        return int(con.execute("SELECT count(*) FROM records").fetchone()[0])
    finally:
        con.close()


def test_a_failed_commit_is_raised_and_nothing_is_shown(tmp_path: Path) -> None:
    table, journal, shown = make(tmp_path)
    read_only(journal, True)
    with pytest.raises(JournalWriteError) as err:
        table.handle(DealerInput(1.0, "open_bets"))
    assert err.value.cause == "read-only" and "cannot write records 1-2" in str(err.value)
    assert shown == [] and journal.last_seq == 0 and stored(journal.path) == 0


def test_the_hook_answers_and_the_game_comes_back_to_the_journal(tmp_path: Path) -> None:
    table, journal, shown = make(tmp_path)
    failures: list[JournalWriteError] = []

    def refuse(exc: JournalWriteError, event: Any) -> Verdict:
        failures.append(exc)
        return Verdict(False, "journal_unwritable", str(exc))

    table.on_commit_failure = refuse
    read_only(journal, True)
    verdict = table.handle(DealerInput(1.0, "open_bets"))
    assert verdict is not None and verdict.code == "journal_unwritable" and failures
    assert table.game.state == "bets_open"  # memory ahead of the journal ...
    read_only(journal, False)
    table.rebuild()
    assert table.game.state == "closed"  # ... back to what the journal holds
    assert table.handle(DealerInput(2.0, "open_bets")) == Verdict(True)
    assert stored(journal.path) == 2 and [b for b in shown if '"input"' in b]


def test_the_sender_of_an_input_learns_and_the_loop_stops(tmp_path: Path) -> None:
    table, journal, _ = make(tmp_path)
    loop = EventLoop(VirtualClock(), table.handle)
    read_only(journal, True)
    replies: list[Any] = []
    done = threading.Event()

    def reply(answer: Any) -> None:
        replies.append(answer)
        done.set()

    loop.post(DealerInput(0.0, "open_bets"), reply)
    with pytest.raises(JournalWriteError):
        loop.run_forever()
    assert done.is_set() and isinstance(replies[0], JournalWriteError)


def test_the_command_exits_4_with_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    def full(*args: Any, **kwargs: Any) -> int:
        raise JournalWriteError(tmp_path / "j.sqlite", "record 7",
                                sqlite3.OperationalError("database or disk is full"))

    monkeypatch.setattr(cli, "cmd_replay", full)
    trace = write_trace(tmp_path / "t.jsonl", [{"t": 0, "meta": {"table": "roulette"}}])
    assert cli.main(["replay", str(trace)]) == cli.EXIT_JOURNAL_UNWRITABLE == 4
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "cannot write record 7" in err[0] and "exit 4" in err[0]
