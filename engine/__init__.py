"""The Écarté rules engine: pure, immutable, replayable.

    >>> import engine
    >>> state = engine.new_game("classic", dealer="A")
    >>> state.phase
    'deal'

No I/O, no clock, no global state: everything the table decides about a game is
decided here. See ``docs/rules.md`` for every rule decision and its source.
"""

from engine.actions import (
    ACTION_TYPES,
    Accept,
    Action,
    Announce,
    Cut,
    Deal,
    DealCard,
    Declare,
    Discard,
    Double,
    Draw,
    OfferPoint,
    Pass,
    PlayCard,
    Propose,
    Refuse,
    Stand,
    TurnTarget,
    TurnUp,
    action_from_json,
    parse_action,
)
from engine.cards import ACE_HIGH, CARDS, CLASSIC, PACK, Card, Ranking, cards_of, mask_of, parse_cards
from engine.errors import EcarteError, NotationError, UnknownRulesError
from engine.events import (
    Bid,
    DealerChosen,
    Event,
    Exchanged,
    GameEnd,
    HandEnd,
    King,
    MatchEnd,
    Offer,
    Penalty,
    PlayBegins,
    Played,
    Seating,
    TargetSet,
    Trick,
    Trump,
    event_from_json,
)
from engine.faults import FAULT_CODES, Fault
from engine.game import (
    LegalActions,
    apply,
    check,
    legal_actions,
    legal_plays,
    new_game,
    parse_deal,
    replay,
)
from engine.legality import follow_mask, follower_wins, king_index, lead_mask, play_fault_code
from engine.prompts import Prompt, expectation, prompt
from engine.rules import RULE_SETS, French, German, Italian, RuleSet, rules
from engine.state import OTHER, PHASES, SEATS, GameState, View

__all__ = [
    "ACE_HIGH", "ACTION_TYPES", "CARDS", "CLASSIC", "FAULT_CODES", "OTHER", "PACK", "PHASES",
    "RULE_SETS", "SEATS", "Accept", "Action", "Announce", "Bid", "Card", "Cut", "Deal", "DealCard",
    "DealerChosen", "Declare", "Discard", "Double", "Draw", "EcarteError", "Event", "Exchanged",
    "Fault", "French", "Prompt", "GameEnd", "GameState", "German", "HandEnd", "Italian", "King",
    "LegalActions", "MatchEnd", "NotationError", "Offer", "OfferPoint", "Pass", "Penalty",
    "PlayBegins", "PlayCard", "Played", "Propose", "Ranking", "Refuse", "RuleSet", "Seating",
    "Stand", "TargetSet", "Trick", "Trump", "TurnTarget", "TurnUp", "UnknownRulesError", "View",
    "action_from_json", "apply", "cards_of", "check", "event_from_json", "expectation",
    "follow_mask", "follower_wins", "king_index", "lead_mask", "legal_actions", "legal_plays", "mask_of", "new_game", "parse_action", "parse_cards",
    "parse_deal", "play_fault_code", "prompt", "replay", "rules",
]
