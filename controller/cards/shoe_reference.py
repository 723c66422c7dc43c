"""Shoe reader codecs: a reader's bytes in, ``controller.cards.shoe_lines`` records out, no I/O.

``ReferenceShoeCodec`` speaks the reference reader's plain text lines (CONTRACT §4). Another
reader is one more class in ``controller.protocols.CODECS``, chosen by name in the config.
It lives beside the lines it makes; the line framing it shares with the wheel's codec is
``controller.protocols.framing``.
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
from controller.protocols.framing import LineFramer, Overlong

MAX_LINE_BYTES = 256
"""Longest line kept, in bytes, line end (CR LF, LF or CR) excluded (CONTRACT §4)."""

_CARD = re.compile(r"\[(Game|Burn|Manual Burn Cards)\]<Card:([^<>]*)>")
_ALARM = re.compile(r"<Alarm:([^\s<>]+) ?([^<>]*)>")
_WARNING = re.compile(r"<W0[xX]([0-9A-Fa-f]{1,8})>")
# What shows that a damaged line was a card passing the reader (see ``_parse_line``).
_CARD_MARKS = (b"[Game]", b"<Card:")
_BURN_MARK = b"Burn"
# Starts of the CONTRACT §4 lines, for a line cut short by a port outage (``port_down``):
# what its first bytes can still become. Two bytes at least: "[" or "<" alone could be any.
_CUT_CARD_START = b"[Cut]"
_NO_CARD_STARTS = (b"<Alarm:", b"<W0x", b"<W0X")
_BURN_STARTS = (b"[Burn]<Card:", b"[Manual Burn Cards]<Card:")


class ReferenceShoeCodec:
    """The reference reader's line protocol (CONTRACT §4), 9600 baud 8N1 on the wire.

    Lines end in CR LF or LF (CR alone ends one too: the shared framer,
    :mod:`controller.protocols.framing`); a line may arrive split across any number of
    ``feed`` calls and hundreds may arrive in one. A line longer than ``MAX_LINE_BYTES`` is
    dropped and reported as ``OverlongLine`` when its line end arrives, and decoding
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

    Any other damaged line is an ``UnknownLine``, marked ``may_be_card`` unless it can be
    shown to hold no card (``_may_hold_card``: it shows no face at its end, no three
    bytes in a row of a card line's frame, no start of one; or it is a reader alarm or
    warning that lost its end). The card table stops play for the dealer's
    ``lost_cards`` on such a line while a card is due: no card read later takes the
    place of the one that may have passed.
    """

    def __init__(self) -> None:
        self._framer = LineFramer(MAX_LINE_BYTES, (*_CARD_MARKS, _BURN_MARK))

    def reset(self) -> None:
        """Forget any unfinished line (the port was reopened, its tail is lost)."""
        self._framer.reset()

    def idle(self) -> bool:
        """No byte of a line is held (a fresh codec would read what comes next the same
        way: a lone LF after a CR ends an empty line, which is skipped)."""
        return self._framer.idle()

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
        frame = self._framer.unfinished()
        lines: list[ShoeLine] = []
        if frame is None:
            return lines
        if isinstance(frame, Overlong):
            lines.append(OverlongLine(frame.length))
            head, length = frame.head.strip(), frame.length
            lost = _lost_card(head, _card_marked(frame), _BURN_MARK in frame.marks)
        else:
            head, length = frame.strip(), len(frame)
            if not head:
                return lines
            lost = _lost_card(head, False, False)
        text = head.decode("latin-1")
        # Part of a card line is never shown: it may be a card dealt face down.
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
        for frame in self._framer.feed(data):
            if isinstance(frame, Overlong):
                lines += _overlong_lines(frame)
            elif text := frame.decode("latin-1").strip():
                lines.append(_parse_line(text))
        return lines


def _card_marked(frame: Overlong) -> bool:
    return any(mark in frame.marks for mark in _CARD_MARKS)


def _overlong_lines(frame: Overlong) -> list[ShoeLine]:
    """The alarm for an over-long line, then the card it lost, if it showed one."""
    lines: list[ShoeLine] = [OverlongLine(frame.length)]
    if _card_marked(frame):
        text = frame.head.decode("latin-1").strip()
        lines.append(BadCardLine(text) if _BURN_MARK in frame.marks else MisreadLine())
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
    return UnknownLine(text, may_be_card=_may_hold_card(text))


_FRAMES = ("[Game]<Card:", "[Burn]<Card:")  # a card line is a frame, a face, ">"
_FRAME_PARTS = frozenset(f[i:i + 3] for f in _FRAMES for i in range(len(f) - 2))
_FACE = r"(?:[2-9TJQKA]|10)[SHDC]|[SHDC](?:[2-9TJQKA]|10)"
_FACE_AT_END = re.compile(rf"(?i)(?:{_FACE})(?:>|$)")
_TAIL = re.compile(r"(?i)[SHDC]?>")  # what is left of "KS>": "S>", ">"
# A reader alarm or warning (CONTRACT §4) that lost its end holds no card: what follows
# its own text (a bracket starts another line's bytes) is judged alone.
_NO_CARD_HEAD = re.compile(r"<Alarm:[^<>\[]*>?|<W0[xX][0-9A-Fa-f]*>?")


def _may_hold_card(text: str) -> bool:
    """Whether a complete line that is none of CONTRACT §4's cannot be shown to hold no
    card: a card line (``[Game]<Card:KS>``, 15 or 16 bytes) that lost bytes or had
    some garbled (a UART overrun, a noisy cable, a port outage's cut) still shows one of

    - its face at its end, with or without the ``>`` (``[Gamrd:KS>``, ``rd:5H``, ``:QC``),
      or its last bytes alone (``S>``, ``>``);
    - three bytes in a row of its frame ``[Game]<Card:`` or ``[Burn]<Card:``
      (``[Gxme]<Cxrd:K#>`` keeps ``]<C``): losing them all takes a garbled byte in
      every three;
    - a nonempty start of the frame (``[``, ``[Gam``).

    A line with none of them is noise that holds no card, and so is a reader alarm or
    warning that lost its end (``<Alarm:E3 Card Not Read``, ``<W0x1``: "Card" there is the
    reader's words), unless what follows it shows a card. Every other line may be a card
    dealt unread: while a card is due, play stops for the dealer's ``lost_cards``."""
    if m := _NO_CARD_HEAD.match(text):
        text = text[m.end():]
    if not text:
        return False
    return bool(_FACE_AT_END.search(text) or _TAIL.fullmatch(text)
                or any(text[i:i + 3] in _FRAME_PARTS for i in range(len(text) - 2))
                or any(f.startswith(text) for f in _FRAMES))
