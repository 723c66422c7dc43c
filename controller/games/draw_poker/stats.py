"""Draw poker's surveillance figures (issue 21; Montevideo num. 16): the classes of the
hands shown at the showdown against the census of five-card hands (``tablectl analyze
draw_poker``: every hand of one deck ranked by the table's own code).

Only the hands shown are counted: a folded hand's cards and every discard stay face down
(project standards, Security). The census is of five cards dealt; a hand shown has been
drawn to and kept by a player who stayed in, so it runs above the census by the game's
nature: the χ² says how far, a surveillance reference rather than a fault. The rarest
classes are pooled ("... or more") until each expects 5 hands: three of a kind (2.1 %)
takes about 240 hands shown, a straight (0.39 %) 1,300, a full house 3,500.
"""

from __future__ import annotations

from typing import Any

from controller.core import stats
from controller.core.config import Config
from controller.games.draw_poker.ranking import Category

CLASSES = tuple(c.name for c in Category)
# The census of 2,598,960 five-card hands by class (high card to royal flush): what
# ``analysis.census()`` counts, written here so that the figures need not re-rank every
# hand (it takes seconds); tests/test_stats_cards.py checks the two agree.
CENSUS = (1_302_540, 1_098_240, 123_552, 54_912, 10_200, 5_108, 3_744, 624, 36, 4)


class DrawPokerFold:
    """Draw poker's figures, one ``hand_result`` at a time."""

    reads: tuple[str, ...] = ("hand_result",)
    fields: tuple[str, ...] = ("boxes",)

    def __init__(self) -> None:
        self.counts = [0] * len(CLASSES)
        self.hands = 0

    def fold(self, record: dict[str, Any]) -> None:
        self.hands += 1
        for box in record.get("boxes") or []:
            rank = box.get("rank")
            if box.get("shown") and rank in CLASSES:
                self.counts[CLASSES.index(rank)] += 1

    def figures(self) -> dict[str, Any]:
        total = sum(CENSUS)
        probs = [c / total for c in CENSUS]
        shown = sum(self.counts)
        fit = stats.pooled(CLASSES, self.counts, probs)
        return {"game": "draw_poker", "hands": self.hands, "shown": shown,
                "counts": dict(zip(CLASSES, self.counts, strict=True)),
                "census": dict(zip(CLASSES, CENSUS, strict=True)), **fit,
                "charts": [stats.chart(f"hands shown at the showdown ({shown})", "class",
                                       [c.replace("_", " ") for c in CLASSES], self.counts,
                                       [shown * p for p in probs])]}


def lines(fig: dict[str, Any]) -> list[str]:
    """The figures in words, under 80 columns."""
    out = [f"Draw poker: {fig['hands']:,} hands, {fig['shown']:,} hands shown at the showdown",
           "  class              shown  per cent  census"]
    total = sum(fig["census"].values())
    for name in CLASSES:
        count = fig["counts"][name]
        share = 100 * count / fig["shown"] if fig["shown"] else 0.0
        out.append(f"  {name.replace('_', ' '):<17} {count:>6,}  {share:8.3f}  "
                   f"{100 * fig['census'][name] / total:6.3f}")
    if fig["test"] or fig["p_value"] >= stats.ALPHA:
        out.append(f"  {stats.verdict(fig)}")
    else:
        out.append(f"  chi2 {fig['chi_square']:.1f}, {fig['dof']} dof, p "
                   f"{stats.p_text(fig['p_value'])}: apart from the census at 5%")
    out.append("  (hands shown are drawn to and kept by who stays in: they run above it)")
    return out


def make(config: Config) -> DrawPokerFold:
    return DrawPokerFold()


STATS = stats.StatsHook(make=make, lines=lines, games=lambda fig: int(fig["hands"]))
"""Draw poker's entry for ``tablectl stats`` (``GameSpec.stats``)."""
