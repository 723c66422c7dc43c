"""systemd's service notification protocol (``sd_notify``), in the standard library only.

systemd hands a ``Type=notify`` service the address of a Unix datagram socket in
``NOTIFY_SOCKET`` (a path, or ``@name`` for the abstract namespace) and, with
``WatchdogSec=``, the watchdog interval in ``WATCHDOG_USEC`` (for the process named in
``WATCHDOG_PID``, when set). Each datagram is newline-separated ``KEY=VALUE`` assignments:
``READY=1``, ``STATUS=...``, ``WATCHDOG=1``, ``STOPPING=1`` (systemd's sd_notify(3)).
Outside systemd (no ``NOTIFY_SOCKET``) every call does nothing.
"""

from __future__ import annotations

import os
import socket
import threading
from collections.abc import Mapping


class Notifier:
    """Sends notifications to the service manager; thread-safe.

    Args:
        environ: where ``NOTIFY_SOCKET``, ``WATCHDOG_USEC`` and ``WATCHDOG_PID`` are read
            (the process environment by default).

    A send that fails (the manager went away, or its queue is full) returns False at once
    and never raises: a daemon must not stop because systemd could not be told something.
    """

    def __init__(self, environ: Mapping[str, str] | None = None) -> None:
        env = os.environ if environ is None else environ
        address = env.get("NOTIFY_SOCKET", "")
        # "@name" is the abstract namespace: a leading NUL byte on the wire.
        self.address = "\0" + address[1:] if address.startswith("@") else address
        self.watchdog_s = _watchdog_seconds(env)
        self._lock = threading.Lock()
        self._sock: socket.socket | None = None

    @property
    def enabled(self) -> bool:
        """A service manager listens (``NOTIFY_SOCKET`` is set)."""
        return bool(self.address)

    def notify(self, *assignments: str) -> bool:
        """Send ``assignments`` (``"READY=1"``, ``"STATUS=..."``) in one datagram.

        Returns True when sent, False when there is no manager or the send failed.
        """
        if not self.address:
            return False
        message = "\n".join(a.replace("\n", " ") for a in assignments).encode("utf-8")
        with self._lock:
            try:
                if self._sock is None:
                    self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
                # Never blocks: a manager that does not read (its queue full) must not
                # stop the daemon, nor the watchdog thread that holds this lock.
                self._sock.sendto(message, socket.MSG_DONTWAIT, self.address)
            except OSError:
                return False
        return True

    def ready(self, status: str = "") -> bool:
        return self.notify("READY=1", *([f"STATUS={status}"] if status else []))

    def status(self, text: str) -> bool:
        return self.notify(f"STATUS={text}")

    def watchdog(self) -> bool:
        return self.notify("WATCHDOG=1")

    def extend_timeout(self, seconds: float, status: str = "") -> bool:
        """Ask for ``seconds`` more to start (``EXTEND_TIMEOUT_USEC``: a long self-test)."""
        return self.notify(f"EXTEND_TIMEOUT_USEC={int(seconds * 1_000_000)}",
                           *([f"STATUS={status}"] if status else []))

    def stopping(self, status: str = "") -> bool:
        return self.notify("STOPPING=1", *([f"STATUS={status}"] if status else []))

    def close(self) -> None:
        with self._lock:
            if self._sock is not None:
                self._sock.close()
                self._sock = None


def _watchdog_seconds(env: Mapping[str, str]) -> float | None:
    """The watchdog interval in seconds (``WATCHDOG_USEC``), or None when there is none or
    it is meant for another process (``WATCHDOG_PID``), as sd_watchdog_enabled(3) reads it."""
    try:
        usec = int(env.get("WATCHDOG_USEC", ""))
    except ValueError:
        return None
    pid = env.get("WATCHDOG_PID", "")
    if usec <= 0 or (pid and pid != str(os.getpid())):
        return None
    return usec / 1_000_000
