"""The Hard computer player: it thinks ahead by imagining the hidden hands.

For each decision Hard deals the cards it cannot see many times over (see
:mod:`varaq.bots.sampling`: layouts consistent with its view, the bids weighing them) and, in
each layout, tries every candidate action to the end of the hand:

- **play**: every distinct legal card (equivalent cards count once) is played out with the
  Normal player's policy at all four seats (each simulated seat still decides from its own view
  of the simulated table); once every hand holds at most ``solver_cards`` cards and no nil of
  the opponents is at stake, the double-dummy solver (:mod:`varaq.solver`) replaces the
  playouts with perfect play, a live nil of Hard's own side a question of its own after every
  card (can a defence seeing every card still force a trick on it?).  With the solver's
  compiled core that is from 11 cards a hand, from the third trick on: there a solved
  layout costs about what Normal's playout of it does (in 0.6 s Hard deals a mean of 249
  layouts a searched play solving from 11, 255 from 10), and over 300 duplicate deals it was
  +1.3 points a hand better (-1.4 to +4.0; BENCHMARKS.md, "Hard 0.3", seventeenth pass).  A
  full 13-card layout can still take half a second, too much for a fair sample in 0.6 s.
  With the pure Python solver it stays at the last 4 cards.  The defence's leads against a
  live nil are not played out: a lead that makes the nil bidder win the trick at once in
  most layouts is led (:data:`CATCH_SHARE`); otherwise, late in the hand
  (:data:`PROOF_LEADS_FROM`), the lead after which the solver still finds a way to force a
  trick on the nil in the most layouts, and earlier Normal's rule (:data:`NIL_RULE_LEADS`),
  since which suit catches a nil later turns on cards the first tricks' layouts cannot place;
- **bidding**: every legal bid, and nil, is priced over layouts solved double dummy from the
  opening lead, the seats still to bid bidding as Normal would (:mod:`varaq.bots.simbid`);
  the bid with the best expected value for the side is bid, and its reason says so
  ("Bid 4: expected score +31 for our side; we make the contract in 88% of 20 layouts ...");
- blind nil and the exchange follow Normal's judgement (a blind decision has no cards to
  sample against; :mod:`varaq.bots.blind` weighs the odds against the match score).

The layouts are weighed by what the other seats did (:mod:`varaq.bots.sampling`): their bids,
the suits they showed out of, and the cards they chose (a high card thrown under a lost trick
says no lower card was there; a live nil's duck, no higher safe card; a live nil's card over
the winner with its partner already played, no card that stayed under it).  So the play search
averages over the deals the table makes likely, not over every deal its hard facts allow.

Every outcome is scored by the *match*, not by tricks (:func:`hand_value`): the hand's points
for Hard's side minus the opponents', bags weighed by how close they bring a side to the
penalty, and a large bonus or malus when the hand ends the match.  So a card that protects
partner's nil, sets theirs, ducks a bag near the limit or takes a set worth more than the bag
wins by its expected score, which counting tricks alone would miss.  Late in the hand, a solved
layout in which no trick can change how the contracts end is counted as the bags' game, each
side shedding tricks rather than taking them, since that is how both sides then play
(:data:`SHED_BAGS`).  The action with the best average over the layouts wins, and the reason
says what it achieved in how many layouts ("Play the ten of clubs: it keeps your nil safe in
38 of 40 layouts").

Anytime: without ``samples`` Hard keeps dealing layouts until ``time_budget`` seconds have
passed; with ``samples`` it evaluates exactly that many, so the same view and seed always give
the same action (the tests and the arena use that).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass

from ..actions import BID
from ..cards import card_name
from ..engine import BIDDING, BLIND, EXCHANGE, PLAY, Game
from ..scoring import HandScore, score_hand
from ..solver import Solver, SolverLimit, card_values, default_backend, representatives
from ..view import View
from . import Decision
from .bidding import nil_danger, top_trump
from .knowledge import Knowledge
from .normal import bid_for, choose_bid, choose_blind, choose_pass, choose_play
from .sampling import Sampler, SamplingError
from .simbid import MATCH_WEIGHT, match_value, study_bids

__all__ = ["HardBot", "ExpertBot", "ClassicHardBot", "hand_value", "MATCH_WEIGHT", "SOLVER_CARDS",
           "MAX_LAYOUTS", "EXPERT_MAX_LAYOUTS"]

#: A nil is considered as a bid only when Normal's nil danger of the hand is below this.
NIL_CONSIDERED = 1.6
#: Bids tried on each side of Normal's estimate.
BID_SPAN = 2
#: Cards per hand from which Hard solves its layouts, with the compiled solver and without it.
SOLVER_CARDS = {"c": 11, "python": 4}
#: Seconds of thought per decision of the Expert player.
EXPERT_BUDGET = 1.8
#: The most layouts one decision deals, Hard's and Expert's: high enough that the time budget,
#: not the cap, ends a searched play.  At 300 (before) two thirds of Hard's searched plays
#: stopped at the cap, in a median 0.17 s of their 0.6; at 1,000 a searched play deals a median
#: 404 and a mean 549 layouts, p95 still 0.60 s (``benchmarks/hard_speed.py --max-samples``).
#: More layouts are fewer wrong guesses: where the search's own best card is known from 1,000
#: other layouts, a pick from 96 misses it by 0.88 points of hand value a decision while a nil
#: is alive and 0.30 otherwise, from 300 by 0.57 and 0.15 (``benchmarks/layout_regret.py``, 120
#: decisions; BENCHMARKS.md, "Hard 0.3", twenty-first pass).
MAX_LAYOUTS = 1000
#: Expert's cap: at 3,000 its searched plays deal a median 1,033 layouts, p95 1.81 s (at 600,
#: four in five stopped at the cap).
EXPERT_MAX_LAYOUTS = 3000
#: The Hard of version 0.1, kept for the arena (``hard-classic``): it solved the last 4 cards.
CLASSIC_SOLVER_CARDS = 4
#: Nodes one nil question of a layout may take (whether the defence can force a trick on a
#: live nil after a candidate card); past it the nil counts as holding in that layout.
NIL_NODES = 200_000
#: In the first this many tricks (all of them) Hard leads against an opponent's live nil by
#: Normal's rule (the card of a suit the nil bidder still holds with the fewest lower cards
#: it may hold, away from its partner's cuts; until the twenty-third pass the lowest rank)
#: rather than by its layouts.  In the first three its search chose hardly better than
#: chance: over 369 such leads, played out on the actual deals, its leads fell 59 and 109
#: points of hand value short of the best, a random card's 64 and 110, Normal's 55 and 100
#: (``benchmarks/nil_leads.py``); over 600 duplicate deals against Hard 0.2 that was +2.2
#: points a hand (-1.5 to +5.8; BENCHMARKS.md, "Hard 0.3", nineteenth pass).  Every lead after
#: them too: +2.65 more (-0.57 to +5.87 over the same 600 deals, both seeds gaining; Hard
#: 0.2's nils held 194 times of 407 against 213; twenty-first pass); on a third seed's nil
#: deals the two together were +0.70 (-5.42 to +6.82; twenty-second pass).  Normal's defence
#: of the twenty-third pass (that count for the lead; in its playouts, a small card kept under
#: the winner) moved it +0.65 (-1.98 to +3.27) over seeds 1, 2, 4, 5.  Which suit breaks a
#: nil turns on cards no layout places.  (Without Normal's newest part of it: see
#: :data:`KEEP_LOWEST`; and a lead that catches the nil at once in most layouts goes before
#: the rule: :data:`CATCH_SHARE`.)
NIL_RULE_LEADS = 13
#: Whether Hard's leads against a nil, and the defenders its layouts imagine, keep back the
#: lowest card of a suit not yet played as Normal does (:func:`~varaq.bots.normal.choose_play`).
#: They do not.  Normal gains by it in its own arena, but in its contracts, not in nils broken;
#: Hard's margin is in nils, and with the rule Hard lost 3.2 points a hand against Hard 0.2
#: over seed 6's 300 duplicate deals (-8.5 to +2.0, paired), Hard 0.2's nils holding 105
#: times of 186 against 96 (BENCHMARKS.md, "Hard 0.3", twenty-fourth pass).
KEEP_LOWEST = False
#: A lead against a live nil that makes the nil bidder win the trick at once in at least this
#: share of the layouts (the trick finished by Normal at each seat) is led instead of Normal's
#: card.  Normal's rule looks only at suits the nil bidder still holds, so it misses the
#: surest catch of all: a nil left with nothing but spades, led a suit it is out of, must cut
#: (``tests/test_hard.py``).  The most catching lead every time, however rare its catch, was
#: -1.07 points a hand over seed 8's 200 duplicate deals (-6.17 to +4.02, paired; 9 of Hard
#: 0.2's nils broken that had held and 9 held that had been broken), a lead the nil must
#: win in half the layouts or more +1.38 (-2.55 to +5.31; 7 and 5), and on seed 9's first 150
#: deals +0.22 (-5.48 to +5.92; 5 and 8), +0.88 (-2.44 to +4.20) together (BENCHMARKS.md,
#: "Hard 0.3", twenty-seventh pass): a catch that is likely now is worth more than the rule's
#: long game, an unlikely one is not, and neither moves the margin much.
CATCH_SHARE = 0.5
#: From this many tricks played, Hard leads against a live nil, when no card is a likely catch
#: (:data:`CATCH_SHARE`), the card after which a defence seeing every card could still force
#: a trick on the nil in the most layouts (the solver's proof, as :func:`_nil_breaks` asks
#: it), Normal's card first among equals.  By then the nil bidder's showing out and its ducks
#: have placed most of the cards that matter.  Over 78 leads of two seeds' runs against a live
#: nil that some cards keep breakable and others do not, from the seventh trick on, Hard's
#: lead at 96 layouts kept it breakable in the actual deal 77 % of the time, Normal's 64 %, a
#: random card's 56 % (``benchmarks/nil_leads.py --from-trick 6``).  Played on by Normal at
#: every seat, Hard's leads were worth less than Normal's there (54 points of hand value
#: below the best card against 46); at a table Hard plays on, and against Hard 0.2 it was
#: +0.97 points a hand over seed 8's 200 duplicate deals (-2.71 to +4.64, paired) and +6.93 a
#: nil deal over seed 9's 92 deals with a nil of Hard 0.2's (-0.71 to +14.58): +2.38 (-0.53
#: to +5.28) the two together, Hard 0.2's nils holding 112 times of 225 against 122
#: (BENCHMARKS.md, "Hard 0.3", twenty-eighth pass).  The defence's follows stay with the
#: layouts' playouts: the proof's count put before their mean lost (-6.2 a nil deal over seed
#: 8's first 40, -1.9 over seed 9's first 41; Hard 0.2's nils held no less often), and added
#: to the mean at 100 points a layout it changed little and won nothing (-3.7 and +0.0 over
#: 38 and 39; twenty-ninth pass).
PROOF_LEADS_FROM = 6

#: Whether Hard's solved layouts price a card after which no trick can change how the
#: contracts end (ours made or set whatever we take, theirs made) by the tricks each side is
#: left with when both shed them, the bags' game, rather than when both take all they can
#: (see :func:`_shed_where_settled`; BENCHMARKS.md, "Hard 0.3", thirty-third pass).
SHED_BAGS = True
#: The bags' game is solved only once every hand holds at most this many cards, and within
#: :data:`SHED_NODES` nodes (past it the most-tricks count stands): with no sure tricks to
#: count it is a far harder search than the most tricks' (over 30 random positions each, a
#: median 4,400 nodes at 6 cards a hand, 12,000 at 7, 61,000 at 8, 5 million at 11).
SHED_CARDS = 8
SHED_NODES = 100_000


#: What a finished hand is worth to a side, in points of the match (see
#: :func:`~varaq.bots.simbid.match_value`: the hand's points minus the opponents', bags dearer
#: near the limit, ending the match worth :data:`MATCH_WEIGHT` more).
hand_value = match_value


@dataclass(slots=True)
class _Tally:
    """What one candidate action achieved over the layouts evaluated so far."""

    total: float = 0.0
    layouts: int = 0
    #: Counters of the outcome that matters most in this position (see ``_Goal``).
    hits: int = 0

    @property
    def mean(self) -> float:
        return self.total / self.layouts if self.layouts else float("-inf")


class _Goal:
    """The outcome a decision is explained by: a nil kept or set, a contract made or set."""

    def __init__(self, view: View, k: Knowledge) -> None:
        seat, side = view.seat, view.seat & 1
        self.seat, self.side = seat, side
        self.kind = "points"
        self.target = -1
        bids = view.bids
        if bids[seat] == 0 and k.nil_alive[seat]:
            self.kind, self.target = "own_nil", seat
        elif bids[seat ^ 2] == 0 and k.nil_alive[seat ^ 2]:
            self.kind, self.target = "mate_nil", seat ^ 2
        elif k.their_live_nils:
            self.kind = "their_nil"
            self.target = k.their_live_nils[0]
        elif k.contract[side] and k.need(side) > 0:
            self.kind = "make"
        elif k.contract[1 - side] and k.need(1 - side) > 0:
            self.kind = "set"

    def hit(self, result: HandScore) -> bool:
        if self.kind in ("own_nil", "mate_nil"):
            return bool(result.nil_made[self.target])
        if self.kind == "their_nil":
            return result.nil_made[self.target] is False
        if self.kind == "make":
            return result.made[self.side] is True
        if self.kind == "set":
            return result.made[1 - self.side] is False
        return result.score[self.side] >= result.score[1 - self.side]

    def words(self, hits: int, n: int) -> str:
        return {
            "own_nil": f"it keeps your nil safe in {hits} of {n} layouts",
            "mate_nil": f"it keeps your partner's nil safe in {hits} of {n} layouts",
            "their_nil": f"it sets their nil in {hits} of {n} layouts",
            "make": f"we make the contract in {hits} of {n} layouts",
            "set": f"the opponents are set in {hits} of {n} layouts",
            "points": f"we outscore the opponents in {hits} of {n} layouts",
        }[self.kind]


def _finish_with_normal(g: Game) -> HandScore:
    """Play the rest of the hand with Normal at every seat; each seat sees only its view.

    A card that is the only legal one is played without building the seat's view (Normal
    would play it too): 29 % of a playout's cards, the last trick's among them."""
    while g.phase in (PLAY, BIDDING, EXCHANGE, BLIND):
        phase = g.phase
        if phase == PLAY:
            legal = g.legal_actions()
            if len(legal) == 1:
                g.apply(legal[0])
                continue
        view = g.view(g.turn)
        if phase == PLAY:
            action = choose_play(view, keep_lowest=KEEP_LOWEST).action
        elif phase == BIDDING:
            action = choose_bid(view).action
        elif phase == EXCHANGE:
            action = choose_pass(view).action
        else:
            action = choose_blind(view).action
        g.apply(action)
    return g.log[-1].result


def _finish_trick_with_normal(g: Game) -> None:
    """Play the trick under way to its end with Normal at every seat (each from its view)."""
    while g.trick and g.phase == PLAY:
        legal = g.legal_actions()
        g.apply(legal[0] if len(legal) == 1
                else choose_play(g.view(g.turn), keep_lowest=KEEP_LOWEST).action)


def _the(card: int) -> str:
    name = card_name(card)
    return "the " + name[0].lower() + name[1:]


class HardBot:
    """The Hard computer player (see the module docstring).

    ``time_budget``: seconds of thought per decision when ``samples`` is not given.
    ``samples``: evaluate exactly this many layouts (deterministic for a view and a seed).
    ``solver_cards``: use the double-dummy solver once every hand holds at most this many
    cards (and no nil is still alive); by default :data:`SOLVER_CARDS` for the solver built.
    ``budget``: another name for ``time_budget`` (the arena's ``--budget``).
    ``use_bids``: weigh the layouts by the bids (turned off to measure what the evidence buys,
    or in hand-made positions whose bids do not match the cards).
    ``solve_nils``: solve the late layouts while an opponent's nil is alive too (each live nil
    asked of the solver on its own, see :func:`play_outcomes`) instead of playing them out with
    Normal.  Off: the proof assumes a nil bidder who sees every card.  Against perfect play it
    breaks a few more nils, but against honest nil bidders (Hard 0.2, 300 duplicate deals at
    96 layouts) it gains nothing, from 10 cards a hand (-1.1 points a hand [-5.8, +3.7]) or
    from 6 (-0.4 [-3.5, +2.7]; fifteenth pass).
    Hard's own side's nils are always solved late: there the proof asks what matters against a
    strong defence, whether the card leaves the nil a way through, and Hard's nils held more
    often against perfect defence (62 of 142 against 58; BENCHMARKS.md, "Hard 0.3",
    fourteenth pass).  A proof costs more than a playout, so such a decision deals fewer
    layouts in its budget.
    """

    name = "hard"

    def __init__(
        self,
        time_budget: float = 0.6,
        samples: int | None = None,
        *,
        max_samples: int = MAX_LAYOUTS,
        min_samples: int = 4,
        solver_cards: int | None = None,
        use_bids: bool = True,
        solve_nils: bool = False,
        budget: float | None = None,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        if budget is not None:
            time_budget = budget  # the arena's ``--budget`` name for the same setting
        if time_budget <= 0:
            raise ValueError("time_budget must be positive")
        if samples is not None and samples < 1:
            raise ValueError("samples must be at least 1")
        self.time_budget = time_budget
        self.samples = samples
        self.max_samples = max_samples
        self.min_samples = min_samples
        if solver_cards is None:
            solver_cards = SOLVER_CARDS[default_backend()]
        if not 1 <= solver_cards <= 13:
            raise ValueError("solver_cards must be between 1 and 13")
        self.solver_cards = solver_cards
        self.use_bids = use_bids
        self.solve_nils = solve_nils
        self._clock = clock

    # -- the Bot protocol ---------------------------------------------------------------------

    def act(self, view: View, rng: random.Random) -> int:
        return self.decide(view, rng).action

    def decide(self, view: View, rng: random.Random) -> Decision:
        if not view.legal:
            raise ValueError("it is not this seat's turn: there is nothing to decide")
        phase = view.phase
        if phase == "blind":
            return choose_blind(view)
        if phase == "exchange":
            return choose_pass(view)
        try:
            if phase == "play":
                return self._decide_play(view, rng)
            if phase == "bid":
                return self._decide_bid(view, rng)
        except SamplingError:
            # Only a view that contradicts itself can get here; Normal still has an answer.
            return choose_play(view) if phase == "play" else choose_bid(view)
        raise ValueError(f"nothing to decide in the {phase} phase")

    # -- the layouts loop ---------------------------------------------------------------------

    def _keep_going(self, done: int, started: float) -> bool:
        if self.samples is not None:
            return done < self.samples
        if done < self.min_samples:
            return True
        if done >= self.max_samples:
            return False
        # Stop when one more layout, at the average cost so far, would overrun the budget.
        elapsed = self._clock() - started
        return elapsed + elapsed / done <= self.time_budget

    # -- play ---------------------------------------------------------------------------------

    def _decide_play(self, view: View, rng: random.Random) -> Decision:
        started = self._clock()
        legal = view.legal
        if len(legal) == 1:
            return Decision(legal[0], f"Play {_the(legal[0])}: the only legal card")
        k = Knowledge.from_view(view)
        candidates = play_candidates(view, k)
        if len(candidates) == 1:
            card = candidates[0]
            return Decision(card, f"Play {_the(card)}: your legal cards are all equivalent")
        goal = _Goal(view, k)
        sampler = Sampler(view, k, use_bids=self.use_bids)
        if (goal.kind == "their_nil" and not view.trick and len(view.tricks) < NIL_RULE_LEADS
                and k.need(goal.side) < k.tricks_left):
            return self._lead_to_catch(view, k, candidates, sampler, rng, started)
        tallies = {c: _Tally() for c in candidates}
        solve_late = self.solves_late(view, k)
        done = 0
        while self._keep_going(done, started):
            layout = sampler.layouts(rng, 1)[0]
            results = play_outcomes(view, layout.hands, candidates, solve_late, k.nil_alive)
            for card, result in results.items():
                t = tallies[card]
                t.total += hand_value(view.rules, goal.side, result, view.totals)
                t.layouts += 1
                t.hits += goal.hit(result)
            done += 1
        # Ties go to the card Normal would play, then to the cheapest (candidates are ordered
        # low to high within a suit).  Layouts often cannot tell two cards apart (a nil ducking
        # with its nine or its three under a queen); Normal's rules then know better than the
        # cheapest card: a nil sheds its highest safe card, a defender keeps its spades.
        preferred = _normal_candidate(view, k, candidates)
        best = max(candidates, key=lambda c: (tallies[c].mean, c == preferred))
        t = tallies[best]
        how = "solved double dummy" if solve_late else "played out"
        reason = f"Play {_the(best)}: {goal.words(t.hits, t.layouts)} ({how})"
        return Decision(best, reason)

    def _lead_to_catch(
        self, view: View, k: Knowledge, candidates: list[int], sampler: Sampler,
        rng: random.Random, started: float,
    ) -> Decision:
        """A lead against a live nil: the card that forces a nil bidder to take this very trick
        in the most layouts, the trick finished by Normal at each seat from its own view (the
        nil ducking what it can, its partner overtaking what it can), Normal's lead first among
        equals, if that card catches the nil in :data:`CATCH_SHARE` of the layouts.  Otherwise,
        from :data:`PROOF_LEADS_FROM` tricks on, the card after which a defence seeing every
        card could still force a trick on the nil in the most layouts (the same layouts, each
        live nil counted; the solver's proof as :func:`_nil_breaks` asks it), Normal's lead
        first among equals; before that, Normal's lead (:data:`NIL_RULE_LEADS`)."""
        nils = k.their_live_nils
        # The proof's cost is the solver's: with the pure Python one, only its last cards.
        late = (len(view.tricks) >= PROOF_LEADS_FROM
                and max(view.cards_left) <= self.solver_cards)
        catches = dict.fromkeys(candidates, 0)
        keeps = dict.fromkeys(candidates, 0)
        done = 0
        while self._keep_going(done, started):
            hands = sampler.layouts(rng, 1)[0].hands
            base = Game.from_view(view, hands)
            for card in candidates:
                g = base.copy()
                g.apply(card)
                before = sum(g.taken[s] for s in nils)
                _finish_trick_with_normal(g)
                catches[card] += sum(g.taken[s] for s in nils) - before
            if late:
                for nil in nils:
                    breaks = _nil_breaks(view, hands, view.seat, [], nil, candidates)
                    for card in candidates:
                        keeps[card] += breaks[card]
            done += 1
        normal = choose_play(view, k, keep_lowest=KEEP_LOWEST)
        preferred = candidate_for(view, k, candidates, normal.action)
        best = max(candidates, key=lambda c: (catches[c], c == preferred))
        if catches[best] >= CATCH_SHARE * done:
            return Decision(best, f"Lead {_the(best)}: the nil bidder has to win it in "
                                  f"{catches[best]} of {done} layouts")
        if not late:
            return normal
        best = max(candidates, key=lambda c: (keeps[c], c == preferred))
        if best == preferred:
            return normal
        return Decision(best, f"Lead {_the(best)}: their nil can still be broken after it in "
                              f"{keeps[best]} of {done * len(nils)} layouts")

    def solves_late(self, view: View, k: Knowledge) -> bool:
        """Whether a play decision's layouts are solved rather than played out with Normal:
        every hand down to ``solver_cards`` and no opponent's nil alive (unless
        ``solve_nils``)."""
        late = max(view.cards_left) <= self.solver_cards
        return late and (self.solve_nils or not k.their_live_nils)

    # -- bidding ------------------------------------------------------------------------------

    def _decide_bid(self, view: View, rng: random.Random) -> Decision:
        """Every sensible bid priced over solved layouts (:mod:`varaq.bots.simbid`).  Without
        the compiled solver a whole deal takes seconds to solve in Python, so Hard then bids by
        the count, as Normal does, rather than keep a table waiting minutes for a bid."""
        if default_backend() != "c":
            return choose_bid(view)
        started = self._clock()
        candidates, guess = sim_bid_candidates(view)
        if len(candidates) == 1:
            n = candidates[0]
            return Decision(BID + n, f"{_bid_words(n)}: the only sensible bid")
        sampler = Sampler(view, use_bids=self.use_bids)
        study = study_bids(view, rng, candidates, sampler,
                           lambda done: self._keep_going(done, started))
        best = study.best(prior=guess)
        return Decision(BID + best, study.words(best))


class ExpertBot(HardBot):
    """The Expert computer player: Hard's search with about three times the thought.

    The same decisions as :class:`HardBot` (simulated bids, layouts weighed by the bids and the
    plays), with :data:`EXPERT_BUDGET` seconds a decision instead of 0.6, so it deals about
    two to three times Hard's layouts (a median 1,033 a searched play against Hard's 404, up to
    :data:`EXPERT_MAX_LAYOUTS`) and bids over as many as its budget allows rather than a
    table's 20.  Its p95 stays within 2.5 s (``benchmarks/hard_speed.py --bot expert``).
    Measured so, at twice Hard's 96 fixed layouts, both solving from 11 cards, it was 4.3
    points a hand above Hard over 206 paired deals, an interval of -4.6 to +13.1
    (BENCHMARKS.md, "Hard 0.3", sixteenth and seventeenth passes).
    """

    name = "expert"

    def __init__(
        self,
        time_budget: float = 0.0,
        samples: int | None = None,
        *,
        max_samples: int = EXPERT_MAX_LAYOUTS,
        solver_cards: int | None = None,
        budget: float | None = None,
        use_bids: bool = True,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        if not time_budget:
            time_budget = EXPERT_BUDGET
        super().__init__(time_budget, samples, max_samples=max_samples,
                         solver_cards=solver_cards, budget=budget, use_bids=use_bids,
                         clock=clock)


class ClassicHardBot(HardBot):
    """The Hard player of version 0.1, which solved only the last 4 cards of its layouts.

    Kept for the arena (``hard-classic``), so the gain of solving earlier is measured against
    the player it replaced; never offered at the table.
    """

    name = "hard-classic"

    def __init__(
        self, time_budget: float = 0.6, samples: int | None = None, *, budget: float | None = None,
    ) -> None:
        super().__init__(time_budget, samples, solver_cards=CLASSIC_SOLVER_CARDS, budget=budget)


def _bid_words(n: int) -> str:
    return "Nil" if n == 0 else f"Bid {n}"


# -- outcomes of candidate actions in one layout (shared with the cheater) ------------------


def play_candidates(view: View, k: Knowledge | None = None) -> list[int]:
    """The distinct legal cards of a play decision: one per run of equivalent cards, judged by
    the cards this seat cannot tell apart (its own hand, the unseen cards, the trick)."""
    if k is None:
        k = Knowledge.from_view(view)
    legal_mask = 0
    for a in view.legal:
        legal_mask |= 1 << a
    return representatives(legal_mask, view.hand, _remaining(view, k), view.rules.jokers)


def _remaining(view: View, k: Knowledge) -> int:
    """Every card still in play as this seat sees it: its hand, the unseen cards, the trick."""
    remaining = view.hand | k.unseen
    for _, card in view.trick:
        remaining |= 1 << card
    return remaining


def _normal_candidate(view: View, k: Knowledge, candidates: list[int]) -> int:
    """The candidate standing for the card Normal would play here (-1 if none does)."""
    return candidate_for(view, k, candidates,
                         choose_play(view, k, keep_lowest=KEEP_LOWEST).action)


def candidate_for(view: View, k: Knowledge, candidates: list[int], card: int) -> int:
    """The candidate of :func:`play_candidates` standing for ``card``: the card itself, or the
    one of the same run of equivalent cards as this seat sees them (-1 if none is)."""
    if card in candidates:
        return card
    remaining = _remaining(view, k)
    for c in candidates:
        # One representative of the two cards: they are of one run, equivalent.
        if len(representatives(1 << c | 1 << card, view.hand, remaining, view.rules.jokers)) == 1:
            return c
    return -1


def bid_candidates(view: View, span: int = BID_SPAN) -> tuple[list[int], int]:
    """The bids worth simulating (0 = nil) and Normal's own bid among them.

    Bids within ``span`` of Normal's estimate, plus nil when the hand holds no top trump and
    Normal's nil danger is moderate.
    """
    legal = {a - BID for a in view.legal if BID <= a <= BID + 13}
    guess, _ = bid_for(view)
    if guess not in legal:
        guess = choose_bid(view).action - BID
    values = [b for b in range(guess - span, guess + span + 1) if b > 0 and b in legal]
    jokers = view.rules.jokers
    if (
        0 in legal
        and 0 not in values
        and not view.hand >> top_trump(jokers) & 1
        and nil_danger(view.hand, jokers) < NIL_CONSIDERED
    ):
        values.append(0)
    if guess not in values:
        values.append(guess)
    return values, guess


def sim_bid_candidates(view: View) -> tuple[list[int], int]:
    """The bids a simulated bid weighs (0 = nil) and Normal's counted bid among them: every
    legal number (the solved layouts price them all for little more than one), and nil when
    the table allows it and the hand does not hold the top trump."""
    legal = sorted(a - BID for a in view.legal if BID <= a <= BID + 13)
    guess, _ = bid_for(view)
    if guess not in legal:
        guess = choose_bid(view).action - BID
    values = [b for b in legal if b > 0]
    if 0 in legal and not view.hand >> top_trump(view.rules.jokers) & 1:
        values.append(0)
    if not values:
        values = legal
    return values, guess


def play_outcomes(
    view: View, hands: tuple[int, int, int, int], candidates: list[int], solve: bool,
    nil_alive: tuple[bool, ...] = (False, False, False, False), nil_nodes: int = NIL_NODES,
) -> dict[int, HandScore]:
    """How the hand ends after each candidate card in the layout ``hands``.

    With ``solve`` the rest is perfect play: the double-dummy solver counts each side's
    tricks, and each nil in ``nil_alive`` is a question of its own to the solver (can its
    defence force one trick on it after this card?, settled within ``nil_nodes`` nodes or
    counted as holding), as a defender seeing every card would ask it.  Otherwise every seat
    plays on with Normal's policy from its own view of the simulated table.
    """
    if solve:
        return _solved_outcomes(view, hands, candidates, nil_alive, nil_nodes)
    base = Game.from_view(view, hands)
    out = {}
    for card in candidates:
        g = base.copy()
        g.apply(card)
        out[card] = _finish_with_normal(g)
    return out


def bid_outcomes(
    view: View, hands: tuple[int, int, int, int], candidates: list[int],
) -> dict[int, HandScore]:
    """How the hand ends after each candidate bid (0 = nil) in the layout ``hands``: the
    other seats bid and everyone plays with Normal's policy."""
    base = Game.from_view(view, hands)
    out = {}
    for b in candidates:
        g = base.copy()
        g.apply(BID + b)
        out[b] = _finish_with_normal(g)
    return out


def _solved_outcomes(
    view: View, hands: tuple[int, int, int, int], candidates: list[int],
    nil_alive: tuple[bool, ...] = (False, False, False, False), nil_nodes: int = NIL_NODES,
) -> dict[int, HandScore]:
    """Each candidate's hand result under perfect play in one layout.

    The sides' tricks are one double-dummy count.  A live nil is judged on its own: broken
    (one trick to the nil bidder, out of its side's count, or out of the defence's when its
    side's count is nothing) when its defence can force a trick on it after the candidate,
    holding otherwise, the side's other tricks going to its contract bidder.  Two objectives
    solved apart, so an approximation of one perfect line, but each nil exactly as a defence
    that sees every card would attack it.
    """
    side = view.seat & 1
    leader = view.leader if view.leader is not None else view.seat
    trick = [card for _, card in view.trick]
    values = card_values(hands, leader, trick, view.broken, view.rules, side)
    left = 13 - len(view.tricks)
    bids = tuple(0 if b is None else b for b in view.bids)
    live = [s for s in range(4) if nil_alive[s]]
    broken_after = {s: _nil_breaks(view, hands, leader, trick, s, candidates, nil_nodes)
                    for s in live}

    def scored(card: int, ours: int) -> HandScore:
        rests = [0, 0]
        rests[side], rests[1 - side] = ours, left - ours
        taken = list(view.taken)
        for s in live:
            if broken_after[s][card]:
                taken[s] += 1
                # The trick comes out of the nil side's count; a side whose count is nothing
                # takes it anyway, because the defence gives one up to force it.
                giver = s & 1 if rests[s & 1] else 1 - (s & 1)
                rests[giver] = max(0, rests[giver] - 1)
        for s_side in (0, 1):
            taken[_rest_taker(bids, s_side, taken)] += rests[s_side]
        return score_hand(view.rules, bids, view.blind, tuple(taken), view.bags)

    out = {card: scored(card, values[card]) for card in candidates}
    if SHED_BAGS and not live and max(view.cards_left) <= SHED_CARDS:
        _shed_where_settled(view, hands, leader, trick, candidates, values, out, scored)
    return out


def _shed_where_settled(
    view: View, hands: tuple[int, int, int, int], leader: int, trick: list[int],
    candidates: list[int], values: dict[int, int], out: dict[int, HandScore],
    scored: Callable[[int, int], HandScore],
) -> None:
    """Where no trick can change how the contracts end after a card, price it by the tricks
    left when each side sheds them rather than takes them (see :data:`SHED_BAGS`), in place
    in ``out``.

    Read from the most-tricks count: the opponents make their contract even when we take the
    most we can, and we make ours taking the most (or are set even then).  Between those lines
    every trick is a bag for whoever takes it, or a trick a set side takes for nothing, so
    the side that sees bags as a cost ducks and the other side dumps tricks on it: the count
    of that game (our side minimising its tricks, the opponents maximising them) is the
    question, raised to the least our contract needs when we make it.  The count is used only
    when it is worth more to us than the most-tricks one (with no bag penalty a trick is a
    point and taking it stays best)."""
    side = view.seat & 1
    settled = [c for c in candidates
               if out[c].made[1 - side] is True and out[c].made[side] is not None]
    if not settled:
        return
    shedder = Solver(1 - side, jokers=view.rules.jokers,
                     counted=[(s & 1) == side for s in range(4)], node_limit=SHED_NODES)
    try:
        fewest = card_values(hands, leader, trick, view.broken, view.rules, 1 - side,
                             solver=shedder)
    except SolverLimit:
        return
    rules, totals = view.rules, view.totals
    for card in settled:
        # The fewest tricks we can be left with, or, when we make the contract, the fewest that
        # still make it: each count scored once, from the fewest up to the most-tricks one.
        must_make = out[card].made[side]
        for ours in range(fewest[card], values[card]):
            shed = scored(card, ours)
            if shed.made[side] or not must_make:
                break
        else:
            continue  # no count below the most-tricks one will do
        if hand_value(rules, side, shed, totals) > hand_value(rules, side, out[card], totals):
            out[card] = shed


def _rest_taker(bids: tuple[int, ...], side: int, taken: list[int]) -> int:
    """The seat of ``side`` credited with its remaining solved tricks: a contract bidder, else
    a nil bidder already broken (more tricks cost it nothing), else the first seat (a side of
    two nils that hold: the count is only approximate there)."""
    first, second = side, side + 2
    for s in (first, second):
        if bids[s] != 0:
            return s
    for s in (first, second):
        if taken[s]:
            return s
    return first


def _nil_breaks(
    view: View, hands: tuple[int, int, int, int], leader: int, trick: list[int], seat: int,
    candidates: list[int], node_limit: int = NIL_NODES,
) -> dict[int, bool]:
    """For each candidate card: whether the defence of ``seat``'s live nil can force a trick
    on it once the card is played (perfect play on this layout).  A question the solver does
    not settle within ``node_limit`` nodes counts as the nil holding."""
    breaker = Solver.nil_defence(seat, jokers=view.rules.jokers, node_limit=node_limit)
    out = {}
    for card in candidates:
        try:
            out[card] = breaker.at_least_after(hands, leader, trick, view.broken, card, 1)
        except SolverLimit:
            out[card] = False
    return out
