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

Three layers, each usable alone:

1. pure rules functions on hands given as cards or point values (``hand_total``,
   ``is_natural``, ``is_encart``, ``box_draws``, ``banca_draws``, ``box_takes_third``,
   ``banca_takes_third``, ``outcome``, ``insurance_wins``);
2. ``CoupChart``, the coup as a python-statemachine ``StateChart``, and ``MiniBaccarat``, the
   facade the table calls with dealer inputs, bets and shoe cards;
3. ``analyze``, the exact probabilities of one box against the Banca, enumerated through the
   same rules functions, and ``insurance_probability``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from fractions import Fraction
from typing import Any, Literal

from statemachine import State, StateChart

from controller.cards import Card
from controller.errors import RuleViolation
from controller.events import BetPlaced
from controller.games.base import Emit

BOXES = (1, 2, 3, 4, 5)
"""The numbered boxes ("casilleros") of the layout, five seated bettors (Art. 2)."""
DECKS = 4
"""Decks in the sabot of a Mini-Bacará table (Art. 2: "los cuatro mazos")."""

BET_KINDS = ("punto", "banca", "insurance")
FIVE_CHOICES = ("draw", "stand")
INSURANCE_RULES = ("natural_nine", "banca_natural")
"""When insurance wins (Art. 11 Decision): ``natural_nine`` the Banca's two cards total a
natural nine (default, by analogy with Black Jack); ``banca_natural`` any Banca natural."""

Outcome = Literal["punto", "banca", "standoff"]
Hand = Sequence[Card | int]
"""A hand as cards, or as baccarat point values 0-9 (the exact analysis uses points)."""

BANCA = 0
"""Internal key of the Banca's hand beside the box numbers 1-5."""


# --------------------------------------------------------------------------------------
# 1. Rules (Punto y Banca as applied by Art. 1, 7-11)
# --------------------------------------------------------------------------------------


def _points(card: Card | int) -> int:
    return card if isinstance(card, int) else card.baccarat_points


def hand_total(cards: Iterable[Card | int]) -> int:
    """Total of a hand, 0-9: the sum of its points modulo 10 (ten and figures 0, ace 1)."""
    return sum(_points(c) for c in cards) % 10


def is_natural(cards: Hand) -> bool:
    """True for 8 or 9 on the first two cards: the hand is decided "de aire" (Art. 7)."""
    return len(cards) == 2 and hand_total(cards) >= 8


def is_encart(box: Hand, banca: Hand) -> bool:
    """True for "encart" (Art. 9 d): box and Banca both 6, or both 7, on two cards.

    The coup is a standoff and nobody takes another card.
    """
    return len(box) == 2 and len(banca) == 2 and hand_total(box) == hand_total(banca) in (6, 7)


def box_draws(total: int, five_choice: str | None) -> bool:
    """Whether a box on this two-card ``total`` takes a third card (Punto y Banca tableau).

    The box draws ("pedir") on 0-4 and stands ("plantar") on 6-7; naturals (8-9) stand; on
    five it does what ``five_choice`` says, ``"draw"`` or ``"stand"`` (Art. 8).

    Raises:
        ValueError: ``total`` is five and ``five_choice`` is neither "draw" nor "stand".
    """
    if total <= 4:
        return True
    if total == 5:
        if five_choice not in FIVE_CHOICES:
            raise ValueError(f"a box on five needs a choice, 'draw' or 'stand': {five_choice!r}")
        return five_choice == "draw"
    return False


def banca_draws(banca_total: int, box_third_card_points: int | None) -> bool:
    """Whether the Banca, on its two-card ``banca_total``, draws against one box.

    ``box_third_card_points`` is the points (0-9) of that box's third card, or None when
    the box stood on two cards. Box stood: the Banca draws on 0-5 and stands on 6-7. Box
    drew: 0-2 draw; 3 draws unless the third card is 8; 4 draws on 2-7; 5 on 4-7; 6 on
    6-7; 7 stands. A natural (8-9) always stands. (RULES.md §2, decree 526/977.)
    """
    if box_third_card_points is None:
        return banca_total <= 5
    third = box_third_card_points
    if banca_total <= 2:
        return True
    if banca_total == 3:
        return third != 8
    if banca_total == 4:
        return 2 <= third <= 7
    if banca_total == 5:
        return 4 <= third <= 7
    if banca_total == 6:
        return 6 <= third <= 7
    return False


def decided_on_two_cards(box: Hand, banca: Hand) -> bool:
    """True when a natural on either side (Art. 7, 9 a-c) or an encart (Art. 9 d) decides."""
    return is_natural(box) or is_natural(banca) or is_encart(box, banca)


def box_takes_third(box: Hand, banca: Hand, five_choice: str | None) -> bool:
    """Whether a two-card ``box`` gets a third card against the Banca's first two cards."""
    return not decided_on_two_cards(box, banca) and box_draws(hand_total(box), five_choice)


def banca_takes_third(box: Hand, banca: Hand) -> bool:
    """Whether the two-card Banca draws against ``box`` (two or three cards, complete).

    Art. 9 e: the Banca plays each box separately; this says on which side of that
    article's split the box falls.
    """
    if decided_on_two_cards(box[:2], banca):
        return False
    third = _points(box[2]) if len(box) == 3 else None
    return banca_draws(hand_total(banca), third)


def outcome(box: Hand, banca: Hand) -> Outcome:
    """Who wins: the higher total; equal totals are a standoff (Art. 9)."""
    p, b = hand_total(box), hand_total(banca)
    if p > b:
        return "punto"
    if b > p:
        return "banca"
    return "standoff"


def insurance_wins(banca: Hand, pays_on: str = "natural_nine") -> bool:
    """Whether insurance ("cobertura o seguro", Art. 11) wins on the Banca's two cards.

    ``pays_on`` is one of INSURANCE_RULES; the default is the RULES.md Decision.
    """
    if pays_on == "natural_nine":
        return is_natural(banca) and hand_total(banca) == 9
    return is_natural(banca)


def banca_win_payout(amount: int) -> int | float:
    """Net chips won by a winning Banca bet of ``amount`` chips: 90% of it (Art. 10).

    The decree says "se pagará solamente como premio un noventa por ciento de la apuesta":
    exactly 9/10 of the stake, not floored. A whole number of chips is returned as an int;
    otherwise the exact amount with 2 decimals (e.g. 15 chips win 13.5), for the cashier to
    settle the fraction.
    """
    whole, rest = divmod(amount * 9, 10)
    return whole if rest == 0 else round(amount * 9 / 10, 2)


def _label(hand: int) -> str:
    return "banca" if hand == BANCA else f"box {hand}"


def _cards(cards: Iterable[Card]) -> list[str]:
    return [str(c) for c in cards]


# --------------------------------------------------------------------------------------
# 2. The coup
# --------------------------------------------------------------------------------------


class CoupChart(StateChart):
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
    ) -> None:
        self.emit = emit
        self.event_time = 0.0
        self.decks = decks
        self.insurance_pays_on = insurance_pays_on
        self.limits = limits
        self.coup_number = 0
        self._new_coup_data()
        super().__init__()

    def _emit(self, type_: str, **fields: Any) -> None:
        """Journal a record stamped with the time of the input that caused it (seconds)."""
        self.emit(type_, t=self.event_time, **fields)

    def _new_coup_data(self) -> None:
        self.bets: dict[tuple[int, str], int] = {}
        self.in_play: list[int] = []
        self.hands: dict[int, list[Card]] = {BANCA: []}
        self.fives: dict[int, str] = {}
        self.decided: dict[int, Outcome] = {}
        self.insurance_open = False
        self.awaiting_correction = False

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

    def five_boxes(self) -> list[int]:
        """Boxes in play with five on their two cards (Art. 8)."""
        return [b for b in self.in_play if hand_total(self.hands[b]) == 5]

    def fives_decided(self) -> bool:
        return all(b in self.fives for b in self.five_boxes())

    def banca_has_two_cards(self) -> bool:
        return len(self.hands[BANCA]) == 2

    def banca_has_three_cards(self) -> bool:
        return len(self.hands[BANCA]) == 3

    def has_undecided_boxes(self) -> bool:
        return any(b not in self.decided for b in self.in_play)

    # -- validators (raise RuleViolation; nothing has changed yet) ---------------------

    def _check_bet_shape(self, bet: BetPlaced) -> None:
        if bet.kind not in BET_KINDS:
            raise RuleViolation("unknown_bet_kind", f"unknown bet kind {bet.kind!r}")
        if bet.box not in BOXES:
            raise RuleViolation("unknown_box", f"no box {bet.box!r} on the layout (Art. 2)")
        if not isinstance(bet.amount, int) or isinstance(bet.amount, bool) or bet.amount <= 0:
            raise RuleViolation(
                "bad_amount", f"a bet is a positive number of chips: {bet.amount!r}"
            )

    def check_table_bet(self, bet: BetPlaced) -> None:
        """Punto and Banca bets, before the first card, within the box limits (Art. 4-5)."""
        self._check_bet_shape(bet)
        if bet.kind == "insurance":
            raise RuleViolation(
                "insurance_not_offered",
                "insurance is only offered when the Banca's first card is a nine (Art. 11)",
            )
        low, high = self.limits
        if bet.amount < low:
            raise RuleViolation("below_minimum", f"{bet.amount} chips is below the minimum {low}")
        total = self.bets.get((bet.box, bet.kind), 0) + bet.amount
        if total > high:
            raise RuleViolation(
                "over_maximum",
                f"{bet.kind} on box {bet.box} would reach {total} chips, over the box maximum"
                f" {high} (Art. 5)",
            )

    def check_insurance_bet(self, bet: BetPlaced) -> None:
        """Insurance up to 50% of the box's Punto bet, while it is offered (Art. 11)."""
        self._check_bet_shape(bet)
        if bet.kind != "insurance":
            raise RuleViolation("bets_closed", "bets are made before the first card (Art. 4)")
        if not self.insurance_open:
            raise RuleViolation(
                "insurance_not_offered",
                "insurance is only offered when the Banca's first card is a nine (Art. 11)",
            )
        punto = self.bets.get((bet.box, "punto"), 0)
        if punto == 0:
            raise RuleViolation(
                "insurance_without_punto", f"box {bet.box} has no Punto bet to insure (Art. 11)"
            )
        total = self.bets.get((bet.box, "insurance"), 0) + bet.amount
        if 2 * total > punto:
            raise RuleViolation(
                "insurance_over_half",
                f"insurance of {total} chips on box {bet.box} is over 50% of its Punto bet"
                f" of {punto} (Art. 11)",
            )

    def check_boxes(self, boxes: list[int] | None) -> None:
        """The boxes in play: those named, or else those with bets; one is enough (Art. 5)."""
        with_bets = {box for box, _ in self.bets}
        if boxes is not None:
            for box in boxes:
                if box not in BOXES:
                    raise RuleViolation("unknown_box", f"no box {box!r} on the layout (Art. 2)")
            missing = sorted(with_bets - set(boxes))
            if missing:
                raise RuleViolation(
                    "bet_on_box_not_in_play", f"boxes {missing} have bets but were not named"
                )
        if not (boxes or with_bets):
            raise RuleViolation("no_boxes_in_play", "no box in play: no bets and none named")

    def check_five_choice(self, box: int, choice: str) -> None:
        """A five choice for a box on five with a Punto bet, before the Banca's second card."""
        if choice not in FIVE_CHOICES:
            raise RuleViolation("bad_five_choice", f"choice is 'draw' or 'stand': {choice!r}")
        if box not in self.five_boxes():
            raise RuleViolation("not_a_five", f"box {box!r} has no five on two cards (Art. 8)")
        if self.bets.get((box, "punto"), 0) == 0:
            raise RuleViolation(
                "five_without_punto",
                f"box {box} has no Punto bet: the dealer stands on five (Art. 8 Decision)",
            )

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

    # Each action journals its record first and only then changes the coup (base.py,
    # Durability): a journal failure leaves the coup as it was before the input.

    def on_open_bets(self) -> None:
        low, high = self.limits
        number = self.coup_number + 1
        self._emit("coup_start", coup=number, decks=self.decks, min_bet=low, max_bet=high)
        self._new_coup_data()
        self.coup_number = number

    def on_place_bet(self, bet: BetPlaced) -> None:
        key = (bet.box, bet.kind)
        total = self.bets.get(key, 0) + bet.amount
        self._emit(
            "bet_placed",
            coup=self.coup_number,
            box=bet.box,
            kind=bet.kind,
            amount=bet.amount,
            total=total,
        )
        self.bets[key] = total

    def on_no_more_bets(self, boxes: list[int] | None) -> None:
        named = set(boxes) if boxes is not None else {box for box, _ in self.bets}
        in_play = sorted(named)
        self._emit("bets_closed", coup=self.coup_number, boxes=in_play)
        self.in_play = in_play
        self.hands.update({b: [] for b in in_play})

    def on_five_choice(self, box: int, choice: str) -> None:
        self._emit("five_choice", coup=self.coup_number, box=box, choice=choice, by="dealer")
        self.fives[box] = choice

    def on_card(self, card: Card, manual: bool) -> None:
        hand = self._slot()
        self._emit(
            "card",
            coup=self.coup_number,
            hand=_label(hand),
            card=str(card),
            manual=manual,
            face_down=hand == BANCA and not self.hands[BANCA],
        )
        self.hands[hand].append(card)
        self.awaiting_correction = False
        if hand == BANCA and len(self.hands[BANCA]) == 2 and self.insurance_open:
            self._emit("insurance_closed", coup=self.coup_number)
            self.insurance_open = False

    def on_misread(self) -> None:
        self._emit("misread", coup=self.coup_number, hand=_label(self._slot()))
        self.awaiting_correction = True

    def on_enter_five_options(self) -> None:
        """Art. 8 Decision: on a box with no Punto bet the dealer stands on five."""
        for box in self.five_boxes():
            if self.bets.get((box, "punto"), 0) == 0:
                self._emit("five_choice", coup=self.coup_number, box=box, choice="stand", by="rule")
                self.fives[box] = "stand"

    def on_enter_banca_second(self) -> None:
        """Art. 6, 8, 11: the face-down card is turned; a nine opens insurance."""
        first = self.hands[BANCA][0]
        self._emit("card_turned", coup=self.coup_number, hand="banca", card=str(first))
        if first.baccarat_points == 9:
            offers = [
                {"box": b, "max": self.bets[(b, "punto")] // 2}
                for b in self.in_play
                if self.bets.get((b, "punto"), 0) >= 2
            ]
            self._emit("insurance_offered", coup=self.coup_number, boxes=offers)
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
        self._emit(
            "coup_result",
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
        )

    def _decide(self, box: int, banca: Sequence[Card], article: str) -> None:
        """Oppose ``banca`` to one box, then collect its losing bets and pay its winners.

        Art. 9 g: "cobrando primero las apuestas perdedoras y después pagando las
        ganadoras", box by box; a standoff returns the bets (Art. 10 Decision).
        """
        hand = self.hands[box]
        result = outcome(hand, banca)
        self._emit(
            "box_result",
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
        )
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

    def _settle(
        self, box: int, kind: str, amount: int, result: str, win_payout: int | float
    ) -> None:
        payout = win_payout if result == "win" else (-amount if result == "lose" else 0)
        self._emit(
            "settlement",
            game=self.coup_number,
            box=box,
            kind=kind,
            amount=amount,
            outcome=result,
            payout=payout,
        )


class MiniBaccarat:
    """The Mini-Bacará table: dealer inputs, bets and shoe cards in; records out.

    Args:
        emit: journals each record (``coup_start``, ``bet_placed``, ``bets_closed``,
            ``card``, ``misread``, ``five_choice``, ``card_turned``, ``insurance_offered``,
            ``insurance_closed``, ``box_result``, ``settlement``, ``coup_result``).
        decks: decks in the shoe (Art. 2: four), journaled in ``coup_start``.
        insurance_pays_on: one of INSURANCE_RULES (Art. 11 Decision).
        limits: (minimum bet, maximum per box and kind) in chips (Art. 5).

    Every input carries ``t``, its time in seconds on the controller's clock (``bet.t`` for
    a bet); the records it causes are journaled with that ``t``. A refused action raises
    ``RuleViolation`` with a ``code`` and changes nothing; the caller journals the alarm.

    Raises:
        ValueError: a configuration value out of range.
    """

    def __init__(
        self,
        emit: Emit,
        decks: int = 4,
        insurance_pays_on: str = "natural_nine",
        limits: tuple[int, int] = (1, 10000),
    ) -> None:
        if decks < 1:
            raise ValueError(f"decks must be at least 1: {decks}")
        if insurance_pays_on not in INSURANCE_RULES:
            raise ValueError(f"insurance_pays_on must be one of {INSURANCE_RULES}")
        if not 1 <= limits[0] <= limits[1]:
            raise ValueError(f"limits must be 1 <= minimum <= maximum: {limits}")
        self._chart = CoupChart(emit, decks, insurance_pays_on, limits)

    @property
    def state(self) -> str:
        """The coup's state, a state id of ``CoupChart`` (``bets_open``, ``dealing``...)."""
        return str(self._chart.current_state_value)

    @property
    def coup(self) -> int:
        """The current (or last) coup number, from 1; 0 before the first coup."""
        return self._chart.coup_number

    def needs_card(self) -> str | None:
        """Which hand the next shoe card goes to ("box 2", "banca"), or None."""
        hand = self._chart.next_hand()
        return None if hand is None else _label(hand)

    def _send(self, event: str, t: float, refusal: RuleViolation, **kwargs: Any) -> None:
        self._chart.event_time = t
        try:
            self._chart.send(event, **kwargs)
        except CoupChart.TransitionNotAllowed:
            raise refusal from None

    def open_bets(self, t: float) -> None:
        """Start a coup and accept bets (Art. 4). Refused while a coup is under way."""
        self._send(
            "open_bets", t, RuleViolation("coup_in_progress", f"coup {self.coup} is not over")
        )

    def place_bet(self, bet: BetPlaced) -> None:
        """Accept a bet of ``bet.amount`` chips: ``punto`` or ``banca`` on ``bet.box`` while
        bets are open (Art. 4-5), ``insurance`` while it is offered (Art. 11).

        Raises:
            RuleViolation: ``unknown_bet_kind``, ``unknown_box``, ``bad_amount``,
                ``bets_closed``, ``below_minimum``, ``over_maximum``,
                ``insurance_not_offered``, ``insurance_without_punto``,
                ``insurance_over_half``.
        """
        if bet.kind == "insurance":
            refusal = RuleViolation(
                "insurance_not_offered",
                "insurance is offered only when the Banca's first"
                " card, turned, is a nine, until its second card (Art. 11)",
            )
        else:
            refusal = RuleViolation("bets_closed", "bets are made before the first card (Art. 4)")
        self._send("place_bet", bet.t, refusal, bet=bet)

    def no_more_bets(self, t: float, boxes: list[int] | None = None) -> None:
        """Close bets; the boxes in play are ``boxes`` if given, else those with bets.

        Raises:
            RuleViolation: ``bets_not_open``, ``unknown_box``, ``bet_on_box_not_in_play``,
                ``no_boxes_in_play``.
        """
        self._send(
            "no_more_bets",
            t,
            RuleViolation("bets_not_open", "bets are not open"),
            boxes=None if boxes is None else list(boxes),
        )

    def five_choice(self, t: float, box: int, choice: str) -> None:
        """The bettor's "pedir" (``draw``) or "plantar" (``stand``) for a box on five (Art. 8).

        May be corrected while another box on five has not chosen; final once the dealer
        turns the Banca's face-down card, which he does as soon as every box on five has
        chosen ("Decidida la opción, el tallador descubrirá su carta tapada", Art. 8).

        Raises:
            RuleViolation: ``late_five_choice`` once the Banca's face-down card is turned,
                ``five_choice_not_due`` before the second card of every box,
                ``bad_five_choice``, ``not_a_five``, ``five_without_punto``.
        """
        if self.state not in ("idle", "bets_open", "dealing", "five_options"):
            refusal = RuleViolation(
                "late_five_choice",
                "the choice is final once the Banca's face-down card is turned: \"Decidida "
                "la opción, el tallador descubrirá su carta tapada\" (Art. 8)",
            )
        else:
            refusal = RuleViolation("five_choice_not_due", "the boxes' two cards are not out yet")
        self._send("five_choice", t, refusal, box=box, choice=choice)

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


# --------------------------------------------------------------------------------------
# 3. Exact analysis of one box against the Banca
# --------------------------------------------------------------------------------------


def _shoe_counts(decks: int) -> tuple[int, ...]:
    """Cards per point value 0-9 in a full shoe: 16 per deck count 0 (ten, J, Q, K)."""
    return (16 * decks,) + (4 * decks,) * 9


def _without(counts: tuple[int, ...], point: int) -> tuple[int, ...]:
    return (*counts[:point], counts[point] - 1, *counts[point + 1 :])


def analyze(decks: int, five: str = "draw",
            progress: Callable[[float], None] | None = None) -> dict[str, Any]:
    """Exact outcome of one box against the Banca from a full shoe of ``decks`` decks.

    Enumerates every deal in the Art. 6 order (box, Banca, box, Banca, then the third
    cards) by point value, weighted by the cards left of each value, through the rules
    functions of this module. ``five`` is the box's play on five, "draw" or "stand"; the
    Banca follows the tableau for the box's third card, or the box-stood rule.
    ``progress``, if given, is called with the fraction done (0 to 1) as the work goes.

    Returns:
        ``decks``, ``five``; ``deals`` (ordered six-card deals from the full shoe) and
        ``banca_deals``, ``box_deals``, ``standoff_deals`` (exact integers, each deal
        counted with every ordering of the unused cards); ``p_banca``, ``p_box``,
        ``p_standoff`` (floats); ``ev_punto``, ``ev_banca_10``, ``ev_banca_5`` (expected
        chips won per chip staked on Punto, on Banca at 10% commission (Art. 10), at 5%).

    Raises:
        ValueError: decks < 1, or ``five`` not "draw" or "stand".
    """
    if decks < 1 or five not in FIVE_CHOICES:
        raise ValueError(f"need decks >= 1 and five in {FIVE_CHOICES}: {decks}, {five!r}")
    index = {"banca": 0, "punto": 1, "standoff": 2}
    memo: dict[tuple[tuple[int, ...], int, int], tuple[int, int, int]] = {}

    def after_two_cards_each(
        counts: tuple[int, ...], box_total: int, banca_total: int
    ) -> tuple[int, int, int]:
        # Every rule depends on a hand's size and total only, so a two-card hand is
        # represented as (total, 0) and memoised on the cards left and the two totals.
        key = (counts, box_total, banca_total)
        if key in memo:
            return memo[key]
        box, banca = (box_total, 0), (banca_total, 0)
        left = sum(counts)
        tally = [0, 0, 0]
        if box_takes_third(box, banca, five):
            for v, c in enumerate(counts):
                if c == 0:
                    continue
                box3 = (*box, v)
                if banca_takes_third(box3, banca):
                    for w, c2 in enumerate(_without(counts, v)):
                        if c2:
                            tally[index[outcome(box3, (*banca, w))]] += c * c2
                else:
                    tally[index[outcome(box3, banca)]] += c * (left - 1)
        elif banca_takes_third(box, banca):
            for w, c in enumerate(counts):
                if c:
                    tally[index[outcome(box, (*banca, w))]] += c * (left - 1)
        else:
            tally[index[outcome(box, banca)]] += left * (left - 1)
        memo[key] = (tally[0], tally[1], tally[2])
        return memo[key]

    totals = [0, 0, 0]
    full = _shoe_counts(decks)
    for p1, c1 in enumerate(full):
        if progress is not None:
            progress(p1 / len(full))
        after_p1 = _without(full, p1)
        for b1, c2 in enumerate(after_p1):
            if not c2:
                continue
            after_b1 = _without(after_p1, b1)
            for p2, c3 in enumerate(after_b1):
                if not c3:
                    continue
                after_p2 = _without(after_b1, p2)
                for b2, c4 in enumerate(after_p2):
                    if not c4:
                        continue
                    weight = c1 * c2 * c3 * c4
                    sub = after_two_cards_each(
                        _without(after_p2, b2), hand_total((p1, p2)), hand_total((b1, b2))
                    )
                    for i in range(3):
                        totals[i] += weight * sub[i]
    if progress is not None:
        progress(1.0)
    n = sum(full)
    deals = n * (n - 1) * (n - 2) * (n - 3) * (n - 4) * (n - 5)
    p_banca, p_box, p_standoff = (Fraction(x, deals) for x in totals)
    return {
        "decks": decks,
        "five": five,
        "deals": deals,
        "banca_deals": totals[0],
        "box_deals": totals[1],
        "standoff_deals": totals[2],
        "p_banca": float(p_banca),
        "p_box": float(p_box),
        "p_standoff": float(p_standoff),
        "ev_punto": float(p_box - p_banca),
        "ev_banca_10": float(Fraction(9, 10) * p_banca - p_box),
        "ev_banca_5": float(Fraction(19, 20) * p_banca - p_box),
    }


def insurance_probability(decks: int, pays_on: str = "natural_nine") -> Fraction:
    """P(insurance wins | the Banca's first card is a nine), nothing else known (Art. 11).

    4 decks, default rule: 64/207 (a ten or figure among the 207 cards left).
    """
    counts = _without(_shoe_counts(decks), 9)
    wins = sum(c for v, c in enumerate(counts) if insurance_wins((9, v), pays_on))
    return Fraction(wins, sum(counts))


def format_analysis(result: dict[str, Any]) -> str:
    """The result of ``analyze`` as a few lines of text for the command line."""
    on_five = "draws" if result["five"] == "draw" else "stands"
    return "\n".join(
        [
            f"Mini-Bacará, one box against the Banca: {result['decks']} decks,"
            f" box {on_five} on five",
            f"ordered deals     {result['deals']:,}",
            f"P(Banca wins)     {result['p_banca']:.6f}   ({result['banca_deals']:,} deals)",
            f"P(box wins)       {result['p_box']:.6f}   ({result['box_deals']:,} deals)",
            f"P(standoff)       {result['p_standoff']:.6f}   ({result['standoff_deals']:,} deals)",
            f"EV Punto          {result['ev_punto']:+.4%}",
            f"EV Banca, 10%     {result['ev_banca_10']:+.4%}   (Art. 10)",
            f"EV Banca, 5%      {result['ev_banca_5']:+.4%}",
        ]
    )
