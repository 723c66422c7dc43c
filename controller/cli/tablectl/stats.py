"""``tablectl stats``: surveillance figures over a window of the journal: each game's
own, as text for an inspector (one screen, 80 columns), ``--json`` for data,
``--plot FILE.png`` for the charts. The journal is read as a stream, one record at a
time, oldest first."""

from __future__ import annotations

import argparse
import json
from typing import Any

from controller.cli.tablectl.status import journal_game
from controller.cli.tablectl.verify import parse_time
from controller.core import stats
from controller.core.config import Config
from controller.core.errors import InputError, JournalError
from controller.core.words import plain
from controller.store.journal import Journal


def add_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    st = sub.add_parser("stats", parents=[common], help="surveillance statistics: wheel "
                        "bias, sectors, dealer signature, card games against their odds",
                        description=plain(__doc__))
    st.add_argument("--last", type=int, metavar="N", help="the last N games (default: all)")
    st.add_argument("--since", help="games from this time (ISO 8601 UTC or the journal's "
                    "seconds)")
    st.add_argument("--until", help="games before this time (not included)")
    st.add_argument("--plot", metavar="FILE.png", help="also draw the charts into this PNG")


def run(journal: Journal, config: Config, args: argparse.Namespace) -> int:
    """Print the figures of the table's game over the window; 0 when printed (an empty
    window says so in one line).

    Raises:
        InputError: a bad option (exit 2). JournalError: the journal is another game's, or
            this game has no statistics (exit 1).
    """
    spec = config.spec
    if args.last is not None and args.last < 1:
        raise InputError("--last", None, None, f"must be at least 1, got {args.last}")
    window = stats.Window(args.last, parse_time(args.since, "--since") if args.since else None,
                          parse_time(args.until, "--until") if args.until else None)
    game = journal_game(journal, config.games)
    if game is not None and game != spec.name:
        other = config.games.spec(game).title if game in config.games else game
        raise JournalError(f"{journal.path} holds a {other} "
                           f"table's games, not a {spec.title} table's: no statistics "
                           "(give that table's config with --config)")
    try:
        hook, fold = stats.fold_window(journal, config, window)
    except LookupError as exc:
        raise JournalError(str(exc)) from None
    figures = fold.figures()
    if args.plot and hook.games(figures):
        try:
            stats.save_plot(figures["charts"], args.plot)
        except OSError as exc:
            raise InputError(args.plot, None, None, f"cannot write the plot: "
                             f"{exc.strerror or exc}") from None
    if args.json:
        print(json.dumps(figures, sort_keys=True))
    elif not hook.games(figures):
        print(f"no {spec.recall.number} result in {_window_words(window)}: no statistics")
    else:
        print("\n".join(hook.lines(figures)))
    return 0


def _window_words(window: stats.Window) -> str:
    if window == stats.Window():
        return "the journal"
    parts = []
    if window.last is not None:
        parts.append(f"the last {window.last} games")
    if window.since is not None:
        parts.append(f"since {window.since:g}")
    if window.until is not None:
        parts.append(f"before {window.until:g}")
    return " ".join(parts)
