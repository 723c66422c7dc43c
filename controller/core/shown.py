"""Where an input's records go once committed (:class:`Shown`), as the public may see them
(the game's ``present``: a card still face down masked): the observers (the daemon's
supervisor, the simulated dealer), the sink (``replay`` prints each body) and the log, at the
level a person at the table wants them (the game's ``log`` and accepted bets at info level,
alarms at warning, the rest at debug).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from typing import Any

from controller.core.config import Config
from controller.core.logs import get_logger
from controller.store.chain import canonical

# Inputs are in the journal already; logging each would drown the rest.
_INPUT_RECORDS = frozenset({"serial", "input", "evidence", "checkpoint", "seal"})
# Records of every table a person wants in the log at once; a game adds its own (its spec's
# ``log``) and its accepted bets (``bet_record``). The rest go at debug level. The daemon's
# start banner says what the ``startup`` record says.
_INFO_RECORDS: dict[str, tuple[str, ...] | None] = {
    name: None for name in ("settlement", "alarm", "state", "config_change", "port",
                            "recovery", "shutdown")}


class Shown:
    """The records of the table of ``config``, shown once committed: to ``observers``, to
    ``sink`` (called with each record's JSON body; None: none) and to the log.
    ``stop_level`` is the ``shutdown`` record's level (``error`` when the daemon stops on
    one)."""

    def __init__(self, config: Config, sink: Callable[[str], None] | None) -> None:
        spec = config.spec
        self.sink = sink
        # Called with each record as shown (its public view), on the controller thread.
        self.observers: list[Callable[[dict[str, Any]], None]] = []
        self.stop_level = "info"
        # Bound once: a lazy proxy would rebuild the logger on every record.
        self.log = get_logger(table=config.table_name).bind()
        self._debug = self.log.is_enabled_for(logging.DEBUG)
        # The bound logger's level is fixed: a record below it is not even made into fields
        # (a replay logs warnings only; some 10 records a spin are info).
        self._logs = {name: self.log.is_enabled_for(getattr(logging, name.upper()))
                      for name in ("info", "warning", "error")}
        bets = {spec.bet_record: None} if spec.bet_record else {}
        self._info = {**_INFO_RECORDS, **bets, **spec.log}

    def show(self, records: Iterable[dict[str, Any]], bodies: dict[int, str]) -> None:
        """Show ``records`` (an input's, as the public may see them); ``bodies``: the JSON
        body each record journaled has already, by its ``id`` (a masked record has none)."""
        for shown in records:
            type_ = shown["type"]
            for observe in self.observers:
                observe(shown)
            if self.sink is not None:
                self.sink(bodies.get(id(shown)) or canonical(shown))
            if type_ in self._info:
                level = ("warning" if type_ == "alarm" else
                         self.stop_level if type_ == "shutdown" else "info")
                if not self._logs[level]:
                    continue
                keys = self._info[type_]
                fields = {k: v for k, v in shown.items()
                          if k != "type" and (keys is None or k in keys)}
                getattr(self.log, level)(type_, **fields)
            elif self._debug and type_ not in _INPUT_RECORDS:
                self.log.debug(type_, **{k: v for k, v in shown.items() if k != "type"})
