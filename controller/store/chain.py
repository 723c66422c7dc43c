"""The journal's hash chain (:mod:`controller.store.journal`): the one JSON text of a record
its hash covers (:func:`canonical`), the hash that chains it to the record before
(:func:`chain_hash`, from ``GENESIS`` for the first; stored as its raw bytes,
:func:`chain_digest`, read back as hex through ``HASH_HEX``), and what a check of the chain found
(:class:`VerifyResult`, :func:`controller.store.verify.check_chain`).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from json.encoder import c_make_encoder, encode_basestring_ascii  # type: ignore[attr-defined]
from typing import Any

GENESIS = "0" * 64
"""The hash the first record's chains from."""
HASH_HEX = "(CASE WHEN typeof(hash) = 'blob' THEN lower(hex(hash)) ELSE hash END)"
"""The journal's ``hash`` column as hex digits, whatever the row's format (raw bytes since
format 3, hex before): the one way to read it."""

# ASCII only: a body is one line for any reader, whatever characters a record holds
# (U+0085 and U+2028 end a line for some).
_ENCODER = json.JSONEncoder(sort_keys=True, separators=(",", ":"), allow_nan=False)


def _unserializable(value: Any) -> Any:
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


# The C encoder ``_ENCODER.encode`` makes anew at each call, made once: the same text
# (sorted keys, no spaces, ASCII, no NaN), some 40 % faster on a record. No check for a
# record that contains itself (none does: a record is built from values). Where the C
# accelerator is missing (another Python), the encoder itself.
_C_ENCODE = (None if c_make_encoder is None else c_make_encoder(
    None, _unserializable, encode_basestring_ascii, None, ":", ",", True, False, False))


def canonical(record: dict[str, Any]) -> str:
    """The one JSON text of a record that its hash covers (sorted keys, no spaces, ASCII):
    the text of ``json.JSONEncoder(sort_keys=True, separators=(",", ":"),
    allow_nan=False)`` (tests/test_journal.py checks it against the encoder).

    Raises:
        ValueError: a NaN or an infinity. TypeError: a value JSON has no text for.
    """
    if _C_ENCODE is None:
        return _ENCODER.encode(record)
    return "".join(_C_ENCODE(record, 0))


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
