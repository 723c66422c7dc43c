"""``table-controller``: its commands, ``replay`` of a trace and ``simulate`` of one; the
daemon (``run``) is in :mod:`controller.cli.daemon`, the composition root in
:mod:`controller.cli.compose`.
"""

from __future__ import annotations

import argparse
import os
import re
import sqlite3
import sys
import tempfile
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

from controller.cli.compose import (
    EXIT_BAD_INPUT,
    EXIT_JOURNAL_UNREADABLE,
    EXIT_JOURNAL_UNWRITABLE,
    compose,
    games,
    load_config,
)
from controller.cli.daemon.lifecycle import Hooks, Lifecycle
from controller.core.clock import ScaledClock, VirtualClock
from controller.core.config import DEFAULT_CONFIG, Config, apply_overrides
from controller.core.contract import GameSpec
from controller.core.errors import (
    InputError,
    JournalDamaged,
    JournalError,
    JournalWriteError,
    TableControllerError,
    UnreadableRecord,
    read_error,
)
from controller.core.events import SerialData
from controller.core.logs import configure
from controller.core.loop import start_thread
from controller.core.section import why_not_made
from controller.core.specs import load_attribute
from controller.core.words import COLUMNS, fit
from controller.store.journal import Journal
from controller.store.shared import Alarm
from controller.store.type_index import check_type_index
from controller.trace import Trace, check_fits, read_trace
from sim.lateness import BOUND_S, EXIT_LATE

# After a trace's last event, trace time runs on until no verdict is pending, at most this
# long (clock seconds): a spin whose verdict falls due later is decided as the daemon would.
RUN_ON_S = 600.0
PORTS_OPEN_S = 10.0  # wall seconds replay --realtime waits for its readers to open
SIMULATED_GAMES = 10
"""How many spins or coups ``simulate`` writes when not told."""


def build_parser() -> argparse.ArgumentParser:
    """The command line of ``table-controller``: ``run``, ``replay``, ``simulate`` (its
    ``--table`` one of the registered games)."""
    names = games().names
    parser = argparse.ArgumentParser(
        prog="table-controller", description="table-controller: the table's daemon (run), "
        "replay of a trace through the whole controller, and simulate of one.")
    sub = parser.add_subparsers(dest="command")

    run = sub.add_parser("run", help="run the controller (default: the embedded simulated table)",
                         description="Run the controller: the daemon systemd starts "
                         "(default: the embedded simulated table).")
    run.add_argument("--config", default=DEFAULT_CONFIG,
                     help="TOML config file (default: the embedded simulated table)")
    run.add_argument("--journal", help="journal file (overrides the config's journal.path)")

    rep = sub.add_parser("replay", help="run the whole controller on a trace (a JSON Lines "
                         "file of timed inputs)", description="Run the whole controller on a "
                         "trace (a JSON Lines file of timed sensor edges, serial lines and "
                         "inputs) and print every record journaled, in words.")
    rep.add_argument("trace", help="the trace file (JSON Lines)")
    rep.add_argument("--config", default=DEFAULT_CONFIG, help="TOML config file: the trace "
                     "must fit it, its meta line applied over it (default: the embedded "
                     "simulated table, the game the trace's meta names)")
    rep.add_argument("--realtime", action="store_true",
                     help="play the trace into mock pins and a pseudo-terminal as time passes")
    rep.add_argument("--speed", type=float, default=None,
                     help="with --realtime: X times faster (default 1)")
    rep.add_argument("--max-late-ms", type=float, default=None, metavar="MS",
                     help="with --realtime: the player may drive an edge this many ms of "
                     "trace time late; past it the run journals a player_late alarm and "
                     "exits 5 (default 5)")
    rep.add_argument("--journal", help="keep the journal in this file (default: a scratch file)")
    rep.add_argument("--evidence", action="store_true",
                     help="also print the raw GPIO edges of each evidence batch journaled")

    sim = sub.add_parser("simulate", help="write the trace of simulated spins or coups",
                         description="Write the trace of simulated spins or coups (the "
                         "simulated equipment and dealer), for table-controller replay.",
                         formatter_class=_GamesHelp)
    sim.add_argument("--spins", type=int, default=None, help="how many spins")
    sim.add_argument("--coups", type=int, default=None, help="how many coups or hands")
    sim.add_argument("--seed", type=int, default=1, help="the random seed: the same seed "
                     "writes the same trace (default %(default)s)")
    sim.add_argument("--out", required=True, help="the trace file to write (JSON Lines)")
    sim.add_argument("--config", default=DEFAULT_CONFIG,
                     help="TOML config file (default: the embedded simulated table)")
    sim.add_argument("--table", choices=names, default=None, metavar="GAME",
                     help=f"the game: {', '.join(names)} (default: the "
                     "config's table)")
    sim.add_argument("--wheel", choices=("gpio", "serial"), default=None,
                     help="a table with a wheel: write it as GPIO sensor edges or as an "
                          "automated wheel's status lines on port 'wheel' (default: the "
                          "config's wheel_source)")
    sim.add_argument("--scenario", action="append", default=None,
                     help="per spin (repeat it; one applies to all): valid, rotor_reversed, "
                          "rotor_stops_after_settle; invalid: too_few_revolutions, "
                          "same_direction, ball_suspended, wheel_slow, wheel_stopped; sensor "
                          "faults: missed_pass, missing_fall, chatter_ball_a, "
                          "chatter_ball_a_worn, chatter_rotor_a, chatter_rotor_b, "
                          "chatter_pocket, rotor_b_dead")
    return parser


class _GamesHelp(argparse.HelpFormatter):
    """``simulate --help``: which tables count spins and which coups or hands, from the
    games' specs, only when the help is shown (every command builds the parser; each
    imports only its own game)."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help
        if action.dest in ("spins", "coups"):
            spins = action.dest == "spins"
            tables = [s.name for s in games()
                      if (s.recall.number == "spin") == spins]
            text = f"{text} (tables: {', '.join(tables)}; default {SIMULATED_GAMES})"
        return text


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    command = args.command or "run"
    if args.command is None:
        args = parser.parse_args(["run", *(argv or [])])
    try:
        if command == "run":
            # The daemon's parts (control socket, seals, systemd) are no replay's.
            from controller.cli.daemon.run import cmd_run

            return cmd_run(args.config, args.journal)
        if command == "replay":
            speed = 1.0 if args.speed is None else args.speed
            if args.speed is not None and not args.realtime:
                raise InputError("--speed", None, None, "only with --realtime (a replay "
                                 "without it runs on trace time, as fast as it can)")
            if not 0.01 <= speed <= 1000:
                raise InputError("--speed", None, None,
                                 f"must be from 0.01 to 1000, got {speed}")
            late_ms = 1000 * BOUND_S if args.max_late_ms is None else args.max_late_ms
            if args.max_late_ms is not None and not (args.realtime and 0 < late_ms <= 1e6):
                raise InputError("--max-late-ms", None, None, "only with --realtime, above "
                                 f"0 and at most 1000000, got {late_ms:g}")
            return cmd_replay(args.trace, args.config, args.realtime, speed, args.journal,
                              evidence=args.evidence, late_s=late_ms / 1000)
        return cmd_simulate(args)
    except InputError as exc:
        print(f"table-controller: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except (UnreadableRecord, JournalDamaged) as exc:
        print(f"table-controller: {exc}", file=sys.stderr)
        return EXIT_JOURNAL_UNREADABLE
    except JournalWriteError as exc:
        print(f"table-controller: {exc}: the last input was not journaled and not acted on; "
              "the daemon stops (exit 4): free space or make the file system writable; "
              "restarted, it recovers from the journal", file=sys.stderr)
        return EXIT_JOURNAL_UNWRITABLE
    except (JournalError, TableControllerError) as exc:
        print(f"table-controller: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        # `replay ... | head` closed stdout early: end quietly, as other Unix tools do.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


# -- replay ---------------------------------------------------------------------------
def _load_for_trace(trace_path: str, config_path: str) -> tuple[Config, Trace]:
    base = load_config(config_path)
    trace = read_trace(trace_path, base.games, serial_ports=base.serial,
                       and_games=True)
    config = (apply_overrides(base, trace.meta, trace_path,
                              given=config_path != DEFAULT_CONFIG) if trace.meta else base)
    check_fits(trace, config)  # a meta without the setting: the trace's inputs tell it
    return config, trace


def _stdout_sink() -> Callable[[str], None]:
    write = sys.stdout.write

    def sink(body: str) -> None:
        write(body + "\n")

    return sink


def cmd_replay(trace_path: str, config_path: str, realtime: bool, speed: float,
               journal_path: str | None, sink: Callable[[str], None] | None = None,
               evidence: bool = False, late_s: float = BOUND_S) -> int:
    """Replay a trace through the whole controller; print every record journaled (with
    ``evidence``, before each record that closes an evidence batch, its raw edges).

    Returns 0 when the trace was processed; ``EXIT_LATE`` (5) when, ``realtime``, the
    player drove an edge more than ``late_s`` trace seconds late (issue 16: the run is no
    comparison with the trace; a ``player_late`` alarm says so). Raises InputError (exit
    2) for a bad trace or config, before anything is journaled; UnreadableRecord (exit 3)
    when ``journal_path`` holds a record recovery cannot read.
    """
    late = False
    config, trace = _load_for_trace(trace_path, config_path)
    if not trace.events:
        raise InputError(trace_path, None, None, "no event in it: nothing to replay")
    configure("warning", "console", words=config.spec.log_words)
    sink = sink or _stdout_sink()
    with tempfile.TemporaryDirectory(prefix="replay-") as scratch:
        path = journal_path or os.path.join(scratch, "journal.sqlite")
        journal = Journal(path, durable=False)
        try:
            if journal.last_seq:  # recovery finds its checkpoint through the type index
                check_type_index(journal)
            if realtime:
                late = _replay_realtime(config, trace, journal, speed, sink, evidence, late_s)
            else:
                clock = VirtualClock()
                loop, table = compose(config, journal, clock, sink)
                table.show_edges = evidence
                table.recover()
                loop.run_events(trace.events)
                loop.run_until_idle(trace.duration + RUN_ON_S)
                table.end_of_input(f"the trace {trace_path} ended")
            sys.stdout.flush()
            print(_replay_summary(journal, config.spec), file=sys.stderr)
        except sqlite3.DatabaseError as exc:  # a damaged page of --journal: exit 3
            raise read_error(path, exc) from exc
        finally:
            journal.close()
            sys.stdout.flush()
    return EXIT_LATE if late else 0


def _replay_summary(journal: Journal, spec: GameSpec) -> str:
    """One line for the end of a replay: the games concluded, by outcome, the alarms."""
    counts = Counter(r["type"] for r in journal.records(types=(*spec.recall.results, "alarm")))
    games = sum(counts[kind] for kind in spec.recall.results)
    outcomes = ", ".join(f"{counts[kind]} {kind}" for kind in spec.recall.results
                         if counts[kind])
    return (f"replay: {_count(games, spec.recall.number)} concluded"
            f"{f' ({outcomes})' if outcomes else ''}, {_count(counts['alarm'], 'alarm')}, "
            f"{_count(journal.last_seq, 'record')} journaled")


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _replay_realtime(config: Config, trace: Trace, journal: Journal, speed: float,
                     sink: Callable[[str], None], evidence: bool = False,
                     late_s: float = BOUND_S) -> bool:
    """The trace played into mock pins and pseudo-terminals as time passes, read back by
    the real drivers (CONTRACT §3). Prints the player's worst lateness on stderr; True
    when it was past ``late_s`` trace seconds (a ``player_late`` alarm journaled)."""
    from drivers.hardware import Hardware
    from sim.trace_player import TracePlayer

    clock = ScaledClock(speed, origin=0.0)
    loop, table = compose(config, journal, clock, sink)
    table.show_edges = evidence
    table.recover()
    ports = sorted({e.port for e in trace.events if isinstance(e, SerialData)})
    fds: list[int] = []
    masters: dict[str, int] = {}
    urls: dict[str, str] = {}
    for port in ports:
        master, slave = os.openpty()
        fds += [master, slave]
        masters[port], urls[port] = master, os.ttyname(slave)
    lifecycle = Lifecycle()
    hardware = Hardware(replace(config, serial={k: v for k, v in config.serial.items()
                                                if k in ports}),
                        loop.post, clock, urls, pin_factory="mock",
                        inputs=config.inputs or load_config(DEFAULT_CONFIG).inputs)
    lifecycle.add("hardware", hardware)
    lifecycle.add("pseudo-terminals", Hooks(on_stop=lambda: _close_all(fds)))
    lifecycle.start()
    # pyserial's open() flushes the port: no byte is played before every reader opened.
    if shut := hardware.wait_open(PORTS_OPEN_S):
        lifecycle.stop()
        raise TableControllerError(f"replay --realtime: the pseudo-terminal of port(s) "
                                   f"{', '.join(shut)} did not open in {PORTS_OPEN_S:g} s")
    # Each edge stamped when due, as a line's kernel stamps it: a player (a process) that
    # stalled drives it late, never at another time.
    player = TracePlayer(trace.events, clock.now, clock.to_wall, hardware.gpio, masters,
                         loop.post, late_s, on_time=True)
    # Trace time 0 is now, not when the set-up above began.
    clock.restart()
    thread = start_thread(player.run, "trace-player")
    try:
        loop.run_forever(stop_at=trace.duration, grace=0.05 * speed, run_on=RUN_ON_S)
        table.end_of_input(f"the trace {trace.path} ended")
    finally:
        player.stop()
        thread.join()
        lifecycle.stop()
    lateness = player.lateness
    print(lateness.line(), file=sys.stderr)
    if lateness.over:
        table.emit(Alarm(code="player_late", message=lateness.alarm()))
    return lateness.over


def _close_all(fds: list[int]) -> None:
    for fd in fds:
        os.close(fd)


# -- simulate -------------------------------------------------------------------------
def cmd_simulate(args: argparse.Namespace) -> int:
    """Write the trace of simulated games, by the game's own simulator (its spec's)."""
    config = load_config(args.config)
    table = args.table or config.game
    if table != config.game:
        config = apply_overrides(config, {"table": table}, args.config)
    spec = config.spec
    count = _simulated_count(args, table, spec.simulate_options)
    if args.wheel is not None:
        config = apply_overrides(config, {"table": table, "wheel_source": args.wheel},
                                 "--wheel")
    _writable_out(args.out)
    write: Callable[..., tuple[str, str]] = load_attribute(spec.simulate)
    outcomes, alarms = write(config, args.out, count, args.seed, args.scenario)
    games = _count(count, spec.recall.number)
    print(fit(f"simulate: {games} of a {spec.title} table (seed {args.seed}) written to "
              f"{args.out}", 10), file=sys.stderr)  # a long path on a line of its own
    print(_simulate_summary(games, outcomes, alarms), file=sys.stderr)
    return 0


def _simulate_summary(games: str, outcomes: str, alarms: str) -> str:
    """The last line of ``simulate``, as replay's: the games, what a replay of the trace is
    expected to conclude (``outcomes``) and the alarms the simulator injects, in the
    game's words; the details in parentheses of ``outcomes`` are left out where the line
    would not fit 80 columns."""
    line = f"simulate: {games} expected: {outcomes}; {alarms}"
    if len(line) <= COLUMNS:
        return line
    short = re.sub(r" \([^)]*\)", "", outcomes)
    return f"simulate: {games} expected: {short}; {alarms}"


def _simulated_count(args: argparse.Namespace, table: str, takes: tuple[str, ...]) -> int:
    """How many games ``simulate`` writes: the value of the option that counts the table's
    games (of ``takes``, its ``GameSpec.simulate_options``), else ``SIMULATED_GAMES``.

    Raises:
        InputError: an option given that the table's simulator does not read (one line,
            naming it and those it reads), or a count below 1.
    """
    given = {"--spins": args.spins, "--coups": args.coups, "--scenario": args.scenario,
             "--wheel": args.wheel}
    for option, value in given.items():
        if value is not None and option not in takes:
            raise InputError(option, None, None, f"does not apply to a {table} table (its "
                             f"simulator takes {', '.join(takes)})")
    count_option = next(o for o in takes if o in ("--spins", "--coups"))
    count = given[count_option]
    if count is None:
        return SIMULATED_GAMES
    if count < 1:
        raise InputError(count_option, None, None, f"must be at least 1, got {count}")
    return count


def _writable_out(path: str) -> None:
    """Make the folder of ``simulate --out`` and check the file can be written there.

    Raises:
        InputError: it cannot (a regular file in its way, a folder of that name, no
            right): one line, exit 2.
    """
    try:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        with open(path, "a", encoding="utf-8"):
            pass
    except OSError as exc:
        raise InputError("--out", None, None, f"{path!r}: cannot write the trace there: "
                         f"{why_not_made(path, exc)}") from exc


if __name__ == "__main__":
    sys.exit(main())
