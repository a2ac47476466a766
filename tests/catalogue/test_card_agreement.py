"""A printed card's article, contracted or not, and an adjective after it agree with the card, in every
template that takes a card, filled with every rank ("au lieu du A♦", "invece del 8♠", "en lugar
del Q♠", "la D♠ était meilleur", "atout : D♦ retourné" were all said).

The expectations are written here by hand, from the languages' grammar, not from :func:`catalogue.agree`'s
tables: the queen is feminine in French, Italian and Spanish (*la dame*, *la donna*, *la reina*), the
Spanish jack too (*la sota*); the ace elides in French and Italian (*l'as*, *l'asso*), the Italian eight too
(*l'otto*); the French eight does not (*le huit*)."""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Any

import pytest

from catalogue import agree as agreed
from catalogue import card_words, ids, is_plural, say, template, template_n

CARD_VALUES = ("card", "beat", "best", "played", "better")
RANKS = "789TJQKA"

FEMININE = {"fr": "Q", "it": "Q", "es": "JQ"}
ELIDED = {"fr": "A", "it": "A8", "es": ""}

MASCULINE_BEFORE = {"fr": ("le", "du", "au"), "it": ("il", "lo", "del", "al", "dal", "nel", "sul"),
                    "es": ("el", "del", "al")}
"""The masculine article, alone or contracted, that a feminine or elided card must not take."""
FEMININE_BEFORE = {"fr": ("la", "de la", "à la"), "it": ("la", "della", "alla", "dalla", "nella", "sulla"),
                   "es": ("la", "de la", "a la")}
ELIDED_BEFORE = {"fr": ("l'", "de l'", "à l'"), "it": ("l'", "dell'", "all'", "dall'", "nell'", "sull'"), "es": ()}
MASCULINE_AFTER = {"fr": ("retourné", "meilleur", "vu", "joué", "posé"), "it": ("girato", "visto", "giocato"),
                   "es": ("visto", "jugado", "vuelto")}
"""The masculine of an adjective said after a card: a feminine card takes its feminine."""


def with_card(lang: str, msgid: str, rank: str) -> list[str]:
    """``msgid``'s template in ``lang`` with every card it takes the card of ``rank`` (its other values
    placeholders), as :func:`catalogue.say` words it; one text per form of a message with plural forms."""
    printed = card_words(lang, rank + "S")
    values: dict[str, Any] = defaultdict(lambda: "x", {name: printed for name in CARD_VALUES})
    texts = ([template_n(lang, msgid, n) for n in (1, 2, 5)] if is_plural(msgid) else [template(lang, msgid)])
    return [agreed(lang, text.format_map(values)) for text in texts]


def card_templates(lang: str) -> list[str]:
    return [msgid for msgid in ids()
            if re.search(r"\{(" + "|".join(CARD_VALUES) + r")\}", template(lang, msgid))]


def before(text: str, printed: str) -> list[str]:
    """The (at most two) words before each ``printed`` card in ``text``."""
    return [text[:at].rstrip(" ")[-12:] + (" " if not text[:at].endswith("'") else "")
            for at in (m.start() for m in re.finditer(re.escape(printed), text))]


@pytest.mark.parametrize("lang", ["fr", "it", "es"])
def test_every_template_with_a_card_agrees_with_every_rank(lang: str) -> None:
    msgids = card_templates(lang)
    assert len(msgids) > 40, msgids  # the faults, the coach, the enrolment, sim, the page...
    wrong = []
    for msgid in msgids:
        for rank in RANKS:
            printed = card_words(lang, rank + "S")
            feminine, elided = rank in FEMININE[lang], rank in ELIDED[lang]
            refused = (MASCULINE_BEFORE[lang] + (ELIDED_BEFORE[lang] if feminine else FEMININE_BEFORE[lang])
                       if feminine or elided else FEMININE_BEFORE[lang] + ELIDED_BEFORE[lang])
            for text in with_card(lang, msgid, rank):
                for words in before(text, printed):
                    if any(re.search(r"(^|[\s(:])" + re.escape(article) + ("" if article.endswith("'") else " ")
                                     + "$", words, re.IGNORECASE) for article in refused):
                        wrong.append(f"{msgid} ({rank}): {text}")
                if feminine:
                    for word in MASCULINE_AFTER[lang]:
                        if re.search(re.escape(printed) + r"(?: \w+)?(?: \w+)? " + word + r"\b", text):
                            wrong.append(f"{msgid} ({rank}): {text}")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize(("lang", "msgid", "values", "said"), [
    ("fr", "coach.said_card", {"better": "AD", "played": "AH"}, "en jouant l'A♦ au pli x au lieu de l'A♥"),
    ("fr", "coach.said_card", {"better": "QD", "played": "QS"}, "en jouant la D♦ au pli x au lieu de la D♠"),
    ("it", "coach.said_card", {"better": "8D", "played": "8S"}, "giocando l'8♦ alla presa x invece dell'8♠"),
    ("it", "coach.said_card", {"better": "QD", "played": "QS"}, "giocando la D♦ alla presa x invece della D♠"),
    ("es", "coach.said_card", {"better": "QD", "played": "QS"}, "jugando la Q♦ en la baza x en lugar de la Q♠"),
    ("es", "coach.said_card", {"better": "KD", "played": "KS"}, "jugando el K♦ en la baza x en lugar del K♠"),
    ("fr", "says.counterfeit", {"card": "QS"}, "la puce de la D♠"),
    ("fr", "page.coach_better", {"card": "QS"}, "la D♠ était meilleure"),
    ("fr", "sim.trump", {"card": "QD"}, "D♦ retournée"),
    ("it", "sim.trump", {"card": "QD"}, "D♦ girata"),
    ("it", "sim.trump", {"card": "KD"}, "R♦ girato"),
])
def test_the_contracted_articles_and_adjectives_seen_in_reviews(lang: str, msgid: str, values: dict[str, str],
                                                                said: str) -> None:
    words: dict[str, Any] = defaultdict(lambda: "x", {k: card_words(lang, v) for k, v in values.items()})
    assert said in agreed(lang, template(lang, msgid).format_map(words))
    if msgid.startswith("says."):
        assert said in say(lang, msgid, **{k: words[k] for k in re.findall(r"\{(\w+)\}", template(lang, msgid))})


def test_german_and_english_are_left_as_they_are() -> None:
    assert agreed("de", "im Stich 2 statt D♠") == "im Stich 2 statt D♠"
    assert agreed("en", "the Q♠ was better") == "the Q♠ was better"
