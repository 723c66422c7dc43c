"""What every card game's registry entry takes from the card core (issue 22 item 3): the
inputs of its shoe and its inspector, its records and their tags, the shoe's port and the
masking of a card still face down, and, for a shoe that closes at a cut card, the
``[cards]`` section and its count-out. A card game writes its own ``GameSpec`` (its
bets, its own inputs and records, its table, its words) and :func:`card_spec` fills in
the rest, so two card games copy nothing of each other.
"""

from __future__ import annotations

from dataclasses import replace

from controller.cards.count_out import COUNT_OUT_INPUT, load_cards_config
from controller.cards.held import VOID_INPUT
from controller.cards.masking import present_game
from controller.cards.records import CARD_RECORDS, CardTags
from controller.cards.waiting import LOST_CARDS_INPUT
from controller.core.contract import ArgSpec, GameSpec, InputSpec

SHOE_PORT = "shoe"
"""The serial port of every card table's shoe reader."""

CARD_INPUT = InputSpec("card", "the dealer's correction of a misread card (CONTRACT §4)", (
    ArgSpec("card", "rank and suit, e.g. 7H, TD, QS"),))
INSPECTOR_CLEAR_INPUT = InputSpec(
    "inspector_clear", "the inspector resumes play after a stopping alarm", (
        ArgSpec("note", "what was checked", required=False),))
_STEP_BY = "who did it, for a step that asks (a player or the dealer)"
# Records of the shoe a person wants in the log: a procedure's steps; at a cut card, the
# card and the count-out.
_SHOE_LOG = ("shoe_procedure",)
_CUT_CARD_LOG = ("cut_card", "count_out")


def procedure_step_input(help_: str, steps: str, by: str = _STEP_BY) -> InputSpec:
    """The dealer's ``procedure_step`` of a game's shoe procedures: ``help_`` cites the
    seed, ``steps`` names them, ``by`` says who did a step that asks."""
    return InputSpec("procedure_step", help_, (
        ArgSpec("step", steps), ArgSpec("by", by, required=False)))


def new_shoe_input(help_: str) -> InputSpec:
    """``new_shoe``: new decks (or a new deck), ``help_`` citing the seed."""
    return InputSpec("new_shoe", help_, (ArgSpec("reason", "why", required=False),))


def card_spec(spec: GameSpec, *, tags: CardTags, procedure_step: InputSpec,
              new_shoe: InputSpec, cut_card: bool) -> GameSpec:
    """``spec`` (the game's own bets, inputs, records, table, words) with what the card
    core gives every card table: after the game's inputs the correction of a misread card,
    ``procedure_step``, ``inspector_clear``, ``lost_cards``, at a ``cut_card`` shoe the
    count-out's ``count_out_done``, the inspector's ``void`` and ``new_shoe``; the card
    core's records and the ``tags`` before the game's; the shoe's port; the masking of a
    card face down in recall and export; the shoe's records in the log; and, at a shoe
    that closes at a cut card, the ``[cards]`` section (its count-out, seed 002 Art. 4)."""
    count_out = (COUNT_OUT_INPUT,) if cut_card else ()
    shoe_log = (*_SHOE_LOG, *(_CUT_CARD_LOG if cut_card else ()))
    return replace(
        spec,
        inputs=(*spec.inputs, CARD_INPUT, procedure_step, INSPECTOR_CLEAR_INPUT,
                LOST_CARDS_INPUT, *count_out, VOID_INPUT, new_shoe),
        records=(*CARD_RECORDS, *tags.records, *spec.records),
        serial_ports=(SHOE_PORT,),
        present_game=present_game,
        cards_config=load_cards_config if cut_card else None,
        log={**spec.log, **{name: None for name in shoe_log}},
    )
