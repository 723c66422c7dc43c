"""The serial transport on pseudo-terminals and pyserial's loop:// (no hardware needed)."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from controller.core.events import Event, PortStatus, SerialData
from drivers.serial_port import SerialTransport

WAIT = 5.0  # seconds: upper bound of every wait; they end as soon as the condition holds


class MonotonicClock:
    def now(self) -> float:
        return time.monotonic()


class Sink:
    """Collects posted events; tests wait on its condition, never sleep."""

    def __init__(self, fail_first: bool = False) -> None:
        self.events: list[Event] = []
        self._cond = threading.Condition()
        self._fail_first = fail_first
        self.failures = 0

    def post(self, event: Event) -> None:
        with self._cond:
            if self._fail_first and isinstance(event, SerialData):
                self._fail_first = False
                self.failures += 1
                self._cond.notify_all()
                raise RuntimeError("consumer failed")
            self.events.append(event)
            self._cond.notify_all()

    def wait_for(self, predicate: Callable[[], bool]) -> None:
        with self._cond:
            assert self._cond.wait_for(predicate, WAIT), f"timed out; events: {self.events}"

    def data(self) -> bytes:
        return b"".join(e.data for e in self.events if isinstance(e, SerialData))

    def statuses(self) -> list[bool]:
        return [e.up for e in self.events if isinstance(e, PortStatus)]


@pytest.fixture
def sink() -> Sink:
    return Sink()


@pytest.fixture
def transports() -> Iterator[list[SerialTransport]]:
    started: list[SerialTransport] = []
    yield started
    for transport in started:
        transport.stop()


def start(
    transports: list[SerialTransport], url: str, sink: Sink, port: str = "shoe"
) -> SerialTransport:
    transport = SerialTransport(
        port, url, 9600, sink.post, MonotonicClock(), reconnect_backoff=(0.02, 0.2)
    )
    transports.append(transport)
    transport.start()
    return transport


def link_pty(link: Path) -> tuple[int, int]:
    """A new pty pair; ``link`` (replaced atomically) points to its slave."""
    master, slave = os.openpty()
    tmp = link.with_suffix(".new")
    tmp.symlink_to(os.ttyname(slave))
    os.replace(tmp, link)
    return master, slave


def test_pty_bytes_arrive_as_serial_data(
    tmp_path: Path, sink: Sink, transports: list[SerialTransport]
) -> None:
    master, slave = link_pty(tmp_path / "shoe")
    try:
        start(transports, str(tmp_path / "shoe"), sink)
        sink.wait_for(lambda: sink.statuses() == [True])
        stream = b"[Game]<Card:4S>\r\n" * 200
        os.write(master, stream)
        sink.wait_for(lambda: sink.data() == stream)
        chunks = [e for e in sink.events if isinstance(e, SerialData)]
        assert all(e.port == "shoe" for e in chunks)
        assert [e.t for e in chunks] == sorted(e.t for e in chunks)
    finally:
        os.close(master)
        os.close(slave)


def test_pty_unplugged_and_back(
    tmp_path: Path, sink: Sink, transports: list[SerialTransport]
) -> None:
    link = tmp_path / "shoe"
    master, slave = link_pty(link)
    start(transports, str(link), sink)
    sink.wait_for(lambda: sink.statuses() == [True])
    first = b"[Game]<Card:4S>\r\n[Game]<Ca"  # the stream is cut mid-line
    os.write(master, first)
    sink.wait_for(lambda: sink.data() == first)

    link.unlink()  # so no reopen can reach another test's pty that reuses the number
    os.close(slave)
    os.close(master)  # the device vanishes: reads fail on the transport's side
    sink.wait_for(lambda: sink.statuses() == [True, False])
    down = [e for e in sink.events if isinstance(e, PortStatus)][-1]
    assert down.detail and down.port == "shoe"

    master, slave = link_pty(link)  # plugged back, at the same path
    try:
        sink.wait_for(lambda: sink.statuses() == [True, False, True])
        second = b"".join(f"[Game]<Card:{n}H>\r\n".encode() for n in range(2, 10)) * 50
        os.write(master, second)
        sink.wait_for(lambda: len(sink.data()) >= len(first + second))
        assert sink.data() == first + second
        assert sink.statuses() == [True, False, True]  # down posted once
    finally:
        os.close(master)
        os.close(slave)


def test_missing_device_reported_once_then_opened_when_it_appears(
    tmp_path: Path, sink: Sink, transports: list[SerialTransport]
) -> None:
    link = tmp_path / "shoe"
    start(transports, str(link), sink)
    sink.wait_for(lambda: sink.statuses() == [False])
    master, slave = link_pty(link)
    try:
        sink.wait_for(lambda: sink.statuses() == [False, True])
        os.write(master, b"[Cut]\r\n")
        sink.wait_for(lambda: sink.data() == b"[Cut]\r\n")
    finally:
        os.close(master)
        os.close(slave)


def test_loop_url_and_stop(sink: Sink, transports: list[SerialTransport]) -> None:
    transport = start(transports, "loop://", sink)
    sink.wait_for(lambda: sink.statuses() == [True])
    transport.write(b"<W0x01>\r\n")
    sink.wait_for(lambda: sink.data() == b"<W0x01>\r\n")
    transport.stop()
    with pytest.raises(ConnectionError):
        transport.write(b"x")


def test_failing_consumer_does_not_kill_the_reader(transports: list[SerialTransport]) -> None:
    sink = Sink(fail_first=True)
    transport = start(transports, "loop://", sink)
    sink.wait_for(lambda: sink.statuses() == [True])
    transport.write(b"lost")
    sink.wait_for(lambda: sink.failures == 1)
    transport.write(b"[Cut]\r\n")
    # The failed chunk may be just the first byte ("l"); every later byte still arrives.
    sink.wait_for(lambda: sink.data().endswith(b"[Cut]\r\n"))


def test_bad_backoff() -> None:
    with pytest.raises(ValueError):
        SerialTransport("shoe", "loop://", 9600, Sink().post, MonotonicClock(), (1.0, 0.5))
