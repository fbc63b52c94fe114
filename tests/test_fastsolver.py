"""The compiled solver core against its two references.

- The pure Python search (``backend="python"``), itself checked against a brute force over the
  engine in ``test_solver.py``: thousands of random positions of every size the Python search
  can finish, both decks, broken or not, in the middle of a trick, side and nil objectives, one
  table reused across deals.
- DDS, the bridge solver (through ``endplay``, a test dependency): where Spades is bridge
  (classic deck, spades broken, spades trumps) the answers must be DDS's, full deals included.
"""

from __future__ import annotations

import random

import pytest
from endplay.dds.solve import SolveMode, solve_board
from endplay.types import Card, Deal, Denom, Player

from deal_helpers import random_holdings
from varaq.cards import RANK_LETTERS, TWO_CLUBS, card_text
from varaq.solver import Solver, SolverLimit, card_values, default_backend, solve

pytestmark = pytest.mark.skipif(
    default_backend() != "c", reason="the compiled core is not built (pure Python install)"
)


def _random_position(
    rng: random.Random, cards: int, jokers: bool, broken: bool | None = None,
    in_trick: int | None = None,
) -> tuple[list[int], int, list[int], bool]:
    """Random holdings (see deal_helpers), spades broken at random unless ``broken`` is given."""
    hands, leader, trick = random_holdings(rng, cards, jokers, in_trick)
    if broken is None:
        broken = rng.random() < 0.5
    broken = broken or any(c >= 39 for c in trick)
    return hands, leader, trick, broken


SIZES = {1: 150, 2: 300, 3: 300, 4: 300, 5: 200, 6: 120, 7: 40}


@pytest.mark.parametrize("cards", sorted(SIZES))
def test_core_agrees_with_the_python_search(cards: int) -> None:
    rng = random.Random(12_000 + cards)
    # One core per objective for the whole run: its table must keep different deals apart.
    shared = {(side, jokers): Solver(side, jokers=jokers, backend="c")
              for side in (0, 1) for jokers in (False, True)}
    for _ in range(SIZES[cards]):
        jokers = rng.random() < 0.35
        hands, leader, trick, broken = _random_position(rng, cards, jokers)
        side = rng.randrange(2)
        reference = Solver(side, jokers=jokers, backend="python")
        want = reference.value(hands, leader, trick, broken)
        fresh = Solver(side, jokers=jokers, backend="c")
        tricks, card = fresh.best(hands, leader, trick, broken)
        assert tricks == want, (hands, leader, trick, broken, side)
        assert shared[(side, jokers)].value(hands, leader, trick, broken) == want
        # The card given achieves the value.
        assert reference._after(hands, leader, trick, broken, card) == want


@pytest.mark.parametrize("cards", [2, 3, 4, 5])
def test_core_answers_the_nil_question_like_the_python_search(cards: int) -> None:
    rng = random.Random(7_000 + cards)
    for _ in range(150 if cards < 5 else 60):
        jokers = rng.random() < 0.3
        hands, leader, trick, broken = _random_position(rng, cards, jokers)
        nil_seat = rng.randrange(4)
        defence = 1 - (nil_seat & 1)
        counted = [s == nil_seat for s in range(4)]
        python = Solver(defence, jokers=jokers, counted=counted, backend="python")
        core = Solver(defence, jokers=jokers, counted=counted, backend="c")
        assert core.value(hands, leader, trick, broken) == python.value(
            hands, leader, trick, broken
        )
        assert core.at_least(hands, leader, trick, broken, 1) == python.at_least(
            hands, leader, trick, broken, 1
        )


def test_card_values_agree_for_every_legal_card() -> None:
    rng = random.Random(31)
    for _ in range(120):
        jokers = rng.random() < 0.3
        hands, leader, trick, broken = _random_position(rng, rng.randint(1, 5), jokers)
        side = rng.randrange(2)
        assert card_values(hands, leader, trick, broken, jokers, side, backend="c") == \
            card_values(hands, leader, trick, broken, jokers, side, backend="python")


def test_every_cards_count_agrees_for_side_and_nil_objectives() -> None:
    rng = random.Random(77)
    for _ in range(200):
        jokers = rng.random() < 0.3
        hands, leader, trick, broken = _random_position(rng, rng.randint(1, 6), jokers)
        side, counted = rng.randrange(2), None
        if rng.random() < 0.4:
            seat = rng.randrange(4)
            side, counted = 1 - (seat & 1), [s == seat for s in range(4)]
        core = Solver(side, jokers=jokers, counted=counted, backend="c")
        python = Solver(side, jokers=jokers, counted=counted, backend="python")
        assert core.move_values(hands, leader, trick, broken) == python.move_values(
            hands, leader, trick, broken
        ), (hands, leader, trick, broken, side, counted)


def test_the_two_clubs_opening_lead_is_honoured() -> None:
    rng = random.Random(5)
    for _ in range(20):
        hands, _, _, _ = _random_position(rng, 3, False, in_trick=0)
        holder = next((s for s in range(4) if hands[s] >> TWO_CLUBS & 1), None)
        if holder is None:
            continue
        kw = {"first_trick_two_clubs": True}
        c = solve(hands, holder, (), False, False, backend="c", **kw)
        p = solve(hands, holder, (), False, False, backend="python", **kw)
        assert c.best_card == TWO_CLUBS == p.best_card
        assert c.tricks == p.tricks


def test_the_node_limit_stops_the_core() -> None:
    rng = random.Random(2)
    hands, leader, trick, broken = _random_position(rng, 13, False, True, in_trick=0)
    with pytest.raises(SolverLimit):
        solve(hands, leader, trick, broken, backend="c", node_limit=20)


# -- DDS -------------------------------------------------------------------------------------

_PLAYERS = (Player.north, Player.east, Player.south, Player.west)


def _pbn(hands: list[int]) -> str:
    out = []
    for h in hands:
        groups = []
        for suit in (3, 2, 1, 0):
            groups.append("".join(RANK_LETTERS[r] for r in range(12, -1, -1)
                                  if h >> (suit * 13 + r) & 1))
        out.append(".".join(groups))
    return "N:" + " ".join(out)


def _dds_values(hands: list[int], leader: int, trick: list[int]) -> dict[int, int]:
    """DDS's tricks for the side to play after each legal card (spades trumps)."""
    all_hands = list(hands)
    for k, card in enumerate(trick):
        all_hands[(leader + k) & 3] |= 1 << card
    deal = Deal.from_pbn(_pbn(all_hands))
    deal.trump = Denom.spades
    deal.first = _PLAYERS[leader]
    for card in trick:
        text = card_text(card)
        deal.play(Card(text[1] + text[0]))
    out = {}
    for card, tricks in solve_board(deal, SolveMode.Default):
        name = str(card)
        text = ("T" if name[1:] == "10" else name[1:]) + name[0]
        out[_parse(text)] = tricks
    return out


def _parse(text: str) -> int:
    from varaq.cards import parse_card

    return parse_card(text)


@pytest.mark.parametrize("cards", [3, 5, 7, 9, 11])
def test_core_agrees_with_dds_on_broken_positions(cards: int) -> None:
    rng = random.Random(400 + cards)
    for _ in range({3: 60, 5: 60, 7: 40, 9: 25, 11: 10}[cards]):
        hands, leader, trick, _ = _random_position(rng, cards, False, True)
        turn = (leader + len(trick)) & 3
        want = _dds_values(hands, leader, trick)
        got = card_values(hands, leader, trick, True, False, turn & 1, backend="c")
        assert got == want, (_pbn(hands), leader, trick)


def test_core_agrees_with_dds_on_full_deals() -> None:
    rng = random.Random(2026)
    for _ in range(4):
        hands, leader, _, _ = _random_position(rng, 13, False, True, in_trick=0)
        # Spades broken from the first lead: the bridge game with spades as trumps.
        dds = _dds_values(hands, leader, [])
        result = solve(hands, leader, (), True, backend="c")
        assert result.tricks == max(dds.values())
        assert dds[result.best_card] == result.tricks
