"""The simulated Black Jack dealer and players on the simulated shoe (``sim.shoe_sim``), for
``table-controller simulate --table blackjack_plus|pot_luck`` and the daemon's embedded
default of both tables.

Pure and deterministic: everything is drawn from ``random.Random(seed)``; no I/O except
``write_trace``. What the dealer does, in order (times in seconds):

1. New decks (Art. 5): ``procedure_step`` show, turn, scramble, shuffle, cut, load, and one
   burn card read from the shoe.
2. Coups (Art. 7-10): ``open_bets``; main bets on one to all boxes (Pot Luck: each with
   its pool bet, and a bonus now and then), whole chips within the limits; ``no_more_bets``;
   then the cards, exactly those the rules ask for: a :class:`Blackjack` runs alongside and
   its ``next_hand()`` says where the next card goes, so no card is dealt that the rules do
   not need. After the deal, sometimes (``exposed_rate``) the dealer's second card was
   exposed by mistake (``second_card_exposed``); against an ace the dealer asks for
   insurance: some boxes take it (``insurance_rate``, at most half the bet) and he closes
   the question (``close_insurance``, Art. 10); then the players decide by a basic strategy
   (:mod:`controller.games.blackjack.strategy`): surrender (where the table takes it, before
   the box's first decision), split, double, hit, stand.
3. The cut card: a ``[Cut]`` line when the dealing reaches it; the coup is finished, then
   the count-out (Art. 4: the cards left in the shoe read, ``count_out_done``), the Art. 6
   procedure and a burn card before the next coup.

Optional noise (per card, default off): a misread the dealer corrects by hand (never the
dealer's face-down cards: entering them would show them), and reader warnings.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any, Final

from controller.cards.card import Card
from controller.cards.game import bet_fields
from controller.core.config import Config
from controller.core.contract import can
from controller.core.events import BetPlaced, DealerInput, Event
from controller.games.blackjack.config import BlackjackConfig
from controller.games.blackjack.game import Blackjack
from controller.games.blackjack.hands import DEALER, PlayerHand
from controller.games.blackjack.shoe import SEEDS, procedures
from controller.games.blackjack.strategy import decide
from controller.store.records import Record, unpack
from controller.trace import trace_from_objects
from controller.trace import write_trace as write_jsonl
from sim.shoe_sim import (
    CARD_PAUSE_S,
    DEFAULT_PORT,
    ShoeDealer,
    SimResult,
    check_settings,
)
from sim.shoe_sim import REFUSED_INPUTS as SHOE_REFUSED

REFUSED_INPUTS: Final = SHOE_REFUSED
"""The inputs of a person this simulated table cannot follow (``sim.daemon``)."""

CHIPS: Final = (1, 2, 5, 10, 20, 25, 50, 100, 200, 500, 1000, 5000)
"""Chip denominations a player stacks from."""
DAEMON_BATCH_COUPS: Final = 200
"""Coups the daemon's simulator plays when ``[simulator] spins`` is 0."""
DAEMON_MISREAD_RATE: Final = 0.01
DAEMON_WARNING_RATE: Final = 0.005


@dataclass(frozen=True)
class SimConfig:
    """Settings of the simulated table.

    Attributes:
        table: the table's section (``BlackjackConfig``: its name, decks, boxes, rules,
            Pot Luck's tables and limits).
        limits: (minimum, maximum) main bet, chips.
        misread_rate, warning_rate: per card (0-1): a misread corrected by hand, a reader
            warning line.
        insurance_rate: a box offered insurance takes it (0-1).
        exposed_rate: the dealer's second card is exposed by mistake (0-1, per coup).
        bonus_rate: a Pot Luck box places a bonus (0-1), when the table has a bonus table.
        port: the shoe's serial port in the config.
        count_out: the dealer counts out each shoe closed at the cut card (``[cards]``).

    Raises:
        ValueError: a setting the simulated dealer cannot work with.
    """

    table: BlackjackConfig
    limits: tuple[int, int] = (1, 1000)
    misread_rate: float = 0.0
    warning_rate: float = 0.0
    insurance_rate: float = 0.3
    exposed_rate: float = 0.03
    bonus_rate: float = 0.4
    port: str = DEFAULT_PORT
    count_out: bool = True

    def __post_init__(self) -> None:
        check_settings(self, ("misread_rate", "warning_rate", "insurance_rate",
                              "exposed_rate", "bonus_rate"))


class _Dealer(ShoeDealer):
    """The Black Jack dealer and his players on the simulated shoe."""

    def __init__(self, seed: int, cfg: SimConfig, start: float) -> None:
        table = cfg.table
        super().__init__(random.Random(seed), {"table": table.table, "decks": table.decks},
                         table.decks, table.cut_card_min_remaining, cfg.port, start,
                         cfg.count_out)
        self.cfg = cfg
        self.game = Blackjack(self._record, table, cfg.limits)

    def _record(self, record: Record, /, *, t: float | None = None) -> dict[str, Any]:
        type_, fields = unpack(record, t)
        return {"type": type_, **fields}

    def coup(self) -> None:
        game = self.game
        self.wait((1.0, 3.0))
        self.act("open_bets")
        self.place_bets()
        self.wait((0.5, 1.5))
        self.act("no_more_bets")
        after_deal = True
        while game.state != "coup_over":
            label = game.next_hand()
            if label is not None:
                self.deal(label)
            elif after_deal and game.state in ("insurance", "deciding"):
                self.after_deal()
                after_deal = False
            elif game.state == "insurance":
                self.insure()
            elif game.state == "deciding":
                self.decision()
            else:
                raise AssertionError(f"the simulator is stuck in state {game.state}")
        self.wait((2.0, 4.0))  # bets settled before the next coup

    def act(self, action: str, **args: Any) -> None:
        """A dealer input, into the trace and into the game alongside."""
        self.dealer(action, **args)
        self.game.dealer_input(DealerInput(self.t, action, args))

    def bet(self, kind: str, box: int, amount: int) -> None:
        self.wait((0.2, 0.8))
        bet = BetPlaced(self.t, kind, box, amount)
        self.put({"bet": kind, **{k: v for k, v in bet_fields(bet).items() if k != "kind"}})
        self.game.place_bet(bet)

    def stake(self, low: int, high: int) -> int:
        """A whole number of chips within (low, high): one denomination, one to three chips."""
        chips = [c for c in CHIPS if low <= c <= high] or [low]
        return min(high, self.rng.choice(chips) * self.rng.randint(1, 3))

    def place_bets(self) -> None:
        rng, table = self.rng, self.cfg.table
        count = rng.randint(1, table.boxes)
        for box in sorted(rng.sample(range(1, table.boxes + 1), count)):
            self.bet("main", box, self.stake(*self.cfg.limits))
            if table.pool is not None:
                self.bet("pool", box, self.stake(*table.pool_limits))
            if table.bonus and table.bonus.hands and rng.random() < self.cfg.bonus_rate:
                self.bet("bonus", box, self.stake(*table.bonus_limits))

    def deal(self, label: str) -> None:
        game, cfg = self.game, self.cfg
        face_down = label == DEALER and len(game.chart.coup.dealer) < 2
        self.wait(CARD_PAUSE_S)
        card = self.draw()
        if not face_down and self.rng.random() < cfg.misread_rate:
            self.misread()
            game.misread(self.t)
            self.wait((2.0, 5.0))  # the dealer looks at the card and types it in
            self.dealer("card", card=str(card))
            game.card(self.t, card, manual=True)
        else:
            self.read(card)
            game.card(self.t, card)
        self.reader_warning(cfg.warning_rate)

    def after_deal(self) -> None:
        """After the deal (Art. 8-9): an exposed second card now and then; without an ace
        up, the surrenders in box order, each before the box's first decision."""
        coup, rng = self.game.chart.coup, self.rng
        if rng.random() < self.cfg.exposed_rate:
            self.wait((0.5, 1.5))
            self.act("second_card_exposed")
        up = coup.up_card()
        if up.rank == "A" or not self.cfg.table.surrender:
            return
        for box in list(coup.boxes):
            hand = box.hands[0]
            if not hand.blackjack() and self._choice(hand, up, surrender=True) == "surrender":
                self.wait((0.5, 1.5))
                self.act("surrender", box=box.number)

    def insure(self) -> None:
        """Art. 10: the dealer asks for insurance; some boxes take it; he closes it."""
        coup, rng = self.game.chart.coup, self.rng
        for box in coup.boxes:
            half = box.bets["main"] // 2
            if half and rng.random() < self.cfg.insurance_rate:
                self.bet("insurance", box.number, rng.randint(1, half))
        self.wait((1.0, 2.0))
        self.act("close_insurance")

    def decision(self) -> None:
        chart = self.game.chart
        hand = chart.current()
        action = self._choice(hand, chart.coup.up_card(), surrender=False)
        self.wait((0.8, 2.5))
        self.act(action, box=hand.box)

    def _choice(self, hand: PlayerHand, up: Card, surrender: bool) -> str:
        allowed = {action: can(self.game.verify_input,
                               DealerInput(self.t, action, {"box": hand.box}))
                   for action in ("split", "double")}
        return decide(hand.cards, up, can_split=allowed["split"],
                      can_double=allowed["double"], can_surrender=surrender)


def simulate(coups: int, seed: int, config: SimConfig, start: float = 0.0) -> SimResult:
    """Simulate ``coups`` Black Jack coups from new decks (see the module doc).

    Args:
        coups: how many coups (at least 1).
        seed: seeds ``random.Random``; the same arguments give the same trace.
        config: the table's settings.
        start: the time of the first line, seconds.

    Raises:
        ValueError: ``coups`` < 1.
    """
    if coups < 1:
        raise ValueError(f"coups must be at least 1: {coups}")
    new_decks, cut_card, _ = procedures(SEEDS[config.table.table])
    dealer = _Dealer(seed, config, start)
    dealer.load_shoe(new_decks.dealer_steps())
    for number in range(coups):
        if number and dealer.shoe.cut_seen:
            dealer.reload_shoe(cut_card.dealer_steps())
        dealer.coup()
    return SimResult(dealer.objects, dealer.shoes, coups)


def sim_config_from(config: Config, port: str = DEFAULT_PORT, *,
                    misread_rate: float = DAEMON_MISREAD_RATE,
                    warning_rate: float = DAEMON_WARNING_RATE) -> SimConfig:
    """The simulator's settings for a table's config (its section and main-bet limits)."""
    return SimConfig(config.rules, (config.limits.min_bet, config.limits.max_bet),
                     misread_rate=misread_rate, warning_rate=warning_rate, port=port,
                     count_out=config.cards is None or config.cards.count_out)


def write_trace(config: Config, out: str, count: int, seed: int,
                scenarios: list[str] | None) -> tuple[str, str]:
    """``table-controller simulate --table blackjack_plus|pot_luck``: ``count`` clean coups
    written to ``out``, following the config's table (decks, boxes, rules, limits, Pot
    Luck's tables), so that replaying the trace under that config refuses nothing.

    Returns the words of ``simulate``'s summary line: every coup ends in its
    ``coup_result``; no misread or reader warning is injected, so no alarm is expected.
    """
    cfg = sim_config_from(config, misread_rate=0, warning_rate=0)
    write_jsonl(out, simulate(count, seed, cfg).objects)
    return f"{count} coup_result", "no fault injected (0 alarms)"


def simulated_events(config: Config, start: float, port: str = DEFAULT_PORT) -> list[Event]:
    """The daemon's simulated shoe and dealer: events from ``start`` (controller clock
    seconds), ``[simulator] spins`` coups (0: ``DAEMON_BATCH_COUPS``) with seed
    ``[simulator] seed``, checked as a trace file is. The events are shifted by the wall
    time their building took times ``[simulator] speed``, so the first are not overdue."""
    began = time.monotonic()
    sim = config.simulator
    coups = sim.spins or DAEMON_BATCH_COUPS
    objects = simulate(coups, sim.seed, sim_config_from(config, port)).objects
    events = trace_from_objects("shoe simulator", enumerate(objects, 1), config.games,
                                (port,)).events
    shift = start + (time.monotonic() - began) * sim.speed
    return [replace(event, t=event.t + shift) for event in events]


def daemon_events(config: Config, start: float, resume: Any,
                  table_state: Any = None) -> Iterator[list[Event]]:
    """The daemon's simulated shoe and dealer from ``start``, without what the journal holds
    already (``resume``: bytes read, inputs and bets journaled before a restart)."""
    from sim.daemon import resume_events

    yield resume_events(simulated_events(config, start, DEFAULT_PORT), resume)
