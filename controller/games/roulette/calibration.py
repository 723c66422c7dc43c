"""Commissioning of a GPIO wheel: the pocket mapping, checked with a ball at rest in a pocket
the technician names, and the pocket sensor's angle (``[roulette] ball_pocket_deg``).

With the ball resting in pocket i (index in the wheel order, N pockets) and the rotor
turning, each ``ball_pocket`` activation falls at fraction f of its rotor revolution. A
sensor at φ clockwise of ``rotor_a`` sees pocket i when (the sensors' pocket rule, turned by φ)
φ = 360·(i/N + f) turning clockwise, 360·(i/N − f) counterclockwise (mod 360°). Each
revolution measured whole (one ``rotor_b`` pass in it, which also gives the direction)
gives one φ; their circular mean is the offset. A sensor that sees the ball a little wider
than ``rotor_a`` sees the marker shifts φ one way turning clockwise and the other way
counterclockwise: turning the rotor both ways and taking the mean of both cancels it.

Each reading is also decoded by the GPIO wheel's own code (``pockets.decode``) with the
config's offset: the mapping is right when every one gives the pocket named.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import sys
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from controller.core.config import Config
from controller.core.errors import InputError
from controller.core.words import fit, local_time, plain
from controller.games.roulette.gpio_wheel import pockets
from controller.games.roulette.gpio_wheel.rotor import Revolution
from controller.games.roulette.gpio_wheel.spin_record import PocketReading
from controller.games.roulette.layout import WHEEL_ORDERS
from controller.store.export import first_seq_at
from controller.store.journal import Journal

POLL_S = 0.5
_BALL_TRACK = ("ball_a", "ball_b")
"""The ball track's sensors: a ball at rest in a pocket passes neither."""
_TABLE_TYPES = ("state", "spin_start")
"""Records of a table that opened or played."""


@dataclass
class Turn:
    """One rotor revolution with a pocket reading: its direction, the φ it gives (degrees)
    and the number the wheel's decoding gives with the config's offset."""

    start: float
    period: float
    direction: str
    offset_deg: float
    decoded: str


@dataclass
class Calibration:
    """The result for a ball in ``pocket`` of a wheel of ``pockets``: the turns read, the
    offset per direction and overall (degrees, or None without turns), the spread (degrees,
    the largest distance of a turn from the mean)."""

    pocket: str
    config_offset_deg: float
    pockets: int
    turns: list[Turn] = field(default_factory=list)

    def offset(self, direction: str | None = None) -> float | None:
        """The mean offset of the turns in ``direction`` (None: the mean of each direction's
        mean, so that a sensor's window width cancels)."""
        if direction is not None:
            return _circular_mean([t.offset_deg for t in self.turns if t.direction == direction])
        means = [m for d in ("cw", "ccw") if (m := self.offset(d)) is not None]
        return _circular_mean(means)

    def spread(self) -> float:
        mean = self.offset()
        if mean is None:
            return 0.0
        return max((_distance(t.offset_deg, mean) for t in self.turns), default=0.0)

    def as_json(self) -> dict[str, Any]:
        return {"pocket": self.pocket, "config_ball_pocket_deg": self.config_offset_deg,
                "ball_pocket_deg": _rounded(self.offset()),
                "cw_deg": _rounded(self.offset("cw")), "ccw_deg": _rounded(self.offset("ccw")),
                "spread_deg": round(self.spread(), 2),
                "mapping_ok": bool(self.turns) and all(t.decoded == self.pocket
                                                       for t in self.turns),
                "turns": [t.__dict__ for t in self.turns]}


def measure(records: Iterable[dict[str, Any]], config: Config, pocket: str) -> Calibration:
    """The turns of the ``gpio`` records (journal order, wall-time ``t``) with a pocket
    reading, for a ball resting in ``pocket``."""
    rules = config.rules
    order = rules.order or WHEEL_ORDERS[rules.wheel]
    n = len(order)
    index = order.index(pocket)
    result = Calibration(pocket, rules.ball_pocket_deg, n)
    rises: dict[str, list[float]] = {"rotor_a": [], "rotor_b": [], "ball_pocket": []}
    for rec in records:
        name = rec.get("input")
        if rec.get("type") == "gpio" and rec.get("level") == 1 and name in rises:
            times = rises[name]
            # Chatter of one pass is one activation (CONTRACT §5).
            if not times or rec["t"] - times[-1] >= rules.min_rotor_period_s:
                times.append(rec["t"])
    rotor_a, rotor_b = rises["rotor_a"], rises["rotor_b"]
    for start, end in itertools.pairwise(rotor_a):
        period = end - start
        bs = [b for b in rotor_b if start <= b < end]
        if len(bs) != 1 or not 60.0 / rules.min_rotor_rpm >= period > 0:
            continue  # not measured whole: no direction, or a stopped rotor
        direction = "cw" if (bs[0] - start) / period < 0.5 else "ccw"
        for t in (r for r in rises["ball_pocket"] if start <= r < end):
            f = (t - start) / period
            phi = 360.0 * (index / n + f) if direction == "cw" else 360.0 * (index / n - f)
            reading = PocketReading(t)
            pockets.decode([reading], Revolution(start, end, period, direction, True), order,
                           None, rules.ball_pocket_deg)
            result.turns.append(Turn(round(start, 6), round(period, 6), direction,
                                     round(phi % 360.0, 3), str(reading.number)))
    return result


def command(journal: Journal, config: Config, args: Sequence[str], as_json: bool,
            parents: Sequence[argparse.ArgumentParser] = ()) -> int:
    """``tablectl calibrate --pocket N [--turns K] [--timeout S] [--recorded S]``: read the
    rotor's passes and the pocket sensor with the ball resting in pocket N, print the
    offset and the config line. Live (default): the edges the daemon journals from now on
    (its evidence batches), until K turns with a reading (both ways) or the timeout;
    ``--recorded S``: the last S seconds already journaled. ``parents``: the options
    tablectl took already (``--config``...), listed in the help.

    Returns 0 with a result, 1 with no turn read (nothing to measure).

    Raises:
        InputError: not a GPIO wheel, or a pocket not on this wheel (exit 2).
    """
    parser = argparse.ArgumentParser(prog="tablectl calibrate", description=plain(__doc__),
                                     parents=list(parents),
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pocket", required=True, help="the pocket the ball rests in")
    parser.add_argument("--turns", type=int, default=6,
                        help="turns to read (default %(default)s)")
    parser.add_argument("--timeout", type=float, default=180,
                        help="live: seconds to wait for the turns (default %(default)s)")
    parser.add_argument("--recorded", type=float, default=None,
                        help="use the last S seconds of the journal instead of waiting")
    options = parser.parse_args(list(args))
    rules = config.rules
    if rules.wheel_source != "gpio":
        raise InputError("calibrate", None, None, "a serial wheel decodes its pockets itself: "
                         "nothing to calibrate")
    order = rules.order or WHEEL_ORDERS[rules.wheel]
    if options.pocket not in order:
        raise InputError("--pocket", None, None, f"{options.pocket!r} is not a pocket of a "
                         f"{rules.wheel} wheel")
    if options.recorded is not None:
        last = next(journal.records(after=max(0, journal.last_seq - 1)), None)
        since = (last["t"] if last else 0.0) - options.recorded
        records = [r for r in journal.edge_records() if r["t"] >= since]
        disturbed = _disturbance(journal, first_seq_at(journal, since) - 1, records)
        if disturbed is not None:
            return _refuse(f"{disturbed} in the last {options.recorded:g} s")
        result = measure(records, config, options.pocket)
    else:
        result, disturbed = _live(journal, config, options.pocket, options.turns,
                                  options.timeout)
        if disturbed is not None:
            return _refuse(disturbed)
    return _report(result, as_json)


def _disturbance(journal: Journal, after: int, edges: Sequence[dict[str, Any]]) -> str | None:
    """Why the journal after record ``after`` (and ``edges``, its GPIO edges) is no
    calibration's: the table was not closed then, opened or played a spin, or the ball
    ran on the ball track (hardware.md §2c: the table closed, the ball at rest); None
    when nothing was."""
    before = journal.db.execute("SELECT body FROM records WHERE type = 'state' AND seq <= ? "
                                "ORDER BY seq DESC LIMIT 1", (after,)).fetchone()
    state = json.loads(before[0])["to"] if before else "closed"
    if state != "closed":
        return f"the table was not closed (it was {state})"
    moved = next((e for e in edges if e.get("input") in _BALL_TRACK), None)
    changed = journal.db.execute(
        f"SELECT body FROM records WHERE type IN ({','.join('?' * len(_TABLE_TYPES))}) "
        "AND seq > ? ORDER BY seq LIMIT 1", (*_TABLE_TYPES, after)).fetchone()
    opened = json.loads(changed[0]) if changed else None
    if opened is not None and (moved is None or opened["t"] <= moved["t"]):
        what = (f"went {opened['to']}" if opened["type"] == "state"
                else f"started spin {opened.get('spin')}")
        return f"the table {what} at {_when(opened['t'])}: it was not closed"
    if moved is not None:
        return (f"the ball moved: {moved['input']} read it on the ball track at "
                f"{_when(moved['t'])}")
    return None


def _refuse(reason: str) -> int:
    """No measurement of a table not at rest: one line, exit 1."""
    print(f"tablectl calibrate: {reason}; close the table, rest the ball in the pocket and "
          "calibrate again (hardware.md §2c)", file=sys.stderr)
    return 1


def _when(t: float) -> str:
    return local_time(t) if t > 1e9 else f"{t:.3f} s"


def _live(journal: Journal, config: Config, pocket: str, turns: int,
          timeout: float) -> tuple[Calibration, str | None]:
    """Read the edges the daemon journals from now on until ``turns`` turns with a
    reading, or ``timeout`` seconds; or until the table opens or the ball moves (the
    reason, second). The edges come as their evidence batches close (one closes at least
    once a minute while the rotor turns between spins)."""
    # Only the edges journaled from now on are read: none of the batches before.
    after = (journal.db.execute("SELECT coalesce(max(batch), 0) FROM evidence").fetchone()[0]
             if journal.format >= 2 else 0)
    start = journal.last_seq
    disturbed = _disturbance(journal, start, [])
    if disturbed is not None:
        return measure([], config, pocket), disturbed
    print(fit(f"reading the rotor and the pocket sensor: turn the rotor slowly, {turns // 2} "
              f"turns each way, the ball at rest in pocket {pocket} (up to {timeout:g} s)"),
          flush=True)
    records: list[dict[str, Any]] = []
    deadline = time.monotonic() + timeout
    result = measure(records, config, pocket)
    while len(result.turns) < turns and time.monotonic() < deadline:
        time.sleep(POLL_S)
        for rec in journal.edge_records(after):
            records.append(rec)
            after = rec["batch"]
        disturbed = _disturbance(journal, start, records)
        if disturbed is not None:
            return result, disturbed
        result = measure(records, config, pocket)
    return result, None


def _report(result: Calibration, as_json: bool) -> int:
    """Print the turns and the offset to put in the config; 1 without turns, or when they
    disagree beyond a quarter pocket (no offset recommended then)."""
    disagree = result.spread() > 90.0 / result.pockets  # a quarter pocket
    if as_json:
        data = result.as_json()
        if disagree:
            data["ball_pocket_deg"] = None
            data["repeat"] = "the turns disagree beyond a quarter pocket"
        print(json.dumps(data, indent=2, sort_keys=True))
        return 0 if result.turns and not disagree else 1
    if not result.turns:
        print(fit("no rotor turn with a pocket reading: is the ball at rest in the pocket, "
                  "and the rotor turning? (tablectl sensors --watch shows each sensor)"))
        return 1
    for turn in result.turns:
        print(fit(f"turn at {_when(turn.start)}, {turn.period:.3f} s, {turn.direction}: the "
                  f"sensor is at {turn.offset_deg:.1f} deg; decoded {turn.decoded}"))
    summary = result.as_json()
    for direction in ("cw", "ccw"):
        mean = summary[f"{direction}_deg"]
        print(f"{direction:<4} {'none turned this way' if mean is None else f'{mean} deg'}")
    ok = summary["mapping_ok"]
    print(fit(f"the mapping with ball_pocket_deg = {result.config_offset_deg:g} "
              f"{'gives pocket ' + result.pocket + ' every turn: OK' if ok else 'is WRONG'}"))
    if summary["ccw_deg"] is None or summary["cw_deg"] is None:
        print(fit("turn the rotor the other way too: the mean of both ways cancels the width "
                  "of the sensor's window"))
    if disagree:
        print(fit(f"the turns disagree by up to {result.spread():.1f} deg, more than a "
                  "quarter pocket: the ball moved, or a sensor misses passes; no offset from "
                  "these turns: repeat (hardware.md §1, the wiring check)"))
        return 1
    print("put this line in the config's [roulette] section:")
    print(f"ball_pocket_deg = {summary['ball_pocket_deg']}")
    return 0


def _circular_mean(angles: list[float]) -> float | None:
    if not angles:
        return None
    x = sum(math.cos(math.radians(a)) for a in angles)
    y = sum(math.sin(math.radians(a)) for a in angles)
    return math.degrees(math.atan2(y, x)) % 360.0


def _distance(a: float, b: float) -> float:
    return abs((a - b + 180.0) % 360.0 - 180.0)


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value % 360.0, 1) % 360.0
