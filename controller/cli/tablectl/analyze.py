"""``tablectl analyze GAME ...``: exact figures of a game's rules, computed through the same
code the table runs (the game's registry entry names its analysis)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from controller.core.errors import InputError
from controller.games import registry


def add_parser(sub: Any) -> None:
    games = [s.name for s in registry.games().values() if s.analyze]
    an = sub.add_parser("analyze", help="exact outcome probabilities of a game's rules")
    an.add_argument("game", choices=games)
    an.add_argument("--decks", type=int, default=4)
    an.add_argument("--five", choices=("draw", "stand"), default="draw")


def run(args: argparse.Namespace) -> int:
    if not 1 <= args.decks <= 8:
        raise InputError("--decks", None, None, f"must be 1 to 8, got {args.decks}")
    from controller.cli.progress import ProgressBar
    from controller.games.mini_baccarat.game import analyze, format_analysis

    bar = ProgressBar(sys.stderr)
    result = analyze(args.decks, args.five, progress=bar.update)
    bar.close()
    print(format_analysis(result))
    return 0
