"""A card table's restart: :class:`CardTable`, the live table
(:class:`~controller.cards.table_live.LiveCardTable`) with its checkpoint and recovery.

The table's whole state is a function of its journaled inputs (``serial``,
``input`` and ``port`` records, and each bet's one record: the game's ``bet_record`` or the
``alarm`` that refused it, with its ``bet``; a ``journal_failing`` alarm, shoe input
dropped) since its last checkpoint, taken when the shoe has just closed between games
(:meth:`CardTable.checkpoint`: the shoe's count and procedure due, the game's number; the
game gives its own part). :meth:`CardTable.recover_from`
restores the checkpoint and plays the inputs after it again with the journal muted,
checking that they give the records already journaled, so the game in progress resumes
exactly where it was (the cards on the layout are real, nothing is voided). Each input is
journaled whole, in one transaction: nothing is ever completed on restart, and a replay that
makes more records than the journal holds is a ``mismatch`` of the ``recovery`` record.
"""

from __future__ import annotations

from typing import Any

from controller.cards.records import CardAlarm, CardRecovery
from controller.cards.replayed import Replayed
from controller.cards.table_live import LiveCardTable
from controller.core.contract import Checkpointing
from controller.core.errors import UnreadableRecord
from controller.core.events import DealerInput, PortStatus, SerialData, bet_of
from controller.core.table_inputs import TABLE_ALARMS, TABLE_INPUT_ACTIONS
from controller.store.journal import Journal
from controller.store.resume import since_checkpoint

# Records the table's inputs never make again on a replay: the Table's own (start, stop,
# recovery, checkpoints, seals, evidence batches, its own alarms), and those of journals of
# format 1 (``gpio`` edges, the ``bet_request`` of journals written before each bet had one
# record: their bets are read from the game's record of them).
_MARKERS = frozenset({"gpio", "startup", "shutdown", "recovery", "checkpoint", "seal",
                      "evidence", "upgrade", "bet_request"})
_INPUTS = ("serial", "input", "port")
# Alarms no input makes again: the table's own, and those of a restart after a journal
# failure (the failure's alarm is played again as what it says, shoe input dropped).
_NOT_REPLAYED = TABLE_ALARMS | {"recovery_mismatch", "journal_failing", "shoe_input_dropped",
                                "restart_input_lost"}
_FAILED = "journal_failing"  # the alarm of a journal failure (controller.cli.daemon.journal_guard)
_DOWN = "restart_input_lost"  # a restart in a game: the shoe was not read while down
_DOWN_WHY = "the daemon was not running before this start (stopped or killed)"


class CardTable(LiveCardTable):
    """A card table fed by a shoe reader, that can restart from its journal.

    Args: as :class:`~controller.cards.table_live.LiveCardTable`'s.
    """

    # -- restart ---------------------------------------------------------------------
    def checkpoint(self) -> dict[str, Any] | None:
        """What a fresh table needs to go on from here, when the shoe has just closed
        between games (its next procedure not begun, no port down, no line half read);
        None otherwise, or when the game or a port's codec cannot give its own part."""
        own = self.game
        if (not isinstance(own, Checkpointing) or self.ports_down or own.under_way()
                or self.waiting.pending):
            return None
        if not all(getattr(c, "idle", lambda: False)() for c in self.codecs.values()):
            return None
        shoe = self.shoe.checkpoint()
        game = own.checkpoint() if shoe is not None else None
        if shoe is None or game is None:
            return None
        return {"boundary": f"shoe closed after {self._tag_words()}", "shoe": shoe,
                "game": game}

    def restore(self, state: dict[str, Any]) -> None:
        """Go on from a checkpoint's ``state`` (:meth:`checkpoint`)."""
        self.shoe.restore(state["shoe"])
        self.game.restore(state["game"])  # type: ignore[attr-defined]  # optional (game.py)
        self._under_way = False

    def _tag_words(self) -> str:
        return " ".join(f"{k} {v}" for k, v in self.game.tag().items())

    def recover_from(self, journal: Journal) -> None:
        """Rebuild the table's state from the last checkpoint and the inputs journaled
        after it (see the module doc); a ``recovery`` record says what was played again
        and what the table waits for.

        Raises:
            UnreadableRecord: a record after the checkpoint cannot be read.
        """
        checkpoint, records = since_checkpoint(journal, self.config.spec)
        if checkpoint is not None:
            try:
                self.restore(checkpoint["state"])
            except (KeyError, TypeError, ValueError) as exc:
                why = f"it has no {exc}" if isinstance(exc, KeyError) else str(exc)
                raise UnreadableRecord(journal.path, checkpoint["seq"], "checkpoint",
                                       f"its state cannot be restored: {why}") from None
        bet_record = self.game.bet_record
        inputs = [r for r in records if r["type"] in (*_INPUTS, bet_record)
                  or (r["type"] == "alarm" and ("bet" in r or r.get("code") in (_FAILED,
                                                                                 _DOWN)))]
        derived = [r for r in records if r["type"] not in _MARKERS
                   and r["type"] not in _INPUTS
                   and not (r["type"] == "alarm" and r.get("code") in _NOT_REPLAYED)]
        if not inputs and not derived:
            return
        checker = Replayed(derived)
        self._emit = checker
        try:
            for rec in inputs:
                self._replay_input(rec)
        finally:
            self._emit = self._real_emit
            self.views = {}  # the ports say nothing until they talk to this daemon
        checker.end()
        self._alarm_input_dropped(records)
        self._alarm_down(bool(inputs))
        tag = self.game.tag()
        self._real_emit(CardRecovery(
            inputs=len(inputs), records_checked=checker.matched, mismatch=checker.mismatch,
            since=checkpoint["seq"] if checkpoint else 0, tag=tag, state=self.game.state,
            shoe_cards_left=self.shoe.cards_left,
            waiting_for=self.waiting.waiting_for() or self.game.next_hand()))
        if checker.mismatch is not None:
            self._real_emit(CardAlarm(
                code="recovery_mismatch", tag=tag, message="the journal's inputs do not "
                f"give its records again ({checker.mismatch}): it was altered outside the "
                "controller; play goes on from the inputs, the inspector checks the journal"))

    def _alarm_input_dropped(self, records: list[dict[str, Any]]) -> None:
        """After a restart that followed a journal failure in which shoe input was dropped
        while a card could be due (:meth:`_replay_input`), the alarm that stops play for
        the dealer's ``lost_cards``, once."""
        if self.waiting.lost is None or self._dropped_at is None:
            return
        if any(r["type"] == "alarm" and r.get("code") == "shoe_input_dropped"
               and r["seq"] > self._dropped_at for r in records):
            return
        # Journaled now (no ``t``, as the recovery record): the failure's time is past.
        self._real_emit(CardAlarm(code="shoe_input_dropped",
                                  message=self.waiting.lost_message(), stops_play=False,
                                  tag=self.game.tag()))

    def _alarm_down(self, replayed: bool) -> None:
        """A restart in the middle of a game where a card could be due (``replayed``: the
        journal had inputs to play again): the shoe was not read while the daemon was down,
        so cards may have been dealt unread (issue 16, item 2). Play stops for the
        dealer's ``lost_cards``, as after a port outage; the alarm (no ``t``: journaled
        now) is an input of the next restart's replay."""
        if replayed and self.game.under_way() and self.waiting.input_lost(
                0.0, _DOWN_WHY, code=None):
            self._real_emit(CardAlarm(code=_DOWN, message=self.waiting.lost_message(),
                                      stops_play=False, tag=self.game.tag()))

    def _replay_input(self, rec: dict[str, Any]) -> None:
        t = rec["t"]
        kind = rec["type"]
        if kind == "alarm" and rec.get("code") == _DOWN:
            self.waiting.input_lost(t, _DOWN_WHY, code=None)  # as that start did
            return
        if kind == "alarm" and rec.get("code") == _FAILED:
            # Hardware input was dropped while the journal failed (journal_guard): cards
            # may have been dealt unread, also while none was due (bets open, between
            # games: cards that have no hand). Play stops for lost_cards, so that the shoe
            # counts them and none is forgotten (the alarm after the recovery, by
            # _alarm_input_dropped).
            if rec.get("dropped", 1) and self.waiting.input_lost(
                    t, f"{rec.get('dropped', 'some')} hardware events were dropped while the "
                    "journal could not be written", code=None,
                    could_be_due=self.shoe.ready_for_play or self.game.under_way()):
                self._dropped_at = rec["seq"]
            return
        if kind == "serial":
            self.serial(SerialData(t, rec["port"], rec["text"].encode("latin-1")))
        elif kind == "port":
            self.port_status(PortStatus(t, rec["port"], rec["up"], rec.get("detail", "")))
        elif kind == "input":
            args = {k: v for k, v in rec.items()
                    if k not in ("type", "seq", "t", "action", "source")}
            inp = DealerInput(t, rec["action"], args)
            if inp.action in TABLE_INPUT_ACTIONS:  # the Table's own, as it did it live
                self._table_input(inp)
            else:
                self._input(inp)
        else:  # a bet: the game's record of it accepted, or the alarm that refused it
            self._bet(bet_of(t, rec["bet"] if kind == "alarm" else rec,
                             (f.name for f in self.config.spec.bet_fields)))
