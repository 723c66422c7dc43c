"""The journal's hash chain (:mod:`controller.store.journal`): the one JSON text of a record
its hash covers (:func:`canonical`), the hash that chains it to the record before
(:func:`chain_hash`, from ``GENESIS`` for the first), and what a check of the chain found
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

# ASCII only: a body is one line for any reader, whatever characters a record holds
# (U+0085 and U+2028 end a line for some).
_ENCODER = json.JSONEncoder(sort_keys=True, separators=(",", ":"), allow_nan=False)


def canonical(record: dict[str, Any]) -> str:
    """The one JSON text of a record that its hash covers (sorted keys, no spaces, ASCII).

    Flat records of strings and numbers are written directly; the text is the same as
    the JSON encoder's, only faster.
    """
    parts = []
    for key in sorted(record):
        value = record[key]
        kind = type(value)
        if kind is str:
            parts.append(f"{encode_basestring(key)}:{encode_basestring(value)}")
        elif kind is int or (kind is float and math.isfinite(value)):
            parts.append(f"{encode_basestring(key)}:{value!r}")
        else:
            return _ENCODER.encode(record)
    return "{" + ",".join(parts) + "}"


def chain_hash(prev_hash: str, body: str) -> str:
    """SHA-256 (hex) of the previous record's hash, a newline and this record's body."""
    return hashlib.sha256(f"{prev_hash}\n{body}".encode()).hexdigest()


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
