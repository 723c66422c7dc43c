#!/usr/bin/env bash
# Install the table controller on this machine (a Raspberry Pi): one command.
#
#   sudo scripts/install.sh [--root DIR] [--offline WHEELS_DIR] [--config FILE] [--lgpio-wheel]
#   scripts/install.sh --build-wheels WHEELS_DIR [--lgpio-wheel]
#
# What lands (under DIR with --root):
#   /opt/table-controller/venv/          the virtual environment (pip install of this checkout)
#   /opt/table-controller/*.md           README.md and hardware.md (the unit's Documentation=)
#   /usr/local/bin/tablectl, table-controller, table-display, table-feed, table-floor
#                                        symlinks into the venv
#   /etc/systemd/system/table-display.service     the screen's unit (table-display)
#   /etc/sysusers.d/table-display.conf   user table-display, in group table-controller
#   /etc/systemd/system/table-controller.service  the unit (+ .service.d/network.conf when
#                                        the config's shoe is behind a serial server)
#   /etc/systemd/system/table-feed.service  the feed to the floor's broker, its network
#                                        limited to the addresses of the config's [feed]
#                                        broker (enabled when the config has one)
#   /etc/sysusers.d/table-controller.conf   user table-controller, groups table-admin, gpio,
#                                        dialout; user table-feed in group table-controller
#   /etc/udev/rules.d/99-table-shoe.rules   the shoe's stable name (kept if it exists)
#   /etc/table-controller/table.toml     the config (FILE, default config/roulette-table.toml;
#                                        an existing one is never overwritten)
#
# --root DIR     a scratch root: everything goes under DIR and nothing touches this system
#                (no sysusers, udev, chgrp or systemctl: what would be run is printed).
# --offline DIR  install from wheels built on a machine with network, without network;
#                build them there with: scripts/install.sh --build-wheels DIR
# --config FILE  the table's config to install as /etc/table-controller/table.toml.
# --lgpio-wheel  an isolated venv with lgpio from PyPI (or DIR), instead of the system's
#                python3-lgpio (apt) seen through --system-site-packages (the default).
# --build-wheels DIR  only build the wheels --offline installs (no root needed).
# --python PY    the Python (3.11 or later) that makes the venv (default python3).
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
ROOT=""
WHEELS=""
CONFIG="$REPO/config/roulette-table.toml"
LGPIO_WHEEL=0
PYTHON=python3
BUILD_WHEELS=""

step() { echo "install: $*"; }
# pip builds a source tree in place and setuptools keeps its build/ folder, where a module
# since deleted would linger into the package: build from a clean copy of the sources.
SCRATCH_SRC=""
trap '[ -z "$SCRATCH_SRC" ] || rm -rf "$SCRATCH_SRC" "$SCRATCH_SRC.pip"' EXIT
clean_copy() {  # sets SCRATCH_SRC
  SCRATCH_SRC=$(mktemp -d)
  tar -C "$REPO" --exclude=./.git --exclude=./.venv --exclude=./var --exclude=./build \
      --exclude='*.egg-info' --exclude=__pycache__ -cf - . | tar -C "$SCRATCH_SRC" -xf -
}
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit "${1:-0}"; }
die() { echo "install: $*" >&2; exit 1; }

while [ $# -gt 0 ]; do
  case "$1" in
    --root) ROOT=${2:?--root needs a folder}; shift 2 ;;
    --offline) WHEELS=${2:?--offline needs the wheels folder}; shift 2 ;;
    --config) CONFIG=${2:?--config needs a file}; shift 2 ;;
    --lgpio-wheel) LGPIO_WHEEL=1; shift ;;
    --build-wheels) BUILD_WHEELS=${2:?--build-wheels needs a folder}; shift 2 ;;
    --python) PYTHON=${2:?--python needs an interpreter}; shift 2 ;;
    -h|--help) usage 0 ;;
    *) echo "install: unknown option $1" >&2; usage 2 ;;
  esac
done

if [ -n "$BUILD_WHEELS" ]; then
  # The wheels of this checkout and its dependencies, for --offline on a machine without
  # network. They are pure Python: any machine with Python 3.11+ builds them for a Pi
  # (lgpio, with --lgpio-wheel, only on the Pi's own architecture).
  clean_copy
  SOURCE=$SCRATCH_SRC
  [ "$LGPIO_WHEEL" -eq 1 ] && SOURCE="$SOURCE[pi]"
  mkdir -p "$BUILD_WHEELS"
  if ! "$PYTHON" -m pip --version >/dev/null 2>&1; then  # Debian's python3 comes without pip
    "$PYTHON" -m venv "$SCRATCH_SRC.pip"
    PYTHON=$SCRATCH_SRC.pip/bin/python
  fi
  "$PYTHON" -m pip --disable-pip-version-check --quiet wheel -w "$BUILD_WHEELS" "$SOURCE"
  echo "install: wheels in $BUILD_WHEELS:"
  ls "$BUILD_WHEELS" | sed 's/^/  /'
  exit 0
fi

SCRATCH=0
if [ -n "$ROOT" ] && [ "$ROOT" != "/" ]; then
  mkdir -p "$ROOT"
  ROOT=$(cd "$ROOT" && pwd)
  SCRATCH=1
else
  ROOT=""
  [ "$(id -u)" -eq 0 ] || die "run it as root (sudo), or with --root DIR for a scratch install"
fi
[ -f "$CONFIG" ] || die "--config $CONFIG: no such file"
CONFIG=$(cd "$(dirname "$CONFIG")" && pwd)/$(basename "$CONFIG")
if [ -n "$WHEELS" ]; then
  [ -d "$WHEELS" ] || die "--offline $WHEELS: no such folder"
  WHEELS=$(cd "$WHEELS" && pwd)
fi
"$PYTHON" -c 'import sys, venv; sys.exit(sys.version_info < (3, 11))' 2>/dev/null \
  || die "$PYTHON: Python 3.11 or later with venv is needed (apt-get install python3-venv)"

PREFIX=$ROOT/opt/table-controller
VENV=$PREFIX/venv
ETC=$ROOT/etc/table-controller
UNITS=$ROOT/etc/systemd/system
DONE=()       # what was installed, for the summary
TODO=()       # commands for this system (run, or printed with --root)

# -- the virtual environment, once the config is checked -----------------------------------
PACKAGE=table-controller
[ "$LGPIO_WHEEL" -eq 1 ] && PACKAGE="table-controller[pi]"
# fill_venv DIR [PIP_OPTION...]: make the venv DIR (if missing) and install the package into
# it, with these options of pip install (--no-compile).
fill_venv() {
  local venv=$1
  shift
  if [ ! -x "$venv/bin/python" ]; then
    if [ "$LGPIO_WHEEL" -eq 1 ]; then
      "$PYTHON" -m venv "$venv"
    else
      # The Pi's lgpio comes from apt (python3-lgpio): the venv sees the system's packages.
      "$PYTHON" -m venv --system-site-packages "$venv"
    fi
  fi
  local pip=("$venv/bin/python" -m pip --disable-pip-version-check --quiet)
  if [ -n "$WHEELS" ]; then
    "${pip[@]}" install "$@" --no-index --find-links "$WHEELS" --force-reinstall "$PACKAGE"
  else
    [ -n "$SCRATCH_SRC" ] || clean_copy
    local source=$SCRATCH_SRC
    [ "$LGPIO_WHEEL" -eq 1 ] && source="$source[pi]"
    "${pip[@]}" install "$@" --upgrade --force-reinstall "$source"
  fi
}
# The config is checked by the code being installed, before anything lands: in a staging
# venv in a temporary folder (a venv cannot be moved, so the real one is made after).
STAGE=$(mktemp -d)
trap '[ -z "$SCRATCH_SRC" ] || rm -rf "$SCRATCH_SRC" "$SCRATCH_SRC.pip"; rm -rf "$STAGE"' EXIT
step "checking $CONFIG with the code to install"
# Thrown away after the check: no bytecode (compiling is two thirds of pip's time).
fill_venv "$STAGE/venv" --no-compile
# The daemon's own checks too (a GPIO wheel's inputs wired...): what stops the daemon
# stops the install.
"$STAGE/venv/bin/python" - "$CONFIG" <<'EOF' || exit 2
import sys
from controller.cli.compose import load_daemon_config
from controller.core.errors import InputError
try:
    load_daemon_config(sys.argv[1])
except InputError as exc:
    sys.exit(f"install: {exc} (nothing was installed)")
EOF
if [ -n "$WHEELS" ]; then
  step "$PACKAGE into $VENV from the wheels in $WHEELS (no network)"
else
  step "$PACKAGE into $VENV from $REPO"
fi
fill_venv "$VENV"
install -d -m 0755 "$PREFIX"
install -m 0644 "$REPO/README.md" "$REPO/hardware.md" "$PREFIX/"
DONE+=("$VENV (table-controller $("$VENV/bin/python" -c \
  'from importlib.metadata import version; print(version("table-controller"))'))")
if ! "$VENV/bin/python" -c 'import lgpio' 2>/dev/null; then
  echo "install: note: lgpio is not importable in the venv; on a Pi, apt-get install" \
       "python3-lgpio (then re-run), or re-run with --lgpio-wheel" >&2
fi

# -- the config (never overwritten) -------------------------------------------------------
install -d -m 0750 "$ETC"
if [ -e "$ETC/table.toml" ]; then
  DONE+=("$ETC/table.toml kept as it was (the new one was not installed)")
else
  install -m 0640 "$CONFIG" "$ETC/table.toml"
  DONE+=("$ETC/table.toml from $CONFIG")
fi
TODO+=("chgrp table-controller /etc/table-controller /etc/table-controller/table.toml")

# -- the unit, its network drop-in, users, udev -------------------------------------------
install -d -m 0755 "$UNITS" "$ROOT/etc/sysusers.d" "$ROOT/etc/udev/rules.d" "$ROOT/usr/local/bin"
install -m 0644 "$REPO/systemd/table-controller.service" "$UNITS/"
DONE+=("$UNITS/table-controller.service")
# The table's screen (table-display): its own unit and user, read-only on the journal.
install -m 0644 "$REPO/systemd/table-display.service" "$UNITS/"
DONE+=("$UNITS/table-display.service")
# A shoe behind a serial server needs the network: the drop-in opens it to that host only.
ADDRESSES=$("$VENV/bin/python" - "$ETC/table.toml" <<'EOF'
import ipaddress, socket, sys, tomllib
from urllib.parse import urlsplit
with open(sys.argv[1], "rb") as f:
    serial = tomllib.load(f).get("serial", {})
found = []
for port in serial.values():
    url = urlsplit(str(port.get("url", "")))
    if url.scheme in ("socket", "rfc2217") and url.hostname:
        try:
            found.append(str(ipaddress.ip_address(url.hostname)))
        except ValueError:  # a name: its addresses now (a changed address needs a re-run)
            found += sorted({a[4][0] for a in socket.getaddrinfo(url.hostname, None)})
print(" ".join(dict.fromkeys(found)))
EOF
)
DROP_IN=$UNITS/table-controller.service.d/network.conf
if [ -n "$ADDRESSES" ]; then
  install -d -m 0755 "$(dirname "$DROP_IN")"
  sed "s|@SHOE_ADDRESSES@|$ADDRESSES|" "$REPO/systemd/network.conf" > "$DROP_IN"
  chmod 0644 "$DROP_IN"
  DONE+=("$DROP_IN (network to $ADDRESSES only)")
elif [ -e "$DROP_IN" ]; then
  rm -f "$DROP_IN"
  DONE+=("$DROP_IN removed (the config needs no network)")
fi
# The feed's unit: IP only to the broker's addresses (a name is resolved now: a changed
# address needs a re-run); without a [feed] broker it has none and is not enabled.
BROKER=$("$VENV/bin/python" - "$ETC/table.toml" <<'EOF'
import ipaddress, socket, sys, tomllib
from urllib.parse import urlsplit
with open(sys.argv[1], "rb") as f:
    url = urlsplit(str(tomllib.load(f).get("feed", {}).get("broker", "")))
found = []
if url.scheme in ("mqtt", "mqtts") and url.hostname:
    try:
        found.append(str(ipaddress.ip_address(url.hostname)))
    except ValueError:
        try:
            found += sorted({a[4][0] for a in socket.getaddrinfo(url.hostname, None)})
        except OSError as exc:
            sys.exit(f"install: [feed] broker {url.hostname}: cannot be resolved ({exc})")
print(" ".join(dict.fromkeys(found)))
EOF
) || exit 2
if [ -n "$BROKER" ]; then
  sed "s|@BROKER_ADDRESSES@|$BROKER|" "$REPO/systemd/table-feed.service" \
    > "$UNITS/table-feed.service"
  DONE+=("$UNITS/table-feed.service (network to $BROKER only)")
else
  sed '/@BROKER_ADDRESSES@/d' "$REPO/systemd/table-feed.service" > "$UNITS/table-feed.service"
  DONE+=("$UNITS/table-feed.service (no [feed] broker in the config: no network, not enabled)")
fi
chmod 0644 "$UNITS/table-feed.service"
install -m 0644 "$REPO/systemd/table-controller.sysusers" \
  "$ROOT/etc/sysusers.d/table-controller.conf"
DONE+=("$ROOT/etc/sysusers.d/table-controller.conf")
install -m 0644 "$REPO/systemd/table-display.sysusers" \
  "$ROOT/etc/sysusers.d/table-display.conf"
DONE+=("$ROOT/etc/sysusers.d/table-display.conf")
TODO=("systemd-sysusers /etc/sysusers.d/table-controller.conf"
      "systemd-sysusers /etc/sysusers.d/table-display.conf" "${TODO[@]}")
RULE=$ROOT/etc/udev/rules.d/99-table-shoe.rules
if [ -e "$RULE" ]; then
  DONE+=("$RULE kept as it was")
else
  install -m 0644 "$REPO/systemd/99-table-shoe.rules" "$RULE"
  DONE+=("$RULE (fill it in: scripts/shoe-udev-rule.sh /dev/ttyUSB0)")
fi
TODO+=("udevadm control --reload-rules" "udevadm trigger --subsystem-match=tty")
for tool in tablectl table-controller table-display table-feed table-floor; do
  ln -sfn "../../../opt/table-controller/venv/bin/$tool" "$ROOT/usr/local/bin/$tool"
done
DONE+=("$ROOT/usr/local/bin/tablectl, table-controller, table-display, table-feed and table-floor")
TODO+=("systemctl daemon-reload" "systemctl enable table-controller table-display")
[ -z "$BROKER" ] || TODO+=("systemctl enable table-feed")

# -- this system ----------------------------------------------------------------------------
for line in "${DONE[@]}"; do echo "  installed: $line"; done
if [ "$SCRATCH" -eq 1 ]; then
  echo "install: scratch root $ROOT: on a real install this would run:"
  for cmd in "${TODO[@]}"; do echo "  would run: $cmd"; done
  exit 0
fi
for cmd in "${TODO[@]}"; do
  case "$cmd" in
    udevadm*) command -v udevadm >/dev/null || { echo "  skipped (no udev): $cmd"; continue; } ;;
    systemctl*) [ -d /run/systemd/system ] || { echo "  skipped (systemd is not running):" \
                                                      "$cmd"; continue; } ;;
  esac
  echo "  running: $cmd"
  $cmd
done
cat <<EOF
install: done. Next:
  edit /etc/table-controller/table.toml (pins, [serial.shoe] url; hardware.md)
  sudo usermod -aG table-admin,table-controller \$USER      # tablectl without sudo
  sudo systemctl start table-controller
  systemctl status table-controller                       # the status line
  journalctl -u table-controller -f                       # the log
EOF
