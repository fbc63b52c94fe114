"""Hard as it was at version 0.2 (commit d28f9f4), frozen: the player the new Hard and Expert
are measured against (``benchmarks/strength.py --legs hard-v02``).

A verbatim copy of ``varaq.bots.hard`` and ``varaq.bots.sampling`` of that commit in one
module, so later changes to the bots package cannot move the yardstick.  Only the shared
building blocks (Normal's bidding, the knowledge of a view, the solver) are imported: they are
what the old player called, and the new players leave them as they were.  Normal's card play
has changed since (nil defence), so the layouts are played out with Normal's play of 0.2
(``normal_v02.py``).  Never offered at a table.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass

from normal_v02 import choose_play
from varaq.actions import BID
from varaq.bots import Decision
from varaq.bots.bidding import estimate_tricks, nil_danger, top_trump
from varaq.bots.knowledge import Knowledge
from varaq.bots.normal import bid_for, choose_bid, choose_blind, choose_pass
from varaq.cards import card_name
from varaq.engine import BIDDING, BLIND, EXCHANGE, PLAY, Game
from varaq.rules import Rules
from varaq.scoring import HandScore, match_winner, score_hand
from varaq.solver import card_values, default_backend, representatives
from varaq.view import View

__all__ = ["HardV02Bot"]

#: How far (in tricks) a bid usually sits from the hand's estimated tricks.
BID_SPREAD = 1.4
#: How much nil danger a nil bidder usually accepts.
NIL_SPREAD = 0.7
#: Fit of a nil bid by a hand holding the top trump (it always wins a trick): nearly never.
TOP_TRUMP_NIL_FIT = 0.02


class SamplingError(RuntimeError):
    """No layout fits the view's hard constraints (only a corrupt view can cause it)."""


@dataclass(frozen=True, slots=True)
class Layout:
    """One imagined deal: every seat's current holding, and how well it fitted the bids."""

    hands: tuple[int, int, int, int]
    #: Likelihood of the bids given these hands, relative to a perfect fit (0..1].
    fit: float


def bid_fit(hand_as_bid: int, bid: int, blind: bool, jokers: bool) -> float:
    """How likely a player holding ``hand_as_bid`` was to bid ``bid`` (1.0 = a typical bid).

    Not a calibrated probability: a smooth score that is 1 when the bid matches the hand's
    estimated tricks (or, for nil, when the hand is a safe nil) and falls off with distance.
    A blind nil was bid without seeing the cards, so it says nothing about them.
    """
    if blind:
        return 1.0
    if bid == 0:
        if hand_as_bid >> top_trump(jokers) & 1:
            return TOP_TRUMP_NIL_FIT
        danger = nil_danger(hand_as_bid, jokers)
        return math.exp(-0.5 * (danger / NIL_SPREAD) ** 2)
    gap = bid - estimate_tricks(hand_as_bid, jokers)
    return math.exp(-0.5 * (gap / BID_SPREAD) ** 2)


class Sampler:
    """Deals layouts for one view; build once per decision, draw as many layouts as wanted."""

    def __init__(self, view: View, knowledge: Knowledge | None = None, use_bids: bool = True):
        self.view = view
        k = Knowledge.from_view(view) if knowledge is None else knowledge
        self.knowledge = k
        self.seat = view.seat
        self.jokers = view.rules.jokers
        others = [s for s in range(4) if s != view.seat]
        self.others = others
        # Cards each seat has played this hand: added back to judge the hand it bid with.
        played_by = [0, 0, 0, 0]
        for t in view.tricks:
            for i, card in enumerate(t.cards):
                played_by[(t.leader + i) & 3] |= 1 << card
        for s, card in view.trick:
            played_by[s] |= 1 << card
        self.played_by = played_by
        self.evidence = [
            s for s in others
            if use_bids and view.bids[s] is not None and not view.blind[s]
        ]
        # Hard constraints: cards surely held, and the free cards each seat may take.
        self.known = [k.known[s] if s != view.seat else 0 for s in range(4)]
        fixed = 0
        for s in others:
            fixed |= self.known[s]
        free = k.unseen & ~fixed
        self.need = [
            view.cards_left[s] - self.known[s].bit_count() if s != view.seat else 0
            for s in range(4)
        ]
        if any(n < 0 for n in self.need) or sum(self.need) != free.bit_count():
            raise SamplingError("the view's card counts do not add up")
        # Free cards grouped by which seats may hold them (most constrained dealt first).
        groups: dict[tuple[int, ...], list[int]] = {}
        mask = free
        while mask:
            low = mask & -mask
            card = low.bit_length() - 1
            mask ^= low
            seats = tuple(s for s in others if k.possible[s] & low)
            if not seats:
                raise SamplingError("a card out cannot be held by anyone")
            groups.setdefault(seats, []).append(card)
        self.groups = sorted(groups.items(), key=lambda kv: len(kv[0]))

    def deal(self, rng: random.Random, attempts: int = 200) -> tuple[int, int, int, int]:
        """One layout meeting the hard constraints (voids, counts, known cards)."""
        for _ in range(attempts):
            hands = self._try_deal(rng)
            if hands is not None:
                return hands
        raise SamplingError("no layout fits the voids and card counts")

    def _try_deal(self, rng: random.Random) -> tuple[int, int, int, int] | None:
        hands = list(self.known)
        hands[self.seat] = self.view.hand
        room = list(self.need)
        for seats, cards in self.groups:
            pool = cards[:]
            rng.shuffle(pool)
            if len(seats) == 1:
                s = seats[0]
                if room[s] < len(pool):
                    return None
                for c in pool:
                    hands[s] |= 1 << c
                room[s] -= len(pool)
                continue
            for c in pool:
                # Pick a seat with room, in proportion to its room: a uniform deal of the
                # remaining places among the seats that may hold the card.
                total = 0
                for s in seats:
                    total += room[s]
                if total == 0:
                    return None
                r = rng.randrange(total)
                for s in seats:
                    if r < room[s]:
                        hands[s] |= 1 << c
                        room[s] -= 1
                        break
                    r -= room[s]
        if any(room):
            return None
        return (hands[0], hands[1], hands[2], hands[3])

    def fit(self, hands: tuple[int, int, int, int]) -> float:
        """How well a layout explains the bids made so far (product over the bidders)."""
        view = self.view
        out = 1.0
        for s in self.evidence:
            bid = view.bids[s]
            assert bid is not None
            out *= bid_fit(hands[s] | self.played_by[s], bid, False, self.jokers)
        return out

    def layouts(self, rng: random.Random, n: int, max_tries: int | None = None) -> list[Layout]:
        """``n`` layouts, accepted in proportion to how well they fit the bids.

        After ``max_tries`` draws (default ``30 * n``) without enough acceptances, the best
        rejected layouts fill the gap, so the call always returns ``n`` layouts.
        """
        tries = 30 * n if max_tries is None else max_tries
        out: list[Layout] = []
        spare: list[Layout] = []
        for _ in range(tries):
            if len(out) >= n:
                break
            hands = self.deal(rng)
            fit = self.fit(hands) if self.evidence else 1.0
            if rng.random() < fit:
                out.append(Layout(hands, fit))
            else:
                spare.append(Layout(hands, fit))
        if len(out) < n:
            spare.sort(key=lambda lay: -lay.fit)
            out.extend(spare[: n - len(out)])
        return out



#: What ending the match is worth, in points, on top of the hand's own points.
MATCH_WEIGHT = 300.0
#: A nil is considered as a bid only when Normal's nil danger of the hand is below this.
NIL_CONSIDERED = 1.6
#: Bids tried on each side of Normal's estimate.
BID_SPAN = 2
#: Cards per hand from which Hard solves its layouts, with the compiled solver and without it.
SOLVER_CARDS = {"c": 10, "python": 4}
#: The Hard of version 0.1, kept for the arena (``hard-classic``): it solved the last 4 cards.
CLASSIC_SOLVER_CARDS = 4


def hand_value(rules: Rules, side: int, result: HandScore, totals_before: tuple[int, int]) -> float:
    """What a finished hand is worth to ``side``, in points of the match.

    Its points minus the opponents' points; each new bag costs a share of the bag penalty
    that grows as the side's count nears the limit (a bag at 2 carried rarely costs anything
    before the match ends, a bag at 9 costs the penalty next hand); reaching the end of the
    match adds or removes :data:`MATCH_WEIGHT`.
    """
    other = 1 - side
    value = float(result.score[side] - result.score[other])
    if rules.bag_penalty:
        per_bag = rules.bag_penalty / rules.bag_limit
        for s, sign in ((side, -1.0), (other, 1.0)):
            closeness = min(1.0, result.bags[s] / rules.bag_limit)
            value += sign * result.new_bags[s] * per_bag * (0.3 + 0.7 * closeness)
    after = (totals_before[0] + result.score[0], totals_before[1] + result.score[1])
    winner = match_winner(rules, after)
    if winner == side:
        value += MATCH_WEIGHT
    elif winner == other:
        value -= MATCH_WEIGHT
    return value


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
        elif any(k.nil_alive[s] for s in ((seat + 1) & 3, (seat + 3) & 3)):
            self.kind = "their_nil"
            self.target = next(s for s in ((seat + 1) & 3, (seat + 3) & 3) if k.nil_alive[s])
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
            "own_nil": f"it keeps my nil safe in {hits} of {n} layouts",
            "mate_nil": f"it keeps partner's nil safe in {hits} of {n} layouts",
            "their_nil": f"it sets their nil in {hits} of {n} layouts",
            "make": f"we make the contract in {hits} of {n} layouts",
            "set": f"the opponents are set in {hits} of {n} layouts",
            "points": f"we outscore the opponents in {hits} of {n} layouts",
        }[self.kind]


def _finish_with_normal(g: Game) -> HandScore:
    """Play the rest of the hand with Normal at every seat; each seat sees only its view."""
    while g.phase in (PLAY, BIDDING, EXCHANGE, BLIND):
        view = g.view(g.turn)
        phase = g.phase
        if phase == PLAY:
            action = choose_play(view).action
        elif phase == BIDDING:
            action = choose_bid(view).action
        elif phase == EXCHANGE:
            action = choose_pass(view).action
        else:
            action = choose_blind(view).action
        g.apply(action)
    return g.log[-1].result


def _the(card: int) -> str:
    name = card_name(card)
    return "the " + name[0].lower() + name[1:]


class HardV02Bot:
    """The Hard computer player (see the module docstring).

    ``time_budget``: seconds of thought per decision when ``samples`` is not given.
    ``samples``: evaluate exactly this many layouts (deterministic for a view and a seed).
    ``solver_cards``: use the double-dummy solver once every hand holds at most this many
    cards (and no nil is still alive); by default :data:`SOLVER_CARDS` for the solver built.
    ``budget``: another name for ``time_budget`` (the arena's ``--budget``).
    ``use_bids``: weigh the layouts by the bids (turned off to measure what the evidence buys,
    or in hand-made positions whose bids do not match the cards).
    ``bid_samples``: price a bid over exactly this many layouts, whatever ``samples`` says (a
    benchmark's knob, not 0.2's).  At a table its budget gave its bids a mean 108 layouts and
    its searched cards 246 (``hard_speed.py --bot hard-v02``), so a yardstick at the table's
    counts needs the two apart.
    """

    name = "hard-v02"

    def __init__(
        self,
        time_budget: float = 0.6,
        samples: int | None = None,
        *,
        max_samples: int = 300,
        min_samples: int = 4,
        solver_cards: int | None = None,
        use_bids: bool = True,
        bid_samples: int | None = None,
        budget: float | None = None,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        if budget is not None:
            time_budget = budget  # the arena's ``--budget`` name for the same setting
        if time_budget <= 0:
            raise ValueError("time_budget must be positive")
        if samples is not None and samples < 1:
            raise ValueError("samples must be at least 1")
        if bid_samples is not None and bid_samples < 1:
            raise ValueError("bid_samples must be at least 1")
        self.time_budget = time_budget
        self.samples = samples
        self.bid_samples = bid_samples
        self.max_samples = max_samples
        self.min_samples = min_samples
        if solver_cards is None:
            solver_cards = SOLVER_CARDS[default_backend()]
        if not 1 <= solver_cards <= 13:
            raise ValueError("solver_cards must be between 1 and 13")
        self.solver_cards = solver_cards
        self.use_bids = use_bids
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
            return Decision(card, f"Play {_the(card)}: my legal cards are all equivalent")
        sampler = Sampler(view, k, use_bids=self.use_bids)
        goal = _Goal(view, k)
        tallies = {c: _Tally() for c in candidates}
        solve_late = max(view.cards_left) <= self.solver_cards and not any(k.nil_alive)
        done = 0
        while self._keep_going(done, started):
            layout = sampler.layouts(rng, 1)[0]
            results = play_outcomes(view, layout.hands, candidates, solve_late)
            for card, result in results.items():
                t = tallies[card]
                t.total += hand_value(view.rules, goal.side, result, view.totals)
                t.layouts += 1
                t.hits += goal.hit(result)
            done += 1
        # Ties go to the cheapest card (candidates are ordered low to high within a suit).
        best = max(candidates, key=lambda c: tallies[c].mean)
        t = tallies[best]
        how = "solved double dummy" if solve_late else "played out"
        reason = f"Play {_the(best)}: {goal.words(t.hits, t.layouts)} ({how})"
        return Decision(best, reason)

    # -- bidding ------------------------------------------------------------------------------

    def _decide_bid(self, view: View, rng: random.Random) -> Decision:
        started = self._clock()
        candidates, guess = bid_candidates(view)
        if len(candidates) == 1:
            n = candidates[0]
            return Decision(BID + n, f"{_bid_words(n)}: the only sensible bid")
        sampler = Sampler(view, use_bids=self.use_bids)
        side = view.seat & 1
        tallies = {b: _Tally() for b in candidates}
        done = 0
        while (done < self.bid_samples if self.bid_samples is not None
               else self._keep_going(done, started)):
            layout = sampler.layouts(rng, 1)[0]
            for b, result in bid_outcomes(view, layout.hands, candidates).items():
                t = tallies[b]
                t.total += hand_value(view.rules, side, result, view.totals)
                t.layouts += 1
                if b == 0:
                    t.hits += bool(result.nil_made[view.seat])
                else:
                    t.hits += result.made[side] is True
            done += 1
        # A small prior for Normal's bid: sampling noise alone should not move the bid.
        best = max(candidates, key=lambda b: tallies[b].mean + (2.0 if b == guess else 0.0))
        t = tallies[best]
        if best == 0:
            what = f"the nil holds in {t.hits} of {t.layouts} layouts"
        else:
            what = f"we make the contract in {t.hits} of {t.layouts} layouts"
        reason = f"{_bid_words(best)}: {what}, worth {t.mean:+.0f} points on average"
        return Decision(BID + best, reason)


def _bid_words(n: int) -> str:
    return "Nil" if n == 0 else f"Bid {n}"


def _trick_taker(bids: tuple[int, ...], side: int) -> int:
    """The seat of ``side`` credited with the side's solved tricks: a contract bidder."""
    first, second = side, side + 2
    return second if bids[first] == 0 and bids[second] != 0 else first


# -- outcomes of candidate actions in one layout (shared with the cheater) ------------------


def play_candidates(view: View, k: Knowledge | None = None) -> list[int]:
    """The distinct legal cards of a play decision: one per run of equivalent cards, judged by
    the cards this seat cannot tell apart (its own hand, the unseen cards, the trick)."""
    if k is None:
        k = Knowledge.from_view(view)
    remaining = view.hand | k.unseen
    for _, card in view.trick:
        remaining |= 1 << card
    legal_mask = 0
    for a in view.legal:
        legal_mask |= 1 << a
    return representatives(legal_mask, view.hand, remaining, view.rules.jokers)


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


def play_outcomes(
    view: View, hands: tuple[int, int, int, int], candidates: list[int], solve: bool,
) -> dict[int, HandScore]:
    """How the hand ends after each candidate card in the layout ``hands``.

    With ``solve`` the rest is perfect play (the double-dummy solver, valid when no nil is
    alive: the solver counts a side's tricks, not who in the side took them); otherwise every
    seat plays on with Normal's policy from its own view of the simulated table.
    """
    if solve:
        return _solved_outcomes(view, hands, candidates)
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
) -> dict[int, HandScore]:
    """Each candidate's hand result under perfect play in one layout (no live nil)."""
    side = view.seat & 1
    leader = view.leader if view.leader is not None else view.seat
    trick = [card for _, card in view.trick]
    values = card_values(hands, leader, trick, view.broken, view.rules, side)
    left = 13 - len(view.tricks)
    bids = tuple(0 if b is None else b for b in view.bids)
    out = {}
    for card in candidates:
        ours = values[card]
        taken = list(view.taken)
        taken[_trick_taker(bids, side)] += ours
        taken[_trick_taker(bids, 1 - side)] += left - ours
        out[card] = score_hand(view.rules, bids, view.blind, tuple(taken), view.bags)
    return out
