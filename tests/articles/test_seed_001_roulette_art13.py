"""Seed 001 Art. 13, "escala de pagos": the layout's bets and what each pays ("a to 1": the
stake back and a times it), on controller.games.roulette.layout, then through the whole
controller (``replay`` of a CONTRACT §1 trace, tests/conftest.py, or the shared example).
Expected values are written by hand from the seed's Art. 13 text (quoted), RULES.md §1 and
../shared/data/wheels.md, or derived with test-side geometry: never from the code under test.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import combinations

import pytest
from conftest import ORDERS, SIGNOS, TRACES, Event, Replay, ReplayFn, one_spin
from hypothesis import given
from hypothesis import strategies as st

from controller.core.errors import RuleViolation
from controller.games.roulette.layout import (
    BET_KINDS,
    PAYOUT_TO_ONE,
    RED,
    layout_for,
    make_bet,
    push,
    settle,
)

WHEELS = ("single_zero", "double_zero")

# Seed 001 Art. 13, "Color rojo" / "Color negro" lists.
HAND_RED = {str(n) for n in (1, 3, 5, 7, 9, 12, 14, 16, 18, 19, 21, 23, 25, 27, 30, 32, 34, 36)}
HAND_BLACK = {str(n) for n in (2, 4, 6, 8, 10, 11, 13, 15, 17, 20, 22, 24, 26, 28, 29, 31, 33, 35)}
# Seed 001 Art. 13, "Columnas" and "Docenas".
HAND_COLUMNS = {
    1: {str(n) for n in (1, 4, 7, 10, 13, 16, 19, 22, 25, 28, 31, 34)},
    2: {str(n) for n in (2, 5, 8, 11, 14, 17, 20, 23, 26, 29, 32, 35)},
    3: {str(n) for n in (3, 6, 9, 12, 15, 18, 21, 24, 27, 30, 33, 36)},
}
HAND_DOZENS = {1: {str(n) for n in range(1, 13)}, 2: {str(n) for n in range(13, 25)},
               3: {str(n) for n in range(25, 37)}}  # fmt: skip
HAND_EVEN_MONEY = {
    "red": HAND_RED,
    "black": HAND_BLACK,
    "even": {str(n) for n in range(1, 37) if n % 2 == 0},
    "odd": {str(n) for n in range(1, 37) if n % 2 == 1},
    "low": {str(n) for n in range(1, 19)},
    "high": {str(n) for n in range(19, 37)},
}

# Combinations with signos, RULES.md Art. 13 and the brief (see make_bet's docstring).
HAND_SIGNO_SPLITS = {
    "single_zero": [{"0", "1"}, {"0", "2"}, {"0", "3"}],
    "double_zero": [{"0", "1"}, {"0", "2"}, {"00", "2"}, {"00", "3"}, {"0", "00"}],
}
HAND_SIGNO_STREETS = {
    "single_zero": [{"0", "1", "2"}, {"0", "2", "3"}],
    "double_zero": [{"0", "1", "2"}, {"0", "00", "2"}, {"00", "2", "3"}],
}
HAND_SIGNO_CORNERS = {"single_zero": [{"0", "1", "2", "3"}], "double_zero": []}
HAND_FIVE = {"single_zero": [], "double_zero": [{"0", "00", "1", "2", "3"}]}

ONE_TO_36 = [str(n) for n in range(1, 37)]


def cell(n: str) -> tuple[int, int]:
    """(row, column) on the table: row 0 is 1-2-3, column 0 is the 1st column."""
    k = int(n)
    return (k - 1) // 3, (k - 1) % 3


def expected_combos(wheel: str, kind: str) -> set[frozenset[str]]:
    """Every valid inside bet of ``kind`` on ``wheel``, from test-side geometry."""
    if kind == "straight":
        return {frozenset({p}) for p in ORDERS[wheel]}
    if kind == "split":
        pairs = [
            {a, b}
            for a, b in combinations(ONE_TO_36, 2)
            if abs(cell(a)[0] - cell(b)[0]) + abs(cell(a)[1] - cell(b)[1]) == 1
        ]
        return {frozenset(s) for s in pairs + HAND_SIGNO_SPLITS[wheel]}
    if kind == "street":
        rows = [{str(3 * r + c + 1) for c in range(3)} for r in range(12)]
        return {frozenset(s) for s in rows + HAND_SIGNO_STREETS[wheel]}
    if kind == "corner":
        blocks = [
            {str(3 * (r + dr) + c + dc + 1) for dr in (0, 1) for dc in (0, 1)}
            for r in range(11)
            for c in range(2)
        ]
        return {frozenset(s) for s in blocks + HAND_SIGNO_CORNERS[wheel]}
    if kind == "five_numbers":
        return {frozenset(s) for s in HAND_FIVE[wheel]}
    assert kind == "six_line"
    return {frozenset(str(n) for n in range(3 * r + 1, 3 * r + 7)) for r in range(11)}


def assert_settles(
    wheel: str,
    kind: str,
    numbers: list[str] | None,
    which: int | None,
    winners: set[str],
    pays: int,
) -> None:
    """On every pocket of ``wheel`` the bet wins amount × pays exactly on ``winners``."""
    for amount in (1, 7):
        bet = make_bet(layout_for(wheel), kind, 3, amount, numbers, which)
        assert bet.covered == winners
        for pocket in ORDERS[wheel]:
            want = ("win", amount * pays) if pocket in winners else ("lose", -amount)
            assert settle(bet, pocket) == want, pocket


# ---- the layout's bets -------------------------------------------------------------------
def test_art_13c_red_is_the_seed_list() -> None:
    assert RED == HAND_RED
    assert set(ONE_TO_36) == HAND_RED | HAND_BLACK
    assert not HAND_RED & HAND_BLACK


# ---- payouts, win and lose per kind ---------------------------------------------------------


def test_art_13abc_payout_table() -> None:
    assert PAYOUT_TO_ONE == {
        "straight": 35, "split": 17, "street": 11, "corner": 8, "five_numbers": 6,
        "six_line": 5, "column": 2, "dozen": 2, "red": 1, "black": 1, "even": 1, "odd": 1,
        "low": 1, "high": 1,
    }  # fmt: skip
    assert set(BET_KINDS) == set(PAYOUT_TO_ONE)


BOTH = WHEELS
SZ = ("single_zero",)
DZ = ("double_zero",)


def cases(*rows: tuple[tuple[str, ...], list[str]]) -> list[tuple[str, list[str]]]:
    """Expand (wheels, numbers) rows into (wheel, numbers) parameters."""
    return [(wheel, numbers) for wheels, numbers in rows for wheel in wheels]


@pytest.mark.parametrize(
    ("wheel", "numbers"),
    cases((BOTH, ["17"]), (BOTH, ["0"]), (BOTH, ["36"]), (BOTH, ["1"]), (DZ, ["00"])),
)
def test_art_13a_straight_pays_35_to_1(wheel: str, numbers: list[str]) -> None:
    assert_settles(wheel, "straight", numbers, None, set(numbers), 35)


@pytest.mark.parametrize(
    ("wheel", "numbers"),
    cases(
        (BOTH, ["17", "20"]), (BOTH, ["20", "17"]), (BOTH, ["1", "2"]), (BOTH, ["35", "36"]),
        (BOTH, ["33", "36"]), (BOTH, ["0", "1"]), (BOTH, ["2", "0"]), (SZ, ["0", "3"]),
        (DZ, ["00", "2"]), (DZ, ["3", "00"]), (DZ, ["00", "0"]),
    ),
)  # fmt: skip
def test_art_13a_split_pays_17_to_1(wheel: str, numbers: list[str]) -> None:
    assert_settles(wheel, "split", numbers, None, set(numbers), 17)


@pytest.mark.parametrize(
    ("wheel", "numbers"),
    cases(
        (BOTH, ["1", "2", "3"]), (BOTH, ["36", "34", "35"]), (BOTH, ["16", "17", "18"]),
        (BOTH, ["1", "0", "2"]), (SZ, ["2", "0", "3"]), (DZ, ["0", "2", "00"]),
        (DZ, ["2", "00", "3"]),
    ),
)  # fmt: skip
def test_art_13a_street_pays_11_to_1(wheel: str, numbers: list[str]) -> None:
    assert_settles(wheel, "street", numbers, None, set(numbers), 11)


@pytest.mark.parametrize(
    ("wheel", "numbers"),
    cases(
        (BOTH, ["1", "2", "4", "5"]), (BOTH, ["5", "6", "8", "9"]),
        (BOTH, ["36", "32", "35", "33"]), (SZ, ["0", "1", "2", "3"]), (SZ, ["3", "2", "1", "0"]),
    ),
)  # fmt: skip
def test_art_13a_corner_pays_8_to_1(wheel: str, numbers: list[str]) -> None:
    assert_settles(wheel, "corner", numbers, None, set(numbers), 8)


@pytest.mark.parametrize("numbers", [["0", "00", "1", "2", "3"], ["3", "2", "1", "00", "0"]])
def test_art_13a_five_numbers_pays_6_to_1(numbers: list[str]) -> None:
    assert_settles("double_zero", "five_numbers", numbers, None, set(numbers), 6)


@pytest.mark.parametrize(
    ("wheel", "numbers"),
    cases(
        (BOTH, ["1", "2", "3", "4", "5", "6"]), (BOTH, ["31", "32", "33", "34", "35", "36"]),
        (BOTH, ["18", "13", "17", "14", "16", "15"]),
    ),
)  # fmt: skip
def test_art_13a_six_line_pays_5_to_1(wheel: str, numbers: list[str]) -> None:
    assert_settles(wheel, "six_line", numbers, None, set(numbers), 5)


@pytest.mark.parametrize("wheel", WHEELS)
@pytest.mark.parametrize("which", [1, 2, 3])
def test_art_13b_column_pays_2_to_1(wheel: str, which: int) -> None:
    assert_settles(wheel, "column", None, which, HAND_COLUMNS[which], 2)


@pytest.mark.parametrize("wheel", WHEELS)
@pytest.mark.parametrize("which", [1, 2, 3])
def test_art_13b_dozen_pays_2_to_1(wheel: str, which: int) -> None:
    assert_settles(wheel, "dozen", None, which, HAND_DOZENS[which], 2)


@pytest.mark.parametrize("wheel", WHEELS)
@pytest.mark.parametrize("kind", sorted(HAND_EVEN_MONEY))
def test_art_13c_even_money_pays_1_to_1(wheel: str, kind: str) -> None:
    assert_settles(wheel, kind, None, None, HAND_EVEN_MONEY[kind], 1)


@pytest.mark.parametrize("wheel", WHEELS)
@pytest.mark.parametrize(
    ("kind", "which"),
    [("column", 1), ("column", 2), ("column", 3), ("dozen", 1), ("dozen", 2), ("dozen", 3)]
    + [(kind, None) for kind in sorted(HAND_EVEN_MONEY)],
)
def test_art_13bc_outside_bets_lose_on_every_signo(wheel: str, kind: str,
                                                   which: int | None) -> None:
    bet = make_bet(layout_for(wheel), kind, 1, 10, None, which)
    for signo in sorted(SIGNOS[wheel]):
        assert settle(bet, signo) == ("lose", -10)


# ---- which combinations the layout accepts --------------------------------------------------


def accepted(wheel: str, kind: str, size: int) -> set[frozenset[str]]:
    layout = layout_for(wheel)
    found = set()
    for combo in combinations(ORDERS[wheel], size):
        try:
            found.add(make_bet(layout, kind, 1, 1, list(combo)).covered)
        except RuleViolation as e:
            assert e.code == "malformed_bet"
    return found


@pytest.mark.parametrize(
    ("wheel", "kind", "size", "count"),
    [
        # 24 across + 33 down, plus the signo combinations listed by hand above.
        ("single_zero", "straight", 1, 37), ("double_zero", "straight", 1, 38),
        ("single_zero", "split", 2, 60), ("double_zero", "split", 2, 62),
        ("single_zero", "street", 3, 14), ("double_zero", "street", 3, 15),
        ("single_zero", "corner", 4, 23), ("double_zero", "corner", 4, 22),
    ],
)  # fmt: skip
def test_art_13a_layout_accepts_exactly_the_regulation_combinations(
    wheel: str, kind: str, size: int, count: int
) -> None:
    found = accepted(wheel, kind, size)
    assert found == expected_combos(wheel, kind)
    assert len(found) == count


@pytest.mark.parametrize("wheel", WHEELS)
def test_art_13a_six_line_is_two_adjacent_rows(wheel: str) -> None:
    rows = [[str(n) for n in range(3 * r + 1, 3 * r + 4)] for r in range(12)]
    layout = layout_for(wheel)
    for i, j in combinations(range(12), 2):
        numbers = rows[i] + rows[j]
        if j == i + 1:
            assert make_bet(layout, "six_line", 1, 1, numbers).covered == set(numbers)
        else:
            with pytest.raises(RuleViolation, match="not two adjacent rows"):
                make_bet(layout, "six_line", 1, 1, numbers)


# ---- refusals -------------------------------------------------------------------------------

REFUSALS = [
    # (wheel, kind, numbers, which, amount, box, code, message fragment)
    ("single_zero", "basket", ["0", "1"], None, 5, 1, "unknown_bet_kind", "'basket'"),
    ("single_zero", "Straight", ["1"], None, 5, 1, "unknown_bet_kind", "'Straight'"),
    ("single_zero", "split", ["17", "21"], None, 5, 1, "malformed_bet",
     "split 17-21: numbers not adjacent on the layout"),
    ("double_zero", "split", ["3", "4"], None, 5, 1, "malformed_bet", "not adjacent"),
    ("double_zero", "split", ["0", "3"], None, 5, 1, "malformed_bet", "not adjacent"),
    ("double_zero", "split", ["00", "1"], None, 5, 1, "malformed_bet", "not adjacent"),
    ("single_zero", "split", ["0", "00"], None, 5, 1, "malformed_bet",
     "00 is not on the single_zero layout"),
    ("single_zero", "split", ["0", "4"], None, 5, 1, "malformed_bet", "not adjacent"),
    ("single_zero", "split", ["17", "17"], None, 5, 1, "malformed_bet", "17 given twice"),
    ("single_zero", "straight", ["37"], None, 5, 1, "malformed_bet",
     "37 is not on the single_zero layout"),
    ("double_zero", "straight", ["000"], None, 5, 1, "malformed_bet", "000 is not on"),
    ("single_zero", "straight", ["00"], None, 5, 1, "malformed_bet", "00 is not on"),
    ("single_zero", "straight", ["07"], None, 5, 1, "malformed_bet", "07 is not on"),
    ("single_zero", "straight", None, None, 5, 1, "malformed_bet", "needs 1 number, got 0"),
    ("single_zero", "straight", [], None, 5, 1, "malformed_bet", "needs 1 number, got 0"),
    ("single_zero", "straight", ["1", "2"], None, 5, 1, "malformed_bet",
     "needs 1 number, got 2"),
    ("single_zero", "straight", [17], None, 5, 1, "malformed_bet", "must be strings"),
    ("single_zero", "straight", "17", None, 5, 1, "malformed_bet", "list of strings"),
    ("single_zero", "straight", ["17"], 1, 5, 1, "malformed_bet", "takes no which"),
    ("single_zero", "split", ["1"], None, 5, 1, "malformed_bet", "needs 2 numbers, got 1"),
    ("single_zero", "street", ["1", "2", "4"], None, 5, 1, "malformed_bet", "not a row"),
    ("single_zero", "street", ["3", "4", "5"], None, 5, 1, "malformed_bet", "not a row"),
    ("double_zero", "street", ["0", "2", "3"], None, 5, 1, "malformed_bet", "not a row"),
    ("double_zero", "street", ["00", "1", "2"], None, 5, 1, "malformed_bet", "not a row"),
    ("single_zero", "street", ["0", "1", "3"], None, 5, 1, "malformed_bet", "not a row"),
    ("single_zero", "street", ["1", "2", "3", "4"], None, 5, 1, "malformed_bet",
     "needs 3 numbers, got 4"),
    ("double_zero", "corner", ["0", "1", "2", "3"], None, 5, 1, "malformed_bet",
     "do not meet at one point"),
    ("single_zero", "corner", ["3", "4", "6", "7"], None, 5, 1, "malformed_bet",
     "do not meet at one point"),
    ("single_zero", "corner", ["1", "2", "3", "4"], None, 5, 1, "malformed_bet",
     "do not meet at one point"),
    ("single_zero", "five_numbers", ["0", "00", "1", "2", "3"], None, 5, 1, "malformed_bet",
     "00 is not on the single_zero layout"),
    ("single_zero", "five_numbers", ["0", "1", "2", "3", "4"], None, 5, 1, "malformed_bet",
     "only on the double_zero layout"),
    ("double_zero", "five_numbers", ["0", "00", "1", "2", "4"], None, 5, 1, "malformed_bet",
     "only 0-00-1-2-3"),
    ("double_zero", "five_numbers", ["0", "00", "1", "2"], None, 5, 1, "malformed_bet",
     "needs 5 numbers, got 4"),
    ("single_zero", "six_line", ["1", "2", "3", "7", "8", "9"], None, 5, 1, "malformed_bet",
     "not two adjacent rows"),
    ("single_zero", "six_line", ["0", "1", "2", "3", "4", "5"], None, 5, 1, "malformed_bet",
     "not two adjacent rows"),
    ("single_zero", "six_line", ["1", "2", "3"], None, 5, 1, "malformed_bet",
     "needs 6 numbers, got 3"),
    ("single_zero", "column", None, None, 5, 1, "malformed_bet", "which must be 1, 2 or 3"),
    ("single_zero", "column", None, 0, 5, 1, "malformed_bet", "which must be 1, 2 or 3"),
    ("double_zero", "column", None, 4, 5, 1, "malformed_bet", "which must be 1, 2 or 3"),
    ("double_zero", "dozen", None, "2", 5, 1, "malformed_bet", "which must be 1, 2 or 3"),
    ("double_zero", "dozen", None, True, 5, 1, "malformed_bet", "which must be 1, 2 or 3"),
    ("double_zero", "dozen", ["1"], 1, 5, 1, "malformed_bet", "takes no numbers"),
    ("single_zero", "red", ["1"], None, 5, 1, "malformed_bet", "takes no numbers"),
    ("single_zero", "odd", None, 1, 5, 1, "malformed_bet", "takes no which"),
    ("single_zero", "straight", ["1"], None, 0, 1, "malformed_bet", "amount"),
    ("single_zero", "red", None, None, -5, 1, "malformed_bet", "amount"),
    ("single_zero", "red", None, None, 2.5, 1, "malformed_bet", "amount"),
    ("single_zero", "red", None, None, True, 1, "malformed_bet", "amount"),
    ("single_zero", "red", None, None, "10", 1, "malformed_bet", "amount"),
    ("single_zero", "red", None, None, 5, 0, "malformed_bet", "box"),
    ("single_zero", "red", None, None, 5, -1, "malformed_bet", "box"),
    ("single_zero", "red", None, None, 5, 1.0, "malformed_bet", "box"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("wheel", "kind", "numbers", "which", "amount", "box", "code", "fragment"), REFUSALS
)
def test_art_13_malformed_bets_are_refused(
    wheel: str,
    kind: str,
    numbers: object,
    which: object,
    amount: object,
    box: object,
    code: str,
    fragment: str,
) -> None:
    with pytest.raises(RuleViolation) as caught:
        make_bet(layout_for(wheel), kind, box, amount, numbers, which)  # type: ignore[arg-type]
    assert caught.value.code == code
    assert fragment in caught.value.message


def test_art_13_decision_invalid_throw_pushes() -> None:
    assert push(make_bet(layout_for("double_zero"), "straight", 1, 5, ["00"])) == ("push", 0)


# ---- house edge anchors (baccarat-exact.md, "Other anchors") --------------------------------


def house_edge(
    wheel: str, kind: str, numbers: list[str] | None, which: int | None, amount: int = 10
) -> Fraction:
    """Minus the expected result per chip staked, summed over every pocket via settle()."""
    bet = make_bet(layout_for(wheel), kind, 1, amount, numbers, which)
    total = sum(settle(bet, pocket)[1] for pocket in ORDERS[wheel])
    return -Fraction(total, amount * len(ORDERS[wheel]))


@pytest.mark.parametrize(
    ("wheel", "kind", "numbers", "which", "percent", "exact"),
    [
        ("single_zero", "straight", ["17"], None, 2.70, Fraction(1, 37)),
        ("double_zero", "straight", ["17"], None, 5.26, Fraction(2, 38)),
        ("double_zero", "five_numbers", ["0", "00", "1", "2", "3"], None, 7.89, Fraction(3, 38)),
        ("single_zero", "red", None, None, 2.70, Fraction(1, 37)),
        ("double_zero", "dozen", None, 3, 5.26, Fraction(2, 38)),
    ],
)
def test_art_13abc_house_edge_anchors(
    wheel: str,
    kind: str,
    numbers: list[str] | None,
    which: int | None,
    percent: float,
    exact: Fraction,
) -> None:
    edge = house_edge(wheel, kind, numbers, which)
    assert edge == exact
    assert round(float(edge) * 100, 2) == percent


INSIDE = ("straight", "split", "street", "corner", "five_numbers", "six_line")
VALID_BETS = [
    (wheel, kind, sorted(combo), None)
    for wheel in WHEELS
    for kind in INSIDE
    for combo in sorted(expected_combos(wheel, kind), key=sorted)
] + [
    (wheel, kind, None, which)
    for wheel in WHEELS
    for kind, which in [(k, w) for k in ("column", "dozen") for w in (1, 2, 3)]
    + [(k, None) for k in sorted(HAND_EVEN_MONEY)]
]
# Every bet carries the wheel's edge (2.70% / 5.26%) except 0-00-1-2-3 (7.89%).
ANCHOR_EDGE = {"single_zero": Fraction(1, 37), "double_zero": Fraction(2, 38)}


@st.composite
def valid_bets(draw: st.DrawFn) -> tuple[str, str, list[str] | None, int | None, int]:
    """A valid bet of any kind, its numbers in any order, any stake."""
    wheel, kind, numbers, which = draw(st.sampled_from(VALID_BETS))
    if numbers is not None:
        numbers = draw(st.permutations(numbers))
    return wheel, kind, numbers, which, draw(st.integers(1, 10_000))


@given(valid_bets())
def test_art_13abc_every_valid_bet_has_the_anchor_edge(
    bet: tuple[str, str, list[str] | None, int | None, int],
) -> None:
    wheel, kind, numbers, which, amount = bet
    want = Fraction(3, 38) if kind == "five_numbers" else ANCHOR_EDGE[wheel]
    assert house_edge(wheel, kind, numbers, which, amount) == want


# ---- settled through the whole controller -----------------------------------------------------
def settled(res: Replay) -> list[tuple[int, str, int, str, float]]:
    return sorted((s["box"], s["kind"], s["amount"], s["outcome"], s["payout"])
                  for s in res.of("settlement"))


def test_art_13ac_example_trace_straight_on_00_pays_35_and_red_loses(replay: ReplayFn) -> None:
    # ../shared/traces/README.md, spin 2: the ball rests in 00; straight on 00 (box 1, 10)
    # and red (box 2, 20). 00 is a signo, not red (Art. 13 c lists the red numbers).
    res = replay(TRACES / "roulette-two-spins.jsonl")
    assert res.rc == 0
    assert [o.get("number") for o in res.outcomes] == ["20", "00"]
    got = sorted((s["game"], s["box"], s["kind"], s["amount"], s["outcome"], s["payout"])
                 for s in res.of("settlement"))  # none for spin 1: no bet on it
    assert got == [(2, 1, "straight", 10, "win", 35 * 10), (2, 2, "red", 20, "lose", -20)]


@pytest.mark.parametrize("pocket", [5, 14, 30])
def test_art_13b_the_number_s_column_and_dozen_pay_2_to_1_the_others_lose(
        replay: ReplayFn, pocket: int) -> None:
    # "1era. Columna : 1, 4, 7, ... 34"; "1era. Docena : Del numero 1 al 12" (HAND_*, above).
    number = ORDERS["single_zero"][pocket]
    bets: list[Event] = []
    for i, which in enumerate((1, 2, 3)):
        bets.append({"t": 0.3 + i / 10, "bet": "column", "box": which, "amount": 10,
                     "which": which})
        bets.append({"t": 0.35 + i / 10, "bet": "dozen", "box": which, "amount": 5,
                     "which": which})
    tb, _ = one_spin(pocket=pocket, bets=bets)
    res = replay(tb)
    assert res.rc == 0
    assert res.outcome()["number"] == number
    expected = []
    for which in (1, 2, 3):
        expected.append((which, "column", 10, *(("win", 20) if number in HAND_COLUMNS[which]
                                                else ("lose", -10))))
        expected.append((which, "dozen", 5, *(("win", 10) if number in HAND_DOZENS[which]
                                              else ("lose", -5))))
    assert settled(res) == sorted(expected)


@pytest.mark.parametrize("pocket", [1, 2, 23])
def test_art_13c_red_and_black_by_the_seed_s_list_pay_1_to_1(replay: ReplayFn,
                                                             pocket: int) -> None:
    # "Color rojo: 1, 3, 5, 7, 9, 12, 14, 16, 18, 19, 21, 23, 25, 27, 30, 32, 34 y 36".
    number = ORDERS["single_zero"][pocket]
    bets: tuple[Event, ...] = ({"t": 0.5, "bet": "red", "box": 1, "amount": 20},
                               {"t": 0.6, "bet": "black", "box": 2, "amount": 20})
    tb, _ = one_spin(pocket=pocket, bets=bets)
    res = replay(tb)
    assert res.rc == 0
    assert res.outcome()["number"] == number
    red_wins = number in HAND_RED
    assert settled(res) == [(1, "red", 20, *(("win", 20) if red_wins else ("lose", -20))),
                            (2, "black", 20, *(("lose", -20) if red_wins else ("win", 20)))]
