"""The exact distribution of the dealer's finished hand (seed 004 Art. 3; RULES.md §4), computed
through the same rules functions the table runs (:mod:`controller.games.blackjack.rules`):
``command`` is ``tablectl analyze blackjack``.

The dealer's two cards and his draws come from a full shoe of N decks (every card as likely
as the cards left allow) or from an infinite deck (each card drawn with probability 1/13 per
rank, 4/13 for a ten-point card). Every sequence of cards the dealer may take is enumerated
with exact rational weights (:class:`fractions.Fraction`); no sampling. Sequences with the
same cards in another order share the weight of what follows, so the enumeration is memoised
on the multiset of cards taken.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from fractions import Fraction
from functools import cache

from controller.core.errors import InputError
from controller.games.blackjack.rules import DEALER_RULES, dealer_draws, dealer_final

OUTCOMES = ("17", "18", "19", "20", "21", "blackjack", "bust")
"""The dealer's finished hands, in the order they are printed."""
VALUES = tuple(range(1, 11))
"""Card values, 1 for an ace to 10 for a ten or figure (seed 004 Art. 3)."""
MAX_DECKS = 8


def _per_deck(point: int) -> int:
    """Cards of a value in one deck: 16 ten-point cards (10, J, Q, K), 4 of every other."""
    return 16 if point == 10 else 4


def dealer_distribution(decks: int | None, hits_soft_17: bool,
                        progress: Callable[[float], None] | None = None
                        ) -> dict[str, Fraction]:
    """P(the dealer's finished hand) for each of ``OUTCOMES``, exactly.

    Args:
        decks: decks in the full shoe the dealer draws from (1 to 8); None for an infinite
            deck.
        hits_soft_17: the dealer hits a soft 17 (``h17``), else stands on all 17s.
        progress: called with the fraction done (0 to 1) as the work goes.

    Returns:
        the probability of each outcome, summing to exactly 1.

    Raises:
        ValueError: ``decks`` out of 1 to 8.
    """
    if decks is not None and not 1 <= decks <= MAX_DECKS:
        raise ValueError(f"decks must be 1 to {MAX_DECKS} or None (infinite): {decks}")

    def chance(taken: tuple[int, ...], point: int) -> Fraction:
        if decks is None:
            return Fraction(_per_deck(point), 52)
        left = decks * _per_deck(point) - taken.count(point)
        return Fraction(left, decks * 52 - len(taken))

    @cache
    def finish(taken: tuple[int, ...]) -> tuple[Fraction, ...]:
        # ``taken`` is sorted: the multiset of the dealer's cards so far (at least two).
        if not dealer_draws(taken, hits_soft_17):
            outcome = dealer_final(taken)
            return tuple(Fraction(int(o == outcome)) for o in OUTCOMES)
        sums = [Fraction(0)] * len(OUTCOMES)
        for point in VALUES:
            weight = chance(taken, point)
            if weight:
                after = finish(tuple(sorted((*taken, point))))
                for i, p in enumerate(after):
                    sums[i] += weight * p
        return tuple(sums)

    result = [Fraction(0)] * len(OUTCOMES)
    for n, first in enumerate(VALUES):
        if progress is not None:
            progress(n / len(VALUES))
        p_first = chance((), first)
        for second in VALUES:
            p_second = chance((first,), second)
            if p_second:
                for i, p in enumerate(finish(tuple(sorted((first, second))))):
                    result[i] += p_first * p_second * p
    if progress is not None:
        progress(1.0)
    return dict(zip(OUTCOMES, result, strict=True))


def format_distribution(dist: dict[str, Fraction], decks: int | None, dealer: str) -> str:
    """The distribution as lines of text, six decimals each, and their sum."""
    shoe = "an infinite deck" if decks is None else f"a full shoe of {decks} decks"
    rule = "stands on all 17s" if dealer == "s17" else "hits soft 17"
    lines = [f"Black Jack dealer's finished hand: {rule} ({dealer}), {shoe}"]
    lines += [f"{outcome:<10} {float(p):.6f}" for outcome, p in dist.items()]
    lines.append(f"{'total':<10} {float(sum(dist.values())):.6f}")
    return "\n".join(lines)


def command(args: Sequence[str], progress: Callable[[float], None] | None = None) -> int:
    """``tablectl analyze blackjack --dealer s17|h17 [--decks N | --infinite]``: print the
    dealer's finished-hand distribution (:func:`dealer_distribution`).

    Args:
        args: the command line after the game's name: ``--dealer`` (default s17),
            ``--decks`` (1 to 8) or ``--infinite`` (the default).
        progress: called with the fraction done (a progress bar); None: none shown.

    Returns:
        0 once the figures are printed on stdout.

    Raises:
        InputError: ``--decks`` out of 1 to 8 (one line, exit 2 by ``tablectl``).
        SystemExit: an argument ``argparse`` refuses (status 2), or ``--help`` (status 0).
    """
    parser = argparse.ArgumentParser(
        prog="tablectl analyze blackjack",
        description="exact distribution of the Black Jack dealer's finished hand")
    parser.add_argument("--dealer", choices=DEALER_RULES, default="s17",
                        help="s17: stands on all 17s; h17: hits soft 17")
    shoe = parser.add_mutually_exclusive_group()
    shoe.add_argument("--decks", type=int, help=f"a full shoe of N decks, 1 to {MAX_DECKS}")
    shoe.add_argument("--infinite", action="store_true", help="an infinite deck (default)")
    options = parser.parse_args(list(args))
    if options.decks is not None and not 1 <= options.decks <= MAX_DECKS:
        raise InputError("--decks", None, None,
                         f"must be 1 to {MAX_DECKS}, got {options.decks}")
    dist = dealer_distribution(options.decks, options.dealer == "h17", progress)
    print(format_distribution(dist, options.decks, options.dealer))
    return 0
