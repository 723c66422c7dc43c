"""What a Black Jack coup allows, and why it refuses the rest (seed 002 Art. 7-10, seed 004 Art.
7-8; CONTRACT §6): the validators of the statechart (:mod:`controller.games.blackjack.chart`).

Each raises :class:`~controller.core.errors.RuleViolation` with a code naming the rule and
the article in its message, and changes nothing; ``verify_event`` runs them to check an
input without doing it.
"""

from __future__ import annotations

from typing import Any

from controller.cards.consent import check_consent
from controller.core.errors import RuleViolation
from controller.core.events import BetPlaced
from controller.core.words import given
from controller.games.blackjack.config import BlackjackConfig
from controller.games.blackjack.hands import Box, Coup, PlayerHand
from controller.games.blackjack.rules import Rules, is_pair, may_double

TABLE_KINDS = {"blackjack_plus": ("main",), "pot_luck": ("main", "pool", "bonus")}
"""The bets placed before the first card, by table (CONTRACT §6; seed 004 Art. 7)."""


class Checks:
    """The validators of a coup, over its data (``coup``, ``bets``; the table's ``config``,
    ``rules`` and main-bet ``limits``)."""

    coup: Coup
    bets: dict[tuple[int, str], int]
    config: BlackjackConfig
    rules: Rules
    limits: tuple[int, int]

    # -- bets (Art. 7, 10) ----------------------------------------------------------
    def _check_shape(self, bet: BetPlaced) -> None:
        kinds = (*TABLE_KINDS[self.config.table], "insurance")
        if bet.kind not in kinds:
            raise RuleViolation("unknown_bet_kind", f"unknown bet kind {bet.kind!r}; this "
                                f"table's are {', '.join(kinds)} (CONTRACT §6)")
        if not 1 <= bet.box <= self.config.boxes:
            raise RuleViolation("unknown_box", f"no box {given(bet.box)}: the cloth has boxes 1 to "
                                f"{self.config.boxes} (Art. 7)")
        if not isinstance(bet.amount, int) or isinstance(bet.amount, bool) or bet.amount <= 0:
            raise RuleViolation("bad_amount", f"a bet is a positive number of chips (\"Las "
                                f"apuestas se harán sólo con fichas\", Art. 7): "
                                f"{given(bet.amount)}")
        # Art. 7: "se requerirá el consentimiento del jugador que ocupa la misma".
        check_consent(bet, {kind for box, kind in self.bets if box == bet.box},
                      f"seed {'004' if self.config.table == 'pot_luck' else '002'} Art. 7")

    def check_table_bet(self, bet: BetPlaced) -> None:
        """A main bet (Pot Luck: also a pool bet, a bonus) before the first card, within the
        table's limits for its kind (Art. 7: "dentro de los límites establecidos")."""
        self._check_shape(bet)
        if bet.kind == "insurance":
            raise RuleViolation("insurance_not_offered", "insurance is offered once the deal is "
                                "complete, when the dealer's up card is an ace (Art. 10)")
        if bet.kind == "bonus" and not (self.config.bonus and self.config.bonus.hands):
            raise RuleViolation("bonus_not_offered", "this table's bonus has no pay table "
                                "([pot_luck.bonus.hands] is empty; seed 004 Art. 7)")
        low, high = {"main": self.limits, "pool": self.config.pool_limits,
                     "bonus": self.config.bonus_limits}[bet.kind]
        if bet.amount < low:
            raise RuleViolation("below_minimum", f"{bet.kind} of {bet.amount} chips is below "
                                f"the table's minimum {low} (Art. 7)")
        total = self.bets.get((bet.box, bet.kind), 0) + bet.amount
        if total > high:
            raise RuleViolation("over_maximum", f"{bet.kind} on box {bet.box} would reach "
                                f"{total} chips, over the table's maximum {high} (Art. 7)")

    def check_insurance_bet(self, bet: BetPlaced) -> None:
        """Art. 10: while the dealer's question is open (an ace up, from the deal's end to
        ``close_insurance``); at most half the box's main bet (refused, not capped:
        CONTRACT §6)."""
        self._check_shape(bet)
        if bet.kind != "insurance":
            raise RuleViolation("bets_closed", "bets are placed until the first card is dealt "
                                "(\"hasta antes de repartir la primera carta\", Art. 7)")
        if self.coup.up_card().rank != "A":
            raise RuleViolation("insurance_not_offered", "insurance is offered only when the "
                                "dealer's up card is an ace (Art. 10)")
        box = self.coup.box(bet.box)
        if box is None:
            raise RuleViolation("box_not_in_play", f"box {bet.box} is not in this coup")
        main = box.bets["main"]
        total = box.bets.get("insurance", 0) + bet.amount
        if 2 * total > main:
            raise RuleViolation("insurance_over_half", f"insurance of {total} chips on box "
                                f"{bet.box} is over half its bet of {main} (Art. 10)")

    def boxes_in_play(self) -> tuple[list[int], dict[int, tuple[str, str]]]:
        """The boxes dealt in, and those refused with (code, reason): Pot Luck deals a box
        only with both its pool bet and its bet (seed 004 Art. 7: "cada jugador debe colocar
        obligatoriamente su pool bet y apuesta")."""
        kinds: dict[int, set[str]] = {}
        for box, kind in self.bets:
            kinds.setdefault(box, set()).add(kind)
        needed = ("main", "pool") if self.config.table == "pot_luck" else ("main",)
        complete: list[int] = []
        refused: dict[int, tuple[str, str]] = {}
        for box in sorted(kinds):
            missing = [k for k in needed if k not in kinds[box]]
            if not missing:
                complete.append(box)
            else:
                what = {"main": "bet", "pool": "pool bet"}[missing[0]]
                refused[box] = (f"{missing[0]}_bet_missing", f"box {box} has no {what}: a "
                                "box plays only with both a pool bet and a bet (seed 004 "
                                "Art. 7); its bets are returned")
        return complete, refused

    def check_boxes(self) -> None:
        """At least one box is dealt in."""
        complete, refused = self.boxes_in_play()
        if not complete:
            why = "; ".join(reason for _, reason in refused.values()) or "no bets"
            raise RuleViolation("no_boxes_in_play", f"no box can be dealt: {why}")

    # -- cards ----------------------------------------------------------------------
    def check_card(self, manual: bool) -> None:
        """After a misread only the dealer's correction, entered by hand, fills the slot."""
        if self.coup.awaiting_correction and not manual:
            raise RuleViolation("awaiting_correction", "the card due was misread: enter it "
                                "by hand first")

    def check_misread(self) -> None:
        if self.coup.awaiting_correction:
            raise RuleViolation("awaiting_correction", "the card due was already misread: "
                                "enter it by hand")

    def check_exposed(self) -> None:
        """Art. 8: the second card exposed by mistake is the up card; said after the deal,
        before anything is done on the up card (an insurance bet, the insurance question
        closed, a decision), and once."""
        coup = self.coup
        if coup.up_index == 1 or coup.acted:
            raise RuleViolation("up_card_turned", "the dealer's up card is already "
                                f"{'exposed' if coup.up_index == 1 else 'played on'} "
                                f"({coup.up_card()}): the exposed card is said before any "
                                "player acts on the up card (Art. 8)")

    # -- the players' decisions (Art. 8-9; RULES.md §4) -----------------------------
    def hand_of(self, box: int) -> PlayerHand:
        """The box's first hand (the box must be in play)."""
        found = self.coup.box(box)
        assert found is not None
        return found.hands[0]

    def current(self) -> PlayerHand:
        """The hand whose decision is due."""
        kind, hand = self.coup.due(self.rules)
        assert kind == "decision" and hand is not None
        return hand

    def _box(self, box: Any) -> Box:
        found = self.coup.box(box)
        if found is None:
            raise RuleViolation("box_not_in_play", f"box {box} is not in this coup")
        return found

    def check_turn(self, box: int) -> None:
        """The boxes act in box order, each hand of a box in turn ("after a split, its
        first hand, then its second", CONTRACT §6): a decision of RULES.md §4. Seed 002
        Art. 8 orders the dealing, not the decisions ("Concluida dicha etapa cualquier
        jugador se puede plantar")."""
        self._box(box)
        hand = self.current()
        if hand.box != box:
            raise RuleViolation("not_this_box", f"box {box} may not act now: {hand.label} "
                                "acts first (box order, a decision of RULES.md §4)")

    def check_stand(self, box: int, by: str = "dealer") -> None:
        """A stand in turn, by the dealer or the inspector (``by``). Taken also while a
        card read since the deal waits for its place: whether the dealer would take it
        depends on his covered card, which nothing may show before he turns it (Art. 10:
        "cuando el dealer descubre su carta cubierta"). Should it have no place, the coup
        is held at the dealer's turn, nothing settled (``CoupChart``)."""
        self.check_turn(box)
        if by not in ("dealer", "inspector"):
            raise RuleViolation("bad_input", f"stand by {given(by)}: by is dealer or "
                                "inspector")

    def check_double(self, box: int) -> None:
        """Double on the first two cards (RULES.md §4: any two; one card, then stand)."""
        self.check_turn(box)
        hand = self.current()
        why = may_double(hand.cards, hand.from_split, self.rules)
        if why is not None:
            raise RuleViolation("double_not_allowed", f"{hand.label} may not double: {why} "
                                "(RULES.md §4)")

    def check_split(self, box: int) -> None:
        """A pair splits once (RULES.md §4, CONTRACT §6: "pairs split only on the same
        rank, once")."""
        self.check_turn(box)
        hand = self.current()
        if self._box(box).split:
            raise RuleViolation("split_once", f"box {box} has split already: a box splits "
                                "once (RULES.md §4)")
        if not is_pair(hand.cards, self.rules):
            same = "rank" if self.rules.split_pairs == "same_rank" else "value"
            raise RuleViolation("not_a_pair", f"{hand.label} holds "
                                f"{' '.join(map(str, hand.cards))}: a split needs its first "
                                f"two cards of the same {same} (RULES.md §4)")

    def check_surrender(self, box: int) -> None:
        """Art. 9 ("retiro"): "Un jugador puede retirarse después de haber recibido sus dos
        primeras cartas y cuando haya culminado la etapa de entrega obligatoria de cartas",
        for half the bet: a box that has not acted, until its own first decision, whatever
        the other boxes did; "El retiro no procede cuando la primera carta del dealer es un
        As" (the up card: Art. 8). A table whose rules have no surrender (``surrender``
        false: Pot Luck's default, seed 004 has none) refuses it."""
        found = self._box(box)
        hand = found.hands[0]
        if not self.config.surrender:
            raise RuleViolation("surrender_not_offered", "this table takes no surrender "
                                "(setting surrender = false; seed 004 has none)")
        if hand.surrendered:
            raise RuleViolation("already_surrendered", f"box {box} has surrendered already")
        if found.acted:
            raise RuleViolation("surrender_closed", f"box {box} has acted: a box surrenders "
                                "before its own first decision (Art. 9)")
        if self.coup.card_waits:
            # The card dealt before the decision due is that decision's: the hand drew.
            _, hand_due = self.coup.due(self.rules)
            due = hand_due.label if hand_due is not None else "the dealer"
            raise RuleViolation("card_dealt", f"box {box} may not surrender: a card was "
                                f"dealt after the deal, before the decision of {due} was "
                                "entered; it is that decision's card (a box surrenders "
                                "before its own first decision, Art. 9), and a surrender is "
                                "settled at once: enter the decision the card answers (hit, "
                                "double, split)")
        if hand.blackjack():
            raise RuleViolation("no_decision_due", f"box {box} holds a blackjack: it takes no "
                                "decision (CONTRACT §6)")
        if self.coup.up_card().rank == "A":
            raise RuleViolation("surrender_against_ace", "no surrender when the dealer's up "
                                "card is an ace (\"El retiro no procede cuando la primera "
                                "carta del dealer es un As\", Art. 9)")
