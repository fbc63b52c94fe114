"""Varaq: Partnership Spades — a rules engine, computer players, records and a web table.

The public API in one place::

    from varaq import Game, Rules
    game = Game(Rules.named("classic"), seed=1)
    game.deal()
    game.apply(game.legal_actions()[0])
    game.view(2)  # what South may know
"""

from .actions import BID, BLIND_NIL, LOOK, NIL_BID, action_text, bid, parse_action
from .cards import card_name, card_text, hand_text, parse_card, parse_hand
from .engine import Game, IllegalAction
from .events import Event, TrickResult
from .rules import PRESETS, Rules, RulesError
from .scoring import HandScore, match_winner, score_hand
from .seats import E, N, S, W
from .view import View

__version__ = "0.2.0"

__all__ = [
    "BID", "BLIND_NIL", "LOOK", "NIL_BID", "action_text", "bid", "parse_action",
    "card_name", "card_text", "hand_text", "parse_card", "parse_hand", "Game",
    "IllegalAction", "Event", "TrickResult", "PRESETS", "Rules", "RulesError", "HandScore",
    "match_winner", "score_hand", "E", "N", "S", "W", "View", "__version__",
]
