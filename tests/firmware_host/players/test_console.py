"""The simulator's console: what it prints of the table's events."""

from __future__ import annotations

from firmware_host.players.console import describe
from firmware_host.referee.table_events import ReaderState


def test_a_reader_offline_is_said_by_its_pad_as_players_call_it() -> None:
    """``sim`` said ``reader hand.A is offline`` (the table file's key), where the OLED, the page and
    the voice say the pad as players call it."""
    assert describe(ReaderState(zone="hand.A", online=False), lang="en") == "reader A's hand is offline"
    assert describe(ReaderState(zone="turnup", online=True), lang="fr") == "lecteur retourne de retour"
    assert describe(ReaderState(zone="pad9", online=False), lang="en") == "reader pad9 is offline"  # unnamed: as is
