"""The feed's unit (issue 18): its own unprivileged user reading the journal through the
controller's group, the network to the broker's addresses only, exposure 3 or less; and
the controller, which never imports the feed and whose unit keeps no network."""

from __future__ import annotations

import ast
import shutil
import subprocess
from pathlib import Path

import pytest
from test_systemd_unit import parse

REPO = Path(__file__).resolve().parents[1]
UNIT = REPO / "systemd" / "table-feed.service"
MAX_EXPOSURE = 3.0


def service() -> dict[str, list[str]]:
    return parse(UNIT)["Service"]


def test_the_feed_runs_as_its_own_user_reading_the_journal_through_the_group() -> None:
    unit = service()
    assert unit["User"] == ["table-feed"] and unit["Group"] == ["table-feed"]
    assert unit["SupplementaryGroups"] == ["table-controller"]
    assert unit["ExecStart"][0].split()[:1] == ["/opt/table-controller/venv/bin/table-feed"]
    assert "--cursor /var/lib/table-feed/cursor" in unit["ExecStart"][0]
    assert unit["StateDirectory"] == ["table-feed"]
    assert unit["CapabilityBoundingSet"] == [""] and unit["NoNewPrivileges"] == ["yes"]
    sysusers = (REPO / "systemd" / "table-controller.sysusers").read_text().splitlines()
    assert "m table-feed table-controller" in sysusers


def test_the_feed_reaches_the_broker_only() -> None:
    unit = service()
    assert unit["IPAddressDeny"] == ["any"]
    assert unit["IPAddressAllow"] == ["@BROKER_ADDRESSES@"]  # the install fills it in
    assert unit["RestrictAddressFamilies"] == ["AF_UNIX AF_INET AF_INET6"]
    controller = parse(REPO / "systemd" / "table-controller.service")["Service"]
    assert controller["PrivateNetwork"] == ["yes"]
    assert controller["RestrictAddressFamilies"] == ["AF_UNIX"]


def test_a_bad_config_or_a_refused_login_is_not_restarted() -> None:
    assert service()["RestartPreventExitStatus"] == ["2"]
    assert service()["Restart"] == ["on-failure"]


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="no systemd-analyze")
def test_the_feed_unit_exposure_is_at_most_3(tmp_path: Path) -> None:
    unit = tmp_path / "table-feed.service"
    unit.write_text(UNIT.read_text().replace("@BROKER_ADDRESSES@", "192.0.2.10"))
    run = subprocess.run(["systemd-analyze", "security", "--offline=true",
                          f"--threshold={int(MAX_EXPOSURE * 10)}", str(unit)],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stdout[-2000:]
    level = float(run.stdout.strip().splitlines()[-1].split(":")[1].split()[0])
    assert level <= MAX_EXPOSURE


def test_the_controller_never_imports_the_feed() -> None:
    for path in (REPO / "controller").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                     [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            assert not any(n == "feed" or n.startswith("feed.") for n in names), path
