"""The double-dummy solver: perfect play of the remaining tricks when every hand is known.

Given all four holdings, the cards of the trick in progress and whether spades are broken, the
solver finds how many of the remaining tricks a side takes when both sides play perfectly, and a
card that achieves it.  The Hard player calls it once few cards remain in a sampled layout, the
``cheater`` bot (the arena's ceiling) plays from it, and ``varaq analyse`` uses it to price every
card of a played hand.

How it searches, and why each piece is there:

- **Null-window search** ("can this side take at least ``k`` more tricks?") answers yes or no,
  which prunes far more than a full alpha-beta window; the exact count comes from a few such
  questions (a binary search over ``k``), all sharing one transposition table.
- **Transposition table** at trick boundaries, keyed on the four remaining hands (with the
  played cards squeezed out, so only the order of the remaining cards counts), the leader and
  whether spades are broken.  The value of the rest of the hand does not depend on who won the
  tricks already played, so positions reached by different orders of play meet here.  Each entry
  keeps a lower and an upper bound of the tricks still to come.
- **Sure trumps**: spades above all the opponents' spades are tricks for their side whatever
  happens; they bound the answer before any card is tried.
- **Equivalent cards**: two cards of one suit in one hand with no other *remaining* card of that
  suit between them (in trump order for spades and jokers) win and lose exactly the same tricks,
  so only one of each run is searched.
- **Move ordering**: win the trick cheaply when you can, stay low when partner already wins it
  or when you cannot beat the card on top; lead top cards first.  A good first move makes the
  null-window answer come back after one child.

Two searches answer the same questions.  The compiled core (``varaq._fastsolver``, a small C
extension built at install time where a C compiler exists) is picked automatically; the pure
Python search below stays as the fallback and as the reference the compiled one is tested
against.  ``VARAQ_SOLVER=python`` in the environment, or ``backend="python"``, forces the Python
one (tests and benchmarks compare the two).  The core adds what makes a full 13-card deal fast:
sure-trick bounds, and a table whose entries keep only the top cards that decided each result,
so one entry answers for every position whose small cards differ (see ``_fastsolver.c``).

Everything runs on integer bit masks (see :mod:`varaq.cards`); rules that matter to play are
honoured: follow suit, no spade lead before spades are broken unless the leader holds only spades,
the Big Joker Little Joker trump order, and the 2♣ opening lead (only for the first trick).

>>> from varaq.cards import card_text, parse_hand
>>> hands = [parse_hand("AS AH"), parse_hand("2S 3D"), parse_hand("4D 5D"), parse_hand("6D 7D")]
>>> r = solve(hands, leader=0, broken=True)   # N draws E's last trump, then the AH holds
>>> r.tricks, card_text(r.best_card)
(2, 'AS')
>>> solve(hands, leader=0, broken=False).tricks   # the AH must be led first, and E cuts it
1
"""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING, Any

from .cards import (
    RANK_OF,
    SPADE_MASK,
    SPADES,
    SUIT_MASKS,
    SUIT_OF,
    TWO_CLUBS,
    card_list,
    trick_power,
    trump_order,
)
from .rules import Rules

if TYPE_CHECKING:
    from .engine import Game

__all__ = [
    "SolveResult", "SolverLimit", "Solver", "solve", "card_values", "solve_game",
    "game_card_values", "position_of", "representatives", "trick_winner", "BACKENDS",
    "default_backend", "backend_status", "tell_fallback",
]

#: The two searches: the compiled core and the pure Python reference.
BACKENDS = ("c", "python")


def _load_core() -> tuple[ModuleType | None, str]:
    try:
        from . import _fastsolver  # type: ignore[attr-defined]
    except ImportError:  # installed without a C compiler: the Python search serves
        return None, "the compiled solver is not built (no C compiler at install time?)"
    return _fastsolver, ""


_CORE, _CORE_MISSING = _load_core()
_log = logging.getLogger(__name__)
_told = False


def backend_status() -> tuple[str, str]:
    """(backend used by default, one line saying why): for ``varaq solve --version`` and logs."""
    chosen = default_backend()
    if chosen == "c":
        return chosen, "compiled core (varaq._fastsolver)"
    if _CORE is None:
        return chosen, f"pure Python: {_CORE_MISSING}"
    return chosen, "pure Python: VARAQ_SOLVER=python"


def default_backend() -> str:
    """``"c"`` when the compiled core is built and ``VARAQ_SOLVER`` does not ask for Python."""
    wanted = os.environ.get("VARAQ_SOLVER", "").strip().lower()
    if wanted == "python" or _CORE is None:
        return "python"
    return "c"


def tell_fallback() -> None:
    """Say once per process, in one line, that the compiled core is missing (never at import:
    the first search, or ``varaq solve``, says it)."""
    global _told
    if _CORE is None and not _told:
        _told = True
        _log.warning("varaq: %s; the pure Python solver is used (slower)", _CORE_MISSING)


def _backend(backend: str | None) -> str:
    if backend is None:
        backend = default_backend()
        if backend == "python":
            tell_fallback()
    if backend not in BACKENDS:
        raise ValueError(f"unknown solver backend {backend!r} (choose from c, python)")
    if backend == "c" and _CORE is None:
        raise ValueError(_CORE_MISSING)
    return backend


class SolverLimit(RuntimeError):
    """The search visited more nodes than its ``node_limit`` allowed."""


@dataclass(frozen=True, slots=True)
class SolveResult:
    """The outcome of perfect play from a position."""

    #: The side (0 NS, 1 EW) whose tricks are counted.
    side: int
    #: Tricks that side takes from here on, the trick in progress included.
    tricks: int
    #: A card for the player to move that achieves ``tricks`` (-1 if the hand is over).
    best_card: int
    #: Search nodes visited (cards tried), for benchmarks.
    nodes: int


_ROWS = {False: trick_power(False), True: trick_power(True)}
#: ``_CHEAP[jokers][led][card]``: how much a card costs to give up in a trick led in ``led``
#: (discards cheapest, then by strength in the trick, then by rank), for move ordering.
_CHEAP = {
    j: tuple(tuple(row[c] * 16 + RANK_OF[c] for c in range(54)) for row in _ROWS[j])
    for j in (False, True)
}
#: Strength of a card led in its own suit, for ordering leads.
_LEAD_POWER = {j: tuple(_ROWS[j][SUIT_OF[c]][c] for c in range(54)) for j in (False, True)}
#: Spades from low to high in the joker game (2♠ sits above the ace, the jokers above it).
_JOKER_SPADE_ORDER = tuple(sorted(range(39, 54), key=lambda c: trump_order(True)[c]))
_BIT = tuple(1 << c for c in range(54))


def _owners(suit: tuple[int, int, int, int]) -> int:
    """One suit of a deal (each seat's cards of it, in trick order) as the seats holding its
    remaining cards from the lowest up, two bits each, above a count of the cards."""
    remaining = suit[0] | suit[1] | suit[2] | suit[3]
    out = remaining.bit_count()
    while remaining:
        low = remaining & -remaining
        seat = 0 if suit[0] & low else 1 if suit[1] & low else 2 if suit[2] & low else 3
        out = out << 2 | seat
        remaining ^= low
    return out


def _plain_trump_bits(hand: int) -> int:
    """A hand's spades as a 13-bit mask in trump order (bit 0 = 2♠)."""
    return hand >> 39 & 0x1FFF


def _joker_trump_bits(hand: int) -> int:
    """A hand's trumps in the joker game as a 15-bit mask in trump order: 3♠..A♠, 2♠, LJ, BJ."""
    return (hand >> 40 & 0xFFF) | (hand >> 39 & 1) << 12 | (hand >> 52 & 3) << 13


class Solver:
    """One search objective with its own transposition table.

    ``side`` maximises the tricks won by the seats flagged in ``counted`` (by default the two
    seats of ``side``); the other side minimises them.  Counting one seat only turns the same
    search into a nil question: with ``counted`` the nil bidder alone and ``side`` the
    opponents, "at least 1" asks whether the defence can force the nil to take a trick.

    A solver may be reused for many positions, of one hand or of different deals: the table
    stays valid because its keys hold the whole remaining deal (in relative ranks), the player
    on lead and whether spades are broken.
    """

    def __init__(
        self,
        side: int,
        *,
        jokers: bool = False,
        counted: Sequence[bool] | None = None,
        node_limit: int | None = None,
        backend: str | None = None,
    ) -> None:
        self.side = side
        self.jokers = jokers
        self.counted = tuple(
            (s & 1) == side for s in range(4)
        ) if counted is None else tuple(bool(c) for c in counted)
        self.node_limit = node_limit
        self.nodes = 0
        self._rows = _ROWS[jokers]
        self._cheap = _CHEAP[jokers]
        self._lead_power = _LEAD_POWER[jokers]
        self._tt: dict[tuple[int, int, int, int, int, bool], tuple[int, int]] = {}
        #: The lead that last settled a position: tried first when the position comes back.
        self._killer: dict[tuple[int, int, int, int, int, bool], int] = {}
        #: The sure-trump bounds below count a side's tricks, so they need a side objective.
        self._by_side = self.counted == tuple((s & 1) == side for s in range(4))
        self._trump_bits = _joker_trump_bits if jokers else _plain_trump_bits
        #: One suit of a deal (four seats' cards) -> its squeezed form (see _relative).
        self._squeeze: dict[tuple[int, int, int, int], int] = {}
        self.hands = [0, 0, 0, 0]
        self.backend = _backend(backend)
        self._core: Any = None
        if self.backend == "c":
            assert _CORE is not None
            mask = sum(1 << s for s in range(4) if self.counted[s])
            self._core = _CORE.Core(side, mask, jokers, node_limit or 0)

    def _core_done(self, answer: object) -> None:
        """Count the core's nodes as ours, and turn its node-limit signal into SolverLimit."""
        self.nodes = self._core.nodes
        if answer is None or answer == -1:
            raise SolverLimit(f"more than {self.node_limit} nodes")

    # -- public ---------------------------------------------------------------------------

    @classmethod
    def nil_defence(
        cls, seat: int, *, jokers: bool = False, node_limit: int | None = None,
        backend: str | None = None,
    ) -> Solver:
        """The solver of ``seat``'s nil: the opponents maximise the tricks of that one seat,
        so ``at_least(..., 1)`` asks whether the defence can force the nil to take a trick."""
        return cls(1 - (seat & 1), jokers=jokers, counted=[s == seat for s in range(4)],
                   node_limit=node_limit, backend=backend)

    def value(
        self, hands: Sequence[int], leader: int, trick: Sequence[int] = (), broken: bool = False,
        guess: int | None = None,
    ) -> int:
        """Exact count of ``counted`` tricks from here when both sides play perfectly.

        ``guess``, when given, is tried first (the search is exact whatever the guess).
        """
        if self._core is not None:
            answer = self._core.value(hands, leader, tuple(trick), broken,
                                      -1 if guess is None else guess)
            self._core_done(answer)
            return int(answer[0])
        self.hands = list(hands)
        turn = (leader + len(trick)) & 3
        low, high = 0, self.hands[turn].bit_count()
        if guess is not None and low < guess <= high:
            # Start next to a likely value (a sibling's): usually two probes settle it.
            if self._node(turn, tuple(trick), leader, broken, guess):
                low = guess
                if guess < high and not self._node(turn, tuple(trick), leader, broken, guess + 1):
                    return guess
            else:
                high = guess - 1
                if guess - 1 > low and self._node(turn, tuple(trick), leader, broken, guess - 1):
                    return guess - 1
        # Binary search on null-window answers: each probe tightens one bound.
        while low < high:
            probe = (low + high + 1) // 2
            if self._node(turn, tuple(trick), leader, broken, probe):
                low = probe
            else:
                high = probe - 1
        return low

    def at_least(
        self, hands: Sequence[int], leader: int, trick: Sequence[int], broken: bool, need: int,
    ) -> bool:
        """Whether the maximising side can secure ``need`` counted tricks from here."""
        if self._core is not None:
            answer = self._core.at_least(hands, leader, tuple(trick), broken, need)
            self._core_done(answer)
            return bool(answer)
        self.hands = list(hands)
        turn = (leader + len(trick)) & 3
        return self._node(turn, tuple(trick), leader, broken, need)

    def root_moves(
        self, hands: Sequence[int], leader: int, trick: Sequence[int], broken: bool,
        first_trick_two_clubs: bool = False,
    ) -> list[int]:
        """The distinct cards worth trying for the player to move (one per equivalent run)."""
        self.hands = list(hands)
        turn = (leader + len(trick)) & 3
        if first_trick_two_clubs and not trick:
            return [TWO_CLUBS] if hands[turn] >> TWO_CLUBS & 1 else []
        return self._moves(turn, tuple(trick), broken)

    def move_values(
        self, hands: Sequence[int], leader: int, trick: Sequence[int] = (), broken: bool = False,
        first_trick_two_clubs: bool = False,
    ) -> dict[int, int]:
        """Exact counted tricks after each distinct card of the player to move."""
        if self._core is not None:
            return self._core_move_values(hands, leader, trick, broken, first_trick_two_clubs)
        out: dict[int, int] = {}
        guess: int | None = None
        for card in self.root_moves(hands, leader, trick, broken, first_trick_two_clubs):
            out[card] = guess = self._after(hands, leader, trick, broken, card, guess)
        return out

    def _core_move_values(
        self, hands: Sequence[int], leader: int, trick: Sequence[int], broken: bool,
        first_trick_two_clubs: bool,
    ) -> dict[int, int]:
        """The core's way (``Core.values``): every card asked in one table, each card's
        questions starting from the best count of the cards before it, and cards lower than
        every rank a sibling's answers rested on given that sibling's count without a search."""
        moves = self.root_moves(hands, leader, trick, broken, first_trick_two_clubs)
        if first_trick_two_clubs and not trick:
            return {card: self._after(hands, leader, trick, broken, card) for card in moves}
        answer = self._core.values(hands, leader, tuple(trick), broken)
        self._core_done(answer)
        # The core's runs are the Python search's runs; ask for any card it did not list.
        return {card: answer[card] if card in answer else
                self._after(hands, leader, trick, broken, card) for card in moves}

    def best(
        self, hands: Sequence[int], leader: int, trick: Sequence[int] = (), broken: bool = False,
        first_trick_two_clubs: bool = False,
    ) -> tuple[int, int]:
        """(tricks, card): the value of the position and a card that achieves it.

        Finds the value of the first card exactly, then only asks of each later card whether it
        does better (one null-window probe each, most answered by the table).
        """
        if self._core is not None and not (first_trick_two_clubs and not trick):
            # The core finds the card with the value: the root move of its settling probe.
            answer = self._core.value(hands, leader, tuple(trick), broken, -1)
            self._core_done(answer)
            return int(answer[0]), int(answer[1])
        turn = (leader + len(trick)) & 3
        moves = self.root_moves(hands, leader, trick, broken, first_trick_two_clubs)
        if not moves:
            return 0, -1
        maximising = (turn & 1) == self.side
        best_card = moves[0]
        best_value = self._after(hands, leader, trick, broken, best_card)
        for card in moves[1:]:
            if maximising:
                while self.at_least_after(hands, leader, trick, broken, card, best_value + 1):
                    best_value += 1
                    best_card = card
            else:
                while best_value > 0 and not self.at_least_after(
                    hands, leader, trick, broken, card, best_value
                ):
                    best_value -= 1
                    best_card = card
        return best_value, best_card

    # -- one card from the root -------------------------------------------------------------

    def _child(
        self, hands: Sequence[int], leader: int, trick: Sequence[int], broken: bool, card: int,
    ) -> tuple[list[int], int, tuple[int, ...], bool, int, int]:
        """The position after ``card``: (hands, leader, trick, broken, turn, counted won)."""
        turn = (leader + len(trick)) & 3
        after = list(hands)
        after[turn] &= ~_BIT[card]
        new_trick = (*trick, card)
        broken = broken or card >= 39
        if len(new_trick) < 4:
            return after, leader, new_trick, broken, (turn + 1) & 3, 0
        winner = self._winner(new_trick, leader)
        return after, winner, (), broken, winner, 1 if self.counted[winner] else 0

    def _after(
        self, hands: Sequence[int], leader: int, trick: Sequence[int], broken: bool, card: int,
        guess: int | None = None,
    ) -> int:
        after, lead, new_trick, brk, _, won = self._child(hands, leader, trick, broken, card)
        inner = None if guess is None else guess - won
        return won + self.value(after, lead, new_trick, brk, inner)

    def at_least_after(
        self, hands: Sequence[int], leader: int, trick: Sequence[int], broken: bool, card: int,
        need: int,
    ) -> bool:
        """Whether the maximising side secures ``need`` counted tricks once ``card`` is played
        (a trick the card completes counts)."""
        after, lead, new_trick, brk, turn, won = self._child(hands, leader, trick, broken, card)
        if self._core is not None:
            return self.at_least(after, lead, new_trick, brk, need - won)
        self.hands = after
        return self._node(turn, new_trick, lead, brk, need - won)

    # -- the search ---------------------------------------------------------------------------

    def _winner(self, trick: tuple[int, ...], leader: int) -> int:
        row = self._rows[SUIT_OF[trick[0]]]
        best = 0
        top = row[trick[0]]
        for i in (1, 2, 3):
            p = row[trick[i]]
            if p > top:
                top = p
                best = i
        return (leader + best) & 3

    def _node(
        self, turn: int, trick: tuple[int, ...], leader: int, broken: bool, need: int,
    ) -> bool:
        if need <= 0:
            return True
        hands = self.hands
        left = hands[turn].bit_count()
        if need > left:
            return False
        self.nodes += 1
        if self.node_limit is not None and self.nodes > self.node_limit:
            raise SolverLimit(f"more than {self.node_limit} nodes")
        key = None
        first = -1
        if not trick:
            if left == 1:
                # The last trick plays itself: one card each (here need is exactly 1).
                last = (hands[turn], hands[(turn + 1) & 3], hands[(turn + 2) & 3],
                        hands[(turn + 3) & 3])
                cards = tuple(h.bit_length() - 1 for h in last)
                return self.counted[self._winner(cards, turn)]
            key = (*self._relative(hands), turn, broken)
            bounds = self._tt.get(key)
            if bounds is not None:
                if bounds[0] >= need:
                    return True
                if bounds[1] < need:
                    return False
            if self._by_side:
                ours, theirs = self._sure_trumps(hands)
                if ours >= need:
                    return True
                if need > left - theirs:
                    return False
            first = self._killer.get(key, -1)
        maximising = (turn & 1) == self.side
        result = not maximising
        hand = hands[turn]
        moves = self._moves(turn, trick, broken)
        if first >= 0 and first in moves and moves[0] != first:
            moves.remove(first)
            moves.insert(0, first)
        for card in moves:
            bit = _BIT[card]
            hands[turn] = hand ^ bit
            now_broken = broken or card >= 39
            if len(trick) == 3:
                full = (*trick, card)
                winner = self._winner(full, leader)
                got = self._node(
                    winner, (), winner, now_broken, need - (1 if self.counted[winner] else 0)
                )
            else:
                got = self._node((turn + 1) & 3, (*trick, card), leader, now_broken, need)
            hands[turn] = hand
            if got == maximising:
                result = got
                if key is not None:
                    self._killer[key] = card
                break
        if key is not None:
            low, high = self._tt.get(key, (0, left))
            if result:
                low = max(low, need)
            else:
                high = min(high, need - 1)
            self._tt[key] = (low, high)
        return result

    def _relative(self, hands: list[int]) -> tuple[int, int, int, int]:
        """The deal with every played card squeezed out of its suit: the table's key.

        Only the order of the remaining cards matters to the rest of the play, so positions
        that differ only in which cards are gone (a 4 played here, a 5 there, with nothing
        left between them) share one entry — about half the nodes of exact keys.  Each suit
        becomes one number: who holds each remaining card, from the lowest up.
        """
        h0, h1, h2, h3 = hands
        memo = self._squeeze
        out = []
        for shift in (0, 13, 26):
            k = (h0 >> shift & 0x1FFF, h1 >> shift & 0x1FFF, h2 >> shift & 0x1FFF,
                 h3 >> shift & 0x1FFF)
            v = memo.get(k)
            if v is None:
                v = memo[k] = _owners(k)
            out.append(v)
        bits = self._trump_bits
        k = (bits(h0), bits(h1), bits(h2), bits(h3))
        v = memo.get(k)
        if v is None:
            v = memo[k] = _owners(k)
        return (out[0], out[1], out[2], v)

    def _sure_trumps(self, hands: list[int]) -> tuple[int, int]:
        """Tricks each side is sure of from its top trumps: (maximiser's, other side's).

        A spade above every spade the opponents hold wins whatever trick it is played to, or
        falls on partner's winner; one seat's such spades go to different tricks, so the side
        is sure of as many tricks as the seat holding more of them.
        """
        bits = self._trump_bits
        t = (bits(hands[0]), bits(hands[1]), bits(hands[2]), bits(hands[3]))
        top_even = (t[0] | t[2]).bit_length()
        top_odd = (t[1] | t[3]).bit_length()
        even = max((t[0] >> top_odd).bit_count(), (t[2] >> top_odd).bit_count())
        odd = max((t[1] >> top_even).bit_count(), (t[3] >> top_even).bit_count())
        return (even, odd) if self.side == 0 else (odd, even)

    def _moves(self, turn: int, trick: tuple[int, ...], broken: bool) -> list[int]:
        """Legal cards, one per run of equivalent cards, in a promising order."""
        hands = self.hands
        hand = hands[turn]
        if trick:
            led = SUIT_OF[trick[0]]
            legal = hand & SUIT_MASKS[led]
            if not legal:
                legal = hand
        elif not broken and hand & ~SPADE_MASK:
            legal = hand & ~SPADE_MASK
        else:
            legal = hand
        remaining = hands[0] | hands[1] | hands[2] | hands[3]
        for c in trick:
            remaining |= _BIT[c]
        reps = self._representatives(legal, hand, remaining)
        if len(reps) <= 1:
            return reps
        if trick:
            led = SUIT_OF[trick[0]]
            row = self._rows[led]
            cheap = self._cheap[led]
            top = 0
            top_i = 0
            for i, c in enumerate(trick):
                if row[c] > top:
                    top = row[c]
                    top_i = i
            if top_i == len(trick) - 2:
                # Partner has it: keep low, the cheapest card first.
                reps.sort(key=cheap.__getitem__)
                return reps
            winners = [c for c in reps if row[c] > top]
            losers = [c for c in reps if row[c] <= top]
            winners.sort(key=row.__getitem__)
            losers.sort(key=cheap.__getitem__)
            return winners + losers
        # Leading: the top card of each suit first (likely winners), then the low cards.
        reps.sort(key=self._lead_power.__getitem__, reverse=True)
        tops: list[int] = []
        rest: list[int] = []
        seen_suits = 0
        for c in reps:
            bit = 1 << SUIT_OF[c]
            if seen_suits & bit:
                rest.append(c)
            else:
                seen_suits |= bit
                tops.append(c)
        rest.reverse()
        return tops + rest

    def _representatives(self, legal: int, hand: int, remaining: int) -> list[int]:
        return representatives(legal, hand, remaining, self.jokers)


def representatives(legal: int, hand: int, remaining: int, jokers: bool) -> list[int]:
    """The lowest card of each run of ``legal`` cards that no other ``remaining`` card splits.

    Cards of one run win and lose the same tricks, so a search tries one of them.  ``hand`` is
    the holding the legal cards come from; ``remaining`` every card still in play (all hands and
    the trick in progress; for a player who cannot see the other hands, its own hand, the
    unseen cards and the trick).
    """
    out: list[int] = []
    joker_spades = 0
    if jokers:
        # The joker deck's trump order is not the card-number order: walk it explicitly.
        joker_spades = legal & SPADE_MASK
        legal &= ~SPADE_MASK
    while legal:
        low = legal & -legal
        card = low.bit_length() - 1
        legal ^= low
        below = remaining & SUIT_MASKS[SUIT_OF[card]] & (low - 1)
        if below and (1 << (below.bit_length() - 1)) & hand:
            continue
        out.append(card)
    if joker_spades:
        below_mine = False
        for c in _JOKER_SPADE_ORDER:
            bit = _BIT[c]
            if not remaining & bit:
                continue
            if joker_spades & bit and not below_mine:
                out.append(c)
            below_mine = bool(hand & bit)
    return out


# -- functions on positions -----------------------------------------------------------------


def trick_winner(trick: Sequence[int], leader: int, jokers: bool) -> int:
    """The seat that wins a full trick led by ``leader`` (the engine's rule, on ints)."""
    row = _ROWS[jokers][SUIT_OF[trick[0]]]
    best = max(range(4), key=lambda i: row[trick[i]])
    return (leader + best) & 3


def _jokers(rules: Rules | bool | None) -> bool:
    if isinstance(rules, Rules):
        return rules.jokers
    return bool(rules)


def solve(
    hands: Sequence[int],
    leader: int,
    trick: Sequence[int] = (),
    broken: bool = False,
    rules: Rules | bool | None = None,
    side: int | None = None,
    *,
    first_trick_two_clubs: bool = False,
    node_limit: int | None = None,
    backend: str | None = None,
) -> SolveResult:
    """Perfect play from a position: tricks ``side`` takes from here and the best card.

    ``hands`` are the four current holdings, ``trick`` the cards already played to the trick
    in progress (led by ``leader``), ``rules`` a :class:`Rules` or just whether jokers are in
    play.  ``side`` defaults to the side of the player to move.  ``backend`` (``"c"`` or
    ``"python"``) forces one search; by default the compiled core when it is built.
    """
    turn = (leader + len(trick)) & 3
    side = turn & 1 if side is None else side
    solver = Solver(side, jokers=_jokers(rules), node_limit=node_limit, backend=backend)
    tricks, card = solver.best(hands, leader, trick, broken, first_trick_two_clubs)
    return SolveResult(side, tricks, card, solver.nodes)


def card_values(
    hands: Sequence[int],
    leader: int,
    trick: Sequence[int] = (),
    broken: bool = False,
    rules: Rules | bool | None = None,
    side: int | None = None,
    *,
    first_trick_two_clubs: bool = False,
    solver: Solver | None = None,
    backend: str | None = None,
) -> dict[int, int]:
    """Tricks ``side`` takes from here after each legal card of the player to move.

    Every legal card is listed, equivalent cards with the value of their run.  Passing a
    ``solver`` for ``side`` (built for the same deck) reuses its table across the positions of
    one hand.
    """
    turn = (leader + len(trick)) & 3
    side = turn & 1 if side is None else side
    jokers = _jokers(rules)
    if solver is None or solver.side != side or solver.jokers != jokers:
        solver = Solver(side, jokers=jokers, backend=backend)
    reps = solver.move_values(hands, leader, trick, broken, first_trick_two_clubs)
    out: dict[int, int] = {}
    hand = hands[turn]
    legal = _legal_mask(hand, trick, broken, first_trick_two_clubs)
    remaining = hands[0] | hands[1] | hands[2] | hands[3]
    for c in trick:
        remaining |= _BIT[c]
    order = _order_in_suits(jokers)
    for card in card_list(legal):
        # Walk down the run to its lowest card, the one the solver searched.
        rep = card
        while rep not in reps:
            rep = _next_lower(rep, remaining, order)
        out[card] = reps[rep]
    return out


def _legal_mask(hand: int, trick: Sequence[int], broken: bool, two_clubs: bool) -> int:
    if trick:
        follow = hand & SUIT_MASKS[SUIT_OF[trick[0]]]
        return follow if follow else hand
    if two_clubs:
        return hand & _BIT[TWO_CLUBS]
    if not broken and hand & ~SPADE_MASK:
        return hand & ~SPADE_MASK
    return hand


def _order_in_suits(jokers: bool) -> dict[int, tuple[int, ...]]:
    """Each suit's cards from low to high in trick-taking order."""
    order = {s: tuple(range(s * 13, s * 13 + 13)) for s in range(3)}
    order[SPADES] = _JOKER_SPADE_ORDER if jokers else tuple(range(39, 52))
    return order


def _next_lower(card: int, remaining: int, order: dict[int, tuple[int, ...]]) -> int:
    seq = order[SUIT_OF[card]]
    i = seq.index(card) - 1
    while i >= 0 and not remaining >> seq[i] & 1:
        i -= 1
    if i < 0:
        raise ValueError("no lower card in the run")  # cannot happen for a legal card
    return seq[i]


def position_of(game: Game) -> tuple[list[int], int, list[int], bool, bool]:
    """(hands, leader, trick, broken, first_trick_two_clubs) of a game in the play phase."""
    from .engine import PLAY

    if game.phase != PLAY or game.sheet:
        raise ValueError(f"no cards to solve in the {game.phase_name} phase")
    two_clubs = game.rules.two_clubs_leads and not game.tricks and not game.trick
    return list(game.hands), game.leader, list(game.trick), game.broken, two_clubs


def solve_game(game: Game, side: int | None = None, node_limit: int | None = None) -> SolveResult:
    """:func:`solve` on a :class:`~varaq.engine.Game` in the play phase (it sees every hand)."""
    hands, leader, trick, broken, two_clubs = position_of(game)
    return solve(hands, leader, trick, broken, game.rules, side,
                 first_trick_two_clubs=two_clubs, node_limit=node_limit)


def game_card_values(game: Game, side: int | None = None) -> dict[int, int]:
    """:func:`card_values` on a game in the play phase: tricks from here after each legal card."""
    hands, leader, trick, broken, two_clubs = position_of(game)
    return card_values(hands, leader, trick, broken, game.rules, side,
                       first_trick_two_clubs=two_clubs)
