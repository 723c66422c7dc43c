"""structlog set-up: short lines for a person over SSH, JSON lines for journald and machines.

Both go to stderr. ``configure(level, fmt)`` picks the renderer: ``console`` (the
:class:`ConsoleLines` below), ``json`` (one JSON object a line), or ``auto`` (JSON when
stderr is journald, i.e. ``JOURNAL_STREAM`` names it, else console). When stderr is
journald every line starts with its syslog priority, ``<N>`` (journald's
``SyslogLevelPrefix=``, on by default, strips it and sets ``PRIORITY=``), so
``journalctl -u table-controller -p warning`` shows the alarms and errors only.

A traceback is rendered plain (``traceback.format_exception``): never with local
variables, which could hold a card still face down or a request's raw bytes.
"""

from __future__ import annotations

import json
import logging
import os
import re
import sys
import textwrap
import time
import traceback
from collections.abc import Callable, Mapping
from typing import Any, TextIO

import structlog

from controller.core.words import COLUMNS
from controller.core.words import words as _words

_LEVELS = {"debug": logging.DEBUG, "info": logging.INFO, "warning": logging.WARNING,
           "error": logging.ERROR}
# syslog priorities (sd-daemon(3)): what journald's PRIORITY= is.
PRIORITIES = {"debug": 7, "info": 6, "warning": 4, "warn": 4, "error": 3, "exception": 3,
              "critical": 2}
WIDTH = COLUMNS  # console lines fit an 80-column terminal
_SHORT_LEVEL = {"debug": "debug", "info": "info", "warning": "warn", "error": "ERROR",
                "exception": "ERROR", "critical": "CRIT"}
_COLOURS = {"warn": "\x1b[33m", "ERROR": "\x1b[31;1m", "CRIT": "\x1b[31;1m",
            "debug": "\x1b[2m"}
# Fields the console never shows: the table is in the start banner; an epoch ``t`` is the
# line's own time.
_HIDDEN = ("table", "timestamp", "level", "event")


LineWords = Callable[[dict[str, Any]], str] | tuple[Callable[[dict[str, Any]], str],
                                                      tuple[str, ...]]
"""A record in words, one short line; alone it says every field of the record, with the
fields it says (a tuple) the others follow as ``key=value``."""
Words = Mapping[str, LineWords]
"""Record type -> its console line in words (a game's ``GameSpec.log_words``)."""


def configure(level: str = "info", fmt: str = "auto", stream: TextIO | None = None,
              words: Words | None = None) -> None:
    """Send structlog events at ``level`` and above to ``stream`` (stderr) as ``fmt``:
    ``console``, ``json`` or ``auto`` (json when the stream is journald's). ``words`` are
    the game's own lines for its records, on the console (``GameSpec.log_words``)."""
    out = stream or sys.stderr
    journald = is_journald(out)
    renderer: Any
    processors: list[Any] = [structlog.processors.add_log_level]
    last: Any
    if fmt == "json" or (fmt == "auto" and journald):
        processors += [structlog.processors.TimeStamper(fmt="iso", utc=True),
                       structlog.processors.format_exc_info]
        renderer = structlog.processors.JSONRenderer(ensure_ascii=False)
    else:
        processors.append(_stamp)
        renderer = ConsoleLines(colours=not journald and _isatty(out), words=words)
    last = JournaldPrefix(renderer) if journald else renderer
    structlog.configure(
        processors=[*processors, last],
        wrapper_class=structlog.make_filtering_bound_logger(_LEVELS[level]),
        logger_factory=structlog.PrintLoggerFactory(out),
        cache_logger_on_first_use=False,
    )


def get_logger(**context: Any) -> Any:
    return structlog.get_logger("table-controller", **context)


def is_journald(stream: TextIO) -> bool:
    """The stream is the journal's: systemd set ``JOURNAL_STREAM`` to its device and inode."""
    value = os.environ.get("JOURNAL_STREAM", "")
    try:
        dev, ino = (int(part) for part in value.split(":"))
        st = os.fstat(stream.fileno())
    except (ValueError, OSError, AttributeError):
        return False
    return (st.st_dev, st.st_ino) == (dev, ino)


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def _stamp(logger: Any, name: str, event: dict[str, Any]) -> dict[str, Any]:
    event.setdefault("timestamp", time.time())
    return event


class JournaldPrefix:
    """Wraps a renderer: each line of its output starts with ``<N>``, the event's syslog
    priority (journald reads it as ``PRIORITY=``)."""

    def __init__(self, inner: Callable[[Any, str, dict[str, Any]], str]) -> None:
        self.inner = inner

    def __call__(self, logger: Any, name: str, event: dict[str, Any]) -> str:
        priority = PRIORITIES.get(str(event.get("level", name)), 6)
        text = self.inner(logger, name, event)
        return "\n".join(f"<{priority}>{line}" for line in text.split("\n"))


# -- the console ----------------------------------------------------------------------
def _value(value: Any) -> str:
    """A field's value in words (``controller.core.words``): text as it is (quoted when it
    has spaces), numbers plain, ``yes``/``no``, lists joined by commas, tables as ``key
    value`` pairs; never JSON nor a Python repr."""
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False) if " " in value else value
    return _words(value)


def _empty(value: Any) -> bool:
    """Nothing to say: none, an empty text, list or table (the console omits the field)."""
    return value is None or (isinstance(value, str | list | tuple | dict) and not value)


def _chips(n: Any) -> str:
    return f"{n} chip{'' if n == 1 else 's'}"


def bet_words(e: dict[str, Any]) -> str:
    """``box 1 punto``: a bet's box and kind (a game whose bets say more, e.g. roulette's
    numbers, gives its own in its words: see :func:`settlement`)."""
    return f"box {e['box']} {e['kind']}"


BetWords = Callable[[dict[str, Any]], str]


def _state(e: dict[str, Any]) -> str:
    trigger = f" ({e['trigger']})" if e.get("trigger") else ""
    game = f", game {e['game']}" if e.get("game") is not None else ""
    return f"{e['from']} → {e['to']}{trigger}{game}"


def limits(e: dict[str, Any]) -> str:
    """``limits 1–1000 chips``: a record's ``limits`` (or its own ``min_bet``,
    ``max_bet``)."""
    lim = e.get("limits") or e
    return f"limits {lim['min_bet']}–{lim['max_bet']} chips"


def _signed(n: int | float) -> str:
    """``+175``, ``-10``, ``+0``, ``+166.25`` (a share of a pot may be a fraction)."""
    return f"{n:+d}" if isinstance(n, int) else f"{n:+g}"


def settlement(e: dict[str, Any], bet: BetWords = bet_words) -> str:
    """``box 4 dozen 2, 10 chips: lose -10``: the bet (in ``bet``'s words), its stake and
    its outcome."""
    return f"{bet(e)}, {_chips(e['amount'])}: {e['outcome']} {_signed(e['payout'])}"


def bet_accepted(e: dict[str, Any], bet: BetWords = bet_words) -> str:
    """``box 1 punto, 10 chips accepted, box total 10``: a game's accepted bet."""
    total = f", box total {e['total']}" if e.get("total") is not None else ""
    return f"{bet(e)}, {_chips(e['amount'])} accepted{total}"


def alarm(e: dict[str, Any], bet: BetWords = bet_words) -> str:
    """The code and message; a refused bet's stake (its message names the bet)."""
    where = next((f" ({k} {e[k]})" for k in ("spin", "coup", "hand", "game")
                  if e.get(k) is not None), "")
    refused = e.get("bet")
    stake = (f"; {bet(refused)}, {_chips(refused['amount'])}"
             if isinstance(refused, dict) else "")
    return f"{e['code']}: {e['message']}{where}{stake}"


def _journal(e: dict[str, Any]) -> str:
    if not e["head_seq"]:  # its head is the chain's start, 64 zeros: nothing to say
        return "a new journal, no record yet"
    chain = "intact" if e.get("chain_ok") else "BROKEN (see the journal_chain_broken alarm)"
    return f"{e['records']} records, hash chain {chain}; head #{e['head_seq']} {e['head_hash']}"


def _stopped(e: dict[str, Any]) -> str:
    return f"journal closed; head #{e['head_seq']} {e['head_hash']}"


def _port(e: dict[str, Any]) -> str:
    detail = f": {e['detail']}" if e.get("detail") else ""
    return f"{e['port']} {'up' if e['up'] else 'DOWN'}{detail}"


def _ready(e: dict[str, Any]) -> str:
    dog = e.get("watchdog_s")
    return "systemd told READY=1" + (f"; watchdog every {dog:g} s" if dog else "; no watchdog")


def _banner(e: dict[str, Any]) -> str:
    group = f" (group {e['control_group']})" if e.get("control_group") else ""
    simulated = ", simulated" if e.get("simulated") else ""
    return "\n".join([
        f"table-controller {e['version']}: table {e['table']} ({e['game']}{simulated})",
        f"Python {e['python']} on {e['platform']}",
        f"config {e['config']}; pin factory {e['pin_factory']}",
        f"journal {e['journal']}",
        f"control socket {e['control_socket']}{group}",
        f"stop with {e['stop']}",
    ])


SAID: dict[str, tuple[str, ...]] = {
    "alarm": ("code", "message", "spin", "coup", "hand", "game", "bet"),
    "settlement": ("box", "kind", "amount", "outcome", "payout", "game"),
}
"""The fields the kernel's words of a shared record say (a game's words for it may say
more: roulette's settlement its numbers)."""

# The shared records' and the daemon's own events' words, with the fields they say; a
# game's own records are its words (``GameSpec.log_words``).
_FORMATS: dict[str, tuple[Callable[[dict[str, Any]], str], tuple[str, ...]]] = {
    "state": (_state, ("from", "to", "trigger", "game", "limits")),
    "settlement": (settlement, SAID["settlement"]),
    "alarm": (alarm, SAID["alarm"]),
    "journal": (_journal, ("records", "chain_ok", "head_seq", "head_hash")),
    "stopped": (_stopped, ("head_seq", "head_hash")),
    "port": (_port, ("port", "up", "detail")),
    "ready": (_ready, ("watchdog_s", "component")),
    "shoe_procedure": (lambda e: f"{e['procedure']}: {e['step']}", ("procedure", "step")),
    "shutdown": (lambda e: f"journaled: {e['reason']}", ("reason",)),
    "startup": (_banner, ("version", "table", "game", "simulated", "python", "platform",
                          "config", "pin_factory", "journal", "control_socket",
                          "control_group", "stop")),
}


class ConsoleLines:
    """structlog's last processor for people: ``HH:MM:SS.mmm level event  words  #seq``.

    Times are local. The shared records are said in words (a state as ``from → to``,
    settlements, alarms, the daemon's start and stop), a game's own records by its
    ``words`` (record type -> the line, and the fields it says); other
    fields follow as ``key=value`` in words (lists joined by commas; an empty value is
    left out). Every line is at most ``width`` characters: longer text goes on indented
    lines below. A traceback follows, plain, without local variables.
    """

    def __init__(self, width: int = WIDTH, colours: bool = False,
                 words: Words | None = None) -> None:
        self.width = width
        self.colours = colours
        self.words = dict(words or {})

    def __call__(self, logger: Any, name: str, event: dict[str, Any]) -> str:
        e = dict(event)
        exc = _exc_info(e.pop("exc_info", None))
        e.pop("exception", None)
        stack = e.pop("stack", None)
        level = _SHORT_LEVEL.get(str(e.get("level", name)), str(e.get("level", name)))
        stamp = e.get("timestamp")
        clock = _local(stamp if isinstance(stamp, int | float) else time.time())
        kind = str(e.get("event", ""))
        text, said = self._words(kind, e)
        rest = [f"{k}={_value(v)}" for k, v in sorted(e.items())
                if k not in said and k not in _HIDDEN and k not in ("seq", "t")
                and not _empty(v)]
        t = e.get("t")
        if (isinstance(t, int | float) and not isinstance(t, bool) and t < 1e9
                and not _says_time(" ".join([text, *rest]), t)):
            # Trace time (a replay), not the wall clock; never cut across lines.
            rest.append(f"at{_GLUE}{t:.3f}{_GLUE}s")
        seq = f"#{e['seq']}" if e.get("seq") is not None else ""
        body = " ".join(part for part in (seq, text, *rest) if part)
        head = f"{clock} {level:<5} {kind:<12} "
        lines = self._fit(head, body)
        if self.colours and level in _COLOURS:
            lines[0] = f"{_COLOURS[level]}{lines[0]}\x1b[0m"
        if stack:
            lines.append(str(stack).rstrip("\n"))
        if exc is not None:
            lines.append("".join(traceback.format_exception(*exc)).rstrip("\n"))
        return "\n".join(lines)

    def _words(self, kind: str, e: dict[str, Any]) -> tuple[str, tuple[str, ...]]:
        own = self.words.get(kind)
        known = (own if isinstance(own, tuple) else (own, tuple(e)) if own is not None
                 else _FORMATS.get(kind))
        if known is None:
            return "", ()
        words, said = known
        try:
            return words(e), said
        except (KeyError, TypeError, ValueError, IndexError, AttributeError):
            return "", ()  # a record of another shape: its fields as they are

    def _fit(self, head: str, body: str) -> list[str]:
        """``head`` then ``body``, cut at spaces into lines of at most ``width``."""
        indent = " " * min(len(head), 16)
        lines: list[str] = []
        for n, paragraph in enumerate(body.split("\n")):
            first = head if n == 0 else indent
            lines += textwrap.wrap(paragraph, self.width, initial_indent=first,
                                   subsequent_indent=indent, break_on_hyphens=False,
                                   break_long_words=True) or [first.rstrip()]
        return [line.replace(_GLUE, " ") for line in lines]


_GLUE = "\x00"  # a space the console's lines are not cut at


def _says_time(text: str, t: float) -> bool:
    """``text`` already gives the time ``t`` (an alarm's message: "... at 195.603 s")."""
    return any(abs(float(found) - t) < 0.0005 for found in _SECONDS.findall(text))


_SECONDS = re.compile(r"(\d+\.\d+) s\b")


def _local(ts: float) -> str:
    """``HH:MM:SS.mmm`` in the machine's local time."""
    return time.strftime("%H:%M:%S", time.localtime(ts)) + f".{int(ts % 1 * 1000):03d}"


def _exc_info(value: Any) -> Any:
    """structlog's ``exc_info`` (True, an exception or a tuple) as a (type, value, tb)."""
    if not value:
        return None
    if isinstance(value, BaseException):
        return (type(value), value, value.__traceback__)
    if isinstance(value, tuple):
        return value
    info = sys.exc_info()
    return info if info[0] is not None else None
