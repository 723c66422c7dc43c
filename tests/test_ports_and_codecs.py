"""A serial port reads one device's lines with a codec that reads them (hardware.md §2b, §4).

Each codec of ``controller.protocols.CODECS`` decodes one device's lines: a shoe reader's
(``reference``, CONTRACT §4) or a wheel's status lines (``status_line``). A config whose port
has a codec of another device, or names a port its table does not read, is refused at
start with one error naming the file, the line and the key (project standards: bad input).
A card table that gets another device's line anyway journals an alarm and goes on, never
crashes (standards: unexpected events become alarm records).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from conftest import REPO

from controller.cli import main as cli
from controller.cli.compose import load_config
from controller.core.clock import VirtualClock
from controller.core.config import SerialConfig
from controller.core.errors import ConfigError
from controller.core.events import DealerInput, PortStatus, SerialData
from controller.core.loop import EventLoop
from controller.core.table import Table
from controller.store.journal import Journal

CARD_CONFIGS = ("mini-baccarat-sim.toml", "blackjack-plus-sim.toml", "pot-luck-sim.toml")
SHOE_CODEC = 'codec = "reference"'
WHEEL_PORT = '\n[serial.wheel]\nurl = "loop://"\nbaudrate = 9600\ncodec = "status_line"\n'


def shipped(name: str, old: str, new: str, tmp_path: Path) -> tuple[Path, str]:
    text = (REPO / "config" / name).read_text()
    assert text.count(old) == 1, (name, old)
    path = tmp_path / name
    path.write_text(text.replace(old, new, 1))
    return path, path.read_text()


def line_of(text: str, wanted: str) -> int:
    return text.splitlines().index(wanted) + 1


def refused(path: Path) -> ConfigError:
    with pytest.raises(ConfigError) as err:
        load_config(str(path))
    return err.value


@pytest.mark.parametrize("name", CARD_CONFIGS)
def test_a_wheel_codec_on_a_card_table_s_shoe_port_is_refused(tmp_path: Path,
                                                              name: str) -> None:
    path, text = shipped(name, SHOE_CODEC, 'codec = "status_line"', tmp_path)
    exc = refused(path)
    assert (exc.path, exc.line, exc.field) == (
        str(path), line_of(text, 'codec = "status_line"'), "serial.shoe.codec")
    message = str(exc)
    assert "a wheel's status lines" in message and "reference" in message
    assert "\n" not in message


@pytest.mark.parametrize("name", CARD_CONFIGS)
def test_a_wheel_port_on_a_card_table_is_refused(tmp_path: Path, name: str) -> None:
    path, text = shipped(name, "[limits]", WHEEL_PORT + "\n[limits]", tmp_path)
    exc = refused(path)
    assert (exc.line, exc.field) == (line_of(text, "[serial.wheel]"), "serial.wheel")
    assert "reads no port 'wheel'" in str(exc) and "shoe" in str(exc)


def test_a_shoe_port_on_a_serial_wheel_table_is_refused(tmp_path: Path) -> None:
    shoe = '\n[serial.shoe]\nurl = "loop://"\n'
    path, text = shipped("roulette-serial-sim.toml", "[roulette]", shoe + "\n[roulette]",
                         tmp_path)
    exc = refused(path)
    assert (exc.line, exc.field) == (line_of(text, "[serial.shoe]"), "serial.shoe")
    assert "roulette" in str(exc)


def test_a_wheel_port_s_codec_left_out_is_the_shoe_s_and_refused(tmp_path: Path) -> None:
    # `codec` defaults to the reference shoe reader's: a wheel cannot be read with it.
    path, text = shipped("roulette-serial-sim.toml", 'codec = "status_line"', "", tmp_path)
    exc = refused(path)
    assert (exc.line, exc.field) == (line_of(text, "[serial.wheel]"), "serial.wheel.codec")
    assert "status_line" in str(exc)


def test_the_daemon_does_not_start_on_a_wheel_codec_for_the_shoe(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The adversary's cfg/run_status_line_shoe.toml: it used to crash on the first line.
    path, text = shipped("mini-baccarat-sim.toml", SHOE_CODEC, 'codec = "status_line"',
                         tmp_path)
    assert cli.main(["run", "--config", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    line = line_of(text, 'codec = "status_line"')
    assert f"{path}:{line}: field 'serial.shoe.codec'" in err


def test_a_replay_with_a_wheel_port_on_a_card_table_is_one_error(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path, _ = shipped("mini-baccarat-sim.toml", "[limits]", WHEEL_PORT + "\n[limits]",
                      tmp_path)
    trace = tmp_path / "t.jsonl"
    trace.write_text('{"t": 0, "meta": {"table": "mini_baccarat"}}\n'
                     '{"t": 0.05, "serial": "wheel", "text": "*X;2;100;  ;0;120;0\\r"}\n')
    assert cli.main(["replay", str(trace), "--config", str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "field 'serial.wheel'" in captured.err


# -- at run time: defence in depth ----------------------------------------------------
def test_a_card_table_given_a_wheel_s_lines_journals_alarms_and_never_crashes(
        tmp_path: Path) -> None:
    # A config made without the loader's checks: the shoe port read by a wheel's codec.
    config = load_config("embedded:mini-baccarat-sim.toml")
    config = replace(config, serial={"shoe": SerialConfig("shoe", "loop://", 9600,
                                                          "status_line")})
    clock = VirtualClock()
    with Journal(tmp_path / "j.sqlite", durable=False) as journal:
        table = Table(config, journal, EventLoop(clock, lambda e: None).call_at, clock.now)
        table.handle(SerialData(0.1, "shoe", b"*X;2;100;  ;0;120;0\r[Burn]<Card:3D>\r\n"))
        table.handle(SerialData(0.2, "shoe", b"17\r"))
        table.handle(PortStatus(0.3, "shoe", False, "unplugged"))
        table.handle(PortStatus(0.4, "shoe", True, ""))
        verdict = table.handle(DealerInput(0.5, "procedure_step", {"step": "show"}))
        alarms = [r for r in journal.records() if r["type"] == "alarm"]
    unexpected = [a for a in alarms if a["code"] == "unexpected_line"]
    assert len(unexpected) == 3  # a status line, a line it cannot parse, a bare number
    assert all("shoe" in a["message"] for a in unexpected)
    assert "shoe_disconnected" in [a["code"] for a in alarms]
    assert verdict is not None and verdict.accepted  # the table still takes its inputs
