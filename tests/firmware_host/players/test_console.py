"""The simulator's console (``ecarte-table sim``): what it reads of typed lines, what it prints of the
table's events, what its bench holds, and its journal."""

from __future__ import annotations

import io
import random
from collections.abc import Iterable
from pathlib import Path

from firmware_host.journal.store import Journal
from firmware_host.players.console import SimJournal, describe, run_session
from firmware_host.referee.controller import Controller
from firmware_host.referee.table_defaults import TableDefaults
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


def _session(lines: Iterable[str], controller: Controller | None = None,
             journal: SimJournal | None = None) -> tuple[int, str, Controller]:
    """``sim``'s session on ``lines`` (A deals): the lines not understood, what it printed, the referee."""
    controller = controller or Controller(TableDefaults(dealer="A"))
    out = io.StringIO()
    bad = run_session(lines, out, controller=controller, rng=random.Random(3), journal=journal)
    return bad, out.getvalue(), controller


def test_a_session_reads_until_quit_and_counts_the_lines_it_cannot_read() -> None:
    """A near miss gets the nearest command, a line it cannot read the way to ``help``; each is counted
    (``sim`` exits 2 on them); nothing after ``quit`` is read."""
    lines = iter(["A play KS", "hello", "# a transcript's comment", "quit", "A yes"])
    bad, said, _ = _session(lines)
    assert bad == 2
    assert "?? cannot read 'A play KS': did you mean `A plays KS`?" in said
    assert "?? cannot read 'hello'" in said and "help" in said
    assert list(lines) == ["A yes"]


def test_the_bench_holds_each_seat_s_cards_and_refuses_a_card_laid_twice() -> None:
    """What is typed onto a hand pad is that seat's; a card already on a pad changes nothing there (a
    pad sees a card arrive once), is said so and counted, and never reaches the referee."""
    bad, said, controller = _session(["B gets 7H 8H 9H", "B gets 7H"])
    assert bad == 1
    assert "A holds nothing  B holds 7♥ 8♥ 9♥" in said
    assert "?? nothing changed: the 7H already lies on hand.B" in said and "'hand.B 7H gone'" in said
    assert controller.snapshot().sight.seen[1] == 3  # B's three, once each


def test_state_prints_the_snapshot_as_the_protocol_has_it() -> None:
    import json

    bad, said, controller = _session(["deal", "state"])
    assert bad == 0
    state = json.loads(said.strip().splitlines()[-1])
    assert state == controller.snapshot().to_json()
    assert state["view"]["phase"] != "deal" and state["view"]["hand_sizes"] == [5, 5]


def test_a_typed_session_is_journaled_line_by_line_before_the_referee_acts(tmp_path: Path) -> None:
    """``sim`` keeps a journal as the service does: the game's setup, then each event the referee took
    (a line the bench refused is not one of them), so that ``export`` and ``review`` read the session."""
    controller = Controller(TableDefaults(dealer="A"))
    journal = Journal(tmp_path / "sim.sqlite", lock=True)
    try:
        bad, _said, _ = _session(["B gets 7H 8H 9H", "B gets 7H", "A yes"], controller=controller,
                                 journal=SimJournal(journal, controller))
        assert bad == 1
        assert journal.games() == [(1, 5)]  # the setup and four events
    finally:
        journal.close()


def test_a_stand_after_an_exchange_is_worded_as_the_voice_words_it() -> None:
    """"B joue d'autorité" was printed for the elder who proposes no more after an exchange: d'autorité is
    the stand without exchange, vulnerable; the bench says, as the voice does, that play begins."""
    from engine.events import Bid

    said = {lang: describe(Bid("B", "stand", False), lang=lang) for lang in ("fr", "it", "de", "es", "en")}
    assert said == {"fr": "B ne propose plus d'écart : on joue", "it": "B non propone altri scambi: il gioco comincia",
                    "de": "B schlägt keinen Tausch mehr vor: es wird ausgespielt",
                    "es": "B ya no propone: el juego comienza", "en": "B proposes no more: play begins"}
    assert "d'autorité" in describe(Bid("B", "stand", True), lang="fr")  # the stand as dealt: vulnerable


def test_sim_takes_a_local_card_by_its_letters_where_they_are_unambiguous() -> None:
    """``sim`` took a local card only with its suit symbol (``R♠``), which a French, Italian or Spanish
    keyboard cannot type, and refused ``RP`` teaching English letters: a card is typed with its printed
    rank and its suit's letters, the shortest start of the suit's name no other suit shares (German's K is
    Karo's and Kreuz's: KA, KR); a code keeps its card; help and the refusal say the letters."""
    import random

    import pytest

    from engine import NotationError
    from firmware_host.players.console import help_text, parse_sim_line
    from firmware_host.referee.transcript import CardEvent

    snapshot, rng = Controller().snapshot(), random.Random(1)

    def typed(line: str, lang: str) -> list[str | None]:
        return [e.card for e in parse_sim_line(line, snapshot, rng, lang) if isinstance(e, CardEvent)]

    assert typed("B joue RP DCO VCA 10T", "fr") == ["KS", "QH", "JD", "TC"]
    assert typed("B gioca RP DC FQ AF", "it") == ["KS", "QH", "JD", "AC"]
    assert typed("B juega KP QCO JD 10T", "es") == ["KS", "QH", "JD", "TC"]
    assert typed("B spielt KP DH BKA AKR", "de") == ["KS", "QH", "JD", "AC"]
    assert typed("B juega JC", "es") == ["JC"]  # the code's jack of clubs: the sota de corazones is JCO or J♥
    with pytest.raises(NotationError, match=r"KA \(Karo\), KR \(Kreuz\)"):
        typed("B spielt KK", "de")  # K alone is no German suit
    with pytest.raises(NotationError) as refused:
        typed("B joue ZP", "fr")
    assert "P (pique), CO (cœur), CA (carreau), T (trèfle)" in str(refused.value) and "RP" in str(refused.value)
    for lang, example in (("fr", "`A joue RP`"), ("it", "`A gioca RP`"), ("de", "`A spielt KP`"),
                          ("es", "`A juega KP`")):
        assert example in help_text(lang)
