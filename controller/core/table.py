"""The table: the one object the controller thread hands every event to.

One transaction per input: every event (a GPIO edge, shoe bytes, a dealer input, a bet) and
every timer the game or the table set (a timer is an input too) is handled inside one
journal transaction. Each record it causes goes through :meth:`Table.emit`, which builds and
checks the typed record (``controller.store.records``) and stages it; at the end of the
input they are committed together, with one fsync, and only then shown (the sink, the
log: :mod:`controller.core.shown`) and answered (the control socket). After a power cut an
input is in the journal with all its consequences or not at all.

Serial bytes are held until their line ends (:mod:`controller.core.serial_lines`): a line
is one input, journaled as one ``serial`` record, never a byte. Records nothing acts on yet
(a wheel's status lines, a game's note alarms) are held for the next commit
(:mod:`controller.core.held`): journaled before the next record, in its commit.

Raw GPIO edges are evidence, not decisions: they go into the open evidence batch, written
with the record that closes it (a spin's start or conclusion; between spins an ``evidence``
record at most ``EVIDENCE_MAX_S`` after its first edge, or at ``EVIDENCE_MAX_EDGES``; a
batch older than ``EVIDENCE_JOIN_S`` goes into any commit made before then). The
table keeps the level of every GPIO input the game does not read itself (the dealer's
buttons) to catch edges nobody expects. At the end of an input at a game boundary the game
gives its ``checkpoint`` (what a fresh table needs to go on), journaled at most every
``CHECKPOINT_EVERY`` records: a restart verifies and recovers from the last one.

A person's input or bet goes through the game's check first; the table journals a refusal
and returns the :class:`Verdict`, which the control socket sends back to whoever asked.

If a commit fails (disk full, read-only), nothing of the input is journaled, shown or
answered, and the game's memory is ahead of the journal: the table calls
``on_commit_failure(error, event)``. The default re-raises the
:class:`~controller.core.errors.JournalWriteError`: the daemon stops (exit 4) and, once
restarted, recovers from what the journal holds. A policy that keeps the daemon up (issue
11) replaces it; it must not let the game go on from its memory (:meth:`Table.rebuild`
puts it back to the journal's state).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from controller.core.config import Config
from controller.core.contract import ACCEPTED, Checkpointing, Doubting, GameContext, Verdict
from controller.core.errors import JournalWriteError, RuleViolation
from controller.core.events import BetPlaced, DealerInput, Event, GpioEdge, PortStatus, SerialData
from controller.core.held import HELD_MAX_S, HeldRecords
from controller.core.serial_lines import LineHold
from controller.core.shown import Shown
from controller.core.table_inputs import TABLE_INPUT_ACTIONS, table_input, verify_table_input
from controller.store.journal import Journal
from controller.store.records import Record, build, schema, unpack
from controller.store.seal import Sealer
from controller.store.shared import (
    Alarm,
    Checkpoint,
    Evidence,
    Input,
    Port,
    Serial,
    Shutdown,
)

CLOCK_STEP_TOLERANCE_S = 0.5  # wall minus monotonic drifts by ms (NTP slews); steps are seconds
EVIDENCE_MAX_S = 120.0  # an evidence batch is closed at most this long after its first edge
EVIDENCE_JOIN_S = 60.0  # ... and in the next commit made for another record once this old
EVIDENCE_MAX_EDGES = 4096  # ... or at this many edges
CHECKPOINT_EVERY = 500  # records between two checkpoints, at least

T = TypeVar("T")
CommitFailure = Callable[[JournalWriteError, "Event | None"], "Verdict | None"]


def stop_on_commit_failure(exc: JournalWriteError, event: Event | None) -> Verdict | None:
    """The default ``on_commit_failure``: re-raise (the daemon stops, exit 4)."""
    raise exc


class Table:
    """Routes events to the configured game and journals everything, one input at a time.

    Args:
        config: the checked config.
        journal: where records go (the daemon's is durable).
        schedule: the loop's timer (``call_at(deadline, callback, background=False)``).
        now: the controller clock's ``now`` (monotonic seconds: every interval, every event's
            ``t``).
        sink: called with the JSON body of every record once committed (``replay`` prints).
        wall: the wall clock (seconds since the epoch) that stamps records; ``now`` when
            omitted (trace time in replay and tests). A step of it is a ``clock_step`` alarm.
    """

    def __init__(self, config: Config, journal: Journal, schedule: Callable[..., Any],
                 now: Callable[[], float], sink: Callable[[str], None] | None = None,
                 wall: Callable[[], float] | None = None) -> None:
        self.config = config
        self.spec = config.spec
        self.schema = schema(config.spec)
        self.journal = journal
        self.now = now
        self.wall = wall or now
        self._wall_clock = wall is not None  # else stamps are ``now``: no step to watch
        self._offset = self.wall() - now()
        self.shown = Shown(config, sink)
        self.show_edges = False  # replay --evidence: each batch's edges on the sink
        self.on_commit_failure: CommitFailure = stop_on_commit_failure
        self.checkpoint_every = CHECKPOINT_EVERY
        self._bodies: dict[int, str] = {}  # the JSON body of each record of the input
        self._raw_inputs = frozenset(self.spec.gpio_inputs)
        self._schedule = schedule
        self.levels: dict[str, int] = {}
        self._txn: list[dict[str, Any]] | None = None  # the records of the input in hand
        self._evidence_timer: Any = None
        self._lines = LineHold()  # serial bytes until their line ends
        self._evidence_ports = self.spec.serial_evidence
        self._notes = self.spec.note_alarms
        self._held = HeldRecords()  # lines and notes for the next commit
        self._held_timer: Any = None
        self._person_input = False  # a bet or a dealer's input: held lines lead not to it
        self.sealer: Sealer | None = None
        self._seal_timer: Any = None
        last = journal.last_checkpoint()
        self._checkpoint_seq = last["seq"] if last else 0
        # Called with each record as shown (its public view), on the controller thread.
        self.observers = self.shown.observers
        self.game: Any = self._make_game()

    def _make_game(self) -> Any:
        return self.spec.make(GameContext(self.config, self.emit, self.schedule_input,
                                          self.now))

    # -- journaling --------------------------------------------------------------------
    def emit(self, record: Record, /, *, t: float | None = None) -> dict[str, Any]:
        """Check ``record`` against the table's schema and stage it in the input's
        transaction (or commit it at once outside one), at ``t`` (an event's own time on
        the monotonic clock; default: now); return it whole (with its ``seq``).

        Raises:
            RecordError: a type not declared for this table, a wrong value (a bug: the
                input is not journaled).
        """
        type_, fields = unpack(record, t)
        return self._journal(type_, fields)

    def _journal(self, type_: str, fields: dict[str, Any]) -> dict[str, Any]:
        spec = build(self.schema, type_, fields)
        if self._txn is None:
            return self.as_input(lambda: self._journal(type_, fields))
        if "t" in fields:  # an event's own time, on the monotonic clock
            fields["t"] = fields["t"] + self._offset
        if type_ == "alarm" and fields["code"] in self._notes:
            # Nothing acts on a note: it waits for the next commit (controller.core.held).
            self._hold(self._held.note(fields.pop("t", self.wall()), type_, fields))
            return fields
        if self._held.any:  # the notes (and lines) that led to it go first, in its commit
            self._journal_held(lines=not self._person_input)
        return self._stage(type_, self.wall(), fields, spec.closes_evidence)

    def _stage(self, type_: str, t: float, fields: dict[str, Any],
               closes_evidence: bool) -> dict[str, Any]:
        assert self._txn is not None
        journal = self.journal
        if not journal.in_transaction:
            journal.begin()  # at the input's first record: an input without any costs nothing
        record, body = journal.append(type_, t, fields, closes_evidence)
        self._txn.append(record)
        self._bodies[id(record)] = body
        return record

    def as_input(self, act: Callable[..., T], *args: Any) -> T:
        """Run ``act`` as one input: one transaction, committed, then shown. Inside an
        input already, it joins it.

        Raises:
            JournalWriteError: the commit failed; nothing was shown.
        """
        if self._txn is not None:
            return act(*args)
        journal = self.journal
        held: list[dict[str, Any]] = []
        self._txn = held
        try:
            result = act(*args)
            if journal.in_transaction:
                self._end_of_input()
                journal.commit()
        except BaseException:
            if journal.in_transaction:
                journal.rollback()
            raise
        finally:
            self._txn = None
            self._person_input = False
        if held:
            self._present(held)
            self._bodies.clear()
        return result

    def _end_of_input(self) -> None:
        """An input that journaled records may have reached a game boundary. What is held
        and an evidence batch half its time old go into its commit (no fsync of their
        own)."""
        if self._held.any:  # notes held since its first record: in its commit
            self._journal_held(lines=False)
        since = self.journal.open_since
        if since is not None and self.wall() - since >= EVIDENCE_JOIN_S:
            self.emit(Evidence(reason="interval"))
        if self.journal.last_seq - self._checkpoint_seq >= self.checkpoint_every:
            # A game that gives no checkpoint recovers from the journal's start.
            game = self.game
            state = game.checkpoint() if isinstance(game, Checkpointing) else None
            if state is not None:
                self._checkpoint(state)

    def _checkpoint(self, state: dict[str, Any]) -> None:
        record = self.emit(Checkpoint(game=self.config.game, boundary=state.pop(
            "boundary", "between games"), state=state, previous=self._checkpoint_seq))
        self._checkpoint_seq = record["seq"]

    def schedule_input(self, deadline: float, callback: Callable[[], None],
                       background: bool = False) -> Any:
        """The games' ``schedule``: ``callback`` runs at ``deadline`` (clock seconds) as
        one input of its own (its records committed together, then shown)."""
        return self._schedule(deadline, lambda: self._timer(callback), background)

    def timing_doubt(self, t: float, why: str) -> None:
        """The loop cannot trust the order of inputs and timeouts at ``t`` (an edge
        that came after a timeout it precedes: ``EventLoop.on_doubt``): the game holds
        what rests on it, journaled as a ``timing_doubt`` alarm, as one input."""
        game = self.game
        if not isinstance(game, Doubting):
            return

        def doubt() -> None:
            held = game.timing_doubt(t, why)
            if held is not None:
                self.emit(Alarm(code="timing_doubt", message=f"{why}: {held}"))

        try:
            self.as_input(doubt)
        except JournalWriteError as exc:
            self.on_commit_failure(exc, None)

    def _timer(self, callback: Callable[[], None]) -> None:
        try:
            self.as_input(callback)
        except JournalWriteError as exc:
            self.on_commit_failure(exc, None)

    def _present(self, records: list[dict[str, Any]]) -> None:
        if self.show_edges and self.shown.sink is not None:
            records = self._with_edges(records)
        self.shown.show(self.game.present(records), self._bodies)

    def _with_edges(self, records: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """``replay --evidence``: before each record that closed a batch, its edges, each
        ``{"type": "gpio", "batch", "t", "input", "level"}`` (no ``seq``: not a record)."""
        out: list[dict[str, Any]] = []
        for rec in records:
            ref = rec.get("evidence")
            batch = self.journal.recent.get(ref["batch"]) if isinstance(ref, dict) else None
            if batch is not None:
                out += [{"type": "gpio", "batch": batch.batch, "t": round(t, 6),
                         "input": name, "level": level}
                        for t, name, level in batch.decode()]
            out.append(rec)
        return out

    # -- start and stop ----------------------------------------------------------------
    def recover(self) -> None:
        """Resume from the journal after a restart, from its last checkpoint (void or
        resume what was interrupted), as one input.

        Raises:
            UnreadableRecord: a record recovery cannot read (the start stops, exit 3).
        """
        self.as_input(lambda: self.game.recover_from(self.journal))

    def rebuild(self) -> None:
        """Put the game back to what the journal holds (after a failed commit left its
        memory ahead of the journal): a fresh game, recovered from the journal.

        Raises:
            JournalWriteError: the recovery's records cannot be journaled either.
        """
        self.game = self._make_game()
        self.recover()

    def start_sealing(self, sealer: Sealer) -> None:
        """Seal the journal now and every ``sealer.interval_s`` seconds (after a crash
        between a seal's commit and the key's evolution, the key catches up first)."""
        self.sealer = sealer
        last = self.journal.last_of("seal")
        if last is not None and isinstance(last.get("epoch"), int):
            sealer.advance(last["epoch"])
        self.seal()

    def seal(self) -> None:
        """A ``seal`` record of the journal up to its head, as one input; then the key
        evolves and the next seal is due ``interval_s`` later.

        Raises:
            JournalWriteError: the seal could not be journaled (the key did not evolve).
        """
        sealer = self.sealer
        if sealer is None:
            return
        journal = self.journal
        self.as_input(lambda: self.emit(sealer.seal(journal.last_seq, journal.last_hash,
                                                    self.wall())))
        sealer.advance()
        if self._seal_timer is not None:
            self._seal_timer.cancel()
        self._seal_timer = self._schedule(self.now() + sealer.interval_s, self._seal_due,
                                          True)

    def _seal_due(self) -> None:
        self._seal_timer = None
        try:
            self.seal()
        except JournalWriteError as exc:
            self.on_commit_failure(exc, None)

    def end_of_input(self, why: str) -> None:
        """No more input will come (a replay's trace ended and time ran on until no verdict
        was pending): the open evidence batch is journaled, and an ``alarm`` names the game
        still open, if any."""

        def end() -> None:
            self._close_evidence()
            game = self.game.open_game()
            if game is not None:
                self.emit(Alarm(code="game_open", message=f"{why} with {game}"))

        self.as_input(end)

    def shutdown(self, reason: str, error: bool = False) -> None:
        """The daemon stops in order: the open evidence batch and a ``shutdown`` record;
        ``error``: it stops on an error (a component that could not start, a bug), so the
        record is logged at error level (``journalctl -p err`` shows it), else at info."""
        self.shown.stop_level = "error" if error else "info"

        def stop() -> None:
            self._close_evidence()
            self.emit(Shutdown(reason=reason))

        self.as_input(stop)

    def _close_evidence(self) -> None:
        for port in self._lines.ports():  # a line under way is journaled, not dropped
            self._drain_line(port, self.now())
        if self._held.any:
            self._journal_held()
        if self.journal.open_edges:
            self.emit(Evidence(reason="stop"))

    def _check_clock(self) -> None:
        """Journal a step of the wall clock (NTP at boot, a manual ``date``): record stamps
        jump with it, intervals (measured on the monotonic clock) do not."""
        offset = self.wall() - self.now()
        step = offset - self._offset
        if abs(step) > CLOCK_STEP_TOLERANCE_S:
            self._offset = offset
            self.emit(Alarm(code="clock_step",
                            message=f"the wall clock stepped {step:+.3f} s; intervals and "
                            "verdicts use the monotonic clock and are not affected"))

    # -- events ------------------------------------------------------------------------
    def handle(self, event: Event) -> Verdict | None:
        """Act on one event (on the controller thread only), as one input.

        Returns the verdict on a person's input or bet (accepted, or refused with the
        rule's reason), None for what the hardware sent; after a failed commit, what
        ``on_commit_failure`` returns (by default it raises).
        """
        if type(event) is GpioEdge:
            return self.edge(event.t, event.input, event.level)
        try:
            return self.as_input(self._route, event)
        except JournalWriteError as exc:
            return self.on_commit_failure(exc, event)

    def edge(self, t: float, name: str, level: int) -> Verdict | None:
        """Act on the edge of GPIO input ``name`` to ``level`` (1 active) at ``t`` clock
        seconds, as one input: :meth:`handle` for a :class:`GpioEdge`, without the object
        (a replay hands its trace's edges here, some 100 a spin).

        As :meth:`as_input`, inlined around it (in an input already, it joins it). After a
        failed commit, ``on_commit_failure`` decides (by default it raises)."""
        own, journal = self._txn is None, self.journal
        held: list[dict[str, Any]] = []
        if own:
            self._txn = held
        try:
            try:
                if self._wall_clock:
                    self._check_clock()
                edges = journal.edge(t + self._offset, name, level)
                if edges == 1 and self._evidence_timer is None:
                    self._arm_evidence(t + EVIDENCE_MAX_S)
                if name in self._raw_inputs:
                    # The game reads its sensors' edges itself (missed and chattering
                    # edges are sensor faults it corrects and counts).
                    self.game.gpio(t, name, level)
                else:
                    self._button(GpioEdge(t, name, level))
                # Only an edge fills the batch: a full one closes with this input
                # (unless the game's record closed it).
                if edges >= EVIDENCE_MAX_EDGES and journal.open_edges >= EVIDENCE_MAX_EDGES:
                    self.emit(Evidence(reason="size"))
                if own and journal.in_transaction:
                    self._end_of_input()
                    journal.commit()
            except BaseException:
                if own and journal.in_transaction:
                    journal.rollback()
                raise
            finally:
                if own:
                    self._txn = None
                    self._person_input = False
            if held:
                self._present(held)
                self._bodies.clear()
        except JournalWriteError as exc:
            return self.on_commit_failure(exc, GpioEdge(t, name, level))
        return None

    def _route(self, event: Event) -> Verdict | None:
        if self._wall_clock:
            self._check_clock()
        game = self.game
        if isinstance(event, BetPlaced):
            self._person_input = True
            return self._person(event, game.verify_bet, game.place_bet)
        elif isinstance(event, DealerInput):
            self._person_input = True
            self.emit(Input(action=event.action, args=event.args), t=event.t)
            if event.action in TABLE_INPUT_ACTIONS:  # every table's, not the game's
                return self._person(event, verify_table_input,
                                    lambda inp: table_input(inp, self.emit))
            return self._person(event, game.verify_input, game.dealer_input)
        elif isinstance(event, SerialData):
            for first, line in self._lines.feed(event.port, event.t, event.data):
                self._serial(SerialData(first, event.port, line))
        elif isinstance(event, PortStatus):
            self._drain_line(event.port, event.t)  # the codec sees the line it cuts
            self.emit(Port(port=event.port, up=event.up, detail=event.detail), t=event.t)
            game.port_status(event)
        return None

    def _serial(self, data: SerialData) -> None:
        """One line of a port (or what a port held when it went down): one record, or
        (a game whose lines are evidence) one line of the batch the next record takes."""
        text = data.data.decode("latin-1")
        if self._evidence_ports:
            self._hold(self._held.line(data.t + self._offset, data.port, text))
        else:
            self.emit(Serial(port=data.port, text=text), t=data.t)
        self.game.serial(data)

    def _hold(self, first: bool) -> None:
        """Something was held; the first of a batch sets the timer that journals them."""
        if first and self._held_timer is None:
            self._held_timer = self.schedule_input(self.now() + HELD_MAX_S, self._held_due,
                                                   background=True)

    def _held_due(self) -> None:
        self._held_timer = None
        if self._held.any:
            self._journal_held()

    def _journal_held(self, lines: bool = True) -> None:
        """The notes and (``lines``) lines held (:mod:`controller.core.held`), staged in
        order."""
        for t, type_, fields in self._held.take(lines):
            spec = build(self.schema, type_, fields)
            self._stage(type_, t, fields, spec.closes_evidence)

    def held(self) -> tuple[int, int]:
        """The lines and notes held for the next commit (:mod:`controller.core.held`):
        what a kill now would lose, and nothing a record rests on."""
        return self._held.counts()

    def lines_under_way(self) -> list[str]:
        """The serial ports whose line under way is held, not yet journaled (any thread)."""
        return self._lines.ports()

    def _drain_line(self, port: str, t: float) -> None:
        held = self._lines.drain(port, t)
        if held is not None:
            self._serial(SerialData(held[0], port, held[1]))

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

    def _button(self, edge: GpioEdge) -> None:
        """An edge of an input the game does not read raw (a dealer's button): a level
        already held is journaled as unexpected and ignored."""
        previous = self.levels.get(edge.input, 0)
        self.levels[edge.input] = edge.level
        if previous == edge.level:
            self.emit(Alarm(code="unexpected_edge",
                            message=f"{edge.input} went to level {edge.level} at "
                            f"{edge.t:.6f} s but was already at {edge.level}: ignored"))
            return
        self.game.gpio(edge.t, edge.input, edge.level)

    def _arm_evidence(self, deadline: float) -> None:
        self._evidence_timer = self.schedule_input(deadline, self._evidence_due,
                                                   background=True)

    def _evidence_due(self) -> None:
        """The open batch's time is up: close it, unless a decision closed it already (a
        newer batch is then due later)."""
        self._evidence_timer = None
        since = self.journal.open_since
        if since is None:
            return
        due = since - self._offset + EVIDENCE_MAX_S
        if due <= self.now() + 1e-6:
            self.emit(Evidence(reason="interval"))
        else:
            self._arm_evidence(due)
