"""What the table says: the referee's outcomes as sentences, one :class:`Announcement` each.

Pure (no thread, no sound): :class:`Announcer` takes each :class:`~firmware_host.referee.snapshot.Outcome`
the service publishes, as every output does, and gives the announcements it causes, in the
table's language (or the one chosen at the table). It says only what a spectator may know:
the same event kinds as the page (:data:`firmware_host.screens.public_faults.PUBLIC_EVENTS`), and a fault's card only
when it lies face up (:func:`firmware_host.screens.public_faults.fault_face_up`), the fault and its remedy in the
OLED's own words (:func:`firmware_host.screens.public_faults.public_fault`). ``hand_record``, the one event that
names the hidden cards, is never said.

``verbosity``: ``full`` says every bid, card and trick; ``brief`` only the trump, the faults,
the king, the hand's result and score and the game's end.

    >>> from firmware_host.referee.controller import Controller
    >>> from firmware_host.referee.transcript import CardEvent, Setup
    >>> table, voice = Controller(), Announcer("en")
    >>> _ = table.handle(Setup(rules="classic", dealer="A", players=("Anne", "Bruno")))
    >>> for i, c in enumerate(["7S", "8S", "9S", "TS", "AS", "KH", "QH", "JH", "AH", "TH"]):
    ...     _ = table.handle(CardEvent("hand.B" if i < 5 else "hand.A", c))
    >>> [a.text for a in voice.take(table.handle(CardEvent("turnup", "KD")))]
    ['Hand 1. Anne deals. The king of diamonds is turned up: diamonds are trumps.', \
'Anne has the king of trumps: one point. Score: Anne 1, Bruno 0.']
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from catalogue import say_n, zones
from engine import (
    Bid,
    DealerChosen,
    Event,
    Fault,
    GameEnd,
    HandEnd,
    King,
    Offer,
    Penalty,
    Played,
    TargetSet,
    Trick,
    Trump,
)
from engine.events import Exchanged, HandReplayed, MatchEnd, PlayBegins
from engine.faults import FaultCode
from engine.rules import RULE_SETS
from engine.scoring import trick_points
from engine.seats import PerSeat
from engine.state import Phase
from firmware_host.referee import Corrected, NewGame, Outcome, ReaderState, TableSnapshot
from firmware_host.screens.chooser import reason_id
from firmware_host.screens.i18n import language as table_language
from firmware_host.screens.i18n import worded, words
from firmware_host.screens.public_faults import PUBLIC_EVENTS, fault_face_up, public_fault
from firmware_host.voice.spoken import Spoken, spoken
from hardware.table_config import VERBOSITIES

__all__ = ["BRIEF_KINDS", "VERBOSITIES", "Announcement", "Announcer"]

BRIEF_KINDS = frozenset({"trump", "fault", "king", "penalty", "hand_end", "game_end", "match_end", "reader",
                         "replay_hand"})
"""What ``brief`` says: the trump, the faults, the score (the king, penalties, the hand's end)
and the game's end; and what stops the table (a reader offline, a hand played again)."""


@dataclass(frozen=True, slots=True)
class Announcement:
    """One thing the table says.

    :param text: the words.
    :param kind: the event kind it says (``play``, ``fault``...).
    :param lang: its language.
    :param hand: ``(game, hand)`` it belongs to: an announcement of an earlier hand still
        queued when the next hand's first is is cut short.
    :param t: when it was made (the caller's clock: ``time.monotonic`` in the service).
    """

    text: str
    kind: str
    lang: str = "en"
    hand: tuple[int, int] = (1, 1)
    t: float = 0.0


class Announcer:
    """Turns outcomes into announcements (see the module)."""

    def __init__(self, lang: str = "en", verbosity: str = "full") -> None:
        if verbosity not in VERBOSITIES:
            raise ValueError(f"verbosity: one of {', '.join(VERBOSITIES)}, not {verbosity!r}")
        self.lang = table_language(lang)
        self.verbosity = verbosity
        self._drawn: tuple[str, str, tuple[int, int]] | None = None
        """Under partial sight, during an exchange: the elder, the dealer and the replacements each seat was
        seen to draw."""

    def take(self, outcome: Outcome, t: float = 0.0) -> list[Announcement]:
        """The announcements of one outcome, in the order of its events (before them, under partial
        sight, the exchange the table saw end: see :meth:`_exchanged`)."""
        snapshot = outcome.snapshot
        said = self._said(snapshot)
        out: list[Announcement] = []
        hand = (snapshot.game, snapshot.hand_no)
        if self.verbosity != "brief":
            out.extend(Announcement(text, "exchange", said.lang, hand, t) for text in self._exchanged(said))
        for event in outcome.events:
            kind = event.event
            if kind not in PUBLIC_EVENTS:
                continue  # hand_record (the hidden cards) and whatever a spectator may not know
            if self.verbosity == "brief" and kind not in BRIEF_KINDS:
                continue
            text = said.event(event, outcome)
            if text:
                out.append(Announcement(text, kind, said.lang, hand, t))
        return out

    def _exchanged(self, said: _Said) -> list[str]:
        """Under partial sight the engine counts no exchange (its pads read a stack from the cloth
        up to their depth, so neither the discards nor the replacements laid on a hand are all
        seen: no ``exchange`` event, docs/transcript.md *Partial sight*). When a round of exchange ends,
        who exchanged is said all the same, the elder first ("Bruno exchanges."), so that a player
        who cannot see the table knows it happened; how many is said only where the table counts
        it (full sight: the engine's ``exchange`` event, "Bruno exchanges 2."), never guessed. The
        dealer is said where the rules make him take a card (classic, 003: "el crupier también debe
        realizar un intercambio de al menos una carta") or the table saw one arrive."""
        snapshot = said.snapshot
        if snapshot.sight.mode != "partial":
            self._drawn = None
            return []
        if snapshot.phase == Phase.EXCHANGE:
            self._drawn = (snapshot.view.elder, snapshot.view.dealer, snapshot.sight.seen)
            return []
        drawn, self._drawn = self._drawn, None
        if drawn is None or snapshot.phase not in (Phase.PROPOSE, Phase.RESPOND, Phase.FORCE, Phase.PLAY):
            return []  # no round ended, or the deal was void
        elder, dealer, seen = drawn
        ruleset = RULE_SETS.get(snapshot.view.rules.split("(")[0])
        must = ruleset is None or ruleset.dealer_discard[0] > 0
        said_seats = [elder] + ([dealer] if must or seen[0 if dealer == "A" else 1] else [])
        return [said.s.say("exchange_uncounted", who=said.who(seat)) for seat in said_seats]

    def waiting(self, snapshot: TableSnapshot) -> str | None:
        """What the table waits for, in words (the OLED's prompt, or the last fault to put right),
        said after a repeated announcement."""
        said = self._said(snapshot)
        if snapshot.faults:
            return said.fault(snapshot.faults[-1])
        prompt = snapshot.prompt
        if not prompt.key or prompt.key == "over":
            return None
        text = worded(prompt, said.lang, said.names.get(prompt.seat) if prompt.seat else None).text
        text = _capital(said.s.cards_said(text).strip())
        return text if text.endswith(("?", ".", "!")) else f"{text}."

    def _said(self, snapshot: TableSnapshot) -> _Said:
        """The sentences of ``snapshot``'s events, in the language chosen at the table, else the announcer's."""
        lang = table_language(snapshot.language) if snapshot.language is not None else self.lang
        return _Said(snapshot, spoken(lang), lang)


MAX_SPOKEN = 16
"""The most characters of a name the voice says (the OLED, the page and the journal keep it whole)."""

MAX_DIGITS_SPOKEN = 4
"""The most digits of a run of digits the voice says, one by one."""


def spoken_name(name: str | None) -> str:
    """A name as the voice says it, at a bounded cost: at most :data:`MAX_SPOKEN` characters (cut at a
    space or hyphen where one is near), a run of digits said digit by digit and cut to
    :data:`MAX_DIGITS_SPOKEN` (espeak-ng read a name of 24 digits as a number of septillions, 13.5 s),
    and no character that stands for a phrase (a ligature whose compatibility form is three or more
    characters: U+FDFA was said as a blessing of 10–17 s, in every announcement naming the player).
    Empty when nothing of it can be said (the caller says the seat's letter).

        >>> spoken_name("Anne"), spoken_name("123456789012345678901234"), spoken_name("\ufdfaBob")
        ('Anne', '1 2 3 4', 'Bob')
        >>> spoken_name("Marie-Christine Dubois")
        'Marie-Christine'
    """
    if not name:
        return ""
    kept = "".join(c for c in unicodedata.normalize("NFC", name) if len(unicodedata.normalize("NFKC", c)) < 3)
    if len(kept) > MAX_SPOKEN:
        cut = max(kept.rfind(" ", 0, MAX_SPOKEN + 1), kept.rfind("-", 0, MAX_SPOKEN + 1))
        kept = kept[:cut] if cut >= MAX_SPOKEN // 2 else kept[:MAX_SPOKEN]
    said = re.sub(r"\d+", lambda run: " ".join(run.group()[:MAX_DIGITS_SPOKEN]), kept)
    return " ".join(said.split())


class _Said:
    """The sentences of one snapshot's events."""

    def __init__(self, snapshot: TableSnapshot, say: Spoken, lang: str) -> None:
        self.snapshot = snapshot
        self.s = say
        self.lang = lang
        names = PerSeat.of(snapshot.players[:2])
        # a seat with no name is its letter; a name is said as :func:`spoken_name` bounds it
        self.names = PerSeat(spoken_name(names.a) or "A", spoken_name(names.b) or "B").to_json()

    def who(self, seat: str | None) -> str:
        return self.names.get(seat or "", "") or words(self.lang).say("table")

    def score(self, score: tuple[int, int]) -> dict[str, object]:
        return {"a": self.names["A"], "b": self.names["B"], "sa": score[0], "sb": score[1]}

    def event(self, event: Event, outcome: Outcome) -> str | None:
        s, view = self.s, self.snapshot.view
        if isinstance(event, Fault):
            return self.fault(event, penalised=any(isinstance(e, Penalty) and e.seat == event.seat
                                                   for e in outcome.events))
        if isinstance(event, Trump):
            return s.say("trump", hand=self.snapshot.hand_no, dealer=self.who(view.dealer),
                         card=s.card(str(event.card)), suit=s.suit(event.card.suit))
        if isinstance(event, DealerChosen):
            # the cut's winner: the trump's sentence says who deals ("Hand 1. Anne deals."), said once; a dealer
            # known from the first card dealt (no cut) is left to it
            if not event.seat:
                return f"{_capital(words(self.lang).say('cut_again'))}."
            return s.say("dealer", who=self.who(event.seat)) if event.cut else None
        if isinstance(event, TargetSet):
            return s.say("target", n=event.target)
        if isinstance(event, Bid):
            if event.bid == "stand" and not event.vulnerable:
                # the elder proposes no more after an exchange: play begins, nobody plays d'autorité
                return s.say("stand_after", who=self.who(event.seat))
            text = s.say(event.bid, who=self.who(event.seat))
            return f"{text} {s.say('vulnerable', who=self.who(event.seat))}" if event.vulnerable else text
        if isinstance(event, Exchanged):
            return s.say("exchange", who=self.who(event.seat), n=event.count) if event.count else s.say(
                "exchange_none", who=self.who(event.seat))
        if isinstance(event, PlayBegins):
            return s.say("play_begins", who=self.who(event.leader))
        if isinstance(event, Played):
            return s.say("play", who=self.who(event.seat), card=s.card(str(event.card)))
        if isinstance(event, Trick):
            tricks = next((e.tricks for e in outcome.events if isinstance(e, HandEnd)), view.tricks)
            return s.say("trick", who=self.who(event.winner), a=self.names["A"], b=self.names["B"],
                         ta=tricks[0], tb=tricks[1])
        if isinstance(event, King):
            return f"{s.say('king', who=self.who(event.seat))} {self.said_score(event.score)}"
        if isinstance(event, Offer):
            if event.accepted is None:
                return s.say(f"offer_{event.offer}", who=self.who(event.seat))
            return s.say("offer_yes" if event.accepted else "offer_no", who=self.who(event.seat))
        if isinstance(event, Penalty):
            # the event's points are the change (negative): the sentence says what is lost
            return s.say("penalty", who=self.who(event.seat), n=-event.points,
                         why=words(self.lang).say(reason_id(event.reason)))
        if isinstance(event, HandEnd):
            return self.hand_end(event)
        if isinstance(event, GameEnd):
            won = event.score[0 if event.winner == "A" else 1]
            return s.say("game_end", who=self.who(event.winner), hi=won, lo=sum(event.score) - won)
        if isinstance(event, MatchEnd):
            return s.say("match_end", who=self.who(event.winner))
        if isinstance(event, HandReplayed):
            # played again, the hand keeps its kings and undoes its penalties: the score is said anew
            return f"{s.say('replay_hand')} {self.said_score(view.score)}"
        if isinstance(event, NewGame):
            return s.say("new_game")
        if isinstance(event, Corrected):
            return s.say("corrected")
        if isinstance(event, ReaderState):
            w = words(self.lang)
            return None if event.online else f"{_capital(w.say('offline', zones=zones(self.lang, [event.zone])))}. " \
                f"{_capital(w.say('offline_do'))}."
        return None

    def said_score(self, score: tuple[int, int]) -> str:
        """The score, said after every change of it."""
        return self.s.say("score", **self.score(score))

    def hand_end(self, event: HandEnd) -> str:
        """Who won the tricks, what the tricks scored each seat, and the score. The hand's kings
        and penalties were said, with the score, when they were scored: said again in the
        hand's points they would count twice for whoever adds up."""
        s = self.s
        points = trick_points(event, self.snapshot.hand_notes)
        ta, tb = event.tricks
        # the seat the tricks scored most (a point offered and accepted ends the hand early)
        winner = "A" if (points[0], ta) > (points[1], tb) else "B"
        mine, theirs = (ta, tb) if winner == "A" else (tb, ta)
        parts = [s.say("hand_end", who=self.who(winner), hi=mine, lo=theirs)]
        order = ("A", "B") if winner == "A" else ("B", "A")
        for seat in order:
            n = points[0 if seat == "A" else 1]
            if n:
                parts.append(s.say("gains" if n > 0 else "loses", who=self.who(seat), n=abs(n),
                                   points=say_n(self.lang, "count.points", abs(n))))
        if not any(points):
            parts.append(s.say("no_points"))
        parts.append(self.said_score(event.score))
        return " ".join(parts)

    def fault(self, fault: Fault, penalised: bool = False) -> str:
        """What went wrong and what to do, in the OLED's words (a hidden card left out).

        A fault proven late says its offender, then the point a false king loses and the score,
        then who chooses between playing the hand again and playing on, once, in the voice's own
        words (the OLED's "A: yes replay, no play on" is too short to be heard right)."""
        face_up = fault_face_up(fault, self.snapshot)
        said = public_fault(fault, face_up, self.snapshot, self.lang)["said"]
        if fault.late:
            parts = [self.s.cards_said(str(said["what"]))]
            tail = []
            if fault.code == FaultCode.FALSE_KING:
                tail.append(self.s.say("king_back", who=self.who(fault.seat)))
                tail.append(self.said_score(self.snapshot.view.score))
            if self.snapshot.choosing is not None:
                tail.append(self.s.say("choose", who=self.who(self.snapshot.choosing)))
            return " ".join([*(f"{_capital(p.strip())}." for p in parts if p.strip()), *tail])
        do = str(said["do"])
        if penalised and fault.card is not None and face_up:
            # the penalty is said by its own event, with the score: not a second time here
            w = words(self.lang)
            do = w.say("take_back", card=w.card(str(fault.card)))
        parts = [self.s.cards_said(p) for p in (str(said["what"]), do)]
        return " ".join(f"{_capital(p.strip())}." for p in parts if p.strip())


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]
