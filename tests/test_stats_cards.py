"""The card games' surveillance figures (issue 21) against independent figures: the
published exact Mini-Bacará probabilities (../shared/data/baccarat-exact.md), naturals
counted card by card, the census of five-card hands, hand-worked χ² samples, and a
simulated table's journal read back with SQL."""

from __future__ import annotations

import io
import json
import sqlite3
from contextlib import redirect_stderr, redirect_stdout
from itertools import permutations
from pathlib import Path

import pytest
from conftest import run_replay

from controller.cli import main as cli
from controller.cli.tablectl import main as tablectl_main
from controller.games.blackjack.stats import BlackjackFold, exact, finished
from controller.games.draw_poker import stats as poker
from controller.games.mini_baccarat import stats as baccarat


def test_baccarat_exact_figures_are_the_published_ones() -> None:
    p = baccarat.exact()  # 4 decks, the box draws on five
    assert p["banca"] == pytest.approx(0.458761, abs=1e-6)
    assert p["punto"] == pytest.approx(0.446340, abs=1e-6)
    assert p["standoff"] == pytest.approx(0.094898, abs=1e-6)


def test_a_natural_is_two_cards_of_8_or_9_counted_card_by_card() -> None:
    shoe = [min(rank, 10) % 10 for rank in range(1, 14) for _ in range(16)]  # 4 decks
    pairs = [(a + b) % 10 >= 8 for a, b in permutations(shoe, 2)]
    assert baccarat.exact()["natural"] == pytest.approx(sum(pairs) / len(pairs), rel=1e-12)


def _coup(outcome: str, natural: bool = False) -> dict:
    return {"type": "coup_result", "coup": 1, "banca": {"natural": False},
            "boxes": [{"box": 3, "outcome": "punto"}, {"box": 1, "outcome": outcome,
                                                       "natural": natural}]}


def test_baccarat_counts_the_first_box_and_tests_by_chi_square() -> None:
    fold = baccarat.MiniBaccaratFold()
    p = baccarat.exact()
    # Exactly the expected counts of 100,000 coups, rounded: chi2 near 0.
    counts = {k: round(100_000 * p[k]) for k in baccarat.OUTCOMES}
    for outcome, n in counts.items():
        for _ in range(n):
            fold.fold(_coup(outcome))
    fig = fold.figures()
    assert fig["counts"] == counts  # box 1, not box 3
    assert fig["dof"] == 2 and fig["chi_square"] < 0.01 and fig["p_value"] > 0.99
    # All Banca: chi2 = n(1-pb)/pb*... worked: sum (o-e)^2/e with o = (n, 0, 0).
    fold = baccarat.MiniBaccaratFold()
    for _ in range(200):
        fold.fold(_coup("banca"))
    e = [200 * p[k] for k in baccarat.OUTCOMES]
    by_hand = (200 - e[0]) ** 2 / e[0] + e[1] + e[2]
    assert fold.figures()["chi_square"] == pytest.approx(by_hand, rel=1e-4)


def test_baccarat_few_coups_give_counts_and_no_test() -> None:
    fold = baccarat.MiniBaccaratFold()
    for outcome in ("banca", "punto", "standoff", "banca"):
        fold.fold(_coup(outcome))
    fig = fold.figures()
    assert fig["coups"] == 4 and fig["p_value"] is None and "no test made" in fig["test"]


def test_blackjack_dealer_hands_are_grouped_by_shoe_and_rule() -> None:
    assert finished({"total": 21, "blackjack": True}) == "blackjack"
    assert finished({"total": 24, "bust": True}) == "bust"
    assert finished({"total": 14}) is None  # every box settled before he drew
    fold = BlackjackFold(6, "s17")
    fold.fold({"type": "coup_start", "decks": 2, "dealer": "h17"})
    for total in (17, 18, 20):
        fold.fold({"type": "coup_result", "dealer": {"total": total}})
    fold.fold({"type": "coup_result", "dealer": {"total": 15}})
    fig = fold.figures()
    assert fig["coups"] == 3
    (group,) = fig["groups"]
    assert (group["decks"], group["dealer"]) == (2, "h17")
    assert group["counts"]["17"] == 1 and group["p_value"] is None
    assert sum(exact(2, "h17")) == pytest.approx(1.0)


def test_blackjack_exact_is_the_infinite_deck_figure_in_the_limit() -> None:
    # Published infinite-deck S17 bust rate: 28.16 % (Wizard of Odds); 8 decks is near it.
    assert exact(8, "s17")[-1] == pytest.approx(0.2816, abs=0.002)


@pytest.mark.slow
def test_the_poker_census_is_the_tables_own_ranking() -> None:
    from controller.games.draw_poker.analysis import census

    assert tuple(census().categories.values()) == poker.CENSUS


def test_poker_pools_rare_classes_where_the_sample_allows() -> None:
    fold = poker.DrawPokerFold()
    boxes = [{"box": 1, "shown": True, "rank": "one_pair"},
             {"box": 2, "shown": False, "rank": None}]
    for _ in range(300):
        fold.fold({"type": "hand_result", "boxes": boxes})
    fig = fold.figures()
    assert fig["hands"] == 300 and fig["shown"] == 300
    labels = [c["label"] for c in fig["cells"]]
    # 300 shown: three of a kind expects 6.3, a straight 1.2: pooled from there on.
    assert labels == ["high_card", "one_pair", "two_pair", "three_of_a_kind or more"]
    assert fig["dof"] == 3


def _quiet(argv: list[str]) -> int:
    with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
        return cli.main(argv)


def test_a_simulated_baccarat_journal(tmp_path: Path) -> None:
    trace, journal = tmp_path / "t.jsonl", tmp_path / "j.sqlite"
    assert _quiet(["simulate", "--table", "mini_baccarat", "--coups", "30", "--out",
                   str(trace)]) == 0
    assert run_replay(trace, journal).rc == 0
    rows = sqlite3.connect(journal).execute(
        "SELECT body FROM records WHERE type = 'coup_result'").fetchall()
    firsts = [min(json.loads(b)["boxes"], key=lambda x: x["box"])["outcome"]
              for (b,) in rows if json.loads(b)["boxes"]]
    out = io.StringIO()
    with redirect_stdout(out), redirect_stderr(io.StringIO()):
        assert tablectl_main(["--journal", str(journal), "--config",
                              "embedded:mini-baccarat-sim.toml", "stats", "--json"]) == 0
    fig = json.loads(out.getvalue())
    assert fig["coups"] == len(firsts)
    assert fig["counts"] == {k: firsts.count(k) for k in baccarat.OUTCOMES}
