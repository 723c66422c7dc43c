"""Exact analysis of one box against the Banca, against ../shared/data/baccarat-exact.md.

The expected figures are the anchor table (published Wizard of Odds and casinoexploit.com
figures), copied by hand from that file; nothing here comes from the code's output.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from controller.core.errors import InputError
from controller.games.mini_baccarat.analysis import command
from controller.games.mini_baccarat.game import analyze, format_analysis, insurance_probability

# decks, box on five: P(Banca), P(box), P(standoff), EV Punto %, EV Banca 10% %, EV Banca 5% %
EXACT = [
    (4, "draw", 0.458761, 0.446340, 0.094898, -1.2421, -3.3455, -1.0517),
    (4, "stand", 0.461824, 0.446525, 0.091651, -1.5299, -3.0884, -0.7792),
    (6, "draw", 0.458653, 0.446279, 0.095069, -1.2374, -3.3491, -1.0558),
    (6, "stand", 0.461706, 0.446464, 0.091831, -1.5242, -3.0929, -0.7843),
    (8, "draw", 0.458597, 0.446247, 0.095156, -1.2351, -3.3509, -1.0579),
    (8, "stand", 0.461645, 0.446432, 0.091923, -1.5214, -3.0951, -0.7869),
]


@pytest.mark.parametrize(
    ("decks", "five", "banca", "box", "standoff", "ev_punto", "ev_banca_10", "ev_banca_5"),
    EXACT,
)
def test_analyze_reproduces_the_exact_table(
    decks: int,
    five: str,
    banca: float,
    box: float,
    standoff: float,
    ev_punto: float,
    ev_banca_10: float,
    ev_banca_5: float,
) -> None:
    result = analyze(decks, five)
    assert result["p_banca"] == pytest.approx(banca, abs=5e-7)
    assert result["p_box"] == pytest.approx(box, abs=5e-7)
    assert result["p_standoff"] == pytest.approx(standoff, abs=5e-7)
    assert 100 * result["ev_punto"] == pytest.approx(ev_punto, abs=5e-5)
    assert 100 * result["ev_banca_10"] == pytest.approx(ev_banca_10, abs=5e-5)
    assert 100 * result["ev_banca_5"] == pytest.approx(ev_banca_5, abs=5e-5)
    n = 52 * decks
    assert result["deals"] == n * (n - 1) * (n - 2) * (n - 3) * (n - 4) * (n - 5)
    assert (
        result["banca_deals"] + result["box_deals"] + result["standoff_deals"] == (result["deals"])
    )


def test_analyze_four_decks_raw_counts_are_exact() -> None:
    result = analyze(4, "draw")
    assert result["deals"] == 75_297_571_090_560
    assert result["banca_deals"] == 34_543_624_867_840
    assert result["box_deals"] == 33_608_344_225_792
    assert result["standoff_deals"] == 7_145_601_996_928


def test_analyze_refuses_a_bad_five_rule() -> None:
    with pytest.raises(ValueError):
        analyze(4, "maybe")


def test_art11_insurance_probability_four_decks_is_64_over_207() -> None:
    p = insurance_probability(4)
    assert p == Fraction(64, 207)  # 64 tens and figures among the 207 cards left
    assert float(3 * p - 1) == pytest.approx(-0.0725, abs=5e-5)  # EV at 2 to 1: -7.25%


def test_format_analysis_shows_the_figures() -> None:
    text = format_analysis(analyze(4, "draw"))
    assert "4 decks" in text
    assert "0.458761" in text
    assert "75,297,571,090,560" in text
    assert "-3.3455%" in text


def test_command_prints_the_figures_for_the_decks_and_the_play_on_five(
        capsys: pytest.CaptureFixture[str]) -> None:
    done: list[float] = []
    assert command(["--decks", "4", "--five", "stand"], progress=done.append) == 0
    out = capsys.readouterr().out
    assert "4 decks, box stands on five" in out
    assert "P(Banca wins)     0.461824" in out and "P(standoff)       0.091651" in out
    assert done[-1] == 1.0


def test_command_refuses_a_number_of_decks_out_of_range() -> None:
    with pytest.raises(InputError, match="--decks: must be 1 to 8, got 9"):
        command(["--decks", "9"])
    with pytest.raises(SystemExit) as exit_:
        command(["--five", "sometimes"])
    assert exit_.value.code == 2
