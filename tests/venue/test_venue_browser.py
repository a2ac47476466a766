"""What a person sees, in a real headless Chromium (Debian's, through Playwright): the table's
page and the venue's scoreboard load, update live without reload, draw the cards as pictures,
fit a phone and speak the table's language."""

from __future__ import annotations

import io
import re
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import MOSQUITTO, WAIT_S, feed, free_port, make_service, whole_game
from PIL import Image
from waiting import wait_for

from catalogue import LANGUAGES
from catalogue.english import english_words
from firmware_host.journal.store import Journal
from firmware_host.players.simtable import SimulatedTable
from firmware_host.referee.controller import Controller
from firmware_host.referee.table_defaults import TableDefaults
from firmware_host.referee.transcript import ButtonEvent, CardEvent, PhysicalEvent, Setup, read_transcript
from firmware_host.service import TableService
from hardware.table import simulated_table
from venue.hub.hub_settings import HubSettings
from venue.hub.scoreboard import build_hub
from venue.hub.session import Session
from venue.settings import MqttSettings, WebSettings
from venue.table.mqtt import TablePublisher
from venue.table.page import ServerThread, TablePage
from venue.table.words import page_words

TIMEOUT_MS = 20_000
PHONE = {"width": 360, "height": 740}
LATE_FAULT = Path(__file__).parent.parent / "transcripts" / "partial" / "late_yes.jsonl"


def named(events: list[PhysicalEvent], a: str = "Anne", b: str = "Bruno") -> list[PhysicalEvent]:
    """``events`` with the players' names in the setup line."""
    setup = events[0]
    assert isinstance(setup, Setup)
    return [Setup(rules=setup.rules, dealer=setup.dealer, target=setup.target, options=setup.options,
                  sight=setup.sight, players=(a, b, "")), *events[1:]]


def published(service: TableService) -> int:
    """Outcomes the service has put out so far."""
    return len(service.outputs[0].outcomes)  # type: ignore[attr-defined]


def watched(service: TableService, page: TablePage) -> int:
    """``page`` made an output of ``service`` and the service resumed; the outcomes before it (``caught_up``'s base)."""
    base = published(service)
    service.outputs.append(page)
    service.resume()
    return base


def caught_up(page: TablePage, service: TableService, base: int) -> dict[str, Any]:
    """The page's state once it has taken every outcome since ``base`` (it takes them on its own loop)."""
    wait_for(lambda: page.live.feed.seq == published(service) - base, "the page to take every outcome")
    return page.live.feed.state


def fits(tab: Any) -> bool:
    """No horizontal scrolling: the page is no wider than the window."""
    return bool(tab.evaluate("document.documentElement.scrollWidth <= window.innerWidth"))


def colours(png: bytes) -> dict[str, int]:
    """Pixels of a screenshot by kind: the card's white face, red ink, dark ink."""
    image = Image.open(io.BytesIO(png)).convert("RGB")
    counts = {"white": 0, "red": 0, "dark": 0}
    for r, g, b in image.getdata():
        if r > 235 and g > 235 and b > 225:
            counts["white"] += 1
        elif r > 150 and g < 90 and b < 90:
            counts["red"] += 1
        elif r < 70 and g < 70 and b < 70:
            counts["dark"] += 1
    return counts


def assert_drawn(tab: Any, card: str) -> None:
    """The card is a picture on the screen: a white face with ink of its suit's colour."""
    png = tab.locator(f"#live svg.card[data-card='{card}']").first.screenshot()
    seen = colours(png)
    assert seen["white"] > 200, seen
    if card[1] in "HD":
        assert seen["red"] > 20 and seen["red"] > seen["dark"], seen
    else:
        assert seen["dark"] > 20 and seen["dark"] > seen["red"], seen


def test_the_table_page_follows_a_game(browser: Any, service: TableService, tmp_path: Path) -> None:
    with TablePage(WebSettings(port=0), table="Table 1", journal=Path(service.journal.path)) as page:
        base = watched(service, page)
        tab = browser.new_page(viewport=PHONE)
        tab.goto(page.url)
        tab.wait_for_function("window.__state !== null", timeout=TIMEOUT_MS)
        tab.evaluate("window.__marker = 'no reload'")
        events = named(whole_game(4))
        plays = [i for i, e in enumerate(events) if isinstance(e, CardEvent) and e.zone.startswith("play.")
                 and not e.gone]
        for event in events[: plays[3]]:
            feed(service, event)
        # a card laid on a play pad is drawn on the page within a second
        card = events[plays[3]]
        assert isinstance(card, CardEvent) and card.card
        seq = caught_up(page, service, base)["seq"]
        tab.wait_for_function(f"window.__state.seq >= {seq}", timeout=TIMEOUT_MS)
        tab.evaluate("window.__shown = {}")
        laid = time.time() * 1000
        feed(service, card)
        tab.wait_for_function(f"'{card.card}' in window.__shown", timeout=TIMEOUT_MS)
        assert tab.evaluate(f"window.__shown['{card.card}']") - laid < 1000
        assert_drawn(tab, card.card)
        assert tab.inner_text("#name-A").startswith("Anne") and tab.inner_text("#name-B").startswith("Bruno")
        assert fits(tab)
        for event in events[plays[3] + 1:]:
            feed(service, event)
        final = service.outputs[0].outcomes[-1].snapshot  # type: ignore[attr-defined]
        score = f"{final.view.score[0]}-{final.view.score[1]}"
        tab.wait_for_function(f"document.querySelector('#score').dataset.score === '{score}'", timeout=TIMEOUT_MS)
        assert tab.evaluate("window.__marker") == "no reload"
        assert "wins" in tab.inner_text("#prompt")
        # the strip of the game's hands and the chart of the score over them
        hands = tab.evaluate("window.__state.hands")
        assert [h["hand"] for h in hands] == list(range(1, len(hands) + 1)) and len(hands) >= 2
        assert tab.locator("#strip li").count() == len(hands)
        assert tab.locator("#chart svg polyline").count() == 2
        assert fits(tab)
        tab.click("nav button[data-tab=hands]")
        assert "hand 1" in tab.inner_text("#handlist")
        assert fits(tab)
        tab.click("nav button[data-tab=games]")
        tab.wait_for_selector("#gamelist tbody tr", timeout=TIMEOUT_MS)
        tab.click("#gamelist tbody tr a")
        tab.wait_for_function("document.querySelector('#record').textContent.includes('[Hand')", timeout=TIMEOUT_MS)
        assert fits(tab)
        tab.click("nav button[data-tab=stats]")
        tab.wait_for_selector("#statlist tbody tr", timeout=TIMEOUT_MS)
        assert fits(tab)
        tab.close()


def test_a_late_joiner_sees_the_hand_so_far(browser: Any, service: TableService, tmp_path: Path) -> None:
    with TablePage(WebSettings(port=0), table="Table 1", journal=Path(service.journal.path)) as page:
        base = watched(service, page)
        events = named(whole_game(11))
        for event in events:
            feed(service, event)
            if sum(service.outputs[0].outcomes[-1].snapshot.view.tricks) == 4:  # type: ignore[attr-defined]
                break
        state = caught_up(page, service, base)
        tricks = [e for e in state["story"] if e["event"] == "trick"]
        assert len(tricks) == 4, "the game reached its fourth trick"
        tab = browser.new_page(viewport=PHONE)  # comes now, after four tricks
        tab.goto(page.url)
        tab.wait_for_function(f"window.__state && window.__state.seq >= {state['seq']}", timeout=TIMEOUT_MS)
        for seat in ("A", "B"):
            won = [t for t in tricks if t["winner"] == seat]
            assert tab.inner_text(f"#count-{seat}") == str(len(won))
            shown = tab.evaluate(f"[...document.querySelectorAll('#stack-{seat} .won')].map("
                                 "w => [...w.querySelectorAll('svg.card')].map(c => c.dataset.card).sort())")
            assert shown == [sorted(t["cards"].values()) for t in won]
        trump = state["view"]["trump"]
        assert tab.get_attribute("#trump svg.card", "data-card") == trump
        for card in (trump, tricks[0]["cards"]["A"], tricks[-1]["cards"]["B"]):
            assert_drawn(tab, card)
        assert tab.locator("#events li").count() >= 4 * 3, "the hand's events so far, not only what came after"
        assert fits(tab)
        tab.screenshot(path=str(tmp_path / "late-joiner.png"), full_page=True)
        tab.close()


def test_a_fault_is_shown_where_it_happened(browser: Any, service: TableService) -> None:
    """A card refused at once lies struck through on its pad, with the remedy in words; a fault proven
    late marks the trick it was made in."""
    lines = LATE_FAULT.read_text().splitlines()
    with TablePage(WebSettings(port=0), table="Table 2", journal=Path(service.journal.path)) as page:
        base = watched(service, page)
        tab = browser.new_page(viewport=PHONE)
        tab.goto(page.url)
        tab.wait_for_function("window.__state !== null", timeout=TIMEOUT_MS)
        refused = None
        for _, event in read_transcript(lines):
            feed(service, event)
            snapshot = service.outputs[0].outcomes[-1].snapshot  # type: ignore[attr-defined]
            if refused is None and snapshot.phase == "play" and snapshot.faults and snapshot.faults[-1].card:
                refused = caught_up(page, service, base)["faults"][-1]
                tab.wait_for_function(f"window.__state.seq >= {page.live.feed.seq}", timeout=TIMEOUT_MS)
                pad = f"#trick .pad[data-seat='{refused['seat']}']"
                assert tab.get_attribute(f"{pad} svg.card.struck", "data-card") == refused["card"]
                assert refused["said"]["do"] in tab.inner_text("#faultbox")
                assert_drawn(tab, refused["card"])
            if snapshot.warning:
                break
        assert refused is not None, "the transcript refuses a card at once before its late fault"
        warning = caught_up(page, service, base)["warning"]
        assert warning["late"] and warning["trick"] == 1
        tab.goto(page.url)  # a spectator who comes now
        tab.wait_for_function("window.__state !== null", timeout=TIMEOUT_MS)
        # the offence is marked in the trick it was made in: the offender's card struck through
        offender = tab.locator("#live .won[data-trick='1'] svg.card.struck")
        assert offender.count() == 1
        trick_one = next(e for e in page.live.feed.state["story"] if e["event"] == "trick")
        assert offender.get_attribute("data-card") == trick_one["cards"][warning["seat"]]
        box = tab.inner_text("#faultbox")
        assert warning["said"]["what"] in box and warning["said"]["do"] in box
        assert fits(tab)
        tab.close()


def test_the_page_speaks_the_tables_language(browser: Any, service: TableService) -> None:
    pages = {lang: TablePage(WebSettings(port=0), table="T", language=lang) for lang in LANGUAGES}
    expected = {  # the tab, the word for trump, and a king, a queen and a jack as each pack prints them
        "en": ("Table", "trump", "KQJ"), "fr": ("Table", "atout", "RDV"),
        "it": ("Tavolo", "briscola", "RDF"), "de": ("Tisch", "Trumpf", "KDB"), "es": ("Mesa", "triunfo", "KQJ"),
    }
    try:
        base = published(service)
        for page in pages.values():
            page.start()
            service.outputs.append(page)
        service.resume()
        for event in whole_game(4):
            feed(service, event)
            if service.outputs[0].outcomes[-1].snapshot.phase == "play":  # type: ignore[attr-defined]
                break
        for page in pages.values():
            caught_up(page, service, base)
        tab = browser.new_page(viewport=PHONE)
        for lang, page in pages.items():
            tab.goto(page.url)
            tab.wait_for_function("window.__state !== null && document.documentElement.lang === "
                                  f"'{page.live.feed.language}'", timeout=TIMEOUT_MS)
            tab_word, trump_word, faces = expected[lang]
            assert tab.inner_text("nav button[data-tab=live]") == tab_word
            assert trump_word in tab.inner_text("#live .turnup")
            ranks = tab.evaluate("Object.assign({}, window.__ranks)")
            assert ranks["K"] + ranks["Q"] + ranks["J"] == faces
            trump = page.live.feed.state["view"]["trump"]
            label = tab.get_attribute(f"#trump svg.card[data-card='{trump}']", "aria-label")
            spoken = page_words(lang)["card_words"]  # a screen reader hears the card in words
            assert label == spoken["card"].format(rank=spoken["ranks"][trump[0]], suit=spoken["suits"][trump[1]])
            tab.wait_for_selector("#conn[data-conn='live']", timeout=TIMEOUT_MS)
            assert tab.inner_text("#conn") == page_words(lang)["words"]["live"]
            assert fits(tab)
        tab.close()
    finally:
        for page in pages.values():
            page.close()


SHOWN_TEXT = """[...document.querySelectorAll('header, nav, main > section')].map((section) => {
  const copy = section.cloneNode(true);
  return copy.textContent + ' ' + [...copy.querySelectorAll('[aria-label], [title]')].map(
    (n) => (n.getAttribute('aria-label') || '') + ' ' + (n.getAttribute('title') || '')).join(' ');
}).join('\\n') + '\\n' + document.title"""
"""Every word the page shows, on every tab, its labels and tooltips too (the hand records aside)."""


def test_the_page_under_a_spanish_table_is_spanish_from_top_to_bottom(browser: Any, service: TableService) -> None:
    """A whole game with wrong cards refused, under a Spanish table: every tab, heading, event, fault,
    label and the title in Spanish, no English word of the game left (``catalogue.english``)."""
    with TablePage(WebSettings(port=0), table="Mesa 1", journal=Path(service.journal.path), language="es") as page:
        base = watched(service, page)
        tab = browser.new_page(viewport=PHONE)
        tab.goto(page.url)
        tab.wait_for_function("window.__state !== null && document.documentElement.lang === 'es'",
                              timeout=TIMEOUT_MS)
        events = named(whole_game(4))
        seen_fault = False
        for event in events:
            feed(service, event)
            snapshot = service.outputs[0].outcomes[-1].snapshot  # type: ignore[attr-defined]
            if snapshot.faults and not seen_fault:  # a wrong card on the table: the fault box shows it
                seen_fault = True
                tab.wait_for_function(f"window.__state.seq >= {caught_up(page, service, base)['seq']}",
                                      timeout=TIMEOUT_MS)
                shown = tab.evaluate(SHOWN_TEXT)
                assert english_words(shown) == set(), shown
                assert tab.inner_text("#faultbox").strip()
        assert seen_fault, "the game has a wrong card refused"
        seq = caught_up(page, service, base)["seq"]
        tab.wait_for_function(f"window.__state.seq >= {seq}", timeout=TIMEOUT_MS)
        tab.click("nav button[data-tab=hands]")
        tab.click("nav button[data-tab=games]")
        tab.wait_for_selector("#gamelist tbody tr", timeout=TIMEOUT_MS)
        tab.click("#gamelist tbody tr a")
        tab.wait_for_function("document.querySelector('#record').textContent.length > 0", timeout=TIMEOUT_MS)
        tab.click("nav button[data-tab=stats]")
        tab.wait_for_selector("#statlist tbody tr", timeout=TIMEOUT_MS)
        tab.wait_for_selector("#conn[data-conn='live']", timeout=TIMEOUT_MS)
        shown = tab.evaluate(SHOWN_TEXT)
        assert english_words(shown) == set(), shown
        for word in ("Mesa", "Manos", "Partidas", "Jugadores", "triunfo", "bazas", "mazo", "en directo",
                     "Lo ocurrido", "gana", "jugador", "clásica", "Mesa de écarté"):
            assert word in shown, word
        tab.close()


def test_the_page_follows_the_language_chosen_at_the_table(browser: Any, service: TableService) -> None:
    """The settings menu's language reaches the page at once, words and ranks."""
    page = TablePage(WebSettings(port=0), table="T", language="en")
    try:
        page.start()
        service.outputs.append(page)
        service.resume()
        tab = browser.new_page(viewport=PHONE)
        tab.goto(page.url)
        tab.wait_for_function("window.__state !== null && document.documentElement.lang === 'en'",
                              timeout=TIMEOUT_MS)
        feed(service, ButtonEvent("A", "king"))  # the settings menu
        while service.outputs[0].outcomes[-1].snapshot.menu.item != "language":  # type: ignore[attr-defined,union-attr]
            feed(service, ButtonEvent("B", "no"))
        while service.outputs[0].outcomes[-1].snapshot.menu.value != "de":  # type: ignore[attr-defined,union-attr]
            feed(service, ButtonEvent("A", "yes"))
        feed(service, ButtonEvent("A", "king"))  # closed: the table speaks German
        tab.wait_for_function("document.documentElement.lang === 'de' && window.__ranks && window.__ranks.J === 'B'",
                              timeout=TIMEOUT_MS)
        assert page.live.feed.state["lang"] == "de"
        tab.wait_for_function("document.querySelector(\"nav button[data-tab=live]\").innerText === 'Tisch'",
                              timeout=TIMEOUT_MS)
        tab.close()
    finally:
        page.close()


def test_the_connection_indicator_tells_live_from_reconnecting(browser: Any, service: TableService) -> None:
    port = free_port()
    page = TablePage(WebSettings(port=port), table="T")
    page.start()
    service.outputs.append(page)
    service.resume()
    tab = browser.new_page(viewport=PHONE)
    tab.goto(page.url)
    tab.wait_for_selector("#conn[data-conn='live']", timeout=TIMEOUT_MS)
    assert tab.inner_text("#conn") == "live"
    page.close()  # the service stops under the browser
    service.outputs.remove(page)
    tab.wait_for_selector("#conn[data-conn='reconnecting']", timeout=TIMEOUT_MS)
    assert "reconnecting" in tab.inner_text("#conn")
    again = TablePage(WebSettings(port=port), table="T again")
    again.start()
    try:
        service.outputs.append(again)
        service.resume()
        tab.wait_for_selector("#conn[data-conn='live']", timeout=TIMEOUT_MS)
        tab.wait_for_function("window.__state && window.__state.table === 'T again'", timeout=TIMEOUT_MS)
    finally:
        again.close()
    tab.close()


def test_the_scoreboard_follows_two_tables(browser: Any, tmp_path: Path) -> None:
    broker_port = free_port()
    if MOSQUITTO is None:
        pytest.skip("Mosquitto is not installed: `apt-get install -y mosquitto`")
    settings = HubSettings(("127.0.0.1", 0), MqttSettings(port=broker_port, venue="club"), "mosquitto",
                           ("127.0.0.1", broker_port), Session("evening"), ("t1", "t2"), tmp_path / "hub")
    app, live = build_hub(settings)
    server = ServerThread(app, "127.0.0.1", 0, name="hub")
    server.start()
    try:
        tab = browser.new_page(viewport={"width": 390, "height": 844})
        tab.goto(server.url)
        tab.wait_for_selector("#conn:text('live')", timeout=TIMEOUT_MS)
        finals = []
        for name, seed in (("t1", 4), ("t2", 11)):
            password = (tmp_path / "hub" / "secrets" / f"{name}.pass").read_text().strip()
            table = make_service(tmp_path / f"{name}.sqlite")
            publisher = TablePublisher(MqttSettings(port=broker_port, venue="club", table=name, enabled=True,
                                                    username=name, password=password), table_name=name,
                                       journal=Path(table.journal.path))
            publisher.start()
            assert publisher.connected.wait(20)
            table.outputs.append(publisher)
            events = whole_game(seed)
            tile_seen = name != "t1"
            for event in events:
                feed(table, event)
                view = table.outputs[0].outcomes[-1].snapshot.view  # type: ignore[attr-defined]
                if not tile_seen and view.phase == "play" and view.trick:
                    # the tile draws the table's trump and the card on its pad with the page's cards
                    tile = f"[data-table={name}]"
                    tab.wait_for_selector(f"{tile} .ttrick svg.card[data-card='{view.trick[0][1]}']",
                                          timeout=TIMEOUT_MS)
                    assert tab.get_attribute(f"{tile} .ttrump svg.card", "data-card") == str(view.trump)
                    png = tab.locator(f"{tile} .ttrick svg.card").first.screenshot()
                    assert colours(png)["white"] > 100
                    tab.locator(tile).screenshot(path=str(tmp_path / "tile.png"))
                    tile_seen = True
            assert tile_seen
            finals.append(table.outputs[0].outcomes[-1].snapshot)  # type: ignore[attr-defined]
            feed(table, ButtonEvent("A", "yes"))  # next game
            # a table stays on while the hub reads its result
            wait_for(lambda: len(live.room.results) == len(finals), "the game's result at the hub")
            publisher.close()
            table.journal.close()
        for name, _final in zip(("t1", "t2"), finals, strict=True):
            # the table went on to a new game (0-0); its result stays in the standings
            tab.wait_for_selector(f"[data-table={name}]", timeout=TIMEOUT_MS)
        tab.wait_for_function("window.__standings && window.__standings.games === 2", timeout=TIMEOUT_MS)
        wins = {r["player"]: r["wins"] for r in tab.evaluate("window.__standings.ranking")}
        assert wins == {"A": sum(f.winner == "A" for f in finals), "B": sum(f.winner == "B" for f in finals)}
        tab.click("nav button[data-tab=standings]")
        # free play (A and B at both tables: a session would seat them at one): every game counts
        assert "every game counts" in tab.inner_text("#rounds")
        tab.screenshot(path=str(tmp_path / "hub.png"), full_page=True)
        tab.close()
    finally:
        server.close()


def panels_fit(tab: Any) -> list[str]:
    """The visible panels that need scrolling sideways (a table wider than the phone), by id or heading."""
    return list(tab.evaluate(
        "[...document.querySelectorAll('main > section:not([hidden]) .panel')]"
        ".filter(p => p.offsetParent !== null && p.scrollWidth > p.clientWidth + 1)"
        ".map(p => p.id || (p.querySelector('h3') || p).textContent.slice(0, 40))"))


def test_every_tab_fits_a_phone_without_scrolling_sideways(browser: Any, service: TableService) -> None:
    """The Players tab's table overflowed a 360 px phone inside its panel (the page itself
    did not scroll, so ``fits`` missed it). Every tab, and every panel in it, fits."""
    with TablePage(WebSettings(port=0), table="Table 1", journal=Path(service.journal.path)) as page:
        base = watched(service, page)
        for event in named(whole_game(4), "Anne-Marie", "Bartholomew"):
            feed(service, event)
        caught_up(page, service, base)
        tab = browser.new_page(viewport=PHONE)
        tab.goto(page.url)
        tab.wait_for_function("window.__state !== null", timeout=TIMEOUT_MS)
        for name, ready in (("live", "#strip li"), ("hands", "#handlist > *"), ("games", "#gamelist tbody tr"),
                            ("stats", "#statlist tbody tr")):
            tab.click(f"nav button[data-tab={name}]")
            tab.wait_for_selector(ready, timeout=TIMEOUT_MS)
            if name == "games":
                tab.click("#gamelist tbody tr a")
                tab.wait_for_function("document.querySelector('#record').textContent.includes('[Hand')",
                                      timeout=TIMEOUT_MS)
            assert fits(tab), name
            assert panels_fit(tab) == [], name
        # the figures keep their names on a phone: each is written above its figure
        shown = tab.evaluate("[...document.querySelectorAll('#statlist tbody tr:first-child td')]"
                             ".map(td => getComputedStyle(td, '::before').content)")
        assert '"wins"' in shown and '"faults"' in shown
        tab.close()


def _open_hands_tab(tab: Any, number: int) -> dict[str, Any]:
    """Open the Hands tab's viewer on hand ``number``; its data as the page has it."""
    tab.click("nav button[data-tab=hands]")
    tab.wait_for_selector(f".handbtn[data-hand='{number}']", timeout=TIMEOUT_MS)
    tab.click(f".handbtn[data-hand='{number}']")
    tab.wait_for_function(f"window.__viewing && window.__viewing.hand === {number}", timeout=TIMEOUT_MS)
    tab.wait_for_selector("#viewer .hv-table", timeout=TIMEOUT_MS)
    return dict(tab.evaluate("window.__viewing.view"))


def _diagram(tab: Any) -> dict[str, list[str]]:
    return dict(tab.evaluate(
        "Object.fromEntries(['A', 'B'].map(s => [s, [...document.querySelectorAll("
        "`#viewer .hv-seat[data-seat=${s}] .hv-cards svg.card:not(.back)`)].map(c => c.dataset.card)]))"))


def test_a_hand_replayed_step_by_step_in_the_hand_viewer(browser: Any, service: TableService) -> None:
    """The Hands tab replays a finished hand as pictures: the deal as a diagram with the
    turn-up, then each decision and card with a step control, the players' names and the coach's
    verdicts; on a phone, for a spectator who came after the hand."""
    with TablePage(WebSettings(port=0), table="Table 1", journal=Path(service.journal.path)) as page:
        base = watched(service, page)
        events = named(whole_game(4))
        for event in events:
            feed(service, event)
        state = caught_up(page, service, base)
        tab = browser.new_page(viewport=PHONE)  # a late joiner: every hand is over before it comes
        tab.goto(page.url)
        tab.wait_for_function("window.__state !== null", timeout=TIMEOUT_MS)
        view = _open_hands_tab(tab, 1)
        record = page.live.feed.revealed[0]
        steps = view["steps"]
        assert steps[0]["kind"] == "deal" and steps[-1]["kind"] == "end"
        # the deal: both hands as dealt, drawn as the page's cards, and the turn-up
        moves = [m.to_json() for m in record.moves]
        dealt = {"a": [m["card"] for m in moves if m["action"] == "deal_card" and m["seat"] == "A"],
                 "b": [m["card"] for m in moves if m["action"] == "deal_card" and m["seat"] == "B"],
                 "turn_up": next(m["card"] for m in moves if m["action"] == "turn_up")}
        assert len(dealt["a"]) == len(dealt["b"]) == 5
        assert sorted(_diagram(tab)["A"]) == sorted(dealt["a"]) and sorted(_diagram(tab)["B"]) == sorted(dealt["b"])
        assert tab.get_attribute("#viewer .hv-turnup svg.card", "data-card") == dealt["turn_up"]
        assert_drawn_in(tab, "#viewer .hv-turnup", dealt["turn_up"])
        assert "Anne" in tab.inner_text("#viewer .hv-seat[data-seat=A]")
        assert "Bruno" in tab.inner_text("#viewer .hv-seat[data-seat=B]")
        assert fits(tab) and panels_fit(tab) == []
        # step through: every card played lies on the trick at its step, and leaves its hand
        played = [m.to_json() for m in record.moves if m.to_json()["action"] == "play"]
        seen_plays = []
        verdicts = 0
        for at in range(1, len(steps)):
            tab.click("#viewer .hv-step[data-step=next]")
            tab.wait_for_selector(f"#viewer .hv-table[data-step='{at}']", timeout=TIMEOUT_MS)
            step = steps[at]
            verdicts += tab.locator("#viewer .hv-said .coach").count()
            if step["kind"] == "play":
                seen_plays.append({"action": "play", "seat": step["seat"], "card": step["card"]})
                on_trick = tab.get_attribute(f"#viewer .hv-pad[data-seat={step['seat']}] svg.card", "data-card")
                assert on_trick == step["card"]
                assert step["card"] not in _diagram(tab)[step["seat"]]
                assert ("Anne" if step["seat"] == "A" else "Bruno") in tab.inner_text("#viewer .hv-said")
        assert seen_plays == played
        assert verdicts >= 1, "the coach's verdict beside the first decisions"
        assert tab.get_attribute("#viewer .hv-step[data-step=next]", "disabled") is not None
        points = record.points
        assert points is not None and f"Anne {points[0]}" in tab.inner_text("#viewer .hv-said")
        tab.click("#viewer .hv-step[data-step=first]")
        tab.wait_for_selector("#viewer .hv-table[data-step='0']", timeout=TIMEOUT_MS)
        assert fits(tab) and panels_fit(tab) == []
        assert state["view"]["phase"] == "over"
        tab.close()


def assert_drawn_in(tab: Any, where: str, card: str) -> None:
    png = tab.locator(f"{where} svg.card[data-card='{card}']").first.screenshot()
    assert colours(png)["white"] > 100


def test_a_partial_sight_hand_marks_the_cards_the_pads_never_saw(browser: Any, service: TableService) -> None:
    """Pads that read two cards of a stack: the viewer completes the deal from the plays and marks the
    cards the pads never saw; a hand whose deal the plays do not show keeps them face down, counted."""
    import engine
    from firmware_host.players.packets import ModelTable, PacketPlayers
    from firmware_host.referee.controller import Controller

    model = ModelTable(Controller(), depth=2, setup=Setup(rules="classic", dealer="A", sight="partial",
                                                          players=("Anne", "Bruno", "")))
    PacketPlayers(model, engine.new_game("classic", dealer="A"), seed=1).play_game()
    with TablePage(WebSettings(port=0), table="Table 1", journal=Path(service.journal.path)) as page:
        base = watched(service, page)
        for event in model.lines:
            feed(service, event)
        caught_up(page, service, base)
        tab = browser.new_page(viewport=PHONE)
        tab.goto(page.url)
        tab.wait_for_function("window.__state !== null", timeout=TIMEOUT_MS)
        marked = kept = 0
        for hand in page.live.feed.revealed:
            view = _open_hands_tab(tab, hand.number)
            shown = tab.evaluate("[...document.querySelectorAll('#viewer .hv-cards svg.card.unseen')]"
                                 ".map(c => c.dataset.card)")
            assert sorted(shown) == sorted(view["unseen"])  # at the deal, each in its hand
            if view["unseen"]:
                marked += 1
                assert all(c not in hand_seen(hand) for c in view["unseen"])
            if not view["whole"]:
                kept += 1
                backs = tab.locator("#viewer .hv-cards svg.card.never").count()
                faces = sum(len(v) for v in _diagram(tab).values())
                assert backs > 0 and backs + faces == 10
                assert "coach" in tab.inner_text("#viewer").lower()
            assert fits(tab) and panels_fit(tab) == []
        assert marked >= 1, "seed 1 at depth 2 has a hand completed from its plays"
        tab.close()


def hand_seen(hand: Any) -> set[str]:
    """The dealt cards the pads saw (the record's ``deal_card`` moves)."""
    return {m.to_json()["card"] for m in hand.moves if m.to_json()["action"] == "deal_card"}


@pytest.mark.parametrize(("language", "zone", "offline", "back"), [
    ("en", "turn-up", "the reader is offline: turn-up", "the reader is back: turn-up"),
    ("fr", "retourne", "le lecteur ne répond plus : retourne", "le lecteur répond de nouveau : retourne"),
])
def test_a_reader_that_vanishes_and_comes_back_is_said_in_words_on_the_page(
        browser: Any, tmp_path: Path, language: str, zone: str, offline: str, back: str) -> None:
    """The service on the simulated table (nfcpy on emulated PN532s) with its page: the turn-up pad's
    reader is unplugged (its port gone, as a pulled USB cable), the page says it is offline in the
    table's language, then, plugged back, that it is back, and the offline words go."""
    table = simulated_table()
    with Journal(tmp_path / "j.sqlite") as journal, \
            TablePage(WebSettings(port=0), table="Table 1", journal=Path(journal.path), language=language) as page:
        service = TableService(journal=journal, controller=Controller(TableDefaults(sight=table.sight)),
                               outputs=[page])
        loop = threading.Thread(target=service.run, name="service", daemon=True)
        loop.start()
        try:
            with SimulatedTable(table, events=service.put_device_event) as sim:
                tab = browser.new_page(viewport=PHONE)
                tab.goto(page.url)
                tab.wait_for_function(f"window.__state !== null && document.documentElement.lang === '{language}'",
                                      timeout=TIMEOUT_MS)
                wait_for(lambda: sim.pads is not None and all(pad.online for pad in sim.pads), "every reader up")
                assert offline not in tab.inner_text("#facts")
                sim.simulators["turnup"].unplug()
                tab.wait_for_function(f"document.querySelector('#facts').textContent.includes({offline!r})",
                                      timeout=TIMEOUT_MS)
                assert offline in tab.inner_text("#events li:first-child")
                assert fits(tab)
                sim.simulators["turnup"].replug()
                tab.wait_for_function(f"!document.querySelector('#facts').textContent.includes({offline!r})",
                                      timeout=TIMEOUT_MS)
                assert back in tab.inner_text("#events li:first-child")
                assert [text for text in tab.locator("#events li").all_inner_texts() if zone in text] == [
                    back, offline]  # the start said nothing: a reader coming up is no news
                assert "turnup" not in tab.inner_text("#events")  # the pad as players call it, not its key
                tab.close()
        finally:
            service.stop()
            loop.join(timeout=WAIT_S)


@pytest.mark.parametrize("lang", ["fr", "de"])
def test_the_hands_tab_shows_each_hands_record_in_the_pages_language(browser: Any, service: TableService,
                                                                     lang: str) -> None:
    """The Hands tab showed the raw English record ("B gets JS 7C … B stands") under every hand to a
    page opened once the hands were out, in every language: it is worded as the Games tab words it."""
    with TablePage(WebSettings(port=0), table="Simulated table", language=lang,
                   journal=Path(service.journal.path)) as page:
        base = watched(service, page)
        for event in named(whole_game(4)):
            feed(service, event)
        caught_up(page, service, base)
        tab = browser.new_page()
        tab.goto(page.url)  # the hands already out come with the page's first blocks
        tab.wait_for_function("document.querySelectorAll('#handlist .recordtext pre').length > 1",
                              timeout=TIMEOUT_MS)
        texts = tab.eval_on_selector_all("#handlist .recordtext pre", "els => els.map((e) => e.textContent)")
        tab.close()
    for text in texts:
        assert " gets " not in text and " plays " not in text and " stands" not in text, text
        assert not re.search(r"\b[2-9TJQKA][SHDC]\b", text), text  # no code letters: the cards as printed
        assert "♠" in text or "♥" in text or "♦" in text or "♣" in text
