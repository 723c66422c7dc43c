"""tablectl tells the truth (issue 11): whether the daemon runs (from the journal's lock
file), how old the last record is, the config wherever ``--config`` is on the line, one
game by its number, every error of a config at once, ``--json`` everywhere, the exit codes,
and human output without Python reprs."""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import time
from pathlib import Path

import pytest

from controller.cli.daemon.lock import Owner, lock_path, mark_stopped, write_owner
from controller.cli.daemon.lock import lock_journal as _lock_journal
from controller.cli.main import main as cli_main
from controller.cli.tablectl import main as tablectl_main
from controller.store.journal import Journal


def daemon_journal(path: Path, age_s: float) -> Path:
    """A journal like the daemon's: wall-time stamps, the last one ``age_s`` seconds ago."""
    now = time.time()
    with Journal(path, durable=False) as journal:
        journal.append("startup", now - 3600, {"version": "0.1.0", "config": "table.toml",
                                               "game": "roulette", "simulated": False})
        journal.append("alarm", now - 600, {"code": "sensor_fault", "message":
                                            "ball_a rose again 1.2 ms after its last pass"})
        journal.append("alarm", now - age_s, {"code": "sensor_fault", "message":
                                              "ball_a rose again 0.8 ms after its last pass"})
        journal.append("alarm", now - age_s, {"code": "sensor_fault", "message":
                                              "rotor_b fell at 12.000000 s with no rise"})
    return path


def status(path: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[str, str]:
    assert tablectl_main(["--journal", str(path), "status", *extra]) == 0
    captured = capsys.readouterr()
    # A line cut at 80 columns goes on under its text, 15 columns in: joined again here.
    return re.sub(r"\n {15}(?=\S)", " ", captured.out), captured.err


def test_status_with_no_daemon_says_so_and_how_old_the_last_record_is(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    journal = daemon_journal(tmp_path / "journal.sqlite", age_s=312)
    out, err = status(journal, capsys)
    assert out.startswith("daemon       NOT RUNNING (no lock file: no daemon ever ran on it)")
    assert "4 records, the last 5 min 12 s ago (#4 alarm)" in out
    assert "warning: no daemon writes" in err and "5 min 12 s ago" in err


def test_status_names_a_daemon_that_stopped_and_one_that_did_not_stop_cleanly(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    journal = daemon_journal(tmp_path / "journal.sqlite", age_s=30)
    owner = Owner(999_999, time.time() - 7200, "/etc/table-controller/table.toml", "c.sock")
    lock_path(journal).write_text(json.dumps(owner.__dict__) + "\n")
    out, _ = status(journal, capsys)
    assert "NOT RUNNING (the last one, pid 999999" in out
    assert "did not stop cleanly: killed, crashed or a power cut" in out
    with open(lock_path(journal), "a+") as handle:
        mark_stopped(handle, owner)
    out, _ = status(journal, capsys)
    assert re.search(r"NOT RUNNING \(the last one, pid 999999, started .+, stopped .+\)", out)


def test_status_of_a_running_daemon_gives_its_pid_and_uptime(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    journal = daemon_journal(tmp_path / "journal.sqlite", age_s=2)
    held = _lock_journal(str(journal))  # as the daemon holds it
    try:
        write_owner(held, Owner(os.getpid(), time.time() - 3725, "table.toml",
                                str(tmp_path / "none.sock")))
        out, err = status(journal, capsys)
        data, _ = status(journal, capsys, "--json")
    finally:
        held.close()
    assert f"daemon       running, pid {os.getpid()}, up 1 h 2 min" in out
    assert f"live         no daemon answers on {tmp_path / 'none.sock'}: no socket there" in out
    assert "warning" not in err
    daemon = json.loads(data)["daemon"]
    assert daemon["running"] is True and daemon["pid"] == os.getpid()
    assert 3725 <= daemon["uptime_s"] < 3800


def test_status_shows_each_inputs_sensor_faults_since_start(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    journal = daemon_journal(tmp_path / "journal.sqlite", age_s=60)
    out, _ = status(journal, capsys)
    lines = [line for line in out.splitlines() if "fault" in line and "since" in line]
    assert lines[0].startswith("sensors      ball_a: 2 faults since the daemon's start, "
                               "the last 1 min 0 s ago (#3): ball_a rose again 0.8 ms")
    assert lines[1].strip().startswith("rotor_b: 1 fault since the daemon's start")
    faults = json.loads(status(journal, capsys, "--json")[0])["sensor_faults"]
    assert {name: f["count"] for name, f in faults.items()} == {"ball_a": 2, "rotor_b": 1}


@pytest.mark.parametrize("argv", [
    ["--config", "{config}", "status"],
    ["status", "--config", "{config}"],
    ["status", "--json", "--config", "{config}"],
    ["--json", "recall", "--config", "{config}", "1"],
    ["verify", "--config", "{config}", "--json"],
])
def test_config_is_taken_anywhere_on_the_line(tmp_path: Path, example_journal: Path,
                                             capsys: pytest.CaptureFixture[str],
                                             argv: list[str]) -> None:
    config = tmp_path / "table.toml"
    config.write_text(f'[journal]\npath = "{example_journal}"\n')
    assert tablectl_main([a.replace("{config}", str(config)) for a in argv]) == 0
    out = capsys.readouterr().out
    assert str(example_journal) in out or "spin 1" in out


def test_recall_one_game_by_its_number(example_journal: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    assert tablectl_main(["--journal", str(example_journal), "recall", "1"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("== spin 1\n") and "== spin 2" not in out
    assert "spin 1: 20 (13 ball revolutions" in out
    assert tablectl_main(["--journal", str(example_journal), "recall", "9"]) == 1
    assert "no game numbered 9" in capsys.readouterr().err
    assert tablectl_main(["--journal", str(example_journal), "recall", "1", "--last", "2"]) == 2


@pytest.mark.parametrize("argv", [["status"], ["recall", "--last", "2"], ["recall", "2"]])
def test_human_output_has_no_python_reprs(example_journal: Path,
                                          capsys: pytest.CaptureFixture[str],
                                          argv: list[str]) -> None:
    assert tablectl_main(["--journal", str(example_journal), *argv]) == 0
    out = capsys.readouterr().out
    for repr_mark in ("None", "True", "False", "{", "["):
        assert repr_mark not in out, (repr_mark, out)
    assert not re.search(r"'[^' ]+'", out)  # a quoted Python string


@pytest.mark.parametrize("argv, key", [
    (["status"], "table_state"), (["recall", "--last", "1"], None), (["recall", "2"], "title"),
    (["verify"], "ok"),
])
def test_json_on_the_journals_commands(example_journal: Path,
                                       capsys: pytest.CaptureFixture[str],
                                       argv: list[str], key: str | None) -> None:
    assert tablectl_main(["--journal", str(example_journal), *argv, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert key is None or key in data


def test_help_documents_the_exit_codes(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        tablectl_main(["--help"])
    out = capsys.readouterr().out
    assert "Exit codes:" in out
    for code in ("0  done", "1  refused", "2  bad usage", "3  no daemon"):
        assert code in out


BAD_CONFIG = """\
[table]
game = "roulette"
colour = "red"

[gpio.inputs.ball_a]
pin = 17
pull = "sideways"

[gpio.inputs.ball_b]
pin = 17

[roulette]
boxes = 40

[limits]
min_bet = 10
max_bet = 5
"""


def test_config_check_lists_every_error_at_once(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "table.toml"
    path.write_text(BAD_CONFIG)
    assert tablectl_main(["config", "check", str(path)]) == 2
    lines = capsys.readouterr().out.splitlines()
    assert lines == [
        f"{path}:3: field 'table.colour': unknown key",
        # Read on past the pin used twice: the wheel's other sensors are not wired either.
        f"{path}:5: field 'gpio.inputs': missing wheel inputs: rotor_a, rotor_b, ball_pocket",
        f"{path}:7: field 'gpio.inputs.ball_a.pull': 'sideways' is not one of up, down, none",
        f"{path}:10: field 'gpio.inputs.ball_b.pin': pin 17 is already used by input 'ball_a'",
        f"{path}:13: field 'roulette.boxes': 40 is out of range [1, 12]",
        f"{path}:17: field 'limits.max_bet': 5 is below min_bet 10",
        f"6 errors in {path}",
    ]
    assert tablectl_main(["config", "check", str(path), "--json"]) == 2
    errors = json.loads(capsys.readouterr().out)["errors"]
    assert [e["line"] for e in errors] == [3, 5, 7, 10, 13, 17]


def test_config_check_says_each_error_of_an_input_once_and_none_that_follows(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A pin out of range is not taken for pin 0 (used again by the next input), nor its
    input for one the file does not wire; an input of another game is one error, not an
    unknown key besides."""
    path = tmp_path / "table.toml"
    path.write_text('[table]\ngame = "roulette"\n[gpio.inputs.ball_a]\npin = 99\n'
                    'pull = "sideways"\n[gpio.inputs.ball_b]\npin = 0\n'
                    '[gpio.inputs.coin_slot]\npin = 5\n')
    assert tablectl_main(["config", "check", str(path)]) == 2
    assert capsys.readouterr().out.splitlines() == [
        f"{path}:3: field 'gpio.inputs': missing wheel inputs: rotor_a, rotor_b, ball_pocket",
        f"{path}:4: field 'gpio.inputs.ball_a.pin': 99 is out of range [0, 27]",
        f"{path}:5: field 'gpio.inputs.ball_a.pull': 'sideways' is not one of up, down, none",
        f"{path}:8: field 'gpio.inputs.coin_slot': unknown input 'coin_slot'; a roulette "
        "table's inputs are ball_a, ball_b, rotor_a, rotor_b, ball_pocket, open_bets, "
        "no_more_bets",
        f"4 errors in {path}"]


def test_config_check_of_a_good_config_and_the_daemons_single_error(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from controller.cli.compose import load_config
    from controller.core.errors import ConfigError

    assert tablectl_main(["config", "check", "embedded:mini-baccarat-sim.toml"]) == 0
    assert capsys.readouterr().out.startswith("ok: embedded:mini-baccarat-sim.toml: a "
                                              "Mini-Bacará table")
    path = tmp_path / "table.toml"
    path.write_text(BAD_CONFIG)
    with pytest.raises(ConfigError, match=r"ball_a\.pull"):  # the daemon stops at the first
        load_config(str(path))


@pytest.mark.parametrize("text, field", [
    ('[table]\ngame = "roulette"\n', "gpio.inputs"),  # a replay needs no pins; a table does
    ('[table]\ngame = "pot_luck"\n\n[serial.shoe]\nurl = "loop://"\n',
     "pot_luck.pool.hands")], ids=["roulette", "pot_luck"])
def test_config_check_runs_the_daemons_own_checks(tmp_path: Path, text: str, field: str,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "table.toml"
    path.write_text(text)
    assert tablectl_main(["config", "check", str(path)]) == 2
    (error, total) = capsys.readouterr().out.splitlines()
    assert f"field '{field}'" in error and total == f"1 error in {path}"
    # The daemon stops on the very same line, before it makes a journal.
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        assert cli_main(["run", "--config", str(path),
                         "--journal", str(tmp_path / "j.sqlite")]) == 2
    assert err.getvalue().splitlines() == [f"table-controller: {error}"]
    assert not (tmp_path / "j.sqlite").exists()


def test_a_bad_game_is_the_one_error_reported(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "table.toml"
    path.write_text('[table]\ngame = "rulette"\n\n[roulette]\nboxes = 40\n')
    assert tablectl_main(["config", "check", str(path)]) == 2
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 2 and "'rulette' is not one of" in out[0]


def test_config_check_gives_each_error_of_one_input(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "table.toml"
    path.write_text('[table]\ngame = "roulette"\n\n[gpio.inputs.ball_a]\npull = "sideways"\n'
                    'active = "loud"\n')
    assert tablectl_main(["config", "check", str(path)]) == 2
    out = capsys.readouterr().out
    assert "field 'gpio.inputs.ball_a.pin': missing: the BCM pin number (0-27)" in out
    assert "field 'gpio.inputs.ball_a.pull': 'sideways' is not one of up, down, none" in out
    assert "field 'gpio.inputs.ball_a.active': 'loud' is not one of high, low" in out
