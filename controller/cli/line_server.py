"""One-line requests on a listening stream socket, with a deadline per connection.

A client that sends its request slowly, or never, must not hold anyone else up. So one
thread reads every connection at once (``selectors``: a client costs a file descriptor, not
a thread), each connection must deliver its line within ``request_deadline_s`` of being
accepted, and only a complete request takes one of the ``workers`` that answer (the answer
may wait for the controller's verdict). Nothing polls: the reader sleeps in ``select``
until a byte, a new client, a deadline or the stop signal (a byte on a pipe), and the
workers on their queue.
"""

from __future__ import annotations

import contextlib
import os
import queue
import selectors
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from controller.core.logs import get_logger

log = get_logger(component="control")

BUSY = b'{"ok": false, "error": "busy: too many control clients"}\n'
ACCEPT_BATCH = 16  # clients taken in one go before the reader reads the others again
LATE = (b'{"ok": false, "error": "request not complete within %g s: a request is one JSON '
        b'line"}\n')


@dataclass
class _Conn:
    sock: socket.socket
    deadline: float
    data: bytearray = field(default_factory=bytearray)


class LineServer:
    """Answers each connection's request with ``answer(data)`` (the reply's bytes), then
    closes it.

    Args:
        listener: a bound, listening socket (the server makes it non-blocking).
        answer: called on a worker thread with what the client sent: up to the end of its
            first line and whatever came with it (the answer refuses a second line), or
            the first ``max_request`` bytes, or what came before the client closed its side.
        max_request: bytes a request may have.
        request_deadline_s: seconds from accept to the end of the request line; a later
            client is told so and dropped.
        reply_deadline_s: seconds a worker waits for the client to take the reply.
        workers: requests answered at once.
        max_connections: connections open at once (reading or waiting for a worker);
            beyond it the oldest that has not sent its request is told "busy" and dropped
            for the new one (when all have sent theirs, the new one is).
    """

    def __init__(self, listener: socket.socket, answer: Callable[[bytes], bytes], *,
                 max_request: int, request_deadline_s: float, reply_deadline_s: float,
                 workers: int, max_connections: int) -> None:
        self.listener = listener
        self.answer = answer
        self.max_request = max_request
        self.request_deadline_s = request_deadline_s
        self.reply_deadline_s = reply_deadline_s
        self.max_connections = max_connections
        self._workers_n = workers
        self._queue: queue.Queue[_Conn | None] = queue.Queue()
        self._waiting = 0  # connections handed to the workers, not yet answered
        self._lock = threading.Lock()
        self._wake_r, self._wake_w = os.pipe()
        self._threads: list[threading.Thread] = []

    def start(self) -> None:
        self.listener.setblocking(False)
        self._threads = [threading.Thread(target=self._read, name="control-socket",
                                          daemon=True)]
        self._threads += [threading.Thread(target=self._work, name=f"control-worker-{i}",
                                           daemon=True) for i in range(self._workers_n)]
        for thread in self._threads:
            thread.start()

    def alive(self) -> bool:
        return bool(self._threads) and all(t.is_alive() for t in self._threads)

    def stop(self, timeout: float = 5.0) -> None:
        """Stop reading, drop the connections not answered, end the workers."""
        with contextlib.suppress(OSError):
            os.write(self._wake_w, b"x")
        for _ in range(self._workers_n):
            self._queue.put(None)
        for thread in self._threads:
            thread.join(timeout)
        self._threads = []
        for fd in (self._wake_r, self._wake_w):
            with contextlib.suppress(OSError):
                os.close(fd)

    # -- the reader thread -----------------------------------------------------------
    def _read(self) -> None:
        sel = selectors.DefaultSelector()
        sel.register(self.listener, selectors.EVENT_READ, None)
        sel.register(self._wake_r, selectors.EVENT_READ, "stop")
        conns: dict[socket.socket, _Conn] = {}
        try:
            while True:
                timeout = None
                if conns:
                    timeout = max(0.0, min(c.deadline for c in conns.values()) - time.monotonic())
                for key, _ in sel.select(timeout):
                    if key.data == "stop":
                        return
                    if key.data is None:
                        self._accept(sel, conns)
                    else:
                        self._receive(sel, conns, key.data)
                now = time.monotonic()
                for conn in [c for c in conns.values() if c.deadline <= now]:
                    self._drop(sel, conns, conn, LATE % self.request_deadline_s)
        finally:
            for conn in list(conns.values()):
                self._drop(sel, conns, conn, b"")
            sel.close()

    def _accept(self, sel: selectors.BaseSelector, conns: dict[socket.socket, _Conn]) -> None:
        """Take the clients waiting, at most ``ACCEPT_BATCH`` before the reader looks at
        the others again. A client's request usually came with its connection: it is read
        at once. At ``max_connections`` the oldest connection still silent is dropped
        (told busy) for the new one: clients that connect, say nothing and reconnect
        cannot hold the socket, since a client that sends its request at once is answered
        before as many others come after it; when every connection has sent its request,
        the new one is told busy."""
        for _ in range(ACCEPT_BATCH):
            try:
                sock, _ = self.listener.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError:  # out of file descriptors: let some close before trying again,
                time.sleep(0.1)  # or the listener, still readable, would spin the thread
                return
            sock.setblocking(False)
            with self._lock:
                full = len(conns) + self._waiting >= self.max_connections
            if full and conns:
                oldest = min(conns.values(), key=lambda c: c.deadline)
                self._drop(sel, conns, oldest, BUSY)
            elif full:
                with contextlib.suppress(OSError):
                    sock.send(BUSY)
                sock.close()
                continue
            conn = _Conn(sock, time.monotonic() + self.request_deadline_s)
            conns[sock] = conn
            sel.register(sock, selectors.EVENT_READ, conn)
            self._receive(sel, conns, conn)

    def _receive(self, sel: selectors.BaseSelector, conns: dict[socket.socket, _Conn],
                 conn: _Conn) -> None:
        try:
            chunk = conn.sock.recv(self.max_request - len(conn.data))
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            chunk = b""
            conn.data.clear()  # the client is gone: nothing to answer
        conn.data += chunk
        end = conn.data.find(b"\n")
        if end < 0 and chunk and len(conn.data) < self.max_request:
            return  # more to come
        if not conn.data:
            self._drop(sel, conns, conn, b"")
            return
        sel.unregister(conn.sock)
        del conns[conn.sock]
        with self._lock:
            self._waiting += 1
        self._queue.put(conn)

    def _drop(self, sel: selectors.BaseSelector, conns: dict[socket.socket, _Conn],
              conn: _Conn, reply: bytes) -> None:
        with contextlib.suppress(KeyError, ValueError):
            sel.unregister(conn.sock)
        conns.pop(conn.sock, None)
        if reply:
            with contextlib.suppress(OSError):
                conn.sock.send(reply)
        conn.sock.close()

    # -- the workers -----------------------------------------------------------------
    def _work(self) -> None:
        while (conn := self._queue.get()) is not None:
            try:
                reply = self.answer(bytes(conn.data))
                conn.sock.settimeout(self.reply_deadline_s)
                conn.sock.sendall(reply)
                _drain(conn.sock)
            except OSError:
                pass  # the client did not wait for the answer
            except Exception:  # a bug answering one request must not end the worker
                log.exception("answering a control request failed")
            finally:
                conn.sock.close()
                with self._lock:
                    self._waiting -= 1


def _drain(sock: socket.socket, limit: int = 1 << 16) -> None:
    """Read what the client sent beyond its request (at most ``limit`` bytes), so that the
    close does not reset the connection before the client read its reply."""
    sock.setblocking(False)
    with contextlib.suppress(OSError):
        while limit > 0 and (chunk := sock.recv(min(limit, 8192))):
            limit -= len(chunk)
