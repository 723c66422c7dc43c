"""The hardware-in-the-loop rig's player: a trace played into real output lines.

The rig is a second board (a Raspberry Pi, or spare pins of the table's own Pi) whose
output pins are wired to the table's sensor inputs, grounds joined. This program plays a
trace (CONTRACT §2) at its own times: each ``gpio`` change drives the wired line as the
sensor would (an active-low sensor pulls its line low when it sees its target), each
``serial`` chunk is written to a USB serial adapter looped to the table's reader, and each
dealer input or bet is sent to the table's control socket when the player runs on the
table's Pi (``--control-socket``), else counted as not played. The daemon on the table
reads it all through its real drivers; ``table-controller replay`` of the same trace gives
what it must conclude (hardware.md §6).

    python -m sim.rig_player TRACE [--config TABLE.toml] [--pin NAME=BCM ...]
        [--pin-factory lgpio|mock] [--serial PORT=URL ...] [--control-socket PATH]
        [--speed X] [--max-late-ms MS]

By default each input's line is the rig's BCM pin of the same number as the table's
(a rig board wired pin for pin); ``--pin ball_a=5`` moves one. Exit 0 once played, 2 for a
bad trace, config or option (one line), 1 for a pin or port that cannot be opened, 5
when it drove a GPIO edge more than ``--max-late-ms`` (default 5) ms of trace time late:
it measures, after each one, how far behind the trace it was, and prints the worst at the
end (sim/lateness.py); such a run is not a comparison, and with ``--control-socket`` the
table journals a ``player_late`` alarm that says so.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from controller.core.config import DEFAULT_CONFIG, Config
from controller.core.errors import InputError, TableControllerError
from controller.core.events import BetPlaced, DealerInput, Event, GpioEdge, SerialData
from sim.lateness import BOUND_S, EXIT_LATE, Lateness


@dataclass
class Played:
    """What a run played: edges driven, shoe bytes written, requests sent, and what had
    nowhere to go (an input not wired, a port with no adapter, no control socket)."""

    edges: int = 0
    serial_bytes: int = 0
    requests: int = 0
    not_played: int = 0
    lateness: Lateness = field(default_factory=Lateness)


def request_of(event: DealerInput | BetPlaced) -> dict[str, Any]:
    """The control socket's request for a trace's dealer input or bet (CONTRACT §2
    without ``t``)."""
    if isinstance(event, DealerInput):
        return {"input": event.action, **event.args}
    given = event.input()
    return {"bet": given.pop("kind"), **given}


class RigPlayer:
    """Plays ``events`` (trace seconds) from when :meth:`run` is called.

    Args:
        outputs: drives the wired lines (``drivers.gpio.GpioOutputs``: ``set(name,
            level)`` and its ``lines``).
        writers: serial port name -> an open port (``write(bytes)``).
        send: sends a control request and returns the reply, or None: not sent.
        speed: trace seconds per wall second.
        clock, sleep: the wall clock and its sleep (injected in tests).
        bound_s: the lateness (trace seconds) past which the run is not a comparison.
    """

    def __init__(self, events: Sequence[Event], outputs: Any, writers: dict[str, Any],
                 send: Callable[[dict[str, Any]], dict[str, Any]] | None, speed: float = 1.0,
                 clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep, bound_s: float = BOUND_S
                 ) -> None:
        self.events = events
        self.outputs = outputs
        self.writers = writers
        self.send = send
        self.speed = speed
        self.clock = clock
        self.sleep = sleep
        self.bound_s = bound_s

    def run(self) -> Played:
        played = Played(lateness=Lateness(self.bound_s))
        start = self.clock()
        origin = self.events[0].t if self.events else 0.0
        for event in self.events:
            wait = start + (event.t - origin) / self.speed - self.clock()
            if wait > 0:
                self.sleep(wait)
            self._play(event, played)
            if isinstance(event, GpioEdge):
                late = (self.clock() - start) * self.speed - (event.t - origin)
                played.lateness.record(f"{event.input} edge", event.t, late)
        return played

    def _play(self, event: Event, played: Played) -> None:
        if isinstance(event, GpioEdge) and event.input in self.outputs.lines:
            self.outputs.set(event.input, event.level)
            played.edges += 1
        elif isinstance(event, SerialData) and event.port in self.writers:
            self.writers[event.port].write(event.data)
            played.serial_bytes += len(event.data)
        elif isinstance(event, DealerInput | BetPlaced) and self.send is not None:
            self.send(request_of(event))
            played.requests += 1
        else:
            played.not_played += 1


def lines_for(config: Config, moved: Sequence[str]) -> dict[str, tuple[int, str]]:
    """Each configured input's rig line: its BCM pin (the table's own number, or as
    ``NAME=BCM`` moves it) and the input's active level.

    Raises:
        InputError: a ``--pin`` that is not NAME=BCM of a configured input.
    """
    lines = {name: (spec.pin, spec.active) for name, spec in config.inputs.items()}
    for item in moved:
        name, _, number = item.partition("=")
        if name not in lines or not number.isdigit() or not 0 <= int(number) <= 27:
            raise InputError("--pin", None, item, "expected NAME=BCM (0-27) of an input "
                             f"the config has: {', '.join(lines)}")
        lines[name] = (int(number), lines[name][1])
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m sim.rig_player", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("trace")
    parser.add_argument("--config", default=DEFAULT_CONFIG, help="the table's config")
    parser.add_argument("--pin", action="append", default=[], metavar="NAME=BCM")
    parser.add_argument("--pin-factory", default=None,
                        help="gpiozero's factory (lgpio on a Pi; mock to try it anywhere)")
    parser.add_argument("--serial", action="append", default=[], metavar="PORT=URL")
    parser.add_argument("--control-socket", default=None)
    parser.add_argument("--speed", type=float, default=1.0)
    parser.add_argument("--max-late-ms", type=float, default=1000 * BOUND_S, metavar="MS",
                        help="an edge driven later than this (ms of trace time) makes the "
                        "run no comparison: exit 5 (default %(default)g)")
    args = parser.parse_args(argv)
    try:
        return _play(args)
    except InputError as exc:
        print(f"rig_player: {exc}", file=sys.stderr)
        return 2
    except (TableControllerError, OSError) as exc:
        print(f"rig_player: {exc}", file=sys.stderr)
        return 1


def _play(args: argparse.Namespace) -> int:
    from controller.cli.compose import load_config
    from controller.cli.control import request
    from controller.trace import check_fits, read_trace
    from drivers.gpio import GpioOutputs, make_pin_factory
    from drivers.serial_port import open_writer

    if not 0.01 <= args.speed <= 1000:
        raise InputError("--speed", None, None, f"must be 0.01 to 1000, got {args.speed}")
    if not 0 < args.max_late_ms <= 1e6:
        raise InputError("--max-late-ms", None, None,
                         f"must be above 0 and at most 1000000, got {args.max_late_ms:g}")
    config = load_config(args.config)
    ports = dict(item.partition("=")[::2] for item in args.serial)
    trace = read_trace(args.trace, config.games, serial_ports={*config.serial, *ports})
    # As a replay of it would: a trace written for another setting of the table (a serial
    # wheel's lines for a GPIO wheel) would be played into lines nothing reads.
    check_fits(trace, config)
    outputs = GpioOutputs(lines_for(config, args.pin), make_pin_factory(args.pin_factory))
    writers: dict[str, Any] = {}
    outputs.start()
    try:
        for port, url in ports.items():
            writers[port] = open_writer(url, config.serial[port].baudrate
                                        if port in config.serial else 9600)
        socket = args.control_socket
        send = (lambda message: request(socket, message)) if socket else None
        began = time.monotonic()
        played = RigPlayer(trace.events, outputs, writers, send, args.speed,
                           bound_s=args.max_late_ms / 1000).run()
    finally:
        for writer in writers.values():
            writer.close()
        outputs.close()
    print(f"played {args.trace}: {played.edges} edges on {len(outputs.lines)} lines, "
          f"{played.serial_bytes} shoe bytes, {played.requests} requests to the table; "
          f"{played.not_played} events with nowhere to go; {time.monotonic() - began:.1f} s")
    print(played.lateness.line())
    if not played.lateness.over:
        return 0
    print(journal_late(played.lateness, send))
    return EXIT_LATE


def journal_late(lateness: Lateness, send: Callable[[dict[str, Any]], dict[str, Any]] | None
                 ) -> str:
    """Have the table journal a ``player_late`` alarm (a ``player_late`` input through its
    control socket, as ``replay --realtime`` journals its own): the run that follows
    this stimulus is not a comparison. Returns the line that says whether it was."""
    if send is None:
        return ("player: no --control-socket: no player_late alarm journaled; "
                "discard this run")
    try:
        reply = send({"input": "player_late", "message": lateness.alarm()})
    except (TableControllerError, OSError) as exc:
        return f"player: player_late not journaled: {exc}"
    if reply.get("verdict") == "accepted":
        return "player: the table journaled a player_late alarm"
    return f"player: player_late not journaled: {reply.get('reason') or reply.get('error')}"


if __name__ == "__main__":
    sys.exit(main())
