"""What the shoe reader's lines do to the shoe: the composition, the stopping alarms and
the cut card (seed 002 Art. 4-6), under :class:`~controller.cards.shoe.ShoeSession`.

:class:`ShoeReader` keeps the shoe's composition (``decks`` copies of each of the 52
cards, Art. 4), the procedure run and the stopping alarms, and decides which card read
from the shoe goes to the game (``feed``). The decisions it enforces are listed in
:mod:`controller.cards.shoe`; the dealer's and inspector's inputs are the session's.
It journals through ``emit``, touches no hardware and knows no game.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from typing import assert_never

from controller.cards.card import Card
from controller.cards.count_out import CountOut
from controller.cards.procedures import Procedure, ProcedureRun, ShoeRules
from controller.cards.records import (
    Burn,
    CardAlarm,
    CountOutCard,
    CutCard,
    Misread,
    ShoeClosed,
    ShoeProcedure,
)
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
    reader_alarm,
)
from controller.core.contract import Emit
from controller.store.records import ABSENT, Absent


class ShoeReader:
    """One table's shoe as its reader sees it: composition, procedure run, stops.

    Args:
        emit, rules: as :class:`~controller.cards.shoe.ShoeSession`'s.
    """

    def __init__(self, emit: Emit, rules: ShoeRules) -> None:
        self._emit = emit
        self.rules = rules
        self.decks = rules.decks
        self.cut_card_min_remaining = rules.cut_card_min_remaining
        self._cite = rules.citations
        self._counts: Counter[Card] = Counter()
        self._run = ProcedureRun(rules)
        self._loaded = False
        self._stops: list[str] = []
        self._cut_seen = False
        self._reserve_alarmed = False
        self._misreads_pending = 0
        self._unknown_lines = 0
        self._count_out = CountOut(rules)
        self.shoe_ending = False
        """The cut card appeared (or the reserve was reached): the shoe ends with this game,
        or at once when no game is under way (see :mod:`controller.cards.shoe`)."""

    # --- state -------------------------------------------------------------------------

    @property
    def procedure(self) -> str | None:
        """The name of the procedure due or under way (``new_decks``...), None in play."""
        return None if self._run.due is None else self._run.due.name

    @property
    def ready_for_play(self) -> bool:
        """The procedure is complete (burn included) and the shoe is loaded."""
        return self._run.complete and self._loaded

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
        return self.rules.pack - self._counts.total()

    @property
    def half_pack(self) -> int:
        """Half the pack (count): the most cards the cut card may leave below it (seed 002
        Art. 5 e, 6 b: "la mitad del paquete")."""
        return self.rules.pack // 2

    @property
    def counting_out(self) -> bool:
        """The shoe closed at the cut card and its count-out is not done yet."""
        return self._count_out.due

    @property
    def decks_short(self) -> list[str]:
        """The cards the last count-out found missing, one entry a copy: new decks are due
        (``change_decks``) before any procedure step; [] otherwise."""
        return [str(card) for card in self._count_out.short]

    def remaining(self, card: Card) -> int:
        """Copies of ``card`` still in the shoe by composition (0 to ``decks``)."""
        return self.decks - self._counts[card]

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
                if self._loaded or self._count_out.due:
                    self._stop(t, CardAlarm(
                        code="bad_card", message=f"joker or unreadable card {text!r} "
                        f"({self._cite.composition})", text=text))
                else:
                    self._alarm(t, CardAlarm(code="card_before_ready", message=f"{text!r} "
                                             "read before the shoe was loaded", text=text))
            case UnknownLine(text=text, may_be_card=may_be_card):
                self._unknown_lines += 1
                self._alarm(t, CardAlarm(code="unknown_line", message="unknown line from the "
                                         f"shoe reader: {text!r}", text=text,
                                         count=self._unknown_lines))
                if may_be_card and self._count_out.due:  # a card of the count-out unread:
                    self._misread(t, MisreadLine())  # the dealer enters it, never guessed
            case ReaderAlarm() | ReaderWarning() | OverlongLine() | CutOffLine():
                self._alarm(t, reader_alarm(line))
            case _:
                assert_never(line)
        return None

    def _take(self, t: float, card: Card, *, burn: bool, correction: bool,
              lost: bool = False) -> Card | None:
        what = f"{'burn card' if burn else 'card'} {card}"
        if self._count_out.due:
            self._count_out_card(t, card, what, burn=burn, correction=correction)
            return None
        if not self._loaded:
            self._alarm(t, CardAlarm(code="card_before_ready", message=f"{what} read before "
                                     f"the shoe was loaded ({self._run.article()})",
                                     card=str(card), burn=burn))
            return None
        if self._over_count(t, card, what, burn):
            return None
        self._counts[card] += 1
        if correction:
            self._misreads_pending -= 1
        if self.play_stopped:
            self._alarm(t, CardAlarm(code="card_while_stopped",
                                     message=f"{what} read while play is stopped",
                                     card=str(card), burn=burn))
            return None
        reserve_reached = self.cards_left < self.cut_card_min_remaining
        if reserve_reached and not (self._cut_seen or self._reserve_alarmed):
            self.shoe_ending = True
            self._reserve_alarmed = True  # one alarm per shoe; a late cut card gets its own
            self._stop(t, CardAlarm(
                code="cut_card_missing", message=f"{what} leaves {self.cards_left} cards "
                f"and no cut card appeared ({self._cite.cut_card_reserve}: at least "
                f"{self.cut_card_min_remaining} below it)", card=str(card), burn=burn))
            return None
        if burn:
            self._burn(t, card)
            return None
        if not self._run.complete:
            self._alarm(t, CardAlarm(
                code="card_before_ready", message=f"{what} read before the "
                f"{self.procedure} procedure was complete: next due {self._run.next_due()}",
                card=str(card)))
            return None
        if self._misreads_pending and not (correction or lost):
            self._stop(t, CardAlarm(
                code="card_before_correction",
                message=f"{what} read while a misread card awaits the dealer's correction",
                card=str(card)))
            return None
        return card

    def _over_count(self, t: float, card: Card, what: str, burn: bool) -> bool:
        """A copy of ``card`` beyond the decks (Art. 4): a stopping alarm, not counted."""
        if self._counts[card] < self.decks:
            return False
        self._stop(t, CardAlarm(
            code="card_over_count",
            message=f"{what} seen more than {self.decks} times ({self._cite.composition})",
            card=str(card), burn=burn))
        return True

    def _count_out_card(self, t: float, card: Card, what: str, *, burn: bool,
                        correction: bool) -> None:
        """A card of the count-out (read, or a misread's correction): counted, dealt to
        no hand, whether play is stopped or not (counting is not play)."""
        if self._over_count(t, card, what, burn):
            return
        self._counts[card] += 1
        self._count_out.cards += 1
        if correction:
            self._misreads_pending -= 1
        self._emit(CountOutCard(card=str(card), cards_left=self.cards_left), t=t)

    def _burn(self, t: float, card: Card) -> None:
        self._emit(Burn(card=str(card), cards_left=self.cards_left), t=t)
        index = self._run.read_step_due()
        if index is not None:
            # Loaded, and the read step ("quemar una o más cartas", seed 002 Art. 5 g,
            # Art. 6 d) is the next one: the first burn does it.
            assert self._run.due is not None
            step = self._run.due.steps[index]
            self._emit(ShoeProcedure(procedure=self._run.due.name, step=step.name), t=t)
            self._run.done(index)

    def _misread(self, t: float, line: MisreadLine) -> MisreadLine | None:
        if self._count_out.due:  # a card of the count-out: its face comes from the dealer
            self._misreads_pending += 1
            self._emit(Misread(pending=self._misreads_pending), t=t)
            return None
        if self.play_stopped or not self.ready_for_play:
            code = "card_while_stopped" if self.play_stopped else "card_before_ready"
            self._alarm(t, CardAlarm(code=code, message="a card was drawn and not read "
                                     "(misread) outside play"))
            return None
        self._misreads_pending += 1
        self._emit(Misread(pending=self._misreads_pending), t=t)
        return line

    def _cut_card(self, t: float) -> None:
        if self._count_out.due:  # it was left in the shoe (the reserve reached without it)
            self._alarm(t, CardAlarm(code="cut_card_in_count_out", message="the cut card "
                                     "passed the reader in the count-out: the shoe is "
                                     "closed already, it changes nothing"))
            return
        if not self._loaded:
            self._alarm(t, CardAlarm(code="card_before_ready",
                                     message="cut card read before the shoe was loaded"))
            return
        # Seed 002 Art. 5 e, 6 b: the cut card sits "a no menos de 40 cartas de la base y
        # la mitad del paquete": at least cut_card_min_remaining cards below it, and no more
        # than half the pack. Out of those bounds it is misplaced (RULES.md §3).
        late = self.cards_left < self.cut_card_min_remaining
        early = self.cards_left > self.half_pack
        self._emit(CutCard(cards_left=self.cards_left, late=late, early=early), t=t)
        if late:
            self._stop(t, CardAlarm(
                code="cut_card_late", message=f"misplaced cut card: {self.cards_left} cards "
                f"left, fewer than {self.cut_card_min_remaining} "
                f"({self._cite.cut_card_reserve})"))
        if early:
            self._stop(t, CardAlarm(
                code="cut_card_early", message=f"misplaced cut card: {self.cards_left} cards "
                f"left, more than half the pack of {self.rules.pack} "
                f"({self._cite.cut_card_half})"))
        self._cut_seen = True
        if self._run.due is None:
            # In play: whether a game is under way is the owner's to say (close_if_ending).
            self.shoe_ending = True
        else:  # the procedure is not complete, so no game is under way: the shoe ends now
            self._close(t, "cut_card", self.rules.after_cut_card or self.rules.new_decks)

    def _close(self, t: float, reason: str, next_procedure: Procedure,
               note: str | Absent = ABSENT) -> None:
        # At the cut card, the count-out first (Art. 4).
        count_out = True if self._count_out.closed(reason, self._counts) else ABSENT
        self._emit(ShoeClosed(reason=reason, cards_left=self.cards_left, note=note,
                              count_out=count_out), t=t)
        self._run.start(next_procedure)
        self._loaded = False
        self._cut_seen = False
        self._reserve_alarmed = False
        self._misreads_pending = 0
        self.shoe_ending = False

    def _alarm(self, t: float, alarm: CardAlarm) -> None:
        self._emit(replace(alarm, stops_play=False), t=t)

    def _stop(self, t: float, alarm: CardAlarm) -> None:
        self._stops.append(alarm.code)
        self._emit(replace(alarm, stops_play=True), t=t)
