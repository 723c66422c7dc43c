"""The table's configuration: TOML, every value checked, every key known.

Strict on purpose (ANCHORS.md, Klipper): an unknown key, a pin used twice, an angle or a
threshold out of range is an error at start that names the file, the line and the key, not
a surprise at 3 a.m. Defaults are the seed's where a seed gives one (seed 001 Art. 12).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field, replace
from typing import Any

from controller.core.contract import GameSpec
from controller.core.errors import ConfigError
from controller.core.section import (
    Loader,
    Section,
    parse_toml,
    read_config_text,
    socket_path_problem,
)
from controller.core.specs import Games

# The dealer's buttons, every game's (CONTRACT §1); a game names the other inputs it reads.
BUTTON_INPUTS = ("open_bets", "no_more_bets")
DEFAULT_CONFIG = "embedded:default.toml"
# Table limits, in chips, in the config and in a dealer's ``set_limits`` (seed 001 Art. 16).
MAX_LIMIT = 10**9
# The longest path a Unix socket may have: sun_path is 108 bytes with its final NUL.
MAX_SOCKET_PATH = 107


@dataclass(frozen=True)
class InputPin:
    """One GPIO input (CONTRACT §1): BCM pin, pull, active level, debounce in seconds."""

    name: str
    pin: int
    pull: str  # "up", "down" or "none"
    active: str  # "high" or "low"
    debounce_s: float


@dataclass(frozen=True)
class SerialConfig:
    """A serial port by URL (pyserial: /dev/..., socket://host:port, loop://), 8N1."""

    name: str
    url: str
    baudrate: int = 9600
    codec: str = "reference"


@dataclass(frozen=True)
class SimulatorConfig:
    """The embedded stand-in for the hardware: simulated spins or a simulated shoe."""

    enabled: bool = False
    seed: int = 1
    spins: int = 0  # 0: run until stopped
    speed: float = 1.0
    invalid_rate: float = 0.0  # share of simulated spins thrown invalid (Art. 12 cases)


@dataclass(frozen=True)
class Limits:
    """Table limits in chips (seed 001 Art. 16)."""

    min_bet: int = 1
    max_bet: int = 1000


@dataclass(frozen=True)
class Config:
    """The whole configuration. ``source`` is the file it came from (for messages),
    ``spec`` the table's game, ``games`` the registered games it was read against (handed
    down by the composition root: a trace's ``meta.table`` or a journal of another game
    goes to its spec through them, :func:`apply_overrides`)."""

    source: str
    spec: GameSpec = field(kw_only=True, compare=False, repr=False)
    games: Games = field(kw_only=True, compare=False, repr=False)
    table_name: str = "table"
    journal_path: str = "var/journal.sqlite"
    seal_key: str = ""  # the sealing key file; "": the journal's path + ".sealkey"
    seal_interval_s: float = 300.0
    log_level: str = "info"
    log_format: str = "auto"  # auto: JSON lines when stderr is journald, else console
    pin_factory: str | None = None
    inputs: dict[str, InputPin] = field(default_factory=dict)
    rules: Any = None  # the game's own section, read by its package (GameSpec.load_config)
    cards: Any = None  # [cards], read by the card core (GameSpec.cards_config), or None
    serial: dict[str, SerialConfig] = field(default_factory=dict)
    limits: Limits = field(default_factory=Limits)
    simulator: SimulatorConfig = field(default_factory=SimulatorConfig)
    control_socket: str = "var/control.sock"
    control_group: str | None = None

    @property
    def game(self) -> str:
        """The table's game by name (``[table] game``, ``meta.table``): ``spec.name``."""
        return self.spec.name


def read_config(games: Games, path: str = DEFAULT_CONFIG,
                overrides: dict[str, Any] | None = None) -> Config:
    """Read and check a config file (or the embedded default) against ``games`` (the
    registered games, handed down by the composition root: ``controller.cli.compose``).

    ``overrides`` are a trace's ``meta`` keys (CONTRACT §2), applied to the game's section
    (e.g. ``wheel``, ``decks``) and checked like the file's own values.

    Raises:
        ConfigError: unreadable file, TOML syntax error, unknown key, wrong type, value out
            of range, a pin used twice; the message names the file, line and key.
    """
    source, text = read_config_text(path)
    data = parse_toml(source, text)
    config = parse(Loader(source, text), data, games)
    if overrides:
        config = apply_overrides(config, overrides, source)
    return config


def check_for_daemon(config: Config) -> None:
    """The checks the daemon adds to :func:`read_config` before it runs the table (the
    game's ``check_daemon``: a GPIO wheel's inputs all wired, a Pot Luck pool's hands): a
    replay needs none of them, the daemon all. ``tablectl config check`` and the install
    run them too, so a config they pass does not stop the daemon.

    Raises:
        ConfigError: the first that fails, naming the file and key.
    """
    spec = config.spec
    if spec.check_daemon is not None:
        spec.check_daemon(config)


def parse(loader: Loader, data: dict[str, Any], games: Games) -> Config:
    """The config of a parsed file (``data``), its values read through ``loader``'s
    sections: the table's game first (``[table] game``, one of ``games``), which says what
    else the file may hold, then each section in turn.

    Raises:
        ConfigError: the first error (or, while ``tablectl config check`` collects them,
            one that stops the reading: a pin used twice, a section of another game).
    """
    root = loader.section("", data)
    # [display] and [feed] are the table-display and table-feed processes' own
    # (display/config.py, feed/config.py check them): the controller reads none of them.
    root.read.update(("display", "feed"))
    table = root.section("table")
    spec = games.spec(table.choice("game", games.default_name, games.names))
    table_name = table.get("name", str, "table")
    journal_path, seal_key, seal_interval_s = _journal(root.section("journal"))
    log = root.section("log")
    log_level = log.choice("level", "info", ("debug", "info", "warning", "error"))
    log_format = log.choice("format", "auto", ("auto", "console", "json"))
    gpio = root.section("gpio")
    pin_factory = gpio.choice("pin_factory", None, ("mock", "lgpio", "rpigpio", "pigpio", "native"))
    inputs = _inputs(gpio.section("inputs"), spec)
    rules, cards = _game_sections(root, spec)
    serial = _serial(root.section("serial"))
    control = root.section("control")
    control_socket = control.get("socket", str, "var/control.sock")
    problem = socket_path_problem(control_socket)
    if problem:
        raise control.error("socket", problem)
    control_group = control.get("group", str, None)
    limits = _limits(root.section("limits"))
    simulator = _simulator(root.section("simulator"))
    _refuse_other_games(root, spec, games)
    for sec in loader.sections:
        sec.finish()
    config = Config(
        source=loader.source, spec=spec, games=games, table_name=table_name,
        journal_path=journal_path, seal_key=seal_key, seal_interval_s=seal_interval_s,
        log_level=log_level, log_format=log_format, pin_factory=pin_factory, inputs=inputs,
        rules=rules, cards=cards, serial=serial, limits=limits, simulator=simulator,
        control_socket=control_socket, control_group=control_group,
    )
    if spec.check_config is not None:
        spec.check_config(config, root)
    check_ports(config, root)
    return config


def _journal(journal: Section) -> tuple[str, str, float]:
    """``[journal]``: its path, the sealing key file ("": beside it), the seal interval."""
    path = journal.get("path", str, "var/journal.sqlite")
    if not path.strip():
        raise journal.error("path", "empty: give the journal's file (e.g. "
                            "/var/lib/table-controller/journal.sqlite)")
    return (path, journal.get("seal_key", str, ""),
            journal.number("seal_interval_s", 300.0, 1.0, 86400.0))


def _inputs(inputs: Section, spec: GameSpec) -> dict[str, InputPin]:
    """``[gpio.inputs.<name>]``: the wiring of the game's own inputs and the dealer's
    buttons. Each field is read whatever another's error, a pin given wrong is not taken
    for another's, and an input whose pin is wrong is still one the file wires
    (``tablectl config check`` lists every error once, none that follows from another)."""
    pins: dict[str, InputPin] = {}
    used: dict[int, str] = {}
    known = (*spec.gpio_inputs, *BUTTON_INPUTS)
    for name in inputs.data:
        if name not in known:
            inputs.read.add(name)  # said once: not an "unknown key" too
            inputs._collect(inputs.error(name, f"unknown input {name!r}; a {spec.name} "
                                         f"table's inputs are {', '.join(known)}"), None)
            continue
        sec = inputs.section(name)
        pin: int | None = None
        if "pin" not in sec.data:
            sec._collect(sec.error("pin", "missing: the BCM pin number (0-27)"), None)
        else:
            pin = sec.number("pin", None, 0, 27, integer=True)  # type: ignore[arg-type]
            if pin is not None and pin in used:
                sec._collect(sec.error("pin", f"pin {pin} is already used by input "
                                              f"{used[pin]!r}"), None)
            elif pin is not None:
                used[pin] = name
        pull = sec.choice("pull", "up", ("up", "down", "none"))
        active = sec.choice("active", "low", ("high", "low"))
        debounce_s = sec.number("debounce_s", 0.0, 0.0, 0.05)
        # A pin missing or wrong is an error of its own (raised, or kept by config check,
        # which reads on): the input is still wired for the checks that follow.
        pins[name] = InputPin(name=name, pin=pin if pin is not None else -1, pull=pull,
                              active=active, debounce_s=debounce_s)
    return pins


def _game_sections(root: Section, spec: GameSpec) -> tuple[Any, Any]:
    """The game's own section (its ``load_config``) and the card core's ``[cards]`` (its
    ``cards_config``, or None)."""
    rules = spec.load_config(root.section(spec.config_section), None)
    cards = None
    if spec.cards_config is not None:
        cards = spec.cards_config(root.section("cards"), None)
    elif root.has("cards"):
        raise root.error("cards", f"a {spec.name} table takes no [cards] settings (its deck "
                         "has no shoe closed at a cut card to count out): remove [cards]")
    return rules, cards


def _refuse_other_games(root: Section, spec: GameSpec, games: Games) -> None:
    """A section of another game is refused in its words; the games are looked at only
    when a section is left unread (each is imported to know its section's name)."""
    if all(key in root.read for key in root.data):
        return
    for other in games:
        if other.config_section != spec.config_section and root.has(other.config_section):
            raise root.error(other.config_section, f"the section of a {other.name} table; "
                             f"this table is {spec.name} ([table] game)")


def _serial(serial: Section) -> dict[str, SerialConfig]:
    """``[serial.<port>]``: each port's URL, speed and codec (the ports a game reads are
    checked once the game's own checks ran: :func:`check_ports`)."""
    ports: dict[str, SerialConfig] = {}
    for name in serial.data:
        sec = serial.section(name)
        url = sec.get("url", str, "")
        if not url:
            raise sec.error("url", "missing: the port URL (/dev/serial/by-id/..., "
                            "socket://..., loop://)")
        ports[name] = SerialConfig(
            name=name, url=url,
            baudrate=sec.number("baudrate", 9600, 50, 4_000_000, integer=True),
            codec=sec.choice("codec", "reference", codec_names()))
    return ports


def _limits(lim: Section) -> Limits:
    """``[limits]``: the table limits in whole chips (seed 001 Art. 16)."""
    min_bet = lim.number("min_bet", 1, 1, MAX_LIMIT, integer=True)
    max_bet = lim.number("max_bet", 1000, 1, MAX_LIMIT, integer=True)
    if max_bet < min_bet:
        raise lim.error("max_bet", f"{max_bet} is below min_bet {min_bet}")
    return Limits(min_bet, max_bet)


def _simulator(sim: Section) -> SimulatorConfig:
    """``[simulator]``: the embedded stand-in for the hardware."""
    return SimulatorConfig(
        enabled=sim.get("enabled", bool, False),
        seed=sim.number("seed", 1, 0, 2**63 - 1, integer=True),
        spins=sim.number("spins", 0, 0, 10**9, integer=True),
        speed=sim.number("speed", 1.0, 0.01, 1000.0),
        invalid_rate=sim.number("invalid_rate", 0.0, 0.0, 1.0),
    )


def check_ports(config: Config, root: Section) -> None:
    """Each ``[serial.<port>]`` is a port the table's game reads (its spec's
    ``serial_ports``), with a codec that reads that port's device's lines (``CODECS``: a
    shoe reader's, a wheel's status lines). Checked after the game's own ``check_config``,
    whose messages say more about its ports.

    Raises:
        ConfigError: a port the game does not read (``serial.<port>``), or a codec of
            another device (``serial.<port>.codec``); names file, line and key.
    """
    from controller.protocols import CODECS, DEVICES, codecs_reading

    spec = config.spec
    for name, port in config.serial.items():
        if name not in spec.serial_ports:
            ports = ", ".join(spec.serial_ports) or "none"
            raise root.error_at(f"serial.{name}", f"a {spec.name} table reads no port "
                                f"{name!r} (its ports: {ports}): remove [serial.{name}]")
        device = spec.device(name)
        reads = CODECS[port.codec].reads
        if reads != device:
            fits = " or ".join(f'"{c}"' for c in codecs_reading(device))
            raise root.error_at(f"serial.{name}.codec", f"codec {port.codec!r} reads "
                                f"{DEVICES[reads]}, but port {name!r} reads "
                                f"{DEVICES[device]}: use codec = {fits}")


def codec_names() -> tuple[str, ...]:
    from controller.protocols import CODECS

    return tuple(CODECS)


def apply_overrides(config: Config, meta: dict[str, Any], source: str, *,
                    given: bool = False) -> Config:
    """Apply a trace's ``meta`` (``table``, ``limits``, and the game's own keys) to ``config``.

    ``limits`` (``{"min_bet", "max_bet"}``, whole chips, as ``[limits]``) replaces the
    table limits (an exported game's, ``tablectl export --evidence``); ``cards`` (as
    ``[cards]``) the card core's settings, for a game that has them. The other keys go
    to the game's ``load_config``, over the config's own section when the trace's table is
    the config's game, else over that game's defaults.
    ``given``: the config was named by the user (``replay --config FILE``), so the trace
    must fit it: its table is the config's, and the config with the meta applied passes
    every check the file itself passed (the game's ``check_config``, ``check_ports``).
    Otherwise (the embedded default, ``simulate --table``) the meta chooses the table.

    Raises:
        ConfigError: an unknown key or a bad value, named as ``meta.KEY`` of ``source``
            line 1 (the meta line of a trace); with ``given``, a trace of another table
            (``meta.table``) or one the config's checks refuse once applied (the meta key,
            and the config's own file, line, key and reason in the message).
    """
    loader = Loader(source, "")
    loader.line_of = lambda dotted: 1  # type: ignore[method-assign]
    sec = loader.section("meta", dict(meta))
    game = sec.choice("table", config.game, config.games.names)
    if given and game != config.game:
        raise sec.error("table", f"{game!r}: this trace is of a {game} table, the config "
                        f"{config.source} of a {config.game} table: replay it with a {game} "
                        "config, or without --config (the embedded default takes the "
                        "trace's table)")
    limits = config.limits
    if "limits" in meta:
        lim = sec.section("limits")
        limits = Limits(lim.number("min_bet", limits.min_bet, 1, MAX_LIMIT, integer=True),
                        lim.number("max_bet", limits.max_bet, 1, MAX_LIMIT, integer=True))
        if limits.max_bet < limits.min_bet:
            raise lim.error("max_bet", f"{limits.max_bet} is below min_bet {limits.min_bet}")
        lim.finish()
    spec = config.spec if game == config.game else config.games.spec(game)
    cards = None
    if spec.cards_config is not None:  # the trace's table's defaults, or the config's own
        cards_sec = sec.section("cards")
        cards = spec.cards_config(cards_sec, config.cards if game == config.game else None)
        cards_sec.finish()
    elif "cards" in meta:
        raise sec.error("cards", f"a {game} table takes no [cards] settings")
    rest = {k: v for k, v in meta.items() if k not in ("table", "limits", "cards")}
    sub = loader.section("meta", rest)
    rules = spec.load_config(sub, config.rules if game == config.game else None)
    sub.finish()
    applied = replace(config, spec=spec, rules=rules, cards=cards, limits=limits)
    if given:
        _check_applied(applied, sub, config)
    return applied


def _check_applied(config: Config, meta: Section, base: Config) -> None:
    """The checks of the config's file (:func:`parse`), on ``config`` with a trace's meta
    applied: what they refuse now, the meta made (the file passed them alone). The meta
    key named is the one that alone makes them refuse (``base``: the config without it)."""
    exc = _refusal(config)
    if exc is None:
        return
    keys = list(meta.data)
    key = keys[0] if len(keys) == 1 else ""
    if len(keys) > 1:
        load = config.spec.load_config
        for candidate in keys:
            alone = Loader(config.source, "").section("meta", {candidate: meta.data[candidate]})
            if _refusal(replace(config, rules=load(alone, base.rules))) is not None:
                key = candidate
                break
    raise meta.error(key, f"this trace's meta does not fit the config: {exc}; replay it "
                     "with a config it fits, or without --config") from None


def _refusal(config: Config) -> ConfigError | None:
    """What the checks of ``config``'s own file refuse in ``config``, if anything."""
    source, text = read_config_text(config.source)
    loader = Loader(source, text)
    root = loader.section("", tomllib.loads(text))
    spec = config.spec
    try:
        if spec.check_config is not None:
            spec.check_config(config, root)
        check_ports(config, root)
    except ConfigError as exc:
        return exc
    return None
