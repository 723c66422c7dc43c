#!/usr/bin/env bash
# Debian packages the project needs on a fresh machine (CI and developers).
# Python's venv module: sqlite3 and tomllib are in the standard library, and the GPIO/serial
# stacks are pip packages (lgpio only on the Pi, see hardware.md). systemd for its
# systemd-analyze and systemd-sysusers (the unit's checks; the machine need not run systemd).
set -euo pipefail
updated=0
need() {  # need PACKAGE: install it (apt-get update once)
  if [ "$updated" -eq 0 ]; then apt-get update -qq; updated=1; fi
  apt-get install -y -qq "$@"
}
python3 -c 'import venv, ensurepip' 2>/dev/null || need python3-venv
command -v make >/dev/null || need make
command -v systemd-analyze >/dev/null || need systemd
# The display's browser tests (tests/test_display_browser.py): Debian's browser and its
# driver, never a download at run time.
{ command -v chromium && command -v chromedriver; } >/dev/null || need chromium chromium-driver
# strace counts each daemon's fsyncs in `make bench` (bench/writes.py; issue 20).
command -v strace >/dev/null || need strace
# The floor (issue 18): the tests start their own Mosquitto broker and PostgreSQL cluster;
# psycopg uses the system's libpq (libpq5, with postgresql); openssl makes the test CA.
command -v mosquitto >/dev/null || [ -x /usr/sbin/mosquitto ] || need mosquitto
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || need postgresql
command -v openssl >/dev/null || need openssl
