"""Mini-Bacará's five roads on the table's screen: the cases where public implementations
disagree (issue 17), each expected road worked out by hand here from the convention
pinned in controller/games/mini_baccarat/roads.py (logical columns, a standoff counted on
the cell before it, the big eye boy from column 2 row 2 or column 3 row 1, the small road
and the cockroach pig one and two columns further).

B = banca, P = punto, T = standoff (the outcome of the first box dealt, the road's hand).
"""

from __future__ import annotations

from typing import Any

from controller.cli.compose import load_config
from controller.games.mini_baccarat.display import MiniBaccaratView

CONFIG = load_config("embedded:mini-baccarat-sim.toml")
WORD = {"B": "banca", "P": "punto", "T": "standoff"}


def _view(coups: str) -> MiniBaccaratView:
    """The screen after one coup per letter of ``coups``."""
    view = MiniBaccaratView(CONFIG, "en", 100)
    for n, letter in enumerate(coups, 1):
        view.feed({"type": "coup_start", "coup": n, "decks": 4, "min_bet": 5,
                   "max_bet": 1000})
        view.feed({"type": "coup_result", "coup": n,
                   "banca": {"cards": [], "total": 0, "natural": False},
                   "boxes": [{"box": 1, "cards": [], "total": 0, "natural": False,
                              "outcome": WORD[letter]}]})
    return view


def _roads(coups: str) -> dict[str, Any]:
    return dict(_view(coups).view()["roads"])


def _e(letter: str, ties: int = 0) -> dict[str, Any]:
    return {"winner": WORD[letter], "ties": ties}


def _grid(view: MiniBaccaratView, name: str) -> list[tuple[int, int, str]]:
    panel = next(p for p in view.view()["panels"] if p.get("id") == name)
    return [(c["x"], c["y"], c["cls"]) for c in panel["cells"]]


def test_big_eye_boy_starts_at_column_2_row_2_blue_red_blue() -> None:
    # Big road: [B] [P P P] [B]. Column 2 row 2 (the second P) looks at column 1 beside
    # it: column 1 stopped at row 1, so blue; the third P: column 1 stopped earlier, red;
    # the B at column 3 row 1 compares columns 2 and 1: 3 and 1 long, blue.
    roads = _roads("BPPPB")
    assert roads["big_road"] == [[_e("B")], [_e("P")] * 3, [_e("B")]]
    assert roads["big_eye_boy"] == [["blue"], ["red"], ["blue"]]
    assert roads["small_road"] == [] and roads["cockroach_pig"] == []


def test_a_dragon_tail_is_one_logical_column() -> None:
    # Eight Bancas, three Puntos, a Banca, a Punto: logical columns 8, 3, 1, 1. The first
    # column's drawing turns right along the bottom row (the tail); the Puntos start at
    # the top of the second column; the derived roads read 8, not the drawn 6.
    view = _view("BBBBBBBBPPPBP")
    roads = view.view()["roads"]
    assert [len(c) for c in roads["big_road"]] == [8, 3, 1, 1]
    # Big eye boy: P rows 2 and 3 look at column 1 (8 long): it goes on, red, red. The B
    # (column 3 row 1) compares columns 2 and 1, 3 and 8 long: blue; the last P (column
    # 4 row 1) columns 3 and 2, 1 and 3: blue.
    assert roads["big_eye_boy"] == [["red", "red"], ["blue", "blue"]]
    # Small road: it starts at column 4 row 1 (columns 3 and 1: 1 and 8 long): blue.
    assert roads["small_road"] == [["blue"]]
    assert roads["cockroach_pig"] == []
    assert _grid(view, "big-road") == [
        (0, 0, "banca"), (0, 1, "banca"), (0, 2, "banca"), (0, 3, "banca"),
        (0, 4, "banca"), (0, 5, "banca"), (1, 5, "banca"), (2, 5, "banca"),
        (1, 0, "punto"), (1, 1, "punto"), (1, 2, "punto"), (2, 0, "banca"),
        (3, 0, "punto")]


def test_a_standoff_between_two_columns_adds_no_mark() -> None:
    # P B T T P: the two standoffs are counted on the B's cell; the big road is [P] [B]
    # [P], and the big eye boy's first mark (column 3 row 1: columns 2 and 1, both 1
    # long) is red.
    roads = _roads("PBTTP")
    assert roads["big_road"] == [[_e("P")], [_e("B", ties=2)], [_e("P")]]
    assert roads["bead_plate"] == [[_e("P"), _e("B"), _e("T"), _e("T"), _e("P")]]
    assert roads["big_eye_boy"] == [["red"]]


def test_standoffs_before_the_first_result_go_on_its_cell() -> None:
    roads = _roads("TTB")
    assert roads["big_road"] == [[_e("B", ties=2)]]
    assert roads["bead_plate"] == [[_e("T"), _e("T"), _e("B")]]
    assert roads["big_eye_boy"] == roads["small_road"] == roads["cockroach_pig"] == []


def test_a_long_shoe_scrolls_without_changing_the_roads() -> None:
    # B P thirty times: 60 columns of one. Every derived mark compares two columns of
    # one: all red, one column each (58, 57 and 56 marks: from columns 3, 4 and 5).
    view = _view("BP" * 30)
    roads = view.view()["roads"]
    assert roads["big_road"] == [[_e("B")], [_e("P")]] * 30
    assert roads["big_eye_boy"] == [["red"] * 58]
    assert roads["small_road"] == [["red"] * 57]
    assert roads["cockroach_pig"] == [["red"] * 56]
    # On screen the big road shows its last 24 columns (36 to 59: B, P, ...) from x = 0.
    assert _grid(view, "big-road") == [
        (x, 0, "banca" if x % 2 == 0 else "punto") for x in range(24)]
    # The big eye boy's one column is drawn 6 down then right along the bottom row to
    # x = 52; the screen shows x 29 to 52, the bottom row only.
    assert _grid(view, "big-eye-boy") == [(x, 5, "red") for x in range(24)]
    # The bead plate: 60 coups, 10 columns of 6, all on screen (12 wide).
    assert len(_grid(view, "bead-plate")) == 60


def test_the_roads_start_again_with_a_new_shoe() -> None:
    view = _view("BPB")
    view.feed({"type": "shoe_closed", "reason": "cut_card", "cards_left": 30})
    view.feed({"type": "coup_start", "coup": 4, "decks": 4, "min_bet": 5, "max_bet": 1000})
    assert view.view()["roads"]["bead_plate"] == []
    assert view.view()["shoe_counts"]["coups"] == 0
