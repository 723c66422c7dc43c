"""A card table: the shoe's serial line, the shoe session and the game, wired together.

Bytes from the shoe's port go through the reader's codec (bytes in, lines out), the shoe
session (composition, procedures, cut card: seed 002 Art. 4-6) and reach the game
(Mini-Bacará, seed 000) as cards in dealing order. Dealer inputs and bets reach the session
or the game; every refusal is an ``alarm`` record.

Restart: the table's whole state is a function of its journaled inputs (``serial``,
``input`` and ``bet_request`` records). :meth:`CardTable.recover_from` plays them again
through fresh objects with the journal muted, checking that they give the records already
journaled, so the coup in progress resumes exactly where it was (the cards on the layout
are real, nothing is voided); records an input had not finished journaling when the power
went are journaled then, once.
"""

from __future__ import annotations

import json
from typing import Any, TypeGuard

from controller.cards.card import parse_card
from controller.cards.shoe import ShoeSession
from controller.cards.shoe_lines import MisreadLine, ShoeCodec, ShoeLine
from controller.core.config import Config
from controller.core.errors import RuleViolation
from controller.core.events import BetPlaced, DealerInput, GpioEdge, PortStatus, SerialData
from controller.games.base import Emit
from controller.games.mini_baccarat.game import MiniBaccarat
from controller.protocols import make_codec
from controller.store.journal import Journal
from controller.store.recall import public_view

# Records that are the table's inputs (replayed on restart) or the Table's own markers.
_INPUT_TYPES = ("serial", "input", "bet_request", "port")
_NOT_DERIVED = frozenset({*_INPUT_TYPES, "gpio", "startup", "recovery", "shutdown"})
# Game states in which no coup is under way (before the first, after the last one's result).
_BETWEEN_COUPS = ("idle", "coup_over")


class CardTable:
    """A Mini-Bacará table fed by a shoe reader.

    Args:
        config: the checked config (decks, limits, insurance rule, ports and codecs).
        emit: journals a record and returns it.
    """

    def __init__(self, config: Config, emit: Emit) -> None:
        self.config = config
        self._real_emit = emit
        self._emit: Emit = emit
        mini = config.rules
        self.shoe = ShoeSession(self._proxy, mini.decks, mini.cut_card_min_remaining)
        self.game = MiniBaccarat(self._proxy, mini.decks, mini.insurance_pays_on,
                                 (config.limits.min_bet, config.limits.max_bet))
        ports = config.serial or {}
        self.codecs: dict[str, ShoeCodec] = {
            name: make_codec(spec.codec) for name, spec in ports.items()
        }
        self.ports_down: set[str] = set()

    def _proxy(self, type_: str, /, **fields: Any) -> dict[str, Any]:
        return self._emit(type_, **fields)

    def alarm(self, t: float, code: str, message: str) -> None:
        self._emit("alarm", t=t, code=code, message=message, coup=self.game.coup)

    @property
    def state(self) -> str:
        return self.game.state

    def open_game(self) -> str | None:
        """The coup under way, in words; None between coups."""
        if self.game.state in (*_BETWEEN_COUPS, "bets_open"):
            return None
        return f"coup {self.game.coup} under way ({self.game.state})"

    def present(self, records: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The records one input caused, as the public may see them: the Banca's face-down
        card (seed 000 Art. 6) is masked, and so are the records that carried it in (the
        raw shoe bytes, a dealer's correction); from the close of bets to the turn, any raw
        shoe bytes (a reader line split across reads may hold part of that card)."""
        hide = any(r["type"] == "card" and r.get("face_down") for r in records)
        unseen = self.face_down_unseen()
        return [public_view(r, hide_raw=hide or (unseen and r["type"] == "serial"))
                for r in records]

    def refused(self, event: DealerInput | BetPlaced, exc: RuleViolation) -> None:
        self.alarm(event.t, exc.code, exc.message)

    def face_down_unseen(self) -> bool:
        """From the close of bets to the turn of the Banca's first card, some shoe bytes
        may carry that face-down card (seed 000 Art. 6): the raw bytes are not shown."""
        return self.game.state in ("dealing", "five_options")

    # -- events ----------------------------------------------------------------------
    def serial(self, data: SerialData) -> None:
        """Bytes from a shoe port (already journaled): decode and act on every line.

        The cut card ends the shoe after the current game (RULES.md §3). The current game is
        the coup from its ``open_bets`` to its ``coup_result``: a cut card read while bets
        are open, before any card, ends the shoe when that coup ends (its bets stand, and
        the coup is dealt from this shoe). A cut card read between coups (no coup yet, or
        the last one over) closes the shoe at once, so the Art. 6 procedure is due.
        """
        self._act_on(data.t, self._codec(data.port).feed(data.data))

    def _codec(self, port: str) -> ShoeCodec:
        codec = self.codecs.get(port)
        if codec is None:
            codec = self.codecs[port] = make_codec("reference")
        return codec

    def _act_on(self, t: float, lines: list[ShoeLine]) -> None:
        for line in lines:
            result = self.shoe.feed(t, line)
            self._close_shoe_between_games(t)
            if result is None:
                continue
            try:
                if isinstance(result, MisreadLine):
                    self.game.misread(t)
                else:
                    self.game.card(t, result)
            except RuleViolation as exc:
                self.alarm(t, exc.code, exc.message)
                continue
            self._after_card(t)

    def _after_card(self, t: float) -> None:
        if self.game.state == "coup_over":
            self.shoe.coup_finished(t)

    def _close_shoe_between_games(self, t: float) -> None:
        """Close an ending shoe (cut card, or the 40-card reserve reached) when no coup is
        under way: waiting for the end of a game that is not being played would refuse
        both the next coup and the procedure that must come before it."""
        if self.shoe.shoe_ending and self.game.state in _BETWEEN_COUPS:
            self.shoe.coup_finished(t)

    def port_status(self, status: PortStatus) -> None:
        """A shoe port went away or came back (the ``port`` record is journaled already).

        Port down: a ``shoe_disconnected`` alarm, then the line the outage cut short is
        dropped (``ShoeCodec.port_down``): its end, read after the port is back, starts a
        new line and is never joined to it. If it may have held a card, that card is a
        misread (play waits for the dealer's correction, CONTRACT §4), after a ``line_cut``
        alarm that says the port going down cut it.
        """
        if status.up:
            self.ports_down.discard(status.port)
            return
        if status.port not in self.ports_down:
            self.ports_down.add(status.port)
            waiting = self.game.needs_card()
            self.alarm(status.t, "shoe_disconnected",
                       f"port {status.port!r} is gone ({status.detail}); play waits"
                       + (f" for the card of {waiting}" if waiting else ""))
        self._act_on(status.t, self._codec(status.port).port_down())

    def gpio(self, edge: GpioEdge) -> None:
        """Dealer buttons; a card table has no wheel sensors."""
        if edge.level != 1:
            return
        if edge.input in ("open_bets", "no_more_bets"):
            self.dealer_input(DealerInput(edge.t, edge.input))
        else:
            self.alarm(edge.t, "unexpected_edge", f"{edge.input} on a card table")

    def place_bet(self, bet: BetPlaced) -> None:
        try:
            self.game.place_bet(bet)
        except RuleViolation as exc:
            self.alarm(bet.t, "bet_refused", f"{bet.kind} of {bet.amount} on box {bet.box}: "
                       f"{exc.code}: {exc.message}")

    def dealer_input(self, inp: DealerInput) -> None:
        """A dealer or inspector action; a refusal becomes an alarm naming the rule."""
        try:
            self._dealer_input(inp)
        except RuleViolation as exc:
            self.alarm(inp.t, exc.code, f"{inp.action}: {exc.message}")

    def _dealer_input(self, inp: DealerInput) -> None:
        t, args = inp.t, inp.args
        match inp.action:
            case "procedure_step":
                self.shoe.procedure_step(t, str(args.get("step")))
            case "inspector_clear":
                self.shoe.inspector_clear(t, str(args.get("note", "")))
            case "new_shoe":
                self.shoe.change_decks(t, str(args.get("reason", "requested")))
            case "open_bets":
                self.shoe.verify_new_coup()
                self.game.open_bets(t)
            case "no_more_bets":
                boxes = args.get("boxes")
                if boxes is not None and (not isinstance(boxes, list)
                                          or not all(_is_box_number(b) for b in boxes)):
                    raise RuleViolation("bad_input", f"boxes must be a list of box numbers: "
                                        f"{boxes!r}")
                self.game.no_more_bets(t, boxes)
            case "five_choice":
                box, choice = args.get("box"), args.get("choice")
                if not _is_box_number(box) or not isinstance(choice, str):
                    raise RuleViolation("bad_input", f"five_choice needs box and choice: {args}")
                self.game.five_choice(t, box, choice)
            case "card":
                try:
                    card = parse_card(str(args.get("card")))
                except ValueError as exc:
                    raise RuleViolation("bad_card", f"correction: {exc}") from None
                if self.shoe.manual_card(t, card) is not None:
                    self.game.card(t, card, manual=True)
                    self._after_card(t)
            case action:
                raise RuleViolation("input_refused",
                                    f"{action!r} is not an input of a Mini-Bacará table")

    # -- restart ---------------------------------------------------------------------
    def recover_from(self, journal: Journal) -> None:
        """Rebuild the table's state by playing its journaled inputs again (see module doc)."""
        derived = [r for r in journal.records() if r["type"] not in _NOT_DERIVED]
        inputs = list(journal.records(types=_INPUT_TYPES))
        if not inputs:
            return
        checker = _Replayed(derived, self._real_emit)
        self._emit = checker
        try:
            for rec in inputs:
                self._replay_input(rec)
        finally:
            self._emit = self._real_emit
        needs = self.game.needs_card()
        self._real_emit("recovery", inputs=len(inputs), records_checked=checker.matched,
                        records_completed=checker.completed, mismatch=checker.mismatch,
                        coup=self.game.coup, state=self.game.state,
                        shoe_cards_left=self.shoe.cards_left, waiting_for=needs)

    def _replay_input(self, rec: dict[str, Any]) -> None:
        t = rec["t"]
        kind = rec["type"]
        if kind == "serial":
            self.serial(SerialData(t, rec["port"], rec["text"].encode("latin-1")))
        elif kind == "port":
            self.port_status(PortStatus(t, rec["port"], rec["up"], rec.get("detail", "")))
        elif kind == "bet_request":
            self.place_bet(BetPlaced(t, rec["kind"], rec["box"], rec["amount"],
                                     None, None))
        else:
            args = {k: v for k, v in rec.items() if k not in ("type", "seq", "t", "action")}
            self.dealer_input(DealerInput(t, rec["action"], args))


class _Replayed:
    """The emit used while inputs are played again on restart.

    Each record the table makes must be the next one already journaled (same type and
    fields); once the journal runs out, the rest are the records the interrupted input
    never journaled, and they are journaled now. A difference stops the checking (and
    is reported in the ``recovery`` record) rather than doubling anything.
    """

    def __init__(self, journaled: list[dict[str, Any]], emit: Emit) -> None:
        self.journaled = journaled
        self.emit = emit
        self.index = 0
        self.matched = 0
        self.completed = 0
        self.mismatch: str | None = None

    def __call__(self, type_: str, /, **fields: Any) -> dict[str, Any]:
        if self.index < len(self.journaled):
            rec = self.journaled[self.index]
            self.index += 1
            same = rec["type"] == type_ and all(
                rec.get(k) == _as_json(v) for k, v in fields.items() if k != "t")
            if same:
                self.matched += 1
            elif self.mismatch is None:
                self.mismatch = f"record {rec['seq']} is {rec['type']}, replay made {type_}"
            return rec
        if self.mismatch is not None:
            return {"type": type_, **fields}
        self.completed += 1
        return self.emit(type_, **fields)


def _is_box_number(value: Any) -> TypeGuard[int]:
    """An int from the input's JSON, not ``true``/``false`` (a bool is an int in Python,
    and ``true`` would otherwise mean box 1)."""
    return isinstance(value, int) and not isinstance(value, bool)


def _as_json(value: Any) -> Any:
    """``value`` as it reads back from the journal (tuples become lists...)."""
    return json.loads(json.dumps(value))
