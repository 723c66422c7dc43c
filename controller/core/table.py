"""The table: the one object the controller thread hands every event to.

It journals each input (a GPIO edge, a dealer input) before anything acts on it, keeps the
logical level of every GPIO input the game does not read itself (the dealer's buttons) to
catch edges nobody expects, and routes events to the game of the table, made from its
registry entry (``controller.games.registry``). A person's input or bet goes through the
game's check first; the table journals a refusal and returns the :class:`Verdict`, which the
control socket sends back to whoever asked.

Every record goes through :meth:`Table.emit`: journal first (committed, hash-chained); the
records one event caused are then shown together, through the game's ``present`` (a card
still face down is masked), on the optional sink (``replay`` prints) and in the log.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from controller.core.config import Config
from controller.core.errors import RuleViolation
from controller.core.events import BetPlaced, DealerInput, Event, GpioEdge, PortStatus, SerialData
from controller.core.logs import get_logger
from controller.games import registry
from controller.games.base import ACCEPTED, GameContext, Schedule, Verdict
from controller.store.journal import Journal, canonical

CLOCK_STEP_TOLERANCE_S = 0.5  # wall minus monotonic drifts by ms (NTP slews); steps are seconds

# Inputs are in the journal already; logging each GPIO edge would drown the rest.
_INPUT_RECORDS = frozenset({"gpio", "serial", "input"})
# Records of every table a person wants in the log at once; a game adds its own (its spec's
# ``log``). The rest go at debug level.
# ``bet`` and ``bet_placed`` are the accepted bets of the games that journal them; the daemon's
# start banner says what the ``startup`` record says.
_INFO_RECORDS: dict[str, tuple[str, ...] | None] = {
    name: None for name in ("settlement", "alarm", "state", "config_change", "port",
                            "recovery", "shutdown", "bet", "bet_placed")}


class Table:
    """Routes events to the configured game and journals everything.

    Args:
        config: the checked config.
        journal: where records go (the daemon's is durable).
        schedule: the loop's timer (``call_at``).
        now: the controller clock's ``now`` (monotonic seconds: every interval, every event's
            ``t``).
        sink: called with the JSON body of every record journaled (``replay`` prints).
        wall: the wall clock (seconds since the epoch) that stamps records; ``now`` when
            omitted (trace time in replay and tests). A step of it is a ``clock_step`` alarm.
    """

    def __init__(self, config: Config, journal: Journal, schedule: Schedule,
                 now: Callable[[], float], sink: Callable[[str], None] | None = None,
                 wall: Callable[[], float] | None = None) -> None:
        self.config = config
        self.spec = registry.spec(config.game)
        self.journal = journal
        self.now = now
        self.wall = wall or now
        self._offset = self.wall() - now()
        self.sink = sink
        # Bound once: a lazy proxy would rebuild the logger on every record.
        self.log = get_logger(table=config.table_name).bind()
        self._info = {**_INFO_RECORDS, **self.spec.log}
        self._raw_inputs = frozenset(self.spec.gpio_inputs)
        self.levels: dict[str, int] = {}
        self._held: list[dict[str, Any]] | None = None
        # Called with each record as shown (its public view), on the controller thread.
        self.observers: list[Callable[[dict[str, Any]], None]] = []
        self.game: Any = self.spec.make(GameContext(config, self.emit, schedule, now))

    def emit(self, type_: str, /, **fields: Any) -> dict[str, Any]:
        """Journal a record (committed before return); return it whole.

        While an event is handled, showing the records (sink, log) waits for the end of it:
        the game's ``present`` sees them together (an input that turns out to carry a card
        dealt face down has its raw bytes masked). The journal always keeps them whole
        (recovery needs them).
        """
        if "t" in fields:  # an event's own time, on the monotonic clock
            fields["t"] = fields["t"] + self._offset
        record, _ = self.journal.append(type_, self.wall(), fields)
        if self._held is not None:
            self._held.append(record)
        else:
            self._present([record])
        return record

    def _present(self, records: list[dict[str, Any]]) -> None:
        for shown in self.game.present(records):
            type_ = shown["type"]
            for observe in self.observers:
                observe(shown)
            if self.sink is not None:
                self.sink(canonical(shown))
            if type_ in self._info:
                level = "warning" if type_ == "alarm" else "info"
                keys = self._info[type_]
                fields = {k: v for k, v in shown.items()
                          if k != "type" and (keys is None or k in keys)}
                getattr(self.log, level)(type_, **fields)
            elif type_ not in _INPUT_RECORDS:
                self.log.debug(type_, **{k: v for k, v in shown.items() if k != "type"})

    def recover(self) -> None:
        """Resume from the journal after a restart (void or finish what was interrupted)."""
        self.game.recover_from(self.journal)

    def end_of_input(self, why: str) -> None:
        """No more input will come (a replay's trace ended and time ran on until no verdict
        was pending): an ``alarm`` names the game still open, if any."""
        game = self.game.open_game()
        if game is not None:
            self.emit("alarm", code="game_open", message=f"{why} with {game}")

    def _check_clock(self) -> None:
        """Journal a step of the wall clock (NTP at boot, a manual ``date``): record stamps
        jump with it, intervals (measured on the monotonic clock) do not."""
        offset = self.wall() - self.now()
        step = offset - self._offset
        if abs(step) > CLOCK_STEP_TOLERANCE_S:
            self._offset = offset
            self.emit("alarm", code="clock_step",
                      message=f"the wall clock stepped {step:+.3f} s; intervals and verdicts "
                              "use the monotonic clock and are not affected")

    def handle(self, event: Event) -> Verdict | None:
        """Act on one event (on the controller thread only).

        Returns the verdict on a person's input or bet (accepted, or refused with the
        rule's reason), None for what the hardware sent.
        """
        self._check_clock()
        held: list[dict[str, Any]] = []
        self._held = held
        try:
            return self._route(event)
        finally:
            self._held = None
            if held:
                self._present(held)

    def _route(self, event: Event) -> Verdict | None:
        game = self.game
        if isinstance(event, GpioEdge):
            self._gpio(event)
        elif isinstance(event, BetPlaced):
            return self._person(event, game.verify_bet, game.place_bet)
        elif isinstance(event, DealerInput):
            self.emit("input", t=event.t, action=event.action, **event.args)
            return self._person(event, game.verify_input, game.dealer_input)
        elif isinstance(event, SerialData):
            self.emit("serial", t=event.t, port=event.port, text=event.data.decode("latin-1"))
            game.serial(event)
        elif isinstance(event, PortStatus):
            self.emit("port", t=event.t, port=event.port, up=event.up, detail=event.detail)
            game.port_status(event)
        return None

    def _person(self, event: DealerInput | BetPlaced, verify: Callable[[Any], None],
                do: Callable[[Any], None]) -> Verdict:
        """Verify, then do (pokerkit's triad); a refusal is journaled by the game. A dealer
        input's arguments are first checked against its game's spec, on every table
        (``GameSpec.verify_arguments``)."""
        try:
            if isinstance(event, DealerInput):
                self.spec.verify_arguments(event)
            verify(event)
            do(event)
        except RuleViolation as exc:
            self.game.refused(event, exc)
            return Verdict.refusal(exc)
        return ACCEPTED

    def _gpio(self, edge: GpioEdge) -> None:
        _, body = self.journal.append_edge(edge.t + self._offset, edge.input, edge.level)
        if self.sink is not None:
            self.sink(body)
        if edge.input in self._raw_inputs:
            # The game reads its sensors' edges itself (missed and chattering edges are
            # sensor faults it corrects and counts).
            self.game.gpio(edge)
            return
        previous = self.levels.get(edge.input, 0)
        self.levels[edge.input] = edge.level
        if previous == edge.level:
            self.emit("alarm", code="unexpected_edge",
                      message=f"{edge.input} went to level {edge.level} at {edge.t:.6f} s "
                              f"but was already at {edge.level}: ignored")
            return
        self.game.gpio(edge)
