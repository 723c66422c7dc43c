"""The feed's and the floor's settings: the broker, the credentials, the site.

``table-feed`` reads the table's own config (``/etc/table-controller/table.toml``): the
table's name and game, the journal's path, and its ``[feed]`` section::

    [feed]
    broker = "mqtts://broker.floor.example:8883"   # or mqtt://HOST:PORT (no TLS)
    site = "casino-1"
    username = "table-7"                       # with password_file, or client_cert
    password_file = "/etc/table-controller/feed.password"   # 0600/0400, the feed's own
    ca_file = "/etc/table-controller/floor-ca.pem"          # mqtts://: the broker's CA
    client_cert = ""                           # mqtts://: a client certificate instead
    client_key = ""
    cursor = "/var/lib/table-feed/cursor"      # default: the journal's path + .feed-cursor

``table-floor`` reads a file of its own whose ``[floor]`` section has the same broker keys
plus ``database`` (a libpq connection string) and ``tables`` (the tables it takes; empty:
every table of the site). Every error names the file, line and key
(:class:`controller.core.errors.ConfigError`).
"""

from __future__ import annotations

import os
import ssl
import stat
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from controller.cli.compose import load_config
from controller.core.contract import GameSpec
from controller.core.errors import ConfigError
from controller.core.section import Loader, Section, parse_toml, read_config_text
from controller.core.specs import Games

SCHEMES = {"mqtt": 1883, "mqtts": 8883}


@dataclass(frozen=True)
class Broker:
    """Where the broker is and how to log in: ``host``, ``port``, ``tls`` (mqtts://),
    ``username`` with the password read from ``password_file``, or a client certificate
    (``client_cert``, ``client_key``); ``ca_file`` the CA that signed the broker's."""

    url: str
    host: str
    port: int
    tls: bool
    username: str = ""
    password_file: str = ""
    ca_file: str = ""
    client_cert: str = ""
    client_key: str = ""


@dataclass(frozen=True)
class FeedConfig:
    """What ``table-feed`` needs: the broker, the ``site``, the table's ``table`` name and
    game (``spec``; ``games``: every registered game, for a journal of another), its
    ``journal`` and the feed's ``cursor`` file."""

    source: str
    broker: Broker
    site: str
    table: str
    journal: str
    cursor: str
    spec: GameSpec = field(kw_only=True, compare=False, repr=False)
    games: Games = field(kw_only=True, compare=False, repr=False)

    @property
    def game(self) -> str:
        return self.spec.name


@dataclass(frozen=True)
class FloorConfig:
    """What ``table-floor`` needs: the broker, the ``site``, the ``database`` (libpq
    connection string) and the ``tables`` it takes (empty: all)."""

    source: str
    broker: Broker
    site: str
    database: str
    tables: tuple[str, ...]


def parse_broker(sec: Section, url: str, option: str | None = None) -> Broker:
    """The broker of ``url`` (``mqtt://HOST[:PORT]`` or ``mqtts://``) with the section's
    credentials, each file named checked as the connection will read it (the password
    as UTF-8, the certificates and the key as OpenSSL loads them). Raises ConfigError
    naming the key, or ``option`` (``--broker``) when ``url`` is the command line's."""
    scheme, host, port = _host_port(sec, url, option)
    broker = Broker(
        url=url, host=host, port=port, tls=scheme == "mqtts",
        username=sec.get("username", str, ""), password_file=sec.get("password_file", str, ""),
        ca_file=sec.get("ca_file", str, ""), client_cert=sec.get("client_cert", str, ""),
        client_key=sec.get("client_key", str, ""))
    if broker.password_file and not broker.username:
        raise sec.error("username", "missing: password_file needs the username it goes with")
    if (broker.client_cert or broker.ca_file) and not broker.tls:
        raise sec.error("broker", f"{url!r}: a CA file or a client certificate needs mqtts://")
    if bool(broker.client_cert) != bool(broker.client_key):
        raise sec.error("client_key" if broker.client_cert else "client_cert",
                        "missing: client_cert and client_key go together")
    for key in ("password_file", "ca_file", "client_cert", "client_key"):
        path = getattr(broker, key)
        if path and not os.access(path, os.R_OK):
            raise sec.error(key, f"{path}: cannot be read")
        if path and not os.path.isfile(path):
            raise sec.error(key, f"{path}: not a file")
    if broker.password_file:
        _check_password_file(sec, broker)
    _check_tls_files(sec, broker)
    return broker


def _host_port(sec: Section, url: str, option: str | None) -> tuple[str, str, int]:
    """``url``'s scheme, host and port (the scheme's by default); ConfigError on
    ``broker`` or on ``option``."""

    def error(message: str) -> ConfigError:
        return ConfigError(option, None, None, message) if option else sec.error(
            "broker", message)

    usage = f"{url!r} is not mqtt://HOST[:PORT] or mqtts://HOST[:PORT]"
    try:
        parts = urlsplit(url)
    except ValueError as exc:  # an unclosed [IPv6 address
        raise error(f"{usage} ({str(exc).lower()})") from None
    if parts.scheme not in SCHEMES or not parts.hostname:
        raise error(usage)
    if parts.username is not None or parts.password is not None:
        shown = f"{parts.scheme}://{parts.netloc.rpartition('@')[2]}"  # not the password
        raise error(f"{shown}: no user or password in the URL; give username and "
                    "password_file (or a client certificate)")
    try:
        port = parts.port
    except ValueError:
        port = 0
    if port == 0:
        raise error(f"{url!r}: the port is not a number 1-65535")
    return parts.scheme, parts.hostname, port or SCHEMES[parts.scheme]


def _check_password_file(sec: Section, broker: Broker) -> None:
    mode = os.stat(broker.password_file).st_mode
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise sec.error("password_file", f"{broker.password_file} is readable by others "
                        f"(mode {stat.filemode(mode)}): chmod 0600 it")
    try:
        read_password(broker)
    except UnicodeDecodeError:
        raise sec.error("password_file", f"{broker.password_file}: not UTF-8 text") from None
    except OSError as exc:
        raise sec.error("password_file", f"{broker.password_file}: cannot be read "
                        f"({exc.strerror or exc})") from None


def _check_tls_files(sec: Section, broker: Broker) -> None:
    """Load the CA and the client certificate and key as the connection will."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    checks = (("ca_file", broker.ca_file, "a PEM certificate"),
              ("client_cert", broker.client_cert, "a PEM certificate"))
    for key, path, what in checks:
        try:
            if path:
                context.load_verify_locations(cafile=path)
        except (ssl.SSLError, OSError) as exc:
            raise sec.error(key, f"{path}: not {what} ({_ssl_reason(exc)})") from None
    if broker.client_cert:
        try:  # a key with a passphrase is refused, not prompted for
            context.load_cert_chain(broker.client_cert, broker.client_key, password=b"")
        except (ssl.SSLError, OSError) as exc:
            raise sec.error("client_key", f"{broker.client_key}: not the unencrypted PEM "
                            f"key of client_cert {broker.client_cert} "
                            f"({_ssl_reason(exc)})") from None


def _ssl_reason(exc: Exception) -> str:
    reason = getattr(exc, "reason", None) or getattr(exc, "strerror", None) or str(exc)
    return str(reason).lower().replace("_", " ")


def read_password(broker: Broker) -> str | None:
    """The password in ``password_file`` (its first line), or None without one."""
    if not broker.password_file:
        return None
    text = Path(broker.password_file).read_text(encoding="utf-8")
    return text.splitlines()[0] if text else ""


def _section(path: str, name: str) -> tuple[Section, Loader]:
    source, text = read_config_text(path)
    data = parse_toml(source, text)
    loader = Loader(source, text)
    root = loader.section("", data)
    root.read.update(data)  # the other sections are the controller's
    return root.section(name), loader


def _required(sec: Section, key: str, what: str, given: str | None = None) -> str:
    """``key``'s value, or ``given`` (the command line's) over it; the file's is read
    (and checked) either way, so that it is not an unknown key."""
    value = str(sec.get(key, str, "")).strip()
    if given:
        return given
    if not value:
        raise sec.error(key, f"missing: {what}")
    return value


def load_feed_config(path: str, broker_url: str | None = None,
                     journal: str | None = None, cursor: str | None = None) -> FeedConfig:
    """The feed's settings from the table's config at ``path``; ``broker_url``,
    ``journal`` and ``cursor`` (the command line's) override the file's.

    Raises:
        ConfigError: the table's config is bad (its file, line and key), ``[feed]`` lacks
            ``broker`` or ``site``, a key is unknown or a file named cannot be read.
    """
    table = load_config(path)
    sec, _ = _section(path, "feed")
    url = _required(sec, "broker", "the broker's URL (mqtts://HOST:PORT)", broker_url)
    site = _required(sec, "site", "the casino's name in the topics (casino/SITE/...)")
    broker = parse_broker(sec, url, "--broker" if broker_url else None)
    journal_path = journal or table.journal_path
    cursor_path = sec.get("cursor", str, "")
    cursor_path = cursor or cursor_path or journal_path + ".feed-cursor"
    sec.finish()
    for name, value in (("site", site), ("table", table.table_name)):
        if any(c in value for c in "/+#"):
            raise ConfigError(path, None, name, f"{value!r}: no / + or # in a topic's level")
    return FeedConfig(source=path, broker=broker, site=site, table=table.table_name,
                      journal=journal_path, cursor=cursor_path, spec=table.spec,
                      games=table.games)


def load_floor_config(path: str, broker_url: str | None = None,
                      database: str | None = None) -> FloorConfig:
    """The floor's settings from ``[floor]`` of ``path``; ``broker_url`` and
    ``database`` (the command line's) override the file's.

    Raises:
        ConfigError: a key missing, unknown or of the wrong type, a file unreadable.
    """
    sec, _ = _section(path, "floor")
    url = _required(sec, "broker", "the broker's URL (mqtts://HOST:PORT)", broker_url)
    site = _required(sec, "site", "the casino's name in the topics (casino/SITE/...)")
    broker = parse_broker(sec, url, "--broker" if broker_url else None)
    dsn = _required(sec, "database", "the PostgreSQL connection string "
                    "(host=... dbname=... user=...)", database)
    tables = sec.get("tables", list, [])
    if not all(isinstance(t, str) and t for t in tables):
        raise sec.error("tables", "expected a list of table names")
    sec.finish()
    return FloorConfig(source=path, broker=broker, site=site, database=dsn,
                       tables=tuple(tables))
