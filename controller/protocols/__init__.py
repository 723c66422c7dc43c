"""I/O-free line codecs: a device's bytes in, frozen line records out.

``CODECS`` names every codec a config's ``[serial.<port>] codec`` may choose; each entry is
``"module:class"``, made fresh for each port (a codec keeps an unfinished line).
"""

from __future__ import annotations

import importlib
from typing import Any

CODECS: dict[str, str] = {
    "reference": "controller.protocols.shoe_reference:ReferenceShoeCodec",  # CONTRACT §4
    "status_line": "controller.protocols.wheel_status:StatusLineCodec",  # automated wheels
}


def make_codec(name: str) -> Any:
    """A new codec for the protocol ``name`` (a key of ``CODECS``).

    Raises:
        ValueError: no codec has that name; the message lists the known ones.
    """
    try:
        path = CODECS[name]
    except KeyError:
        raise ValueError(
            f"unknown codec {name!r}; known: {', '.join(sorted(CODECS))}"
        ) from None
    module, _, cls = path.partition(":")
    return getattr(importlib.import_module(module), cls)()
