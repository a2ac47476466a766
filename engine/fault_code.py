"""A fault's code: the one name of each fault, from the referee to the page (its rule in
:data:`engine.faults.FAULT_CODES`)."""

from __future__ import annotations

from enum import StrEnum


class FaultCode(StrEnum):
    """A fault's code (docs/rules.md's table): a :class:`str` (``FaultCode.REVOKE == "revoke"``), so the JSON
    protocol writes it as it was."""

    MISDEAL = "misdeal"
    DUPLICATE_CARD = "duplicate_card"
    UNKNOWN_TAG = "unknown_tag"
    FOREIGN_PACK = "foreign_pack"
    COUNTERFEIT_CARD = "counterfeit_card"
    EXCHANGE_COUNT = "exchange_count"
    FALSE_KING = "false_king"
    OUT_OF_TURN = "out_of_turn"
    REVOKE = "revoke"
    NOT_OVERTAKING = "not_overtaking"
    NOT_TRUMPING = "not_trumping"
    CARD_NOT_IN_HAND = "card_not_in_hand"
    NOT_HIGHEST = "not_highest"
    KING_NOT_LED = "king_not_led"
    WRONG_TIME = "wrong_time"


class NoticeCode(StrEnum):
    """The code of something the table tells the players that is no fault of the rules (a ``notice`` event's
    ``code`` beside :attr:`FaultCode.WRONG_TIME`, and the snapshot's shown fault while the notice stands): the
    setup's refusals, and the next game's players named."""

    LOCKED = "locked"
    """A setting the table file locks (``[table] locked``)."""
    BADGE_SEAT = "badge_seat"
    """A player's badge laid on the other seat's pad."""
    RULE_CARD = "rule_card"
    """A rule card that cannot start the game (its setup refused)."""
    SETUP_IGNORED = "setup_ignored"
    """A setup once the game is under way."""
    NEXT_PLAYERS = "next_players"
    """The next game's players named between two games."""

