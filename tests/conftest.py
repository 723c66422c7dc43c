"""Shared helpers for the roulette tests: trace building from the CONTRACT §1 geometry,
running the whole controller on a trace (``table-controller replay``) in virtual time, and
simulated spins replayed against the simulator's truth. The article tests
(tests/articles/test_seed_001_roulette*.py) and the mechanics tests of tests/ share them.

Every expected value the tests use is derived here from the contract's geometry, the seed's
articles and ../shared/data (copied to tests/traces/ so the suite stands alone), never
from the controller's own tables or output.

Geometry (CONTRACT §1; angles clockwise seen from above): ``ball_a`` at 0°, ``ball_b`` at
20°, ``rotor_a`` at 0°, ``rotor_b`` at 10°, ``ball_pocket`` at 0°; a sensor is active while
its target is within ``PULSE_DEG`` of it (as in ../shared/traces/README.md). The ball's
edges come from sim.wheel_sim.ball_track_events (``ball_a`` exactly at the given lap
times); the rotor's and the resting ball's are computed here.
"""

from __future__ import annotations

import csv
import io
import itertools
import json
from collections.abc import Callable, Iterable, Sequence
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from scheduling import pytest_collection_modifyitems  # noqa: F401 (make test's spread)

from controller.cli import main as cli
from controller.core.logs import configure
from controller.games.roulette.simulation import RouletteSimConfig, SimulatedSpin, simulate
from controller.trace import write_trace as write_objects
from sim.wheel_sim import ball_track_events


@pytest.fixture(autouse=True)
def _logs_to_this_tests_stderr() -> None:
    """Each test logs to its own stderr: a logger left bound to an earlier test's captured
    stream (closed since) would fail whichever test logs next."""
    configure("warning")

Event = dict[str, Any]

TRACES = Path(__file__).resolve().parent / "traces"
REPO = Path(__file__).resolve().parents[1]
# The shared folder beside the repository (../shared): tests reach it only this way, never
# by a machine's absolute path; a test that needs it skips where it is missing.
SHARED = REPO.parent / "shared"

PULSE_DEG = 2.0
ROTOR_B_DEG = 10.0
DROP_TIMEOUT_FACTOR = 2.0  # our default; CONTRACT §1 says 1.5, too short for real data
SUSPENDED_WAIT_REVS = 6  # seed 001 Art. 12 (c); RULES.md decision: rotor revolutions

# ../shared/data/wheels.md: pockets clockwise from 0 (index 0).
# fmt: off
ORDERS: dict[str, tuple[str, ...]] = {
    "single_zero": (
        "0", "32", "15", "19", "4", "21", "2", "25", "17", "34", "6", "27", "13", "36",
        "11", "30", "8", "23", "10", "5", "24", "16", "33", "1", "20", "14", "31", "9",
        "22", "18", "29", "7", "28", "12", "35", "3", "26",
    ),
    "double_zero": (
        "0", "28", "9", "26", "30", "11", "7", "20", "32", "17", "5", "22", "34", "15",
        "3", "24", "36", "13", "1", "00", "27", "10", "25", "29", "12", "8", "19", "31",
        "18", "6", "21", "33", "16", "4", "23", "35", "14", "2",
    ),
}
# fmt: on

# Real series 0 of real-ball-laps.csv (10 laps) and the real median rotor revolution (5.3 s,
# about 11 rpm): the everyday spin of a live wheel.
REAL_LAPS = (0.679, 0.672, 0.679, 0.737, 0.784, 0.887, 0.922, 0.991, 1.378, 1.799)
REAL_PERIOD = 5.3

# The reasons of CONTRACT §1, in table order (the first applicable one is `reason`).
REASON_ORDER = (
    "too_few_revolutions", "same_direction", "ball_suspended", "ball_out_of_wheel",
    "foreign_object", "wheel_malfunction", "wheel_stopped",
)


def opposite(direction: str) -> str:
    return "ccw" if direction == "cw" else "cw"


def drop_time(ball_a: Sequence[float], factor: float = DROP_TIMEOUT_FACTOR) -> float:
    """CONTRACT §1: the ball left the track when no ``ball_a`` came within factor × last lap."""
    return ball_a[-1] + factor * (ball_a[-1] - ball_a[-2])


def read_series(name: str) -> dict[int, list[float]]:
    """A CSV of ../shared/data (copied to tests/traces): series id -> times in seconds."""
    with open(TRACES / name, newline="") as f:
        rows = list(csv.reader(f))[1:]
    return {int(sid): [float(x) for x in times.split()] for sid, times in rows}


# -- the rotor ------------------------------------------------------------------------
@dataclass
class Rotor:
    """A rotor whose zero marker reaches ``rotor_a`` at ``a[0]``, ``a[0] + periods[0]``, ...

    It turns at a constant speed within each revolution (so each revolution's own period
    is exact), in ``dirs[k]`` during revolution k. ``rotor_b`` is passed 10° after
    ``rotor_a`` turning clockwise, 350° after it counterclockwise.
    """

    t0: float
    periods: list[float]
    dirs: list[str]
    a: list[float] = field(init=False)

    def __post_init__(self) -> None:
        self.a = list(itertools.accumulate(self.periods, initial=self.t0))

    @classmethod
    def turning(cls, t0: float, periods: Iterable[float], direction: str, until: float
                ) -> Rotor:
        """A rotor cycling through ``periods`` until its last ``rotor_a`` is past ``until``."""
        out: list[float] = []
        t = t0
        for p in itertools.cycle(list(periods)):
            if t > until:
                break
            out.append(p)
            t += p
        return cls(t0, out, [direction] * len(out))

    def progress_time(self, progress: float) -> float:
        """When the marker has turned ``progress`` revolutions since ``a[0]``."""
        k = int(progress)
        return self.a[k] + (progress - k) * self.periods[k]

    def events(self, drop_a: Iterable[int] = (), drop_b: Iterable[int] = ()) -> list[Event]:
        """Edges of ``rotor_a`` (activation k at ``a[k]``) and ``rotor_b`` (one in each
        revolution k, plus the partner of the first/last ``rotor_a``); ``drop_a``/``drop_b``
        remove those activations (a sensor fault)."""
        no_a, no_b = set(drop_a), set(drop_b)
        width = 2 * PULSE_DEG / 360
        events: list[Event] = []
        for k, t in enumerate(self.a):
            if k not in no_a:
                p = self.periods[min(k, len(self.periods) - 1)]
                events += pulse("rotor_a", t, width * p)
        bs: list[tuple[int, float]] = []
        for k, (t, p, d) in enumerate(zip(self.a, self.periods, self.dirs, strict=False)):
            frac = ROTOR_B_DEG / 360 if d == "cw" else (360 - ROTOR_B_DEG) / 360
            bs.append((k, t + frac * p))
        # The rotor_b passes that pair with the first (ccw) or the last (cw) rotor_a.
        if self.dirs[0] == "ccw":
            bs.append((-1, self.a[0] - ROTOR_B_DEG / 360 * self.periods[0]))
        if self.dirs[-1] == "cw":
            bs.append((len(self.periods), self.a[-1] + ROTOR_B_DEG / 360 * self.periods[-1]))
        last = len(self.periods) - 1
        for k, t in bs:
            if k not in no_b:
                events += pulse("rotor_b", t, width * self.periods[max(0, min(k, last))])
        return events

    def pocket_times(self, index: int, n: int, after: float, count: int,
                     offset: float = 0.25) -> list[float]:
        """Times the resting ball in pocket ``index`` (of ``n``) reaches ``ball_pocket``.

        Pocket i is centred i·360/n clockwise of the marker: turning clockwise it is under
        the sensor when the rotor has turned (n − i)/n of a revolution past ``rotor_a``,
        counterclockwise i/n. ``offset`` (pockets) places the ball off the pocket's centre,
        as a real ball rests, and keeps its pulse clear of the ``rotor_a`` pulse.
        """
        out: list[float] = []
        for k, d in enumerate(self.dirs):
            steps = ((n - index) % n if d == "cw" else index) + offset
            t = self.progress_time(k + (steps / n) % 1.0)
            if t >= after:
                out.append(t)
            if len(out) == count:
                break
        assert len(out) == count, "the rotor stops before the readings"
        assert out[-1] < self.a[-1], "a reading's revolution must complete"
        return out


def pulse(name: str, t: float, width: float) -> list[Event]:
    return [{"t": round(t, 6), "gpio": name, "level": 1},
            {"t": round(t + width, 6), "gpio": name, "level": 0}]


# -- whole traces ---------------------------------------------------------------------
class TraceBuilder:
    """Collects CONTRACT §2 events; :meth:`events` sorts them (stable) after the meta line."""

    def __init__(self, wheel: str = "single_zero", **meta: Any) -> None:
        self.meta: dict[str, Any] = {"table": "roulette", "wheel": wheel, **meta}
        self.wheel = wheel
        self.n = len(ORDERS[wheel])
        self._events: list[Event] = []

    def add(self, *events: Event) -> TraceBuilder:
        self._events.extend(events)
        return self

    def remove(self, *inputs: str) -> TraceBuilder:
        """Drop every edge of these GPIO inputs (to put in a different rotor, say)."""
        self._events = [e for e in self._events if e.get("gpio") not in inputs]
        return self

    def inp(self, t: float, action: str, **args: Any) -> TraceBuilder:
        return self.add({"t": round(t, 6), "input": action, **args})

    def bet(self, t: float, kind: str, box: int, amount: int, **extra: Any) -> TraceBuilder:
        return self.add({"t": round(t, 6), "bet": kind, "box": box, "amount": amount, **extra})

    def ball(self, t0: float, laps: Sequence[float], direction: str) -> list[float]:
        """A ball released at ``t0`` activating ``ball_a`` at t0 + each cumulative lap time;
        returns those activation times."""
        self.add(*ball_track_events(list(laps), direction, t0))
        return list(itertools.accumulate(laps, initial=t0))[1:]

    def pocket(self, times: Iterable[float], period: float) -> None:
        for t in times:
            self.add(*pulse("ball_pocket", t, 2 * PULSE_DEG / 360 * period))

    def events(self) -> list[Event]:
        return [{"t": 0, "meta": self.meta}, *sorted(self._events, key=lambda e: e["t"])]


@dataclass
class Spin:
    """What a built spin is, from the geometry: the expected values of its records."""

    launch: float
    ball_a: list[float]
    drop: float
    reads: list[float]
    number: str | None
    rotor: Rotor

    @property
    def six_revs(self) -> float:
        """Art. 12 (c): 6 rotor revolutions after the detected drop (constant period)."""
        p = self.rotor.periods[0]
        assert all(abs(q - p) < 1e-9 for q in self.rotor.periods), "constant period only"
        return self.drop + SUSPENDED_WAIT_REVS * p


def one_spin(*, wheel: str = "single_zero", rotor_dir: str = "cw", ball_dir: str | None = None,
             laps: Sequence[float] = REAL_LAPS, periods: Sequence[float] = (REAL_PERIOD,),
             pocket: int | None = 5, reads: int = 2, settle_after_drop: float = 1.0,
             first_read: float | None = None, launch_phase: float = 0.3,
             bets: Sequence[Event] = (), no_more_bets: bool = True,
             tail_revs: float = 3.0, open_at: float | None = 0.1, **meta: Any
             ) -> tuple[TraceBuilder, Spin]:
    """One spin on a table opened at ``open_at`` (0.1 s): the rotor turning from 1.0 s, the
    ball thrown ``launch_phase`` of a revolution after the rotor's second pass (so the rotor's
    period and direction are known), the dealer's no-more-bets 3 s later (as in the example
    trace), the ball resting in ``pocket`` from ``settle_after_drop`` s after the contract's drop
    detection (or with its first reading at or after ``first_read``) for ``reads`` passes.
    """
    tb = TraceBuilder(wheel, **meta)
    if open_at is not None:
        tb.inp(open_at, "open_bets")
    for b in bets:
        tb.add(b)
    ball_dir = ball_dir or opposite(rotor_dir)
    p0 = periods[0]
    launch = 1.0 + p0 + launch_phase * p0
    revs = (reads + tail_revs) * max(periods)
    duration = launch + sum(laps) + 2 * laps[-1] + settle_after_drop + revs
    if first_read is not None:
        duration = max(duration, first_read + revs)
    rotor = Rotor.turning(1.0, periods, rotor_dir, duration)
    tb.add(*rotor.events())
    ball_a = tb.ball(launch, laps, ball_dir)
    if no_more_bets:
        tb.inp(launch + 3.0, "no_more_bets")
    drop = drop_time(ball_a)
    times: list[float] = []
    if pocket is not None and reads:
        after = first_read if first_read is not None else drop + settle_after_drop
        times = rotor.pocket_times(pocket, tb.n, after, reads)
        tb.pocket(times, p0)
    number = ORDERS[wheel][pocket] if pocket is not None else None
    return tb, Spin(launch, ball_a, drop, times, number, rotor)


# -- a card table's restart ------------------------------------------------------------
def nothing_dealt_while_down(table: Any) -> bool:
    """The dealer's answer when a card table's restart stopped play for ``lost_cards``
    (issue 16, item 2: the shoe was not read while the daemon was down): nothing was dealt
    meanwhile, true of a test that sends nothing while its table is down. Returns whether
    the restart had stopped play."""
    from controller.core.events import DealerInput

    waiting = getattr(table.game, "waiting", None)
    if waiting is None or waiting.lost is None:
        return False
    table.handle(DealerInput(table.now(), "lost_cards", {"cards": []}))
    return True


def of_the_restart_stop(record: dict[str, Any]) -> bool:
    """A record of that stop and its answer: the alarm, the dealer's ``lost_cards``."""
    return ((record.get("type") == "alarm" and record.get("code") == "restart_input_lost")
            or (record.get("type") == "input" and record.get("action") == "lost_cards"))


# -- running the controller -----------------------------------------------------------
@dataclass
class Replay:
    """What ``table-controller replay`` did: exit code, printed records, stderr."""

    rc: int
    records: list[dict[str, Any]]
    stderr: str
    journal: Path

    def of(self, *types: str) -> list[dict[str, Any]]:
        return [r for r in self.records if r["type"] in types]

    @property
    def outcomes(self) -> list[dict[str, Any]]:
        """The spins' conclusions (spin_result / spin_invalid), in order."""
        return self.of("spin_result", "spin_invalid")

    def outcome(self) -> dict[str, Any]:
        """The one conclusion of a one-spin trace."""
        found = self.outcomes
        assert len(found) == 1, f"expected one conclusion, got {found}"
        return found[0]

    def alarms(self, code: str | None = None) -> list[dict[str, Any]]:
        return [r for r in self.of("alarm") if code is None or r["code"] == code]


def write_trace(path: Path, events: Iterable[Event]) -> Path:
    with open(path, "w", encoding="utf-8") as f:
        for e in events:
            f.write(json.dumps(e, separators=(",", ":")) + "\n")
    return path


def run_replay(trace: Path, journal: Path, *args: str) -> Replay:
    """``table-controller replay TRACE --journal DB [args]`` in this process."""
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        rc = cli.main(["replay", str(trace), "--journal", str(journal), *args])
    records = [json.loads(line) for line in out.getvalue().splitlines() if line.strip()]
    return Replay(rc, records, err.getvalue(), journal)


@pytest.fixture(scope="module")
def three_spins(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The journal of a replay of three simulated spins (seed 7: the held-out tester's;
    spin 3 gives 30, spin 1's verdict, record 8, closes evidence batch 2). Copy it to
    change it."""
    folder = tmp_path_factory.mktemp("three_spins")
    trace = folder / "sim.jsonl"
    with redirect_stderr(io.StringIO()):
        assert cli.main(["simulate", "--spins", "3", "--seed", "7", "--out", str(trace)]) == 0
    path = folder / "journal.sqlite"
    assert run_replay(trace, path).rc == 0
    return path


def tablectl_on(journal: Path, *argv: str) -> tuple[int, str, str]:
    """``tablectl --journal DB ARGV`` in this process: its exit code, stdout, stderr."""
    from controller.cli.tablectl import main as tablectl_main

    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        rc = tablectl_main(["--journal", str(journal), *argv])
    return rc, out.getvalue(), err.getvalue()


def power_cut(journal: Path, t: float) -> None:
    """The controller lost power at trace time ``t``: what it journaled later never was
    (a replay runs time on after its trace's last line, as the daemon would)."""
    import sqlite3

    con = sqlite3.connect(journal, isolation_level=None)
    try:
        con.execute("DELETE FROM records WHERE t > ?", (t,))
    finally:
        con.close()


ReplayFn = Callable[..., Replay]


def replayer(directory: Path) -> ReplayFn:
    counter = itertools.count(1)

    def replay(trace: TraceBuilder | Sequence[Event] | Path, *args: str,
               config: str | None = None) -> Replay:
        n = next(counter)
        if isinstance(trace, Path):
            path = trace
        else:
            events = trace.events() if isinstance(trace, TraceBuilder) else trace
            path = write_trace(directory / f"trace-{n}.jsonl", events)
        extra = [*args, *(["--config", config] if config else [])]
        return run_replay(path, directory / f"journal-{n}.sqlite", *extra)

    return replay


@pytest.fixture
def replay_fresh(tmp_path_factory: pytest.TempPathFactory) -> ReplayFn:
    """``replay`` for hypothesis tests: each call gets a fresh folder (a fixture's folder is
    shared by all the examples of one test)."""

    def replay(*args: Any, **kwargs: Any) -> Replay:
        return replayer(tmp_path_factory.mktemp("example"))(*args, **kwargs)

    return replay


@pytest.fixture
def replay(tmp_path: Path) -> ReplayFn:
    """``replay(trace_or_events_or_path, *args, config=None)`` → :class:`Replay`."""
    return replayer(tmp_path)


@pytest.fixture(params=["idle", "busy"])
def load(request: pytest.FixtureRequest) -> Iterable[str]:
    """Run the test twice: on an idle machine, and with a busy second process (a CPU spin
    loop the test starts and ends) taking a core, where late inputs and stamps show."""
    import subprocess
    import sys

    if request.param == "idle":
        yield "idle"
        return
    busy = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        yield "busy"
    finally:
        busy.kill()
        busy.wait()


# -- shared by the article tests (tests/articles) and the mechanics tests -----------------
# Bets placed before a spin: a result settles each of them by Art. 13, an invalid throw
# returns each of them exactly once (RULES.md §1, Art. 13 decision: push, payout 0).
SPIN_BETS: tuple[Event, ...] = (
    {"t": 0.5, "bet": "straight", "box": 1, "amount": 10, "numbers": ["17"]},
    {"t": 0.6, "bet": "red", "box": 2, "amount": 20},
    {"t": 0.7, "bet": "dozen", "box": 3, "amount": 5, "which": 2},
)
# The signos (zero pockets) of each wheel (seed 001 Art. 13; wheels.md).
SIGNOS = {"single_zero": {"0"}, "double_zero": {"0", "00"}}


def spin_result(res: Replay, number: str) -> dict[str, Any]:
    """The one conclusion of a one-spin replay: a ``spin_result`` giving ``number``."""
    assert res.rc == 0, res.stderr
    out = res.outcome()
    assert out["type"] == "spin_result", out
    assert out["number"] == number
    return out


def table_trace(*events: Event) -> list[Event]:
    """A trace of a roulette table with the embedded default config: the meta line, then
    ``events``."""
    return [{"t": 0, "meta": {"table": "roulette"}}, *events]


def accepted_amounts(res: Replay, after_seq: int, before_seq: float = float("inf")
                     ) -> list[int]:
    """The amounts of the bets accepted (``bet`` records) between two journal seqs."""
    return [b["amount"] for b in res.of("bet") if after_seq < b["seq"] < before_seq]


@pytest.fixture
def example_journal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """The journal of ``replay`` of tests/traces/roulette-two-spins.jsonl (a copy of
    ../shared/traces' own, so the suite stands alone)."""
    example = TRACES / "roulette-two-spins.jsonl"
    path = tmp_path / "journal.sqlite"
    assert cli.main(["replay", str(example), "--journal", str(path)]) == 0
    capsys.readouterr()
    return path


# -- simulated spins (controller.games.roulette.simulation) through replay -------------------
SIM_SEEDS = (0, 1, 2, 3)  # odd seeds on a double-zero wheel


def sim_wheel(seed: int) -> str:
    return "double_zero" if seed % 2 else "single_zero"


def inspector_decides(events: list[Event], truth: list[SimulatedSpin]) -> list[Event]:
    """The trace with the inspector's ``confirm_result`` (the true number) half a second
    after the removal of each ball whose spin must be held."""
    decisions = [{"t": round(s.remove_t + 0.5, 6), "input": "confirm_result",
                  "number": s.number, "by": "inspector"}
                 for s in truth if s.expected == "held"]
    meta, rest = events[0], events[1:]
    return [meta, *sorted([*rest, *decisions], key=lambda e: e["t"])]


def run_simulated(scenario: str, seed: int, replay: ReplayFn, tmp_path: Path
                  ) -> tuple[Replay, list[SimulatedSpin], list[Event]]:
    """Three simulated spins (a valid one, ``scenario``, a valid one) replayed, with the
    inspector's decisions; the replay, the simulator's truth and the trace's events."""
    events, truth = simulate(3, seed, RouletteSimConfig(wheel=sim_wheel(seed)),
                             ["valid", scenario, "valid"])
    path = tmp_path / f"{scenario}-{seed}.jsonl"
    write_objects(path, inspector_decides(events, truth))
    res = replay(path)
    assert res.rc == 0, res.stderr
    return res, truth, events


def revolutions_seen(events: list[Event], truth: SimulatedSpin) -> set[int]:
    """Ball revolutions a controller can tell from the trace (CONTRACT §1: ``ball_a``
    activations). A counterclockwise ball that passed ``ball_b`` after its last ``ball_a``
    pass and left the track in the 20° before ``ball_a`` leaves the same edges as a last
    pass that ``ball_a`` missed: either count is right."""
    def rises(gpio: str) -> list[float]:
        return [e["t"] for e in events if e.get("gpio") == gpio and e["level"] == 1
                and truth.launch_t <= e["t"] <= truth.leave_t]

    a, b = rises("ball_a"), rises("ball_b")
    trailing = truth.ball_direction == "ccw" and bool(a) and any(t > a[-1] for t in b)
    return {truth.ball_revolutions, truth.ball_revolutions + trailing}


def assert_concluded(res: Replay, k: int, truth: SimulatedSpin, events: list[Event]) -> None:
    """Spin ``k`` of the replay concluded as ``truth.expected`` says."""
    found = [r for r in res.of("spin_result", "spin_invalid", "spin_held") if r["spin"] == k]
    assert found, f"spin {k} ({truth.scenario}) has no conclusion"
    first = found[0]
    settled = [r for r in res.of("settlement") if r["game"] == k]
    if truth.expected == "result":
        assert first["type"] == "spin_result", first
        got = (first["number"], first["ball_direction"], first["rotor_direction"])
        assert got == (truth.number, truth.ball_direction, truth.rotor_direction), first
        assert first["ball_revolutions"] in revolutions_seen(events, truth), first
        assert len(found) == 1
    elif truth.expected == "invalid":
        assert first["type"] == "spin_invalid", first
        assert first["reason"] == truth.reason, first
        assert len(found) == 1
    else:
        assert truth.expected == "held"
        assert (first["type"], first["reason"]) == ("spin_held", "sensor_fault"), first
        # No settlement until the inspector decides; then the true number is settled.
        decided = found[1:]
        assert [(r["type"], r["number"], r["decided_by"]) for r in decided] == [
            ("spin_result", truth.number, "inspector")]
        assert settled and all(r["seq"] > decided[0]["seq"] for r in settled)
    if settled:
        assert all(r["seq"] > first["seq"] for r in settled)


# -- what the public sees of a journal ----------------------------------------------------
def public_views(journal: Path, config: str) -> dict[str, str]:
    """Every view of ``journal`` the public may see, as text by name: the table's screen
    (``table-display``'s snapshot after each record; ``config`` is the table's config),
    the feed's messages, and what ``tablectl`` export, recall and status print. The
    journal itself keeps every card; none of these may show one still face down."""
    from controller.cards.masking import LiveMask
    from controller.cli import tablectl
    from controller.store.follow import Follower
    from controller.store.journal import Journal
    from display.board import Board
    from display.config import load
    from feed.publish import payload

    board = Board(load(config, str(journal)), lambda _: None)
    mask = LiveMask(board.spec.recall.start)
    screens, messages = [], []
    for row in Follower(str(journal)).rows(after=0, limit=100_000):
        board.feed(row.record())
        screens.append(json.dumps(board.build(), ensure_ascii=False))
        messages.append(payload("site", "table", row, mask).decode())
    views = {"screen": "\n".join(screens), "feed": "\n".join(messages)}
    with Journal(journal, readonly=True) as read:
        records = list(read.records())
    deal = max((i for i, r in enumerate(records) if r["type"] == "bets_closed"), default=-1)
    mid_game = str(records[min(deal + 1, len(records) - 1)]["t"])  # after the deal began
    for args in (("export", "--since", "0"), ("export", "--since", mid_game),
                 ("recall", "--json"), ("recall",), ("status", "--json"), ("status",)):
        out = io.StringIO()
        with redirect_stdout(out), redirect_stderr(io.StringIO()):
            assert tablectl.main(["--journal", str(journal), *args]) == 0, args
        views[" ".join(args)] = out.getvalue()
    return views
