"""What a newcomer reads from ``tablectl`` and ``table-controller`` (issue 13's review): the
shared code builds a table's bet options from its game's spec and branches on no game's
name; human output says what a source measured, in words, never a Python repr; refusals
name the missing argument and list choices in words; the control socket's errors name no
made-up trace line; every ``--help`` is plain text that exits 0; messages say a thing once.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from controller.cli.control import ControlServer
from controller.cli.main import main as controller_main
from controller.cli.tablectl import main as tablectl_main
from controller.cli.tablectl import recall
from controller.cli.tablectl.sensors import frame
from controller.core import registry
from controller.core.contract import ACCEPTED
from controller.core.events import BetPlaced, DealerInput, Event, PortStatus, SerialData
from controller.core.logs import ConsoleLines
from controller.store.records import Record, unpack

GAMES = registry.games()


def line(rec: dict[str, Any]) -> str:
    """A roulette journal's record as recall prints it."""
    return recall.line(rec, recall.summaries_of(GAMES, GAMES.spec("roulette")))

REPO = Path(__file__).resolve().parents[1]
CONFIGS = sorted((REPO / "config").glob("*.toml"))


def config_file(tmp_path: Path, game: str, **sections: str) -> Path:
    path = tmp_path / f"{game}.toml"
    text = (f'[table]\ngame = "{game}"\n[journal]\npath = "{tmp_path / "journal.sqlite"}"\n'
            f'[control]\nsocket = "{tmp_path / "c.sock"}"\n[simulator]\nenabled = true\n')
    path.write_text(text + "".join(f"[{k}]\n{v}\n" for k, v in sections.items()))
    return path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """``tablectl ARGV``: its exit code, stdout and stderr (argparse's exits too)."""
    try:
        rc = tablectl_main(list(argv))
    except SystemExit as exc:
        rc = int(exc.code or 0)
    out = capsys.readouterr()
    return rc, out.out, out.err


class Posted(list[Event]):
    """The daemon's loop as the socket sees it: keeps each event, accepts it."""

    def __call__(self, event: Event, reply: Any = None) -> None:
        self.append(event)
        reply(ACCEPTED)


@contextmanager
def socket_of(tmp_path: Path, game: str) -> Iterator[Posted]:
    posted = Posted()
    server = ControlServer(str(tmp_path / "c.sock"), None, posted, lambda: 7.0, dict,
                            registry.spec(game), games=GAMES)
    server.start()
    try:
        yield posted
    finally:
        server.stop()


@contextmanager
def live_table(tmp_path: Path, game: str) -> Iterator[Path]:
    """A real table of ``game`` behind its control socket, on the system clock; yields its
    config file."""
    from controller.cli.compose import compose, load_config
    from controller.core.clock import SystemClock
    from controller.core.logs import configure
    from controller.core.loop import start_thread
    from controller.store.journal import Journal

    configure("error")
    path = config_file(tmp_path, game)
    config = load_config(str(path))
    clock = SystemClock()
    with Journal(tmp_path / "journal.sqlite", durable=False) as journal:
        loop, _ = compose(config, journal, clock)
        server = ControlServer(config.control_socket, None, loop.post, clock.now, dict,
                            registry.spec(game), games=GAMES)
        server.start()
        thread = start_thread(loop.run_forever, "loop")
        try:
            yield path
        finally:
            loop.stop()
            thread.join()
            server.stop()


# -- 1. the shared code reads the game's spec ------------------------------------------
def test_tablectl_bet_offers_the_fields_of_the_configured_games_bets(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    roulette = config_file(tmp_path, "roulette")
    baccarat = config_file(tmp_path, "mini_baccarat")
    rc, out, _ = run(capsys, "--config", str(roulette), "bet", "--help")
    assert rc == 0 and "--numbers NUMBERS [NUMBERS ...]" in out and "--which WHICH" in out
    assert "  split --numbers NUMBERS ..." in out and "  dozen --which WHICH" in out
    rc, out, _ = run(capsys, "--config", str(baccarat), "bet", "--help")
    assert rc == 0 and "--numbers" not in out and "--which" not in out
    assert "bets of this Mini-Bacará table:\n  punto " in out
    rc, _, err = run(capsys, "--config", str(baccarat), "bet", "punto", "--box", "1",
                     "--amount", "5", "--numbers", "17")
    assert rc == 2 and "unrecognized arguments: --numbers 17" in err
    with socket_of(tmp_path, "roulette") as posted:
        assert run(capsys, "--config", str(roulette), "bet", "split", "--box", "2",
                   "--amount", "5", "--numbers", "17", "00")[0] == 0
        assert run(capsys, "--config", str(roulette), "bet", "dozen", "--box", "2",
                   "--amount", "5", "--which", "3")[0] == 0
    with socket_of(tmp_path, "mini_baccarat") as more:
        assert run(capsys, "--config", str(baccarat), "bet", "punto", "--box", "1",
                   "--amount", "10") == (0, "accepted\n", "")
    assert posted == [BetPlaced(7.0, "split", 2, 5, {"numbers": ("17", "00")}),
                      BetPlaced(7.0, "dozen", 2, 5, {"which": 3})]
    assert more == [BetPlaced(7.0, "punto", 1, 10)]


def string_constants(path: Path) -> Iterator[tuple[int, str]]:
    """The string constants of a module's code (docstrings left out)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef
                                | ast.AsyncFunctionDef)
                  and node.body and isinstance(node.body[0], ast.Expr)
                  and isinstance(node.body[0].value, ast.Constant)}
    for node in ast.walk(tree):
        if (isinstance(node, ast.Constant) and isinstance(node.value, str)
                and id(node) not in docstrings):
            yield node.lineno, node.value


SHARED_DIRS = ("controller/cli", "controller/core", "controller/store", "controller/cards",
               "controller/protocols", "drivers", "sim")
SHARED = sorted([*(p for where in SHARED_DIRS for p in (REPO / where).rglob("*.py")),
                 REPO / "controller" / "trace.py"])


@pytest.mark.parametrize("path", SHARED, ids=lambda p: str(p.relative_to(REPO)))
def test_shared_code_branches_on_no_games_name(path: Path) -> None:
    names = {spec.name for spec in registry.games()}
    found = [f"line {n}: {text!r}" for n, text in string_constants(path) if text in names]
    assert not found, f"{path.name} names a game in its code: {found}"


def game_record_types() -> set[str]:
    """The record types only a game declares: not a shared one nor the card core's, and
    not a word every trace has (roulette's accepted bet is a ``bet`` record, as a trace's
    bet line is a ``bet``)."""
    from controller.cards.records import CARD_RECORDS
    from controller.store.records import RecordSpec
    from controller.store.shared import RECORDS
    from controller.trace import _EVENT_KEYS

    def names(classes: Iterable[type]) -> set[str]:
        return {cls.SPEC.name for cls in classes if isinstance(cls.SPEC, RecordSpec)}

    games = {name for spec in registry.games() for name in names(spec.records)}
    return games - names((*RECORDS, *CARD_RECORDS)) - set(_EVENT_KEYS)


@pytest.mark.parametrize("path", SHARED, ids=lambda p: str(p.relative_to(REPO)))
def test_shared_code_names_no_record_type_a_game_declares(path: Path) -> None:
    """A game's records are said, recalled and shown by the game (issue 22 item 2): a
    shared module that names one is a module a new game would have to change."""
    types = game_record_types()
    assert {"spin_result", "coup_result", "hand_result"} <= types  # the test reads them
    found = [f"line {n}: {text!r}" for n, text in string_constants(path) if text in types]
    assert not found, f"{path.name} names a game's record type in its code: {found}"


def test_simulate_help_and_its_wheel_refusal_come_from_the_games_specs(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        controller_main(["simulate", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "how many spins (tables: roulette; default 10)" in text
    assert ("how many coups or hands (tables: mini_baccarat, blackjack_plus, pot_luck, "
            "draw_poker; default 10)") in text
    assert "(card tables)" not in text and "[roulette]" not in text
    assert controller_main(["simulate", "--table", "pot_luck", "--wheel", "serial", "--out",
                            str(tmp_path / "t.jsonl")]) == 2
    assert capsys.readouterr().err == ("table-controller: --wheel: does not apply to a "
                                       "pot_luck table (its simulator takes --coups)\n")


# -- 2. human output in words ----------------------------------------------------------
SERIAL_SPIN = {
    "type": "spin_result", "seq": 900, "t": 120.5, "spin": 20, "number": "32",
    "pocket_index": 1, "ball_revolutions": None, "ball_direction": None,
    "rotor_direction": "cw", "rotor_rpm": 12.5, "launch_t": 100.0, "no_more_bets_t": 108.0,
    "wheel_source": "serial", "wheel_game": 84, "wheel_flags": [], "wheel_flags_before_launch":
    [], "rotor_rpm_min": 11.9, "status_lines": 14, "bare_numbers": ["32"],
    "concluded_by": "'*X;5;084;32;0;125;0' at 120.500 s", "details": {}}


def test_a_serial_spin_reads_without_none_and_with_its_own_evidence() -> None:
    assert line(SERIAL_SPIN) == (
        "seq     900  t 120.500 s  spin_result  spin 20: 32 (rotor cw at 12.5 rpm); wheel "
        "game 084; warning flags none; slowest rotor 11.9 rpm; 14 status lines in play; bare "
        "number lines 32; concluded by '*X;5;084;32;0;125;0' at 120.500 s")
    flagged = {**SERIAL_SPIN, "type": "spin_held", "reason": "wheel_flag", "candidate": "32",
               "details": {"wheel_flag": "flag 8 during play"}, "wheel_flags": [8]}
    shown = line(flagged)
    assert "warning flags 8 (void game or failed launch)" in shown
    assert "None" not in shown and "laps" not in shown and "pocket readings" not in shown


def test_a_gpio_spin_says_each_reading_and_reason_in_words() -> None:
    invalid = {"type": "spin_invalid", "seq": 5, "t": 9.0, "spin": 3, "reason": "interrupted",
               "reasons": ["interrupted"], "lap_times": [], "rotor_periods": [5.3],
               "pocket_readings": [{"t": 8.0, "index": None, "number": None, "orphan": True}],
               "details": {"interrupted": "the controller stopped with the spin in play"}}
    assert line(invalid) == (
        "seq       5  t 9.000 s  spin_invalid  spin 3: INVALID, interrupted; laps none; rotor "
        "periods 5.300 s; pocket readings 1 with no pocket read; interrupted: the controller "
        "stopped with the spin in play")


def test_the_log_line_of_a_serial_spin_says_what_was_measured_only() -> None:
    shown = ConsoleLines(words=registry.spec("roulette").log_words)(
        None, "info", {"event": "spin_result", **SERIAL_SPIN, "level": "info",
                       "timestamp": 0.0})
    shown = re.sub(r"\n +", " ", shown)  # its lines cut at 80 columns, joined
    assert "#900 spin 20: 32, rotor cw at 12.5 rpm " in shown
    assert "None" not in shown and "null" not in shown


def test_a_record_of_raw_shoe_bytes_stays_on_one_line() -> None:
    shown = line({"type": "serial", "seq": 7, "t": 3.0, "port": "shoe",
                  "text": "Game]<Card:TH>\r\n"})
    assert shown == r"seq       7  t 3.000 s  serial  port shoe; text Game]<Card:TH>\r\n"


# -- 3. refusals in words --------------------------------------------------------------
def test_refusals_name_the_missing_argument_and_the_choices_in_words(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with live_table(tmp_path, "roulette") as config:
        def said(*argv: str) -> tuple[int, str]:
            rc, out, _ = run(capsys, "--config", str(config), "input", *argv)
            return rc, out

        assert said("void") == (1, "refused: void needs reason= (ball_out_of_wheel, "
                                   "foreign_object,\n  wheel_malfunction or wheel_stopped)\n")
        assert said("set_limits", "min_bet=abc") == (
            1, "refused: set_limits needs max_bet= (whole chips)\n")
        assert said("set_limits", "min_bet=abc", "max_bet=10") == (
            1, "refused: set_limits: min_bet 'abc' is not a whole number of chips; the limits\n"
               "  stay 1-1000\n")
        assert said("confirm_result") == (1, "refused: confirm_result needs number= (a pocket "
                                             "of the wheel, e.g. 17 or \"00\")\n")


def test_a_card_tables_refusals_show_no_python_values(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with live_table(tmp_path, "mini_baccarat") as config:
        rc, out, _ = run(capsys, "--config", str(config), "input", "five_choice", "box=[1]",
                         "choice=draw")
        assert (rc, out) == (1, "refused: five_choice needs a box number and draw or stand: "
                                "box [1], choice\n  'draw'\n")
        rc, out, _ = run(capsys, "--config", str(config), "input", "five_choice")
        assert (rc, out) == (1, "refused: five_choice needs box= and choice= (box: box "
                                "number; choice: draw or\n  stand)\n")


def test_a_black_jack_decision_with_a_bad_box_shows_no_python_values(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The held-out tester's finding 9: "refused: hit needs the box: {'box': 'x'}".
    with live_table(tmp_path, "blackjack_plus") as config:
        rc, out, _ = run(capsys, "--config", str(config), "input", "hit", "box=x")
        assert (rc, out) == (1, "refused: hit needs a box number: box 'x'\n")
        rc, out, _ = run(capsys, "--config", str(config), "input", "stand", 'box=["3"]')
        assert (rc, out) == (1, 'refused: stand needs a box number: box ["3"]\n')


# What Python prints of a list, a dict or a tuple holding text, never JSON or words.
PYTHON_TEXT = re.compile(r"""[\[{(]'|'[\]})]|', '|': """)
ODD_VALUES = (["3"], {"box": "x"}, ["a", "b"], "x")


@pytest.mark.parametrize("game", sorted(registry.names()))
def test_no_refusal_of_a_value_of_the_wrong_kind_shows_python_values(
        tmp_path: Path, game: str) -> None:
    # Issue 22: no Python list or dict text in any message. Every input of every table,
    # each argument given a list, an object or a word, one at a time and all at once.
    from controller.cli.compose import load_config
    from controller.core.clock import VirtualClock
    from controller.core.loop import EventLoop
    from controller.core.table import Table
    from controller.store.journal import Journal

    config = load_config("embedded:default.toml", {"table": game})
    with Journal(tmp_path / "journal.sqlite", durable=False) as journal:
        clock = VirtualClock()
        table = Table(config, journal, EventLoop(clock, lambda e: None).call_at, clock.now)
        for inp in config.spec.all_inputs:
            for value in ODD_VALUES:
                names = [a.name for a in inp.args] or ["box"]
                for args in ({n: value for n in names}, *({n: value} for n in names)):
                    verdict = table.handle(DealerInput(1.0, inp.action, args))
                    assert not PYTHON_TEXT.search(verdict.reason or ""), (inp.action, args,
                                                                         verdict.reason)


def test_config_and_simulate_errors_spell_values_as_written(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('[table]\ngame = "roulette"\n[roulette]\nboxes = true\n')
    rc, out, _ = run(capsys, "config", "check", str(bad))
    assert rc == 2
    assert out.splitlines()[0] == (f"{bad}:4: field 'roulette.boxes': expected an integer, "
                                   "got true")
    assert controller_main(["simulate", "--scenario", "bogus", "--out",
                            str(tmp_path / "t.jsonl")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("table-controller: --scenario: unknown scenario 'bogus'; the "
                          "scenarios: valid, rotor_reversed, ")
    assert "(" not in err and "[" not in err


# -- 4. the control socket's errors ----------------------------------------------------
def test_an_unknown_input_names_the_tables_inputs_and_no_trace_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = config_file(tmp_path, "roulette")
    with socket_of(tmp_path, "roulette") as posted:
        rc, out, err = run(capsys, "--config", str(config), "input", "frobnicate")
        assert (rc, out) == (2, "")
        assert err == ("tablectl: refused by the daemon: unknown dealer input 'frobnicate'; a "
                       "Roulette\n  table takes open_table, open_bets, close_table, "
                       "no_more_bets, void,\n  confirm_result, set_limits, dealer, "
                       "player_late\n")  # 80 columns at most
        rc, _, err = run(capsys, "--config", str(config), "bet", "red", "--box", "0",
                         "--amount", "5")
        assert rc == 2 and " ".join(err.split()) == (
            "tablectl: refused by the daemon: field 'box': must be a whole number, at least 1, "
            "got 0")
    assert posted == []


# -- 5 and 6. every --help -------------------------------------------------------------
COMMANDS = (["--help"], ["status", "--help"], ["recall", "--help"], ["verify", "--help"],
            ["export", "--help"], ["seal-init", "--help"], ["input", "--help"],
            ["bet", "--help"], ["sensors", "--help"], ["calibrate", "--help"],
            ["config", "--help"], ["config", "check", "--help"], ["analyze", "--help"],
            *(["analyze", name, "--help"] for name in ("mini_baccarat", "blackjack",
                                                       "draw_poker")))


@pytest.mark.parametrize("config", CONFIGS, ids=lambda p: p.name)
def test_every_tablectl_help_is_plain_text_and_exits_0(
        config: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "100")
    for argv in COMMANDS:
        rc, out, err = run(capsys, "--config", str(config), *argv)
        assert (rc, err) == (0, ""), (argv, err)
        assert out.startswith("usage: tablectl"), argv
        assert "``" not in out and ":func:" not in out, argv
        assert max(map(len, out.splitlines())) < 100, argv


def test_every_table_controller_help_is_plain_text(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "100")
    for argv in (["--help"], ["run", "--help"], ["replay", "--help"], ["simulate", "--help"]):
        with pytest.raises(SystemExit) as done:
            controller_main(argv)
        out = capsys.readouterr().out
        assert done.value.code == 0 and "``" not in out, argv
        assert "roulette wheel)" not in out


def test_usage_errors_name_only_what_is_required(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = config_file(tmp_path, "roulette")
    rc, _, err = run(capsys, "--config", str(config), "input")
    assert rc == 2 and err.endswith("error: the following arguments are required: action\n")
    rc, _, err = run(capsys, "analyze")
    assert rc == 2 and err == ("tablectl: analyze: name the game: one of mini_baccarat, "
                               "blackjack_plus, blackjack, pot_luck, draw_poker (tablectl "
                               "analyze GAME --help)\n")


# -- 6. tablectl sensors on a card table -----------------------------------------------
def test_sensors_of_a_card_table_say_what_its_shoe_port_last_said(tmp_path: Path) -> None:
    from controller.cli.compose import load_config
    from controller.core.contract import GameContext

    config = load_config(str(config_file(tmp_path, "mini_baccarat")))
    records: list[dict[str, Any]] = []

    def emit(record: Record, /, *, t: float | None = None) -> dict[str, Any]:
        type_, fields = unpack(record, t)
        records.append({"type": type_, **fields})
        return records[-1]

    table: Any = registry.spec("mini_baccarat").make(
        GameContext(config, emit, lambda t, cb: None, lambda: 0.0))
    reply = {"now": 10.0, "sensors": {}, "serial": table.sensors(10.0)}
    assert frame(reply, None) == ["serial port    last line",
                                  "-------------- ------------------------",
                                  "shoe           no line since the daemon started"]
    table.dealer_input(DealerInput(1.0, "procedure_step", {"step": "show"}))
    table.serial(SerialData(8.0, "shoe", b"[Game]<Card:QS>\r\n<W0x01>\r\n"))
    table.port_status(PortStatus(9.0, "shoe", False, "USB unplugged"))
    reply = {"now": 10.5, "sensors": {}, "serial": table.sensors(10.5)}
    assert frame(reply, None)[2:] == [
        "shoe           reader warning 0x01  2.5 s ago, link DOWN (USB unplugged),",
        "               lines 2"]  # 80 columns at most
    table.serial(SerialData(11.0, "shoe", b"[Game]<Card:7H>\r\n"))
    shown = frame({"now": 11.5, "sensors": {}, "serial": table.sensors(11.5)}, None)[-1]
    assert shown.startswith("shoe           a card  0.5 s ago") and "7H" not in shown


# -- 7. said once ----------------------------------------------------------------------
def test_an_alarm_that_gives_its_time_is_not_given_it_again() -> None:
    shown = ConsoleLines(width=200)(None, "warning", {
        "event": "alarm", "code": "sensor_fault", "level": "warning", "timestamp": 0.0,
        "message": "ball_a rose again at 195.603 s: merged", "game": 4, "seq": 9,
        "t": 195.603})
    assert shown.endswith("#9 sensor_fault: ball_a rose again at 195.603 s: merged (game 4)")


def test_a_bad_wheel_line_names_no_field_fields() -> None:
    from controller.games.roulette.config import RouletteConfig
    from controller.games.roulette.serial_wheel import SerialWheelTracker

    alarms: list[str] = []

    class Listener:
        def alarm(self, code: str, message: str) -> None:
            alarms.append(message)

    tracker = SerialWheelTracker(RouletteConfig(wheel_source="serial"), ("0",),
                                 lambda t, cb: None, Listener())  # type: ignore[arg-type]
    tracker.serial(SerialData(1.0, "wheel", b"*X;4;0*X;4;086;32;0;100;1;11;0\r"))
    assert alarms == ["bad status line #1 from the wheel at 1.000 s, "
                      "'*X;4;0*X;4;086;32;0;100;1;11;0': 10 fields after *X, expected 6 "
                      "(S;GGG;NN;W;SSS;D) or 8 (extended: ;RR;B); not used"]


def test_verify_says_the_broken_record_once(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from controller.store.journal import Journal

    path = tmp_path / "journal.sqlite"
    with Journal(path, durable=False) as journal:
        for n in range(3):
            journal.append("alarm", float(n), {"code": "x", "message": f"m{n}"})
        journal.db.execute("UPDATE records SET hash = ? WHERE seq = 2", ("0" * 64,))
        journal.db.commit()
    rc, out, _ = run(capsys, "--journal", str(path), "verify")
    assert (rc, out) == (1, f"BROKEN: record 2: hash does not chain ({path})\n")


def test_a_daemon_that_cannot_start_journals_nothing_and_says_why_in_words(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from controller.store.journal import Journal

    config = config_file(tmp_path, "mini_baccarat")
    with socket_of(tmp_path, "mini_baccarat"):  # another daemon holds the socket
        assert controller_main(["run", "--config", str(config)]) == 1
    err = capsys.readouterr().err
    assert err.splitlines()[-1] == (f"table-controller: {tmp_path / 'c.sock'}: another "
                                    "controller is listening there")
    assert "ControlError" not in err
    # Everything that can fail is checked before anything is journaled (issue 16 item 15).
    with Journal(tmp_path / "journal.sqlite", readonly=True) as journal:
        assert list(journal.records()) == []


@pytest.mark.parametrize("fmt", ["console", "json"])
def test_a_daemon_that_cannot_start_logs_it_as_an_error(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], fmt: str) -> None:
    config = config_file(tmp_path, "mini_baccarat", log=f'format = "{fmt}"')
    with socket_of(tmp_path, "mini_baccarat"):  # another daemon holds the socket
        assert controller_main(["run", "--config", str(config)]) == 1
    err = capsys.readouterr().err
    lines = [x for x in err.splitlines() if "start failed" in x]
    assert len(lines) == 1
    if fmt == "json":  # journald's priority comes from the level: journalctl -p err
        logged = json.loads(lines[0])
        assert (logged["event"], logged["level"]) == ("start failed", "error")
        assert logged["reason"].endswith("another controller is listening there")
    else:
        assert " ERROR start failed" in lines[0]
        after = re.sub(r"\n +", " ", err[err.index(lines[0]):])  # its fields, under it
        assert "the control socket could not start:" in after.split("table-controller:")[0]
