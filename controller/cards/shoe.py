"""The card shoe ("zapato" or "sabot", seed 004 Art. 2 h): its cards and its procedures.

``ShoeSession`` takes the dealer's and inspector's inputs and enforces the deck procedures
its game's package gives it (:mod:`controller.cards.procedures`: e.g. seed 002 Art. 5, new
decks, and Art. 6, after the cut card, "cortador"); its base
(:class:`~controller.cards.shoe_reader.ShoeReader`) keeps the shoe's composition and
decides which card read from the shoe goes to the game. It journals through ``emit`` and
never touches hardware: it is fed ``controller.cards.shoe_lines`` records decoded from the
reader's bytes. It knows no game: the messages cite the articles of ``ShoeRules.citations``.

Decisions (RULES.md §3, "Decisions for the controller"; seed 002 Art. 4-6):

- Composition: every card read from the loaded shoe (game, burn, dealer correction) is
  counted; ``decks`` copies of each of the 52 cards (jokers removed, Art. 4).
- Stopping alarms stop play on the shoe until ``inspector_clear``: ``card_over_count``,
  ``bad_card`` (a joker or unreadable rank), ``cut_card_late`` and ``cut_card_early`` (a
  misplaced cut card: fewer than 40 cards left, or more than half the pack, when it
  appears; Art. 5 e, 6 b), ``cut_card_missing``, and
  ``card_before_correction`` (a card read while a misread awaits the dealer's correction,
  which would put the cards out of order). The card that raises one is not passed to the
  game; an extra copy (``card_over_count``) is not counted either.
- The card table stops play the same way (``stop``) for a card whose place the game will
  not give (``controller.cards.waiting``): ``coup_held`` (a decision too late for the
  seed), ``card_without_place`` (the decisions entered gave a waiting card no place).
- Any card read while play is stopped, or before the procedure is complete, is journaled
  as an alarm (``card_while_stopped``, ``card_before_ready``) and not passed to the game.
  Cards read before the shoe is loaded are not counted: the shoe holds no cards then.
- ``cut_card_missing`` also ends the shoe after the current game, as the cut card would
  have: dealing on into the 40-card reserve is what the cut card prevents.
- "After the current game": the session does not know the games, so its owner calls
  ``game_finished`` when a game ends, and also as soon as ``shoe_ending`` is set while no
  game is under way (``controller.cards.table``): the shoe then closes at once, and the
  procedure after the cut card is due before the next game.
- A misread is not an alarm: ``feed`` returns the ``MisreadLine`` and the game waits for
  ``manual_card``.
- A line cut by a port outage (``CutOffLine``) is a ``line_cut`` alarm; the codec follows
  it with the record of the card it may have held (a misread, an unreadable burn card,
  the cut card), acted on as if read.
- The count-out (``ShoeRules.count_out``, :mod:`controller.cards.count_out`; Art. 4, the
  decks complete): a shoe closed at the cut card takes the cards left in it as
  ``count_out_card`` records until ``count_out_done``, which checks that every card of the
  composition was seen once a deck; a card never seen is a ``decks_incomplete`` alarm,
  and new decks (``change_decks``) come before any procedure step.

Every dealer and inspector input has its check (``verify_*``: raises ``RuleViolation``,
changes nothing) beside the method that does it.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from controller.cards.card import Card, parse_card
from controller.cards.records import CardAlarm, InspectorClear, ManualCard, ShoeProcedure
from controller.cards.records import CountOut as CountOutRecord
from controller.cards.shoe_reader import ShoeReader
from controller.core.errors import RuleViolation
from controller.core.words import given, one_of
from controller.store.records import ABSENT


class ShoeSession(ShoeReader):
    """One table's shoe, from the new-decks procedure onwards.

    Args:
        emit: journals a record and returns it (``controller.core.contract.Emit``).
        rules: the shoe's decks, cut-card reserve (seed 002 Art. 5 e and Art. 6 b: "a no
            menos de cuarenta (40) cartas de la base") and procedures, as the game's
            package gives them, already checked by its config.

    A new session needs the ``rules.new_decks`` procedure before the first game. The
    composition and the reader's lines (``feed``) are :class:`ShoeReader`'s.
    """

    def verify_new_game(self) -> None:
        """Check that a new game may start on this shoe.

        Raises:
            RuleViolation: ``play_stopped`` (an alarm awaits the inspector),
                ``shoe_not_ready`` (a procedure is due), or ``shoe_ending`` (the cut card
                appeared; ``game_finished`` not yet called).
        """
        if self.play_stopped:
            codes = list(dict.fromkeys(self._stops))
            raise RuleViolation("play_stopped", f"play is stopped on the shoe by the "
                                f"{one_of(codes, 'and')} alarm{'s' if len(codes) > 1 else ''}; "
                                "the inspector resumes it (inspector_clear)")
        self._count_out.verify_checked("shoe_not_ready")
        if not self.ready_for_play:
            raise RuleViolation(
                "shoe_not_ready",
                f"the {self.procedure} procedure ({self._cite.regulation}) is not complete",
            )
        if self.shoe_ending:
            after = self.rules.after_cut_card or self.rules.new_decks
            raise RuleViolation(
                "shoe_ending", f"the cut card appeared: the shoe ends ({after.article})"
            )

    # --- checkpoints -------------------------------------------------------------------

    def checkpoint(self) -> dict[str, Any] | None:
        """The session's state when the shoe has just closed (its next procedure not
        begun, nothing pending): the procedure due, the cards counted, the stopping alarms
        awaiting the inspector, the unknown lines counted; None at any other moment."""
        run = self._run
        if (self._loaded or run.due is None or run.last != -1 or self._misreads_pending
                or self.shoe_ending or self._cut_seen or self._count_out.cards):
            return None  # (a count-out under way starts again from the close: count_out_lost)
        return {"procedure": run.due.name, "stops": list(self._stops),
                **self._count_out.state(),
                "counts": {str(card): n for card, n in sorted(self._counts.items(), key=str)},
                "unknown_lines": self._unknown_lines,
                "reserve_alarmed": self._reserve_alarmed}

    def restore(self, state: dict[str, Any]) -> None:
        """Go on from :meth:`checkpoint`'s ``state``.

        Raises:
            ValueError: it names a procedure or a card these rules do not have.
        """
        by_name = {p.name: p for p in self.rules.procedures()}
        procedure = by_name.get(state["procedure"])
        if procedure is None:
            raise ValueError(f"procedure {given(state['procedure'])} is not one of "
                             f"{', '.join(by_name)}")
        self._run.start(procedure)
        self._loaded = False
        self._stops = [str(code) for code in state["stops"]]
        self._counts = Counter({parse_card(card): int(n) for card, n in state["counts"].items()})
        self._unknown_lines = int(state["unknown_lines"])
        self._reserve_alarmed = bool(state["reserve_alarmed"])
        self._count_out.restore(state, self._counts)

    # --- dealer and inspector inputs ----------------------------------------------------

    def verify_procedure_step(self, step: str, by: str | None = None) -> int:
        """Check that the dealer may do ``step`` now (``by`` whom, for a step that asks).

        Returns the step's index in the procedure due.

        Raises:
            RuleViolation: ``count_out_due`` (the closed shoe's count-out comes first),
                ``decks_incomplete`` (it found cards missing: new decks first); as
                ``ProcedureRun.verify``: ``unknown_procedure_step``,
                ``procedure_out_of_order``, ``procedure_step_by``.
        """
        self._count_out.verify_checked()
        return self._run.verify(step, by)

    def procedure_step(self, t: float, step: str, by: str | None = None) -> dict[str, Any]:
        """The dealer did ``step`` of the procedure due (e.g. seed 002 Art. 5 or 6).

        The first step gathers every card, so the composition is full again. A step
        ``read`` from the shoe (the burn, "quemar") is not declared: a card read after the
        shoe is loaded fulfils it.

        Returns the ``shoe_procedure`` record (``procedure``, ``step``; ``times`` for a
        step done several times, ``by`` for one that asks who did it).

        Raises:
            RuleViolation: as ``verify_procedure_step``, before anything changed.
        """
        run = self._run
        index = self.verify_procedure_step(step, by)
        assert run.due is not None, "verified: a procedure is due"
        spec = run.due.steps[index]
        if run.last < 0:
            self._counts.clear()
        times = (run.times + 1 if index == run.last else 1) if spec.min_times > 1 else ABSENT
        record = self._emit(ShoeProcedure(procedure=run.due.name, step=step, times=times,
                                          by=by if spec.by else ABSENT), t=t)
        run.done(index)
        if spec.loads:
            self._loaded = True
        return record

    def verify_manual_card(self, card: Card) -> None:
        """Check that there is a misread card for the dealer's correction ``card``.

        Raises:
            RuleViolation: ``no_misread_pending``.
        """
        if not self._misreads_pending:
            raise RuleViolation("no_misread_pending", f"no misread card to correct with {card}")

    def manual_card(self, t: float, card: Card) -> Card | None:
        """The dealer's correction of a misread card; counted like a read card.

        Returns the card for the game, or None when it raised an alarm (composition).

        Raises:
            RuleViolation: ``no_misread_pending`` (nothing to correct).
        """
        self.verify_manual_card(card)
        self._emit(ManualCard(card=str(card)), t=t)
        return self._take(t, card, burn=False, correction=True)

    def lost_card(self, t: float, card: Card) -> Card | None:
        """A card the dealer says was dealt while the shoe's input was lost
        (``controller.cards.waiting``); counted like a read card.

        Returns the card for the game, or None when it raised an alarm (composition).
        """
        return self._take(t, card, burn=False, correction=False, lost=True)

    def verify_count_out_done(self) -> None:
        """Check that the dealer may end the count-out now.

        Raises:
            RuleViolation: ``no_count_out``, ``awaiting_correction`` (``CountOut``).
        """
        self._count_out.verify_done(self._misreads_pending)

    def count_out_done(self, t: float) -> dict[str, Any]:
        """The dealer ran the cards left in the closed shoe through the reader (seed 002
        Art. 4: "verificará que las barajas nuevas estén completas"): every card of the
        composition must have been seen once a deck since the load.

        Returns the ``count_out`` record (``cards``: read in the count-out, ``seen``: in
        the whole shoe, ``missing``: one entry a copy). A card missing is also a
        ``decks_incomplete`` alarm; the new-decks procedure is then due, after new decks
        (``change_decks``), instead of the procedure after the cut card.

        Raises:
            RuleViolation: as ``verify_count_out_done``, before anything changed.
        """
        self.verify_count_out_done()
        cards = self._count_out.cards
        missing = [str(card) for card in self._count_out.done(self._counts)]
        record = self._emit(CountOutRecord(cards=cards, seen=self._counts.total(), missing=missing),
                            t=t)
        if missing:
            self._run.start(self.rules.new_decks)
            self._alarm(t, CardAlarm(code="decks_incomplete",
                                     message=self._count_out.shortfall(), missing=missing))
        return record

    def count_out_lost(self, t: float, why: str) -> None:
        """Shoe input was lost (``why``, in words: the port was down) while the closed shoe
        was counted out: cards may have passed unread, and none may be guessed. The
        count-out starts again from the shoe's close (its counts then), with a
        ``count_out_restarted`` alarm: the dealer runs all its cards through again."""
        count_out = self._count_out
        if not count_out.due or not (count_out.cards or self._misreads_pending):
            return
        self._counts = Counter(count_out.at_close)
        count_out.cards = 0
        self._misreads_pending = 0
        self._alarm(t, CardAlarm(
            code="count_out_restarted", message=f"{why} during the count-out: cards may "
            "have passed unread; it starts again from the shoe's close: run all its cards "
            "through the reader again, then count_out_done"))

    def stop(self, t: float, alarm: CardAlarm) -> None:
        """Stop play on the shoe until ``inspector_clear``: a stopping ``alarm``."""
        self._stop(t, alarm)

    def inspector_clear(self, t: float, note: str) -> dict[str, Any]:
        """The inspector resumes play after the stopping alarms; journals ``note``.

        Returns the ``inspector_clear`` record (``note``, ``cleared``: the alarm codes).

        Raises:
            RuleViolation: ``play_not_stopped``.
        """
        self.verify_inspector_clear()
        cleared, self._stops = self._stops, []
        return self._emit(InspectorClear(note=note, cleared=cleared), t=t)

    def release(self, codes: tuple[str, ...]) -> list[str]:
        """Clear the stopping alarms of ``codes`` (a game voided: its holds go with it);
        the others still await ``inspector_clear``. Returns the codes cleared."""
        cleared = [c for c in self._stops if c in codes]
        self._stops = [c for c in self._stops if c not in codes]
        return cleared

    def verify_inspector_clear(self) -> None:
        """Check that play is stopped, so that the inspector may resume it.

        Raises:
            RuleViolation: ``play_not_stopped``.
        """
        if not self._stops:
            raise RuleViolation("play_not_stopped", "play is not stopped on the shoe")

    def close_if_ending(self, t: float) -> bool:
        """No game is under way (or the one in progress just ended): close the shoe if the
        cut card appeared (or the reserve was reached) in it or since the last one.

        Returns True when the shoe closed (the procedure after the cut card is then due).
        """
        if self.shoe_ending:
            self._close(t, "cut_card", self.rules.after_cut_card or self.rules.new_decks)
            return True
        return False

    def game_started(self) -> None:
        """A game opened on this shoe: the procedure, complete, ends (steps it still allowed,
        a further shuffle or an optional cut of seed 003 num. 2, are no longer taken)."""
        self._run.close()

    def game_finished(self, t: float) -> None:
        """The game in progress ended: the shoe closes if it is ending
        (``close_if_ending``); else the procedure due before each game, if the regulation
        has one (seed 003 num. 2: shuffles before each hand), is due."""
        if not self.close_if_ending(t) and self.rules.before_each_game is not None:
            self._close(t, "game_finished", self.rules.before_each_game)

    def change_decks(self, t: float, reason: str) -> None:
        """Replace the decks (seed 002 Art. 4: a fault, an incomplete deck, a request).

        Closes the shoe at once; the new-decks procedure (Art. 5) is due.
        """
        self._close(t, "decks_changed", self.rules.new_decks, note=reason)
