"""scripts/install.sh into a scratch root: the offline variant from wheels built here from
the repository, what lands where, and nothing done to this machine.

Each install makes two venvs (the config's check, then /opt's) of some 30 packages: the
module makes as few as its rules need. The first (``installed``) is the install exactly as
on a Pi; the others check how a config is handled, and skip pip's bytecode
(``PIP_COMPILE=0``), two thirds of pip's time, which nothing here looks at."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
INSTALL = REPO / "scripts" / "install.sh"
UNIT_PATH = "etc/systemd/system/table-controller.service"
DROP_IN = "etc/systemd/system/table-controller.service.d/network.conf"
NETWORK_SHOE = """
[table]
game = "mini_baccarat"
name = "baccarat-2"

[serial.shoe]
url = "socket://192.0.2.7:4001"
"""


@dataclass
class Installed:
    root: Path
    wheels: Path
    output: str


def install(*args: str, code: int = 0, bytecode: bool = False
             ) -> subprocess.CompletedProcess[str]:
    """``install.sh ARGS``, which must exit ``code``; pip compiles bytecode if ``bytecode``."""
    env = {**os.environ, **({} if bytecode else {"PIP_COMPILE": "0"})}
    run = subprocess.run(["bash", str(INSTALL), *args], capture_output=True, text=True,
                         check=False, stdin=subprocess.DEVNULL, env=env)
    assert run.returncode == code, run.stdout + run.stderr
    return run


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    """Wheels built from this checkout (as on a machine with network), then the offline
    install from them into a scratch root."""
    base = tmp_path_factory.mktemp("install")
    wheels, root = base / "wheels", base / "root"
    built = install("--build-wheels", str(wheels))
    assert "table_controller-" in built.stdout
    run = install("--root", str(root), "--offline", str(wheels), bytecode=True)
    return Installed(root, wheels, run.stdout)


FEED_UNIT = "etc/systemd/system/table-feed.service"


@pytest.fixture(scope="module")
def networked(installed: Installed, tmp_path_factory: pytest.TempPathFactory) -> Installed:
    """A table whose shoe is behind a serial server and whose [feed] names a broker,
    installed into a root of its own."""
    base = tmp_path_factory.mktemp("networked")
    config = base / "baccarat.toml"
    config.write_text(NETWORK_SHOE + '\n[feed]\nbroker = "mqtts://192.0.2.9:8883"\n'
                      'site = "casino-1"\n')
    root = base / "root"
    run = install("--root", str(root), "--offline", str(installed.wheels),
                  "--config", str(config))
    return Installed(root, installed.wheels, run.stdout)


def test_the_venv_is_under_opt_and_the_tools_on_the_path(installed: Installed) -> None:
    root = installed.root
    venv = root / "opt/table-controller/venv"
    for tool in ("tablectl", "table-controller"):
        link = root / "usr/local/bin" / tool
        # Relative, so that the same link works on the Pi (/usr/local/bin -> /opt/...).
        assert os.readlink(link) == f"../../../opt/table-controller/venv/bin/{tool}"
        assert link.resolve() == (venv / "bin" / tool).resolve()
    run = subprocess.run([str(root / "usr/local/bin/tablectl"), "--help"], capture_output=True,
                         text=True, check=False)
    assert run.returncode == 0 and "status" in run.stdout
    trace = root / "spins.jsonl"
    run = subprocess.run([str(root / "usr/local/bin/table-controller"), "simulate",
                          "--spins", "1", "--out", str(trace)], capture_output=True,
                         text=True, check=False, cwd=root)
    assert run.returncode == 0, run.stderr
    assert trace.read_text().count("\n") > 10
    assert (root / "opt/table-controller/hardware.md").read_text() == (
        REPO / "hardware.md").read_text()


def test_unit_sysusers_and_udev_rule_land_where_systemd_reads_them(installed: Installed) -> None:
    root = installed.root
    assert (root / UNIT_PATH).read_text() == (REPO / "systemd/table-controller.service"
                                              ).read_text()
    sysusers = (root / "etc/sysusers.d/table-controller.conf").read_text()
    for line in ("u table-controller", "g table-admin", "m table-controller gpio",
                 "m table-controller dialout", "m table-controller table-admin"):
        assert line in sysusers
    rule = (root / "etc/udev/rules.d/99-table-shoe.rules").read_text()
    assert 'SYMLINK+="table-shoe"' in rule and 'ENV{ID_MM_DEVICE_IGNORE}="1"' in rule
    assert not (root / DROP_IN).exists()  # the default table needs no network


def test_the_config_is_installed_private_to_the_daemon(installed: Installed) -> None:
    etc = installed.root / "etc/table-controller"
    assert (etc / "table.toml").read_text() == (REPO / "config/roulette-table.toml").read_text()
    assert stat.S_IMODE(etc.stat().st_mode) == 0o750
    assert stat.S_IMODE((etc / "table.toml").stat().st_mode) == 0o640


def test_a_scratch_install_touches_nothing_here_and_says_what_it_would_run(
        installed: Installed) -> None:
    would = [line.split("would run: ", 1)[1] for line in installed.output.splitlines()
             if "would run: " in line]
    assert would == ["systemd-sysusers /etc/sysusers.d/table-controller.conf",
                     "systemd-sysusers /etc/sysusers.d/table-display.conf",
                     "chgrp table-controller /etc/table-controller "
                     "/etc/table-controller/table.toml",
                     "udevadm control --reload-rules", "udevadm trigger --subsystem-match=tty",
                     "systemctl daemon-reload",
                     "systemctl enable table-controller table-display"]


def test_an_existing_config_is_never_overwritten(installed: Installed, tmp_path: Path) -> None:
    other = tmp_path / "other.toml"
    other.write_text(NETWORK_SHOE)
    table = installed.root / "etc/table-controller/table.toml"
    before = table.read_text()
    run = install("--root", str(installed.root), "--offline", str(installed.wheels),
                  "--config", str(other))
    assert table.read_text() == before
    assert f"{table} kept as it was" in run.stdout


def test_a_shoe_behind_a_serial_server_gets_the_network_to_it_only(
        networked: Installed) -> None:
    # The shoe's server alone: not the feed's broker, which is the feed's unit's.
    drop_in = (networked.root / DROP_IN).read_text()
    assert "IPAddressAllow=192.0.2.7\n" in drop_in and "PrivateNetwork=no" in drop_in
    assert "RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6" in drop_in


def test_the_feed_reaches_the_configured_broker_only(networked: Installed) -> None:
    """[feed] broker names an address: the feed's unit allows it alone and is enabled."""
    unit = (networked.root / FEED_UNIT).read_text()
    assert "IPAddressDeny=any\n" in unit
    assert "IPAddressAllow=192.0.2.9\n" in unit
    assert "@BROKER_ADDRESSES@" not in unit
    assert "would run: systemctl enable table-feed" in networked.output


def test_without_a_broker_the_feed_has_no_network(installed: Installed) -> None:
    unit = (installed.root / FEED_UNIT).read_text()
    assert "IPAddressDeny=any\n" in unit
    assert not [line for line in unit.splitlines() if line.startswith("IPAddressAllow")]
    assert "@BROKER_ADDRESSES@" not in unit
    assert "no [feed] broker in the config: no network, not enabled" in installed.output
    assert "systemctl enable table-feed" not in installed.output


@pytest.mark.parametrize("text", [
    '[table]\ngame = "craps"\n',
    # Reads through, but the daemon would stop on it: a roulette wheel with no inputs.
    '[table]\ngame = "roulette"\n'], ids=["unknown game", "no wheel inputs"])
def test_a_bad_config_is_refused_with_one_line(installed: Installed, tmp_path: Path,
                                               text: str) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text(text)
    run = install("--root", str(tmp_path / "root"), "--offline", str(installed.wheels),
                  "--config", str(bad), code=2)
    assert run.stderr.splitlines()[-1].startswith(f"install: {bad}:")
    assert run.stderr.splitlines()[-1].endswith("(nothing was installed)")
    # Checked before anything lands: no venv under /opt, no config, no unit.
    assert not (tmp_path / "root/opt").exists()
    assert not (tmp_path / "root/etc").exists()


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="no systemd-analyze")
def test_the_installed_unit_verifies_clean(installed: Installed, tmp_path: Path) -> None:
    # The unit's paths are the Pi's: a copy pointing into the scratch root, which has them.
    prefix = "/opt/table-controller/"
    unit = tmp_path / "table-controller.service"
    unit.write_text((installed.root / UNIT_PATH).read_text().replace(
        prefix, f"{installed.root}{prefix}"))
    run = subprocess.run(["systemd-analyze", "verify", str(unit)], capture_output=True,
                         text=True, check=False)
    assert (run.returncode, run.stdout + run.stderr) == (0, "")


@pytest.mark.skipif(shutil.which("systemd-sysusers") is None, reason="no systemd-sysusers")
def test_sysusers_makes_the_user_and_groups(installed: Installed) -> None:
    conf = installed.root / "etc/sysusers.d/table-controller.conf"
    run = subprocess.run(["systemd-sysusers", f"--root={installed.root}", "--dry-run",
                          str(conf)], capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr
    said = run.stdout + run.stderr
    for name in ("table-controller", "table-admin", "gpio", "dialout"):
        assert name in said
    assert not (installed.root / "etc/passwd").exists()  # a dry run


def test_the_shoe_rule_is_filled_in_from_udevs_view_of_the_port(tmp_path: Path) -> None:
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "udevadm").write_text("#!/bin/sh\ncat <<EOF\nDEVNAME=/dev/ttyUSB0\n"
                                  "ID_VENDOR_ID=067b\nID_MODEL_ID=2303\n"
                                  "ID_SERIAL=Prolific_USB-Serial_Controller_SHOE42\n"
                                  "ID_SERIAL_SHORT=SHOE42\nEOF\n")
    (fake / "udevadm").chmod(0o755)
    env = {**os.environ, "PATH": f"{fake}:{os.environ['PATH']}"}
    run = subprocess.run(["bash", str(REPO / "scripts/shoe-udev-rule.sh"), "/dev/ttyUSB0",
                          "--write", "--root", str(tmp_path / "root")], capture_output=True,
                         text=True, check=False, env=env)
    assert run.returncode == 0, run.stderr
    rule = (tmp_path / "root/etc/udev/rules.d/99-table-shoe.rules").read_text().splitlines()
    assert rule[-1] == ('SUBSYSTEM=="tty", ATTRS{idVendor}=="067b", ATTRS{idProduct}=="2303", '
                        'ATTRS{serial}=="SHOE42", SYMLINK+="table-shoe", GROUP="dialout", '
                        'MODE="0660", ENV{ID_MM_DEVICE_IGNORE}="1"')
    assert "would run: udevadm control --reload-rules" in run.stdout
