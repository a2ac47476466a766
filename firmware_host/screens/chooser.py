"""What the table shows now: a snapshot as a :class:`~firmware_host.screens.drawing.Screen`.

:mod:`firmware_host.screens.drawing` draws a screen from plain strings and numbers; this
module decides, from a :class:`~firmware_host.referee.snapshot.TableSnapshot` alone, which
view the table is in and fills it, in the table's language (:mod:`firmware_host.screens.i18n`),
with the players' names:

- a reader offline, then a fault still to put right (reverse video: what went
  wrong, then what to do), then the settings menu, then game over, then a warning just
  given (a void deal, a false king), then the hand's result and where its points came
  from (until the next deal begins), then the king just scored;
- otherwise the table view: trump, the score labelled with whose number is whose, who
  deals (or the tricks), and whose turn it is with what the table expects.

Every text is worded from data (codes, seats, cards), and a test draws every message in
every language and rule set and fails on any text cut off.
"""

from __future__ import annotations

from typing import Any

from catalogue import has, say, say_or, zones
from engine import SEATS, Fault, View
from engine.events import Bid, King, Penalty
from engine.faults import VOID_DEAL_CODES, FaultCode
from engine.rules import RULE_SETS
from engine.scoring import trick_points
from engine.state import Phase
from firmware_host.referee import MenuLine, TableSnapshot
from firmware_host.screens.drawing import Screen, clipped, frame_to_text, render
from firmware_host.screens.i18n import PromptWords, Words, screen_name, worded, words

__all__ = ["Screen", "fault_screen", "frame_to_text", "message_screen", "paused_screen", "render", "screen_for"]

_HOLDING = (Phase.PROPOSE, Phase.RESPOND, Phase.EXCHANGE, Phase.FORCE)
"""The phases where both hands hold five cards and none is played yet."""


class _Table:
    """The words and names of one snapshot."""

    def __init__(self, snapshot: TableSnapshot, lang: str, *, whole_names: bool = False) -> None:
        self.snapshot = snapshot
        self.w: Words = words(lang)
        names = snapshot.players
        fit = (lambda name: " ".join(name.split())) if whole_names else screen_name
        self.names = {seat: fit(names[i]) if names[i] else seat for i, seat in enumerate(SEATS)}

    def who(self, seat: str | None) -> str:
        return self.names.get(seat or "", "") or self.w.say("table")

    def labels(self) -> tuple[str, str]:
        """Whose number is whose in the score: the players' initials, or the seats."""
        a, b = (self.names[s][:1].upper() for s in SEATS)
        return (a, b) if a and b and a != b else SEATS

    def prompt(self) -> PromptWords:
        p = self.snapshot.prompt
        return worded(p, self.w.lang, self.names.get(p.seat)) if p.seat else worded(p, self.w.lang)


def _base(table: _Table) -> dict[str, Any]:
    snapshot = table.snapshot
    view = snapshot.view
    playing = view.phase == Phase.PLAY
    prompt = table.prompt()
    label_a, label_b = table.labels()
    trump = str(view.trump) if view.trump is not None else ""
    w = table.w
    if playing:
        status = w.say("status_tricks", a=label_a, b=label_b, ta=view.tricks[0], tb=view.tricks[1])
    elif view.dealer:
        status = w.say("status_deal", dealer=table.who(view.dealer), elder=table.who(view.elder))
        if clipped(Screen(status=status)):
            status = w.say("status_deal_short", dealer=table.who(view.dealer))
    else:
        status = w.say("status_target", n=view.target)
    sight = snapshot.sight
    if view.phase in _HOLDING and not sight.complete:
        # partial sight: how much of each hand's five cards the table has read (the tricks
        # show the tricks instead)
        status = w.say("status_seen", a=label_a, b=label_b, sa=sight.seen[0], ha=sight.held[0],
                       sb=sight.seen[1], hb=sight.held[1])
    if snapshot.setting_up and snapshot.menu is None:
        status = w.say("settings_hint")
    if snapshot.hint and view.phase == Phase.PROPOSE:
        status = snapshot.hint  # a learner's table: the elder's odds of standing
    return dict(
        trump_card=trump, trump_label=w.card(trump)[:-1] if trump else "",
        score_a=view.score[0], score_b=view.score[1], target=view.target,
        label_a=label_a, label_b=label_b, status=status,
        dealer=view.dealer, elder=view.elder, turn=table.who(prompt.seat) if prompt.seat else "",
        expects=prompt.short, colon=w.say("colon", label="", text=""),
        tricks_a=view.tricks[0] if playing else -1, tricks_b=view.tricks[1] if playing else -1,
    )


def _penalty(view: View) -> int:
    """Points an italian revoke costs under ``view``'s rules (0: none)."""
    ruleset = RULE_SETS.get(view.rules.split("(")[0])
    return int(getattr(ruleset, "revoke_penalty", 0)) if ruleset is not None else 0


def fault_words(fault: Fault, table: _Table) -> tuple[str, str]:
    """What went wrong and what to do, in the table's language, from the fault's data."""
    w = table.w
    view = table.snapshot.view
    detail = dict(fault.detail)
    who = table.who(fault.seat)
    card = w.card(str(fault.card)) if fault.card is not None else ""
    take_back = w.say("take_back", card=card) if card else ""
    code = fault.code
    if fault.late:
        # proven after the offence (partial sight): what happened, then who chooses what
        chooser = table.snapshot.choosing
        # as history says it: "hat nicht getrumpft"
        what = w.say("fault." + code) if code != FaultCode.FALSE_KING else ""
        headline = w.say("late_king" if code == FaultCode.FALSE_KING else "late_play", who=who, trick=fault.trick or "",
                         what=what)
        if chooser is not None:
            return headline, w.say("late_choose", turn=table.who(chooser))
        return headline, w.say("late_king_back")
    if code in VOID_DEAL_CODES:
        headline = w.say("duplicate_card", card=card) if code == FaultCode.DUPLICATE_CARD and card else w.say("misdeal")
        if view.phase == Phase.CUT:
            return headline, w.say("cut_again")
        return headline, w.say("deal_void", who=who)
    if code in (FaultCode.REVOKE, FaultCode.NOT_TRUMPING):
        led = view.trick[0][1] if view.trick else None
        trump = view.trump.suit if view.trump is not None else ""
        suit = detail.get("suit") or (led.suit if code == FaultCode.REVOKE and led is not None else trump)
        key = "revoke_win" if code == FaultCode.REVOKE and detail.get("win") == "yes" else code
        headline = w.say(key, who=who, suit=w.card("7" + suit)[-1] if suit else "")
        points = _penalty(view)
        if points and card:
            return headline, w.say("take_back_penalty", card=card, who=who, n=points)
        return headline, take_back
    if code == FaultCode.NOT_OVERTAKING:
        beat = detail.get("beat") or (str(view.trick[0][1]) if view.trick else "")
        return w.say(code, who=who, beat=w.card(beat) if beat else ""), take_back
    if code in (FaultCode.CARD_NOT_IN_HAND, FaultCode.NOT_HIGHEST, FaultCode.KING_NOT_LED):
        return w.say(code, who=who, card=card), take_back
    if code == FaultCode.OUT_OF_TURN:
        prompt = table.prompt()
        return w.say(code, who=who), take_back or w.say("out_of_turn_do", turn=table.who(prompt.seat))
    if code == FaultCode.EXCHANGE_COUNT:
        return w.say(code, who=who), take_back or w.say("exchange_do")
    if code in (FaultCode.UNKNOWN_TAG, FaultCode.FOREIGN_PACK, FaultCode.COUNTERFEIT_CARD, FaultCode.FALSE_KING,
                "setup_ignored", "locked"):
        return w.say(code, who=who), w.say(code + "_do")
    if code == FaultCode.WRONG_TIME:
        return w.say(code, who=who), table.prompt().text
    if has(code):  # a notice worded by its code alone ("lay a badge on a play pad")
        return w.say(code, who=who), ""
    return w.say("colon", label=who, text=say_or(w.lang, "fault." + code, code)), ""


def fault_screen(fault: Fault, snapshot: TableSnapshot, lang: str = "en", *, whole_names: bool = False) -> Screen:
    """The fault view of ``fault`` (what went wrong, then what to do); ``whole_names``: the players' names
    as they are (the page, the narration), not cut to the OLED's pixels."""
    headline, detail = fault_words(fault, _Table(snapshot, lang, whole_names=whole_names))
    return Screen(view="fault", headline=headline, detail=detail)


def _hand_lines(table: _Table) -> list[str]:
    """Where the last hand's points came from, a line a seat: ``A +1 point, +1 king``."""
    snapshot = table.snapshot
    hand = snapshot.last_hand
    if hand is None:
        return []
    w = table.w
    lines = []
    vulnerable = {n.seat: n.bid for n in snapshot.hand_notes if isinstance(n, Bid)}
    by_tricks = trick_points(hand, snapshot.hand_notes)
    for i, seat in enumerate(SEATS):
        parts: list[tuple[int, str]] = []
        kings = sum(1 for n in snapshot.hand_notes if isinstance(n, King) and n.seat == seat)
        penalties = [n for n in snapshot.hand_notes if isinstance(n, Penalty) and n.seat == seat]
        tricks = by_tricks[i]
        other = SEATS[1 - i]
        if tricks > 0:
            if hand.tricks[i] == 5:
                parts.append((tricks, w.say("vole")))
            elif other in vulnerable and tricks > 1:
                parts.append((tricks, w.say("punished_refusal" if vulnerable[other] == "refuse"
                                            else "punished_stand")))
            else:
                parts.append((tricks, w.say("point")))
        elif tricks < 0:
            key = ("punished_refusal" if vulnerable[seat] == "refuse" else "punished_stand") \
                if seat in vulnerable else "failed"
            parts.append((tricks, w.say(key)))
        if kings:
            parts.append((kings, w.say("king_points")))
        parts.extend((p.points, w.say("pen_" + p.reason)) for p in penalties)
        if parts:
            # the score's label, not the name: the line says whose number changed and why
            label = table.labels()[i]
            lines.append(f"{label} " + ", ".join(f"{_signed(n)} {what}" for n, what in parts))
    return lines


def reason_id(reason: str) -> str:
    """The words of a penalty's reason in a sentence (the voice, the narration, ``sim``): the fault's name as
    ``history`` says it ("nicht bedient") where it has one; the OLED's hand lines keep ``pen_<reason>``, a
    label short enough for the score's line ("−1 Farbe")."""
    return "fault." + reason if has("fault." + reason) else "pen_" + reason


def _signed(n: int) -> str:
    return f"+{n}" if n >= 0 else f"−{-n}"


def _total(n: int) -> str:
    """A score, signed only below zero (with the minus sign the font draws)."""
    return str(n) if n >= 0 else f"−{-n}"


def screen_for(snapshot: TableSnapshot, lang: str = "en", *, coach_line: str | None = None) -> Screen:
    """What the table shows for ``snapshot``, in ``lang`` (``en``, ``fr``, ``it``, ``de``, ``es``), or in
    the language chosen at the table (the settings menu: ``snapshot.language``).

    :param coach_line: the coach's line on the hand just over, shown with its result (the screens'
        own: :class:`~firmware_host.screens.coaching.CoachedPanel`; the referee knows nothing of it).
    """
    lang = snapshot.language or lang
    table = _Table(snapshot, lang)
    w = table.w
    view = snapshot.view
    base = _base(table)
    if snapshot.offline:
        offline = zones(lang, sorted(snapshot.offline))
        return Screen(view="offline", headline=w.say("offline", zones=offline), detail=w.say("offline_do"))
    if snapshot.faults:
        return fault_screen(snapshot.faults[-1], snapshot, lang)
    if snapshot.menu is not None:
        return menu_screen(snapshot.menu, lang)
    if view.phase == Phase.OVER and snapshot.winner:
        a, b = view.score
        return Screen(view="game_over", headline=w.say("game_over", who=table.who(snapshot.winner)),
                      detail=w.say("game_over_do", a=a, b=b), **base)
    if snapshot.warning is not None:
        return fault_screen(snapshot.warning, snapshot, lang)
    if snapshot.notice is not None:
        return fault_screen(snapshot.notice, snapshot, lang)
    hand = snapshot.last_hand
    if hand is not None and snapshot.between_hands:
        ta, tb = hand.tricks
        winner = "A" if ta > tb else "B"
        lines = _hand_lines(table)
        headline = w.say("hand_won", who=table.who(winner), hi=max(ta, tb), lo=min(ta, tb))
        label_a, label_b = table.labels()
        # the score is a total, not a change: no sign before it ("score A 2 · B 0", not "+2 · +0")
        score = w.say("score_line", a=label_a, b=label_b, sa=_total(hand.score[0]), sb=_total(hand.score[1]))
        # the points first; the score and the next dealer while there is room
        coach = [coach_line] if coach_line else []
        nexts = [score, w.say("deals_next", who=table.who(view.dealer))]
        for extra in ([*coach, *nexts], [*coach, score], coach, nexts, [score], []):
            screen = Screen(view="hand", headline=headline, detail="\n".join([*lines, *extra]), **base)
            if not clipped(screen):
                break
        return screen
    if snapshot.fresh_king and view.king is not None:
        suit = view.trump.suit if view.trump is not None else "S"
        prompt = table.prompt()
        return Screen(view="king", headline=w.say("king", who=table.who(view.king), card=w.card("K" + suit)),
                      detail=w.say("colon", label=table.who(prompt.seat), text=prompt.short) if prompt.seat
                      else prompt.short, **base)
    return Screen(**base)


def menu_screen(line: MenuLine, lang: str = "en") -> Screen:
    """The settings menu: which line of how many, the line and its value, the buttons."""
    lang = words(lang).lang
    title = say(lang, "menu.house" if line.locked else "menu.title", p=line.position, n=line.count)
    value = say_or(lang, ("language." if line.item == "language" else "menu.") + line.value, line.value)
    return Screen(view="menu", headline=title,
                  detail=f"{say_or(lang, 'menu.' + line.item, line.item)}: {value}\n"
                         + say(lang, "menu.hint" if line.changeable else "menu.hint_locked"))


def paused_screen(snapshot: TableSnapshot | None, message: str = "", lang: str = "en") -> Screen:
    """The screen left on the panel when the service stops (``message``: the log's words;
    the panel says it in the table's language)."""
    if snapshot is not None and snapshot.language:
        lang = snapshot.language  # chosen at the table
    w = words(lang)
    headline, detail = w.say("paused"), w.say("paused_do")
    if snapshot is None:
        return Screen(view="paused", headline=headline, detail=detail)
    return Screen(view="paused", headline=headline, detail=detail, **_base(_Table(snapshot, lang)))


def message_screen(lines: list[str]) -> Screen:
    """A few short lines (enrollment, doctor): the first as the headline."""
    return Screen(view="message", headline=lines[0] if lines else "", detail="\n".join(lines[1:]))
