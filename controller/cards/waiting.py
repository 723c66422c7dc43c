"""Cards whose place is not known yet: never dropped, never given to the next hand by default.

A card read from the shoe goes to the hand the game's dealing order gives it
(``CardGame.next_hand``). Two things can leave a card without a place at the moment it is
read, and each stops play until a person says where it goes (project standards: never
drop or move a card, never guess a card or a choice):

- **A decision that comes after its card.** The game waits for a person's decision before
  it knows where the next card goes (``decision_due``: a box's choice on its two cards,
  a hand's hit, stand, double or split, a player's discard), and the dealer dealt the
  card before the decision was entered. The card waits, with a ``decision_missing`` alarm
  naming the decision; when the dealer enters it, the card goes where that decision puts
  it (a stand that leaves it no place moves the wait on to the next decision). The game
  may say the decision is now too late for its seed (``card_waiting``: a choice the seed
  wants before the very card that came): play stops for the inspector (``coup_held``),
  and the game is never completed with other cards.
- **Shoe input lost.** The shoe's port went down while a card could be due, or the
  journal could not be written (its bytes dropped and counted, then a restart: whatever
  was due, the cards dealt must be counted): cards may have been dealt that the
  controller never read. Play stops for the dealer's correction
  (a ``shoe_input_lost`` alarm): he enters the cards dealt meanwhile, in dealing order,
  with ``lost_cards`` (``cards``: a list, ``[]`` when none was dealt). Until then every card
  read waits: none takes a lost card's place by default. The lost cards then go to the
  places that were due, and the cards read since after them.

A card that waits is journaled as read (its ``serial`` record) and counted by the shoe;
the alarms never name it (it may be face down). When the decision comes and still leaves a
waiting card no place (the hand stood and the dealer draws none), play stops for the
inspector (``card_without_place``): he resumes play without it (``inspector_clear``: the
game's ``cards_set_aside``, a game that held its result goes on) or voids the game. The
whole state is a function of the journaled inputs, so a restart's replay rebuilds it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from controller.cards.card import Card, parse_card
from controller.cards.game import CardGame
from controller.cards.records import CardAlarm
from controller.cards.shoe import ShoeSession
from controller.core.contract import ArgSpec, InputSpec
from controller.core.errors import RuleViolation

LOST_CARDS = "lost_cards"
"""The dealer's input that says which cards were dealt while the shoe's input was lost."""

LOST_CARDS_INPUT = InputSpec(
    LOST_CARDS, "the cards dealt while the shoe was not read (port down, journal failing)", (
        ArgSpec("cards", "list of cards in dealing order, e.g. [\"7H\", \"TD\"]; [] for none"),))
"""Its spec, for each card game's ``GameSpec.inputs``."""

Alarm = Callable[[float, CardAlarm], None]
"""``alarm(t, record)``: journals a table's alarm at ``t``, tagged with its game."""


@dataclass(frozen=True)
class _Waiting:
    card: Card
    manual: bool  # entered by the dealer (a lost card), not read


class WaitingCards:
    """The cards of a card table that wait for their place (see the module doc).

    Args:
        game: the table's game; its optional ``decision_due()`` and ``card_waiting(t)``
            are used when it has them.
        shoe: the table's shoe session (it counts the lost cards and stops play).
        alarm: journals the table's alarms.
    """

    def __init__(self, game: CardGame, shoe: ShoeSession, alarm: Alarm) -> None:
        self.game = game
        self.shoe = shoe
        self._alarm = alarm
        self.cards: list[_Waiting] = []
        self.lost: str | None = None
        """Why shoe input may have been lost while a card could be due (None: nothing
        lost); play waits for ``lost_cards``."""
        self._named: str | None = None  # the decision the last alarm named
        self._misreads = 0  # misread cards that wait for their correction here

    @property
    def pending(self) -> bool:
        """Cards wait, or the dealer's ``lost_cards`` is due."""
        return bool(self.cards) or self.lost is not None

    def decision_due(self) -> str | None:
        """The decision the game waits for before the next card has a place, in words."""
        due = getattr(self.game, "decision_due", None)
        return due() if due is not None else None

    def card_could_be_due(self) -> bool:
        """A card of the game could come now: one is due, or a decision places the next."""
        return self.game.next_hand() is not None or self.decision_due() is not None

    def waiting_for(self) -> str | None:
        """What play waits for, in words (the ``recovery`` record, ``tablectl``), or None."""
        if self.lost is not None:
            return f"{LOST_CARDS}: the cards dealt while {self.lost}"
        if self.cards:
            return self.decision_due() or "the inspector"
        return None

    # -- a card read -----------------------------------------------------------------
    def must_wait(self) -> bool:
        """Whether a card that comes now must wait: cards wait already, ``lost_cards`` is
        due, or no card is due while a decision that places the next is."""
        return self.pending or (self.game.next_hand() is None
                                and self.decision_due() is not None)

    def takes(self, t: float, card: Card, manual: bool = False) -> bool:
        """Whether ``card``, just read (or the dealer's correction of a misread card,
        ``manual``), waits (True: it is kept here, with its alarm) or goes to the game now
        (False: the game has its place)."""
        if manual:
            if not self._misreads:
                return False  # the correction of the game's own misread: its place is known
            self._misreads -= 1
        elif not self.must_wait():
            return False
        self.cards.append(_Waiting(card, manual=manual))
        if self.lost is not None:
            self._alarm(t, CardAlarm(
                code="card_waiting", message=f"a card read while the dealer's {LOST_CARDS} "
                f"is due ({self.lost}): it waits, and goes after the cards lost",
                stops_play=False, count=len(self.cards)))
            return True
        self.place(t)
        return True

    def misread(self, t: float) -> bool:
        """A card passed the reader unread (the shoe counts it, its correction due).
        Returns True when it must wait (see :meth:`must_wait`): the game is not told, the
        dealer's correction (``card``) joins the waiting cards; False: the game's misread
        as usual (the card due)."""
        if not self.must_wait():
            return False
        self._misreads += 1
        self._alarm(t, CardAlarm(
            code="misread_waiting", message="a card passed the reader unread before "
            f"{self.waiting_for() or self.decision_due()} was entered: the dealer enters it "
            "(card), and it waits with the cards before it", stops_play=False))
        return True

    # -- shoe input lost -------------------------------------------------------------
    def input_lost(self, t: float, why: str, *, could_be_due: bool = False,
                   code: str | None = "shoe_input_lost") -> bool:
        """Shoe input may have been lost (``why``, in words): if a card could be due (now,
        or ``could_be_due`` when the input was lost), play stops for the dealer's
        ``lost_cards``, with an alarm ``code`` (None: journal none, the caller does).
        Returns whether play stopped for it."""
        if self.lost is not None:
            return False
        if not (could_be_due or self.card_could_be_due() or self.cards):
            return False
        self.lost = why
        if code is not None:
            self._alarm(t, CardAlarm(code=code, message=self.lost_message(),
                                     stops_play=False))
        return True

    def lost_message(self) -> str:
        """The words of the alarm that stops play for ``lost_cards``."""
        due = self.game.next_hand()
        if due is not None:
            when = f"while the card of {due} could be due"
        elif self.card_could_be_due() or self.cards:
            when = "while a card could be due"
        else:
            when = "while no card was due (a card dealt then has no hand)"
        return (f"{self.lost}, {when}: cards may have been dealt unread; play stops until "
                f"the dealer enters them ({LOST_CARDS}, [] if none was dealt); no card read "
                "takes a lost card's place")

    def verify_lost_cards(self, cards: Any) -> list[Card]:
        """Check the dealer's ``lost_cards``; return its cards.

        Raises:
            RuleViolation: ``no_input_lost`` (nothing awaits it), ``bad_input`` (not a
                list of cards), ``bad_card``.
        """
        if self.lost is None:
            raise RuleViolation("no_input_lost", "no shoe input was lost while a card "
                                "could be due: nothing awaits lost_cards")
        if self.shoe.misreads_pending:
            raise RuleViolation("awaiting_correction", "a misread card awaits the dealer's "
                                "correction first (card)")
        if not isinstance(cards, list) or not all(isinstance(c, str) for c in cards):
            raise RuleViolation("bad_input", "lost_cards needs cards, a list such as "
                                "[\"7H\", \"TD\"] ([] when none was dealt)")
        try:
            return [parse_card(c) for c in cards]
        except ValueError as exc:
            raise RuleViolation("bad_card", f"lost_cards: {exc}") from None

    def lost_cards(self, t: float, cards: Sequence[Card]) -> None:
        """The dealer's ``lost_cards`` (verified): each is counted by the shoe as a card
        drawn, and the cards go to their places, the lost ones first."""
        entered = []
        for card in cards:
            counted = self.shoe.lost_card(t, card)
            if counted is not None:
                entered.append(_Waiting(counted, manual=True))
        self.lost = None
        self.cards = [*entered, *self.cards]
        self.place(t)

    def discard(self) -> int:
        """The game they wait for was voided: they go to the discard with its cards (each
        journaled as read). Returns how many there were."""
        n = len(self.cards)
        self.cards = []
        self._named = None
        return n

    # -- placing ---------------------------------------------------------------------
    def place(self, t: float) -> None:
        """Give the waiting cards to the game while it has a place for them; journal what
        the rest wait for. Called after every input that may give them one."""
        if self.lost is not None:
            return
        while self.cards:
            if self.shoe.play_stopped:
                return  # the inspector first
            if self.game.next_hand() is not None:
                first = self.cards[0]
                try:
                    self.game.card(t, first.card, manual=first.manual)
                except RuleViolation:
                    return  # a misread before it awaits its correction: it waits on
                self.cards.pop(0)
                self._named = None
                continue
            decision = self.decision_due()
            if decision is None:
                self._no_place(t)
            elif decision != self._named:
                self._named = decision
                self._wait_for(t, decision)
            return
        self._named = None
        if not self.shoe.misreads_pending:
            self._misreads = 0  # the shoe forgot them (closed): so does this

    def _wait_for(self, t: float, decision: str) -> None:
        n = len(self.cards)
        self._alarm(t, CardAlarm(
            code="decision_missing", message=f"{'a card was' if n == 1 else f'{n} cards were'}"
            f" dealt before {decision} was entered: play stops until it is; the card waits "
            "and goes where that decision puts it", stops_play=False, count=n))
        held = getattr(self.game, "card_waiting", None)
        reason = held(t) if held is not None else None
        if reason is not None:
            self.shoe.stop(t, CardAlarm(code="coup_held", message=reason))

    def _no_place(self, t: float) -> None:
        n = len(self.cards)
        self.cards = []
        it = "them" if n > 1 else "it"
        # Every card game's statechart calls the betting "bets_open" (controller.cards.game).
        why = ("bets are open, before no_more_bets" if self.game.state == "bets_open" else
               "no game is under way" if not self.game.under_way() else
               f"the decisions entered since give {it} no place")
        self.shoe.stop(t, CardAlarm(
            code="card_without_place", message=f"{n} card{'s' if n > 1 else ''} dealt "
            f"that no hand takes ({why}): nothing more is settled; "
            f"the inspector checks the layout, then resumes play without {it} "
            "(inspector_clear) or voids the game (void)", count=n))
