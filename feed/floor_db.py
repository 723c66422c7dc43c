"""The floor's PostgreSQL (psycopg 3): every table's records, their chain checked as they
are stored, the alarms it raised and each table's last status.

Tables:

- ``records``: one row per record, keyed by ``(site, table_name, seq)``: ``type``, ``t``
  (the record's time, epoch s), ``hash`` and ``prev`` (the journal's chain hashes),
  ``masked`` (a field was hidden from the public), ``body`` (JSONB: the record as the
  public may see it, ``seq``, ``type``, ``t`` and its fields) and ``stored_at``. A record
  sent twice is stored once (``ON CONFLICT DO NOTHING``); one that comes again with
  another hash, previous hash or body is a ``conflict`` alarm (two tables given one
  name, a forgery): the first stored stays, a person must look.
- ``chains``: per table, ``head_seq``/``head_hash``: the last record up to which every
  record is stored and linked (prev = the hash of the one before it).
- ``alarms``: a ``gap`` (records missing before ones stored; ``resolved_at`` set when they
  arrive), a ``conflict`` (above) or a ``broken_link`` (a record whose ``prev`` is not
  the hash of the one before: a person must look), with ``first_seq``..``last_seq``
  and a line of words.
- ``statuses``: per table, the last status its feed published (JSONB, merged over the
  one before: the will's "offline" keeps the last state known) and when.

Records are batched: one COPY and one ``INSERT ... SELECT`` per batch, one commit.
"""

from __future__ import annotations

import json
import struct
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, NamedTuple

import psycopg

from controller.store.chain import GENESIS

SCHEMA = """
CREATE TABLE IF NOT EXISTS records (
    site text NOT NULL, table_name text NOT NULL, seq bigint NOT NULL,
    type text NOT NULL, t double precision NOT NULL, hash text NOT NULL,
    prev text NOT NULL, masked boolean NOT NULL, body jsonb NOT NULL,
    stored_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    PRIMARY KEY (site, table_name, seq));
CREATE TABLE IF NOT EXISTS chains (
    site text NOT NULL, table_name text NOT NULL, head_seq bigint NOT NULL,
    head_hash text NOT NULL, PRIMARY KEY (site, table_name));
CREATE TABLE IF NOT EXISTS alarms (
    id bigserial PRIMARY KEY, site text NOT NULL, table_name text NOT NULL,
    kind text NOT NULL, first_seq bigint NOT NULL, last_seq bigint NOT NULL,
    message text NOT NULL, raised_at timestamptz NOT NULL DEFAULT now(),
    resolved_at timestamptz);
CREATE TABLE IF NOT EXISTS statuses (
    site text NOT NULL, table_name text NOT NULL, status jsonb NOT NULL,
    received_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (site, table_name));
"""
# A batch goes in by a binary COPY into a scratch table, then into records in one
# statement (the pure-Python libpq binding adapts values slowly; the COPY's rows are
# made here, the message as it came, with no escaping).
# The body is made there from the message as it came (its fields with seq, type and t).
_STAGE = ("CREATE TEMP TABLE IF NOT EXISTS incoming (site text, table_name text, seq bigint, "
          "type text, t float8, hash text, prev text, masked bool, message jsonb) "
          "ON COMMIT DELETE ROWS")
_COPY = "COPY incoming FROM STDIN (FORMAT BINARY)"
_MOVE = ("INSERT INTO records (site, table_name, seq, type, t, hash, prev, masked, body) "
         "SELECT site, table_name, seq, type, t, hash, prev, masked, (message->'fields') || "
         "jsonb_build_object('seq', message->'seq', 'type', message->'type', 't', "
         "message->'t') FROM incoming ORDER BY table_name, seq ON CONFLICT DO NOTHING")
# The records of the batch that a stored one of the same seq contradicts.
_CONFLICTS = ("SELECT i.site, i.table_name, i.seq, r.hash <> i.hash, r.prev <> i.prev "
              "FROM incoming i JOIN records r ON r.site = i.site AND r.table_name = "
              "i.table_name AND r.seq = i.seq WHERE r.hash <> i.hash OR r.prev <> i.prev OR "
              "r.body <> (i.message->'fields') || jsonb_build_object('seq', i.message->'seq',"
              " 'type', i.message->'type', 't', i.message->'t') ORDER BY i.table_name, i.seq")
_HEADS = ("INSERT INTO chains SELECT * FROM unnest(%s::text[], %s::text[], %s::bigint[], "
          "%s::text[]) ON CONFLICT (site, table_name) DO UPDATE SET "
          "head_seq = excluded.head_seq, head_hash = excluded.head_hash")
WALK = 5000  # stored records read at a time while a chain's head moves over a filled gap


class Record(NamedTuple):
    """One record as a feed published it (:func:`feed.publish.payload`); ``message`` is
    that message's JSON (UTF-8)."""

    site: str
    table: str
    seq: int
    type: str
    t: float
    hash: str
    prev: str
    masked: bool
    message: bytes


@dataclass
class Chain:
    """A table's chain on the floor: every record up to ``head_seq`` stored and linked;
    ``gap_from``..``gap_to``: the seqs of the gaps alarmed and not yet filled (0: none)."""

    head_seq: int = 0
    head_hash: str = GENESIS
    gap_from: int = 0
    gap_to: int = 0


def connect(dsn: str) -> psycopg.Connection[Any]:
    """A connection (autocommit: each batch is one explicit transaction) with the
    schema in place.

    Raises:
        psycopg.OperationalError: PostgreSQL cannot be reached or refuses the login.
    """
    conn = psycopg.connect(dsn, connect_timeout=5, autocommit=True)
    with conn.transaction():
        conn.execute(SCHEMA)
    return conn


def load_chains(conn: psycopg.Connection[Any]) -> dict[tuple[str, str], Chain]:
    """Every table's chain as stored, with its open gap alarm."""
    chains = {(s, t): Chain(seq, h) for s, t, seq, h in
              conn.execute("SELECT site, table_name, head_seq, head_hash FROM chains")}
    for site, table, first, last in conn.execute(
            "SELECT site, table_name, min(first_seq), max(last_seq) FROM alarms "
            "WHERE kind = 'gap' AND resolved_at IS NULL GROUP BY site, table_name"):
        chain = chains.setdefault((site, table), Chain())
        chain.gap_from, chain.gap_to = max(first, chain.head_seq + 1), last
    return chains


class Store:
    """Stores batches of records and moves each table's chain over them.

    Args:
        conn: an open connection (:func:`connect`).
        chains: the chains as stored (:func:`load_chains`).
    """

    def __init__(self, conn: psycopg.Connection[Any],
                 chains: dict[tuple[str, str], Chain]) -> None:
        self.conn = conn
        self.chains = chains
        self._staged = False

    def store(self, records: Sequence[Record],
              statuses: Sequence[tuple[str, str, dict[str, Any]]] = ()) -> list[str]:
        """Store ``records`` and ``statuses`` (site, table, status) in one transaction;
        returns the alarms raised, in words. Nothing is kept if it raises.

        Raises:
            psycopg.Error: PostgreSQL failed (down, full): the caller retries the batch.
        """
        before = {key: replace(c) for key, c in self.chains.items()}
        alarms: list[str] = []
        try:
            with self.conn.transaction():
                if records:
                    if not self._staged:  # once a connection (a temporary table)
                        self.conn.execute(_STAGE)
                    with self.conn.cursor().copy(_COPY) as copy:
                        copy.write(_copy_binary(records))
                    if self.conn.execute(_MOVE).rowcount < len(records):
                        alarms += self._conflicts()  # sent again: the same, or not?
                for site, table, status in statuses:
                    self.conn.execute(
                        "INSERT INTO statuses (site, table_name, status) VALUES (%s, %s, %s)"
                        " ON CONFLICT (site, table_name) DO UPDATE SET status = statuses.status"
                        " || excluded.status, received_at = now()",
                        (site, table, json.dumps(status)))
                by_table: dict[tuple[str, str], list[Record]] = {}
                for rec in records:
                    by_table.setdefault((rec.site, rec.table), []).append(rec)
                moved = []
                for key, recs in by_table.items():
                    start = self.chains.get(key, Chain()).head_seq
                    alarms += self._advance(key, recs)
                    if self.chains[key].head_seq != start:
                        moved.append(key)
                if moved:  # every table's new head in one statement
                    self.conn.execute(_HEADS, (
                        [k[0] for k in moved], [k[1] for k in moved],
                        [self.chains[k].head_seq for k in moved],
                        [self.chains[k].head_hash for k in moved]))
        except BaseException:
            self.chains = before  # the transaction is gone: so are its chains' moves
            raise
        self._staged = self._staged or bool(records)
        return alarms

    def _advance(self, key: tuple[str, str], recs: list[Record]) -> list[str]:
        chain = self.chains.setdefault(key, Chain())
        start = chain.head_seq
        ahead = {r.seq: r for r in recs if r.seq > chain.head_seq}
        alarms = self._walk(key, chain, ahead)
        beyond = bool(ahead) and max(ahead) > chain.head_seq
        filled = bool(chain.gap_from) and chain.head_seq != start
        if filled or (beyond and chain.gap_from != chain.head_seq + 1):
            # Records stored beyond the head: after a gap just filled, or a new gap.
            while True:
                stored = self._stored_after(key, chain.head_seq)
                if not stored:
                    break
                moved = chain.head_seq
                alarms += self._walk(key, chain, stored)
                if chain.head_seq == moved:
                    alarms += self._gap(key, chain, min(stored))
                    break
        if chain.gap_from and chain.head_seq >= chain.gap_from:
            self.conn.execute("UPDATE alarms SET resolved_at = now() WHERE site = %s AND "
                              "table_name = %s AND kind = 'gap' AND resolved_at IS NULL AND "
                              "last_seq <= %s", (*key, chain.head_seq))
            # Filled up to the head: what an alarm still covers beyond it stays alarmed,
            # in the same row (one open alarm a gap, however many pieces fill it).
            if chain.head_seq < chain.gap_to:
                self.conn.execute("UPDATE alarms SET first_seq = %s WHERE site = %s AND "
                                  "table_name = %s AND kind = 'gap' AND resolved_at IS NULL "
                                  "AND first_seq <= %s", (chain.head_seq + 1, *key,
                                                          chain.head_seq))
                chain.gap_from = chain.head_seq + 1
            else:
                chain.gap_from = chain.gap_to = 0
        return alarms

    def _conflicts(self) -> list[str]:
        """A ``conflict`` alarm for each record of the batch that contradicts the one
        stored with its seq (only looked for when some of the batch was stored already);
        their words."""
        alarms = []
        for site, table, seq, hash_differs, prev_differs in self.conn.execute(_CONFLICTS):
            what = "hash" if hash_differs else "previous hash" if prev_differs else "body"
            alarms.append(self._alarm(
                (site, table), "conflict", seq, seq, f"record {seq} came again with "
                f"another {what}: the first stored is kept (two tables with one name, "
                "or a forgery?)"))
        return alarms

    def missing_tail(self, key: tuple[str, str], last: int) -> list[str]:
        """Records after the head up to ``last`` that the table's feed says the broker
        acknowledged and that never came (a broker killed before it saved them): a gap
        alarm, in one transaction, unless one stands already; its words.

        Raises:
            psycopg.Error: PostgreSQL failed (the caller tries again later).
        """
        chain = self.chains.setdefault(key, Chain())
        first = chain.head_seq + 1
        if last < first or chain.gap_from == first:
            return []
        what = f"record {first}" if first == last else f"records {first}-{last}"
        with self.conn.transaction():
            alarm = self._alarm(key, "gap", first, last, f"{what} missing: its feed says "
                                f"the broker acknowledged up to #{last}")
        chain.gap_from, chain.gap_to = first, max(chain.gap_to, last)
        return [alarm]

    def _walk(self, key: tuple[str, str], chain: Chain,
              ahead: dict[int, Record] | dict[int, tuple[str, str]]) -> list[str]:
        """Move the head over the records that follow it without a hole, checking each
        one's link; the broken links, in words."""
        alarms = []
        while (nxt := ahead.get(chain.head_seq + 1)) is not None:
            seq = chain.head_seq + 1
            hash_, prev = (nxt.hash, nxt.prev) if isinstance(nxt, Record) else nxt
            if prev != chain.head_hash:
                alarms.append(self._alarm(
                    key, "broken_link", seq, seq,
                    f"record {seq}'s previous hash {prev[:12]} is not the hash of record "
                    f"{seq - 1} ({chain.head_hash[:12]}): the chain is broken"))
            chain.head_seq, chain.head_hash = seq, hash_
        return alarms

    def _stored_after(self, key: tuple[str, str], seq: int) -> dict[int, tuple[str, str]]:
        rows = self.conn.execute(
            "SELECT seq, hash, prev FROM records WHERE site = %s AND table_name = %s AND "
            "seq > %s ORDER BY seq LIMIT %s", (*key, seq, WALK)).fetchall()
        return {s: (h, p) for s, h, p in rows}

    def _gap(self, key: tuple[str, str], chain: Chain, next_stored: int) -> list[str]:
        first, last = chain.head_seq + 1, next_stored - 1
        if chain.gap_from and chain.gap_from <= first <= chain.gap_to:
            if last > chain.gap_to:  # alarmed already, and wider than it was seen
                self.conn.execute("UPDATE alarms SET last_seq = %s WHERE site = %s AND "
                                  "table_name = %s AND kind = 'gap' AND resolved_at IS NULL "
                                  "AND last_seq = %s", (last, *key, chain.gap_to))
                chain.gap_to = last
            return []  # alarmed already (partly filled since)
        chain.gap_from, chain.gap_to = first, max(chain.gap_to, last)
        what = f"record {first}" if first == last else f"records {first}-{last}"
        return [self._alarm(key, "gap", first, last,
                            f"{what} missing: record {next_stored} came before "
                            f"{'it' if first == last else 'them'}")]

    def _alarm(self, key: tuple[str, str], kind: str, first: int, last: int,
               words: str) -> str:
        message = f"table {key[1]} ({key[0]}): {words}"
        self.conn.execute("INSERT INTO alarms (site, table_name, kind, first_seq, last_seq, "
                          "message) VALUES (%s, %s, %s, %s, %s, %s)",
                          (*key, kind, first, last, message))
        return message


_COPY_HEADER = b"PGCOPY\n\xff\r\n\x00" + bytes(8)  # the signature, no flags, no extension
_COPY_TRAILER = b"\xff\xff"
_LEN = struct.Struct("!i")
_FLOAT = struct.Struct("!d")
_BOOL = {True: b"\x00\x00\x00\x01\x01", False: b"\x00\x00\x00\x01\x00"}


def _copy_binary(records: Sequence[Record]) -> bytes:
    """The batch in COPY's binary format (PostgreSQL manual, COPY, "Binary Format"):
    each row its 9 fields, each field its length and bytes; the message as jsonb's
    binary input, version 1 then the text."""
    parts = [_COPY_HEADER]
    add = parts.append
    pack, pack_float = _LEN.pack, _FLOAT.pack
    for r in records:
        site, table, kind = r.site.encode(), r.table.encode(), r.type.encode()
        hash_, prev, message = r.hash.encode(), r.prev.encode(), r.message
        add(b"".join((b"\x00\x09", pack(len(site)), site, pack(len(table)), table,
                      b"\x00\x00\x00\x08", r.seq.to_bytes(8, "big", signed=True),
                      pack(len(kind)), kind, b"\x00\x00\x00\x08", pack_float(r.t),
                      pack(len(hash_)), hash_, pack(len(prev)), prev, _BOOL[r.masked],
                      pack(len(message) + 1), b"\x01", message)))
    add(_COPY_TRAILER)
    return b"".join(parts)
