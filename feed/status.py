"""The table's live status as the feed publishes it (retained on
``casino/{site}/{table}/status``): what ``tablectl status`` says, as the public may see it.

Shape (JSON object): ``online`` (true; the feed's will says false), ``t`` (epoch s),
``table``, ``game``, ``state`` (the table's state in the game's words), ``last_game``
(the game's summary line, or its "no coup yet"), ``last_game_seq``, ``held`` (the numbers
of games held for a person, CONTRACT §5), ``daemon`` (``running`` and ``pid``, from the
daemon's lock file), ``journal_head`` (the journal's last seq), ``published`` (the last seq
the broker acknowledged) and ``problem`` (why the journal cannot be read, or null).
"""

from __future__ import annotations

import time
from typing import Any

from controller.cli.daemon.lock import daemon_state
from controller.cli.tablectl.status import journal_game, newest
from controller.core.contract import GameSpec
from controller.core.specs import Games
from controller.store.journal import Journal

HELD_WINDOW = 5000  # records: the held games shown are among the last this many


def offline(table: str) -> dict[str, Any]:
    """The will: what the broker says of a table whose feed went away."""
    return {"online": False, "table": table, "t": None,
            "problem": "the feed went offline (the broker lost its link)"}


def table_status(journal_path: str, table: str, spec: GameSpec, games: Games, head: int,
                 published: int, problem: str | None) -> dict[str, Any]:
    """The status of the table whose journal is at ``journal_path`` (read-only): a table
    of ``spec``'s game, unless its journal names another of ``games``."""
    daemon = daemon_state(journal_path)
    status: dict[str, Any] = {
        "online": True, "t": round(time.time(), 3), "table": table, "game": spec.name,
        "state": "unknown", "last_game": None, "last_game_seq": None, "held": [],
        "daemon": {"running": daemon.running, "pid": daemon.pid},
        "journal_head": head, "published": published, "problem": problem}
    if problem is not None or head == 0:
        return status
    try:
        with Journal(journal_path, readonly=True) as journal:
            name = journal_game(journal, games)
            spec = games.named(name) if name is not None else spec
            last = newest(journal, spec.recall.last_game_types)
            held_types = tuple(t for t in spec.recall.shown if t not in spec.recall.results)
            status.update(game=spec.name, state=spec.status(journal).state,
                          last_game=spec.recall.summary(last) if last else spec.recall.none_yet,
                          last_game_seq=last["seq"] if last else None,
                          held=_held(journal, spec.recall.number, held_types,
                                     spec.recall.results))
    except Exception as exc:  # a journal cut mid-read: the status says so, the feed goes on
        status["problem"] = f"{journal_path}: status cannot be read ({exc})"
    return status


def _held(journal: Journal, number: str, held_types: tuple[str, ...],
          results: tuple[str, ...]) -> list[Any]:
    """Numbers of the games held and not concluded since, among the last records."""
    if not held_types:
        return []
    after = max(0, journal.last_seq - HELD_WINDOW)
    held: dict[Any, None] = {}
    for record in journal.records(after=after, types=(*held_types, *results)):
        key = record.get(number)
        if record["type"] in held_types:
            held[key] = None
        else:
            held.pop(key, None)
    return list(held)
