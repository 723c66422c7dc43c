"""Roulette's surveillance figures (issue 21; seed 001): pocket counts against a fair
wheel, a scan of wheel sectors, the spins a bias needs to be seen, the even-money and
dozen shares, and from a GPIO wheel's evidence the drop zone and each dealer's signature.

Only results count (``spin_result``): an invalid spin ("tiro no válido", Art. 12) has no
pocket. Figures are folded one result at a time (:class:`RouletteFold`, a
``controller.core.stats.Fold``); ``figures()`` gives them as a plain dict:

- ``counts``: number -> results, in wheel order; ``chi_square``, ``dof`` (N − 1),
  ``p_value`` against the fair wheel (1/N a pocket); None with ``test`` saying why when an
  expected count is under 5 (5 × N spins are needed: 185 on a single-zero wheel).
- ``sectors``: every run of 3, 5 and 9 adjacent pockets in wheel order (N of each size),
  its ``count``, ``expected`` and one-sided binomial ``p_value`` (a count this high on a
  fair wheel) multiplied by the 3 × N sectors looked at (Bonferroni), at most 1.
- ``spins_to_detect``: for the worst pocket seen and for the break-even bias 1/36 (a
  straight up pays 35 to 1), the spins a one-sided test at 5 % needs to see it with 80 %
  power: ``named`` when the pocket is named in advance (a pocket watched from now on),
  ``scan`` when the sector scan must find it (its 3-pocket sector, at 5 % / (3 × N)).
- ``shares``: red, black, odd, even, each dozen and the zero pockets, with 95 % intervals.
- ``drop_zone``: where the ball left the track (degrees clockwise from ``ball_a``, the
  wheel's fixed frame), in 12 bins of 30°, estimated from the last two laps (see
  :func:`drop_angle`).
- ``dealers``: per dealer (the last ``dealer`` record before the spin), the distance in
  pockets, in the rotor's direction, from the pocket under the ball at its release
  (``release_index``, a GPIO wheel's evidence) to the pocket it settled in, with its χ²
  against uniform (5 × N spins a dealer before a test is made).
"""

from __future__ import annotations

from typing import Any

from controller.core import stats
from controller.core.config import Config
from controller.core.errors import InputError
from controller.core.words import given
from controller.games.roulette.layout import RED, WHEEL_ORDERS

SECTOR_SIZES = (3, 5, 9)
DROP_BINS = 12  # bins of 30°
BREAK_EVEN = 1 / 36  # a straight up pays 35 to 1 (Art. 13): a pocket this often pays back
LEAVE_SPEED_REV_S = 0.45
"""The ball's speed when it leaves the track, rev/s: the real lap series' (../shared/data,
fitted in ``sim.wheel_sim``). A wheel whose balls leave faster or slower shifts every
estimated drop angle alike; a drop zone's peak stays a peak."""
UNNAMED = "(no dealer named)"
DEALERS_SHOWN = 4  # on the one screen


class RouletteFold:
    """Roulette's figures, one ``spin_result`` (or ``dealer`` change) at a time."""

    reads: tuple[str, ...] = ("spin_result", "dealer")
    fields: tuple[str, ...] = ("name", "spin", "number", "pocket_index", "release_index",
                               "rotor_direction", "lap_times", "ball_direction")

    def __init__(self, wheel: str) -> None:
        self.wheel = wheel
        self.order = WHEEL_ORDERS[wheel]
        self.index = {number: i for i, number in enumerate(self.order)}
        self.counts = [0] * len(self.order)
        self.drops = [0] * DROP_BINS
        self.dealer = UNNAMED
        self.signatures: dict[str, list[int]] = {}

    def fold(self, record: dict[str, Any]) -> None:
        """Count one record.

        Raises:
            InputError: a result whose number is not a pocket of this wheel (the journal
                is another wheel's: its table's config is needed).
        """
        if record["type"] == "dealer":
            self.dealer = str(record.get("name") or UNNAMED)
            return
        i = self.index.get(str(record.get("number")))
        if i is None:
            raise InputError("spin_result", None, "number", f"spin {record.get('spin')}: "
                             f"{given(record.get('number'))} is not a pocket of the {self.wheel} "
                             "wheel: give the table's own config (--config)")
        self.counts[i] += 1
        angle = drop_angle(record.get("lap_times") or [], record.get("ball_direction"))
        if angle is not None:
            self.drops[int(angle // (360 / DROP_BINS)) % DROP_BINS] += 1
        distance = signature(record, len(self.order))
        if distance is not None:
            row = self.signatures.setdefault(self.dealer, [0] * len(self.order))
            row[distance] += 1

    def figures(self) -> dict[str, Any]:
        n, size = sum(self.counts), len(self.order)
        fair = [1 / size] * size
        fit = stats.chi_square(self.counts, fair)
        worst = max(range(size), key=lambda i: self.counts[i])
        out: dict[str, Any] = {
            "game": "roulette", "spins": n, "wheel": self.wheel,
            "counts": dict(zip(self.order, self.counts, strict=True)),
            **{k: fit[k] for k in ("chi_square", "dof", "p_value", "critical_5pct", "test")},
            "sectors": sector_scan(self.counts, self.order),
            "spins_to_detect": {
                "worst_pocket": {"number": self.order[worst],
                                 "share": round(self.counts[worst] / n, 6) if n else None,
                                 **detect(self.counts[worst] / n if n else 0.0, size)},
                "break_even": {"share": round(BREAK_EVEN, 6), **detect(BREAK_EVEN, size)},
                "alpha": stats.ALPHA, "power": stats.POWER},
            "shares": self._shares(n),
            "drop_zone": {"bin_deg": 360 // DROP_BINS, "counts": list(self.drops),
                          **stats.chi_square(self.drops, [1 / DROP_BINS] * DROP_BINS)},
            "dealers": {name: {"spins": sum(row), "counts": list(row),
                               **stats.chi_square(row, fair)}
                        for name, row in sorted(self.signatures.items())},
        }
        out["charts"] = self._charts(n)
        return out

    def _shares(self, n: int) -> dict[str, Any]:
        size = len(self.order)
        by = dict(zip(self.order, self.counts, strict=True))
        plain = [str(k) for k in range(1, 37)]
        groups = {
            "red": [x for x in plain if x in RED], "black": [x for x in plain if x not in RED],
            "odd": [x for x in plain if int(x) % 2], "even": [x for x in plain if not int(x) % 2],
            "dozen_1": plain[:12], "dozen_2": plain[12:24], "dozen_3": plain[24:],
            "zero": [x for x in self.order if x in ("0", "00")],
        }
        return {name: stats.share(sum(by[x] for x in xs), n, len(xs) / size)
                for name, xs in groups.items()}

    def _charts(self, n: int) -> list[dict[str, Any]]:
        size = len(self.order)
        charts = [stats.chart(f"results per pocket, wheel order ({n} spins)", "pocket",
                              self.order, self.counts, [n / size] * size)]
        drops = sum(self.drops)
        if drops:
            charts.append(stats.chart(f"drop zone ({drops} spins)", "degrees from ball_a",
                                      [f"{k * 30}" for k in range(DROP_BINS)], self.drops,
                                      [drops / DROP_BINS] * DROP_BINS))
        for name, row in sorted(self.signatures.items()):
            charts.append(stats.chart(f"dealer signature: {name} ({sum(row)} spins)",
                                      "pockets in the rotor's direction",
                                      [str(k) for k in range(size)], row,
                                      [sum(row) / size] * size))
        return charts


def make(config: Config) -> RouletteFold:
    return RouletteFold(config.rules.wheel)


def sector_scan(counts: list[int], order: tuple[str, ...],
                sizes: tuple[int, ...] = SECTOR_SIZES) -> list[dict[str, Any]]:
    """Every sector of ``sizes`` adjacent pockets (``counts`` in wheel order ``order``):
    ``{"size", "pockets", "count", "expected", "p_value"}``, ``p_value`` one-sided and
    multiplied by the ``len(sizes) × N`` sectors looked at (at most 1); None when its
    expected count is under 5 (no test)."""
    n, size = sum(counts), len(order)
    looked = len(sizes) * size
    out: list[dict[str, Any]] = []
    for width in sizes:
        sums = [sum(counts[(i + k) % size] for k in range(width)) for i in range(size)]
        expected = n * width / size
        raw = stats.upper_tail(sums, n, width / size)
        for i, count in enumerate(sums):
            p = min(1.0, raw[i] * looked) if expected >= stats.MIN_EXPECTED else None
            out.append({"size": width, "pockets": [order[(i + k) % size] for k in range(width)],
                        "count": count, "expected": round(expected, 3), "p_value": p})
    return out


def detect(share: float, pockets: int) -> dict[str, int | None]:
    """Spins to see a pocket whose true ``share`` is above 1/``pockets``, at 5 % and 80 %
    power: ``named`` (that pocket tested alone) and ``scan`` (its 3-pocket sector among the
    scan's 3 × N, the other pockets sharing the rest evenly); None when ``share`` is no
    bias."""
    p0 = 1 / pockets
    sector = share + 2 * (1 - share) / (pockets - 1)
    looked = len(SECTOR_SIZES) * pockets
    return {"named": stats.trials_to_detect(p0, share),
            "scan": stats.trials_to_detect(3 * p0, sector, stats.ALPHA / looked)}


def drop_angle(laps: list[float], direction: str | None,
               leave_speed: float = LEAVE_SPEED_REV_S) -> float | None:
    """Where the ball left the track, degrees clockwise from ``ball_a`` (0°), from its
    last two ``laps`` (seconds) and its ``direction`` ("cw"/"ccw"): the deceleration α of
    those laps taken as constant, the ball's speed ω at its last pass, and the ball leaving
    at ``leave_speed`` (rev/s) after (ω² − leave²) / 2α revolutions (less than one: it did
    not pass ``ball_a`` again). None without two laps, a direction, or a deceleration."""
    if len(laps) < 2 or direction not in ("cw", "ccw") or min(laps[-2:]) <= 0:
        return None
    before, last = laps[-2], laps[-1]
    alpha = (1 / before - 1 / last) / ((before + last) / 2)  # rev/s², from the mean speeds
    if alpha <= 0:
        return None
    omega = 1 / last - alpha * last / 2  # at the last pass
    turns = min(max((omega**2 - leave_speed**2) / (2 * alpha), 0.0), 0.999999)
    return turns * 360 if direction == "cw" else (360 - turns * 360) % 360


def signature(record: dict[str, Any], pockets: int) -> int | None:
    """The dealer's signature of one result: pockets from the one under the ball at its
    release to the one it settled in, counted in the rotor's direction (the wheel order
    runs clockwise, so clockwise counts up); None without a ``release_index`` (a serial
    wheel, a journal from before it was measured) or a rotor direction."""
    release, settled = record.get("release_index"), record.get("pocket_index")
    direction = record.get("rotor_direction")
    if not isinstance(release, int) or not isinstance(settled, int) or direction not in (
            "cw", "ccw"):
        return None
    return (settled - release) % pockets if direction == "cw" else (release - settled) % pockets


def lines(fig: dict[str, Any]) -> list[str]:
    """The figures in words: one screen of at most 80 columns."""
    n, size = fig["spins"], len(fig["counts"])
    out = [f"Roulette, {fig['wheel'].replace('_', ' ')} wheel: {n:,} spins"]
    cells = [f"{x:>2}:{c:<5}" for x, c in fig["counts"].items()]
    out += [("pockets " if i == 0 else " " * 8) + " ".join(cells[i:i + 8])
            for i in range(0, len(cells), 8)]
    out = [line.rstrip() for line in out]
    out.append(f"fair?   {stats.verdict(fig)}")
    for width in SECTOR_SIZES:
        top = max((s for s in fig["sectors"] if s["size"] == width), key=lambda s: s["count"])
        p = ("no test (expected under 5)" if top["p_value"] is None
             else f"p {stats.p_text(top['p_value'])} (x{len(fig['sectors'])} sectors)")
        names = "-".join(top["pockets"][:5]) + ("-..." if width > 5 else "")
        out.append(f"{'sectors' if width == SECTOR_SIZES[0] else '':<8}{width}: {names} "
                   f"{top['count']:,} vs {top['expected']:,.1f}, {p}")
    detect_ = fig["spins_to_detect"]
    worst = detect_["worst_pocket"]
    out.append(f"detect  pocket {worst['number']} at {worst['share']:.2%} (fair "
               f"{1 / size:.2%}): {_spins(worst)}")
    out.append(f"        break-even bias 1/36: {_spins(detect_['break_even'])}")
    out.append("shares  per cent [95% interval] fair share")
    shares = fig["shares"]
    labels = {"dozen_1": "1st 12", "dozen_2": "2nd 12", "dozen_3": "3rd 12"}
    keys = list(shares)
    for i in range(0, len(keys), 2):
        out.append("        " + "   ".join(_share(labels.get(k, k), shares[k])
                                           for k in keys[i:i + 2]))
    drop = fig["drop_zone"]
    if drop["n"]:
        peak = max(range(DROP_BINS), key=lambda k: drop["counts"][k])
        out.append(f"drop    {drop['n']:,} spins, most at {peak * 30}-{peak * 30 + 30} deg "
                   f"({drop['counts'][peak]})")
        out.append(f"        {stats.verdict(drop)}")
    else:
        out.append("drop    no lap times in these results: no drop zone")
    if not fig["dealers"]:
        out.append("dealer  no release measured (a GPIO wheel's): no signature")
    for name, row in list(fig["dealers"].items())[:DEALERS_SHOWN]:
        peak = max(range(size), key=lambda k: row["counts"][k])
        out.append(f"dealer  {name[:30]}: {row['spins']:,} spins, most {peak} pockets on "
                   f"({row['counts'][peak]:,})")
        out.append(f"        {stats.verdict(row)}")
    if len(fig["dealers"]) > DEALERS_SHOWN:
        out.append(f"        and {len(fig['dealers']) - DEALERS_SHOWN} dealers more: --json "
                   "or a window of their shifts (--since, --until)")
    return out


def _spins(row: dict[str, Any]) -> str:
    if row["named"] is None:
        return "no bias to detect"
    return f"{row['named']:,} spins if named, {row['scan']:,} by the scan"


def _share(name: str, row: dict[str, Any]) -> str:
    return (f"{name:<6} {100 * row['share']:4.1f} [{100 * row['low']:4.1f}-"
            f"{100 * row['high']:4.1f}] {100 * row['expected']:4.1f}")


STATS = stats.StatsHook(make=make, lines=lines, games=lambda fig: int(fig["spins"]))
"""Roulette's entry for ``tablectl stats`` (``GameSpec.stats``)."""
