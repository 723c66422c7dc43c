"""The census of five-card hands (seed 003 num. 16-18), through the table's own ranking code;
``command`` is ``tablectl analyze draw_poker``.

Every one of the C(52, 5) = 2,598,960 hands of one deck (num. 1) is ranked by
:func:`controller.games.draw_poker.ranking.value_of`, the function the table's showdown
calls, on its five ranks high to low and whether its suits are one. The deck is enumerated
in order of rank, ace first, so the five ranks of each combination come already sorted.

The exact anchors (the combinatorics of one deck): royal flush 4, straight flush 36, four of
a kind 624, full house 3,744, flush 5,108, straight 10,200, three of a kind 54,912, two
pair 123,552, one pair 1,098,240, high card 1,302,540; 7,462 distinct hand values.
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from math import comb

from controller.games.draw_poker.ranking import ACE, Category, HandValue, value_of

HANDS = comb(52, 5)
"""Five-card hands of one deck: 2,598,960."""

# The deck by rank, ace first: card i is rank 14 - i // 4 of suit i % 4.
_DECK = [(ACE - i // 4, i % 4) for i in range(52)]


@dataclass(frozen=True)
class Census:
    """The census: ``hands`` ranked, how many of each ``category``, the number of
    ``distinct`` values, and the ``seconds`` it took (wall time)."""

    hands: int
    categories: dict[Category, int]
    distinct: int
    seconds: float


def census(progress: Callable[[float], None] | None = None) -> Census:
    """Rank every five-card hand of one deck through ``value_of`` and count them.

    ``progress``, if given, is called with the fraction of hands done (0 to 1) as it goes.
    """
    start = time.perf_counter()
    counts: Counter[HandValue] = Counter()
    deck = _DECK
    done = shown = 0
    for i1 in range(48):
        r1, s1 = deck[i1]
        for i2 in range(i1 + 1, 49):
            r2, s2 = deck[i2]
            for i3 in range(i2 + 1, 50):
                r3, s3 = deck[i3]
                for i4 in range(i3 + 1, 51):
                    r4, s4 = deck[i4]
                    for i5 in range(i4 + 1, 52):
                        r5, s5 = deck[i5]
                        counts[value_of((r1, r2, r3, r4, r5),
                                        s1 == s2 == s3 == s4 == s5)] += 1
            done += comb(51 - i2, 3)
            if progress is not None and done >= shown + HANDS // 200:
                shown = done
                progress(done / HANDS)
    if progress is not None:
        progress(1.0)
    categories = dict.fromkeys(Category, 0)
    for value, n in counts.items():
        categories[value.category] += n
    return Census(sum(counts.values()), categories, len(counts), time.perf_counter() - start)


def bare_enumeration() -> tuple[int, float]:
    """The census's loops alone, every hand enumerated and none ranked (the benchmark's
    reference): (hands, seconds)."""
    start = time.perf_counter()
    deck = _DECK
    hands = 0
    for i1 in range(48):
        _r1, _s1 = deck[i1]
        for i2 in range(i1 + 1, 49):
            _r2, _s2 = deck[i2]
            for i3 in range(i2 + 1, 50):
                _r3, _s3 = deck[i3]
                for i4 in range(i3 + 1, 51):
                    _r4, _s4 = deck[i4]
                    for i5 in range(i4 + 1, 52):
                        _r5, _s5 = deck[i5]
                        hands += 1
    return hands, time.perf_counter() - start


def format_census(result: Census) -> str:
    """The census as lines of text, the highest category first."""
    lines = ["Draw poker (seed 003 num. 16-18): every five-card hand of one deck,",
             "  ranked by the table's code"]
    for category in sorted(result.categories, reverse=True):
        lines.append(f"{category.name.replace('_', ' '):<18}{result.categories[category]:>12,}")
    lines += [f"{'hands':<18}{result.hands:>12,}",
              f"{'distinct values':<18}{result.distinct:>12,}",
              f"time {result.seconds:.2f} s"]
    return "\n".join(lines)


def command(args: Sequence[str], progress: Callable[[float], None] | None = None) -> int:
    """``tablectl analyze draw_poker``: print the census of five-card hands and its time.

    Args:
        args: the command line after the game's name (only ``--help``).
        progress: called with the fraction done (0 to 1) as the census goes (a progress
            bar); None: no progress shown.

    Returns:
        0 once the figures are printed on stdout.

    Raises:
        SystemExit: an argument ``argparse`` refuses (status 2), or ``--help`` (status 0).
    """
    parser = argparse.ArgumentParser(
        prog="tablectl analyze draw_poker",
        description="rank all 2,598,960 five-card hands through the table's ranking code")
    parser.parse_args(list(args))
    print(format_census(census(progress)))
    return 0
