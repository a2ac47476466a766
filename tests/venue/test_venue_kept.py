"""The page's history made once a game and kept beside the journal: what requests cost (replays
counted, never timed), the game under way served from the live feed, a kept file that is not the
journal's made again, and the kept files pruned with the journal's games."""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from conftest import feed, make_service, wait_for, whole_game
from starlette.testclient import TestClient

import firmware_host.journal.replay
import firmware_host.journal.store
import venue.table.page
import venue.table.page_history
from firmware_host.journal.store import GameRecord
from firmware_host.referee.table_events import HandRecord
from firmware_host.referee.transcript import ButtonEvent
from firmware_host.service import TableService
from venue.settings import WebSettings
from venue.table.kept_games import games_folder
from venue.table.page import LiveTable, TablePage, table_app
from venue.table.page_history import JournalHistory
from venue.table.public import PublicFeed
from venue.table.record import GameLog

HISTORY = ("/api/games", "/api/stats", "/api/games/1", "/api/games/1/record", "/api/games/2", "/api/games/2/record")


@pytest.fixture
def replays(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The number of each game replayed from the journal (every replay goes through ``replay_game``:
    the page's own and the journal's summaries'), in order."""
    seen: list[int] = []
    real = firmware_host.journal.replay.replay_game

    def counted(record: GameRecord, *args: Any, **kwargs: Any) -> Iterator[Any]:
        seen.append(record.game)
        return real(record, *args, **kwargs)

    monkeypatch.setattr(firmware_host.journal.replay, "replay_game", counted)
    monkeypatch.setattr(venue.table.page_history, "replay_game", counted)
    return seen


def _to_both(service: TableService, live: LiveTable, event: Any) -> None:
    """One event refereed, and its outcomes taken by the page's feed as the service hands them over."""
    outcomes = service.outputs[0].outcomes  # type: ignore[attr-defined]
    before = len(outcomes)
    feed(service, event)
    for outcome in outcomes[before:]:
        live.feed.take(outcome, now=0.0)


def test_viewers_looping_over_the_history_make_each_game_once(service: TableService, replays: list[int]) -> None:
    """Each request replayed the games it showed, and the game under way again at every event: with
    viewers looping over the history during game 2, game 1 is made once and game 2 never replayed."""
    live = LiveTable(PublicFeed(table="T"))
    for event in [*whole_game(4), ButtonEvent("A", "yes")]:
        _to_both(service, live, event)
    history = JournalHistory(Path(service.journal.path), table="T")
    asked = 0
    with TestClient(table_app(live, history=history, settings=WebSettings())) as client:
        for event in whole_game(11)[:100]:  # game 2 under way, a viewer looping meanwhile
            _to_both(service, live, event)
            for path in HISTORY:
                assert client.get(path).status_code == 200, path
                asked += 1
    assert asked == 600 and live.feed.game == 2 and live.feed.revealed  # hands of game 2 were over
    assert replays == [1, 1]  # game 1 made once (its hands, its summary); game 2 never
    assert history.made == 1


def test_the_game_under_way_is_the_live_feeds(service: TableService, replays: list[int]) -> None:
    """The game under way shows what the live feed has put out, nothing the journal has that the feed
    still holds back: hands over but not yet revealed are not in its game nor in its record."""
    live = LiveTable(PublicFeed(table="T", reveal_delay=600.0))
    for event in whole_game(4)[:70]:
        _to_both(service, live, event)
    outcomes = service.outputs[0].outcomes  # type: ignore[attr-defined]
    held = [e.hand for o in outcomes for e in o.events if isinstance(e, HandRecord)]  # over at the table
    assert held and not live.feed.revealed  # and held back by the feed
    history = JournalHistory(Path(service.journal.path), table="T", reveal_delay=0.0)
    with TestClient(table_app(live, history=history, settings=WebSettings())) as client:
        game = client.get("/api/games/1").json()
        record = client.get("/api/games/1/record").text
        (listed,) = client.get("/api/games").json()
        stats = client.get("/api/stats").json()
    assert game["hands"] == [] and '[Hand "1"]' not in record and '[Result "*"]' in record
    assert game["tags"]["Date"] == time.strftime("%Y.%m.%d", time.localtime(service.journal.listing()[0].started))
    assert listed["game"] == 1 and listed["hands"] == 0 and listed["winner"] is None
    assert listed["score"]["A"] == live.feed.state["view"]["score"][0]
    assert listed["lines"] == service.journal.listing()[0].lines
    assert stats == []  # a game counts once it is over
    live.feed.due(now=601.0)  # the feed reveals them: the page shows them
    with TestClient(table_app(live, history=history, settings=WebSettings())) as client:
        game = client.get("/api/games/1").json()
    assert [h["hand"] for h in game["hands"]] == held
    assert replays == []


def _two_games(path: Path, seeds: tuple[int, int] = (4, 11)) -> None:
    service = make_service(path)
    try:
        for seed in seeds:
            for event in [*whole_game(seed), ButtonEvent("A", "yes")]:
                feed(service, event)
    finally:
        service.journal.close()


def test_a_page_started_on_a_journal_reads_its_games_from_their_files(tmp_path: Path, replays: list[int]) -> None:
    """A cold start made every game again (1.5 s for 40 games): the games kept beside the journal are
    read, only a missing one is made (on a thread of its own, not on a request)."""
    path = tmp_path / "journal.sqlite"
    _two_games(path)
    first = JournalHistory(path, table="T")
    first.prepare().join()
    assert first.made == 3 and sorted(replays) == [1, 1, 2, 2, 3, 3]  # game 3: the one begun
    assert sorted(p.name for p in games_folder(path).iterdir()) == ["1.json", "2.json", "3.json"]
    expected = ([g.summary() for g in first.games()], first.stats(), first.log(1))
    (games_folder(path) / "2.json").unlink()
    replays.clear()
    again = JournalHistory(path, table="T")
    again.prepare().join()
    assert ([g.summary() for g in again.games()], again.stats(), again.log(1)) == expected
    assert again.made == 1 and replays == [2, 2]  # games 1 and 3 read from their files


def _forged(path: Path) -> Iterator[tuple[str, bytes]]:
    """Kept files for game 1 that are not what the page made of this journal's game 1."""
    kept = (games_folder(path) / "1.json").read_bytes()
    data = json.loads(kept)
    yield "cut short", kept[: len(kept) // 2]
    yield "not JSON", b"\xff\xfe" + kept
    yield "too deep", b"[" * 100_000
    flipped = json.loads(kept)
    flipped["content"]["played"]["winner"] = "B" if data["content"]["played"]["winner"] == "A" else "A"
    yield "its winner rewritten", json.dumps(flipped).encode()
    other = path.with_name("other.sqlite")
    _two_games(other, seeds=(11, 4))
    JournalHistory(other).games()
    yield "another journal's game 1", (games_folder(other) / "1.json").read_bytes()
    # its checksum made again after the change: the fields are read for what they are
    ends = json.loads(kept)
    ends["content"]["played"]["ends"] = [10**6] * len(ends["content"]["played"]["ends"])
    yield "a hand ending at a line the game lacks", _resealed(ends)
    typed = json.loads(kept)
    typed["content"]["summary"]["seats"][0]["points"] = "many"
    yield "a field not its type", _resealed(typed)


def _resealed(kept: dict[str, Any]) -> bytes:
    """A kept file whose content checksum is made again for its content, as a forger would."""
    content = json.dumps(kept["content"], sort_keys=True, ensure_ascii=False).encode()
    return json.dumps({**kept, "check": hashlib.sha256(content).hexdigest()}).encode()


def test_a_kept_game_that_is_not_the_journals_is_made_again(tmp_path: Path, replays: list[int]) -> None:
    """Nothing a stranger or a long evening leaves in the folder is believed: a file cut short, not
    JSON, a field rewritten, another journal's game at the same number, a field not its type: game 1
    is made again from the journal, served as it is, and its file written over."""
    path = tmp_path / "journal.sqlite"
    _two_games(path)
    made = JournalHistory(path, table="T")
    truth = ([g.summary() for g in made.games()], made.stats(), made.log(1))
    kept = (games_folder(path) / "1.json").read_bytes()
    for why, forged in list(_forged(path)):
        (games_folder(path) / "1.json").write_bytes(forged)
        replays.clear()
        history = JournalHistory(path, table="T")
        assert ([g.summary() for g in history.games()], history.stats(), history.log(1)) == truth, why
        assert history.made == 1 and replays == [1, 1], why  # game 1 made again, games 2 and 3 read
        assert (games_folder(path) / "1.json").read_bytes() == kept, why


def test_the_kept_games_are_pruned_with_the_journal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The journal keeps its newest games (200; 2 here): a kept game goes with its game, a file cut short
    as it was written too, when the next game is made."""
    monkeypatch.setattr(firmware_host.journal.store, "KEEP_GAMES", 2)
    path = tmp_path / "journal.sqlite"
    history = JournalHistory(path, table="T")
    service = make_service(path)
    kept = [["1.json", "2.json"], ["2.json", "3.json"], ["3.json", "4.json"]]
    try:
        for seed, names in zip((4, 11, 5), kept, strict=True):
            if seed == 5:
                (games_folder(path) / "2.json.part").write_bytes(b"{")  # a write cut short
            for event in [*whole_game(seed), ButtonEvent("A", "yes")]:  # the next game begins
                feed(service, event)
            history.games()
            assert sorted(p.name for p in games_folder(path).iterdir()) == names, seed
            assert [g.game for g in history.games()] == [int(n.split(".")[0]) for n in names]
    finally:
        service.journal.close()


def test_a_game_is_made_as_it_ends_not_on_a_request(service: TableService, replays: list[int]) -> None:
    """The page makes a game as it ends, on a thread of its own: by the first request it is kept
    beside the journal, and no request replays it."""
    path = Path(service.journal.path)
    with TablePage(WebSettings(port=0), table="T", journal=path) as page, httpx.Client() as http:
        assert page.history is not None
        service.outputs.append(page)
        for event in whole_game(4):
            feed(service, event)
        wait_for(lambda: _kept_winner(path, 1) is not None, "game 1 kept as it ended")
        made = list(replays)
        assert made and set(made) == {1}  # made by the page's own thread (at its start, as it ended)
        (listed,) = http.get(page.url + "/api/games").json()
        assert listed["game"] == 1 and listed["winner"] == _kept_winner(path, 1)
        assert http.get(page.url + "/api/stats").json()
        assert '[Hand "1"]' in http.get(page.url + "/api/games/1/record").text
        assert replays == made  # the requests replayed nothing


def _kept_winner(path: Path, game: int) -> str | None:
    """The winner of ``game`` as kept beside the journal at ``path`` (None: not kept, or not over)."""
    try:
        return json.loads((games_folder(path) / f"{game}.json").read_bytes())["content"]["played"]["winner"]
    except (OSError, ValueError, KeyError):
        return None


def test_a_game_over_is_rendered_once_for_viewers_looping_over_it(service: TableService,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """A viewer looping over a game over had its hands written out as text at every request (on the
    loop that answers /api/state): each answer is rendered once while the game and what it shows stay."""
    written: list[int] = []
    real = venue.table.page.write_record

    def counted(log: GameLog) -> str:
        written.append(len(log.hands))
        return real(log)

    monkeypatch.setattr(venue.table.page, "write_record", counted)
    live = LiveTable(PublicFeed(table="T"))
    for event in [*whole_game(4), ButtonEvent("A", "yes")]:
        _to_both(service, live, event)
    history = JournalHistory(Path(service.journal.path), table="T")
    with TestClient(table_app(live, history=history, settings=WebSettings())) as client:
        answers = {(path, client.get(path).text) for _ in range(20)
                   for path in ("/api/games/1/record", "/api/games/1/record?lang=fr", "/api/games/1")}
    assert len(answers) == 3 and len(written) == 2  # the record, and the record said in French
