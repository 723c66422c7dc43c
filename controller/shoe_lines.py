"""What a card shoe ("zapato" or "sabot", seed 004 Art. 2 h) reports, one line at a time.

These frozen records are the controller's vocabulary for the shoe: a codec in ``drivers/``
turns a reader's bytes into them, and ``controller.shoe.ShoeSession`` acts on them. No I/O
here, and nothing specific to one reader's wire format (CONTRACT §4 is one such format).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from controller.cards import Card


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
    """A complete line the codec does not understand; ``text`` is its bytes as Latin-1."""

    text: str


@dataclass(frozen=True, slots=True)
class OverlongLine:
    """A line longer than the codec's limit, dropped; ``length`` in bytes, line end excluded."""

    length: int


ShoeLine = (
    CardLine
    | BadCardLine
    | MisreadLine
    | CutCardLine
    | ReaderAlarm
    | ReaderWarning
    | UnknownLine
    | OverlongLine
)


class ShoeCodec(Protocol):
    """A reader's wire protocol: bytes in, complete lines out, no I/O.

    ``feed`` keeps the bytes of an unfinished line for the next call and never raises on bad
    input (bad input becomes ``UnknownLine``, ``BadCardLine`` or ``OverlongLine``).
    ``reset`` forgets any unfinished line, e.g. after the port was reopened.
    """

    def feed(self, data: bytes) -> list[ShoeLine]: ...

    def reset(self) -> None: ...
