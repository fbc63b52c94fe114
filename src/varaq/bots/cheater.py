"""The cheater: a player that sees every card, the ceiling the arena measures Hard against.

It is handed the whole :class:`~varaq.engine.Game` (``act_full``), never a view, so it exists
only in the arena and is never offered to people.  It makes the same kind of decisions as the
Hard player with the guesswork removed — one layout, the true one:

- **play**: once every hand holds at most ``solver_cards`` cards, it plays by the solver on the
  true deal, choosing among the cards by the match value of perfect play (so it avoids bags
  when the contract is safe, which "most tricks" alone would not; late in the hand, where no
  trick can change how the contracts end, both sides shed, as Hard counts it: see
  :data:`~varaq.bots.hard.SHED_BAGS`).  While a nil is alive its fate after each card is a
  question of its own, solved exactly: can the defence, seeing every card, still force a trick
  on it?  So the cheater keeps its side's nil out of reach whenever it can and presses an
  opponent's nil while a trick can be forced.  With fewer ``solver_cards``, each distinct legal
  card before that is played out on the true deal: Normal's policy at every seat until every
  hand holds ``tail_cards`` cards, then perfect play (see below);
- **bidding**: each bid around Normal's estimate (and nil when sensible) is simulated on the
  true deal the same way: the other bids and the first tricks with Normal, then perfect play
  (the double-dummy count of each side's tricks, and whether the defence can force a trick on
  a live nil); the best by match value is bid.  A nil is never bid when the solver proves,
  from the first lead, that a defence seeing every card can force a trick on it (a proof of
  a whole deal can take some millions of nodes, a few tenths of a second with the core);
- blind nil and the exchange: Normal's judgement.

With the solver's compiled core both thresholds are 13 by default: the cheater plays perfect
cards from the first lead and judges bids by perfect play of the whole hand, which makes it the
arena's ceiling.  With only the pure Python solver a full deal takes too long, so it keeps the
old thresholds (solve from 6 cards, playouts to 7).  Ending every simulation in perfect play
matters: a cheater whose playouts trusted the opponents to play Normal's cards to the end chose
lines only a Normal defence lets through, and lost to the Hard player (BENCHMARKS.md, "Hard
against the cheater").  Solving live nils matters too: while they went through playouts
(Normal finishing the trick, then a proof limited to two million nodes that counted as
"holds" when unsettled), the cheater lost 46 of the 148 nils it bid against Hard 0.2 at 24
layouts, nils no defence seeing every card could have broken, and bid 23 that a perfect
defence breaks (BENCHMARKS.md, "Hard 0.3", ninth pass).
"""

from __future__ import annotations

from functools import lru_cache

from ..actions import BID
from ..cards import TWO_CLUBS
from ..engine import BIDDING, BLIND, EXCHANGE, PLAY, Game
from ..scoring import HandScore, score_hand
from ..solver import Solver, SolverLimit, default_backend
from ..view import View
from . import Decision
from .hard import bid_candidates, hand_value, play_candidates, play_outcomes
from .knowledge import Knowledge
from .normal import choose_bid, choose_blind, choose_pass, choose_play

__all__ = ["CheaterBot"]

#: (solver_cards, tail_cards) by default, with the compiled solver and without it.
DEFAULTS = {"c": (13, 13), "python": (6, 7)}
#: A nil question of a whole deal left unsettled after this many nodes counts as "nil holds".
NIL_NODE_LIMIT = 2_000_000


class CheaterBot:
    """Sees every hand; plays and bids on the true deal (see the module docstring)."""

    name = "cheater"

    def __init__(
        self, solver_cards: int | None = None, tail_cards: int | None = None,
        nil_node_limit: int = 20_000_000,
    ) -> None:
        default_solver, default_tail = DEFAULTS[default_backend()]
        solver_cards = default_solver if solver_cards is None else solver_cards
        tail_cards = default_tail if tail_cards is None else tail_cards
        if not 1 <= solver_cards <= 13 or not 1 <= tail_cards <= 13:
            raise ValueError("solver_cards and tail_cards must be between 1 and 13")
        self.solver_cards = solver_cards
        self.tail_cards = tail_cards
        self.nil_node_limit = nil_node_limit

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
        solve = max(view.cards_left) <= self.solver_cards
        if solve:
            outcomes = play_outcomes(view, hands, candidates, solve, k.nil_alive,
                                     self.nil_node_limit)
        else:
            base = Game.from_view(view, hands)
            outcomes = {}
            for card in candidates:
                g = base.copy()
                g.apply(card)
                outcomes[card] = _finish_with_perfect_tail(g, self.tail_cards)
        side = view.seat & 1
        best = max(candidates, key=lambda c: hand_value(view.rules, side, outcomes[c], view.totals))
        how = "perfect play" if solve else "a playout of the true deal ending in perfect play"
        return Decision(best, f"best by {how}")

    def _bid(self, view: View, hands: tuple[int, int, int, int]) -> Decision:
        candidates, guess = bid_candidates(view, span=3)
        if 0 in candidates and len(candidates) > 1 and self._nil_breakable(view, hands):
            candidates.remove(0)
        side = view.seat & 1
        base = Game.from_view(view, hands)
        outcomes = {}
        for b in candidates:
            g = base.copy()
            g.apply(BID + b)
            outcomes[b] = _finish_with_perfect_tail(g, self.tail_cards)
        best = max(
            candidates,
            key=lambda b: hand_value(view.rules, side, outcomes[b], view.totals) + (b == guess),
        )
        return Decision(BID + best, "best bid on the true deal")


    def _nil_breakable(self, view: View, hands: tuple[int, int, int, int]) -> bool:
        """Whether a defence that sees every card can force a trick on a nil by this seat.

        Only a proof counts: if the solver cannot settle it within ``nil_node_limit`` nodes the
        nil stays a candidate, and the simulation of the hand judges it like any other bid.
        """
        seat = view.seat
        rules = view.rules
        leader = (view.dealer + 1) & 3
        if rules.two_clubs_leads:
            leader = next(s for s in range(4) if hands[s] >> TWO_CLUBS & 1)
        defence = Solver.nil_defence(seat, jokers=rules.jokers, node_limit=self.nil_node_limit)
        try:
            return defence.at_least(hands, leader, (), False, 1)
        except SolverLimit:
            return False


def _normal_action(g: Game) -> int:
    """Normal's action at the seat to move, from that seat's view."""
    view = g.view(g.turn)
    if g.phase == PLAY:
        return choose_play(view).action
    if g.phase == BIDDING:
        return choose_bid(view).action
    if g.phase == EXCHANGE:
        return choose_pass(view).action
    return choose_blind(view).action


def _finish_with_perfect_tail(g: Game, tail_cards: int) -> HandScore:
    """Finish the hand: the other bids and the early tricks with Normal, then perfect play once
    every hand holds ``tail_cards`` cards (see :func:`_perfect_rest`)."""
    while g.phase in (BLIND, BIDDING, EXCHANGE, PLAY):
        if g.phase == PLAY and not g.trick and g.hands[g.turn].bit_count() <= tail_cards:
            return _perfect_rest(g)
        g.apply(_normal_action(g))
    return g.log[-1].result


def _perfect_rest(g: Game) -> HandScore:
    """The hand's score when the remaining tricks (from a trick boundary) are played perfectly.

    Each side's tricks are the double-dummy count; a live nil is judged on its own: it fails
    (one trick) when the defence can force a trick on the nil bidder, otherwise it holds, and
    the side's other tricks go to the partner.  Two objectives solved apart, so a close
    approximation of perfect play rather than one exact line.
    """
    jokers = g.rules.jokers
    left = g.hands[g.turn].bit_count()
    bids = (g.bids[0], g.bids[1], g.bids[2], g.bids[3])
    taken = list(g.taken)
    # The opening lead of a 2C-leads game is the 2C, which the solver must be told.
    two_clubs = g.rules.two_clubs_leads and not g.tricks
    ns = _north_south_tricks(tuple(g.hands), g.leader, g.broken, jokers, two_clubs)
    side_tricks = (ns, left - ns)
    for side in (0, 1):
        rest = side_tricks[side]
        seats = (side, side + 2)
        holders = []
        for s in seats:
            if bids[s] == 0 and taken[s] == 0:
                if rest and _nil_breakable_now(g, s):
                    taken[s] += 1
                    rest -= 1
                    holders.append(s)  # the nil is gone: further tricks cost it nothing
            else:
                holders.append(s)
        # The side's remaining tricks go to a contract bidder, else to a broken nil bidder; a
        # side of two nils that both hold ducks them, and the opponents take them instead.
        contract = [s for s in holders if bids[s] != 0]
        if rest:
            taken[(contract or holders or [1 - side])[0]] += rest
    blind = (g.blind[0], g.blind[1], g.blind[2], g.blind[3])
    return score_hand(g.rules, bids, blind, tuple(taken), (g.bags[0], g.bags[1]))


@lru_cache(maxsize=64)
def _north_south_tricks(
    hands: tuple[int, ...], leader: int, broken: bool, jokers: bool, two_clubs: bool,
) -> int:
    """North-South's double-dummy tricks from a trick boundary.  Cached: every candidate bid of
    one decision ends in the same deal, and the bid does not change the cards."""
    return Solver(0, jokers=jokers).best(hands, leader, (), broken, two_clubs)[0]


def _nil_breakable_now(g: Game, seat: int) -> bool:
    """Whether the defence can force a trick on ``seat``'s nil from here (a proof within
    :data:`NIL_NODE_LIMIT` nodes; unsettled counts as the nil holding)."""
    breaker = Solver.nil_defence(seat, jokers=g.rules.jokers, node_limit=NIL_NODE_LIMIT)
    try:
        if g.rules.two_clubs_leads and not g.tricks:
            return breaker.at_least_after(g.hands, g.leader, (), g.broken, TWO_CLUBS, 1)
        return breaker.at_least(g.hands, g.leader, (), g.broken, 1)
    except SolverLimit:
        return False
