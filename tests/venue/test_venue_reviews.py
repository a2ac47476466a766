"""The coach's review of a hand, computed once when the hand ends and kept: the
hand viewer ran the coach in the table's own process on each request it had not cached (12 clients
looping over a long journal slowed the live game by 44 %); now a worker process reviews each hand as
it ends, the review is kept beside the journal, and serving the viewer is a read. Only a hand that
may be shown (over, and revealed) is served."""

from __future__ import annotations

import concurrent.futures
import json
from pathlib import Path

import httpx
import pytest
from conftest import Recorder, feed, make_service, whole_game
from waiting import wait_for

from firmware_host.referee.transcript import ButtonEvent
from venue.settings import WebSettings
from venue.table.page import TablePage
from venue.table.reviews import reviews_folder


def play(path: Path, delay: float) -> tuple[int, list[Path]]:
    """A whole game at a table whose page has ``delay`` s of reveal_delay; its hands, and the review
    files there are once every hand is over (waited for: the worker makes them as the hands end)."""
    service = make_service(path)
    try:
        with TablePage(WebSettings(port=0, reveal_delay=delay), table="T", journal=path) as page:
            service.outputs.append(page)
            for event in [*whole_game(4), ButtonEvent("A", "yes")]:
                feed(service, event)
            recorder = service.outputs[0]
            assert isinstance(recorder, Recorder)
            hands = sum(1 for o in recorder.outcomes for e in o.events if e.event == "hand_record")
            folder = reviews_folder(path)
            wait_for(lambda: len(list(folder.glob("1-*.json"))) == hands, "a review a hand", timeout=300)
            if delay:  # kept, but not served before the delay: no hidden card leaves early
                assert httpx.get(f"{page.url}/api/games/1/hands/1", timeout=10).status_code == 404
            assert page.live.reviews.made == hands
    finally:
        service.journal.close()
    return hands, sorted(folder.glob("1-*.json"))


def test_each_hand_is_reviewed_once_as_it_ends_and_served_as_kept(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite"
    hands, files = play(path, delay=600.0)
    assert hands >= 2
    # the table restarted: the viewer reads what was kept; the worker makes nothing again
    with TablePage(WebSettings(port=0), table="T", journal=path) as page, httpx.Client(timeout=60) as http:
        with concurrent.futures.ThreadPoolExecutor(12) as clients:  # 12 clients looping over the hands
            answers = list(clients.map(lambda k: http.get(f"{page.url}/api/games/1/hands/{k % hands + 1}"),
                                       range(12 * hands)))
        assert {a.status_code for a in answers} == {200}
        assert page.live.reviews.made == 0
        view = answers[0].json()
        assert view["coached"] and view["game"] == 1 and view["steps"]
        kept = files[0].read_bytes().partition(b"\n")[2]
        assert json.loads(kept) == http.get(f"{page.url}/api/games/1/hands/1").json()


def test_closing_ends_a_review_under_way() -> None:
    """The worker leaves a terminal's Ctrl-C to the table, so the table ends it as it closes: a review
    under way is dropped, not waited for (`run --web` stopped by Ctrl-C waited for the hand being reviewed)."""
    import time

    from venue.table.reviews import Reviews

    reviews = Reviews(None)
    pool = reviews._worker()
    assert isinstance(pool, concurrent.futures.ProcessPoolExecutor)
    busy = pool.submit(time.sleep, 600)  # a long review
    wait_for(lambda: busy.running(), "the worker at work")
    processes = list(pool._processes.values())  # type: ignore[attr-defined]
    reviews.close()
    reviews.close()  # twice: nothing more
    wait_for(lambda: not any(p.is_alive() for p in processes), "the worker ended")


def test_closing_leaves_no_thread_of_the_worker_for_the_exit_to_wake() -> None:
    """Closing returns once the pool's own thread has ended: the interpreter's exit wakes that thread's
    pipe without the pool's lock (``concurrent.futures.process._python_exit``), and a thread still closing
    the pipe as the table exited printed ``OSError: [Errno 9] Bad file descriptor`` after `demo --web`
    (a fresh clone's CI, test_venue_evening). Idle and busy workers alike."""
    import threading
    import time

    from venue.table.reviews import Reviews

    def pool_threads() -> list[threading.Thread]:
        return [t for t in threading.enumerate() if type(t).__name__ == "_ExecutorManagerThread"]

    for busy in (False, True):
        reviews = Reviews(None)
        pool = reviews._worker()
        work = pool.submit(time.sleep, 600 if busy else 0)
        wait_for(lambda w=work: w.running() or w.done(), "the worker started")
        assert pool_threads(), "the pool has its thread while the worker lives"
        reviews.close()
        assert not pool_threads(), f"closing left the pool's thread running (busy: {busy})"



def test_a_review_dropped_as_the_table_closes_is_no_warning(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """Closing ends the worker, and a review still waiting for it is dropped (above): that was logged as
    the coach's failure, "could not review hand 1 … terminated abruptly", a WARNING at every Ctrl-C that
    came before the worker was done (test_slips' normal run, in a fresh clone's CI). A review dropped by
    the close is said at DEBUG; the viewer still gets no view."""
    import asyncio
    import logging
    import time

    from venue.table.page_history import JournalHistory
    from venue.table.reviews import Reviews

    path = tmp_path / "journal.sqlite"
    service = make_service(path)
    try:
        for event in whole_game(4):
            feed(service, event)
    finally:
        service.journal.close()
    played = JournalHistory(path).game(1)
    assert played is not None
    reviews = Reviews(None)
    busy = reviews._worker().submit(time.sleep, 600)  # the worker at another hand: this one waits
    wait_for(lambda: busy.running(), "the worker at work")

    async def review_then_close() -> bytes | None:
        asked = asyncio.ensure_future(reviews.view(played.hands[0][0], {"name": played.rules}))
        await asyncio.sleep(0.2)  # the hand handed to the worker, behind the busy one
        await asyncio.to_thread(reviews.close)
        return await asked

    with caplog.at_level(logging.DEBUG, logger="venue.table.reviews"):
        try:
            assert asyncio.run(review_then_close()) is None
        finally:
            reviews.close()
    said = [(r.levelno, r.getMessage()) for r in caplog.records if r.name == "venue.table.reviews"]
    assert not [m for level, m in said if level >= logging.WARNING], said
    assert any("dropped" in m for level, m in said if level == logging.DEBUG), said


def test_the_reviews_are_pruned_with_their_games(tmp_path: Path) -> None:
    """The journal keeps its newest 200 games, but `<journal>-reviews/` was never pruned: 1,079 files
    after 260 games. When game 301's first hand is reviewed, the reviews of games 1 to 101 (the journal
    no longer holds them) go; games 102 to 301 keep theirs."""
    import asyncio
    import dataclasses

    from firmware_host.journal.store import KEEP_GAMES
    from venue.table.page_history import JournalHistory
    from venue.table.reviews import Reviews

    path = tmp_path / "journal.sqlite"
    service = make_service(path)
    try:
        for event in [*whole_game(4), ButtonEvent("A", "yes")]:
            feed(service, event)
    finally:
        service.journal.close()
    played = JournalHistory(path).game(1)
    assert played is not None
    folder = reviews_folder(path)
    folder.mkdir()
    for game in range(1, 301):
        for hand in (1, 2, 3):
            (folder / f"{game}-{hand}.json").write_bytes(b"key\n{}")
    hand = dataclasses.replace(played.hands[0][0], game=301)
    reviews = Reviews(folder)

    async def review() -> bytes | None:
        return await reviews.view(hand, {"name": played.rules})

    try:
        assert asyncio.run(review()) is not None
    finally:
        reviews.close()
    games = {int(p.name.partition("-")[0]) for p in folder.glob("*.json")}
    assert games == set(range(302 - KEEP_GAMES, 302))  # the 200 games the journal keeps
