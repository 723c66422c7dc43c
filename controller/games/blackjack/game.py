"""The Black Jack table as a card game (:class:`~controller.cards.game.CardGame`): dealer inputs,
bets and the shoe's cards in, records out; the statechart
(:class:`~controller.games.blackjack.chart.CoupChart`) plays the coup.

Every input is checked first (verify: the statechart's validators, nothing done), then done;
an input the coup does not take now is refused with the rule that says why (CONTRACT §6:
"Every refusal is a record whose type ends in ``_refused`` (or an ``alarm``), naming the
rule": the card table journals it as an ``alarm`` with that code).
"""

from __future__ import annotations

from typing import Any, TypeGuard

from controller.cards.card import Card
from controller.cards.game import verify_event
from controller.cards.records import Tag
from controller.core.contract import Emit
from controller.core.errors import RuleViolation
from controller.core.events import BetPlaced, DealerInput
from controller.core.words import given
from controller.games.blackjack.chart import BET_RECORD, CoupChart
from controller.games.blackjack.config import BlackjackConfig
from controller.games.blackjack.hands import DEALER
from controller.games.blackjack.records import TAGS

DECISIONS = ("hit", "stand", "double", "split", "surrender")
"""The players' decisions, each a dealer input with ``box`` (CONTRACT §6)."""
_BETWEEN_COUPS = ("idle", "coup_over")
_PLAYING = ("deciding", "player_card")
_DEALER_PLAYS = ("dealer_turn", "dealer_card")


class Blackjack:
    """A Black Jack Plus (seed 002) or Pot Luck (seed 004) table.

    Args:
        emit: journals each record (``coup_start``, ``bet_placed``, ``bets_closed``,
            ``box_refused``, ``card``, ``misread``, ``card_turned``, ``insurance_offered``,
            ``insurance_closed``, ``decision``, ``settlement``, ``pool_balance``, ``coup_result``).
        config: the table's section (``[blackjack_plus]`` or ``[pot_luck]``).
        limits: (minimum, maximum) main bet per box, chips (Art. 7).

    Every input carries ``t``, its time in seconds on the controller's clock; the records
    it causes are journaled with that ``t``.
    """

    bet_record = BET_RECORD

    def __init__(self, emit: Emit, config: BlackjackConfig, limits: tuple[int, int]) -> None:
        self.config = config
        self._chart = CoupChart(emit, config, limits)

    # -- what the card table asks -------------------------------------------------------
    @property
    def state(self) -> str:
        """The coup's state, a state id of ``CoupChart`` (``bets_open``, ``deciding``...)."""
        return str(self._chart.current_state_value)

    @property
    def coup(self) -> int:
        """The current (or last) coup number, from 1; 0 before the first."""
        return self._chart.coup.number

    @property
    def chart(self) -> CoupChart:
        """The coup's statechart (its hands, for a simulated dealer)."""
        return self._chart

    def tag(self) -> Tag:
        """``{"coup": N}``: the coup a table's alarm belongs to."""
        return TAGS.of(self.coup)

    def under_way(self) -> bool:
        """A coup from its ``open_bets`` to its ``coup_result``."""
        return self.state not in _BETWEEN_COUPS

    def open_game(self) -> str | None:
        if self.state in (*_BETWEEN_COUPS, "bets_open"):
            return None
        return f"coup {self.coup} under way ({self.state})"

    def next_hand(self) -> str | None:
        """The hand the next shoe card goes to ("box 2", "box 2 hand 2", "dealer"), or None."""
        slot = self._chart.slot()
        return slot if isinstance(slot, str) or slot is None else slot.label

    def decision_due(self) -> str | None:
        """The player's decision the next card waits for, in words ("the decision of box
        2"); None when none is due. A card read while it is due waits for it
        (``controller.cards.waiting``): a hit, double or split entered after its card
        places it."""
        if self.state not in ("insurance", "deciding"):
            return None
        decision = f"the decision of {self._chart.current().label} (hit, stand, double or split)"
        if self._chart.up_card_held():
            # The up card is not journaled yet: words that name no ace (Art. 8).
            return (f"the decision of {self._chart.current().label} (hit, stand, double or "
                    "split; the insurance question first, where the dealer asks one)")
        # A card drawn while the insurance question is open (Art. 10) can only be the
        # first box's hit: it waits for the question to close and that decision.
        return f"the insurance question closed, then {decision}" if (
            self.state == "insurance") else decision

    def card_waiting(self, t: float) -> str | None:
        """A card was read before the decision that places it (``controller.cards.waiting``):
        the coup settles nothing until it has its place. A surrender is refused while it
        waits (the card dealt is the drawing hand's, Art. 9); a stand that leaves it no
        place holds the coup at the dealer's turn (the table's ``card_without_place``).
        The dealer may still enter the decision, so None (no hold now)."""
        self._chart.coup.card_waits = True
        return None

    def cards_set_aside(self, t: float) -> None:
        """The inspector resumed play after cards read were given no hand
        (``card_without_place``): a coup held for them at the dealer's turn is settled on
        the cards on the layout."""
        if self.state == "dealer_turn" and self._chart.coup.card_waits:
            self._send("card_set_aside", t, RuleViolation("no_card_aside", "no card waits"))

    def face_down_pending(self) -> bool:
        """During the deal the shoe's bytes may carry the dealer's cards, dealt face down
        (Art. 8); once both are dealt, no byte to come carries them."""
        return self.state == "dealing"

    # -- checkpoints (controller.cards.table) ---------------------------------------------
    def checkpoint(self) -> dict[str, Any] | None:
        """Between coups, what a fresh table needs to go on: the last coup's number, the
        state, and at Pot Luck the pool's balance (seed 004 Art. 7: it carries from coup to
        coup, whatever the config's opening balance); None while a coup is under way."""
        if self.state not in _BETWEEN_COUPS:
            return None
        state: dict[str, Any] = {"coup": self.coup, "state": self.state}
        if self.config.pool is not None:
            state["pool_balance"] = self._chart.pool_balance
        return state

    def restore(self, state: dict[str, Any]) -> None:
        """Go on from :meth:`checkpoint`'s ``state``.

        Raises:
            KeyError, TypeError, ValueError: a state this table did not give (the start
                stops: the checkpoint cannot be read).
        """
        if state["state"] not in _BETWEEN_COUPS:
            raise ValueError(f"state {given(state['state'])} is not between coups")
        pool = int(state["pool_balance"]) if self.config.pool is not None else None
        chart = self._chart
        self._chart = CoupChart(chart.emit, self.config, chart.limits,
                                coup_number=int(state["coup"]), start_value=state["state"],
                                pool_balance=pool)

    def void(self, t: float) -> None:
        """The inspector voided the coup held for him (``controller.cards.table``): every
        stake not settled is returned, and the coup is over (no ``coup_result``)."""
        chart = self._chart
        chart.event_time = t
        chart.returned()
        state: dict[str, Any] = {"coup": self.coup, "state": "coup_over"}
        if self.config.pool is not None:
            state["pool_balance"] = chart.pool_balance
        self.restore(state)

    # -- the dealer's inputs and the bets (verify, then do) ------------------------------
    def verify_input(self, inp: DealerInput) -> None:
        """Check ``open_bets``, ``no_more_bets``, ``close_insurance``,
        ``second_card_exposed`` or a decision (``hit``, ``stand``, ``double``, ``split``,
        ``surrender``, with ``box``).

        Raises:
            RuleViolation: ``bad_input``, the refusal of the rule that forbids it now, or
                ``input_refused`` for an action a Black Jack table does not take.
        """
        event, refusal, kwargs = self._event(inp)
        if not verify_event(self._chart, event, **kwargs):
            raise refusal

    def dealer_input(self, inp: DealerInput) -> None:
        """Do it (``verify_input`` first). Raises as ``verify_input``, before any change."""
        event, refusal, kwargs = self._event(inp)
        self._send(event, inp.t, refusal, **kwargs)

    def verify_bet(self, bet: BetPlaced) -> None:
        """Check a bet as ``place_bet`` would; change nothing."""
        if not verify_event(self._chart, "place_bet", bet=bet):
            raise self._bet_refusal(bet)

    def place_bet(self, bet: BetPlaced) -> None:
        """Accept a bet of ``bet.amount`` chips: ``main`` (Pot Luck: ``pool``, ``bonus``)
        while bets are open (Art. 7), ``insurance`` while the dealer's question is open
        (Art. 10: from the deal's end to ``close_insurance``; the first insurance bet, as
        any first input after the deal but ``second_card_exposed``, journals the up card's
        turn and the question before it, Art. 8). Its ``bet_placed`` record carries every
        field of the bet.

        Raises:
            RuleViolation: the refusals of ``checks.Checks.check_table_bet`` and
                ``check_insurance_bet``, or ``bets_closed`` / ``insurance_not_offered``.
        """
        self._send("place_bet", bet.t, self._bet_refusal(bet), bet=bet)

    def card(self, t: float, card: Card, manual: bool = False) -> None:
        """A card from the shoe (or the dealer's correction), to ``next_hand()``.

        Raises:
            RuleViolation: ``unexpected_card`` when no card is due, ``awaiting_correction``.
        """
        why = f"no card is due (state {self.state}): {card}"
        self._send("card", t, RuleViolation("unexpected_card", why), card=card, manual=manual)

    def misread(self, t: float) -> None:
        """A card passed the reader unread: play waits for its correction."""
        why = f"no card is due (state {self.state})"
        self._send("misread", t, RuleViolation("unexpected_card", why))

    def _send(self, event: str, t: float, refusal: RuleViolation, **kwargs: Any) -> None:
        chart = self._chart
        chart.event_time = t
        if chart.up_card_held() and event != "second_card_exposed":
            # Art. 8: an input the coup takes, other than the exposed card, says the
            # first card is the up card: its turn is journaled before that input's records
            # (a refused input leaves it held, so the first card never shows early).
            if not verify_event(chart, event, **kwargs):
                raise refusal
            chart.show_up_card()
        try:
            chart.send(event, **kwargs)
        except CoupChart.TransitionNotAllowed:
            raise refusal from None

    def _event(self, inp: DealerInput) -> tuple[str, RuleViolation, dict[str, Any]]:
        """The statechart's event for a dealer input, its refusal when the coup is not where
        it takes it, and its arguments."""
        action = inp.action
        if action == "open_bets":
            return action, RuleViolation("coup_in_progress", f"coup {self.coup} is not over"), {}
        if action == "no_more_bets":
            return action, RuleViolation("bets_not_open", "bets are not open"), {}
        if action == "second_card_exposed":
            return action, self._exposed_refusal(), {}
        if action == "close_insurance":
            return action, RuleViolation("insurance_not_offered", "no insurance question is "
                                         f"open (state {self.state}; Art. 10)"), {}
        if action in DECISIONS:
            box = inp.args.get("box")
            if not _is_box_number(box):
                raise RuleViolation("bad_input", f"{action} needs a box number: box "
                                    f"{given(box)}")
            kwargs: dict[str, Any] = {"box": box}
            if action == "stand" and "by" in inp.args:
                kwargs["by"] = inp.args["by"]
            return action, self._decision_refusal(action), kwargs
        raise RuleViolation("input_refused", f"{action!r} is not an input of a Black Jack table")

    # -- why an input is refused where the coup is ----------------------------------------
    def _decision_refusal(self, action: str) -> RuleViolation:
        state = self.state
        if state == "dealing":
            return RuleViolation("deal_not_complete", f"no {action} before the two-card deal is "
                                 "complete (\"Concluida dicha etapa cualquier jugador se puede "
                                 "plantar\", Art. 8)")
        if state == "insurance":
            if action == "surrender":
                return RuleViolation("surrender_against_ace", "no surrender when the dealer's "
                                     "up card is an ace (\"El retiro no procede cuando la "
                                     "primera carta del dealer es un As\", Art. 9)")
            return RuleViolation("insurance_open", f"no {action} while the dealer asks for "
                                 "insurance: the decisions come after close_insurance (Art. "
                                 "10: \"antes del inicio de la etapa de entrega voluntaria de "
                                 "cartas\")")
        if state == "player_card":
            return RuleViolation("card_due", f"the card of {self.next_hand()} is due first")
        if state in _DEALER_PLAYS:
            return RuleViolation("no_decision_due", "every hand is finished: the dealer plays")
        return RuleViolation("no_decision_due", f"no coup is being dealt (state {state})")

    def _exposed_refusal(self) -> RuleViolation:
        if self.state in ("bets_open", "dealing"):
            return RuleViolation("exposed_not_dealt", "the dealer's second card is not dealt "
                                 "yet (Art. 8)")
        return RuleViolation("up_card_turned", "the dealer's up card is already played on: "
                             "the exposed card is said before any player acts (Art. 8)")

    def _bet_refusal(self, bet: BetPlaced) -> RuleViolation:
        if bet.kind == "insurance":
            if not self.config.insurance:
                return RuleViolation("insurance_not_offered", "this table offers no "
                                     "insurance (setting insurance = false; seed 004 has "
                                     "none)")
            coup = self._chart.coup
            ace_up = coup.up_index is not None and coup.up_card().rank == "A"
            if ace_up and self.state in (*_PLAYING, *_DEALER_PLAYS):
                return RuleViolation("insurance_closed", "insurance is placed while the "
                                     "dealer asks, before the decisions (Art. 10: \"hasta "
                                     "antes del inicio de la etapa de entrega voluntaria de "
                                     "cartas\")")
            return RuleViolation("insurance_not_offered", "insurance is offered once the deal "
                                 "is complete, when the dealer's up card is an ace (Art. 10)")
        return RuleViolation("bets_closed", "bets are placed until the first card is dealt "
                             "(\"hasta antes de repartir la primera carta\", Art. 7)")


def _is_box_number(value: Any) -> TypeGuard[int]:
    """An int from the input's JSON, not ``true``/``false`` (a bool is an int in Python)."""
    return isinstance(value, int) and not isinstance(value, bool)


__all__ = ["BET_RECORD", "DEALER", "DECISIONS", "Blackjack"]
