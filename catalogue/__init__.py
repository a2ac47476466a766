"""Every word a player reads, in every language the table speaks: one gettext catalogue.

The words live in ``catalogue/locale/<lang>/LC_MESSAGES/ecarte.po`` (English, French, Italian,
German, Spanish), keyed by message id (``revoke``, ``prompt.deal.short``, ``page.trump``...),
compiled to ``.mo`` at build and install time (:mod:`catalogue.compile_po`, Babel) and read with
the standard library's :mod:`gettext`. A template's ``{who}``, ``{card}``, ``{n}``... are filled
with :meth:`str.format`::

    >>> say("fr", "game_over", who="Anne"), say("es", "revoke", who="Ana", suit="♥")
    ('Anne gagne', 'Ana debe seguir el palo de ♥')
    >>> say("de", "prompt.draw.short", n=2)
    '2 ziehen'

Where a number meets a noun the message has plural forms (``msgid_plural``, as many ``msgstr[i]``
as the language's ``Plural-Forms`` header says: Babel's CLDR rules, French taking the singular for 0
and 1) and :func:`say_n` picks the form for the number (gettext's ``ngettext``)::

    >>> say_n("fr", "count.cards", 0), say_n("es", "count.cards", 0), say_n("it", "count.cards", 1)
    ('0 carte', '0 cartas', '1 carta')

The command line's words are the one exception to ids: argparse looks its texts up by their English
(``usage: ``, ``invalid choice: %(value)r (choose from %(choices)s)``), so those, and every command's
and flag's help beside them, are keyed by their English, ``%``-formatted by argparse
(:mod:`cli.words`).

The engine knows no language: it names what it means by ids (a fault's code, a prompt's key,
an event's kind) and this package words them. Fitting words to the OLED's 128 pixels is the
OLED renderer's job (:mod:`firmware_host.screens.chooser`); the page shows them whole.
"""

from __future__ import annotations

import errno
import functools
import gettext
import io
import re
from collections.abc import Iterable, Mapping
from pathlib import Path

TYPE_CHECKING = False  # typing and logging are not imported at run time: ``--help`` reads this module (cli.main)
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "AGREEING",
    "DOMAIN",
    "LANGUAGES",
    "LOCALE_DIR",
    "SUIT_SYMBOLS",
    "agree",
    "card_words",
    "elide",
    "has",
    "ids",
    "is_plural",
    "language",
    "messages",
    "moment",
    "number",
    "os_reason",
    "percent",
    "plural_forms",
    "prompt_words",
    "rule_set",
    "said",
    "say",
    "say_n",
    "say_or",
    "template",
    "template_n",
    "translations",
    "zones",
]

LANGUAGES = ("en", "fr", "it", "de", "es")
"""The languages the table speaks (the table file picks one; English by default)."""

DOMAIN = "ecarte"
LOCALE_DIR = Path(__file__).resolve().parent / "locale"


def po_path(lang: str, locale_dir: Path = LOCALE_DIR) -> Path:
    """Where ``lang``'s ``.po`` lives (its ``.mo`` beside it)."""
    return locale_dir / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


def _warn(message: str, *values: object) -> None:
    """A warning of this module's logger (``catalogue``), :mod:`logging` imported only then."""
    import logging

    logging.getLogger(__name__).warning(message, *values)


_STALE_S = 2.0
"""A ``.po`` this much newer than its ``.mo`` was edited since the last compile (a wheel unpacks
both within the same second or two)."""


def language(name: str | None) -> str:
    """``name`` if the table speaks it, else English (with a warning)."""
    if name is None or name in LANGUAGES:
        return name or "en"
    _warn("the table does not speak %r: English instead (one of %s)", name, ", ".join(LANGUAGES))
    return "en"


@functools.cache
def translations(lang: str) -> gettext.GNUTranslations:
    """``lang``'s compiled catalogue (English behind it for an id it lacks, which a test forbids).

    Reads the ``.mo`` the build compiled; a ``.mo`` missing or older than its ``.po`` (edited since)
    is compiled from the ``.po`` in memory with Babel, with a warning.

    :raises KeyError: a language the table does not speak.
    """
    if lang not in LANGUAGES:
        raise KeyError(f"the table does not speak {lang!r} (one of {', '.join(LANGUAGES)})")
    po = po_path(lang)
    mo = po.with_suffix(".mo")
    if mo.exists() and (not po.exists() or po.stat().st_mtime <= mo.stat().st_mtime + _STALE_S):
        with mo.open("rb") as f:
            found = gettext.GNUTranslations(f)
    else:
        from catalogue.compile_po import mo_bytes

        _warn("%s is %s: compiled from its .po now (python -m catalogue.compile_po writes it)",
                       mo.relative_to(LOCALE_DIR.parent), "older than its .po" if mo.exists() else "missing")
        found = gettext.GNUTranslations(io.BytesIO(mo_bytes(po)))
    if lang != "en":
        found.add_fallback(translations("en"))
    return found


def template(lang: str, msgid: str) -> str:
    """The words of ``msgid`` in ``lang``, placeholders unfilled (a message with plural forms: the
    form for 2, as :func:`say_n` would pick it).

    :raises KeyError: an id the catalogue does not hold.
    """
    return _template(lang if lang in LANGUAGES else language(lang), msgid)


@functools.lru_cache(maxsize=4096)
def _template(lang: str, msgid: str) -> str:
    """:func:`template` for a language the table speaks, cached: every event words its screen, its
    narration and its page again, and gettext's lookup through the fallback costs more than the
    words (the catalogue holds about 700 ids a language; an unknown id raises and is not kept)."""
    if is_plural(msgid):
        return template_n(lang, msgid, 2)
    text = translations(lang).gettext(msgid)
    if text == msgid and msgid not in _ids():
        raise KeyError(f"no message {msgid!r} in the catalogue")
    return text


def template_n(lang: str, msgid: str, n: int) -> str:
    """The form of ``msgid`` (a message with plural forms) for the number ``n`` in ``lang``,
    placeholders unfilled.

    :raises KeyError: an id the catalogue does not hold with plural forms.
    """
    if not is_plural(msgid):
        raise KeyError(f"no message {msgid!r} with plural forms in the catalogue")
    return translations(language(lang)).ngettext(msgid, msgid, n)


def plural_forms(lang: str, msgid: str) -> dict[str, str]:
    """``msgid``'s forms in ``lang`` by CLDR plural category (``one``, ``many``, ``other``), for a
    page that picks one with the browser's ``Intl.PluralRules`` (the same CLDR rules as Babel's)::

        >>> plural_forms("fr", "count.cards")
        {'one': '{n} carte', 'other': '{n} cartes', 'many': '{n} de cartes'}
    """
    from babel import Locale

    rule = Locale.parse(language(lang)).plural_form
    forms: dict[str, str] = {}
    for n in (*range(0, 200), 1_000_000):
        forms.setdefault(rule(n), template_n(lang, msgid, n))
    return forms


def number(lang: str, value: float, digits: int = 2, *, signed: bool = False) -> str:
    """``value`` written as ``lang`` writes a number (Babel, CLDR), ``digits`` after the decimal sign,
    with its sign when ``signed``::

        >>> number("fr", 0.62), number("en", 0.62), number("de", 0.39, signed=True), number("es", -1.5, 1)
        ('0,62', '0.62', '+0,39', '-1,5')
    """
    from babel.numbers import format_decimal

    pattern = "0" + ("." + "0" * digits if digits else "")
    return format_decimal(value, f"+{pattern};-{pattern}" if signed else pattern, locale=language(lang))


def percent(lang: str, fraction: float, digits: int = 0) -> str:
    """``fraction`` as a percentage written as ``lang`` writes one (Babel, CLDR: the French space)::

        >>> percent("fr", 0.316, 1), percent("en", 0.316, 1), percent("es", 0.93)
        ('31,6\xa0%', '31.6%', '93\xa0%')
    """
    from babel import Locale
    from babel.numbers import format_percent

    pattern = Locale.parse(language(lang)).percent_formats[None].pattern
    if digits:
        pattern = re.sub(r"0(?=[^0#]*$)", "0." + "0" * digits, pattern, count=1)
    return format_percent(fraction, pattern, locale=language(lang))


def moment(lang: str, when: float | str, *, time_too: bool = True) -> str:
    """A moment (seconds since the epoch, or ISO 8601) in the local time zone, as ``lang`` writes a
    date (Babel's medium date, short time)::

        >>> moment("fr", "2026-11-28T09:05:00+00:00", time_too=False), moment("es", "2026-11-28", time_too=False)
        ('28 nov. 2026', '28 nov 2026')
    """
    import datetime

    from babel.dates import format_date, format_time

    if isinstance(when, str):
        at = datetime.datetime.fromisoformat(when)
        at = at.astimezone() if at.tzinfo is not None else at
    else:
        at = datetime.datetime.fromtimestamp(when)
    lang = language(lang)
    day = format_date(at.date(), "medium", locale=lang)
    return f"{day} {format_time(at.time(), 'short', locale=lang)}" if time_too else day


def say_n(lang: str, msgid: str, n: int, /, **values: Any) -> str:
    """The words of ``msgid`` in ``lang`` in the form for the number ``n`` (put in as ``{n}``),
    with ``values`` put in.

    :raises KeyError: an id the catalogue does not hold with plural forms.
    """
    return elide(lang, agree(lang, template_n(lang, msgid, n).format(n=n, **values)))


def say(lang: str, msgid: str, /, **values: Any) -> str:
    """The words of ``msgid`` in ``lang`` with ``values`` put in (``{who}``, ``{card}``...), a printed
    card's article agreeing with the card (:func:`agree`)."""
    return elide(lang, agree(lang, template(lang, msgid).format(**values)))


_BEFORE_CARD = r"\b([Ee]l|[Ll]e|[Ii]l|[Dd]el|[Dd]u|[Aa]u|[Aa]l|[Dd]al|[Nn]el|[Ss]ul) "
AGREEING = ("es", "fr", "it")
"""The languages whose templates put the masculine article before a printed card (``el {card}``,
``le {card}``, ``il {card}``, and contracted with a preposition: ``du``, ``au``, ``del``, ``al``...), and the
masculine of an adjective after it (``{card} retourné``), for :func:`agree` to make the card's own."""

_ARTICLE = {"fr": "le", "it": "il", "es": "el"}
"""The masculine article the templates write before a printed card."""

_CONTRACTED: dict[str, dict[str, dict[str, str]]] = {
    "fr": {"du": {"la": "de la ", "l'": "de l'"}, "au": {"la": "à la ", "l'": "à l'"}},
    "it": {p: {"la": p[:-1] + "lla ", "l'": p[:-1] + "ll'"} for p in ("del", "al", "dal", "nel", "sul")},
    "es": {"del": {"la": "de la "}, "al": {"la": "a la "}},
}
"""A preposition contracted with the masculine article (``du``: *de* + *le*) → the form it takes before a
card whose article is another (``de la``, ``de l'``; Italian *della*, *dell'*; Spanish *de la*)."""

_FEMININE: dict[str, dict[str, str]] = {
    "fr": {"retourné": "retournée", "meilleur": "meilleure", "vu": "vue", "joué": "jouée", "posé": "posée"},
    "it": {"girato": "girata", "visto": "vista", "giocato": "giocata"},
    "es": {"visto": "vista", "jugado": "jugada", "vuelto": "vuelta"},
}
"""An adjective the templates write in the masculine after a printed card → its feminine, for a card whose
name is feminine (the queen: *la dame*, *la donna*, *la reina*; the Spanish jack, *la sota*)."""

_AFTER = r"((?: (?:était|est|a été|era|è|è stato|es|está|fue))? )(\w+)"


@functools.cache
def _printed_card_patterns() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """A printed card after its article, and a printed card with the word after it (the engine's suit
    symbols: asked when first needed, so that ``--help`` reads this module without the engine)."""
    from engine.cards import SUIT_SYMBOLS

    card = rf"((?:10|[2-9A-Z])[{''.join(SUIT_SYMBOLS.values())}])"
    return re.compile(_BEFORE_CARD + card), re.compile(card + _AFTER)


def agree(lang: str, text: str) -> str:
    """``text`` with the article before each printed card made the card's own, and an adjective after it
    agreeing with it: a card's gender comes with its name (``article.<rank>``: the queen is *la reina*, *la
    dame*, *la donna*; the jack *la sota*; *l'as*, *l'asso*, *l'otto*); the templates write the masculine
    (``le``, ``du``, ``au``; ``il``, ``del``, ``al``; ``el``, ``del``, ``al``; ``retourné``)::

        >>> agree("es", "retirar el Q♠"), agree("fr", "Reprenez le A♣"), agree("it", "riprendi il 8♥")
        ('retirar la Q♠', "Reprenez l'A♣", "riprendi l'8♥")
        >>> agree("fr", "au lieu du A♦"), agree("it", "invece del 8♠"), agree("es", "en lugar del Q♠")
        ("au lieu de l'A♦", "invece dell'8♠", 'en lugar de la Q♠')
        >>> agree("fr", "la D♠ était meilleur"), agree("fr", "atout : D♦ retourné")
        ('la D♠ était meilleure', 'atout : D♦ retournée')
    """
    if lang not in AGREEING or ("♠" not in text and "♥" not in text and "♦" not in text and "♣" not in text):
        return text
    ranks = _printed_ranks(lang)

    def own(match: re.Match[str]) -> str:
        written, printed = match.group(1), match.group(2)
        article = ranks.get(printed[:-1])
        lower = written.lower()
        if article is None or article == _ARTICLE[lang]:
            return match.group(0)
        if lower == _ARTICLE[lang]:
            form = article if article.endswith("'") else article + " "
        else:
            forms = _CONTRACTED[lang].get(lower)
            if forms is None or article not in forms:
                return match.group(0)
            form = forms[article]
        if written[0].isupper():
            form = form[:1].upper() + form[1:]
        return form + printed

    def feminine(match: re.Match[str]) -> str:
        printed, between, word = match.groups()
        if ranks.get(printed[:-1]) != "la" or word not in _FEMININE[lang]:
            return match.group(0)
        return printed + between + _FEMININE[lang][word]

    after_article, after_card = _printed_card_patterns()
    return after_card.sub(feminine, after_article.sub(own, text))


_ELIDING = re.compile(r"\b([Dd]e|[Qq]ue|[Jj]e|[Nn]e) (?=[aeiouéèêàâîôû])")


def elide(lang: str, text: str) -> str:
    """``text`` with French *de*, *que*, *je*, *ne* elided before a word put in that starts with a vowel (a
    verb, a noun: ``de {best}`` with *accepter*); never before a printed card (its rank is a capital) nor
    an *h*, which may be aspirated::

        >>> elide("fr", "le mieux était de accepter"), elide("fr", "de jouer"), elide("es", "de a")
        ("le mieux était d'accepter", 'de jouer', 'de a')
    """
    if lang != "fr" or " " not in text:
        return text
    return _ELIDING.sub(lambda match: match.group(1)[0] + "'", text)


def __getattr__(name: str) -> dict[str, str]:
    """``SUIT_SYMBOLS``: a printed card's suit, the same symbol in every language, as the engine writes it
    (``engine.cards``, the cards' one alphabet), given on to the screens, which know no engine. Imported
    when asked: ``--help`` reads this module without the engine."""
    if name == "SUIT_SYMBOLS":
        from engine.cards import SUIT_SYMBOLS

        return SUIT_SYMBOLS
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def card_words(lang: str, code: str) -> str:
    """The card ``code`` (``"KS"``, rank then suit) as ``lang``'s pack prints it: the rank as that
    language prints it, the suit's symbol (a French king is an R, a German jack a B, the ten 10)::

        >>> card_words("fr", "KS"), card_words("de", "JH"), card_words("it", "TD"), card_words("en", "QC")
        ('R♠', 'B♥', '10♦', 'Q♣')

    The one place a card is worded for reading (the OLED, the page, the coach, the deck check, the
    enrolment; the voice says it in full, ``voice.card``).

    :raises ValueError: not a card.
    """
    from engine.cards import RANKS, SUIT_SYMBOLS  # the cards' one alphabet (late: see __getattr__)

    if len(code) != 2 or code[1] not in SUIT_SYMBOLS or code[0] not in RANKS:
        raise ValueError(f"not a card: {code!r} (rank then suit, like 'TH')")
    return _printed_rank(language(lang), code[0]) + SUIT_SYMBOLS[code[1]]




def _printed_rank(lang: str, rank: str) -> str:
    """``rank`` as ``lang`` prints it (``rank.*``; a pip card's number is its own word)."""
    return say(lang, "rank." + rank) if rank in "TJQKA" else rank


@functools.cache
def _printed_ranks(lang: str) -> dict[str, str]:
    """A rank as ``lang`` prints it (``D``, ``10``) → its article."""
    from engine.cards import RANKS

    out = {}
    for code in RANKS:
        out[_printed_rank(lang, code)] = translations(lang).gettext("article." + code)
    return out


_CARD_VALUES = frozenset({"card", "beat", "best", "played"})
"""A message's values that are a card's code (``KS``): worded as the language prints the card."""

_NESTED = {"what": "says.doing.", "where": "says.where.", "action": "says.act.", "code": "says.code.",
           "remedy": "remedy.", "button": "says.button.", "why": "says.why.", "rules": "menu."}
"""A message's values that are the id of words of their own (``what``: ``dealing``...), by prefix."""


def said(lang: str, msgid: str, values: Mapping[str, Any]) -> str:
    """What a fault or a notice says (``msgid``: ``says.<key>``, ``remedy.<code>``) in ``lang``, from its
    ``values`` as data: a card's code worded as the language prints it (``card``, ``beat``, ``best``,
    ``played``), a suit by its name (``suit``), the table's prompt by its key (``expects``, with
    ``expects_seat`` and ``expects_n``), and the ids of nested words (``what``, ``where``, ``action``...)
    worded with the same values, a phrase (a setup's problem) said in ``lang``; the others (seats, numbers,
    a tag) as they are::

        >>> said("en", "says.revoke_win", {"seat": "B", "suit": "H", "card": "7S"})
        'B must follow hearts and win the trick: take back the 7♠'
        >>> said("fr", "says.wrong_time", {"seat": "A", "what": "deal", "expects": "play", "expects_seat": "B"})
        'donner : pas maintenant ; B joue'

    :raises KeyError: an id the catalogue does not hold.
    """
    lang = language(lang)
    worded = _worded(lang, values)
    if is_plural(msgid):  # a count meets a noun: ``n`` picks the form
        return say_n(lang, msgid, int(worded.pop("n", "0") or 0), **worded)
    return say(lang, msgid, **worded)


def prompt_words(lang: str, key: str, seat: str, n: int = 0) -> tuple[str, str]:
    """What the table waits for (the engine's prompt ``key``, its ``seat``, ``n`` cards) in ``lang``,
    in a few words and in a sentence (``prompt.<key>.short``, ``prompt.<key>``)::

        >>> prompt_words("en", "draw", "B", 2)
        ('draw 2', 'B draws 2 from the stock')
    """
    lang = language(lang)
    return say(lang, f"prompt.{key}.short", seat=seat, n=n), say(lang, f"prompt.{key}", seat=seat, n=n)


def _worded(lang: str, values: Mapping[str, Any]) -> dict[str, str]:
    from catalogue.phrase import Phrase
    from catalogue.phrase import said as phrase_said

    out = dict(values)
    for name, value in values.items():
        if isinstance(value, Phrase):
            out[name] = phrase_said(value, lang)
        elif name in _CARD_VALUES:
            out[name] = card_words(lang, value) if value else ""
        elif name == "suit" and value:
            out[name] = say(lang, "voice.suit." + value)
        elif name == "expects":
            out[name] = say(lang, "prompt." + value, seat=values.get("expects_seat", ""),
                            n=values.get("expects_n", "0")) if value else ""
    plain = dict(out)
    # the nested words take the plain values; ``what`` last, as it may nest an ``action`` or ``rules``
    for name in sorted(_NESTED.keys() & values.keys(), key=lambda n: n == "what"):
        msgid = _NESTED[name] + values[name]
        if values[name] and has(msgid):
            out[name] = say(lang, msgid, **(out if name == "what" else plain))
    return out


def zones(lang: str, names: Iterable[str]) -> str:
    """The pads ``names`` (the table file's ``hand.A``, ``turnup``...) as a player calls them, in
    their order, a pad the catalogue does not name as it is::

        >>> zones("fr", ["turnup", "play.A"]), zones("en", ["hand.B"])
        ('retourne, jeu de A', "B's hand")
    """
    return ", ".join(say_or(lang, f"zone.{name}", name) for name in names)


def say_or(lang: str, msgid: str, default: str) -> str:
    """The words of ``msgid`` in ``lang``, or ``default`` where the catalogue has no such id (a number
    is its own word, a code it does not word is said as it is)::

        >>> say_or("fr", "rank.K", "K"), say_or("fr", "rank.9", "9")
        ('R', '9')
    """
    return say(lang, msgid) if has(msgid) else default


@functools.cache
def _ids() -> frozenset[str]:
    return frozenset(ids())


def has(msgid: str) -> bool:
    """Whether the catalogue holds ``msgid``."""
    return msgid in _ids()


@functools.cache
def ids() -> tuple[str, ...]:
    """Every message id (sorted, as the compiled catalogue holds them; a message with plural forms once)."""
    return tuple(sorted({str(key[0] if isinstance(key, tuple) else key)
                         for key in translations("en")._catalog if key}))  # type: ignore[attr-defined]


@functools.cache
def _plurals() -> frozenset[str]:
    return frozenset(str(key[0]) for key in translations("en")._catalog  # type: ignore[attr-defined]
                     if isinstance(key, tuple))


def is_plural(msgid: str) -> bool:
    """Whether ``msgid`` has plural forms (:func:`say_n` words it)."""
    return msgid in _plurals()


def rule_set(lang: str, described: str) -> str:
    """A rule set as the engine describes it (``italian(forzare, target=7)``) in ``lang``'s words::

        >>> rule_set("es", "italian(forzare, target=7)"), rule_set("fr", "classic")
        ('italiana (forzare, juego a 7)', 'classique')
    """
    name, _, rest = described.partition("(")
    options = [option.strip() for option in rest.rstrip(")").split(",") if option.strip()]
    shown = []
    for option in options:
        key, _, value = option.partition("=")
        shown.append(_menu_word(lang, key) + (f" {_menu_word(lang, value)}" if value else ""))
    return _menu_word(lang, name.strip()) + (f" ({', '.join(shown)})" if shown else "")


def _menu_word(lang: str, word: str) -> str:
    """A menu's word for ``word`` (a rule set, an option, a value), else ``word`` itself (a number)."""
    return say_or(lang, "menu." + word, word)


def messages(lang: str, prefix: str = "") -> dict[str, str]:
    """Every message of ``lang`` whose id starts with ``prefix`` (the prefix left out of the keys)."""
    lang = language(lang)
    return {msgid[len(prefix):]: template(lang, msgid) for msgid in ids() if msgid.startswith(prefix)}


_REASONS = {errno.ENOENT: "ENOENT", errno.EACCES: "EACCES", errno.EPERM: "EPERM", errno.EISDIR: "EISDIR",
            errno.ENOTDIR: "ENOTDIR", errno.ENOSPC: "ENOSPC", errno.EROFS: "EROFS", errno.EBUSY: "EBUSY",
            errno.EEXIST: "EEXIST", errno.ENAMETOOLONG: "ENAMETOOLONG", errno.ELOOP: "ELOOP",
            errno.EADDRINUSE: "EADDRINUSE", errno.EADDRNOTAVAIL: "EADDRNOTAVAIL", errno.ECONNREFUSED: "ECONNREFUSED",
            errno.ENXIO: "ENXIO", errno.ENODEV: "ENXIO", errno.EIO: "EIO", errno.ETIMEDOUT: "ETIMEDOUT",
            errno.EAFNOSUPPORT: "EAFNOSUPPORT"}


def os_reason(lang: str, exc: OSError) -> str:
    """Why the system refused, in ``lang``'s words (``os.ENOENT``: "no existe"); an error the catalogue
    does not word by its code's name (``os.other``: "el sistema se negó (ECONNRESET)"), never the C
    library's English (an ``OSError`` with no code is a library's own words, said as they are)::

        >>> os_reason("fr", FileNotFoundError(2, "No such file or directory")), os_reason("de", OSError(104, "x"))
        ('aucun fichier ou dossier de ce nom', 'das System hat abgelehnt (ECONNRESET)')
    """
    name = _REASONS.get(exc.errno or 0)
    if name is not None:
        return say(lang, "os." + name)
    if exc.errno is None:
        return str(exc) or type(exc).__name__
    return say(lang, "os.other", name=errno.errorcode.get(exc.errno, str(exc.errno)))
