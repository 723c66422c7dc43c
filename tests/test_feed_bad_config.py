"""A bad broker setting in ``[feed]`` or ``[floor]`` is one line naming the file, the
line and the field, exit 2 (a bad config), never a traceback; ``--broker`` and
``--database`` on the command line override the config's.

The certificates are made here with openssl (tests/floor_parts.py); the overrides run
against a real Mosquitto and PostgreSQL.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from floor_parts import (
    BIN,
    FLOOR_PASSWORD,
    FLOOR_USER,
    PASSWORD,
    USER,
    Broker,
    Postgres,
    make_ca,
    missing_parts,
    postgres,
    secret,
    sign,
    table_config,
)

pytestmark = pytest.mark.skipif(missing_parts() is not None, reason=str(missing_parts()))
NOWHERE = "mqtt://127.0.0.1:1"  # no broker listens there


@pytest.fixture(scope="module")
def certs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("certs")
    ca = make_ca(folder, "test-ca")
    other = make_ca(folder, "other-ca")
    cert, key = sign(folder, ca, "cert-table", server=False)
    not_pem = folder / "notes.txt"
    not_pem.write_text("this is not a certificate\n")
    return {"ca": ca[0], "cert": cert, "key": key, "other_key": other[1],
            "not_pem": not_pem}


def _dir(folder: Path) -> Path:
    path = folder / "a-folder"
    path.mkdir(mode=0o700, exist_ok=True)
    return path


def _latin1(folder: Path) -> Path:
    path = folder / "latin1.password"
    path.write_bytes(b"contrase\xf1a\n")
    path.chmod(0o600)
    return path


# (case, the [feed]/[floor] lines but site, the field named, words the line has)
CASES: list[tuple[str, str, str, str]] = [
    ("ipv6_unclosed", 'broker = "mqtt://[::1"\n', "broker", "mqtt://[::1"),
    ("port_0", 'broker = "mqtt://127.0.0.1:0"\n', "broker", "1-65535"),
    ("userinfo", 'broker = "mqtt://user:pw@127.0.0.1:1883"\n', "broker", "password_file"),
    ("ca_not_pem", 'broker = "mqtts://127.0.0.1:8883"\nca_file = "{not_pem}"\n',
     "ca_file", "{not_pem}"),
    ("ca_folder", 'broker = "mqtts://127.0.0.1:8883"\nca_file = "{folder}"\n',
     "ca_file", "{folder}"),
    ("cert_key_mismatch", 'broker = "mqtts://127.0.0.1:8883"\nca_file = "{ca}"\n'
     'client_cert = "{cert}"\nclient_key = "{other_key}"\n', "client_key", "{other_key}"),
    ("password_folder", 'broker = "mqtt://127.0.0.1:1883"\nusername = "u"\n'
     'password_file = "{folder}"\n', "password_file", "{folder}"),
    ("password_not_utf8", 'broker = "mqtt://127.0.0.1:1883"\nusername = "u"\n'
     'password_file = "{latin1}"\n', "password_file", "UTF-8"),
]


def _fill(text: str, tmp_path: Path, certs: dict[str, Path]) -> str:
    return text.format(folder=_dir(tmp_path), latin1=_latin1(tmp_path), **certs)


def _line_of(config: Path, key: str) -> int:
    """The line of ``key =`` in ``config``, as a person counts them."""
    lines = config.read_text().splitlines()
    return next(n for n, line in enumerate(lines, 1) if line.startswith(f"{key} ="))


def _assert_one_line(done: subprocess.CompletedProcess[str], tool: str, config: Path,
                     field: str, words: str) -> None:
    assert "Traceback" not in done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert done.returncode == 2, done.stderr
    assert lines[0].startswith(f"{tool}: {config}:{_line_of(config, field.split('.')[1])}: "
                               f"field '{field}': "), lines[0]
    assert words in lines[0]
    assert "user:pw" not in lines[0]  # a password in a URL is not echoed to the log


def _feed_config(tmp_path: Path, lines: str) -> Path:
    # table_config writes the broker line; a case's own broker replaces it.
    config = table_config(tmp_path, "t1", "roulette", tmp_path / "j.sqlite", "", "")
    text = config.read_text().replace('broker = ""\n', lines)
    config.write_text(text)
    return config


def _floor_config(tmp_path: Path, lines: str, database: str = "host=/nowhere") -> Path:
    config = tmp_path / "floor.toml"
    config.write_text(f'[floor]\nsite = "test-site"\ndatabase = "{database}"\n{lines}')
    return config


def _run(tool: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(BIN / tool), *args], capture_output=True, text=True,
                          timeout=60)


@pytest.mark.parametrize(("case", "lines", "key", "words"), CASES, ids=[c[0] for c in CASES])
def test_a_bad_broker_setting_is_one_line_in_the_feed(
        tmp_path: Path, certs: dict[str, Path], case: str, lines: str, key: str,
        words: str) -> None:
    config = _feed_config(tmp_path, _fill(lines, tmp_path, certs))
    done = _run("table-feed", "--config", str(config), "--once")
    _assert_one_line(done, "table-feed", config, f"feed.{key}", _fill(words, tmp_path, certs))


@pytest.mark.parametrize("command", ["run", "status"])
@pytest.mark.parametrize(("case", "lines", "key", "words"), CASES, ids=[c[0] for c in CASES])
def test_a_bad_broker_setting_is_one_line_in_the_floor(
        tmp_path: Path, certs: dict[str, Path], case: str, lines: str, key: str,
        words: str, command: str) -> None:
    config = _floor_config(tmp_path, _fill(lines, tmp_path, certs))
    done = _run("table-floor", "--config", str(config), command)
    _assert_one_line(done, "table-floor", config, f"floor.{key}",
                     _fill(words, tmp_path, certs))


@pytest.mark.parametrize("tool", ["table-feed", "table-floor"])
def test_a_bad_broker_on_the_command_line_is_named_as_such(tmp_path: Path,
                                                           tool: str) -> None:
    config = (_feed_config(tmp_path, f'broker = "{NOWHERE}"\n') if tool == "table-feed"
              else _floor_config(tmp_path, f'broker = "{NOWHERE}"\n'))
    args = ["--once"] if tool == "table-feed" else ["run"]
    done = _run(tool, "--config", str(config), *args, "--broker", "mqtt://[::1")
    assert "Traceback" not in done.stderr
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines() == [
        f"{tool}: --broker: 'mqtt://[::1' is not mqtt://HOST[:PORT] or "
        "mqtts://HOST[:PORT] (invalid ipv6 url)"]


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Broker]:
    b = Broker(tmp_path / "broker")
    b.start()
    yield b
    b.stop()


@pytest.fixture(scope="module")
def pg() -> Iterator[Postgres]:
    with postgres() as cluster:
        yield cluster


def test_the_command_lines_broker_overrides_the_feeds(tmp_path: Path,
                                                      broker: Broker) -> None:
    from controller.store.journal import Journal

    password = secret(tmp_path, "t1.password", PASSWORD)
    config = table_config(tmp_path, "t1", "roulette", tmp_path / "j.sqlite", NOWHERE,
                          f'username = "{USER}"\npassword_file = "{password}"\n')
    Journal(str(tmp_path / "j.sqlite"), durable=False).close()  # a journal, no record yet
    done = _run("table-feed", "--config", str(config), "--broker", broker.url, "--once",
                "--log-format", "json")
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert f"to {broker.url} as casino/test-site/t1/records" in done.stderr


def test_the_command_lines_broker_overrides_the_floors(
        tmp_path: Path, broker: Broker, pg: Postgres) -> None:
    # A wrong password: the floor stops at once, and its line names the broker it used.
    password = secret(tmp_path, "floor.password", "not-" + FLOOR_PASSWORD)
    config = _floor_config(tmp_path, f'broker = "{NOWHERE}"\nusername = "{FLOOR_USER}"\n'
                           f'password_file = "{password}"\n', pg.dsn())
    done = _run("table-floor", "--config", str(config), "run", "--broker", broker.url)
    assert "Traceback" not in done.stderr
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith(f"table-floor: broker {broker.url} as {FLOOR_USER}: "
                                  "login refused"), done.stderr


def test_the_command_lines_database_overrides_the_floors(tmp_path: Path,
                                                         pg: Postgres) -> None:
    config = _floor_config(tmp_path, f'broker = "{NOWHERE}"\n', "host=/nowhere dbname=x")
    done = _run("table-floor", "--config", str(config), "--database", pg.dsn(), "status")
    assert "Traceback" not in done.stderr
    assert done.returncode == 0, done.stderr


def test_once_with_no_journal_is_one_line_and_exit_1(tmp_path: Path,
                                                     broker: Broker) -> None:
    # The tester's finding: `--once` on a journal that is not there logged a warning and
    # exited 0, as if everything had been published.
    password = secret(tmp_path, "t.password", PASSWORD)
    config = table_config(tmp_path, "t1", "roulette", tmp_path / "missing.sqlite", broker.url,
                          f'username = "{USER}"\npassword_file = "{password}"\n')
    done = subprocess.run([str(BIN / "table-feed"), "--config", str(config), "--once"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr.splitlines()[-1] == (
        f"table-feed: no journal at {tmp_path / 'missing.sqlite'}: nothing published")
