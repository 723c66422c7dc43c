"""The one line framer of every line codec: a device's bytes in, complete lines out, no I/O.

A line ends at CR, LF or CR LF; a CR LF split across two reads is one line end. Lines are
bounded: the bytes of a line over the limit are not kept, and it comes out as an
:class:`Overlong` record (its length, its first bytes, and which of the codec's watched marks
appeared anywhere in it) when its line end arrives; framing resumes with the next line.
Memory stays bounded however long a line runs (megabytes of noise without a line end).
The framer never raises on any input, and hands back the unfinished line when the port goes
down (:meth:`LineFramer.unfinished`), so that a line cut by an outage is never joined to the
bytes that come once the port is back.

Used by the reference shoe codec (CONTRACT §4, lines ending in CR LF or LF) and by the
codecs of devices that end their lines with CR alone (automated wheels' status lines).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

CR = 0x0D
LF = 0x0A


@dataclass(frozen=True, slots=True)
class Overlong:
    """A line longer than the framer's limit, dropped.

    ``length``: its bytes, line end excluded; ``head``: its first ``limit`` bytes;
    ``marks``: those of the framer's watched byte strings that appear anywhere in it
    (a codec's sign that the line carried something it must not lose, e.g. a card).
    """

    length: int
    head: bytes
    marks: frozenset[bytes] = frozenset()


Frame = bytes | Overlong
"""What the framer hands out: a complete line (line end excluded), or an over-long one."""


class LineFramer:
    """Splits a byte stream into lines (CR, LF or CR LF), bounded to ``limit`` bytes a line.

    Args:
        limit: the longest line kept, in bytes, line end excluded (at least 1).
        watch: byte strings to look for in an over-long line, wherever they fall, even
            split between two reads (each non-empty).

    Raises:
        ValueError: ``limit`` < 1, or an empty string to watch.
    """

    def __init__(self, limit: int, watch: Iterable[bytes] = ()) -> None:
        self.limit = limit
        self.watch = tuple(watch)
        if limit < 1 or not all(self.watch):
            raise ValueError(f"need limit >= 1 and non-empty marks: {limit}, {self.watch}")
        # Bytes of a mark that may sit in one read and finish in the next.
        self._overlap = max((len(m) for m in self.watch), default=1) - 1
        self._buf = bytearray()
        self._after_cr = False  # the last byte seen ended a line with CR: an LF next is its end
        # The over-long line under way: its length so far (-1: none), head, last bytes, marks.
        self._length = -1
        self._head = b""
        self._tail = b""
        self._marks: set[bytes] = set()

    def reset(self) -> None:
        """Forget the unfinished line, silently (the port was reopened)."""
        self._buf.clear()
        self._after_cr = False
        self._length = -1
        self._head = b""
        self._tail = b""
        self._marks = set()

    def idle(self) -> bool:
        """No byte of an unfinished line is held."""
        return not self._buf and self._length < 0

    def unfinished(self) -> Frame | None:
        """Take the line under way (the port went down: its end will never come) and
        forget it: its bytes, or an :class:`Overlong` of what arrived of it; None when no
        byte of a line has arrived since the last line end."""
        if self._length >= 0:
            frame: Frame | None = self._overlong()
        else:
            frame = bytes(self._buf) if self._buf else None
        self.reset()
        return frame

    def feed(self, data: bytes) -> list[Frame]:
        """Add ``data``; return every line it completes, in order. Never raises."""
        frames: list[Frame] = []
        start, size = 0, len(data)
        if self._after_cr and size:
            self._after_cr = False
            if data[0] == LF:  # the LF of a CR LF split between two reads
                start = 1
        cr, lf = data.find(b"\r", start), data.find(b"\n", start)
        while start < size:
            # Each byte is searched once: a burst of LF-only lines has no CR to look for.
            if 0 <= cr < start:
                cr = data.find(b"\r", start)
            if 0 <= lf < start:
                lf = data.find(b"\n", start)
            end = lf if cr < 0 else cr if lf < 0 else min(cr, lf)
            if end < 0:
                self._append(data[start:])
                break
            self._append(data[start:end])
            frames.append(self._take())
            start = end + 1
            if data[end] == CR:
                if start == size:
                    self._after_cr = True
                elif data[start] == LF:
                    start += 1
        return frames

    def _append(self, chunk: bytes) -> None:
        if not chunk:
            return
        if self._length >= 0:
            self._length += len(chunk)
            self._scan(chunk)
            return
        self._buf += chunk
        if len(self._buf) > self.limit:
            self._length = len(self._buf)
            self._head = bytes(self._buf[: self.limit])
            self._scan(bytes(self._buf))
            self._buf.clear()

    def _scan(self, chunk: bytes) -> None:
        """Note the watched marks in ``chunk``, the next bytes of the over-long line; only
        the marks found and its last few bytes are kept."""
        joint = self._tail + chunk[: self._overlap]  # a mark split between two reads
        for mark in self.watch:
            if mark in joint or mark in chunk:
                self._marks.add(mark)
        if self._overlap:
            self._tail = (self._tail + chunk[-self._overlap:])[-self._overlap:]

    def _overlong(self) -> Overlong:
        return Overlong(self._length, self._head, frozenset(self._marks))

    def _take(self) -> Frame:
        frame: Frame = self._overlong() if self._length >= 0 else bytes(self._buf)
        self.reset()
        return frame
