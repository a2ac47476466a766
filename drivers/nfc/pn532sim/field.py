"""The field of one pad: a stack of tags, how deep the antenna reads, misses, anticollision.

Cards lie on a pad as a stack, bottom (the cloth side) first. What the
simulated tags do in a stack, and on what it rests:

Measured facts and documented behaviour (modelled as such):

* Stacked tags couple badly: builders of an RFID poker table report that their
  reader "seemingly can only read up to 2 cards in a stack, 3 is iffy"
  (pokerchipforum.com, "Experimenting with a DIY RFID table and broadcast
  overlay"); nfcpy's maintainer: "Consumer NFC chipsets either support one or
  two simultaneous tags for selected technologies" (nfcpy issue #134); a
  PN532/RC522 experimenter saw his reader hang on a two-card stack
  (electronics.stackexchange.com question 519993).

Assumptions (the simplest model consistent with the above; not measured):

* Readable depth: the lowest ``depth`` tags of a stack (the cloth side, nearest
  the antenna) couple and behave perfectly; the tags above answer nothing at
  all. Default 2, after the poker-table report. A real pad's depth depends on
  its antenna, the stickers and the cards: measure it (``docs/nfc.md``).
* Misses: while two tags or more lie on the pad, each coupled tag stays silent
  for a whole poll with probability ``miss`` (default 1 %), drawn from a
  seeded generator at the first listing of each field period. A poll lasts
  from the field going on until it goes off or a listing finds nothing.
  A lone tag never misses.
* Noise (:mod:`~drivers.nfc.pn532sim.noise`, off unless given): a tag's answer garbled or
  lost, more likely in its first tens of milliseconds on the pad and further up the stack, and an
  activation among two tags or more garbled by a collision; its sources and rates are there.
* Bit anticollision picks, where the UIDs first differ (bits in air order:
  cascade-level bytes in order, least significant bit first), the tag sending
  a 1 (NXP's reader reference code does so; the PN532 manual does not say).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence

from drivers.nfc.pn532sim.noise import QUIET, Garble, Noise, NoiseDraws
from drivers.nfc.pn532sim.ntag213 import Ntag213

DEFAULT_DEPTH = 2
"""Tags of a stack a simulated pad reads by default (the poker-table builders' "up to 2")."""
DEFAULT_MISS = 0.01
"""Default probability that a stacked tag misses one poll (an assumption: small)."""


class Field:
    """The tags on one pad, bottom of the stack first, and which of them hear the reader.

    Not thread-safe: its owner (the simulator) holds a lock around it.

    :param depth: how many tags of the stack couple to the antenna, counted
        from the bottom; the tags above answer nothing.
    :param miss: probability that a coupled tag of a stack (two tags or more)
        stays silent for one field period (0 to 1).
    :param seed: seeds the draws of those misses and of the noise (the same polls give the
        same misses).
    :param noise: the radio's noise (:mod:`~drivers.nfc.pn532sim.noise`; none by default).
    :param clock: seconds (monotonic): when each tag was laid, for the noise of its first moments.
    :raises ValueError: ``depth`` below 1 or ``miss`` outside 0..1.
    """

    def __init__(self, *, depth: int = DEFAULT_DEPTH, miss: float = DEFAULT_MISS, seed: int = 0,
                 noise: Noise = QUIET, clock: Callable[[], float] = time.monotonic) -> None:
        if depth < 1:
            raise ValueError(f"a pad reads at least 1 tag deep, not {depth}")
        if not 0.0 <= miss <= 1.0:
            raise ValueError(f"miss is a probability (0 to 1), not {miss}")
        self.stack: list[Ntag213] = []
        """The tags on the pad, bottom (cloth side) first."""
        self._depth = depth
        self.miss = miss
        self._rng = random.Random(seed)
        self._period_polled = False
        self._period_missed: set[int] = set()
        self._period_silenced: set[int] = set()
        self.hidden: dict[int, int] = {}
        """id(tag) → number of coming field periods with a poll the tag misses."""
        self.misses = 0
        """Random misses drawn so far (a stacked tag silent for a field period)."""
        self.noise = NoiseDraws(noise, seed=seed)
        """The noise's draws and counts."""
        self._clock = clock
        self._laid: dict[int, float] = {}  # id(tag) → when it was laid
        self.forced: list[Garble | None] = []
        """What the noise does to the next answers, first first (a test's faults on demand)."""

    # -- the stack -------------------------------------------------------------

    @property
    def depth(self) -> int:
        """How many tags of the stack couple to the antenna, from the bottom."""
        return self._depth

    @depth.setter
    def depth(self, value: int) -> None:
        if value < 1:
            raise ValueError(f"a pad reads at least 1 tag deep, not {value}")
        self._depth = value

    def coupled(self) -> Sequence[Ntag213]:
        """The tags coupled to the antenna (the lowest :attr:`depth`), bottom first."""
        return self.stack[: self._depth]

    @property
    def stacked(self) -> bool:
        """Whether the pad holds two tags or more (their coupling is then shaky)."""
        return len(self.stack) > 1

    def lay(self, tag: Ntag213) -> None:
        """Lay ``tag`` on top of the stack (a tag already on the pad stays where it is)."""
        if all(t is not tag for t in self.stack):
            tag.state = "idle"
            self.stack.append(tag)
            self._laid[id(tag)] = self._clock()

    def take(self, key: str) -> Ntag213:
        """Take the tag with UID ``key`` from wherever it lies in the stack.

        :raises KeyError: the tag is not on the pad.
        """
        for index, tag in enumerate(self.stack):
            if tag.uid_hex == key:
                del self.stack[index]
                tag.state = "idle"
                return tag
        raise KeyError(f"tag {key} is not on the pad")

    def lift_top(self) -> Ntag213:
        """Lift the top tag of the stack.

        :raises KeyError: the pad is empty.
        """
        if not self.stack:
            raise KeyError("the pad is empty")
        tag = self.stack.pop()
        tag.state = "idle"
        return tag

    def lift_all(self) -> list[Ntag213]:
        """Lift the whole stack; the tags lifted, bottom first."""
        lifted, self.stack = self.stack, []
        for tag in lifted:
            tag.state = "idle"
        return lifted

    def flicker(self, key: str, polls: int) -> None:
        """Let the tag with UID ``key`` miss the next ``polls`` polls.

        :raises KeyError: the tag is not on the pad.
        """
        tag = next((t for t in self.stack if t.uid_hex == key), None)
        if tag is None:
            raise KeyError(f"tag {key} is not on the pad")
        self.hidden[id(tag)] = polls

    def answer_noise(self, tag: Ntag213) -> Garble | None:
        """What the noise does to ``tag``'s answer now (``None``: it comes through)."""
        if self.forced:
            return self.forced.pop(0)
        if self.noise.noise.quiet:
            return None
        below = next((i for i, t in enumerate(self.stack) if t is tag), 0)
        laid = self._laid.get(id(tag))
        settling = laid is not None and self._clock() - laid < self.noise.noise.settling
        return self.noise.answer(below=below, settling=settling)

    # -- polls and misses --------------------------------------------------------

    def power_off(self) -> None:
        """The reader's field went off: every coupled tag loses power and its state.

        A poll ends (see :meth:`end_poll`).
        """
        for tag in self.coupled():
            tag.state = "idle"
        self.end_poll()

    def end_poll(self) -> None:
        """A poll is over: the field went off, or a listing found nothing.

        A flickering tag has missed one more poll; the random misses are drawn
        anew at the next poll.
        """
        for key in self._period_silenced:
            if key in self.hidden:
                self.hidden[key] -= 1
                if self.hidden[key] <= 0:
                    del self.hidden[key]
        self._period_polled = False
        self._period_missed = set()
        self._period_silenced = set()

    def begin_poll(self) -> None:
        """The first poll of a field period: draw which stacked tags miss it."""
        if self._period_polled:
            return
        self._period_polled = True
        if self.miss > 0 and self.stacked:
            for tag in self.coupled():
                if self._rng.random() < self.miss:
                    self._period_missed.add(id(tag))
                    self.misses += 1

    def silent(self, tag: Ntag213) -> bool:
        """Whether ``tag`` misses this poll (flickering, or a random miss)."""
        if self.hidden.get(id(tag), 0) > 0:
            self._period_silenced.add(id(tag))  # it missed this poll
            return True
        return id(tag) in self._period_missed

    def hears(self, tag: Ntag213) -> bool:
        """Whether ``tag`` answers the reader now: coupled and not missing this poll."""
        return not self.silent(tag) and any(t is tag for t in self.coupled())

    def reqa(self, *, wake_up: bool = False) -> list[Ntag213]:
        """A REQA (or a WUPA with ``wake_up``) sent to the field: the tags that answer.

        Only tags coupled to the antenna and not missing this poll hear it.
        """
        self.begin_poll()
        answered = []
        for tag in self.coupled():
            if self.silent(tag):
                continue
            if (tag.wupa() if wake_up else tag.reqa()) is not None:
                answered.append(tag)
        return answered


# -- anticollision -------------------------------------------------------------


def _bit_reversed(octet: int) -> int:
    return int(f"{octet:08b}"[::-1], 2)


def _cascade_bytes(uid: bytes) -> bytes:
    """The UID bytes in the order anticollision sends them (cascade tags in)."""
    if len(uid) == 4:
        return uid
    if len(uid) == 7:
        return b"\x88" + uid[:3] + uid[3:]
    return b"\x88" + uid[:3] + b"\x88" + uid[3:6] + uid[6:]


def cascade_levels(uid: bytes) -> list[bytes]:
    """The UID as SELECT sends it, one 4-byte cascade level each, cascade tags (``88``) in.

    >>> [level.hex(" ") for level in cascade_levels(bytes.fromhex("04A224B2C31D80"))]
    ['88 04 a2 24', 'b2 c3 1d 80']
    """
    sent = _cascade_bytes(uid)
    return [sent[at : at + 4] for at in range(0, len(sent), 4)]


def names(uid: bytes, initiator_data: bytes) -> bool:
    """Whether InListPassiveTarget's InitiatorData names the tag ``uid`` (106 kbps type A).

    The PN532 takes InitiatorData as the UID "or part of it", cascade level by cascade
    level, with the cascade tag ``CT`` (``88``) of a cascaded level in it (UM0701-02,
    §7.3.5 InListPassiveTarget, 106 kbps type A; ISO/IEC 14443-3, *Anticollision and
    select*: a 7-byte UID's first level is ``CT UID0 UID1 UID2``; nfcpy's ``sense_tta``
    sends ``88`` before a 7-byte UID). So each whole 4-byte level given must be the
    tag's own; a level left out is settled by anticollision. A bare 7-byte UID names
    nothing: its first four bytes are not a 7-byte tag's first level (that starts with
    ``88``), and it is no whole number of levels. Assumption: the chip then selects
    nothing (the manual does not say what it does with a partial level).

    >>> names(bytes.fromhex("04A224B2C31D80"), bytes.fromhex("8804A224B2C31D80"))
    True
    >>> names(bytes.fromhex("04A224B2C31D80"), bytes.fromhex("04A224B2C31D80"))
    False
    """
    if not initiator_data or len(initiator_data) % 4:
        return False
    given = [initiator_data[at : at + 4] for at in range(0, len(initiator_data), 4)]
    levels = cascade_levels(uid)
    return len(given) <= len(levels) and all(a == b for a, b in zip(given, levels, strict=False))


def anticollision_order(tags: Sequence[Ntag213]) -> list[Ntag213]:
    """``tags`` in the order bit anticollision selects them (winner first).

    At the first bit (in air order) where they differ the tag sending 1 wins.
    """
    return sorted(
        tags,
        key=lambda tag: bytes(_bit_reversed(b) for b in _cascade_bytes(tag.uid)),
        reverse=True,
    )
