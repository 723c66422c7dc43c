"""Exact probabilities of one Mini-Bacará box against the Banca (seed 000 Art. 6-11; layer 3 of
the game, see :mod:`controller.games.mini_baccarat.game`), enumerated through the same rules
functions the table runs; ``command`` is ``tablectl analyze mini_baccarat``."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

from controller.core.errors import InputError
from controller.core.words import given, one_of
from controller.games.mini_baccarat.rules import (
    DECKS,
    FIVE_CHOICES,
    banca_takes_third,
    box_takes_third,
    hand_total,
    insurance_wins,
    outcome,
)

# --------------------------------------------------------------------------------------
# 3. Exact analysis of one box against the Banca
# --------------------------------------------------------------------------------------


def _shoe_counts(decks: int) -> tuple[int, ...]:
    """Cards per point value 0-9 in a full shoe: 16 per deck count 0 (ten, J, Q, K)."""
    return (16 * decks,) + (4 * decks,) * 9


def _without(counts: tuple[int, ...], point: int) -> tuple[int, ...]:
    return (*counts[:point], counts[point] - 1, *counts[point + 1 :])


def analyze(decks: int, five: str = "draw",
            progress: Callable[[float], None] | None = None) -> dict[str, Any]:
    """Exact outcome of one box against the Banca from a full shoe of ``decks`` decks.

    Enumerates every deal in the Art. 6 order (box, Banca, box, Banca, then the third
    cards) by point value, weighted by the cards left of each value, through the rules
    functions of this module. ``five`` is the box's play on five, "draw" or "stand"; the
    Banca follows the tableau for the box's third card, or the box-stood rule.
    ``progress``, if given, is called with the fraction done (0 to 1) as the work goes.

    Returns:
        ``decks``, ``five``; ``deals`` (ordered six-card deals from the full shoe) and
        ``banca_deals``, ``box_deals``, ``standoff_deals`` (exact integers, each deal
        counted with every ordering of the unused cards); ``p_banca``, ``p_box``,
        ``p_standoff`` (floats); ``ev_punto``, ``ev_banca_10``, ``ev_banca_5`` (expected
        chips won per chip staked on Punto, on Banca at 10% commission (Art. 10), at 5%).

    Raises:
        ValueError: decks < 1, or ``five`` not "draw" or "stand".
    """
    if decks < 1 or five not in FIVE_CHOICES:
        raise ValueError(f"need decks >= 1 and five {one_of(FIVE_CHOICES)}: {decks}, "
                         f"{given(five)}")
    index = {"banca": 0, "punto": 1, "standoff": 2}
    memo: dict[tuple[tuple[int, ...], int, int], tuple[int, int, int]] = {}

    def after_two_cards_each(
        counts: tuple[int, ...], box_total: int, banca_total: int
    ) -> tuple[int, int, int]:
        # Every rule depends on a hand's size and total only, so a two-card hand is
        # represented as (total, 0) and memoised on the cards left and the two totals.
        key = (counts, box_total, banca_total)
        if key in memo:
            return memo[key]
        box, banca = (box_total, 0), (banca_total, 0)
        left = sum(counts)
        tally = [0, 0, 0]
        if box_takes_third(box, banca, five):
            for v, c in enumerate(counts):
                if c == 0:
                    continue
                box3 = (*box, v)
                if banca_takes_third(box3, banca):
                    for w, c2 in enumerate(_without(counts, v)):
                        if c2:
                            tally[index[outcome(box3, (*banca, w))]] += c * c2
                else:
                    tally[index[outcome(box3, banca)]] += c * (left - 1)
        elif banca_takes_third(box, banca):
            for w, c in enumerate(counts):
                if c:
                    tally[index[outcome(box, (*banca, w))]] += c * (left - 1)
        else:
            tally[index[outcome(box, banca)]] += left * (left - 1)
        memo[key] = (tally[0], tally[1], tally[2])
        return memo[key]

    totals = [0, 0, 0]
    full = _shoe_counts(decks)
    for p1, c1 in enumerate(full):
        if progress is not None:
            progress(p1 / len(full))
        after_p1 = _without(full, p1)
        for b1, c2 in enumerate(after_p1):
            if not c2:
                continue
            after_b1 = _without(after_p1, b1)
            for p2, c3 in enumerate(after_b1):
                if not c3:
                    continue
                after_p2 = _without(after_b1, p2)
                for b2, c4 in enumerate(after_p2):
                    if not c4:
                        continue
                    weight = c1 * c2 * c3 * c4
                    sub = after_two_cards_each(
                        _without(after_p2, b2), hand_total((p1, p2)), hand_total((b1, b2))
                    )
                    for i in range(3):
                        totals[i] += weight * sub[i]
    if progress is not None:
        progress(1.0)
    n = sum(full)
    deals = n * (n - 1) * (n - 2) * (n - 3) * (n - 4) * (n - 5)
    p_banca, p_box, p_standoff = (Fraction(x, deals) for x in totals)
    return {
        "decks": decks,
        "five": five,
        "deals": deals,
        "banca_deals": totals[0],
        "box_deals": totals[1],
        "standoff_deals": totals[2],
        "p_banca": float(p_banca),
        "p_box": float(p_box),
        "p_standoff": float(p_standoff),
        "ev_punto": float(p_box - p_banca),
        "ev_banca_10": float(Fraction(9, 10) * p_banca - p_box),
        "ev_banca_5": float(Fraction(19, 20) * p_banca - p_box),
    }


def insurance_probability(decks: int, pays_on: str = "natural_nine") -> Fraction:
    """P(insurance wins | the Banca's first card is a nine), nothing else known (Art. 11).

    4 decks, default rule: 64/207 (a ten or figure among the 207 cards left).
    """
    counts = _without(_shoe_counts(decks), 9)
    wins = sum(c for v, c in enumerate(counts) if insurance_wins((9, v), pays_on))
    return Fraction(wins, sum(counts))


def format_analysis(result: dict[str, Any]) -> str:
    """The result of ``analyze`` as a few lines of text for the command line."""
    on_five = "draws" if result["five"] == "draw" else "stands"
    return "\n".join(
        [
            f"Mini-Bacará, one box against the Banca: {result['decks']} decks,"
            f" box {on_five} on five",
            f"ordered deals     {result['deals']:,}",
            f"P(Banca wins)     {result['p_banca']:.6f}   ({result['banca_deals']:,} deals)",
            f"P(box wins)       {result['p_box']:.6f}   ({result['box_deals']:,} deals)",
            f"P(standoff)       {result['p_standoff']:.6f}   ({result['standoff_deals']:,} deals)",
            f"EV Punto          {result['ev_punto']:+.4%}",
            f"EV Banca, 10%     {result['ev_banca_10']:+.4%}   (Art. 10)",
            f"EV Banca, 5%      {result['ev_banca_5']:+.4%}",
        ]
    )


MAX_DECKS = 8
"""The most decks ``command`` analyses (the anchors of ../shared/data: 4, 6 and 8)."""


def command(args: Sequence[str], progress: Callable[[float], None] | None = None) -> int:
    """``tablectl analyze mini_baccarat [--decks N] [--five draw|stand]``: print the exact
    outcome of one box against the Banca (``analyze``, ``format_analysis``).

    Args:
        args: the command line after the game's name: ``--decks`` (1 to 8, default 4,
            seed 000 Art. 2) and ``--five`` (the box's play on five, Art. 8; default draw).
        progress: called with the fraction done (0 to 1) as the enumeration goes (a
            progress bar); None: no progress shown.

    Returns:
        0 once the figures are printed on stdout.

    Raises:
        InputError: ``--decks`` out of 1 to 8 (one line, exit 2 by ``tablectl``).
        SystemExit: an argument ``argparse`` refuses (status 2, usage on stderr), or
            ``--help`` (status 0).
    """
    parser = argparse.ArgumentParser(
        prog="tablectl analyze mini_baccarat",
        description="exact outcome of one Mini-Bacará box against the Banca")
    parser.add_argument("--decks", type=int, default=DECKS, help="decks in the shoe, 1 to 8")
    parser.add_argument("--five", choices=FIVE_CHOICES, default="draw",
                        help="the box's play on five (Art. 8)")
    parser.add_argument("--json", action="store_true", help="the figures as one JSON object")
    options = parser.parse_args(list(args))
    if not 1 <= options.decks <= MAX_DECKS:
        raise InputError("--decks", None, None,
                         f"must be 1 to {MAX_DECKS}, got {options.decks}")
    result = analyze(options.decks, options.five, progress=progress)
    print(json.dumps(result, sort_keys=True, default=str) if options.json
          else format_analysis(result))
    return 0
