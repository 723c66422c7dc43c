"""The payment of a draw-poker hand (seed 003 num. 15, 18, 19), to the cent, in integer cents.

Num. 19: "Al jugador ganador, se le pagará el monto total de la 'Primera Apuesta' o 'Luz'
deducido el 5%, las Apuestas realizadas por los demás Jugadores deducido el 5% y la
'Apuesta' realizada por el mismo sin deducciones", the dealer "integrando a la Banca las
fichas perdedoras y el monto de la deducción". Num. 20: each concept handed over
separately. Num. 18: a complete tie shares "la cuota parte ... luego de realizada la
deducción del 5%".

So, for the players still in the hand (a void hand's stake is returned, num. 10-11):

- the antes concept: every ante (the winner's too) less 5%;
- the bets concept: the other players' bets (those who folded, num. 8 d and 12 b, and those
  who lost the showdown) less 5%;
- the winner's own bets, back without deduction;
- the rake ("deducción", to the house): 5% of the antes plus the losers' bets, on that
  total, rounded half up to the cent (CONTRACT §7). Its part on the antes is 5% of them
  rounded half up; the rest of it is on the bets.

A split pot (num. 18) is shared as one sum: the pot after the 5% (both raked concepts
together) is divided equally among the winners, and the cents that do not divide go one
each to the winners in dealing order from Mano (the first winner from Mano gets the first
odd cent, the next the second...). So no two winners' shares differ by more than a cent,
and only the first ones from Mano have the extra cent: 4.75 among three pays 1.59, 1.58,
1.58. Each winner's share is then handed over concept by concept (num. 20): the antes
concept is divided the same way, and his part of the others' bets is the rest of his
share. Decision: the seed says nothing of odd cents; this is the usual rule of the odd
chip. Sharing each concept on its own would give a cent to the first winner twice over
(1.59, 1.59, 1.57).

Every amount is an ``int`` of cents here; :func:`chips` writes one for a record.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

RAKE_PERCENT = 5
"""Num. 15 and 19: "una deducción del 5%"."""
CENTS = 100


def rake_of(cents: int) -> int:
    """5% of ``cents`` (>= 0), rounded half up to the cent (CONTRACT §7)."""
    return (RAKE_PERCENT * cents * 2 + CENTS) // (2 * CENTS)


def share(cents: int, winners: int) -> list[int]:
    """``cents`` shared equally among ``winners`` (>= 1) in their order from Mano: the odd
    cents one each to the first ones (num. 18; the module's Decision)."""
    whole, odd = divmod(cents, winners)
    return [whole + (1 if i < odd else 0) for i in range(winners)]


def chips(cents: int) -> int | float:
    """``cents`` as an amount of chips for a record: an ``int`` when whole, else the number
    with its cents (JSON keeps exactly its two decimals)."""
    if cents % CENTS == 0:
        return cents // CENTS
    return float(Decimal(cents) / CENTS)


@dataclass(frozen=True)
class Stake:
    """What one player put in the hand, in cents: his ``ante`` and his ``bets`` (both
    rounds together)."""

    box: int
    ante: int
    bets: int


@dataclass(frozen=True)
class Concept:
    """One winner's payment, in cents, concept by concept (num. 19, 20): his share of the
    antes after the 5% (``antes``), his share of the others' bets after the 5% (``bets``),
    and his own bets returned whole (``own_bets``)."""

    box: int
    antes: int
    bets: int
    own_bets: int


@dataclass(frozen=True)
class Payment:
    """The payment of a hand won by one or more players, in cents.

    ``antes`` and ``losers_bets`` are the pot's two raked concepts; ``winners_bets`` the
    winners' own bets; ``rake_antes`` + ``rake_bets`` = ``rake``, the house's 5%;
    ``losing_chips`` what the losers lose (antes and bets) and the dealer integrates into
    the Banca; ``paid`` each winner's concepts, in order from Mano.
    """

    antes: int
    losers_bets: int
    winners_bets: int
    rake_antes: int
    rake_bets: int
    losing_chips: int
    paid: tuple[Concept, ...]

    @property
    def rake(self) -> int:
        return self.rake_antes + self.rake_bets


def pay(stakes: Sequence[Stake], winners: Sequence[int]) -> Payment:
    """The payment of a hand (see the module doc).

    Args:
        stakes: every player still in the hand (not void), winners and losers.
        winners: the winning boxes, in order from Mano (one, or several on a tie).

    Raises:
        ValueError: no winner, or a winner without a stake.
    """
    by_box = {s.box: s for s in stakes}
    if not winners or any(w not in by_box for w in winners):
        raise ValueError(f"winners {', '.join(map(str, winners)) or 'none'} must be boxes "
                         f"among {', '.join(map(str, sorted(by_box)))}")
    antes = sum(s.ante for s in stakes)
    losers = [s for s in stakes if s.box not in winners]
    losers_bets = sum(s.bets for s in losers)
    rake = rake_of(antes + losers_bets)
    rake_antes = rake_of(antes)
    rake_bets = rake - rake_antes
    # The pot is shared whole (num. 18); its antes concept the same way, and the bets
    # concept is what is left of each share: never negative, as the odd cents of the
    # whole go to the same first winners as, or more than, those of the antes.
    shares = share(antes - rake_antes + losers_bets - rake_bets, len(winners))
    ante_shares = share(antes - rake_antes, len(winners))
    paid = tuple(Concept(box, a, whole - a, by_box[box].bets)
                 for box, whole, a in zip(winners, shares, ante_shares, strict=True))
    return Payment(
        antes=antes, losers_bets=losers_bets,
        winners_bets=sum(by_box[w].bets for w in winners),
        rake_antes=rake_antes, rake_bets=rake_bets,
        losing_chips=sum(s.ante + s.bets for s in losers), paid=paid)
