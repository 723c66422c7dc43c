"""The count-out of a closed shoe: the decks checked complete (seed 002 / 004 Art. 4).

Art. 4: "el personal del explotador verificará que las barajas nuevas estén completas",
and the decks are changed "por no existir el número completo de cartas". The cards behind
the cut card never pass the reader, so at a shoe's close a card never seen cannot be told
from one still in the shoe. Decision (issue 19 item 5): the count-out, a step of the shoe's
close. Once the cut card's game has ended and the shoe closed, and before the discards go
to the shuffle, the dealer runs the cards left in the shoe through the reader; the table
takes them as count-out cards (``count_out_card``, dealt to no hand) and the dealer ends
the count-out with ``{"input": "count_out_done"}``. Then every card of the composition
(decks × 52) must have been seen exactly once a deck in that shoe (burns, cards dealt,
count-out):

- a card never seen is a ``decks_incomplete`` alarm naming the missing cards; the table
  then requires new decks (``new_shoe``, Art. 4, then the new-decks procedure, Art. 5)
  before the next shoe, never a reshuffle of the same decks;
- a card seen more often than the decks hold is the shoe's ``card_over_count`` alarm, in
  the count-out as in play (it stops play until the inspector clears it).

``[cards] count_out`` (default true) turns it off for an operator whose reader cannot take
the cards back through it; the decks are then not checked at the close. It applies to the
multi-deck shoes that close at a cut card (``ShoeRules.after_cut_card``); a single deck
gathered before every hand, with no cut card in it (seed 003 num. 2), has no count-out.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any, Final

from controller.cards.card import Card, full_deck, parse_card
from controller.cards.procedures import ShoeRules
from controller.core.contract import InputSpec
from controller.core.errors import RuleViolation
from controller.core.section import Section

COUNT_OUT_INPUT: Final = InputSpec(
    "count_out_done", "the dealer has run the cards left in the closed shoe through the "
    "reader: the decks are checked complete (seed 002/004 Art. 4)")
"""The input that ends a count-out; every card game on a shoe with a cut card lists it."""
SHOWN_MISSING: Final = 12
"""Missing cards an alarm's message names at most (its ``missing`` field has them all)."""


@dataclass(frozen=True)
class CardsConfig:
    """The card core's settings (``[cards]``), shared by the card games whose shoe closes
    at a cut card.

    Attributes:
        count_out: the dealer counts out the cards left in a closed shoe (see the module
            doc); false where the operator's reader cannot take them.
    """

    count_out: bool = True


def load_cards_config(sec: Section, base: CardsConfig | None) -> CardsConfig:
    """The ``[cards]`` section (or a trace's ``meta.cards`` over ``base``); its unknown
    keys are refused by the caller (``Section.finish``).

    Raises:
        ConfigError: a value of the wrong type; it names the file, line and key.
    """
    base = base or CardsConfig()
    return CardsConfig(count_out=sec.get("count_out", bool, base.count_out))


def missing_cards(counts: Counter[Card], decks: int) -> list[Card]:
    """The cards of a ``decks``-deck composition that ``counts`` (cards seen) lacks, one
    entry a copy, in deck order (spades, hearts, diamonds, clubs; ace to king)."""
    return [card for card in full_deck() for _ in range(max(0, decks - counts[card]))]


def missing_words(missing: list[Card], decks: int) -> str:
    """The missing cards in words, as far as the faces tell: each card once, with how many
    of its copies are missing when the shoe has several decks ("7H, QS (2 of its 6)");
    which deck a card is missing from cannot be told from its face."""
    copies = Counter(missing)
    named = [f"{card} ({n} of its {decks})" if decks > 1 and n > 1 else str(card)
             for card, n in copies.items()]
    shown = ", ".join(named[:SHOWN_MISSING])
    if len(named) > SHOWN_MISSING:
        shown += f" and {len(named) - SHOWN_MISSING} more"
    if decks == 1:
        return shown
    if all(n == 1 for n in copies.values()):
        where = "one copy each: one deck short, or several; the faces do not tell which"
    else:
        where = "more than one deck is short"
    return f"{shown} ({where})"


class CountOut:
    """Where the count-out of a :class:`~controller.cards.shoe.ShoeSession` stands: due
    or under way (``due``), the cards it read (``cards``), the shoe's counts when it closed
    (``at_close``: a count-out that lost input starts again from them), and the cards the
    last one found missing (``short``: new decks are due). The session counts the cards;
    this checks.

    Args:
        rules: the shoe's; ``rules.count_out`` says whether the decks are counted out.
    """

    def __init__(self, rules: ShoeRules) -> None:
        self.rules = rules
        self.due = False
        self.cards = 0
        self.at_close: Counter[Card] = Counter()
        self.short: list[Card] = []

    def closed(self, reason: str, counts: Counter[Card]) -> bool:
        """The shoe closed for ``reason`` (``shoe_closed``) with the cards ``counts``
        seen: at the cut card, its cards are counted out next (returns True then); new
        decks end a shortfall."""
        self.due = reason == "cut_card" and self.rules.count_out
        self.cards = 0
        self.at_close = Counter(counts)
        self.short = []
        return self.due

    def state(self) -> dict[str, Any]:
        """Its part of the session's checkpoint: ``count_out`` (``{"cards"}``) while due,
        ``short`` (cards) while new decks are; {} otherwise."""
        if self.due:
            return {"count_out": {"cards": self.cards}}
        return {"short": [str(card) for card in self.short]} if self.short else {}

    def restore(self, state: dict[str, Any], counts: Counter[Card]) -> None:
        """Go on from :meth:`state`'s keys in a checkpoint (none in one of a journal
        written before the count-out: no count-out due), taken with the shoe's ``counts``
        before any card of the count-out (``ShoeSession.checkpoint``).

        Raises:
            ValueError: a card that is not one.
        """
        count_out = state.get("count_out")
        self.due = count_out is not None
        self.cards = int(count_out["cards"]) if count_out is not None else 0
        self.at_close = Counter(counts)
        self.short = [parse_card(str(text)) for text in state.get("short", [])]

    def verify_checked(self, code: str | None = None) -> None:
        """Check that the closed shoe's decks were checked complete (or need not be).

        Raises:
            RuleViolation: ``count_out_due`` (the count-out comes first) or
                ``decks_incomplete`` (it found cards missing: new decks first); ``code``
                instead, when given (``shoe_not_ready`` for a new game).
        """
        art = self.rules.citations.composition
        if self.due:
            raise RuleViolation(code or "count_out_due", f"the count-out of the closed shoe "
                                f"comes first ({art}: the decks checked complete): the cards "
                                "left in it go through the reader, then count_out_done")
        if self.short:
            raise RuleViolation(code or "decks_incomplete", f"the decks are incomplete "
                                f"({art}): missing "
                                f"{missing_words(self.short, self.rules.decks)}; "
                                f"{self.change()}")

    def verify_done(self, misreads_pending: int) -> None:
        """Check that the dealer may end the count-out now.

        Raises:
            RuleViolation: ``no_count_out`` (no shoe closed at the cut card awaits it),
                ``awaiting_correction`` (a misread card of the count-out has no face yet:
                never guessed).
        """
        if not self.due:
            raise RuleViolation("no_count_out", "no count-out is due: it follows the close "
                                f"of a shoe at the cut card ({self.rules.citations.composition})")
        if misreads_pending:
            n = misreads_pending
            raise RuleViolation("awaiting_correction", f"{n} misread card{'s' * (n > 1)} of "
                                "the count-out await the dealer's correction (card)")

    def done(self, counts: Counter[Card]) -> list[Card]:
        """End the count-out (verified) over the shoe's ``counts``; return the cards missing
        (then ``short``: new decks are due)."""
        self.due = False
        self.cards = 0
        self.short = missing_cards(counts, self.rules.decks)
        return list(self.short)

    def change(self) -> str:
        """What a shortfall calls for, in words (Art. 4, then Art. 5)."""
        new = self.rules.new_decks
        return f"change the decks (new_shoe), then the {new.name} procedure ({new.article})"

    def shortfall(self) -> str:
        """The ``decks_incomplete`` alarm's message."""
        rules = self.rules
        return (f"the decks are incomplete ({rules.citations.composition}): "
                f"{len(self.short)} of {rules.pack} cards never seen in the shoe; missing "
                f"{missing_words(self.short, rules.decks)}; {self.change()} before the next "
                "shoe")
