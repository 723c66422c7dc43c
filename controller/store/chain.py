"""The journal's hash chain (:mod:`controller.store.journal`): the one JSON text of a record
its hash covers (:func:`canonical`), the hash that chains it to the record before
(:func:`chain_hash`, from ``GENESIS`` for the first; stored as its raw bytes,
:func:`chain_digest`, read back as hex through ``HASH_HEX``), and what a check of the chain found
(:class:`VerifyResult`, :func:`controller.store.verify.check_chain`).
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass
from json.encoder import encode_basestring_ascii as encode_basestring
from typing import Any

GENESIS = "0" * 64
"""The hash the first record's chains from."""
HASH_HEX = "(CASE WHEN typeof(hash) = 'blob' THEN lower(hex(hash)) ELSE hash END)"
"""The journal's ``hash`` column as hex digits, whatever the row's format (raw bytes since
format 3, hex before): the one way to read it."""

# ASCII only: a body is one line for any reader, whatever characters a record holds
# (U+0085 and U+2028 end a line for some).
_ENCODER = json.JSONEncoder(sort_keys=True, separators=(",", ":"), allow_nan=False)


def canonical(record: dict[str, Any]) -> str:
    """The one JSON text of a record that its hash covers (sorted keys, no spaces, ASCII).

    Records of strings, numbers, booleans, null, lists and objects of them are written
    directly; the text is the same as the JSON encoder's (tests/test_journal.py checks it
    against the encoder), only faster: anything else is the encoder's.
    """
    try:
        return _object(record)
    except _Unwritten:
        return _ENCODER.encode(record)


class _Unwritten(Exception):
    """A value :func:`canonical` leaves to the JSON encoder (its error, if any, is the
    encoder's)."""


def _object(obj: dict[str, Any]) -> str:
    parts = []
    for key in sorted(obj) if all(type(k) is str for k in obj) else _unwritten():
        value = obj[key]
        kind = type(value)
        if kind is str:
            parts.append(f"{encode_basestring(key)}:{encode_basestring(value)}")
        elif kind is int or (kind is float and math.isfinite(value)):
            parts.append(f"{encode_basestring(key)}:{value!r}")
        else:
            parts.append(f"{encode_basestring(key)}:{_value(value)}")
    return "{" + ",".join(parts) + "}"


def _value(value: Any) -> str:
    kind = type(value)
    if kind is str:
        return encode_basestring(value)
    if kind is int or (kind is float and math.isfinite(value)):
        return repr(value)
    if kind is dict:
        return _object(value)
    if kind is list or kind is tuple:
        return "[" + ",".join(map(_value, value)) + "]"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if value is None:
        return "null"
    return _unwritten()


def _unwritten() -> Any:
    raise _Unwritten


def chain_hash(prev_hash: str, body: str) -> str:
    """SHA-256 (hex) of the previous record's hash, a newline and this record's body."""
    return hashlib.sha256(f"{prev_hash}\n{body}".encode()).hexdigest()


def chain_digest(prev_hash: str, body: str) -> bytes:
    """:func:`chain_hash` as the 32 bytes the ``hash`` column stores (format 3)."""
    return hashlib.sha256(f"{prev_hash}\n{body}".encode()).digest()


@dataclass(frozen=True)
class VerifyResult:
    """Outcome of :meth:`Journal.verify`: ``ok``, how many records were checked (from
    ``first``), the first bad one and why; ``damaged`` when SQLite could not read on."""

    ok: bool
    records: int
    bad_seq: int | None = None
    message: str = ""
    first: int = 1
    damaged: str | None = None  # SQLite could not read the file past ``bad_seq``: why
