"""``table-controller simulate`` ends with one summary line on stderr, as ``replay`` does
(issue 22 item 6): the games, what a controller is expected to make of them, and the
alarms the simulator injects, in 80 columns; and a replay of the trace agrees with it."""

from __future__ import annotations

import io
import re
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest
from conftest import run_replay

from controller.cli import main as cli

COLUMNS = 80


def _simulate(*argv: str) -> str:
    """The last line ``simulate ARGV --out t.jsonl`` writes to stderr (exit 0, no stdout)."""
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        assert cli.main(["simulate", *argv, "--out", "t.jsonl"]) == 0
    assert out.getvalue() == ""
    lines = err.getvalue().splitlines()
    assert all(len(line) <= COLUMNS for line in lines), lines
    return lines[-1]


def _replayed(journal: str) -> str:
    replay = run_replay(Path("t.jsonl"), Path(journal))
    assert replay.rc == 0, replay.stderr
    return replay.stderr.splitlines()[-1]


@pytest.mark.parametrize(("table", "games", "result"), [
    ("mini_baccarat", "coups", "coup_result"), ("blackjack_plus", "coups", "coup_result"),
    ("pot_luck", "coups", "coup_result"), ("draw_poker", "hands", "hand_result")])
def test_a_card_table_simulated_expects_every_game_concluded_and_no_alarm(
        table: str, games: str, result: str, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    summary = _simulate("--table", table, "--coups", "3", "--seed", "5")
    assert summary == f"simulate: 3 {games} expected: 3 {result}; no fault injected (0 alarms)"
    assert re.fullmatch(rf"replay: 3 {games} concluded \(3 {result}\), 0 alarms, "
                        r"\d+ records journaled", _replayed("j.sqlite"))


def test_roulette_simulated_names_each_verdict_and_the_injected_faults(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    plan = ("valid", "wheel_stopped", "valid", "missed_pass")
    summary = _simulate("--spins", "4", "--seed", "5",
                        *(arg for s in plan for arg in ("--scenario", s)))
    # missed_pass: a sensor fault in a valid spin, a result while the controller's
    # corrections stay within its budget (seed 5: they do).
    # The reasons of the invalid spins would take the line past 80 columns: left out.
    assert summary == "simulate: 4 spins expected: 3 valid, 1 invalid; 1 sensor fault (alarms)"
    last = _replayed("j.sqlite")
    assert re.fullmatch(r"replay: 4 spins concluded \(3 spin_result, 1 spin_invalid\), "
                        r"[1-9]\d* alarms?, \d+ records journaled", last), last


def test_roulette_simulated_without_faults_says_so_and_names_the_invalid_spins_reasons(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    summary = _simulate("--spins", "2", "--seed", "5", "--scenario", "valid")
    assert summary == "simulate: 2 spins expected: 2 valid; no fault injected"
    summary = _simulate("--spins", "2", "--seed", "5", "--scenario", "wheel_slow")
    assert summary == ("simulate: 2 spins expected: 2 invalid (wheel_malfunction); no fault "
                       "injected")
    assert re.fullmatch(r"replay: 2 spins concluded \(2 spin_invalid\), 0 alarms, "
                        r"\d+ records journaled", _replayed("j.sqlite"))


def test_a_serial_wheel_simulated_holds_what_its_lines_cannot_tell(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    # A ball that never settles is held on a serial wheel (its lines do not say when the
    # ball left the track), and the wheel's habits (garbled lines, a failed launch, a
    # silence) raise alarms.
    summary = _simulate("--spins", "2", "--seed", "5", "--wheel", "serial",
                        "--scenario", "valid", "--scenario", "ball_suspended")
    assert summary == "simulate: 2 spins expected: 1 valid, 1 held; wheel habits (alarms)"
    last = _replayed("j.sqlite")
    assert re.fullmatch(r"replay: 1 spin concluded \(1 spin_result\), [1-9]\d* alarms?, "
                        r"\d+ records journaled", last), last
