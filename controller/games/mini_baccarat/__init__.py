"""Mini-Bacará (seed 000, Uruguay decree 217/978, applying Punto y Banca decree 526/977).

The registry entry of the game; its parts are the modules of this package (README.md of
``controller/games`` maps each article to its module).
"""

from __future__ import annotations

from typing import Any

from controller.cards.consent import FIELDS as CONSENT
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
from controller.games.mini_baccarat import config, log, recall, records, status
from controller.games.mini_baccarat.rules import BET_RECORD


def _make(ctx: GameContext) -> Any:
    """The card table of a Mini-Bacará game: the shoe of seed 002 Art. 4-6, the coup of
    seed 000."""
    from controller.cards.table import CardTable
    from controller.games.mini_baccarat.game import MiniBaccarat
    from controller.games.mini_baccarat.shoe import shoe_rules

    mini, limits = ctx.config.rules, ctx.config.limits

    def make_game(emit: Emit) -> MiniBaccarat:
        return MiniBaccarat(emit, mini.decks, mini.insurance_pays_on,
                            (limits.min_bet, limits.max_bet))

    return CardTable(ctx.config, ctx.emit, make_game,
                     shoe_rules(mini.decks, mini.cut_card_min_remaining))


_OWN = GameSpec(
    name="mini_baccarat",
    title="Mini-Bacará",
    seed="000",
    config_section="mini_baccarat",
    load_config=config.load_config,
    check_config=config.check_config,
    bets=(
        BetSpec("punto", "on the box's hand (Art. 4-5), before the first card", CONSENT),
        BetSpec("banca", "on the Banca against the box (Art. 4-5), before the first card",
                CONSENT),
        BetSpec("insurance", "up to half the box's Punto bet, when the Banca's first card is "
                "a nine (Art. 11)", CONSENT),
    ),
    inputs=(
        InputSpec("open_bets", "start a coup: bets open (Art. 4)"),
        InputSpec("no_more_bets", "close bets; the boxes in play are those with bets", (
            ArgSpec("boxes", "list of box numbers, e.g. [1,3]", required=False),)),
        InputSpec("five_choice", "a box on five draws or stands (Art. 8)", (
            ArgSpec("box", "box number"), ArgSpec("choice", "draw or stand"),
            ArgSpec("by", "dealer (default), or inspector for a coup held for him",
                    required=False))),
    ),
    make=_make,
    status=status.status,
    recall=RecallSpec(start="coup_start", number="coup", results=("coup_result",),
                      markers=("shoe_procedure",),
                      summary=recall.summary, detail=recall.detail),
    simulate="controller.games.mini_baccarat.simulation:write_trace",
    stats="controller.games.mini_baccarat.stats:STATS",
    daemon_simulator="controller.games.mini_baccarat.simulation:daemon_events",
    analyze="controller.games.mini_baccarat.analysis:command",
    # A box's result before its settlements (Art. 9 g), the coup's after them.
    log={name: None for name in ("coup_start", "box_result", "coup_result")},
    log_words=log.WORDS,
    bet_record=BET_RECORD,
    records=records.RECORDS,
    evidence_window=window_finder("coup_start", "coup_result", "coup"),
    display="controller.games.mini_baccarat.display:MiniBaccaratView",
)
SPEC = card_spec(
    _OWN, tags=records.TAGS, cut_card=True,
    procedure_step=procedure_step_input("a step of the shoe procedure (seed 002 Art. 5-6)",
                                        "show, turn, scramble, shuffle, cut, load"),
    new_shoe=new_shoe_input("replace the decks (seed 002 Art. 4)"))
"""Mini-Bacará's entry: its own parts, and the card core's (``controller.cards.spec``)."""
