"""No hidden card, ever (issue 17; seed 000 Art. 6, seed 002 Art. 8, seed 003 num. 6): a card
dealt face down is in no page, no event and no ``/state.json`` before the record that
turns it. A simulated table's journal is committed again record by record into a fresh
one while ``table-display`` follows it, and everything the server sends is read: the
event stream (``/events``) whole, and ``/``, ``/pit`` and ``/state.json`` after every
record.
"""

from __future__ import annotations

import http.client
import json
import re
import threading
from pathlib import Path
from typing import Any

import pytest

from tests.display_helpers import Copier, config_of, display, records, simulated_journal

# Records that may carry a face-down card in (the shoe's bytes, a dealer's correction, the
# card itself): everything else is shown as it is, so a card named there is public.
_CARRIERS = ("serial", "input", "manual_card")


def _windows(recs: list[dict[str, Any]], start: str) -> list[tuple[str, int, int]]:
    """(card, from seq, to seq): each face-down card and the records during which it must
    not be seen: from its deal to its turn, else to the next game's start (a folded hand
    is never turned). A card left out when a record in its game shows the same card
    openly (another deck's copy): its absence could not be told."""
    out = []
    for i, rec in enumerate(recs):
        if rec["type"] != "card" or not rec.get("face_down"):
            continue
        card, hand = rec["card"], rec["hand"]
        end = next((r["seq"] for r in recs[i:] if r["type"] == start
                    or (r["type"] == "card_turned" and r["card"] == card
                        and r["hand"] == hand)), recs[-1]["seq"] + 1)
        game = max((r["seq"] for r in recs[:i] if r["type"] == start), default=0)
        public = [r for r in recs if game <= r["seq"] < end and r["seq"] != rec["seq"]
                  and r["type"] not in _CARRIERS
                  and not (r["type"] == "card" and r.get("face_down"))
                  and card in json.dumps(r)]
        if not public:
            out.append((card, rec["seq"], end))
    return out


class _Events(threading.Thread):
    """Reads ``/events`` whole into ``data`` until the connection closes."""

    def __init__(self, url: str) -> None:
        super().__init__(daemon=True)
        host, port = re.match(r"http://([\d.]+):(\d+)/", url).groups()  # type: ignore[union-attr]
        self.conn = http.client.HTTPConnection(host, int(port), timeout=60)
        self.conn.request("GET", "/events")
        self.reply = self.conn.getresponse()
        self.data = b""

    def run(self) -> None:
        try:
            while chunk := self.reply.read1(65536):
                self.data += chunk
        except (OSError, http.client.HTTPException):
            pass  # the server stopped


def _seq(text: str) -> int:
    """The record a page shows (its body's ``data-seq``)."""
    found = re.search(r'data-seq="(\d+)"', text)
    assert found, text[:300]
    return int(found.group(1))


@pytest.mark.parametrize("table,start", [("mini_baccarat", "coup_start"),
                                         ("blackjack_plus", "coup_start"),
                                         ("draw_poker", "hand_start")])
def test_no_face_down_card_is_sent_before_it_is_turned(table: str, start: str,
                                                       tmp_path: Path) -> None:
    source = simulated_journal(table, tmp_path)
    recs = records(source)
    windows = _windows(recs, start)
    assert len(windows) >= 3, "too few face-down cards to test"
    copier = Copier(source, tmp_path / "live.sqlite")
    seen: list[tuple[int, str]] = []
    with display(tmp_path / "live.sqlite", config_of(table)) as shown:
        events = _Events(shown.url)
        events.start()
        for rec in recs:
            copier.upto(rec["seq"])
            state = shown.wait_seq(rec["seq"])
            assert state["seq"] == rec["seq"]
            seen.append((rec["seq"], json.dumps(state, ensure_ascii=False)))
            for page in ("/", "/pit"):
                text = shown.get(page)
                seen.append((_seq(text), text))
    copier.close()
    events.join(timeout=10)
    stream = events.data.decode("utf-8")
    for line in stream.splitlines():
        if line.startswith("data: "):
            snapshot = json.loads(line[6:])
            seen.append((snapshot["seq"], line))
    assert len([s for s, _ in seen]) > 3 * len(recs)
    for card, first, end in windows:
        for seq, text in seen:
            if first <= seq < end:
                assert card not in text, (f"face-down {card} (#{first}, turned or gone at "
                                          f"#{end}) sent at #{seq}")
