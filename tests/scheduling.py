"""How ``make test`` spreads the suite over the machine's cores (pytest-xdist, ``-n auto
--dist loadfile``); a plain ``pytest`` run is not affected.

``-n auto`` starts a process a core. Each module's tests run in one process, in order: they
share its module fixtures (one install, one browser, one kill run), built once. The
modules that take longest go first, so that no process is left with one of them at the
end while the others have nothing to do.

Tests judged against wall time are not spread: ``make test`` runs them afterwards, alone
(marker ``realtime``): a player that falls behind its trace is no comparison.
"""

from __future__ import annotations

import pytest

FIRST = ("test_install.py", "test_kill.py", "test_feed_floor.py", "test_display_browser.py",
         "test_blackjack_tables.py", "test_export.py", "test_display_hidden.py",
         "test_card_checkpoints.py", "test_draw_poker_game.py", "test_floor_resend.py")
"""The longest modules, longest first (``pytest --durations``); the rest keep their order."""


def _rank(item: pytest.Item) -> int:
    name = item.nodeid.split("::", 1)[0].rsplit("/", 1)[-1]
    return FIRST.index(name) if name in FIRST else len(FIRST)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if hasattr(config, "workerinput"):  # an xdist worker: its order is the queue's
        items.sort(key=_rank)  # stable: each module's tests keep their order

