"""Black Jack's surveillance figures (issue 21; seed 002, 004; RULES.md §4): the dealer's
finished hands (17 to 21, blackjack, bust) against their exact distribution from a full
shoe, ``tablectl analyze blackjack`` (``analysis.dealer_distribution``, through the table's
own drawing rules).

A coup counts when the dealer finished his hand (a total of 17 or more, a blackjack or a
bust); a coup in which every box was settled before the dealer drew (all bust or
surrendered) leaves his hand unfinished and is left out. The coups are grouped by their
shoe and rule (``coup_start``'s ``decks`` and ``dealer``: ``s17``/``h17``), each group
against its own distribution. The exact figures are those of a full shoe; the shoe's
depletion within a shoe averages out over its coups. 5 expected in every cell (the
blackjack's 4.7 %) takes about 110 coups.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from controller.core import stats
from controller.core.config import Config
from controller.games.blackjack.analysis import OUTCOMES, dealer_distribution


@cache
def exact(decks: int, rule: str) -> tuple[float, ...]:
    """P(each of ``OUTCOMES``) of the dealer's finished hand: ``decks`` decks, ``rule``
    ``s17`` or ``h17``."""
    dist = dealer_distribution(decks, rule == "h17")
    return tuple(float(dist[k]) for k in OUTCOMES)


def finished(dealer: dict[str, Any]) -> str | None:
    """The dealer's finished hand as one of ``OUTCOMES``, or None when he did not finish."""
    if dealer.get("blackjack"):
        return "blackjack"
    if dealer.get("bust"):
        return "bust"
    total = dealer.get("total")
    return str(total) if isinstance(total, int) and 17 <= total <= 21 else None


class BlackjackFold:
    """Black Jack's figures, one ``coup_start`` (its shoe and rule) and ``coup_result`` at a
    time."""

    reads: tuple[str, ...] = ("coup_start", "coup_result")
    fields: tuple[str, ...] = ("decks", "dealer")

    def __init__(self, decks: int, rule: str) -> None:
        self.shoe = (decks, rule)  # the config's, until a coup_start says
        self.groups: dict[tuple[int, str], list[int]] = {}

    def fold(self, record: dict[str, Any]) -> None:
        if record["type"] == "coup_start":
            self.shoe = (int(record["decks"]), str(record["dealer"]))
            return
        outcome = finished(record.get("dealer") or {})
        if outcome is not None:
            row = self.groups.setdefault(self.shoe, [0] * len(OUTCOMES))
            row[OUTCOMES.index(outcome)] += 1

    def figures(self) -> dict[str, Any]:
        groups, charts = [], []
        for (decks, rule), row in sorted(self.groups.items()):
            p = exact(decks, rule)
            n = sum(row)
            groups.append({"decks": decks, "dealer": rule, "coups": n,
                           "counts": dict(zip(OUTCOMES, row, strict=True)),
                           "exact": dict(zip(OUTCOMES, (round(x, 6) for x in p), strict=True)),
                           **stats.chi_square(row, p)})
            charts.append(stats.chart(f"dealer's finished hand, {decks} decks {rule} ({n} "
                                      "coups)", "hand", OUTCOMES, row, [n * x for x in p]))
        return {"game": "blackjack", "coups": sum(g["coups"] for g in groups),
                "groups": groups, "charts": charts}


def lines(fig: dict[str, Any]) -> list[str]:
    """The figures in words, under 80 columns."""
    out = [f"Black Jack: {fig['coups']:,} coups with the dealer's hand finished"]
    for group in fig["groups"]:
        out.append(f"{group['decks']} decks, the dealer {group['dealer']}: {group['coups']:,} "
                   "coups")
        out.append("  hand        count  per cent   exact")
        for k in OUTCOMES:
            count = group["counts"][k]
            out.append(f"  {k:<10} {count:>6,}   {100 * count / group['coups']:6.2f}  "
                       f"{100 * group['exact'][k]:6.2f}")
        out.append(f"  {stats.verdict(group)}")
    return out


def make(config: Config) -> BlackjackFold:
    return BlackjackFold(config.rules.decks, config.rules.rules.dealer)


STATS = stats.StatsHook(make=make, lines=lines, games=lambda fig: int(fig["coups"]))
"""Black Jack's entry for ``tablectl stats`` (both tables: ``GameSpec.stats``)."""
