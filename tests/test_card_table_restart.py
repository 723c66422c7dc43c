"""A card table killed in the middle of a coup resumes it from the journal: nothing lost,
changed, repeated or doubled (the journal is event-sourced: ``CardTable.recover_from``)."""

from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest
from conftest import nothing_dealt_while_down

from controller.cli.compose import games, load_config
from controller.core.clock import VirtualClock
from controller.core.events import Event
from controller.core.loop import EventLoop
from controller.core.table import Table
from controller.store.journal import Journal
from controller.trace import trace_from_objects

WAIT = 15.0  # seconds: upper bound of every wait
POLL = 0.005  # seconds between two looks at the journal
ART5 = ("show", "turn", "scramble", "shuffle", "cut", "load")
COUP1_BETS = (("banca", 2, 10), ("punto", 4, 50), ("banca", 5, 20))
COUP1_CARDS = ("9S", "5H", "QC", "3H", "7C", "4H", "JS", "4D", "8D")  # traces/README.md


def rows(path: Path) -> list[tuple[int, str, str]]:
    """Every record of the journal as stored: (seq, body, hash), read only."""
    db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        return list(db.execute("SELECT seq, body, hash FROM records ORDER BY seq"))
    finally:
        db.close()


def records(path: Path) -> list[dict[str, Any]]:
    with Journal(path, readonly=True) as journal:
        return list(journal.records())


def wait_until(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + WAIT
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(POLL)


def in_a_coup(recs: list[dict[str, Any]]) -> bool:
    """The last coup has started and has one or two cards out: several cards to go."""
    starts = [i for i, r in enumerate(recs) if r["type"] == "coup_start"]
    if not starts:
        return False
    rest = recs[starts[-1]:]
    cards = sum(1 for r in rest if r["type"] == "card")
    return 1 <= cards <= 2 and not any(r["type"] == "coup_result" for r in rest)


def journal_shows(path: Path, condition: Callable[[list[dict[str, Any]]], bool]) -> bool:
    if not path.exists():
        return False
    try:
        return condition(records(path))
    except Exception:  # the daemon is creating it: look again
        return False


# -- the daemon, SIGKILLed -------------------------------------------------------------
def write_config(tmp_path: Path, journal: Path) -> Path:
    config = tmp_path / "card-sim.toml"
    config.write_text(f"""
[table]
game = "mini_baccarat"
name = "restart-test"

[journal]
path = "{journal}"

[log]
level = "info"

[serial.shoe]
url = "loop://"

[mini_baccarat]
decks = 4

[limits]
min_bet = 5
max_bet = 1000

[simulator]
enabled = true
seed = 5
spins = 30
speed = 20.0
""", encoding="utf-8")
    return config


def start_daemon(config: Path, tmp_path: Path, name: str) -> subprocess.Popen[bytes]:
    log = open(tmp_path / f"{name}.log", "wb")  # noqa: SIM115 - closed with the process
    return subprocess.Popen([sys.executable, "-m", "controller.cli.main", "run", "--config",
                             str(config)], cwd=tmp_path, stdout=log, stderr=subprocess.STDOUT)


def stop(proc: subprocess.Popen[bytes], sig: int) -> int:
    if proc.poll() is None:
        proc.send_signal(sig)
    try:
        return proc.wait(WAIT)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@dataclass
class Restarted:
    """A daemon SIGKILLed in the middle of a coup, restarted, then stopped by SIGTERM."""

    journal: Path
    before: list[tuple[int, str, str]]  # the journal as the kill left it
    after: list[tuple[int, str, str]]  # the journal at the end
    coup: int  # the coup the kill interrupted

    def records(self) -> list[dict[str, Any]]:
        return [json.loads(body) for _, body, _ in self.after]


@pytest.fixture(scope="module")
def restarted(tmp_path_factory: pytest.TempPathFactory) -> Restarted:
    tmp_path = tmp_path_factory.mktemp("restart")
    journal = tmp_path / "journal.sqlite"
    config = write_config(tmp_path, journal)
    first = start_daemon(config, tmp_path, "first")
    try:
        wait_until(lambda: journal_shows(journal, in_a_coup), "cards of a coup")
    finally:
        assert stop(first, signal.SIGKILL) == -signal.SIGKILL
    before = rows(journal)
    recs_before = [json.loads(body) for _, body, _ in before]
    assert in_a_coup(recs_before), "the kill came after the coup: look again sooner"
    coup = [r for r in recs_before if r["type"] == "coup_start"][-1]["coup"]

    second = start_daemon(config, tmp_path, "second")
    try:
        # Resumed: the recovery record, then the first shoe line the restarted simulator
        # sends (its new-decks procedure and burn are refused or counted, never doubled).
        def resumed(recs: list[dict[str, Any]]) -> bool:
            rec = [r for r in recs if r["type"] == "recovery"]
            return bool(rec) and any(r["type"] == "serial" and r["seq"] > rec[0]["seq"]
                                     for r in recs)

        wait_until(lambda: journal_shows(journal, resumed), "the restarted daemon")
    finally:
        assert stop(second, signal.SIGTERM) == 0
    return Restarted(journal, before, rows(journal), coup)


def test_daemon_killed_in_the_middle_of_a_coup_resumes_it(restarted: Restarted) -> None:
    with Journal(restarted.journal, readonly=True) as j:
        assert j.verify().ok
    before, after = restarted.before, restarted.after
    assert after[: len(before)] == before  # nothing before the kill lost or changed
    recs = restarted.records()
    (recovery,) = [r for r in recs if r["type"] == "recovery"]
    assert recovery["mismatch"] is None
    assert recovery["records_checked"] > 0 and recovery["coup"] == restarted.coup
    assert recovery["state"] == "dealing" and recovery["waiting_for"]
    assert [r["type"] for r in recs].count("startup") == 2
    settled = Counter((r["game"], r["box"], r["kind"]) for r in recs if r["type"] == "settlement")
    assert max(settled.values(), default=1) == 1  # no settlement doubled
    assert [r["coup"] for r in recs if r["type"] == "coup_start"].count(restarted.coup) == 1


def test_daemon_simulated_shoe_starts_in_order(restarted: Restarted) -> None:
    # The first run's simulator: the procedure, the burn, then the first coup, no refusal.
    first_run = [json.loads(body) for _, body, _ in restarted.before]
    assert not [r for r in first_run if r["type"] == "alarm" and r["code"] != "reader_warning"]
    steps = [r["step"] for r in first_run if r["type"] == "shoe_procedure"]
    assert steps == [*ART5, "burn"]


def test_daemon_journal_times_never_go_back_across_a_restart(restarted: Restarted) -> None:
    times = [r["t"] for r in restarted.records()]
    assert times == sorted(times)


# -- recover_from, in process ----------------------------------------------------------
def coup_events() -> list[Event]:
    """The Art. 5 procedure, a burn, then coup 1 of the example trace."""
    objects: list[dict[str, Any]] = [{"t": 0, "meta": {"table": "mini_baccarat", "decks": 4}}]
    t = 0.0

    def add(obj: dict[str, Any]) -> None:
        nonlocal t
        t += 0.5
        objects.append({"t": t, **obj})

    for step in ART5:
        add({"input": "procedure_step", "step": step})
    add({"serial": "shoe", "text": "[Burn]<Card:2C>\r\n"})
    add({"input": "open_bets"})
    for kind, box, amount in COUP1_BETS:
        add({"bet": kind, "box": box, "amount": amount})
    add({"input": "no_more_bets"})
    for card in COUP1_CARDS:
        add({"serial": "shoe", "text": f"[Game]<Card:{card}>\r\n"})
    return trace_from_objects("coup", enumerate(objects, 1), games()).events


def play(path: Path, events: list[Event], start: float = 0.0) -> None:
    """A fresh Table on the journal at ``path``: recover, then handle ``events``."""
    config = load_config("embedded:mini-baccarat-sim.toml", {"decks": 4})
    with Journal(path, durable=False) as journal:
        clock = VirtualClock(start)
        loop = EventLoop(clock, lambda e: None)
        table = Table(config, journal, loop.call_at, clock.now, None)
        loop.handler = table.handle
        table.recover()
        nothing_dealt_while_down(table)
        loop.run_events(events)


def test_recover_from_resumes_half_a_coup_without_repeating_records(tmp_path: Path) -> None:
    events = coup_events()
    half = len(events) - 4  # the Banca's face-down card is out, four cards to go
    path = tmp_path / "journal.sqlite"
    play(path, events[:half])
    before = rows(path)

    play(path, events[half:], start=events[half - 1].t)

    with Journal(path, readonly=True) as journal:
        assert journal.verify().ok
    after = rows(path)
    assert after[: len(before)] == before
    recs = [json.loads(body) for _, body, _ in after]
    (recovery,) = [r for r in recs if r["type"] == "recovery"]
    assert recovery["mismatch"] is None and "records_completed" not in recovery
    assert recovery["state"] == "dealing" and recovery["waiting_for"].startswith("lost_cards")
    # The shoe was not read while the table was down, with box 4's card due (issue 16,
    # item 2): play stopped until the dealer said nothing was dealt meanwhile.
    (down,) = [r for r in recs if r["type"] == "alarm" and r["code"] == "restart_input_lost"]
    assert "the card of box 4" in down["message"]
    cards = [r["card"] for r in recs if r["type"] == "card"]
    assert cards == list(COUP1_CARDS)  # each card journaled once, in dealing order
    assert [r["type"] for r in recs].count("coup_start") == 1
    assert [r["type"] for r in recs].count("bet_placed") == 3
    (result,) = [r for r in recs if r["type"] == "coup_result"]
    assert {b["box"]: b["outcome"] for b in result["boxes"]} == {2: "banca", 4: "punto",
                                                                 5: "punto"}
    assert sorted((r["box"], r["kind"], r["payout"]) for r in recs
                  if r["type"] == "settlement") == [(2, "banca", 9), (4, "punto", 50),
                                                    (5, "banca", -20)]


def test_a_journal_cut_inside_an_input_is_a_mismatch_never_completed(tmp_path: Path) -> None:
    # Only a hand on the file can cut an input in two (its serial record kept, its card
    # record deleted): the restart names it and journals nothing in its place.
    events = coup_events()
    half = len(events) - 4
    path = tmp_path / "journal.sqlite"
    play(path, events[:half])
    db = sqlite3.connect(path)
    with db:
        last = db.execute("SELECT seq, type FROM records ORDER BY seq DESC LIMIT 1").fetchone()
        assert last[1] == "card"
        db.execute("DELETE FROM records WHERE seq = ?", (last[0],))
    db.close()
    before = rows(path)
    play(path, [])
    recs = [json.loads(body) for _, body, _ in rows(path)]
    assert rows(path)[: len(before)] == before
    (recovery,) = [r for r in recs if r["type"] == "recovery"]
    assert "the journal ends in the middle of an input" in recovery["mismatch"]
    (alarm,) = [r for r in recs if r["type"] == "alarm" and r["code"] == "recovery_mismatch"]
    assert "inspector" in alarm["message"]
    assert [(r["type"], r.get("code")) for r in recs[len(before):]][:3] == [
        ("alarm", "restart_input_lost"), ("recovery", None), ("alarm", "recovery_mismatch")]


def test_a_reworded_refusal_is_no_mismatch_after_an_upgrade(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A new version may word a refusal differently: the journal holds the old words, the
    # replay makes the new ones. Same record type and code: no tamper alarm.
    from controller.core.errors import RuleViolation

    events = coup_events()
    i = next(i for i, e in enumerate(events) if getattr(e, "action", "") == "no_more_bets")
    refused = replace(events[i], action="procedure_step", args={"step": "shuffle"})
    events = [*events[:i], refused, *events[i:]]
    path = tmp_path / "journal.sqlite"
    play(path, events[: len(events) - 4])
    first = records(path)
    assert any(r["type"] == "alarm" and r["code"] == "procedure_out_of_order" for r in first)
    original = RuleViolation.__init__

    def reworded(self: RuleViolation, code: str, message: str) -> None:
        original(self, code, message + " (worded anew)")

    monkeypatch.setattr(RuleViolation, "__init__", reworded)
    play(path, [])
    recs = records(path)[len(first):]
    (recovery,) = [r for r in recs if r["type"] == "recovery"]
    assert recovery["mismatch"] is None
    assert not [r for r in recs if r.get("code") == "recovery_mismatch"]
