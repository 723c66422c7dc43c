"""A member of the admin group reads the journal while the daemon is stopped (issue 11):
the journal's folder is the daemon's (0750, group table-controller: the unit's
StateDirectory), so a reader may not write the ``-shm`` index SQLite's WAL wants.

As root the reader is a child process that drops to ``nobody`` in the journal's group (the
folder's owner is root, so only the group's bits apply); as another user the folder is
made read-only for its owner instead. Either way the reader cannot write the folder. The
reader reads nothing of the clone once it has dropped (every module is imported first, its
config is a copy beside the journal): the clone may sit in a folder other users cannot
enter (a private temporary folder, root's home), as it does in CI."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import REPO

from controller.store.journal import Journal

READER_GID = 4242  # the journal's group (the test's stand-in for table-controller)
NOBODY = 65534


@pytest.fixture
def folder() -> Iterator[Path]:
    """A folder every user can reach (pytest's tmp_path is private to its user)."""
    path = Path(tempfile.mkdtemp(prefix="ro-journal-"))
    os.chmod(path, 0o755)
    yield path / "state"
    os.chmod(path, 0o755)
    for sub in path.rglob("*"):
        if sub.is_dir():
            os.chmod(sub, 0o755)
    shutil.rmtree(path)


def write_records(path: Path, count: int, close: bool = True) -> None:
    """A daemon's journal of ``count`` records (wall-time stamps); ``close=False``: the
    writer dies without closing it (its WAL stays beside it)."""
    code = (
        "import os, sys\n"
        "from controller.store.journal import Journal\n"
        f"j = Journal({str(path)!r})\n"
        f"for i in range({count}): j.append('alarm', 1.7e9 + i, "
        "{'code': 'x', 'message': f'record {i}'})\n"
        + ("j.close()\n" if close else "os._exit(0)\n"))
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


def lock_down(journal: Path) -> None:
    """The daemon's modes: folder 0750 and files 0640, in the readers' group."""
    folder = journal.parent
    for item in [folder, *folder.iterdir()]:
        if os.geteuid() == 0:
            os.chown(item, 0, READER_GID)
        os.chmod(item, 0o750 if item.is_dir() else 0o640)
    if os.geteuid() != 0:
        os.chmod(folder, 0o550)  # its owner cannot write it either


# Every module of the controller, imported before the drop: after it, nobody may not read
# the clone (nor root's Python) when it sits in a private folder.
IMPORT_ALL = ("import importlib, pkgutil, controller\n"
              "for m in pkgutil.walk_packages(controller.__path__, 'controller.'):\n"
              "    if not m.name.endswith('.__main__'):\n"
              "        importlib.import_module(m.name)\n"
              "from controller.core import registry; registry.games()\n")


def read_as_group_member(journal: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    """``tablectl --journal JOURNAL ARGV`` run by a member of the journal's group who
    cannot write its folder, with a copy of the embedded config beside the journal's
    folder (readable by all)."""
    config = journal.parent.parent / "table.toml"
    if not config.exists():
        config.write_text((REPO / "controller/data/default.toml").read_text())
        os.chmod(config, 0o644)
    drop = ""
    if os.geteuid() == 0:
        drop = IMPORT_ALL + (f"os.setgroups([{READER_GID}]); os.setgid({NOBODY}); "
                             f"os.setuid({NOBODY})\n")
    code = ("import os, sys\n"
            "from controller.cli.tablectl import main\n" + drop +
            f"sys.exit(main(['--config', {str(config)!r}, '--journal', {str(journal)!r}, "
            f"*{list(argv)!r}]))\n")
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60)


def test_the_admin_group_reads_a_journal_the_daemon_closed(folder: Path) -> None:
    journal = folder / "journal.sqlite"
    write_records(journal, 5)
    lock_down(journal)
    done = read_as_group_member(journal, "verify")
    assert done.returncode == 0, done.stderr
    assert "ok: 5 records from the first to the head, hash chain and columns intact" in done.stdout
    assert "readonly database" not in done.stderr
    status = read_as_group_member(journal, "status", "--json")
    assert status.returncode == 0, status.stderr
    assert json.loads(status.stdout)["records"] == 5
    assert sorted(p.name for p in folder.iterdir()) == ["journal.sqlite"]  # nothing written


def test_the_admin_group_reads_the_records_a_killed_daemon_left_in_its_wal(
        folder: Path) -> None:
    journal = folder / "journal.sqlite"
    write_records(journal, 3)
    write_records(journal, 4, close=False)  # killed: 4 records only in the -wal file
    (folder / "journal.sqlite-shm").unlink()  # and no index a reader could use
    lock_down(journal)
    done = read_as_group_member(journal, "status", "--json")
    assert done.returncode == 0, done.stderr
    status = json.loads(done.stdout)
    assert status["records"] == 7
    assert status["journal_access"] == "copy"
    verify = read_as_group_member(journal, "verify")
    assert verify.returncode == 0 and "ok: 7 records" in verify.stdout


def test_the_admin_group_reads_while_the_daemon_writes(folder: Path) -> None:
    journal = folder / "journal.sqlite"
    write_records(journal, 2)
    writer = Journal(journal)  # the running daemon: WAL and index beside the journal
    try:
        writer.append("alarm", 1.7e9, {"code": "x", "message": "live"})
        lock_down(journal)
        done = read_as_group_member(journal, "verify")
    finally:
        writer.close()
    assert done.returncode == 0, done.stderr
    assert "ok: 3 records" in done.stdout


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to act as another user")
@pytest.mark.parametrize("given", [True, False])
def test_an_account_that_may_not_read_the_config_is_told_in_one_line(
        folder: Path, given: bool) -> None:
    # The installed config's folder is the daemon's (0750): someone outside its group runs
    # tablectl, naming the config or not (then tablectl looks for the installed one).
    etc = folder / "etc"
    etc.mkdir(parents=True)
    config = etc / "table.toml"
    config.write_text((REPO / "controller/data/default.toml").read_text())
    for item in (etc, config):
        os.chown(item, 0, READER_GID)
    os.chmod(etc, 0o750)
    os.chmod(config, 0o640)
    os.chmod(folder, 0o755)
    argv = ["--config", str(config), "status"] if given else ["status"]
    code = ("import os, sys\n"
            "from controller.cli import tablectl\n" + IMPORT_ALL +
            f"tablectl.INSTALLED_CONFIG = {str(config)!r}\n"
            "os.environ.pop('TABLECTL_CONFIG', None)\n"
            f"os.setgroups([]); os.setgid({NOBODY}); os.setuid({NOBODY})\n"
            f"sys.exit(tablectl.main({argv!r}))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines() == [
        f"tablectl: {config}: cannot read config: permission denied: this account may not "
        f"enter {etc} (group {READER_GID}: run it as a member of that group, or with sudo)"]
