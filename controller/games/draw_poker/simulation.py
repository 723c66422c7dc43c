"""The simulated poker dealer and players on the simulated shoe (``sim.shoe_sim``), for
``table-controller simulate --table draw_poker`` and the daemon's embedded default.

Pure and deterministic: everything is drawn from ``random.Random(seed)``; no I/O except
``write_trace``. A :class:`~controller.games.draw_poker.game.DrawPoker` runs alongside and
says whose turn it is and which card is due, so every input of the trace is one the rules
take, in its moment.

Each hand (seed 003): four to six shuffles and the cut, by a player or the dealer (num. 2);
``open_bets``; two to five players post the agreed ante (num. 4); sometimes the Mano is
named; ``no_more_bets``; the deal (num. 7); the first round (num. 8); the draw (num. 9); the
second round (num. 12); the showdown comes by itself. Players play their cards: they keep
pairs and better, bet and raise on strong hands, call on fair ones, fold weak ones facing a
bet, draw to their groups.

So that every path occurs, each hand follows a *plan*: the first hands take the plans of
``PLANS`` in turn, later ones draw one at random (``PLAN_WEIGHTS``):

- ``play``: the players' own choices;
- ``mano_nula``: all pass in the first round (num. 8 b);
- ``fold_first``, ``fold_second``: a bet, and a fold, in the first or the second round
  (num. 8 d, 12 b);
- ``refused_card``: a card dealt face up, refused (num. 11);
- ``short_draw``, ``extra_card``: a replacement missing, or one too many for the last
  player to draw (num. 10);
- ``split``: two players dealt the same ranks in other suits (the deck stacked), who stand
  pat and share the pot after the 5%; three players and an odd ante, so a cent is odd
  (num. 18).
"""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any, Final

from controller.cards.card import Card
from controller.core.config import Config
from controller.core.events import BetPlaced, DealerInput, Event
from controller.games.draw_poker.game import DrawPoker
from controller.games.draw_poker.hand import FOLDED, IN, MAX_DISCARD
from controller.games.draw_poker.ranking import RANK_VALUES, Category, rank_hand
from controller.games.draw_poker.shoe import CUT_BY, MIN_SHUFFLES
from controller.store.records import Record, unpack
from controller.trace import trace_from_objects
from controller.trace import write_trace as write_jsonl
from sim.shoe_sim import (
    CARD_PAUSE_S,
    DEFAULT_PORT,
    STEP_PAUSE_S,
    ShoeDealer,
    TraceObject,
    check_settings,
)
from sim.shoe_sim import REFUSED_INPUTS as SHOE_REFUSED

REFUSED_INPUTS: Final = {k: v for k, v in SHOE_REFUSED.items() if k != "count_out_done"}
"""The inputs of a person this simulated table cannot follow (``sim.daemon``); a deck
gathered before every hand has no count-out, so the table itself refuses that input."""

PLANS: Final = ("play", "mano_nula", "fold_first", "fold_second", "refused_card",
                "short_draw", "extra_card", "split")
PLAN_WEIGHTS: Final = (60, 6, 8, 8, 4, 4, 4, 6)
ANTES: Final = (1, 2, 5, 10, 25, 50, 100)
"""Antes the players agree on (chips)."""
DAEMON_BATCH_HANDS: Final = 100
"""Hands the daemon's simulator plays when ``[simulator] spins`` is 0."""
ACT_PAUSE_S: Final = (0.6, 2.0)
"""Seconds a player takes to speak."""


@dataclass(frozen=True)
class SimConfig:
    """Settings of the simulated table: ``limits`` (house minimum, maximum) of the ante in
    chips (num. 4, 21); ``port`` the shoe's serial port.

    Raises:
        ValueError: limits not 1 <= minimum <= maximum.
    """

    limits: tuple[int, int] = (1, 1000)
    port: str = DEFAULT_PORT

    def __post_init__(self) -> None:
        check_settings(self, ())


class _Dealer(ShoeDealer):
    """The poker dealer and his players on the simulated shoe."""

    def __init__(self, seed: int, cfg: SimConfig, start: float) -> None:
        super().__init__(random.Random(seed), {"table": "draw_poker"}, 1, 0, cfg.port, start)
        self.cfg = cfg
        self.records: list[tuple[str, dict[str, Any]]] = []
        self.game = DrawPoker(self._record, cfg.limits)
        self.plan = "play"
        self.target: int | None = None  # the box a plan's event happens to

    def _record(self, record: Record, /, *, t: float | None = None) -> dict[str, Any]:
        type_, fields = unpack(record, t)
        self.records.append((type_, fields))
        return {"type": type_, **fields}

    # -- one hand ----------------------------------------------------------------------
    def hand(self, plan: str) -> None:
        self.plan, self.target = plan, None
        self.shuffle_and_cut()
        seats = self.seats(plan)
        ante = self.ante(odd=plan == "split")
        self.wait((1.0, 3.0))
        self.act("open_bets")
        for box in seats:
            self.wait((0.3, 1.0))
            self.put({"bet": "ante", "box": box, "amount": ante})
            self.game.place_bet(BetPlaced(self.t, "ante", box, ante))
        if plan != "split" and self.rng.random() < 0.3:
            self.act("mano", box=self.rng.choice(seats))
        self.wait((0.5, 1.5))
        self.act("no_more_bets")
        if plan == "split":
            self.stack_split(seats)
        if plan in ("refused_card", "short_draw", "extra_card"):
            self.target = self.rng.choice(seats)
        self.deal()
        while self.game.under_way():
            drawer = self.game.hand.next_drawer()
            if self.game.state == "draw" and drawer is not None:
                self.discard(drawer)
            else:
                self.speak()
        self.wait((2.0, 4.0))  # the payment, the cards gathered

    def shuffle_and_cut(self) -> None:
        """Num. 2: four shuffles at least, then the cut offered to a player."""
        for _ in range(MIN_SHUFFLES + self.rng.choice((0, 0, 1, 2))):
            self.wait(STEP_PAUSE_S)
            self.dealer("procedure_step", step="shuffle")
        self.wait(STEP_PAUSE_S)
        self.dealer("procedure_step", step="cut", by=self.rng.choice((*CUT_BY, "player")))
        self.fill_shoe(cut_card=False)

    def seats(self, plan: str) -> list[int]:
        """Two to five players (num. 4); three or more when one hand is voided; an odd
        number for a split, whose antes (odd, times odd) leave an odd cent after the 5%."""
        if plan == "split":
            count = self.rng.choice((3, 5))
        else:
            fewest = 3 if plan in ("refused_card", "short_draw", "extra_card") else 2
            count = self.rng.randint(fewest, 5)
        return sorted(self.rng.sample(range(1, 6), count))

    def ante(self, odd: bool) -> int:
        low, high = self.cfg.limits
        choices = [a for a in ANTES if low <= a <= high and (a % 2 or not odd)] or [low]
        return self.rng.choice(choices)

    def act(self, action: str, **args: Any) -> None:
        """A dealer input, put in the trace and given to the game alongside."""
        self.dealer(action, **args)
        self.game.dealer_input(DealerInput(self.t, action, args))

    def stack_split(self, seats: list[int]) -> None:
        """Deal the first two players the same five ranks in other suits (no straight, no
        flush: a high-card hand), by arranging the top of the shuffled deck."""
        shoe = self.shoe
        values = sorted(self.rng.sample(range(2, 15), 5), reverse=True)
        while values[0] - values[4] == 4 or values == [14, 5, 4, 3, 2]:
            values = sorted(self.rng.sample(range(2, 15), 5), reverse=True)
        ranks = [r for r, v in RANK_VALUES.items() if v in values]
        suits = ["S", "H", "D", "C"]
        first = [Card(r, suits[i % 4]) for i, r in enumerate(ranks)]
        second = [Card(r, suits[(i + 1) % 4]) for i, r in enumerate(ranks)]
        rest = [c for c in shoe.cards if c not in first and c not in second]
        shoe.cards[:] = first + second + rest
        self.target = seats[0]

    # -- the cards ----------------------------------------------------------------------
    def deal(self) -> None:
        """Num. 7: the cards the game says are due; a refused card face up (num. 11)."""
        while (label := self.game.next_hand()) is not None and self.game.state == "dealing":
            card = self.card()
            box = int(label.split()[1])
            held = len(self.game.hand.seats[box].cards)
            if self.plan == "refused_card" and box == self.target and held == 2:
                self.wait((1.0, 2.0))  # dealt face up: the player refuses it
                self.act("refuse_card", box=box, card=str(card))

    def card(self) -> Card:
        self.wait(CARD_PAUSE_S)
        card = self.draw()
        self.read(card)
        self.game.card(self.t, card)
        return card

    def discard(self, box: int) -> None:
        """Num. 9: the player throws what does not help his hand; his replacements follow."""
        hand = self.game.hand
        if self.plan == "extra_card":
            # One too many for the last to draw: a card read while a discard can still
            # come waits for it (controller.cards.waiting), so num. 10 voids only him.
            left = [b for b in hand.draw_order if b not in hand.drawn
                    and hand.seats[b].status == IN]
            self.target = box if left == [box] else None
        cards = hand.seats[box].cards
        thrown = [] if self.plan == "split" else _to_throw(cards)
        if self.plan in ("short_draw", "extra_card") and box == self.target and not thrown:
            thrown = [min(cards, key=lambda c: RANK_VALUES[c.rank])]
        self.wait(ACT_PAUSE_S)
        self.act("discard", box=box, cards=[str(c) for c in thrown])
        owed = len(thrown)
        if box == self.target and self.plan == "short_draw":
            owed -= 1  # the dealer gives one card too few: the next move voids the hand
        elif box == self.target and self.plan == "extra_card":
            owed += 1  # one too many: the hand is void at once
        for _ in range(owed):
            if not self.game.under_way():
                return
            self.card()

    # -- the rounds --------------------------------------------------------------------
    def speak(self) -> None:
        """The player whose turn it is acts (num. 8, 12)."""
        hand = self.game.hand
        if self.game.state == "draw":  # the draw is over: the second round starts
            number, level, order = 2, 0, [b for b in hand.live() if b != hand.short_drawer()]
            box, mine = order[0], 0
        else:
            rnd = hand.round
            assert rnd is not None and rnd.turn is not None
            number, level, box, mine = rnd.number, rnd.level, rnd.turn, rnd.put[rnd.turn]
        assert hand.ante is not None
        action, amount = self.choose(number, level, box, mine, hand.ante)
        self.wait(ACT_PAUSE_S)
        self.act(action, box=box, **({"amount": amount} if amount else {}))

    def choose(self, number: int, level: int, box: int, mine: int,
               ante: int) -> tuple[str, int]:
        """An action of box ``box`` in round ``number`` facing ``level`` (he has put
        ``mine``): the plan's, else the player's own by the strength of his cards."""
        rng, plan = self.rng, self.plan
        cap = (3 if number == 1 else 7) * ante
        mano = self.game.hand.live()[0]
        scripted = {"fold_first": 1, "fold_second": 2, "split": 1}.get(plan)
        if plan == "mano_nula" and number == 1:
            return "pass", 0
        if number == 1 and plan in ("fold_second", "short_draw", "extra_card"):
            # Everyone stays for the draw: Mano bets, the others call.
            return ("call", 0) if level else ("bet", ante) if box == mano else ("pass", 0)
        if number == scripted:
            if not level:
                return ("bet", self.amount(number, ante, cap)) if box == mano else ("pass", 0)
            if plan == "split":
                keeps = box in (self.target, self._second())
                return ("call", 0) if keeps else ("fold", 0)
            # The first player facing the bet folds (num. 8 d, 12 b); the others call.
            folded = any(seat.status == FOLDED for seat in self.game.hand.seats.values())
            return ("call", 0) if folded else ("fold", 0)
        if plan == "split":
            return ("call", 0) if level else ("pass", 0)
        strength = rank_hand(self.game.hand.seats[box].cards).category
        if not level:
            if rng.random() < (0.9 if strength >= Category.two_pair else 0.6 if strength
                               else 0.15):
                return "bet", self.amount(number, ante, cap)
            return "pass", 0
        if level < cap and rng.random() < (0.5 if strength >= Category.two_pair else 0.15
                                            if strength else 0.0):
            step = 1 if number == 1 else ante
            return "raise", level + step * rng.randint(1, (cap - level) // step)
        if strength >= Category.one_pair or rng.random() < 0.4:
            return "call", 0
        return "fold", 0

    def amount(self, number: int, ante: int, cap: int) -> int:
        """A bet: in the first round any whole amount up to three antes (num. 8 c), in the
        second a multiple of the ante up to seven (num. 12)."""
        if number == 1 and self.rng.random() < 0.5:
            return self.rng.randint(1, cap)
        return ante * self.rng.randint(1, cap // ante)

    def _second(self) -> int:
        return sorted(self.game.hand.seats)[1]


def _to_throw(cards: list[Card]) -> list[Card]:
    """The cards a player throws: none with a straight, a flush or better; else all but his
    groups (pairs, trios, four); with nothing, all but his two highest cards (at most 4)."""
    if rank_hand(cards).category >= Category.straight:
        return []
    counts = Counter(c.rank for c in cards)
    grouped = [c for c in cards if counts[c.rank] > 1]
    if grouped:
        return [c for c in cards if counts[c.rank] == 1][:MAX_DISCARD]
    ordered = sorted(cards, key=lambda c: RANK_VALUES[c.rank], reverse=True)
    return ordered[2:2 + MAX_DISCARD]


def simulate(hands: int, seed: int, config: SimConfig | None = None,
             start: float = 0.0) -> list[TraceObject]:
    """The CONTRACT §2 objects of ``hands`` simulated hands (see the module doc); the first
    is the meta line ``{"table": "draw_poker"}``; times in seconds from ``start``.

    Raises:
        ValueError: ``hands`` < 1.
    """
    if hands < 1:
        raise ValueError(f"hands must be at least 1: {hands}")
    dealer = _Dealer(seed, config or SimConfig(), start)
    for number in range(hands):
        plan = PLANS[number] if number < len(PLANS) else dealer.rng.choices(
            PLANS, weights=PLAN_WEIGHTS)[0]
        dealer.hand(plan)
    return dealer.objects


def sim_config_from(config: Config, port: str = DEFAULT_PORT) -> SimConfig:
    """The simulator's settings for a table's config (its limits)."""
    return SimConfig(limits=(config.limits.min_bet, config.limits.max_bet), port=port)


def write_trace(config: Config, out: str, count: int, seed: int,
                scenarios: list[str] | None) -> tuple[str, str]:
    """``table-controller simulate --table draw_poker --coups N``: ``count`` hands written to
    ``out``, within the config's limits (so replaying it under that config refuses no ante).

    Returns the words of ``simulate``'s summary line: every hand ends in its
    ``hand_result``; no misread or reader warning is injected, so no alarm is expected.
    """
    write_jsonl(out, simulate(count, seed, sim_config_from(config)))
    return f"{count} hand_result", "no fault injected (0 alarms)"


def daemon_events(config: Config, start: float, resume: Any,
                  table_state: Any = None) -> Iterator[list[Event]]:
    """The daemon's simulated shoe, dealer and players: ``[simulator] spins`` hands (0:
    ``DAEMON_BATCH_HANDS``) with seed ``[simulator] seed``, checked as a trace file is,
    without what the journal holds already (``resume``), from ``start`` (seconds of the
    controller clock) plus the wall time the building took at ``[simulator] speed``: events
    already overdue would be played in a burst, and a dealer input, posted directly, would
    overtake the card it follows on its way through the pseudo-terminal."""
    from sim.daemon import resume_events

    began = time.monotonic()
    sim = config.simulator
    objects = simulate(sim.spins or DAEMON_BATCH_HANDS, sim.seed, sim_config_from(config))
    events = trace_from_objects("poker simulator", enumerate(objects, 1), config.games,
                                (DEFAULT_PORT,))
    resumed = resume_events([replace(event, t=event.t + start) for event in events.events],
                            resume)
    shift = (time.monotonic() - began) * sim.speed
    yield [replace(event, t=event.t + shift) for event in resumed]
