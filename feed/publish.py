"""``table-feed``: every committed record of a table's journal to the broker, in seq order,
QoS 1, as the public may see it; the table's status retained beside them.

Topics: ``casino/{site}/{table}/records`` (one message per record, see :func:`payload`)
and ``casino/{site}/{table}/status`` (retained, :mod:`feed.status`; the will says the feed
went offline). The feed listens on ``casino/{site}/{table}/resend``: a floor that misses
records (a broker killed before it saved what it had acknowledged) asks there with
``{"from": SEQ}``, and the feed sends again from that record of the journal. The journal
is read-only (``controller.store.follow.Follower``, woken by inotify) and the daemon never
waits for the feed (project standards, Architecture).

Store and forward: the cursor (:mod:`feed.cursor`) is the last seq the broker
acknowledged; it advances only on PUBACK, over acknowledged seqs without a hole, and is
written at most once a second (an SD card: a kill costs at most a second of records sent
twice). At most ``window`` records are in flight, so memory stays flat whatever the
backlog. Records go out a batch at a time (:meth:`feed.mqtt.LeanClient.publish_many`):
paho keeps no copy, so on a reconnect the feed sends again from its cursor.

Every payload passes through ``controller.cards.masking.LiveMask`` (seed 000 Art. 6, seed
002 Art. 8, seed 003 num. 6: a face-down card is "??" until the record that turns it).
"""

from __future__ import annotations

import contextlib
import json
import sys
import threading
import time
from collections import deque
from typing import Any

import paho.mqtt.client as paho
import structlog
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.reasoncodes import ReasonCode

from controller.cards.masking import DEAL_STARTS, LiveMask
from controller.store.follow import CHUNK, Follower, Row
from feed.config import FeedConfig
from feed.cursor import Cursor, read_cursor, write_cursor
from feed.mqtt import Acked, BrokerRefused, Connection
from feed.status import offline, table_status

log = structlog.get_logger("feed")
WINDOW = 1000  # records in flight (sent, not yet acknowledged)
CURSOR_EVERY_S = 1.0
STATUS_EVERY_S = 30.0  # a heartbeat even when nothing happens
STATUS_MIN_S = 1.0  # at most one status a second while records flow


UNREADABLE = "unreadable_record"
"""The type a record whose body the feed cannot read is sent as (``t`` 0: not known)."""


def topic(site: str, table: str, kind: str) -> str:
    return f"casino/{site}/{table}/{kind}"


_encode = json.JSONEncoder(sort_keys=True, separators=(",", ":")).encode  # made once


def payload(site: str, table: str, row: Row, mask: LiveMask) -> bytes:
    """The message of one record: JSON ``{site, table, seq, type, t, hash, prev, fields,
    masked}``; ``hash`` and ``prev`` are the journal's chain hashes (the record's and the
    one before it), ``fields`` the record's other fields as the public may see them, and
    ``masked`` says a field was hidden (the body then no longer matches ``hash``)."""
    try:
        record = row.record()
        view = mask.view(record)
        kind, t = str(record["type"]), float(record["t"])
    except (KeyError, TypeError, ValueError) as exc:
        # A damaged or forged body: the floor gets the row's place in the chain and the
        # words, never a crash that would stop this table's feed for good.
        log.error("unreadable_record", seq=row.seq, why=str(exc))
        kind, t, view, record = UNREADABLE, 0.0, {"why": f"record {row.seq} cannot be "
                                                         f"read: {exc}"}, {}
    fields = {k: v for k, v in view.items() if k not in ("seq", "type", "t")}
    return _encode({"site": site, "table": table, "seq": row.seq, "type": kind, "t": t,
                    "hash": row.hash, "prev": row.prev, "fields": fields,
                    "masked": view is not record}).encode()


class Feed:
    """One table's feed. :meth:`run` until ``stop`` is set (or caught up, ``once``)."""

    def __init__(self, config: FeedConfig, window: int = WINDOW) -> None:
        self.config = config
        self.window = window
        self.stop = threading.Event()
        self._room = threading.Event()
        # PUBACKs from paho's thread, taken in the main thread, which alone keeps the rest.
        self._acks: deque[Acked] = deque()
        self._relinked = False  # paho's thread: a new link; what was in flight is lost
        self._inflight: dict[int, tuple[int, str]] = {}  # mid -> (seq, hash)
        self._acked: dict[int, str] = {}  # seq -> hash, acknowledged past the cursor
        self._resends: deque[bytes] = deque()  # requests from the floor, from paho's thread
        self._refused: str | None = None
        self.follower = Follower(config.journal)
        self._game_start = config.spec.recall.start
        self.cursor, problem = read_cursor(config.cursor)
        if problem:
            log.warning("cursor_unusable", message=problem)
        self._saved, self._saved_at = self.cursor, 0.0
        self._sent = self.cursor.seq
        self._generation = 0
        self.mask = LiveMask(self._game_start)
        self._status_at = 0.0
        self._status_due = True
        self._problem: str | None = None
        will = offline(config.table)
        self.conn = Connection(config.broker, f"table-feed-{config.site}-{config.table}",
                               will=(self._topic("status"), json.dumps(will).encode()),
                               on_connected=self._connected)
        self.conn.client.on_acks = self._puback
        self.conn.client.on_message = self._resend_request

    def _topic(self, kind: str) -> str:
        return topic(self.config.site, self.config.table, kind)

    # -- paho's thread: it only hands the acknowledgements and requests over ------------
    def _connected(self, client: paho.Client) -> None:
        client.subscribe(self._topic("resend"), qos=1)
        self._status_due = True
        self._relinked = True
        self._room.set()

    def _puback(self, acks: list[Acked]) -> None:
        self._acks.extend(acks)
        self._room.set()

    def _resend_request(self, client: paho.Client, userdata: Any,
                        msg: paho.MQTTMessage) -> None:
        self._resends.append(bytes(msg.payload))
        self._room.set()

    # -- the main thread -------------------------------------------------------------------
    def run(self, once: bool = False) -> int:
        """Publish until stopped; with ``once`` until every record committed when it
        started is acknowledged. Returns the exit code: 0, 2 when the broker refuses
        the feed (one line in the log says why), or 1 with ``once`` when the journal
        cannot be read (nothing to publish is no success: one line)."""
        try:
            self.conn.start(self.stop)
            goal = self.follower.head() if once else None
            while not self.stop.is_set():
                if self._refused:
                    raise BrokerRefused(self._refused)
                if not self.conn.connected.is_set():
                    self.conn.wait_connected(self.stop, 1.0)
                    continue
                self._take_acks()
                if self._relinked:
                    self._resend_unacknowledged()
                self._check_journal()
                self._take_resends()
                sent = self._send()
                self._save_cursor(force=False)
                self._status(force=False)
                if goal is not None and self._caught_up(goal):
                    break
                if not sent:
                    self._idle()
        except BrokerRefused as exc:
            print(f"table-feed: {exc}", file=sys.stderr)  # one line, whatever the log's form
            return 2
        finally:
            self._shutdown()
        if once and self.follower.problem is not None:
            print(f"table-feed: {self.follower.problem}: nothing published", file=sys.stderr)
            return 1
        return 0

    def _take_acks(self) -> None:
        """Advance the cursor over the acknowledged records without a hole before them."""
        while self._acks:
            mid, reason = self._acks.popleft()
            sent = self._inflight.pop(mid, None)
            if sent is None:
                continue  # a record sent before a new link or of a journal followed before
            if reason >= 0x80:
                words = str(ReasonCode(PacketTypes.PUBACK, identifier=reason)).lower()
                self._refused = (f"broker {self.config.broker.url} refused record {sent[0]} "
                                 f"on {self._topic('records')} ({words})")
                return
            if sent[0] > self.cursor.seq:  # not one sent again on the floor's request
                self._acked[sent[0]] = sent[1]
        old = seq = self.cursor.seq
        while seq + 1 in self._acked:
            seq += 1
        if seq != old:
            self.cursor = Cursor(seq, self._acked[seq])
            for done in range(old + 1, seq + 1):
                del self._acked[done]

    def _resend_unacknowledged(self) -> None:
        """A new link: what the old one had in flight is lost (paho kept no copy); send
        again from the cursor (the broker's PUBACKs after it are kept). Not while the
        journal cannot be read: the mask could not be set as it stands there."""
        if self._problem:
            return  # asked again each turn until the journal reads
        self._relinked = False
        if self._inflight:
            self._inflight.clear()
            self._sent = self.cursor.seq
            self.mask = self._mask_at(self.cursor.seq)

    def _take_resends(self) -> None:
        """Send again from the first record a floor asks for (``{"from": SEQ}``, SEQ
        from 1 to the last record sent); a request that is not one is one line."""
        first = None
        while self._resends:
            raw = self._resends.popleft()
            try:
                seq = json.loads(raw)["from"]
                if not isinstance(seq, int) or isinstance(seq, bool) or seq < 1:
                    raise ValueError
            except (ValueError, TypeError, KeyError):
                log.warning("bad_resend", message=f"{self._topic('resend')}: not a request "
                            f'{{"from": SEQ}} ({raw[:60]!r}): ignored')
                continue
            first = seq if first is None else min(first, seq)
        if first is None or first > self._sent or self._problem:
            return  # nothing sent from there yet: it goes out in its turn
        log.info("resend", message=f"the floor asks for records from #{first}: sending "
                 f"#{first}-#{self._sent} again from the journal")
        self._sent = first - 1
        self.mask = self._mask_at(first - 1)

    def _caught_up(self, goal: int) -> bool:
        return self.cursor.seq >= goal and not self._inflight

    def _check_journal(self) -> None:
        """A new journal file (the first, or one put in the old one's place): resume at the
        cursor if it is this journal's, else from the first record."""
        head = self.follower.head()  # opens the file: generation and problem are fresh
        if self.follower.problem != self._problem:
            self._problem = self.follower.problem
            self._status_due = True
            if self._problem:
                log.warning("journal_unreadable", message=self._problem)
        if self.follower.generation == self._generation or self._problem:
            return
        self._generation = self.follower.generation
        self._inflight.clear()  # an older file's records: their acks count no more
        self._acked.clear()
        cursor = self.cursor
        rows = self.follower.rows(cursor.seq - 1, 1) if cursor.seq else []
        if cursor.seq and (not rows or rows[0].hash != cursor.hash or head < cursor.seq):
            log.warning("journal_replaced", message=f"{self.config.journal} is not the "
                        f"journal of cursor {self.config.cursor} (seq {cursor.seq}): "
                        "sending from its first record")
            cursor = Cursor()
        self.cursor, self._sent = cursor, cursor.seq
        self.mask = self._mask_at(cursor.seq)

    def _mask_at(self, seq: int) -> LiveMask:
        """The mask as it stands after record ``seq``: fed the last deal start or game
        start at or before it."""
        mask = LiveMask(self._game_start)
        back = seq
        while back > 0:
            first = max(0, back - CHUNK)
            rows = self.follower.rows(first, back - first)
            for row in reversed(rows):
                try:
                    kind = row.record().get("type")
                except ValueError:
                    continue  # a damaged record starts no deal
                if kind in (DEAL_STARTS, self._game_start):
                    mask.view({"type": kind})
                    return mask
            back = first
        return mask

    def _send(self) -> int:
        """Hand paho the next records while the window has room; how many."""
        room = min(self.window, self.conn.receive_maximum or self.window) - len(self._inflight)
        if room <= 0 or self._problem:
            return 0
        rows = self.follower.rows(self._sent, min(room, CHUNK))
        if not rows:
            return 0
        site, table, mask = self.config.site, self.config.table, self.mask
        mids = self.conn.client.publish_many(self._topic("records"),
                                             [payload(site, table, row, mask) for row in rows])
        for mid, row in zip(mids, rows, strict=True):
            self._inflight[mid] = (row.seq, row.hash)
        self._sent = rows[-1].seq
        self._status_due = True
        return len(rows)

    def _idle(self) -> None:
        """Wait for an acknowledgement while records are in flight, else for a commit
        (inotify) or a second; a cursor not yet saved is saved within it."""
        self._room.clear()
        if self._acks:
            return
        if self._inflight:
            self._room.wait(1.0)
            return
        # A second at most: a floor's resend request (rare) is answered within it.
        self.follower.wait(CURSOR_EVERY_S)

    def _save_cursor(self, force: bool) -> None:
        cursor = self.cursor
        if cursor == self._saved:
            return
        if not force and time.monotonic() - self._saved_at < CURSOR_EVERY_S:
            return
        try:
            write_cursor(self.config.cursor, cursor)
        except OSError as exc:
            log.error("cursor_unwritable", message=f"cursor {self.config.cursor} cannot be "
                      f"written ({exc.strerror or exc}): records will be sent again")
        self._saved, self._saved_at = cursor, time.monotonic()

    def _status(self, force: bool) -> None:
        now = time.monotonic()
        due = self._status_due and now - self._status_at >= STATUS_MIN_S
        if not (force or due or now - self._status_at >= STATUS_EVERY_S):
            return
        status = table_status(self.config.journal, self.config.table, self.config.spec,
                              self.config.games, self.follower.head(), self.cursor.seq,
                              self._problem)
        self.conn.client.publish(self._topic("status"), json.dumps(status).encode(),
                                 qos=1, retain=True)
        self._status_at, self._status_due = now, False

    def _shutdown(self) -> None:
        self._take_acks()
        self._save_cursor(force=True)
        if self.conn.connected.is_set():
            self._status(force=True)
            status = offline(self.config.table)
            status["problem"] = "the feed was stopped"
            info = self.conn.client.publish(self._topic("status"),
                                            json.dumps(status).encode(), qos=1, retain=True)
            # The link may go as we stop: the will says offline instead.
            with contextlib.suppress(RuntimeError, ValueError):
                info.wait_for_publish(2.0)
        self.conn.stop()
        self._take_acks()
        self._save_cursor(force=True)
        self.follower.close()
