"""Surveillance statistics shared by every game (issue 21): goodness of fit, intervals,
power, the journal window they are read from, and the charts as plain data.

A game's statistics live in its package (``controller/games/<game>/stats.py``); its spec
names them (``GameSpec.stats``: ``"module:attribute"`` of a :class:`StatsHook`). A hook
makes a *fold* (:class:`Fold`): the records of the types it ``reads`` are given to it one
at a time, oldest first (``fold``), and ``figures()`` is at any moment a plain dict of
JSON values, so a page can keep one fold and redraw after each result without reading the
journal again. ``figures()["charts"]`` are the charts, each ``{"title", "x_label",
"labels", "counts", "expected"}`` (``expected`` per bar, or None), which
:func:`save_plot` draws (matplotlib, Agg) and a page can draw as SVG.

Every test here follows one rule (issue 21 §3): where an expected count is under
:data:`MIN_EXPECTED`, no χ² test is made; the figures say so and give the counts. The
special functions are scipy's, never our own: ``scipy.special``'s χ², binomial and normal
distribution functions, the very routines ``scipy.stats`` calls (``chi2.sf`` is
``chdtrc``, ``binom.sf`` is ``bdtrc``), imported alone because ``scipy.stats`` takes twice
the time and memory to import (the command's budget is 5 s and 100 MB on a Pi);
tests/test_stats_roulette.py checks each figure against ``scipy.stats``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from controller.core.config import Config
    from controller.store.journal import Journal

MIN_EXPECTED = 5.0
"""The smallest expected count at which a χ² test means anything (Cochran's rule)."""
ALPHA = 0.05
POWER = 0.80


def chi_square(observed: Sequence[int], probabilities: Sequence[float]) -> dict[str, Any]:
    """Pearson's χ² goodness of fit of ``observed`` counts to ``probabilities`` (one per
    cell, summing to 1; cells of probability 0 must be empty and are left out).

    Returns ``{"n", "chi_square", "dof", "p_value", "critical_5pct", "min_expected",
    "test"}``: ``test`` is None when a test was made, else why not (no data, or an expected
    count under :data:`MIN_EXPECTED`), and the χ² figures are then None. ``dof`` is the
    number of cells minus one; ``critical_5pct`` the χ² value the statistic must pass to be
    significant at 5 %.
    """
    from scipy import special

    cells = [(o, p) for o, p in zip(observed, probabilities, strict=True) if p > 0]
    n = sum(o for o, _ in cells)
    expected = [n * p for _, p in cells]
    dof = len(cells) - 1
    out: dict[str, Any] = {"n": n, "chi_square": None, "dof": dof, "p_value": None,
                           "critical_5pct": round(float(special.chdtri(dof, ALPHA)), 3),
                           "min_expected": round(min(expected), 3) if expected else 0.0,
                           "test": None}
    if n == 0:
        out["test"] = "no data: no test made"
    elif min(expected) < MIN_EXPECTED:
        out["test"] = (f"too few: an expected count is {min(expected):.1f}, under "
                       f"{MIN_EXPECTED:g}: no test made")
    else:
        statistic = sum((o - e) ** 2 / e for (o, _), e in zip(cells, expected, strict=True))
        out["chi_square"] = round(statistic, 4)
        out["p_value"] = float(special.chdtrc(dof, statistic))
    return out


def pooled(labels: Sequence[str], observed: Sequence[int], probabilities: Sequence[float]
           ) -> dict[str, Any]:
    """:func:`chi_square` where the sample allows: the last cells (the rarest, when the
    cells run from common to rare) are pooled into one, "<label> or more", until every
    expected count is at least :data:`MIN_EXPECTED` or two cells are left.

    Returns the :func:`chi_square` figures and ``cells``: each ``{"label", "count",
    "expected"}`` as tested."""
    n = sum(observed)
    labels_, obs, probs = list(labels), list(observed), list(probabilities)
    while len(obs) > 2 and n * probs[-1] < MIN_EXPECTED:
        obs[-2:] = [obs[-2] + obs[-1]]
        probs[-2:] = [probs[-2] + probs[-1]]
        labels_[-2:] = [labels_[-2].removesuffix(" or more") + " or more"]
    out = chi_square(obs, probs)
    out["cells"] = [{"label": lab, "count": o, "expected": round(n * p, 3)}
                    for lab, o, p in zip(labels_, obs, probs, strict=True)]
    return out


def share(count: int, n: int, expected: float) -> dict[str, Any]:
    """``count`` of ``n`` as a share with its 95 % Wilson score interval (``low``,
    ``high``), and the ``expected`` share beside it; the interval is None when ``n`` is 0."""
    from scipy import special

    out: dict[str, Any] = {"count": count, "n": n, "share": None, "low": None, "high": None,
                           "expected": round(expected, 6)}
    if n:
        z = float(special.ndtri(0.975))
        p = count / n
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
        out.update(share=round(p, 6), low=round(max(0.0, centre - half), 6),
                   high=round(min(1.0, centre + half), 6))
    return out


def upper_tail(counts: Sequence[int], n: int, p: float) -> list[float]:
    """P(X >= each of ``counts``) for X ~ Binomial(``n``, ``p``): the one-sided p-value of
    a count this high (``bdtrc(k - 1, n, p)``, scipy's ``binom.sf(k - 1, n, p)``)."""
    from scipy import special

    return [1.0 if k <= 0 else float(special.bdtrc(k - 1, n, p)) for k in counts]


def trials_to_detect(p0: float, p1: float, alpha: float = ALPHA, power: float = POWER
                     ) -> int | None:
    """Trials needed for a one-sided test of a share ``p0`` at level ``alpha`` to detect a
    true share ``p1`` > ``p0`` with probability ``power`` (the normal approximation to the
    binomial: n = ((z₁₋α·√(p0·q0) + z_power·√(p1·q1)) / (p1 − p0))²); None when ``p1`` is
    not above ``p0`` (nothing to detect)."""
    from scipy import special

    if p1 <= p0:
        return None
    za, zb = float(special.ndtri(1 - alpha)), float(special.ndtri(power))
    root = za * math.sqrt(p0 * (1 - p0)) + zb * math.sqrt(p1 * (1 - p1))
    return math.ceil((root / (p1 - p0)) ** 2)


def verdict(fig: dict[str, Any]) -> str:
    """A :func:`chi_square` result in words, one line under 80 columns: the statistic,
    its dof, p-value and 5 % critical value and whether it is significant; or why no test
    was made."""
    if fig["test"]:
        return str(fig["test"])
    word = "significant at 5%" if fig["p_value"] < ALPHA else "no sign of bias"
    critical = f", 5% critical {fig['critical_5pct']:.3f}" if "critical_5pct" in fig else ""
    return (f"chi2 {fig['chi_square']:.1f}, {fig['dof']} dof, p {p_text(fig['p_value'])}"
            f"{critical}: {word}")


def p_text(p: float) -> str:
    """A p-value in a few characters."""
    if p == 0:
        return "< 1e-300"
    return f"{p:.3f}" if p >= 0.001 else f"{p:.1e}"


def chart(title: str, x_label: str, labels: Sequence[str], counts: Sequence[int],
          expected: Sequence[float] | None = None) -> dict[str, Any]:
    """One bar chart as plain data (see the module doc)."""
    return {"title": title, "x_label": x_label, "labels": list(labels),
            "counts": list(counts),
            "expected": None if expected is None else [round(e, 3) for e in expected]}


def save_plot(charts: Sequence[dict[str, Any]], path: str) -> None:
    """Draw ``charts`` (:func:`chart`'s), one under the other, as a PNG at ``path``: bars
    of the counts, a line of the expected counts (matplotlib's Agg backend: no display).

    Raises:
        OSError: ``path`` cannot be written.
    """
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot

    rows = max(1, len(charts))
    fig, axes = pyplot.subplots(rows, 1, figsize=(11, 3.2 * rows), squeeze=False)
    for ax, spec in zip(axes[:, 0], charts, strict=False):
        xs = range(len(spec["labels"]))
        ax.bar(xs, spec["counts"], color="#4a7ab0")
        if spec["expected"] is not None:
            ax.step(xs, spec["expected"], where="mid", color="#c03030", label="expected")
            ax.legend(loc="upper right", fontsize=8)
        ax.set_title(spec["title"], fontsize=10)
        ax.set_xlabel(spec["x_label"], fontsize=8)
        ax.set_xticks(list(xs), spec["labels"], fontsize=6 if len(xs) > 20 else 8,
                      rotation=90 if len(xs) > 20 else 0)
    fig.tight_layout()
    try:
        fig.savefig(path, dpi=90)
    finally:
        pyplot.close(fig)


class Fold(Protocol):
    """A game's figures, folded one record at a time (see the module doc)."""

    reads: tuple[str, ...]  # the record types it is given
    fields: tuple[str, ...]  # the keys of them it reads (empty: whole records)

    def fold(self, record: dict[str, Any]) -> None: ...

    def figures(self) -> dict[str, Any]: ...


@dataclass(frozen=True)
class StatsHook:
    """What a game's spec gives ``tablectl stats`` (and the pit page).

    ``make(config)`` a fresh :class:`Fold` for the table of ``config``; ``lines(figures)``
    the figures in words, at most 80 columns and one screen; ``games(figures)`` how many
    games were folded (0: the command says the journal has none)."""

    make: Callable[[Config], Fold]
    lines: Callable[[dict[str, Any]], list[str]]
    games: Callable[[dict[str, Any]], int]


@dataclass(frozen=True)
class Window:
    """Which games: the ``last`` N (by their result records), and/or those with ``since``
    <= t < ``until`` (the journal's t: epoch seconds, or a replay's trace seconds)."""

    last: int | None = None
    since: float | None = None
    until: float | None = None


def fold_window(journal: Journal, config: Config, window: Window
                ) -> tuple[StatsHook, Fold]:
    """The table's game's statistics (its spec's hook) with the window's games folded in,
    read as a stream in one snapshot of the journal: what ``tablectl stats`` prints, and
    what a page keeps, folding each new record of ``fold.reads`` as it is journaled.

    Raises:
        LookupError: the table's game has no statistics.
    """
    from controller.core.specs import load_attribute

    spec = config.spec
    if not spec.stats:
        raise LookupError(f"a {spec.title} table has no statistics")
    hook = load_attribute(spec.stats)
    assert isinstance(hook, StatsHook), spec.stats
    fold = hook.make(config)
    carried = tuple(kind for kind in fold.reads if kind == "dealer")
    with journal.snapshot():
        after, until = bounds(journal, spec.recall.results, window)
        for record in records(journal, fold.reads, after, until, carried, fold.fields):
            fold.fold(record)
    return hook, fold


def bounds(journal: Journal, results: tuple[str, ...], window: Window
           ) -> tuple[int, int | None]:
    """The records ``after`` < seq <= ``until`` (None: to the end) that hold the window's
    games; ``--last N`` counts result records (of ``results``) back from the end (or from
    ``until``)."""
    db = journal.db
    after, until = 0, None
    if window.since is not None:
        row = db.execute("SELECT MIN(seq) FROM records WHERE t >= ?", (window.since,)).fetchone()
        after = (row[0] - 1) if row and row[0] is not None else journal.last_seq
    if window.until is not None:
        row = db.execute("SELECT MAX(seq) FROM records WHERE t < ?", (window.until,)).fetchone()
        until = row[0] if row and row[0] is not None else 0
    if window.last is not None:
        marks = ",".join("?" * len(results))
        row = db.execute(
            f"SELECT seq FROM records WHERE type IN ({marks}) AND seq <= ? "
            "ORDER BY seq DESC LIMIT 1 OFFSET ?",
            (*results, until if until is not None else journal.last_seq, window.last - 1),
        ).fetchone()
        if row is not None:
            after = max(after, row[0] - 1)
    return after, until


def records(journal: Journal, types: tuple[str, ...], after: int, until: int | None,
            carried: tuple[str, ...] = (), fields: tuple[str, ...] = ()
            ) -> Iterator[dict[str, Any]]:
    """The records of ``types`` with ``after`` < seq <= ``until``, oldest first, read as a
    stream; first, for each of ``carried`` (a state such as who deals), its newest record
    at or before ``after``, so the window starts with the state in force. With ``fields``
    (top-level keys) each record holds its ``type`` and those alone (a key it lacks is
    None), picked out by SQLite: a result's evidence need not be parsed to count it."""
    import json

    keys = ("type", *fields) if fields else ()
    column = (f"json_extract(body, {', '.join(_path(k) for k in keys)})" if keys
              else "body")

    def read(body: str) -> dict[str, Any]:
        return dict(zip(keys, json.loads(body), strict=True)) if keys else json.loads(body)

    db = journal.db
    for kind in carried:
        row = db.execute(f"SELECT {column} FROM records WHERE type = ? AND seq <= ? "
                         "ORDER BY seq DESC LIMIT 1", (kind, after)).fetchone()
        if row is not None:
            yield read(row[0])
    marks = ",".join("?" * len(types))
    sql = f"SELECT {column} FROM records WHERE type IN ({marks}) AND seq > ?"
    args: list[Any] = [*types, after]
    if until is not None:
        sql += " AND seq <= ?"
        args.append(until)
    for (body,) in db.execute(sql + " ORDER BY seq", args):
        yield read(body)


def _path(key: str) -> str:
    """A top-level key as an SQLite JSON path literal (``'$."number"'``)."""
    if not key.replace("_", "").isalnum():
        raise ValueError(f"not a record field: {key!r}")
    return f"'$.\"{key}\"'"
