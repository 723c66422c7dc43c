"""Ambiguous input is refused, never resolved by a guess (project standards: bad input).

- A JSON object that gives a key twice (``{"input": "open_bets", "input": "close_table"}``)
  says two things: a trace line with one is one error naming the file, line and key (exit 2,
  nothing played); a control request with one is a request error, nothing posted.
- A dealer input with an argument its game's ``InputSpec`` does not name is refused, with
  the reason, like any other refusal (the ``input`` record, then an ``alarm``; "refused:
  ..." to whoever sent it), on every table; every argument a game reads is declared.
- A control request is one JSON line of at most 4096 bytes, its newline included: two lines
  in one request are refused whole (neither is posted), a longer request is "request too
  long (over 4096 bytes)".
"""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import run_replay, write_trace

from controller.cli.compose import load_config
from controller.cli.control import MAX_REQUEST, ControlServer
from controller.core import registry
from controller.core.clock import VirtualClock
from controller.core.contract import ACCEPTED, Verdict
from controller.core.events import DealerInput, Event
from controller.core.loop import EventLoop
from controller.core.table import Table
from controller.store.journal import Journal

GAMES = registry.games()

ROULETTE = {"t": 0, "meta": {"table": "roulette"}}


# -- duplicate keys in a trace line --------------------------------------------------
@pytest.mark.parametrize("line, number, key", [
    ('{"t":1,"input":"open_bets","input":"close_table"}', 2, "input"),
    ('{"t":1,"t":2,"input":"open_bets"}', 2, "t"),
    ('{"t":1,"bet":"red","box":1,"amount":5,"amount":500}', 2, "amount"),
    ('{"t":1,"input":"void","reason":"foreign_object","by":"dealer","by":"inspector"}', 2,
     "by"),
])
def test_a_trace_line_giving_a_key_twice_is_one_error(tmp_path: Path, line: str, number: int,
                                                      key: str) -> None:
    trace = tmp_path / "dup.jsonl"
    trace.write_text(json.dumps(ROULETTE) + "\n" + line + "\n")
    res = run_replay(trace, tmp_path / "j.sqlite")
    assert res.rc == 2 and res.records == []
    (message,) = res.stderr.strip().splitlines()
    assert f"{trace}:{number}: field '{key}'" in message and "twice" in message


def test_a_meta_giving_a_key_twice_is_one_error(tmp_path: Path) -> None:
    trace = tmp_path / "dup.jsonl"
    trace.write_text('{"t":0,"meta":{"table":"mini_baccarat","table":"roulette"}}\n')
    res = run_replay(trace, tmp_path / "j.sqlite")
    assert res.rc == 2 and f"{trace}:1: field 'table'" in res.stderr


# -- dealer inputs take the arguments their game declares -----------------------------
def table_of(game: str, journal: Journal) -> Table:
    config = load_config("embedded:default.toml", {"table": game})
    clock = VirtualClock()
    return Table(config, journal, EventLoop(clock, lambda e: None).call_at, clock.now)


CASES = [(spec.name, inp.action) for spec in registry.games() for inp in spec.inputs]


@pytest.mark.parametrize("game, action", CASES)
def test_an_argument_the_input_does_not_take_is_refused_on_every_table(
        tmp_path: Path, game: str, action: str) -> None:
    with Journal(tmp_path / "j.sqlite", durable=False) as journal:
        table = table_of(game, journal)
        before = journal.last_seq
        verdict = table.handle(DealerInput(1.0, action, {"colour": "red"}))
        records = [r for r in journal.records() if r["seq"] > before]
    assert verdict is not None and not verdict.accepted
    assert verdict.code == "unknown_argument" and "'colour'" in verdict.reason
    assert [r["type"] for r in records] == ["input", "alarm"]
    assert records[1]["code"] == "unknown_argument" and "'colour'" in records[1]["message"]


@pytest.mark.parametrize("game, action, args", [
    # The cut of seed 003 num. 2 asks who cut: every card table's procedure_step takes `by`.
    ("mini_baccarat", "procedure_step", {"step": "show", "by": "dealer"}),
    ("blackjack_plus", "procedure_step", {"step": "show", "by": "dealer"}),
    ("pot_luck", "procedure_step", {"step": "show", "by": "dealer"}),
    ("mini_baccarat", "new_shoe", {"reason": "a marked card"}),
    ("mini_baccarat", "inspector_clear", {"note": "checked"}),
    ("mini_baccarat", "no_more_bets", {"boxes": [1]}),
    ("roulette", "void", {"reason": "foreign_object", "by": "inspector"}),
    ("roulette", "set_limits", {"min_bet": 5, "max_bet": 500}),
])
def test_the_arguments_a_game_reads_are_taken(tmp_path: Path, game: str, action: str,
                                              args: dict[str, Any]) -> None:
    with Journal(tmp_path / "j.sqlite", durable=False) as journal:
        verdict = table_of(game, journal).handle(DealerInput(1.0, action, args))
    assert verdict is not None and verdict.code != "unknown_argument", verdict


def test_no_more_bets_with_an_unknown_argument_leaves_bets_open(tmp_path: Path) -> None:
    # The adversary's bad/unknown_arg.jsonl: it used to close bets.
    trace = write_trace(tmp_path / "t.jsonl", [
        ROULETTE, {"t": 1, "input": "open_bets"},
        {"t": 2, "input": "no_more_bets", "colour": "x"},
        {"t": 3, "bet": "red", "box": 1, "amount": 5}])
    res = run_replay(trace, tmp_path / "j.sqlite")
    assert res.rc == 0
    (alarm,) = res.alarms()
    assert alarm["code"] == "unknown_argument"
    assert "no_more_bets" in alarm["message"] and "'colour'" in alarm["message"]
    assert [r["kind"] for r in res.of("bet")] == ["red"]  # bets were still open


def test_a_card_table_restart_refuses_again_what_it_refused(tmp_path: Path) -> None:
    # The card table replays its journaled inputs on a restart: a refused input must not
    # become accepted then.
    path = tmp_path / "j.sqlite"
    with Journal(path, durable=False) as journal:
        table = table_of("mini_baccarat", journal)
        table.handle(DealerInput(1.0, "procedure_step", {"step": "show", "colour": "x"}))
    with Journal(path, durable=False) as journal:
        table = table_of("mini_baccarat", journal)
        table.recover()
        (recovery,) = [r for r in journal.records() if r["type"] == "recovery"]
        assert recovery["mismatch"] is None
        # The refused step was not done: the first step is still due.
        assert table.handle(DealerInput(2.0, "procedure_step", {"step": "show"})) == ACCEPTED


# -- the control socket -----------------------------------------------------------------
class Posted(list[Event]):
    def __call__(self, event: Event, reply: Any = None) -> None:
        self.append(event)
        reply(ACCEPTED)


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[ControlServer, Posted]]:
    posted = Posted()
    srv = ControlServer(str(tmp_path / "c.sock"), None, posted, lambda: 7.0, dict,
                        GAMES.spec("roulette"), games=GAMES)
    srv.start()
    yield srv, posted
    srv.stop()


def send(path: Path, raw: bytes) -> dict[str, Any]:
    with socket.socket(socket.AF_UNIX) as sock:
        sock.connect(str(path))
        sock.sendall(raw)
        reply: dict[str, Any] = json.loads(sock.makefile().readline())
        return reply


def test_a_request_giving_a_key_twice_is_refused(server: tuple[ControlServer, Posted]) -> None:
    srv, posted = server
    reply = send(srv.path, b'{"input":"open_bets","input":"close_table"}\n')
    assert reply["ok"] is False and "'input'" in reply["error"] and "twice" in reply["error"]
    assert posted == []


def test_two_json_lines_in_one_request_are_refused_whole(
        server: tuple[ControlServer, Posted]) -> None:
    srv, posted = server
    reply = send(srv.path, b'{"input":"open_bets"}\n{"input":"close_table"}\n')
    assert reply["ok"] is False and "one JSON line" in reply["error"]
    assert posted == []


def test_a_request_over_4096_bytes_is_too_long(server: tuple[ControlServer, Posted]) -> None:
    srv, posted = server
    raw = b'{"bet":"red","box":1,"amount":10}' + b" " * 5000 + b"\n"
    assert send(srv.path, raw) == {"ok": False, "error": "request too long (over 4096 bytes)"}
    assert posted == []


def test_a_request_of_4096_bytes_is_answered(server: tuple[ControlServer, Posted]) -> None:
    srv, posted = server
    body = b'{"input":"open_bets"}'
    raw = body + b" " * (MAX_REQUEST - len(body) - 1) + b"\n"
    assert len(raw) == 4096
    assert send(srv.path, raw) == {"ok": True, "verdict": "accepted"}
    assert posted == [DealerInput(7.0, "open_bets", {})]


def test_a_verdict_on_an_unknown_argument_reaches_the_sender(tmp_path: Path) -> None:
    with Journal(tmp_path / "j.sqlite", durable=False) as journal:
        table = table_of("roulette", journal)
        answers: list[Verdict] = []

        def post(event: Event, reply: Any) -> None:
            verdict = table.handle(event)
            answers.append(verdict)  # type: ignore[arg-type]
            reply(verdict)

        srv = ControlServer(str(tmp_path / "c.sock"), None, post, lambda: 1.0, dict,
                            GAMES.spec("roulette"), games=GAMES)
        srv.start()
        try:
            reply = send(srv.path, b'{"input":"no_more_bets","reason":"x"}\n')
        finally:
            srv.stop()
    assert reply["ok"] is True and reply["verdict"] == "refused"
    assert reply["code"] == "unknown_argument" and "'reason'" in reply["reason"]
