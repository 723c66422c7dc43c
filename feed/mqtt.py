"""One MQTT connection (paho-mqtt 2.x, MQTT 5) for the feed and the floor: TLS, the
credentials, and the broker's troubles each said in one line.

A refused login or a certificate the CA does not vouch for cannot mend itself: the caller
stops with :class:`BrokerRefused`. A broker that is away is waited for: paho's network
thread reconnects with a backoff of 1 s doubling to 30 s, and one line says it is away,
one more when it is back.
"""

from __future__ import annotations

import ssl
import struct
import threading
import time
from collections.abc import Callable
from typing import Any

import paho.mqtt.client as paho
import structlog
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.exception import MalformedPacket
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from feed.config import Broker, read_password

log = structlog.get_logger("feed.mqtt")
RECONNECT_MIN_S = 1
RECONNECT_MAX_S = 30
SESSION_EXPIRY_S = 7 * 24 * 3600  # a persistent session outlives a week's outage


READ_AHEAD = 65536  # bytes read from the socket at a time
PUBLISH, PUBACK = 0x30, 0x40
_PUBACK = struct.Struct("!BBH")
_PUBLISH_QOS1 = bytes([PUBLISH | 2])
Received = tuple[int, str, bytes]
"""A QoS 1 message as :class:`LeanClient` hands it over: (mid, topic, payload)."""
Acked = tuple[int, int]
"""A PUBACK as :class:`LeanClient` hands it over: (mid, reason code; >= 0x80 refused)."""


def varint(n: int) -> bytes:
    """``n`` as MQTT 5's variable byte integer (§1.5.5): 7 bits a byte, low first."""
    out = bytearray()
    while True:
        n, digit = divmod(n, 128)
        out.append(digit | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _length(buf: bytes, at: int, end: int) -> tuple[int, int] | None:
    """A variable byte integer (MQTT 5 §1.5.5) at ``buf[at:end]``: (its value, the index
    after it), or None when it does not end before ``end``."""
    value, mult = 0, 1
    while at < end:
        digit = buf[at]
        value += (digit & 0x7F) * mult
        at += 1
        if not digit & 0x80:
            return value, at
        mult *= 128
    return None


def _publish(buf: bytes, start: int, end: int) -> Received | None:
    """The QoS 1 PUBLISH in ``buf[start:end]`` (its body) with a topic, or None for paho
    to handle (a topic alias alone, or not well formed)."""
    topic_end = start + 2 + int.from_bytes(buf[start:start + 2], "big")
    props = _length(buf, topic_end + 2, min(end, topic_end + 6))
    if topic_end == start + 2 or props is None or props[1] + props[0] > end:
        return None
    try:
        topic = buf[start + 2:topic_end].decode()
    except UnicodeDecodeError:
        return None
    return int.from_bytes(buf[topic_end:topic_end + 2], "big"), topic, buf[props[1] + props[0]:end]


class LeanClient(paho.Client):
    """paho's client with a lean path for the bulk of a feed's and the floor's traffic.

    paho reads a packet with four system calls or more and makes objects of each (its
    properties, a message, a reason code, a message info): at thousands of messages a
    second that is most of a feed's or the floor's CPU. Here one read takes what the
    socket has (up to :data:`READ_AHEAD` bytes) and the whole packets in it are cut out
    at once:

    - a QoS 1 PUBLISH, with ``manual_ack`` and :attr:`on_publishes` set, is handed over
      as :data:`Received`, one list a read (its properties are passed over);
    - a PUBACK of a message sent by :meth:`publish_many`, with :attr:`on_acks` set, is
      handed over as :data:`Acked`, one list a read;
    - every other packet (CONNACK, SUBACK, a PUBACK of paho's own ``publish()``...) goes
      through paho's own handling, in its order among them.

    Written against paho-mqtt 2.x's private parts (pinned <3): ``_packet_read``,
    ``_in_packet``, ``_packet_handle``, ``_packet_queue``, ``_mid_generate``.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._rest = b""  # the start of a packet not yet whole
        self.on_publishes: Callable[[list[Received]], None] | None = None
        self.on_acks: Callable[[list[Acked]], None] | None = None

    def _sock_close(self) -> None:
        self._rest = b""
        super()._sock_close()

    def _packet_read(self) -> paho.MQTTErrorCode:
        try:
            data = self._sock_recv(READ_AHEAD)
        except BlockingIOError:
            return paho.MQTTErrorCode.MQTT_ERR_AGAIN
        except OSError:  # the broker went away: paho reconnects
            return paho.MQTTErrorCode.MQTT_ERR_CONN_LOST
        if not data:
            return paho.MQTTErrorCode.MQTT_ERR_CONN_LOST
        with self._msgtime_mutex:
            self._last_bytes_received = time.monotonic()
        return self._packets(self._rest + data if self._rest else data)

    def _packets(self, buf: bytes) -> paho.MQTTErrorCode:
        """Handle each whole packet in ``buf``; keep the rest for the next read."""
        publishes: list[Received] = []
        acks: list[Acked] = []
        lean_publish = self._manual_ack and self.on_publishes is not None
        lean_ack = self.on_acks is not None
        pos, end = 0, len(buf)
        rc = paho.MQTTErrorCode.MQTT_ERR_SUCCESS
        while pos < end:
            got = _length(buf, pos + 1, min(end, pos + 5))
            if got is None:
                if end - pos > 4:
                    return paho.MQTTErrorCode.MQTT_ERR_PROTOCOL  # a length of 5 bytes
                break  # its length is not all here yet
            length, start = got
            if start + length > end:
                break  # not whole yet
            first, pos = buf[pos], start + length
            if (first & 0xF6) == (PUBLISH | 2) and lean_publish:  # QoS 1, any DUP, RETAIN
                received = _publish(buf, start, pos)
                if received is not None:
                    publishes.append(received)
                    continue
            elif first & 0xF0 == PUBACK and lean_ack and length >= 2:
                mid = int.from_bytes(buf[start:start + 2], "big")
                if mid not in self._out_messages:  # not one of paho's own publish()
                    acks.append((mid, buf[start + 2] if length > 2 else 0))
                    continue
            publishes, acks = self._hand_over(publishes, acks)
            rc = self._paho_handles(first, buf[start:pos])
            if rc:
                return rc
        self._rest = buf[pos:]
        self._hand_over(publishes, acks)
        return rc

    def _hand_over(self, publishes: list[Received],
                   acks: list[Acked]) -> tuple[list[Received], list[Acked]]:
        """Give the callbacks what was gathered; new lists to gather into."""
        if publishes and self.on_publishes is not None:
            self.on_publishes(publishes)
            publishes = []
        if acks and self.on_acks is not None:
            self.on_acks(acks)
            acks = []
        return publishes, acks

    def _paho_handles(self, first: int, body: bytes) -> paho.MQTTErrorCode:
        self._in_packet = {"command": first, "have_remaining": 1, "remaining_count": [],
                           "remaining_mult": 1, "remaining_length": len(body),
                           "packet": bytearray(body), "to_process": 0, "pos": 0}
        try:
            rc = self._packet_handle()
        except MalformedPacket:
            rc = paho.MQTTErrorCode.MQTT_ERR_PROTOCOL
        self._in_packet = {"command": 0, "have_remaining": 0, "remaining_count": [],
                           "remaining_mult": 1, "remaining_length": 0,
                           "packet": bytearray(), "to_process": 0, "pos": 0}
        return rc

    def ack_many(self, mids: list[int]) -> None:
        """Acknowledge QoS 1 messages (``manual_ack``) in one write: PUBACKs with no
        reason code (success) and no properties, as paho's own :meth:`ack` sends them."""
        if mids:
            packets = b"".join(_PUBACK.pack(PUBACK, 2, mid) for mid in mids)
            self._packet_queue(PUBACK, packets, 0, 0)

    def publish_many(self, topic: str, payloads: list[bytes]) -> list[int]:
        """Publish each payload on ``topic`` with QoS 1, no properties, in one write;
        their mids, in order. Their PUBACKs go to :attr:`on_acks`.

        Unlike ``publish()``, paho keeps no copy: the caller sends again what a lost
        link took unacknowledged (a feed resends from its cursor).
        """
        head = len(topic.encode()).to_bytes(2, "big") + topic.encode()
        mids, packets = [], []
        for body in payloads:
            mid = self._mid_generate()
            mids.append(mid)
            packets.append(_PUBLISH_QOS1 + varint(len(head) + 3 + len(body)) + head
                           + mid.to_bytes(2, "big") + b"\x00" + body)
        if packets:
            self._packet_queue(PUBLISH, b"".join(packets), 0, 1)  # qos 1: no on_publish
        return mids


class BrokerRefused(Exception):
    """The broker cannot be used as configured: credentials refused or its certificate
    not signed by the CA file. ``str()`` is one line for the log."""


def describe(broker: Broker) -> str:
    who = f" as {broker.username}" if broker.username else ""
    return f"broker {broker.url}{who}"


class Connection:
    """A paho client connected to ``broker`` as ``client_id``.

    Args:
        broker: where and how.
        client_id: the session's name at the broker (the floor's must stay the same).
        persistent: keep the session (subscriptions, unacknowledged messages) across
            disconnects (MQTT 5 clean_start false with a week's expiry).
        will: ``(topic, payload)`` the broker publishes, retained, if the link dies.
        manual_ack: the caller acknowledges each received message (``client.ack``).
        receive_maximum: how many unacknowledged QoS 1 messages the broker may send.
        on_connected: called in paho's thread on each successful CONNACK.
    """

    def __init__(self, broker: Broker, client_id: str, *, persistent: bool = False,
                 will: tuple[str, bytes] | None = None, manual_ack: bool = False,
                 receive_maximum: int = 0,
                 on_connected: Callable[[paho.Client], None] | None = None) -> None:
        self.broker = broker
        self.connected = threading.Event()
        self.refused: str | None = None
        self.receive_maximum = 0  # what the broker takes unacknowledged (0: it said not)
        self._persistent = persistent
        self._receive_maximum = receive_maximum
        self._on_connected = on_connected
        self._away_since: float | None = None
        self._stopping = False
        client = LeanClient(CallbackAPIVersion.VERSION2, client_id=client_id,
                                 protocol=paho.MQTTv5, manual_ack=manual_ack)
        if broker.username:
            client.username_pw_set(broker.username, read_password(broker))
        if broker.tls:
            client.tls_set(ca_certs=broker.ca_file or None,
                           certfile=broker.client_cert or None,
                           keyfile=broker.client_key or None,
                           cert_reqs=ssl.CERT_REQUIRED)
        if will is not None:
            client.will_set(will[0], will[1], qos=1, retain=True)
        client.reconnect_delay_set(RECONNECT_MIN_S, RECONNECT_MAX_S)
        client.on_connect = self._connected
        client.on_disconnect = self._disconnected
        self.client = client

    def _connect_properties(self) -> Properties:
        props = Properties(PacketTypes.CONNECT)
        if self._persistent:
            props.SessionExpiryInterval = SESSION_EXPIRY_S
        if self._receive_maximum:
            props.ReceiveMaximum = self._receive_maximum
        return props

    def start(self, stop: threading.Event) -> None:
        """Connect (waiting, with backoff, while the broker is away) and start paho's
        network thread, which reconnects from then on.

        Raises:
            BrokerRefused: the login was refused or the certificate is not trusted.
        """
        delay = RECONNECT_MIN_S
        while not stop.is_set():
            try:
                self.client.connect(self.broker.host, self.broker.port, keepalive=30,
                                    clean_start=not self._persistent,
                                    properties=self._connect_properties())
                break
            except ssl.SSLCertVerificationError as exc:
                raise BrokerRefused(f"{describe(self.broker)}: its certificate is not "
                                    f"trusted by ca_file {self.broker.ca_file or '(system)'}"
                                    f" ({exc.verify_message})") from None
            except ssl.SSLError as exc:
                raise BrokerRefused(f"{describe(self.broker)}: TLS failed "
                                    f"({exc.reason or exc})") from None
            except OSError as exc:
                self._away(exc.strerror or str(exc))
                stop.wait(delay)
                delay = min(delay * 2, RECONNECT_MAX_S)
        self.client.loop_start()

    def wait_connected(self, stop: threading.Event, timeout: float) -> bool:
        """Block until connected, refused (raises), stopped or ``timeout`` s."""
        deadline = time.monotonic() + timeout
        while not stop.is_set() and time.monotonic() < deadline:
            if self.refused:
                raise BrokerRefused(self.refused)
            if self.connected.wait(0.1):
                return True
        if self.refused:
            raise BrokerRefused(self.refused)
        return False

    def _away(self, why: str) -> None:
        if self._away_since is None:
            self._away_since = time.monotonic()
            log.warning("broker_away", message=f"{describe(self.broker)} is unreachable "
                        f"({why}); retrying every {RECONNECT_MIN_S}-{RECONNECT_MAX_S} s")

    def _connected(self, client: paho.Client, userdata: Any, flags: Any, reason: Any,
                   properties: Any) -> None:
        if reason.is_failure:
            self.refused = (f"{describe(self.broker)}: login refused ({str(reason).lower()}): "
                            "check username and password_file, or the client certificate")
            client.disconnect()
            return
        if self._away_since is not None:
            log.info("broker_back", message=f"{describe(self.broker)} is back after "
                     f"{time.monotonic() - self._away_since:.0f} s")
        self._away_since = None
        self.receive_maximum = int(getattr(properties, "ReceiveMaximum", 0) or 0)
        self.connected.set()
        if self._on_connected is not None:
            self._on_connected(client)

    def _disconnected(self, client: paho.Client, userdata: Any, flags: Any, reason: Any,
                      properties: Any) -> None:
        self.connected.clear()
        if self.refused is None and not self._stopping:
            self._away(str(reason))

    def stop(self) -> None:
        """Disconnect cleanly (no will) and stop the network thread."""
        self._stopping = True
        self.client.disconnect()
        self.client.loop_stop()
