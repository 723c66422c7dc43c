"""Serial bytes held until their line ends: a line is one input, never a byte (issue 20).

A port's reader posts whatever chunk a read returns: a ``socket://`` shoe gives one byte a
read, so journaling each chunk made a record and a commit per byte. The table hands every
chunk to a :class:`LineHold` first: the bytes of a line not yet complete stay in memory
(nothing acts on them: a codec only acts on a whole line), and each line that ends (CR, LF
or CR LF, as :class:`controller.protocols.framing.LineFramer` frames them) comes out as one
chunk, with the arrival of its first byte, journaled as one ``serial`` record.

Every byte comes out, once and in order, so a codec fed the lines decodes what it decodes
from the chunks (the framer's own state carries a CR LF split between two lines: an LF
right after a line that ended in CR starts the next line's chunk). A line longer than
``limit`` comes out in pieces of ``limit`` bytes (the framer bounds it on its side). The
bytes still held when the port goes down, or the daemon stops, are let out with
:meth:`LineHold.drain` (the codec then sees the line the outage cut). A kill loses only the
bytes of a line not yet complete: no record, verdict or card rests on them.
"""

from __future__ import annotations

from dataclasses import dataclass

CR, LF = 0x0D, 0x0A
LIMIT = 1024  # bytes held at most (a codec's longest line is far shorter)


@dataclass
class _Held:
    data: bytes = b""
    first_t: float | None = None  # arrival of its first byte (a lone LF after CR: None)
    after_cr: bool = False  # the last line out ended in CR: an LF next is its end


class LineHold:
    """Per port, the bytes of the line under way (see the module doc).

    Args:
        limit: the most bytes held for one port before they come out anyway.
    """

    def __init__(self, limit: int = LIMIT) -> None:
        self.limit = limit
        self._held: dict[str, _Held] = {}

    def feed(self, port: str, t: float, data: bytes) -> list[tuple[float, bytes]]:
        """``data`` of ``port``, arrived at ``t`` (seconds): each line it completes, as
        (arrival of its first byte, its bytes with their line end), in order."""
        held = self._held.setdefault(port, _Held())
        out: list[tuple[float, bytes]] = []
        buf, first = held.data, held.first_t
        i, size = 0, len(data)
        if held.after_cr and size:
            held.after_cr = False
            if data[0] == LF and not buf:  # the LF of a CR LF: the next line carries it
                buf, i = b"\n", 1
        while i < size:
            if first is None:
                first = t
            end = _line_end(data, i)
            if end < 0:  # no line end: held, up to the limit
                buf += data[i:]
                while len(buf) >= self.limit:
                    out.append((first, buf[:self.limit]))
                    buf = buf[self.limit:]
                break
            if data[end] == CR and end + 1 < size and data[end + 1] == LF:
                end += 1  # CR LF: one line end
            buf += data[i:end + 1]
            out.append((first, buf))
            held.after_cr = end + 1 == size and data[end] == CR
            buf, first, i = b"", None, end + 1
        held.data, held.first_t = buf, first
        return out

    def drain(self, port: str, t: float) -> tuple[float, bytes] | None:
        """The bytes ``port`` still holds (its first byte's arrival, else ``t``), let out
        now; None when it holds none."""
        held = self._held.pop(port, None)
        if held is None or not held.data:
            return None
        return (held.first_t if held.first_t is not None else t), held.data

    def ports(self) -> list[str]:
        """The ports that hold bytes (safe to call from any thread: a copy is read)."""
        return [port for port, held in list(self._held.items()) if held.data]


def _line_end(data: bytes, start: int) -> int:
    """The index of the first CR or LF from ``start``, -1 when there is none."""
    cr, lf = data.find(b"\r", start), data.find(b"\n", start)
    return lf if cr < 0 else cr if lf < 0 else min(cr, lf)
