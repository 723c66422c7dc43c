"""``tablectl analyze GAME ...``: exact figures of a game's rules, computed through the same
code the table runs (the game's registry entry names its analysis command)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import Any

from controller.cli.progress import ProgressBar
from controller.games import registry


def add_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    games = [s.name for s in registry.games().values() if s.analyze]
    an = sub.add_parser("analyze", help="exact figures of a game's rules (its own options: "
                        "tablectl analyze GAME --help)", add_help=False, parents=[common])
    an.add_argument("game", choices=games)
    an.add_argument("options", nargs=argparse.REMAINDER,
                    help="the game's own options, e.g. --decks 4 --five stand")


def run(args: argparse.Namespace) -> int:
    """Run the game's analysis command with its options, a progress bar on stderr when it
    takes more than a second."""
    command: Callable[[Sequence[str], Callable[[float], None]], int] = (
        registry.load_callable(registry.spec(args.game).analyze))  # type: ignore[assignment]
    options = list(args.options)
    if args.json and "--json" not in options:  # given before the game's name
        options.append("--json")
    bar = ProgressBar(sys.stderr)
    try:
        return command(options, bar.update)
    finally:
        bar.close()
