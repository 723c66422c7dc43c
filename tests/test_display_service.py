"""``table-display`` as a person runs it: its settings (``[display]``, ``--listen``), one
line and exit 2 for a bad one, loopback by default, no write endpoint, a page that says
so when the journal is missing; and its systemd unit (verifies clean, exposure 2.5 at
most, the figure in the README)."""

from __future__ import annotations

import concurrent.futures
import contextlib
import os
import shutil
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import IO

import pytest

from display.config import load
from tests.display_helpers import REPO, config_of, display, simulated_journal
from tests.processes import stopped

UNIT = REPO / "systemd" / "table-display.service"
EXEC = "/opt/table-controller/venv/bin/table-display"


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "display.cli", *args], cwd=REPO,
                          capture_output=True, text=True, timeout=60, check=False)


def test_it_listens_on_loopback_port_8321_in_spanish_by_default() -> None:
    cfg = load("embedded:default.toml")
    assert (cfg.host, cfg.port, cfg.language, cfg.history) == ("127.0.0.1", 8321, "es", 100)
    assert cfg.journal == "var/journal.sqlite"


def test_display_section_and_command_line(tmp_path: Path) -> None:
    config = tmp_path / "table.toml"
    text = (REPO / "config" / "mini-baccarat-sim.toml").read_text()
    config.write_text(text + '\n[display]\nlisten = "0.0.0.0:9000"\nlanguage = "en"\n'
                      "history = 50\n")
    cfg = load(str(config))
    assert (cfg.host, cfg.port, cfg.language, cfg.history) == ("0.0.0.0", 9000, "en", 50)
    cfg = load(str(config), journal="other.sqlite", listen="[::1]:8400")
    assert (cfg.host, cfg.port, cfg.journal) == ("::1", 8400, "other.sqlite")
    # The controller's own loader leaves [display] to the display.
    run = subprocess.run([sys.executable, "-m", "controller.cli.tablectl", "config", "check",
                          str(config)], cwd=REPO, capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stdout + run.stderr


def test_a_bad_display_setting_is_one_line_and_exit_2(tmp_path: Path) -> None:
    config = tmp_path / "table.toml"
    text = (REPO / "config" / "mini-baccarat-sim.toml").read_text()
    config.write_text(text + '\n[display]\nlanguage = "fr"\n')
    run = _run("--config", str(config))
    assert run.returncode == 2
    lines = run.stderr.strip().splitlines()
    line = text.count("\n") + 3
    assert lines == [f"table-display: {config}:{line}: field 'display.language': 'fr' is "
                     "not one of es, en"]
    config.write_text(text + '\n[display]\nlisen = "127.0.0.1:1"\n')
    run = _run("--config", str(config))
    assert run.returncode == 2 and "field 'display.lisen': unknown key" in run.stderr
    run = _run("--config", str(REPO / "config" / "mini-baccarat-sim.toml"), "--listen", "8321")
    assert run.returncode == 2
    assert run.stderr.strip().splitlines() == [
        "table-display: --listen: '8321' is not HOST:PORT (e.g. 127.0.0.1:8321)"]


def test_no_write_endpoint_and_a_missing_journal_said_in_words(tmp_path: Path) -> None:
    with display(tmp_path / "none.sqlite", "embedded:default.toml") as shown:
        state = shown.state()
        assert "no journal at" in state["notice"] and state["seq"] == 0
        assert "esperando el diario de la mesa" in shown.get("/")
        for path in ("/", "/state.json", "/events", "/pit"):
            for method in ("POST", "PUT", "DELETE"):
                request = urllib.request.Request(shown.url + path.lstrip("/"), data=b"x",
                                                 method=method)
                with pytest.raises(urllib.error.HTTPError) as refused:
                    urllib.request.urlopen(request, timeout=10)
                assert refused.value.code == 405


def test_the_rules_page_is_the_seed_s_digest(tmp_path: Path) -> None:
    journal = simulated_journal("mini_baccarat", tmp_path)
    with display(journal, config_of("mini_baccarat")) as shown:
        page = shown.get("/rules")
    assert "reglamento del juego: Mini-Bacará" in page
    assert "Art. 11 — insurance" in page and "<li>" in page


needs_analyze = pytest.mark.skipif(shutil.which("systemd-analyze") is None,
                                   reason="systemd-analyze is not installed "
                                          "(.ci/install-debian-packages.sh installs it)")


@needs_analyze
def test_display_unit_verifies_clean(tmp_path: Path) -> None:
    here = Path(sys.executable).parent / "table-display"
    assert here.exists()
    copy = tmp_path / "table-display.service"
    copy.write_text(UNIT.read_text().replace(EXEC, str(here)))
    run = subprocess.run(["systemd-analyze", "verify", str(copy)], capture_output=True,
                         text=True, check=False)
    assert (run.returncode, run.stdout + run.stderr) == (0, "")


@needs_analyze
def test_display_unit_exposure_is_at_most_2_5() -> None:
    run = subprocess.run(["systemd-analyze", "security", "--offline=true", "--threshold=25",
                          str(UNIT)], capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stdout[-2000:]
    figure = float(run.stdout.split("Overall exposure level for table-display.service:")[1]
                   .split()[0])
    assert figure <= 2.5
    assert f"exposure {figure}" in (REPO / "README.md").read_text()


def test_the_display_names_no_game_and_the_controller_imports_it_not() -> None:
    """Each game's view is its package's display.py: the display's own files name none,
    and the controller, the drivers and the simulators never import the display."""
    from controller.core import registry

    for path in sorted((REPO / "display").rglob("*")):
        if path.suffix not in (".py", ".js", ".css"):
            continue
        text = path.read_text(encoding="utf-8").lower()
        for spec in registry.games():
            for name in (spec.name, spec.title, f"controller.games.{spec.name}"):
                assert name.lower() not in text, f"{path.name} names {name!r}"
    for folder in ("controller", "drivers", "sim"):
        for path in (REPO / folder).rglob("*.py"):
            text = path.read_text(encoding="utf-8")
            assert "import display" not in text and "from display" not in text, path


def test_a_journal_that_comes_late_or_is_replaced_is_followed_again(tmp_path: Path) -> None:
    from tests.display_helpers import Copier, records

    source = simulated_journal("roulette", tmp_path)
    head = records(source)[-1]["seq"]
    live = tmp_path / "live" / "journal.sqlite"
    live.parent.mkdir()
    with display(live, "embedded:default.toml") as shown:
        assert "no journal at" in shown.state()["notice"]
        copier = Copier(source, live)  # the daemon makes it
        copier.upto(10)
        state = shown.wait_seq(10)
        assert state["seq"] == 10 and state["problem"] is None
        copier.close()
        # Replaced by another file (a restore): read again from its first record.
        other = tmp_path / "other.sqlite"
        copier = Copier(source, other)
        copier.upto(5)
        copier.close()
        for stale in ("-wal", "-shm"):  # a restore replaces the journal's files, all of them
            live.with_name(live.name + stale).unlink(missing_ok=True)
        other.replace(live)
        state = shown.wait_for(lambda s: s["seq"] != 10, timeout=15)
        assert state["seq"] == 5 and state["problem"] is None
    assert head > 10


# How the display is started: SIGINT as a terminal leaves it, or ignored, as a shell without
# job control leaves it to a background job (make run's display; a CI runner's `.ci/run`,
# whose pytest workers and their children inherit it).
INHERITED = {"default": signal.SIG_DFL, "ignored": signal.SIG_IGN}


def _start(inherited: str, *args: str) -> subprocess.Popen[str]:
    """``table-display`` with ``args``, its stderr piped, SIGINT as ``inherited`` says."""
    disposition = INHERITED[inherited]
    return subprocess.Popen([str(Path(sys.executable).parent / "table-display"), *args],
                            stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, disposition))


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
@pytest.mark.parametrize("inherited", INHERITED)
def test_the_banner_fits_80_columns_and_ctrl_c_stops_it_quietly(
        tmp_path: Path, inherited: str, sig: int) -> None:
    # The bug: with SIGINT inherited ignored, a Ctrl-C sent as soon as the banner was read
    # fell before uvicorn caught the signal, was dropped, and the display served on.
    proc = _start(inherited, "--journal", str(tmp_path / "journal.sqlite"),
                  "--listen", "127.0.0.1:0")
    assert proc.stderr is not None
    banner = [proc.stderr.readline() for _ in range(6)]  # blocks until it is printed
    code, rest = stopped(proc, sig, timeout=30)
    assert banner[0].startswith("table-display: the table's screen at http://127.0.0.1:")
    assert "Ctrl-C stops it" in banner[5]
    assert banner[4].strip() == str(tmp_path / "journal.sqlite")  # a path: a line its own
    assert all(len(line.rstrip("\n")) <= 80 for line in banner[:4] + banner[5:])
    assert code == 0 and "Traceback" not in rest


def _opened_once_read(fifo: Path, timeout: float = 60.0) -> IO[str]:
    """``fifo`` opened to be written, once a reader opened it (the open waits for one).

    Raises:
        AssertionError: no reader came within ``timeout`` s (the open is released).
    """
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        opening = pool.submit(open, fifo, "w", encoding="utf-8")
        try:
            return opening.result(timeout)
        except concurrent.futures.TimeoutError:
            os.close(os.open(fifo, os.O_RDONLY | os.O_NONBLOCK))  # the writer's open ends
            opening.result().close()
            raise AssertionError(f"nothing opened {fifo} in {timeout} s") from None


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
@pytest.mark.parametrize("inherited", INHERITED)
def test_a_stop_before_the_banner_stops_it_quietly(tmp_path: Path, inherited: str,
                                                   sig: int) -> None:
    """The stop comes while the display reads its config, before anything listens: its
    config is a FIFO, whose open waits for the display to read it, so the signal falls
    there every time. It stops there, exit 0, no banner and no traceback (it used to
    print a KeyboardInterrupt's traceback, die of SIGTERM, or, SIGINT ignored, serve on)."""
    config = tmp_path / "table.toml"
    os.mkfifo(config)
    proc = _start(inherited, "--config", str(config), "--journal",
                  str(tmp_path / "journal.sqlite"), "--listen", "127.0.0.1:0")
    try:
        text = _opened_once_read(config)
        proc.send_signal(sig)
        with contextlib.suppress(BrokenPipeError), text:  # it may have stopped reading
            text.write((REPO / "config" / "mini-baccarat-sim.toml").read_text())
    finally:
        code, err = stopped(proc, None, timeout=30)
    assert (code, err) == (0, "")
