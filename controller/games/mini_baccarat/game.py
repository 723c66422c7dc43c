"""Mini-Bacará: rules, the coup state machine and the exact analysis of one box.

Source: seed 000, Uruguay decree 217/978 ("Mini-Bacará"), which applies the Punto y Banca
decree 526/977 with changes; RULES.md §2 digests it. Article numbers below are the decree's.

Vocabulary of the decree, used throughout:

- a coup ("pase") is "de aire" when a natural (8 or 9 on the first two cards) decides it at
  once, and "a definir" when a third card is needed (Art. 7);
- a box with five on two cards must "pedir" (draw) or "plantar" (stand) (Art. 8);
- "encart": the Banca and a box both have 6, or both 7, on two cards: a standoff, no more
  cards (Art. 9 d);
- "cobertura o seguro": insurance offered when the Banca's first card, turned, is a nine
  (Art. 11).

Amounts are chips throughout. The Banca (the house dealer, Art. 3) plays one hand against
every box separately (Art. 8-9): against some boxes it may stand on its two cards while it
draws one third card, shared, against the others.

Three layers, each usable alone, each in its own module (this one is the facade and
re-exports them):

1. ``rules``: pure rules functions on hands given as cards or point values (``points``,
   ``hand_total``, ``is_natural``, ``is_encart``, ``box_draws``, ``banca_draws``,
   ``box_takes_third``, ``banca_takes_third``, ``outcome``, ``insurance_wins``);
2. ``coup``: ``CoupChart``, the coup as a python-statemachine ``StateChart`` (Art. 4-11);
   here, ``MiniBaccarat``, the card game (``controller.cards.game.CardGame``) its card
   table deals, with dealer inputs, bets and cards;
3. ``analysis``: ``analyze``, the exact probabilities of one box against the Banca,
   enumerated through the same rules functions, and ``insurance_probability``.

Beside them: ``shoe`` (four decks, Art. 2; the procedures of seed 002 Art. 4-6),
``config`` (the ``[mini_baccarat]`` section), ``recall`` and ``simulation`` (the simulated
dealer and bettors).
"""

from __future__ import annotations

from typing import Any, TypeGuard

from controller.cards.card import Card
from controller.cards.game import verify_event
from controller.cards.records import Tag
from controller.core.contract import Emit
from controller.core.errors import RuleViolation
from controller.core.events import BetPlaced, DealerInput
from controller.core.words import given, one_of
from controller.games.mini_baccarat.analysis import analyze, format_analysis, insurance_probability
from controller.games.mini_baccarat.coup import CoupChart
from controller.games.mini_baccarat.records import TAGS
from controller.games.mini_baccarat.rules import (
    BANCA,
    BET_KINDS,
    BET_RECORD,
    BOXES,
    DECKS,
    FIVE_CHOICES,
    INSURANCE_RULES,
    Hand,
    Outcome,
    _label,
    banca_draws,
    banca_takes_third,
    banca_win_payout,
    box_draws,
    box_takes_third,
    decided_on_two_cards,
    hand_total,
    insurance_wins,
    is_encart,
    is_natural,
    outcome,
    points,
)

__all__ = [
    "BANCA",
    "BET_KINDS",
    "BOXES",
    "DECKS",
    "FIVE_CHOICES",
    "INSURANCE_RULES",
    "CoupChart",
    "Hand",
    "MiniBaccarat",
    "Outcome",
    "analyze",
    "banca_draws",
    "banca_takes_third",
    "banca_win_payout",
    "box_draws",
    "box_takes_third",
    "decided_on_two_cards",
    "format_analysis",
    "hand_total",
    "insurance_probability",
    "insurance_wins",
    "is_encart",
    "is_natural",
    "outcome",
    "points",
]


class MiniBaccarat:
    """The Mini-Bacará table: dealer inputs, bets and shoe cards in; records out. It is the
    card game (:class:`~controller.cards.game.CardGame`) its card table deals.

    Args:
        emit: journals each record (``coup_start``, ``bet_placed``, ``bets_closed``,
            ``card``, ``misread``, ``five_choice``, ``card_turned``, ``insurance_offered``,
            ``insurance_closed``, ``box_result``, ``settlement``, ``coup_result``).
        decks: decks in the shoe (Art. 2: four, checked by the config), journaled in
            ``coup_start``.
        insurance_pays_on: one of INSURANCE_RULES (Art. 11 Decision).
        limits: (minimum bet, maximum per box and kind) in chips (Art. 5).

    Every input carries ``t``, its time in seconds on the controller's clock (``bet.t`` for
    a bet); the records it causes are journaled with that ``t``. A refused action raises
    ``RuleViolation`` with a ``code`` and changes nothing; the caller journals the alarm.
    Each action has its check (``verify_input``, ``verify_bet``), which raises the same
    refusal without doing anything.

    Raises:
        ValueError: a configuration value out of range.
    """

    bet_record = BET_RECORD

    def __init__(
        self,
        emit: Emit,
        decks: int = 4,
        insurance_pays_on: str = "natural_nine",
        limits: tuple[int, int] = (1, 10000),
    ) -> None:
        if insurance_pays_on not in INSURANCE_RULES:
            raise ValueError(f"insurance_pays_on must be one of {INSURANCE_RULES}")
        if not 1 <= limits[0] <= limits[1]:
            raise ValueError(f"limits must be 1 <= minimum <= maximum: {limits}")
        self._chart = CoupChart(emit, decks, insurance_pays_on, limits)

    # -- what the card table asks -------------------------------------------------------
    @property
    def state(self) -> str:
        """The coup's state, a state id of ``CoupChart`` (``bets_open``, ``dealing``...)."""
        return str(self._chart.current_state_value)

    @property
    def coup(self) -> int:
        """The current (or last) coup number, from 1; 0 before the first coup."""
        return self._chart.coup_number

    def tag(self) -> Tag:
        """``{"coup": N}``: the coup a table's alarm belongs to."""
        return TAGS.of(self.coup)

    def under_way(self) -> bool:
        """A coup from its ``open_bets`` to its ``coup_result``."""
        return self.state not in _BETWEEN_COUPS

    def open_game(self) -> str | None:
        """The coup dealt and not finished, in words; None between coups or while bets
        are open (nothing dealt yet)."""
        if self.state in (*_BETWEEN_COUPS, "bets_open"):
            return None
        return f"coup {self.coup} under way ({self.state})"

    def needs_card(self) -> str | None:
        """Which hand the next shoe card goes to ("box 2", "banca"), or None (Art. 6, 9)."""
        hand = self._chart.next_hand()
        return None if hand is None else _label(hand)

    next_hand = needs_card

    def decision_due(self) -> str | None:
        """The five choices the next card waits for (Art. 8: before the Banca's second
        card), in words; None when none is due."""
        boxes = self._chart.fives_undecided() if self.state == "five_options" else []
        if not boxes:
            return None
        return f"the five choice of box {one_of(boxes, 'and')} (Art. 8)"

    def card_waiting(self, t: float) -> str | None:
        """A card was dealt before the five choices (``controller.cards.waiting``): it is
        the Banca's second card (Art. 6), so the choice is now too late for Art. 8; the
        coup is held for the inspector. Returns the hold's reason."""
        if self.state != "five_options":
            return None
        self._chart.card_before_choice = True
        return (f"coup {self.coup} held for the inspector: the Banca's second card was "
                f"dealt before {self.decision_due()} was entered, which is made before it "
                "(\"antes de que el tallador se asigne su segunda carta descubierta\", Art. "
                "8); a dealer's choice now is refused; the inspector enters the choice made in "
                "time (five_choice, by inspector) and the card goes to the Banca, or voids "
                "the coup (void)")

    def face_down_pending(self) -> bool:
        """From the close of bets to the turn of the Banca's first card, shoe bytes may
        carry that face-down card (Art. 6)."""
        return self.state in ("dealing", "five_options")

    def checkpoint(self) -> dict[str, Any] | None:
        """Between coups, what a fresh table needs: the last coup's number and the state
        (its limits and decks are the config's); None while a coup is under way."""
        if self.state not in _BETWEEN_COUPS:
            return None
        return {"coup": self.coup, "state": self.state}

    def restore(self, state: dict[str, Any]) -> None:
        """Go on from :meth:`checkpoint`'s ``state``."""
        chart = self._chart
        self._chart = CoupChart(chart.emit, chart.decks, chart.insurance_pays_on,
                                chart.limits, coup_number=int(state["coup"]),
                                start_value=str(state["state"]))

    def void(self, t: float) -> None:
        """The inspector voided the coup held for him (``controller.cards.table``): every
        bet not settled is returned, and the coup is over (no ``coup_result``: its hands
        were never completed, Art. 8)."""
        self._chart.event_time = t
        self._chart.returned()
        self.restore({"coup": self.coup, "state": "coup_over"})

    # -- the dealer's inputs and the bets (verify, then do) ------------------------------
    def verify_input(self, inp: DealerInput) -> None:
        """Check ``open_bets``, ``no_more_bets`` (``boxes``) or ``five_choice`` (``box``,
        ``choice``); change nothing.

        Raises:
            RuleViolation: ``bad_input`` (arguments), the refusals of ``open_bets``,
                ``no_more_bets`` and ``five_choice``, or ``input_refused`` for an action a
                Mini-Bacará table does not take.
        """
        event, refusal, kwargs = self._event(inp)
        self._verify(event, refusal, **kwargs)

    def dealer_input(self, inp: DealerInput) -> None:
        """Do ``open_bets``, ``no_more_bets`` or ``five_choice``.

        Raises:
            RuleViolation: as ``verify_input``, before anything changed.
        """
        event, refusal, kwargs = self._event(inp)
        self._send(event, inp.t, refusal, **kwargs)

    def _event(self, inp: DealerInput) -> tuple[str, RuleViolation, dict[str, Any]]:
        """The coup chart's event for a dealer input, its refusal when the coup is not
        where it takes it, and its arguments."""
        args = inp.args
        match inp.action:
            case "open_bets":
                return "open_bets", self._open_bets_refusal(), {}
            case "no_more_bets":
                boxes = args.get("boxes")
                if boxes is not None and (not isinstance(boxes, list)
                                          or not all(_is_box_number(b) for b in boxes)):
                    raise RuleViolation("bad_input", f"boxes must be a list of box numbers: "
                                        f"{given(boxes)}")
                return "no_more_bets", _bets_not_open(), {
                    "boxes": None if boxes is None else list(boxes)}
            case "five_choice":
                box, choice = args.get("box"), args.get("choice")
                # A typo is told as one, whatever the coup's state (Art. 8: pedir, plantar).
                if not _is_box_number(box) or choice not in FIVE_CHOICES:
                    raise RuleViolation("bad_input", f"five_choice needs a box number and draw "
                                        f"or stand: box {given(box)}, choice {given(choice)}")
                return "five_choice", self._five_choice_refusal(), {
                    "box": box, "choice": choice, "by": args.get("by", "dealer")}
            case action:
                raise RuleViolation("input_refused",
                                    f"{action!r} is not an input of a Mini-Bacará table")

    def verify_bet(self, bet: BetPlaced) -> None:
        """Check a bet as ``place_bet`` would; change nothing."""
        self._verify("place_bet", self._bet_refusal(bet), bet=bet)

    def _verify(self, event: str, refusal: RuleViolation, **kwargs: Any) -> None:
        if not verify_event(self._chart, event, **kwargs):
            raise refusal

    def _send(self, event: str, t: float, refusal: RuleViolation, **kwargs: Any) -> None:
        self._chart.event_time = t
        try:
            self._chart.send(event, **kwargs)
        except CoupChart.TransitionNotAllowed:
            raise refusal from None

    def _open_bets_refusal(self) -> RuleViolation:
        return RuleViolation("coup_in_progress", f"coup {self.coup} is not over")

    def open_bets(self, t: float) -> None:
        """Start a coup and accept bets (Art. 4). Refused while a coup is under way."""
        self._send("open_bets", t, self._open_bets_refusal())

    def _bet_refusal(self, bet: BetPlaced) -> RuleViolation:
        if bet.kind == "insurance":
            return RuleViolation(
                "insurance_not_offered",
                "insurance is offered only when the Banca's first"
                " card, turned, is a nine, until its second card (Art. 11)",
            )
        return RuleViolation("bets_closed", "bets are made before the first card (Art. 4)")

    def place_bet(self, bet: BetPlaced) -> None:
        """Accept a bet of ``bet.amount`` chips: ``punto`` or ``banca`` on ``bet.box`` while
        bets are open (Art. 4-5), ``insurance`` while it is offered (Art. 11). Its
        ``bet_placed`` record carries every field of the bet.

        Raises:
            RuleViolation: ``unknown_bet_kind``, ``unknown_box``, ``bad_amount``,
                ``bets_closed``, ``below_minimum``, ``over_maximum``,
                ``insurance_not_offered``, ``insurance_without_punto``,
                ``insurance_over_half``.
        """
        self._send("place_bet", bet.t, self._bet_refusal(bet), bet=bet)

    def no_more_bets(self, t: float, boxes: list[int] | None = None) -> None:
        """Close bets; the boxes in play are ``boxes`` if given, else those with bets.

        Raises:
            RuleViolation: ``bets_not_open``, ``unknown_box``, ``bet_on_box_not_in_play``,
                ``no_boxes_in_play``.
        """
        self._send("no_more_bets", t, _bets_not_open(),
                   boxes=None if boxes is None else list(boxes))

    def _five_choice_refusal(self) -> RuleViolation:
        if self.state not in ("idle", "bets_open", "dealing", "five_options"):
            return RuleViolation(
                "late_five_choice",
                "the choice is final once the Banca's face-down card is turned: \"Decidida "
                "la opción, el tallador descubrirá su carta tapada\" (Art. 8)",
            )
        return RuleViolation("five_choice_not_due", "the boxes' two cards are not out yet")

    def five_choice(self, t: float, box: int, choice: str, by: str = "dealer") -> None:
        """The bettor's "pedir" (``draw``) or "plantar" (``stand``) for a box on five (Art. 8).

        May be corrected while another box on five has not chosen; final once the dealer
        turns the Banca's face-down card, which he does as soon as every box on five has
        chosen ("Decidida la opción, el tallador descubrirá su carta tapada", Art. 8).

        Raises:
            RuleViolation: ``late_five_choice`` once the Banca's face-down card is turned,
                ``five_choice_not_due`` before the second card of every box,
                ``bad_five_choice``, ``not_a_five``, ``five_without_punto``.
        """
        self._send("five_choice", t, self._five_choice_refusal(), box=box, choice=choice,
                   by=by)

    # -- the cards -----------------------------------------------------------------------
    def card(self, t: float, card: Card, manual: bool = False) -> None:
        """A game card from the shoe (burns already removed), or entered by the dealer
        (``manual``), dealt to the hand ``needs_card()`` names (Art. 6, 9).

        Raises:
            RuleViolation: ``unexpected_card`` when no card is due; ``awaiting_correction``
                when a misread card must first be entered by hand.
        """
        self._send(
            "card",
            t,
            RuleViolation("unexpected_card", f"no card is due (state {self.state}): {card}"),
            card=card,
            manual=manual,
        )

    def misread(self, t: float) -> None:
        """A card passed the reader unread: play waits for ``card(..., manual=True)``.

        Raises:
            RuleViolation: ``unexpected_card`` when no card is due; ``awaiting_correction``
                when the previous misread is not corrected yet.
        """
        self._send(
            "misread", t, RuleViolation("unexpected_card", f"no card is due (state {self.state})")
        )


# Coup states in which no coup is under way (before the first, after the last one's result).
_BETWEEN_COUPS = ("idle", "coup_over")


def _bets_not_open() -> RuleViolation:
    return RuleViolation("bets_not_open", "bets are not open")


def _is_box_number(value: Any) -> TypeGuard[int]:
    """An int from the input's JSON, not ``true``/``false`` (a bool is an int in Python,
    and ``true`` would otherwise mean box 1)."""
    return isinstance(value, int) and not isinstance(value, bool)
