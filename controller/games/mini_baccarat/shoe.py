"""The shoe of a Mini-Bacará table: four decks (seed 000 Art. 2, "los cuatro mazos"), and the
deck procedures of seed 002 Art. 4-6 (RULES.md §3), which the decree leaves to the house and
this table follows, with the records and messages they have always had.

Art. 5, new decks, in this order: (a) show the faces ("mostrar"), (b) turn them face down
("voltear"), (c) scramble ("revolver"), (d) shuffle ("barajar"), (e) cut ("cortar"), (f)
load the shoe ("colocar en el zapato"), (g) burn one or more cards ("quemar"). Art. 6, when
the cut card appeared, before the next game: shuffle, cut, load, burn; showing, turning and
scrambling before the shuffle are at the operator's discretion.
"""

from __future__ import annotations

from controller.cards.procedures import Citations, Procedure, ShoeRules, Step

NEW_DECKS = Procedure("new_decks", "seed 002 Art. 5", (
    Step("show"), Step("turn"), Step("scramble"), Step("shuffle"), Step("cut"),
    Step("load", loads=True), Step("burn", read=True),
))
"""Seed 002 Art. 5 a-g."""

CUT_CARD = Procedure("cut_card", "seed 002 Art. 6", (
    Step("show", mandatory=False), Step("turn", mandatory=False),
    Step("scramble", mandatory=False), Step("shuffle"), Step("cut"),
    Step("load", loads=True), Step("burn", read=True),
))
"""Seed 002 Art. 6 a-d, after the cut card; show, turn and scramble optional."""

CITATIONS = Citations(
    regulation="seed 002",
    composition="seed 002 Art. 4",
    procedures="seed 002 Art. 5/6",
    cut_card_reserve="seed 002 Art. 5 e",
    cut_card_half="seed 002 Art. 5 e, 6 b",
)

CUT_CARD_MIN_REMAINING = 40
"""Seed 002 Art. 5 e: the cut card "a no menos de 40 cartas de la base"."""


def shoe_rules(decks: int, cut_card_min_remaining: int) -> ShoeRules:
    """The shoe of a Mini-Bacará table whose config gave ``decks`` and the cut-card
    reserve (``[mini_baccarat]``, checked there)."""
    return ShoeRules(decks, cut_card_min_remaining, NEW_DECKS, CITATIONS,
                     after_cut_card=CUT_CARD)
