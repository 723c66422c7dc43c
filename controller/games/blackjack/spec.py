"""The registry entries of the two Black Jack tables (``plus.SPEC``, ``pot_luck.SPEC``): one
package, two variants that differ by their regulation (seed 002 or 004), their bets and
their config section."""

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
from controller.games.blackjack import config, log, recall, records, status
from controller.games.blackjack.game import BET_RECORD
from controller.games.blackjack.shoe import SEEDS

_HERE = "controller.games.blackjack"
TITLES = {"blackjack_plus": "Black Jack Plus", "pot_luck": "Pot Luck Black Jack"}


def _make(ctx: GameContext) -> Any:
    """The card table of a Black Jack game: the shoe of its seed's Art. 4-6, its coup."""
    from controller.cards.table import CardTable
    from controller.games.blackjack.game import Blackjack
    from controller.games.blackjack.shoe import shoe_rules

    own, limits = ctx.config.rules, ctx.config.limits

    def make_game(emit: Emit) -> Blackjack:
        return Blackjack(emit, own, (limits.min_bet, limits.max_bet))

    return CardTable(ctx.config, ctx.emit, make_game,
                     shoe_rules(own.table, own.decks, own.cut_card_min_remaining))


def _inputs() -> tuple[InputSpec, ...]:
    box = (ArgSpec("box", "box number"),)
    return (
        InputSpec("open_bets", "start a coup: bets open (Art. 7)"),
        InputSpec("no_more_bets", "close bets and deal (Art. 7-8)"),
        InputSpec("close_insurance", "the dealer closes the insurance question: the "
                  "decisions begin (Art. 10)"),
        InputSpec("second_card_exposed", "the dealer's second card was shown by mistake: it "
                  "is the up card (Art. 8)"),
        InputSpec("surrender", "the box withdraws for half its bet, before its first "
                  "decision (Art. 9)", box),
        InputSpec("hit", "a card to the box's hand", box),
        InputSpec("stand", "the box's hand stands (Art. 8)", (*box, ArgSpec(
            "by", "dealer (default), or inspector: the layout checked, a card that waits "
            "is no hand's", required=False))),
        InputSpec("double", "the box's hand doubles: one card, then stands", box),
        InputSpec("split", "the box's pair splits into two hands", box),
    )


def _pool_at(start: dict[str, Any]) -> dict[str, Any]:
    """Pot Luck's pool as it stood at an exported trace's start (seed 004 Art. 7: it carries
    from coup to coup): the balance its first ``coup_start`` opened with."""
    if "pool_balance" not in start:
        return {}
    return {"pool": {"opening_balance": start["pool_balance"]}}


def make_spec(table: str) -> GameSpec:
    """The ``GameSpec`` of ``blackjack_plus`` or ``pot_luck``."""
    seed = SEEDS[table]
    bets = [BetSpec("main", "the box's bet, before the first card (Art. 7)", CONSENT)]
    markers: tuple[str, ...] = ("dealer_turn", "shoe_procedure")
    if table == "pot_luck":
        bets += [BetSpec("pool", "the box's pool bet, required with its bet (Art. 7)",
                         CONSENT),
                 BetSpec("bonus", "the optional bonus (Art. 7)", CONSENT)]
        markers = ("pool_balance", *markers)
    bets.append(BetSpec("insurance", "up to half the box's bet, when the dealer's up card is "
                        "an ace, until close_insurance (seed 002 Art. 10)", CONSENT))
    own = GameSpec(
        name=table,
        title=TITLES[table],
        seed=seed,
        config_section=table,
        load_config=config.loader(table),
        check_config=config.check_config,
        check_daemon=config.check_daemon,
        bets=tuple(bets),
        inputs=_inputs(),
        make=_make,
        status=status.status,
        recall=RecallSpec(start="coup_start", number="coup", results=("coup_result",),
                          markers=markers, summary=recall.summary, detail=recall.detail),
        simulate=f"{_HERE}.simulation:write_trace",
        daemon_simulator=f"{_HERE}.simulation:daemon_events",
        analyze=f"{_HERE}.analysis:command",
        stats=f"{_HERE}.stats:STATS",
        log={name: None for name in ("coup_start", "coup_result", "decision", "pool_balance",
                                     "box_refused")},
        log_words=log.WORDS,
        bet_record=BET_RECORD,
        records=records.RECORDS,
        evidence_window=window_finder("coup_start", "coup_result", "coup", settings=_pool_at),
        trace_meta=config.as_meta,
        display=f"{_HERE}.display:BlackjackView",
    )
    return card_spec(
        own, tags=records.TAGS, cut_card=True,
        procedure_step=procedure_step_input(f"a step of the shoe procedure (seed {seed} "
                                            "Art. 5-6)", "show, turn, scramble, shuffle, "
                                            "cut, load"),
        new_shoe=new_shoe_input(f"replace the decks (seed {seed} Art. 4)"))
