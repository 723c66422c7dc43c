"""A betting round of draw poker (seed 003 num. 8 and 12): whose turn it is, what he may do,
and when the round closes. Pure: no records, no clock.

Words (CONTRACT §7): ``pass``, ``bet`` (``amount``), ``call``, ``raise`` (``amount``: the
new bet level), ``fold``. The round's *level* is what each player must have put in this
round to stay in; ``bet`` and ``raise`` set it, ``call`` matches it.

- Turns go clockwise from Mano ("comenzando por el Jugador 'Mano'", num. 8; a) each player
  in turn, to the last). After a bet or a raise, every other player still in acts again.
- Num. 8, the first round: pass or bet while nobody has bet (a); a bet of at most three
  antes ("no podrá exceder del triple del valor asignado a la 'Primera Apuesta'"); a
  smaller bet may be raised by the others up to that cap (c); who does not match folds and
  loses what he bet (d). Decision: a fold is a refusal to match, so with nothing bet it is
  refused (pass instead: if all pass it is "Mano Nula", b).
- Num. 21: the house fixes the minimum and maximum of the later bets ("Apuestas
  Posteriores") as of the ante: a bet or raise (its new level) within them, when set.
- Num. 12, the second round: a bet is a multiple of the ante, at most seven antes; a player
  who passed may call or raise the last bet in his turn up to that maximum (a), or fold,
  losing the bets of both rounds (b).
- The round closes when nobody is left to act: every player still in has matched the
  level, or all passed.

Amounts are whole chips (num. 14: bets in chips only).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from controller.core.errors import RuleViolation
from controller.core.words import given, one_of

ACTIONS = ("pass", "bet", "call", "raise", "fold")
FIRST_ROUND_CAP = 3
"""Num. 8 c: a first-round bet is at most three times the ante."""
SECOND_ROUND_CAP = 7
"""Num. 12: a second-round bet is a multiple of the ante, at most seven times it."""


@dataclass(frozen=True)
class Action:
    """One player's action in a round: ``put`` the chips he added, ``level`` the round's
    level after it, ``total`` what he has put in this round."""

    box: int
    action: str
    put: int
    level: int
    total: int


@dataclass
class BettingRound:
    """Round ``number`` (1 or 2) of a hand whose ante is ``ante`` chips, among ``order``
    (the players still in, clockwise from Mano)."""

    number: int
    order: list[int]
    ante: int
    level: int = 0
    put: dict[int, int] = field(default_factory=dict)
    to_act: list[int] = field(default_factory=list)
    last_bettor: int | None = None
    later: tuple[int, int] | None = None  # num. 21: the later bets' (minimum, maximum)

    def __post_init__(self) -> None:
        self.put = {box: 0 for box in self.order}
        self.to_act = list(self.order)

    @property
    def article(self) -> str:
        return "num. 8" if self.number == 1 else "num. 12"

    @property
    def cap(self) -> int:
        """The highest level of this round, in chips (num. 8 c, num. 12)."""
        return (FIRST_ROUND_CAP if self.number == 1 else SECOND_ROUND_CAP) * self.ante

    @property
    def closed(self) -> bool:
        """Nobody is left to act: all matched the level, or all passed."""
        return not self.to_act

    @property
    def turn(self) -> int | None:
        """The box whose turn it is, None once the round is closed."""
        return self.to_act[0] if self.to_act else None

    def check(self, action: str, box: int, amount: Any) -> Action:
        """What ``action`` by ``box`` (with ``amount`` for ``bet`` and ``raise``) would do.

        Raises:
            RuleViolation: ``unknown_action``, ``not_in_hand``, ``out_of_turn``,
                ``bet_pending`` (pass with a bet to match), ``nothing_to_call``,
                ``nothing_to_fold``, ``bad_amount``, ``over_cap`` (num. 8 c, 12),
                ``not_a_multiple`` (num. 12), ``raise_too_small``.
        """
        if action not in ACTIONS:
            raise RuleViolation("unknown_action", f"{given(action)} is not one of "
                                f"{one_of(ACTIONS)}")
        if box not in self.put:
            raise RuleViolation("not_in_hand", f"box {box} is not in this round "
                                f"(players in: boxes {one_of(self.order, 'and')})")
        if box != self.turn:
            raise RuleViolation("out_of_turn", f"it is box {self.turn}'s turn, not box "
                                f"{box}'s: turns go clockwise from Mano ({self.article})")
        mine = self.put[box]
        if action == "pass":
            if self.level:
                raise RuleViolation("bet_pending", f"a bet of {self.level} is on the table: "
                                    f"call, raise or fold ({self.article})")
            return Action(box, action, 0, 0, mine)
        if action == "fold":
            if self.number == 1 and not self.level:
                raise RuleViolation("nothing_to_fold", "nothing is bet yet: pass (num. 8 a; "
                                    "who does not match a bet folds, num. 8 d)")
            return Action(box, action, 0, self.level, mine)
        if action == "call":
            if not self.level:
                raise RuleViolation("nothing_to_call", f"nothing is bet: pass or bet "
                                    f"({self.article})")
            return Action(box, action, self.level - mine, self.level, self.level)
        level = self._amount(action, amount)
        return Action(box, action, level - mine, level, level)

    def _amount(self, action: str, amount: Any) -> int:
        if not isinstance(amount, int) or isinstance(amount, bool) or amount <= 0:
            raise RuleViolation("bad_amount", f"{action} needs an amount, a whole number of "
                                f"chips: {given(amount)} (num. 14)")
        if action == "bet" and self.level:
            raise RuleViolation("bet_pending", f"a bet of {self.level} is on the table: "
                                f"raise it (amount: the new level), call or fold")
        if action == "raise":
            if not self.level:
                raise RuleViolation("nothing_to_call", "nothing is bet: bet (or pass)")
            if amount <= self.level:
                raise RuleViolation("raise_too_small", f"a raise to {amount} is not above "
                                    f"the bet of {self.level} (amount: the new level)")
        if self.number == 2 and amount % self.ante:
            raise RuleViolation("not_a_multiple", f"{action} of {amount}: a second-round bet "
                                f"is a multiple of the ante of {self.ante} (num. 12)")
        if self.later is not None:
            low, high = self.later
            if not low <= amount <= high:
                code = "below_minimum" if amount < low else "over_maximum"
                raise RuleViolation(code, f"{action} of {amount}: the house's later bets "
                                    f"(\"Apuestas Posteriores\") are {low} to {high} chips "
                                    "(num. 21)")
        if amount > self.cap:
            times = FIRST_ROUND_CAP if self.number == 1 else SECOND_ROUND_CAP
            where = "num. 8 c" if self.number == 1 else "num. 12"
            raise RuleViolation("over_cap", f"{action} of {amount} is over {times} times "
                                f"the ante of {self.ante}, {self.cap} ({where})")
        return amount

    def apply(self, act: Action) -> None:
        """Do ``act`` (checked by :meth:`check`)."""
        box = act.box
        self.to_act.remove(box)
        if act.action == "fold":
            self.order.remove(box)
            return
        self.put[box] = act.total
        if act.action in ("bet", "raise"):
            self.level = act.level
            self.last_bettor = box
            at = self.order.index(box)
            self.to_act = self.order[at + 1:] + self.order[:at]

    def leave(self, box: int) -> None:
        """``box`` is out of the hand out of turn (his hand void, num. 10-11): he no longer
        acts; what he put is returned by the payment, not here."""
        if box in self.order:
            self.order.remove(box)
        if box in self.to_act:
            self.to_act.remove(box)


def clockwise_from(mano: int, boxes: Sequence[int]) -> list[int]:
    """``boxes`` in their turn order: clockwise (increasing box numbers, box 1 after the
    last) from ``mano``, or from the first box after it when ``mano`` is not among them."""
    ordered = sorted(boxes)
    return [b for b in ordered if b >= mano] + [b for b in ordered if b < mano]
