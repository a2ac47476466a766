"""The game's own words as a club in each language says them, with the seeds as the authority
(``/work/shared/sources``: 000 Italian, 001 French, 002 German, 003 Spanish; docs/words.md).

German: a late fault says what was not done, as ``history`` does ("hat nicht getrumpft", "hat nicht
bedient"); a king kept is "nicht angesagt"; a card that must win the trick *überstechen* (002's "müssen
... überstochen"), never *stechen*, which is to trump; the hand is a *Spiel* and the game a *Partie* (a
pack a *Kartenspiel*); one form of address (du). Spanish: the fault lines are grammatical, the turn-up
is 003's "la carta de triunfo", "no" goes on rather than "no jugar", the exchange is 003's
*intercambio*. Italian: the revoke is 000's "non ha risposto al seme", *seme* is the suit and never the
random seed, a reader offline does not answer. French: *de* elides before a verb put in ("d'accepter")."""

from __future__ import annotations

import re

import pytest

from catalogue import LANGUAGES, ids, is_plural, say, template, template_n


def forms(lang: str, msgid: str) -> list[str]:
    return [template_n(lang, msgid, n) for n in (1, 2, 5)] if is_plural(msgid) else [template(lang, msgid)]


def every(lang: str) -> dict[str, list[str]]:
    return {msgid: forms(lang, msgid) for msgid in ids()}


@pytest.mark.parametrize(("code", "said"), [("revoke", "Anne hat im Stich 3 nicht bedient"),
                                            ("not_trumping", "Bruno hat im Stich 4 nicht getrumpft"),
                                            ("not_overtaking", "Anne hat im Stich 2 nicht überstochen")])
def test_german_late_faults_say_what_was_not_done(code: str, said: str) -> None:
    who, trick = said.split()[0], said.split()[4]
    assert say("de", "late_play", who=who, trick=trick, what=say("de", "fault." + code)) == said  # as history
    # a penalty said in a sentence takes the same words (the OLED's score line keeps its short label)
    from firmware_host.screens.chooser import reason_id

    assert say("de", reason_id(code)) == say("de", "fault." + code)


def test_german_words_for_the_king_the_overtake_and_the_point() -> None:
    assert say("de", "pen_king_not_declared") == "König nicht angesagt"
    assert say("de", "revoke_win", who="B", suit="♥") == "B muss ♥ bedienen und überstechen"
    # stechen is to trump: a card that must win the trick is 002's überstechen
    for msgid, texts in every("de").items():
        for text in texts:
            assert not re.search(r"\b(stechen|steche|sticht)\b", text), (msgid, text)
    assert say("de", "voice.gains", who="Anne", n=1, points="1 Punkt") == "Anne bucht 1 Punkt."
    assert "schreibt" not in say("de", "voice.no_points")


def test_german_hand_is_a_spiel_and_the_game_a_partie() -> None:
    assert say("de", "status_target", n=5) == "Partie bis 5"
    assert say("de", "game_over_do", a=3, b=6) == "Partie 3:6\nja: neue Partie"
    assert say("de", "prompt.over.short") == "Partie vorbei"
    assert say("de", "page.hand") == "Spiel"
    # the English "game" is never a Spiel, a pack never a bare Spiel; but one takes (declares) the game as
    # 002 says it ("das Spiel zu machen"): that game is the hand
    for msgid in sorted(set(ids()) - {"page.bid_declare", "prompt.take"}):
        english, german = template("en", msgid), " ".join(forms("de", msgid))
        if re.search(r"\bgame\b", english) and not re.search(r"\bhands?\b|\bdeals?\b", english):
            assert not re.search(r"\bSpiel\b", german), (msgid, german)
        if re.search(r"\bpacks?\b", english):
            assert not re.search(r"(?<!Karten)Spiel(e|s)?\b", german), (msgid, german)


def test_german_says_du_throughout() -> None:
    polite = [(msgid, text) for msgid, texts in every("de").items() for text in texts
              if re.search(r"(?<!^)\b(Sie|Ihr|Ihre|Ihres|Ihren|Ihnen)\b", text)]
    assert polite == []


def test_spanish_fault_lines_are_grammatical() -> None:
    assert say("es", "revoke", who="Ana", suit="diamantes") == "Ana debe seguir el palo de diamantes"
    assert say("es", "not_trumping", who="Ana", suit="tréboles") == "Ana debe fallar con tréboles"
    assert say("es", "late_choose", turn="Ana") == "Ana elige (sí: repetir, no: seguir)"
    assert "no jugar" not in " ".join(t for texts in every("es").values() for t in texts)


def test_spanish_turn_up_and_exchange_are_the_seeds_words() -> None:
    assert say("es", "voice.trump", hand=1, dealer="Ana", card="el siete de diamantes", suit="diamantes") \
        == "Mano 1. Reparte Ana. La carta de triunfo es el siete de diamantes. Triunfo diamantes."
    words = " ".join(t for texts in every("es").values() for t in texts)
    assert "Vuelta" not in words and "la vuelta" not in words
    assert not re.search(r"\bcambio\b", words)  # 003: intercambio


def test_italian_revoke_suit_and_seed() -> None:
    assert say("it", "late_play", who="Anne", trick=3, what=say("it", "fault.revoke")) \
        == "Anne non ha risposto al seme, presa 3"
    assert "risposta errata" not in " ".join(t for texts in every("it").values() for t in texts)
    for msgid in ids():  # the random seed is never a seme: at the table a seme is a suit
        if re.search(r"\bseed\b", template("en", msgid), re.I) or msgid == "metavar.SEED":
            assert not re.search(r"\bseme\b", template("it", msgid), re.I), msgid
    assert "spento" not in say("it", "enrol.offline") + say("it", "offline", zones="x")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_classical_sentence_quotes_the_rows_name(lang: str) -> None:
    said = say(lang, "rules_of_thumb.row", name="2T+3", row="x", king="")
    assert re.search(r"[«»']\s?2T\+3\s?[»«']", said), said


def test_french_elides_de_before_a_verb_put_in() -> None:
    said = say("fr", "coach.advice_said", who="A", best="accepter", point="p", vole="v", worth="w", classical="c")
    assert "le mieux était d'accepter" in said
    assert say("fr", "rules_of_thumb.say", where="w", verb="échanger") == "w : elles conseillent d'échanger"


@pytest.mark.parametrize("msgid", ["late_play", "late_king", "late_choose", "colon"])
def test_french_puts_a_space_before_the_colon(msgid: str) -> None:
    said = say("fr", msgid, who="Anne", what="renonce", trick=2, turn="Bruno", label="Anne", text="jouez")
    assert " : " in said and not re.search(r"\S:", said), said


def test_sim_words_a_stand_after_an_exchange_as_the_voice_does() -> None:
    for lang in LANGUAGES:
        after = say(lang, "sim.bid.stand_after", seat="B")
        assert after != say(lang, "sim.bid.stand", seat="B")
        assert after.rstrip(".") in say(lang, "voice.stand_after", who="B").rstrip(".") or lang == "en"
