"""The five roads of a baccarat scoreboard, one shoe's coups at a time (the table's screen).

The convention, pinned here (public implementations disagree; the tests take each case):

- **Bead plate**: every coup in order, standoffs included, filled down columns of 6.
- **Big road**: *logical* columns: a Banca or Punto like the column's goes under it, the
  other side starts a new column. A standoff never adds a mark: it is counted on the
  cell of the result before it (``ties``); standoffs before the shoe's first result are
  counted on that first result's cell. A column longer than 6 is still one logical
  column; only its drawing turns right (the dragon tail, :func:`drawn`).
- **Derived roads** (big eye boy ``k=1``, small road ``k=2``, cockroach pig ``k=3``) read
  the big road's logical columns, never the drawn grid. A big road entry at logical column
  ``c``, row ``r`` (from 0) adds a mark once ``c >= k`` and ``r >= 1``, or ``c >= k + 1``
  (so the big eye boy starts at column 2 row 2, or column 3 row 1, counting from 1;
  the small road and the cockroach pig one and two columns further):
  - ``r == 0`` (a new column): red when columns ``c - 1`` and ``c - 1 - k`` are as long,
    blue otherwise;
  - ``r >= 1``: with ``n`` the length of column ``c - k``: blue when ``n == r`` (the row
    beside it is where that column stopped), red otherwise (it goes on, or stopped
    earlier: "straight through").
  Each derived road is drawn like a big road: a mark like the last goes under it, the
  other colour starts a new column.

Outcomes are ``banca``, ``punto`` and ``standoff`` (the words of seed 000's records).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

ROWS = 6
DERIVED = {"big_eye_boy": 1, "small_road": 2, "cockroach_pig": 3}


@dataclass
class Roads:
    """The roads of one shoe, grown one coup at a time with :meth:`add`."""

    bead_plate: list[list[dict[str, Any]]] = field(default_factory=list)
    big_road: list[list[dict[str, Any]]] = field(default_factory=list)
    derived: dict[str, list[list[str]]] = field(
        default_factory=lambda: {name: [] for name in DERIVED})
    _leading_ties: int = 0

    def add(self, winner: str) -> None:
        """The next coup's outcome: ``banca``, ``punto`` or ``standoff``."""
        if not self.bead_plate or len(self.bead_plate[-1]) == ROWS:
            self.bead_plate.append([])
        self.bead_plate[-1].append({"winner": winner, "ties": 0})
        if winner == "standoff":
            if self.big_road:
                self.big_road[-1][-1]["ties"] += 1
            else:
                self._leading_ties += 1
            return
        entry = {"winner": winner, "ties": self._leading_ties}
        self._leading_ties = 0
        if self.big_road and self.big_road[-1][0]["winner"] == winner:
            self.big_road[-1].append(entry)
        else:
            self.big_road.append([entry])
        c, r = len(self.big_road) - 1, len(self.big_road[-1]) - 1
        for name, k in DERIVED.items():
            mark = derived_mark(self.big_road, c, r, k)
            if mark is not None:
                _grow(self.derived[name], mark)

    def as_json(self) -> dict[str, Any]:
        """``bead_plate`` and ``big_road`` as lists of columns of entries (``winner``,
        ``ties``), the derived roads as lists of columns of ``red``/``blue``."""
        return {"bead_plate": self.bead_plate, "big_road": self.big_road,
                **{name: road for name, road in self.derived.items()}}


def derived_mark(columns: list[list[Any]], c: int, r: int, k: int) -> str | None:
    """The mark the big road's entry at logical column ``c``, row ``r`` adds to the derived
    road of offset ``k``, or None before that road starts (see the module doc)."""
    if r == 0:
        if c < k + 1:
            return None
        return "red" if len(columns[c - 1]) == len(columns[c - 1 - k]) else "blue"
    if c < k:
        return None
    return "blue" if len(columns[c - k]) == r else "red"


def _grow(road: list[list[str]], mark: str) -> None:
    if road and road[-1][0] == mark:
        road[-1].append(mark)
    else:
        road.append([mark])


def drawn(columns: list[list[Any]], rows: int = ROWS) -> list[tuple[int, int, Any]]:
    """Where each entry of logical ``columns`` is drawn on a grid ``rows`` high:
    ``(x, y, entry)``. A column goes down until the grid's bottom or a cell already taken,
    then turns right along its last row (the dragon tail); the next column starts at the
    top, right of where the previous one started."""
    taken: set[tuple[int, int]] = set()
    cells = []
    for start, column in enumerate(columns):
        x, y, turned = start, 0, False
        while (x, y) in taken:  # a tail from the left runs along the top row
            x += 1
        for i, entry in enumerate(column):
            if i > 0:
                if not turned and y + 1 < rows and (x, y + 1) not in taken:
                    y += 1
                else:
                    x, turned = x + 1, True  # once turned, the tail stays on its row
            taken.add((x, y))
            cells.append((x, y, entry))
    return cells


def window(cells: list[tuple[int, int, Any]], width: int) -> list[tuple[int, int, Any]]:
    """The last ``width`` drawn columns of ``cells`` (what the screen shows of a long
    shoe), shifted to start at x = 0; the roads themselves are unchanged."""
    if not cells:
        return []
    first = max(0, max(x for x, _, _ in cells) + 1 - width)
    return [(x - first, y, e) for x, y, e in cells if x >= first]
