"""Shoe reader codecs: a reader's bytes in, ``controller.cards.shoe_lines`` records out, no I/O.

``ReferenceShoeCodec`` speaks the reference reader's plain text lines (CONTRACT §4). Another
reader is one more class in ``CODECS``, chosen by name in the config.
"""

from __future__ import annotations

import re

from controller.cards.card import parse_card
from controller.cards.shoe_lines import (
    BadCardLine,
    CardLine,
    CutCardLine,
    CutOffLine,
    LostCard,
    MisreadLine,
    OverlongLine,
    ReaderAlarm,
    ReaderWarning,
    ShoeLine,
    UnknownLine,
)

MAX_LINE_BYTES = 256
"""Longest line kept, in bytes, line end (CR LF or LF) excluded (CONTRACT §4)."""

_CARD = re.compile(r"\[(Game|Burn|Manual Burn Cards)\]<Card:([^<>]*)>")
_ALARM = re.compile(r"<Alarm:([^\s<>]+) ?([^<>]*)>")
_WARNING = re.compile(r"<W0[xX]([0-9A-Fa-f]{1,8})>")
# What shows that a damaged line was a card passing the reader (see ``_parse_line``).
_CARD_MARKS = (b"[Game]", b"<Card:")
_BURN_MARK = b"Burn"
# Bytes of an over-long line kept from one read to the next so that a mark split
# between two reads is still seen: the longest mark less one byte.
_MARK_OVERLAP = max(len(m) for m in (*_CARD_MARKS, _BURN_MARK)) - 1
# Starts of the CONTRACT §4 lines, for a line cut short by a port outage (``port_down``):
# what its first bytes can still become. Two bytes at least: "[" or "<" alone could be any.
_CUT_CARD_START = b"[Cut]"
_NO_CARD_STARTS = (b"<Alarm:", b"<W0x", b"<W0X")
_BURN_STARTS = (b"[Burn]<Card:", b"[Manual Burn Cards]<Card:")


class ReferenceShoeCodec:
    """The reference reader's line protocol (CONTRACT §4), 9600 baud 8N1 on the wire.

    Lines end in CR LF or LF; a line may arrive split across any number of ``feed`` calls and
    hundreds may arrive in one. The buffer is bounded: a line longer than ``MAX_LINE_BYTES``
    is dropped and reported as ``OverlongLine`` when its line end arrives, and decoding
    resumes with the next line. Blank lines are skipped; a line is matched whole, after
    stripping surrounding whitespace, so garbage before a valid line makes it an
    ``UnknownLine`` rather than a guessed card.

    A damaged line that still shows a card passed (``[Game]`` or ``<Card:``) never loses
    that card: it becomes a ``MisreadLine`` (play waits for the dealer's correction,
    CONTRACT §4), or a ``BadCardLine`` when it also says ``Burn`` (the shoe's composition
    is no longer known). That holds for an over-long line too, wherever in it the mark is:
    its ``OverlongLine`` comes first (the alarm), then the misread or bad card. And for a
    line cut short by a port outage (``port_down``): it is dropped, never joined with the
    bytes that come once the port is back, and the card it may have held is reported.
    """

    def __init__(self) -> None:
        self._buf = bytearray()
        # Bytes of the current line once it passed the limit; -1 while it fits in _buf.
        self._overlong = -1
        self._last_byte = 0
        # Of the over-long line under way: its first bytes (for BadCardLine's text), its
        # last _MARK_OVERLAP bytes, and whether it showed a card mark or a burn mark.
        self._head = b""
        self._tail = b""
        self._card_seen = False
        self._burn_seen = False

    def reset(self) -> None:
        """Forget any unfinished line (the port was reopened, its tail is lost)."""
        self._buf.clear()
        self._overlong = -1
        self._last_byte = 0
        self._head = b""
        self._tail = b""
        self._card_seen = False
        self._burn_seen = False

    def port_down(self) -> list[ShoeLine]:
        """The port went down: drop the unfinished line, never to be joined with the bytes
        that come after the port is back (they start a new line).

        Returns [] when no line was under way (or only blanks); else a ``CutOffLine``, then
        what the lost line may have held (see ``_lost_card``): a ``MisreadLine`` for a card
        of the game (play waits for the dealer's correction, CONTRACT §4), a ``BadCardLine``
        for a burn card (the shoe's composition is no longer known), a ``CutCardLine`` for
        the cut card; nothing more for the start of a reader alarm or warning. An over-long
        line under way gives its ``OverlongLine`` first.
        """
        lines: list[ShoeLine] = []
        if self._overlong >= 0:
            lines.append(OverlongLine(self._overlong))
            head, length = self._head.strip(), self._overlong
            lost = _lost_card(head, self._card_seen, self._burn_seen)
        else:
            head, length = bytes(self._buf).strip(), len(self._buf)
            if not head:
                self.reset()
                return []
            lost = _lost_card(head, False, False)
        self.reset()
        text = head.decode("latin-1")
        # Part of a card line is never shown: it may be the Banca's face-down card.
        lines.append(CutOffLine(length, lost, text if lost in (None, "cut") else ""))
        if lost == "game":
            lines.append(MisreadLine())
        elif lost == "burn":
            lines.append(BadCardLine(text))
        elif lost == "cut":
            lines.append(CutCardLine())
        return lines

    def feed(self, data: bytes) -> list[ShoeLine]:
        """Add ``data`` and return every line it completes, in order; never raises."""
        lines: list[ShoeLine] = []
        start = 0
        while start < len(data):
            end = data.find(b"\n", start)
            chunk = data[start:] if end < 0 else data[start:end]
            self._append(chunk)
            if end < 0:
                break
            lines += self._take_line()
            start = end + 1
        return lines

    def _append(self, chunk: bytes) -> None:
        if not chunk:
            return
        self._last_byte = chunk[-1]
        if self._overlong >= 0:
            self._overlong += len(chunk)
            self._scan(chunk)
            return
        self._buf += chunk
        # One extra byte so a line of exactly MAX_LINE_BYTES followed by CR still fits.
        if len(self._buf) > MAX_LINE_BYTES + 1:
            self._overlong = len(self._buf)
            self._head = bytes(self._buf[:MAX_LINE_BYTES])
            self._scan(bytes(self._buf))
            self._buf.clear()

    def _scan(self, chunk: bytes) -> None:
        """Note the card and burn marks in ``chunk``, the next bytes of an over-long line.

        Only the marks and the last few bytes are kept, so memory stays bounded however
        long the line (megabytes of noise without a line end).
        """
        joint = self._tail + chunk[:_MARK_OVERLAP]  # a mark split between two reads
        for part in (joint, chunk):
            self._card_seen = self._card_seen or any(m in part for m in _CARD_MARKS)
            self._burn_seen = self._burn_seen or _BURN_MARK in part
        if len(chunk) >= _MARK_OVERLAP:
            self._tail = chunk[-_MARK_OVERLAP:]
        else:
            self._tail = (self._tail + chunk)[-_MARK_OVERLAP:]

    def _take_line(self) -> list[ShoeLine]:
        if self._overlong >= 0:
            length = self._overlong - (self._last_byte == 0x0D)
            lines = self._overlong_lines(length)
            self.reset()
            return lines
        raw = bytes(self._buf)
        self.reset()
        if raw.endswith(b"\r"):
            raw = raw[:-1]
        if len(raw) > MAX_LINE_BYTES:
            self._head = raw[:MAX_LINE_BYTES]
            self._scan(raw)
            lines = self._overlong_lines(len(raw))
            self.reset()
            return lines
        text = raw.decode("latin-1").strip()
        return [_parse_line(text)] if text else []

    def _overlong_lines(self, length: int) -> list[ShoeLine]:
        """The alarm for the over-long line, then the card it lost, if it showed one."""
        lines: list[ShoeLine] = [OverlongLine(length)]
        if self._card_seen:
            text = self._head.decode("latin-1").strip()
            lines.append(BadCardLine(text) if self._burn_seen else MisreadLine())
        return lines


def _lost_card(head: bytes, card_mark: bool, burn_mark: bool) -> LostCard | None:
    """What a line cut short after ``head`` (its first bytes, stripped) may have carried.

    ``card_mark``/``burn_mark``: an over-long line showed those marks past its head. A
    line that shows a card mark held a card (a burn if it says ``Burn``); one that can only
    become ``[Cut]`` was the cut card; one that can only become a reader alarm or warning
    held nothing. Anything else cannot be shown to hold no card, so it is a card of the
    game: losing a card unseen would put every later card in the wrong hand.
    """
    card_mark = card_mark or any(m in head for m in _CARD_MARKS)
    burn_mark = burn_mark or _BURN_MARK in head

    def starts(form: bytes) -> bool:
        return len(head) >= 2 and (form.startswith(head) or head.startswith(form))

    if card_mark:
        return "burn" if burn_mark else "game"
    if burn_mark or any(starts(form) for form in _BURN_STARTS):
        return "burn"
    if starts(_CUT_CARD_START):
        return "cut"
    if any(starts(form) for form in _NO_CARD_STARTS):
        return None
    return "game"


def _parse_line(text: str) -> ShoeLine:
    """One complete line (CONTRACT §4 table) to its record; anything else is UnknownLine."""
    if text == "[Game]<Game>":
        return MisreadLine()
    if text == "[Cut]":
        return CutCardLine()
    if m := _CARD.fullmatch(text):
        try:
            card = parse_card(m.group(2))
        except ValueError:
            return BadCardLine(text)
        return CardLine(card, burn=m.group(1) != "Game")
    if m := _ALARM.fullmatch(text):
        return ReaderAlarm(m.group(1), m.group(2))
    if m := _WARNING.fullmatch(text):
        return ReaderWarning(int(m.group(1), 16))
    # A damaged line that still says a card passed must not lose that card: a game card
    # becomes a misread (play waits for the dealer's correction, CONTRACT §4), a burn card
    # an unreadable card (the shoe's composition is no longer known: play stops).
    if "<Card:" in text or "[Game]" in text:
        return BadCardLine(text) if "Burn" in text else MisreadLine()
    return UnknownLine(text)
