"""The pit page's surveillance statistics (issue 21 item 2): the game's own fold
(``GameSpec.stats``, the very code of ``tablectl stats``) kept over the last
``[display] stats_history`` games, fed each record the board follows, already masked.

The records a fold reads are results (a result shows every card face up), so the mask
takes nothing the statistics need. The window slides without reading the journal again:
the window's records are kept in memory (as ``controller.core.stats.records`` gives them:
``type`` and the fold's ``fields``), and when a game falls out of the window the fold is
made anew from them, with the newest carried state (who deals) that fell out first, as
``controller.core.stats.fold_window`` does for ``--last N``.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from controller.core.config import Config
from controller.core.contract import GameSpec
from controller.core.errors import InputError
from controller.core.specs import load_attribute
from controller.core.stats import Fold, StatsHook

Record = dict[str, Any]
CARRIED = ("dealer",)  # states in force across games (fold_window's ``carried``)


class PitStats:
    """The figures of the last ``history`` games (see the module doc).

    ``figures()`` is None when the game has no statistics; else the fold's figures with
    ``lines`` (the words of ``tablectl stats``), ``history`` (the window's size),
    ``games_folded`` (the games in it) and
    ``problem`` (the last record the fold could not read, or None)."""

    def __init__(self, spec: GameSpec, table: Config, history: int) -> None:
        self.history = history
        self.results = spec.recall.results
        self.table = table
        self.hook: StatsHook | None = None
        if spec.stats:
            hook = load_attribute(spec.stats)
            self.hook = hook if isinstance(hook, StatsHook) else None
        self.fold: Fold | None = self.hook.make(table) if self.hook else None
        self.window: deque[Record] = deque()
        self.games = 0
        self.carried: dict[str, Record] = {}
        self.problem: str | None = None
        self._figures: dict[str, Any] | None = None

    def feed(self, record: Record) -> None:
        """One (masked) record; those the fold does not read are passed over. A record the
        fold refuses is left out and named in ``problem``: never a traceback."""
        if self.fold is None or record.get("type") not in self.fold.reads:
            return
        picked = ({"type": record["type"], **{k: record.get(k) for k in self.fold.fields}}
                  if self.fold.fields else dict(record))
        try:
            self.fold.fold(picked)
        except (InputError, KeyError, TypeError, ValueError, IndexError) as exc:
            self.problem = f"record #{record.get('seq')} ({record.get('type')}) not " \
                           f"counted: {exc}"
            return
        self.window.append(picked)
        self._figures = None
        if picked["type"] in self.results:
            self.games += 1
            if self.games > self.history:
                self._slide()

    def _slide(self) -> None:
        """Drop the oldest game (the records up to the window's oldest result but one) and
        fold the window anew."""
        assert self.hook is not None
        while self.window and (self.games > self.history
                               or self.window[0]["type"] not in self.results):
            gone = self.window.popleft()
            if gone["type"] in self.results:
                self.games -= 1
            elif gone["type"] in CARRIED:
                self.carried[gone["type"]] = gone
        self.fold = self.hook.make(self.table)
        for record in (*self.carried.values(), *self.window):
            self.fold.fold(record)

    def figures(self) -> dict[str, Any] | None:
        """The figures now (computed once per change), or None (no statistics)."""
        if self.hook is None or self.fold is None:
            return None
        if self._figures is None:
            figures = self.fold.figures()
            games = self.hook.games(figures)
            try:  # the words need a game (tablectl stats says "none" in a line of its own)
                lines = self.hook.lines(figures) if games else []
            except (KeyError, TypeError, ValueError, ZeroDivisionError) as exc:
                lines = [f"(the figures could not be put in words: {exc})"]
            figures.update(lines=lines, history=self.history, games_folded=games,
                           problem=self.problem)
            self._figures = figures
        return self._figures
