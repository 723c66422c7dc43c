"""What every table does itself, whatever its game: its own inputs (``TABLE_INPUTS`` of
:mod:`controller.core.contract`: who deals, the rig's player fell behind) and the alarm
codes it journals itself. The table (:mod:`controller.core.table`) takes these inputs
live; a card table's restart plays them again (:mod:`controller.cards.table`).
"""

from __future__ import annotations

from controller.core.contract import TABLE_INPUTS, Emit
from controller.core.errors import RuleViolation
from controller.core.events import DealerInput
from controller.core.words import given
from controller.store.shared import Alarm, Dealer

TABLE_ALARMS = frozenset({"clock_step", "unexpected_edge", "game_open", "journal_chain_broken",
                          "journal_failing"})
"""The alarm codes the table journals itself (no game makes them; the daemon's journal
guard journals ``journal_failing`` through it)."""

TABLE_INPUT_ACTIONS = frozenset(i.action for i in TABLE_INPUTS)
"""The inputs the table takes itself, whatever its game (``GameSpec.all_inputs``)."""


PLAYER_LATE_MAX = 300  # characters of a player_late message: the rig's few lines


def verify_table_input(inp: DealerInput) -> None:
    """Check one of ``TABLE_INPUT_ACTIONS`` (its arguments are checked against its spec
    first): a dealer's name is a word of at most 40 characters, as it heads a line of
    statistics; a ``player_late`` message is 1 to ``PLAYER_LATE_MAX`` characters.

    Raises:
        RuleViolation: ``bad_dealer``, an empty or overlong name; ``bad_input``, an empty
            or overlong message.
    """
    if inp.action == "player_late":
        message = inp.args.get("message")
        if not isinstance(message, str) or not message.strip() or (
                len(message) > PLAYER_LATE_MAX):
            raise RuleViolation("bad_input", f"player_late needs message=, 1 to "
                                f"{PLAYER_LATE_MAX} characters")
        return
    name = inp.args.get("name")
    if not isinstance(name, str) or not name.strip() or len(name.strip()) > 40:
        raise RuleViolation("bad_dealer", f"a dealer's name is 1 to 40 characters, got "
                            f"{given(name)}")


def table_input(inp: DealerInput, emit: Emit) -> None:
    """Do one of ``TABLE_INPUT_ACTIONS``: ``dealer`` journals who deals from now on (a
    ``dealer`` record, issue 21); ``player_late`` (the rig's player fell behind its trace,
    issue 16) a ``player_late`` alarm, as ``replay --realtime`` journals its own. A card
    table's restart plays it again through here."""
    if inp.action == "player_late":
        emit(Alarm(code="player_late", message=str(inp.args["message"]).strip()))
        return
    emit(Dealer(name=str(inp.args["name"]).strip()), t=inp.t)
