"""``tablectl``: the technician's and the pit's maintenance tool (over SSH).

It reads the journal read-only, so it works while the daemon runs: ``status`` (table state,
last game, alarms), ``recall --last N`` (games in full), ``verify`` (the hash chain from the
last checkpoint; ``--full`` everything, ``--key`` the seals; exit 1 naming each problem),
``export`` (records by time, or a game's raw inputs as a trace), ``analyze GAME`` (exact
figures through the table's own rules code). ``seal-init`` makes the sealing key.
``input``, ``bet`` and ``sensors`` talk to the running daemon through its control socket;
``input`` and ``bet`` print the table's verdict: "accepted" (exit 0) or "refused: <reason>"
(exit 1).

Exit codes: 0 done; 1 refused, not found, or a journal that fails its check; 2 bad usage
or bad input (one line naming what is wrong).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from controller.cli.control import ControlError
from controller.cli.progress import ProgressBar
from controller.cli.tablectl import analyze, control, export, recall, seal, status, verify
from controller.core.config import DEFAULT_CONFIG, Config, load_config
from controller.core.errors import InputError, JournalError
from controller.games import registry
from controller.store.journal import Journal
from controller.store.seal import key_path_for

EXIT_BAD = 1
EXIT_USAGE = 2

__all__ = ["EXIT_BAD", "EXIT_USAGE", "ProgressBar", "main"]


def _parser(config: Config | None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tablectl", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--config", default=DEFAULT_CONFIG, help="the daemon's config file")
    parser.add_argument("--journal", help="journal file (default: the config's journal.path)")
    sub = parser.add_subparsers(dest="command", required=True)
    st = sub.add_parser("status", help="table state, last game, recent alarms")
    st.add_argument("--json", action="store_true")
    rc = sub.add_parser("recall", help="the last N games in full")
    rc.add_argument("--last", type=int, default=1)
    rc.add_argument("--json", action="store_true")
    verify.add_parser(sub)
    export.add_parser(sub)
    seal.add_parser(sub)
    control.add_parsers(sub, config)
    analyze.add_parser(sub)
    return parser


def _preparse_config(argv: Sequence[str]) -> Config | None:
    """The config named by ``--config`` wherever it is on the line (for the help texts that
    depend on the table's game); None when it cannot be loaded (the command says why)."""
    pre = argparse.ArgumentParser(add_help=False)
    pre.add_argument("--config", default=DEFAULT_CONFIG)
    known, _ = pre.parse_known_args(argv)
    try:
        return load_config(known.config)
    except InputError:
        return None


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    args = _parser(_preparse_config(argv)).parse_args(argv)
    try:
        if args.command == "analyze":
            return analyze.run(args)
        if args.command in ("input", "bet", "sensors"):
            return control.run(load_config(args.config), args)
        config = load_config(args.config)
        path = args.journal or config.journal_path
        if args.command == "seal-init":
            return seal.run(config, path)
        with Journal(path, readonly=True) as journal:
            if args.command == "verify":
                return verify.run(journal, args, key_path_for(path, config.seal_key))
            if args.command == "export":
                return export.run(journal, _game_of(journal, config), args)
            if args.command == "status":
                return status.run(journal, args.json)
            if args.last < 1:
                raise InputError("--last", None, None, f"must be at least 1, got {args.last}")
            return recall.run(journal, args.last, args.json)
    except InputError as exc:
        print(f"tablectl: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except (JournalError, ControlError) as exc:
        print(f"tablectl: {exc}", file=sys.stderr)
        return EXIT_BAD
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def _game_of(journal: Journal, config: Config) -> Config:
    """``config`` for the journal's game (its last ``startup`` names it; a replay's journal
    is told by its records)."""
    from controller.core.config import apply_overrides

    startup = journal.last_of("startup")
    game = startup.get("game") if startup else status.game_from_records(journal)
    if game in registry.names() and game != config.game:
        return apply_overrides(config, {"table": game}, config.source)
    return config
