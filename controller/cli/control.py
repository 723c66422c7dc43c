"""Local control of the daemon through a Unix socket (no network listener).

Every dealer input is also available here (CONTRACT §1), as are bets and a live view of
the sensors. A request is one JSON line in CONTRACT §2 form without ``t`` (the daemon
stamps it on arrival): ``{"input": "void", "reason": "foreign_object"}``,
``{"bet": "red", "box": 2, "amount": 20}``, or ``{"query": "sensors"}``. The reply is one
JSON line: the table's verdict on an input or a bet, ``{"ok": true, "verdict": "accepted"}``
or ``{"ok": true, "verdict": "refused", "code": "...", "reason": "..."}``; the sensors
``{"ok": true, "sensors": {...}, "serial": {...}}`` (GPIO levels; what each serial device
last said, e.g. a serial wheel's last status line and its age); or ``{"ok": false,
"error": "..."}`` for a request that is not one (bad JSON, a key given twice, an unknown
field, more than one line, over ``MAX_REQUEST`` bytes), which never reaches the table.

The socket's mode is 0660 and its group the table's admin group (config ``control.group``),
so only that group can drive the table (project standards: Security). The server thread only
checks a request, posts the event to the controller thread, like a driver, and waits for
the verdict the table gives it there.
"""

from __future__ import annotations

import contextlib
import grp
import json
import os
import socket
import socketserver
import threading
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from controller.core.config import socket_path_problem, why_not_made
from controller.core.errors import TableControllerError, TraceError
from controller.core.events import Event
from controller.trace import DuplicateKey, loads_strict, trace_from_objects

MAX_REQUEST = 4096  # bytes: a request is one short JSON line
MAX_CLIENTS = 8  # at once; more are told "busy"
CLIENT_TIMEOUT_S = 5.0
VERDICT_TIMEOUT_S = 5.0  # the controller thread answers in milliseconds; a stuck one is a fault


Post = Callable[[Event, Callable[[Any], None]], None]


class ControlError(TableControllerError):
    """The control socket cannot be set up (path in use, unknown group)."""


class ControlServer:
    """Serves the control socket at ``path`` on its own thread.

    Args:
        path: the socket file; its folder is created if missing.
        group: the admin group that may use it (None: the daemon's own group).
        post: the controller loop's thread-safe entry point; ``post(event, reply)`` has the
            controller thread call ``reply`` with the table's verdict.
        now: the controller clock (seconds).
        sensors: returns the live logical level of each GPIO input.
        table: the table's game, for checking bet kinds (``roulette``/``mini_baccarat``).
        serial_ports: the config's serial ports (trace words for requests).
        devices: returns what the table's serial devices last reported, by port (e.g.
            ``{"wheel": {"last_line": ..., "age_s": ...}}``); called on the socket's thread.

    Raises:
        ControlError: the group does not exist, or another daemon holds the socket.
    """

    def __init__(self, path: str, group: str | None, post: Post,
                 now: Callable[[], float], sensors: Callable[[], dict[str, int]],
                 table: str, serial_ports: tuple[str, ...] = (),
                 devices: Callable[[], dict[str, Any]] | None = None) -> None:
        self.path = Path(path)
        self._given_path = path  # Path("") is ".": the check needs the text as given
        self.group = group
        self.post = post
        self.now = now
        self.sensors = sensors
        self.table = table
        self.serial_ports = serial_ports
        self.devices = devices
        self._server: socketserver.ThreadingUnixStreamServer | None = None
        self._thread: threading.Thread | None = None
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
        owner = self
        slots = threading.BoundedSemaphore(MAX_CLIENTS)

        class Handler(socketserver.StreamRequestHandler):
            timeout = CLIENT_TIMEOUT_S  # an idle client never holds the daemon

            def handle(self) -> None:
                if not slots.acquire(blocking=False):
                    self._reply({"ok": False, "error": "busy: too many control clients"})
                    return
                try:
                    self._reply(owner.answer(read_request(self.connection)))
                except (OSError, TimeoutError):
                    pass  # the client went away or said nothing: nothing to answer
                finally:
                    slots.release()

            def _reply(self, reply: dict[str, Any]) -> None:
                with contextlib.suppress(OSError):  # the client did not wait for the answer
                    self.wfile.write(json.dumps(reply).encode() + b"\n")

        class Server(socketserver.ThreadingUnixStreamServer):
            daemon_threads = True
            block_on_close = False

        old_umask = os.umask(0o117)  # created 0660: owner and group only
        try:
            self._server = Server(str(self.path), Handler)
        except OSError as exc:
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
            self._server.server_close()
            self._server = None
            self.path.unlink()
            raise ControlError(f"{self.path}: cannot give the socket to group {self.group!r} "
                               f"({exc}); the daemon's user must be a member of it") from exc
        self._thread = threading.Thread(target=self._server.serve_forever,
                                        name="control-socket", daemon=True)
        self._thread.start()

    def answer(self, data: bytes) -> dict[str, Any]:
        """Check one request and post it; the reply says what was done or what is wrong.

        ``data`` is what the client sent (:func:`read_request`): one JSON line of at most
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
            view: dict[str, Any] = {"ok": True, "sensors": self.sensors()}
            if self.devices is not None:
                view["serial"] = self.devices()
            return view
        if "t" in request:
            return {"ok": False, "error": "field 't': the daemon stamps requests itself"}
        if not ("input" in request or "bet" in request):
            return {"ok": False, "error": "a request is a dealer input ('input'), a bet "
                    "('bet') or a query ('query': 'sensors')"}
        try:
            trace = trace_from_objects(
                "control", [(1, {"t": 0, "meta": {"table": self.table}}),
                            (2, {"t": 0, **request})], self.serial_ports)
        except TraceError as exc:
            return {"ok": False, "error": str(exc)}
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

    def alive(self) -> bool:
        """The socket is served (its thread runs)."""
        return self._thread is not None and self._thread.is_alive()

    def stop(self) -> None:
        if self._server is not None:
            if self._thread is not None:  # shutdown() waits for serve_forever: only if it runs
                self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._thread is not None:
            self._thread.join(timeout=5)
        if self._created and self.path.exists():
            self.path.unlink()  # only the socket this server made, never another daemon's
            self._created = False


def read_request(sock: socket.socket) -> bytes:
    """What a client sends, up to the end of its first line and with whatever came with it
    (a second line sent at once), at most ``MAX_REQUEST`` bytes; less when the client
    closed its side first.

    Raises:
        OSError, TimeoutError: the client went away or said nothing in time.
    """
    data = b""
    while b"\n" not in data and len(data) < MAX_REQUEST:
        chunk = sock.recv(MAX_REQUEST - len(data))
        if not chunk:
            break
        data += chunk
    return data


def _in_use(path: Path) -> bool:
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.connect(str(path))
    except OSError:
        return False
    finally:
        probe.close()
    return True


def request(path: str, message: dict[str, Any], timeout: float = 5.0) -> dict[str, Any]:
    """Send one request to the daemon's control socket and return its reply.

    Raises:
        ControlError: no daemon listens there, or permission is denied (not in the
            admin group).
    """
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(timeout)
    try:
        sock.connect(path)
        sock.sendall(json.dumps(message).encode() + b"\n")
        data = b""
        while not data.endswith(b"\n"):
            chunk = sock.recv(65536)
            if not chunk:
                break
            data += chunk
    except PermissionError as exc:
        raise ControlError(f"{path}: permission denied (are you in the table's admin "
                           f"group?): {exc}") from exc
    except OSError as exc:
        raise ControlError(f"{path}: no controller answers there ({exc})") from exc
    finally:
        sock.close()
    reply: dict[str, Any] = json.loads(data.decode() or "{}")
    return reply
