"""``tablectl sensors [--watch]``: what every sensor sees, from the running daemon.

Per GPIO input: its level now (ACTIVE: it sees its target; idle), the edges per second,
the time since its last edge and the periods between its recent activations while they run
(a running ball's laps on the ball-track sensors, the rotor's turns on the rotor's), from
the counts the GPIO driver keeps of every edge (a 4 ms ball pass between two looks is
counted). Per serial port: its last line (a shoe's in words, never a card) and its age.
``--watch`` redraws the view every ``--interval`` seconds on a plain terminal (ANSI home and
clear; no curses), or prints one block per look when the output is not a terminal; Ctrl-C
ends it.
"""

from __future__ import annotations

import argparse
import json
import sys
import textwrap
import time
from typing import Any

from controller.cli.control import request
from controller.core.config import Config
from controller.core.words import COLUMNS, duration, fit, plain, words

RUN_GAP_S = 15.0  # activations further apart than this are not one run (a ball, a rotor)
RUN_GROWTH = 2.5  # nor a gap this many times the period after it (a new ball's launch)
PERIODS_SHOWN = 6
CLEAR = "\x1b[H\x1b[J"


def add_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    sen = sub.add_parser("sensors", parents=[common],
                         help="every GPIO input's level (ACTIVE: it sees its target, or "
                              "idle), edges per second, last edge and the periods of its "
                              "recent activations (a running ball's laps); what each serial "
                              "port last said; --watch: live",
                         description=plain(__doc__))
    sen.add_argument("--watch", action="store_true", help="refresh until Ctrl-C")
    sen.add_argument("--interval", type=float, default=0.5, help="seconds between looks "
                     "(0.1 to 10, default 0.5)")
    sen.add_argument("--count", type=int, default=0,
                     help="with --watch: stop after this many views (default: never)")


def run(config: Config, args: argparse.Namespace) -> int:
    """Print the sensors once, or watch them. Returns 0; 2 for a reply that is not a
    sensors view.

    Raises:
        InputError: ``--interval`` out of range.
        ControlError: no daemon answers (exit 3).
    """
    from controller.core.errors import InputError

    if not 0.1 <= args.interval <= 10:
        raise InputError("--interval", None, None, f"must be 0.1 to 10 s, got {args.interval}")
    previous = _look(config)
    if previous is None:
        return 2
    if not args.watch:
        _show(previous, None, args.json, clear=False)
        return 0
    shown = 0
    clear = sys.stdout.isatty() and not args.json
    try:
        while args.count <= 0 or shown < args.count:
            time.sleep(args.interval)
            current = _look(config)
            if current is None:
                return 2
            _show(current, previous, args.json, clear)
            previous = current
            shown += 1
    except KeyboardInterrupt:
        print()
    return 0


def _look(config: Config) -> dict[str, Any] | None:
    reply = request(config.control_socket, {"query": "sensors"})
    if not reply.get("ok"):
        print(f"tablectl: {reply.get('error')}", file=sys.stderr)
        return None
    return reply


def _show(current: dict[str, Any], previous: dict[str, Any] | None, as_json: bool,
          clear: bool) -> None:
    if as_json:
        print(json.dumps(view(current, previous), sort_keys=True), flush=True)
        return
    text = "\n".join(frame(current, previous))
    print((CLEAR if clear else "") + text + ("" if clear else "\n"), flush=True)


def view(current: dict[str, Any], previous: dict[str, Any] | None) -> dict[str, Any]:
    """The sensors reply with, per input, what a look shows: ``edges_per_s`` (between
    ``previous`` and ``current``; None on the first look), ``last_edge_ago_s``,
    ``periods_s`` (its current run of activations, oldest first) and ``running``."""
    now = float(current.get("now", 0.0))
    before = (previous or {}).get("sensors", {})
    span = now - float(previous.get("now", now)) if previous else 0.0
    inputs: dict[str, Any] = {}
    for name, cur in sorted(current.get("sensors", {}).items()):
        if not isinstance(cur, dict):  # a daemon that sends levels only
            cur = {"level": cur}
        rate = None
        if name in before and span > 0 and "edges" in cur:
            rate = round((cur["edges"] - before[name].get("edges", 0)) / span, 2)
        last = cur.get("last_edge_t")
        periods, running = _run(cur.get("rises", []), now)
        inputs[name] = {**cur, "edges_per_s": rate,
                        "last_edge_ago_s": None if last is None else round(now - last, 3),
                        "periods_s": periods, "running": running}
    return {"now": now, "sensors": inputs, "serial": current.get("serial", {})}


def _run(rises: list[float], now: float) -> tuple[list[float], bool]:
    """The periods between the last activations that form one run (each gap under
    ``RUN_GAP_S`` and under ``RUN_GROWTH`` times the period after it: a ball's laps grow by
    1.7 at most, a rotor's turns are steady), and whether it still runs (the next one is
    due within twice the last period)."""
    periods: list[float] = []
    for later, earlier in zip(reversed(rises), list(reversed(rises))[1:], strict=False):
        gap = later - earlier
        if gap > RUN_GAP_S or (periods and gap > RUN_GROWTH * periods[0]):
            break
        periods.insert(0, round(gap, 4))
    running = bool(periods) and now - rises[-1] <= 2 * periods[-1]
    return periods, running


def frame(current: dict[str, Any], previous: dict[str, Any] | None) -> list[str]:
    """The lines of one look (see the module doc)."""
    shown = view(current, previous)
    lines = []
    if shown["sensors"]:
        lines = [f"{'input':<14} {'level':<7} {'edges/s':>8}  {'last edge':<13} periods",
                 f"{'':-<14} {'':-<7} {'':->8}  {'':-<13} {'':-<24}"]
    for name, s in shown["sensors"].items():
        level = "ACTIVE" if s.get("level") else "idle"
        rate = "-" if s["edges_per_s"] is None else f"{s['edges_per_s']:.1f}"
        ago = s["last_edge_ago_s"]
        last = "never" if ago is None else f"{duration(ago)} ago"
        periods = s["periods_s"][-PERIODS_SHOWN:]
        run = ""
        if periods:
            run = (", ".join(f"{p:.3f}" for p in periods) + " s"
                   + (" (running)" if s["running"] else " (ended)"))
        row = f"{name:<14} {level:<7} {rate:>8}  {last:<13} "
        # The periods go on under their column when they do not fit on the row.
        lines += textwrap.wrap(run, COLUMNS, initial_indent=row,
                               subsequent_indent=" " * len(row)) or [row.rstrip()]
    if shown["serial"]:
        lines += [*([""] if lines else []), f"{'serial port':<14} last line",
                  f"{'':-<14} {'':-<24}"]
    for port, device in sorted(shown["serial"].items()):
        lines += device_line(port, device).split("\n")
    if not lines:
        lines.append("no GPIO input and no serial port report to this table")
    return lines


def device_line(port: str, view: dict[str, Any]) -> str:
    """``wheel          '*X;3;241;32;0;137;0'  0.4 s ago, state 3 (ball in the rim), link
    talking``: a serial device's last line (quoted: an extended line ends in blank fields)
    or, for a device whose lines may carry what must not show (a shoe's cards), what it
    was in words (``said``); its age (seconds) and the rest of its view; cut into lines of
    80 columns at most, the next ones under the line's."""
    line, what, link = view.get("last_line"), view.get("said"), view.get("link")
    if line is None and what is None:
        return f"{port:<14} {link if link else 'no line yet'}"
    head = f"'{line}'" if line is not None else str(what)
    age = view.get("age_s")
    rest = [f"{k.replace('_', ' ')} {words(v)}" for k, v in view.items()
            if k not in ("last_line", "said", "age_s") and v not in (None, 0)]
    # Lines are cut between the view's parts, never inside one (a part too long to fit
    # is cut at its spaces).
    parts = [head, *([] if age is None else [f" {duration(age)} ago"])]
    glued = [p.replace(" ", _GLUE) if len(p) < COLUMNS - 15 else p
             for p in (" ".join(parts), *rest)]
    return fit(f"{port:<14} " + ", ".join(glued), 15).replace(_GLUE, " ")


_GLUE = "\x00"  # a space inside a part of a device's line, not to be cut at
