"""The page's numbers meet their nouns in each language's plural form, in a real browser: the
catalogue's plural forms by CLDR category (``page_words``'s ``plurals``), picked with Chromium's
``Intl.PluralRules`` as Babel picks them for the table ("0 point" in French, "1 punto", "2 Punkte")."""

from __future__ import annotations

from typing import Any

import pytest

from catalogue import LANGUAGES, say_n
from venue.settings import WebSettings
from venue.table.page import TablePage

TIMEOUT_MS = 20_000
COUNTS = (0, 1, 2, 5, 1_000_000)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_page_says_a_count_in_the_languages_plural_form(browser: Any, lang: str) -> None:
    with TablePage(WebSettings(port=0), table="T", language=lang) as page:
        tab = browser.new_page()
        tab.goto(page.url)
        tab.wait_for_function(f"document.documentElement.lang === '{lang}' && Object.keys(PLURALS).length > 0",
                              timeout=TIMEOUT_MS)
        shown = tab.evaluate(f"{list(COUNTS)}.map((n) => W('coach_costs', {{n}}))")
        tricks = tab.evaluate("[0, 1, 2].map((n) => W('tricks_count', {n}))")
        tab.close()
    assert shown == [say_n(lang, "page.coach_costs", n) for n in COUNTS]
    assert "(s)" not in "".join(shown)
    # beside a seat's tricks: "0 levée" in French, "0 bazas" in Spanish (was "0 levées" beside "1 pli")
    assert tricks == [say_n(lang, "page.tricks_count", n) for n in (0, 1, 2)]
    if lang == "fr":
        assert tricks == ["levée", "levée", "levées"]


def test_the_shipped_titles_are_the_shipped_table_files_names() -> None:
    from hardware.table import load_table, shipped_table_path
    from venue.table.words import SHIPPED_TITLES

    for key, title in SHIPPED_TITLES.items():
        assert load_table(shipped_table_path(key)).name == title


@pytest.mark.parametrize(("lang", "title"), [("es", "Mesa simulada"), ("fr", "Table simulée"),
                                             ("de", "Simulierter Tisch")])
def test_the_simulated_tables_title_is_in_the_pages_language(browser: Any, lang: str, title: str) -> None:
    """"Simulated table" headed the page in every language: a shipped table file's title is translated
    (the page heads a state with ``SHIPPED[s.table] || s.table``)."""
    with TablePage(WebSettings(port=0), table="Simulated table", language=lang) as page:
        tab = browser.new_page()
        tab.goto(page.url)
        tab.wait_for_function(f"document.documentElement.lang === '{lang}' && Object.keys(SHIPPED).length > 0",
                              timeout=TIMEOUT_MS)
        shown = tab.evaluate("[SHIPPED['Simulated table'] || 'Simulated table', SHIPPED['Mesa 1'] || 'Mesa 1']")
        tab.close()
    assert shown == [title, "Mesa 1"]  # a table's own name stays as its maker wrote it


@pytest.mark.parametrize(("lang", "said"), [("es", "la reina de picas"), ("fr", "la dame de pique"),
                                            ("it", "la donna di picche"), ("de", "Pik Dame"),
                                            ("en", "the queen of spades")])
def test_a_card_picture_is_named_in_words_for_a_screen_reader(browser: Any, lang: str, said: str) -> None:
    """A card's picture carried ``aria-label="Q♠"``: a screen reader hears the card's name."""
    with TablePage(WebSettings(port=0), table="T", language=lang) as page:
        tab = browser.new_page()
        tab.goto(page.url)
        tab.wait_for_function(f"document.documentElement.lang === '{lang}' && window.__cardWords", timeout=TIMEOUT_MS)
        label = tab.evaluate("[cardEl('QS').getAttribute('aria-label'), cardEl('QS').textContent]")
        tab.close()
    assert label[0] == said
    assert said in label[1]  # its tooltip too


@pytest.mark.parametrize("scores", [(0, 1), (1, 0), (3, 3), (4, 5), (0, 0), (5, 4)])
def test_the_charts_end_labels_never_overlap_on_a_phone(browser: Any, scores: tuple[int, int]) -> None:
    """"A 0" and "B 1" overlapped at 360 px: the end labels are a line apart whatever the scores."""
    with TablePage(WebSettings(port=0), table="T", language="es") as page:
        tab = browser.new_page(viewport={"width": 360, "height": 740})
        tab.goto(page.url)
        tab.wait_for_function("document.documentElement.lang === 'es'", timeout=TIMEOUT_MS)
        a, b = scores
        boxes = tab.evaluate(f"""() => {{
            document.getElementById("chart").closest("section, div").hidden = false;
            for (let n = document.getElementById("chart"); n; n = n.parentElement) n.style.display = "block";
            drawChart({{hands: [{{score: {{A: 0, B: 0}}}}, {{score: {{A: {a}, B: {b}}}}}],
                        view: {{score: [{a}, {b}], target: 5}}}}, {{A: "Anne", B: "Bruno"}});
            return ["A", "B"].map((s) => {{
                const r = document.querySelector("#chart .label.seat-" + s).getBoundingClientRect();
                return [r.left, r.top, r.right, r.bottom];
            }});
        }}""")
        tab.close()
    (al, at, ar, ab), (bl, bt, br, bb) = boxes
    assert ab > at and bb > bt, boxes  # drawn
    assert ab <= bt or bb <= at or ar <= bl or br <= al, f"the labels overlap: {boxes}"


@pytest.mark.parametrize(("lang", "card", "before"), [
    ("es", "QS", "entrenador: la "), ("fr", "AS", "l'entraîneur : l'"), ("it", "8H", "l'allenatore: l'"),
    ("es", "KS", "entrenador: el "),
])
def test_a_card_drawn_in_a_sentence_takes_its_own_article(browser: Any, lang: str, card: str, before: str) -> None:
    """"el {card}" with the queen drawn read "el Q♠": the page makes the article the card's, as the server does."""
    with TablePage(WebSettings(port=0), table="T", language=lang) as page:
        tab = browser.new_page()
        tab.goto(page.url)
        tab.wait_for_function(f"document.documentElement.lang === '{lang}' && Object.keys(WORDS).length > 0",
                              timeout=TIMEOUT_MS)
        said = tab.evaluate(f"withCard(W('coach_better'), '{card}', {{unseen: []}})[0]")
        tab.close()
    assert said == before


@pytest.mark.parametrize(("lang", "card", "after"), [
    ("fr", "QS", " était meilleure"), ("fr", "KS", " était meilleur"), ("it", "QS", " era migliore"),
])
def test_an_adjective_after_a_card_drawn_in_a_sentence_agrees_with_it(browser: Any, lang: str, card: str,
                                                                      after: str) -> None:
    """"la D♠ était meilleur": the words after the card agree with it too, as the server agrees them."""
    with TablePage(WebSettings(port=0), table="T", language=lang) as page:
        tab = browser.new_page()
        tab.goto(page.url)
        tab.wait_for_function(f"document.documentElement.lang === '{lang}' && Object.keys(WORDS).length > 0",
                              timeout=TIMEOUT_MS)
        said = tab.evaluate(f"withCard(W('coach_better'), '{card}', {{unseen: []}})[2]")
        tab.close()
    assert said == after
