"""Roulette wheels, the betting layout, and the bets of seed 001 Art. 13 ("Escala de Pagos").

Pure data and functions, no I/O. Numbers are strings: "0".."36", and "00" on the
double-zero wheel; the seed calls the zero pockets "signos". Amounts are whole chips.

The layout is the usual table of 12 rows of three (1-2-3 at the head, 34-35-36 at the foot),
columns 1st = 1, 4, ..., 34; 2nd = 2, 5, ..., 35; 3rd = 3, 6, ..., 36. The signos sit above
the row 1-2-3: on the single-zero layout 0 spans the whole row; on the double-zero layout 0
is above 1 and 2 and 00 above 2 and 3. Which combinations that geometry allows near the
signos is spelled out in ``make_bet``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import pairwise
from typing import TypeGuard

from controller.core.errors import RuleViolation
from controller.core.words import given as spelt
from controller.core.words import one_of

# fmt: off
WHEEL_ORDERS: dict[str, tuple[str, ...]] = {
    "single_zero": (
        "0", "32", "15", "19", "4", "21", "2", "25", "17", "34", "6", "27", "13", "36", "11", "30",
        "8", "23", "10", "5", "24", "16", "33", "1", "20", "14", "31", "9", "22", "18", "29", "7",
        "28", "12", "35", "3", "26",
    ),
    "double_zero": (
        "0", "28", "9", "26", "30", "11", "7", "20", "32", "17", "5", "22", "34", "15", "3", "24",
        "36", "13", "1", "00", "27", "10", "25", "29", "12", "8", "19", "31", "18", "6", "21",
        "33", "16", "4", "23", "35", "14", "2",
    ),
}
"""Pockets clockwise seen from above, starting at 0 (index 0), per wheel name.

Source: /work/shared/data/wheels.md (wizardofodds.com). 00 is at index 19, opposite 0.
"""

RED: frozenset[str] = frozenset(
    (
        "1", "3", "5", "7", "9", "12", "14", "16", "18", "19", "21", "23", "25", "27", "30", "32",
        "34", "36",
    )
)
"""The 18 red numbers ("color rojo", seed 001 Art. 13); black is the rest of 1..36."""
# fmt: on

BET_KINDS: tuple[str, ...] = (
    "straight",  # "pleno"
    "split",  # "semi-pleno"
    "street",  # "calle"
    "corner",  # "cuadro"
    "five_numbers",  # "línea de tres números y dos signos"
    "six_line",  # "línea"
    "column",  # "columna"
    "dozen",  # "docena"
    "red",  # "color rojo"
    "black",  # "color negro"
    "even",  # "par"
    "odd",  # "impar"
    "low",  # "menor" (1-18)
    "high",  # "mayor" (19-36)
)
"""Every roulette bet kind of CONTRACT.md §2, in the order of seed 001 Art. 13."""

PAYOUT_TO_ONE: dict[str, int] = {
    "straight": 35,
    "split": 17,
    "street": 11,
    "corner": 8,
    "five_numbers": 6,
    "six_line": 5,
    "column": 2,
    "dozen": 2,
    "red": 1,
    "black": 1,
    "even": 1,
    "odd": 1,
    "low": 1,
    "high": 1,
}
"""Payout "a to 1" per bet kind (seed 001 Art. 13): a win returns the stake plus a × stake."""

# How many numbers each kind that lists them must name.
NUMBER_COUNTS = {"straight": 1, "split": 2, "street": 3, "corner": 4, "five_numbers": 5,
                 "six_line": 6}
"""The inside bets ("apuestas a números") and how many numbers each covers (Art. 13)."""
WHICH_KINDS = frozenset({"column", "dozen"})
"""The bets that name a column or a dozen by ``which`` (1, 2 or 3)."""

_ROWS: tuple[frozenset[str], ...] = tuple(
    frozenset(str(n) for n in range(first, first + 3)) for first in range(1, 35, 3)
)

# Combinations with signos, per wheel: the junctions the seed lists, placed on each layout.
_SIGNO_SPLITS = {
    "single_zero": (("0", "1"), ("0", "2"), ("0", "3")),
    "double_zero": (("0", "1"), ("0", "2"), ("00", "2"), ("00", "3"), ("0", "00")),
}
_SIGNO_STREETS = {
    "single_zero": (("0", "1", "2"), ("0", "2", "3")),
    "double_zero": (("0", "1", "2"), ("0", "00", "2"), ("00", "2", "3")),
}
_SIGNO_CORNERS = {"single_zero": (("0", "1", "2", "3"),), "double_zero": ()}
_FIVE_NUMBERS = {"single_zero": (), "double_zero": (("0", "00", "1", "2", "3"),)}


def _sets(groups: Iterable[Iterable[str]]) -> frozenset[frozenset[str]]:
    return frozenset(frozenset(g) for g in groups)


@dataclass(frozen=True)
class Layout:
    """The betting layout of one wheel and every inside-bet combination it allows.

    Attributes:
        wheel: "single_zero" or "double_zero".
        order: the pockets clockwise from 0 (``WHEEL_ORDERS[wheel]``).
        numbers: every pocket of the wheel, signos included.
        signos: the zero pockets: ("0",) or ("0", "00").
        splits, streets, corners, five_numbers, six_lines: each allowed combination as a
            frozenset of numbers (``five_numbers`` is empty on the single-zero layout).
    """

    wheel: str
    order: tuple[str, ...]
    numbers: frozenset[str]
    signos: tuple[str, ...]
    splits: frozenset[frozenset[str]]
    streets: frozenset[frozenset[str]]
    corners: frozenset[frozenset[str]]
    five_numbers: frozenset[frozenset[str]]
    six_lines: frozenset[frozenset[str]]


@cache
def layout_for(wheel: str) -> Layout:
    """The layout of ``wheel`` ("single_zero" or "double_zero"), built once and shared.

    Raises:
        ValueError: ``wheel`` is not a key of ``WHEEL_ORDERS``.
    """
    if wheel not in WHEEL_ORDERS:
        raise ValueError(f"unknown wheel {wheel!r}; expected {one_of(sorted(WHEEL_ORDERS))}")
    order = WHEEL_ORDERS[wheel]
    # Row r holds 3r+1..3r+3; columns run down the rows (1st column 1, 4, ..., 34).
    across = [(str(n), str(n + 1)) for n in range(1, 37) if n % 3 != 0]
    down = [(str(n), str(n + 3)) for n in range(1, 34)]
    corners = [(str(n), str(n + 1), str(n + 3), str(n + 4)) for n in range(1, 33) if n % 3 != 0]
    return Layout(
        wheel=wheel,
        order=order,
        numbers=frozenset(order),
        signos=tuple(p for p in ("0", "00") if p in order),
        splits=_sets([*across, *down, *_SIGNO_SPLITS[wheel]]),
        streets=frozenset(_ROWS) | _sets(_SIGNO_STREETS[wheel]),
        corners=_sets([*corners, *_SIGNO_CORNERS[wheel]]),
        five_numbers=_sets(_FIVE_NUMBERS[wheel]),
        six_lines=frozenset(a | b for a, b in pairwise(_ROWS)),
    )


@dataclass(frozen=True)
class RouletteBet:
    """One validated bet on the layout (build it with ``make_bet``).

    Attributes:
        kind: one of ``BET_KINDS``.
        box: the betting position, from 1.
        amount: the stake in chips, > 0.
        covered: the numbers the bet wins on (never a signo for an outside bet).
        wheel: the wheel the bet was validated against.
        numbers: the numbers as the player named them (empty for outside bets), for the record.
        which: 1..3 for column and dozen, else None, for the record.
    """

    kind: str
    box: int
    amount: int
    covered: frozenset[str]
    wheel: str
    numbers: tuple[str, ...] = ()
    which: int | None = None

    @property
    def payout(self) -> int:
        """The "a" of "a to 1" for this kind (``PAYOUT_TO_ONE``)."""
        return PAYOUT_TO_ONE[self.kind]


def _malformed(message: str) -> RuleViolation:
    return RuleViolation("malformed_bet", message)


def _whole(value: object) -> TypeGuard[int]:
    # bool is an int subclass, but True chips or box True is a caller bug, not 1.
    return isinstance(value, int) and not isinstance(value, bool)


# Even-money bets ("apuestas simples"): fixed sets of 1..36, so they lose on every signo.
_EVEN_MONEY: dict[str, frozenset[str]] = {
    "red": RED,
    "black": frozenset(str(n) for n in range(1, 37)) - RED,
    "even": frozenset(str(n) for n in range(2, 37, 2)),
    "odd": frozenset(str(n) for n in range(1, 37, 2)),
    "low": frozenset(str(n) for n in range(1, 19)),
    "high": frozenset(str(n) for n in range(19, 37)),
}


def _column_or_dozen(kind: str, which: int) -> frozenset[str]:
    if kind == "column":
        return frozenset(str(n) for n in range(which, 37, 3))
    return frozenset(str(n) for n in range(12 * which - 11, 12 * which + 1))


def _inside_allowed(layout: Layout, kind: str) -> frozenset[frozenset[str]]:
    return {
        "split": layout.splits,
        "street": layout.streets,
        "corner": layout.corners,
        "five_numbers": layout.five_numbers,
        "six_line": layout.six_lines,
    }[kind]


_SHAPE_ERRORS = {
    "split": "numbers not adjacent on the layout",
    "street": "not a row of three nor a signo junction of the layout",
    "corner": "numbers do not meet at one point of the layout",
    "five_numbers": "only 0-00-1-2-3 is a five-number bet",
    "six_line": "not two adjacent rows of three",
}


def make_bet(
    layout: Layout,
    kind: str,
    box: int,
    amount: int,
    numbers: Sequence[str] | None = None,
    which: int | None = None,
) -> RouletteBet:
    """Validate one bet against ``layout`` (seed 001 Art. 13) and return it.

    Kinds and their shape (Spanish terms from the seed):

    - straight, "pleno": one number or signo of the layout.
    - split, "semi-pleno": two numbers side by side or one above the other on the layout,
      or, since the seed allows "dos signos o [...] un número y un signo", these signo
      splits: single zero 0-1, 0-2, 0-3 (0 heads the whole row 1-2-3); double zero 0-1,
      0-2, 00-2, 00-3, 0-00. The double-zero set follows from the seed's street junctions
      "1-0-2", "2-00-3" and "0-2-00": 0 borders 1 and 2, 00 borders 2 and 3, and 0 borders
      00; 0-3 is refused there because 0 does not touch 3.
    - street, "calle": a row of three (1-2-3 ... 34-35-36), or a junction the seed lists,
      placed per RULES.md: single zero 0-1-2 and 0-2-3; double zero 0-1-2, 0-00-2, 00-2-3.
    - corner, "cuadro": four numbers meeting at one point; also 0-1-2-3 on the single-zero
      layout only (on the double-zero layout that spot is the five-number bet).
    - five_numbers, "línea de tres números y dos signos": exactly 0-00-1-2-3, double zero
      only.
    - six_line, "línea": two adjacent rows of three.
    - column, "columna", and dozen, "docena": ``which`` 1, 2 or 3 and no numbers.
    - red/black "color rojo o negro", even/odd "par o impar", low/high "menor o mayor"
      (1-18 / 19-36): neither numbers nor ``which``.

    Numbers may be given in any order; an empty ``numbers`` counts as none. Outside bets
    (column, dozen and the even-money bets) never cover a signo, so they lose on 0 and 00.

    Args:
        layout: from ``layout_for``.
        kind: one of ``BET_KINDS``.
        box: betting position, an int >= 1.
        amount: stake in chips, an int > 0.
        numbers: for straight ... six_line, the numbers covered, as strings.
        which: for column and dozen, 1, 2 or 3.

    Raises:
        RuleViolation: code "unknown_bet_kind" if ``kind`` is not in ``BET_KINDS``;
            code "malformed_bet" for a bad box or amount, numbers or ``which`` given to a
            kind that takes none or missing where needed, a wrong count, a duplicate, a
            number not on the layout, or a shape the layout does not allow. The message
            names the bet and what is wrong, e.g. "split 17-21: numbers not adjacent on
            the layout".
    """
    if kind not in PAYOUT_TO_ONE:
        raise RuleViolation(
            "unknown_bet_kind",
            f"unknown roulette bet kind {spelt(kind)}; the kinds: {', '.join(BET_KINDS)}"
        )
    if not _whole(box) or box < 1:
        raise _malformed(f"{kind}: box must be an integer >= 1, got {spelt(box)}")
    if not _whole(amount) or amount <= 0:
        raise _malformed(f"{kind}: amount must be a whole number of chips > 0, "
                         f"got {spelt(amount)}")

    if isinstance(numbers, str):
        raise _malformed(f"{kind}: numbers must be a list of strings, got {spelt(numbers)}")
    given = tuple(numbers or ())
    if kind not in NUMBER_COUNTS:
        if given:
            raise _malformed(f"{kind}: takes no numbers, got {spelt(list(given))}")
        if kind in WHICH_KINDS:
            if not _whole(which) or which not in (1, 2, 3):
                raise _malformed(f"{kind}: which must be 1, 2 or 3, got {spelt(which)}")
            covered = _column_or_dozen(kind, which)
        elif which is not None:
            raise _malformed(f"{kind}: takes no which, got {spelt(which)}")
        else:
            covered = _EVEN_MONEY[kind]
        return RouletteBet(kind, box, amount, covered, layout.wheel, (), which)

    if which is not None:
        raise _malformed(f"{kind}: takes no which, got {spelt(which)}")
    for n in given:
        if not isinstance(n, str):
            raise _malformed(f"{kind}: numbers must be strings, got {spelt(n)}")
    label = f"{kind} {'-'.join(given)}" if given else kind
    count = NUMBER_COUNTS[kind]
    if len(given) != count:
        plural = "s" if count > 1 else ""
        raise _malformed(f"{label}: needs {count} number{plural}, got {len(given)}")
    for n in given:
        if given.count(n) > 1:
            raise _malformed(f"{label}: number {n} given twice")
        if n not in layout.numbers:
            raise _malformed(f"{label}: {n} is not on the {layout.wheel} layout")
    if kind == "five_numbers" and not layout.five_numbers:
        raise _malformed(f"{label}: the five-number bet exists only on the double_zero layout")
    # A straight is any pocket, already checked above; the others must fit the geometry.
    if kind != "straight" and frozenset(given) not in _inside_allowed(layout, kind):
        raise _malformed(f"{label}: {_SHAPE_ERRORS[kind]}")
    return RouletteBet(kind, box, amount, frozenset(given), layout.wheel, given, None)


def settle(bet: RouletteBet, number: str) -> tuple[str, int]:
    """Settle ``bet`` on the winning pocket ``number``.

    Returns:
        ("win", amount × payout) in chips won on top of the returned stake, or
        ("lose", -amount).

    Raises:
        ValueError: ``number`` is not a pocket of the bet's wheel.
    """
    if number not in layout_for(bet.wheel).numbers:
        raise ValueError(f"{spelt(number)} is not a pocket of the {bet.wheel} wheel")
    if number in bet.covered:
        return ("win", bet.amount * bet.payout)
    return ("lose", -bet.amount)


def push(bet: RouletteBet) -> tuple[str, int]:
    """("push", 0): the stake is returned, as on an invalid throw (RULES.md Art. 13 Decision)."""
    return ("push", 0)
