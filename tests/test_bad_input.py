"""Unreadable traces and configs (CONTRACT §3): ``replay`` exits 2 with ONE line on stderr
naming the file, the line and the field, and journals nothing; never a traceback, whatever
the value (a 400-digit number, ``{}`` where a name goes, a thousand levels of nesting). A
bet that is well formed as data but not allowed by the layout (Art. 13) is table business,
not bad input: it is refused with an ``alarm`` (code ``bet_refused``) and the replay exits
0. A journal or socket that cannot be made stops ``run`` with one line too.
"""

from __future__ import annotations

import io
import json
import signal
import sqlite3
import threading
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO, run_replay

from controller.cli import main as cli

META = {"t": 0, "meta": {"table": "roulette"}}
OPEN = {"t": 0.1, "input": "open_bets"}


def journaled(db: Path) -> int:
    if not db.exists():
        return 0
    con = sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True)
    try:
        return con.execute("SELECT COUNT(*) FROM records").fetchone()[0]
    except sqlite3.OperationalError:  # no table: nothing was ever written
        return 0
    finally:
        con.close()


def assert_rejected(tmp_path: Path, trace: Path, where: str, line: int, field: str | None,
                    *args: str) -> str:
    """Exit 2, one line on stderr naming ``where:line`` and ``field``, nothing journaled;
    returns the line."""
    db = tmp_path / "journal.sqlite"
    res = run_replay(trace, db, *args)
    assert res.rc == 2
    lines = [x for x in res.stderr.splitlines() if x.strip()]
    assert len(lines) == 1, res.stderr
    assert f"{where}:{line}" in lines[0]
    if field is not None:
        assert field in lines[0]
    assert len(lines[0]) < 400, "one readable line, not the value in full"
    assert res.records == []
    assert journaled(db) == 0
    return lines[0]


def write_lines(path: Path, lines: list[Any]) -> Path:
    path.write_text("".join((x if isinstance(x, str) else json.dumps(x)) + "\n"
                            for x in lines))
    return path


# -- bad traces: (the line at fault, the field it must name) ---------------------------
BAD_LINES: dict[str, tuple[Any, str | None]] = {
    "malformed_json": ('{"t": 1.0, "input": "open_bets"', None),
    "t_missing": ({"input": "open_bets"}, "t"),
    "t_negative": ({"t": -1.0, "input": "open_bets"}, "t"),
    "t_not_a_number": ({"t": "1.0", "input": "open_bets"}, "t"),
    "t_back_in_time": ({"t": 0.05, "input": "open_bets"}, "t"),
    "unknown_gpio_input": ({"t": 1.0, "gpio": "ball_c", "level": 1}, "gpio"),
    "level_2": ({"t": 1.0, "gpio": "ball_a", "level": 2}, "level"),
    "unknown_bet_kind": ({"t": 1.0, "bet": "voisins", "box": 1, "amount": 10}, "bet"),
    "numbers_not_strings": ({"t": 1.0, "bet": "straight", "box": 1, "amount": 10,
                             "numbers": [17]}, "numbers"),
    "unknown_dealer_input": ({"t": 1.0, "input": "spin_faster"}, "input"),
    # Numbers no float or JSON reader holds: the line is refused, never a traceback.
    "t_400_digits": ({"t": 10**400, "input": "open_bets"}, "t"),
    "t_400_digits_on_a_gpio_line": ({"t": 10**400, "gpio": "ball_a", "level": 1}, "t"),
    "t_400_digit_float": ('{"t": 1' + "0" * 400 + '.5, "input": "open_bets"}', None),
    "box_10e400_too_big_to_be_an_integer": ({"t": 1.0, "bet": "red", "box": 10**400,
                                             "amount": 10}, "box"),
    "amount_400_digits": ({"t": 1.0, "bet": "red", "box": 1, "amount": 10**400}, "amount"),
    "which_400_digits": ({"t": 1.0, "bet": "dozen", "box": 1, "amount": 10,
                          "which": 10**400}, "which"),
    # {} or [] where a name goes.
    "gpio_name_object": ({"t": 1.0, "gpio": {}, "level": 1}, "gpio"),
    "gpio_name_list": ({"t": 1.0, "gpio": [], "level": 1}, "gpio"),
    "input_name_object": ({"t": 1.0, "input": {}}, "input"),
    "input_name_list": ({"t": 1.0, "input": []}, "input"),
    "bet_kind_object": ({"t": 1.0, "bet": {}, "box": 1, "amount": 10}, "bet"),
    "bet_kind_list": ({"t": 1.0, "bet": [], "box": 1, "amount": 10}, "bet"),
    "serial_port_object": ({"t": 1.0, "serial": {}, "text": "x"}, "serial"),
    # An input argument nested deep: refused before anything recurses into it.
    "input_argument_nested_1000_deep": (
        '{"t": 1.0, "input": "void", "reason": ' + "[" * 1000 + "]" * 1000 + "}", None),
    "input_argument_nested_500_deep": (
        '{"t": 1.0, "input": "void", "reason": ' + "[" * 500 + "]" * 500 + "}", "reason"),
    "input_argument_nested_17_objects_deep": (
        '{"t": 1.0, "input": "void", "reason": ' + '{"a": ' * 17 + "1" + "}" * 17 + "}",
        "reason"),
}


@pytest.mark.parametrize("case", sorted(BAD_LINES))
def test_bad_trace_line(tmp_path: Path, case: str) -> None:
    bad, field = BAD_LINES[case]
    # The bad line is line 4, after a good table opening and a good bet.
    good_bet = {"t": 0.5, "bet": "red", "box": 1, "amount": 10}
    trace = write_lines(tmp_path / "bad.jsonl", [META, OPEN, good_bet, bad,
                                                 {"t": 2.0, "input": "no_more_bets"}])
    assert_rejected(tmp_path, trace, str(trace), 4, field)


@pytest.mark.parametrize(("table", "port", "reads"), [
    ("mini_baccarat", "wheel", "shoe"), ("blackjack_plus", "wheel", "shoe"),
    ("pot_luck", "wheel", "shoe"), ("draw_poker", "wheel", "shoe"),
    ("roulette", "shoe", "wheel")])
def test_bytes_on_a_port_the_table_does_not_read_are_refused(
        tmp_path: Path, table: str, port: str, reads: str) -> None:
    # The held-out tester's finding 11: a shoe's bytes sent as `wheel` on a card table were
    # journaled, not read, exit 0 (hardware.md §4: a port the table does not read).
    trace = write_lines(tmp_path / "port.jsonl", [{"t": 0, "meta": {"table": table}},
                                                  {"t": 1, "serial": port, "text": "x"}])
    line = assert_rejected(tmp_path, trace, str(trace), 2, "serial")
    assert f"reads no port '{port}' (its ports: {reads})" in line


@pytest.mark.parametrize(("meta", "field"), [
    ({"table": "roulette", "colour": "green"}, "colour"),
    ({"table": "roulette", "wheel": "triple_zero"}, "wheel"),
    ({"table": "roulette", "min_ball_revolutions": 0}, "min_ball_revolutions"),
    ({"table": "craps"}, "table"),
    ({"table": {}}, "table"),
    ({"table": "roulette", "wheel": []}, "wheel"),
    ({"table": "roulette", "launch_timeout_s": 10**400}, "launch_timeout_s"),
    ({"table": "roulette", "min_ball_revolutions": 10**400}, "min_ball_revolutions"),
    ({"table": "roulette", "boxes": 13}, "boxes"),
    ({"table": "roulette", "boxes": 10**400}, "boxes"),
    ({"table": "roulette", "order": [[[[[[[[[[[[[[[[[["0"]]]]]]]]]]]]]]]]]]}, "meta"),
])
def test_bad_meta_override(tmp_path: Path, meta: dict[str, Any], field: str) -> None:
    trace = write_lines(tmp_path / "bad.jsonl", [{"t": 0, "meta": meta}, OPEN])
    assert_rejected(tmp_path, trace, str(trace), 1, field)


@pytest.mark.parametrize("revolutions", [1, 2])
def test_art12a_trace_meta_below_three_revolutions_is_an_error(tmp_path: Path,
                                                               revolutions: int) -> None:
    # Seed 001 Art. 12 (a): "el minimo de vueltas (3)"; never fewer.
    trace = write_lines(tmp_path / "bad.jsonl", [
        {"t": 0, "meta": {"table": "roulette", "min_ball_revolutions": revolutions}}, OPEN])
    line = assert_rejected(tmp_path, trace, str(trace), 1, "min_ball_revolutions")
    assert "seed 001 Art. 12 (a)" in line


def test_art12a_trace_meta_of_four_revolutions_is_allowed(tmp_path: Path) -> None:
    # South Dakota and Indiana require 4: more than the seed's 3 is allowed.
    trace = write_lines(tmp_path / "four.jsonl", [
        {"t": 0, "meta": {"table": "roulette", "min_ball_revolutions": 4}}, OPEN])
    res = run_replay(trace, tmp_path / "journal.sqlite")
    assert res.rc == 0, res.stderr
    assert [r["to"] for r in res.of("state")] == ["bets_open"]


def test_missing_trace_file(tmp_path: Path) -> None:
    db = tmp_path / "journal.sqlite"
    res = run_replay(tmp_path / "nowhere.jsonl", db)
    assert res.rc == 2
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and "nowhere.jsonl" in lines[0]
    assert journaled(db) == 0


# -- bad configs: (the line to change or add, the key it must name) --------------------
DEFAULT = (REPO / "controller/data/default.toml").read_text()


def bad_config(tmp_path: Path, old: str, new: str) -> tuple[Path, int]:
    """The default config with ``old`` replaced by ``new``; the line number of ``new``."""
    assert old in DEFAULT
    text = DEFAULT.replace(old, new, 1)
    path = tmp_path / "table.toml"
    path.write_text(text)
    # The last line of ``new``, where it stands in the file.
    return path, text[:text.index(new)].count("\n") + len(new.splitlines())


BAD_CONFIGS: dict[str, tuple[str, str, str]] = {
    "min_ball_revolutions_0": ("min_ball_revolutions = 3", "min_ball_revolutions = 0",
                               "min_ball_revolutions"),
    "unknown_key": ("max_rotor_period_ratio = 1.5",
                    "max_rotor_period_ratio = 1.5\nrotor_colour = \"red\"", "rotor_colour"),
    "pin_used_twice": ("[gpio.inputs.ball_b]\npin = 27", "[gpio.inputs.ball_b]\npin = 17",
                       "pin"),
    "ball_b_deg_400": ("wheel = \"single_zero\"", "wheel = \"single_zero\"\nball_b_deg = 400",
                       "ball_b_deg"),
    "wrong_type": ("drop_timeout_factor = 2.0", "drop_timeout_factor = \"2.0\"",
                   "drop_timeout_factor"),
    # Seed 001 Art. 12 (a): never below 3.
    "min_ball_revolutions_1": ("min_ball_revolutions = 3", "min_ball_revolutions = 1",
                               "min_ball_revolutions"),
    "min_ball_revolutions_2": ("min_ball_revolutions = 3", "min_ball_revolutions = 2",
                               "min_ball_revolutions"),
    # A 400-digit integer where a float or an integer is expected: no float holds it.
    "launch_timeout_s_400_digits": ("drop_timeout_factor = 2.0",
                                    "drop_timeout_factor = 2.0\nlaunch_timeout_s = 1"
                                    + "0" * 400, "launch_timeout_s"),
    "launch_timeout_s_1e400": ("drop_timeout_factor = 2.0",
                               "drop_timeout_factor = 2.0\nlaunch_timeout_s = 1e400",
                               "launch_timeout_s"),
    "max_bet_400_digits": ("max_bet = 1000", "max_bet = 1" + "0" * 400, "max_bet"),
    "boxes_13": ("boxes = 8", "boxes = 13", "boxes"),
    "boxes_0": ("boxes = 8", "boxes = 0", "boxes"),
    "journal_path_empty": ('path = "var/journal.sqlite"', 'path = ""', "journal.path"),
}


@pytest.mark.parametrize("case", sorted(BAD_CONFIGS))
def test_bad_config(tmp_path: Path, case: str) -> None:
    old, new, key = BAD_CONFIGS[case]
    config, line = bad_config(tmp_path, old, new)
    trace = write_lines(tmp_path / "good.jsonl", [META, OPEN])
    message = assert_rejected(tmp_path, trace, str(config), line, key, "--config", str(config))
    if case.startswith("min_ball_revolutions_"):
        assert "seed 001 Art. 12 (a)" in message


@pytest.mark.parametrize(("socket", "why"), [("", "empty"),
                                             ("var/" + "s" * 104, "at most 107 bytes")])
def test_bad_control_socket_path_in_the_config(tmp_path: Path, socket: str, why: str) -> None:
    # A Unix socket path is at most 107 bytes (sun_path, 108 with its NUL); empty is none.
    config = tmp_path / "table.toml"
    config.write_text(DEFAULT + f'\n[control]\nsocket = "{socket}"\n')
    line = len(DEFAULT.splitlines()) + 3
    trace = write_lines(tmp_path / "good.jsonl", [META, OPEN])
    message = assert_rejected(tmp_path, trace, str(config), line, "control.socket",
                              "--config", str(config))
    assert why in message


# -- the daemon: a journal or socket that cannot be made -------------------------------
def run_daemon(*args: str) -> tuple[int, list[str]]:
    """``table-controller run ARGS`` in this process: exit code, stderr lines that are not
    log lines (the daemon logs to stderr too)."""
    err = io.StringIO()
    handlers = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        with redirect_stdout(io.StringIO()), redirect_stderr(err):
            rc = cli.main(["run", *args])
    finally:
        for sig, handler in handlers.items():  # run installs its own: give pytest's back
            signal.signal(sig, handler)
    text = err.getvalue()
    assert "Traceback" not in text
    return rc, [x for x in text.splitlines() if x.startswith("table-controller:")]


def daemon_config(tmp_path: Path, journal: str, socket: str) -> Path:
    config = tmp_path / "table.toml"
    config.write_text(DEFAULT.replace('path = "var/journal.sqlite"', f'path = "{journal}"')
                      + f'\n[control]\nsocket = "{socket}"\n')
    return config


def test_journal_under_a_file_stops_run_with_one_line(tmp_path: Path) -> None:
    (tmp_path / "afile").write_text("not a folder")
    config = daemon_config(tmp_path, str(tmp_path / "afile" / "journal.sqlite"),
                           str(tmp_path / "c.sock"))
    rc, lines = run_daemon("--config", str(config))
    assert rc == 1
    assert lines == [f"table-controller: {tmp_path / 'afile' / 'journal.sqlite'}: cannot make "
                     f"the journal there: {tmp_path / 'afile'} is a file, not a folder"]


def test_socket_under_a_file_stops_run_with_one_line_and_no_thread_left(
        tmp_path: Path) -> None:
    # The simulated wheel has started when the socket fails: it must stop with the daemon.
    (tmp_path / "afile").write_text("not a folder")
    config = daemon_config(tmp_path, str(tmp_path / "journal.sqlite"),
                           str(tmp_path / "afile" / "c.sock"))
    rc, lines = run_daemon("--config", str(config))
    assert rc == 1
    assert len(lines) == 1 and "is a file, not a folder" in lines[0]
    assert "control socket" in lines[0]
    left = [t.name for t in threading.enumerate() if t.name == "wheel-simulator"]
    assert left == []


class _NoLgpio:
    """gpiozero's ``lgpio`` pin factory entry point on a machine without lgpio."""

    name = "lgpio"

    def load(self) -> Any:
        raise ModuleNotFoundError("No module named 'lgpio'")


def test_pins_that_cannot_open_stop_run_before_any_journal_is_made(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The real table's config off a Pi: one line naming the pin factory, exit 1, and no
    # journal (nor its folder or lock) left behind where the production one goes.
    monkeypatch.setattr("drivers.gpio.entry_points", lambda group: [_NoLgpio()])
    folder = tmp_path / "var-lib"
    config = tmp_path / "table.toml"
    config.write_text((REPO / "config/roulette-table.toml").read_text()
                      .replace("/var/lib/table-controller", str(folder))
                      .replace("/run/table-controller", str(tmp_path)))
    rc, lines = run_daemon("--config", str(config))
    assert rc == 1
    assert lines == ["table-controller: pin factory 'lgpio' cannot start: No module named "
                     "'lgpio' (on a Raspberry Pi install lgpio: sudo apt install "
                     "python3-lgpio; elsewhere run a simulated table's config, or set "
                     "GPIOZERO_PIN_FACTORY=mock)"]
    assert not folder.exists()


def test_empty_journal_option_is_bad_input(tmp_path: Path) -> None:
    config = daemon_config(tmp_path, str(tmp_path / "journal.sqlite"), str(tmp_path / "c.sock"))
    rc, lines = run_daemon("--config", str(config), "--journal", "")
    assert rc == 2
    assert lines == ["table-controller: --journal: empty: give the journal's file"]


def test_replay_journal_under_a_file_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "afile").write_text("not a folder")
    trace = write_lines(tmp_path / "good.jsonl", [META, OPEN])
    res = run_replay(trace, tmp_path / "afile" / "sub" / "journal.sqlite")
    assert res.rc == 1
    assert res.stderr.splitlines() == [
        f"table-controller: {tmp_path / 'afile' / 'sub' / 'journal.sqlite'}: cannot make the "
        f"journal there: {tmp_path / 'afile'} is a file, not a folder"]


def test_replay_journal_under_missing_folders_creates_them(tmp_path: Path) -> None:
    trace = write_lines(tmp_path / "good.jsonl", [META, OPEN])
    db = tmp_path / "new" / "folders" / "journal.sqlite"
    res = run_replay(trace, db)
    assert res.rc == 0, res.stderr
    assert journaled(db) == len(res.records) > 0


# -- well-typed bets the layout refuses: alarms, exit 0 ----------------------------------
REFUSED_BETS: list[dict[str, Any]] = [
    {"bet": "split", "numbers": ["1", "5"]},  # not adjacent on the layout
    {"bet": "split", "numbers": ["17"]},
    {"bet": "straight", "numbers": ["17", "18"]},
    {"bet": "straight", "numbers": ["37"]},
    {"bet": "straight", "numbers": ["00"]},  # no 00 on a single-zero wheel
    {"bet": "street", "numbers": ["1", "2", "4"]},
    {"bet": "corner", "numbers": ["1", "2", "3", "4"]},
    {"bet": "six_line", "numbers": ["1", "2", "3", "7", "8", "9"]},
    {"bet": "five_numbers", "numbers": ["0", "00", "1", "2", "3"]},  # double zero only
    {"bet": "dozen", "which": 4},
    {"bet": "column", "which": 0},
    {"bet": "dozen"},
    {"bet": "red", "numbers": ["1"]},
]


@pytest.mark.parametrize("bet", REFUSED_BETS, ids=lambda b: json.dumps(b, separators=(",", ":")))
def test_bet_against_the_layout_is_an_alarm(tmp_path: Path, bet: dict[str, Any]) -> None:
    trace = write_lines(tmp_path / "t.jsonl", [
        META, OPEN, {"t": 0.5, "box": 1, "amount": 10, **bet},
        {"t": 0.6, "bet": "black", "box": 2, "amount": 10}])
    res = run_replay(trace, tmp_path / "journal.sqlite")
    assert res.rc == 0, res.stderr
    assert [a["code"] for a in res.alarms()] == ["bet_refused"]
    assert [(b["box"], b["kind"]) for b in res.of("bet")] == [(2, "black")]


@pytest.mark.parametrize("where", ["afile/trace.jsonl", "."])
def test_simulate_out_that_cannot_be_written_is_one_line(tmp_path: Path, where: str) -> None:
    (tmp_path / "afile").write_text("not a folder")
    err = io.StringIO()
    with redirect_stdout(io.StringIO()), redirect_stderr(err):
        rc = cli.main(["simulate", "--spins", "1", "--out", str(tmp_path / where)])
    assert rc == 2
    lines = err.getvalue().splitlines()
    assert len(lines) == 1 and lines[0].startswith("table-controller: --out: ")
    assert "is a file, not a folder" in lines[0] or "Is a directory" in lines[0]


# -- options that do not apply: refused, never silently ignored ------------------------
def cli_lines(*argv: str) -> tuple[int, list[str]]:
    """``table-controller ARGV`` in this process: exit code and stderr lines."""
    err = io.StringIO()
    with redirect_stdout(io.StringIO()), redirect_stderr(err):
        rc = cli.main(list(argv))
    assert "Traceback" not in err.getvalue()
    return rc, err.getvalue().splitlines()


@pytest.mark.parametrize(("args", "option", "takes"), [
    (["--table", "mini_baccarat", "--spins", "5"], "--spins", "--coups"),
    (["--table", "mini_baccarat", "--coups", "2", "--scenario", "valid"], "--scenario",
     "--coups"),
    (["--table", "draw_poker", "--coups", "2", "--wheel", "gpio"], "--wheel", "--coups"),
    (["--coups", "3"], "--coups", "--spins, --scenario, --wheel"),
], ids=["spins_at_a_card_table", "scenario_at_a_card_table", "wheel_at_a_card_table",
        "coups_at_roulette"])
def test_simulate_refuses_an_option_its_table_does_not_read(
        tmp_path: Path, args: list[str], option: str, takes: str) -> None:
    out = tmp_path / "trace.jsonl"
    rc, lines = cli_lines("simulate", *args, "--out", str(out))
    assert rc == 2
    assert len(lines) == 1 and lines[0].startswith(f"table-controller: {option}: does not "
                                                   "apply to a ")
    assert lines[0].endswith(f"(its simulator takes {takes})")
    assert not out.exists()


@pytest.mark.parametrize(("table", "option"), [("roulette", "--spins"), ("pot_luck", "--coups"),
                                               ("draw_poker", "--coups")])
def test_simulate_of_no_game_is_one_line(tmp_path: Path, table: str, option: str) -> None:
    out = tmp_path / "trace.jsonl"
    rc, lines = cli_lines("simulate", "--table", table, option, "0", "--out", str(out))
    assert (rc, lines) == (2, [f"table-controller: {option}: must be at least 1, got 0"])
    assert not out.exists()


def test_replay_speed_without_realtime_is_refused(tmp_path: Path) -> None:
    trace = write_lines(tmp_path / "good.jsonl", [META, OPEN])
    res = run_replay(trace, tmp_path / "journal.sqlite", "--speed", "10")
    assert res.rc == 2
    assert res.stderr.splitlines() == ["table-controller: --speed: only with --realtime (a "
                                       "replay without it runs on trace time, as fast as it "
                                       "can)"]
    assert res.records == [] and journaled(tmp_path / "journal.sqlite") == 0
