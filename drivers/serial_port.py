"""The serial transport: owns one port, moves its bytes to the controller, reconnects.

It only moves bytes: decoding is a codec's job (``controller.cards.shoe_reference``) on
the controller thread. The reader thread posts ``SerialData`` for every chunk and
``PortStatus`` when the port goes away or comes back, and does nothing else (ANCHORS.md, klippy).

Why not ``serial.threaded.ReaderThread``: it is a one-shot ``Thread`` that ends on the first
read error and calls ``connection_lost`` on its own thread, so reconnecting needs a new
ReaderThread per connection started from a supervisor thread, and a protocol exception would
end it too. One small loop here does open, read, backoff and reopen on a single thread, and
``stop()`` joins exactly that thread.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import serial

from controller.core.clock import Clock
from controller.core.events import Event, PortStatus, SerialData
from controller.core.logs import get_logger

log = get_logger(component="serial")
POLL_S = 0.1  # read timeout of a port whose read cannot be cancelled


class SerialTransport:
    """One serial port read on its own thread, reopened with exponential backoff.

    Args:
        port_name: the port's name in the config (``shoe``), put in every event.
        url: a device path (``/dev/serial/by-id/...``, opened with an exclusive lock so a
            second process cannot steal bytes) or a pyserial URL (``socket://host:port``,
            ``loop://``).
        baudrate: bits per second (the reference shoe reader: 9600, 8N1; CONTRACT §4).
        post: the controller's thread-safe entry point; called from the reader thread.
        clock: timestamps each event with ``clock.now()`` (seconds) when its bytes arrive.
        reconnect_backoff: (first, longest) wait in seconds between reopen attempts; the
            wait doubles after each failure and resets once a reopened port delivers data.
        read_timeout: None (default): a read blocks until a byte comes, and ``stop()``
            wakes it (pyserial's ``cancel_read``: a pipe the read also selects on), so an
            idle port costs no CPU; a port that cannot be woken so (``socket://``) reads
            with ``POLL_S`` instead. A number: seconds a read waits for a first byte.

    Events: ``PortStatus(up=True)`` each time the port opens; ``PortStatus(up=False,
    detail)`` once when it fails to open or is lost (read error, USB unplugged), not again
    until it was up; ``SerialData`` for every chunk read.
    """

    def __init__(
        self,
        port_name: str,
        url: str,
        baudrate: int,
        post: Callable[[Event], None],
        clock: Clock,
        reconnect_backoff: tuple[float, float] = (0.5, 8.0),
        read_timeout: float | None = None,
    ) -> None:
        first, longest = reconnect_backoff
        if not 0 < first <= longest:
            raise ValueError(f"reconnect_backoff must be 0 < first <= longest: {reconnect_backoff}")
        self.port_name = port_name
        self.url = url
        self.baudrate = baudrate
        self._post_fn = post
        self._clock = clock
        self._backoff = (first, longest)
        self._read_timeout = read_timeout
        self._stop = threading.Event()
        self._lock = threading.Lock()  # guards _port between the reader thread and write()
        self._port: Any = None
        self._reported_up: bool | None = None  # last PortStatus posted; None before any
        self._thread: threading.Thread | None = None
        self._opened = threading.Event()  # the port was opened once (its flush is done)

    def start(self) -> None:
        """Start the reader thread; it opens the port (retrying until it can).

        Raises:
            RuntimeError: already started.
        """
        if self._thread is not None:
            raise RuntimeError(f"serial transport {self.port_name!r} already started")
        self._thread = threading.Thread(
            target=self._run, name=f"serial-{self.port_name}", daemon=True
        )
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        """Stop the reader thread and close the port; waits up to ``timeout`` seconds.

        Raises:
            TimeoutError: the thread did not end in time.
        """
        self._stop.set()
        with self._lock:
            port = self._port
        if port is not None and hasattr(port, "cancel_read"):
            try:
                port.cancel_read()  # wake a blocking read
            except Exception:  # a vanished port: its read ends on its own error
                log.debug("cancelling the serial read failed", port=self.port_name,
                          exc_info=True)
        if self._thread is not None:
            self._thread.join(timeout)
            if self._thread.is_alive():
                raise TimeoutError(f"serial reader {self.port_name!r} did not stop")
        self._close()

    def wait_open(self, timeout: float) -> bool:
        """Wait up to ``timeout`` wall seconds until the reader has opened the port once;
        True when it has. pyserial's ``open()`` flushes what the port holds: bytes written
        before are lost (``replay --realtime`` starts its player only after this)."""
        return self._opened.wait(timeout)

    def alive(self) -> bool:
        """The reader thread runs (a port that is down but being reopened is alive)."""
        return self._thread is not None and self._thread.is_alive()

    def write(self, data: bytes) -> None:
        """Send ``data`` on the port (tests, and readers that take commands).

        Raises:
            ConnectionError: the port is not open now.
            serial.SerialException: the write failed.
        """
        with self._lock:
            if self._port is None:
                raise ConnectionError(f"serial port {self.port_name!r} is not open")
            self._port.write(data)

    def _run(self) -> None:
        delay = self._backoff[0]
        while not self._stop.is_set():
            try:
                port = self._open()
            except Exception as exc:  # any open failure is a down port, retried
                self._report(False, f"open failed: {exc}")
            else:
                self._report(True, f"opened {self.url}")
                error, got_data = self._read_until_error(port)
                self._close()
                if error is None:  # stop() was called
                    return
                self._report(False, error)
                if got_data:
                    delay = self._backoff[0]
            self._stop.wait(delay)
            delay = min(delay * 2, self._backoff[1])

    def _open(self) -> Any:
        # flock the device so a second daemon cannot share it; URL handlers have no lock.
        extra = {} if "://" in self.url else {"exclusive": True}
        # 8N1 with no flow control (RTS/CTS, DSR/DTR, XON/XOFF all off): what the shoe
        # readers and the automated wheels need (a SlingShot 2's guide says none; issue 16).
        port = serial.serial_for_url(
            self.url, baudrate=self.baudrate, timeout=self._read_timeout or POLL_S,
            rtscts=False, dsrdtr=False, xonxoff=False, **extra
        )
        if self._read_timeout is None and hasattr(type(port), "cancel_read"):
            port.timeout = None  # block: stop() cancels the read
        with self._lock:
            self._port = port
        self._opened.set()
        if self._stop.is_set():  # stopped while opening: the cancel may have come too early
            port.timeout = POLL_S
        return port

    def _read_until_error(self, port: Any) -> tuple[str | None, bool]:
        """Read and post chunks until stop (error None) or a read error (its text)."""
        got_data = False
        while not self._stop.is_set():
            try:
                data = port.read(port.in_waiting or 1)
            # SerialException/OSError on unplug; pyserial may also raise TypeError or
            # ValueError on a vanished descriptor. Either way the port is gone.
            except Exception as exc:
                return f"read failed: {exc}", got_data
            if data:
                got_data = True
                self._post(SerialData(self._clock.now(), self.port_name, bytes(data)))
        return None, got_data

    def _close(self) -> None:
        with self._lock:
            port, self._port = self._port, None
        if port is not None:
            try:
                port.close()
            except Exception:  # a vanished port may fail to close; it is gone anyway
                log.debug("closing the serial port failed", port=self.port_name, exc_info=True)

    def _report(self, up: bool, detail: str) -> None:
        if self._reported_up is up:
            return
        self._reported_up = up
        self._post(PortStatus(self._clock.now(), self.port_name, up, detail))

    def _post(self, event: Event) -> None:
        # A failing consumer must not kill the only thread that reads the port.
        try:
            self._post_fn(event)
        except Exception:
            log.exception("posting an event from the serial port failed",
                          kind=type(event).__name__, port=self.port_name)


def open_writer(url: str, baudrate: int = 9600) -> Any:
    """A serial port (a device or a pyserial URL) opened for writing bytes: the rig's
    adapter that plays a recorded shoe into the table's reader. The caller closes it.

    Raises:
        serial.SerialException: the port cannot be opened.
    """
    return serial.serial_for_url(url, baudrate=baudrate, timeout=1.0, write_timeout=5.0)
