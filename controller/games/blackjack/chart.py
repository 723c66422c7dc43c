"""The Black Jack coup as a statechart (seed 002 Art. 7-10, seed 004 Art. 7-8; CONTRACT §6): layer
2 of the game, see :mod:`controller.games.blackjack`.

States, in the order of the seeds' articles:

- ``idle`` then ``bets_open``: bets in chips until the first card, within the limits
  (Art. 7); Pot Luck checks at ``no_more_bets`` that each box has both a pool bet and a bet;
- ``dealing``: a card up to each box left to right, one down to the dealer, and again
  ("la entrega obligatoria de cartas", Art. 8). With the dealer's second card the deal
  ends and he turns his first ("descubriendo la primera carta que recibió"); its
  ``card_turned`` record (and an ace's ``insurance_offered``, Art. 10) is held back and
  journaled with the next input the coup takes (a refused one leaves it held), unless
  that input is ``second_card_exposed`` (Art. 8: the exposed card is the up card). Until
  then the controller cannot know which card is face up, and a turn of the first card
  journaled would show the real hole card on the screen and in the feed (a decision of
  ours, issue 19; CONTRACT §6 has the turn at once). With no input to wait for (every
  box a blackjack, no ace up) it comes with the dealer's turn;
- ``insurance``: the up card is an ace and the table offers insurance (Art. 10: "luego de
  culminada la entrega obligatoria de cartas y antes del inicio de la etapa de entrega
  voluntaria de cartas, el dealer preguntará a los jugadores si desean un seguro"): the
  ``insurance_offered`` record, the insurance bets, until the dealer closes the question
  (``close_insurance``, the ``insurance_closed`` record); no decision before;
- ``deciding``: a hand waits for its player's decision; ``player_card``: a card is due to a
  hand; ``route`` (passing) picks which of them, the insurance question, or the dealer's
  turn comes next (:meth:`~controller.games.blackjack.hands.Coup.due`). A box that has not
  acted may surrender (Art. 9) in either, until its own first decision, whatever the other
  boxes did; the boxes act in box order, a decision of RULES.md §4 (Art. 8 orders the
  dealing, not the decisions: "cualquier jugador se puede plantar");
- ``dealer_turn``: the hole card is turned and insurance decided (Art. 10); then
  ``dealer_card`` while he must draw;
- ``coup_over``: every bet settled, the ``coup_result`` record.

Events: ``open_bets``, ``place_bet(bet)``, ``no_more_bets``, ``card(card, manual)``,
``misread``, ``close_insurance``, ``second_card_exposed``, ``surrender(box)``, ``hit(box)``,
``stand(box, by)``, ``double(box)``, ``split(box)``, ``card_set_aside``; the other
transitions are eventless. An
event the current state does not take raises ``TransitionNotAllowed``; a refusal by the
rules raises ``RuleViolation``; either way nothing changed. ``second_card_exposed`` (Art. 8:
"Si por error se descubre la segunda carta del dealer, ésta será considerada la carta
descubierta") comes after the deal, before anything is done on the up card: the second card
is then the up card (its own ``card_turned``), the first the one that decides insurance.
While a card read since the deal waits for the decision that places it
(``controller.cards.waiting``), nothing is settled: a surrender is refused (the card is
the box's draw, Art. 9); a stand is taken (whether the dealer draws it depends on his
covered card, Art. 10), and if the dealer draws none the coup stays at his turn, his hole
card turned and nothing settled, until the inspector resumes play without the card
(``card_set_aside``) or voids the coup.
"""

from __future__ import annotations

from typing import Any

from statemachine import State, StateChart

from controller.cards.card import Card
from controller.cards.game import bet_fields
from controller.cards.records import BetsClosed, Misread, Tag
from controller.cards.records import Card as CardRecord
from controller.core.contract import Emit
from controller.core.events import BetPlaced
from controller.games.blackjack import settle
from controller.games.blackjack.checks import Checks
from controller.games.blackjack.config import BlackjackConfig
from controller.games.blackjack.hands import DEALER, Box, Coup, PlayerHand
from controller.games.blackjack.records import (
    TAGS,
    BoxRefused,
    CardTurnedUp,
    CoupResult,
    CoupStart,
    DealerTurn,
    Decision,
    InsuranceClosed,
    InsuranceOffered,
    PoolBalance,
    SettlementPool,
)
from controller.games.blackjack.records import BetPlaced as BetPlacedRecord
from controller.games.blackjack.rules import dealer_draws, is_blackjack, is_bust, total
from controller.games.blackjack.settle import Settlement
from controller.store.records import ABSENT, Absent, Record

BET_RECORD = BetPlacedRecord.TYPE
"""The record of an accepted bet: every field of the bet input, its coup and the box's total."""


class CoupChart(Checks, StateChart):
    """One Black Jack coup after another; every record goes to ``emit``.

    Args:
        emit: journals a record, returns it (the journal's copy: on a restart's replay,
            the one journaled before, from which the pool balance is read back).
        config: the table's section (decks, boxes, rules, Pot Luck's pool and bonus).
        limits: (minimum, maximum) of a main bet per box, in chips (Art. 7).
        coup_number, start_value, pool_balance: to go on between coups from a checkpoint
            (the last coup's number, ``idle`` or ``coup_over``, Pot Luck's pool in chips);
            entering that state again journals nothing.
    """

    allow_event_without_transition = False
    catch_errors_as_events = False
    enable_self_transition_entries = False

    idle = State(initial=True)
    bets_open = State()
    dealing = State()
    route = State()
    insurance = State()
    deciding = State()
    player_card = State()
    dealer_turn = State()
    dealer_card = State()
    coup_over = State()

    open_bets = idle.to(bets_open) | coup_over.to(bets_open)
    place_bet = bets_open.to.itself(internal=True, validators="check_table_bet",
                                    on="take_table_bet") | (
        insurance.to.itself(internal=True, validators="check_insurance_bet",
                            on="take_insurance"))
    no_more_bets = bets_open.to(dealing, validators="check_boxes")
    card = (dealing.to.itself(internal=True, validators="check_card")
            | player_card.to(route, validators="check_card")
            | dealer_card.to.itself(internal=True, validators="check_card"))
    misread = (dealing.to.itself(internal=True, validators="check_misread")
               | player_card.to.itself(internal=True, validators="check_misread")
               | dealer_card.to.itself(internal=True, validators="check_misread"))
    close_insurance = insurance.to(route)
    second_card_exposed = (insurance.to(route, validators="check_exposed")
                           | deciding.to(route, validators="check_exposed"))
    surrender = (deciding.to(route, validators="check_surrender")
                 | player_card.to.itself(internal=True, validators="check_surrender"))
    hit = deciding.to(player_card, validators="check_turn")
    stand = deciding.to(route, validators="check_stand")
    double = deciding.to(player_card, validators="check_double")
    split = deciding.to(player_card, validators="check_split")

    dealing.to(route, cond="deal_complete")
    route.to(insurance, cond="insurance_asked")
    route.to(deciding, cond="decision_due")
    route.to(player_card, cond="player_card_due")
    route.to(dealer_turn, cond="players_done")
    dealer_turn.to(dealer_card, cond="dealer_must_draw")
    dealer_turn.to(coup_over, unless=["dealer_must_draw", "card_held"])
    card_set_aside = dealer_turn.to.itself(internal=True, on="take_card_aside")
    dealer_card.to(coup_over, unless="dealer_must_draw")

    def __init__(self, emit: Emit, config: BlackjackConfig, limits: tuple[int, int],
                 coup_number: int = 0, start_value: str | None = None,
                 pool_balance: int | None = None) -> None:
        self.emit = emit
        self.event_time = 0.0
        self.config = config
        self.rules = config.rules
        self.limits = limits
        self.coup = Coup(coup_number)
        self.bets: dict[tuple[int, str], int] = {}
        self.settled: list[dict[str, Any]] = []  # the coup's settlements, for its result
        # The up card's turn (card_turned, insurance_offered) held back until nothing can
        # expose the second card: (type, fields) of each record; None when none is held.
        self._held_turn: list[Record] | None = None
        opening = config.pool.opening_balance if config.pool else 0
        self.pool_balance = opening if pool_balance is None else pool_balance
        # Resuming between coups (a checkpoint): the coup over was settled before it.
        self._resuming = start_value is not None
        if start_value is None:
            super().__init__()
        else:
            super().__init__(start_value=start_value)
        self._resuming = False

    def _emit(self, record: Record) -> dict[str, Any]:
        """Journal a record stamped with the time of the input that caused it (seconds)."""
        return self.emit(record, t=self.event_time)

    def _tag(self) -> Tag:
        """The coup's number on the card core's records."""
        return TAGS.of_cards(self.coup.number)

    # -- conditions ------------------------------------------------------------------
    def deal_complete(self) -> bool:
        return self.coup.deal_complete()

    def _next(self) -> str:
        """After the deal: ``insurance`` while the question is open, else what the hands
        ask for (``card``, ``decision``, ``dealer``)."""
        return "insurance" if self.coup.insurance_open else self.coup.due(self.rules)[0]

    def insurance_asked(self) -> bool:
        return self._next() == "insurance"

    def decision_due(self) -> bool:
        return self._next() == "decision"

    def player_card_due(self) -> bool:
        return self._next() == "card"

    def players_done(self) -> bool:
        return self._next() == "dealer"

    def card_held(self) -> bool:
        """A card read since the deal waits for its place: nothing is settled without it."""
        return self.coup.card_waits

    def take_card_aside(self) -> None:
        """The card that waited was given no hand and the inspector resumed play (the
        layout checked): the coup goes on without it."""
        self.coup.card_waits = False

    def dealer_must_draw(self) -> bool:
        """He draws only while a hand is live (CONTRACT §6), to 16 (or a soft 17, ``h17``)."""
        return self.coup.any_live() and dealer_draws(self.coup.dealer, self.rules.hits_soft_17)

    # -- where the next card goes ----------------------------------------------------
    def slot(self) -> PlayerHand | str | None:
        """The hand the next shoe card goes to (a box's hand, or ``DEALER``), or None; read
        off the hands alone (Art. 8 and :meth:`Coup.due`), so it holds inside a transition."""
        coup = self.coup
        if not coup.boxes:
            return None
        if not coup.deal_complete():
            label = coup.deal_order()[coup.cards_dealt()]
            return DEALER if label == DEALER else self.hand_of(int(label.split()[1]))
        kind, hand = coup.due(self.rules)
        if kind == "card":
            return hand
        if kind == "dealer" and coup.hole_turned and self.dealer_must_draw():
            return DEALER
        return None

    # -- actions: each journals its record first, then changes the coup ----------------
    def on_open_bets(self) -> None:
        low, high = self.limits
        number = self.coup.number + 1
        rec = self._emit(CoupStart(
            coup=number, decks=self.config.decks, min_bet=low, max_bet=high,
            dealer=self.rules.dealer,
            pool_balance=ABSENT if self.config.pool is None else self.pool_balance))
        if self.config.pool is not None:
            # On a restart the journal's record comes back: its balance is the pool's.
            self.pool_balance = int(rec.get("pool_balance", self.pool_balance))
        self.coup = Coup(number)
        self.bets = {}
        self.settled = []
        self._held_turn = None

    def take_table_bet(self, bet: BetPlaced) -> None:
        self._take_bet(bet)

    def _take_bet(self, bet: BetPlaced) -> None:
        key = (bet.box, bet.kind)
        total = self.bets.get(key, 0) + bet.amount
        self._emit(BetPlacedRecord(coup=self.coup.number, **bet_fields(bet), total=total))
        self.bets[key] = total

    def take_insurance(self, bet: BetPlaced) -> None:
        self.coup.acted = True
        self._take_bet(bet)
        box = self.coup.box(bet.box)
        assert box is not None
        box.bets["insurance"] = self.bets[(bet.box, "insurance")]

    def on_no_more_bets(self) -> None:
        complete, refused = self.boxes_in_play()
        self._emit(BetsClosed(boxes=complete, tag=self._tag()))
        for number, (code, message) in refused.items():
            returned = {k: a for (b, k), a in sorted(self.bets.items()) if b == number}
            self._emit(BoxRefused(coup=self.coup.number, box=number, code=code,
                                  message=message, returned=returned))
            for kind, amount in returned.items():
                self._settle(number, (kind, amount, "push", 0, {"returned": amount}))
        for number in complete:
            bets = {k: a for (b, k), a in self.bets.items() if b == number}
            self.coup.boxes.append(Box(number, bets, [PlayerHand(number, 1, bets["main"])]))

    def on_card(self, card: Card, manual: bool) -> None:
        slot = self.slot()
        assert slot is not None, "a card state is left as soon as no card is due"
        if isinstance(slot, PlayerHand):
            self._emit(CardRecord(hand=slot.label, card=str(card), face_down=False,
                                  manual=manual, tag=self._tag()))
            slot.cards.append(card)
            slot.hit_pending = False
        else:
            # Art. 8: the dealer's two cards are dealt face down ("una carta cubierta").
            face_down = len(self.coup.dealer) < 2
            self._emit(CardRecord(hand=DEALER, card=str(card), face_down=face_down,
                                  manual=manual, tag=self._tag()))
            self.coup.dealer.append(card)
            if len(self.coup.dealer) == 2:
                # The deal ends: "descubriendo la primera carta"; its records wait for the
                # next input, which may say the second was exposed (show_up_card).
                self._held_turn = []
                self.turn_up_card(0)  # the deal ends
        self.coup.awaiting_correction = False
        # A card placed: one more that waits makes the table say so again (card_waiting).
        self.coup.card_waits = False

    def on_misread(self) -> None:
        slot = self.slot()
        label = slot if isinstance(slot, str) else slot.label if slot else "?"
        self._emit(Misread(hand=label, tag=self._tag()))
        self.coup.awaiting_correction = True

    def on_close_insurance(self) -> None:
        """Art. 10: the dealer closes the insurance question; the decisions begin."""
        coup = self.coup
        taken = [{"box": b.number, "amount": b.bets["insurance"]} for b in coup.boxes
                 if b.bets.get("insurance")]
        self._emit(InsuranceClosed(coup=coup.number, boxes=taken))
        coup.insurance_open = False
        coup.acted = True

    def on_second_card_exposed(self) -> None:
        """Art. 8: "Si por error se descubre la segunda carta del dealer, ésta será
        considerada la carta descubierta": it is the up card. The first card's turn, held
        back, is never journaled: that card stays face down until the dealer's turn."""
        if self._held_turn is not None:
            self._held_turn = None
            self.coup.up_index = None
            self.coup.insurance_open = False
        self.turn_up_card(1)

    def up_card_held(self) -> bool:
        """The deal is over and its up card's turn not journaled yet (the second card may
        still be said exposed: its first input decides)."""
        return self._held_turn is not None

    def show_up_card(self) -> None:
        """Journal the up card's turn held back since the deal (``card_turned`` and, an
        ace up, ``insurance_offered``): an input other than ``second_card_exposed`` came,
        so the first card is the up card (Art. 8). Stamped with that input's time."""
        held, self._held_turn = self._held_turn, None
        for record in held or ():
            self._emit(record)

    def on_surrender(self, box: int) -> None:
        hand = self.hand_of(box)
        self._emit(Decision(coup=self.coup.number, box=box, hand=hand.label,
                            action="surrender"))
        self._acted(box)
        hand.surrendered = True
        self._settle(box, settle.surrender(hand))

    def on_hit(self, box: int) -> None:
        hand = self._act(box, "hit")
        hand.hit_pending = True

    def on_stand(self, box: int, by: str = "dealer") -> None:
        # The inspector's stand is named as his (a dealer's record is as it always was).
        hand = self._act(box, "stand", by=by if by != "dealer" else ABSENT)
        hand.stood = True

    def on_double(self, box: int) -> None:
        hand = self._act(box, "double", stake=2 * self.current().bet)
        hand.doubled = True

    def on_split(self, box: int) -> None:
        hand = self._act(box, "split")
        first, second = hand.cards
        owner = self.coup.box(box)
        assert owner is not None
        hand.cards, hand.from_split = [first], True
        owner.hands.append(PlayerHand(box, 2, hand.bet, [second], from_split=True))

    def _act(self, box: int, action: str, stake: int | Absent = ABSENT,
             by: str | Absent = ABSENT) -> PlayerHand:
        """A hit, stand, double (its new ``stake``) or split of the hand whose decision is
        due; ``by`` the inspector for his stand."""
        hand = self.current()
        self._emit(Decision(coup=self.coup.number, box=box, hand=hand.label, action=action,
                            stake=stake, by=by))
        self._acted(box)
        return hand

    def _acted(self, box: int) -> None:
        """The box's first decision closes its surrender (Art. 9)."""
        owner = self.coup.box(box)
        assert owner is not None
        owner.acted = self.coup.acted = True

    def turn_up_card(self, index: int) -> None:
        """Turn the dealer's up card: his first when the deal ends (Art. 8 "descubriendo la
        primera carta que recibió"; its records held back while they are), or ``index`` 1
        when his second was exposed. An ace up asks the players for insurance (Art. 10)
        where the table offers it."""
        coup = self.coup
        self._turn_record(CardTurnedUp(hand=DEALER, card=str(coup.dealer[index]),
                                       up_card=True, tag=self._tag()))
        coup.up_index = index
        if coup.up_card().rank == "A" and self.config.insurance:
            offers = [{"box": b.number, "max": b.bets["main"] // 2} for b in coup.boxes
                      if b.bets["main"] >= 2]
            self._turn_record(InsuranceOffered(coup=coup.number, boxes=offers))
            coup.insurance_open = True

    def _turn_record(self, record: Record) -> None:
        if self._held_turn is None:
            self._emit(record)
        else:
            self._held_turn.append(record)

    def on_enter_dealer_turn(self) -> None:
        """Art. 10: insurance is decided "cuando el dealer descubre su carta cubierta"."""
        coup = self.coup
        self.show_up_card()  # no decision came (blackjacks): the first card was up
        self._emit(DealerTurn(coup=coup.number,
                              live_hands=[h.label for h in coup.hands() if h.live()]))
        hole = coup.hole_card()
        self._emit(CardTurnedUp(hand=DEALER, card=str(hole), up_card=False, tag=self._tag()))
        coup.hole_turned = True
        for box in coup.boxes:
            amount = box.bets.get("insurance", 0)
            if amount:
                self._settle(box.number, settle.insurance(amount, hole))

    def on_enter_coup_over(self) -> None:
        if self._resuming:
            return
        coup, dealer = self.coup, self.coup.dealer
        for box in coup.boxes:
            for hand in box.hands:
                if not hand.surrendered:
                    self._settle(box.number, settle.hand(hand, dealer, self.rules))
            if self.config.bonus is not None:
                won = settle.bonus(box, self.config.bonus)
                if won is not None:
                    self._settle(box.number, won)
        if self.config.pool is not None:
            self._settle_pool()
        self._emit(CoupResult(coup=coup.number, dealer=_hand_fields(dealer, False),
                              boxes=[self._box_result(box) for box in coup.boxes]))

    def _settle_pool(self) -> None:
        assert self.config.pool is not None
        before = self.pool_balance
        settled, put_in, paid, after = settle.pool(self.coup.boxes, self.config.pool.table,
                                                   before)
        for box, settlement in settled:
            self._settle(box, settlement)
        rec = self._emit(PoolBalance(coup=self.coup.number, before=before,
                                     contributed=put_in, paid=paid, balance=after))
        self.pool_balance = int(rec.get("balance", after))

    def _box_result(self, box: Box) -> dict[str, Any]:
        outcomes = {(s["box"], s["kind"]): s["outcome"] for s in self.settled}
        hands = []
        for hand in box.hands:
            kind = "main" if hand.number == 1 else "split"
            hands.append({**_hand_fields(hand.cards, hand.from_split),
                          "doubled": hand.doubled, "surrendered": hand.surrendered,
                          "outcome": outcomes.get((box.number, kind))})
        return {"box": box.number, "hands": hands}

    def returned(self) -> None:
        """The coup is void (the inspector's decision, issue 16): every stake not settled
        yet is returned (``push``), box by box: its hands (``main``, ``split``: a doubled
        hand's doubled stake), then ``insurance``, ``pool``, ``bonus``. The pool's balance
        is unchanged (nothing went in)."""
        done = {(s["box"], s["kind"]) for s in self.settled}
        for box in self.coup.boxes:
            stakes = [("main" if h.number == 1 else "split", h.stake) for h in box.hands]
            stakes += [(k, box.bets.get(k, 0)) for k in ("insurance", "pool", "bonus")]
            for kind, amount in stakes:
                if amount and (box.number, kind) not in done:
                    self._settle(box.number, (kind, amount, "push", 0, {}))

    def _settle(self, box: int, settlement: Settlement) -> None:
        kind, amount, outcome, payout, extra = settlement
        rec = {"box": box, "kind": kind, "amount": amount, "outcome": outcome,
               "payout": payout}
        self._emit(SettlementPool(game=self.coup.number, box=box, kind=kind, amount=amount,
                                  outcome=outcome, payout=payout, **extra))
        self.settled.append(rec)


def _hand_fields(cards: list[Card], from_split: bool) -> dict[str, Any]:
    points, soft = total(cards)
    return {"cards": [str(c) for c in cards], "total": points, "soft": soft,
            "blackjack": is_blackjack(cards, from_split), "bust": is_bust(cards)}

