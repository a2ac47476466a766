"""The *jeu de règle*: Foster's counts, and the hands the classics play (or refuse with) as dealt.

Foster's Hoyle counts the dealer's possible hands, C(26, 5) = 65,780 (the elder has seen his
five and the turn-up), and the odds against the dealer holding two trumps or more when the
elder holds one (44,574 to 21,206) or two (50,274 to 15,506). :func:`foster_counts` counts them
by going through every hand, as the tests do against Foster's figures::

    >>> from engine.cards import Card, mask_of
    >>> foster_counts(mask_of("KH 7S 8S 9D TC".split()), Card.parse("7H").index)
    (44574, 21206)

:data:`ROWS` is the table: the elder's rows (hands to play without proposing) and the dealer's
(hands to refuse with), each with the words of its source, or marked as the project's own.
:func:`classify` says which row a hand falls under and what the classics advise for it (with
the king of trumps they advise the other way: Foster, the Britannica). Every row is weighed
against the exact odds, over every hand it describes, by :mod:`coach.regle_table`
(``bench/regle.py`` prints the table of ``docs/coach.md``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from itertools import combinations

from catalogue import say
from catalogue.phrase import Phrase, said
from engine.cards import ALL_CARDS, SUIT_MASKS
from engine.legality import KING

QUEEN = KING - 1
KNAVE = KING - 2
ACE = KING - 3
COURT = (KING, QUEEN, KNAVE)
"""Rank indices of the court cards: king, queen, knave (engine.cards.RANKS)."""
COURT_MASK = sum(1 << r for r in COURT)
"""The court cards of one suit's holding (eight bits): the tierce major when all three are held."""


def foster_counts(elder: int, turn_up: int, *, at_least: int = 2) -> tuple[int, int]:
    """Dealer's hands with fewer than ``at_least`` trumps, and with ``at_least`` or more: every
    five of the 26 unseen cards, counted one by one."""
    trumps = SUIT_MASKS[turn_up >> 3]
    unseen = [1 << i for i in range(32) if (ALL_CARDS & ~elder & ~(1 << turn_up)) >> i & 1]
    trump_flags = [bool(c & trumps) for c in unseen]
    fewer = more = 0
    for chosen in combinations(trump_flags, 5):
        if sum(chosen) >= at_least:
            more += 1
        else:
            fewer += 1
    return fewer, more


# -- sources ---------------------------------------------------------------------------------------------

FOSTER = "R. F. Foster, Foster's Complete Hoyle, 'Écarté', the jeux de règle (bitlit.ru copy, its page 271)"
BRITANNICA = ("Encyclopædia Britannica, 11th ed. (1911), vol. 8, 'Écarté' (bitlit.ru copy of "
              "'Dyer to Echidna', slice 9, its pages 167-168)")
HOFFMANN = "Prof. Hoffmann (ed.), Hoyle's Games Modernized (London: Routledge, 1909), 'Écarté', part 8"
OWN = "the project's own (no source found)"

FOSTER_DEFINITION = ("\"any hand which is certain to win three tricks if the dealer has not two trumps, "
                     "has odds of two to one in its favour, and all such hands are called jeux de règle. "
                     "The natural inference from this is that such hands should always be played without "
                     "proposing, unless they contain the King of trumps.\"")
BRITANNICA_KING = ("\"If you hold a jeu de règle, and one of the trumps is the king, propose, as your "
                   "adversary cannot then take in the king.\"")
BRITANNICA_DEALER = ("\"The hands with which to refuse are the same as those with which to play without "
                     "proposing, except as follows:\"")


# -- the hand, suit by suit ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Shape:
    """A hand seen from its trump suit: ``trumps`` (how many), ``plain`` (the three plain suits'
    holdings, eight bits each, rank 0 = the seven), ``king`` (it holds the king of trumps)."""

    trumps: int
    plain: tuple[int, int, int]
    king: bool

    @classmethod
    def of(cls, hand: int, trump: int) -> Shape:
        plain = tuple(hand >> (8 * s) & 0xFF for s in range(4) if s != trump)
        held = hand >> (8 * trump) & 0xFF
        return cls(held.bit_count(), (plain[0], plain[1], plain[2]), bool(held >> KING & 1))

    def count(self, rank: int) -> int:
        """Plain cards of this rank."""
        return sum(h >> rank & 1 for h in self.plain)

    def courts(self) -> int:
        return sum(self.count(r) for r in COURT)

    def singly_guarded(self, rank: int) -> int:
        """Plain suits holding this rank with exactly one other card, a lower one."""
        return sum(1 for h in self.plain if _singly_guarded(h, rank))

    def lengths(self) -> list[int]:
        return sorted((h.bit_count() for h in self.plain), reverse=True)


def _bit(rank: int) -> int:
    return 1 << rank


def _top(holding: int) -> int:
    return holding.bit_length() - 1


def _guarded_by_lower(holding: int, rank: int) -> bool:
    """``rank`` held with at least one lower card of its suit."""
    return bool(holding >> rank & 1) and bool(holding & (_bit(rank) - 1))


def _singly_guarded(holding: int, rank: int) -> bool:
    """``rank`` held with exactly one other card of its suit, a lower one."""
    return holding.bit_count() == 2 and _top(holding) == rank


def _alone(holding: int, rank: int) -> bool:
    return holding == _bit(rank)


def three_trumps(s: Shape) -> bool:
    return s.trumps >= 3


def two_and_three_of_a_suit(s: Shape) -> bool:
    return s.trumps == 2 and s.lengths()[0] == 3


def two_and_three_headed_by_court(s: Shape) -> bool:
    return two_and_three_of_a_suit(s) and any(h.bit_count() == 3 and _top(h) >= KNAVE for h in s.plain)


def two_queen_guarded_small(s: Shape) -> bool:
    """Two trumps, a queen guarded (queen and a lower card, no king) and a small card (below a knave)
    of another suit."""
    if s.trumps != 2:
        return False
    for i, h in enumerate(s.plain):
        if _singly_guarded(h, QUEEN):
            rest = [o for j, o in enumerate(s.plain) if j != i and o]
            return len(rest) == 1 and _top(rest[0]) < KNAVE
    return False


def two_king_guarded(s: Shape) -> bool:
    """Project's old row: two trumps, a king with another card of its suit, a card of a third suit."""
    return s.trumps == 2 and s.lengths() == [2, 1, 0] and s.singly_guarded(KING) > 0


def two_and_two_kings(s: Shape) -> bool:
    return s.trumps == 2 and s.count(KING) >= 2


def one_and_tierce_major(s: Shape) -> bool:
    return s.trumps == 1 and any(h & COURT_MASK == COURT_MASK for h in s.plain)


def one_tierce_major_and_court(s: Shape) -> bool:
    """The dealer's: one trump, a tierce major and a fifth card that is a court card."""
    return one_and_tierce_major(s) and s.courts() >= 4


def one_and_four(s: Shape) -> bool:
    return s.trumps == 1 and s.lengths()[0] == 4


def one_and_two_queens(s: Shape) -> bool:
    return s.trumps == 1 and s.count(QUEEN) >= 2


def one_and_two_queens_singly_guarded(s: Shape) -> bool:
    return s.trumps == 1 and s.singly_guarded(QUEEN) == 2


def _queen_and_guarded_knave(s: Shape) -> tuple[int, int] | None:
    """The suits (queen's, knave's) of a queen of one suit and a guarded knave of another."""
    for q, hq in enumerate(s.plain):
        if not hq >> QUEEN & 1:
            continue
        for k, hk in enumerate(s.plain):
            if k != q and _top(hk) == KNAVE and _guarded_by_lower(hk, KNAVE):
                return q, k
    return None


def one_queen_and_guarded_knave(s: Shape) -> bool:
    return s.trumps == 1 and _queen_and_guarded_knave(s) is not None


def one_queen_and_guarded_knave_dealer(s: Shape) -> bool:
    """The dealer's: as the elder's, and the queen is guarded or the fourth suit's card is a court card."""
    if s.trumps != 1:
        return False
    found = _queen_and_guarded_knave(s)
    if found is None:
        return False
    q, k = found
    fourth = s.plain[3 - q - k]
    return s.plain[q].bit_count() >= 2 or (fourth != 0 and _top(fourth) >= KNAVE)


def _king_queen_unguarded(s: Shape) -> int | None:
    """The fourth suit's holding of one trump, a king and a queen both unguarded (of two suits)."""
    if s.trumps != 1:
        return None
    for k, hk in enumerate(s.plain):
        for q, hq in enumerate(s.plain):
            if k != q and _alone(hk, KING) and _alone(hq, QUEEN):
                return s.plain[3 - k - q]
    return None


def one_king_queen_unguarded(s: Shape) -> bool:
    return _king_queen_unguarded(s) is not None


def one_king_queen_unguarded_dealer(s: Shape) -> bool:
    fourth = _king_queen_unguarded(s)
    return fourth is not None and _top(fourth) >= ACE


def one_kq_and_king(s: Shape) -> bool:
    """Project's old row: one trump, king and queen of one suit and the king of another."""
    kq = _bit(KING) | _bit(QUEEN)
    return s.trumps == 1 and any(h & kq == kq for h in s.plain) and s.count(KING) >= 2


def none_four_courts(s: Shape) -> bool:
    return s.trumps == 0 and s.courts() >= 4


def none_four_courts_three_suits(s: Shape) -> bool:
    return none_four_courts(s) and all(h & COURT_MASK for h in s.plain)


def none_three_queens(s: Shape) -> bool:
    return s.trumps == 0 and s.count(QUEEN) >= 3


def none_three_queens_two_singly_guarded(s: Shape) -> bool:
    return none_three_queens(s) and s.singly_guarded(QUEEN) >= 2


def two_to_discard(s: Shape) -> bool:
    """Trumps and kings make three cards or more: no more than two could be discarded."""
    return s.trumps + s.count(KING) >= 3


# -- the table -------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Row:
    """A row of the table: ``seat`` ("elder": play without proposing; "dealer": refuse), ``name``
    (short: the elder's are shown in the hint, which must fit the OLED's status line), ``text`` (the
    rule in words), ``source`` (edition and place) and ``quote`` (the source's words), ``own`` (no
    source found),
    ``test`` (the row's predicate on the hand's :class:`Shape`)."""

    seat: str
    name: str
    text: str
    source: str
    quote: str
    own: bool
    test: Callable[[Shape], bool]

    @property
    def key(self) -> str:
        return f"{self.seat}:{self.name}"

    @property
    def words(self) -> Phrase:
        """The row's words (``row.<seat>.<name>``; English's are :attr:`text`)::

            >>> DEALER_ROWS[7].name, said(DEALER_ROWS[7].words, "fr")
            ('0T+4C3', 'aucun atout, quatre figures de trois couleurs différentes')
        """
        return Phrase.of(f"row.{self.seat}.{self.name}")

    def named(self, lang: str = "en") -> str:
        """The row's name with its words, for a reader who does not know the table's codes:
        ``'0T+4C3 (no trump, four court cards of three different suits)'``."""
        return f"{self.name} ({said(self.words, lang)})"


def _e(name: str, text: str, source: str, quote: str, test: Callable[[Shape], bool], own: bool = False) -> Row:
    return Row("elder", name, text, source, quote, own, test)


def _d(name: str, text: str, source: str, quote: str, test: Callable[[Shape], bool], own: bool = False) -> Row:
    return Row("dealer", name, text, source, quote, own, test)


ELDER_ROWS: tuple[Row, ...] = (
    _e("3T", "three trumps or more, whatever the other cards",
       HOFFMANN, "\"With three trumps, refuse, unless the king of trumps is one of the three\" (the dealer's "
       "rule; the elder's list of the Britannica, which it shares, was not found in the sources at hand); "
       "Hoffmann's example: \"A holds queen, ace, and seven of hearts (trumps), king of spades, king of "
       "diamonds, and, of course, plays without proposing\"", three_trumps),
    _e("2T+3", "two trumps, the other three cards of one plain suit",
       BRITANNICA, "\"1. Two trumps and three cards of one plain suit should not be played [by the dealer] "
       "unless the plain suit is headed by a court card.\" (an exception to the elder's list, which holds it "
       "whatever the suit's head)", two_and_three_of_a_suit),
    _e("2T+Qxx", "two trumps, a queen guarded by a lower card, and a small card (below a knave) of another suit",
       "source not found", "named as classical in issue 18; the words were not found in the sources at hand",
       two_queen_guarded_small),
    _e("1T+KQJ", "one trump and a tierce major (king, queen, knave of a plain suit), any fifth card",
       BRITANNICA, "\"2. One trump and a tierce major is too weak [for the dealer], unless the fifth card is "
       "a court card.\"", one_and_tierce_major),
    _e("1T+4", "one trump and four cards of one plain suit",
       BRITANNICA, "\"3. One trump and four cards of a plain suit is too weak to play [for the dealer].\"",
       one_and_four),
    _e("1T+2Q", "one trump and two queens",
       BRITANNICA, "\"4. One trump and two queens is too weak [for the dealer], unless both queens are "
       "singly guarded.\"", one_and_two_queens),
    _e("1T+QJx", "one trump, a queen of one suit and a guarded knave (knave and a lower card) of another",
       BRITANNICA, "\"5. One trump, queen of one suit, and knave guarded of another should not be played "
       "[by the dealer] unless the queen is also guarded, or the card of the fourth suit is a court card.\"",
       one_queen_and_guarded_knave),
    _e("1T+K/Q", "one trump, a king and a queen both unguarded (alone in their suits), two cards of the fourth suit",
       BRITANNICA, "\"6. One trump, a king and a queen, both unguarded, should not be played [by the dealer], "
       "unless the fourth suit contains a card as high as an ace.\"", one_king_queen_unguarded),
    _e("0T+4C", "no trump, four court cards",
       BRITANNICA, "\"7. Four court cards without a trump are too weak to play [for the dealer], unless they "
       "are of three different suits.\"", none_four_courts),
    _e("0T+3Q", "no trump, three queens",
       BRITANNICA, "\"Refuse with three queens, if two are singly guarded; otherwise, accept.\" (the dealer's; "
       "three queens are in the elder's list it qualifies)", none_three_queens),
    _e("T+K=3", "trumps and kings make three cards or more: only two cards (or fewer) could be discarded",
       BRITANNICA, "\"5. Hands from which only two cards can be discarded without throwing a king or a "
       "trump.\" (the last of a list whose heading is on the page before, not found); \"Hence the rule not "
       "to discard two cards, unless holding the king of trumps, applies to the dealer.\"", two_to_discard),
    _e("2T+Kx", "two trumps, a king with another card of its suit, and a card of a third suit",
       OWN, "", two_king_guarded, own=True),
    _e("2T+2K", "two trumps and two kings",
       OWN, "", two_and_two_kings, own=True),
    _e("1T+KQK", "one trump, king and queen of one suit and the king of another",
       OWN, "the Britannica's row is one trump, a king and a queen both unguarded (1T+K/Q)", one_kq_and_king,
       own=True),
)
"""The elder's rows: hands to play without proposing."""

DEALER_ROWS: tuple[Row, ...] = (
    _d("3T", "three trumps or more", HOFFMANN,
       "\"With three trumps, refuse, unless the king of trumps is one of the three, when there is a great "
       "chance that the cards taken in may enable the vole to be won.\"", three_trumps),
    _d("2T+3C", "two trumps and three cards of one plain suit headed by a court card", BRITANNICA,
       "\"1. Two trumps and three cards of one plain suit should not be played unless the plain suit is "
       "headed by a court card.\"", two_and_three_headed_by_court),
    _d("2T+Qxx", "two trumps, a queen guarded and a small card", "source not found",
       "the elder's row, which the Britannica's exceptions leave to the dealer as well", two_queen_guarded_small),
    _d("1T+KQJ+C", "one trump, a tierce major and a court card", BRITANNICA,
       "\"2. One trump and a tierce major is too weak, unless the fifth card is a court card.\"",
       one_tierce_major_and_court),
    _d("1T+2Qx", "one trump and two queens, both singly guarded", BRITANNICA,
       "\"4. One trump and two queens is too weak, unless both queens are singly guarded.\"; Hoffmann: "
       "\"But with one trump, two queens guarded, or a king and queen guarded, refuse.\"",
       one_and_two_queens_singly_guarded),
    _d("1T+QJx", "one trump, a queen, a guarded knave of another suit; the queen guarded too, or a court "
       "card in the fourth suit", BRITANNICA,
       "\"5. One trump, queen of one suit, and knave guarded of another should not be played unless the queen "
       "is also guarded, or the card of the fourth suit is a court card.\"", one_queen_and_guarded_knave_dealer),
    _d("1T+K/Q+A", "one trump, a king and a queen both unguarded, the fourth suit holding an ace or better",
       BRITANNICA, "\"6. One trump, a king and a queen, both unguarded, should not be played, unless the fourth "
       "suit contains a card as high as an ace.\"", one_king_queen_unguarded_dealer),
    _d("0T+4C3", "no trump, four court cards of three different suits", BRITANNICA,
       "\"7. Four court cards without a trump are too weak to play, unless they are of three different suits.\"",
       none_four_courts_three_suits),
    _d("0T+3Q2", "no trump, three queens, two of them singly guarded", BRITANNICA,
       "\"Refuse with three queens, if two are singly guarded; otherwise, accept.\"",
       none_three_queens_two_singly_guarded),
    _d("T+K=3", "trumps and kings make three cards or more", BRITANNICA,
       "\"Hence the rule not to discard two cards, unless holding the king of trumps, applies to the dealer.\"",
       two_to_discard),
)
"""The dealer's rows: hands to refuse with."""

ROWS: tuple[Row, ...] = ELDER_ROWS + DEALER_ROWS


def rows_of(hand: int, turn_up: int, seat: str) -> tuple[Row, ...]:
    """Every row of ``seat`` that ``hand`` (five cards) falls under, in the table's order.

    >>> from engine.cards import Card, mask_of
    >>> [r.name for r in rows_of(mask_of("7H 8H 9H 7S 8D".split()), Card.parse("TH").index, "elder")]
    ['3T', 'T+K=3']
    """
    shape = Shape.of(hand, turn_up >> 3)
    return tuple(r for r in (ELDER_ROWS if seat == "elder" else DEALER_ROWS) if r.test(shape))


def choices(seat: str, *, german: bool = False) -> tuple[str, str]:
    """The words of ``seat``'s first two choices: (playing as dealt, the other).

    >>> choices("elder"), choices("dealer"), choices("dealer", german=True)
    (('stand', 'propose'), ('refuse', 'accept'), ('declare', 'pass'))
    """
    if german:
        return "declare", "pass"
    return ("stand", "propose") if seat == "elder" else ("refuse", "accept")


@dataclass(frozen=True, slots=True)
class Classical:
    """What the classics say of a ``seat``'s hand: the first ``row`` it falls under (a sourced row before
    one of the project's own; None: no row, and the classics propose, or accept), and ``plays``: whether
    they play it as dealt (the elder stands, the dealer refuses). A hand of a row holding the king of
    trumps is advised the other way (``king``: Foster, the Britannica; Hoffmann for the dealer)."""

    seat: str
    row: Row | None
    plays: bool
    king: bool

    def words(self, lang: str = "en") -> str:
        """``'jeu de règle 2T+3 (two trumps, the other three cards of one plain suit): the classics stand'``
        (in ``lang``: the row's code, then what it means)."""
        play, other = choices(self.seat)
        verb = say(lang, "classics." + (play if self.plays else other))
        if self.row is None:
            return say(lang, "coach.no_row", verb=verb)
        own = say(lang, "coach.own_row") if self.row.own else ""
        king = say(lang, "coach.with_king") if self.king else ""
        return say(lang, "coach.row", row=self.row.named(lang), own=own, king=king, verb=verb)


def classify(hand: int, turn_up: int, seat: str) -> Classical:
    """The classical advice for ``hand``: its row (sourced rows first) and whether the classics play it.

    >>> from engine.cards import Card, mask_of
    >>> c = classify(mask_of("8H 9H 7S 8S 9S".split()), Card.parse("7H").index, "elder")
    >>> c.row.name, c.plays
    ('2T+3', True)
    >>> classify(mask_of("KH 9H 7S 8S 9S".split()), Card.parse("7H").index, "elder").plays
    False
    """
    found = rows_of(hand, turn_up, seat)
    ordered = [r for r in found if not r.own] + [r for r in found if r.own]
    if not ordered:
        return Classical(seat, None, False, False)
    king = bool(hand >> ((turn_up & ~7) | KING) & 1)
    return Classical(seat, ordered[0], not king, king)
