#!/usr/bin/env bash
# Debian packages the project needs on a fresh machine (CI and developers).
# Python's venv module is the only one: sqlite3 and tomllib are in the standard library,
# and the GPIO/serial stacks are pip packages (lgpio only on the Pi, see hardware.md).
set -euo pipefail
if ! python3 -c 'import venv, ensurepip' 2>/dev/null; then
  apt-get update -qq
  apt-get install -y -qq python3-venv make
fi
command -v make >/dev/null || { apt-get update -qq; apt-get install -y -qq make; }
