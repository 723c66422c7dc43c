"""A journal that cannot be written (issue 11): a full disk refuses new games with an
alarm and keeps what the journal has (controller/cli/daemon/journal_guard.py).

The full disk is injected two ways: a journal whose writes fail as SQLite's do on a full
disk (in this process, on trace time), and a real daemon whose files may not grow past a
size (``RLIMIT_FSIZE``: the kernel refuses the write, as on a full file system)."""

from __future__ import annotations

import json
import os
import resource
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from controller.cli.compose import compose, load_config
from controller.cli.daemon.journal_guard import RETRY_S, JournalGuard
from controller.core.clock import VirtualClock
from controller.core.errors import JournalWriteError
from controller.core.events import BetPlaced, DealerInput, GpioEdge, SerialData
from controller.store.journal import Journal
from controller.store.shared import Alarm

REPO = Path(__file__).resolve().parents[1]


class FillingJournal(Journal):
    """A journal on a disk that fills up when the test says so."""

    full = False

    def _write(self, rows: list[Any], batches: list[Any]) -> None:
        if self.full:
            raise JournalWriteError(self.path, f"record {rows[0][0]}",
                                    sqlite3.OperationalError("database or disk is full"))
        super()._write(rows, batches)


def records(path: Path) -> list[dict[str, Any]]:
    with Journal(path, readonly=True) as journal:
        return list(journal.records())


def test_a_full_disk_refuses_new_games_and_keeps_the_journal(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite"
    journal = FillingJournal(path, durable=True)
    back: list[bool] = []
    guard = JournalGuard(lambda: clock.now(), on_back=lambda: back.append(True))
    clock = VirtualClock(10.0)
    loop, _ = compose(load_config(), journal, clock, guard=guard)
    handle = loop.handler
    assert handle(DealerInput(10.0, "open_bets")).accepted  # type: ignore[union-attr]
    assert handle(BetPlaced(11.0, "red", 1, 10)).accepted  # type: ignore[union-attr]
    kept = records(path)
    journal.full = True
    clock.set(12.0)
    refused = handle(BetPlaced(12.0, "black", 2, 10))
    assert refused is not None and not refused.accepted
    assert refused.code == "journal_failing" and "database or disk is full" in refused.reason
    clock.set(13.0)
    assert handle(GpioEdge(13.0, "ball_a", 1)) is None  # a sensor edge: not taken
    again = handle(DealerInput(13.5, "no_more_bets"))
    assert again is not None and again.code == "journal_failing"
    assert "JOURNAL FAILING (" in (guard.problem() or "")
    assert (guard.dropped, guard.refused) == (1, 2)
    # The journal keeps what it had: nothing written, nothing lost, the chain intact.
    assert records(path) == kept
    with Journal(path, readonly=True) as check:
        assert check.verify().ok
    # Still full at the first retry: nothing written, and no restart.
    loop.run_until_idle(clock.now() + RETRY_S)
    assert records(path) == kept and back == []
    # Space again: the alarm is journaled, chained to the last record, and the daemon is
    # asked to restart (its game may be ahead of its journal).
    journal.full = False
    loop.run_until_idle(clock.now() + RETRY_S + 0.001)
    journal.close()
    after = records(path)
    assert after[:-1] == kept
    alarm = after[-1]
    assert (alarm["type"], alarm["code"], alarm["seq"]) == ("alarm", "journal_failing",
                                                             kept[-1]["seq"] + 1)
    assert "1 hardware events and 2 requests were not taken" in alarm["message"]
    assert back == [True]
    with Journal(path, readonly=True) as check:
        assert check.verify().ok


def test_a_timer_whose_record_cannot_be_written_puts_the_table_in_the_failing_state(
        tmp_path: Path) -> None:
    journal = FillingJournal(tmp_path / "journal.sqlite", durable=True)
    clock = VirtualClock(0.0)
    guard = JournalGuard(clock.now)
    loop, table = compose(load_config(), journal, clock, guard=guard)
    fired: list[float] = []

    def timer() -> None:  # a game's timer that journals its verdict
        fired.append(clock.now())
        table.emit(Alarm(code="x", message="a timer's record"))

    table.game.tracker.schedule(5.0, timer)  # the game's own (guarded) schedule
    journal.full = True
    journal.flush()
    loop.run_until_idle(6.0)
    assert fired == [5.0]
    assert guard.failing is not None and "disk is full" in guard.failing
    journal.full = False
    journal.close()


# -- a real daemon on a size-limited file -------------------------------------------------
@pytest.mark.skipif(not hasattr(resource, "prlimit"), reason="needs Linux prlimit")
def test_a_daemon_whose_journal_file_cannot_grow_refuses_and_restarts_once_it_can(
        tmp_path: Path) -> None:
    journal = tmp_path / "journal.sqlite"
    sock = tmp_path / "c.sock"
    config = tmp_path / "table.toml"
    default = (REPO / "controller/data/default.toml").read_text()
    # The simulator off: the table is idle, so only the test's requests are journaled.
    config.write_text(default.replace('path = "var/journal.sqlite"', f'path = "{journal}"')
                      .replace("enabled = true", "enabled = false")
                      + f'\n[control]\nsocket = "{sock}"\n')
    limit = 64 * 1024  # bytes: the journal and its WAL fill it within a few hundred records
    run = ("import resource, signal, sys\n"
           "signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past it fails: EFBIG\n"
           f"resource.setrlimit(resource.RLIMIT_FSIZE, ({limit}, resource.RLIM_INFINITY))\n"
           "from controller.cli.main import main\n"
           f"sys.exit(main(['run', '--config', {str(config)!r}]))\n")
    proc = subprocess.Popen([sys.executable, "-c", run], cwd=tmp_path,
                            env={**os.environ, "PYTHONPATH": str(REPO)},
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        from controller.cli.control import ControlError, request

        deadline = time.monotonic() + 30
        verdict: dict[str, Any] = {}
        while time.monotonic() < deadline:
            try:
                verdict = request(str(sock), {"input": "set_limits", "min_bet": 1,
                                              "max_bet": 1000})
            except ControlError:
                time.sleep(0.1)  # not started yet
                continue
            if verdict.get("code") == "journal_failing":
                break
        assert verdict.get("code") == "journal_failing", verdict
        status = request(str(sock), {"query": "status"})["status"]
        assert status["line"].startswith("JOURNAL FAILING (")
        assert "database or disk is full" in status["journal_failing"] or (
            "disk I/O error" in status["journal_failing"])
        assert request(str(sock), {"input": "open_bets"})["code"] == "journal_failing"
        with Journal(journal, readonly=True) as check:
            assert check.verify().ok  # what it has is intact
        # Space again: the daemon journals the alarm and exits 75 to be restarted.
        resource.prlimit(proc.pid, resource.RLIMIT_FSIZE,
                         (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=30)
        err = proc.stderr.read().decode() if proc.stderr else ""
    assert proc.returncode == 75, err
    assert "journal failing" in err
    with Journal(journal, readonly=True) as check:
        assert check.verify().ok
        tail = [r for r in check.records() if r["type"] in ("alarm", "shutdown")][-2:]
    assert tail[0]["code"] == "journal_failing"
    assert json.dumps(tail[1]).count("the journal is writable again") == 1


MINI_BACCARAT = load_config("embedded:mini-baccarat-sim.toml", {"decks": 4})


def bets_open(path: Path) -> tuple[FillingJournal, VirtualClock, JournalGuard, Any]:
    """A Mini-Bacará table on a journal that can be made full, its shoe loaded and burnt
    (2C), bets open, punto 10 on box 1 at t = 3.0: the journal, clock, guard and loop."""
    journal = FillingJournal(path, durable=True)
    clock = VirtualClock(1.0)
    guard = JournalGuard(lambda: clock.now())
    loop, _ = compose(MINI_BACCARAT, journal, clock, guard=guard)
    events: list[Any] = [DealerInput(1.0 + i * 0.1, "procedure_step", {"step": s})
                         for i, s in enumerate(("show", "turn", "scramble", "shuffle", "cut",
                                                "load"))]
    events += [SerialData(2.0, "shoe", b"[Burn]<Card:2C>\r\n"),
               DealerInput(2.5, "open_bets"), BetPlaced(3.0, "punto", 1, 10)]
    loop.run_events(events)
    return journal, clock, guard, loop


def restart(path: Path, more: list[Any]) -> list[dict[str, Any]]:
    """The table started again on ``path`` (recovery), then ``more``; every record."""
    with Journal(path, durable=False) as again:
        clock = VirtualClock(20.0)
        loop, table = compose(MINI_BACCARAT, again, clock)
        table.recover()
        loop.run_events(more)
    return records(path)


def test_shoe_bytes_dropped_while_a_card_was_due_stop_play_after_the_restart(
        tmp_path: Path) -> None:
    # Issue 16, item 2. Mini-Bacará, punto 10 on box 1: 9S to box 1, 3H to the Banca (face
    # down), then the disk fills; box 1's second card (TD) is read and dropped. Space
    # again: the alarm, and the restart. The reader then reads the Banca's second card
    # (4D): it must not take box 1's place (seed 000 Art. 6: box 1, Banca, box 1, Banca).
    path = tmp_path / "journal.sqlite"
    journal, clock, guard, loop = bets_open(path)
    loop.run_events([DealerInput(3.5, "no_more_bets"),
                     SerialData(4.0, "shoe", b"[Game]<Card:9S>\r\n[Game]<Card:3H>\r\n")])
    journal.full = True
    loop.run_events([SerialData(5.0, "shoe", b"[Game]<Card:TD>\r\n")])
    assert guard.dropped == 1
    journal.full = False
    loop.run_until_idle(clock.now() + RETRY_S + 0.001)
    journal.close()
    assert records(path)[-1]["dropped"] == 1

    recs = restart(path, [SerialData(21.0, "shoe", b"[Game]<Card:4D>\r\n")])
    cards = [(r["hand"], r["card"]) for r in recs if r["type"] == "card"]
    assert cards == [("box 1", "9S"), ("banca", "3H")]  # 4D waits: never box 1's
    codes = [r["code"] for r in recs if r["type"] == "alarm"]
    assert codes[-3:] == ["journal_failing", "shoe_input_dropped", "card_waiting"]
    (recovery,) = [r for r in recs if r["type"] == "recovery"]
    assert recovery["mismatch"] is None and "lost_cards" in recovery["waiting_for"]
    # The dealer enters the card dealt while the journal failed; a second restart on the
    # way replays it all again, alarm included, without a mismatch.
    recs = restart(path, [DealerInput(22.0, "lost_cards", {"cards": ["TD"]})])
    recs = restart(path, [])
    cards = [(r["hand"], r["card"]) for r in recs if r["type"] == "card"]
    assert cards == [("box 1", "9S"), ("banca", "3H"), ("box 1", "TD"), ("banca", "4D")]
    assert all(r["mismatch"] is None for r in recs if r["type"] == "recovery")
    assert [r["code"] for r in recs if r["type"] == "alarm"].count("shoe_input_dropped") == 1
    (result,) = [r for r in recs if r["type"] == "coup_result"]
    assert [b["outcome"] for b in result["boxes"]] == ["punto"]  # 9S TD = 9 against 7
    times = [r["t"] for r in recs if "t" in r]
    assert times == sorted(times)  # the alarm after the restart is not back in the past


def test_shoe_bytes_dropped_while_bets_were_open_stop_play_after_the_restart(
        tmp_path: Path) -> None:
    # Held-out finding 10. Mini-Bacará, punto 10 on box 1, bets open; the disk fills, the
    # dealer's no_more_bets is refused and he deals on: 9S and 3H pass the reader, dropped.
    # Space again, the restart: those cards must not be forgotten (play stops for the
    # dealer's lost_cards), and once entered they are counted by the shoe (208 cards of
    # seed 000 Art. 2 less the burn 2C and these two: 205) and, dealt while bets were
    # open, given no hand (card_without_place), as two cards read then would have been.
    path = tmp_path / "journal.sqlite"
    journal, clock, guard, loop = bets_open(path)
    journal.full = True
    loop.run_events([DealerInput(3.5, "no_more_bets"),
                     SerialData(4.0, "shoe", b"[Game]<Card:9S>\r\n[Game]<Card:3H>\r\n")])
    assert (guard.dropped, guard.refused) == (1, 1)
    journal.full = False
    loop.run_until_idle(clock.now() + RETRY_S + 0.001)
    journal.close()

    recs = restart(path, [])
    (recovery,) = [r for r in recs if r["type"] == "recovery"]
    assert "lost_cards" in (recovery["waiting_for"] or "")
    assert [r["code"] for r in recs if r["type"] == "alarm"][-1] == "shoe_input_dropped"
    recs = restart(path, [DealerInput(21.0, "lost_cards", {"cards": ["9S", "3H"]})])
    (stop,) = [r for r in recs if r.get("code") == "card_without_place"]
    assert stop["stops_play"] and stop["count"] == 2 and "bets are open" in stop["message"]
    assert not [r for r in recs if r["type"] == "card"]  # in no hand
    recs = restart(path, [])  # the count, as the journal's inputs give it again
    last = [r for r in recs if r["type"] == "recovery"][-1]
    assert last["shoe_cards_left"] == 4 * 52 - 3 and last["mismatch"] is None
