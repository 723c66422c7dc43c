"""A roulette table's screen (``table-display``; seed 001 Art. 12, 16): the table's state,
the result (an invalid spin's reason in words, Art. 12), the last 20 numbers in their
colours, hot and cold numbers and the shares of red/black, odd/even, low/high, the
dozens and zero over the last ``[display] history`` spins, the limits in force and an
announced change (Art. 16: from the next spin, never during one), and a spin held for
the inspector with what decides it.

Built from the journal's records one at a time (:class:`controller.core.contract.TableView`);
a roulette table has no hidden card.
"""

from __future__ import annotations

from collections import Counter, deque
from typing import Any

from controller.core.config import Config
from controller.games.roulette.layout import RED

Record = dict[str, Any]
LAST_SHOWN = 20  # numbers on the strip
HOT_COLD = 5  # numbers in each of the hot and cold lists

WORDS: dict[str, dict[str, str]] = {
    "es": {
        "closed": "mesa cerrada", "bets_open": "hagan sus apuestas",
        "in_play": "bolita en juego", "no_more_bets": "no va más",
        "result": "resultado", "held": "tiro detenido para el inspector",
        "invalid": "tiro nulo: {reason}", "spin": "tiro {n}",
        "last": "últimos números", "hot": "números calientes", "cold": "números fríos",
        "shares": "en los últimos {n} tiros", "red": "rojo", "black": "negro",
        "odd": "impar", "even": "par", "low": "menor (1-18)", "high": "mayor (19-36)",
        "dozen": "docena {n}", "zero": "cero", "times": "{n} veces",
        "pending": "desde el próximo tiro",
        "too_few_revolutions": "la bolita dio {n} vueltas, menos de {min}",
        "same_direction": "la bolita giró en el mismo sentido que el cilindro",
        "ball_suspended": "la bolita quedó suspendida sin caer en un número",
        "ball_out_of_wheel": "la bolita salió del cilindro",
        "foreign_object": "cayó un objeto extraño mientras giraba la bolita",
        "wheel_malfunction": "falla del cilindro",
        "wheel_stopped": "se detuvo el cilindro",
    },
    "en": {
        "closed": "table closed", "bets_open": "place your bets",
        "in_play": "ball in play", "no_more_bets": "no more bets",
        "result": "result", "held": "spin held for the inspector",
        "invalid": "invalid spin: {reason}", "spin": "spin {n}",
        "last": "last numbers", "hot": "hot numbers", "cold": "cold numbers",
        "shares": "over the last {n} spins", "red": "red", "black": "black",
        "odd": "odd", "even": "even", "low": "low (1-18)", "high": "high (19-36)",
        "dozen": "dozen {n}", "zero": "zero", "times": "{n} times",
        "pending": "from the next spin",
        "too_few_revolutions": "the ball made {n} revolutions, fewer than {min}",
        "same_direction": "the ball turned the same way as the rotor",
        "ball_suspended": "the ball stayed suspended without falling into a pocket",
        "ball_out_of_wheel": "the ball left the wheel",
        "foreign_object": "a foreign object fell while the ball was turning",
        "wheel_malfunction": "the wheel failed",
        "wheel_stopped": "the rotor was stopped",
    },
}
# The round's states (controller.games.roulette.round) as the screen's state codes.
_STATES = {"closed": "closed", "bets_open": "bets_open", "ball_in_play": "in_play",
           "no_more_bets": "no_more_bets", "held": "held", "result": "result",
           "invalid": "result", "settled": "result"}


def colour(number: str) -> str:
    """``green`` for 0 and 00, else ``red`` or ``black`` (seed 001 Art. 13, "color rojo")."""
    if number in ("0", "00"):
        return "green"
    return "red" if number in RED else "black"


class RouletteView:
    """A roulette table's screen (see the module doc); memory bounded by ``history``."""

    def __init__(self, config: Config, language: str, history: int) -> None:
        self.words = WORDS[language]
        self.zeros = ("0", "00") if config.rules.wheel == "double_zero" else ("0",)
        self.min_revolutions = config.rules.min_ball_revolutions
        self.numbers: deque[str] = deque(maxlen=history)
        self.history = history
        self.state = "closed"
        self.game: int | None = None
        self.limits: dict[str, int] = {"min_bet": config.limits.min_bet,
                                       "max_bet": config.limits.max_bet}
        self.pending: dict[str, int] | None = None
        self.held: dict[int, Record] = {}
        self.result: Record | None = None

    def feed(self, record: Record) -> None:
        kind = record.get("type")
        if kind == "state":
            self.state = _STATES.get(str(record["to"]), "closed")
            self.game = record.get("game")
            self.limits = dict(record.get("limits") or self.limits)
        elif kind == "config_change" and record.get("key") == "limits":
            limits = {"min_bet": record["min_bet"], "max_bet": record["max_bet"]}
            if record.get("status") == "applied":
                self.limits, self.pending = limits, None
            elif record.get("status") == "requested":
                self.pending = limits
        elif kind == "spin_held":
            self.held[int(record["spin"])] = record
        elif kind in ("spin_result", "spin_invalid"):
            self.held.pop(int(record["spin"]), None)
            self.result = record
            if kind == "spin_result":
                self.numbers.append(str(record["number"]))

    def view(self) -> dict[str, Any]:
        last = list(reversed(self.numbers))[:LAST_SHOWN]
        state = "held" if self.held else self.state
        view: dict[str, Any] = {
            "state": state, "state_text": self.words[state] if state in self.words
            else self.words["closed"],
            "limits": self.limits,
            "pending_limits": None if self.pending is None else {
                **self.pending, "from": self.words["pending"]},
            "held": [self._held(rec) for rec in self.held.values()],
            "result": self._result_text(), "result_colour": self._result_colour(),
            "game_number": self.game,
            "last_numbers": last,
            "hot": self._hot_cold(hot=True), "cold": self._hot_cold(hot=False),
            "shares": self._shares(),
        }
        view["panels"] = self._panels(view)
        return view

    def _result_text(self) -> str | None:
        rec = self.result
        if rec is None:
            return None
        if rec["type"] == "spin_result":
            return f"{rec['number']} {self._colour_word(str(rec['number']))}"
        return self.words["invalid"].format(reason=self.reason(rec))

    def _result_colour(self) -> str | None:
        rec = self.result
        if rec is None or rec["type"] != "spin_result":
            return None
        return colour(str(rec["number"]))

    def _colour_word(self, number: str) -> str:
        return "" if colour(number) == "green" else self.words[colour(number)]

    def reason(self, record: Record) -> str:
        """An invalid spin's first reason in words (Art. 12 a-g)."""
        code = str(record.get("reason", ""))
        if code == "too_few_revolutions" and record.get("ball_revolutions") is not None:
            return self.words[code].format(n=record["ball_revolutions"],
                                           min=self.min_revolutions)
        return self.words.get(code, code.replace("_", " "))

    def _held(self, record: Record) -> dict[str, Any]:
        why = "; ".join(f"{k}: {v}" for k, v in sorted((record.get("details") or {}).items()))
        seen = record.get("candidate")
        number = seen if seen is not None else "N"
        return {"game": record["spin"], "seq": record.get("seq"),
                "reason": why or str(record.get("reason", "")), "candidate": seen,
                "decide": [f"tablectl input confirm_result number={number} by=inspector",
                           "tablectl input void reason=wheel_malfunction by=inspector"]}

    def _hot_cold(self, *, hot: bool) -> list[dict[str, Any]]:
        """The most (``hot``) or least drawn numbers over the history; ties in layout order."""
        counts = Counter(self.numbers)
        every = [*self.zeros, *(str(n) for n in range(1, 37))]
        ranked = sorted(every, key=lambda n: (-counts[n] if hot else counts[n], every.index(n)))
        if hot:  # a number never drawn is not hot
            ranked = [n for n in ranked if counts[n]]
        return [{"number": n, "count": counts[n], "colour": colour(n)}
                for n in ranked[:HOT_COLD]]

    def _shares(self) -> dict[str, float]:
        """Each even-money group's, each dozen's and zero's share (%) of the history."""
        spins = list(self.numbers)
        total = len(spins) or 1
        plain = [int(n) for n in spins if n not in ("0", "00")]

        def pct(count: int) -> float:
            return round(100 * count / total, 1)

        return {"red": pct(sum(1 for n in spins if n in RED)),
                "black": pct(sum(1 for n in plain if str(n) not in RED)),
                "odd": pct(sum(1 for n in plain if n % 2)),
                "even": pct(sum(1 for n in plain if n % 2 == 0)),
                "low": pct(sum(1 for n in plain if n <= 18)),
                "high": pct(sum(1 for n in plain if n >= 19)),
                "dozen_1": pct(sum(1 for n in plain if n <= 12)),
                "dozen_2": pct(sum(1 for n in plain if 13 <= n <= 24)),
                "dozen_3": pct(sum(1 for n in plain if n >= 25)),
                "zero": pct(len(spins) - len(plain))}

    def _panels(self, view: dict[str, Any]) -> list[dict[str, Any]]:
        w = self.words
        shares = view["shares"]
        rows = [[w[key], f"{shares[key]} %"] for key in
                ("red", "black", "odd", "even", "low", "high")]
        rows += [[w["dozen"].format(n=i), f"{shares[f'dozen_{i}']} %"] for i in (1, 2, 3)]
        rows.append([w["zero"], f"{shares['zero']} %"])

        def chips(items: list[dict[str, Any]]) -> list[dict[str, str]]:
            return [{"text": i["number"], "colour": i["colour"],
                     "note": w["times"].format(n=i["count"])} for i in items]

        return [
            {"kind": "numbers", "title": w["last"], "id": "last-numbers",
             "items": [{"text": n, "colour": colour(n)} for n in view["last_numbers"]]},
            {"kind": "numbers", "title": w["hot"], "id": "hot", "items": chips(view["hot"])},
            {"kind": "numbers", "title": w["cold"], "id": "cold", "items": chips(view["cold"])},
            {"kind": "stats", "title": w["shares"].format(n=len(self.numbers)),
             "id": "shares", "rows": rows},
        ]
