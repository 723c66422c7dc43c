"""The display's web application (Starlette): pages and data, read-only.

Routes, every one GET (HEAD too); any other method is refused with 405: there is no write
endpoint of any kind.

- ``/``: the table's screen, for players and dealer;
- ``/pit``: the pit's page (held games, alarms, sensors and ports, the status line);
- ``/rules``: the game's rules in words (seed's Art. 15), one printable page;
- ``/state.json``: the same view as data (:class:`display.board.Board`'s snapshot);
- ``/events``: server-sent events, one ``data:`` line with the snapshot at each change
  (and a comment line every ``KEEPALIVE_S`` s, so a dead connection is noticed);
- ``/static/...``: the page's script and style, from the package (the Pi has no network).

Each page carries the snapshot it was served with, so its first paint needs no second
request; the script then follows ``/events``.
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import json
from collections.abc import AsyncIterator
from importlib import resources
from pathlib import Path

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from display.rules import rules_html
from display.words import WORDS

KEEPALIVE_S = 15.0
STATIC = Path(str(resources.files("display").joinpath("static")))
# Only the page's own files; no inline script, no other origin.
HEADERS = {"Content-Security-Policy": "default-src 'self'; script-src 'self'; "
                                      "style-src 'self'; img-src 'self' data:",
           "X-Content-Type-Options": "nosniff", "Cache-Control": "no-store"}


class Hub:
    """The newest snapshot and a wake-up for each open event stream (on the server's
    event loop; the board's thread hands snapshots in with :meth:`publish_threadsafe`)."""

    def __init__(self, first: str = "{}") -> None:
        self.text = first
        self.version = 0
        self._waiters: set[asyncio.Event] = set()
        self.loop: asyncio.AbstractEventLoop | None = None

    def publish(self, text: str) -> None:
        self.text = text
        self.version += 1
        for event in self._waiters:
            event.set()

    def publish_threadsafe(self, text: str) -> None:
        if self.loop is None:
            self.text = text  # before the server runs: the first page carries it
            return
        self.loop.call_soon_threadsafe(self.publish, text)

    async def stream(self) -> AsyncIterator[str]:
        """The event stream of one page: the snapshot now, then each new one."""
        event = asyncio.Event()
        self._waiters.add(event)
        seen = -1
        try:
            while True:
                event.clear()  # before the check: a publish while we yield wakes the wait
                if seen != self.version:
                    seen = self.version
                    yield f"id: {seen}\ndata: {self.text}\n\n"
                try:
                    await asyncio.wait_for(event.wait(), KEEPALIVE_S)
                except TimeoutError:
                    yield ": keep-alive\n\n"
        finally:
            self._waiters.discard(event)


def make_app(hub: Hub, language: str, rules: str) -> Starlette:
    """The application over ``hub``; ``rules`` is the game's rules digest (text)."""
    words = WORDS[language]

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        hub.loop = asyncio.get_running_loop()
        yield

    def page(kind: str) -> HTMLResponse:
        return HTMLResponse(_page(kind, hub.text, language), headers=HEADERS)

    async def table(request: Request) -> HTMLResponse:
        return page("table")

    async def pit(request: Request) -> HTMLResponse:
        return page("pit")

    async def rules_page(request: Request) -> HTMLResponse:
        return HTMLResponse(rules_html(rules, hub.text, words, language), headers=HEADERS)

    async def state(request: Request) -> Response:
        return Response(hub.text, media_type="application/json", headers=HEADERS)

    async def events(request: Request) -> StreamingResponse:
        return StreamingResponse(hub.stream(), media_type="text/event-stream",
                                 headers={**HEADERS, "X-Accel-Buffering": "no"})

    return Starlette(routes=[
        Route("/", table, methods=["GET"]),
        Route("/pit", pit, methods=["GET"]),
        Route("/rules", rules_page, methods=["GET"]),
        Route("/state.json", state, methods=["GET"]),
        Route("/events", events, methods=["GET"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ], lifespan=lifespan)


def _page(kind: str, snapshot: str, language: str) -> str:
    """A page's HTML: its frame, the words that need no script (the state, the notice) and
    the snapshot it was served with, as data (``<script type=application/json>``: never
    run)."""
    state = json.loads(snapshot or "{}")
    title = html.escape(f"{state.get('title', '')} — {state.get('table', '')}")
    notice = state.get("notice") or ""
    result = html.escape(str(state.get("result") or ""))
    # "</" cannot end the data block early: JSON allows "<\/".
    data = snapshot.replace("</", "<\\/")
    return f"""<!doctype html>
<html lang="{language}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<link rel="stylesheet" href="/static/display.css">
<script src="/static/display.js" defer></script>
</head>
<body class="{kind}" data-page="{kind}" data-seq="{state.get('seq', 0)}">
<header><h1 id="title">{title}</h1>
<p id="state" class="state">{html.escape(str(state.get('state_text', '')))}</p></header>
<p id="notice" class="notice"{'' if notice else ' hidden'}>{html.escape(notice)}</p>
<main id="main"><p id="result" class="result">{result}</p></main>
<script type="application/json" id="initial">{data}</script>
</body>
</html>
"""
