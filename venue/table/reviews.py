"""The coach's review of each hand, computed once when the hand ends, and kept: the hand viewer
(``GET /api/games/{n}/hands/{k}``) then costs a read.

The coach never runs in the table's own process for a request, so that viewers looping over a long
journal cannot slow the live game:

- **when a hand ends** the page hands it (:class:`venue.table.record.HandLog`, with the game's rules) to
  :meth:`Reviews.submit`, which returns at once: the review (:func:`venue.table.hand_view.hand_view`,
  the coach included) is made by **one worker process of lower priority** (``nice`` +10), never
  on the referee's thread nor the page's loop, and never holding the table process's GIL;
- the view is kept as the JSON it is served as, in a file a hand (``<journal>-reviews/<game>-<hand>.json``,
  beside the journal; its first line a digest of the hand's record and rules, so that a file of another
  journal at the same path is never served) and in memory (the last :data:`KEPT` views);
- a hand of an earlier game not reviewed yet (a journal older than this) is reviewed once, on the
  first request, by the same worker; at most :data:`MAX_WAITING` hands wait for it (past that the
  request is answered 503, ``Retry-After``: the coach is busy), and a hand asked for twice is
  reviewed once.

What may be served is decided before, by the page (:mod:`venue.table.page`): a hand of the game under way
only once the feed has revealed it (``reveal_delay``), an earlier one from the journal. A review made
at the hand's end is only read for such a hand: no hidden card leaves before its hand is over.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import hashlib
import json
import logging
import multiprocessing
import os
import signal
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any

from firmware_host.journal.store import KEEP_GAMES
from venue.table.kept_games import prune_games
from venue.table.record import HandLog

logger = logging.getLogger(__name__)

KEPT = 128
"""Views kept in memory (the least recently served forgotten first; the files keep every one)."""

MAX_WAITING = 16
"""Hands waiting for the worker because a viewer asked for them, at most (those of hands that
ended are never refused: one a hand)."""

WORKER_END_S = 5.0
"""How long closing waits for the worker to end after SIGTERM (then SIGKILL)."""

NICE = 10
"""How much lower the worker's priority is than the table's (``os.nice``)."""


def _lower_priority() -> None:  # pragma: no cover - runs in the worker process
    """The worker's start: it yields the cores to the referee's process, and leaves a Ctrl-C to it (a
    terminal's Ctrl-C reaches every process of its foreground group: the worker, waiting for work,
    printed a KeyboardInterrupt's traceback; the table's process shuts the pool down as it stops)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    with contextlib.suppress(OSError):
        os.nice(NICE)


def lower_thread_priority() -> None:
    """Linux sets a thread's nice value on its own id: the coach's thread yields the cores to the referee's."""
    with contextlib.suppress(OSError, AttributeError):
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), NICE)


def review_json(hand: HandLog, rules: dict[str, Any]) -> bytes:
    """The hand's view with the coach's verdicts, as served (in the worker process)."""
    from venue.table.hand_view import hand_view

    return json.dumps(hand_view(hand, rules), ensure_ascii=False, separators=(",", ":")).encode()


def digest(hand: HandLog, rules: dict[str, Any]) -> str:
    """What a kept review was made from: the hand's record and the game's rules."""
    text = json.dumps([hand.to_json(), rules], sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def reviews_folder(journal: Path) -> Path:
    """Where the reviews of the games of ``journal`` are kept."""
    return journal.with_name(f"{journal.stem}-reviews")


class Reviews:
    """The coach's reviews of one table's hands: made once by a worker process, kept in files
    (``folder``; None: in memory only) and served as they are kept. Used on the page's event loop.

    :param folder: the folder of the review files (made when the first is written), or None.
    """

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder
        self._kept: OrderedDict[tuple[int, int], tuple[str, bytes]] = OrderedDict()
        self._waiting: dict[tuple[int, int, str], asyncio.Future[bytes | None]] = {}
        self._asked = 0
        """Hands waiting because a viewer asked for them (not because they ended)."""
        self._pool: concurrent.futures.Executor | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._closed = False
        self.made = 0
        """Reviews the worker made."""
        self._pruned = 0
        """The game whose end last pruned the folder (:meth:`_prune`)."""

    # -- the worker ------------------------------------------------------------------------------

    def _worker(self) -> concurrent.futures.Executor:
        if self._pool is None:
            try:
                # spawned, not forked: the table's process has threads (paho, the readers) whose locks a
                # fork would copy held
                self._pool = concurrent.futures.ProcessPoolExecutor(
                    max_workers=1, mp_context=multiprocessing.get_context("spawn"), initializer=_lower_priority)
            except (OSError, NotImplementedError) as exc:  # no POSIX semaphores (no /dev/shm): a thread
                logger.warning("the coach reviews on a thread of the table's process (no worker process: %s)", exc)
                self._pool = concurrent.futures.ThreadPoolExecutor(1, "coach", initializer=lower_thread_priority)
        return self._pool

    def submit(self, hand: HandLog, rules: dict[str, Any]) -> None:
        """A hand that has just ended: reviewed by the worker and kept (returns at once). Off a running
        loop (a tool feeding the page's feed by hand) nothing is made now: the first request makes it."""
        if self._closed:
            return
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return
        self._review(hand, dict(rules), asked=False)

    def _review(self, hand: HandLog, rules: dict[str, Any], *, asked: bool) -> asyncio.Future[bytes | None] | None:
        key = digest(hand, rules)
        waiting = self._waiting.get((hand.game, hand.number, key))
        if waiting is not None:
            return waiting
        if self._closed or (asked and self._asked >= MAX_WAITING):
            return None
        loop = asyncio.get_running_loop()
        done: asyncio.Future[bytes | None] = loop.create_future()
        self._waiting[(hand.game, hand.number, key)] = done
        self._asked += asked

        async def run() -> None:
            view: bytes | None = None
            try:
                kept = await asyncio.to_thread(self._read, hand.game, hand.number, key)
                if kept is not None:
                    view = kept
                elif self._closed:  # closed while the file was read: no new worker
                    return
                else:
                    view = await asyncio.wrap_future(self._worker().submit(review_json, hand, rules))
                    self.made += 1
                    await asyncio.to_thread(self._write, hand.game, hand.number, key, view)
                self._keep(hand.game, hand.number, key, view)
            except Exception as exc:  # the worker's failure (or its error): said, and the viewer answers 503
                if self._closed:  # the table closing ended the worker (close): dropped, not failed
                    logger.debug("the review of hand %d of game %d dropped as the table closed: %s",
                                 hand.number, hand.game, exc)
                    return
                logger.warning("the coach could not review hand %d of game %d: %s", hand.number, hand.game, exc)
                if isinstance(exc, concurrent.futures.process.BrokenProcessPool):
                    self._pool = None  # a new worker for the next hand
            finally:
                del self._waiting[(hand.game, hand.number, key)]
                self._asked -= asked
                if not done.done():
                    done.set_result(view)

        task = loop.create_task(run())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return done

    # -- serving ---------------------------------------------------------------------------------

    async def view(self, hand: HandLog, rules: dict[str, Any]) -> bytes | None:
        """The hand's view as served (JSON): kept, or made now by the worker (waited for, off the loop);
        None when :data:`MAX_WAITING` hands already wait for the worker (or it failed).

        The caller decides that the hand may be shown (over, and revealed)."""
        rules = dict(rules)
        key = digest(hand, rules)
        kept = self._kept.get((hand.game, hand.number))
        if kept is not None and kept[0] == key:
            self._kept.move_to_end((hand.game, hand.number))
            return kept[1]
        waiting = self._review(hand, rules, asked=True)
        return None if waiting is None else await asyncio.shield(waiting)

    def _keep(self, game: int, number: int, key: str, view: bytes) -> None:
        self._kept[(game, number)] = (key, view)
        self._kept.move_to_end((game, number))
        while len(self._kept) > KEPT:
            self._kept.popitem(last=False)

    # -- the files -------------------------------------------------------------------------------

    def _path(self, game: int, number: int) -> Path | None:
        return None if self.folder is None else self.folder / f"{game}-{number}.json"

    def _read(self, game: int, number: int, key: str) -> bytes | None:
        """The kept review of hand ``number`` of ``game``, if it was made from the same record."""
        path = self._path(game, number)
        if path is None:
            return None
        try:
            first, _, view = path.read_bytes().partition(b"\n")
        except OSError:
            return None
        return view if first.decode(errors="replace") == key and view else None

    def _write(self, game: int, number: int, key: str, view: bytes) -> None:
        path = self._path(game, number)
        if path is None:
            return
        part = path.with_name(path.name + ".part")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            part.write_bytes(key.encode() + b"\n" + view)
            os.replace(part, path)
        except OSError as exc:  # kept in memory all the same
            logger.warning("the coach's review of hand %d of game %d cannot be kept in %s: %s", number, game,
                           path.parent, exc)
        if game > self._pruned:
            self._prune(path.parent, game)

    def _prune(self, folder: Path, game: int) -> None:
        """The reviews of the games the journal no longer keeps (it keeps the newest :data:`KEEP_GAMES`,
        so none older than ``game - KEEP_GAMES``) are deleted with their games: 1,079 files were left
        after 260 games. Looked at once a game (the folder holds a few files a game)."""
        self._pruned = game
        prune_games(folder, "-", game - KEEP_GAMES + 1)

    def close(self) -> None:
        """Stop the worker (safe to call twice); a review under way is dropped: its process is ended
        here, as it leaves a Ctrl-C to the table (the interpreter's exit would otherwise wait for it).

        Returns once the pool's manager thread has seen the worker's end and closed its wakeup pipe: the
        interpreter's exit wakes that pipe without the pool's lock (``concurrent.futures.process.
        _python_exit``, Python 3.11), so a thread still closing it as the table exits raced with it
        (``OSError: [Errno 9] Bad file descriptor`` printed at the end of `demo --web`)."""
        self._closed = True
        pool, self._pool = self._pool, None
        if pool is None:
            return
        if not isinstance(pool, concurrent.futures.ProcessPoolExecutor):  # the thread: not waited for
            pool.shutdown(wait=False, cancel_futures=True)
            return
        processes = list((getattr(pool, "_processes", None) or {}).values())
        for process in processes:
            with contextlib.suppress(OSError, ValueError):  # gone already, or closed
                process.terminate()
        for process in processes:
            with contextlib.suppress(OSError, ValueError, AssertionError):
                process.join(WORKER_END_S)
                if process.is_alive():  # deaf to SIGTERM: not seen, but never waited on forever
                    process.kill()
                    process.join(WORKER_END_S)
        pool.shutdown(wait=True, cancel_futures=True)

__all__ = ["Reviews", "review_json", "reviews_folder"]
