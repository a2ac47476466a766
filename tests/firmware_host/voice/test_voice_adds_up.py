"""What the voice says adds up: every point it says a seat wins or loses (the king, a penalty, a
hand's tricks, a false king's point taken back) is the change of the score it says next, in
every language, for every rule set, at full and partial sight, with faults and false kings.

A listener who cannot see the table keeps the score from what is said: the test is that
listener. It reads the announcements with the catalogue's own templates (``voice.king``,
``voice.gains``, ``voice.score``...) turned into patterns, adds up the increments and checks
each score said, and each game's end, against the sum.
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass, field

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from catalogue import template
from firmware_host.players.packets import ModelTable, PacketPlayers
from firmware_host.referee.controller import Controller
from firmware_host.referee.transcript import Setup
from firmware_host.voice.announcer import Announcer
from firmware_host.voice.spoken import SPOKEN_LANGUAGES

NAMES = ("Anne", "Bruno")
INCREMENTS = {"king": 1, "gains": None, "loses": None, "penalty": None, "king_back": -1}
"""What each sentence adds to its seat: a fixed amount, or ``{n}`` (None), lost for ``loses``
and ``penalty``."""
LOST = {"loses", "penalty"}


def pattern(lang: str, key: str) -> re.Pattern[str]:
    """The catalogue's template ``voice.<key>`` as a pattern: a name for ``{who}``, ``{a}``,
    ``{b}``, a number for ``{n}``, ``{sa}``, ``{sb}``, ``{hi}``, ``{lo}``, a number and its noun for ``{points}``
    (German: "Anne bucht 1 Punkt."), anything for ``{why}``."""
    names = "|".join(re.escape(n) for n in NAMES)
    out = []
    for literal, name, _, _ in string.Formatter().parse(template(lang, "voice." + key)):
        out.append(re.escape(literal))
        if name in ("who", "a", "b"):
            out.append(f"(?P<{name}>{names})")
        elif name in ("n", "sa", "sb", "hi", "lo"):
            out.append(f"(?P<{name}>-?\\d+)")
        elif name == "points":
            out.append("(?P<n>-?\\d+) \\w+")
        elif name is not None:
            out.append(f"(?P<{name}>[^.]+?)")
    # the voice capitalises a sentence's first letter (Spoken.say)
    text = "".join(out)
    return re.compile(f"(?i:{text[:1]}){text[1:]}" if text[:1].isalpha() else text)


@dataclass
class Listener:
    """Keeps the score from what is said, and checks every score and game's end said against it."""

    lang: str
    score: dict[str, int] = field(default_factory=lambda: dict.fromkeys(NAMES, 0))
    pending: dict[str, int] = field(default_factory=lambda: dict.fromkeys(NAMES, 0))
    heard: list[str] = field(default_factory=list)
    checked: int = 0
    """Scores said after some points were: each checked against the points."""

    def __post_init__(self) -> None:
        self.patterns = {key: pattern(self.lang, key)
                         for key in (*INCREMENTS, "score", "game_end", "replay_hand")}

    def hear(self, text: str) -> None:
        self.heard.append(text)
        found = sorted(((m.start(), key, m) for key, p in self.patterns.items() for m in p.finditer(text)),
                       key=lambda f: f[0])
        for _, key, m in found:
            if key in INCREMENTS:
                n = INCREMENTS[key] if INCREMENTS[key] is not None else int(m["n"])
                self.pending[m["who"]] += -n if key in LOST else n
            elif key == "replay_hand":
                # the hand is played again: its penalties are undone, and the score is said anew
                self.pending = dict.fromkeys(NAMES, 0)
                self.score = {}
            elif key == "score":
                said = {m["a"]: int(m["sa"]), m["b"]: int(m["sb"])}
                if self.score:
                    expected = {name: self.score[name] + self.pending[name] for name in NAMES}
                    assert said == expected, self.story(f"the score said is {said}, what was said adds up to "
                                                        f"{expected}")
                    self.checked += 1
                self.score, self.pending = said, dict.fromkeys(NAMES, 0)
            else:  # game_end: the winner's points to the loser's, as the last score said
                assert not any(self.pending.values()), self.story("points said after the last score")
                other = next(name for name in NAMES if name != m["who"])
                assert (int(m["hi"]), int(m["lo"])) == (self.score[m["who"]], self.score[other]), \
                    self.story("the game's end is not the score said")
                self.score = dict.fromkeys(NAMES, 0)

    def story(self, what: str) -> str:
        return what + ":\n" + "\n".join(self.heard[-12:])


def play(rules: str, seed: int, sight: str, depth: int, faults: float, false_kings: float) -> list[object]:
    """A whole game played by the built-in players on modelled pads: what the pads reported."""
    setup = Setup(rules=rules, dealer="A", players=NAMES, sight=sight)
    table = ModelTable(Controller(), depth=depth if sight == "partial" else 99, setup=setup)
    PacketPlayers(table, engine.new_game(rules, dealer="A"), seed=seed, faults=faults,
                  false_kings=false_kings if sight == "partial" else 0.0).play_game()
    return list(table.lines)


def listen(lines: list[object], lang: str, verbosity: str = "full") -> Listener:
    controller, announcer, listener = Controller(), Announcer(lang, verbosity), Listener(lang)
    for line in lines:
        for announcement in announcer.take(controller.handle(line)):  # type: ignore[arg-type]
            listener.hear(announcement.text)
    assert controller.snapshot().phase == "over"
    return listener


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=st.sampled_from(["classic", "french", "italian", "german"]), seed=st.integers(0, 10**6),
       sight=st.sampled_from(["full", "partial"]), depth=st.integers(1, 3), faults=st.sampled_from([0.0, 0.2, 0.4]),
       false_kings=st.sampled_from([0.0, 0.3]), lang=st.sampled_from(SPOKEN_LANGUAGES),
       verbosity=st.sampled_from(["full", "brief"]))
def test_every_point_said_adds_up_to_the_score_said(rules: str, seed: int, sight: str, depth: int, faults: float,
                                                   false_kings: float, lang: str, verbosity: str) -> None:
    listener = listen(play(rules, seed, sight, depth, faults, false_kings), lang, verbosity)
    assert any(listener.patterns["game_end"].search(text) for text in listener.heard)
    assert listener.checked >= 2, listener.story("too few scores said")  # a game takes two hands at least


@pytest.mark.parametrize("lang", SPOKEN_LANGUAGES)
def test_a_king_then_the_hand_are_not_counted_twice(lang: str) -> None:
    """Seed 3 of the demo's game: a hand with a king scored before its tricks (the issue's "Inés 3 …
    marca 3 … Inés 5")."""
    for seed in range(40):
        lines = play("classic", seed, "partial", 2, 0.2, 0.0)
        listener = listen(lines, lang)
        king = listener.patterns["king"]
        if any(king.search(text) for text in listener.heard):
            assert listener.checked >= 3
            return
    pytest.fail("no game of the first 40 seeds scored a king")
