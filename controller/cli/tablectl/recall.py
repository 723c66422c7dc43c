"""``tablectl recall GAME`` and ``recall --last N``: games in full (seed 001 Art. 14: a
disputed game recalled in full), each record on a line in words; the game's own records by
its game's summary and evidence."""

from __future__ import annotations

import json
import textwrap
from datetime import UTC, datetime
from typing import Any

from controller.core.contract import GameSpec
from controller.core.errors import InputError, JournalError
from controller.core.specs import Games
from controller.core.words import COLUMNS, fields
from controller.store.journal import Journal
from controller.store.recall import game_in_full, games_in_full

WIDTH = COLUMNS  # columns of a line for people
HANG = 16  # the most a record's next lines are indented: a SHA-256 still fits
INDENT = "   "  # a game's records under its title


def run(journal: Journal, spec: GameSpec, games: Games, number: int | None,
        last: int | None, as_json: bool) -> int:
    """Print the game numbered ``number``, or the last ``last`` games (1 by default), of a
    journal of ``spec``'s game (``games``: every game, whose results it may hold too).

    Returns 0; 1 (JournalError) when no game has that number.

    Raises:
        InputError: both, or ``--last`` below 1 (exit 2).
        JournalError: no game of that number in the journal (exit 1).
    """
    if number is not None and last is not None:
        raise InputError("recall", None, None, "give a game's number or --last N, not both")
    if last is not None and last < 1:
        raise InputError("--last", None, None, f"must be at least 1, got {last}")
    with journal.snapshot():  # the game starts and their records from one state
        if number is not None:
            game = game_in_full(journal, spec, number)
            if game is None:
                raise JournalError(f"{journal.path}: no game numbered {number} in the journal")
            found = [game]
        else:
            found = games_in_full(journal, spec, last or 1)
    if as_json:
        print(json.dumps(found if number is None else found[0], indent=2, sort_keys=True))
        return 0
    if not found:
        print("no game in the journal yet")
    summaries = summaries_of(games, spec)
    for game in found:
        print(f"== {game['title']}")
        for rec in game["records"]:
            head, body = _parts(rec, summaries)
            print("\n".join(wrapped(f"{INDENT}{head}  ", body)))
    return 0


def summaries_of(games: Games, spec: GameSpec) -> dict[str, Any]:
    """Record type -> the recall spec of the game whose result (or hold) it is; where two
    games journal the same type (``coup_result``), ``spec``'s (the journal's game)."""
    specs = sorted(games, key=lambda other: other.name == spec.name)
    return {kind: other.recall for other in specs
            for kind in (*other.recall.results, *other.recall.shown)}


def line(rec: dict[str, Any], summaries: dict[str, Any]) -> str:
    """One record in words: a game's result by its game's summary and evidence
    (``summaries``: by record type, :func:`summaries_of`), any other record as its fields
    (``key value; key value``)."""
    return "  ".join(_parts(rec, summaries))


def _parts(rec: dict[str, Any], summaries: dict[str, Any]) -> tuple[str, str]:
    """A record's line as its head (seq, time, type) and its body in words."""
    kind = rec["type"]
    head = f"seq {rec['seq']:>7}  {when(rec['t'])}  {kind}"
    recall = summaries.get(kind)
    if recall is not None:
        return head, f"{recall.summary(rec)}{recall.detail(rec)}"
    return head, fields(rec)


def wrapped(head: str, body: str, width: int = WIDTH) -> list[str]:
    """``head`` then ``body`` cut into lines of at most ``width`` columns, the next ones
    indented under the body's first column (at most ``HANG``): between fields (``; ``)
    where they fit, else at spaces; a word longer than the room there (a SHA-256) moves
    left on its line, whole."""
    indent = " " * min(len(head), HANG)
    room = width - len(indent)
    lines: list[str] = []
    if len(head) + len(body.split("; ", 1)[0].split("\n", 1)[0]) > width:
        lines, head = [head.rstrip()], indent  # the first field whole on the next line
    for n, paragraph in enumerate(body.split("\n")):
        # A field that fits in the room is one word to textwrap ("payout 350" stays whole).
        glued = "; ".join(f.replace(" ", _GLUE) if len(f) < room else f
                          for f in paragraph.split("; "))
        lines += textwrap.wrap(glued, width, initial_indent=head if n == 0 else indent,
                               subsequent_indent=indent, break_long_words=False,
                               break_on_hyphens=False) or [head.rstrip()]
    lines = [text.replace(_GLUE, " ") for text in lines]
    return [text if len(text) <= width or " " in text.strip()
            else text.strip().rjust(width) for text in lines]


_GLUE = "\x00"  # a space inside a field, not to be cut at


def when(t: float) -> str:
    """A record's time: the daemon stamps wall time (epoch seconds), a replay trace seconds."""
    if t > 1e9:
        return datetime.fromtimestamp(t, UTC).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3] + "Z"
    return f"t {t:.3f} s"
