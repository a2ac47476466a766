"""The game state: one immutable value, and the views a seat or the public may see.

A :class:`GameState` holds a whole match (game, hand, trick). Card sets are bit
masks (see :mod:`engine.cards`); the properties turn them back into cards. New
states are made by :func:`engine.game.apply`, never by changing one.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, ClassVar

from engine.cards import ALL_CARDS, CARDS, SUITS, Card, cards_of, mask_of
from engine.ecarte_errors import NotationError
from engine.faults import FaultCode
from engine.rules import RuleSet, rules
from engine.seats import INDEX, OTHER


class Phase(str):
    """A game's phase: a :class:`str` (``Phase.PLAY == "play"``), so the JSON protocol writes it as it was,
    and one of the nine members below (``Phase("plya")`` is a :class:`ValueError`, ``Phase.PLYA`` an error
    for mypy).

    ``retourne``: turn a card for the target (option); ``cut``: cut for the first deal;
    ``deal``; ``propose``: the elder proposes or plays (german: declares or passes);
    ``respond``: the dealer accepts or refuses (german: declares or insists);
    ``exchange``: discards and draws; ``force``: german, stock gone, someone must take
    the game; ``play``: the five tricks; ``over``: the game (or match) is finished.

    A :class:`str` subclass rather than a :class:`~enum.StrEnum`: the engine compares its phase on every
    action, and under Python 3.11 reading an enum's member (``Phase.PLAY``) goes through
    ``EnumType.__getattr__``'s slow path (12 % more instructions per action, measured), while a
    class attribute is read at once."""

    __slots__ = ()

    RETOURNE: ClassVar[Phase]
    CUT: ClassVar[Phase]
    DEAL: ClassVar[Phase]
    PROPOSE: ClassVar[Phase]
    RESPOND: ClassVar[Phase]
    EXCHANGE: ClassVar[Phase]
    FORCE: ClassVar[Phase]
    PLAY: ClassVar[Phase]
    OVER: ClassVar[Phase]

    def __new__(cls, text: str) -> Phase:
        """The phase named ``text`` (its one member).

        :raises ValueError: for a phase the game has not.
        """
        try:
            return _PHASE_OF[text]
        except KeyError:
            raise ValueError(f"{text!r} is not a phase: one of {', '.join(_PHASE_OF)}") from None


_PHASE_OF: dict[str, Phase] = {}
for _text in ("retourne", "cut", "deal", "propose", "respond", "exchange", "force", "play", "over"):
    _PHASE_OF[_text] = str.__new__(Phase, _text)
    setattr(Phase, _text.upper(), _PHASE_OF[_text])

PHASES: tuple[Phase, ...] = tuple(_PHASE_OF.values())
"""The phases in the order a game meets them."""

_new = object.__new__
_set = object.__setattr__


@dataclass(frozen=True)
class GameState:
    """Everything the table knows about a match, at one moment."""

    rules: RuleSet
    phase: Phase
    dealer: str
    turn: str | None = None
    target: int = 5
    score: tuple[int, int] = (0, 0)
    hands: tuple[int, int] = (0, 0)
    turn_up: int = -1
    discards: tuple[int, int] = (0, 0)
    played: int = 0
    cuts: tuple[int, int] = (-1, -1)
    proposals: int = 0
    exchanges: int = 0
    vulnerable: str | None = None
    declarer: str | None = None
    exchanger: str | None = None
    ex_discarded: int = 0
    ex_drawn: int = 0
    leader: str | None = None
    led: int = -1
    tricks: tuple[int, int] = (0, 0)
    counts: tuple[int, int] = (0, 0)
    first_cards: tuple[int, int] = (-1, -1)
    king: str | None = None
    king_played_by: str | None = None
    king_to_lead: str | None = None
    hand_points: tuple[int, int] = (0, 0)
    multiplier: int = 1
    offer: str | None = None
    offer_by: str | None = None
    must_vole: str | None = None
    hand_no: int = 1
    game_no: int = 1
    games: tuple[int, int] = (0, 0)
    match_points: tuple[int, int] = (0, 0)
    players: tuple[str, str, str] = ("A", "B", "")
    streak: tuple[str, int] = ("", 0)
    winner: str | None = None
    # -- partial sight (docs/transcript.md "Partial sight"): what the table knows, as values --------
    sight: str = "full"
    """``full``: the table sees every card, ``hands`` are the hands. ``partial``: ``hands`` are
    the cards the table knows each seat holds, ``unseen`` how many more it holds."""
    unseen: tuple[int, int] = (0, 0)
    seen_in: tuple[int, int] = (0, 0)
    """Every card seen in each seat's hand in this hand (the other seat cannot hold them)."""
    king_points: tuple[int, int] = (0, 0)
    """The king points scored in this hand and not proven false."""
    claims: tuple[tuple[int, int], ...] = ()
    """Kings scored by a seat not known to hold the king: (seat index, trick of the announcement)."""
    history: tuple[tuple[int, int, int, int], ...] = ()
    """The cards played in this hand's tricks: (trick, seat index, card, card led or -1)."""
    proven: int = 0
    """Bits of ``history``: plays whose fault has been proven."""
    pending: tuple[tuple[FaultCode, int, int], ...] = ()
    """Faults proven late and not yet printed: (code, offender index, trick), in order."""
    awaiting: int = -1
    """The offender (index) whose fault proven late waits for the other seat's choice, or -1."""
    reduced: tuple[bool, bool] = (False, False)
    """Rule 43: the seats whose trick points the other seat chose to reduce."""
    hand_over: bool = False
    """The fifth trick is complete; the hand ends once the choices are made."""
    replaying: bool = False
    """The hands are being played again (no king is announced)."""

    def evolve(self, **changes: Any) -> GameState:
        """A copy with some fields changed (the engine's fast path; no checks)."""
        fields = self.__dict__.copy()
        fields.update(changes)
        state: GameState = _new(GameState)
        _set(state, "__dict__", fields)
        return state

    # -- derived -------------------------------------------------------------------------

    @property
    def elder(self) -> str:
        """The non-dealer: proposes first and leads the first trick."""
        return OTHER[self.dealer] if self.dealer else ""

    @property
    def trump(self) -> str | None:
        """The trump suit letter, once the card is turned up."""
        return SUITS[self.turn_up >> 3] if self.turn_up >= 0 else None

    @property
    def turned_up(self) -> Card | None:
        """The turn-up card."""
        return CARDS[self.turn_up] if self.turn_up >= 0 else None

    @property
    def stock_mask(self) -> int:
        """The cards nobody has seen: the stock (its order is not the engine's business)."""
        used = self.hands[0] | self.hands[1] | self.discards[0] | self.discards[1] | self.played
        if self.turn_up >= 0:
            used |= 1 << self.turn_up
        if self.led >= 0:
            used |= 1 << self.led  # the card on the trick
        return ALL_CARDS & ~used

    @property
    def stock_size(self) -> int:
        """How many cards are left in the stock."""
        if self.turn_up < 0:
            return 0
        return self.stock_mask.bit_count()

    @property
    def known_stock(self) -> int | None:
        """How many cards the table *knows* lie in the stock (None: it cannot know).

        Full sight: :attr:`stock_size`. Partial sight (docs/transcript.md): the rules say the stock
        holds 21 cards after the deal, and it only shrinks by the replacements drawn; once the
        dealer has accepted an exchange, a discard or a replacement may pass unseen, so the
        table cannot count it (it never shows a number it cannot know).
        """
        if self.sight == "full" or self.turn_up < 0:
            return self.stock_size
        if self.exchanges == 0 and self.phase != Phase.EXCHANGE:
            return 32 - 2 * 5 - 1
        return None

    def hand(self, seat: str) -> tuple[Card, ...]:
        """The cards ``seat`` holds."""
        return cards_of(self.hands[INDEX[seat]])

    @property
    def trick_cards(self) -> tuple[tuple[str, Card], ...]:
        """The cards on the current trick, with their seats."""
        if self.led < 0 or self.leader is None:
            return ()
        return ((self.leader, CARDS[self.led]),)

    @property
    def is_over(self) -> bool:
        """True when the game (or the match) is finished."""
        return self.phase == Phase.OVER

    def public(self) -> View:
        """What anyone watching the table may know: never a hand, the stock or the discards."""
        return View.of(self, None)

    def view(self, seat: str) -> View:
        """What ``seat`` may know: the public view plus its own hand and discards."""
        return View.of(self, seat)

    # -- JSON ----------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        """The state as JSON data (card masks as lists of cards)."""
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "rules":
                value = {"name": value.name, **value.options()}
            elif f.name in _MASK_PAIRS:
                value = [[str(c) for c in cards_of(m)] for m in value]
            elif f.name == "played":
                value = [str(c) for c in cards_of(value)]
            elif f.name in _CARD_INTS:
                value = str(CARDS[value]) if value >= 0 else None
            elif f.name in _CARD_INT_PAIRS:
                value = [str(CARDS[v]) if v >= 0 else None for v in value]
            elif isinstance(value, tuple):
                value = list(value)
            out[f.name] = value
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> GameState:
        """The state that :meth:`to_json` wrote.

        :raises NotationError: when a field does not fit.
        """
        try:
            kwargs: dict[str, Any] = {}
            for f in fields(cls):
                if f.name not in data:
                    continue
                value = data[f.name]
                if f.name == "rules":
                    value = rules(**value)
                elif f.name == "phase":
                    value = Phase(value)
                elif f.name == "pending":
                    value = tuple((FaultCode(code), offender, trick) for code, offender, trick in value)
                elif f.name in _MASK_PAIRS:
                    value = tuple(mask_of(v) for v in value)
                elif f.name == "played":
                    value = mask_of(value)
                elif f.name in _CARD_INTS:
                    value = Card.parse(value).index if value is not None else -1
                elif f.name in _CARD_INT_PAIRS:
                    value = tuple(Card.parse(v).index if v is not None else -1 for v in value)
                elif f.name in _NESTED:
                    value = tuple(tuple(v) for v in value)
                elif isinstance(value, list):
                    value = tuple(value)
                kwargs[f.name] = value
            return cls(**kwargs)
        except (KeyError, TypeError, ValueError) as exc:
            raise NotationError(f"cannot read game state: {exc}") from exc


_MASK_PAIRS = frozenset({"hands", "discards", "seen_in"})
_NESTED = frozenset({"claims", "history", "pending"})
_CARD_INTS = frozenset({"turn_up", "led"})
_CARD_INT_PAIRS = frozenset({"cuts", "first_cards"})


@dataclass(frozen=True, slots=True)
class View:
    """A view of the table for one seat (``seat``) or for the public (``seat`` None).

    The public view holds no hand, no discard and no stock order; only counts.
    """

    seat: str | None
    rules: str
    phase: Phase
    dealer: str
    elder: str
    turn: str | None
    trump: Card | None
    score: tuple[int, int]
    target: int
    tricks: tuple[int, int]
    hand_sizes: tuple[int, int]
    stock_size: int | None
    """The cards in the stock, None where the table cannot know it (partial sight)."""
    discard_sizes: tuple[int, int]
    trick: tuple[tuple[str, Card], ...]
    played: tuple[Card, ...]
    king: str | None
    vulnerable: str | None
    declarer: str | None
    hand: tuple[Card, ...] | None
    discards: tuple[Card, ...] | None
    games: tuple[int, int]

    @classmethod
    def of(cls, state: GameState, seat: str | None) -> View:
        """The view of ``state`` for ``seat`` (None: public)."""
        own = INDEX[seat] if seat is not None else None
        return cls(
            seat=seat,
            rules=state.rules.describe(),
            phase=state.phase,
            dealer=state.dealer,
            elder=state.elder,
            turn=state.turn,
            trump=state.turned_up,
            score=state.score,
            target=state.target,
            tricks=state.tricks,
            hand_sizes=(state.hands[0].bit_count() + state.unseen[0], state.hands[1].bit_count() + state.unseen[1]),
            stock_size=state.known_stock,
            discard_sizes=(state.discards[0].bit_count(), state.discards[1].bit_count()),
            trick=state.trick_cards,
            played=cards_of(state.played),
            king=state.king,
            vulnerable=state.vulnerable,
            declarer=state.declarer,
            hand=cards_of(state.hands[own]) if own is not None else None,
            discards=cards_of(state.discards[own]) if own is not None else None,
            games=state.games,
        )

    def to_json(self) -> dict[str, Any]:
        """The view as JSON data."""
        from engine.notation import encode_fields

        return encode_fields(self)


def check_seat(seat: str) -> str:
    """``seat`` if it is A or B.

    :raises NotationError: otherwise.
    """
    if seat not in INDEX:
        raise NotationError(f"no seat {seat!r}: seats are 'A' and 'B'")
    return seat
