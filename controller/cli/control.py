"""Local control of the daemon through a Unix socket (no network listener).

Every dealer input is also available here (CONTRACT §1), as are bets and a live view of
the sensors. A request is one JSON line in CONTRACT §2 form without ``t`` (the daemon
stamps it on arrival): ``{"input": "void", "reason": "foreign_object"}``,
``{"bet": "red", "box": 2, "amount": 20}``, ``{"query": "sensors"}`` or ``{"query":
"status"}``. The reply is one JSON line: the table's verdict on an input or a bet, ``{"ok":
true, "verdict": "accepted"}`` or ``{"ok": true, "verdict": "refused", "code": "...",
"reason": "..."}``; the sensors ``{"ok": true, "now": ..., "sensors": {...}, "serial":
{...}}`` (per GPIO input its level, the edges the driver counted, the times of its last
edge and recent rises on the controller clock ``now``; what each serial device last said,
e.g. a serial wheel's last status line and its age); the daemon's status ``{"ok": true,
"status": {"line": ..., "journal_failing": ...}}``; or ``{"ok": false, "error": "..."}`` for
a request that is not one (bad JSON, a key given twice, an unknown field, more than one
line, over ``MAX_REQUEST`` bytes, too slow), which never reaches the table.

The socket's mode is 0660 and its group the table's admin group (config ``control.group``),
so only that group can drive the table (project standards: Security). A connection has
``REQUEST_DEADLINE_S`` to send its line and ``REPLY_DEADLINE_S`` to take the reply, so slow
clients cannot hold the socket. The server only checks a request, posts the event to the
controller thread, like a driver, and waits for the verdict the table gives it there.
"""

from __future__ import annotations

import grp
import json
import os
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from controller.cli.line_server import LineServer
from controller.core.contract import GameSpec
from controller.core.errors import TableControllerError, TraceError
from controller.core.events import Event
from controller.core.section import socket_path_problem, why_not_made
from controller.core.specs import Games
from controller.trace import trace_from_objects
from controller.trace_lines import DuplicateKey, loads_strict

MAX_REQUEST = 4096  # bytes: a request is one short JSON line
MAX_CLIENTS = 8  # requests answered at once (each may wait for the table's verdict)
MAX_CONNECTIONS = 64  # open at once; then the oldest silent one is told "busy"
REQUEST_DEADLINE_S = 2.0  # from connecting to the end of the request line
REPLY_DEADLINE_S = 2.0  # for the client to take its reply
CONNECT_RETRY_S = 0.01  # a client's wait before connecting again to a full queue
VERDICT_TIMEOUT_S = 5.0  # the controller thread answers in milliseconds; a stuck one is a fault


Post = Callable[[Event, Callable[[Any], None]], None]


class ControlError(TableControllerError):
    """The control socket cannot be set up (path in use, unknown group), or a request
    cannot be sent; ``no_daemon``: nobody listens there."""

    def __init__(self, message: str, no_daemon: bool = False) -> None:
        super().__init__(message)
        self.no_daemon = no_daemon


class ControlServer:
    """Serves the control socket at ``path`` on its own thread.

    Args:
        path: the socket file; its folder is created if missing.
        group: the admin group that may use it (None: the daemon's own group).
        post: the controller loop's thread-safe entry point; ``post(event, reply)`` has the
            controller thread call ``reply`` with the table's verdict.
        now: the controller clock (seconds).
        sensors: returns each GPIO input's live view (``drivers.gpio.GpioInputs.view``:
            level, edges counted, the last edge's and the recent rises' times).
        table: the table's game (``Config.spec``): the bet kinds and fields a request may
            give, the inputs it takes.
        serial_ports: the config's serial ports (trace words for requests).
        games: the games whose inputs are words a request may give (``Config.games``: an
            input of another game reaches the table, which refuses it with an alarm, as
            in a trace); None: the table's alone.
        devices: returns what the table's serial devices last reported, by port (e.g.
            ``{"wheel": {"last_line": ..., "age_s": ...}}``); called on the socket's thread.
        status: returns the daemon's live status (``{"line": ..., "journal_failing": ...}``)
            for ``{"query": "status"}``.

    Each connection has ``REQUEST_DEADLINE_S`` to send its line; only complete requests
    wait for a verdict, ``MAX_CLIENTS`` at once (``controller.cli.line_server``).

    Raises:
        ControlError: the group does not exist, or another daemon holds the socket.
    """

    def __init__(self, path: str, group: str | None, post: Post,
                 now: Callable[[], float], sensors: Callable[[], dict[str, Any]],
                 table: GameSpec, serial_ports: tuple[str, ...] = (),
                 devices: Callable[[], dict[str, Any]] | None = None,
                 status: Callable[[], dict[str, Any]] | None = None,
                 games: Games | None = None) -> None:
        self.path = Path(path)
        self._given_path = path  # Path("") is ".": the check needs the text as given
        self.group = group
        self.post = post
        self.now = now
        self.sensors = sensors
        self.table = table
        self.games = games if games is not None else Games((table,))
        self.serial_ports = serial_ports
        self.devices = devices
        self.status = status
        self._server: LineServer | None = None
        self._created = False

    def start(self) -> None:
        """Bind the socket and serve it on a thread.

        Raises:
            ControlError: the path is empty, longer than a Unix socket path may be
                (``config.MAX_SOCKET_PATH`` bytes), or cannot be made (its folder is a file, no
                permission); the group does not exist; another daemon listens there.
        """
        problem = socket_path_problem(self._given_path)
        if problem:
            raise ControlError(f"control socket {self._given_path!r}: {problem}")
        gid = -1
        if self.group:
            try:
                gid = grp.getgrnam(self.group).gr_gid
            except KeyError:
                raise ControlError(f"control.group: no group {self.group!r}") from None
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            if self.path.exists():
                if _in_use(self.path):
                    raise ControlError(f"{self.path}: another controller is listening there")
                self.path.unlink()
        except OSError as exc:
            raise ControlError(f"{self.path}: cannot make the control socket there: "
                               f"{why_not_made(self.path, exc)}") from exc
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        old_umask = os.umask(0o117)  # created 0660: owner and group only
        try:
            listener.bind(str(self.path))
            # The kernel's queue of clients not yet taken: more than the connections
            # served, so that a crowd reconnecting keeps no one from queueing.
            listener.listen(max(socket.SOMAXCONN, 4 * MAX_CONNECTIONS))
        except OSError as exc:
            listener.close()
            raise ControlError(f"{self.path}: cannot make the control socket there: "
                               f"{why_not_made(self.path, exc)}") from exc
        finally:
            os.umask(old_umask)
        self._created = True
        try:
            if gid != -1:
                os.chown(self.path, -1, gid)
            os.chmod(self.path, 0o660)
        except OSError as exc:
            listener.close()
            self.path.unlink()
            self._created = False
            raise ControlError(f"{self.path}: cannot give the socket to group {self.group!r} "
                               f"({exc}); the daemon's user must be a member of it") from exc
        self._server = LineServer(listener, self._answer_line, max_request=MAX_REQUEST,
                                  request_deadline_s=REQUEST_DEADLINE_S,
                                  reply_deadline_s=REPLY_DEADLINE_S, workers=MAX_CLIENTS,
                                  max_connections=MAX_CONNECTIONS)
        self._server.start()

    def _answer_line(self, line: bytes) -> bytes:
        return json.dumps(self.answer(line)).encode() + b"\n"

    def answer(self, data: bytes) -> dict[str, Any]:
        """Check one request and post it; the reply says what was done or what is wrong.

        ``data`` is what the client sent (the line server hands it whole): one JSON line of at most
        ``MAX_REQUEST`` bytes, its newline included (a client that closes its side may
        leave the newline out). Anything but blanks after that line refuses the request
        whole: two requests in one are ambiguous (which was meant, in which order?), so
        neither is posted. An object that gives a key twice is refused too.

        Only people's actions come in here: dealer inputs and bets. Sensor edges and shoe
        bytes come from the hardware alone, so nobody can fake a ball pass or a card.
        """
        line, newline, rest = data.partition(b"\n")
        if len(line) + len(newline) > MAX_REQUEST or (not newline and len(line) >= MAX_REQUEST):
            return {"ok": False, "error": f"request too long (over {MAX_REQUEST} bytes)"}
        if rest.strip():
            return {"ok": False, "error": "a request is one JSON line: this one has more "
                    "after its first line; nothing was done (send one request at a time)"}
        try:
            request = loads_strict(line.decode("utf-8"))
        except RecursionError:
            return {"ok": False, "error": "request is not one JSON line: nested too deep"}
        except DuplicateKey as exc:
            return {"ok": False, "error": f"field {exc.key!r}: {exc}"}
        except (UnicodeDecodeError, ValueError) as exc:
            return {"ok": False, "error": f"request is not one JSON line: {exc}"}
        if not isinstance(request, dict):
            return {"ok": False, "error": "request must be a JSON object"}
        if request.get("query") == "sensors":
            sensors = self.sensors()  # then the time: no edge is after it
            view: dict[str, Any] = {"ok": True, "now": self.now(), "sensors": sensors}
            if self.devices is not None:
                view["serial"] = self.devices()
            return view
        if request.get("query") == "status":
            return {"ok": True, "status": self.status() if self.status else {}}
        if "t" in request:
            return {"ok": False, "error": "field 't': the daemon stamps requests itself"}
        if not ("input" in request or "bet" in request):
            return {"ok": False, "error": "a request is a dealer input ('input'), a bet "
                    "('bet') or a query ('query': 'sensors' or 'status')"}
        try:
            trace = trace_from_objects(
                "control", [(1, {"t": 0, "meta": {"table": self.table.name}}),
                            (2, {"t": 0, **request})], self.games, self.serial_ports)
        except TraceError as exc:
            return {"ok": False, "error": self._refusal(exc)}
        except RecursionError:  # the trace reader bounds nesting: this is a safety net
            return {"ok": False, "error": "request nested too deep"}
        event = replace(trace.events[0], t=self.now())
        answered = threading.Event()
        verdicts: list[Any] = []

        def reply(verdict: Any) -> None:
            verdicts.append(verdict)
            answered.set()

        self.post(event, reply)
        if not answered.wait(VERDICT_TIMEOUT_S) or not verdicts:
            return {"ok": False, "error": f"the table did not answer within "
                    f"{VERDICT_TIMEOUT_S:g} s; see `tablectl status` and the log"}
        verdict = verdicts[0]
        if isinstance(verdict, BaseException):
            return {"ok": False, "error": f"the table could not take it: {verdict}"}
        if verdict.accepted:
            return {"ok": True, "verdict": "accepted"}
        return {"ok": True, "verdict": "refused", "code": verdict.code, "reason": verdict.reason}

    def _refusal(self, exc: TraceError) -> str:
        """Why a request is not one, in words: the field at fault and what is wrong (the
        trace reader's words, without the made-up place of a trace line); an unknown
        input with the inputs this table takes."""
        names_it = exc.field in ("input", "bet") and exc.message.startswith("unknown")
        text = exc.message if exc.field is None or names_it else (
            f"field '{exc.field}': {exc.message}")
        if exc.field == "input" and text.startswith("unknown"):
            spec = self.table
            text += f"; a {spec.title} table takes {', '.join(spec.input_actions)}"
        return text

    def alive(self) -> bool:
        """The socket is served (its threads run)."""
        return self._server is not None and self._server.alive()

    def stop(self) -> None:
        if self._server is not None:
            self._server.stop()
            self._server.listener.close()
            self._server = None
        if self._created and self.path.exists():
            self.path.unlink()  # only the socket this server made, never another daemon's
            self._created = False


def _in_use(path: Path) -> bool:
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.connect(str(path))
    except OSError:
        return False
    finally:
        probe.close()
    return True


def _connect(sock: socket.socket, path: str, deadline: float) -> None:
    """Connect, again while the server's queue of new connections is full (``EAGAIN``:
    a crowd of clients; the server takes them in milliseconds), until ``deadline``."""
    while True:
        try:
            sock.connect(path)
            return
        except BlockingIOError:
            if time.monotonic() >= deadline:
                raise
            time.sleep(CONNECT_RETRY_S)


def request(path: str, message: dict[str, Any], timeout: float = 5.0) -> dict[str, Any]:
    """Send one request to the daemon's control socket and return its reply.

    Raises:
        ControlError: no daemon listens there, or permission is denied (not in the
            admin group).
    """
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    try:
        _connect(sock, path, time.monotonic() + timeout)
        sock.sendall(json.dumps(message).encode() + b"\n")
        data = b""
        while not data.endswith(b"\n"):
            chunk = sock.recv(65536)
            if not chunk:
                break
            data += chunk
    except PermissionError as exc:
        raise ControlError(f"{path}: permission denied: only the table's admin group "
                           "(config [control] group) may use the control socket") from exc
    except FileNotFoundError as exc:
        raise ControlError(f"no daemon answers on {path}: no socket there",
                           no_daemon=True) from exc
    except ConnectionRefusedError as exc:
        raise ControlError(f"no daemon answers on {path}: nothing listens on that socket",
                           no_daemon=True) from exc
    except OSError as exc:
        raise ControlError(f"the daemon on {path} does not answer: "
                           f"{exc.strerror or exc}") from exc
    finally:
        sock.close()
    reply: dict[str, Any] = json.loads(data.decode() or "{}")
    return reply
