"""The shoes of the two Black Jack tables: the deck procedures of seed 002 Art. 4-6 (Black Jack
Plus) and of seed 004 Art. 4-6 (Pot Luck Black Jack), each cited by its own regulation.

The two texts prescribe the same steps. Art. 4: new decks are checked complete and unmarked,
their jokers set aside and never used (the shoe session stops play on a joker or on a card
seen more often than the decks hold). Art. 5, new decks, in this order: (a) show the faces
("mostrar"), (b) turn them face down ("voltear"), (c) scramble ("revolver"), (d) shuffle
("barajar"), (e) cut ("cortar": the cut card "a no menos de 40 cartas de la base y la mitad
del paquete"), (f) load the shoe ("colocar en el zapato"), (g) burn one or more cards
("quemar", read from the shoe). Art. 6, when the cut card appeared, before the next game:
shuffle, cut, load, burn; showing, turning and scrambling first are at the staff's
discretion ("queda a criterio del personal del explotador").
"""

from __future__ import annotations

from controller.cards.procedures import Citations, Procedure, ShoeRules, Step

CUT_CARD_MIN_REMAINING = 40
"""Seed 002 / 004 Art. 5 e: the cut card "a no menos de 40 cartas de la base"."""
SEEDS = {"blackjack_plus": "002", "pot_luck": "004"}
"""The regulation of each table."""


def procedures(seed: str) -> tuple[Procedure, Procedure, Citations]:
    """The new-decks procedure (Art. 5 a-g), the one after the cut card (Art. 6 a-d) and the
    citations of seed ``seed`` ("002" or "004")."""
    new_decks = Procedure("new_decks", f"seed {seed} Art. 5", (
        Step("show"), Step("turn"), Step("scramble"), Step("shuffle"), Step("cut"),
        Step("load", loads=True), Step("burn", read=True),
    ))
    cut_card = Procedure("cut_card", f"seed {seed} Art. 6", (
        Step("show", mandatory=False), Step("turn", mandatory=False),
        Step("scramble", mandatory=False), Step("shuffle"), Step("cut"),
        Step("load", loads=True), Step("burn", read=True),
    ))
    citations = Citations(
        regulation=f"seed {seed}",
        composition=f"seed {seed} Art. 4",
        procedures=f"seed {seed} Art. 5/6",
        cut_card_reserve=f"seed {seed} Art. 5 e",
        cut_card_half=f"seed {seed} Art. 5 e, 6 b",
    )
    return new_decks, cut_card, citations


def shoe_rules(table: str, decks: int, cut_card_min_remaining: int) -> ShoeRules:
    """The shoe of a ``blackjack_plus`` or ``pot_luck`` table whose config gave ``decks``
    and the cut-card reserve (checked there)."""
    new_decks, cut_card, citations = procedures(SEEDS[table])
    return ShoeRules(decks, cut_card_min_remaining, new_decks, citations,
                     after_cut_card=cut_card)
