"""``tablectl status``: the table's state, its last game and recent alarms, from the journal.

What is the game's own (the shoe, the limits) comes from the game's registry entry
(``GameSpec.status``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from controller.games import registry
from controller.games.base import GameSpec
from controller.store.journal import Journal
from controller.store.recall import public_view


def run(journal: Journal, as_json: bool) -> int:
    """Print the table's state, its last game, what its game adds, and recent alarms."""
    game = journal_game(journal)
    spec = registry.spec(game if game in registry.names() else registry.DEFAULT_GAME)
    last_game = newest(journal, spec.recall.last_game_types)
    alarms = [r for r in journal.records(after=max(0, journal.last_seq - 5000), types=("alarm",))]
    own = spec.status(journal)
    status: dict[str, Any] = {
        "journal": str(journal.path),
        "records": journal.last_seq,
        "game": game,
        "table_state": own.state,
        "last_game": public_view(last_game) if last_game else None,
        "recent_alarms": [public_view(a) for a in alarms[-5:]],
        **own.fields,
    }
    if as_json:
        print(json.dumps(status, indent=2, sort_keys=True))
        return 0
    print(f"journal      {status['journal']} ({status['records']} records)")
    print(f"game         {status['game'] or 'unknown'}")
    print(f"table state  {status['table_state']}")
    print(f"last game    {spec.recall.summary(last_game) if last_game else 'none yet'}")
    for label, text in own.lines:
        print(f"{label:<12} {text}")
    print(f"alarms       {len(alarms)} in the last 5000 records")
    for alarm in status["recent_alarms"]:
        print(f"  seq {alarm['seq']:>7}  {alarm['code']}: {alarm['message']}")
    return 0


def newest(journal: Journal, types: Sequence[str]) -> dict[str, Any] | None:
    """The newest record of any of ``types``, or None."""
    found = [rec for kind in types if (rec := journal.last_of(kind)) is not None]
    return max(found, key=lambda rec: rec["seq"], default=None)


def journal_game(journal: Journal) -> str | None:
    """The journal's game: the one its newest ``startup`` record names, else the one its
    records tell (``game_from_records``)."""
    startup = journal.last_of("startup")
    return startup.get("game") if startup else game_from_records(journal)


def game_from_records(journal: Journal) -> str | None:
    """The game, when no ``startup`` record names it (a replay journals none): the game
    whose games the journal holds (their start and result records), the newest if several;
    in a journal with no game yet, the one its markers name (two card tables journal the
    same shoe records: a game's own records decide before them). Games that journal the
    same record types (two card tables' ``coup_result``) tie on the newest: the one with
    more of its own record types in the journal wins, then the first registered."""
    for kinds in (_own_records, _markers):
        best: tuple[int, int, GameSpec] | None = None
        for spec in registry.games().values():
            found = [rec for kind in dict.fromkeys(kinds(spec))
                     if (rec := journal.last_of(kind))]
            if not found:
                continue
            own = sum(1 for kind in dict.fromkeys((*_own_records(spec), *_markers(spec)))
                      if journal.last_of(kind))
            key = (max(rec["seq"] for rec in found), own)
            if best is None or key > best[:2]:
                best = (*key, spec)
        if best is not None:
            return best[2].name
    return None


def _own_records(spec: GameSpec) -> tuple[str, ...]:
    return (spec.recall.start, *spec.recall.results, *spec.recall.shown)


def _markers(spec: GameSpec) -> tuple[str, ...]:
    return spec.recall.markers
