"""The card-game interface: what a card game is to the card table that deals it.

The card table (:class:`~controller.cards.table.CardTable`) keeps what every card table
shares: the shoe session and its procedures, the reader's codec per port, misreads and the
dealer's card correction, port outages, the cut card ending the shoe after the current
game, and ``open_bets`` refused until the shoe is ready. A game's package (the
regulations of seeds 000, 002, 003 and 004 each give one) implements
:class:`CardGame`: where the next card goes, what a card does, which cards stay face down
until when, whether a game is under way, its own dealer inputs and bets (verify, then do),
and enough of its records for the table to replay it after a restart.

A card game journals, besides its own records, the card core's: ``card`` (``hand``,
``card``, ``face_down``, ``manual``) for each card dealt, ``card_turned`` (``hand``,
``card``) when a face-down card is turned, ``bets_closed`` when the deal begins (from then
on the shoe's raw bytes may carry a face-down card: :mod:`controller.cards.masking`), and
``misread`` (``hand``) for a card that passed the reader unread.
"""

from __future__ import annotations

import inspect
from typing import Any, Protocol

from statemachine import StateChart

from controller.cards.card import Card
from controller.cards.records import Tag
from controller.core.events import BetPlaced, DealerInput


class CardGame(Protocol):
    """A card game as its card table drives it, on the controller thread only.

    Every input has been journaled before it reaches the game, and every record the game
    makes goes through the ``emit`` it was made with. ``verify_*`` raise
    :class:`~controller.core.errors.RuleViolation` and change nothing; ``dealer_input``,
    ``place_bet``, ``card`` and ``misread`` raise it only before changing anything. The
    game is deterministic: the same inputs in the same order give the same records (the
    table's restart recovery plays them again, ``CardTable.recover_from``).
    """

    bet_record: str
    """The record type of an accepted bet (e.g. ``bet_placed``); it carries every field of
    the bet input (``kind``, ``box``, ``amount``, and ``numbers`` or ``which`` when given:
    :func:`bet_fields`), so the journal holds each bet once and recovery reads it back."""

    @property
    def state(self) -> str:
        """The game's state, in the words of its statechart (``bets_open``...)."""

    def tag(self) -> Tag:
        """The fields that tie a table's record (an alarm, the recovery) to the current or
        last game, e.g. ``{"hand": 3}`` (its number under the game's own name; 0 before
        the first): ``CardTags.of`` of its ``records.TAGS``."""

    def under_way(self) -> bool:
        """Whether a game is being played on this shoe: from its opening
        (``open_bets``) to its result. The cut card ends the shoe after it."""

    def open_game(self) -> str | None:
        """The game still open when input ends (a replay's trace ran out), in words, e.g.
        "hand 3 under way (dealing)"; None when none is."""

    def next_hand(self) -> str | None:
        """The hand the next card from the shoe goes to, in the dealing order of the
        game's rules, in words ("box 2", "dealer"); None when no card is due."""

    def face_down_pending(self) -> bool:
        """Whether bytes the shoe sends now may carry a card dealt face down and not yet
        turned (live masking of the raw bytes)."""

    def card(self, t: float, card: Card, manual: bool = False) -> None:
        """Deal ``card`` (from the shoe, burns removed; or the dealer's correction,
        ``manual``) to ``next_hand()``, with all it causes, at ``t`` (seconds).

        Raises:
            RuleViolation: no card is due (``unexpected_card``), or a misread card must be
                corrected by hand first (``awaiting_correction``).
        """

    def misread(self, t: float) -> None:
        """The card due passed the reader unread: play waits for its correction.

        Raises:
            RuleViolation: as ``card``.
        """

    def verify_input(self, inp: DealerInput) -> None:
        """Check one of the game's own dealer inputs (``open_bets`` included, once the
        table found the shoe ready); an action the game does not take is refused with
        ``input_refused``."""

    def dealer_input(self, inp: DealerInput) -> None:
        """Do one of the game's own dealer inputs."""

    def verify_bet(self, bet: BetPlaced) -> None:
        """Check a bet (kind, box, amount; the game's limits and moment)."""

    def place_bet(self, bet: BetPlaced) -> None:
        """Accept a bet: journal its ``bet_record``, then count it."""

    # Optional (a game without them recovers from the journal's start, replaying every
    # input): ``checkpoint() -> dict | None``, the game's state between games (its number,
    # a pool's balance...; None while a game is under way), and ``restore(state)``, which
    # goes on from it. The card table calls them when the shoe has just closed.
    #
    # Optional (``controller.cards.waiting``): ``decision_due() -> str | None``, in words,
    # the person's decision the game waits for before the next card has a place (None
    # when a card is due, or none can come); a card read then waits for it instead of
    # being refused. ``card_waiting(t) -> str | None``: a card came before that decision;
    # the reason the game is now held for the inspector (the decision too late for its
    # seed), or None when the dealer may still enter it. ``cards_set_aside(t)``: the
    # inspector resumed play after cards read were given no hand (``card_without_place``);
    # a game that held its result for them goes on without them.


def bet_fields(bet: BetPlaced) -> dict[str, Any]:
    """Every field of a bet input, as journaled (CONTRACT §2 ``bet``): ``kind``, ``box``,
    ``amount``, and the fields its game's bets take (``by``, ``authorized``) when said
    (:meth:`~controller.core.events.BetPlaced.input`)."""
    return bet.input()


def verify_event(chart: StateChart, event: str, **kwargs: Any) -> bool:
    """Whether ``chart`` takes ``event`` now, found without sending it (pokerkit's verify
    on a python-statemachine chart): False when no transition from the active state takes
    it; else its validators run, with the ``kwargs`` each names, and raise their
    ``RuleViolation``. Nothing changes. Transitions of ``event`` must have no ``cond``.
    """
    for state in chart.configuration:
        for transition in state.transitions:
            if transition.is_eventless or not transition.match(event):
                continue
            for spec in transition.validators:
                check = getattr(chart, spec.func) if isinstance(spec.func, str) else spec.func
                names = inspect.signature(check).parameters
                check(**{k: v for k, v in kwargs.items() if k in names})
            return True
    return False
