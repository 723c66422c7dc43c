"""Roulette (seed 001, Peru 1999: Art. 12 invalid throws, Art. 13 payouts, Art. 14-16).

The registry entry of the game (``SPEC``). Where each rule is, by article:

- Art. 12 (a-g), "tiro no válido": every verdict in ``art12``; measured by the wheel's
  tracker behind the seam ``wheel``, chosen by ``[roulette] wheel_source`` (the GPIO wheel:
  ``gpio_wheel``, its (c) wait in ``gpio_wheel.suspended_wait``; an automated wheel's status
  lines over serial: ``serial_wheel``, issue 12); the thresholds in ``config``.
- Art. 13, "escala de pagos": the layout, bets and payouts in ``layout``; when a bet is
  taken, and its settlement, in ``bets``.
- Art. 14, a disputed game recalled in full: ``recall``.
- Art. 16, limits changed after the game: ``game`` (``set_limits``), ``recovery``.
- The round ("jugada") and held spins (CONTRACT §5): ``round``, ``game``; a restart:
  ``recovery``; the simulated table: ``simulation``.
"""

from __future__ import annotations

from typing import Any

from controller.core.contract import (
    ArgSpec,
    BetField,
    BetSpec,
    GameContext,
    GameSpec,
    InputSpec,
    RecallSpec,
)
from controller.games.roulette import config, evidence, log, recall, records, status
from controller.games.roulette.layout import BET_KINDS, NUMBER_COUNTS, WHICH_KINDS


def _make(ctx: GameContext) -> Any:
    from controller.games.roulette.game import RouletteGame

    return RouletteGame(ctx.config, ctx.emit, ctx.schedule, ctx.now)


_NUMBERS = BetField("numbers", "the numbers it covers, e.g. 17 20 (00: double zero)",
                    many=True)
_SPIN = ArgSpec("spin", "the held spin decided, e.g. 12 (needed when several are parked)",
                required=False)
_WHICH = BetField("which", "which column or dozen: 1, 2 or 3", type=int)


def _bet(kind: str) -> BetSpec:
    if kind in NUMBER_COUNTS:
        count = NUMBER_COUNTS[kind]
        return BetSpec(kind, f"on {count} number{'s' if count > 1 else ''}", (_NUMBERS,))
    if kind in WHICH_KINDS:
        return BetSpec(kind, "on a column or a dozen", (_WHICH,))
    return BetSpec(kind, "an even-money bet")


SPEC = GameSpec(
    name="roulette",
    title="Roulette",
    seed="001",
    serial_evidence=True,  # a serial wheel's status lines: no recovery plays them again
    # Notes on raw evidence, held for the next commit: a sensor's edge corrected (its
    # spin's verdict counts it), a ball seen while no spin can start (none is started).
    note_alarms=frozenset({"sensor_fault", "unexpected_edge"}),
    config_section="roulette",
    load_config=config.load_config,
    check_config=config.check_config,
    check_daemon=config.check_daemon,
    bets=tuple(_bet(kind) for kind in BET_KINDS),
    inputs=(
        InputSpec("open_table", "open the table: bets open"),
        InputSpec("open_bets", "open bets for the next spin"),
        InputSpec("close_table", "close the table (bets on the layout are returned)"),
        InputSpec("no_more_bets", "\"no va más\": close bets for the spin in play"),
        InputSpec("void", "declare the spin in play (Art. 12 d-g) or held (any of a-g) "
                  "invalid", (
            ArgSpec("reason", "ball_out_of_wheel, foreign_object, wheel_malfunction or "
                    "wheel_stopped"),
            ArgSpec("by", "who decided (dealer, inspector)", required=False),
            _SPIN)),
        InputSpec("confirm_result", "give the number of a held spin (an inspector's decision)", (
            ArgSpec("number", "a pocket of the wheel, e.g. 17 or \"00\""),
            ArgSpec("by", "who decided (dealer, inspector)", required=False), _SPIN)),
        InputSpec("set_limits", "change the table limits after the game in play (Art. 16)", (
            ArgSpec("min_bet", "whole chips"), ArgSpec("max_bet", "whole chips"))),
    ),
    gpio_inputs=config.WHEEL_INPUTS,
    gpio_of=config.gpio_of,
    serial_ports=(config.WHEEL_PORT,),
    ports_of=config.ports_of,
    make=_make,
    status=status.status,
    bet_record="bet",
    log_words=log.WORDS,
    records=records.RECORDS,
    evidence_window=evidence.evidence_window,
    display="controller.games.roulette.display:RouletteView",
    recall=RecallSpec(start="spin_start", number="spin",
                      results=("spin_result", "spin_invalid"),
                      shown=("spin_result", "spin_invalid", "spin_held"),
                      summary=recall.summary, detail=recall.detail),
    simulate="controller.games.roulette.simulation:write_trace",
    simulate_options=("--spins", "--scenario", "--wheel"),
    calibrate="controller.games.roulette.calibration:command",
    stats="controller.games.roulette.stats:STATS",
    daemon_simulator="controller.games.roulette.simulation:daemon_events",
    # A spin's evidence is long: the log line keeps what the pit reads; the journal keeps all.
    log={
        "spin_start": ("seq", "spin", "bets", "limits"),
        "spin_result": ("seq", "spin", "number", "ball_revolutions", "ball_direction",
                        "rotor_direction", "rotor_rpm"),
        "spin_invalid": ("seq", "spin", "reason", "reasons", "ball_revolutions", "details"),
    },
)
