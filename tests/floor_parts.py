"""Real parts for the feed's and the floor's tests (and the bench): a Mosquitto broker on a
free loopback port with a password file and a TLS listener signed by a test CA made with
``openssl``, and a PostgreSQL cluster in a scratch folder run by an unprivileged user
(``initdb``/``pg_ctl``; as root, ``nobody``, as ``python -m feed.local`` runs its own).

Nothing here is mocked: the broker is Debian's ``/usr/sbin/mosquitto`` and the database
Debian's PostgreSQL. A test that needs them skips, saying why, where they are missing.
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

MOSQUITTO = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
# PostgreSQL refuses root. No user is made for it: clusters of tests running side by side
# (make test's processes, or two clones) would make and remove the same one under each other.
PG_USER = "nobody"
BIN = Path(sys.executable).parent
USER, PASSWORD = "table-1", "s3cret-feed"
FLOOR_USER, FLOOR_PASSWORD = "floor", "s3cret-floor"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_for(what: str, check: Callable[[], Any], timeout: float = 30.0,
             every: float = 0.02, progress: Callable[[], Any] | None = None) -> Any:
    """Poll ``check`` until it returns something true; AssertionError naming ``what``
    after ``timeout`` s. With ``progress``, the deadline is on progress, never on speed:
    it moves on each time ``progress()`` returns something new (a loaded machine only
    makes the wait longer), and the error says what it last was."""
    deadline = time.monotonic() + timeout
    last = progress() if progress is not None else None
    while True:
        got = check()
        if got:
            return got
        if progress is not None and (now := progress()) != last:
            last, deadline = now, time.monotonic() + timeout
        if time.monotonic() > deadline:
            still = f" with no progress (at {last})" if progress is not None else ""
            raise AssertionError(f"timed out after {timeout} s{still} waiting for {what}")
        time.sleep(every)


def journal_head(path: Path) -> int:
    """The last seq in the journal at ``path`` (0: none yet), read-only."""
    import sqlite3

    try:
        with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
            return int(db.execute("SELECT coalesce(max(seq), 0) FROM records").fetchone()[0])
    except sqlite3.Error:
        return 0


def finished(proc: subprocess.Popen[bytes], what: str,
             progress: Callable[[], Any] | None = None, timeout: float = 60.0) -> int:
    """``proc``'s exit code once it ends (:func:`wait_for`, the deadline on
    ``progress``)."""
    wait_for(what, lambda: proc.poll() is not None, timeout, 0.05, progress)
    return int(proc.returncode)


def stop_all(procs: list[subprocess.Popen[bytes]], timeout: float = 60.0) -> None:
    """SIGTERM each, wait for each; one that outlasts ``timeout`` is killed."""
    for proc in procs:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
    for proc in procs:
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _listening(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.2)
        return s.connect_ex(("127.0.0.1", port)) == 0


def _run(*cmd: str, cwd: str | Path | None = None) -> None:
    subprocess.run(cmd, check=True, capture_output=True, cwd=cwd)


def make_ca(folder: Path, name: str) -> tuple[Path, Path]:
    """A self-signed test CA in ``folder``: (its certificate, its key)."""
    cert, key = folder / f"{name}.pem", folder / f"{name}.key"
    _run("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
         "-subj", f"/CN={name}", "-keyout", str(key), "-out", str(cert))
    return cert, key


def sign(folder: Path, ca: tuple[Path, Path], name: str, server: bool) -> tuple[Path, Path]:
    """A certificate for ``name`` signed by ``ca`` (a server's for 127.0.0.1 and
    localhost, or a client's whose CN is ``name``): (certificate, key)."""
    cert, key, csr = folder / f"{name}.pem", folder / f"{name}.key", folder / f"{name}.csr"
    ext = folder / f"{name}.ext"
    ext.write_text("subjectAltName=IP:127.0.0.1,DNS:localhost\n" if server
                   else "extendedKeyUsage=clientAuth\n")
    _run("openssl", "req", "-newkey", "rsa:2048", "-nodes", "-subj", f"/CN={name}",
         "-keyout", str(key), "-out", str(csr))
    _run("openssl", "x509", "-req", "-in", str(csr), "-CA", str(ca[0]), "-CAkey", str(ca[1]),
         "-CAcreateserial", "-days", "2", "-extfile", str(ext), "-out", str(cert))
    return cert, key


class Broker:
    """Mosquitto on loopback: ``port`` (passwords), ``tls_port`` (passwords over TLS),
    ``cert_port`` (TLS, a client certificate instead of a password). Persistent (its
    database in ``folder``): a stop and a start keep the floor's session."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self.port, self.tls_port, self.cert_port = free_port(), free_port(), free_port()
        self.ca = make_ca(folder, "test-ca")
        self.wrong_ca = make_ca(folder, "other-ca")
        server = sign(folder, self.ca, "broker", server=True)
        self.client_cert = sign(folder, self.ca, "cert-table", server=False)
        passwords = folder / "passwords"
        passwords.write_text("")
        for user, password in ((USER, PASSWORD), (FLOOR_USER, FLOOR_PASSWORD)):
            _run("mosquitto_passwd", "-b", str(passwords), user, password)
        me = pwd.getpwuid(os.getuid()).pw_name
        tls = (f"cafile {self.ca[0]}\ncertfile {server[0]}\nkeyfile {server[1]}\n")
        self.conf = folder / "mosquitto.conf"
        self.conf.write_text(
            f"user {me}\nper_listener_settings false\nallow_anonymous false\n"
            f"password_file {passwords}\npersistence true\n"
            f"persistence_location {folder}/\nmax_queued_messages 0\n"
            f"max_inflight_messages 0\nlog_dest stderr\nlog_type error\n"
            f"listener {self.port} 127.0.0.1\n"
            f"listener {self.tls_port} 127.0.0.1\n{tls}"
            f"listener {self.cert_port} 127.0.0.1\n{tls}require_certificate true\n"
            "use_identity_as_username true\n")
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"mqtt://127.0.0.1:{self.port}"

    @property
    def tls_url(self) -> str:
        return f"mqtts://127.0.0.1:{self.tls_port}"

    def start(self) -> None:
        with open(self.folder / "mosquitto.log", "ab") as log:
            self.proc = subprocess.Popen([MOSQUITTO, "-c", str(self.conf)], stderr=log)
        wait_for("mosquitto to listen", lambda: all(
            _listening(p) for p in (self.port, self.tls_port, self.cert_port)), 10)

    def stop(self, sig: int = signal.SIGTERM) -> None:
        """Stop it (SIGTERM: it saves its database first)."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(sig)
            self.proc.wait(10)
        self.proc = None


def pg_bin(tool: str) -> str | None:
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{tool}"),
                   key=lambda p: int(p.split("/")[4]) if p.split("/")[4].isdigit() else 0)
    return found[-1] if found else shutil.which(tool)


class Postgres:
    """A PostgreSQL cluster of its own in a scratch folder, on a loopback port, run by an
    unprivileged user (trust authentication on loopback: a test cluster)."""

    def __init__(self) -> None:
        self.as_user = ["runuser", "-u", PG_USER, "--"] if os.getuid() == 0 else []
        self.folder = Path(tempfile.mkdtemp(prefix="floor-pg-"))
        if self.as_user:
            shutil.chown(self.folder, PG_USER)
        os.chmod(self.folder, 0o700)
        self.data = self.folder / "data"
        self.port = free_port()
        initdb = pg_bin("initdb")
        assert initdb, "no initdb"
        self._pg(initdb, "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E",
                 "UTF8", "--no-sync")

    def _pg(self, *cmd: str) -> None:
        subprocess.run([*self.as_user, *cmd], check=True, capture_output=True,
                       cwd=self.folder)

    def start(self) -> None:
        pg_ctl = pg_bin("pg_ctl")
        assert pg_ctl
        self._pg(pg_ctl, "-D", str(self.data), "-l", str(self.folder / "log"), "-w", "-o",
                 f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1", "start")

    def stop(self) -> None:
        pg_ctl = pg_bin("pg_ctl")
        assert pg_ctl
        with contextlib.suppress(subprocess.CalledProcessError):
            self._pg(pg_ctl, "-D", str(self.data), "-m", "fast", "-w", "stop")

    def dsn(self, db: str = "postgres") -> str:
        return f"host=127.0.0.1 port={self.port} user=postgres dbname={db}"

    def new_database(self, name: str) -> str:
        import psycopg

        with psycopg.connect(self.dsn(), autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.dsn(name)

    def remove(self) -> None:
        self.stop()
        shutil.rmtree(self.folder, ignore_errors=True)


def missing_parts() -> str | None:
    """Why the real parts cannot be had here, or None."""
    if not os.path.exists(MOSQUITTO):
        return "no mosquitto (apt-get install mosquitto)"
    if not pg_bin("initdb"):
        return "no PostgreSQL (apt-get install postgresql)"
    if shutil.which("openssl") is None:
        return "no openssl"
    return None


@contextlib.contextmanager
def postgres() -> Iterator[Postgres]:
    pg = Postgres()
    try:
        pg.start()
        yield pg
    finally:
        pg.remove()


def secret(folder: Path, name: str, text: str) -> Path:
    """A password file readable by its owner alone."""
    path = folder / name
    path.write_text(text + "\n")
    path.chmod(0o600)
    return path


def table_config(folder: Path, name: str, game: str, journal: Path, broker_url: str,
                 feed: str) -> Path:
    """A table's config with a ``[feed]`` section (``feed``: its other lines)."""
    path = folder / f"{name}.toml"
    path.write_text(f'[table]\ngame = "{game}"\nname = "{name}"\n\n[journal]\n'
                    f'path = "{journal}"\n\n[simulator]\nenabled = true\n\n[feed]\n'
                    f'broker = "{broker_url}"\nsite = "test-site"\n{feed}')
    return path


def floor_config(folder: Path, broker: Broker, dsn: str, extra: str = "") -> Path:
    path = folder / "floor.toml"
    password = secret(folder, "floor.password", FLOOR_PASSWORD)
    path.write_text(f'[floor]\nbroker = "{broker.url}"\nsite = "test-site"\n'
                    f'username = "{FLOOR_USER}"\npassword_file = "{password}"\n'
                    f'database = "{dsn}"\n{extra}')
    return path


def spawn(tool: str, *args: str, log: Path) -> subprocess.Popen[bytes]:
    """``table-feed`` or ``table-floor`` of this venv, its log (JSON lines) to ``log``."""
    with open(log, "ab") as err:
        return subprocess.Popen([str(BIN / tool), "--log-format", "json", *args],
                                stdout=subprocess.DEVNULL, stderr=err)


def simulate_journal(folder: Path, table: str, count: int, seed: int = 1) -> Path:
    """A trace of a simulated table (``table-controller simulate``) of ``count`` games."""
    trace = folder / f"{table}-{seed}.jsonl"
    option = "--spins" if table == "roulette" else "--coups"
    _run(str(BIN / "table-controller"), "simulate", "--table", table, option, str(count),
         "--seed", str(seed), "--out", str(trace))
    return trace


def replay(trace: Path, journal: Path) -> subprocess.Popen[bytes]:
    """``table-controller replay TRACE --journal JOURNAL``, running."""
    return subprocess.Popen([str(BIN / "table-controller"), "replay", str(trace),
                             "--journal", str(journal)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
