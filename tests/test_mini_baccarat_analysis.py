"""The exact analysis's own mechanics: its refusals, its text and its command (``tablectl
analyze``). Its figures against ../shared/data/baccarat-exact.md (the published Wizard of
Odds and casinoexploit.com figures, copied by hand) are the article tests of
tests/articles/test_seed_000_mini_baccarat_rules.py (seed 000 Art. 1, 8, 10, 11).
"""

from __future__ import annotations

import pytest

from controller.core.errors import InputError
from controller.games.mini_baccarat.analysis import command
from controller.games.mini_baccarat.game import analyze, format_analysis


def test_analyze_refuses_a_bad_five_rule() -> None:
    with pytest.raises(ValueError):
        analyze(4, "maybe")


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
