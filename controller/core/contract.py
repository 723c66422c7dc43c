"""What every game is to the rest of the controller, and what it gets from it.

A game is one package, ``controller/games/<game>/``, whose ``__init__`` defines ``SPEC``, a
:class:`GameSpec`; the registry (``controller.core.registry``) lists the packages. Nothing
outside a game's package names the game: the table, the config loader, the trace reader,
the control socket, recall and ``tablectl`` read what they need from its spec, which the
config resolves once (``Config.spec``) and hands down.

Every dealer input and bet goes through the game's check first (pokerkit's triad):
``verify_input`` / ``verify_bet`` raise :class:`~controller.core.errors.RuleViolation` with
the reason it is refused and change nothing; :func:`can` says yes or no; ``dealer_input`` /
``place_bet`` do it. The table journals a refusal through the game's ``refused`` and answers
the person who sent it with a :class:`Verdict`.

A game never writes the journal itself: it calls ``emit``, which checks the record against
its declared type (the game's ``records.py``, listed in ``GameSpec.records``), stages it in
the transaction of the input being handled and returns it with its ``seq``. Every record of
one input (or one timer: the game's ``schedule`` callbacks are inputs too) is committed
together before anything outside the controller thread sees it (project standards,
Durability).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from controller.core.errors import RuleViolation
from controller.core.events import BetPlaced, DealerInput, PortStatus, SerialData

if TYPE_CHECKING:
    from controller.core.config import Config
    from controller.core.logs import LineWords
    from controller.core.section import Section
    from controller.store.journal import Journal
    from controller.store.records import Record


class Emit(Protocol):
    """Journal ``record`` (a frozen record of a type the game declares,
    ``controller.store.records``) at ``t``, an event's own time on the controller's clock
    (default: now); return it whole, as journaled: a dict with ``type``, ``seq``, ``t`` and
    the fields."""

    def __call__(self, record: Record, /, *, t: float | None = None) -> dict[str, Any]: ...


class TimerHandle(Protocol):
    def cancel(self) -> None: ...


Schedule = Callable[[float, Callable[[], None]], TimerHandle]
"""``schedule(deadline_s, callback)``: run ``callback`` on the controller thread at that time
of the controller clock (seconds); the handle cancels it."""


@dataclass(frozen=True)
class Verdict:
    """The table's answer to a person's input or bet: accepted, or refused with the rule's
    ``code`` and the ``reason`` in words."""

    accepted: bool
    code: str = ""
    reason: str = ""

    @classmethod
    def refusal(cls, exc: RuleViolation) -> Verdict:
        return cls(False, exc.code, exc.message)

    def __str__(self) -> str:
        return "accepted" if self.accepted else f"refused: {self.reason}"


ACCEPTED = Verdict(True)


def can(verify: Callable[[Any], None], action: Any) -> bool:
    """Whether ``verify(action)`` lets it through (the "can" of verify, can, do)."""
    try:
        verify(action)
    except RuleViolation:
        return False
    return True


@dataclass(frozen=True)
class ArgSpec:
    """One argument of a dealer input: its ``name``, what it holds in words (``kind``: "box
    number", "card, e.g. 7H", ...), whether it is ``required``, and a line of help."""

    name: str
    kind: str
    required: bool = True
    help: str = ""


@dataclass(frozen=True)
class InputSpec:
    """A dealer or inspector input a game takes (CONTRACT §2 ``input``)."""

    action: str
    help: str
    args: tuple[ArgSpec, ...] = ()


TABLE_INPUTS: tuple[InputSpec, ...] = (
    InputSpec("dealer", "who deals from now on (a dealer record: tablectl stats per dealer)",
              (ArgSpec("name", "the dealer's name or badge, e.g. Ana"),)),
    InputSpec("player_late", "the rig's player drove its trace late: the run is no "
              "comparison (a player_late alarm; the rig's player sends it)",
              (ArgSpec("message", "how late it was, in words"),)),
)
"""The inputs every table takes, whatever its game; the table handles them itself."""


@dataclass(frozen=True)
class BetField:
    """A field a bet kind takes besides ``box`` and ``amount`` (CONTRACT §2 ``bet``): its
    ``name``, what it holds in words (``kind``), whether it is a list (``many``: given as
    several values), the type of each value (``int``, ``str`` or ``bool``, as the trace
    holds it) and the values it may take (``choices``; none: any of its type). The trace
    reader and the control socket check a bet's fields by these; ``tablectl bet`` offers
    one option per field of the table's bets. What a value means is the game's to check
    (a roulette's numbers on its layout)."""

    name: str
    kind: str
    many: bool = False
    type: type = str
    choices: tuple[str, ...] = ()


@dataclass(frozen=True)
class BetSpec:
    """A bet kind of a game's layout; ``fields`` are what it takes besides ``box`` and
    ``amount`` (a roulette's ``numbers`` or ``which``), as in CONTRACT §2."""

    kind: str
    help: str
    fields: tuple[BetField, ...] = ()


@dataclass(frozen=True)
class RecallSpec:
    """How recall and status find a game's games in the journal.

    ``start`` is the record type that starts one (``spin_start``) and ``number`` its field
    that numbers it (``spin``); ``results`` the record types that conclude it (a held spin is
    not a conclusion); ``summary`` a line of words for a result record, ``detail`` its
    evidence in words for recall; ``shown`` the record types ``status`` shows as the last
    game (a held spin among them); ``markers`` other record types that tell whose a journal
    is when no ``startup`` record names its game (a replay's journal).
    """

    start: str
    number: str
    results: tuple[str, ...]
    summary: Callable[[dict[str, Any]], str]
    detail: Callable[[dict[str, Any]], str] = lambda record: ""
    shown: tuple[str, ...] = ()  # what status shows as the last game (results by default)
    markers: tuple[str, ...] = ()  # other record types that tell a journal is this game's

    @property
    def last_game_types(self) -> tuple[str, ...]:
        return self.shown or self.results

    @property
    def none_yet(self) -> str:
        """What a table with no game yet says, in the game's word: "no coup yet"."""
        return f"no {self.number} yet"


@dataclass(frozen=True)
class GameStatus:
    """What ``tablectl status`` says of a table's game, read from its journal.

    ``state`` is the table's state in words; ``lines`` are (label, text) rows to print after
    the common ones; ``fields`` the same for ``--json`` (names of the game's own).
    """

    state: str
    lines: list[tuple[str, str]] = field(default_factory=list)
    fields: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class EvidenceWindow:
    """Where one game's raw inputs are in the journal, for ``tablectl export --evidence``:
    the inputs after record ``origin`` through record ``end`` (the game's verdict) make a
    trace a fresh table turns into the same verdict. ``limits`` are those in force for it
    (``{"min_bet", "max_bet"}``, chips), ``prelude`` trace inputs that put a fresh table
    where the journal's was at ``origin`` (e.g. ``{"input": "open_bets"}`` when bets had
    reopened by themselves), played first; ``meta`` the game's settings that were
    otherwise at ``origin`` (e.g. ``{"pool": {"opening_balance": 120}}``: Pot Luck's pool
    as it stood then), over the config's in the trace's meta; ``postlude`` trace inputs
    played after the window's last input (a decision taken later, after other games)."""

    origin: int
    end: int
    limits: dict[str, int] | None = None
    prelude: tuple[dict[str, Any], ...] = ()
    meta: dict[str, Any] = field(default_factory=dict)
    postlude: tuple[dict[str, Any], ...] = ()


@dataclass
class GameContext:
    """What the table gives a game it makes.

    ``config`` is the whole checked config (its own section is ``config.rules``); ``emit``
    journals a record; ``schedule`` sets a timer on the controller clock; ``now`` reads it
    (monotonic seconds).
    """

    config: Config
    emit: Emit
    schedule: Schedule
    now: Callable[[], float]


class Game(Protocol):
    """A game as the table drives it, on the controller thread only: what every game
    must do. What a game may do besides is a protocol of its own, asked with
    ``isinstance``: :class:`Checkpointing` (a restart from its last game boundary),
    :class:`Sensing` (its devices' state for ``tablectl sensors``), :class:`Doubting`
    (told when the timing of its inputs cannot be trusted).

    Every event has been journaled before it reaches the game. ``verify_*`` raise
    ``RuleViolation`` and change nothing; ``dealer_input`` and ``place_bet`` may still raise
    it, but only before changing anything. Unexpected events become alarm records.
    """

    def verify_input(self, inp: DealerInput) -> None: ...

    def verify_bet(self, bet: BetPlaced) -> None: ...

    def dealer_input(self, inp: DealerInput) -> None: ...

    def place_bet(self, bet: BetPlaced) -> None: ...

    def refused(self, event: DealerInput | BetPlaced, exc: RuleViolation) -> None:
        """Journal the refusal of ``event`` (an alarm or a ``*_refused`` record)."""

    def gpio(self, t: float, name: str, level: int) -> None:
        """The edge of GPIO input ``name`` to ``level`` (1 active) at ``t`` clock seconds,
        journaled already."""

    def serial(self, data: SerialData) -> None: ...

    def port_status(self, status: PortStatus) -> None: ...

    def recover_from(self, journal: Journal) -> None:
        """Resume after a restart from what the journal holds: its last checkpoint of this
        game and the records after it (``controller.store.resume.since_checkpoint``).

        Raises:
            UnreadableRecord: a record it must read cannot be read (the start stops).
        """

    def open_game(self) -> str | None:
        """The game still open (no verdict, or held), in words; None when none is."""

    def present(self, records: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The records one input caused, as the public may see them (a card still face down
        is masked); the journal keeps them whole."""

    @property
    def state(self) -> str: ...


@runtime_checkable
class Checkpointing(Protocol):
    """May: a game that says where a restart can go on from (every game here does). A game
    without it recovers from the journal's start."""

    def checkpoint(self) -> dict[str, Any] | None:
        """At a game boundary (a settled spin, a closed shoe), what a fresh table needs to
        go on from here (JSON: the game number, limits, a pool...; ``boundary`` in words),
        which ``recover_from`` reads back from the last ``checkpoint`` record; None when
        this is no boundary. Asked after an input, at most every few hundred records."""


@runtime_checkable
class Doubting(Protocol):
    """May: a game whose verdicts rest on when its inputs came (a wheel's sensor edges
    against its timeouts): told when that order cannot be trusted (CONTRACT §5)."""

    def timing_doubt(self, t: float, why: str) -> str | None:
        """An edge stamped ``t`` came after a timeout it precedes had fired
        (controller clock seconds); ``why`` in words. Returns what the game held for a
        person because of it, in words, or None when nothing rested on it."""


@runtime_checkable
class Sensing(Protocol):
    """May: a game whose devices report their state (a serial wheel's last status line, a
    shoe reader's port), for ``tablectl sensors``; a game without it shows none."""

    def sensors(self, now: float) -> dict[str, Any]:
        """What its devices last reported, with ages at ``now`` (controller clock,
        seconds); safe to call from the control socket's thread."""


class TableView(Protocol):
    """A game's screen (``table-display``), built from its records as the public may see
    them when committed: every record has been through
    :class:`controller.cards.masking.LiveMask`, so a face-down card is ``"??"`` here.

    Made as ``View(config, language, history)``: the checked config, ``"es"`` or ``"en"``
    (the words of :meth:`view`), and the games the statistics cover (``[display]
    history``). Memory stays bounded whatever the journal's length.
    """

    def feed(self, record: dict[str, Any]) -> None:
        """Take the next committed record (journal order)."""

    def view(self) -> dict[str, Any]:
        """The screen as JSON data: ``state`` (a code: ``closed``, ``bets_open``,
        ``no_more_bets``, ``in_play``, ``result``, ``held``), ``state_text`` (in words),
        ``limits`` (``{"min_bet", "max_bet"}`` or None), ``pending_limits`` (a change
        announced, with ``from`` in words, or None), ``held`` (games waiting for a person:
        ``game``, ``reason``, ``decide``: the inputs that decide it), ``result`` (the last
        result in words, or None), ``panels`` (what ``/`` draws, each ``{"kind", "title",
        ...}``: ``numbers``, ``stats``, ``hands``, ``grid``, ``lines``) and the game's own
        keys (``last_numbers``, ``roads``...)."""


@dataclass(frozen=True)
class GameSpec:
    """One game's entry in the registry: everything the shared modules need of it.

    Args:
        name: the table's name in configs and traces (``[table] game``, ``meta.table``).
        title: for people, e.g. "Roulette".
        seed: the regulation it implements, e.g. "001" (``../shared/seeds/001_*.txt``).
        config_section: the TOML table of its own settings, e.g. ``roulette``.
        load_config: ``(section, base)`` reads and checks that section (or a trace's
            ``meta`` keys over ``base``, the config already loaded) and returns the game's
            config object; errors name file, line and key (``section.error``).
        check_config: checks across sections once the whole config is read (a roulette
            needs its wheel inputs, a card table its shoe port); raise
            ``ConfigError`` through ``section.error_at``.
        check_daemon: checks that the daemon can run the table with this config (a GPIO
            wheel needs its inputs wired); raises ``ConfigError``.
        cards_config: ``(section, base)`` reads the card core's ``[cards]`` section
            (``controller.cards.count_out.load_cards_config``), for a card game whose shoe
            closes at a cut card; None: a config with ``[cards]`` is refused.
        bets: the bet kinds of its layout.
        inputs: the dealer and inspector inputs it takes.
        gpio_inputs: the GPIO inputs it reads itself, raw (the dealer buttons
            ``open_bets`` and ``no_more_bets`` are every game's).
        gpio_of: the GPIO inputs of ``gpio_inputs`` a table with this config reads, when
            that depends on the config (a roulette wheel over serial reads none); None:
            all of them.
        serial_ports: the serial ports it may read (e.g. ``shoe``): the names its traces
            may give, and the only ``[serial.<port>]`` its config may have.
        port_devices: the device each port reads (a key of
            ``controller.protocols.DEVICES``), for a port not named after its device; a
            port's codec must read that device's lines (the config loader checks it).
        ports_of: the serial ports a table with this config reads, when that depends on
            the config (a roulette wheel on GPIO reads none, one over serial ``wheel``);
            None: all of ``serial_ports``.
        make: builds the game for a table.
        recall: how its games are found in the journal.
        status: what ``tablectl status`` says of the table, from its journal.
        simulate: ``"module:function"`` that writes a simulated trace
            (``table-controller simulate``) and returns its summary's words, ``(outcomes,
            alarms)`` (``controller/games/README.md``).
        simulate_options: the options of ``table-controller simulate`` that ``simulate``
            reads: the one that counts its games (``--spins`` or ``--coups``), and any of
            ``--scenario``, ``--wheel``; ``simulate`` refuses the others.
        daemon_simulator: ``"module:function"`` that plays simulated hardware into the
            daemon (the embedded default): ``sim.daemon.DaemonSimulator``, ``(config,
            start, resume, table_state)`` yielding batches of events; ``table_state()`` is
            the table's newest state when the next batch is asked for.
        analyze: ``"module:function"`` of ``tablectl analyze`` (exact figures), or "".
        stats: ``"module:attribute"`` of its surveillance statistics, a
            :class:`controller.core.stats.StatsHook` (``tablectl stats``, the pit page), or
            "" (the command says the table has none).
        calibrate: ``"module:function"`` of ``tablectl calibrate`` (commissioning the
            sensors: ``(journal, config, options, as_json, parents) -> exit code``;
            ``parents``: tablectl's own options, for the help), or "".
        log: its records a person at the table wants in the log at once (info level),
            each with the fields to show (None: all); the rest go at debug level.
        log_words: its records' console lines: record type -> the record in words, one
            short line (``coup 12: dealer 20; win boxes 1, 4; lose box 2``), alone or with
            the fields it says (``controller.core.logs.LineWords``); a shared record's
            here are said so at its table (roulette's settlement names its numbers); a
            record without any is shown field by field.
        bet_record: the record type that journals an accepted bet, with every field of
            the bet input (a refused bet is the ``alarm`` with its ``bet``): each bet is
            in the journal once, and the daemon's simulator counts them on a restart.
        records: the record types the game journals and the fields it adds to shared
            ones: classes made with ``@record`` / ``@extends`` in its ``records.py``
            (:mod:`controller.store.records`). A record of a type not listed here, or
            with a field its type does not declare, is refused with ``RecordError``.
        evidence_window: ``(journal, game number)`` -> the :class:`EvidenceWindow` of that
            game (None when the journal has no such game): ``tablectl export --evidence``.
        trace_meta: the game's config object -> its settings as a trace's ``meta`` keys,
            which ``load_config`` reads back (the exported trace's); None: the fields of
            its config dataclass as they are.
        serial_evidence: its ports' lines are evidence, held for the next commit
            (:mod:`controller.core.held`), never committed on their own.
        note_alarms: the codes of its alarms that are notes on raw evidence (a sensor's
            edge corrected), held the same way: nothing acts on them.
        display: ``"module:Class"`` of its screen, a :class:`TableView` (``table-display``;
            the game's ``display.py``), or "".
        present_game: one game's records read back from the journal (its prelude and
            itself, in journal order) -> as the public may see them now, for recall and
            export (a card table's: ``controller.cards.masking.present_game``, a card
            still face down masked); by default they are shown as they are.
    """

    name: str
    title: str
    seed: str
    config_section: str
    load_config: Callable[[Section, Any], Any]
    bets: tuple[BetSpec, ...]
    inputs: tuple[InputSpec, ...]
    make: Callable[[GameContext], Game]
    recall: RecallSpec
    status: Callable[[Journal], GameStatus]
    check_config: Callable[[Config, Section], None] | None = None
    check_daemon: Callable[[Config], None] | None = None
    cards_config: Callable[[Section, Any], Any] | None = None
    gpio_inputs: tuple[str, ...] = ()
    gpio_of: Callable[[Config], tuple[str, ...]] | None = None
    serial_ports: tuple[str, ...] = ()
    ports_of: Callable[[Config], tuple[str, ...]] | None = None
    port_devices: dict[str, str] = field(default_factory=dict)
    serial_evidence: bool = False  # its ports' lines are evidence, batched (issue 20)
    note_alarms: frozenset[str] = frozenset()  # alarm codes held for the next commit
    simulate: str = ""
    simulate_options: tuple[str, ...] = ("--coups",)
    daemon_simulator: str = ""
    analyze: str = ""
    stats: str = ""
    calibrate: str = ""
    log: dict[str, tuple[str, ...] | None] = field(default_factory=dict)
    log_words: dict[str, LineWords] = field(default_factory=dict)
    bet_record: str = ""
    records: tuple[type, ...] = ()
    evidence_window: Callable[[Journal, int], EvidenceWindow | None] | None = None
    trace_meta: Callable[[Any], dict[str, Any]] | None = None
    display: str = ""
    present_game: Callable[[Sequence[dict[str, Any]]], list[dict[str, Any]]] = list

    def ports(self, config: Config) -> tuple[str, ...]:
        """The serial ports the table of ``config`` reads."""
        return self.ports_of(config) if self.ports_of is not None else self.serial_ports

    def gpio(self, config: Config) -> tuple[str, ...]:
        """The GPIO inputs of its own (``gpio_inputs``) the table of ``config`` reads."""
        return self.gpio_of(config) if self.gpio_of is not None else self.gpio_inputs

    def device(self, port: str) -> str:
        """The device whose lines ``port`` reads: ``port_devices``, else the port's name
        (``shoe``, ``wheel``)."""
        return self.port_devices.get(port, port)

    @property
    def bet_kinds(self) -> tuple[str, ...]:
        return tuple(b.kind for b in self.bets)

    @property
    def bet_fields(self) -> tuple[BetField, ...]:
        """Every field its bet kinds take besides ``box`` and ``amount``, each once."""
        return tuple({f.name: f for b in self.bets for f in b.fields}.values())

    @property
    def all_inputs(self) -> tuple[InputSpec, ...]:
        """Its game's inputs and those every table takes (``TABLE_INPUTS``)."""
        return (*self.inputs, *TABLE_INPUTS)

    @property
    def input_actions(self) -> tuple[str, ...]:
        return tuple(i.action for i in self.all_inputs)

    def verify_arguments(self, inp: DealerInput) -> None:
        """Refuse an argument of ``inp`` that its ``InputSpec`` does not name, or one it
        requires that is missing (or null): an input that says more than the game reads is
        ambiguous, never half taken, and one that says less cannot be done. An action the
        game does not take is left to the game's own refusal.

        Raises:
            RuleViolation: ``unknown_argument``, naming the argument and what the input
                takes; ``missing_argument``, naming the argument and what it holds.
        """
        spec = next((i for i in self.all_inputs if i.action == inp.action), None)
        if spec is None:
            return
        names = [a.name for a in spec.args]
        unknown = [name for name in inp.args if name not in names]
        if unknown:
            takes = ", ".join(names) or "none"
            raise RuleViolation("unknown_argument", f"unknown argument {unknown[0]!r} "
                                f"({inp.action} takes {takes})")
        missing = [a for a in spec.args if a.required and inp.args.get(a.name) is None]
        if missing:
            needs = " and ".join(f"{a.name}=" for a in missing)
            kinds = missing[0].kind if len(missing) == 1 else "; ".join(
                f"{a.name}: {a.kind}" for a in missing)
            raise RuleViolation("missing_argument", f"{inp.action} needs {needs} ({kinds})")
