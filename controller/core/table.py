"""The table: the one object the controller thread hands every event to.

It journals each input (a GPIO edge, a dealer input) before anything acts on it, keeps the
logical level of every GPIO input to catch edges nobody expects, and routes events to the
game of the table. Every record goes through :meth:`Table.emit`: journal first (committed,
hash-chained), then the optional sink (``replay`` prints it), then the log.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from controller.cards.shoe_lines import ShoeCodec
from controller.config import WHEEL_INPUTS, Config
from controller.core.events import BetPlaced, DealerInput, Event, GpioEdge, PortStatus, SerialData
from controller.core.logs import get_logger
from controller.games.roulette.spin import Schedule
from controller.store.journal import Journal, canonical
from controller.store.recall import public_view

CodecFactory = Callable[[str], ShoeCodec]
CLOCK_STEP_TOLERANCE_S = 0.5  # wall minus monotonic drifts by ms (NTP slews); steps are seconds

# Inputs are in the journal already; logging each GPIO edge would drown the rest.
_INPUT_RECORDS = frozenset({"gpio", "serial", "input", "bet_request"})
# A spin's evidence is long: the log line keeps what the pit reads; the journal keeps all.
_LOG_KEYS = {
    "spin_result": ("seq", "spin", "number", "ball_revolutions", "ball_direction",
                    "rotor_direction", "rotor_rpm"),
    "spin_invalid": ("seq", "spin", "reason", "reasons", "ball_revolutions", "details"),
}
# Records a person at the table wants in the log at once; the rest go at debug level.
_INFO_RECORDS = frozenset({
    "spin_start", "spin_result", "spin_invalid", "settlement", "alarm", "state", "config_change",
    "coup_result", "shoe_procedure", "cut_card", "port", "startup", "recovery", "coup_start",
})


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
                 codec_factory: CodecFactory | None = None,
                 wall: Callable[[], float] | None = None) -> None:
        self.config = config
        self.codec_factory = codec_factory
        self.journal = journal
        self.now = now
        self.wall = wall or now
        self._offset = self.wall() - now()
        self.sink = sink
        # Bound once: a lazy proxy would rebuild the logger on every record.
        self.log = get_logger(table=config.table_name).bind()
        self.levels: dict[str, int] = {}
        self._held: list[tuple[dict[str, Any], str]] | None = None
        self.game: Any = self._make_game(schedule)

    def _make_game(self, schedule: Schedule) -> Any:
        if self.config.game == "roulette":
            from controller.games.roulette.game import RouletteGame

            return RouletteGame(self.config, self.emit, schedule, self.now)
        from controller.cards.table import CardTable

        if self.codec_factory is None:
            raise ValueError("a card table needs the shoe codecs (codec_factory)")
        return CardTable(self.config, self.emit, self.codec_factory)

    def emit(self, type_: str, /, **fields: Any) -> dict[str, Any]:
        """Journal a record (committed before return), then print and log it.

        While a card-table input is handled, printing and logging wait for the end of it:
        if the input turned out to carry the Banca's face-down card (seed 000 Art. 6), the
        records that would show it (the raw serial bytes, a dealer's correction) are masked
        first. The journal always keeps them whole (recovery needs them).
        """
        if "t" in fields:  # an event's own time, on the monotonic clock
            fields["t"] = fields["t"] + self._offset
        record, body = self.journal.append(type_, self.wall(), fields)
        if self._held is not None:
            self._held.append((record, body))
        else:
            self._present(record, body, hide=False)
        return record

    def _present(self, record: dict[str, Any], body: str, hide: bool) -> None:
        type_ = record["type"]
        shown = public_view(record, hide_raw=hide)
        if shown is not record:
            body = canonical(shown)
        if self.sink is not None:
            self.sink(body)
        if type_ in _INFO_RECORDS:
            level = "warning" if type_ == "alarm" else "info"
            keys = _LOG_KEYS.get(type_)
            fields = {k: v for k, v in shown.items()
                      if k != "type" and (keys is None or k in keys)}
            getattr(self.log, level)(type_, **fields)
        elif type_ not in _INPUT_RECORDS:
            self.log.debug(type_, **{k: v for k, v in shown.items() if k != "type"})

    def _hold(self, act: Callable[[], None]) -> None:
        self._held = []
        try:
            act()
        finally:
            held, self._held = self._held, None
            hide = any(r["type"] == "card" and r.get("face_down") for r, _ in held)
            # A reader line split across reads carries part of the face-down card in an
            # earlier chunk: while that card is due or unturned, no raw shoe bytes show.
            unseen = getattr(self.game, "face_down_unseen", lambda: False)()
            for record, body in held:
                self._present(record, body, hide or (unseen and record["type"] == "serial"))

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

    def handle(self, event: Event) -> None:
        """Act on one event (on the controller thread only)."""
        self._check_clock()
        if isinstance(event, GpioEdge):
            self._gpio(event)
        elif isinstance(event, BetPlaced):
            self.emit("bet_request", t=event.t, kind=event.kind, box=event.box,
                      amount=event.amount,
                      **({"numbers": list(event.numbers)} if event.numbers is not None else {}),
                      **({"which": event.which} if event.which is not None else {}))
            self.game.place_bet(event)
        elif isinstance(event, DealerInput):
            def act() -> None:
                self.emit("input", t=event.t, action=event.action, **event.args)
                self.game.dealer_input(event)

            self._hold(act) if event.action == "card" else act()
        elif isinstance(event, SerialData):
            def read() -> None:
                self.emit("serial", t=event.t, port=event.port,
                          text=event.data.decode("latin-1"))
                self.game.serial(event)

            self._hold(read)
        elif isinstance(event, PortStatus):
            self.emit("port", t=event.t, port=event.port, up=event.up, detail=event.detail)
            self.game.port_status(event)

    def _gpio(self, edge: GpioEdge) -> None:
        _, body = self.journal.append_edge(edge.t + self._offset, edge.input, edge.level)
        if self.sink is not None:
            self.sink(body)
        if edge.input in WHEEL_INPUTS:
            # The game reads its sensors' edges itself (missed and chattering edges are
            # sensor faults it corrects and counts: controller.games.roulette.sensors).
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
