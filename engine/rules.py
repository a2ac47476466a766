"""Rule sets: small declarative profiles plus a few hooks, in one registry.

Like python-chess variants, each rule set flips declared flags and overrides a
hook or two; :func:`rules` looks one up by name and applies options::

    >>> rules("classic").target
    5
    >>> rules("italian", forzare=True).forzare
    True
    >>> rules("classic", ace_high=True).ranking.order
    'AKQJT987'
    >>> rules("bezique")
    Traceback (most recent call last):
    ...
    engine.ecarte_errors.UnknownRulesError: unknown rule set 'bezique': choose one of classic, french, german, italian

Every decision taken where the sources are silent or disagree is written, with
its source, in ``docs/rules.md``.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field, fields, replace
from functools import cached_property
from typing import Any, ClassVar

from engine.actions import Accept, Action, Declare, Pass, Propose, Refuse, Stand
from engine.cards import ACE_HIGH, CLASSIC, Ranking
from engine.ecarte_errors import UnknownRulesError
from engine.legality import Follow, follow_rule
from engine.seats import SEATS

_PROPOSE_OR_PLAY: dict[str, tuple[Action, Action]] = {s: (Propose(s), Stand(s)) for s in SEATS}
_ACCEPT_OR_REFUSE: dict[str, tuple[Action, Action]] = {s: (Accept(s), Refuse(s)) for s in SEATS}
_DECLARE_OR_PASS: dict[str, tuple[Action, Action]] = {s: (Declare(s), Pass(s)) for s in SEATS}
"""The answers of each seat, made once (actions are values)."""


@dataclass(frozen=True)
class RuleSet:
    """The classic game (London club rules, Cavendish 1886): the base profile.

    Flags are plain values; the hooks are the methods below. Options any set
    can take: ``ace_high``, ``target``, ``game_value`` (rule 46), ``rubber``
    (best of N games), ``doubling``, ``offer_point``, ``pool`` (three
    players), ``a_la_retourne`` (a turned card sets the target).
    """

    name: ClassVar[str] = "classic"
    declares_game: ClassVar[bool] = False
    """German (002): instead of proposing, a seat *declares the game* (guarantees three tricks)."""
    must_overtake: ClassVar[bool] = True
    """The follower must win the trick when he can (London rule 43)."""
    king_must_be_led: ClassVar[bool] = False
    """German (002): a seat that announced the king of trumps must lead it."""
    elder_discard: ClassVar[tuple[int, int]] = (1, 5)
    dealer_discard: ClassVar[tuple[int, int]] = (1, 5)
    """The dealer must take at least one card (003: "al menos una carta")."""
    revoke_penalty: ClassVar[int] = 0
    """Points a seat loses for a refused revoke (italian: 1)."""
    king_penalty: ClassVar[int] = 0
    """Points a king holder loses for not declaring it before his first card (italian: 1).
    A rule set with a penalty must close the announcement at that first card
    (``king_rule_24`` False), or a late declaration would cancel the penalty."""
    king_rule_24: ClassVar[bool] = True
    """London rule 24: a king that is its holder's first card may still be announced, the
    elder's led king until it is played to, the dealer's until he plays again. French
    (001) and italian (000): the king is announced before one's first card, no exception."""
    king_deadline: ClassVar[str] = "king_rule_23"
    """Why an announcement after the holder's first card is refused, naming its source (the
    catalogue's ``says.doing.<id>``)."""
    winner_leads_next_hand: ClassVar[bool] = False
    """German (002, "Wer gewonnen hat, spielt beim nächsten Spiel auf"): the winner of a
    hand leads the next one (its loser deals). Otherwise the dealer alternates each hand."""

    ace_high: bool = False
    target: int = 5
    game_value: bool = False
    rubber: int = 1
    doubling: bool = False
    offer_point: bool = False
    pool: bool = False
    a_la_retourne: bool = False
    forzare: bool = False
    ranking: Ranking = field(init=False, repr=False, compare=False, hash=False)
    follow: Follow = field(init=False, repr=False, compare=False, hash=False)
    """``follow(hand, led, trump)``: the cards that may follow (:func:`engine.legality.follow_rule`)."""

    def __post_init__(self) -> None:
        ranking = ACE_HIGH if self.ace_high else CLASSIC
        object.__setattr__(self, "ranking", ranking)
        object.__setattr__(self, "follow", follow_rule(
            ranking.above, ranking.highest, must_overtake=self.must_overtake, forzare=self.forzare,
        ))
        problems = []
        if not 1 <= self.target <= 99:
            problems.append(f"target must be 1 to 99, got {self.target}")
        if self.rubber < 1 or self.rubber % 2 == 0:
            problems.append(f"rubber is best of an odd number of games, got {self.rubber}")
        if problems:
            raise ValueError("; ".join(problems))

    # -- hooks ---------------------------------------------------------------------------

    def elder_choice(self, seat: str) -> tuple[Action, Action]:
        """The elder's two answers, for ``yes`` and ``no``: propose or play (german: declare or pass)."""
        return _PROPOSE_OR_PLAY[seat]

    def dealer_choice(self, seat: str) -> tuple[Action, Action]:
        """The dealer's two answers to a proposal, for ``yes`` and ``no``: accept or refuse."""
        return _ACCEPT_OR_REFUSE[seat]

    def king_too_late(
        self, *, count: int, king_first: bool, dealer: bool, king_on_trick: bool, won: int, any_card: bool,
    ) -> str:
        """Why a seat holding (or having held) the king of trumps may no longer announce it, as the
        id of the catalogue's words (``says.doing.<id>``; ``""``: it may).

        ``count``: the cards the seat has played in this hand; ``king_first``: its first
        card was the king; ``dealer``: the seat dealt this hand; ``king_on_trick``: the king
        lies led on the trick, not yet played to; ``won``: the seat's tricks;
        ``any_card``: whether any card has been played in the hand.

        Classic: before one's first card (rule 23, "debe anunciarlo antes de jugar su
        primera carta"); rule 24: "Si el rey es la primera carta que sale, se puede
        anunciar en cualquier momento antes de que se juegue. Si el rey es la primera
        carta que juega el crupier, puede anunciarla en cualquier momento antes de volver
        a jugar" — the elder's king led first until it is played to, the dealer's king
        played first until he plays again.

        >>> late = rules("classic").king_too_late
        >>> late(count=1, king_first=True, dealer=False, king_on_trick=True, won=0, any_card=True)
        ''
        >>> late(count=1, king_first=True, dealer=False, king_on_trick=False, won=1, any_card=True)
        'king_rule_24_led'
        >>> late(count=1, king_first=True, dealer=True, king_on_trick=False, won=1, any_card=True)
        ''
        >>> print(rules("french").king_too_late(
        ...     count=1, king_first=True, dealer=False, king_on_trick=True, won=0, any_card=True))
        king_001
        """
        if count == 0:
            return ""
        if self.king_rule_24 and king_first:
            if dealer:
                return "" if count == 1 else "king_rule_24_dealer"
            if count == 1 and king_on_trick:
                return ""
            return "king_rule_24_led"
        return self.king_deadline

    def trick_points(
        self, tricks: tuple[int, int], vulnerable: int | None, declarer: int | None
    ) -> tuple[int, int]:
        """Points for the tricks of a finished hand, per seat (A, B).

        Classic (rules 48-49): the point 1, the vole 2; a seat whose opponent
        played *d'autorité* and failed scores 2 for the point, never more than
        2 in all.

        >>> rules("classic").trick_points((3, 2), None, None)
        (1, 0)
        >>> rules("classic").trick_points((2, 3), 0, None)
        (0, 2)
        >>> rules("classic").trick_points((0, 5), 0, None)
        (0, 2)
        """
        winner = 0 if tricks[0] >= 3 else 1
        points = 2 if tricks[winner] == 5 or vulnerable == 1 - winner else 1
        return (points, 0) if winner == 0 else (0, points)

    def game_points(self, loser_score: int) -> int:
        """What a won game is worth (rule 46 when ``game_value``, else 1).

        >>> [rules("classic", game_value=True).game_points(s) for s in (0, 2, 4)]
        [3, 2, 1]
        """
        if not self.game_value:
            return 1
        if loser_score <= 0:
            return 3
        return 2 if loser_score <= 2 else 1

    def retourne_target(self, rank: str) -> int:
        """The target set *à la retourne*: ace 11, K Q J 10 ten, others their face value."""
        if rank == "A":
            return 11
        if rank in "KQJT":
            return 10
        return int(rank)

    def options(self) -> dict[str, Any]:
        """The options that differ from this rule set's defaults."""
        default = type(self)()
        return {
            f.name: getattr(self, f.name)
            for f in fields(self)
            if f.init and getattr(self, f.name) != getattr(default, f.name)
        }

    def with_options(self, **options: Any) -> RuleSet:
        """This rule set with some options changed.

        :raises UnknownRulesError: for an option no rule set takes.
        """
        known = [f.name for f in fields(self) if f.init]
        for key in options:
            if key not in known:
                hint = difflib.get_close_matches(key, known, n=1)
                extra = f": did you mean {hint[0]!r}?" if hint else f" (options: {', '.join(known)})"
                raise UnknownRulesError(f"unknown rule option {key!r}{extra}")
        kinds = {f.name: f.type for f in fields(self) if f.init}  # "bool" or "int" (annotations are text)
        for key, value in options.items():
            if kinds[key] == "bool" and not isinstance(value, bool):
                raise ValueError(f"option {key} is true or false, got {_shown(value)}")
            if kinds[key] == "int" and (not isinstance(value, int) or isinstance(value, bool)):
                raise ValueError(f"option {key} is a whole number, got {_shown(value)}")
        return replace(self, **options)

    def describe(self) -> str:
        """``classic`` or ``italian(forzare)``."""
        return self._description

    @cached_property
    def _description(self) -> str:
        # worked out once a rule set (every snapshot names it); a frozen value's cache in its own
        # __dict__, which equality, hashing and replace() never read
        opts = self.options()
        if not opts:
            return self.name
        return self.name + "(" + ", ".join(
            k if v is True else f"{k}={v}" for k, v in opts.items()
        ) + ")"


@dataclass(frozen=True)
class French(RuleSet):
    """French rules (source 001): exchanges of 1 to 5 cards each, the king announced
    before its holder's first card (no rule 24), the *point de refus*; game to 5 or
    *à la retourne*. Scoring is the classic one: the refus
    gives 2 and then no vole, so a hand is worth at most 3 with the king."""

    name: ClassVar[str] = "french"
    king_rule_24: ClassVar[bool] = False
    """001: "il marque 1 point (point du Roi) s'il l'annonce avant de jouer sa première carte"."""
    king_deadline: ClassVar[str] = "king_001"


@dataclass(frozen=True)
class Italian(RuleSet):
    """Italian rules (source 000): no obligation to win the trick, the king must
    be declared, penalties of -1, scores below zero; option *forzare*."""

    name: ClassVar[str] = "italian"
    must_overtake: ClassVar[bool] = False
    dealer_discard: ClassVar[tuple[int, int]] = (0, 5)
    revoke_penalty: ClassVar[int] = 1
    king_penalty: ClassVar[int] = 1
    king_rule_24: ClassVar[bool] = False
    """000: "Ora chi possedesse il Re di briscola è obbligato a dichiararlo": declared as play
    begins, -1 to a holder who plays his first card without it; no later declaration."""
    king_deadline: ClassVar[str] = "king_000"

    def trick_points(
        self, tricks: tuple[int, int], vulnerable: int | None, declarer: int | None
    ) -> tuple[int, int]:
        """+1 for three tricks, +1 more for five; -1 to a seat that played *di
        prepotenza* and did not make three.

        >>> rules("italian").trick_points((2, 3), 0, None)
        (-1, 1)
        >>> rules("italian").trick_points((5, 0), 0, None)
        (2, 0)
        """
        points = [0, 0]
        winner = 0 if tricks[0] >= 3 else 1
        points[winner] = 2 if tricks[winner] == 5 else 1
        if vulnerable is not None and tricks[vulnerable] < 3:
            points[vulnerable] -= 1
        return points[0], points[1]


@dataclass(frozen=True)
class German(RuleSet):
    """German rules (source 002): a seat declares the game and guarantees three
    tricks: +1, +2 for all five, -2 when it fails. The king of trumps counts when
    declared before the first lead or once its holder has won a trick, and must
    then be led (if still held). The winner of a hand leads the next one. A game
    won against 0 is worth double."""

    name: ClassVar[str] = "german"
    declares_game: ClassVar[bool] = True
    king_must_be_led: ClassVar[bool] = True
    elder_discard: ClassVar[tuple[int, int]] = (1, 5)
    dealer_discard: ClassVar[tuple[int, int]] = (0, 5)
    king_rule_24: ClassVar[bool] = False
    """002 has its own window (see :meth:`king_too_late`), not rule 24's."""
    winner_leads_next_hand: ClassVar[bool] = True

    def elder_choice(self, seat: str) -> tuple[Action, Action]:
        """Declare the game or pass."""
        return _DECLARE_OR_PASS[seat]

    def dealer_choice(self, seat: str) -> tuple[Action, Action]:
        """Take the game (declare) or insist on an exchange (pass)."""
        return _DECLARE_OR_PASS[seat]

    def king_too_late(
        self, *, count: int, king_first: bool, dealer: bool, king_on_trick: bool, won: int, any_card: bool,
    ) -> str:
        """Before the first lead, or once the holder has won a trick, also a trick won by the
        king itself or after the king was played (002: "sobald er einen Stich erhalten hat
        bzw. dies vor dem ersten Aufspielen meldet")."""
        if not any_card or won > 0:
            return ""
        return "king_002"

    def trick_points(
        self, tricks: tuple[int, int], vulnerable: int | None, declarer: int | None
    ) -> tuple[int, int]:
        """Only the declarer scores: +1, +2 for the vole, -2 for fewer than three.

        >>> rules("german").trick_points((2, 3), None, 0)
        (-2, 0)
        >>> rules("german").trick_points((0, 5), None, 1)
        (0, 2)
        """
        seat = 0 if declarer is None else declarer
        made = tricks[seat]
        value = 2 if made == 5 else 1 if made >= 3 else -2
        return (value, 0) if seat == 0 else (0, value)

    def game_points(self, loser_score: int) -> int:
        """Double stakes for a game won against 0 points (002)."""
        if self.game_value:
            return super().game_points(loser_score)
        return 2 if loser_score <= 0 else 1


RULE_SETS: dict[str, type[RuleSet]] = {
    cls.name: cls for cls in (RuleSet, French, Italian, German)
}
"""The registry: rule set name → profile class."""


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:40] + "…"


def rules(name: str = "classic", **options: Any) -> RuleSet:
    """The rule set called ``name`` with ``options``.

    :raises UnknownRulesError: for an unknown name or option, with a suggestion.
    """
    cls = RULE_SETS.get(name)
    if cls is None:
        hint = difflib.get_close_matches(name, list(RULE_SETS), n=1)
        extra = f"; did you mean {hint[0]!r}?" if hint else ""
        raise UnknownRulesError(
            f"unknown rule set {name!r}: choose one of {', '.join(sorted(RULE_SETS))}{extra}"
        )
    return cls().with_options(**options)
