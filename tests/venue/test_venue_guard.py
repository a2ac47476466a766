"""The venue's broker as an attacker on the club's Wi-Fi tries it, on the hub's own Mosquitto: a last
will cannot write where its client may not publish, nobody but table-2 can be table-2, and the hub's
password writes no result."""

from __future__ import annotations

import json
import socket
import time
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from conftest import MOSQUITTO, scoreboard, wait_for
from paho.mqtt.enums import CallbackAPIVersion
from test_venue_trust import finished, good_state, hub_factory, publish, retained, secret, venue_file

from venue.hub_settings import HubSettings, load_hub_settings

__all__ = ["hub_factory"]  # the fixture, shared with test_venue_trust


def _string(data: bytes) -> bytes:
    return len(data).to_bytes(2, "big") + data


def connect_packet(client_id: str, username: str | None = None, password: str | None = None,
                   will: tuple[str, bytes] | None = None, clean: bool = True, keep_alive: int = 60) -> bytes:
    """An MQTT 3.1.1 CONNECT, byte by byte (a retained QoS 1 will when ``will`` is given)."""
    flags = 0x02 if clean else 0
    payload = _string(client_id.encode())
    if will is not None:
        flags |= 0x04 | 0x08 | 0x20
        payload += _string(will[0].encode()) + _string(will[1])
    if username is not None:
        flags |= 0x80
        payload += _string(username.encode())
    if password is not None:
        flags |= 0x40
        payload += _string(password.encode())
    body = _string(b"MQTT") + bytes([4, flags]) + keep_alive.to_bytes(2, "big") + payload
    size, length = len(body), b""
    while True:
        byte, size = size % 128, size // 128
        length += bytes([byte | (0x80 if size else 0)])
        if not size:
            break
    return b"\x10" + length + body


def raw_connect(settings: HubSettings, client_id: str, username: str | None = None, password: str | None = None,
                will: tuple[str, bytes] | None = None, clean: bool = True, hold: float = 0.3) -> int | None:
    """Connect, hold the connection ``hold`` s, then drop it without a DISCONNECT (a reset, as a
    pulled plug): the broker's CONNACK code (0: accepted), or None if it closed without one."""
    with socket.create_connection(settings.broker_listen, timeout=5) as sock:
        sock.sendall(connect_packet(client_id, username, password, will, clean))
        answer = b""
        try:
            while len(answer) < 4:
                chunk = sock.recv(4 - len(answer))
                if not chunk:
                    break
                answer += chunk
        except OSError:
            pass
        time.sleep(hold)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
    return answer[3] if len(answer) == 4 and answer[0] == 0x20 else None


def settings_for(tmp_path: Any, names: list[str]) -> HubSettings:
    if MOSQUITTO is None:
        pytest.skip("Mosquitto is not installed")
    return load_hub_settings(venue_file(tmp_path, "mosquitto", names))


def seen_sentinel(settings: HubSettings, hub: Any, n: int) -> None:
    """A table's state published after the attack has reached the hub (so the attack has too)."""
    publish(settings, "ecarte/club/sentinel/state", good_state(None, game=n), "sentinel", secret(settings, "sentinel"))
    wait_for(lambda: any(t["table"] == "sentinel" and t["game"] == n for t in hub.get("/api/tables")["tables"]),
             "the sentinel's state")


def test_a_last_will_cannot_forge_a_result(tmp_path: Any, hub_factory: Any) -> None:
    settings = settings_for(tmp_path, ["t1", "t2", "sentinel"])
    hub = hub_factory(settings)
    forged = ("ecarte/club/t2/games/9", finished(9, "A", ("Eve", "Bob")))
    raw_connect(settings, "x1", "t1", secret(settings, "t1"), will=forged)  # another table's password
    raw_connect(settings, "x2", will=forged)  # no user name at all
    raw_connect(settings, "x3", "t2", "guess", will=forged)  # a wrong password
    # a table's own will on its own topic is still the broker's word that it dropped off
    assert raw_connect(settings, "t2", "t2", secret(settings, "t2"),
                       will=("ecarte/club/t2/availability", b"offline")) == 0
    wait_for(lambda: any(t["table"] == "t2" and t["availability"] == "offline"
                         for t in hub.get("/api/tables")["tables"]), "t2's own will")
    seen_sentinel(settings, hub, 2)
    assert hub.get("/api/standings")["games"] == 0
    assert retained(settings, forged[0]) is None


def test_nobody_but_table_2_can_be_table_2(tmp_path: Any, hub_factory: Any) -> None:
    settings = settings_for(tmp_path, ["t1", "t2", "sentinel"])
    hub = hub_factory(settings)
    drops: list[Any] = []
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="ecarte-club-t2")
    client.username_pw_set("t2", secret(settings, "t2"))
    client.on_disconnect = lambda c, u, f, r, p: drops.append(r)
    connected: list[Any] = []
    client.on_connect = lambda c, u, f, r, p: connected.append(r)
    client.connect(*settings.broker_listen)
    client.loop_start()
    try:
        wait_for(lambda: bool(connected), "table-2 connected")
        for cid in ("ecarte-club-t2", "t2"):
            for clean in (False, True):
                raw_connect(settings, cid, clean=clean, hold=0.2)  # anonymous
                raw_connect(settings, cid, "t1", secret(settings, "t1"), clean=clean, hold=0.2)  # another table
                raw_connect(settings, cid, "t2", "guess", clean=clean, hold=0.2)  # a wrong password
        time.sleep(0.5)
        assert drops == [], f"table-2 was knocked off: {drops}"
        client.publish("ecarte/club/t2/state", good_state(None, game=5), qos=1, retain=True).wait_for_publish(10)
        wait_for(lambda: any(t["table"] == "t2" and t["game"] == 5 for t in hub.get("/api/tables")["tables"]),
                 "table-2's state")
    finally:
        client.disconnect()
        client.loop_stop()


def test_the_hubs_password_writes_no_result(tmp_path: Any, hub_factory: Any) -> None:
    settings = settings_for(tmp_path, ["t1", "sentinel"])
    hub = hub_factory(settings)
    wait_for(lambda: hub.get("/api/standings") is not None, "the hub")
    hub_password = (settings.state / "secrets" / "ecarte-hub.pass").read_text().strip()  # type: ignore[operator]
    publish(settings, "ecarte/club/t1/games/3", finished(3, "A", ("Eve", "Bob")), "ecarte-hub", hub_password)
    seen_sentinel(settings, hub, 3)
    assert retained(settings, "ecarte/club/t1/games/3") is None
    assert hub.get("/api/standings")["games"] == 0


HOSTILE = [
    {"view": {"trick": [["A", ""]], "phase": "play"}},
    {"last_trick": {}, "view": {"phase": "play"}},
    {"view": {"trump": "", "phase": "play"}},
    {"view": {"trick": [["A", "ZZ"]], "phase": "play"}},
    {"last_trick": {"cards": {"A": "KS"}}, "view": {"phase": "play"}},
]
"""States that passed the hub's checks before and stopped the scoreboard from drawing any tile."""


def test_the_hub_refuses_a_state_whose_cards_are_not_cards() -> None:
    from venue.room import Room

    room = Room("club")
    for i, state in enumerate(HOSTILE):
        assert room.take(f"ecarte/club/t{i}/state", json.dumps(state).encode(), 1.0) == []
    assert room.dropped == len(HOSTILE) and room.tables == {}
    good = {"view": {"trick": [["A", "KS"]], "trump": "TH", "phase": "play"},
            "last_trick": {"event": "trick", "cards": {"A": "7S", "B": "AD"}, "winner": "B", "leader": "A"}}
    assert room.take("ecarte/club/ok/state", json.dumps(good).encode(), 1.0)[0][0] == "table"


def test_the_scoreboard_draws_each_tile_alone(browser: Any) -> None:
    """Tiles of hostile states, as a retained state gives them to every browser that comes: each shows
    as unreadable and the tables around them are drawn (before, ``cardEl("")`` threw and none was)."""
    from venue.hub import LiveRoom
    from venue.room import Room, TableSeen

    live = LiveRoom(Room("club"))
    good = json.dumps({"game": 1, "players": ["Ann", "Bob", ""], "t": 1.0,
                       "view": {"score": [3, 1], "phase": "play", "trick": [["A", "KS"]], "trump": "TH"}}).encode()
    live.take("ecarte/club/t0/state", good)
    live.take("ecarte/club/t9/state", good)
    for i, state in enumerate(HOSTILE, start=1):  # what the page could be sent by a hub that let them by
        live.room.tables[f"t{i}"] = TableSeen(f"t{i}", "online", state)
    with scoreboard(browser, live) as tab:
        tab.wait_for_selector("[data-table=t9] .ttrick svg.card[data-card=KS]", timeout=20_000)
        assert tab.get_attribute("[data-table=t0] .ttrump svg.card", "data-card") == "TH"
        for i in (1, 2, 5):  # the states whose drawing throws: a card "", a trick with no cards
            assert "unreadable" in tab.inner_text(f"[data-table=t{i}]")
        assert tab.inner_text("#count") == f"{len(HOSTILE) + 2} tables"


def test_a_busy_room_is_drawn_ten_times_a_second_at_most_and_only_the_tiles_that_change(browser: Any) -> None:
    """A room at full pace (256 tables, 850 states a second) kept a phone's page busy drawing: each state
    drew its tile again, up to 60 frames a second. A state that changes nothing the tile shows (a card
    dealt to a hand) leaves the tile as it is, and the room is drawn ten times a second at most."""
    from venue.hub import LiveRoom
    from venue.room import Room

    def state(score: list[int], hand_sizes: list[int]) -> bytes:
        return json.dumps({"game": 1, "players": ["Ann", "Bob"], "t": 1.0, "view": {
            "score": score, "phase": "play", "trick": [["A", "KS"]], "trump": "TH", "hand_sizes": hand_sizes}}).encode()

    live = LiveRoom(Room("club"))
    live.take("ecarte/club/t0/state", state([0, 0], [5, 5]))
    with scoreboard(browser, live) as tab:
        tab.wait_for_selector("[data-table=t0] .ttrick svg.card[data-card=KS]", timeout=20_000)
        wait_for(lambda: live.loop is not None, "the server's loop")
        loop = live.loop
        assert loop is not None

        def send(table: str, payload: bytes) -> None:
            loop.call_soon_threadsafe(live.take, f"ecarte/club/{table}/state", payload)

        tab.evaluate("document.querySelector('[data-table=t0]').dataset.mark = 'first'")
        send("t0", state([0, 0], [4, 5]))  # a card left A's hand: what the tile shows is the same
        send("t1", state([0, 0], [5, 5]))
        tab.wait_for_selector("[data-table=t1]", timeout=20_000)
        assert tab.evaluate("window.__updates") == 3
        assert tab.get_attribute("[data-table=t0]", "data-mark") == "first"  # the same tile, not drawn again
        send("t0", state([1, 0], [4, 5]))
        tab.wait_for_function("document.querySelector('[data-table=t0] .tscore').textContent === '1 – 0'",
                              timeout=20_000)
        assert tab.get_attribute("[data-table=t0]", "data-mark") is None  # the score changed: drawn again

        frames = tab.evaluate("window.__frames")
        began = time.monotonic()
        for n in range(2, 102):  # a state every 10 ms, each changing the tile
            send("t0", state([n, 0], [4, 5]))
            time.sleep(0.01)
        tab.wait_for_function("document.querySelector('[data-table=t0] .tscore').textContent === '101 – 0'",
                              timeout=20_000)
        elapsed = time.monotonic() - began
        drawn = tab.evaluate("window.__frames") - frames
        assert tab.evaluate("window.__updates") == 104
        assert 1 <= drawn <= elapsed / 0.1 + 2, (drawn, elapsed)


def result(table: str, n: int, players: tuple[str, str], winner: str = "A", ended: float | None = None) -> bytes:
    """Game ``n`` of ``table``, ended ``n`` seconds from now unless told (after its round was paired)."""
    return json.dumps({"table": table, "game": n, "players": list(players), "winner": winner,
                       "score": {"A": 5, "B": 2} if winner == "A" else {"A": 2, "B": 5},
                       "ended": time.time() + n if ended is None else ended, "hands": [], "text": ""}).encode()


SWISS = ("Ann", "Bob", "Cat", "Eve")
"""Round 1 of this Swiss: Ann–Cat at table-1, Eve–Bob at table-2 (the seeding's halves, the tables in order)."""


def test_a_result_belongs_to_its_table_and_its_pairing() -> None:
    from venue.room import Room
    from venue.session import Session

    room = Room("club", Session("Tuesday", SWISS, system="swiss", planned=3), ("table-1", "table-2"))
    now = time.time()
    games = room.standings()["rounds"][0]["games"]
    assert [(g["A"], g["B"], g["table"]) for g in games] == [("Ann", "Cat", "table-1"), ("Eve", "Bob", "table-2")]
    # table-1's password, table-2's pairing: disputed, not counted
    room.take("ecarte/club/table-1/games/7", result("table-1", 7, ("Eve", "Bob")), 1.0)
    assert room.standings()["games"] == 0
    assert "paired at table-2" in room.standings()["disputed"][0]["why"]
    room.take("ecarte/club/table-2/games/1", result("table-2", 1, ("Eve", "Bob"), "B", ended=now + 600), 2.0)
    # the same game again with another end, or under another number: counted once
    room.take("ecarte/club/table-2/games/1", result("table-2", 1, ("Eve", "Bob"), "B", ended=now + 900), 3.0)
    room.take("ecarte/club/table-2/games/2", result("table-2", 2, ("Eve", "Bob"), "B", ended=now + 600), 3.0)
    standings = room.standings()
    played = {r["player"]: r["played"] for r in standings["ranking"]}
    assert standings["games"] == 1 and played["Bob"] == 1 and played["Eve"] == 1
    assert len(standings["disputed"]) == 2
    assert len(standings["rounds"]) == 1  # round 2 waits for table-1's real result
    room.take("ecarte/club/table-1/games/1", result("table-1", 1, ("Ann", "Cat")), 4.0)
    standings = room.standings()
    assert standings["games"] == 2 and len(standings["rounds"]) == 2
    # a result for a pair already decided, from its own table: disputed
    room.take("ecarte/club/table-1/games/3", result("table-1", 3, ("Ann", "Cat"), "B"), 5.0)
    assert room.standings()["games"] == 2 and "already have their result" in room.standings()["disputed"][-1]["why"]


def test_free_play_counts_the_players_the_table_announced() -> None:
    from venue.room import Room

    room = Room("club")
    state = json.dumps({"game": 3, "players": ["Ann", "Bob", ""], "view": {"score": [0, 0]}}).encode()
    room.take("ecarte/club/t1/state", state, 1.0)
    room.take("ecarte/club/t1/games/3", result("t1", 3, ("Eve", "Bob")), 2.0)
    assert room.standings()["games"] == 0 and "announced Ann vs Bob" in room.standings()["disputed"][0]["why"]
    room.take("ecarte/club/t1/games/4", result("t1", 4, ("Eve", "Bob")), 3.0)  # a game the hub saw no state of
    room.take("ecarte/club/t2/games/3", result("t2", 3, ("Ann", "Bob")), 3.0)
    assert room.standings()["games"] == 2


def test_one_tables_password_posts_no_result_of_another(tmp_path: Any, hub_factory: Any) -> None:
    settings = settings_for(tmp_path, ["table-1", "table-2", "sentinel"])
    path = tmp_path / "venue.toml"
    path.write_text(path.read_text() + f'[session]\nplayers = {json.dumps(list(SWISS))}\nsystem = "swiss"\n')
    settings = load_hub_settings(path)
    hub = hub_factory(settings)
    t1, t2 = secret(settings, "table-1"), secret(settings, "table-2")
    publish(settings, "ecarte/club/table-1/games/7", result("table-1", 7, ("Eve", "Bob")), "table-1", t1)
    now = time.time()
    publish(settings, "ecarte/club/table-2/games/1", result("table-2", 1, ("Eve", "Bob"), "B", now + 600), "table-2",
            t2)
    publish(settings, "ecarte/club/table-2/games/1", result("table-2", 1, ("Eve", "Bob"), "B", now + 900), "table-2",
            t2)
    publish(settings, "ecarte/club/table-2/games/2", result("table-2", 2, ("Eve", "Bob"), "B", now + 600), "table-2",
            t2)
    seen_sentinel(settings, hub, 4)
    standings = hub.get("/api/standings")
    assert standings["games"] == 1
    assert {r["player"]: r["played"] for r in standings["ranking"]} == {"Ann": 0, "Bob": 1, "Cat": 0, "Eve": 1}
    assert len(standings["disputed"]) == 2


def test_the_director_sees_a_disputed_result(browser: Any) -> None:
    from venue.hub import LiveRoom
    from venue.room import Room
    from venue.session import Session

    live = LiveRoom(Room("club", Session("Tuesday", SWISS, system="swiss", planned=3), ("table-1", "table-2")))
    live.take("ecarte/club/table-1/games/7", result("table-1", 7, ("Eve", "Bob")))
    with scoreboard(browser, live) as tab:
        tab.wait_for_function("window.__standings !== null", timeout=20_000)
        tab.click("nav button[data-tab=standings]")
        text = tab.inner_text("#rounds")
        assert "1 disputed result" in text and "table-1 game 7: Eve – Bob 5–2: not counted" in text
        assert "Ranking · Tuesday · 0 games" in tab.inner_text("#session")


def test_a_browser_that_does_not_read_is_dropped() -> None:
    """A stream opened and never read: what waits for it is bounded by bytes, then it is dropped (its
    queue used to hold 2,000 blocks of any size: a standings block each result)."""
    from venue.hub import LiveRoom, hub_app
    from venue.page import ServerThread
    from venue.room import Room

    live = LiveRoom(Room("club"))
    live.browsers.limit = 512 * 1024
    server = ServerThread(hub_app(live), "127.0.0.1", 0, name="hub")
    server.start()
    try:
        with socket.create_connection(("127.0.0.1", server.port), timeout=5) as sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            sock.sendall(b"GET /api/stream HTTP/1.1\r\nHost: hub\r\n\r\n")
            wait_for(lambda: live.browsers.count == 1, "the stream opened")
            state = {"game": 1, "players": ["A" * 64, "B" * 64, ""], "expectation": "x" * 500,
                     "view": {"score": [1, 0], "phase": "play"}}
            n = 0
            while live.browsers.dropped == 0 and n < 200_000:
                n += 1
                live.take(f"ecarte/club/t{n % 50}/state", json.dumps({**state, "t": float(n)}).encode())
            assert live.browsers.dropped == 1 and live.browsers.count == 0
            assert n > 100  # it was dropped for what it did not read (about 1 KB a block), not at once
    finally:
        server.close()


def test_messages_waiting_for_a_browser_go_out_in_one_write_in_order() -> None:
    """A busy room was one write a message to each browser (850 a second at 256 tables at ten times
    their pace), each a chunk the browser took apart alone. What waits goes out together, in order,
    none held back, and a browser dropped meanwhile still gets what was queued before its end."""
    import asyncio

    from venue.sse import Broadcaster, sse_block

    async def writes() -> list[bytes]:
        browsers = Broadcaster()
        body = browsers.response([sse_block("table", {"n": 0})]).body_iterator
        out = [await anext(body), await anext(body)]  # the retry line, then the state now
        for n in range(1, 6):
            browsers.send("table", {"n": n})
        out.append(await anext(body))
        browsers.send("table", {"n": 6})
        browsers.close()
        out.extend([chunk async for chunk in body])
        return [bytes(c) if not isinstance(c, str) else c.encode() for c in out]

    out = asyncio.run(writes())
    assert out[0] == b"retry: 1000\n\n" and out[1] == sse_block("table", {"n": 0})
    assert out[2] == b"".join(sse_block("table", {"n": n}) for n in range(1, 6))
    assert out[3:] == [sse_block("table", {"n": 6})]


def test_a_busy_stream_is_written_twenty_times_a_second_at_most_and_a_quiet_one_at_once() -> None:
    """At full pace each message woke a browser's stream and went out alone (850 writes a second to each
    phone, and to each phone of a crowd). Messages 5 ms apart now go out in writes 50 ms apart at
    least, every message in order; after a quiet moment the next message goes out at once, alone."""
    import asyncio

    from venue.sse import WRITE_EVERY_S, Broadcaster, sse_block

    async def writes() -> tuple[list[bytes], float, list[bytes]]:
        browsers = Broadcaster()
        body = browsers.response([]).body_iterator
        await anext(body)  # the retry line
        chunks: list[bytes] = []

        async def read() -> None:
            async for chunk in body:
                chunks.append(chunk if isinstance(chunk, bytes) else chunk.encode())

        reader = asyncio.create_task(read())
        began = asyncio.get_running_loop().time()
        for n in range(100):
            browsers.send("table", {"n": n})
            await asyncio.sleep(0.005)
        elapsed = asyncio.get_running_loop().time() - began
        await asyncio.sleep(3 * WRITE_EVERY_S)
        busy = chunks[:]
        chunks.clear()
        browsers.send("table", {"n": "after"})
        for _ in range(20):  # a few turns of the loop, no wait of WRITE_EVERY_S for it
            await asyncio.sleep(0)
        quiet = chunks[:]
        browsers.close()
        await reader
        return busy, elapsed, quiet

    busy, elapsed, quiet = asyncio.run(writes())
    assert b"".join(busy) == b"".join(sse_block("table", {"n": n}) for n in range(100))
    assert len(busy) <= elapsed / WRITE_EVERY_S + 2, (len(busy), elapsed)
    assert quiet == [sse_block("table", {"n": "after"})]


def test_messages_waiting_for_the_hub_are_taken_together_the_latest_of_each_topic() -> None:
    """A table flooding its ``state`` with its own password (70,000 a second from one process, through
    the hub's Mosquitto) made each message a turn of the hub's loop, and every other table's state
    waited behind them (1.6–3.8 s at the median, 5–8 s at worst; 1.0 s and 2.5 s at most now). The
    messages that arrive while the loop is busy are taken in one turn, the latest of each topic (each
    is retained: a newer one replaces it), in their order."""
    import asyncio

    from venue.hub import LiveRoom, Subscriber
    from venue.room import Room
    from venue.settings import MqttSettings

    def message(topic: str, payload: bytes) -> mqtt.MQTTMessage:
        m = mqtt.MQTTMessage(topic=topic.encode())
        m.payload = payload
        return m

    async def flooded() -> LiveRoom:
        live = LiveRoom(Room("club"))
        sub = Subscriber(MqttSettings(venue="club", table="hub", enabled=True), live, asyncio.get_running_loop())
        for n in range(1000):  # paho's thread, while the loop is busy
            sub._on_message(sub.client, None, message("ecarte/club/bad/state", b"[%d]" % n))
        sub._on_message(sub.client, None, message("ecarte/club/good/state", good_state("A")))
        sub._on_message(sub.client, None, message("ecarte/club/bad/state", b"[1000]"))
        await asyncio.sleep(0.1)  # the loop's turn
        return live

    live = asyncio.run(flooded())
    assert live.messages == 2  # the latest of each topic
    assert live.room.dropped == 1 and list(live.room.tables) == ["good"]


def _hub(tmp_path: Any, text: str, *args: str, wait: float | None = None) -> tuple[int | None, str]:
    """``ecarte-table hub`` on a venue file: its exit status (None: still running after ``wait`` s,
    then ended) and what it said."""
    import subprocess
    import sys

    path = tmp_path / "venue.toml"
    path.write_text(text)
    proc = subprocess.Popen([sys.executable, "-m", "cli.main", "hub", str(path), *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        _, err = proc.communicate(timeout=wait if wait is not None else 60)
        return proc.returncode, err
    except subprocess.TimeoutExpired:
        proc.terminate()
        return None, proc.communicate(timeout=30)[1]


def test_duplicate_or_reserved_player_names_exit_2(tmp_path: Any) -> None:
    for players, words in ((["Ann", "Bob", "Ann"], "'Ann' given twice"), (["Ann", "\u0000bye", "Bob"], "control")):
        status, err = _hub(tmp_path, f"[session]\nplayers = {json.dumps(players)}\nsystem = \"swiss\"\n")
        assert status == 2 and "session.players" in err and words in err and "Traceback" not in err, err


def test_a_hub_toward_no_broker_says_it_cannot_connect(tmp_path: Any) -> None:
    from venue.broker import free_port

    status, err = _hub(tmp_path, f'[hub]\nlisten = "127.0.0.1:{free_port()}"\n[tables]\nnames = ["t1"]\n',
                       "--broker", f"127.0.0.1:{free_port()}", wait=8)
    assert status is None, err  # it keeps trying
    assert "cannot connect to the venue's broker" in err and "serves about" not in err, err
    assert "1 table declared" not in err  # nothing announced
    assert (tmp_path / "venue-hub" / ".gitignore").read_text().splitlines()[-1] == "*"


def test_a_table_with_a_misspelt_venue_says_so(tmp_path: Any, hub_factory: Any,
                                                caplog: pytest.LogCaptureFixture) -> None:
    import logging

    from venue.mqtt import TablePublisher
    from venue.settings import MqttSettings

    settings = settings_for(tmp_path, ["t1"])
    hub_factory(settings)
    caplog.set_level(logging.WARNING, logger="venue.mqtt")
    host, port = settings.broker_listen
    for venue, refused in (("clbu", True), ("club", False)):
        table = MqttSettings(host=host, port=port, venue=venue, table="t1", username="t1", enabled=True,
                             password=secret(settings, "t1"))
        with TablePublisher(table, table_name="t1") as publisher:
            if refused:  # Mosquitto refuses its subscription to its own availability, and drops what it publishes
                wait_for(lambda: publisher.refused, "the broker's refusal")
                assert "is [mqtt] venue 'clbu' the hub's venue" in caplog.text
            else:
                assert publisher.connected.wait(20)
                time.sleep(1.0)
                assert not publisher.refused


def test_a_restart_counts_a_later_rounds_result_that_comes_first() -> None:
    """After a restart the retained games come in any order: a result of round 2 before round 1 is
    over waits (disputed meanwhile) and counts once round 2 is paired."""
    from venue.room import Room
    from venue.session import Session

    first = Room("club", Session("Tuesday", SWISS, system="swiss", planned=3), ("table-1", "table-2"))
    first.take("ecarte/club/table-1/games/1", result("table-1", 1, ("Ann", "Cat")), 1.0)
    first.take("ecarte/club/table-2/games/1", result("table-2", 1, ("Eve", "Bob"), "B"), 1.0)
    round_2 = first.standings()["rounds"][1]["games"]
    later = [(g["table"], (g["A"], g["B"])) for g in round_2]
    room = Room("club", Session("Tuesday", SWISS, system="swiss", planned=3), ("table-1", "table-2"))
    for table, players in later:
        room.take(f"ecarte/club/{table}/games/2", result(table, 2, players), 2.0)
    assert room.standings()["games"] == 0 and len(room.standings()["disputed"]) == 2
    room.take("ecarte/club/table-1/games/1", result("table-1", 1, ("Ann", "Cat")), 3.0)
    room.take("ecarte/club/table-2/games/1", result("table-2", 1, ("Eve", "Bob"), "B"), 3.0)
    standings = room.standings()
    assert standings["games"] == 4 and standings["disputed"] == [] and len(standings["rounds"]) == 3


def test_a_tile_off_the_screen_waits_and_is_drawn_when_it_scrolls_into_view(browser: Any) -> None:
    """A phone shows a few tiles of a room of many: a table far below the screen is not drawn again at
    each of its states (before, every tile of the room was), and shows its latest when scrolled to."""
    from venue.hub import LiveRoom
    from venue.room import Room

    def state(score: list[int]) -> bytes:
        return json.dumps({"game": 1, "players": ["Ann", "Bob"], "t": 1.0,
                           "view": {"score": score, "phase": "play", "trick": [], "trump": "TH"}}).encode()

    live = LiveRoom(Room("club"))
    for i in range(80):
        live.take(f"ecarte/club/t{i}/state", state([0, 0]))
    with scoreboard(browser, live, viewport={"width": 390, "height": 844}) as tab:
        tab.wait_for_selector("[data-table=t79] .tscore", timeout=20_000)
        wait_for(lambda: live.loop is not None, "the server's loop")
        loop = live.loop
        assert loop is not None
        tab.evaluate("document.querySelector('[data-table=t79]').dataset.mark = 'far'")
        for table, score in (("t79", [1, 0]), ("t79", [2, 0]), ("t0", [1, 0])):
            loop.call_soon_threadsafe(live.take, f"ecarte/club/{table}/state", state(score))
        tab.wait_for_function("document.querySelector('[data-table=t0] .tscore').textContent === '1 – 0'",
                              timeout=20_000)  # in view: drawn, in the frame that had t79's states or after
        assert tab.evaluate("window.__updates") == 83
        assert tab.get_attribute("[data-table=t79]", "data-mark") == "far"  # not drawn again off the screen
        assert tab.text_content("[data-table=t79] .tscore") == "0 – 0"
        tab.eval_on_selector("[data-table=t79]", "e => e.scrollIntoView()")
        tab.wait_for_function("document.querySelector('[data-table=t79] .tscore').textContent === '2 – 0'",
                              timeout=20_000)  # its latest, once in view
        assert tab.get_attribute("[data-table=t79]", "data-mark") is None


def test_every_message_is_passed_on_in_order_and_acknowledged(tmp_path: Any, hub_factory: Any) -> None:
    """What a table sends reaches each reader in the order sent: one reading at QoS 0 while it is
    sent, one at QoS 1 whose session waits for it while it is away; every QoS 1 message is
    acknowledged to the table."""
    settings_for(tmp_path, ["t1"])  # skipped where Mosquitto is not installed
    path = venue_file(tmp_path, "mosquitto", ["t1"])
    path.write_text(path.read_text().replace('readers = ["reader"]', 'readers = ["reader", "keeper"]'))
    settings = load_hub_settings(path)
    hub_factory(settings)
    topic = "ecarte/club/t1/event"

    def reader(user: str, qos: int, clean: bool) -> tuple[mqtt.Client, list[int]]:
        got: list[int] = []
        subscribed: list[Any] = []
        client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=user, clean_session=clean)
        client.username_pw_set(user, secret(settings, user))
        client.on_connect = lambda c, u, f, r, p: c.subscribe(topic, qos=qos)
        client.on_subscribe = lambda c, u, m, r, p: subscribed.append(r)
        client.on_message = lambda c, u, m: got.append(int(m.payload))
        client.connect(*settings.broker_listen)
        client.loop_start()
        wait_for(lambda: bool(subscribed), f"{user} subscribed")
        return client, got

    keeper, _ = reader("keeper", 1, clean=False)
    keeper.disconnect()
    keeper.loop_stop()
    live, seen = reader("reader", 0, clean=True)
    table = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="t1")
    table.username_pw_set("t1", secret(settings, "t1"))
    table.connect(*settings.broker_listen)
    table.loop_start()
    try:
        sent = [table.publish(topic, str(i).encode(), qos=1) for i in range(300)]  # as a table sends
        for info in sent:
            info.wait_for_publish(10)
            assert info.is_published()
        for i in range(300, 400):
            table.publish(topic, str(i).encode(), qos=0)
        wait_for(lambda: len(seen) == 400, "every message read at QoS 0")
        assert seen == list(range(400))
        keeper, kept = reader("keeper", 1, clean=False)
        wait_for(lambda: set(range(300)) <= set(kept), "the QoS 1 messages kept for the reader away")
        assert kept == sorted(kept) and len(kept) == len(set(kept))
        keeper.disconnect()
        keeper.loop_stop()
    finally:
        table.disconnect()
        table.loop_stop()
        live.disconnect()
        live.loop_stop()


def test_a_table_fallen_silent_is_offline_after_its_keep_alive(tmp_path: Any, hub_factory: Any) -> None:
    """A table whose power is cut sends nothing more, not even a goodbye: the broker closes its
    connection once one and a half keep-alives have passed without a packet (MQTT-3.1.2-24), and its
    will says it is offline. A table that keeps talking stays connected."""
    settings = settings_for(tmp_path, ["t1", "t2"])
    hub = hub_factory(settings)

    def table(name: str) -> socket.socket:
        sock = socket.create_connection(settings.broker_listen, timeout=10)
        sock.sendall(connect_packet(name, name, secret(settings, name),
                                    will=(f"ecarte/club/{name}/availability", b"offline"), keep_alive=1))
        assert sock.recv(4)[3] == 0  # accepted
        return sock

    silent, talking = table("t1"), table("t2")
    try:
        began = time.monotonic()
        closed_after = None
        while time.monotonic() - began < 8.0 and closed_after is None:
            talking.sendall(b"\xc0\x00")  # PINGREQ
            assert talking.recv(2) == b"\xd0\x00"  # PINGRESP
            silent.setblocking(False)
            try:
                if silent.recv(1) == b"" and closed_after is None:
                    closed_after = time.monotonic() - began
            except BlockingIOError:
                pass
            time.sleep(0.25)
        # Mosquitto 2.0.11 checks keep-alives every few seconds when nothing else happens (5.4 s seen for 1 s)
        assert closed_after is not None and 1.4 <= closed_after <= 7.0, closed_after
        wait_for(lambda: any(t["table"] == "t1" and t["availability"] == "offline"
                             for t in hub.get("/api/tables")["tables"]), "t1's will")
        tables = {t["table"]: t["availability"] for t in hub.get("/api/tables")["tables"]}
        assert tables.get("t1") == "offline", tables
        assert tables.get("t2") != "offline", tables
    finally:
        silent.close()
        talking.close()
