"""Draw poker (seed 003, Montevideo, Digesto Departamental, Reglamento de Poker).

The registry entry of the game. Its modules, by the seed's paragraphs ("num. 1" to "num. 22"):

- ``shoe``: the deck (num. 1) and the shuffles and cut before each hand (num. 2);
- ``hand``: seats, antes and cards (num. 3-7, 9-11); ``betting``: the rounds (num. 8, 12);
- ``chart``: the hand as a statechart; ``game``: the card game its card table deals;
- ``ranking``: the value of a hand (num. 16-18); ``payment``: the 5% and the shares
  (num. 15, 18-19); ``conclusion``: the showdown and the records of the hand's end;
- ``analysis``: the census of the 2,598,960 hands (``tablectl analyze draw_poker``);
- ``config``, ``recall``, ``status``, ``simulation`` (the simulated dealer and players).
"""

from __future__ import annotations

from typing import Any

from controller.cards.evidence import window_finder
from controller.cards.spec import card_spec, new_shoe_input, procedure_step_input
from controller.core.contract import (
    ArgSpec,
    BetSpec,
    Emit,
    GameContext,
    GameSpec,
    InputSpec,
    RecallSpec,
)
from controller.games.draw_poker import config, log, recall, records, status
from controller.games.draw_poker.chart import BET_RECORD


def _make(ctx: GameContext) -> Any:
    """The card table of a poker game: one deck shuffled before each hand (num. 1-2)."""
    from controller.cards.table import CardTable
    from controller.games.draw_poker.game import DrawPoker
    from controller.games.draw_poker.shoe import shoe_rules

    limits, later = ctx.config.limits, ctx.config.rules.later_limits

    def make_game(emit: Emit) -> DrawPoker:
        return DrawPoker(emit, (limits.min_bet, limits.max_bet), later)

    return CardTable(ctx.config, ctx.emit, make_game, shoe_rules())


def _box_input(action: str, help_: str, *more: ArgSpec) -> InputSpec:
    return InputSpec(action, help_, (ArgSpec("box", "box number"), *more))


_OWN = GameSpec(
    name="draw_poker",
    title="Draw poker",
    seed="003",
    config_section="draw_poker",
    load_config=config.load_config,
    check_config=config.check_config,
    bets=(BetSpec("ante", "the ante (luz, Primera Apuesta) of a player, agreed for the hand, "
                  "at least the house minimum (num. 4)"),),
    inputs=(
        InputSpec("open_bets", "start a hand: antes open (num. 4), after the shuffles"),
        InputSpec("no_more_bets", "\"no va más\": the deal begins (num. 5)"),
        _box_input("mano", "the player who speaks first (box 1 unless said), before the "
                   "first round (num. 8)"),
        _box_input("pass", "pass, while nobody has bet in the round (num. 8 a, 12 a)"),
        _box_input("bet", "bet (num. 8 c: at most 3 antes; num. 12: multiples of the ante, "
                   "at most 7)", ArgSpec("amount", "chips")),
        _box_input("call", "match the bet (num. 8 c, 12 a)"),
        _box_input("raise", "raise the bet to a new level, up to the cap (num. 8 c, 12 a)",
                   ArgSpec("amount", "the new level, chips")),
        _box_input("fold", "leave the hand, losing what he bet (num. 8 d, 12 b)"),
        _box_input("discard", "the player's draw: the cards he throws, 0 to 4 (num. 9)",
                   ArgSpec("cards", "list of cards, e.g. [\"7H\",\"2C\"]; [] stands pat")),
        _box_input("refuse_card", "the player refuses a card dealt face up: his hand is void, "
                   "his stake returned (num. 11)",
                   ArgSpec("card", "the card dealt face up, e.g. 7H", required=False)),
    ),
    make=_make,
    status=status.status,
    recall=RecallSpec(start="hand_start", number="hand", results=("hand_result",),
                      markers=("round_action", "draw_start"),
                      summary=recall.summary, detail=recall.detail),
    simulate="controller.games.draw_poker.simulation:write_trace",
    stats="controller.games.draw_poker.stats:STATS",
    daemon_simulator="controller.games.draw_poker.simulation:daemon_events",
    analyze="controller.games.draw_poker.analysis:command",
    log={name: None for name in ("hand_start", "bets_closed", "round_action", "draw",
                                 "hand_void", "mano_nula", "rake", "hand_result")},
    log_words=log.WORDS,
    bet_record=BET_RECORD,
    records=records.RECORDS,
    # The deck is gathered and shuffled before every hand (num. 2): a hand's raw inputs
    # start after the last hand's end; its ante limits are its hand_start's.
    evidence_window=window_finder("hand_start", "hand_result", "hand",
                                  fresh=("decks_changed", "game_finished"),
                                  limits=("min_ante", "max_ante")),
    display="controller.games.draw_poker.display:DrawPokerView",
)
SPEC = card_spec(
    _OWN, tags=records.TAGS, cut_card=False,
    procedure_step=procedure_step_input(
        "a shuffle (four at least) or the cut (seed 003 num. 2)", "shuffle or cut",
        "the cut: box 3 or player (who cut), dealer (declined)"),
    new_shoe=new_shoe_input("replace the deck (num. 1)"))
"""Draw poker's entry: its own parts, and the card core's (``controller.cards.spec``)."""
