"""Hand review: every card of a finished hand priced double dummy, as a chess site prices moves.

For each card played, the position just before it (all four hands face up, the trick so far)
is solved with :func:`varaq.solver.card_values`: what the player's side would take with each
legal card.  The card played is compared with the best card at that moment:

- ``?``: it gave up at least one trick against perfect play from there on;
- ``??``: it cost the side its contract or a nil — with the best card the contract was made
  (or the opponents' contract could be set, or the nil kept, or the opponents' nil set), and
  after the card played it no longer is;

each with one sentence ("Leading the A♠ gives up a trick: with the 7♥ North-South take 9,
not 8").  While a nil is still alive the tricks are not what the nil bidder and the defence play
for (a partner overtakes to cover, a defender ducks to leave the nil bidder on lead), so those
cards are judged on the nil, as ``varaq analyse`` does: could the defence still force a
trick on the nil bidder before the card, and after it?  Those cards also carry the tricks their
side ends with, so a reader sees what covering or ducking cost in tricks; but they are never
flagged ``?`` for it, and the review's count of ``?`` plays counts only cards judged on tricks.

Beside the cards: the hand's **par** (how many tricks each side takes when all four play
perfectly from the first lead) and a **judgement of each bid**: what the Hard computer player
bids in the seat's place, asked as the table asks it (:func:`~varaq.bots.advice.hard_bid`: the
same cards, the bids before it and the score, a seed made of them and a fixed number of layouts).

Nothing about the hand is worked out here from the rules: the hand's actions are played back
through the engine (:func:`replay`), which says what each seat held at every card — after a
blind nil exchange in which a card may go to the partner and straight back — who led and who
won each trick.  ``varaq analyse`` reads its positions from the same replay.

A review is a post-mortem with every card face up, which is why the web table offers one only
for a hand that is over.  It costs a solve per card, so the review is built in **steps** (see
:func:`plan`), each under a node limit, and a web job runs them in a worker process and shows
what is priced so far.  With the compiled solver a whole hand takes a few seconds, and the
steps go forward: the first trick, the bids, each later trick, par, so the page shows the first
tricks while the rest is solved.  With the Python solver positions of more than about eight
cards a hand take seconds each, so the steps go backward instead: the last tricks first, then
the bids, then earlier tricks one at a time and last par, stopping where the solver cannot go.

What keeps a whole hand fast: one solver per objective for the whole hand, so its table of
solved positions carries over from card to card (the position after a card is the next card's
position); equivalent cards searched once (the solver's runs); and a nil judged by two
yes-or-no searches, "can the defence force a trick on the nil bidder?" before the card and
after it, instead of every legal card's exact count: each card's count is only searched for the
rare card that lost the nil, to name one that kept it.

>>> from varaq import Game
>>> g = Game("varaq", seed=4, dealer=0)
>>> _ = g.deal()
>>> while g.phase_name == "bid" or g.phase_name == "play":
...     _ = g.apply(g.legal_actions()[0])
>>> facts = HandFacts.from_game(g, 1)
>>> review = review_hand(facts, cards=3, bids=False)
>>> sorted(review.priced)[:1], len(review.priced)
([40], 12)
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from .actions import BID, DEAL_GIVEN, DEAL_HAND, UNDO, UNDO_LIMIT
from .bots.advice import BID_SAMPLES, hard_bid
from .cards import card_text, card_unicode, hand_text
from .engine import BIDDING, PLAY, Game
from .events import TrickResult
from .rules import Rules
from .scoring import HandScore
from .seats import SEAT_LETTERS, SEAT_NAMES
from .solver import Solver, SolverLimit, card_values, default_backend
from .view import View, hand_score_json

__all__ = [
    "HandFacts", "HandSolvers", "Position", "Replay", "CardPrice", "BidJudgement", "Step",
    "StepResult", "Review", "replay", "positions", "hand_actions", "price", "plan", "run_step",
    "review_hand", "reviewable_hands", "forward_review", "REVIEW_VERSION", "SIDE_WORDS",
]

#: Changes whenever the review's judgement changes, so cached reviews of an older kind are not
#: served as new ones.
REVIEW_VERSION = 3
#: The sides as a sentence names them.
SIDE_WORDS = ("North-South", "East-West")
#: Layouts the Hard player tries for each bid it is asked to judge: a fixed number, so that the
#: same hand always gets the same judgement (and a cached review stays true).
HARD_SAMPLES = BID_SAMPLES
#: The last tricks priced in the review's first step (cheap with any solver).
FIRST_CARDS = 5
#: Search nodes one position may take before the review stops going further back.
POSITION_NODES = 1_000_000
#: How many positions' worth of nodes the par of the full deal may take.
PAR_FACTOR = 4
#: A solver that has searched this many nodes is replaced by a fresh one, so that its table of
#: positions (a few hundred bytes an entry) cannot grow without bound in a long review.
SOLVER_NODES = 3_000_000


# -- the hand --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class HandFacts:
    """Everything a review needs about one finished hand with cards; small and picklable, so
    it can be sent to a worker process, and hashable into a key that names the hand.

    A hand is its deal and its **actions**, the share of the game's history
    (:attr:`Game.actions`) from its deal to its last card.  Everything else here — who passed
    what, the bids, the cards in order, the score — is what the engine logged when those
    actions were played back through it (:meth:`from_actions`), and the hands at each card
    come from the same replay (:func:`replay`).  So no rule (the blind nil exchange, who leads,
    who wins a trick) is worked out a second time here, and a review cannot disagree with the
    game it reviews.
    """

    rules: Rules
    #: The hand's number in its match, from 1.
    number: int
    dealer: int
    #: The cards as dealt, before any blind nil exchange.
    dealt: tuple[int, int, int, int]
    #: The hand's accepted actions after its deal, in the order the game took them: blind nil
    #: or look, bids, the cards passed in an exchange, the cards played.
    actions: tuple[int, ...]
    #: Totals and bags before the hand (they decide blind nil and weigh the Hard player's bids).
    totals: tuple[int, int]
    bags: tuple[int, int]
    # What the engine logged when it played the actions back:
    #: The cards each seat passed in a blind nil exchange.
    exchanged: tuple[int, int, int, int]
    bids: tuple[int, int, int, int]
    blind: tuple[bool, bool, bool, bool]
    #: The 52 cards in the order played.
    plays: tuple[int, ...]
    #: What the hand scored, as the engine worked it out.
    result: HandScore

    @classmethod
    def from_actions(cls, rules: Rules, number: int, dealer: int, dealt: Sequence[int],
                     actions: Iterable[int], totals: Sequence[int],
                     bags: Sequence[int]) -> HandFacts:
        """The facts of a hand dealt ``dealt`` by ``dealer`` and played by ``actions``, with the
        score before it at ``totals`` and ``bags``: the actions are played through the engine,
        which refuses any the rules do not allow (:class:`~varaq.engine.IllegalAction`, a
        ``ValueError``), and its log of the hand fills in the rest."""
        actions = tuple(actions)
        hands = (dealt[0], dealt[1], dealt[2], dealt[3])
        game = _dealt_game(rules, dealer, hands, totals, bags)
        for action in actions:
            game.apply(action)
        if not game.log or len(game.log[-1].plays) != 52:
            raise ValueError(f"hand {number} is not finished: there is nothing to review yet")
        log = game.log[-1]
        return cls(
            rules, number, dealer, hands, actions, (totals[0], totals[1]), (bags[0], bags[1]),
            log.exchanged, log.bids, log.blind, tuple(log.plays), log.result,
        )

    @classmethod
    def from_game(cls, game: Game, number: int) -> HandFacts:
        """Hand ``number`` (from 1) of ``game``, which must be finished and played with cards."""
        if not 1 <= number <= len(game.log):
            raise ValueError(f"hand {number} is not finished (finished hands: {len(game.log)})")
        log = game.log[number - 1]
        if log.dealt is None or len(log.plays) != 52:
            raise ValueError(f"hand {number} has no cards to review")
        totals = list(game.start_totals)
        bags = list(game.start_bags)
        for earlier in game.log[:number - 1]:
            totals = [totals[0] + earlier.result.score[0], totals[1] + earlier.result.score[1]]
            bags = list(earlier.result.bags)
        return cls.from_actions(game.rules, number, log.dealer, log.dealt,
                                hand_actions(game, number), totals, bags)

    @property
    def key(self) -> str:
        """A name for this hand's review: the same cards, bids, exchange and score always give
        the same key, and a finished hand never changes, so a review can be cached under it.
        Made of what the engine logged rather than of the actions, so a table's hand and the
        same hand read from its record (which may list a seat's passed cards in another
        order) share one review."""
        doc = [
            REVIEW_VERSION, self.rules.to_spec(), self.dealer, list(self.dealt),
            list(self.exchanged), list(self.bids), list(self.blind), list(self.plays),
            list(self.totals), list(self.bags),
        ]
        return hashlib.sha256(json.dumps(doc, sort_keys=True).encode()).hexdigest()[:32]

    def at_play(self) -> list[int]:
        """The four hands at the first lead, as the engine held them after any exchange."""
        return list(replay(self).at_lead)

    def first_leader(self) -> int:
        return replay(self).positions[0].leader


def hand_actions(game: Game, number: int) -> tuple[int, ...]:
    """The actions of hand ``number`` (from 1) in ``game``'s history: those after its deal, up
    to the next deal or anything else that is not a player's action (a concession), without
    the moves an undo took back (a single-player game's hand is reviewed as it stands)."""
    deals = 0
    out: list[int] = []
    for action in game.actions:
        if action in (DEAL_HAND, DEAL_GIVEN):
            deals += 1
            if deals > number:
                break
        elif deals == number:
            if UNDO < action <= UNDO + UNDO_LIMIT:
                del out[len(out) - (action - UNDO):]
                continue
            if action >= DEAL_HAND:  # a concession, a claim or a score sheet's tricks
                break
            out.append(action)
    return tuple(out)


def _dealt_game(rules: Rules, dealer: int, dealt: tuple[int, int, int, int],
                totals: Sequence[int], bags: Sequence[int]) -> Game:
    game = Game(rules, seed=0, totals=totals, bags=bags, dealer=dealer)
    game.deal(dealt, dealer)
    return game


def reviewable_hands(game: Game) -> list[int]:
    """The numbers (from 1) of the finished hands of ``game`` that were played with cards."""
    return [n for n, log in enumerate(game.log, 1)
            if log.dealt is not None and len(log.plays) == 52]


@dataclass(frozen=True, slots=True)
class Position:
    """The table just before one card of the hand: what the solver is given."""

    index: int
    hands: tuple[int, int, int, int]
    leader: int
    trick: tuple[int, ...]
    broken: bool
    #: Tricks each seat had taken before this trick.
    taken: tuple[int, int, int, int]
    #: Whether the first lead must be the 2♣.
    two_clubs: bool
    seat: int
    card: int

    @property
    def cards_left(self) -> int:
        """The most cards any hand holds here: what makes a position hard to solve."""
        return max(h.bit_count() for h in self.hands)


@dataclass(frozen=True, slots=True)
class Replay:
    """A hand played back through the engine from its actions: what the review reads."""

    #: The table before each of the 52 cards.
    positions: tuple[Position, ...]
    #: The hand's 13 tricks as the engine settled them (leader, cards, winner).
    tricks: tuple[TrickResult, ...]
    #: The view of each seat that bid with its cards, as it was when that seat bid, in the
    #: order of the bidding: what the Hard player is asked in its place.
    bid_views: tuple[View, ...]

    @property
    def at_lead(self) -> tuple[int, int, int, int]:
        """The four hands at the first lead."""
        return self.positions[0].hands


@lru_cache(maxsize=64)
def replay(facts: HandFacts) -> Replay:
    """Play ``facts.actions`` back through the engine, noting the table before every card and
    each bidder's view (cached: a review reads it at every step and every poll)."""
    game = _dealt_game(facts.rules, facts.dealer, facts.dealt, facts.totals, facts.bags)
    two_clubs = facts.rules.two_clubs_leads
    out: list[Position] = []
    views: list[View] = []
    for action in facts.actions:
        phase = game.phase
        if phase == PLAY:
            h, t = game.hands, game.taken
            out.append(Position(
                len(out), (h[0], h[1], h[2], h[3]), game.leader, tuple(game.trick),
                game.broken, (t[0], t[1], t[2], t[3]), two_clubs and not out, game.turn, action,
            ))
        elif phase == BIDDING:
            views.append(game.view(game.turn))
        game.apply(action)
    if len(out) != 52:
        raise ValueError(f"hand {facts.number} has {len(out)} cards played, not 52")
    return Replay(tuple(out), tuple(game.tricks), tuple(views))


def positions(facts: HandFacts) -> list[Position]:
    """The 52 positions of the hand, one before each card played."""
    return list(replay(facts).positions)


# -- prices ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CardPrice:
    """One card played, against the best card at that moment.

    ``kind`` ``"tricks"``: ``value`` and ``best`` are the tricks the player's side ends the
    hand with (those already won plus perfect play from here) after the card played and after
    the best card.  ``kind`` ``"nil"``: the position had a live nil (``nil_seat``), and they
    say whether the defence can still force a trick on the nil bidder (1) or not (0: the nil
    is safe), after the card played and after the best card for the player's side; ``tricks``
    and ``tricks_best`` are then the side's tricks as for ``"tricks"``, shown but not flagged.
    For a nil, ``best_cards`` is filled in only when the card played lost the nil (it names a
    card that kept it); otherwise the card played was one of the best.
    """

    index: int
    seat: int
    card: int
    kind: str
    value: int
    best: int
    #: The cards that achieve ``best`` (equivalent cards included).
    best_cards: tuple[int, ...]
    #: ``""`` (a best card or close enough), ``"?"`` (a trick lost) or ``"??"`` (the contract
    #: or a nil lost).
    flag: str = ""
    text: str = ""
    nil_seat: int | None = None
    tricks: int | None = None
    tricks_best: int | None = None

    def caption(self) -> str:
        """The few words under the card: its side's tricks, and for a live nil its verdict
        first ("keeps West's nil safe · 7 tricks for East-West")."""
        if self.kind != "nil":
            return _tricks(self.value) if self.value == self.best else (
                f"{self.value} (best {self.best})")
        assert self.nil_seat is not None and self.tricks is not None
        name = SEAT_NAMES[self.nil_seat]
        ours = (self.seat & 1) == (self.nil_seat & 1)
        if ours:
            verdict = (f"keeps {name}'s nil safe" if not self.value
                       else f"{name}'s nil can be set")
        else:
            verdict = (f"{name}'s nil can be set" if self.value
                       else f"{name}'s nil is safe")
        count = f"{_tricks(self.tricks)} for {SIDE_WORDS[self.seat & 1]}"
        if self.tricks_best is not None and self.tricks_best != self.tricks:
            count += f" (best {self.tricks_best})"
        return f"{verdict} · {count}"

    def to_json(self) -> dict[str, Any]:
        doc = {
            "seat": SEAT_LETTERS[self.seat],
            "card": card_text(self.card),
            "kind": self.kind,
            "value": self.value,
            "best": self.best,
            "best_cards": [card_text(c) for c in self.best_cards],
            "flag": self.flag,
            "text": self.text,
            "nil_seat": None if self.nil_seat is None else SEAT_LETTERS[self.nil_seat],
            "caption": self.caption(),
        }
        if self.kind == "nil":
            doc["tricks"] = self.tricks
            doc["tricks_best"] = self.tricks_best
        return doc


class HandSolvers:
    """The solvers of one hand: one per side for tricks, one per nil bidder for its nil.

    Kept between the positions of a hand, since their tables of solved positions carry over
    (a later position is often a subtree of an earlier one).  Each position gets its own node
    allowance; a solver that has searched a great deal is replaced, to bound its memory.
    """

    def __init__(self, jokers: bool) -> None:
        self.jokers = jokers
        self._solvers: dict[tuple[int, int], Solver] = {}
        #: (nil seat, position index) -> whether the nil can be set there, noted when the card
        #: before it was judged: the position after a card is the next card's position.
        self._verdicts: dict[tuple[int, int], bool] = {}

    def get(self, side: int, nil_seat: int = -1) -> Solver:
        key = (side, nil_seat)
        solver = self._solvers.get(key)
        if solver is None or solver.nodes > SOLVER_NODES:
            counted = None if nil_seat < 0 else [s == nil_seat for s in range(4)]
            solver = self._solvers[key] = Solver(side, jokers=self.jokers, counted=counted)
        return solver

    def values(self, pos: Position, side: int, nil_seat: int, nodes: int | None) -> dict[int, int]:
        """:func:`card_values` for ``side`` (its tricks, or the tricks it can force on
        ``nil_seat``), within ``nodes`` more search nodes (:class:`SolverLimit` beyond)."""
        solver = self.get(side, nil_seat)
        solver.node_limit = None if nodes is None else solver.nodes + nodes
        try:
            return card_values(
                pos.hands, pos.leader, pos.trick, pos.broken, self.jokers, side,
                first_trick_two_clubs=pos.two_clubs, solver=solver,
            )
        finally:
            solver.node_limit = None

    def nil_open(self, pos: Position, nil_seat: int, card: int | None,
                 nodes: int | None) -> bool:
        """Whether the defence can force a trick on ``nil_seat`` from ``pos`` (``card`` None)
        or once ``card`` is played: one yes-or-no search, within ``nodes`` more nodes."""
        if card is None and pos.two_clubs and not pos.trick:
            card = pos.card  # the 2♣ is the only lead: the position is worth its card
        if card is None and (nil_seat, pos.index) in self._verdicts:
            return self._verdicts[nil_seat, pos.index]
        solver = self.get(1 - (nil_seat & 1), nil_seat)
        solver.node_limit = None if nodes is None else solver.nodes + nodes
        args = (pos.hands, pos.leader, pos.trick, pos.broken)
        try:
            if card is None:
                return solver.at_least(*args, 1)
            verdict = solver.at_least_after(*args, card, 1)
        finally:
            solver.node_limit = None
        if card == pos.card:
            # If the nil survives this card, the next position is exactly the one it leaves.
            self._verdicts[nil_seat, pos.index + 1] = verdict
        return verdict

    def nil_best_card(self, pos: Position, nil_seat: int, nodes: int | None) -> int:
        """A best card for the player to move when the count is the tricks the defence can
        force on ``nil_seat``: the fewest for the nil's side, the most for the defence."""
        solver = self.get(1 - (nil_seat & 1), nil_seat)
        solver.node_limit = None if nodes is None else solver.nodes + nodes
        try:
            return solver.best(pos.hands, pos.leader, pos.trick, pos.broken, pos.two_clubs)[1]
        finally:
            solver.node_limit = None

    def best(self, pos: Position, side: int, nodes: int | None) -> int:
        """The tricks ``side`` takes from ``pos`` with perfect play (no card by card values:
        cheaper when only the position's value is wanted)."""
        solver = self.get(side)
        solver.node_limit = None if nodes is None else solver.nodes + nodes
        try:
            return solver.best(pos.hands, pos.leader, pos.trick, pos.broken, pos.two_clubs)[0]
        finally:
            solver.node_limit = None


def _live_nils(facts: HandFacts, pos: Position) -> list[int]:
    """Nil bidders who have taken no trick yet, the player's own side first."""
    live = [s for s in range(4) if facts.bids[s] == 0 and pos.taken[s] == 0]
    return sorted(live, key=lambda s: (s & 1) != (pos.seat & 1))


def price(facts: HandFacts, pos: Position, solvers: HandSolvers,
          nodes: int | None = POSITION_NODES) -> CardPrice:
    """The price of the card played at ``pos`` (see :class:`CardPrice`)."""
    live = _live_nils(facts, pos)
    if live:
        return _price_nil(facts, pos, solvers, live, nodes)
    side = pos.seat & 1
    values = solvers.values(pos, side, -1, nodes)
    won = pos.taken[side] + pos.taken[side + 2]
    best = max(values.values())
    best_cards = tuple(sorted(c for c, v in values.items() if v == best))
    played = values[pos.card]
    price = CardPrice(pos.index, pos.seat, pos.card, "tricks", won + played, won + best,
                      best_cards)
    if played == best:
        return price
    flag, text = _trick_words(facts, pos, won + best, won + played, _closest(best_cards, pos.card))
    return _with(price, flag, text)


def _price_nil(facts: HandFacts, pos: Position, solvers: HandSolvers, live: list[int],
               nodes: int | None) -> CardPrice:
    """Judge the card on the live nils (see the module docstring), with its side's tricks."""
    side = pos.seat & 1
    values = solvers.values(pos, side, -1, nodes)
    won = pos.taken[side] + pos.taken[side + 2]
    tricks, tricks_best = won + values[pos.card], won + max(values.values())
    first: CardPrice | None = None
    for nil_seat in live:
        ours = side == (nil_seat & 1)
        # The position's verdict is the best the player to move can do: with the nil's side to
        # move, "open" only if every card leaves it open; with the defence, if any card does.
        could = int(solvers.nil_open(pos, nil_seat, None, nodes))
        can = int(solvers.nil_open(pos, nil_seat, pos.card, nodes))
        lost = (not could and can) if ours else (could and not can)
        price = CardPrice(pos.index, pos.seat, pos.card, "nil", can, could, (),
                          nil_seat=nil_seat, tricks=tricks, tricks_best=tricks_best)
        if lost:
            # Rare: only now is a card that kept the verdict searched for, to name it: the
            # solver's best card for the nil's count (one search, not one per legal card).
            best_cards = (solvers.nil_best_card(pos, nil_seat, nodes),)
            price = _with(price, "??", _nil_words(pos, nil_seat, ours,
                                                  _closest(best_cards, pos.card)))
            return _with_best(price, best_cards)
        if first is None:
            first = price
    assert first is not None
    return first


def _with(price: CardPrice, flag: str, text: str) -> CardPrice:
    return CardPrice(price.index, price.seat, price.card, price.kind, price.value, price.best,
                     price.best_cards, flag, text, price.nil_seat, price.tricks,
                     price.tricks_best)


def _with_best(price: CardPrice, best_cards: tuple[int, ...]) -> CardPrice:
    return CardPrice(price.index, price.seat, price.card, price.kind, price.value, price.best,
                     best_cards, price.flag, price.text, price.nil_seat, price.tricks,
                     price.tricks_best)


def _closest(cards: Iterable[int], played: int) -> int:
    """The best card to name in a sentence: one of the same suit as the card played if there
    is one, the nearest in rank."""
    return min(cards, key=lambda c: (c // 13 != played // 13, abs(c - played)))


def _verb(pos: Position) -> str:
    return "Playing" if pos.trick else "Leading"


def _tricks(n: int) -> str:
    return "a trick" if n == 1 else f"{n} tricks"


def _contracts(facts: HandFacts) -> tuple[int, int]:
    return (
        sum(b for s, b in enumerate(facts.bids) if s & 1 == 0),
        sum(b for s, b in enumerate(facts.bids) if s & 1 == 1),
    )


def _trick_words(facts: HandFacts, pos: Position, best: int, played: int,
                 better: int) -> tuple[str, str]:
    """The flag and the sentence for a card that lost tricks (``best`` and ``played`` are the
    side's tricks in the whole hand).  A side's tricks here include a broken nil bidder's, which
    do not count towards the contract: close enough for a post-mortem, and said in the docs."""
    side = pos.seat & 1
    who = SIDE_WORDS[side]
    card, other = card_unicode(pos.card), card_unicode(better)
    contract = _contracts(facts)
    theirs = contract[1 - side]
    if contract[side] and best >= contract[side] > played:
        return "??", (
            f"{_verb(pos)} the {card} costs the contract: with the {other} {who} take {best} "
            f"of the {contract[side]} they bid, now {played}."
        )
    if theirs and 13 - best < theirs <= 13 - played:
        return "??", (
            f"{_verb(pos)} the {card} lets {SIDE_WORDS[1 - side]} make their {theirs}: with "
            f"the {other} they take {13 - best}, now {13 - played}."
        )
    return "?", (
        f"{_verb(pos)} the {card} gives up {_tricks(best - played)}: with the {other} {who} "
        f"take {best}, not {played}."
    )


def _nil_words(pos: Position, nil_seat: int, ours: bool, better: int) -> str:
    card, other = card_unicode(pos.card), card_unicode(better)
    name = SEAT_NAMES[nil_seat]
    if ours:
        return (
            f"{_verb(pos)} the {card} lets the defence set {name}'s nil: the {other} kept it "
            "safe."
        )
    return f"{_verb(pos)} the {card} lets {name}'s nil escape: with the {other} it could be set."


# -- par and bids ------------------------------------------------------------------------------


def par(facts: HandFacts, nodes: int | None = PAR_FACTOR * POSITION_NODES,
        solvers: HandSolvers | None = None) -> tuple[int, int]:
    """Tricks (NS, EW) when all four play perfectly from the first lead."""
    first = positions(facts)[0]
    ns = (solvers or HandSolvers(facts.rules.jokers)).best(first, 0, nodes)
    return ns, 13 - ns


@dataclass(frozen=True, slots=True)
class BidJudgement:
    """A seat's bid beside the Hard player's bid in the same place."""

    seat: int
    bid: int
    blind: bool
    #: The Hard player's bid on these cards after the same earlier bids (None for a blind nil:
    #: it was bid without looking, so there are no cards to judge it on).
    hard: int | None
    reason: str

    def to_json(self) -> dict[str, Any]:
        return {
            "seat": SEAT_LETTERS[self.seat],
            "bid": "blind" if self.blind else ("nil" if self.bid == 0 else self.bid),
            "hard": None if self.hard is None else ("nil" if self.hard == 0 else self.hard),
            "reason": self.reason,
        }


def judge_bids(facts: HandFacts, samples: int = HARD_SAMPLES) -> tuple[BidJudgement, ...]:
    """Ask the Hard player for each seat's bid, in the view that seat bid from (the same cards,
    the same bids before it, the same score), by the function the table's Hard player and the
    Hint share (:func:`~varaq.bots.advice.hard_bid`): seeded by that view, so a hand is always
    judged the same way."""
    out: dict[int, BidJudgement] = {}
    for view in replay(facts).bid_views:
        seat = view.seat
        decision = hard_bid(view, samples)
        out[seat] = BidJudgement(seat, facts.bids[seat], False, decision.action - BID,
                                 decision.reason)
    for seat in range(4):
        if facts.blind[seat]:
            out[seat] = BidJudgement(seat, 0, True, None, "Blind nil: bid before looking")
    order = [(facts.dealer + 1 + i) & 3 for i in range(4)]
    return tuple(out[s] for s in order)


# -- steps -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Step:
    """One piece of a review: ``"price"`` the positions ``first``..``last`` (latest first,
    or earliest first when ``forward``), ``"bids"`` or ``"par"``."""

    kind: str
    first: int = 0
    last: int = 0
    forward: bool = False


@dataclass(frozen=True, slots=True)
class StepResult:
    step: Step
    prices: tuple[CardPrice, ...] = ()
    bids: tuple[BidJudgement, ...] | None = None
    par: tuple[int, int] | None = None
    #: Why the review can go no further back (a position beyond the solver's limits), or "".
    stopped: str = ""


def forward_review() -> bool:
    """Whether reviews go from the first trick on: when the compiled solver prices a whole
    hand in seconds.  The Python solver goes back from the last trick, as far as it can."""
    return default_backend() == "c"


def plan(facts: HandFacts, first_cards: int = FIRST_CARDS,
         forward: bool | None = None) -> list[Step]:
    """The review's steps in order.

    Forward (the default with the compiled solver): the first trick, the bids, each later
    trick, par; so a reader sees the first tricks priced while the rest is being solved.

    Backward (the Python solver's way): the last ``first_cards`` tricks, the bids, each earlier
    trick from the latest back to the first, and par.  Par comes last because it is the
    hardest position of all: a solver that cannot price the first tricks cannot solve it
    either, and one that can finds most of it already in its table."""
    if forward is None:
        forward = forward_review()
    if forward:
        tricks = [Step("price", 4 * t, 4 * t + 3, forward=True) for t in range(13)]
        return [tricks[0], Step("bids"), *tricks[1:], Step("par")]
    steps = [Step("price", 52 - 4 * first_cards, 51), Step("bids")]
    for trick in range(12 - first_cards, -1, -1):
        steps.append(Step("price", 4 * trick, 4 * trick + 3))
    steps.append(Step("par"))
    return steps


def run_step(facts: HandFacts, step: Step, solvers: HandSolvers | None = None,
             nodes: int | None = POSITION_NODES) -> StepResult:
    """Do one step (in a worker process on the web server).  A position beyond ``nodes``
    search nodes ends the step early, with the prices found so far and ``stopped`` said (a
    forward step goes on with the trick's later cards, which are easier); par may take
    :data:`PAR_FACTOR` times as many."""
    if step.kind == "bids":
        return StepResult(step, bids=judge_bids(facts))
    if step.kind == "par":
        try:
            limit = None if nodes is None else PAR_FACTOR * nodes
            return StepResult(step, par=par(facts, limit, solvers))
        except SolverLimit:
            return StepResult(step, stopped="par needs a faster solver")
    if step.kind != "price":
        raise ValueError(f"unknown review step {step.kind!r}")
    solvers = solvers or HandSolvers(facts.rules.jokers)
    every = positions(facts)
    prices: list[CardPrice] = []
    stopped = ""
    order = (range(step.first, step.last + 1) if step.forward
             else range(step.last, step.first - 1, -1))
    for index in order:
        try:
            prices.append(price(facts, every[index], solvers, nodes))
        except SolverLimit:
            stopped = f"trick {index // 4 + 1} needs a faster solver"
            if not step.forward:
                break
    return StepResult(step, tuple(prices), stopped=stopped)


# -- a whole review --------------------------------------------------------------------------


@dataclass(slots=True)
class Review:
    """A review as far as it has got: prices by position, the bids, par."""

    facts: HandFacts
    priced: dict[int, CardPrice] = field(default_factory=dict)
    bids: tuple[BidJudgement, ...] | None = None
    par: tuple[int, int] | None = None
    #: Why the pricing stopped before the first trick (``""`` while it goes on or when done).
    stopped: str = ""
    par_stopped: str = ""

    def add(self, result: StepResult) -> None:
        for p in result.prices:
            self.priced[p.index] = p
        if result.bids is not None:
            self.bids = result.bids
        if result.step.kind == "par":
            self.par = result.par
            self.par_stopped = result.stopped
        elif result.stopped and not self.stopped:
            self.stopped = result.stopped

    @property
    def tricks_priced(self) -> int:
        """How many tricks have all four cards priced, wherever they are in the hand."""
        return sum(all(4 * t + i in self.priced for i in range(4)) for t in range(13))

    @property
    def first_trick(self) -> int | None:
        """The earliest trick from which every card to the end is priced (None: none yet)."""
        index = 52
        while index > 0 and index - 1 in self.priced:
            index -= 1
        # A trick counts once all four of its cards are priced.
        first = (index + 3) // 4 + 1
        return None if first > 13 else first

    def to_json(self) -> dict[str, Any]:
        """The review for the browser: the hand, every trick card by card, par and bids."""
        f = self.facts
        played = replay(f)
        every = played.positions
        tricks = []
        for t, done in enumerate(played.tricks):
            cards = []
            for pos in every[4 * t: 4 * t + 4]:
                priced = self.priced.get(pos.index)
                doc = priced.to_json() if priced else {
                    "seat": SEAT_LETTERS[pos.seat], "card": card_text(pos.card),
                }
                cards.append(doc)
            tricks.append({"leader": SEAT_LETTERS[done.leader], "cards": cards,
                           "winner": SEAT_LETTERS[done.winner]})
        # Exactly the flags the cards show: a card judged on a live nil is flagged only for
        # the nil (``??``), never ``?`` for its tricks.
        flags = [p for p in self.priced.values() if p.flag]
        return {
            "hand": f.number,
            "rules": f.rules.to_spec(),
            "dealer": SEAT_LETTERS[f.dealer],
            "deal": {SEAT_LETTERS[s]: hand_text(f.dealt[s]).split() for s in range(4)},
            "exchange": {SEAT_LETTERS[s]: hand_text(m).split()
                         for s, m in enumerate(f.exchanged) if m},
            # The hands after the exchange, as the engine held them: a client shows the cards
            # before each trick from these, never by passing the exchange's cards itself.
            "at_lead": {SEAT_LETTERS[s]: hand_text(m).split()
                        for s, m in enumerate(played.at_lead)},
            "totals_before": {"NS": f.totals[0], "EW": f.totals[1]},
            "result": hand_score_json(f.result),
            "tricks": tricks,
            "par": None if self.par is None else {"NS": self.par[0], "EW": self.par[1]},
            "bids": None if self.bids is None else [b.to_json() for b in self.bids],
            "priced": len(self.priced),
            "tricks_priced": self.tricks_priced,
            "nil_cards": sum(p.kind == "nil" for p in self.priced.values()),
            "from_trick": self.first_trick,
            "flags": {"?": sum(p.flag == "?" for p in flags),
                      "??": sum(p.flag == "??" for p in flags)},
            "stopped": self.stopped,
            "par_stopped": self.par_stopped,
        }


def review_hand(facts: HandFacts, *, cards: int = 13, bids: bool = True,
                with_par: bool = False, nodes: int | None = None) -> Review:
    """A review in one call (tests, benchmarks, the command line): every position with at most
    ``cards`` cards in a hand, the bids unless ``bids`` is false, par if ``with_par``."""
    review = Review(facts)
    solvers = HandSolvers(facts.rules.jokers)
    for step in plan(facts, min(cards, FIRST_CARDS)):
        if (step.kind == "bids" and not bids) or (step.kind == "par" and not with_par):
            continue
        if step.kind == "price" and 13 - step.first // 4 > cards:
            continue
        result = run_step(facts, step, solvers, nodes)
        review.add(result)
        if result.stopped and step.kind == "price" and not step.forward:
            break
    return review
