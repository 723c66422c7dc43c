"""The draw-poker hand as a statechart (seed 003 num. 4-19): the phases, what each takes, and
the records each move journals. The data and the checks are the hand's
(:mod:`controller.games.draw_poker.hand`); the rounds' rules are
:mod:`controller.games.draw_poker.betting`'s; the end is
:mod:`controller.games.draw_poker.conclusion`'s.
"""

from __future__ import annotations

from typing import Any

from statemachine import State, StateChart

from controller.cards.card import Card
from controller.cards.game import bet_fields
from controller.cards.records import Card as CardRecord
from controller.cards.records import CardTurned, Misread
from controller.core.contract import Emit
from controller.core.errors import RuleViolation
from controller.core.events import BetPlaced
from controller.games.draw_poker.betting import Action, BettingRound
from controller.games.draw_poker.conclusion import conclude
from controller.games.draw_poker.hand import CARDS, FOLDED, MIN_PLAYERS, VOID, Hand, Seat
from controller.games.draw_poker.records import (
    TAGS,
    AntePlaced,
    BetsClosedHand,
    Draw,
    DrawStart,
    HandStart,
    HandVoid,
    Mano,
    RoundAction,
    RoundStart,
)
from controller.store.records import ABSENT, Record

BET_RECORD = AntePlaced.TYPE
"""The record of an accepted ante (CONTRACT §7 ``{"bet": "ante", ...}``)."""


class HandChart(StateChart):
    """One draw-poker hand after another; every record goes to ``emit``.

    States, in the order of the seed:

    - ``idle``, then ``bets_open``: the antes (num. 4), the Mano named (CONTRACT §7);
    - ``dealing``: five cards to each player, box 1's first (num. 5, 7);
    - ``first_round``: from Mano, pass or bet up to three antes (num. 8);
    - ``draw``: each player's discard and his replacements, in turn from Mano (num. 9);
      the first action of the second round ends it;
    - ``second_round``: multiples of the ante up to seven antes (num. 12);
    - ``hand_over``: the showdown, the payment and the ``hand_result`` (num. 15-19), or
      Mano Nula (num. 8 b); the next ``open_bets`` starts a new hand.

    A refused card face up (num. 11) and a wrong count of cards (num. 10) void a player's
    hand in ``dealing``, ``first_round`` and ``draw``; with fewer than two players left the
    hand ends. Events: ``open_bets``, ``place_bet(bet)``, ``mano(box)``, ``no_more_bets``,
    ``card(card, manual)``, ``misread``, ``act(action, box, amount)``, ``discard(box,
    cards)``, ``refuse_card(box, card)``. An event the state does not take raises
    ``TransitionNotAllowed``; a rule's refusal ``RuleViolation``; either way nothing changed.
    """

    allow_event_without_transition = False
    catch_errors_as_events = False
    enable_self_transition_entries = False

    idle = State(initial=True)
    bets_open = State()
    dealing = State()
    first_round = State()
    draw = State()
    second_round = State()
    hand_over = State()

    open_bets = idle.to(bets_open) | hand_over.to(bets_open)
    place_bet = bets_open.to.itself(internal=True, validators="check_ante")
    mano = (bets_open.to.itself(internal=True, validators="check_mano")
            | dealing.to.itself(internal=True, validators="check_mano"))
    no_more_bets = bets_open.to(dealing, validators="check_players")
    card = (dealing.to.itself(internal=True, validators="check_card")
            | draw.to.itself(internal=True, validators="check_card"))
    misread = (dealing.to.itself(internal=True, validators="check_misread")
               | draw.to.itself(internal=True, validators="check_misread"))
    act = (first_round.to.itself(internal=True, validators="check_act")
           | second_round.to.itself(internal=True, validators="check_act")
           | draw.to(second_round, validators="check_act"))
    discard = draw.to.itself(internal=True, validators="check_discard")
    refuse_card = (dealing.to.itself(internal=True, validators="check_refusal")
                   | first_round.to.itself(internal=True, validators="check_refusal")
                   | draw.to.itself(internal=True, validators="check_refusal"))

    dealing.to(hand_over, cond="too_few_left")
    dealing.to(first_round, cond="deal_complete")
    first_round.to(hand_over, cond="first_round_decides")
    first_round.to(draw, cond="first_round_goes_on")
    draw.to(hand_over, cond="too_few_left")
    second_round.to(hand_over, cond="second_round_over")

    def __init__(self, emit: Emit, limits: tuple[int, int], hand_number: int = 0,
                 start_value: str | None = None, outcome: str = "",
                 later: tuple[int, int] | None = None) -> None:
        """``emit`` journals, ``limits`` are the house's ante limits (chips), ``later``
        those of the later bets (num. 21; None: the rounds' caps only); ``hand_number``,
        ``start_value`` (``idle`` or ``hand_over``) and ``outcome`` go on between hands
        from a checkpoint, where entering that state journals nothing."""
        self.emit = emit
        self.event_time = 0.0
        self.limits = limits
        self.later = later
        self.hand = Hand(hand_number, *limits)
        self.outcome = outcome
        # Resuming between hands (a checkpoint): the hand over was concluded before it.
        self._resuming = start_value is not None
        if start_value is None:
            super().__init__()
        else:
            super().__init__(start_value=start_value)
        self._resuming = False

    def _emit(self, record: Record) -> dict[str, Any]:
        """Journal a record stamped with the time of the input that caused it (seconds)."""
        return self.emit(record, t=self.event_time)

    # -- conditions of the eventless transitions ---------------------------------------
    def too_few_left(self) -> bool:
        return len(self.hand.live()) < MIN_PLAYERS

    def deal_complete(self) -> bool:
        return not self.too_few_left() and self.hand.dealing_box() is None

    def first_round_decides(self) -> bool:
        """One player left, or a round closed with nobody betting (Mano Nula, num. 8 b)."""
        rnd = self.hand.round
        return self.too_few_left() or (rnd is not None and rnd.closed and not rnd.level)

    def first_round_goes_on(self) -> bool:
        rnd = self.hand.round
        return not self.too_few_left() and rnd is not None and rnd.closed and rnd.level > 0

    def second_round_over(self) -> bool:
        rnd = self.hand.round
        return self.too_few_left() or (rnd is not None and rnd.closed)

    # -- queries -----------------------------------------------------------------------
    def next_box(self) -> int | None:
        """The box the next shoe card goes to, or None when no card is due."""
        state = self.current_state_value
        if state == "dealing":
            return self.hand.dealing_box()
        if state == "draw":
            return self.hand.replacement_box()
        return None

    # -- validators (raise RuleViolation; nothing changes) -----------------------------
    def check_ante(self, bet: BetPlaced) -> None:
        if bet.kind != "ante":
            raise RuleViolation("unknown_bet_kind", f"unknown bet kind {bet.kind!r}: a "
                                "player's bet before the deal is his ante (num. 4)")
        self.hand.check_ante(bet.box, bet.amount)

    def check_mano(self, box: Any) -> None:
        self.hand.check_mano(box)

    def check_players(self) -> None:
        self.hand.check_players()

    def check_card(self, manual: bool) -> None:
        hand = self.hand
        if hand.awaiting_correction and not manual:
            raise hand.card_refusal(self.current_state_value)
        if self.next_box() is None and not (self.current_state_value == "draw"
                                            and hand.extra_card_box() is not None):
            raise hand.card_refusal(self.current_state_value)

    def check_misread(self) -> None:
        if self.hand.awaiting_correction or self.next_box() is None:
            raise self.hand.card_refusal(self.current_state_value)

    def check_act(self, action: str, box: Any, amount: Any) -> None:
        self._round_for_act().check(action, box, amount)

    def check_discard(self, box: Any, cards: Any) -> None:
        self.hand.check_discard(box, cards)

    def check_refusal(self, box: Any, card: Any) -> None:
        self.hand.check_refusal(box, card)

    def _round_for_act(self) -> BettingRound:
        """The round an action goes to: the current one; in the draw, the second round as it
        will start (the player still owed replacements out, num. 10)."""
        hand = self.hand
        if self.current_state_value != "draw":
            assert hand.round is not None, "a round is under way in its states"
            return hand.round
        due = hand.next_drawer()
        if due is not None:
            raise RuleViolation("draw_not_over", f"the draw is not over: box {due}'s "
                                "discard is due (num. 9)")
        short = hand.short_drawer()
        order = [b for b in hand.live() if b != short]
        assert hand.ante is not None
        return BettingRound(2, order, hand.ante, later=self.later)

    # -- actions: each journals its record first, then changes the hand ----------------
    def on_open_bets(self) -> None:
        number = self.hand.number + 1
        low, high = self.limits
        later = self.later
        self._emit(HandStart(hand=number, min_ante=low, max_ante=high,
                             min_later_bet=ABSENT if later is None else later[0],
                             max_later_bet=ABSENT if later is None else later[1]))
        self.hand = Hand(number, low, high)
        self.outcome = ""

    def on_place_bet(self, bet: BetPlaced) -> None:
        self._emit(AntePlaced(hand=self.hand.number, **bet_fields(bet),
                              ante=self.hand.ante or bet.amount))
        self.hand.antes[bet.box] = bet.amount

    def on_mano(self, box: int) -> None:
        self._emit(Mano(hand=self.hand.number, box=box))
        self.hand.mano_box = box

    def on_no_more_bets(self) -> None:
        hand = self.hand
        boxes = sorted(hand.antes)
        hand.seats = {b: Seat(b, hand.antes[b]) for b in boxes}
        assert hand.ante is not None, "check_players: antes were posted"
        self._emit(BetsClosedHand(boxes=boxes, hand=hand.number, ante=hand.ante,
                                  mano=hand.mano, antes=sum(hand.antes.values())))

    def on_card(self, card: Card, manual: bool) -> None:
        hand = self.hand
        box = self.next_box()
        extra = box is None
        if box is None:
            box = hand.extra_card_box()
        assert box is not None, "check_card: a card is due or one too many"
        seat = hand.seats[box]
        self._emit(CardRecord(hand=seat.label, card=str(card), face_down=True, manual=manual,
                        tag=TAGS.of_cards(hand.number)))
        seat.cards.append(card)
        hand.dealt += 1
        hand.awaiting_correction = False
        if extra:
            self._void(seat, "wrong_count", "num. 10",
                       f"a card more than his discard: he holds {len(seat.cards)} cards")
        elif self.current_state_value == "draw":
            hand.drawn[box] -= 1

    def on_misread(self) -> None:
        box = self.next_box()
        self._emit(Misread(hand=f"box {box}", tag=TAGS.of_cards(self.hand.number)))
        self.hand.awaiting_correction = True

    def on_refuse_card(self, box: int, card: Any) -> None:
        hand = self.hand
        exposed = hand.check_refusal(box, card)
        seat = hand.seats[box]
        if exposed is not None:  # dealt face up: the table has seen it
            self._emit(CardTurned(hand=seat.label, card=str(exposed),
                                  tag=TAGS.of_cards(hand.number)))
        self._void(seat, "refused_card", "num. 11", "refused a card dealt face up")

    def on_enter_first_round(self) -> None:
        hand = self.hand
        assert hand.ante is not None
        hand.round = BettingRound(1, hand.live(), hand.ante, later=self.later)
        self._round_start(hand.round)

    def on_enter_draw(self) -> None:
        hand = self.hand
        hand.rounds_closed = 1
        hand.draw_order = hand.live()
        self._emit(DrawStart(hand=hand.number, order=hand.draw_order))

    def on_discard(self, box: int, cards: list[str]) -> None:
        hand = self.hand
        thrown = hand.check_discard(box, cards)
        self._void_short()
        seat = hand.seats[box]
        self._emit(Draw(hand=hand.number, box=box, discarded=len(thrown)))
        seat.cards = [c for c in seat.cards if c not in thrown]
        hand.drawn[box] = len(thrown)
        hand.serving = box

    def on_act(self, action: str, box: int, amount: Any, source: State) -> None:
        hand = self.hand
        if source.id == "draw":
            self._void_short()
            if self.too_few_left():
                return  # the void ended the hand; the action has nothing left to act on
            assert hand.ante is not None
            hand.round = BettingRound(2, hand.live(), hand.ante, later=self.later)
            self._round_start(hand.round)
        rnd = hand.round
        assert rnd is not None
        done = rnd.check(action, box, amount)
        self._action_record(rnd, done)
        rnd.apply(done)
        seat = hand.seats[box]
        seat.bets[rnd.number - 1] = done.total
        if action == "fold":
            seat.status = FOLDED

    def on_enter_hand_over(self) -> None:
        if not self._resuming:
            self.outcome = conclude(self.hand, self.emit, self.event_time)

    # -- helpers -----------------------------------------------------------------------
    def _round_start(self, rnd: BettingRound) -> None:
        self._emit(RoundStart(hand=self.hand.number, round=rnd.number, order=list(rnd.order),
                              ante=rnd.ante, cap=rnd.cap, article=rnd.article))

    def _action_record(self, rnd: BettingRound, done: Action) -> None:
        self._emit(RoundAction(hand=self.hand.number, round=rnd.number, box=done.box,
                               action=done.action, put=done.put, level=done.level,
                               total=done.total, pot=self._pot() + done.put))

    def _pot(self) -> int:
        """Chips in the pot: the antes and bets of the players not void."""
        return sum(ante + bets for _, ante, bets in self.hand.stakes())

    def _void_short(self) -> None:
        """The play moved on while the player served last is still owed replacements: he
        holds fewer than five cards, his hand is void (num. 10)."""
        hand = self.hand
        box = hand.short_drawer()
        if box is not None:
            seat = hand.seats[box]
            self._void(seat, "wrong_count", "num. 10",
                       f"{hand.drawn[box]} replacement(s) not dealt: he holds "
                       f"{len(seat.cards)} cards, not {CARDS}")

    def _void(self, seat: Seat, reason: str, article: str, why: str) -> None:
        """``seat``'s hand is void: he leaves the hand with his cards, his stake returned."""
        hand = self.hand
        self._emit(HandVoid(hand=hand.number, box=seat.box, reason=reason,
                            cards_held=len(seat.cards), article=article,
                            message=f"box {seat.box}: {why}; his hand is void and his stake "
                            f"returned ({article})"))
        seat.status = VOID
        seat.void_reason = reason
        hand.drawn.pop(seat.box, None)
        if hand.round is not None:
            hand.round.leave(seat.box)
