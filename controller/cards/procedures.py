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
:class:`ProcedureRun` follows the dealer through the procedure due.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from controller.core.errors import RuleViolation
from controller.core.words import given

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
        count_out: the cards left in a shoe closed at the cut card are run through the
            reader and the decks checked complete before ``after_cut_card``
            (:mod:`controller.cards.count_out`; seed 002 Art. 4).
    """

    decks: int
    cut_card_min_remaining: int
    new_decks: Procedure
    citations: Citations
    after_cut_card: Procedure | None = None
    before_each_game: Procedure | None = None
    count_out: bool = False
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


class ProcedureRun:
    """Where the dealer is in the procedure due: the last step done, and how many times.

    Args:
        rules: the shoe's procedures; the new-decks one is due first.
    """

    def __init__(self, rules: ShoeRules) -> None:
        self.rules = rules
        self.due: Procedure | None = rules.new_decks
        self.last = -1  # index in due.steps of the last step done
        self.times = 0  # times the last step was done (a step may be repeated)

    def start(self, procedure: Procedure) -> None:
        """``procedure`` is due now, from its first step."""
        self.due, self.last, self.times = procedure, -1, 0

    def verify(self, step: str, by: str | None) -> int:
        """Check that the dealer may do ``step`` now (``by`` whom, for a step that asks);
        return its index in the procedure due.

        Raises:
            RuleViolation: ``unknown_procedure_step`` (not a step the dealer declares),
                ``procedure_out_of_order`` (a mandatory step before it is missing or not
                done its number of times, it repeats or goes back, or no procedure is
                due), or ``procedure_step_by`` (a step that asks who did it, without one
                of them).
        """
        dealer_steps = self.rules.dealer_steps
        if step not in dealer_steps:
            raise RuleViolation(
                "unknown_procedure_step",
                f"unknown shoe procedure step {given(step)}; dealer steps: "
                f"{', '.join(dealer_steps)}"
                " (the burn is read from the shoe)",
            )
        proc = self.due
        if proc is None:
            raise RuleViolation(
                "procedure_out_of_order",
                f"step {given(step)}: no shoe procedure is due "
                f"({self.rules.citations.procedures}), the shoe is in play",
            )
        steps = proc.steps
        index = next((i for i, s in enumerate(steps) if s.name == step and not s.read), -1)
        repeat = index == self.last >= 0 and steps[index].min_times > 1
        if not repeat and not self.may_follow(index):
            done = steps[self.last].name if self.last >= 0 else "nothing"
            raise RuleViolation(
                "procedure_out_of_order",
                f"step {given(step)} out of order in the {proc.name} procedure "
                f"({self.article()}): last done {done}, next due {self.next_due()}",
            )
        who = steps[index].by
        if who and by not in who:
            raise RuleViolation(
                "procedure_step_by",
                f"step {given(step)}: say who did it, one of {', '.join(who)} ({proc.article})",
            )
        return index

    def may_follow(self, index: int) -> bool:
        """Whether step ``index`` may come next: after the last step, which was done its
        number of times, with no mandatory step between them."""
        if self.due is None or index <= self.last:
            return False
        steps = self.due.steps
        if self.last >= 0 and self.times < steps[self.last].min_times:
            return False
        return not any(s.mandatory for s in steps[self.last + 1 : index])

    def done(self, index: int) -> int:
        """Step ``index`` (verified) was done; return how many times in a row now. The
        procedure is complete once its last mandatory step is done its number of times;
        it ends (``due`` is then None) when no step may follow (a repeat of a step done
        several times, an optional step after it), else at :meth:`close`."""
        assert self.due is not None, "verified: a procedure is due"
        self.times = self.times + 1 if index == self.last else 1
        self.last = index
        times = self.times
        steps = self.due.steps
        may_repeat = steps[index].min_times > 1
        if self.complete and not may_repeat and index == len(steps) - 1:
            self._finish()
        return times

    @property
    def complete(self) -> bool:
        """No procedure is due, or every mandatory step of the one due is done its number
        of times (steps that may still follow are optional)."""
        if self.due is None:
            return True
        steps = self.due.steps
        final = max((i for i, s in enumerate(steps) if s.mandatory), default=-1)
        if self.last < final:
            return False
        return self.last > final or self.times >= steps[final].min_times

    def close(self) -> None:
        """A game begins: a complete procedure ends, its optional steps no longer due."""
        if self.complete:
            self._finish()

    def _finish(self) -> None:
        self.due, self.last, self.times = None, -1, 0

    def read_step_due(self) -> int | None:
        """The index of the step read from the shoe (the burn) when it may come next."""
        if self.due is None:
            return None
        return next((i for i, s in enumerate(self.due.steps) if s.read and self.may_follow(i)),
                    None)

    def article(self) -> str:
        """The article of the procedure due (the procedures' when none is)."""
        return self.rules.citations.procedures if self.due is None else self.due.article

    def next_due(self) -> str:
        """The step or steps that may come next, in words ("show or turn or shuffle")."""
        if self.due is None:
            return "nothing"
        steps = self.due.steps
        if self.last >= 0 and self.times < steps[self.last].min_times:
            last = steps[self.last]
            return f"{last.name} (done {self.times} of {last.min_times} times)"
        due = []
        for step in steps[self.last + 1 :]:
            due.append(step.name)
            if step.mandatory:
                break
        return " or ".join(due)
