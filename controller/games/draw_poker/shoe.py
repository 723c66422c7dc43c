"""The deck of a draw-poker table (seed 003 num. 1, 2) and what is done with it before each hand.

Num. 1: one French deck of 52 cards, four suits of thirteen; no jokers ("No serán utilizados
los 'Jockers'"). The shoe session holds it as one deck: a joker, or a card seen twice
before the deck is gathered again, stops play (``bad_card``, ``card_over_count``).

Num. 2: "Las cartas deberán ser barajadas al menos cuatro veces antes de cada pase y se le
ofrecerá colocar la carta de corte a uno de los Jugadores de la Mesa". Before every hand
(the first included) the dealer declares each shuffle (``procedure_step`` ``shuffle``): the
first gathers the deck (every card counts again); four at least, more may follow. Then the
cut is offered to a player, and the offer is journaled with its answer: the ``cut`` step
(``procedure_step`` ``cut``) says ``by`` whom: the player who cut, by his box (``box 3``),
``player`` (one not named), or ``dealer`` (the players declined it: the dealer cuts). The
hand opens (``open_bets``) once the cut is declared: a card or a hand before the offer was
made is refused.

Decision: the cut card of num. 2 cuts the deck and is not loaded with it (one hand uses at
most 45 of its 52 cards: 25 dealt and 20 replacements), so the deck has no cut-card reserve.
"""

from __future__ import annotations

from controller.cards.procedures import Citations, Procedure, ShoeRules, Step

DECKS = 1
"""Num. 1: "una baraja tipo francesa, compuesta de 52 (cincuenta y dos) cartas"."""
MIN_SHUFFLES = 4
"""Num. 2: "barajadas al menos cuatro veces antes de cada pase"."""
CUT_BY = ("player", "dealer", "box 1", "box 2", "box 3", "box 4", "box 5")
"""Num. 2: the cut is offered to a player: the one who cut (by his box, or ``player``), or
``dealer`` when the players decline it and the dealer cuts."""

BEFORE_HAND = Procedure("before_hand", "seed 003 num. 2", (
    Step("shuffle", min_times=MIN_SHUFFLES, loads=True),
    Step("cut", by=CUT_BY),
))
"""Num. 2: four shuffles at least, then the cut offered to a player (its answer journaled:
no hand opens before the offer)."""

CITATIONS = Citations(
    regulation="seed 003",
    composition="seed 003 num. 1",
    procedures="seed 003 num. 2",
    cut_card_reserve="seed 003 num. 2",
    cut_card_half="seed 003 num. 2",
)


def shoe_rules() -> ShoeRules:
    """The deck of a draw-poker table: one deck, shuffled before every hand."""
    return ShoeRules(DECKS, 0, BEFORE_HAND, CITATIONS, before_each_game=BEFORE_HAND)
