"""The systemd unit starts the daemon at boot, unprivileged, and restarts it on failure."""

from __future__ import annotations

import configparser
from pathlib import Path

UNIT = Path(__file__).resolve().parents[1] / "systemd" / "table-controller.service"


def _unit() -> configparser.ConfigParser:
    parser = configparser.ConfigParser(strict=False, interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    parser.read(UNIT)
    return parser


def test_unit_runs_the_daemon_as_its_own_user_and_restarts_on_failure() -> None:
    service = _unit()["Service"]
    assert service["User"] == "table-controller"
    assert service["Restart"] == "on-failure"
    assert "table-controller run --config" in service["ExecStart"]
    assert service["NoNewPrivileges"] == "yes"


def test_unit_starts_at_boot_and_opens_no_network_socket() -> None:
    unit = _unit()
    assert unit["Install"]["WantedBy"] == "multi-user.target"
    assert unit["Service"]["RestrictAddressFamilies"] == "AF_UNIX"


def test_unit_wants_the_clock_synchronised_before_it_stamps_records() -> None:
    unit = _unit()["Unit"]
    assert "time-sync.target" in unit["Wants"].split()
    assert "time-sync.target" in unit["After"].split()
