"""``tablectl``: the technician's and the pit's maintenance tool (over SSH).

It finds the table's journal and control socket in the config it is given (``--config``,
anywhere on the line; default: $TABLECTL_CONFIG, else /etc/table-controller/table.toml when
it exists, else the embedded simulated table). It reads the journal read-only, so it works
whether the daemon runs or not: ``status`` (is the daemon running, since when; the last
record and its age; table state, last game, sensor faults, alarms), ``recall GAME`` or
``recall --last N`` (games in full), ``verify`` (the hash chain from the last checkpoint;
``--full`` everything, ``--key`` the seals; exit 1 naming each problem), ``export`` (records
by time, or a game's raw inputs as a trace), ``seal-init`` (the sealing key), ``calibrate``
(the pocket sensor's angle, from a ball resting in a known pocket), ``config check FILE``
(every error of a config at once), ``analyze GAME`` (exact figures through the table's own
rules code), ``stats`` (surveillance figures over a window of games: --last, --since,
--until; --plot FILE.png).
``input``, ``bet`` and ``sensors`` (``--watch``: live) talk to the running daemon through
its control socket; ``input`` and ``bet`` print the table's verdict. Every command takes
``--json``: one JSON document on stdout instead of lines for people.

Exit codes:
  0  done (status printed, whether the daemon runs or not: its first line says)
  1  refused by the table; the journal fails its check; the game asked for is not in it;
     calibrate found no evidence
  2  bad usage or bad input: a bad config, option or argument (one line naming it)
  3  no daemon answers on the control socket (input, bet, sensors)
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import cast

from controller.cli.compose import games, load_config
from controller.cli.control import ControlError
from controller.cli.progress import ProgressBar
from controller.cli.tablectl import (
    analyze,
    calibrate,
    config_check,
    control,
    export,
    recall,
    seal,
    sensors,
    stats,
    status,
    verify,
)
from controller.core.config import DEFAULT_CONFIG, Config, apply_overrides
from controller.core.errors import (
    TOOL_ADVICE,
    InputError,
    JournalError,
    UnreadableRecord,
    is_damage,
    read_error,
)
from controller.core.words import plain
from controller.store.journal import Journal
from controller.store.records import any_schema
from controller.store.seal import key_path_for
from controller.store.type_index import check_type_index
from controller.store.verify import first_damaged

EXIT_BAD = 1
EXIT_USAGE = 2
EXIT_NO_DAEMON = 3
INSTALLED_CONFIG = "/etc/table-controller/table.toml"

__all__ = ["EXIT_BAD", "EXIT_NO_DAEMON", "EXIT_USAGE", "ProgressBar", "main"]


def default_config() -> str:
    """The config tablectl reads when none is given: $TABLECTL_CONFIG, the installed
    table's (also when this account may not enter its folder: reading it then says so in
    one line), or the embedded simulated table."""
    given = os.environ.get("TABLECTL_CONFIG")
    if given:
        return given
    folder = os.path.dirname(INSTALLED_CONFIG)
    installed = os.path.exists(INSTALLED_CONFIG) or (
        os.path.isdir(folder) and not os.access(folder, os.X_OK))
    return INSTALLED_CONFIG if installed else DEFAULT_CONFIG


def _common() -> argparse.ArgumentParser:
    """The options every command takes, before or after its name."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--config", default=argparse.SUPPRESS,
                        help="the daemon's config file (its journal and control socket)")
    common.add_argument("--journal", default=argparse.SUPPRESS,
                        help="journal file (default: the config's journal.path)")
    common.add_argument("--json", action="store_true", default=argparse.SUPPRESS,
                        help="one JSON document on stdout")
    return common


def _parser(config: Config | None) -> argparse.ArgumentParser:
    common = _common()
    parser = argparse.ArgumentParser(prog="tablectl", description=plain(__doc__),
                                     parents=[common],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    sub.add_parser("status", parents=[common],
                   help="daemon running or not, last record, table state, faults, alarms",
                   description="Is the daemon running, and since when; the journal's last "
                   "record and its age; the table's state, its last game, sensor faults and "
                   "recent alarms. It reads the journal, so it works whether the daemon runs "
                   "or not: its first line says.")
    rc = sub.add_parser("recall", parents=[common],
                        help="a game in full by its number (recall 17), or the last N",
                        description="A game in full (seed 001 Art. 14), each record on a "
                        "line in words: by its number (recall 17), or the last N (recall "
                        "--last 3). Exit 1 when the journal does not hold it.")
    rc.add_argument("game", nargs="?", type=int, help="the spin or coup number")
    rc.add_argument("--last", type=int, default=None, help="the last N games (default 1)")
    verify.add_parser(sub, common)
    export.add_parser(sub, common)
    seal.add_parser(sub, common)
    control.add_parsers(sub, config, common)
    sensors.add_parser(sub, common)
    calibrate.add_parser(sub, common)
    config_check.add_parser(sub, common)
    analyze.add_parser(sub, common, games())
    stats.add_parser(sub, common)
    return parser


def _preparse_config(argv: Sequence[str]) -> Config | None:
    """The config named by ``--config`` wherever it is on the line (for the help texts that
    depend on the table's game); None when it cannot be loaded (the command says why)."""
    pre = argparse.ArgumentParser(add_help=False)
    pre.add_argument("--config", default=None)
    known, _ = pre.parse_known_args(argv)
    try:
        return load_config(known.config or default_config())
    except InputError:
        return None


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = _parser(_preparse_config(argv))
    args, extra = parser.parse_known_args(argv)
    if args.command == "calibrate":
        args.options = extra  # the game's own options
    elif extra:
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    args.config = getattr(args, "config", None) or default_config()
    args.journal = getattr(args, "journal", None)
    args.json = getattr(args, "json", False)
    try:
        return _run(args)
    except InputError as exc:
        print(f"tablectl: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except ControlError as exc:
        print(f"tablectl: {exc}", file=sys.stderr)
        if exc.no_daemon:
            print(f"  is a daemon running with config {args.config}? tablectl status says",
                  file=sys.stderr)
        return EXIT_NO_DAEMON if exc.no_daemon else EXIT_BAD
    except JournalError as exc:
        print(f"tablectl: {exc}", file=sys.stderr)
        return EXIT_BAD
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def _run(args: argparse.Namespace) -> int:
    if args.command == "analyze":
        return analyze.run(args, games())
    if args.command == "config":
        return config_check.run(args, games())
    if args.command in ("input", "bet"):
        return control.run(load_config(args.config), args)
    if args.command == "sensors":
        return sensors.run(load_config(args.config), args)
    config = load_config(args.config)
    path = args.journal or config.journal_path
    if args.command == "seal-init":
        return seal.run(config, path)
    if args.command == "calibrate" and {"-h", "--help"} & set(args.options):
        # Help needs no journal: the game's command prints it before it reads one.
        return calibrate.run(cast(Journal, None), config, args)
    if args.command == "status" and not Path(path).exists():
        return status.no_journal(Path(path), config, args.json)
    with Journal(path, readonly=True) as journal:
        try:
            if not _checks_every_page(args):  # verify --full names a damaged index itself
                check_type_index(journal)
            return _on_journal(journal, config, args)
        except sqlite3.DatabaseError as exc:  # one line; `verify --full` lists the rest
            raise _unreadable(journal, exc) from exc
        except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
            # A body of the wrong shape (forged, with its row's seq and type): name it.
            damaged = first_damaged(journal, any_schema(config.games))
            if damaged is None:
                raise
            raise damaged from exc


def _checks_every_page(args: argparse.Namespace) -> bool:
    """``verify --full`` (or ``--key``, ``--until``): SQLite's integrity check of every
    page, which goes on past a damaged one to name the rest."""
    return args.command == "verify" and bool(args.full or args.key or args.key_file
                                             or args.until)


def _on_journal(journal: Journal, config: Config, args: argparse.Namespace) -> int:
    if args.command == "verify":
        return verify.run(journal, args, config.games,
                          key_path_for(journal.path, config.seal_key))
    if args.command == "export":
        return export.run(journal, _game_of(journal, config), args)
    if args.command == "status":
        return status.run(journal, config, args.json)
    if args.command == "stats":
        return stats.run(journal, config, args)
    if args.command == "calibrate":
        return calibrate.run(journal, config, args)
    return recall.run(journal, _game_of(journal, config).spec, config.games, args.game,
                      args.last, args.json)


def _unreadable(journal: Journal, exc: sqlite3.DatabaseError) -> JournalError:
    """What SQLite's error reading ``journal`` means: a damaged page, or (SQLite's own
    JSON functions read every body of a query) the first record whose body is not JSON."""
    if not is_damage(exc) and "JSON" in str(exc):
        row = journal.db.execute("SELECT seq, type FROM records WHERE NOT json_valid(body) "
                                 "ORDER BY seq LIMIT 1").fetchone()
        if row is not None:
            return UnreadableRecord(journal.path, row[0], row[1], "its body is not JSON",
                                    TOOL_ADVICE)
    return read_error(journal.path, exc, TOOL_ADVICE)


def _game_of(journal: Journal, config: Config) -> Config:
    """``config`` for the journal's game (its last ``startup`` names it; a replay's journal
    is told by its records)."""
    game = status.journal_game(journal, config.games)
    if game in config.games and game != config.game:
        return apply_overrides(config, {"table": game}, config.source)
    return config
