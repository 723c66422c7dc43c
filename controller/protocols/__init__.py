"""I/O-free line codecs: a device's bytes in, frozen line records out (the shoe reader's
beside its lines in ``controller.cards``, the wheel's here).

``CODECS`` names every codec a config's ``[serial.<port>] codec`` may choose; each entry is a
:class:`Codec`: where its class is (``"module:class"``, made fresh for each port: a codec
keeps an unfinished line) and the device whose lines it reads (``DEVICES``). A port reads
one device's lines: the config loader refuses a codec of another device on it
(``controller.core.config``; hardware.md §2b, §4).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

SHOE = "shoe"
WHEEL = "wheel"
DEVICES: dict[str, str] = {
    SHOE: "a shoe reader's lines",  # CONTRACT §4 (controller.cards.shoe_lines)
    WHEEL: "a wheel's status lines",  # an automated wheel (hardware.md §2b)
}
"""The devices a codec may read, with their lines in words (for messages)."""


@dataclass(frozen=True)
class Codec:
    """One codec: ``path`` of its class (``"module:class"``) and the device it ``reads`` (a
    key of ``DEVICES``)."""

    path: str
    reads: str


CODECS: dict[str, Codec] = {
    "reference": Codec("controller.cards.shoe_reference:ReferenceShoeCodec", SHOE),  # §4
    "status_line": Codec("controller.protocols.wheel_status:StatusLineCodec", WHEEL),
}


def codecs_reading(device: str) -> tuple[str, ...]:
    """The names of the codecs that read ``device``'s lines, in ``CODECS`` order."""
    return tuple(name for name, codec in CODECS.items() if codec.reads == device)


def make_codec(name: str) -> Any:
    """A new codec for the protocol ``name`` (a key of ``CODECS``).

    Raises:
        ValueError: no codec has that name; the message lists the known ones.
    """
    try:
        path = CODECS[name].path
    except KeyError:
        raise ValueError(
            f"unknown codec {name!r}; known: {', '.join(sorted(CODECS))}"
        ) from None
    module, _, cls = path.partition(":")
    return getattr(importlib.import_module(module), cls)()
