"""Evidence batches: raw GPIO edges, packed, journaled with the decision that closes them.

Every raw edge a table reads (a wheel sensor, a dealer button) is evidence, but it is not
a decision: edges go into the open batch, in memory, and the batch is written in the same
transaction as the record that closes it (a spin's start or conclusion, or an ``evidence``
record between spins), which carries its reference ``{"batch", "edges", "sha256"}``. The
record is hash-chained, so a batch changed, swapped or deleted no longer matches it.

A batch row holds its number, the ``seq`` of the record that closed it, the time of its
first edge in microseconds (``first_us``: journal time, as the records' ``t``), the input
names it uses (``inputs``, comma-separated, in the order first seen) and ``data``: per edge,
the zigzag varint of its time minus the previous edge's (µs; the first's minus
``first_us``, so 0), then one byte ``input index << 1 | level``. About 3 bytes an edge.

``sha256`` = SHA-256 of ``"{batch}\\n{first_us}\\n{inputs}\\n"`` (UTF-8) followed by ``data``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

Edge = tuple[float, str, int]
"""One raw edge: (time in seconds, journal time; input name; level 1 active, 0 inactive)."""

MAX_INPUTS = 128


@dataclass(frozen=True)
class Batch:
    """A packed batch, as stored (see the module doc)."""

    batch: int
    first_us: int
    inputs: str
    data: bytes
    edges: int

    @property
    def sha256(self) -> str:
        head = f"{self.batch}\n{self.first_us}\n{self.inputs}\n".encode()
        return hashlib.sha256(head + self.data).hexdigest()

    def ref(self) -> dict[str, int | str]:
        """The reference the closing record carries."""
        return {"batch": self.batch, "edges": self.edges, "sha256": self.sha256}

    def decode(self) -> list[Edge]:
        """The batch's edges, in the order they were read.

        Raises:
            ValueError: the data is not a batch of this format (truncated, a bad index).
        """
        names = self.inputs.split(",") if self.inputs else []
        return list(_decode(self.data, self.first_us, names))


def batch_fault(batch: Batch, ref: object, closing: int) -> str | None:
    """Why ``batch`` is not the batch record ``closing`` closed (``ref``: that record's
    ``evidence`` reference: number, edges, SHA-256), in words; None when it is."""
    if not isinstance(ref, dict) or ref.get("batch") != batch.batch:
        return f"record {closing}, which it names as closing it, does not carry its reference"
    if ref.get("sha256") != batch.sha256 or ref.get("edges") != batch.edges:
        return f"its SHA-256 is not the one record {closing} carries: the batch was altered"
    return None


def pack(batch: int, edges: Sequence[Edge]) -> Batch:
    """Pack ``edges`` (at least one, at most ``MAX_INPUTS`` distinct inputs) as batch
    number ``batch``."""
    index: dict[str, int] = {}  # each input's index, in the order first seen
    first_us = prev = round(edges[0][0] * 1e6)
    out = bytearray()
    append = out.append
    for t, name, level in edges:
        us = round(t * 1e6)
        delta = us - prev
        prev = us
        zig = (delta << 1) ^ (delta >> 63)
        while zig > 0x7F:
            append((zig & 0x7F) | 0x80)
            zig >>= 7
        append(zig)
        code = index.get(name)
        if code is None:
            code = index[name] = len(index)
            assert code < MAX_INPUTS, "too many inputs in one batch"
        append(code << 1 | level)
    return Batch(batch, first_us, ",".join(index), bytes(out), len(edges))


def _decode(data: bytes, first_us: int, names: list[str]) -> Iterator[Edge]:
    us = first_us
    i, size = 0, len(data)
    while i < size:
        zig = shift = 0
        while True:
            if i >= size:
                raise ValueError("truncated edge time")
            byte = data[i]
            i += 1
            zig |= (byte & 0x7F) << shift
            shift += 7
            if byte < 0x80:
                break
        us += (zig >> 1) ^ -(zig & 1)
        if i >= size:
            raise ValueError("edge without its input")
        code = data[i]
        i += 1
        if code >> 1 >= len(names):
            raise ValueError(f"input index {code >> 1} beyond {len(names)} inputs")
        yield us / 1e6, names[code >> 1], code & 1
