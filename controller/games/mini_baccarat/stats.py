"""Mini-Bacará's surveillance figures (issue 21; seed 000 Art. 6-11): Banca, Punto and
standoff shares and naturals against the exact probabilities ``tablectl analyze
mini_baccarat`` enumerates, through the same rules code.

One box a coup is counted, the first in dealing order (the lowest box number): the boxes
of one coup face the same Banca hand, so counting them all would count dependent results
as independent ones. Its outcome is compared with the exact analysis of a box that draws
on five (``analysis.analyze(decks, "draw")``); a box that stands on five has 0.3 point
fewer standoffs (9.2 % against 9.5 %, ../shared/data/baccarat-exact.md). ``naturals``
are that box's and the Banca's two-card 8 or 9 (Art. 7), against the exact share of two
cards from a full shoe. 5 expected a cell before a χ² test is made: about 60 coups for
the outcomes (the standoff's 9.5 %), 30 for naturals.
"""

from __future__ import annotations

from functools import cache
from itertools import product
from typing import Any

from controller.core import stats
from controller.core.config import Config
from controller.games.mini_baccarat.analysis import analyze
from controller.games.mini_baccarat.rules import DECKS, hand_total

OUTCOMES = ("banca", "punto", "standoff")


@cache
def exact(decks: int = DECKS) -> dict[str, float]:
    """P(banca), P(punto), P(standoff) of one box (drawing on five), and P(natural) of a
    two-card hand, from a full shoe of ``decks`` decks."""
    result = analyze(decks, "draw")
    counts = (16 * decks,) + (4 * decks,) * 9  # cards per point value 0-9
    n = sum(counts)
    natural = sum(a * (b - (i == j)) for (i, a), (j, b) in product(enumerate(counts), repeat=2)
                  if hand_total((i, j)) >= 8) / (n * (n - 1))
    return {"banca": result["p_banca"], "punto": result["p_box"],
            "standoff": result["p_standoff"], "natural": natural}


class MiniBaccaratFold:
    """Mini-Bacará's figures, one ``coup_result`` at a time."""

    reads: tuple[str, ...] = ("coup_result",)
    fields: tuple[str, ...] = ("banca", "boxes")

    def __init__(self) -> None:
        self.outcomes = dict.fromkeys(OUTCOMES, 0)
        self.box_naturals = self.banca_naturals = 0

    def fold(self, record: dict[str, Any]) -> None:
        boxes = sorted(record.get("boxes") or [], key=lambda b: b.get("box", 0))
        if not boxes or boxes[0].get("outcome") not in OUTCOMES:
            return  # a coup with no box played
        first = boxes[0]
        self.outcomes[first["outcome"]] += 1
        self.box_naturals += bool(first.get("natural"))
        self.banca_naturals += bool((record.get("banca") or {}).get("natural"))

    def figures(self) -> dict[str, Any]:
        n = sum(self.outcomes.values())
        p = exact()
        fit = stats.chi_square(list(self.outcomes.values()), [p[k] for k in OUTCOMES])
        charts = [stats.chart(f"first box's outcome ({n} coups)", "outcome", OUTCOMES,
                              list(self.outcomes.values()), [n * p[k] for k in OUTCOMES])]
        return {"game": "mini_baccarat", "coups": n, "counts": dict(self.outcomes),
                "exact": {k: round(v, 6) for k, v in p.items()},
                "shares": {k: stats.share(c, n, p[k]) for k, c in self.outcomes.items()},
                **{k: fit[k] for k in ("chi_square", "dof", "p_value", "critical_5pct",
                                       "test")},
                "naturals": {
                    "box": {**stats.share(self.box_naturals, n, p["natural"]),
                            **_two_cells(self.box_naturals, n, p["natural"])},
                    "banca": {**stats.share(self.banca_naturals, n, p["natural"]),
                              **_two_cells(self.banca_naturals, n, p["natural"])}},
                "charts": charts}


def _two_cells(count: int, n: int, p: float) -> dict[str, Any]:
    fit = stats.chi_square([count, n - count], [p, 1 - p])
    return {k: fit[k] for k in ("chi_square", "dof", "p_value", "test")}


def lines(fig: dict[str, Any]) -> list[str]:
    """The figures in words, under 80 columns."""
    out = [f"Mini-Bacará: {fig['coups']:,} coups (the first box of each)",
           "shares  per cent [95% interval] exact"]
    for key in OUTCOMES:
        row = fig["shares"][key]
        out.append(f"        {key:<9} {row['count']:>7,}  {_pct(row)}")
    out.append(f"fair?   {stats.verdict(fig)}")
    for who in ("box", "banca"):
        row = fig["naturals"][who]
        out.append(f"natural {who:<9} {row['count']:>7,}  {_pct(row)}")
        out.append(f"        {stats.verdict(row)}")
    return out


def _pct(row: dict[str, Any]) -> str:
    return (f"{100 * row['share']:5.2f} [{100 * row['low']:5.2f}-{100 * row['high']:5.2f}] "
            f"{100 * row['expected']:5.2f}")


def make(config: Config) -> MiniBaccaratFold:
    return MiniBaccaratFold()


STATS = stats.StatsHook(make=make, lines=lines, games=lambda fig: int(fig["coups"]))
"""Mini-Bacará's entry for ``tablectl stats`` (``GameSpec.stats``)."""
