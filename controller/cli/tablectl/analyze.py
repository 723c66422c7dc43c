"""``tablectl analyze GAME ...``: exact figures of a game's rules, computed through the same
code the table runs (the game's registry entry names its analysis command)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import Any

from controller.cli.progress import ProgressBar
from controller.games import registry


def commands() -> dict[str, str]:
    """The analysis commands by name: each game's table name, and the name of its package
    under ``controller/games`` (``blackjack``: one analysis for the tables of a game)."""
    found: dict[str, str] = {}
    for spec in registry.games().values():
        if spec.analyze:
            module = spec.analyze.partition(":")[0].split(".")
            found[spec.name] = spec.analyze
            found.setdefault(module[2] if module[:2] == ["controller", "games"] else spec.name,
                             spec.analyze)
    return found


def add_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    games = list(commands())
    an = sub.add_parser("analyze", help="exact figures of a game's rules (its own options: "
                        "tablectl analyze GAME --help)", add_help=False, parents=[common])
    an.add_argument("game", choices=games)
    an.add_argument("options", nargs=argparse.REMAINDER,
                    help="the game's own options, e.g. --decks 4 --five stand")


def run(args: argparse.Namespace) -> int:
    """Run the game's analysis command with its options, a progress bar on stderr when it
    takes more than a second."""
    command: Callable[[Sequence[str], Callable[[float], None]], int] = (
        registry.load_callable(commands()[args.game]))  # type: ignore[assignment]
    options = list(args.options)
    if args.json and "--json" not in options:  # given before the game's name
        options.append("--json")
    bar = ProgressBar(sys.stderr)
    try:
        return command(options, bar.update)
    finally:
        bar.close()
