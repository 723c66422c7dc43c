"""Shoe procedures as data: a regulation's steps, their order, which are mandatory, and the
articles its alarms cite. A game's package gives them to the
:class:`~controller.cards.shoe.ShoeSession` of its table; the session enforces them.

Examples of what this expresses (each game's package holds its own):

- seed 002 Art. 5 (also applied by the table of seed 000), new decks: show, turn,
  scramble, shuffle, cut, load, burn, all mandatory and in that order; Art. 6, after the cut
  card: show, turn and scramble optional, then shuffle, cut, load, burn;
- seed 004 Art. 5 and 6: the same steps, cited as seed 004's;
- seed 003 num. 2: "barajadas al menos cuatro veces antes de cada pase y se le
  ofrecerá colocar la carta de corte a uno de los Jugadores": a shuffle done at least four
  times (``Step.min_times``), then the cut, by a player or, declining, the dealer
  (``Step.by``), before every hand (``ShoeRules.before_each_game``).

A step is declared by the dealer (``procedure_step``), or read from the shoe
(``Step.read``: the burn card, seed 002 Art. 5 g). The procedure is complete once its last
mandatory step is done; the cards count in the shoe from the step that ``loads`` it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

CARDS_PER_DECK = 52


@dataclass(frozen=True)
class Step:
    """One step of a shoe procedure.

    Attributes:
        name: the step's word in ``procedure_step`` and the ``shoe_procedure`` record
            (``shuffle``; Spanish of seed 002: mostrar, voltear, revolver, barajar, cortar,
            colocar en el zapato, quemar).
        mandatory: False for a step at the operator's discretion (seed 002 Art. 6 last
            paragraph: show, turn and scramble after the cut card).
        min_times: times the step is done before the next one may follow; a step with
            more than 1 may be repeated beyond it (seed 003 num. 2: four shuffles at least),
            and its records carry ``times``.
        read: fulfilled by a card read from the shoe (the burn), not declared.
        loads: the cards are in the shoe once this step is done: counted from then on.
        by: who may do the step, when the input must say it (``by`` in the input and the
            record): seed 003 num. 2 offers the cut to a player. Empty: not asked.
    """

    name: str
    mandatory: bool = True
    min_times: int = 1
    read: bool = False
    loads: bool = False
    by: tuple[str, ...] = ()


@dataclass(frozen=True)
class Procedure:
    """A shoe procedure: ``name`` as journaled (``new_decks``), the ``article`` that
    prescribes it (``seed 002 Art. 5``), its ``steps`` in the article's order."""

    name: str
    article: str
    steps: tuple[Step, ...]

    def dealer_steps(self) -> tuple[str, ...]:
        """The mandatory steps a dealer announces, in order (a simulated dealer's)."""
        return tuple(s.name for s in self.steps if s.mandatory and not s.read)


@dataclass(frozen=True)
class Citations:
    """Where a regulation says what the shoe's alarms and refusals enforce (the words the
    messages cite, e.g. ``seed 002 Art. 4``)."""

    regulation: str
    """The regulation: "the new_decks procedure (seed 002) is not complete"."""
    composition: str
    """Complete decks, jokers removed and never used (seed 002 Art. 4)."""
    procedures: str
    """The procedures together, for a step when none is due (seed 002 Art. 5/6)."""
    cut_card_reserve: str
    """The fewest cards below the cut card (seed 002 Art. 5 e: 40)."""
    cut_card_half: str
    """No more than half the pack below the cut card (seed 002 Art. 5 e, 6 b)."""


@dataclass(frozen=True)
class ShoeRules:
    """Everything one table's shoe follows: its size and its regulation's procedures.

    ``decks`` and ``cut_card_min_remaining`` (cards) are checked once, by the game's config
    section (within ``cut_card_reserve_bounds``); the session takes them as given.

    Attributes:
        decks: decks in the shoe.
        cut_card_min_remaining: fewest cards allowed below the cut card.
        new_decks: due when a session starts and after ``new_shoe`` (seed 002 Art. 5).
        after_cut_card: due when the cut card ended the shoe (seed 002 Art. 6); None when
            the regulation has no cut card in the shoe.
        before_each_game: due after every game (seed 003 num. 2), or None.
        citations: the articles the messages cite.
    """

    decks: int
    cut_card_min_remaining: int
    new_decks: Procedure
    citations: Citations
    after_cut_card: Procedure | None = None
    before_each_game: Procedure | None = None
    dealer_steps: tuple[str, ...] = field(init=False)
    """Every step a dealer may declare, in the order the procedures give them."""

    def __post_init__(self) -> None:
        names: list[str] = []
        for proc in self.procedures():
            names += [s.name for s in proc.steps if not s.read and s.name not in names]
        object.__setattr__(self, "dealer_steps", tuple(names))

    def procedures(self) -> tuple[Procedure, ...]:
        return tuple(p for p in (self.new_decks, self.after_cut_card, self.before_each_game)
                     if p is not None)

    @property
    def pack(self) -> int:
        """Cards in the full shoe (count)."""
        return self.decks * CARDS_PER_DECK

    def procedure(self, name: str) -> Procedure:
        """The procedure called ``name``.

        Raises:
            KeyError: none of this shoe's procedures has that name.
        """
        return next(p for p in self.procedures() if p.name == name)


def cut_card_reserve_bounds(decks: int, minimum: int) -> tuple[int, int]:
    """The cut-card reserve a regulation allows, in cards: at least ``minimum`` below it
    (seed 002 Art. 5 e: 40) and no more than half the pack of ``decks`` decks ("a no menos
    de 40 cartas de la base y la mitad del paquete")."""
    return minimum, decks * CARDS_PER_DECK // 2
