"""No hidden card leaves the table early: every byte the page and the MQTT feed send during
whole games is recorded, step by step (one physical event a step), and no card dealt into a
hand, discarded or drawn appears before its hand is over, unless it lay face up by then (the
turn-up, a card on a play pad)."""

from __future__ import annotations

import itertools
import json
import threading
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import paho.mqtt.client as mqtt
import pytest
from conftest import Recorder, feed, open_broker, whole_game
from paho.mqtt.enums import CallbackAPIVersion
from waiting import wait_for

from firmware_host.referee.table_events import HandRecord
from firmware_host.referee.transcript import CardEvent, PhysicalEvent
from firmware_host.service import TableService
from venue.assets import STATIC
from venue.settings import MqttSettings, WebSettings
from venue.table.mqtt import TablePublisher
from venue.table.page import TablePage
from venue.table.public import PublicFeed, card_tokens, hidden_cards
from venue.table.record import parse_record

FACE_UP_ZONES = ("play.A", "play.B", "turnup")


@dataclass
class Hand:
    end_step: int
    hidden: set[str]
    face_up: dict[str, int] = field(default_factory=dict)
    """card → the step it was first laid face up in this hand."""
    turnup_step: int = 10**9


def hands_of(events: list[PhysicalEvent], recorder: Recorder, first_step: int) -> list[Hand]:
    """The hands of the game, with the step each ended at (its hand_record) and its face-up cards."""
    hands: list[Hand] = []
    for step, outcome in enumerate(recorder.outcomes):
        for ev in outcome.events:
            if isinstance(ev, HandRecord):
                hands.append(Hand(step, hidden_cards(ev.actions)))
    start = first_step
    for hand in hands:
        for step in range(start, hand.end_step + 1):
            event = events[step - first_step]
            if isinstance(event, CardEvent) and not event.gone and event.zone in FACE_UP_ZONES and event.card:
                hand.face_up.setdefault(event.card, step)
                if event.zone == "turnup":
                    hand.turnup_step = min(hand.turnup_step, step)
        start = hand.end_step + 1
    return hands


def leaks(chunks: dict[int, str], hands: list[Hand]) -> list[str]:
    """Every (step, card) where a hidden card of the hand under way shows before it may."""
    found = []
    for step, text in sorted(chunks.items()):
        index = next((i for i, h in enumerate(hands) if h.end_step >= step), None)
        if index is None:
            continue
        hand = hands[index]
        if step == hand.end_step:
            continue  # the hand is over at this step: its record may go out
        allowed = {c for c, s in hand.face_up.items() if s <= step}
        if index > 0 and step < hand.turnup_step:
            allowed |= set(hands[index - 1].face_up)  # the last hand's turn-up and tricks still show
        for card in card_tokens(text) & (hand.hidden - allowed):
            found.append(f"step {step}: {card} ({text[:200]!r})")
    return found


def test_the_checker_sees_a_leak() -> None:
    hands = [Hand(end_step=5, hidden={"KS", "7H"}, face_up={"7H": 3})]
    assert leaks({2: '{"card":"7H"}', 4: '{"card":"7H"}'}, hands) == ["step 2: 7H ('{\"card\":\"7H\"}')"]
    assert leaks({1: "take back the K♠"}, hands) and not leaks({5: "KS"}, hands)


class SseReader:
    def __init__(self, url: str) -> None:
        self.buffer = ""
        self.lock = threading.Lock()
        self.thread = threading.Thread(target=self._read, args=(url,), daemon=True)
        self.thread.start()

    def _read(self, url: str) -> None:
        try:
            with httpx.stream("GET", url, timeout=None) as response:
                for chunk in response.iter_raw():
                    with self.lock:
                        self.buffer += chunk.decode("utf-8")
        except httpx.HTTPError:
            pass  # the server went away at the end of the test

    def text(self) -> str:
        with self.lock:
            return self.buffer


class MqttRecorder:
    def __init__(self, port: int, topic: str) -> None:
        self.messages: list[tuple[str, bytes]] = []
        self.lock = threading.Lock()
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="recorder")
        self.client.on_message = self._message
        self.ready = threading.Event()
        self.client.on_connect = lambda c, u, f, r, p: (c.subscribe(topic, qos=1), self.ready.set())
        self.client.connect("127.0.0.1", port)
        self.client.loop_start()

    def _message(self, client: mqtt.Client, userdata: object, message: mqtt.MQTTMessage) -> None:
        with self.lock:
            self.messages.append((message.topic, bytes(message.payload)))

    def text(self) -> str:
        with self.lock:
            return "".join(f"{t} {p.decode()}\n" for t, p in self.messages)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def split_steps(text: str, last_seq: int, seq_of_step: dict[int, int]) -> dict[int, str]:
    """The stream cut at each step's state message (``"seq":N,``): what each step sent."""
    out: dict[int, str] = {}
    start = 0
    for step, seq in sorted(seq_of_step.items()):
        marker = f'"seq":{seq},'
        at = text.find(marker, start)
        assert at >= 0, f"no state {seq} in the stream"
        end = text.find("\n", at)
        out[step] = text[start:end]
        start = end
    return out


@pytest.mark.parametrize("seed", [4, 11])
def test_no_hidden_card_leaves_early(service: TableService, tmp_path: Path, seed: int) -> None:
    recorder = service.outputs[0]
    assert isinstance(recorder, Recorder)
    with open_broker() as broker:
        settings = MqttSettings(port=broker.port, venue="v", table="t", enabled=True)
        mqtt_rec = MqttRecorder(broker.port, "ecarte/v/t/#")
        assert mqtt_rec.ready.wait(10)
        page = TablePage(WebSettings(port=0), table="T", journal=Path(service.journal.path))
        publisher = TablePublisher(settings, table_name="T")
        with page, publisher, httpx.Client() as http:  # one client: each httpx.get loads the CA bundle again
            assert publisher.connected.wait(10)
            base = len(recorder.outcomes)  # outcomes before the page and MQTT came
            service.outputs += [page, publisher]
            service.resume()
            sse = SseReader(page.url + "/api/stream")
            static = http.get(page.url + "/").text + http.get(page.url + "/api/words").text + "".join(
                http.get(page.url + "/static/" + f.name).text for f in sorted(STATIC.iterdir()))
            assert "cardEl" in static and "loadWords" in static
            assert not card_tokens(static), "the page's own files name no card"
            events = whole_game(seed)
            api: dict[int, str] = {}
            api_hands: dict[int, tuple[set[int], set[int]]] = {}
            viewer_hands: dict[int, set[int]] = {}
            seq_of_step: dict[int, int] = {}
            first_step = len(recorder.outcomes)
            for event in events:
                feed(service, event)
                step = len(recorder.outcomes) - 1
                seq_of_step[step] = step - base + 1
                marker = f'"seq":{step - base + 1},'
                wait_for(lambda m=marker: m in sse.text(), f"the page's state {marker}")  # type: ignore[misc]
                wait_for(lambda m=marker: m in mqtt_rec.text(), f"the MQTT state {marker}")  # type: ignore[misc]
                if step % 3 == 0:
                    # the live state and the statistics name no hidden card; the game's hands and
                    # record (which name the cards of the hands over) hold only hands that are over
                    api[step] = http.get(page.url + "/api/stats").text + http.get(page.url + "/api/state").text
                    game = http.get(page.url + f"/api/games/{service.game}").json()
                    record = parse_record(http.get(page.url + f"/api/games/{service.game}/record").text)
                    api_hands[step] = ({h["hand"] for h in game["hands"]}, {h.number for h in record.hands})
                    # the hand viewer's hands: only those over, never the one under way
                    # (their text names the cards of hands over, which the hand under way reuses)
                    viewer_hands[step] = {k for k in range(1, 8) if http.get(
                        page.url + f"/api/games/{service.game}/hands/{k}", timeout=60).status_code == 200}
        mqtt_rec.close()
    hands = hands_of(events, recorder, first_step)
    assert len(hands) >= 2
    assert all(hand.hidden for hand in hands)
    page_steps = split_steps(sse.text(), 0, seq_of_step)
    mqtt_steps = split_steps(mqtt_rec.text(), 0, seq_of_step)
    assert leaks(page_steps, hands) == []
    assert leaks(mqtt_steps, hands) == []
    assert leaks(api, hands) == []
    for step, (shown, recorded) in api_hands.items():
        over = {i + 1 for i, hand in enumerate(hands) if hand.end_step <= step}
        assert shown == recorded == over == viewer_hands[step], step
    # and the hidden cards do go out once each hand is over
    for hand in hands:
        assert hand.hidden <= card_tokens(page_steps[hand.end_step])
        assert hand.hidden <= card_tokens(mqtt_steps[hand.end_step])


def test_a_delay_holds_the_hands_back(service: TableService) -> None:
    public = PublicFeed(reveal_delay=60.0)
    hands = 0
    for event in whole_game(4):
        feed(service, event)
    for i, outcome in enumerate(service.outputs[0].outcomes):  # type: ignore[attr-defined]
        messages = public.take(outcome, now=float(i) / 1000)
        assert all(m.kind != "hand" for m in messages)
        hands += sum(isinstance(e, HandRecord) for e in outcome.events)
    assert public.next_due() is not None
    assert public.due(now=59.0) == []
    released = public.due(now=10_000.0)
    assert len(released) == hands and all(m.kind == "hand" for m in released)


@pytest.mark.parametrize(("code", "phase", "face_up"), [
    ("revoke", "play", True), ("out_of_turn", "play", True), ("out_of_turn", "propose", False),
    ("exchange_count", "exchange", False), ("duplicate_card", "deal", False), ("card_not_in_hand", "exchange", False),
])
def test_fault_cards_are_shown_only_face_up(code: str, phase: str, face_up: bool) -> None:
    from engine import Fault
    from engine.cards import Card
    from engine.message import Phrase
    from firmware_host.screens.public_faults import public_fault

    fault = Fault(code, "B", "43", Card.parse("7S"), says=Phrase("says.six_cards", (("who", "B"),)))
    data = public_fault(fault, face_up=face_up)
    assert (data["card"] == "7S") is face_up
    assert ("7S" in str(data)) is face_up
    assert "♠" not in str(data)  # a fault carries no words: nothing of its message leaves the table
    del phase


def test_a_fault_of_play_names_no_card_of_the_hand() -> None:
    """Forzare: the fault that refuses B's 8♥ knows B's highest heart, the Q♥, still in B's hand. What
    leaves the table (the feed's event and state, in every language) names the 8♥ on the pad and the
    9♥ led, never the Q♥ (the fault's English message named it, and it went out as it was)."""
    from firmware_host.referee.controller import Controller
    from firmware_host.referee.transcript import ButtonEvent, Setup

    for lang in ("en", "fr", "de"):
        table, feed = Controller(), PublicFeed(table="t1", language=lang)
        table.handle(Setup(rules="italian", dealer="B", options={"forzare": True}))
        for i, code in enumerate(["9H", "KS", "AC", "8S", "9D", "QH", "8H", "7S", "JD", "8D"]):
            feed.take(table.handle(CardEvent("hand.A" if i < 5 else "hand.B", code)), now=0.0)
        feed.take(table.handle(CardEvent("turnup", "7D")), now=0.0)
        feed.take(table.handle(ButtonEvent("A", "no")), now=0.0)  # A plays without exchanging
        feed.take(table.handle(CardEvent("play.A", "9H")), now=0.0)
        out = feed.take(table.handle(CardEvent("play.B", "8H")), now=0.0)
        assert [m.data["code"] for m in out if m.kind == "event"] == ["not_highest"]
        said = json.dumps([m.data for m in out], ensure_ascii=False)
        assert "8H" in card_tokens(said) and "QH" not in card_tokens(said), (lang, said)


# -- the voice: the same rule, said -------------------------------------------------------------

GOLDEN_PARTIAL = Path(__file__).resolve().parents[1] / "golden" / "voice" / "partial_game.jsonl"


def partial_game() -> list[PhysicalEvent]:
    """The voice's golden game: partial sight (pads read two deep), a revoke proven late, a false king."""
    from firmware_host.referee.transcript import read_transcript

    return [e for _, e in read_transcript(GOLDEN_PARTIAL.read_text(encoding="utf-8").splitlines())]


@pytest.mark.parametrize("game", ["seed 4", "seed 11", "partial"])
def test_no_hidden_card_is_said_early(service: TableService, game: str) -> None:
    """What the table says, step by step in every language, names no hidden card of the hand under
    way (the cards it says in full read back as cards), as the page's stream names none."""
    from firmware_host.voice.announcer import Announcer
    from firmware_host.voice.spoken import SPOKEN_LANGUAGES, spoken

    recorder = service.outputs[0]
    assert isinstance(recorder, Recorder)
    events = partial_game() if game == "partial" else whole_game(int(game.split()[1]))
    first_step = len(recorder.outcomes)
    for event in events:
        feed(service, event)
    hands = hands_of(events, recorder, first_step)
    assert len(hands) >= 2 and all(hand.hidden for hand in hands)
    for lang in SPOKEN_LANGUAGES:
        announcer = Announcer(lang)
        said = {step: " ".join(sorted(spoken(lang).cards_in(" ".join(a.text for a in announcer.take(outcome)))))
                for step, outcome in enumerate(recorder.outcomes) if step >= first_step}
        assert leaks(said, hands) == [], lang
        # and it does say cards, read back in every language: each card laid face up is said
        face_up = {card for hand in hands for card in hand.face_up}
        assert face_up and face_up <= set(" ".join(said.values()).split()), lang


def test_a_seats_cards_reach_only_its_own_earpiece(service: TableService, tmp_path: Path) -> None:
    """A seat's long press of ``listen`` reads its cards into its own earpiece (a folder of its
    own on the simulated table): never on the table's speaker, never in the other seat's."""
    from drivers.device_events import ButtonPressed
    from drivers.seat_controls import LISTEN, LISTEN_LONG
    from engine import HandEnd, PlayBegins
    from firmware_host.voice.spoken import spoken
    from firmware_host.voice.voice_parts import open_voice
    from hardware.table_config import VoiceConfig

    recorder = service.outputs[0]
    assert isinstance(recorder, Recorder)
    config = VoiceConfig(enabled=True, device="sim", earpieces=(("A", "sim"), ("B", "sim")))
    parts = open_voice(config, "en", tmp_path)
    service.outputs.extend(parts.outputs)
    put = parts.with_listen(lambda event: feed(service, event))
    laid: dict[str, set[str]] = {"A": set(), "B": set()}
    expected: dict[str, list[set[str]]] = {"A": [], "B": []}
    face_up: set[str] = set()
    try:
        for event in partial_game():
            before = len(recorder.outcomes)
            put(event)
            if isinstance(event, CardEvent) and not event.gone and event.card:
                if event.zone.startswith("hand."):
                    laid[event.zone[-1]].add(event.card)
                elif event.zone in FACE_UP_ZONES:
                    face_up.add(event.card)
            new = [e for outcome in recorder.outcomes[before:] for e in outcome.events]
            if any(isinstance(e, PlayBegins) for e in new):  # each seat listens to its hand, then repeats
                for seat in "AB":
                    put(ButtonPressed(seat, LISTEN_LONG))
                    assert parts.earpieces[seat].speaker is not None and parts.earpieces[seat].speaker.drain()
                    expected[seat].append(set(laid[seat]))
                put(ButtonPressed("A", LISTEN))
            if any(isinstance(e, HandEnd) for e in new):
                laid = {"A": set(), "B": set()}
        assert parts.voice.speaker.drain()
    finally:
        parts.close()
        parts.close()
    for seat in "AB":
        readings = [line.split("\t", 1)[1] for line in (tmp_path / seat / "said.txt").read_text().splitlines()]
        assert len(readings) == len(expected[seat]) >= 2
        for text, cards in zip(readings, expected[seat], strict=True):
            named = spoken("en").cards_in(text)
            assert named and named <= cards, (seat, text, cards)
    table = [line.split("\t", 1)[1] for line in (tmp_path / "said.txt").read_text().splitlines()]
    assert not any(line.startswith("Your cards") for line in table)
    assert set().union(*(spoken("en").cards_in(line) for line in table)) <= face_up
    # listen repeats the last announcement on the table's speaker, then what the table waits for
    repeats = [line for before, line in itertools.pairwise(table) if line.startswith(before + " ")]
    assert len(repeats) >= 2 and all(" leads. " in line for line in repeats), table
