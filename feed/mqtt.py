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
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from feed.config import Broker, read_password

log = structlog.get_logger("feed.mqtt")
RECONNECT_MIN_S = 1
RECONNECT_MAX_S = 30
SESSION_EXPIRY_S = 7 * 24 * 3600  # a persistent session outlives a week's outage


READ_AHEAD = 65536  # bytes read from the socket at a time
PUBACK = 0x40
_PUBACK = struct.Struct("!BBH")


class ReadAheadClient(paho.Client):
    """paho's client, reading the socket :data:`READ_AHEAD` bytes at a time.

    paho reads a packet with four system calls or more (its first byte, its length a byte
    at a time, the rest) and one packet per ``select()``: at thousands of messages a
    second that is most of the floor's time. Here a read takes what the socket has, and
    :meth:`loop_read` goes on while bytes are buffered (``select()`` cannot see them).
    The buffer is dropped with its socket. Written against paho-mqtt 2.x (pinned <3).
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._ahead = b""
        self._ahead_at = 0

    def _sock_recv(self, bufsize: int) -> bytes:
        if self._ahead_at >= len(self._ahead):
            self._ahead, self._ahead_at = super()._sock_recv(max(bufsize, READ_AHEAD)), 0
            if not self._ahead:
                return b""  # the broker closed the link
        start = self._ahead_at
        self._ahead_at = start + bufsize
        return self._ahead[start:start + bufsize]

    def _sock_close(self) -> None:
        self._ahead, self._ahead_at = b"", 0
        super()._sock_close()

    def ack_many(self, mids: list[int]) -> None:
        """Acknowledge QoS 1 messages (``manual_ack``) in one write: PUBACKs with no
        reason code (success) and no properties, as paho's own :meth:`ack` sends them."""
        if mids:
            packets = b"".join(_PUBACK.pack(PUBACK, 2, mid) for mid in mids)
            self._packet_queue(PUBACK, packets, 0, 0)

    def loop_read(self, max_packets: int = 1) -> paho.MQTTErrorCode:
        rc = super().loop_read(max_packets)
        while (rc == paho.MQTTErrorCode.MQTT_ERR_SUCCESS and self._sock is not None
               and self._ahead_at < len(self._ahead)):
            rc = super().loop_read(1)
        return rc


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
        client = ReadAheadClient(CallbackAPIVersion.VERSION2, client_id=client_id,
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
