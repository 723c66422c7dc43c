"""The card shoe ("zapato" or "sabot", seed 004 Art. 2 h): its cards and its procedures.

``ShoeSession`` keeps the shoe's composition, enforces the deck procedures of seed 002
Art. 5 (new decks) and Art. 6 (after the cut card, "cortador"), and decides which card read
from the shoe goes to the game. It journals through ``emit`` and never touches hardware:
it is fed ``controller.cards.shoe_lines`` records decoded from the reader's bytes.

Decisions (RULES.md §3, "Decisions for the controller"; seed 002 Art. 4-6):

- Composition: every card read from the loaded shoe (game, burn, dealer correction) is
  counted; ``decks`` copies of each of the 52 cards (jokers removed, Art. 4).
- Stopping alarms stop play on the shoe until ``inspector_clear``: ``card_over_count``,
  ``bad_card`` (a joker or unreadable rank), ``cut_card_late`` and ``cut_card_early`` (a
  misplaced cut card: fewer than 40 cards left, or more than half the pack, when it
  appears; Art. 5 e, 6 b), ``cut_card_missing``, and
  ``card_before_correction`` (a card read while a misread awaits the dealer's correction,
  which would put the cards out of order). The card that raises one is not passed to the
  game; an extra copy (``card_over_count``) is not counted either.
- Any card read while play is stopped, or before the procedure is complete, is journaled
  as an alarm (``card_while_stopped``, ``card_before_ready``) and not passed to the game.
  Cards read before ``load`` are not counted: the shoe holds no cards then.
- ``cut_card_missing`` also ends the shoe after the current coup, as the cut card would
  have: dealing on into the 40-card reserve is what the cut card prevents.
- "After the current game": the session does not know the coups, so its owner calls
  ``coup_finished`` when a coup ends, and also as soon as ``shoe_ending`` is set while no
  coup is under way (``controller.cards.table``): the shoe then closes at once, and the
  Art. 6 procedure is due before the next coup.
- A misread is not an alarm: ``feed`` returns the ``MisreadLine`` and the game waits for
  ``manual_card``.
- A line cut by a port outage (``CutOffLine``) is a ``line_cut`` alarm; the codec follows
  it with the record of the card it may have held (a misread, an unreadable burn card,
  the cut card), acted on as if read.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Final, assert_never

from controller.cards.card import Card
from controller.cards.shoe_lines import (
    BadCardLine,
    CardLine,
    CutCardLine,
    CutOffLine,
    MisreadLine,
    OverlongLine,
    ReaderAlarm,
    ReaderWarning,
    ShoeLine,
    UnknownLine,
)
from controller.core.errors import RuleViolation
from controller.games.base import Emit

NEW_DECKS: Final = "new_decks"
"""Seed 002 Art. 5: procedure when new decks are used."""
CUT_CARD: Final = "cut_card"
"""Seed 002 Art. 6: procedure after the cut card appeared, before the next game."""

# (step, mandatory) in the order the article gives. Spanish: mostrar, voltear, revolver,
# barajar, cortar, colocar en el zapato, quemar.
_STEPS: Final[dict[str, tuple[tuple[str, bool], ...]]] = {
    NEW_DECKS: (
        ("show", True),
        ("turn", True),
        ("scramble", True),
        ("shuffle", True),
        ("cut", True),
        ("load", True),
        ("burn", True),
    ),
    # Art. 6 last paragraph: show, turn and scramble are at the operator's discretion,
    # "antes de barajarlas" (before shuffling).
    CUT_CARD: (
        ("show", False),
        ("turn", False),
        ("scramble", False),
        ("shuffle", True),
        ("cut", True),
        ("load", True),
        ("burn", True),
    ),
}
DEALER_STEPS: Final = ("show", "turn", "scramble", "shuffle", "cut", "load")
"""Steps the dealer declares with ``procedure_step``; ``burn`` is read from the shoe."""

CARDS_PER_DECK: Final = 52

# What a line cut by a port outage may have carried (``CutOffLine.lost``), for its alarm.
_CUT_OFF_MEANS: Final = {
    "game": "it may have held a card of the game: a misread, the dealer enters the card",
    "burn": "it held a burn card: an unreadable card, play stops",
    "cut": "it held the cut card",
    None: "it held no card (the start of a reader alarm or warning)",
}


class ShoeSession:
    """One table's shoe, from the new-decks procedure onwards.

    Args:
        emit: journals a record and returns it (``controller.games.base.Emit``).
        decks: decks in the shoe (mini-bacará: 4, seed 000 Art. 2).
        cut_card_min_remaining: fewest cards (count) allowed below the cut card; seed 002
            Art. 5 e) and Art. 6 b): "a no menos de cuarenta (40) cartas de la base".

    Raises:
        ValueError: ``decks`` < 1, or ``cut_card_min_remaining`` not below the shoe's size.

    A new session needs the Art. 5 procedure before the first game.
    """

    def __init__(self, emit: Emit, decks: int, cut_card_min_remaining: int = 40) -> None:
        if decks < 1:
            raise ValueError(f"decks must be at least 1: {decks}")
        if not 0 <= cut_card_min_remaining < decks * CARDS_PER_DECK:
            raise ValueError(
                f"cut_card_min_remaining must be in 0..{decks * CARDS_PER_DECK - 1}: "
                f"{cut_card_min_remaining}"
            )
        self._emit = emit
        self.decks = decks
        self.cut_card_min_remaining = cut_card_min_remaining
        self._counts: Counter[Card] = Counter()
        self._procedure: str | None = NEW_DECKS
        self._last_step = -1  # index in _STEPS[_procedure] of the last step done
        self._loaded = False
        self._stops: list[str] = []
        self._cut_seen = False
        self._reserve_alarmed = False
        self._misreads_pending = 0
        self._unknown_lines = 0
        self.shoe_ending = False
        """The cut card appeared (or the reserve was reached): the shoe ends with this coup,
        or at once when no coup is under way (see the module doc)."""

    # --- state -------------------------------------------------------------------------

    @property
    def procedure(self) -> str | None:
        """The procedure due or under way (``NEW_DECKS``, ``CUT_CARD``), None in play."""
        return self._procedure

    @property
    def ready_for_play(self) -> bool:
        """The procedure is complete (burn included) and the shoe is loaded."""
        return self._procedure is None and self._loaded

    @property
    def play_stopped(self) -> bool:
        """A stopping alarm is pending an inspector's clearance."""
        return bool(self._stops)

    @property
    def misreads_pending(self) -> int:
        """Misread cards still awaiting a dealer correction (``manual_card``)."""
        return self._misreads_pending

    @property
    def cards_left(self) -> int:
        """Cards in the shoe by composition: decks × 52 minus the cards counted."""
        return self.decks * CARDS_PER_DECK - self._counts.total()

    @property
    def half_pack(self) -> int:
        """Half the pack (count): the most cards the cut card may leave below it (seed 002
        Art. 5 e, 6 b: "la mitad del paquete")."""
        return self.decks * CARDS_PER_DECK // 2

    def remaining(self, card: Card) -> int:
        """Copies of ``card`` still in the shoe by composition (0 to ``decks``)."""
        return self.decks - self._counts[card]

    def verify_new_coup(self) -> None:
        """Check that a new game may start on this shoe.

        Raises:
            RuleViolation: ``play_stopped`` (an alarm awaits the inspector),
                ``shoe_not_ready`` (the Art. 5 or Art. 6 procedure is due), or
                ``shoe_ending`` (the cut card appeared; ``coup_finished`` not yet called).
        """
        if self.play_stopped:
            raise RuleViolation("play_stopped", f"play is stopped on the shoe: {self._stops}")
        if not self.ready_for_play:
            raise RuleViolation(
                "shoe_not_ready", f"the {self._procedure} procedure (seed 002) is not complete"
            )
        if self.shoe_ending:
            raise RuleViolation(
                "shoe_ending", "the cut card appeared: the shoe ends (seed 002 Art. 6)"
            )

    # --- dealer and inspector inputs ----------------------------------------------------

    def procedure_step(self, t: float, step: str) -> dict[str, Any]:
        """The dealer did ``step`` of the procedure due (seed 002 Art. 5 or 6).

        The first step gathers every card, so the composition is full again. ``burn``
        is not declared: it is fulfilled by a burn card ("quemar") read after ``load``.

        Returns the ``shoe_procedure`` record (``step``, ``procedure``).

        Raises:
            RuleViolation: ``unknown_procedure_step`` (not one of ``DEALER_STEPS``) or
                ``procedure_out_of_order`` (a mandatory step before it is missing, it
                repeats or goes back, or no procedure is due).
        """
        if step not in DEALER_STEPS:
            raise RuleViolation(
                "unknown_procedure_step",
                f"unknown shoe procedure step {step!r}; dealer steps: {', '.join(DEALER_STEPS)}"
                " (the burn is read from the shoe)",
            )
        if self._procedure is None:
            raise RuleViolation(
                "procedure_out_of_order",
                f"step {step!r}: no shoe procedure is due (seed 002 Art. 5/6), the shoe is in play",
            )
        steps = _STEPS[self._procedure]
        index = next(i for i, (name, _) in enumerate(steps) if name == step)
        skipped = [name for name, mandatory in steps[self._last_step + 1 : index] if mandatory]
        if index <= self._last_step or skipped:
            done = steps[self._last_step][0] if self._last_step >= 0 else "nothing"
            raise RuleViolation(
                "procedure_out_of_order",
                f"step {step!r} out of order in the {self._procedure} procedure "
                f"({self._article()}): last done {done}, next due {self._next_due()}",
            )
        if self._last_step < 0:
            self._counts.clear()
        self._last_step = index
        if step == "load":
            self._loaded = True
        return self._emit("shoe_procedure", t=t, procedure=self._procedure, step=step)

    def manual_card(self, t: float, card: Card) -> Card | None:
        """The dealer's correction of a misread card; counted like a read card.

        Returns the card for the game, or None when it raised an alarm (composition).

        Raises:
            RuleViolation: ``no_misread_pending`` (nothing to correct).
        """
        if not self._misreads_pending:
            raise RuleViolation("no_misread_pending", f"no misread card to correct with {card}")
        self._emit("manual_card", t=t, card=str(card))
        return self._take(t, card, burn=False, correction=True)

    def inspector_clear(self, t: float, note: str) -> dict[str, Any]:
        """The inspector resumes play after the stopping alarms; journals ``note``.

        Returns the ``inspector_clear`` record (``note``, ``cleared``: the alarm codes).

        Raises:
            RuleViolation: ``play_not_stopped``.
        """
        if not self._stops:
            raise RuleViolation("play_not_stopped", "play is not stopped on the shoe")
        cleared, self._stops = self._stops, []
        return self._emit("inspector_clear", t=t, note=note, cleared=cleared)

    def coup_finished(self, t: float) -> bool:
        """The game in progress ended, or none is under way; close the shoe if the cut
        card appeared (or the reserve was reached) in it or since the last one.

        Returns True when the shoe closed (the Art. 6 procedure is then due).
        """
        if self.shoe_ending:
            self._close(t, "cut_card", CUT_CARD)
            return True
        return False

    def change_decks(self, t: float, reason: str) -> None:
        """Replace the decks (seed 002 Art. 4: a fault, an incomplete deck, a request).

        Closes the shoe at once; the new-decks procedure (Art. 5) is due.
        """
        self._close(t, "decks_changed", NEW_DECKS, note=reason)

    # --- the reader ---------------------------------------------------------------------

    def feed(self, t: float, line: ShoeLine) -> Card | MisreadLine | None:
        """Act on one line from the shoe reader, read at ``t`` (seconds).

        Returns the card to pass to the game; the ``MisreadLine`` itself when a card of
        the game was not read (the game waits for ``manual_card``); None otherwise.
        """
        match line:
            case CardLine(card=card, burn=burn):
                return self._take(t, card, burn=burn, correction=False)
            case MisreadLine():
                return self._misread(t, line)
            case CutCardLine():
                self._cut_card(t)
            case BadCardLine(text=text):
                if self._loaded:
                    self._stop(
                        t,
                        "bad_card",
                        f"joker or unreadable card {text!r} (seed 002 Art. 4)",
                        text=text,
                    )
                else:
                    self._alarm(
                        t,
                        "card_before_ready",
                        f"{text!r} read before the shoe was loaded",
                        text=text,
                    )
            case ReaderAlarm(code=code, text=text):
                self._alarm(
                    t, "reader_alarm", f"reader alarm {code}: {text}", reader_code=code, text=text
                )
            case ReaderWarning(mask=mask):
                self._alarm(t, "reader_warning", f"reader warning 0x{mask:02X}", mask=mask)
            case UnknownLine(text=text):
                self._unknown_lines += 1
                self._alarm(
                    t,
                    "unknown_line",
                    f"unknown line from the shoe reader: {text!r}",
                    text=text,
                    count=self._unknown_lines,
                )
            case OverlongLine(length=length):
                self._alarm(t, "line_too_long", f"line of {length} bytes dropped", length=length)
            case CutOffLine(length=length, lost=lost, text=text):
                self._alarm(
                    t,
                    "line_cut",
                    f"a line of the shoe reader was cut by the port going down: {length} "
                    f"bytes dropped; {_CUT_OFF_MEANS[lost]}",
                    length=length,
                    lost=lost,
                    **({"text": text} if text else {}),
                )
            case _:
                assert_never(line)
        return None

    def _take(self, t: float, card: Card, *, burn: bool, correction: bool) -> Card | None:
        what = f"{'burn card' if burn else 'card'} {card}"
        if not self._loaded:
            self._alarm(
                t,
                "card_before_ready",
                f"{what} read before the shoe was loaded ({self._article()})",
                card=str(card),
                burn=burn,
            )
            return None
        if self._counts[card] >= self.decks:
            self._stop(
                t,
                "card_over_count",
                f"{what} seen more than {self.decks} times (seed 002 Art. 4)",
                card=str(card),
                burn=burn,
            )
            return None
        self._counts[card] += 1
        if correction:
            self._misreads_pending -= 1
        if self.play_stopped:
            self._alarm(
                t,
                "card_while_stopped",
                f"{what} read while play is stopped",
                card=str(card),
                burn=burn,
            )
            return None
        reserve_reached = self.cards_left < self.cut_card_min_remaining
        if reserve_reached and not (self._cut_seen or self._reserve_alarmed):
            self.shoe_ending = True
            self._reserve_alarmed = True  # one alarm per shoe; a late cut card gets its own
            self._stop(
                t,
                "cut_card_missing",
                f"{what} leaves {self.cards_left} cards and no cut "
                f"card appeared (seed 002 Art. 5 e: at least "
                f"{self.cut_card_min_remaining} below it)",
                card=str(card),
                burn=burn,
            )
            return None
        if burn:
            self._burn(t, card)
            return None
        if self._procedure is not None:
            self._alarm(
                t,
                "card_before_ready",
                f"{what} read before the {self._procedure} "
                f"procedure was complete: next due {self._next_due()}",
                card=str(card),
            )
            return None
        if self._misreads_pending and not correction:
            self._stop(
                t,
                "card_before_correction",
                f"{what} read while a misread card awaits the dealer's correction",
                card=str(card),
            )
            return None
        return card

    def _burn(self, t: float, card: Card) -> None:
        self._emit("burn", t=t, card=str(card), cards_left=self.cards_left)
        if self._procedure is not None:
            # Loaded, so "load" was the last step: the first burn completes the procedure
            # (Art. 5 g, Art. 6 d: "quemar una o más cartas").
            self._emit("shoe_procedure", t=t, procedure=self._procedure, step="burn")
            self._procedure = None
            self._last_step = -1

    def _misread(self, t: float, line: MisreadLine) -> MisreadLine | None:
        if self.play_stopped or not self.ready_for_play:
            code = "card_while_stopped" if self.play_stopped else "card_before_ready"
            self._alarm(t, code, "a card was drawn and not read (misread) outside play")
            return None
        self._misreads_pending += 1
        self._emit("misread", t=t, pending=self._misreads_pending)
        return line

    def _cut_card(self, t: float) -> None:
        if not self._loaded:
            self._alarm(t, "card_before_ready", "cut card read before the shoe was loaded")
            return
        # Seed 002 Art. 5 e, 6 b: the cut card sits "a no menos de 40 cartas de la base y
        # la mitad del paquete": at least cut_card_min_remaining cards below it, and no more
        # than half the pack. Out of those bounds it is misplaced (RULES.md §3).
        late = self.cards_left < self.cut_card_min_remaining
        early = self.cards_left > self.half_pack
        self._emit("cut_card", t=t, cards_left=self.cards_left, late=late, early=early)
        if late:
            self._stop(
                t,
                "cut_card_late",
                f"misplaced cut card: {self.cards_left} cards left, fewer "
                f"than {self.cut_card_min_remaining} (seed 002 Art. 5 e)",
            )
        if early:
            self._stop(
                t,
                "cut_card_early",
                f"misplaced cut card: {self.cards_left} cards left, more than half the "
                f"pack of {self.decks * CARDS_PER_DECK} (seed 002 Art. 5 e, 6 b)",
            )
        self._cut_seen = True
        if self._procedure is None:
            # In play: whether a coup is under way is the owner's to say (coup_finished).
            self.shoe_ending = True
        else:  # the procedure is not complete, so no game is under way: the shoe ends now
            self._close(t, "cut_card", CUT_CARD)

    def _close(self, t: float, reason: str, next_procedure: str, **extra: Any) -> None:
        self._emit("shoe_closed", t=t, reason=reason, cards_left=self.cards_left, **extra)
        self._procedure = next_procedure
        self._last_step = -1
        self._loaded = False
        self._cut_seen = False
        self._reserve_alarmed = False
        self._misreads_pending = 0
        self.shoe_ending = False

    def _article(self) -> str:
        return "seed 002 Art. 5" if self._procedure == NEW_DECKS else "seed 002 Art. 6"

    def _next_due(self) -> str:
        if self._procedure is None:
            return "nothing"
        steps = _STEPS[self._procedure]
        due = []
        for name, mandatory in steps[self._last_step + 1 :]:
            due.append(name)
            if mandatory:
                break
        return " or ".join(due)

    def _alarm(self, t: float, code: str, message: str, **extra: Any) -> None:
        self._emit("alarm", t=t, code=code, message=message, stops_play=False, **extra)

    def _stop(self, t: float, code: str, message: str, **extra: Any) -> None:
        self._stops.append(code)
        self._emit("alarm", t=t, code=code, message=message, stops_play=True, **extra)
