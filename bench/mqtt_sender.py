"""A bare MQTT 5 publisher for the floor's bench: it stands in for many tables' feeds
(which run on the tables' Pis, not on the floor's server) at a cost per message small
enough that the bench measures the broker and ``table-floor``, not its senders.

Plain MQTT 5 over TCP (the OASIS standard's CONNECT, PUBLISH QoS 1, PUBACK): packets are
made here and written many at a time, at most ``window`` unacknowledged, as a feed keeps.
"""

from __future__ import annotations

import socket
import struct
import threading
from collections.abc import Iterable

from feed.mqtt import varint


def _text(s: str | bytes) -> bytes:
    raw = s.encode() if isinstance(s, str) else s
    return struct.pack("!H", len(raw)) + raw


def _packet(first: int, body: bytes) -> bytes:
    return bytes([first]) + varint(len(body)) + body


class Sender:
    """A connection to the broker at ``port`` (loopback) as ``username``.

    Raises:
        ConnectionError: the broker refused the login.
    """

    def __init__(self, port: int, client_id: str, username: str, password: str,
                 window: int = 1000) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.window = window
        self._inflight = 0
        self._cond = threading.Condition()
        body = (_text("MQTT") + bytes([5, 0xC2]) + struct.pack("!H", 60) + b"\x00"
                + _text(client_id) + _text(username) + _text(password))
        self.sock.sendall(_packet(0x10, body))
        connack = self._read_packet()
        if connack[0] >> 4 != 2 or connack[1][1] != 0:
            raise ConnectionError(f"the broker refused the sender (CONNACK {connack})")
        self._reader = threading.Thread(target=self._read_acks, daemon=True)
        self._reader.start()

    def _read_exact(self, n: int, buf: bytearray) -> bytes:
        while len(buf) < n:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("the broker closed the link")
            buf += chunk
        out = bytes(buf[:n])
        del buf[:n]
        return out

    def _read_packet(self, buf: bytearray | None = None) -> tuple[int, bytes]:
        buf = bytearray() if buf is None else buf
        first = self._read_exact(1, buf)[0]
        length, mult = 0, 1
        while True:
            digit = self._read_exact(1, buf)[0]
            length += (digit & 0x7F) * mult
            mult *= 128
            if not digit & 0x80:
                break
        return first, self._read_exact(length, buf)

    def _read_acks(self) -> None:
        buf = bytearray()
        try:
            while True:
                first, _ = self._read_packet(buf)
                if first >> 4 == 4:  # PUBACK
                    with self._cond:
                        self._inflight -= 1
                        self._cond.notify()
        except OSError:
            return

    def publish_all(self, messages: Iterable[tuple[str, bytes]], group: int = 100) -> None:
        """Publish each ``(topic, payload)`` with QoS 1, then wait for every PUBACK."""
        mid, pending = 0, []
        for topic, payload in messages:
            mid = mid % 65535 + 1
            pending.append(_packet(0x32, _text(topic) + struct.pack("!H", mid) + b"\x00"
                                   + payload))
            if len(pending) == group:
                self._send(pending)
                pending = []
        self._send(pending)
        with self._cond:
            self._cond.wait_for(lambda: self._inflight == 0, timeout=120)

    def _send(self, packets: list[bytes]) -> None:
        with self._cond:
            self._cond.wait_for(lambda: self._inflight + len(packets) <= self.window)
            self._inflight += len(packets)
        self.sock.sendall(b"".join(packets))

    def close(self) -> None:
        self.sock.sendall(b"\xe0\x00")  # DISCONNECT, normal
        self.sock.close()
