"""Game recall from the journal (seed 001 Art. 14: a disputed game recalled in full).

Groups records into games, and hides what the public may not see yet: a card dealt face
down until the dealer turns it (seed 000 Art. 6), by the game's own ``present_game`` (its
spec's: a card table's is the code that masks it live, ``controller.cards.masking``).

Which records start and end a game comes from the table's game's spec (``RecallSpec``:
``spin_start`` / ``spin_result``..., ``coup_start`` / ``coup_result``); a game concluded
with no start record (voided on restart before it started) starts at its result. A game's block runs
from its start to its end: its result record, then the settlements of that game that follow
it and the ``state`` record that reopens bets, if any (a roulette spin is settled after its
result; a coup box by box before it). Before the block comes its prelude: the records between
the previous game's end and this start (bets, dealer inputs, shoe procedure, alarms), raw
``serial`` records left out. The journal's bookkeeping (``evidence`` batches closed,
``checkpoint``, ``seal``; ``gpio`` edges of journals of format 1) is left out everywhere:
``tablectl export --evidence`` gives a game's raw edges. So each record is in one game only:
the bets on a spin are in that spin's prelude, not at the end of the spin before.
"""

from __future__ import annotations

from typing import Any

from controller.core.contract import GameSpec
from controller.store.journal import Journal

# Raw hardware records: in a game's block they are its evidence; between games, noise.
# The journal's own bookkeeping (evidence batches closed, checkpoints, seals) is no game's.
_BOOKKEEPING = ("gpio", "evidence", "checkpoint", "seal")
_NOT_IN_PRELUDE = (*_BOOKKEEPING, "serial")


def games_in_full(journal: Journal, spec: GameSpec, last: int) -> list[dict[str, Any]]:
    """The last ``last`` games of the table of ``spec``'s game, each ``{"title",
    "records"}`` with every record of the game (its prelude: bets, inputs, alarms since the
    previous game ended; then the game itself: cards, results, settlements...), in journal
    order (see the module doc)."""
    starts = _starts(journal, spec)
    return _games(journal, spec, starts, max(0, len(starts) - last), len(starts))


def game_in_full(journal: Journal, spec: GameSpec, number: int) -> dict[str, Any] | None:
    """The game numbered ``number`` (a spin, a coup) in full, as :func:`games_in_full`
    gives it; the newest of that number if a journal holds two; None when none is."""
    starts = _starts(journal, spec)
    fields = _number_fields(spec)
    index = next((i for i in range(len(starts) - 1, -1, -1)
                  if starts[i].get(fields[starts[i]["type"]]) == number), None)
    return None if index is None else _games(journal, spec, starts, index, index + 1)[0]


def _number_fields(spec: GameSpec) -> dict[str, str]:
    """The game's start and result record types -> the field that numbers its games."""
    return {kind: spec.recall.number for kind in (spec.recall.start, *spec.recall.results)}


def _starts(journal: Journal, spec: GameSpec) -> list[dict[str, Any]]:
    """The record that starts each game: its start record, or its result when the journal
    holds no start of it (a roulette game voided on restart before its launch)."""
    starters = {spec.recall.start}
    fields = _number_fields(spec)
    starts: list[dict[str, Any]] = []
    started: set[tuple[str, Any]] = set()
    for rec in journal.records(types=tuple(fields)):
        key = (fields[rec["type"]], rec.get(fields[rec["type"]]))
        if rec["type"] not in starters and key in started:
            continue
        started.add(key)
        starts.append(rec)
    return starts


def _games(journal: Journal, spec: GameSpec, all_starts: list[dict[str, Any]], first: int,
           stop: int) -> list[dict[str, Any]]:
    """The games ``all_starts[first:stop]`` in full."""
    fields = _number_fields(spec)
    results = spec.recall.results
    # The game before the first one shown is read too: its end is where the prelude of
    # the first one shown begins.
    starts = all_starts[max(0, first - 1):stop + 1]
    if not starts:
        return []
    after = starts[0]["seq"] - 1 if first > 0 else 0
    # The start after the last one shown bounds the last one's window.
    bound = starts.pop()["seq"] if stop < len(all_starts) else None
    before_first: list[dict[str, Any]] = []  # records before the journal's first game
    windows: list[list[dict[str, Any]]] = [[] for _ in starts]
    i = -1
    for rec in journal.records(after=after):
        if bound is not None and rec["seq"] >= bound:
            break
        while i + 1 < len(starts) and rec["seq"] >= starts[i + 1]["seq"]:
            i += 1
        (windows[i] if i >= 0 else before_first).append(rec)
    games: list[dict[str, Any]] = []
    leftover = before_first
    for start, window in zip(starts, windows, strict=True):
        kind = fields[start["type"]]
        number = start[kind]
        end = _end_of_game(window, kind, number, results)
        prelude = [r for r in leftover if r["type"] not in _NOT_IN_PRELUDE]
        body = [r for r in window[:end + 1] if r["type"] not in _BOOKKEEPING]
        leftover = window[end + 1:]
        if start["seq"] < all_starts[first]["seq"]:
            continue  # the game before those shown: read for its end only
        records = spec.present_game(prelude + body)
        games.append({"title": f"{kind} {number}", "records": records})
    return games


def _end_of_game(window: list[dict[str, Any]], kind: str, number: int,
                 results: tuple[str, ...]) -> int:
    """Index in ``window`` (the records from the game's start up to the next start) of
    the game's last record; the whole window while the game is under way."""
    result = next((i for i, r in enumerate(window)
                   if r["type"] in results and r.get(kind) == number), None)
    if result is None:
        return len(window) - 1
    end = result
    for i in range(result + 1, len(window)):
        rec = window[i]
        if rec["type"] == "state" and rec.get("trigger") == "reopen":
            return i
        if rec["type"] == "settlement" and rec.get("game") == number:
            end = i
    return end
