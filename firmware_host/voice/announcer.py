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

from dataclasses import dataclass

from catalogue import zones
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
from firmware_host.referee.snapshot import Outcome, TableSnapshot
from firmware_host.referee.table_events import Corrected, NewGame, ReaderState
from firmware_host.screens.i18n import language as table_language
from firmware_host.screens.i18n import worded, words
from firmware_host.screens.public_faults import PUBLIC_EVENTS, fault_face_up, public_fault, redact
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

    def take(self, outcome: Outcome, t: float = 0.0) -> list[Announcement]:
        """The announcements of one outcome, in the order of its events."""
        snapshot = outcome.snapshot
        said = self._said(snapshot)
        out: list[Announcement] = []
        for event in outcome.events:
            kind = event.event
            if kind not in PUBLIC_EVENTS:
                continue  # hand_record (the hidden cards) and whatever a spectator may not know
            if self.verbosity == "brief" and kind not in BRIEF_KINDS:
                continue
            text = said.event(event, outcome)
            if text:
                out.append(Announcement(text, kind, said.lang, (snapshot.game, snapshot.hand_no), t))
        return out

    def waiting(self, snapshot: TableSnapshot) -> str | None:
        """What the table waits for, in words (the OLED's prompt, or the last fault to put right),
        said after a repeated announcement."""
        said = self._said(snapshot)
        if snapshot.faults:
            return said.fault(snapshot.faults[-1])
        prompt = snapshot.prompt
        if not prompt.key or prompt.key == "over":
            return None
        text = redact(worded(prompt, said.lang, said.names.get(prompt.seat) if prompt.seat else None).text)
        text = _capital(said.s.cards_said(text).strip())
        return text if text.endswith(("?", ".", "!")) else f"{text}."

    def _said(self, snapshot: TableSnapshot) -> _Said:
        """The sentences of ``snapshot``'s events, in the language chosen at the table, else the announcer's."""
        lang = table_language(snapshot.language) if snapshot.language is not None else self.lang
        return _Said(snapshot, spoken(lang), lang)


class _Said:
    """The sentences of one snapshot's events."""

    def __init__(self, snapshot: TableSnapshot, say: Spoken, lang: str) -> None:
        self.snapshot = snapshot
        self.s = say
        self.lang = lang
        names = snapshot.players
        self.names = {"A": names[0] or "A", "B": names[1] or "B"}

    def who(self, seat: str | None) -> str:
        return self.names.get(seat or "", "") or words(self.lang).say("table")

    def score(self, score: tuple[int, int]) -> dict[str, object]:
        return {"a": self.names["A"], "b": self.names["B"], "sa": score[0], "sb": score[1]}

    def event(self, event: Event, outcome: Outcome) -> str | None:
        s, view = self.s, self.snapshot.view
        if isinstance(event, Fault):
            return self.fault(event)
        if isinstance(event, Trump):
            return s.say("trump", hand=self.snapshot.hand_no, dealer=self.who(view.dealer),
                         card=s.card(str(event.card)), suit=s.suit(event.card.suit))
        if isinstance(event, DealerChosen):
            return s.say("dealer", who=self.who(event.seat)) if event.seat else \
                f"{_capital(words(self.lang).say('cut_again'))}."
        if isinstance(event, TargetSet):
            return s.say("target", n=event.target)
        if isinstance(event, Bid):
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
            return s.say("king", who=self.who(event.seat), **self.score(event.score))
        if isinstance(event, Offer):
            if event.accepted is None:
                return s.say(f"offer_{event.offer}", who=self.who(event.seat))
            return s.say("offer_yes" if event.accepted else "offer_no", who=self.who(event.seat))
        if isinstance(event, Penalty):
            return s.say("penalty", who=self.who(event.seat), n=event.points,
                         why=words(self.lang).say("pen_" + event.reason))
        if isinstance(event, HandEnd):
            ta, tb = event.tricks
            winner = "A" if ta > tb else "B"
            return s.say("hand_end", who=self.who(winner), hi=max(ta, tb), lo=min(ta, tb),
                         n=event.points[0 if winner == "A" else 1], **self.score(event.score))
        if isinstance(event, GameEnd):
            won = event.score[0 if event.winner == "A" else 1]
            return s.say("game_end", who=self.who(event.winner), hi=won, lo=sum(event.score) - won)
        if isinstance(event, MatchEnd):
            return s.say("match_end", who=self.who(event.winner))
        if isinstance(event, HandReplayed):
            return s.say("replay_hand")
        if isinstance(event, NewGame):
            return s.say("new_game")
        if isinstance(event, Corrected):
            return s.say("corrected")
        if isinstance(event, ReaderState):
            w = words(self.lang)
            return None if event.online else f"{_capital(w.say('offline', zones=zones(self.lang, [event.zone])))}. " \
                f"{_capital(w.say('offline_do'))}."
        return None

    def fault(self, fault: Fault) -> str:
        """What went wrong and what to do, in the OLED's words (a hidden card left out)."""
        face_up = fault_face_up(fault, self.snapshot)
        said = public_fault(fault, face_up, self.snapshot, self.lang)["said"]
        parts = [self.s.cards_said(str(said[key])) for key in ("what", "do")]
        return " ".join(f"{_capital(p.strip())}." for p in parts if p.strip())


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]
