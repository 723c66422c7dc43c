"""The log a technician reads: short console lines in local time, JSON lines with their
priority for journald, accepted bets, and tracebacks without local variables."""

from __future__ import annotations

import io
import json
import os
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from controller.cli.compose import games, load_config, read_trace
from controller.core import registry
from controller.core.clock import VirtualClock
from controller.core.logs import ConsoleLines, configure, get_logger
from controller.core.loop import EventLoop
from controller.core.table import Table
from controller.store.journal import Journal
from controller.trace import trace_from_objects

TRACES = Path(__file__).resolve().parent / "traces"
HASH = "41af2d2c608f0bc0d69d7c7c6f8b1804d018fac2d0cad55e9ecc5dde2b200762"
NOON_UTC = 1_796_126_400.25  # 2026-12-01 12:00:00.250 UTC


def said(text: str) -> str:
    """Console text with the lines cut at 80 columns joined again: its words."""
    return re.sub(r"\n +", " ", text)


def line(event: str, **fields: Any) -> str:
    """One record as the console shows it (at info, as the table logs it)."""
    fields.setdefault("timestamp", NOON_UTC)
    return ConsoleLines(words=WORDS)(None, "info", {"event": event, "level": "info",
                                                  **fields})


# The games' own words come with them (GameSpec.log_words), as the daemon configures them.
WORDS = {**registry.spec("mini_baccarat").log_words, **registry.spec("roulette").log_words}


COMMON = {
    "state": {"from": "no_more_bets", "to": "invalid", "trigger": "declare_invalid",
              "game": 12, "limits": {"min_bet": 1, "max_bet": 1000}, "seq": 4301,
              "t": NOON_UTC, "table": "roulette-1"},
    "spin_start": {"spin": 12, "bets": 3, "limits": {"min_bet": 1, "max_bet": 1000},
                   "seq": 4290, "t": NOON_UTC},
    "spin_result": {"seq": 4500, "spin": 13, "number": "00", "ball_revolutions": 17,
                    "ball_direction": "ccw", "rotor_direction": "cw", "rotor_rpm": 17.635},
    "spin_invalid": {"seq": 4300, "spin": 12, "reason": "too_few_revolutions",
                     "reasons": ["too_few_revolutions", "same_direction"],
                     "ball_revolutions": 2,
                     "details": {"too_few_revolutions": "2 ball revolutions, fewer than 3",
                                 "same_direction": "the ball ran cw, as the rotor turned"}},
    "settlement": {"amount": 10, "box": 4, "game": 12, "kind": "dozen", "outcome": "lose",
                   "payout": -10, "seq": 4302, "t": NOON_UTC, "which": 2},
    "bet": {"amount": 250, "box": 7, "game": 13, "kind": "straight", "numbers": ["17"],
            "seq": 4310, "t": NOON_UTC},
    "bet_placed": {"amount": 10, "box": 1, "coup": 1, "kind": "punto", "seq": 19,
                   "t": NOON_UTC, "total": 10},
    "alarm": {"code": "sensor_fault", "game": 29, "seq": 3149, "t": NOON_UTC,
              "message": "rotor_a rose again 829.746 ms after its last pass at 1352.960292 s, "
                         "closer than physically possible for a rotor at 30 rpm: merged with "
                         "the pass before"},
    "coup_result": {"coup": 1, "seq": 57, "banca": {"cards": ["2S", "2D", "TD"], "total": 4},
                    "boxes": [{"box": b, "cards": ["AH", "QS"], "total": 1, "outcome": "banca"}
                              for b in range(1, 8)]},
    "journal": {"records": 1_234_567, "head_seq": 1_234_567, "head_hash": HASH,
                "chain_ok": True},
    "startup": {"version": "0.1.0", "python": "3.11.2", "platform": "Linux-6.6.51+rpt-rpi-"
                "v8-aarch64-with-glibc2.36", "config": "/etc/table-controller/table.toml",
                "pin_factory": "lgpio", "table": "roulette-1", "game": "roulette",
                "simulated": False, "journal": "/var/lib/table-controller/journal.sqlite",
                "control_socket": "/run/table-controller/control.sock",
                "control_group": "table-admin", "stop": "systemctl stop table-controller"},
}


@pytest.mark.parametrize("event", sorted(COMMON))
def test_common_records_fit_in_80_columns_and_lose_no_words(event: str) -> None:
    text = line(event, **COMMON[event])
    assert all(len(row) <= 80 for row in text.splitlines()), text
    if event == "alarm":
        words = " ".join(row.strip() for row in text.splitlines())
        assert COMMON[event]["message"] in words
    for python_repr in ("{'", "['", "None", "True", "False"):
        assert python_repr not in text


def test_lines_are_in_local_time_not_epoch(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TZ", "Asia/Kolkata")  # UTC+5:30, no summer time
    time.tzset()
    try:
        text = line("state", **COMMON["state"])
    finally:
        monkeypatch.undo()
        time.tzset()
    assert text.startswith("17:30:00.250 info  state ")
    assert str(int(NOON_UTC)) not in text


def test_a_state_change_reads_from_arrow_to() -> None:
    assert said(line("state", **COMMON["state"])).endswith(
        "#4301 no_more_bets → invalid (declare_invalid), game 12")


def test_an_invalid_spin_gives_each_reason_once_with_its_words() -> None:
    text = line("spin_invalid", **COMMON["spin_invalid"])
    joined = " ".join(row.strip() for row in text.splitlines())
    assert "spin 12 INVALID: too_few_revolutions: 2 ball revolutions, fewer than 3; " \
           "same_direction: the ball ran cw, as the rotor turned" in joined
    assert joined.count("too_few_revolutions") == 1 and joined.count("same_direction") == 1


def test_spin_result_settlement_and_accepted_bets_in_words() -> None:
    assert said(line("spin_result", **COMMON["spin_result"])).endswith(
        "#4500 spin 13: 00, 17 ball revolutions ccw, rotor cw at 17.635 rpm")
    assert line("settlement", **COMMON["settlement"]).endswith(
        "#4302 box 4 dozen 2, 10 chips: lose -10")
    assert line("bet", **COMMON["bet"]).endswith("#4310 box 7 straight 17, 250 chips accepted")


def test_a_replay_shows_trace_time_not_the_epoch() -> None:
    text = line("alarm", code="clock_step", message="x", seq=3, t=50.1274)
    assert text.endswith("at 50.127 s")


def secret_holder() -> None:
    face_down_card = "QH-hidden"  # noqa: F841 - a local a traceback with locals would show
    raise RuntimeError("the loop failed")


@pytest.mark.parametrize("fmt", ["console", "json"])
def test_a_traceback_has_no_local_variables(fmt: str) -> None:
    out = io.StringIO()
    configure("info", fmt, stream=out)
    try:
        try:
            secret_holder()
        except RuntimeError:
            get_logger().exception("the controller stopped on an error")
    finally:
        configure("warning", "console")
    text = out.getvalue()
    assert "Traceback (most recent call last)" in text and "secret_holder" in text
    assert "RuntimeError: the loop failed" in text
    assert "QH-hidden" not in text


@pytest.fixture
def journald(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[io.TextIOWrapper]:
    """A stream that systemd's JOURNAL_STREAM names, as when stderr is journald."""
    with open(tmp_path / "journal-stream", "w+", encoding="utf-8") as stream:
        st = os.fstat(stream.fileno())
        monkeypatch.setenv("JOURNAL_STREAM", f"{st.st_dev}:{st.st_ino}")
        yield stream
    configure("warning", "console")


def test_journald_gets_json_lines_with_their_syslog_priority(
        journald: io.TextIOWrapper) -> None:
    configure("info", "auto", stream=journald)
    log = get_logger(table="roulette-1")
    log.info("state", **{"from": "closed", "to": "bets_open"})
    log.warning("alarm", code="sensor_fault", message="chatter")
    log.error("watchdog withheld", reason="not alive: hardware")
    journald.seek(0)
    rows = journald.read().splitlines()
    assert [row[:3] for row in rows] == ["<6>", "<4>", "<3>"]
    first = json.loads(rows[0][3:])
    assert first["event"] == "state" and first["to"] == "bets_open"
    assert first["table"] == "roulette-1" and first["level"] == "info"


def test_console_format_in_journald_keeps_the_priority(journald: io.TextIOWrapper) -> None:
    configure("info", "console", stream=journald)
    get_logger().warning("alarm", code="sensor_fault", message="a long message " * 12)
    journald.seek(0)
    rows = journald.read().splitlines()
    assert len(rows) > 1 and all(row.startswith("<4>") for row in rows)


def test_a_stream_journald_does_not_name_gets_no_prefix(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JOURNAL_STREAM", "1:2")
    out = io.StringIO()
    configure("info", "auto", stream=out)
    try:
        get_logger().info("state", **{"from": "closed", "to": "bets_open"})
    finally:
        configure("warning", "console")
    assert "closed → bets_open" in out.getvalue() and not out.getvalue().startswith("<")


# -- accepted bets reach the log -------------------------------------------------------
def logged(config: str, events: list[Any], tmp_path: Path) -> str:
    out = io.StringIO()
    loaded = load_config(config)
    configure("info", "console", stream=out, words=loaded.spec.log_words)  # as the daemon
    try:
        with Journal(tmp_path / "j.sqlite", durable=False) as journal:
            clock = VirtualClock()
            loop = EventLoop(clock, lambda e: None)
            table = Table(loaded, journal, loop.call_at, clock.now, None)
            loop.handler = table.handle
            loop.run_events(events)
    finally:
        configure("warning", "console")
    return out.getvalue()


def test_roulette_accepted_bets_are_logged(tmp_path: Path) -> None:
    trace = read_trace(str(TRACES / "roulette-two-spins.jsonl"))
    text = logged("embedded:default.toml", list(trace.events), tmp_path)
    bets = [row for row in text.splitlines() if " info  bet " in row]
    assert bets and all("chips accepted" in row for row in bets), text


def test_card_table_accepted_bets_are_logged(tmp_path: Path) -> None:
    objects: list[Any] = [{"t": 0, "meta": {"table": "mini_baccarat"}}]
    for n, step in enumerate(("show", "turn", "scramble", "shuffle", "cut", "load")):
        objects.append({"t": n + 1, "input": "procedure_step", "step": step})
    objects += [{"t": 8, "serial": "shoe", "text": "[Burn]<Card:3D>\r\n"},
                {"t": 9, "input": "open_bets"}, {"t": 10, "bet": "punto", "box": 2, "amount": 10}]
    trace = trace_from_objects("coup", enumerate(objects, 1), games())
    text = logged("embedded:mini-baccarat-sim.toml", list(trace.events), tmp_path)
    (row,) = [row for row in said(text).splitlines() if "bet_placed" in row]
    assert " info  bet_placed   #" in row
    assert row.endswith("box 2 punto, 10 chips accepted, box total 10 at 10.000 s")
