"""The ``[roulette]`` section of a roulette table's config (seed 001 Art. 12, CONTRACT §1), and
the checks of the wheel's source: the five GPIO sensors, or an automated wheel's status
lines on the serial port ``[serial.wheel]`` (issue 12; hardware.md §2b)."""

from __future__ import annotations

from dataclasses import dataclass

from controller.core.config import Config
from controller.core.errors import ConfigError
from controller.core.section import Section, show_value
from controller.games.roulette.layout import WHEEL_ORDERS

WHEEL_INPUTS = ("ball_a", "ball_b", "rotor_a", "rotor_b", "ball_pocket")
"""The wheel's sensors (CONTRACT §1)."""
WHEEL_SOURCES = ("gpio", "serial")
"""``[roulette] wheel_source``: the GPIO sensors, or an automated wheel over serial."""
WHEEL_PORT = "wheel"
"""The serial port of a serial wheel: ``[serial.wheel]`` (CONTRACT §2 ``serial`` events)."""
WHEEL_CODECS = ("status_line",)
"""The codecs (``controller.protocols.CODECS``) that speak a serial wheel's protocol."""
WHEEL_MODELS = ("slingshot2", "mercury360")
"""``[roulette] wheel_model``: the family of a serial wheel (its flags and counter differ:
``controller.protocols.wheel_status.MODELS``)."""
HELD_SPIN = ("parks", "stops_table")
"""``[roulette] held_spin``: a held spin parks (its bets frozen, the next games go on) or
stops the table until a person decides it (CONTRACT §5)."""
GPIO_WHEEL_KEYS = ("ball_b_deg", "rotor_b_deg", "drop_timeout_factor", "launch_timeout_s",
                   "suspended_wait_rotor_revolutions", "max_rotor_period_ratio",
                   "auto_no_more_bets_lap_s", "min_lap_s", "min_rotor_period_s",
                   "sensor_error_budget")
"""``[roulette]`` keys only the GPIO wheel's tracker reads (its sensors' edges)."""
SERIAL_WHEEL_KEYS = ("wheel_silence_s", "wheel_speed_unit_rpm", "wheel_burst_gap_s",
                     "wheel_max_rotor_rpm", "wheel_model", "bets_follow_wheel")
"""``[roulette]`` keys only the serial wheel's tracker reads (its status lines)."""
# Seed 001 Art. 12 (a): a throw needs "el minimo de vueltas (3)". A jurisdiction may ask for
# more (4 in South Dakota and Indiana), never for fewer.
MIN_BALL_REVOLUTIONS = 3
# Seats of a roulette table (betting boxes): the config's ``[roulette] boxes``.
MAX_ROULETTE_BOXES = 12


@dataclass(frozen=True)
class RouletteConfig:
    """Wheel and spin-validation settings; defaults from seed 001 Art. 12 and CONTRACT §1."""

    wheel: str = "single_zero"
    order: tuple[str, ...] | None = None
    ball_b_deg: float = 20.0
    rotor_b_deg: float = 10.0
    # The pocket sensor's angle clockwise of rotor_a, for one mounted off 0° (CONTRACT §1
    # puts it at 0°): measured by ``tablectl calibrate`` (hardware.md, commissioning).
    ball_pocket_deg: float = 0.0
    min_ball_revolutions: int = 3
    # CONTRACT §1 says 1.5, but 14 of the 466 real series (real-ball-laps.csv) have a lap
    # up to 1.69 x the one before: 1.5 would cut those spins short. 2.0 counts them all.
    drop_timeout_factor: float = 2.0
    launch_timeout_s: float = 3.0
    suspended_wait_rotor_revolutions: float = 6.0
    min_rotor_rpm: float = 5.0
    max_rotor_period_ratio: float = 1.5
    auto_no_more_bets_lap_s: float | None = None
    # CONTRACT §5: activations of one input closer than these are one pass (chatter). The
    # fastest real first lap is 0.39 s (real-lap-times.md); a rotor at 60 rpm turns in 1 s.
    min_lap_s: float = 0.25
    min_rotor_period_s: float = 1.0
    sensor_error_budget: int = 3  # corrections per input in one spin before it is held
    boxes: int = 8  # seats (betting boxes 1..boxes); bets on any other box are refused
    # Issue 12: where the wheel's data comes from (WHEEL_SOURCES); for a serial wheel, how
    # long its link may be silent (seconds) before it is ``wheel_disconnected``, the rpm
    # one unit of its speed field is (the status lines' SSS: tenths of rpm), the gap
    # between two lines (seconds; the wheel sends one about every 0.5 s) after which the
    # times of what the next ones show are not known (hardware.md §2b), and the fastest
    # plausible rotor (rpm; a faster SSS is a bad field).
    wheel_source: str = "gpio"
    wheel_silence_s: float = 5.0
    wheel_speed_unit_rpm: float = 0.1
    wheel_burst_gap_s: float = 1.5
    wheel_max_rotor_rpm: float = 60.0
    # Issue 16: the serial wheel's family (WHEEL_MODELS); whether its states 2 and 4 open
    # and close bets (None: yes for a serial wheel); whether a held spin parks or stops
    # the table (None: "parks" for a serial wheel, "stops_table" for a GPIO wheel).
    wheel_model: str = "slingshot2"
    bets_follow_wheel: bool | None = None
    held_spin: str | None = None

    @property
    def follows_wheel(self) -> bool:
        """Bets open at the wheel's state 2 and close at its state 4 (issue 16)."""
        if self.bets_follow_wheel is None:
            return self.wheel_source == "serial"
        return self.bets_follow_wheel and self.wheel_source == "serial"

    @property
    def parks(self) -> bool:
        """A held spin parks (``held_spin = "parks"``): its bets stay frozen until a
        person decides, and the next games go on (issue 16)."""
        if self.held_spin is None:
            return self.wheel_source == "serial"
        return self.held_spin == "parks"


def load_config(sec: Section, base: RouletteConfig | None) -> RouletteConfig:
    """The ``[roulette]`` section, or a trace's meta keys over ``base`` (seed 001 Art. 12).

    Raises:
        ConfigError: a wrong type or a value out of range (Art. 12 (a) below 3 revolutions
            among them); it names the file, line and key.
    """
    base = base or RouletteConfig()
    wheel = sec.choice("wheel", base.wheel, tuple(WHEEL_ORDERS))
    order_list = sec.get("order", list, list(base.order) if base.order else None)
    order: tuple[str, ...] | None = None
    if order_list is not None:
        expected = sorted(WHEEL_ORDERS[wheel])
        if (not all(isinstance(x, str) for x in order_list)
                or sorted(order_list) != expected or order_list[0] != "0"):
            raise sec.error("order", f"must list each pocket of a {wheel} wheel once, "
                            "starting at \"0\", as strings")
        order = tuple(order_list)
    auto = sec.number("auto_no_more_bets_lap_s", 0.0 if base.auto_no_more_bets_lap_s is None
                      else base.auto_no_more_bets_lap_s, 0.0, 10.0)
    revolutions = sec.get("min_ball_revolutions", int, base.min_ball_revolutions)
    if revolutions < MIN_BALL_REVOLUTIONS:
        raise sec.error("min_ball_revolutions", f"{show_value(revolutions)} is below "
                        f"{MIN_BALL_REVOLUTIONS}: seed 001 Art. 12 (a) voids a throw of fewer "
                        f"than {MIN_BALL_REVOLUTIONS} ball revolutions; a jurisdiction may ask "
                        "for more (4 in South Dakota, Indiana), never fewer")
    revolutions = sec.number("min_ball_revolutions", base.min_ball_revolutions,
                             MIN_BALL_REVOLUTIONS, 20, integer=True)
    return RouletteConfig(
        wheel=wheel,
        order=order,
        ball_b_deg=sec.number("ball_b_deg", base.ball_b_deg, 0.0, 90.0, open_low=True),
        rotor_b_deg=sec.number("rotor_b_deg", base.rotor_b_deg, 0.0, 90.0, open_low=True),
        ball_pocket_deg=sec.number("ball_pocket_deg", base.ball_pocket_deg, 0.0, 360.0),
        min_ball_revolutions=revolutions,
        drop_timeout_factor=sec.number("drop_timeout_factor", base.drop_timeout_factor, 1.0, 5.0,
                                       open_low=True),
        launch_timeout_s=sec.number("launch_timeout_s", base.launch_timeout_s, 0.5, 10.0),
        suspended_wait_rotor_revolutions=sec.number(
            "suspended_wait_rotor_revolutions", base.suspended_wait_rotor_revolutions, 6.0, 20.0),
        min_rotor_rpm=sec.number("min_rotor_rpm", base.min_rotor_rpm, 0.5, 10.0),
        max_rotor_period_ratio=sec.number("max_rotor_period_ratio", base.max_rotor_period_ratio,
                                          1.0, 5.0, open_low=True),
        auto_no_more_bets_lap_s=auto or None,
        min_lap_s=sec.number("min_lap_s", base.min_lap_s, 0.05, 0.35),
        min_rotor_period_s=sec.number("min_rotor_period_s", base.min_rotor_period_s, 0.5, 2.0),
        sensor_error_budget=sec.number("sensor_error_budget", base.sensor_error_budget, 0, 20,
                                       integer=True),
        boxes=sec.number("boxes", base.boxes, 1, MAX_ROULETTE_BOXES, integer=True),
        wheel_source=sec.choice("wheel_source", base.wheel_source, WHEEL_SOURCES),
        wheel_silence_s=sec.number("wheel_silence_s", base.wheel_silence_s, 1.0, 600.0),
        wheel_speed_unit_rpm=sec.number("wheel_speed_unit_rpm", base.wheel_speed_unit_rpm,
                                        0.0, 10.0, open_low=True),
        wheel_burst_gap_s=_burst_gap(sec, base),
        wheel_max_rotor_rpm=sec.number("wheel_max_rotor_rpm", base.wheel_max_rotor_rpm,
                                       1.0, 200.0),
        wheel_model=sec.choice("wheel_model", base.wheel_model, WHEEL_MODELS),
        bets_follow_wheel=sec.get("bets_follow_wheel", bool, base.bets_follow_wheel),
        held_spin=sec.choice("held_spin", base.held_spin, HELD_SPIN),
    )


def _burst_gap(sec: Section, base: RouletteConfig) -> float:
    """``wheel_burst_gap_s`` (0.6-60 s, above the wheel's line interval of about 0.5 s),
    below ``wheel_silence_s``: a silence is a gap too long to wait for."""
    gap: float = sec.number("wheel_burst_gap_s", base.wheel_burst_gap_s, 0.6, 60.0)
    silence = sec.number("wheel_silence_s", base.wheel_silence_s, 1.0, 600.0)
    if gap >= silence:
        raise sec.error("wheel_burst_gap_s", f"{gap:g} s is not below wheel_silence_s "
                        f"({silence:g} s): a gap between two lines is shorter than a silence")
    return gap


def check_config(config: Config, root: Section) -> None:
    """The wheel's source is wired: a GPIO wheel, with a ``[gpio]`` section, needs every
    wheel input (CONTRACT §1) and reads no ``[serial.wheel]``; a serial wheel needs
    ``[serial.wheel]`` with a wheel's codec (``WHEEL_CODECS``; with the simulator enabled
    its url is replaced by the simulator's pseudo-terminal) and reads no GPIO wheel input.
    The file's ``[roulette]`` section gives no setting of the other source
    (``GPIO_WHEEL_KEYS``, ``SERIAL_WHEEL_KEYS``; a trace's meta is not checked so).

    Raises:
        ConfigError: what is missing or does not belong; names its key (``gpio.inputs``,
            ``serial.wheel``, ``serial.wheel.codec``, ``gpio.inputs.ball_a``,
            ``roulette.drop_timeout_factor``...).
    """
    if config.rules.wheel_source == "serial":
        _check_serial(config, root)
        _check_keys(config, root)
        return
    if WHEEL_PORT in config.serial:
        raise root.error_at(f"serial.{WHEEL_PORT}", "a GPIO wheel reads no serial port: "
                            "remove [serial.wheel], or set [roulette] wheel_source = "
                            "\"serial\" (hardware.md)")
    _check_keys(config, root)
    if not root.has("gpio"):
        return
    missing = [n for n in WHEEL_INPUTS if n not in config.inputs]
    if missing:
        raise root.error_at("gpio.inputs", f"missing wheel inputs: {', '.join(missing)}")


def _check_keys(config: Config, root: Section) -> None:
    """A wheel source's own settings are not written for the other one (a setting that
    does nothing is a mistake of the config: hardware.md §2b)."""
    section = root.data.get("roulette")
    if not isinstance(section, dict):
        return
    serial = config.rules.wheel_source == "serial"
    for key in section:
        if serial and key in GPIO_WHEEL_KEYS:
            raise root.error_at(f"roulette.{key}", "a GPIO wheel's setting (its sensors' "
                                "edges); a serial wheel does not use it: remove it, or set "
                                "wheel_source = \"gpio\"")
        if not serial and key in SERIAL_WHEEL_KEYS:
            raise root.error_at(f"roulette.{key}", "a serial wheel's setting (its status "
                                "lines); a GPIO wheel does not use it: remove it, or set "
                                "wheel_source = \"serial\"")


def _check_serial(config: Config, root: Section) -> None:
    port = config.serial.get(WHEEL_PORT)
    if port is None:
        raise root.error_at(f"serial.{WHEEL_PORT}", "missing: a serial wheel reports over "
                            "[serial.wheel] (its url, and codec = \"status_line\"); see "
                            "hardware.md", near="roulette.wheel_source")
    if port.codec not in WHEEL_CODECS:
        raise root.error_at(f"serial.{WHEEL_PORT}.codec", f"{port.codec!r} does not speak a "
                            f"wheel's protocol; a serial wheel's codec is one of "
                            f"{', '.join(WHEEL_CODECS)} (codec = \"status_line\")",
                            near=f"serial.{WHEEL_PORT}")
    wired = [n for n in WHEEL_INPUTS if n in config.inputs]
    if wired:
        raise root.error_at(f"gpio.inputs.{wired[0]}", "a serial wheel reads no GPIO wheel "
                            f"input ({', '.join(wired)}): remove them, or set [roulette] "
                            "wheel_source = \"gpio\"")


def check_daemon(config: Config) -> None:
    """The daemon can read the wheel: a GPIO wheel's inputs are all wired; a serial wheel's
    port is configured (``[serial.wheel]``).

    Raises:
        ConfigError: a wheel input, or the wheel's port, is missing (hardware.md §1, §2b).
    """
    if config.rules.wheel_source == "serial":
        if WHEEL_PORT not in config.serial:
            raise ConfigError(config.source, None, f"serial.{WHEEL_PORT}",
                              "a serial wheel needs its port [serial.wheel] (hardware.md)")
        return
    missing = [name for name in WHEEL_INPUTS if name not in config.inputs]
    if missing:
        raise ConfigError(config.source, None, "gpio.inputs",
                          f"a roulette table needs the wheel inputs: {', '.join(missing)} "
                          "missing (hardware.md §1)")


def gpio_of(config: Config) -> tuple[str, ...]:
    """The GPIO inputs the table reads: the wheel's sensors for a GPIO wheel, none for a
    wheel that reports over serial (issue 12)."""
    return () if config.rules.wheel_source == "serial" else WHEEL_INPUTS


def ports_of(config: Config) -> tuple[str, ...]:
    """The serial port the table reads: ``wheel`` for a wheel that reports over serial
    (issue 12), none for a GPIO wheel."""
    return (WHEEL_PORT,) if config.rules.wheel_source == "serial" else ()
