"""``table-floor run``: every table's records from the broker into PostgreSQL.

It subscribes to ``casino/{site}/+/records`` and ``casino/{site}/+/status`` (QoS 1) in a
persistent session (MQTT 5, the same client id, a week's expiry): while it is away the
broker keeps what comes. Each message is acknowledged (paho's manual ack) only once it is
stored, or once it is known it never can be (not a record, a table not on the floor: one
line says so). Messages are taken in batches as they come (up to :data:`BATCH`, gathered
for :data:`GATHER_S` s), one transaction each (:class:`feed.floor_db.Store`), and
acknowledged together in one write. PostgreSQL down, or refusing (a bad connection
string, a role without rights on the table; anything but a record's data): one line, then
the batch is retried with a backoff of 1 s doubling to 30 s; meanwhile nothing is acknowledged and
the broker holds the rest (at most ``receive_maximum`` unacknowledged messages are sent).

Records the broker lost (killed before it saved what it had acknowledged: Mosquitto
writes its persistence now and then) are asked for again: a gap in a table's chain, or a
status whose ``published`` is beyond the chain's head while the head stands still for
:data:`TAIL_WAIT_S` (then a gap alarm), makes the floor publish ``{"from": SEQ}``, SEQ
the first record missing, on ``casino/{site}/{table}/resend`` (QoS 1); the table's feed
sends again from there. Asked again after :data:`ASK_AGAIN_S` s (doubling to
:data:`ASK_AGAIN_MAX_S`) while the head has not moved.
"""

from __future__ import annotations

import contextlib
import json
import sys
import threading
import time
from dataclasses import dataclass
from typing import Any

import paho.mqtt.client as paho
import psycopg
import structlog

from feed.config import FloorConfig
from feed.floor_db import Chain, Record, Store, connect, load_chains
from feed.mqtt import BrokerRefused, Connection, Received

log = structlog.get_logger("floor")
BATCH = 2000
RECEIVE_MAXIMUM = 5000  # unacknowledged messages the broker may send the floor
GATHER_S = 0.02  # how long a batch gathers messages after its first
RETRY_MIN_S, RETRY_MAX_S = 1.0, 30.0
TAIL_WAIT_S = 2.0  # the head standing still below a feed's published seq this long
ASK_AGAIN_S, ASK_AGAIN_MAX_S = 5.0, 300.0
CHECK_EVERY_S = 0.5


@dataclass
class Asked:
    """A resend request published: ``at`` (monotonic s), the chain's ``head`` then, and
    the wait before asking again, ``every`` s."""

    at: float
    head: int
    every: float = ASK_AGAIN_S


class NotARecord(ValueError):
    """A message on a records topic that is not a feed's record (the words say why)."""


_KINDS: tuple[tuple[str, type | tuple[type, ...]], ...] = (
    ("seq", int), ("type", str), ("t", (int, float)), ("hash", str), ("prev", str),
    ("fields", dict))


def parse_record(site: str, table: str, payload: bytes) -> Record:
    """The record in a feed's message (:func:`feed.publish.payload`) on the topic of
    ``table``. Raises NotARecord."""
    try:
        data = json.loads(payload.decode())  # UTF-8 alone, as PostgreSQL takes it
    except ValueError:  # UnicodeDecodeError is one
        raise NotARecord("not JSON") from None
    if not isinstance(data, dict):
        raise NotARecord("not a JSON object")
    for key, kind in _KINDS:
        value = data.get(key)
        if not isinstance(value, kind) or value is True or value is False:
            raise NotARecord(f"no {key} of the right kind")
    if not 1 <= data["seq"] < 2**63:  # PostgreSQL's bigint
        raise NotARecord(f"seq {data['seq']} is not from 1 to 2**63 - 1")
    try:
        t = float(data["t"])
    except OverflowError:
        raise NotARecord("its t is out of a double's range") from None
    if b"\\u0000" in payload:
        raise NotARecord("a NUL character, which PostgreSQL's JSON cannot hold")
    if data.get("table", table) != table:
        raise NotARecord(f"its table {data['table']!r} is not the topic's")
    return Record(site, table, data["seq"], data["type"], t, data["hash"], data["prev"],
                  data.get("masked") is True, payload)


class Floor:
    """The floor's subscriber and writer. :meth:`run` until ``stop`` is set."""

    def __init__(self, config: FloorConfig) -> None:
        self.config = config
        self.stop = threading.Event()
        self._inbox: list[Received] = []  # from paho's thread, under _arrived
        self._arrived = threading.Condition()
        self._unconfigured: set[str] = set()
        self.conn = Connection(config.broker, f"table-floor-{config.site}", persistent=True,
                               manual_ack=True, receive_maximum=RECEIVE_MAXIMUM,
                               on_connected=self._subscribe)
        self.conn.client.on_publishes = self._publishes
        self.conn.client.on_message = self._message
        self.conn.client.on_subscribe = self._subscribed
        self._db: psycopg.Connection[Any] | None = None
        self._store: Store | None = None
        self._published: dict[str, int] = {}  # table -> the seq its feed last said acked
        self._still: dict[str, tuple[float, int]] = {}  # table -> (since, head) below it
        self._asked: dict[str, Asked] = {}
        self._checked_at = 0.0

    def _subscribe(self, client: paho.Client) -> None:
        site = self.config.site
        client.subscribe([(f"casino/{site}/+/records", 1), (f"casino/{site}/+/status", 1)])

    def _subscribed(self, client: paho.Client, userdata: Any, mid: int, reasons: Any,
                    properties: Any) -> None:
        site = self.config.site
        topics = f"casino/{site}/+/records and casino/{site}/+/status"
        refused = [str(r) for r in reasons if getattr(r, "is_failure", False)]
        if refused:  # an ACL that denies them: nothing will come, say so once a connect
            log.error("subscription_refused", message=f"the broker refused {topics}: "
                      f"{', '.join(refused)}; check its ACL for this user")
            return
        log.info("subscribed", message=f"{topics} (QoS 1)")

    def _publishes(self, got: list[Received]) -> None:
        """QoS 1 messages, as paho's thread cut them from one read."""
        with self._arrived:
            self._inbox += got
            self._arrived.notify()

    def _message(self, client: paho.Client, userdata: Any, msg: paho.MQTTMessage) -> None:
        """A message the lean path leaves to paho (QoS 0: mid 0, nothing to acknowledge)."""
        self._publishes([(msg.mid if msg.qos else 0, msg.topic, bytes(msg.payload))])

    def run(self) -> int:
        """Store until stopped. Returns 0, or 2 when the broker refuses the floor."""
        try:
            if not self._store_batch([], []):  # the database first: nothing to ack before
                return 0
            self.conn.start(self.stop)
            self.conn.wait_connected(self.stop, 30.0)
            while not self.stop.is_set():
                if self.conn.refused:
                    raise BrokerRefused(self.conn.refused)
                batch = self._take()
                if batch:
                    self._handle(batch)
                if time.monotonic() - self._checked_at >= CHECK_EVERY_S:
                    self._ask_for_missing()
        except BrokerRefused as exc:
            print(f"table-floor: {exc}", file=sys.stderr)  # one line, whatever the log's form
            return 2
        finally:
            self.conn.stop()
            if self._db is not None:
                self._db.close()
        return 0

    def _take(self) -> list[Received]:
        """The messages come, up to :data:`BATCH`; [] after half a second without one."""
        with self._arrived:
            if not self._arrived.wait_for(lambda: self._inbox, 0.5):
                return []
            # A little more gathered: a transaction a record would cost PostgreSQL a
            # commit (an fsync) each, and the latency it adds is well within the goal.
            self._arrived.wait_for(lambda: len(self._inbox) >= BATCH, GATHER_S)
            batch, self._inbox = self._inbox[:BATCH], self._inbox[BATCH:]
        return batch

    def _handle(self, batch: list[Received]) -> None:
        records: list[Record] = []
        statuses: list[tuple[str, str, dict[str, Any]]] = []
        site, tables = self.config.site, self.config.tables
        for _, topic, payload in batch:
            parts = topic.split("/")
            table, kind = parts[2], parts[3]
            if tables and table not in tables:
                self._unconfigured_table(topic, table)
            elif kind == "records":
                try:
                    records.append(parse_record(site, table, payload))
                except NotARecord as exc:
                    log.warning("not_a_record", message=f"{topic}: a message that is not a "
                                f"record ({exc}): dropped")
            else:
                self._status(topic, table, payload, statuses)
        records.sort(key=lambda r: (r.table, r.seq))
        if not self._store_batch(records, statuses):
            return  # stopped before it was stored: the broker sends it again
        self.conn.client.ack_many([mid for mid, _, _ in batch if mid])

    def _unconfigured_table(self, topic: str, table: str) -> None:
        if table not in self._unconfigured:
            self._unconfigured.add(table)
            log.warning("unconfigured_table", message=f"{topic}: table {table} is not on "
                        f"the floor ([floor] tables of {self.config.source}): its messages "
                        "are not stored")

    def _status(self, topic: str, table: str, payload: bytes,
                statuses: list[tuple[str, str, dict[str, Any]]]) -> None:
        try:
            status = json.loads(payload)
        except ValueError:
            status = None
        if not isinstance(status, dict):  # a list of pairs would make a dict: refused
            log.warning("not_a_status", message=f"{topic}: not a JSON status: dropped")
            return
        published = status.get("published")
        if isinstance(published, int) and not isinstance(published, bool):
            if not 0 <= published < 2 ** 63:
                log.warning("not_a_status", message=f"{topic}: its published seq "
                            f"{published} is not from 0 to 2**63 - 1: dropped")
                return
            self._published[table] = published
        statuses.append((self.config.site, table, status))

    def _ask_for_missing(self) -> None:
        """Ask each table's feed for the records its chain misses (see the module)."""
        now = self._checked_at = time.monotonic()
        store = self._store
        if store is None:
            return
        site = self.config.site
        keys = {k for k in store.chains if k[0] == site} | {(site, t) for t in self._published}
        for key in sorted(keys):
            table, chain = key[1], store.chains.get(key, Chain())
            head = chain.head_seq
            if not chain.gap_from and self._published.get(table, 0) > head:
                since, then = self._still.setdefault(table, (now, head))
                if then != head:
                    self._still[table] = (now, head)
                elif now - since >= TAIL_WAIT_S:
                    self._tail_alarm(key, self._published[table])
                    chain = store.chains.get(key, chain)
            else:
                self._still.pop(table, None)
            if chain.gap_from:
                self._ask(table, head, now)
            else:
                self._asked.pop(table, None)

    def _tail_alarm(self, key: tuple[str, str], last: int) -> None:
        assert self._store is not None
        try:
            for alarm in self._store.missing_tail(key, last):
                log.error("chain_alarm", message=alarm)
        except psycopg.Error as exc:  # the next check tries again
            log.warning("alarm_not_stored", message=f"table {key[1]}: the alarm of its "
                        f"missing records cannot be stored yet ({_first_line(exc)})")
            self._drop_db()

    def _ask(self, table: str, head: int, now: float) -> None:
        asked = self._asked.get(table)
        if asked is not None and (asked.head != head or now - asked.at < asked.every):
            if asked.head != head:  # records came: wait as long again from here
                self._asked[table] = Asked(now, head)
            return
        every = ASK_AGAIN_S if asked is None else min(asked.every * 2, ASK_AGAIN_MAX_S)
        self._asked[table] = Asked(now, head, every)
        topic = f"casino/{self.config.site}/{table}/resend"
        self.conn.client.publish(topic, json.dumps({"from": head + 1}).encode(), qos=1)
        log.info("resend_asked", message=f"table {table}: records from #{head + 1} "
                 f"asked for again on {topic}")

    def _store_batch(self, records: list[Record],
                     statuses: list[tuple[str, str, dict[str, Any]]]) -> bool:
        """Store, retrying while PostgreSQL is away or refuses (one line when it goes,
        one when it is back); a record or status whose data PostgreSQL refuses
        (``DataError``) is dropped alone, with a line; whether it was stored (False:
        stopped first)."""
        delay, down_since = RETRY_MIN_S, None
        while not self.stop.is_set():
            try:
                store = self._database()
                for alarm in store.store(records, statuses):
                    log.error("chain_alarm", message=alarm)
                if down_since is not None:
                    log.info("database_back", message=f"PostgreSQL is back after "
                             f"{time.monotonic() - down_since:.0f} s")
                return True
            except (psycopg.DataError, psycopg.IntegrityError) as exc:  # one at a time
                if len(records) + len(statuses) <= 1:
                    what = f"record {records[0].seq} of table {records[0].table}" if records \
                        else "a status"
                    log.error("not_storable", message=f"{what} cannot be stored "
                              f"({_first_line(exc)}): dropped")
                    return True
                return all([self._store_batch([r], []) for r in records] +
                           [self._store_batch([], [s]) for s in statuses])
            except psycopg.Error as exc:
                # The database, not the data: down, a bad connection string, a role
                # without rights on the table. Nothing is acknowledged until it stores.
                if down_since is None:
                    down_since = time.monotonic()
                    log.error("database_down", message=f"PostgreSQL ({_where(self.config)}) "
                              f"is unavailable: {_first_line(exc)}; retrying every "
                              f"{RETRY_MIN_S:.0f}-{RETRY_MAX_S:.0f} s, nothing acknowledged")
                self._drop_db()
                self.stop.wait(delay)
                delay = min(delay * 2, RETRY_MAX_S)
        return False

    def _database(self) -> Store:
        if self._store is None:
            self._db = connect(self.config.database)
            self._store = Store(self._db, load_chains(self._db))
        return self._store

    def _drop_db(self) -> None:
        if self._db is not None:
            with contextlib.suppress(psycopg.Error):
                self._db.close()
        self._db, self._store = None, None


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def _where(config: FloorConfig) -> str:
    """The database's host and name, without a password the string may hold."""
    try:
        info = psycopg.conninfo.conninfo_to_dict(config.database)
    except psycopg.ProgrammingError:
        return "the [floor] database"
    return f"host {info.get('host', 'local')} port {info.get('port', 5432)} " \
           f"db {info.get('dbname', '?')}"
