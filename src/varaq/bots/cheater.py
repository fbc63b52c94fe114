"""The cheater: a player that sees every card, the ceiling the arena measures Hard against.

It is handed the whole :class:`~varaq.engine.Game` (``act_full``), never a view, so it exists
only in the arena and is never offered to people.  It makes the same kind of decisions as the
Hard player with the guesswork removed — one layout, the true one:

- **play**: once every hand holds at most ``solver_cards`` cards and no nil is alive, it plays
  the double-dummy solver's answer, choosing among the cards by the match value of perfect play
  (so it avoids bags when the contract is safe, which "most tricks" alone would not); earlier,
  each distinct legal card is played out on the true deal with Normal's policy at every seat;
- **bidding**: each bid around Normal's estimate (and nil when sensible) is simulated on the
  true deal to the end of the hand, and the best by match value is bid;
- blind nil and the exchange: Normal's judgement.

A full 13-card double-dummy solve takes too long in Python to be done at every card (see the
"Solver" section of BENCHMARKS.md), which is why the early play is simulated rather than solved.
"""

from __future__ import annotations

from ..actions import BID
from ..engine import BIDDING, BLIND, EXCHANGE, PLAY, Game
from ..view import View
from . import Decision
from .hard import (
    bid_candidates,
    bid_outcomes,
    hand_value,
    play_candidates,
    play_outcomes,
)
from .knowledge import Knowledge
from .normal import choose_blind, choose_pass

__all__ = ["CheaterBot"]


class CheaterBot:
    """Sees every hand; plays and bids on the true deal (see the module docstring)."""

    name = "cheater"

    def __init__(self, solver_cards: int = 6) -> None:
        if not 1 <= solver_cards <= 13:
            raise ValueError("solver_cards must be between 1 and 13")
        self.solver_cards = solver_cards

    def act_full(self, game: Game) -> int:
        return self.decide_full(game).action

    def decide_full(self, game: Game) -> Decision:
        """The action for the player to move, seeing every hand of ``game``."""
        if game.phase not in (BLIND, BIDDING, EXCHANGE, PLAY) or game.sheet:
            raise ValueError(f"nothing to decide in the {game.phase_name} phase")
        view = game.view(game.turn)
        if game.phase == BLIND:
            return choose_blind(view)
        if game.phase == EXCHANGE:
            return choose_pass(view)
        hands = (game.hands[0], game.hands[1], game.hands[2], game.hands[3])
        if game.phase == BIDDING:
            return self._bid(view, hands)
        return self._play(view, hands)

    def _play(self, view: View, hands: tuple[int, int, int, int]) -> Decision:
        if len(view.legal) == 1:
            return Decision(view.legal[0], "the only legal card")
        k = Knowledge.from_view(view)
        # Equivalence as the seat sees it is still exact here: cards it cannot tell apart
        # are also equivalent when every hand is known.
        candidates = play_candidates(view, k)
        solve = max(view.cards_left) <= self.solver_cards and not any(k.nil_alive)
        outcomes = play_outcomes(view, hands, candidates, solve)
        side = view.seat & 1
        best = max(candidates, key=lambda c: hand_value(view.rules, side, outcomes[c], view.totals))
        how = "perfect play" if solve else "a playout of the true deal"
        return Decision(best, f"best by {how}")

    def _bid(self, view: View, hands: tuple[int, int, int, int]) -> Decision:
        candidates, guess = bid_candidates(view, span=3)
        side = view.seat & 1
        outcomes = bid_outcomes(view, hands, candidates)
        best = max(
            candidates,
            key=lambda b: hand_value(view.rules, side, outcomes[b], view.totals) + (b == guess),
        )
        return Decision(BID + best, "best bid on the true deal")
