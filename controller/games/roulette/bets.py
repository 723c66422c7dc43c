"""Bets at the roulette table: when and where they are taken, and their records (seed 001
Art. 13 payouts, Art. 16 limits; CONTRACT §2 ``bet``, §3 ``settlement``).

The layout's own rules (the bets there are, what each covers and pays: Art. 13) are
:mod:`controller.games.roulette.layout`'s. Here the table's: a bet is taken while bets are
open or the ball runs before "no va más", on a box the table seats (``[roulette] boxes``),
within the limits in force (Art. 16); a bet on an invalid throw is returned (RULES.md
Art. 13 decision).
"""

from __future__ import annotations

from typing import Any

from controller.core.config import Limits
from controller.core.errors import RuleViolation
from controller.core.events import BetPlaced
from controller.games.roulette.layout import Layout, RouletteBet, make_bet, push, settle
from controller.games.roulette.records import Bet
from controller.store.records import ABSENT, Absent
from controller.store.shared import Settlement
from controller.trace import show

BETTING_STATES = ("bets_open", "ball_in_play")
"""Round states in which bets are taken (until "no va más")."""


def check_bet(bet: BetPlaced, state: str, layout: Layout, seats: int, limits: Limits
              ) -> RouletteBet:
    """The bet ``bet`` as placed on ``layout``, if the table takes it now.

    Args:
        bet: the bet input (``amount`` in chips).
        state: the round's state (:mod:`controller.games.roulette.round`).
        layout: the table's layout (``layout_for``).
        seats: the boxes the table seats (``[roulette] boxes``: boxes 1..seats).
        limits: the limits in force (Art. 16; whole chips).

    Raises:
        RuleViolation: code ``bets_not_open``, ``no_such_box``, ``outside_limits``, or the
            layout's (``unknown_bet_kind``, ``malformed_bet``: Art. 13); its message is the
            text of the ``bet_refused`` alarm, naming the bet and the rule.
    """
    if state not in BETTING_STATES:
        raise RuleViolation("bets_not_open", f"{bet.kind} on box {bet.box}: bets are not open "
                            f"(table {state})")
    if not 1 <= bet.box <= seats:
        raise RuleViolation("no_such_box", f"no_such_box: {bet.kind} on box {show(bet.box)}: "
                            f"this table seats {seats} (boxes 1-{seats}, [roulette] boxes)")
    try:
        numbers = bet.get("numbers")
        placed = make_bet(layout, bet.kind, bet.box, bet.amount,
                          list(numbers) if numbers is not None else None, bet.get("which"))
        if not limits.min_bet <= bet.amount <= limits.max_bet:
            raise RuleViolation("outside_limits", f"{bet.kind} of {bet.amount} chips on box "
                                f"{bet.box}: table limits are {limits.min_bet}-{limits.max_bet}")
    except RuleViolation as exc:
        raise RuleViolation(exc.code, f"{exc.code}: {exc.message}") from None
    return placed


def bet_record(bet: BetPlaced, game: int) -> Bet:
    """The ``bet`` record of ``bet`` taken for ``game``: every field of the bet input but
    its time (``kind``, ``box``, ``amount``, and ``numbers`` or ``which`` when given)."""
    numbers, which = bet.get("numbers"), bet.get("which")
    return Bet(game=game, kind=bet.kind, box=bet.box, amount=bet.amount,
               numbers=ABSENT if numbers is None else list(numbers),
               which=ABSENT if which is None else which)


def bet_input(bet: BetPlaced) -> dict[str, Any]:
    """Every field of the bet input (CONTRACT §2 ``bet``) but its time: ``kind``, ``box``,
    ``amount``, and ``numbers`` or ``which`` when given. The journal holds each bet input
    once: in its ``bet`` record when it is taken, in its ``bet_refused`` alarm when not."""
    return bet.input()


def bet_fields(bet: RouletteBet) -> dict[str, Any]:
    """The fields of a placed bet beyond box, kind and amount: ``numbers`` or ``which``."""
    fields: dict[str, Any] = {}
    if bet.numbers:
        fields["numbers"] = list(bet.numbers)
    if bet.which is not None:
        fields["which"] = bet.which
    return fields


def bet_key(record: dict[str, Any]) -> tuple[Any, ...]:
    """What a ``bet`` record and its ``settlement`` record share (game, box, the bet)."""
    return (record["game"], record["box"], record["kind"], record["amount"],
            tuple(record.get("numbers") or ()), record.get("which"))


def settlement(bet: RouletteBet, number: str | None, game: int,
               note: str | Absent = ABSENT) -> Settlement:
    """The ``settlement`` record of ``bet`` for ``game`` on the winning pocket ``number``
    (None: the throw was invalid, the stake is returned): outcome, payout in chips (Art.
    13), and why it was settled so (``note``), if said."""
    outcome, payout = settle(bet, number) if number is not None else push(bet)
    return Settlement(game=game, box=bet.box, kind=bet.kind, amount=bet.amount,
                      outcome=outcome, payout=payout,
                      numbers=list(bet.numbers) if bet.numbers else ABSENT,
                      which=ABSENT if bet.which is None else bet.which, note=note)
