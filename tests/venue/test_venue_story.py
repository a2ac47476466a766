"""The page's state tells the story so far (for a spectator who comes late), in the table's language."""

from __future__ import annotations

import json

import pytest
from conftest import feed, whole_game

from catalogue import LANGUAGES, card_words
from firmware_host.referee.controller import Controller
from firmware_host.referee.transcript import CardEvent, Setup
from firmware_host.service import TableService
from venue.table.public import PublicFeed, card_tokens
from venue.table.words import RANKS, page_words


def test_the_state_carries_the_hand_so_far_and_the_games_hands(service: TableService) -> None:
    for event in whole_game(4):
        feed(service, event)
    public = PublicFeed()
    hand_ends = []
    for i, outcome in enumerate(service.outputs[0].outcomes):  # type: ignore[attr-defined]
        messages = public.take(outcome, now=float(i))
        state = messages[-1].data
        sent = [m.data for m in messages if m.kind == "event"]
        snapshot = outcome.snapshot
        # what the stream sent for the hand is in the story, in order, and nothing else
        assert state["story"][len(state["story"]) - len(sent):] == sent
        hand_ends += [e for e in sent if e["event"] == "hand_end"]
        assert [h["score"] for h in state["hands"]] == [e["score"] for e in hand_ends]
        assert [h["hand"] for h in state["hands"]] == list(range(1, len(hand_ends) + 1))
        if snapshot.between_hands:
            # the hand just over stays on the page until the next deal begins
            assert state["story_hand"] in (snapshot.hand_no, snapshot.hand_no - 1)
        else:
            assert state["story_hand"] == snapshot.hand_no
        tricks = [e for e in state["story"] if e["event"] == "trick"]
        if snapshot.phase == "play":
            assert len(tricks) == sum(snapshot.view.tricks)
            assert state["story"][0]["event"] in ("trump", "fault", "dealer", "king", "notice")
    assert len(hand_ends) >= 2


@pytest.mark.parametrize(("lang", "words"), [("en", "must follow"), ("fr", "doit fournir"),
                                             ("it", "deve rispondere"), ("de", "bedienen")])
def test_a_fault_is_said_in_the_tables_language(service: TableService, lang: str, words: str) -> None:
    public = PublicFeed(language=lang)
    outcomes = service.outputs[0].outcomes  # type: ignore[attr-defined]
    for event in whole_game(4):
        feed(service, event)
        public.take(outcomes[-1], now=0.0)
        faults = [e for e in public.state["story"] if e["event"] == "fault" and e["code"] == "revoke"]
        if faults:
            said = faults[-1]["said"]
            assert words in said["what"], said
            assert card_words(lang, faults[-1]["card"]) in said["do"], said
            assert public.state["lang"] == lang
            return
    raise AssertionError("the game had no revoke")


def test_a_card_lying_face_down_is_not_said() -> None:
    """A card dealt twice during the deal lies face down: the fault's words name no card."""
    table, public = Controller(), PublicFeed(language="fr")
    public.take(table.handle(Setup(rules="classic", dealer="A")), now=0.0)
    public.take(table.handle(CardEvent("hand.B", "KS")), now=0.0)
    messages = public.take(table.handle(CardEvent("hand.A", "KS")), now=0.0)
    faults = [m.data for m in messages if m.kind == "event" and m.data["event"] == "fault"]
    assert faults and all(f["said"]["what"] for f in faults)
    assert "KS" not in card_tokens(json.dumps([m.data for m in messages], ensure_ascii=False))


def test_every_language_has_every_word_of_the_page() -> None:
    for lang in LANGUAGES:
        words = page_words(lang)
        assert words["lang"] == lang
        assert set(words["words"]) == set(page_words("en")["words"]), lang
        assert all(words["words"].values())
        assert [words["ranks"][r] for r in RANKS] == [card_words(lang, r + "S")[:-1] for r in RANKS]
    assert page_words("xx")["lang"] == "en"


@pytest.mark.parametrize(("lang", "what"), [("en", "A does not hold"), ("fr", "A n'a pas"),
                                            ("it", "A non ha"), ("de", "A hat nicht"),
                                            ("es", "A no tiene")])
def test_a_fault_said_without_its_face_down_card(lang: str, what: str) -> None:
    from engine import Fault
    from engine.cards import Card
    from engine.message import Phrase
    from firmware_host.screens.public_faults import public_fault

    snapshot = Controller().handle(Setup(rules="classic", dealer="A")).snapshot
    fault = Fault("card_not_in_hand", "A", "", Card.parse("9S"), says=Phrase("says.play_not_held"))
    hidden = public_fault(fault, face_up=False, snapshot=snapshot, language=lang)
    assert hidden["said"]["what"] == what and not card_tokens(json.dumps(hidden, ensure_ascii=False))
    shown = public_fault(fault, face_up=True, snapshot=snapshot, language=lang)
    assert card_words(lang, "9S") in shown["said"]["what"]
