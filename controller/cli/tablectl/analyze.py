"""``tablectl analyze GAME ...``: exact figures of a game's rules, computed through the same
code the table runs (the game's spec names its analysis command)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import Any

from controller.cli.progress import ProgressBar
from controller.core.errors import InputError
from controller.core.specs import Games, load_attribute


def commands(games: Games) -> dict[str, str]:
    """The analysis commands of ``games`` by name: each game's table name, and the name of
    its package under ``controller/games`` (``blackjack``: one analysis for the tables of
    a game)."""
    found: dict[str, str] = {}
    for spec in games:
        if spec.analyze:
            module = spec.analyze.partition(":")[0].split(".")
            found[spec.name] = spec.analyze
            found.setdefault(module[2] if module[:2] == ["controller", "games"] else spec.name,
                             spec.analyze)
    return found


def add_parser(sub: Any, common: argparse.ArgumentParser, games: Games) -> None:
    names = list(commands(games))
    # --help after GAME is the game's own (the options after GAME are handed to it whole).
    an = sub.add_parser("analyze", help="exact figures of a game's rules (its own options: "
                        "tablectl analyze GAME --help)", parents=[common],
                        description="Exact figures of a game's rules, computed through the "
                        "code the table runs. The game's own options: tablectl analyze GAME "
                        "--help.")
    # Optional to argparse, required by run(): argparse would name OPTIONS required too.
    an.add_argument("game", choices=names, nargs="?", metavar="GAME",
                    help=f"one of {', '.join(names)}")
    an.add_argument("options", nargs=argparse.REMAINDER, default=[], metavar="OPTIONS",
                    help="the game's own options, e.g. --decks 4 --five stand")


def run(args: argparse.Namespace, games: Games) -> int:
    """Run the game's analysis command with its options, a progress bar on stderr when it
    takes more than a second.

    Raises:
        InputError: no game named (exit 2).
    """
    if args.game is None:
        raise InputError("analyze", None, None, f"name the game: one of "
                         f"{', '.join(commands(games))} (tablectl analyze GAME --help)")
    command: Callable[[Sequence[str], Callable[[float], None]], int] = load_attribute(
        commands(games)[args.game])
    options = list(args.options)
    if args.json and "--json" not in options:  # given before the game's name
        options.append("--json")
    bar = ProgressBar(sys.stderr)
    try:
        return command(options, bar.update)
    finally:
        bar.close()
