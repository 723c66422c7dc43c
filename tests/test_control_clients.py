"""The control socket under slow, silent and too many clients, and its permissions for
people outside and inside the admin group (issue 11: eight slow clients locked everyone
out)."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.cli import control
from controller.cli.control import ControlServer, request
from controller.core import registry
from controller.core.contract import ACCEPTED
from controller.core.events import DealerInput, Event

GAMES = registry.games()

ROULETTE = registry.spec("roulette")

SLOW_DEADLINE_S = 0.5  # the request deadline in these tests (2 s in the daemon)


@pytest.fixture
def served(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
           ) -> Iterator[tuple[ControlServer, list[Event]]]:
    monkeypatch.setattr(control, "REQUEST_DEADLINE_S", SLOW_DEADLINE_S)
    posted: list[Event] = []

    def post(event: Event, reply: object = None) -> None:
        posted.append(event)
        if callable(reply):
            reply(ACCEPTED)

    srv = ControlServer(str(tmp_path / "c.sock"), None, post, lambda: 1.0, dict, ROULETTE,
                        games=GAMES)
    srv.start()
    yield srv, posted
    srv.stop()


def connect(path: Path, first: bytes = b"") -> socket.socket:
    sock = socket.socket(socket.AF_UNIX)
    sock.settimeout(10)
    sock.connect(str(path))
    if first:
        sock.sendall(first)
    return sock


def reply_of(sock: socket.socket) -> str:
    data = b""
    while chunk := sock.recv(4096):
        data += chunk
    return data.decode()


def test_twenty_slow_clients_and_a_normal_one_still_gets_its_answer(
        served: tuple[ControlServer, list[Event]]) -> None:
    srv, posted = served
    slow = [connect(srv.path, b'{"inp') for _ in range(20)]  # more than the 8 workers
    try:
        assert request(str(srv.path), {"input": "no_more_bets"}) == {"ok": True,
                                                                     "verdict": "accepted"}
        assert posted == [DealerInput(1.0, "no_more_bets", {})]
    finally:
        for sock in slow:
            sock.close()


def test_a_client_trickling_its_request_is_cut_at_the_deadline(
        served: tuple[ControlServer, list[Event]]) -> None:
    srv, posted = served
    sock = connect(srv.path)
    stop = threading.Event()

    def trickle() -> None:  # a byte every 50 ms: each read is prompt, the whole is not
        for byte in b'{"input": "no_more_bets", "reason": "' + b"x" * 1000:
            if stop.wait(0.05):
                return
            try:
                sock.send(bytes([byte]))
            except OSError:
                return

    thread = threading.Thread(target=trickle)
    thread.start()
    try:
        answer = json.loads(reply_of(sock))
    finally:
        stop.set()
        thread.join()
        sock.close()
    assert answer == {"ok": False, "error": f"request not complete within "
                      f"{SLOW_DEADLINE_S:g} s: a request is one JSON line"}
    assert posted == []


BUSY = {"ok": False, "error": "busy: too many control clients"}


def test_beyond_the_connections_allowed_the_oldest_silent_client_is_told_busy(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(control, "MAX_CONNECTIONS", 4)
    srv = ControlServer(str(tmp_path / "c.sock"), None, lambda e, r=None: None, lambda: 0.0,
                        dict, ROULETTE, games=GAMES)
    srv.start()
    idle = [connect(srv.path) for _ in range(4)]
    try:
        extra = connect(srv.path, b'{"query": "sensors"}\n')
        assert json.loads(reply_of(extra)) == {"ok": True, "now": 0.0, "sensors": {}}
        extra.close()
        assert json.loads(reply_of(idle[0])) == BUSY  # the oldest that said nothing
        idle[1].settimeout(0.2)
        with pytest.raises(TimeoutError):  # the others are still waited for
            idle[1].recv(1)
    finally:
        for sock in idle:
            sock.close()
        srv.stop()


def test_clients_that_reconnect_as_fast_as_they_can_never_hold_the_socket(
        served: tuple[ControlServer, list[Event]]) -> None:
    """Twice the connections allowed, each connecting, saying nothing and reconnecting as
    soon as it is dropped: every request of a normal client is still answered."""
    srv, posted = served
    stop = threading.Event()

    def hold() -> None:
        while not stop.is_set():
            try:
                sock = connect(srv.path)
                sock.recv(100)  # until the server drops it (busy, or its deadline)
                sock.close()
            except OSError:
                pass

    holders = [threading.Thread(target=hold) for _ in range(2 * control.MAX_CONNECTIONS)]
    for thread in holders:
        thread.start()
    try:
        answers = [request(str(srv.path), {"input": "no_more_bets"}) for _ in range(20)]
    finally:
        stop.set()
        for thread in holders:
            thread.join()
    assert answers == [{"ok": True, "verdict": "accepted"}] * 20
    assert posted == [DealerInput(1.0, "no_more_bets", {})] * 20


def test_a_request_with_no_newline_before_the_client_closes_is_answered(
        served: tuple[ControlServer, list[Event]]) -> None:
    srv, _ = served
    sock = connect(srv.path, b'{"query": "sensors"}')
    sock.shutdown(socket.SHUT_WR)
    assert json.loads(reply_of(sock)) == {"ok": True, "now": 1.0, "sensors": {}}
    sock.close()


def test_an_oversized_request_is_refused_and_the_server_goes_on(
        served: tuple[ControlServer, list[Event]]) -> None:
    srv, posted = served
    sock = connect(srv.path, b'{"input": "void", "reason": "' + b"x" * 10_000 + b'"}\n')
    answer = json.loads(reply_of(sock))
    sock.close()
    assert answer == {"ok": False, "error": "request too long (over 4096 bytes)"}
    assert posted == []
    assert request(str(srv.path), {"query": "sensors"})["ok"]


# -- who may use the socket ----------------------------------------------------------
ADMIN_GID = 4243
NOBODY = 65534


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to act as another user")
@pytest.mark.parametrize("groups, allowed", [([NOBODY], False), ([ADMIN_GID], True)])
def test_only_the_admin_group_can_use_the_socket(groups: list[int], allowed: bool) -> None:
    folder = Path(tempfile.mkdtemp(prefix="control-"))
    os.chmod(folder, 0o755)
    path = folder / "c.sock"
    posted: list[Event] = []
    srv = ControlServer(str(path), None, lambda e, r=None: (posted.append(e),
                                                            callable(r) and r(ACCEPTED)),
                        lambda: 0.0, dict, ROULETTE, games=GAMES)
    srv.start()
    try:
        os.chown(path, 0, ADMIN_GID)  # as control.group does for table-admin
        config = folder / "table.toml"
        config.write_text(f'[control]\nsocket = "{path}"\n')
        os.chmod(config, 0o644)
        code = ("import os, sys\n"
                "from controller.cli.tablectl import main\n"
                "from controller.cli.compose import games, load_config\n"
                "list(games())  # every game imported while root can read the venv\n"
                f"load_config({str(config)!r})\n"
                f"os.setgroups({groups!r}); os.setgid({NOBODY}); os.setuid({NOBODY})\n"
                f"sys.exit(main(['--config', {str(config)!r}, 'input', 'no_more_bets']))\n")
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              timeout=60)
    finally:
        srv.stop()
        shutil.rmtree(folder)
    if allowed:
        assert (done.returncode, done.stdout) == (0, "accepted\n"), done.stderr
        assert posted == [DealerInput(0.0, "no_more_bets", {})]
    else:
        assert done.returncode == 1
        assert "permission denied: only the table's admin group" in done.stderr
        assert posted == []
