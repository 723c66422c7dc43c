"""The exact anchors of Black Jack: the dealer's finished-hand distribution computed through the
table's own rules code (``tablectl analyze blackjack``) against the published infinite-deck
figures, and, for a full shoe, against an enumeration written here from seed 004 Art. 3
alone."""

from __future__ import annotations

import io
from contextlib import redirect_stderr, redirect_stdout
from fractions import Fraction
from functools import cache

import pytest

from controller.cli.tablectl import main as tablectl_main
from controller.games.blackjack.analysis import OUTCOMES, dealer_distribution

# The published infinite-deck figures (four decimals): the dealer stands on all 17s.
PUBLISHED_S17 = {"17": 0.1451, "18": 0.1395, "19": 0.1335, "20": 0.1803, "21": 0.0727,
                 "blackjack": 0.0473, "bust": 0.2816}
PUBLISHED_H17_BUST = 0.2854


def test_the_infinite_deck_reproduces_the_published_s17_figures() -> None:
    dist = dealer_distribution(None, hits_soft_17=False)
    assert {k: round(float(p), 4) for k, p in dist.items()} == PUBLISHED_S17
    assert sum(dist.values()) == 1  # exactly: rational arithmetic, no sampling


def test_the_infinite_deck_reproduces_the_published_h17_bust() -> None:
    dist = dealer_distribution(None, hits_soft_17=True)
    assert round(float(dist["bust"]), 4) == PUBLISHED_H17_BUST
    assert sum(dist.values()) == 1


@pytest.mark.parametrize("decks", [None, 1, 6, 8])
def test_blackjack_is_an_ace_and_a_ten_in_either_order(decks: int | None) -> None:
    # Art. 3: 4 aces and 16 ten-point cards a deck.
    if decks is None:
        expected = 2 * Fraction(4, 52) * Fraction(16, 52)
    else:
        n = 52 * decks
        expected = 2 * Fraction(4 * decks, n) * Fraction(16 * decks, n - 1)
    assert dealer_distribution(decks, hits_soft_17=False)["blackjack"] == expected


def independent(decks: int, hits_soft_17: bool) -> dict[str, Fraction]:
    """The dealer's distribution from a full shoe, enumerated here: every ordered draw,
    weighted by the cards left of each value (1 an ace, 10 a ten or figure)."""
    full = tuple(16 * decks if v == 10 else 4 * decks for v in range(1, 11))

    def hand_total(hard: int, ace: bool) -> tuple[int, bool]:
        return (hard + 10, True) if ace and hard + 10 <= 21 else (hard, False)

    @cache
    def play(counts: tuple[int, ...], hard: int, ace: bool, n: int) -> tuple[Fraction, ...]:
        points, soft = hand_total(hard, ace)
        if n >= 2 and (points > 17 or (points == 17 and not (soft and hits_soft_17))):
            name = ("blackjack" if n == 2 and points == 21 else
                    "bust" if points > 21 else str(points))
            return tuple(Fraction(int(o == name)) for o in OUTCOMES)
        left = sum(counts)
        out = [Fraction(0)] * len(OUTCOMES)
        for i, c in enumerate(counts):
            if c:
                rest = (*counts[:i], c - 1, *counts[i + 1:])
                for j, p in enumerate(play(rest, hard + i + 1, ace or i == 0, n + 1)):
                    out[j] += Fraction(c, left) * p
        return tuple(out)

    return dict(zip(OUTCOMES, play(full, 0, False, 0), strict=True))


@pytest.mark.parametrize(("decks", "hits_soft_17"), [(6, False), (6, True), (2, False)])
def test_a_full_shoe_matches_an_enumeration_written_from_art_3(
        decks: int, hits_soft_17: bool) -> None:
    assert dealer_distribution(decks, hits_soft_17) == independent(decks, hits_soft_17)


def tablectl(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            rc = tablectl_main(["analyze", *args])
        except SystemExit as exc:  # argparse's own refusals
            rc = int(exc.code or 0)
    return rc, out.getvalue(), err.getvalue()


def test_tablectl_analyze_blackjack_prints_six_decimals() -> None:
    rc, out, _ = tablectl("blackjack", "--dealer", "s17", "--infinite")
    assert rc == 0
    rows = dict(line.split() for line in out.splitlines()[1:])
    assert set(rows) == {*OUTCOMES, "total"} and rows["total"] == "1.000000"
    assert all(len(v.split(".")[1]) == 6 for v in rows.values())
    assert {k: round(float(rows[k]), 4) for k in OUTCOMES} == PUBLISHED_S17
    rc, out, _ = tablectl("blackjack", "--dealer", "h17", "--decks", "6")
    assert rc == 0 and "6 decks" in out and "h17" in out


def test_tablectl_analyze_each_black_jack_table_by_its_name_too() -> None:
    for name in ("blackjack_plus", "pot_luck"):
        rc, out, _ = tablectl(name)
        assert rc == 0 and "infinite deck" in out


@pytest.mark.parametrize("args", [("--decks", "0"), ("--decks", "9")])
def test_tablectl_analyze_refuses_a_shoe_out_of_range_in_one_line(args: tuple[str, ...]) -> None:
    rc, out, err = tablectl("blackjack", *args)
    assert rc == 2 and not out and len(err.splitlines()) == 1 and "--decks" in err


def test_tablectl_analyze_refuses_decks_and_infinite_together() -> None:
    rc, _, err = tablectl("blackjack", "--decks", "6", "--infinite")
    assert rc == 2 and "not allowed with" in err


def test_the_progress_goes_from_zero_to_one() -> None:
    seen: list[float] = []
    dealer_distribution(4, hits_soft_17=False, progress=seen.append)
    assert seen[0] == 0 and seen[-1] == 1.0 and seen == sorted(seen)
