"""The Mini-Bacará coup as a statechart (seed 000 Art. 5-11): layer 2 of the game, see
:mod:`controller.games.mini_baccarat.game`. Its states, queries and actions; the validators
of its bets and five choices are :mod:`controller.games.mini_baccarat.checks`'."""

from __future__ import annotations

from collections.abc import Sequence

from statemachine import State, StateChart

from controller.cards.card import Card
from controller.cards.game import bet_fields
from controller.cards.records import BetsClosed, CardTurned, Misread, Tag
from controller.cards.records import Card as CardRecord
from controller.core.contract import Emit
from controller.core.errors import RuleViolation
from controller.core.events import BetPlaced
from controller.games.mini_baccarat.checks import Checks
from controller.games.mini_baccarat.records import (
    TAGS,
    BoxResult,
    CoupResult,
    CoupStart,
    FiveChoice,
    InsuranceClosed,
    InsuranceOffered,
)
from controller.games.mini_baccarat.records import BetPlaced as BetPlacedRecord
from controller.games.mini_baccarat.rules import (
    BANCA,
    Outcome,
    _cards,
    _label,
    banca_takes_third,
    banca_win_payout,
    box_takes_third,
    hand_total,
    insurance_wins,
    is_encart,
    is_natural,
    outcome,
    points,
)
from controller.store.records import Record
from controller.store.shared import Settlement

# --------------------------------------------------------------------------------------
# 2. The coup
# --------------------------------------------------------------------------------------


class CoupChart(Checks, StateChart):
    """One Mini-Bacará coup after another, as a statechart; every record goes to ``emit``.

    States, in the order of Art. 6 and 9:

    - ``idle`` then ``bets_open`` (Art. 4-5: all bets before the first card);
    - ``dealing``: one card to each box in play left to right, the Banca's face-down card,
      a second card to each box (Art. 6);
    - ``five_options``: boxes on five wait for "pedir" or "plantar" (Art. 8); a choice may
      be changed here, and is final once every box on five has chosen and the state moves on;
    - ``banca_second``: the Banca's first card is turned (insurance offered on a nine,
      Art. 11) and the Banca's second card is awaited;
    - ``naturals``: insurance settled, then the coups "de aire" (Art. 9 a-c);
    - ``box_third_cards``: third cards to the boxes, left to right (Art. 9 d-e);
    - ``banca_stands``: the boxes the Banca stands against are settled (Art. 9 d-e);
    - ``banca_third``: one Banca third card for all the other boxes (Art. 9 e);
    - ``final_comparison``: those boxes settled right to left (Art. 9 f);
    - ``coup_over``: the ``coup_result`` record; the next ``open_bets`` starts a new coup.

    Events: ``open_bets``, ``place_bet(bet)``, ``no_more_bets(boxes)``,
    ``five_choice(box, choice)``, ``card(card, manual)``, ``misread()``. The other
    transitions are eventless. An event the current state does not take raises
    ``TransitionNotAllowed``; a refusal by the rules raises ``RuleViolation``; either way
    nothing changed.
    """

    allow_event_without_transition = False
    catch_errors_as_events = False
    enable_self_transition_entries = False

    idle = State(initial=True)
    bets_open = State()
    dealing = State()
    five_options = State()
    banca_second = State()
    naturals = State()
    box_third_cards = State()
    banca_stands = State()
    banca_third = State()
    final_comparison = State()
    coup_over = State()

    open_bets = idle.to(bets_open) | coup_over.to(bets_open)
    place_bet = bets_open.to.itself(internal=True, validators="check_table_bet") | (
        banca_second.to.itself(internal=True, validators="check_insurance_bet")
    )
    no_more_bets = bets_open.to(dealing, validators="check_boxes")
    # Art. 8: "Decidida la opción, el tallador descubrirá su carta tapada": the choice is
    # final once the Banca's face-down card is turned (on entering banca_second).
    five_choice = five_options.to.itself(internal=True, validators="check_five_choice")
    card = (
        dealing.to.itself(internal=True, validators="check_card")
        | banca_second.to.itself(internal=True, validators="check_card")
        | box_third_cards.to.itself(internal=True, validators="check_card")
        | banca_third.to.itself(internal=True, validators="check_card")
    )
    misread = (
        dealing.to.itself(internal=True, validators="check_misread")
        | banca_second.to.itself(internal=True, validators="check_misread")
        | box_third_cards.to.itself(internal=True, validators="check_misread")
        | banca_third.to.itself(internal=True, validators="check_misread")
    )

    dealing.to(five_options, cond="initial_deal_done")
    five_options.to(banca_second, cond="fives_decided")
    banca_second.to(naturals, cond="banca_has_two_cards")
    naturals.to(box_third_cards, cond="has_undecided_boxes")
    naturals.to(coup_over, unless="has_undecided_boxes")
    box_third_cards.to(banca_stands, cond="box_thirds_done")
    banca_stands.to(banca_third, cond="has_undecided_boxes")
    banca_stands.to(coup_over, unless="has_undecided_boxes")
    banca_third.to(final_comparison, cond="banca_has_three_cards")
    final_comparison.to(coup_over)

    def __init__(
        self,
        emit: Emit,
        decks: int,
        insurance_pays_on: str,
        limits: tuple[int, int],
        coup_number: int = 0,
        start_value: str | None = None,
    ) -> None:
        self.emit = emit
        self.event_time = 0.0
        self.decks = decks
        self.insurance_pays_on = insurance_pays_on
        self.limits = limits
        self.coup_number = coup_number
        self._new_coup_data()
        # Resuming between coups (a checkpoint): entering the state again journals nothing.
        self._muted = start_value is not None
        if start_value is None:
            super().__init__()
        else:
            super().__init__(start_value=start_value)
        self._muted = False

    def _emit(self, record: Record) -> None:
        """Journal a record stamped with the time of the input that caused it (seconds)."""
        if not self._muted:
            self.emit(record, t=self.event_time)

    def _tag(self) -> Tag:
        """The coup's number on the card core's records."""
        return TAGS.of_cards(self.coup_number)

    def _new_coup_data(self) -> None:
        self.bets: dict[tuple[int, str], int] = {}
        self.in_play: list[int] = []
        self.hands: dict[int, list[Card]] = {BANCA: []}
        self.fives: dict[int, str] = {}
        self.decided: dict[int, Outcome] = {}
        self.insurance_open = False
        self.awaiting_correction = False
        self.card_before_choice = False  # the Banca's second card came before a five choice
        self.settled: set[tuple[int, str]] = set()  # (box, kind) of the bets settled

    # -- queries ----------------------------------------------------------------------

    def next_hand(self) -> int | None:
        """The hand (box number, or BANCA) the next shoe card goes to, or None."""
        state = self.current_state_value
        if state == "dealing":
            order = [*self.in_play, BANCA, *self.in_play]
            return order[sum(len(h) for h in self.hands.values())]
        if state in ("banca_second", "banca_third"):
            return BANCA
        if state == "box_third_cards":
            return self.next_box_third()
        return None

    def next_box_third(self) -> int | None:
        """The leftmost undecided box still owed a third card (Art. 9 d-e), or None."""
        banca = self.hands[BANCA]
        for box in self.in_play:
            hand = self.hands[box]
            if (
                box not in self.decided
                and len(hand) == 2
                and box_takes_third(hand, banca, self.fives.get(box))
            ):
                return box
        return None

    def box_thirds_done(self) -> bool:
        return self.next_box_third() is None

    def initial_deal_done(self) -> bool:
        return len(self.hands[BANCA]) == 1 and all(len(self.hands[b]) == 2 for b in self.in_play)

    def fives_undecided(self) -> list[int]:
        """Boxes on five whose choice is not entered yet (Art. 8)."""
        return [b for b in self.five_boxes() if b not in self.fives]

    def fives_decided(self) -> bool:
        return all(b in self.fives for b in self.five_boxes())

    def banca_has_two_cards(self) -> bool:
        return len(self.hands[BANCA]) == 2

    def banca_has_three_cards(self) -> bool:
        return len(self.hands[BANCA]) == 3

    def has_undecided_boxes(self) -> bool:
        return any(b not in self.decided for b in self.in_play)

    # -- validators (raise RuleViolation; nothing has changed yet; the bets' and five
    # choices' are in Checks) ---------------------------------------------------------

    def check_card(self, manual: bool) -> None:
        """After a misread only the dealer's correction, entered by hand, fills the slot."""
        if self.awaiting_correction and not manual:
            raise RuleViolation(
                "awaiting_correction",
                f"the card for {_label(self._slot())} was misread: enter it by hand first",
            )

    def check_misread(self) -> None:
        """One misread at a time: the slot waits for its correction."""
        if self.awaiting_correction:
            raise RuleViolation(
                "awaiting_correction",
                f"the card for {_label(self._slot())} was already misread: enter it by hand",
            )

    def _slot(self) -> int:
        hand = self.next_hand()
        assert hand is not None, "the card states are left as soon as no card is due"
        return hand

    # -- actions -----------------------------------------------------------------------

    # Each action journals its record first and only then changes the coup
    # (controller/core/contract.py, Durability): a journal failure leaves the coup as it
    # was before the input.

    def on_open_bets(self) -> None:
        low, high = self.limits
        number = self.coup_number + 1
        self._emit(CoupStart(coup=number, decks=self.decks, min_bet=low, max_bet=high))
        self._new_coup_data()
        self.coup_number = number

    def on_place_bet(self, bet: BetPlaced) -> None:
        key = (bet.box, bet.kind)
        total = self.bets.get(key, 0) + bet.amount
        self._emit(BetPlacedRecord(coup=self.coup_number, **bet_fields(bet), total=total))
        self.bets[key] = total

    def on_no_more_bets(self, boxes: list[int] | None) -> None:
        named = set(boxes) if boxes is not None else {box for box, _ in self.bets}
        in_play = sorted(named)
        self._emit(BetsClosed(boxes=in_play, tag=self._tag()))
        self.in_play = in_play
        self.hands.update({b: [] for b in in_play})

    def on_five_choice(self, box: int, choice: str, by: str = "dealer") -> None:
        self._emit(FiveChoice(coup=self.coup_number, box=box, choice=choice, by=by))
        self.fives[box] = choice

    def on_card(self, card: Card, manual: bool) -> None:
        hand = self._slot()
        self._emit(CardRecord(hand=_label(hand), card=str(card), manual=manual,
                              face_down=hand == BANCA and not self.hands[BANCA],
                              tag=self._tag()))
        self.hands[hand].append(card)
        self.awaiting_correction = False
        if hand == BANCA and len(self.hands[BANCA]) == 2 and self.insurance_open:
            self._emit(InsuranceClosed(coup=self.coup_number))
            self.insurance_open = False

    def on_misread(self) -> None:
        self._emit(Misread(hand=_label(self._slot()), tag=self._tag()))
        self.awaiting_correction = True

    def on_enter_five_options(self) -> None:
        """Art. 8 Decision: on a box with no Punto bet the dealer stands on five."""
        for box in self.five_boxes():
            if self.bets.get((box, "punto"), 0) == 0:
                self._emit(FiveChoice(coup=self.coup_number, box=box, choice="stand",
                                      by="rule"))
                self.fives[box] = "stand"

    def on_enter_banca_second(self) -> None:
        """Art. 6, 8, 11: the face-down card is turned; a nine opens insurance."""
        first = self.hands[BANCA][0]
        self._emit(CardTurned(hand="banca", card=str(first), tag=self._tag()))
        if points(first) == 9:
            offers = [
                {"box": b, "max": self.bets[(b, "punto")] // 2}
                for b in self.in_play
                if self.bets.get((b, "punto"), 0) >= 2
            ]
            self._emit(InsuranceOffered(coup=self.coup_number, boxes=offers))
            self.insurance_open = True

    def on_enter_naturals(self) -> None:
        """Insurance (Art. 11), then the coups "de aire", left to right (Art. 9 a-c)."""
        banca = self.hands[BANCA]
        for box in self.in_play:
            amount = self.bets.get((box, "insurance"), 0)
            if amount:
                won = insurance_wins(banca, self.insurance_pays_on)
                self._settle(box, "insurance", amount, "win" if won else "lose", 2 * amount)
        banca_natural = is_natural(banca)
        for box in self.in_play:
            if banca_natural or is_natural(self.hands[box]):
                self._decide(box, banca, "9a" if banca_natural else "9c")

    def on_enter_banca_stands(self) -> None:
        """Boxes the Banca stands against, settled on its two cards left to right (Art. 9 d-e)."""
        banca = self.hands[BANCA]
        article = "9d" if hand_total(banca) == 7 else "9e"
        for box in self.in_play:
            if box not in self.decided and not banca_takes_third(self.hands[box], banca):
                self._decide(box, banca, article)

    def on_enter_final_comparison(self) -> None:
        """After all cards are out, the other boxes right to left (Art. 9 f)."""
        banca = self.hands[BANCA]
        for box in reversed(self.in_play):
            if box not in self.decided:
                self._decide(box, banca, "9f")

    def on_enter_coup_over(self) -> None:
        banca = self.hands[BANCA]
        self._emit(CoupResult(
            coup=self.coup_number,
            banca={
                "cards": _cards(banca),
                "total": hand_total(banca),
                "natural": is_natural(banca),
            },
            boxes=[
                {
                    "box": b,
                    "cards": _cards(self.hands[b]),
                    "total": hand_total(self.hands[b]),
                    "natural": is_natural(self.hands[b]),
                    "outcome": self.decided[b],
                }
                for b in self.in_play
            ],
        ))

    def _decide(self, box: int, banca: Sequence[Card], article: str) -> None:
        """Oppose ``banca`` to one box, then collect its losing bets and pay its winners.

        Art. 9 g: "cobrando primero las apuestas perdedoras y después pagando las
        ganadoras", box by box; a standoff returns the bets (Art. 10 Decision).
        """
        hand = self.hands[box]
        result = outcome(hand, banca)
        self._emit(BoxResult(
            coup=self.coup_number,
            box=box,
            cards=_cards(hand),
            total=hand_total(hand),
            natural=is_natural(hand),
            encart=is_encart(hand, banca),
            banca_cards=_cards(banca),
            banca_total=hand_total(banca),
            outcome=result,
            article=article,
        ))
        self.decided[box] = result
        settled: list[tuple[str, int, str, int | float]] = []
        for kind in ("punto", "banca"):
            amount = self.bets.get((box, kind), 0)
            if not amount:
                continue
            if result == "standoff":
                settled.append(("push", amount, kind, 0))
            elif result != kind:
                settled.append(("lose", amount, kind, -amount))
            elif kind == "punto":
                settled.append(("win", amount, kind, amount))
            else:
                settled.append(("win", amount, kind, banca_win_payout(amount)))
        order = {"lose": 0, "push": 1, "win": 2}
        for result_of_bet, amount, kind, payout in sorted(settled, key=lambda s: order[s[0]]):
            self._settle(box, kind, amount, result_of_bet, payout)

    def returned(self) -> None:
        """The coup is void (the inspector's decision, issue 16): every bet not settled
        yet is returned (``push``), in box order, Punto before Banca."""
        for (box, kind), amount in sorted(self.bets.items()):
            if amount and (box, kind) not in self.settled:
                self._settle(box, kind, amount, "push", 0)

    def _settle(
        self, box: int, kind: str, amount: int, result: str, win_payout: int | float
    ) -> None:
        payout = win_payout if result == "win" else (-amount if result == "lose" else 0)
        self.settled.add((box, kind))
        self._emit(Settlement(game=self.coup_number, box=box, kind=kind, amount=amount,
                              outcome=result, payout=payout))
