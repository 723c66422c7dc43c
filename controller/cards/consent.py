"""Consent at the box: who placed a bet on a box, and whether its holder allowed it.

Seed 000 Art. 4-5 ("Deberá obtener la respectiva autorización de quien ocupa el
casillero ... Los apostadores de pie no pueden apostar en casilleros sin apuestas. Sólo
pueden acompañar aumentando las existentes") and seed 002 / 004 Art. 7 ("adhiriéndose a
una de las posturas ... se requerirá el consentimiento del jugador que ocupa la misma").
The controller cannot see people; the dealer says who placed a bet: ``by`` is
``holder`` (the box's own player, the default when not said), ``seated`` (another seated
player) or ``standing`` (a player on foot), and a bet by another than the holder carries
``authorized`` (the holder's consent, true or false). The box maximum holds for the box's
total, whoever placed it (each game's own limits check).

A standing player only adds to the bets that exist on the box: a bet of a kind the box
already holds in this game (on a box with only a bet on the player's cards, never one
against them). A kind the box does not hold would be a bet of his own.
"""

from __future__ import annotations

from collections.abc import Collection

from controller.core.contract import BetField
from controller.core.errors import RuleViolation
from controller.core.events import BetPlaced
from controller.core.words import given

BY = ("holder", "seated", "standing")
"""Who placed a bet on a box (``by``)."""
FIELDS = (BetField("by", "who placed it: holder (default), seated, standing", choices=BY),
          BetField("authorized", "the box holder's consent to a bet by another: yes, no",
                   type=bool))
"""The fields a card table's bets take for consent (its ``BetSpec.fields``)."""


def check_consent(bet: BetPlaced, box_kinds: Collection[str], article: str) -> None:
    """Refuse a bet on another's box without its holder's authorization, and a standing
    player's bet of a kind the box does not hold yet (he only adds to the bets there).

    Args:
        bet: the bet (``by``, ``authorized``: None when not said).
        box_kinds: the kinds of the bets the box holds already in this game.
        article: the rule cited, e.g. ``seed 000 Art. 5``.

    Raises:
        RuleViolation: ``bad_input`` (``by`` not one of ``BY``; ``authorized`` on the
            holder's own bet), ``not_authorized``, ``standing_on_empty_box`` (the box
            holds no bet), ``standing_new_bet`` (none of this kind).
    """
    by, authorized = bet.get("by") or "holder", bet.get("authorized")
    if by not in BY:
        raise RuleViolation("bad_input", f"by {given(by)} is not one of {', '.join(BY)}")
    if by == "holder":
        if authorized is not None:
            raise RuleViolation("bad_input", "authorized is said of a bet by another than "
                                "the box's holder (by seated or standing)")
        return
    if authorized is not True:
        said = "not given" if authorized is None else "refused"
        raise RuleViolation("not_authorized", f"a {by} player's bet on box {bet.box}: the "
                            f"holder's authorization is {said} ({article})")
    if by != "standing" or bet.kind in box_kinds:
        return
    if not box_kinds:
        raise RuleViolation("standing_on_empty_box", f"a standing player adds to a box's "
                            f"bets, and box {bet.box} has none ({article})")
    raise RuleViolation("standing_new_bet", f"a standing player only adds to the bets on "
                        f"box {bet.box} ({', '.join(sorted(box_kinds))}), and it has no "
                        f"{bet.kind} bet ({article})")
