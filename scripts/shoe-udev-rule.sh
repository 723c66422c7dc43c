#!/usr/bin/env bash
# The udev rule that names the plugged card shoe /dev/table-shoe, from what udev reads of it.
#
#   scripts/shoe-udev-rule.sh DEVICE [--write] [--root DIR]
#
# DEVICE is the shoe's port now (/dev/ttyUSB0, /dev/ttyACM0). The rule matches the adapter's
# USB vendor, product and serial number; an adapter without a serial number is matched by
# the USB socket it is plugged into (ID_PATH: keep it in that socket). ModemManager is kept
# off the port (ENV{ID_MM_DEVICE_IGNORE}="1").
# Prints the rule; --write installs it as /etc/udev/rules.d/99-table-shoe.rules (under DIR
# with --root) and, on this system, reloads udev so /dev/table-shoe appears.
set -euo pipefail

DEVICE=""
WRITE=0
ROOT=""
while [ $# -gt 0 ]; do
  case "$1" in
    --write) WRITE=1; shift ;;
    --root) ROOT=${2:?--root needs a folder}; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "shoe-udev-rule: unknown option $1" >&2; exit 2 ;;
    *) DEVICE=$1; shift ;;
  esac
done
[ -n "$DEVICE" ] || { echo "shoe-udev-rule: give the shoe's port, e.g. /dev/ttyUSB0" >&2; exit 2; }
command -v udevadm >/dev/null || { echo "shoe-udev-rule: udevadm not found (udev)" >&2; exit 1; }
PROPS=$(udevadm info --query=property --name="$DEVICE") \
  || { echo "shoe-udev-rule: udev knows no device $DEVICE (is the shoe plugged in?)" >&2; exit 1; }
prop() {  # the first of the named properties that udev has (newer udev says ID_USB_...)
  local name value
  for name in "$@"; do
    value=$(printf '%s\n' "$PROPS" | sed -n "s/^$name=//p" | head -n 1)
    [ -n "$value" ] && { printf '%s' "$value"; return; }
  done
}
VENDOR=$(prop ID_USB_VENDOR_ID ID_VENDOR_ID)
PRODUCT=$(prop ID_USB_MODEL_ID ID_MODEL_ID)
SERIAL=$(prop ID_USB_SERIAL_SHORT ID_SERIAL_SHORT)
NAME=$(prop ID_USB_SERIAL ID_SERIAL)
[ -n "$VENDOR" ] && [ -n "$PRODUCT" ] \
  || { echo "shoe-udev-rule: $DEVICE is not a USB serial adapter (no ID_VENDOR_ID)" >&2; exit 1; }
if [ -n "$SERIAL" ]; then
  MATCH="ATTRS{serial}==\"$SERIAL\""
else
  ID_PATH=$(prop ID_PATH)
  [ -n "$ID_PATH" ] || { echo "shoe-udev-rule: $DEVICE has neither a serial number nor an" \
                              "ID_PATH" >&2; exit 1; }
  MATCH="ENV{ID_PATH}==\"$ID_PATH\""
fi
RULE="SUBSYSTEM==\"tty\", ATTRS{idVendor}==\"$VENDOR\", ATTRS{idProduct}==\"$PRODUCT\", $MATCH, SYMLINK+=\"table-shoe\", GROUP=\"dialout\", MODE=\"0660\", ENV{ID_MM_DEVICE_IGNORE}=\"1\""
TEXT="# The card shoe ${NAME:-$VENDOR:$PRODUCT}, read from $DEVICE by scripts/shoe-udev-rule.sh.
# [serial.shoe] url = \"/dev/table-shoe\"; ModemManager is kept off the port.
$RULE"
if [ "$WRITE" -eq 0 ]; then
  printf '%s\n' "$TEXT"
  exit 0
fi
TARGET=$ROOT/etc/udev/rules.d/99-table-shoe.rules
mkdir -p "$(dirname "$TARGET")"
printf '%s\n' "$TEXT" > "$TARGET"
chmod 0644 "$TARGET"
echo "shoe-udev-rule: wrote $TARGET"
if [ -n "$ROOT" ] && [ "$ROOT" != "/" ]; then
  echo "  would run: udevadm control --reload-rules"
  echo "  would run: udevadm trigger --subsystem-match=tty"
else
  udevadm control --reload-rules
  udevadm trigger --subsystem-match=tty
  echo "shoe-udev-rule: /dev/table-shoe appears once udev has run (ls -l /dev/table-shoe)"
fi
