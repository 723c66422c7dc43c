"""Consent at the box: who placed a bet on a box, and whether its holder allowed it.

Seed 000 Art. 4-5 ("Deberá obtener la respectiva autorización de quien ocupa el
casillero ... Los apostadores de pie no pueden apostar en casilleros sin apuestas") and
seed 002 / 004 Art. 7 ("se requerirá el consentimiento del jugador que ocupa la misma").
The controller cannot see people; the dealer says who placed a bet: ``by`` is
``holder`` (the box's own player, the default when not said), ``seated`` (another seated
player) or ``standing`` (a player on foot), and a bet by another than the holder carries
``authorized`` (the holder's consent, true or false). The box maximum holds for the box's
total, whoever placed it (each game's own limits check).
"""

from __future__ import annotations

from controller.core.contract import BetField
from controller.core.errors import RuleViolation
from controller.core.events import BetPlaced
from controller.core.words import given

BY = ("holder", "seated", "standing")
"""Who placed a bet on a box (``by``)."""
FIELDS = (BetField("by", "who placed it: holder (default), seated, standing"),
          BetField("authorized", "the box holder's consent to a bet by another: yes, no",
                   type=bool))
"""The fields a card table's bets take for consent (its ``BetSpec.fields``)."""


def check_consent(bet: BetPlaced, box_has_bets: bool, article: str) -> None:
    """Refuse a bet on another's box without its holder's authorization, and a standing
    player's bet on a box with no bet yet (he only adds to the bets there).

    Args:
        bet: the bet (``by``, ``authorized``: None when not said).
        box_has_bets: the box holds a bet already in this game.
        article: the rule cited, e.g. ``seed 000 Art. 5``.

    Raises:
        RuleViolation: ``bad_input`` (``by`` not one of ``BY``; ``authorized`` on the
            holder's own bet), ``not_authorized``, ``standing_on_empty_box``.
    """
    by = bet.by or "holder"
    if by not in BY:
        raise RuleViolation("bad_input", f"by {given(by)} is not one of {', '.join(BY)}")
    if by == "holder":
        if bet.authorized is not None:
            raise RuleViolation("bad_input", "authorized is said of a bet by another than "
                                "the box's holder (by seated or standing)")
        return
    if bet.authorized is not True:
        said = "not given" if bet.authorized is None else "refused"
        raise RuleViolation("not_authorized", f"a {by} player's bet on box {bet.box}: the "
                            f"holder's authorization is {said} ({article})")
    if by == "standing" and not box_has_bets:
        raise RuleViolation("standing_on_empty_box", f"a standing player adds to a box's "
                            f"bets, and box {bet.box} has none ({article})")
