"""How ``make test`` spreads the suite over the machine's cores (pytest-xdist, ``-n auto
--dist loadfile``); a plain ``pytest`` run is not affected.

``-n auto`` starts one process more than there are cores: many tests spend seconds waiting
on a daemon, a broker, a browser or a disk, and another process takes the core meanwhile
(``PYTEST_XDIST_AUTO_NUM_WORKERS`` sets the count). Each module's tests run in one
process, in order: they share its module fixtures (one install, one browser, one kill
run), built once. The modules that take longest go first, so that no process is left with
one of them at the end while the others have nothing to do.

Tests judged against wall time (marker ``realtime``: a player that falls behind its trace
is no comparison) are not spread: ``make test`` runs them afterwards, alone.
"""

from __future__ import annotations

import os

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


@pytest.hookimpl(optionalhook=True)  # pytest-xdist's hook
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None  # xdist's own reads it
    return len(os.sched_getaffinity(0)) + 1
