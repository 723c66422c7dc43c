"""A card table live: the shoe's serial line, the shoe session and a card game, wired
together.

Bytes from the shoe's port go through the reader's codec (bytes in, lines out), the shoe
session (composition, procedures, cut card: e.g. seed 002 Art. 4-6) and reach the game (a
:class:`~controller.cards.game.CardGame`, made by its package) as cards in dealing order.
Dealer inputs and bets go to the session or the game, each checked first (verify, then do);
every refusal is an ``alarm`` record naming the rule. The table knows no game.

A card the game has no place for yet is never dropped (``controller.cards.waiting``): one
read before the decision that places it waits for that decision, and after a port outage
(or shoe bytes dropped while the journal failed) while a card could be due, every card
read waits for the dealer's ``lost_cards``. The restart is
:class:`~controller.cards.table.CardTable`'s.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from controller.cards import held
from controller.cards.card import Card, parse_card
from controller.cards.count_out import CardsConfig
from controller.cards.game import CardGame, bet_fields
from controller.cards.masking import present_input
from controller.cards.procedures import ShoeRules
from controller.cards.records import CardAlarm
from controller.cards.shoe import ShoeSession
from controller.cards.shoe_lines import (
    MisreadLine,
    PortView,
    ShoeCodec,
    ShoeLine,
    UnknownLine,
    said,
)
from controller.cards.waiting import WaitingCards
from controller.core.config import Config
from controller.core.contract import Emit
from controller.core.errors import RuleViolation
from controller.core.events import BetPlaced, DealerInput, PortStatus, SerialData
from controller.core.table_inputs import table_input, verify_table_input
from controller.core.words import given
from controller.protocols import make_codec
from controller.store.records import Record
from controller.store.shared import Input

_DEALER_BUTTONS = ("open_bets", "no_more_bets")


class LiveCardTable:
    """A card table fed by a shoe reader, live (its restart: ``CardTable``).

    Args:
        config: the checked config (its serial ports and their codecs).
        emit: journals a record and returns it.
        make_game: makes the game, given the emit it must journal through.
        shoe: the shoe's decks, cut-card reserve and procedures (the game's package's);
            its count-out as ``config.cards`` says (``[cards] count_out``), for a shoe
            that closes at a cut card.
    """

    def __init__(self, config: Config, emit: Emit, make_game: Callable[[Emit], CardGame],
                 shoe: ShoeRules) -> None:
        self.config = config
        cards = config.cards  # the card core's [cards] settings, where the game has them
        if isinstance(cards, CardsConfig) and shoe.after_cut_card is not None:
            shoe = replace(shoe, count_out=cards.count_out)
        self._real_emit = emit
        self._emit: Emit = emit
        self.shoe = ShoeSession(self._proxy, shoe)
        self.game = make_game(self._proxy)
        self.codecs: dict[str, ShoeCodec] = {
            name: make_codec(spec.codec) for name, spec in (config.serial or {}).items()
        }
        self.ports_down: set[str] = set()
        self._due_at_down: dict[str, bool] = {}  # a card could be due when a port went down
        self.waiting = WaitingCards(self.game, self.shoe, self.alarm)
        self._under_way = False  # the game was under way after the last action
        self._dropped_at: int | None = None  # the journal failure that dropped input
        self.views: dict[str, PortView] = {}

    def _proxy(self, record: Record, /, *, t: float | None = None) -> dict[str, Any]:
        return self._emit(record, t=t)

    def alarm(self, t: float, alarm: CardAlarm) -> None:
        """Journal ``alarm`` at ``t``, tagged with the current (or last) game."""
        self._emit(replace(alarm, tag=self.game.tag()), t=t)

    @property
    def state(self) -> str:
        return self.game.state

    def open_game(self) -> str | None:
        """The game under way, in words; None between games."""
        return self.game.open_game()

    def present(self, records: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The records one input caused, as the public may see them: a card dealt face
        down (seed 000 Art. 6) is masked, and so are the records that carried it in (the
        raw shoe bytes, a dealer's correction); while the game says a face-down card may
        be in flight, any raw shoe bytes (``controller.cards.masking``)."""
        return present_input(records, self.game.face_down_pending())

    # -- a person's inputs and bets: verify, then do (the Table calls them) --------------
    def verify_input(self, inp: DealerInput) -> None:
        """Check a dealer or inspector action; change nothing.

        Raises:
            RuleViolation: the shoe's refusal (a procedure step out of order, nothing to
                correct, play not stopped, the shoe not ready for ``open_bets``, new decks
                while a game is under way...) or the game's.
        """
        # Again here: a restart replays inputs through this check.
        self.config.spec.verify_arguments(inp)
        args = inp.args
        match inp.action:
            case "procedure_step":
                self.shoe.verify_procedure_step(args.get("step", ""), _by(args))
            case "inspector_clear":
                self.shoe.verify_inspector_clear()
            case "count_out_done":
                self.shoe.verify_count_out_done()
            case "new_shoe":
                self._verify_new_shoe()
            case "card":
                self.shoe.verify_manual_card(_correction(args))
            case "lost_cards":
                self.waiting.verify_lost_cards(args.get("cards"))
            case "void":
                held.verify_void(self.game, self.shoe, self.waiting, args)
            case "open_bets":
                self.shoe.verify_new_game()
                self._verify_nothing_waits()
                self.game.verify_input(inp)
            case _:
                self.game.verify_input(inp)

    def _verify_new_shoe(self) -> None:
        """New decks (seed 002 Art. 4: a fault, an incomplete deck, a reasonable request)
        are changed between games: a game is dealt from the one shoe that opened it, from
        its ``open_bets`` to its result, never finished with another shoe's cards
        (hardware.md §4).

        Raises:
            RuleViolation: ``game_under_way``, naming the game; the decks change once it
                has ended.
        """
        if self.game.under_way():
            game = self.game.open_game() or "a game is under way"
            article = self.shoe.rules.citations.composition
            raise RuleViolation("game_under_way", f"{game}: the decks are changed between "
                                f"games, once it has ended ({article}); it is dealt from "
                                "the shoe that opened it")

    def _verify_nothing_waits(self) -> None:
        """A new game is not opened while a card of the last one waits for its place.

        Raises:
            RuleViolation: ``card_waiting``.
        """
        waits = self.waiting.waiting_for()
        if waits is not None:
            raise RuleViolation("card_waiting", f"play waits for {waits}")

    def dealer_input(self, inp: DealerInput) -> None:
        """Do a dealer or inspector action (``verify_input`` first); then a card that
        waits for its place goes to the place the action gave it
        (``controller.cards.waiting``).

        Raises:
            RuleViolation: as ``verify_input``; for a card correction, also the game's
                refusal of the card once the shoe has counted it.
        """
        t, args = inp.t, inp.args
        match inp.action:
            case "procedure_step":
                self.shoe.procedure_step(t, args.get("step", ""), _by(args))
            case "inspector_clear":
                cleared = self.shoe.inspector_clear(t, str(args.get("note", "")))["cleared"]
                set_aside = getattr(self.game, "cards_set_aside", None)
                if set_aside is not None and held.NO_PLACE in cleared:
                    set_aside(t)  # the game goes on without the cards no hand took
            case "count_out_done":
                self.shoe.count_out_done(t)
            case "new_shoe":
                self.shoe.change_decks(t, str(args.get("reason", "requested")))
            case "card":
                card = self.shoe.manual_card(t, _correction(args))
                if card is not None and not self.waiting.takes(t, card, manual=True):
                    self.game.card(t, card, manual=True)
            case "lost_cards":
                self.waiting.lost_cards(t, self.waiting.verify_lost_cards(args.get("cards")))
            case "void":
                held.void(t, self.game, self.shoe, self.waiting, self._proxy, args)
            case "open_bets":
                self.shoe.verify_new_game()
                self.game.dealer_input(inp)
                self.shoe.game_started()
            case _:
                self.game.dealer_input(inp)
        self.waiting.place(t)
        self._after_action(t)

    def verify_bet(self, bet: BetPlaced) -> None:
        self.game.verify_bet(bet)

    def place_bet(self, bet: BetPlaced) -> None:
        self.game.place_bet(bet)
        self._after_action(bet.t)

    def refused(self, event: DealerInput | BetPlaced, exc: RuleViolation) -> None:
        """Journal the refusal: an ``alarm`` with the rule's code; a bet's names the bet
        and carries it whole (``bet``), the journal's one record of that bet."""
        if isinstance(event, BetPlaced):
            self.alarm(event.t, CardAlarm(
                code="bet_refused", message=f"{event.kind} of {event.amount} on box "
                f"{event.box}: {exc.code}: {exc.message}", bet=bet_fields(event)))
        else:
            self.alarm(event.t, CardAlarm(code=exc.code,
                                          message=f"{event.action}: {exc.message}"))

    def _input(self, inp: DealerInput) -> None:
        """A dealer input that reached the table another way (a button, a replay)."""
        try:
            self.verify_input(inp)
            self.dealer_input(inp)
        except RuleViolation as exc:
            self.refused(inp, exc)

    def _table_input(self, inp: DealerInput) -> None:
        """An input every table takes (``TABLE_INPUT_ACTIONS``), played again on restart:
        checked and done as the Table did it live (``controller.core.table``)."""
        try:
            self.config.spec.verify_arguments(inp)
            verify_table_input(inp)
            table_input(inp, self._emit)
        except RuleViolation as exc:
            self.refused(inp, exc)

    def _bet(self, bet: BetPlaced) -> None:
        try:
            self.verify_bet(bet)
            self.place_bet(bet)
        except RuleViolation as exc:
            self.refused(bet, exc)

    # -- the shoe and its port -------------------------------------------------------
    def serial(self, data: SerialData) -> None:
        """Bytes from a shoe port (already journaled): decode and act on every line.

        The cut card ends the shoe after the current game (RULES.md §3): the game from its
        ``open_bets`` to its result (``CardGame.under_way``). A cut card read while bets
        are open, before any card, ends the shoe when that game ends (its bets stand, and
        it is dealt from this shoe). A cut card read between games closes the shoe at
        once, so the procedure after the cut card is due.
        """
        lines = self._codec(data.port).feed(data.data)
        if lines:
            view = self.views.get(data.port, PortView())
            self.views[data.port] = replace(view, said=said(lines[-1]), t=data.t,
                                            lines=view.lines + len(lines))
        self._act_on(data.t, lines)

    def sensors(self, now: float) -> dict[str, Any]:
        """Each shoe port's last line in words, its age (``now`` minus its arrival,
        seconds), the lines read and the link, for ``tablectl sensors``; safe to call from
        any thread."""
        out: dict[str, Any] = {}
        views = self.views.copy()  # one C call: the controller thread may add a port meanwhile
        ports = self.config.spec.ports(self.config)
        for port in sorted({*ports, *views}):
            view = views.get(port, PortView())
            link = "no line since the daemon started" if view.t is None else "up"
            out[port] = {"said": view.said,
                         "age_s": None if view.t is None else round(now - view.t, 3),
                         "link": f"DOWN ({view.down})" if view.down is not None else link,
                         "lines": view.lines}
        return out

    def _codec(self, port: str) -> ShoeCodec:
        codec = self.codecs.get(port)
        if codec is None:
            codec = self.codecs[port] = make_codec("reference")
        return codec

    def _act_on(self, t: float, lines: list[ShoeLine]) -> None:
        for line in lines:
            if not isinstance(line, ShoeLine):
                # Another device's line (a wheel's codec on a shoe port): the config refuses
                # such a codec; should one come anyway, an alarm, never a crash.
                shown = repr(line) if len(repr(line)) <= 120 else repr(line)[:117] + "..."
                self.alarm(t, CardAlarm(
                    code="unexpected_line", message="not a shoe reader's line, from a shoe "
                    f"port (its codec reads another device); ignored: {shown}"))
                continue
            result = self.shoe.feed(t, line)
            if isinstance(line, UnknownLine) and line.may_be_card and self.shoe.ready_for_play:
                # A damaged line that may be a card line ("rd:5H>", "[Gamrd:5H>"): a card
                # may have passed unread, so never go on as if none was dealt (CONTRACT §4:
                # never guessed; no later card takes its place).
                self.waiting.input_lost(t, "the shoe reader sent a damaged line that may "
                                        "be a card's")
            self._close_shoe_between_games(t)
            if result is None:
                continue
            try:
                if isinstance(result, MisreadLine):
                    if not self.waiting.misread(t):
                        self.game.misread(t)
                elif not self.waiting.takes(t, result):
                    self.game.card(t, result)
            except RuleViolation as exc:
                if exc.code == "unexpected_card":
                    self._no_card_due(t)
                else:
                    self.alarm(t, CardAlarm(code=exc.code, message=exc.message))
                continue
            self._after_action(t)

    def _no_card_due(self, t: float) -> None:
        """A card came out of the shoe when no hand takes one and no decision can place it
        (bets still open, the game over): it is in no hand, so play stops until a person
        says where it went (issue 16; ``card_without_place``, as for a card the decisions
        leave no place). The alarm never names the card (it may be face down)."""
        # Every card game's statechart calls the betting "bets_open" (controller.cards.game).
        when = ("while bets are open, before no_more_bets" if self.game.state == "bets_open"
                else f"when no card is due ({self.game.open_game() or 'between games'})")
        self.shoe.stop(t, CardAlarm(
            code="card_without_place", message=f"a card was read {when}: no hand takes it, "
            "and it is given to none; play stops until the dealer sets it aside and the "
            "inspector resumes play (inspector_clear) or voids the game (void)", count=1))

    def _after_action(self, t: float) -> None:
        """The game just ended: the shoe closes if it is ending, or the procedure due
        before each game is due."""
        under_way = self.game.under_way()
        if self._under_way and not under_way:
            self.shoe.game_finished(t)
        self._under_way = under_way

    def _close_shoe_between_games(self, t: float) -> None:
        """Close an ending shoe (cut card, or the reserve reached) when no game is under
        way: waiting for the end of a game that is not being played would refuse both the
        next game and the procedure that must come before it."""
        if self.shoe.shoe_ending and not self.game.under_way():
            self.shoe.close_if_ending(t)

    def port_status(self, status: PortStatus) -> None:
        """A shoe port went away or came back (the ``port`` record is journaled already).

        Port down: a ``shoe_disconnected`` alarm, then the line the outage cut short is
        dropped (``ShoeCodec.port_down``): its end, read after the port is back, starts a
        new line and is never joined to it. If it may have held a card, that card is a
        misread (play waits for the dealer's correction, CONTRACT §4), after a ``line_cut``
        alarm that says the port going down cut it.
        """
        view = self.views.get(status.port, PortView())
        self.views[status.port] = replace(view, down=None if status.up else (
            status.detail or "gone"))
        if status.up:
            if status.port in self.ports_down:
                self.ports_down.discard(status.port)
                self.shoe.count_out_lost(status.t, f"port {status.port!r} was down")
                # Cards dealt while it was down were never read (CONTRACT §4: never guessed).
                self.waiting.input_lost(status.t, f"port {status.port!r} was down",
                                        could_be_due=self._due_at_down.pop(status.port, False))
            return
        if status.port not in self.ports_down:
            self.ports_down.add(status.port)
            self._due_at_down[status.port] = self.waiting.card_could_be_due()
            waiting = self.game.next_hand()
            self.alarm(status.t, CardAlarm(
                code="shoe_disconnected", message=f"port {status.port!r} is gone "
                f"({status.detail}); play waits"
                + (f" for the card of {waiting}" if waiting else "")))
        codec = self._codec(status.port)
        port_down = getattr(codec, "port_down", None)
        if port_down is None:  # another device's codec (see _act_on): forget its line
            codec.reset()
            return
        self._act_on(status.t, port_down())

    def gpio(self, t: float, name: str, level: int) -> None:
        """Dealer buttons (``name`` to ``level`` at ``t`` seconds), each press journaled as
        an ``input`` (``source`` ``button``) so that a restart plays it again; a card
        table has no wheel sensors."""
        if level != 1:
            return
        if name in _DEALER_BUTTONS:
            self._emit(Input(action=name, source="button"), t=t)
            self._input(DealerInput(t, name))
        else:
            self.alarm(t, CardAlarm(code="unexpected_edge",
                                    message=f"{name} on a card table"))



def _correction(args: dict[str, Any]) -> Card:
    """The card of the dealer's correction (CONTRACT §4).

    Raises:
        RuleViolation: ``bad_card``, not a card of a French deck.
    """
    card = args.get("card")
    if not isinstance(card, str):
        raise RuleViolation("bad_card", f"correction: not a card: {given(card)}")
    try:
        return parse_card(card)
    except ValueError as exc:
        raise RuleViolation("bad_card", f"correction: {exc}") from None


def _by(args: dict[str, Any]) -> str | None:
    """Who did a procedure step, for a step that asks (seed 003 num. 2: the cut)."""
    by = args.get("by")
    return by if isinstance(by, str) else None
