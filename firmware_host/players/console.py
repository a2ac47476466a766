"""``ecarte-table sim``: type the table's events, watch the OLED.

Lines understood (one event a line; ``help`` lists them):

- ``A yes`` / ``B no`` / ``A king``: a button;
- ``A plays KS``, ``B discards 7H``, ``A draws 9C``, ``B gets QD`` (dealt), ``turn 9D``:
  a card on the pad that act uses;
- ``hand.A KS``, ``play.B 7S``, ``play.B 7S gone``: a card on (or off) a pad;
- ``deal``: the dealer deals a random hand (``--seed``);
- a transcript line in JSON (a ``#`` line is a comment); ``state``; ``quit``.

The simulator is a bench, not a table: after each line it shows each seat's own hand (the
cards typed or dealt onto its hand pad, less those played or discarded), says why a line
changed nothing (a card already on that pad, an event the table had no use for), and
suggests the nearest command for a line it cannot read.

What it prints is in the table's language (``sim --language``, from the catalogue's ``sim.*``);
the typed commands (``A plays KS``) are the command line's, in every language; ``state`` prints the
snapshot's JSON (the protocol).
"""

from __future__ import annotations

import difflib
import json
import random
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

import engine
from catalogue import card_words, has, rule_set, say, say_n, say_or, zones
from engine import NotationError
from engine.cards import ACE_HIGH, CARDS, SUITS
from engine.random_play import random_deal
from engine.seats import SEATS
from engine.state import Phase
from firmware_host.errors import BadInput
from firmware_host.journal.store import REJECTED, Journal, JournalError, default_journal
from firmware_host.outputs import deliver
from firmware_host.referee import (
    ButtonEvent,
    CardEvent,
    Controller,
    Notice,
    Outcome,
    PhysicalEvent,
    TableSnapshot,
    TranscriptError,
    dumps,
    message,
    parse_line,
    physical_events,
)
from firmware_host.screens.chooser import fault_screen, reason_id
from firmware_host.screens.i18n import worded
from hardware.layout import ZONES, Zone, ZoneKind

if TYPE_CHECKING:
    from firmware_host.outputs import TableOutput
    from firmware_host.screens.panel import Panel

_ZONE_OF_VERB: dict[str, Callable[[str], Zone]] = {"plays": Zone.play, "discards": lambda _seat: Zone.DISCARD,
                                                   "draws": Zone.hand, "gets": Zone.hand}
_BUTTONS = ("yes", "no", "king")
_LOW_TO_HIGH = ACE_HIGH.order[::-1]
"""The ranks as a pack's pips are told, seven to ace."""
_TURN, _DEAL, _GONE, _HELP, _STATE, _QUIT = "turn", "deal", "gone", "help", "state", "quit"
"""The typed commands' words (the command line's, in every language)."""


def help_text(lang: str = "en") -> str:
    """The lines the console understands, in ``lang`` (``help``), each command shown as it is typed."""
    def typed(*words: str) -> str:
        return f"`{' '.join(words)}`"

    buttons = " / ".join(typed(seat, button) for seat, button in zip("ABA", _BUTTONS, strict=True))
    shown = zip("ABAB", _ZONE_OF_VERB, ("KS", "7H", "9C", "QD"), strict=True)
    cards = ", ".join([*(typed(seat, verb, card) for seat, verb, card in shown), typed(_TURN, "9D")])
    pads = ", ".join((typed("hand.A", "KS"), typed("play.B", "7S"), typed("play.B", "7S", _GONE)))
    return "\n".join([say(lang, "sim.help_head", help=typed(_HELP)), "",
                      "  " + say(lang, "sim.help_buttons", example=buttons),
                      "  " + say(lang, "sim.help_cards", example=cards),
                      *(["  " + say(lang, "sim.help_local", example=typed("A", say(lang, "sim.typed.plays"),
                                                                           _local_example(lang)),
                                    suits=", ".join(f"{v} ({say(lang, 'voice.suit.' + s)})"
                                                    for s, v in suit_letters(lang).items()))]
                        if lang != "en" else []),
                      "  " + say(lang, "sim.help_pads", example=pads),
                      "  " + say(lang, "sim.help_deal", example=typed(_DEAL)),
                      "  " + say(lang, "sim.help_rest", state=typed(_STATE), quit=typed(_QUIT)), "",
                      say(lang, "sim.help_bench")])


def _local_example(lang: str) -> str:
    """The king of spades as ``lang`` types it with letters (``RP``)."""
    return card_words(lang, "KS")[:-1] + suit_letters(lang)["S"]


def _card_code(word: str, text: str, lang: str) -> str:
    """A typed card's code (``KS``): the code, or the card as ``lang`` prints it (``D♠``, the French
    queen; ``Q♠`` in Spanish; ``10♦``), as the bench shows it, or with its suit's letters in place of the
    symbol, which a French, Italian or Spanish keyboard cannot type (``RP``: the French king of spades;
    ``RCO``, ``RCA``: of hearts and of diamonds, whose names share their first letter; :func:`suit_letters`).
    A word that is a code is the code's card (in French ``D`` prints the queen, but ``KD`` types the king of
    diamonds; in Spanish ``JC`` is the code's jack of clubs, the *sota de corazones* is ``JCO`` or ``J♥``).

    :raises NotationError: not a card, said in ``lang`` with the letters it takes."""
    printed = _printed_cards(lang)
    if word.upper() in printed:
        return printed[word.upper()]
    try:
        return str(engine.Card.parse(word))
    except (NotationError, ValueError):
        local = _lettered_cards(lang).get(_plain(word))
        if local is not None:
            return local
        raise NotationError(say(lang, "sim.not_a_card", line=repr(text), card=repr(word))
                            + _local_hint(lang)) from None


def _plain(word: str) -> str:
    """``word`` in capitals without its accents (``cœur`` → ``COEUR``, ``tréboles`` → ``TREBOLES``)."""
    import unicodedata

    decomposed = unicodedata.normalize("NFKD", word.upper().replace("Œ", "OE"))
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def suit_letters(lang: str) -> dict[str, str]:
    """Each suit (``S``...) → the letters ``lang`` types it with: the shortest start of its name no other
    suit's name shares (French ``P``, ``CO``, ``CA``, ``T``; German ``P``, ``H``, ``KA``, ``KR``: Karo's and
    Kreuz's K is no suit alone)::

        >>> suit_letters("fr"), suit_letters("it")
        ({'S': 'P', 'H': 'CO', 'D': 'CA', 'C': 'T'}, {'S': 'P', 'H': 'C', 'D': 'Q', 'C': 'F'})
    """
    names = {suit: _plain(say(lang, "voice.suit." + suit)) for suit in SUITS}
    out = {}
    for suit, name in names.items():
        size = 1
        while size < len(name) and any(other.startswith(name[:size]) for s, other in names.items() if s != suit):
            size += 1
        out[suit] = name[:size]
    return out


def _lettered_cards(lang: str) -> dict[str, str]:
    """Each card as ``lang`` prints its rank, then its suit's letters (``RP``, ``10CA``; a longer start of the
    suit's name too, ``RPIQUE``, ``JCO``) → its code; none in English, whose letters are the codes."""
    if lang == "en":
        return {}
    out = {}
    for suit, letters in suit_letters(lang).items():
        name = _plain(say(lang, "voice.suit." + suit))
        for size in range(len(letters), len(name) + 1):
            for rank in _LOW_TO_HIGH:
                out[_plain(card_words(lang, rank + suit)[:-1]) + name[:size]] = rank + suit
    return out


def _local_hint(lang: str) -> str:
    """What a refusal adds in a language other than English: the table's own ranks and suits' letters."""
    if lang == "en":
        return ""
    letters = suit_letters(lang)
    ranks = " ".join(card_words(lang, rank + "S")[:-1] for rank in _LOW_TO_HIGH)
    suits = ", ".join(f"{letters[s]} ({say(lang, 'voice.suit.' + s)})" for s in SUITS)
    return " " + say(lang, "sim.local_cards", ranks=ranks, suits=suits,
                     example=card_words(lang, "KS")[:-1] + letters["S"])


def _printed_cards(lang: str) -> dict[str, str]:
    """Each card as ``lang`` prints it (upper case) → its code."""
    return {card_words(lang, str(c)).upper(): str(c) for c in CARDS}


def _typed_verb(word: str, lang: str) -> str:
    """``lang``'s verb or button as typed (``joue``, ``juega``, ``oui``) → the command line's (``plays``,
    ``yes``); the command line's own as it is."""
    lowered = word.lower()
    for verb in _VERBS:
        if lowered == say(lang, "sim.typed." + verb).lower():
            return verb
    return word


def parse_sim_line(text: str, snapshot: TableSnapshot, rng: random.Random, lang: str = "en") -> list[PhysicalEvent]:
    """The physical events a typed line stands for, the table showing ``snapshot``.

    :raises NotationError: naming the line and what was expected, in ``lang`` (a transcript line's
        :class:`TranscriptError` in the protocol's English).
    """
    words = text.split()
    if not words:
        return []
    if text.lstrip().startswith("{"):
        event = parse_line(text, source="<typed>")
        return [event] if event is not None else []
    head = words[0]
    if head.lower() == _DEAL:
        view = snapshot.view
        if view.phase != Phase.DEAL or not snapshot.between_hands:
            raise NotationError(say(lang, "sim.deal_now", deal=repr(_DEAL), now=expected(snapshot, lang)))
        # nothing is dealt yet: a fresh hand with this dealer deals the same way
        fresh = engine.new_game(dealer=view.dealer)
        return physical_events(fresh, random_deal(fresh, rng))
    if head.lower() == _TURN and len(words) == 2:
        return [CardEvent(Zone.TURNUP, _card_code(words[1], text, lang))]
    if head in ZONES or (head == "centre" and len(words) >= 2):
        if len(words) not in (2, 3) or (len(words) == 3 and words[2] != _GONE):
            raise NotationError(say(lang, "sim.zone_line", line=repr(text), form=f"'<zone> <card> [{_GONE}]'"))
        return [CardEvent(Zone(head), _card_code(words[1], text, lang), gone=len(words) == 3)]
    seat = head.upper()
    if seat in SEATS and len(words) >= 2:
        words = [words[0], _typed_verb(words[1], lang), *words[2:]]
        words = [words[0], _nearest_verb(text, words, lang), *words[2:]]
    if seat in SEATS and len(words) == 2 and words[1].lower() in _BUTTONS:
        return [ButtonEvent(seat, words[1].lower())]
    if seat in SEATS and len(words) >= 3 and words[1].lower() in _ZONE_OF_VERB:
        zone = _ZONE_OF_VERB[words[1].lower()](seat)
        return [CardEvent(zone, _card_code(w, text, lang)) for w in words[2:]]
    raise NotationError(say(lang, "sim.cannot_read", line=repr(text), help=repr(_HELP)))


_VERBS = (*_BUTTONS, *_ZONE_OF_VERB)


def _nearest_verb(text: str, words: list[str], lang: str = "en") -> str:
    """The verb of ``A plays KS``; a near miss (``A play KS``) is refused with the nearest."""
    verb = words[1].lower()
    if verb in _VERBS:
        return verb
    close = difflib.get_close_matches(verb, _VERBS, n=1, cutoff=0.5)
    if close:
        raise NotationError(say(lang, "sim.did_you_mean", line=repr(text),
                                command=f"`{' '.join([words[0], close[0], *words[2:]])}`"))
    raise NotationError(say(lang, "sim.verbs", line=repr(text), verbs=", ".join(_VERBS)))


def expected(snapshot: TableSnapshot, lang: str = "en") -> str:
    """What the table waits for, in ``lang``: the last fault to put right (as the OLED words it,
    whole), else the prompt."""
    if snapshot.faults:
        return _fault_said(snapshot.faults[-1], snapshot, lang)
    return worded(snapshot.prompt, lang).text


def _fault_said(fault: engine.Fault, snapshot: TableSnapshot, lang: str) -> str:
    screen = fault_screen(fault, snapshot, lang, whole_names=True)
    return " · ".join(" ".join(part.split()) for part in (screen.headline, screen.detail) if part)


class Bench:
    """What the simulator's typist holds: each seat's own cards, and what lies on each pad."""

    def __init__(self) -> None:
        self.held: dict[str, list[str]] = {"A": [], "B": []}
        self.on_pad: dict[str, set[str]] = {}

    def refuse(self, event: PhysicalEvent, lang: str = "en") -> str | None:
        """Why ``event`` would change nothing on the pads (None: it would), in ``lang``."""
        if not isinstance(event, CardEvent) or event.card is None:
            return None
        here = self.on_pad.get(event.zone, set())
        if not event.gone and event.card in here:
            return say(lang, "sim.already_on", card=event.card, zone=event.zone,
                       lift=f"'{event.zone} {event.card} {_GONE}'")
        if event.gone and event.card not in here:
            return say(lang, "sim.not_on", card=event.card, zone=event.zone)
        return None

    def take(self, event: PhysicalEvent, verb_seat: str | None) -> None:
        if not isinstance(event, CardEvent) or event.card is None:
            return
        here = self.on_pad.setdefault(event.zone, set())
        if event.gone:
            here.discard(event.card)
            return
        here.add(event.card)
        kind = event.zone.kind
        zone_seat = event.zone.seat if kind in (ZoneKind.HAND, ZoneKind.PLAY) else None
        if kind == ZoneKind.HAND and zone_seat in self.held:
            if event.card not in self.held[zone_seat]:
                self.held[zone_seat].append(event.card)
        elif kind in (ZoneKind.PLAY, ZoneKind.DISCARD):
            for seat in ((zone_seat or verb_seat),) if (zone_seat or verb_seat) else SEATS:
                if seat in self.held and event.card in self.held[seat]:
                    self.held[seat].remove(event.card)

    def refused(self, event: PhysicalEvent, verb_seat: str | None) -> None:
        """The table refused the card: it goes back to its seat's hand once taken back."""
        if isinstance(event, CardEvent) and event.card is not None and event.zone.kind != ZoneKind.HAND:
            seat = event.zone.seat if event.zone.kind == ZoneKind.PLAY else verb_seat
            if seat in self.held and event.card not in self.held[seat]:
                self.held[seat].append(event.card)

    def new_deal(self) -> None:
        self.held = {"A": [], "B": []}
        self.on_pad = {}

    def hands(self, lang: str = "en") -> str:
        return "  ".join(say(lang, "sim.holds", seat=seat, cards=" ".join(card_words(lang, c) for c in cards))
                         if cards else say(lang, "sim.holds_nothing", seat=seat) for seat, cards in self.held.items())


def _value(value: Any) -> str:
    """A field's value: ``{'A': 1, 'B': 0}`` → ``A 1, B 0``; a list → its items."""
    if isinstance(value, dict):
        return ", ".join(f"{k} {_value(v)}" for k, v in value.items())
    if isinstance(value, list | tuple):
        return " ".join(_value(v) for v in value)
    return str(value)


def describe(event: engine.Event, journal: str | None = None, lang: str = "en",
             snapshot: TableSnapshot | None = None) -> str:
    """A table event as people read it, in ``lang``: words, never a Python dict (``journal``: where
    the hand records are kept, for the line that says so; ``snapshot``: the table after it, for a
    fault worded as the OLED words it)."""
    def card(code: object) -> str:
        return card_words(lang, str(engine.Card.parse(str(code)))) if code else say(lang, "sim.a_card")

    def fault_name(code: str) -> str:
        return say_or(lang, "fault." + code, code.replace("_", " "))

    data = event.to_json()
    kind = data.pop("event")
    seat = data.get("seat")
    if isinstance(event, engine.HandEnd):
        (ta, tb), (pa, pb), (sa, sb) = event.tricks, event.points, event.score
        return say(lang, "sim.hand_over", ta=ta, tb=tb, pa=pa, pb=pb, sa=sa, sb=sb)
    if isinstance(event, engine.GameEnd):
        return say(lang, "sim.game_over", who=event.winner, a=event.score[0], b=event.score[1])
    if isinstance(event, engine.MatchEnd):
        return say(lang, "sim.match_end", who=event.player or event.winner, a=event.games[0], b=event.games[1],
                   pa=event.points[0], pb=event.points[1])
    if isinstance(event, engine.Fault):
        what = (_fault_said(event, snapshot, lang) if snapshot is not None else fault_name(event.code))
        return (say(lang, "sim.fault_late", what=what, trick=event.trick) if event.late
                else say(lang, "sim.fault", what=what))
    if kind == "notice":
        # in English the notice's own words, as --json prints them; another language says its code's
        # words (the seat's, and what the table waits for)
        if lang == "en" and isinstance(event, Notice):
            return say(lang, "sim.notice", what=message(event))
        code = str(data.get("code", ""))
        parts = [fault_name(code)] if has("fault." + code) else []
        parts += [expected(snapshot, lang)] if snapshot is not None else []
        what = " · ".join(parts)
        return say(lang, "sim.notice", what=say(lang, "colon", label=seat, text=what) if seat else what) if what \
            else say(lang, "page.event_notice")
    if kind == "hand_record":
        where = f" --journal {journal}" if journal else ""
        return say(lang, "sim.recorded", hand=data.get("hand"), moves=len(data.get("actions", ())),
                   command=f"'ecarte-table export{where}'")
    if kind == "trump":
        return say(lang, "sim.trump", card=card(data["card"]))
    if kind == "king":
        return say(lang, "sim.king", seat=seat, score=_value(data["score"]))
    if kind == "play":
        return say(lang, "sim.play", seat=seat, card=card(data["card"]))
    if kind == "trick":
        return say(lang, "sim.trick", seat=data["winner"],
                   cards=", ".join(f"{s} {card(c)}" for s, c in data["cards"].items()))
    if kind == "bid":
        # a stand after an exchange is no stand d'autorité: the elder proposes no more, and play begins
        after = data["bid"] == "stand" and not data.get("vulnerable")
        bid = say(lang, "sim.bid.stand_after" if after else f"sim.bid.{data['bid']}", seat=seat)
        return say(lang, "sim.vulnerable", bid=bid) if data.get("vulnerable") else bid
    if kind == "exchange":
        return say_n(lang, "sim.exchange", data["count"], seat=seat, stock=data["stock"])
    if kind == "play_begins":
        return say(lang, "sim.play_begins", seat=data["leader"])
    if kind == "corrected":
        who = seat or say(lang, "sim.the_table")
        code = str(data.get("code") or "")
        return (say(lang, "sim.corrected_why", who=who, card=card(data.get("card")), why=fault_name(code)) if code
                else say(lang, "sim.corrected", who=who, card=card(data.get("card"))))
    if kind == "reader":
        return say(lang, "sim.reader_back" if data.get("online") else "sim.reader_offline",
                   zone=zones(lang, [str(data.get("zone"))]))
    if kind == "target":
        return say(lang, "sim.target", n=data["target"], card=card(data["card"]))
    if kind == "dealer":
        return say(lang, "sim.dealer", seat=seat or "?")
    if kind == "offer":
        offer = say(lang, f"sim.offer_{data['offer']}", seat=seat)
        accepted = data.get("accepted")
        return offer if accepted is None else say(lang, "sim.offer_accepted" if accepted else "sim.offer_refused",
                                                   offer=offer)
    if kind == "penalty":
        reason = str(data["reason"])
        why = say_or(lang, reason_id(reason), fault_name(reason))
        return say(lang, "sim.penalty", seat=seat, n=data["points"], why=why)
    if kind == "seating":
        return say(lang, "sim.seating", a=data["a"], b=data["b"])
    if kind == "new_game":
        rules = rule_set(lang, str(data["rules"]))
        return (say(lang, "sim.new_game", rules=rules, seat=data["dealer"], n=data["target"]) if data.get("dealer")
                else say(lang, "sim.new_game_cut", rules=rules, n=data["target"]))
    if kind == "replay_hand":
        return say(lang, "sim.replay_hand")
    words = "; ".join(f"{k.replace('_', ' ')} {_value(v)}" for k, v in data.items()
                      if (v is not None and not isinstance(v, dict | list)) or (isinstance(v, dict) and k != "detail"))
    return f"{kind.replace('_', ' ')}: {words}" if words else kind.replace("_", " ")  # an event the bench does not know


def run_session(lines: Iterable[str], out: TextIO, *, controller: Controller, rng: random.Random,
                panel: Panel | None = None, prompt: bool = False, outputs: Sequence[TableOutput] = (),
                journal: SimJournal | None = None, lang: str = "en") -> int:
    """Read typed lines until ``quit`` or their end; the number of lines not understood
    (``journal``: each event is journaled before the referee acts on it, as the service does;
    ``lang``: what the bench says is in this language)."""
    bad = 0
    bench = Bench()
    snapshot = controller.snapshot()
    deliver(outputs, controller.outcome())
    if prompt:
        out.write(f"{expected(snapshot, lang)}\n> ")
        out.flush()
    for text in lines:
        text = text.strip()
        if text in (_QUIT, "exit"):
            break
        if text.startswith("#"):
            continue  # a comment (a transcript's)
        if text == _HELP:
            out.write(help_text(lang) + "\n")
        elif text == _STATE:
            out.write(json.dumps(snapshot.to_json(), ensure_ascii=False) + "\n")
        elif text:
            try:
                events = parse_sim_line(text, snapshot, rng, lang)
            except (NotationError, TranscriptError) as exc:
                out.write(f"?? {exc}\n")
                bad += 1
                events = []
            if text.lower() == _DEAL and events:
                bench.new_deal()
            words = text.split()
            verb_seat = words[0].upper() if len(words) > 1 and words[0].upper() in SEATS else None
            for event in events:
                why = bench.refuse(event, lang)
                if why is not None:
                    out.write(f"?? {say(lang, 'sim.nothing_changed', why=why)}\n")
                    bad += 1
                    continue
                before = snapshot
                bench.take(event, verb_seat)
                outcome = journal.handle(event) if journal is not None else controller.handle(event)
                snapshot = outcome.snapshot
                deliver(outputs, outcome)  # a seat's private view to its earpiece alone
                for table_event in outcome.events:
                    said = describe(table_event, journal.path if journal is not None else None, lang, snapshot)
                    out.write(f"  {said}\n")
                if any(isinstance(e, engine.Fault) and str(e.card) == getattr(event, "card", None)
                       for e in outcome.events):
                    bench.refused(event, verb_seat)  # still the seat's card: it takes it back
                if snapshot.hand_no != before.hand_no:
                    bench.new_deal()
                elif not outcome.events and snapshot.to_json() == before.to_json() and not (
                        isinstance(event, CardEvent) and event.gone):
                    out.write(f"  {say(lang, 'sim.waits', what=expected(snapshot, lang))}\n")
            if events:
                out.write(f"  {bench.hands(lang)}\n")
            if panel is not None:
                panel.show(snapshot)
        if prompt:
            score = snapshot.view.score
            out.write(f"[A {score[0]} - B {score[1]}] {expected(snapshot, lang)}\n> ")
            out.flush()
    return bad


class SimJournal:
    """The typed session's journal: each physical event written before the controller acts on it,
    each game a game of the journal (as the service keeps one), so that ``export``, ``review`` and
    ``history`` read what was typed."""

    def __init__(self, journal: Journal, controller: Controller) -> None:
        self.journal = journal
        self.path = journal.path
        self.controller = controller
        self._start()
        self.controller.begin(self.game)  # the journal's number (the referee numbers the next games)

    def _start(self) -> None:
        self.game = self.journal.start_game(dumps(self.controller.current_setup()))

    def handle(self, event: PhysicalEvent) -> Outcome:
        event_id = self.journal.append(self.game, dumps(event))
        try:
            outcome = self.controller.handle(event)
        except Exception:
            self.journal.mark_done(event_id, REJECTED)
            raise
        self.journal.mark_done(event_id)
        if any(e.event == "new_game" for e in outcome.events):  # the table started the next game
            self._start()
        return outcome


@dataclass(frozen=True, slots=True)
class SimOptions:
    """What ``ecarte-table sim`` is asked (its flags, as plain values): the rule set, the first
    dealer, the seed of ``deal``'s random deals (None: any)."""

    rules: str = "classic"
    dealer: str = "A"
    seed: int | None = None
    journal: Path | None = None
    """Where the session is journaled (None: the state directory's ``sim.sqlite``)."""
    language: str = "en"
    """What the bench and the OLED say is in this language."""


def run_sim(options: SimOptions, controller: Controller, *, outputs: Sequence[TableOutput] = ()) -> int:
    """``ecarte-table sim``: returns 0, or 2 when some typed lines were not understood
    (``controller``: the referee, built by ``firmware_host.app.build_referee``; ``outputs``: what
    else shows each outcome, the page)."""
    from firmware_host.screens.panel import open_panel
    from hardware.table import simulated_table

    path = options.journal or default_journal().with_name("sim.sqlite")
    try:
        store = Journal(path, lock=True)
    except JournalError as exc:
        raise BadInput.of(exc) from None
    panel = open_panel(simulated_table(), terminal=sys.stdout)
    panel.language = lang = options.language
    try:
        panel.show(controller.snapshot())
        sys.stdout.write(say(lang, "sim.journaled", path=path, command=f"ecarte-table export --journal {path}") + "\n")
        bad = run_session(sys.stdin, sys.stdout, controller=controller, rng=random.Random(options.seed),
                          panel=panel, prompt=sys.stdin.isatty(), outputs=outputs,
                          journal=SimJournal(store, controller), lang=lang)
    finally:
        panel.close()
        store.close()
    return 2 if bad and not sys.stdin.isatty() else 0
