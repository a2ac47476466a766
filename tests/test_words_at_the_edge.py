"""Words only at the edge: the rules below the catalogue name what they mean by ids, and each piece of
words is written once. Checked on the source, by parsing every module's AST, each
rule with a case proving it can fail.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("engine", "drivers", "hardware", "firmware_host", "coach", "venue", "catalogue", "cli")


def _sources(root: Path = ROOT) -> dict[str, ast.Module]:
    """Every module of ours (relative path → its AST)."""
    return {p.relative_to(root).as_posix(): ast.parse(p.read_text(encoding="utf-8"), filename=str(p))
            for package in PACKAGES if (root / package).is_dir() for p in sorted((root / package).rglob("*.py"))}


def _strings(tree: ast.AST) -> list[str]:
    """The string constants of ``tree``, an f-string's literal parts included."""
    return [node.value for node in ast.walk(tree) if isinstance(node, ast.Constant) and isinstance(node.value, str)]


# -- a card as a language prints it: one function --------------------------------------------------

CARD_WORDS_HOME = "catalogue/__init__.py"
"""The one module that words a printed card (:func:`catalogue.card_words`): the ``rank.*`` ids."""


def rank_word_readers(sources: dict[str, ast.Module]) -> list[str]:
    """The modules other than :data:`CARD_WORDS_HOME` that read a ``rank.*`` message (a card worded by
    hand: its rank looked up, its suit's symbol put after it)."""
    return sorted(rel for rel, tree in sources.items()
                  if rel != CARD_WORDS_HOME and any(s.startswith("rank.") for s in _strings(tree)))


def test_a_card_is_worded_in_one_place() -> None:
    assert rank_word_readers(_sources()) == []


def test_the_printed_suits_are_the_ones_the_notation_reads() -> None:
    """The catalogue prints a card's suit (``catalogue.SUIT_SYMBOLS``); the engine's notation reads the same
    symbols (``Card.parse("K♠")``): a card printed is a card read."""
    import catalogue
    from engine.cards import CARDS, SUIT_SYMBOLS, Card

    assert catalogue.SUIT_SYMBOLS == SUIT_SYMBOLS
    assert all(Card.parse(catalogue.card_words("en", str(card))) == card for card in CARDS)


def test_the_card_words_rule_can_fail() -> None:
    """``coach/odds.py``'s ``card_words`` as it was: a second card-words function."""
    probe = ast.parse('def card_words(card, lang):\n    return say_or(lang, "rank." + card.rank, card.rank)\n')
    spoken = ast.parse('def card(code):\n    return say(lang, "voice.rank." + code[0])\n')
    assert rank_word_readers({"coach/odds.py": probe, "firmware_host/voice/spoken.py": spoken}) == ["coach/odds.py"]


# -- the fault codes: named once -------------------------------------------------------------------

CODES_HOME = "engine/faults.py"
"""Where the fault codes are listed (:data:`engine.faults.FAULT_CODES`) and the ones that void a deal
(:data:`engine.faults.VOID_DEAL_CODES`)."""


def _code_collections(tree: ast.AST) -> list[set[str]]:
    """The string sets of ``tree``'s literal tuples, lists and sets (``("misdeal", "duplicate_card")``)."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Tuple | ast.List | ast.Set):
            found.append({e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)})
    return found


def restated_codes(sources: dict[str, ast.Module]) -> dict[str, list[str]]:
    """Outside :data:`CODES_HOME`, the modules with a literal collection that restates every fault code
    (``FAULT_WORDS`` as it was) or the void-deal codes (``("misdeal", "duplicate_card")``, written in
    three places as it was)."""
    from engine.faults import FAULT_CODES, VOID_DEAL_CODES

    found: dict[str, list[str]] = {}
    for rel, tree in sources.items():
        if rel == CODES_HOME:
            continue
        for strings in _code_collections(tree):
            if set(FAULT_CODES).issubset(strings):
                found.setdefault(rel, []).append("every fault code")
            elif VOID_DEAL_CODES.issubset(strings):
                found.setdefault(rel, []).append("the void-deal codes")
    return found


def test_the_fault_codes_are_listed_once() -> None:
    assert restated_codes(_sources()) == {}


def test_the_codes_rule_can_fail() -> None:
    from engine.faults import FAULT_CODES

    words = ast.parse(f"FAULT_WORDS = {tuple(map(str, FAULT_CODES))!r}\n")
    chooser = ast.parse('if code in ("misdeal", "duplicate_card"):\n    pass\n')
    hands = ast.parse('DEAL_VOID = frozenset({"misdeal", "duplicate_card"})\n')
    tag = ast.parse('TAG_FAULTS = ("unknown_tag", "foreign_pack", "counterfeit_card")\n')
    assert restated_codes({"firmware_host/screens/i18n.py": words, "firmware_host/screens/chooser.py": chooser,
                           "firmware_host/voice/hands.py": hands, "firmware_host/referee/pack_guard.py": tag}) == {
        "firmware_host/screens/i18n.py": ["every fault code"],
        "firmware_host/screens/chooser.py": ["the void-deal codes"],
        "firmware_host/voice/hands.py": ["the void-deal codes"],
    }


# -- faults and notices carry no words ---------------------------------------------------------------

WORDLESS_PLACES = ("engine/", "firmware_host/referee/")
"""Where faults and notices are made: they say what they mean by ids and values, never in words."""

MAKERS = frozenset({"fault", "Fault", "Notice", "notice", "Judgement", "wrong_time", "void_deal", "Phrase", "_late",
                    "revoke_fault", "not_overtaking_fault", "not_trumping_fault"})
"""The calls that make a fault or a notice, or what it says."""


def worded_faults(sources: dict[str, ast.Module]) -> list[str]:
    """``path:line`` of each call in :data:`WORDLESS_PLACES` that makes a fault or a notice with words:
    a string (or an f-string) holding a space among its arguments (an id holds none: ``says.revoke``)."""
    found = []
    for rel, tree in sources.items():
        if not rel.startswith(WORDLESS_PLACES):
            continue
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
            if name not in MAKERS:
                continue
            arguments = [*node.args, *(k.value for k in node.keywords)]
            if any(" " in text for argument in arguments for text in _strings(argument)):
                found.append(f"{rel}:{node.lineno}")
    return found


def test_no_fault_or_notice_is_made_with_words() -> None:
    assert worded_faults(_sources()) == []


def test_a_fault_and_a_notice_have_no_words_to_carry() -> None:
    import dataclasses

    from engine import Fault
    from firmware_host.referee.table_events import Notice

    for kind in (Fault, Notice):
        assert not {"message", "remedy"} & {f.name for f in dataclasses.fields(kind)}, kind


def test_the_wordless_rule_can_fail() -> None:
    """The faults as they were: an English message built in the engine and in the referee."""
    engine_fault = ast.parse('return fault("false_king", seat, f"{seat} announced the king but does not hold it")\n')
    notice = ast.parse('return [Notice(f"{seat}\'s {button} means nothing now", seat)]\n')
    wordless = ast.parse('return fault("false_king", seat, "false_king")\n')
    coach = ast.parse('return fault("x", seat, "a sentence outside the places")\n')
    assert worded_faults({"engine/phases/king.py": engine_fault, "firmware_host/referee/game_under_way.py": notice,
                          "engine/phases/deal.py": wordless, "coach/odds.py": coach}) == [
        "engine/phases/king.py:1", "firmware_host/referee/game_under_way.py:1"]


# -- a value for each seat: PerSeat owns the {"A": ..., "B": ...} shape ------------------------------

SEATS_HOME = "engine/seats.py"
"""Where the seats are named, and the shape of a value for each (:class:`engine.seats.PerSeat`)."""


def pairs_by_hand(sources: dict[str, ast.Module]) -> list[str]:
    """``path:line`` of each ``{"A": x[0], "B": x[1]}`` outside :data:`SEATS_HOME`: a pair written in
    the seats' shape by hand (what ``PerSeat.of(x).to_json()`` writes)."""
    found = []
    for rel, tree in sources.items():
        if rel == SEATS_HOME:
            continue
        for node in ast.walk(tree):
            if not isinstance(node, ast.Dict) or len(node.keys) != 2:
                continue
            keys = [k.value if isinstance(k, ast.Constant) else None for k in node.keys]
            if keys == ["A", "B"] and all(f"[{i}]" in ast.unparse(v) for i, v in enumerate(node.values)):
                found.append(f"{rel}:{node.lineno}")
    return found


def test_a_pair_is_put_in_the_seats_shape_by_per_seat() -> None:
    assert pairs_by_hand(_sources()) == []


def test_the_per_seat_rule_can_fail() -> None:
    """``venue/hub/room.py`` as it was, beside a seat's list of cards (no pair) and the seats' own module."""
    room = ast.parse('score = {"A": score[0], "B": score[1]}\n')
    held = ast.parse('held = {"A": [], "B": []}\n')
    seats = ast.parse('out = {"A": pair[0], "B": pair[1]}\n')
    assert pairs_by_hand({"venue/hub/room.py": room, "firmware_host/players/console.py": held,
                          "engine/seats.py": seats}) == ["venue/hub/room.py:1"]


def test_per_seat_reads_and_writes_the_shape() -> None:
    import pytest

    from engine.seats import PerSeat

    assert PerSeat.of((3, 2)).to_json() == {"A": 3, "B": 2}
    assert PerSeat.from_json({"A": "KD", "B": "AD"}) == PerSeat("KD", "AD")
    assert list(PerSeat(1, 2).map(str)) == ["1", "2"] and PerSeat(1, 2)["B"] == 2
    for bad in ({"A": 1}, {"A": 1, "B": 2, "C": 3}, [1, 2], None):
        with pytest.raises(ValueError, match="must name A and B"):
            PerSeat.from_json(bad)
    with pytest.raises(ValueError):
        PerSeat.of((1, 2, 3))
    with pytest.raises(KeyError):
        PerSeat(1, 2)["C"]


def said_ids(sources: dict[str, ast.Module]) -> set[str]:
    """The catalogue ids the engine and the referee name for what a fault or a notice says: ``fault``'s
    and ``void_deal``'s third argument (``says.<id>``), ``wrong_time``'s (``says.doing.<id>``), ``notice``'s
    first and ``_late``'s fourth (``says.<id>``)."""
    places = {"fault": (2, "says."), "void_deal": (2, "says."), "wrong_time": (2, "says.doing."),
              "notice": (0, "says."), "_late": (3, "says.")}
    found = set()
    for rel, tree in sources.items():
        if not rel.startswith(WORDLESS_PLACES):
            continue
        for node in ast.walk(tree):
            name = getattr(node.func, "id", "") if isinstance(node, ast.Call) else ""
            if name in places and len(node.args) > places[name][0]:  # type: ignore[attr-defined]
                arg = node.args[places[name][0]]  # type: ignore[attr-defined]
                for text in _strings(arg):
                    found.add(places[name][1] + text)
    return found


def test_every_message_the_engine_and_the_referee_name_is_in_the_catalogue() -> None:
    import catalogue

    named = said_ids(_sources())
    assert len(named) > 60  # the check sees the calls
    assert {i for i in named if not catalogue.has(i)} == set()


# -- no English sentence below the edge --------------------------------------------------------------

LOG_CALLS = frozenset({"debug", "info", "warning", "error", "exception", "critical", "log"})
"""A logger's methods: a log line is the maintainer's (a line a person reads at a console carries its words
as data, :func:`catalogue.phrase.logged`)."""

STILL_IN_ENGLISH = {
    ("engine/cards.py", "{value} of {value}"),
    ("engine/rules.py", "target must be 1 to 99, got {value}"),
    ("engine/rules.py", "rubber is best of an odd number of games, got {value}"),
}
"""What is left, none may be added: a card's English name (``Card.name``, read by no one but its test), and the
rule set's checks, a ``ValueError`` that a setup's refusal passes on as it is (``setup_problem``'s own are
phrases, ``setup.*``, said in the reader's language)."""


def _unworded(tree: ast.AST) -> set[int]:
    """The nodes of ``tree`` whose strings are no player's words: docstrings, an error's message (raised, or
    an ``...Error`` made), a log line, an object's ``__str__``/``__repr__`` and an action's ``verb`` (the
    transcript's notation, ``A plays on``, which the engine reads back)."""
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            skip.update(id(stmt.value) for stmt in node.body
                        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant))
        if isinstance(node, ast.FunctionDef) and node.name in ("__str__", "__repr__"):
            skip.update(map(id, ast.walk(node)))
        elif isinstance(node, ast.Raise) and node.exc is not None:
            skip.update(map(id, ast.walk(node.exc)))
        elif isinstance(node, ast.Call):
            name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
            if name.endswith("Error") or name in LOG_CALLS:
                skip.update(map(id, ast.walk(node)))
        elif isinstance(node, ast.AnnAssign | ast.Assign):
            targets = [node.target] if isinstance(node, ast.AnnAssign) else node.targets
            if any(isinstance(t, ast.Name) and t.id == "verb" for t in targets):
                skip.update(map(id, ast.walk(node)))
    return skip


def english_below_the_edge(sources: dict[str, ast.Module]) -> set[tuple[str, str]]:
    """The English sentences (a space and a word of :data:`catalogue.english.ENGLISH`) written in
    :data:`WORDLESS_PLACES` as anything but :func:`_unworded`'s: words a player reads, built below the
    catalogue (the prompts' ``short`` and ``text`` as they were, the snapshot's ``expectation``)."""
    from catalogue.english import english_words

    found = set()
    for rel, tree in sources.items():
        if not rel.startswith(WORDLESS_PLACES):
            continue
        skip = _unworded(tree)
        for node in ast.walk(tree):
            if id(node) in skip:
                continue
            if isinstance(node, ast.JoinedStr):  # an f-string is one text, each value a {placeholder}
                skip.update(map(id, ast.walk(node)))
                text = "".join(v.value if isinstance(v, ast.Constant) else "{value}" for v in node.values)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                text = node.value
            else:
                continue
            if " " in text.strip() and english_words(text):
                found.add((rel, text))
    return found


def test_no_english_sentence_is_written_below_the_edge() -> None:
    assert english_below_the_edge(_sources()) == STILL_IN_ENGLISH


def test_the_english_rule_can_fail() -> None:
    """``engine/prompts.py`` as it was (its English beside each key), beside what the rule leaves alone: an
    error, a log line, a docstring, an action's notation, and words outside the places."""
    prompts = ast.parse('_ENGLISH = {"deal": ("deal, turn up", "{seat} deals five cards each and turns up the '
                        'eleventh")}\n')
    snapshot = ast.parse('def expectation(self):\n    return f"{self.seat} plays"\n')
    left = ast.parse('"""The rules: a docstring."""\nverb = "plays on"\nlogger.info("the game is over")\n'
                     'raise ValueError("the target must be 1 to 99")\nx = TranscriptError(s, 1, "the line is bad")\n')
    venue = ast.parse('text = "the table waits for the deal"\n')
    assert english_below_the_edge({"engine/prompts.py": prompts, "firmware_host/referee/snapshot.py": snapshot,
                                   "engine/actions.py": left, "venue/table/public.py": venue}) == {
        ("engine/prompts.py", "deal, turn up"),
        ("engine/prompts.py", "{seat} deals five cards each and turns up the eleventh"),
        ("firmware_host/referee/snapshot.py", "{value} plays")}


# -- one carrier of a message's id and values -----------------------------------------------------------

CARRIERS = {"engine/message.py:Phrase"}
"""The one class that holds a message's id with its values: :class:`engine.message.Phrase`, a value of the
engine's (which imports nothing of ours) that the drivers and the catalogue may import too, carried from the
engine up (a fault's ``says``, what the table waits for, a pad's retried frames, an error's ``words``) and
worded at the edge by the catalogue (:func:`catalogue.phrase.said`, :mod:`firmware_host.referee.event_words`).
The engine's ``Says`` and the catalogue's ``Phrase`` were two."""


def carriers(sources: dict[str, ast.Module]) -> set[str]:
    """``path:Class`` of each class that holds a message's id with its values itself: a field or an
    attribute ``msgid``, or both ``key`` and ``values`` (``BadInput``, the journal's and the voice's errors
    as they were: their ``msgid`` and ``values`` beside their English)."""
    found = set()
    for rel, tree in sources.items():
        for node in ast.walk(tree):
            if not isinstance(node, ast.ClassDef):
                continue
            names = {n.target.id for n in ast.walk(node)
                     if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)}
            names |= {n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store)
                      and isinstance(n.value, ast.Name) and n.value.id == "self"}
            if "msgid" in names or {"key", "values"} <= names:
                found.add(f"{rel}:{node.name}")
    return found


def test_a_message_and_its_values_have_one_carrier() -> None:
    assert carriers(_sources()) == CARRIERS


def test_the_carrier_rule_can_fail() -> None:
    """``BadInput`` and the engine's ``Says`` as they were, beside an error that keeps a phrase as its words."""
    bad_input = ast.parse("class BadInput(Exception):\n    def __init__(self, message, *, msgid=None, **values):\n"
                          "        self.msgid = msgid\n        self.values = values\n")
    says = ast.parse("@dataclass\nclass Says:\n    key: str\n    values: tuple = ()\n")
    worded = ast.parse("class JournalError(OSError):\n    def __init__(self, words):\n        self.words = words\n")
    assert carriers({"firmware_host/errors.py": bad_input, "engine/events.py": says,
                     "firmware_host/journal/store_errors.py": worded}) == {
        "firmware_host/errors.py:BadInput", "engine/events.py:Says"}


def words_as_tuples(sources: dict[str, ast.Module]) -> list[str]:
    """``path:line`` of each log line's words (``extra={"said": ...}``) given as a bare ``(msgid, values)``
    pair, or a list of them, rather than as the carrier (the drivers' ``said_as`` tuples as they were)."""
    found = []
    for rel, tree in sources.items():
        for node in ast.walk(tree):
            if not isinstance(node, ast.Dict):
                continue
            for key, value in zip(node.keys, node.values, strict=True):
                if not (isinstance(key, ast.Constant) and key.value == "said"):
                    continue
                pairs = [value, *(e for e in getattr(value, "elts", ()) if isinstance(e, ast.Tuple)),
                         *(n.elt for n in ast.walk(value) if isinstance(n, ast.ListComp | ast.GeneratorExp))]
                if any(isinstance(p, ast.Tuple) and p.elts and isinstance(p.elts[0], ast.Constant)
                       and isinstance(p.elts[0].value, str) for p in pairs):
                    found.append(f"{rel}:{node.lineno}")
    return found


def test_a_log_line_s_words_are_the_carrier() -> None:
    assert words_as_tuples(_sources()) == []


def test_the_log_words_rule_can_fail() -> None:
    """``drivers/nfc/hsu.py`` and ``drivers/nfc/pad.py`` as they were, beside a phrase and a tuple of them."""
    hsu = ast.parse('log(extra={"said": ("log.pn532_left_at", {"port": port, "rate": rate})})\n')
    pad = ast.parse('log(extra={"said": [("log.pad_frames", {"pad": p.zone, "frames": p.said_as}) for p in pads]})\n')
    phrase = ast.parse('log(extra={"said": Phrase.of("log.pn532_left_at", port=port)})\n')
    phrases = ast.parse('log(extra={"said": tuple(Phrase.of("log.pad_frames", pad=p.zone) for p in pads)})\n')
    assert words_as_tuples({"drivers/nfc/hsu.py": hsu, "drivers/nfc/pad.py": pad, "drivers/nfc/x.py": phrase,
                            "drivers/nfc/y.py": phrases}) == ["drivers/nfc/hsu.py:1", "drivers/nfc/pad.py:1"]


# -- words said by the catalogue: no class of ours says itself -------------------------------------------

SAYING_THEMSELVES = {
    "coach/review.py:CardFinding", "coach/review.py:DecisionFinding", "coach/review.py:Review",
    "firmware_host/cards/deck_check.py:Stranger", "firmware_host/checks/doctor.py:Refused",
}
"""What is left, none may be added: the coach's findings (``said(lang, names)``: several messages
composed with the players' names and the language's numbers, beside the ``text``, ``long_text``, ``lines``
and ``oled_line`` that word them the same way: one move to the catalogue, all five), a deck check's stranger
(``printed``: its card as the reader's pack prints it, which a phrase's value cannot ask yet), and the
doctor's refusal of ``run`` (the checks run and worded in the reader's language; ``firmware_host/app.py``'s
``run`` refusals are another change's). Every other error and result carries its words as the one carrier
(:class:`engine.message.Phrase`, or phrases joined: ``words``) and the edge says them
(:func:`catalogue.phrase.said`)."""


def saying_themselves(sources: dict[str, ast.Module]) -> set[str]:
    """``path:Class`` of each class outside the catalogue with a method ``said``: words made in a language
    by the class itself, not carried to the edge."""
    return {f"{rel}:{node.name}" for rel, tree in sources.items() if not rel.startswith("catalogue/")
            for node in ast.walk(tree) if isinstance(node, ast.ClassDef)
            and any(isinstance(f, ast.FunctionDef) and f.name == "said" for f in node.body)}


def test_no_class_says_itself_but_the_catalogue() -> None:
    assert saying_themselves(_sources()) == SAYING_THEMSELVES


def test_the_saying_rule_can_fail() -> None:
    """``hardware/tag_registry.py``'s error and ``firmware_host/errors.py``'s protocol as they were, beside
    an error that carries its words and the catalogue's own."""
    registry = ast.parse("class TagRegistryError(ValueError):\n    def said(self, lang):\n"
                         "        return self.words.said(lang)\n")
    protocol = ast.parse("class Said(Protocol):\n    def said(self, lang: str) -> str:\n        ...\n")
    carried = ast.parse("class TagRegistryError(ValueError):\n    def __init__(self, words):\n"
                        "        self.words = words\n")
    catalogue = ast.parse("class WordedError(ValueError):\n    def said(self, lang):\n        return ''\n")
    assert saying_themselves({"hardware/tag_registry.py": registry, "firmware_host/errors.py": protocol,
                              "hardware/table.py": carried, "catalogue/phrase.py": catalogue}) == {
        "hardware/tag_registry.py:TagRegistryError", "firmware_host/errors.py:Said"}


# -- a log line's words written once ------------------------------------------------------------------

def logged_twice(sources: dict[str, ast.Module]) -> list[str]:
    """``path:line`` of each log call outside the catalogue that writes its English beside its words
    (``logger.warning("the journal %s …", path, extra=logged(Phrase.of(…)))``): the English is the
    catalogue's, written once by :func:`catalogue.phrase.log_said`. A line whose words may be missing
    (``extra=logged(said) if said else None``: the service stopped by a caller that gave no words) keeps its
    English."""
    found = []
    for rel, tree in sources.items():
        if rel.startswith("catalogue/"):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and any(
                    k.arg == "extra" and isinstance(k.value, ast.Call) and isinstance(k.value.func, ast.Name)
                    and k.value.func.id == "logged" for k in node.keywords):
                found.append(f"{rel}:{node.lineno}")
    return found


def test_a_log_line_s_english_is_written_once() -> None:
    assert logged_twice(_sources()) == []


def test_the_written_once_rule_can_fail() -> None:
    """``firmware_host/service.py`` and ``screens/panel.py`` as they were, beside a line said once."""
    service = ast.parse('logger.warning("the journal can be written again",\n'
                        '               extra=logged(Phrase.of("log.journal_back")))\n')
    panel = ast.parse('logger.info("%s", message, extra=logged(Phrase.of("log.paused")))\n')
    once = ast.parse('log_said(logger, logging.INFO, Phrase.of("log.journal_back"))\n')
    assert logged_twice({"firmware_host/service.py": service, "firmware_host/screens/panel.py": panel,
                         "firmware_host/x.py": once}) == ["firmware_host/service.py:1",
                                                          "firmware_host/screens/panel.py:1"]

