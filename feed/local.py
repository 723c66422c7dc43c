"""The floor beside a simulated table, for ``make run``: a Mosquitto broker on a free
loopback port, a scratch PostgreSQL cluster in ``var/floor/pg``, ``table-feed`` on the
table's journal and ``table-floor run``, each said in one banner line.

``python -m feed.local [--table-config FILE]`` (default: the embedded default's table,
``var/journal.sqlite``). Files: ``var/floor/`` (``table.toml``, the table's config with a
``[feed]`` section; ``floor.toml``; ``mosquitto.conf`` and the broker's persistence; the
cluster ``pg/``; one log a process). Kept between runs, as a casino's would be: the
floor's chain, the broker's session and the feed's cursor carry on.

PostgreSQL refuses to run as root: as root the cluster is ``nobody``'s, and when
``nobody`` cannot reach ``var/floor/pg`` (a clone in a private folder) the cluster is in
:func:`outside_folder` instead, the banner says so. When mosquitto or PostgreSQL is
missing (or cannot start), one line says the floor is not started and why, and this exits
0: the table runs without it. SIGTERM, SIGINT or SIGHUP stops the feed, the floor, the
broker and the cluster, in that order, with no traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import glob
import hashlib
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from importlib import resources
from pathlib import Path

FOLDER = Path("var/floor")
SITE = "local"
PG_USER_AS_ROOT = "nobody"
FIX = "sudo bash .ci/install-debian-packages.sh"
BIN = Path(sys.executable).parent


class NotStarted(Exception):
    """Why the floor cannot start here, in words for one line."""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _pg_tool(tool: str) -> str | None:
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{tool}"),
                   key=lambda p: int(p.split("/")[4]) if p.split("/")[4].isdigit() else 0)
    return found[-1] if found else shutil.which(tool)


def _tools() -> tuple[str, str, str]:
    """mosquitto, initdb and pg_ctl. Raises NotStarted naming what is missing."""
    mosquitto = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
    if not os.access(mosquitto, os.X_OK):
        raise NotStarted(f"no mosquitto: {FIX}")
    initdb, pg_ctl = _pg_tool("initdb"), _pg_tool("pg_ctl")
    if not initdb or not pg_ctl:
        raise NotStarted(f"no PostgreSQL: {FIX}")
    return mosquitto, initdb, pg_ctl


def outside_folder(floor: Path) -> Path:
    """Where root's ``make run`` keeps the cluster when ``nobody`` cannot reach the
    clone's ``var/floor/pg``: a folder of this clone's own (named by the path of its
    ``var/floor``, ``floor``) in /var/tmp, kept between runs and reboots like ``var/``."""
    key = hashlib.sha256(str(floor.resolve()).encode()).hexdigest()[:8]
    base = Path("/var/tmp") if Path("/var/tmp").is_dir() else Path(tempfile.gettempdir())
    return base / f"tc-floor-{key}"


def _reaches(as_user: list[str], path: Path) -> bool:
    """Whether the cluster's user can write in ``path`` (every folder above it open to
    it)."""
    return subprocess.run([*as_user, "test", "-w", str(path), "-a", "-x", str(path)],
                          stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL, check=False).returncode == 0


def _own_outside(path: Path) -> None:
    """Make ``path``, in a folder all may write in, the cluster user's alone (0700);
    one that somebody else put there first (or a link) is refused. Raises NotStarted."""
    user = pwd.getpwnam(PG_USER_AS_ROOT)
    with contextlib.suppress(FileExistsError):
        path.mkdir(mode=0o700)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    except OSError:
        raise NotStarted(f"{path} is not a folder: remove it") from None
    try:
        if os.fstat(fd).st_uid not in (0, user.pw_uid):
            raise NotStarted(f"{path} is somebody else's: remove it")
        os.fchown(fd, user.pw_uid, user.pw_gid)
        os.fchmod(fd, 0o700)
    finally:
        os.close(fd)


def _wait_listening(port: int, what: str, proc: subprocess.Popen[bytes] | None,
                    log: Path, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        if proc is not None and proc.poll() is not None:
            break
        time.sleep(0.1)
    raise NotStarted(f"{what} did not start: see {log}")


def _wait_subscribed(log: Path, since: int, proc: subprocess.Popen[bytes],
                     timeout: float = 15.0) -> None:
    """Until the floor's log says, after byte ``since``, that it subscribed: records the
    feed sends before a first start's subscription reach nobody (a gap the floor then
    asks for again, with an error-level alarm). After ``timeout`` s, or should the floor
    have stopped, the start goes on: its own log says why."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        with open(log, "rb") as f:
            f.seek(since)
            if b'"subscribed"' in f.read():
                return
        time.sleep(0.1)


class LocalFloor:
    """The broker, the cluster, the feed and the floor of one ``make run``."""

    def __init__(self, table_config: str | None) -> None:
        self.table_config = table_config
        self.procs: list[tuple[str, subprocess.Popen[bytes]]] = []
        self.pg_ctl: list[str] = []
        self.data = (FOLDER / "pg" / "data").resolve()
        self.pg_where = f"{FOLDER}/pg"

    def _spawn(self, name: str, cmd: Sequence[str]) -> subprocess.Popen[bytes]:
        # A session of its own: the terminal's Ctrl-C reaches this process alone, which
        # stops the others in order.
        with open(FOLDER / f"{name}.log", "ab") as log:
            proc = subprocess.Popen(list(cmd), stdin=subprocess.DEVNULL,
                                    stdout=subprocess.DEVNULL, stderr=log,
                                    start_new_session=True)
        self.procs.append((name, proc))
        return proc

    def start(self) -> None:
        """Start the four; print one line each. Raises NotStarted."""
        mosquitto, initdb, pg_ctl = _tools()
        FOLDER.mkdir(parents=True, exist_ok=True)
        broker_port = self._broker(mosquitto)
        pg_port, who = self._cluster(initdb, pg_ctl)
        dsn = f"host=127.0.0.1 port={pg_port} user=postgres dbname=floor"
        self._database(dsn)
        broker = f"mqtt://127.0.0.1:{broker_port}"
        print(f"mosquitto: the floor's broker on {broker}", flush=True)
        print(f"postgresql: the floor's database on 127.0.0.1:{pg_port} ({self.pg_where}"
              f"{who})", flush=True)
        table, journal = self._feed_config(broker)
        floor_toml = FOLDER / "floor.toml"
        floor_toml.write_text(f'[floor]\nbroker = "{broker}"\nsite = "{SITE}"\n'
                              f'database = "{dsn}"\n')
        floor_log = FOLDER / "floor.log"
        since = floor_log.stat().st_size if floor_log.exists() else 0
        floor = self._spawn("floor", [str(BIN / "table-floor"), "--log-format", "json",
                                      "--config", str(floor_toml), "run"])
        _wait_subscribed(floor_log, since, floor)
        self._spawn("feed", [str(BIN / "table-feed"), "--log-format", "json",
                             "--config", str(FOLDER / "table.toml")])
        print(f"table-feed: {journal} to casino/{SITE}/{table}/records", flush=True)
        print(f"table-floor: stores it; table-floor --config {floor_toml} status",
              flush=True)

    def _broker(self, mosquitto: str) -> int:
        port = _free_port()
        store = FOLDER / "mosquitto"
        store.mkdir(exist_ok=True)
        conf = FOLDER / "mosquitto.conf"
        me = pwd.getpwuid(os.getuid()).pw_name
        # Loopback only, no password: a developer's broker (hardware.md: a casino's).
        conf.write_text(f"user {me}\nlistener {port} 127.0.0.1\nallow_anonymous true\n"
                        f"persistence true\npersistence_location {store.resolve()}/\n"
                        "max_queued_messages 0\nmax_inflight_messages 0\n"
                        "log_dest stderr\nlog_type error\n"
                        "log_type warning\n")
        proc = self._spawn("mosquitto", [mosquitto, "-c", str(conf)])
        _wait_listening(port, "mosquitto", proc, FOLDER / "mosquitto.log")
        return port

    def _cluster(self, initdb: str, pg_ctl: str) -> tuple[int, str]:
        as_user: list[str] = []
        who = ""
        if os.getuid() == 0:  # PostgreSQL refuses root
            as_user, who = ["runuser", "-u", PG_USER_AS_ROOT, "--"], f", as {PG_USER_AS_ROOT}"
        top = self.data.parent
        top.mkdir(parents=True, exist_ok=True)
        if as_user:
            shutil.chown(top, PG_USER_AS_ROOT)
        os.chmod(top, 0o700)
        if as_user and not _reaches(as_user, top):  # a folder above is private to root
            top = outside_folder(FOLDER)
            _own_outside(top)
            # its banner line says where, not as whom: it fits 80 columns
            self.data, self.pg_where, who = top / "data", str(top), ""
        log = top / "postgresql.log"
        if not (self.data / "PG_VERSION").exists():
            self._pg([*as_user, initdb, "-D", str(self.data), "-U", "postgres",
                      "--auth=trust", "-E", "UTF8"], top, "initdb")
        port = _free_port()
        self.pg_ctl = [*as_user, pg_ctl, "-D", str(self.data)]
        self._pg([*self.pg_ctl, "-l", str(log), "-w", "-o",
                  f"-p {port} -k {top} -c listen_addresses=127.0.0.1", "start"], top,
                 "PostgreSQL")
        return port, who

    def _pg(self, cmd: list[str], cwd: Path, what: str) -> None:
        with open(FOLDER / "postgresql-setup.log", "ab") as out:
            done = subprocess.run(cmd, cwd=cwd, stdin=subprocess.DEVNULL, stdout=out,
                                  stderr=out, start_new_session=True, check=False)
        if done.returncode != 0:
            raise NotStarted(f"{what} failed: see {FOLDER}/postgresql-setup.log")

    def _database(self, dsn: str) -> None:
        import psycopg

        base = dsn.replace("dbname=floor", "dbname=postgres")
        try:
            with psycopg.connect(base, autocommit=True, connect_timeout=5) as conn:
                if not conn.execute("SELECT 1 FROM pg_database WHERE datname = 'floor'"
                                    ).fetchone():
                    conn.execute("CREATE DATABASE floor")
        except psycopg.Error as exc:
            raise NotStarted(f"PostgreSQL: {str(exc).strip().splitlines()[0]}"[:60]) from None

    def _feed_config(self, broker: str) -> tuple[str, str]:
        """var/floor/table.toml: the table's config and a [feed] section; (the table's
        name, its journal)."""
        from controller.cli.compose import load_config

        if self.table_config:
            text = Path(self.table_config).read_text(encoding="utf-8")
        else:
            text = resources.files("controller.data").joinpath("default.toml").read_text(
                encoding="utf-8")
        path = FOLDER / "table.toml"
        path.write_text(f'{text}\n[feed]\nbroker = "{broker}"\nsite = "{SITE}"\n'
                        f'cursor = "{(FOLDER / "feed.cursor").resolve()}"\n')
        config = load_config(str(path))
        return config.table_name, config.journal_path

    def watch(self, stop: threading.Event) -> None:
        """Until ``stop``: a process that ends says so in one line."""
        said: set[str] = set()
        while not stop.wait(1.0):
            for name, proc in self.procs:
                if proc.poll() is not None and name not in said:
                    said.add(name)
                    print(f"{name}: stopped (exit {proc.returncode}); see "
                          f"{FOLDER}/{name}.log", file=sys.stderr)

    def stop(self) -> None:
        for _, proc in reversed(self.procs):  # the feed, the floor, then the broker
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
                try:
                    proc.wait(20)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
        if self.pg_ctl:
            with open(FOLDER / "postgresql-setup.log", "ab") as out:
                subprocess.run([*self.pg_ctl, "-m", "fast", "-w", "stop"], cwd=self.data.parent,
                               stdin=subprocess.DEVNULL, stdout=out, stderr=out,
                               start_new_session=True, check=False)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m feed.local", description="A broker, "
                                     "a PostgreSQL cluster, table-feed and table-floor "
                                     "beside a simulated table (make run).")
    parser.add_argument("--table-config", help="the table's config (default: the "
                        "embedded default)")
    args = parser.parse_args(argv)
    stop = threading.Event()
    # SIGHUP too: a terminal closed stops the floor as cleanly as Ctrl-C does.
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, lambda *_: stop.set())
    floor = LocalFloor(args.table_config)
    try:
        floor.start()
        floor.watch(stop)
    except NotStarted as exc:
        print(f"floor: not started ({exc})", file=sys.stderr)  # the table runs on
    finally:
        floor.stop()
    return 0


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        sys.exit(main())
