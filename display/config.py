"""The display's settings: the table's config (its game, name, journal, limits) and its own
``[display]`` section, with the command line's ``--journal`` and ``--listen`` over them.

``[display]`` (every key optional; an unknown key or a bad value is one line naming file,
line and key, exit 2, as for the controller's own sections):

- ``listen``: ``"HOST:PORT"`` the pages are served on, ``"127.0.0.1:8321"`` by default (no
  network listener unless the config says so: project standards, Security); ``[::1]:PORT``
  for IPv6; port 0 takes a free one (tests);
- ``language``: ``"es"`` (the seeds' language, the default) or ``"en"``;
- ``history``: the games the statistics cover (e.g. hot and cold numbers), 100
  by default, 10 to 10000;
- ``stats_history``: the games the pit page's surveillance statistics (issue 21, those
  of ``tablectl stats --last N``) cover, 500 by default, 10 to 100000.
"""

from __future__ import annotations

from dataclasses import dataclass

from controller.cli.compose import load_config
from controller.core.config import Config
from controller.core.errors import ConfigError
from controller.core.section import Loader, parse_toml, read_config_text

DEFAULT_LISTEN = "127.0.0.1:8321"
LANGUAGES = ("es", "en")


@dataclass(frozen=True)
class DisplayConfig:
    """What the display serves: ``table`` (the table's checked config), ``journal`` (the
    file it reads), ``host`` and ``port``, ``language``, ``history``, ``stats_history``."""

    table: Config
    journal: str
    host: str
    port: int
    language: str = "es"
    history: int = 100
    stats_history: int = 500

    @property
    def address(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}/"


def parse_listen(text: str) -> tuple[str, int]:
    """``"HOST:PORT"`` (``"[::1]:8321"``) as (host, port).

    Raises:
        ValueError: no port, a port out of 0-65535, or no host; the message says which.
    """
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit():
        raise ValueError(f"{text!r} is not HOST:PORT (e.g. {DEFAULT_LISTEN})")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    if not host:
        raise ValueError(f"{text!r} names no host (e.g. {DEFAULT_LISTEN})")
    number = int(port)
    if number > 65535:
        raise ValueError(f"port {number} is out of range 0-65535")
    return host, number


def load(config_path: str, journal: str | None = None,
         listen: str | None = None) -> DisplayConfig:
    """The display's settings from the table's config at ``config_path`` (or
    ``embedded:NAME``), ``journal`` and ``listen`` given on the command line over it.

    Raises:
        ConfigError: the table's config is refused (file, line, key), ``[display]`` has an
            unknown key or a bad value, or ``--listen`` is not HOST:PORT.
    """
    table = load_config(config_path)
    source, text = read_config_text(config_path)
    loader = Loader(source, text)
    root = loader.section("", parse_toml(source, text))
    sec = root.section("display")
    given_listen = sec.get("listen", str, DEFAULT_LISTEN)
    language = sec.choice("language", "es", LANGUAGES)
    history = sec.number("history", 100, 10, 10000, integer=True)
    stats_history = sec.number("stats_history", 500, 10, 100000, integer=True)
    sec.finish()
    try:
        host, port = parse_listen(given_listen)
    except ValueError as exc:
        raise sec.error("listen", str(exc)) from None
    if listen is not None:
        try:
            host, port = parse_listen(listen)
        except ValueError as exc:
            raise ConfigError("--listen", None, None, str(exc)) from None
    return DisplayConfig(table=table, journal=journal or table.journal_path, host=host,
                         port=port, language=language, history=history,
                         stats_history=stats_history)
