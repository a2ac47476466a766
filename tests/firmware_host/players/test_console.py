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


def test_sim_takes_the_languages_letters_and_verbs() -> None:
    """``sim`` shows "D♣" (the French queen) but took only "QC": "B joue D♠" and "B juega Q♠" are read
    as the table prints them, with the language's verbs and buttons; the codes still work."""
    import random

    import pytest

    from engine import NotationError
    from firmware_host.players.console import parse_sim_line
    from firmware_host.referee.controller import Controller
    from firmware_host.referee.transcript import ButtonEvent, CardEvent

    snapshot, rng = Controller().snapshot(), random.Random(1)
    assert parse_sim_line("B joue D♠", snapshot, rng, "fr") == [CardEvent("play.B", "QS")]
    assert parse_sim_line("B juega Q♠", snapshot, rng, "es") == [CardEvent("play.B", "QS")]
    assert parse_sim_line("A gioca 10♦ F♥", snapshot, rng, "it") == [CardEvent("play.A", "TD"),
                                                                     CardEvent("play.A", "JH")]
    assert parse_sim_line("B spielt B♣", snapshot, rng, "de") == [CardEvent("play.B", "JC")]
    assert parse_sim_line("A oui", snapshot, rng, "fr") == [ButtonEvent("A", "yes")]
    assert parse_sim_line("B joue KD", snapshot, rng, "fr") == [CardEvent("play.B", "KD")]  # the code: king of ♦
    assert parse_sim_line("B plays QS", snapshot, rng, "fr") == [CardEvent("play.B", "QS")]
    with pytest.raises(NotationError):
        parse_sim_line("B plays D♠", snapshot, rng, "en")  # English prints the queen Q
