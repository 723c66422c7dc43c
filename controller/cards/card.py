"""Playing cards as the shoe reads them: rank and suit (a French deck, seed 002 Art. 4).

A card has no value here: each game gives its cards their points in its own rules
package (``controller/games/<game>/``).
"""

from __future__ import annotations

from dataclasses import dataclass

RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K")
SUITS = ("S", "H", "D", "C")


@dataclass(frozen=True, slots=True, order=True)
class Card:
    """One card: ``rank`` in RANKS (``T`` for ten), ``suit`` in SUITS. ``str(card)`` is "7H"."""

    rank: str
    suit: str

    def __str__(self) -> str:
        return self.rank + self.suit


def parse_card(text: str) -> Card:
    """Parse "7H", "H7", "10h", "Td" (rank and suit in either order, any case).

    Raises:
        ValueError: the text is not one rank and one suit of a standard deck (a joker,
            an unknown rank or suit); the message quotes the text.
    """
    s = text.strip().upper()
    if len(s) >= 2 and s[0] in SUITS and s[1:] not in SUITS:
        rank, suit = s[1:], s[0]
    else:
        rank, suit = s[:-1], s[-1:]
    if rank == "10":
        rank = "T"
    if rank not in RANKS or suit not in SUITS:
        raise ValueError(f"not a card: {text!r}")
    return Card(rank, suit)


def full_deck() -> list[Card]:
    """The 52 cards of one French deck, jokers removed (seed 002 Art. 4)."""
    return [Card(r, s) for s in SUITS for r in RANKS]
