"""Words a person reads fit an 80-column terminal (GUIDE, issue 22 item 6): every plain
output of ``tablectl`` run on the journal of each simulated table, its help texts, and
those of ``table-controller``."""

from __future__ import annotations

import contextlib
import io
import re
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest
from conftest import REPO, run_replay

from controller.cli import main as cli
from controller.cli.tablectl import main as tablectl_main
from controller.cli.tablectl.sensors import frame
from controller.core import registry

COLUMNS = 80


def _wide(text: str) -> list[str]:
    return [line for line in text.splitlines() if len(line) > COLUMNS]


def _journal(game: str, where: Path) -> Path:
    trace, journal = where / "trace.jsonl", where / "journal.sqlite"
    count = "--spins" if registry.spec(game).recall.number == "spin" else "--coups"
    with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
        assert cli.main(["simulate", "--table", game, count, "6", "--seed", "3",
                         "--out", str(trace)]) == 0
    assert run_replay(trace, journal).rc == 0
    return journal


def _run(main: object, argv: list[str]) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err), contextlib.suppress(SystemExit):
        main(argv)  # type: ignore[operator]
    return out.getvalue(), err.getvalue()


@pytest.mark.parametrize("game", registry.names())
def test_every_tablectl_line_on_a_simulated_journal_fits_80_columns(
        game: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The journal named as a technician would, from its folder: a path is one word that no
    # line can cut, and pytest's own are long.
    monkeypatch.chdir(tmp_path)
    journal = _journal(game, tmp_path).name
    config = REPO / "config" / f"{game.replace('_', '-')}-sim.toml"  # stats: the game's
    commands = [["status"], ["recall", "--last", "3"], ["recall", "2"], ["verify"],
                ["verify", "--full"], ["stats", "--config", str(config)]]
    for argv in commands:
        out, err = _run(tablectl_main, ["--journal", journal, *argv])
        assert out, argv
        assert _wide(out) == [], argv
        assert _wide(err) == [], argv


@pytest.mark.parametrize("toml", sorted((REPO / "config").glob("*.toml")),
                         ids=lambda p: p.name)
def test_config_check_fits_80_columns(toml: Path, tmp_path: Path,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # the files named from their folder, as a technician would
    Path(toml.name).write_text(toml.read_text())
    out, err = _run(tablectl_main, ["config", "check", toml.name])
    assert _wide(out + err) == []
    Path("bad.toml").write_text(toml.read_text() + "\n[nonsense_section_with_a_long_name]\n"
                                "x = 1\n")
    out, err = _run(tablectl_main, ["config", "check", "bad.toml"])
    assert "error" in out + err and _wide(out + err) == []


def test_seal_init_and_the_analyses_fit_80_columns(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    out, err = _run(tablectl_main, ["--journal", "journal.sqlite", "seal-init"])
    assert "verification key" in out and _wide(out + err) == []
    for argv in (["mini_baccarat"], ["blackjack"], ["blackjack", "--dealer", "h17", "--decks",
                                                    "8"]):
        out, err = _run(tablectl_main, ["analyze", *argv])
        assert out and _wide(out + err) == [], argv


def test_a_look_at_the_sensors_fits_80_columns() -> None:
    """``tablectl sensors``: a ball running (its periods go on under their column) and an
    automated wheel's line with all it reports (cut between its parts)."""
    rises = [90 + 0.777 * i for i in range(12)]
    reply = {"now": 100.0,
             "sensors": {"ball_pocket": {"level": 1, "edges": 200, "last_edge_t": 99.9,
                                         "rises": rises},
                         "rotor_a": {"level": 0, "edges": 3}},
             "serial": {"wheel": {"last_line": "*X;3;241;32;0;137;0;  ; ", "age_s": 0.4,
                                  "state": "3 (ball in the rim)", "link": "talking",
                                  "version": "SlingShot 2.17 build 2020", "bad_lines": 3,
                                  "unknown_lines": 12}}}
    lines = frame(reply, {"now": 99.0, "sensors": {"ball_pocket": {"edges": 150}}})
    assert _wide("\n".join(lines)) == []
    text = " ".join(" ".join(lines).split())
    assert "0.777, 0.777, 0.777, 0.777, 0.777, 0.777 s (running)" in text
    assert "'*X;3;241;32;0;137;0;  ; '  0.4 s ago" in "\n".join(lines)
    assert "unknown lines 12" in text


def _commands() -> list[list[str]]:
    names = ["status", "recall", "verify", "export", "seal-init", "input", "bet",
             "sensors", "calibrate", "config", "analyze", "stats"]
    return [[], *([n] for n in names), ["config", "check"]]


@pytest.mark.parametrize("argv", _commands(), ids=lambda a: " ".join(a) or "tablectl")
def test_tablectl_help_fits_80_columns(argv: list[str],
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", str(COLUMNS))  # argparse fills the terminal's width
    out, _ = _run(tablectl_main, [*argv, "--help"])
    assert out.startswith("usage:") and _wide(out) == []


@pytest.mark.parametrize("argv", [[], ["run"], ["replay"], ["simulate"]],
                         ids=lambda a: " ".join(a) or "table-controller")
def test_table_controller_help_fits_80_columns(argv: list[str],
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", str(COLUMNS))
    out, _ = _run(cli.main, [*argv, "--help"])
    assert out.startswith("usage:") and _wide(out) == []


def test_simulate_and_replay_end_with_one_summary_line_and_an_empty_trace_is_an_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    out, err = _run(cli.main, ["simulate", "--spins", "3", "--seed", "2", "--out", "t.jsonl"])
    assert out == ""
    assert err == ("simulate: 3 spins of a Roulette table (seed 2) written to t.jsonl\n"
                   "simulate: 3 spins expected: 3 valid; no fault injected\n")
    _, err = _run(cli.main, ["replay", "t.jsonl"])
    *_, last = err.splitlines()
    assert re.fullmatch(r"replay: 3 spins concluded \(.*\), \d+ alarms?, \d+ records journaled",
                        last), last
    Path("empty.jsonl").write_text("")
    Path("meta.jsonl").write_text('{"t": 0, "meta": {"table": "roulette"}}\n')
    for empty in ("empty.jsonl", "meta.jsonl"):
        err_out = io.StringIO()
        with redirect_stderr(err_out):
            assert cli.main(["replay", empty]) == 2
        assert err_out.getvalue() == (f"table-controller: {empty}: no event in it: nothing "
                                      "to replay\n")
