"""The systemd unit: starts the daemon at boot as its own user, tells systemd when it is ready
and alive, restarts it on failure but not on a bad config, and sandboxes it (exposure 2.5 or
less) without taking its GPIO chips and serial ports away."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest

from controller.cli.compose import EXIT_BAD_INPUT, EXIT_JOURNAL_UNREADABLE

REPO = Path(__file__).resolve().parents[1]
UNIT = REPO / "systemd" / "table-controller.service"
NETWORK = REPO / "systemd" / "network.conf"
EXEC = "/opt/table-controller/venv/bin/table-controller"
MAX_EXPOSURE = 2.5


def parse(path: Path) -> dict[str, dict[str, list[str]]]:
    """Section -> key -> every value assigned, in order (systemd keys may repeat)."""
    unit: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    section = ""
    for raw in path.read_text().splitlines():
        text = raw.strip()
        if not text or text.startswith(("#", ";")):
            continue
        if text.startswith("["):
            section = text.strip("[]")
            continue
        key, _, value = text.partition("=")
        unit[section][key].append(value)
    return unit


def service() -> dict[str, list[str]]:
    return parse(UNIT)["Service"]


def one(key: str) -> str:
    (value,) = service()[key]
    return value


def test_unit_runs_the_daemon_as_its_own_user_and_restarts_on_failure() -> None:
    assert one("User") == "table-controller"
    assert one("Restart") == "on-failure"
    assert one("ExecStart") == f"{EXEC} run --config /etc/table-controller/table.toml"
    assert one("NoNewPrivileges") == "yes"


def test_unit_is_notify_with_a_watchdog() -> None:
    assert one("Type") == "notify" and one("NotifyAccess") == "main"
    assert float(one("WatchdogSec")) >= 5  # the daemon sends every half of it


def test_a_bad_config_is_not_restarted_but_a_crash_loop_stops(tmp_path: Path) -> None:
    assert one("RestartPreventExitStatus").split() == [str(EXIT_BAD_INPUT),
                                                      str(EXIT_JOURNAL_UNREADABLE)]
    unit = parse(UNIT)["Unit"]
    assert int(unit["StartLimitBurst"][0]) >= 3 and int(unit["StartLimitIntervalSec"][0]) > 0
    # What the unit prevents: a bad config exits with that code, in one line.
    bad = tmp_path / "table.toml"
    bad.write_text('[table]\ngame = "roulette"\nname = 3\n')
    run = subprocess.run([sys.executable, "-m", "controller.cli.main", "run", "--config",
                          str(bad)], capture_output=True, text=True, cwd=tmp_path, check=False)
    assert run.returncode == EXIT_BAD_INPUT
    assert run.stderr.splitlines()[-1].startswith(f"table-controller: {bad}:")


def test_unit_starts_at_boot_and_opens_no_network_socket() -> None:
    assert parse(UNIT)["Install"]["WantedBy"] == ["multi-user.target"]
    assert one("RestrictAddressFamilies") == "AF_UNIX"
    assert one("IPAddressDeny") == "any" and one("PrivateNetwork") == "yes"


def test_network_drop_in_opens_only_what_a_serial_server_needs() -> None:
    drop_in = parse(NETWORK)["Service"]
    assert drop_in["PrivateNetwork"] == ["no"]
    assert drop_in["RestrictAddressFamilies"] == ["", "AF_UNIX AF_INET AF_INET6"]
    assert drop_in["IPAddressAllow"] == ["@SHOE_ADDRESSES@"]  # filled in by the install
    assert "IPAddressDeny" not in drop_in  # the unit's "any" stays for every other address


def test_unit_wants_the_clock_synchronised_before_it_stamps_records() -> None:
    unit = parse(UNIT)["Unit"]
    assert "time-sync.target" in " ".join(unit["Wants"]).split()
    assert "time-sync.target" in " ".join(unit["After"]).split()


def test_gpio_chips_and_serial_ports_stay_reachable() -> None:
    assert one("DevicePolicy") == "closed"
    allowed = {value.split()[0]: value.split()[1] for value in service()["DeviceAllow"]}
    for kind in ("char-gpiochip", "char-ttyUSB", "char-ttyACM", "char-ttyAMA", "char-ttyS"):
        assert allowed.get(kind) == "rw", kind
    assert set(one("SupplementaryGroups").split()) == {"gpio", "dialout"}
    # Either would hide the devices or their groups: PrivateDevices= leaves no /dev/gpiochip*,
    # PrivateUsers= maps gpio, dialout and table-admin to nobody.
    assert "PrivateDevices" not in service() and "PrivateUsers" not in service()
    # gpiozero's lgpio factory reads the Pi's revision in /proc, which ProcSubset=pid hides.
    assert "ProcSubset" not in service()
    # A device group enters the allow list only if its driver is loaded when the unit starts.
    unit = parse(UNIT)["Unit"]
    for module in ("usbserial", "cdc_acm"):
        assert f"modprobe@{module}.service" in " ".join(unit["Wants"]).split()
        assert f"modprobe@{module}.service" in " ".join(unit["After"]).split()


def test_no_capabilities_and_a_system_call_filter() -> None:
    assert one("CapabilityBoundingSet") == "" and one("AmbientCapabilities") == ""
    assert service()["SystemCallFilter"][0] == "@system-service"
    assert one("SystemCallArchitectures") == "native"
    assert one("MemoryDenyWriteExecute") == "yes"  # see test_watchdog: CPython runs under it


def test_files_the_daemon_makes_are_not_world_readable() -> None:
    assert one("UMask") == "0027"


# -- systemd-analyze ---------------------------------------------------------------------
needs_analyze = pytest.mark.skipif(shutil.which("systemd-analyze") is None,
                                   reason="systemd-analyze is not installed "
                                          "(.ci/install-debian-packages.sh installs it)")


@needs_analyze
def test_unit_verifies_clean(tmp_path: Path) -> None:
    # verify wants ExecStart to exist: a copy that runs this checkout's table-controller.
    here = Path(sys.executable).parent / "table-controller"
    assert here.exists()
    copy = tmp_path / "table-controller.service"
    copy.write_text(UNIT.read_text().replace(EXEC, str(here)))
    run = subprocess.run(["systemd-analyze", "verify", str(copy)], capture_output=True,
                         text=True, check=False)
    assert (run.returncode, run.stdout + run.stderr) == (0, "")


@needs_analyze
def test_unit_exposure_is_at_most_2_5() -> None:
    run = subprocess.run(["systemd-analyze", "security", "--offline=true",
                          f"--threshold={int(MAX_EXPOSURE * 10)}", str(UNIT)],
                         capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stdout[-2000:]
    figure = float(run.stdout.split("Overall exposure level for table-controller.service:")[1]
                   .split()[0])
    assert figure <= MAX_EXPOSURE
    readme = (REPO / "README.md").read_text()
    assert f"exposure {figure}" in readme  # the README states the figure CI checks
