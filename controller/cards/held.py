"""The inspector's void of a card game held for him (issue 16, item 1).

Play stops for the inspector while a game is under way when the evidence cannot complete
it with certainty: a decision entered too late for its seed (``coup_held``: a five choice
after the Banca's card, seed 000 Art. 8), or cards read that the decisions entered give
no place (``card_without_place``), or any stopping alarm of the shoe. The inspector may
then give what was missing (the game goes on) or void the game: ``void`` (``reason``,
``by`` = ``inspector``). The game is over, no result: a ``game_void`` record (the game's
number, the reason, who decided, the cards read that no hand took, gone to the discard
with the game's cards, and the holds it cleared), then every stake not yet settled is
returned (``settlement`` records, ``push``), as an invalid game's bets are.
Stakes settled before the hold (a surrender, an insurance decided, a box decided by
Art. 9) stay as they were: their result was certain.

The holds of the game itself are cleared with it; a shoe's own stop (a card seen too
often, a misplaced cut card) stays until ``inspector_clear``. Refused while the dealer's
``lost_cards`` or a misread's correction is due: the shoe's count needs those cards
first.
"""

from __future__ import annotations

from typing import Any

from controller.cards.game import CardGame
from controller.cards.records import GameVoid
from controller.cards.shoe import ShoeSession
from controller.cards.waiting import WaitingCards
from controller.core.contract import ArgSpec, Emit, InputSpec
from controller.core.errors import RuleViolation

VOID = "void"
VOID_INPUT = InputSpec(VOID, "the inspector voids the game held for him: no result, "
                       "every stake not settled returned", (
                           ArgSpec("reason", "why, in words, e.g. late_five_choice"),
                           ArgSpec("by", "inspector: only he voids a card game")))
"""Its spec, for each card game's ``GameSpec.inputs``."""

NO_PLACE = "card_without_place"
"""The stop for cards read that no hand takes: the inspector's ``inspector_clear`` goes on
without them (the game's optional ``cards_set_aside``), or he voids the game."""
GAME_HOLDS = ("coup_held", NO_PLACE)
"""The stopping alarms of a game that its void clears."""

REASON_MAX = 200  # characters of the reason: a line of the journal


def verify_void(game: CardGame, shoe: ShoeSession, waiting: WaitingCards,
                args: dict[str, Any]) -> None:
    """Check a ``void`` of the game in play; change nothing.

    Raises:
        RuleViolation: ``inspector_only`` (``by`` is not the inspector), ``bad_input`` (no
            reason in words), ``no_game_under_way``, ``game_not_held`` (play goes on),
            ``lost_cards_due``, ``awaiting_correction``.
    """
    if args.get("by") != "inspector":
        raise RuleViolation("inspector_only", "only the inspector voids a card game "
                            "(by=inspector), and only one held for him")
    reason = args.get("reason")
    if not isinstance(reason, str) or not reason.strip() or len(reason) > REASON_MAX:
        raise RuleViolation("bad_input", f"void needs a reason, 1 to {REASON_MAX} "
                            "characters")
    if not game.under_way():
        raise RuleViolation("no_game_under_way", "no game is under way to void")
    if not shoe.play_stopped:
        raise RuleViolation("game_not_held", f"{game.open_game() or 'the game'} is not "
                            "held: play goes on; a game is voided once play stopped for "
                            "the inspector")
    if waiting.lost is not None:
        raise RuleViolation("lost_cards_due", "the dealer enters the cards dealt while "
                            f"{waiting.lost} first (lost_cards): the shoe counts them")
    if shoe.misreads_pending:
        raise RuleViolation("awaiting_correction", "a misread card awaits the dealer's "
                            "correction first (card): the shoe counts it")


def void(t: float, game: CardGame, shoe: ShoeSession, waiting: WaitingCards, emit: Emit,
         args: dict[str, Any]) -> None:
    """Void the game held (``verify_void`` first): ``game_void``, then the stakes
    returned by the game (its ``void(t)``)."""
    verify_void(game, shoe, waiting, args)
    number = next(iter(game.tag().values()))
    discarded = waiting.discard()
    cleared = shoe.release(GAME_HOLDS)
    emit(GameVoid(game=number, reason=str(args["reason"]).strip(), by=str(args["by"]),
                  cards_waiting=discarded, cleared=cleared), t=t)
    game.void(t)  # type: ignore[attr-defined]  # every card game has it (game.py)
