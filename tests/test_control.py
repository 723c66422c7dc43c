"""The control socket: dealer inputs and bets reach the controller thread as events;
the socket is 0660 (owner and admin group only); bad requests are refused, not posted."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.cli.control import ControlError, ControlServer, request
from controller.cli.tablectl import main as tablectl_main
from controller.core import registry
from controller.core.contract import ACCEPTED, Verdict
from controller.core.events import BetPlaced, DealerInput, Event

GAMES = registry.games()

ROULETTE = registry.spec("roulette")


class Posted(list[Event]):
    """A stand-in for the controller loop: keeps what is posted and answers the verdict a
    table would (a ``void`` with no spin in play is refused)."""

    def __call__(self, event: Event, reply: object = None) -> None:
        self.append(event)
        if callable(reply):
            refused = isinstance(event, DealerInput) and event.action == "void"
            reply(Verdict(False, "input_refused", "void (foreign_object): no spin in play")
                  if refused else ACCEPTED)


def json_nested(levels: int) -> object:
    value: object = "foreign_object"
    for _ in range(levels):
        value = [value]
    return value


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[ControlServer, list[Event]]]:
    posted = Posted()
    srv = ControlServer(str(tmp_path / "control.sock"), None, posted, lambda: 12.5,
                        lambda: {"ball_a": 1, "rotor_a": 0}, ROULETTE, games=GAMES)
    srv.start()
    yield srv, posted
    srv.stop()


def test_socket_is_readable_and_writable_by_owner_and_group_only(
        server: tuple[ControlServer, list[Event]]) -> None:
    mode = stat.S_IMODE(os.stat(server[0].path).st_mode)
    assert mode == 0o660


def test_a_dealer_void_is_posted_stamped_by_the_daemon(
        server: tuple[ControlServer, list[Event]]) -> None:
    srv, posted = server
    reply = request(str(srv.path), {"input": "void", "reason": "foreign_object"})
    assert reply == {"ok": True, "verdict": "refused", "code": "input_refused",
                     "reason": "void (foreign_object): no spin in play"}
    assert posted == [DealerInput(12.5, "void", {"reason": "foreign_object"})]


def test_a_bet_is_posted(server: tuple[ControlServer, list[Event]]) -> None:
    srv, posted = server
    assert request(str(srv.path), {"bet": "split", "box": 1, "amount": 5,
                                   "numbers": ["1", "2"]}) == {"ok": True, "verdict": "accepted"}
    assert posted == [BetPlaced(12.5, "split", 1, 5, {"numbers": ("1", "2")})]


@pytest.mark.parametrize("message, field", [
    ({"input": "nonsense"}, "input"),
    ({"bet": "roulette_royale", "box": 1, "amount": 5}, "bet"),
    ({"bet": "red", "box": 0, "amount": 5}, "box"),
    # Sensor edges and shoe bytes come from the hardware only: nobody can fake a ball pass.
    ({"gpio": "ball_a", "level": 1}, "input"),
    ({"serial": "shoe", "text": "[Game]<Card:9H>\r\n"}, "input"),
    ({"input": "void", "t": 3}, "t"),
    # {} or [] where a name goes: refused with the trace reader's message, no traceback.
    ({"input": {}}, "input"),
    ({"input": []}, "input"),
    ({"bet": {}, "box": 1, "amount": 5}, "bet"),
    ({"bet": [], "box": 1, "amount": 5}, "bet"),
    ({"bet": "red", "box": 10**400, "amount": 5}, "box"),
    ({"input": "void", "reason": json_nested(500)}, "reason"),
])
def test_bad_requests_are_refused_and_nothing_is_posted(
        server: tuple[ControlServer, list[Event]], message: dict[str, object],
        field: str) -> None:
    srv, posted = server
    reply = request(str(srv.path), message)
    assert reply["ok"] is False
    # Named in words (the field, or the unknown name), with no made-up trace line.
    assert field in reply["error"] and "control:" not in reply["error"]
    assert posted == []


def send_raw(path: Path, raw: bytes) -> str:
    import socket

    with socket.socket(socket.AF_UNIX) as sock:
        sock.connect(str(path))
        sock.sendall(raw)
        return sock.makefile().readline()


@pytest.mark.parametrize("levels", [17, 1000, 2000])
def test_a_request_nested_a_thousand_levels_deep_is_one_clear_error(
        server: tuple[ControlServer, list[Event]], levels: int) -> None:
    srv, posted = server
    raw = b'{"input": "void", "reason": ' + b"[" * levels + b"]" * levels + b"}\n"
    reply = json.loads(send_raw(srv.path, raw))
    assert reply["ok"] is False
    assert "nested" in reply["error"] and "deep" in reply["error"]
    assert posted == []
    # The server is still there for the next request.
    assert request(str(srv.path), {"input": "no_more_bets"})["ok"]


def test_a_socket_path_over_the_unix_limit_is_refused(tmp_path: Path) -> None:
    path = tmp_path / ("s" * (108 - len(str(tmp_path))))
    assert len(str(path).encode()) == 109
    srv = ControlServer(str(path), None, lambda e: None, lambda: 0.0, dict, ROULETTE, games=GAMES)
    with pytest.raises(ControlError, match="at most 107 bytes"):
        srv.start()
    assert not path.exists()


def test_an_empty_socket_path_is_refused() -> None:
    srv = ControlServer("", None, lambda e: None, lambda: 0.0, dict, ROULETTE, games=GAMES)
    with pytest.raises(ControlError, match="empty"):
        srv.start()


def test_a_socket_under_a_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "afile").write_text("")
    srv = ControlServer(str(tmp_path / "afile" / "c.sock"), None, lambda e: None, lambda: 0.0,
                        dict, ROULETTE, games=GAMES)
    with pytest.raises(ControlError, match="is a file, not a folder"):
        srv.start()


def test_tablectl_with_a_socket_path_over_the_limit_is_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "table.toml"
    config.write_text(f'[control]\nsocket = "var/{"s" * 200}.sock"\n')
    assert tablectl_main(["--config", str(config), "sensors"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and f"{config}:2" in err[0] and "control.socket" in err[0]


def test_tablectl_input_nested_too_deep_is_refused_before_sending(
        server: tuple[ControlServer, list[Event]], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    srv, posted = server
    config = tmp_path / "table.toml"
    config.write_text(f'[control]\nsocket = "{srv.path}"\n')
    deep = "[" * 900 + "]" * 900
    assert tablectl_main(["--config", str(config), "input", "void", f"reason={deep}"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "nested more than" in err[0] and "reason" in err[0]
    assert posted == []


@pytest.mark.parametrize("argv, key", [(["stand", "box=2", "box=1"], "box"),
                                       (["hit", "box=1", "box=1"], "box"),
                                       (["stand", "input=hit", "box=1"], "input")])
def test_tablectl_input_giving_a_key_twice_is_refused_before_sending(
        server: tuple[ControlServer, list[Event]], tmp_path: Path,
        capsys: pytest.CaptureFixture[str], argv: list[str], key: str) -> None:
    # The held-out tester's finding 9: `stand box=2 box=1` stood box 1. Ambiguous, as the
    # same request straight to the socket is: refused in one line, nothing sent.
    srv, posted = server
    config = tmp_path / "table.toml"
    config.write_text(f'[control]\nsocket = "{srv.path}"\n')
    assert tablectl_main(["--config", str(config), "input", *argv]) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.splitlines()) == 1
    assert err.startswith(f"tablectl: input: field '{key}': ") and "given twice" in err
    assert posted == []


@pytest.mark.parametrize("action", ["{}", "[]"])
def test_tablectl_input_with_an_object_for_the_action_is_refused(
        server: tuple[ControlServer, list[Event]], tmp_path: Path,
        capsys: pytest.CaptureFixture[str], action: str) -> None:
    srv, posted = server
    config = tmp_path / "table.toml"
    config.write_text(f'[control]\nsocket = "{srv.path}"\n')
    assert tablectl_main(["--config", str(config), "input", action]) == 2
    assert "unknown dealer input" in capsys.readouterr().err
    assert posted == []


def test_live_sensor_view(server: tuple[ControlServer, list[Event]]) -> None:
    assert request(str(server[0].path), {"query": "sensors"}) == {
        "ok": True, "now": 12.5, "sensors": {"ball_a": 1, "rotor_a": 0}}


def test_a_second_daemon_cannot_take_the_socket(
        server: tuple[ControlServer, list[Event]]) -> None:
    other = ControlServer(str(server[0].path), None, Posted(), lambda: 0.0, dict,
                          ROULETTE, games=GAMES)
    with pytest.raises(ControlError, match="another controller"):
        other.start()


def test_an_unknown_admin_group_is_an_error(tmp_path: Path) -> None:
    srv = ControlServer(str(tmp_path / "c.sock"), "no-such-group-here", Posted(),
                        lambda: 0.0, dict, ROULETTE, games=GAMES)
    with pytest.raises(ControlError, match="no-such-group-here"):
        srv.start()


def test_tablectl_input_through_the_socket(server: tuple[ControlServer, list[Event]],
                                          tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    srv, posted = server
    config = tmp_path / "table.toml"
    config.write_text(f'[control]\nsocket = "{srv.path}"\n')
    assert tablectl_main(["--config", str(config), "input", "no_more_bets"]) == 0
    assert tablectl_main(["--config", str(config), "input", "five_choice", "box=2",
                          "choice=draw"]) == 0
    assert capsys.readouterr().out == "accepted\naccepted\n"
    assert posted == [DealerInput(12.5, "no_more_bets", {}),
                      DealerInput(12.5, "five_choice", {"box": 2, "choice": "draw"})]
    assert tablectl_main(["--config", str(config), "input", "void",
                          "reason=foreign_object"]) == 1
    assert capsys.readouterr().out == "refused: void (foreign_object): no spin in play\n"
    assert tablectl_main(["--config", str(config), "input", "bogus"]) == 2
    assert "unknown dealer input 'bogus'" in capsys.readouterr().err


def test_tablectl_without_a_daemon_says_so(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "table.toml"
    config.write_text(f'[control]\nsocket = "{tmp_path / "none.sock"}"\n')
    assert tablectl_main(["--config", str(config), "sensors"]) == 3  # no daemon answers
    err = capsys.readouterr().err
    assert err == (f"tablectl: no daemon answers on {tmp_path / 'none.sock'}: no socket there\n"
                   f"  is a daemon running with config {config}? tablectl status says\n")


def test_non_finite_numbers_are_refused_not_posted(
        server: tuple[ControlServer, list[Event]]) -> None:
    import socket

    srv, posted = server
    for raw in (b'{"input": "void", "reason": NaN}\n', b'{"input": "card", "card": 1e400}\n'):
        with socket.socket(socket.AF_UNIX) as sock:
            sock.connect(str(srv.path))
            sock.sendall(raw)
            reply = sock.makefile().readline()
        assert '"ok": false' in reply
    assert posted == []


def test_a_silent_client_does_not_hold_the_daemon(tmp_path: Path) -> None:
    import socket
    import threading

    srv = ControlServer(str(tmp_path / "c.sock"), None, lambda e: None, lambda: 0.0, dict,
                        ROULETTE, games=GAMES)
    srv.start()
    idle = socket.socket(socket.AF_UNIX)
    idle.connect(str(srv.path))
    idle.sendall(b'{"input":')  # and nothing more
    stopper = threading.Thread(target=srv.stop)
    stopper.start()
    stopper.join(timeout=10)
    idle.close()
    assert not stopper.is_alive()
    assert not srv.path.exists()


def test_a_failed_second_server_leaves_the_first_ones_socket(
        server: tuple[ControlServer, list[Event]]) -> None:
    other = ControlServer(str(server[0].path), None, Posted(), lambda: 0.0, dict,
                          ROULETTE, games=GAMES)
    with pytest.raises(ControlError):
        other.start()
    other.stop()
    assert server[0].path.exists()
    assert request(str(server[0].path), {"query": "sensors"})["ok"]


def test_a_second_daemon_on_one_journal_stops_before_writing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from controller.cli.daemon.lock import lock_journal as _lock_journal
    from controller.cli.main import main as controller_main
    from controller.store.journal import Journal

    journal = tmp_path / "journal.sqlite"
    config = tmp_path / "table.toml"
    default = (Path(__file__).resolve().parents[1] / "controller" / "data" / "default.toml")
    config.write_text(default.read_text().replace('path = "var/journal.sqlite"',
                                                  f'path = "{journal}"'))
    held = _lock_journal(str(journal))
    try:
        assert controller_main(["run", "--config", str(config)]) == 1
    finally:
        held.close()
    assert "another controller is running on this journal" in capsys.readouterr().err
    assert not journal.exists() or Journal(journal, readonly=True).last_seq == 0


@pytest.mark.parametrize("game, accepted, refused", [
    ("roulette",
     [["input", "open_bets"], ["bet", "red", "--box", "1", "--amount", "5"]],
     [(["input", "open_bets"], "open_bets: not allowed while bets_open"),
      (["bet", "red", "--box", "99", "--amount", "5"], "this table seats 8"),
      (["input", "five_choice", "box=1", "choice=draw"], "not an input of a roulette table")]),
    ("mini_baccarat",
     [["input", "procedure_step", "step=show"]],
     [(["input", "open_bets"], "procedure"),
      (["bet", "punto", "--box", "1", "--amount", "5"], "bets are made before the first card"),
      (["input", "void", "reason=foreign_object", "by=inspector"],
       "no game is under way to void")]),
])
def test_tablectl_prints_the_verdict_of_a_real_table(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], game: str,
        accepted: list[list[str]], refused: list[tuple[list[str], str]]) -> None:
    # Issue 7: the table answers every control-socket request with its game's verdict;
    # `tablectl input` and `tablectl bet` print it and exit 0 (accepted) or 1 (refused).
    from controller.cli.compose import compose, load_config
    from controller.core.clock import SystemClock
    from controller.core.logs import configure
    from controller.core.loop import start_thread
    from controller.store.journal import Journal

    configure("error")  # the alarms are the journal's; the log would go to pytest's stream
    path = tmp_path / "table.toml"
    path.write_text(f'[table]\ngame = "{game}"\n[control]\nsocket = "{tmp_path / "c.sock"}"\n'
                    '[simulator]\nenabled = true\n')
    config = load_config(str(path))
    clock = SystemClock()
    with Journal(tmp_path / "journal.sqlite", durable=False) as journal:
        loop, _ = compose(config, journal, clock)
        srv = ControlServer(config.control_socket, None, loop.post, clock.now, dict,
                            registry.spec(game), games=GAMES)
        srv.start()
        thread = start_thread(loop.run_forever, "loop")
        try:
            for args in accepted:
                assert tablectl_main(["--config", str(path), *args]) == 0
                assert capsys.readouterr().out == "accepted\n"
            for args, why in refused:
                assert tablectl_main(["--config", str(path), *args]) == 1
                out = capsys.readouterr().out
                assert out.startswith("refused: ") and why in out, out
        finally:
            loop.stop()
            thread.join()
            srv.stop()
        alarms = [r for r in journal.records(types=("alarm",))]
    assert len(alarms) == len(refused)  # each refusal journaled once, with its reason
