"""The draw-poker table's game: the card game (:class:`~controller.cards.game.CardGame`) its
card table deals, over the hand's statechart (:mod:`controller.games.draw_poker.chart`).

Inputs (CONTRACT §7), each checked first (verify, then do), each refusal naming its rule:
``open_bets``, the antes (``{"bet": "ante", "box": B, "amount": A}``), ``mano`` (``box``),
``no_more_bets``; then, each with ``box``: ``pass``, ``bet`` (``amount``), ``call``, ``raise``
(``amount``: the new level), ``fold``, ``discard`` (``cards``), ``refuse_card`` (optional
``card``: the card dealt face up). The cards come from the shoe.

Face down (num. 7): every card is dealt face down (``card`` with ``face_down: true``), so
the public view (log, ``replay`` output, ``tablectl status`` and ``recall``) shows ``"??"``
for it, and hides the shoe's raw bytes and the discards' cards, until it is turned: at
the showdown for the hands shown (num. 15), or when a player refuses a card dealt face up
(num. 11) and names it. The journal keeps every card whole.
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
from controller.games.draw_poker.betting import ACTIONS
from controller.games.draw_poker.chart import BET_RECORD, HandChart
from controller.games.draw_poker.hand import Hand
from controller.games.draw_poker.records import TAGS
from controller.store.shared import Settlement

_BETWEEN_HANDS = ("idle", "hand_over")
_CARDS_OUT = ("dealing", "first_round", "draw", "second_round")


class DrawPoker:
    """The draw-poker table: dealer inputs, antes and shoe cards in; records out.

    Args:
        emit: journals each record (``hand_start``, ``ante_placed``, ``mano``,
            ``bets_closed``, ``card``, ``misread``, ``round_start``, ``round_action``,
            ``draw_start``, ``draw``, ``hand_void``, ``card_turned``, ``mano_nula``,
            ``rake``, ``hand_result``, ``settlement``).
        limits: (house minimum, house maximum) of the ante, in chips (num. 4, 21).
        later: those of the later bets ("Apuestas Posteriores", num. 21), or None.

    Raises:
        ValueError: limits not 1 <= minimum <= maximum.
    """

    bet_record = BET_RECORD

    def __init__(self, emit: Emit, limits: tuple[int, int] = (1, 1000),
                 later: tuple[int, int] | None = None) -> None:
        for pair in (limits, later or (1, 1)):
            if not 1 <= pair[0] <= pair[1]:
                raise ValueError(f"limits must be 1 <= minimum <= maximum: {pair}")
        self._chart = HandChart(emit, limits, later=later)

    # -- what the card table asks -------------------------------------------------------
    @property
    def state(self) -> str:
        """The hand's state, a state id of ``HandChart`` (``bets_open``, ``draw``...)."""
        return str(self._chart.current_state_value)

    @property
    def hand(self) -> Hand:
        """The current (or last) hand."""
        return self._chart.hand

    @property
    def outcome(self) -> str:
        """How the last hand ended (``showdown``, ``folds``, ``mano_nula``, ``void``), ""
        while it is under way."""
        return self._chart.outcome

    def tag(self) -> Tag:
        """``{"hand": N}``: the hand a table's alarm belongs to (0 before the first)."""
        return TAGS.of(self.hand.number)

    def under_way(self) -> bool:
        """A hand from its ``open_bets`` to its ``hand_result``."""
        return self.state not in _BETWEEN_HANDS

    def open_game(self) -> str | None:
        """The hand dealt and not finished, in words; None between hands or while the
        antes are being posted."""
        if self.state not in _CARDS_OUT:
            return None
        return f"hand {self.hand.number} under way ({self.state})"

    def next_hand(self) -> str | None:
        """The box the next card from the shoe goes to ("box 2"), None when none is due."""
        box = self._chart.next_box()
        return None if box is None else f"box {box}"

    def decision_due(self) -> str | None:
        """The discard the next card waits for, in words ("the discard of box 2 (num.
        9)"): in the draw, once the player served last has all his replacements, while a
        player's discard is still to come; None otherwise. A card read then waits for it
        (``controller.cards.waiting``): the replacement dealt before its discard was
        entered goes to the player the discard names, never as one too many to the
        player before him (num. 10 applies once no discard can still come)."""
        hand = self.hand
        if self.state != "draw" or hand.replacement_box() is not None:
            return None
        box = hand.next_drawer()
        return None if box is None else f"the discard of box {box} (num. 9)"

    def face_down_pending(self) -> bool:
        """From the deal to the hand's end every card out is face down (num. 7): the shoe's
        bytes may carry one."""
        return self.state in _CARDS_OUT

    # -- checkpoints (controller.cards.table) ---------------------------------------------
    def checkpoint(self) -> dict[str, Any] | None:
        """Between hands, what a fresh table needs to go on: the last hand's number, the
        state and how that hand ended (the Mano is named hand by hand, num. 8: nothing of
        it carries); None while a hand is under way."""
        if self.state not in _BETWEEN_HANDS:
            return None
        return {"hand": self.hand.number, "state": self.state, "outcome": self.outcome}

    def restore(self, state: dict[str, Any]) -> None:
        """Go on from :meth:`checkpoint`'s ``state``.

        Raises:
            KeyError, TypeError, ValueError: a state this table did not give (the start
                stops: the checkpoint cannot be read).
        """
        if state["state"] not in _BETWEEN_HANDS:
            raise ValueError(f"state {given(state['state'])} is not between hands")
        chart = self._chart
        self._chart = HandChart(chart.emit, chart.limits, hand_number=int(state["hand"]),
                                start_value=state["state"], outcome=str(state["outcome"]),
                                later=chart.later)

    def void(self, t: float) -> None:
        """The inspector voided the hand held for him (``controller.cards.table``): nobody
        won, every player's ante and bets are returned (``push``, as a void hand's, num.
        10), and the hand is over (no ``hand_result``: it was never played out)."""
        hand = self.hand
        for seat in hand.seats.values():
            bets = sum(seat.bets)
            for kind, amount in (("ante", seat.ante), ("bet", bets)):
                if kind == "ante" or amount:
                    self._chart.emit(Settlement(game=hand.number, box=seat.box, kind=kind,
                                                amount=amount, outcome="push", payout=0),
                                     t=t)
        self.restore({"hand": hand.number, "state": "hand_over", "outcome": "void"})

    # -- the dealer's inputs and the antes (verify, then do) -----------------------------
    def verify_input(self, inp: DealerInput) -> None:
        """Check a dealer input; change nothing.

        Raises:
            RuleViolation: ``bad_input`` (its arguments), the rule's refusal, or
                ``input_refused`` for an action a poker table does not take.
        """
        event, refusal, kwargs = self._event(inp)
        if not verify_event(self._chart, event, **kwargs):
            raise refusal

    def dealer_input(self, inp: DealerInput) -> None:
        """Do a dealer input (``verify_input`` first).

        Raises:
            RuleViolation: as ``verify_input``, before anything changed.
        """
        event, refusal, kwargs = self._event(inp)
        self._send(event, inp.t, refusal, **kwargs)

    def verify_bet(self, bet: BetPlaced) -> None:
        """Check an ante as ``place_bet`` would; change nothing."""
        if not verify_event(self._chart, "place_bet", bet=bet):
            raise self._bet_refusal()

    def place_bet(self, bet: BetPlaced) -> None:
        """Accept an ante while bets are open (num. 4); its ``ante_placed`` record carries
        every field of the bet and the hand's agreed ``ante``.

        Raises:
            RuleViolation: ``unknown_bet_kind``, ``unknown_box``, ``too_many_players``
                (num. 4), ``bad_amount``, ``ante_posted``, ``below_minimum``,
                ``over_maximum`` (num. 21), ``ante_not_agreed`` (num. 4), ``bets_closed``
                (num. 5), ``bet_after_first_card`` (num. 6).
        """
        self._send("place_bet", bet.t, self._bet_refusal(), bet=bet)

    # -- the cards -----------------------------------------------------------------------
    def card(self, t: float, card: Card, manual: bool = False) -> None:
        """A card from the shoe (or the dealer's correction, ``manual``), dealt face down to
        the box ``next_hand()`` names; in the draw, a card after a player's replacements
        is one too many for him (num. 10).

        Raises:
            RuleViolation: ``unexpected_card``, ``awaiting_correction``.
        """
        self._send("card", t, self.hand.card_refusal(self.state), card=card, manual=manual)

    def misread(self, t: float) -> None:
        """A card passed the reader unread: play waits for the dealer's correction.

        Raises:
            RuleViolation: ``unexpected_card``, ``awaiting_correction``.
        """
        self._send("misread", t, self.hand.card_refusal(self.state))

    # -- internals ---------------------------------------------------------------------
    def _send(self, event: str, t: float, refusal: RuleViolation, **kwargs: Any) -> None:
        self._chart.event_time = t
        try:
            self._chart.send(event, **kwargs)
        except HandChart.TransitionNotAllowed:
            raise refusal from None

    def _event(self, inp: DealerInput) -> tuple[str, RuleViolation, dict[str, Any]]:
        """The chart's event for a dealer input, its refusal when the hand is not where it
        takes it, and its arguments."""
        args, action, state = inp.args, inp.action, self.state
        if action == "open_bets":
            return "open_bets", RuleViolation(
                "hand_in_progress", f"hand {self.hand.number} is not over"), {}
        if action == "no_more_bets":
            return "no_more_bets", RuleViolation("bets_not_open", "bets are not open"), {}
        if action not in (*ACTIONS, "mano", "discard", "refuse_card"):
            raise RuleViolation("input_refused", f"{action!r} is not an input of a poker "
                                "table")
        box = args.get("box")
        if not _is_box(box):
            raise RuleViolation("bad_input", f"{action} needs box, a box number: {given(box)}")
        if action == "mano":
            return "mano", RuleViolation("mano_too_late", "the Mano is named before the first "
                                         "round (num. 8)"), {"box": box}
        if action == "discard":
            return "discard", _discard_refusal(state), {"box": box, "cards": args.get("cards")}
        if action == "refuse_card":
            return "refuse_card", _refuse_refusal(state), {"box": box, "card": args.get("card")}
        return "act", _act_refusal(state), {"action": action, "box": box,
                                            "amount": args.get("amount")}

    def _bet_refusal(self) -> RuleViolation:
        state = self.state
        if state in _CARDS_OUT and self.hand.dealt:
            return RuleViolation("bet_after_first_card", "once the first card is out no bet "
                                 "may be placed, withdrawn or changed (num. 6)")
        if state in _CARDS_OUT:
            return RuleViolation("bets_closed", "\"no va más\": bets are closed (num. 5)")
        return RuleViolation("bets_not_open", "bets are not open: open_bets starts a hand "
                             "(num. 4)")


def _act_refusal(state: str) -> RuleViolation:
    if state in ("bets_open", "dealing"):
        return RuleViolation("round_not_open", "the first round starts once every player "
                             "has his five cards (num. 8)")
    return RuleViolation("no_hand", "no hand is being played")


def _discard_refusal(state: str) -> RuleViolation:
    if state == "second_round":
        return RuleViolation("draw_over", "there is one draw only, before the second round "
                             "(num. 9)")
    return RuleViolation("draw_not_open", "the draw comes once the first round's bets are "
                         "matched (num. 9)")


def _refuse_refusal(state: str) -> RuleViolation:
    if state == "second_round":
        return RuleViolation("refusal_too_late", "a card dealt face up is accepted or "
                             "refused as it is dealt, before the second round (num. 11)")
    return RuleViolation("no_cards", "no cards are out (num. 11)")


def _is_box(value: Any) -> TypeGuard[int]:
    """An int from the input's JSON, not ``true``/``false``."""
    return isinstance(value, int) and not isinstance(value, bool)
