"""``table-display``: the table's screen, a process of its own that reads the journal
read-only (issue 17). The controller never imports it; it names no game: each game's view
is its package's ``display.py`` (``GameSpec.display``).

Modules: ``config`` (the table's config and ``[display]``), ``board`` (the journal
followed, masked, made into snapshots), ``server`` (the Starlette application: pages,
``/state.json``, ``/events``), ``rules`` (``/rules``), ``words`` (the pages' frame in each
language), ``cli`` (the console script: its stop signals, ``stops``, caught first), ``serve``
(the process once they are: settings, socket, board, uvicorn, the banner), ``static/``
(the page's script and style).
"""
