"""What a card shoe ("zapato" or "sabot", seed 004 Art. 2 h) reports, one line at a time.

These frozen records are the controller's vocabulary for the shoe: a codec in
``controller/protocols/`` turns a reader's bytes into them, and
``controller.cards.shoe.ShoeSession`` acts on them. No I/O here, and nothing specific to one
reader's wire format (CONTRACT §4 is one such format).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal, Protocol, assert_never

from controller.cards.card import Card
from controller.cards.records import CardAlarm
from controller.store.records import ABSENT


@dataclass(frozen=True, slots=True)
class CardLine:
    """A card drawn from the shoe and read: for play, or burned (``burn`` True)."""

    card: Card
    burn: bool


@dataclass(frozen=True, slots=True)
class BadCardLine:
    """A card drawn whose face the reader reported but is not in a French deck.

    A joker or an unreadable rank or suit (``<Card:JK>``, ``<Card:1X>``); ``text`` is the whole
    line as received. Jokers are never used (seed 002 Art. 4), so this is an alarm.
    """

    text: str


@dataclass(frozen=True, slots=True)
class MisreadLine:
    """A card passed the reader but was not read: never guessed, the dealer corrects it."""


@dataclass(frozen=True, slots=True)
class CutCardLine:
    """The cut card ("cortador", seed 002 Art. 5 e) passed the reader."""


@dataclass(frozen=True, slots=True)
class ReaderAlarm:
    """The reader reported an alarm: its own ``code`` (e.g. ``E3``) and ``text``."""

    code: str
    text: str


@dataclass(frozen=True, slots=True)
class ReaderWarning:
    """The reader reported a warning bitmask (meaning of the bits: the reader's manual)."""

    mask: int


@dataclass(frozen=True, slots=True)
class UnknownLine:
    """A complete line the codec does not understand; ``text`` is its bytes as Latin-1.

    ``may_be_card``: the line cannot be shown to hold no card: it may be what is left of
    a card line that lost bytes at its head, its tail or in its middle, or had some
    garbled (``rd:5H>``, ``[Gam``, ``[Gamrd:KS>``), so a card may have passed unread. The
    codec says which lines hold none (the reference codec: ``_may_hold_card``).
    """

    text: str
    may_be_card: bool = False


@dataclass(frozen=True, slots=True)
class OverlongLine:
    """A line longer than the codec's limit, dropped; ``length`` in bytes, line end excluded."""

    length: int


LostCard = Literal["game", "burn", "cut"]
"""What a line cut by a port outage may have carried (see ``CutOffLine``)."""


@dataclass(frozen=True, slots=True)
class CutOffLine:
    """An unfinished line dropped because its port went down (USB unplugged, read error).

    Its end never arrives: bytes after the port comes back start a new line, so the two
    halves are never joined into one line. ``length`` is the bytes received, ``lost`` what
    the line may have carried: ``"game"`` a card for play, or a line that cannot be shown
    to hold no card; ``"burn"`` a burn card; ``"cut"`` the cut card; None nothing (blank,
    or the start of a reader alarm or warning). ``text`` is the bytes as Latin-1 when
    ``lost`` is None or ``"cut"``, else empty: part of a card line may show a face-down
    card (seed 000 Art. 6). The codec follows it with what the loss means: ``MisreadLine``
    (play waits for the dealer's correction), ``BadCardLine`` (a burn card: the shoe's
    composition is not known) or ``CutCardLine``.
    """

    length: int
    lost: LostCard | None
    text: str = ""


ShoeLine = (
    CardLine
    | BadCardLine
    | MisreadLine
    | CutCardLine
    | ReaderAlarm
    | ReaderWarning
    | UnknownLine
    | OverlongLine
    | CutOffLine
)


# What a line cut by a port outage may have carried (``CutOffLine.lost``), for its alarm.
_CUT_OFF_MEANS: Final = {
    "game": "it may have held a card of the game: a misread, the dealer enters the card",
    "burn": "it held a burn card: an unreadable card, play stops",
    "cut": "it held the cut card",
    None: "it held no card (the start of a reader alarm or warning)",
}


def reader_alarm(line: ReaderAlarm | ReaderWarning | OverlongLine | CutOffLine) -> CardAlarm:
    """The alarm a line that carries no card raises."""
    match line:
        case ReaderAlarm(code=code, text=text):
            return CardAlarm(code="reader_alarm", message=f"reader alarm {code}: {text}",
                             reader_code=code, text=text)
        case ReaderWarning(mask=mask):
            return CardAlarm(code="reader_warning", message=f"reader warning 0x{mask:02X}",
                             mask=mask)
        case OverlongLine(length=length):
            return CardAlarm(code="line_too_long", message=f"line of {length} bytes dropped",
                             length=length)
        case CutOffLine(length=length, lost=lost, text=text):
            return CardAlarm(code="line_cut", message="a line of the shoe reader was cut by "
                             f"the port going down: {length} bytes dropped; "
                             f"{_CUT_OFF_MEANS[lost]}", length=length, lost=lost,
                             text=text if text else ABSENT)
        case _:
            assert_never(line)


class ShoeCodec(Protocol):
    """A reader's wire protocol: bytes in, complete lines out, no I/O.

    ``feed`` keeps the bytes of an unfinished line for the next call and never raises on bad
    input (bad input becomes ``UnknownLine``, ``BadCardLine`` or ``OverlongLine``).
    ``reset`` forgets any unfinished line silently. ``port_down`` is called when the port
    went away: it forgets the unfinished line too, and returns what losing it means (empty
    when there was none; else a ``CutOffLine`` and the record of the card it may have held).
    """

    def feed(self, data: bytes) -> list[ShoeLine]: ...

    def reset(self) -> None: ...

    def port_down(self) -> list[ShoeLine]: ...


@dataclass(frozen=True)
class PortView:
    """What a shoe port last said, for ``tablectl sensors``: what its last line was, in
    words (never a card's face: a card dealt face down must not show, seed 000 Art. 6),
    when it came (controller clock, seconds), the lines read, and why the port is down
    (None: up). The controller thread replaces it whole, so the control socket's thread
    may read it at any time."""

    said: str | None = None
    t: float | None = None
    lines: int = 0
    down: str | None = None


def said(line: ShoeLine) -> str:
    """A shoe line in words, without a card's face."""
    if isinstance(line, CardLine):
        return "a burn card" if line.burn else "a card"
    if isinstance(line, ReaderAlarm):
        return f"reader alarm {line.code}"
    if isinstance(line, ReaderWarning):
        return f"reader warning 0x{line.mask:02x}"
    return {BadCardLine: "a card not of a French deck", MisreadLine: "a misread card",
            CutCardLine: "the cut card", UnknownLine: "a line it does not know",
            OverlongLine: "an over-long line", CutOffLine: "a line cut by the port going "
            "down"}.get(type(line), "a line")
