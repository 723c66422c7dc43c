"""A card table's daemon SIGKILLed in the middle of a coup while the dealer goes on dealing
(issue 16, item 2): the shoe's lines sent while it is down are never read (the port is
opened afresh at the restart, its input flushed, as a USB adapter's is). On restart play
stops for the dealer's correction (``restart_input_lost``, the stop of a lost shoe input),
the next card read waits, never takes the lost card's place, and once the dealer enters
the lost card every card goes where it was dealt.

A real daemon process, its shoe behind a pseudo-terminal, its dealer inputs through its
control socket. The coup is coup 1 of tests/traces/README.md: its cards, hands and
settlements are that trace's, worked out there from seed 000.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from test_card_table_restart import stop

from controller.cli.control import ControlError, request

WAIT = 15.0  # seconds: upper bound of every wait
POLL = 0.01
ART5 = ("show", "turn", "scramble", "shuffle", "cut", "load")
BETS = (("banca", 2, 10), ("punto", 4, 50), ("banca", 5, 20))
CARDS = ("9S", "5H", "QC", "3H", "7C", "4H", "JS", "4D", "8D")
# Seed 000 Art. 6: box 2, box 4, box 5, the Banca (face down), then the boxes' second.
HANDS = ("box 2", "box 4", "box 5", "banca", "box 2", "box 4", "box 5")


def records(journal: Path) -> list[dict[str, Any]]:
    if not journal.exists():
        return []
    try:
        con = sqlite3.connect(f"{journal.resolve().as_uri()}?mode=ro", uri=True)
        try:
            return [json.loads(b) for (b,) in con.execute("SELECT body FROM records ORDER BY seq")]
        finally:
            con.close()
    except sqlite3.OperationalError:  # being created: look again
        return []


def wait_for(journal: Path, what: str, found: Callable[[list[dict[str, Any]]], bool]) -> None:
    deadline = time.monotonic() + WAIT
    while not found(records(journal)):
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(POLL)


def count(recs: list[dict[str, Any]], type_: str, code: str | None = None) -> int:
    return sum(1 for r in recs if r["type"] == type_ and (code is None or r.get("code") == code))


class Daemon:
    """``table-controller run`` on the config, its control socket, its shoe's pty."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.journal = tmp / "journal.sqlite"
        self.socket = tmp / "c.sock"
        self.master, self.slave = os.openpty()
        self.config = tmp / "table.toml"
        self.config.write_text(f"""
[table]
game = "mini_baccarat"
[journal]
path = "{self.journal}"
[control]
socket = "{self.socket}"
[serial.shoe]
url = "{os.ttyname(self.slave)}"
[mini_baccarat]
decks = 4
[limits]
min_bet = 5
max_bet = 1000
""", encoding="utf-8")
        self.proc: subprocess.Popen[bytes] | None = None
        self.runs = 0

    def start(self) -> None:
        self.runs += 1
        log = open(self.tmp / f"run-{self.runs}.log", "wb")  # noqa: SIM115 - with the process
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "controller.cli.main", "run", "--config", str(self.config)],
            cwd=self.tmp, stdout=log, stderr=subprocess.STDOUT)
        ports = self.runs
        wait_for(self.journal, "the shoe port", lambda r: count(r, "port") >= ports)
        deadline = time.monotonic() + WAIT
        while True:  # the control socket comes up with the daemon
            try:
                request(str(self.socket), {"query": "status"})
                return
            except ControlError:
                assert time.monotonic() < deadline, "no control socket"
                time.sleep(POLL)

    def stop(self, sig: int) -> int:
        assert self.proc is not None
        return stop(self.proc, sig)

    def send(self, *cards: str, line: str = "Game") -> None:
        for card in cards:
            os.write(self.master, f"[{line}]<Card:{card}>\r\n".encode())

    def dealer(self, message: dict[str, Any]) -> dict[str, Any]:
        reply = request(str(self.socket), message)
        assert reply.get("verdict") == "accepted", (message, reply)
        return reply

    def close(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.stop(signal.SIGKILL)
        for fd in (self.master, self.slave):
            os.close(fd)


@pytest.fixture
def daemon(tmp_path: Path) -> Iterator[Daemon]:
    table = Daemon(tmp_path)
    try:
        yield table
    finally:
        table.close()


def test_cards_dealt_while_the_daemon_was_killed_stop_play_for_the_dealer(
        daemon: Daemon) -> None:
    journal = daemon.journal
    daemon.start()
    for step in ART5:
        daemon.dealer({"input": "procedure_step", "step": step})
    daemon.send("2C", line="Burn")
    wait_for(journal, "the burn", lambda r: count(r, "burn") == 1)
    daemon.dealer({"input": "open_bets"})
    for kind, box, amount in BETS:
        daemon.dealer({"bet": kind, "box": box, "amount": amount})
    daemon.dealer({"input": "no_more_bets"})
    daemon.send(*CARDS[:4])
    wait_for(journal, "four cards", lambda r: count(r, "card") == 4)

    assert daemon.stop(signal.SIGKILL) == -signal.SIGKILL
    daemon.send(CARDS[4])  # box 2's second card, dealt while nothing reads the shoe
    daemon.start()
    wait_for(journal, "the restart's stop",
             lambda r: count(r, "alarm", "restart_input_lost") == 1 and count(r, "recovery"))
    (stop,) = [r for r in records(journal) if r.get("code") == "restart_input_lost"]
    assert "the card of box 2" in stop["message"]

    daemon.send(CARDS[5])  # box 4's second card: it waits, never in box 2's place
    wait_for(journal, "the card read to wait", lambda r: count(r, "alarm", "card_waiting"))
    assert count(records(journal), "card") == 4
    daemon.dealer({"input": "lost_cards", "cards": [CARDS[4]]})
    daemon.send(*CARDS[6:])
    wait_for(journal, "the coup's result", lambda r: count(r, "coup_result") == 1)
    assert daemon.stop(signal.SIGTERM) == 0

    recs = records(journal)
    dealt = [(r["hand"], r["card"]) for r in recs if r["type"] == "card"]
    assert dealt[:7] == list(zip(HANDS, CARDS[:7], strict=True))
    assert [c for _, c in dealt] == list(CARDS)  # each card once, in dealing order
    lost = next(r for r in recs if r["type"] == "card" and r["card"] == CARDS[4])
    assert lost["manual"] is True  # the dealer's entry, never a card read
    (result,) = [r for r in recs if r["type"] == "coup_result"]
    assert {b["box"]: b["outcome"] for b in result["boxes"]} == {2: "banca", 4: "punto",
                                                                 5: "punto"}
    assert sorted((r["box"], r["kind"], r["payout"]) for r in recs
                  if r["type"] == "settlement") == [(2, "banca", 9), (4, "punto", 50),
                                                    (5, "banca", -20)]
