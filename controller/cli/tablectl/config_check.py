"""``tablectl config check [FILE]``: every error of a config file at once, each naming the
file, line and key, before the daemon is started on it (it stops at the first)."""

from __future__ import annotations

import argparse
import json
from typing import Any

from controller.core.config import read_config
from controller.core.config_check import check_file
from controller.core.specs import Games
from controller.core.words import fit, plain

EXIT_ERRORS = 2  # the daemon's exit code on a bad config (RestartPreventExitStatus=2)


def add_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    cfg = sub.add_parser("config", parents=[common], help="check a config file",
                         description="Check a config file: tablectl config check [FILE].")
    cfg_sub = cfg.add_subparsers(dest="config_command", required=True)
    check = cfg_sub.add_parser("check", parents=[common], help="every error of a config file "
                               "at once (exit 2 when there is one)",
                               description=plain(__doc__))
    check.add_argument("file", nargs="?", help="the config (default: --config's)")


def run(args: argparse.Namespace, games: Games) -> int:
    """Print every error (exit 2) or what the config sets up (exit 0); ``games``: the
    games its ``[table] game`` may name."""
    path = args.file or args.config
    errors = check_file(path, games)
    if args.json:
        print(json.dumps({"ok": not errors, "file": path, "errors": [
            {"file": e.path, "line": e.line, "field": e.field, "message": e.message}
            for e in errors]}, indent=2, sort_keys=True))
        return EXIT_ERRORS if errors else 0
    if errors:
        for error in errors:
            print(error)  # one line an error, to grep
        print(f"{len(errors)} error{'s' if len(errors) > 1 else ''} in {path}")
        return EXIT_ERRORS
    config = read_config(games, path)
    title = config.spec.title
    print(fit(f"ok: {path}: a {title} table named {config.table_name}; journal "
              f"{config.journal_path}, control socket {config.control_socket}"
              f"{', simulated' if config.simulator.enabled else ''}"))
    return 0
