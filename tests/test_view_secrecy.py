"""A view never depends on cards its seat may not see.

For many random positions under several tables, the cards a seat cannot see — the other
hands — are reshuffled among the other seats (each keeps its number of cards; the cards played
stay as they were), and ``view(seat)`` and ``view(seat).to_json()`` must not change at all.
A seat still to choose blind nil or look cannot see even its own cards: for it, all four hands
are reshuffled.
"""

from __future__ import annotations

import json
import random

import pytest

from varaq import BLIND_NIL, LOOK, Game, Rules
from varaq.engine import BLIND, DEAL, EXCHANGE

TABLES = [
    Rules.named("classic"),
    Rules.named("varaq"),
    Rules.named("classic").with_options(jokers=True, blind_nil_trail=0),
    Rules.named("classic").with_options(two_clubs_leads=True, exchange=3),
    Rules.named("daily").with_options(min_team_bid=4, nil=False),
]


def random_position(seed: int) -> Game:
    rng = random.Random(seed)
    rules = TABLES[seed % len(TABLES)]
    game = Game(rules, seed=seed, totals=rng.choice([(0, 0), (0, 150), (300, 0)]))
    for _ in range(rng.randrange(0, 140)):
        if game.is_over:
            break
        if game.phase == DEAL:
            game.deal()
        else:
            game.apply(rng.choice(game.legal_actions()))
    if game.phase == DEAL and not game.is_over:
        game.deal()
    return game


def reshuffled(game: Game, viewer: int, rng: random.Random, own_too: bool = False) -> Game:
    """A copy in which the cards ``viewer`` cannot see have changed hands."""
    other = game.copy()
    seats = [s for s in range(4) if s != viewer or own_too]
    fixed = [0, 0, 0, 0]
    if game.phase == EXCHANGE and game.exchange_queue[0][0] != viewer:
        giver = game.exchange_queue[0][0]
        fixed[giver] = game.passing  # the giver's picks stay in the giver's hand
    pool = [c for s in seats for c in range(54) if (game.hands[s] & ~fixed[s]) >> c & 1]
    rng.shuffle(pool)
    for seat in seats:
        need = (game.hands[seat] & ~fixed[seat]).bit_count()
        mask = fixed[seat]
        for card in pool[:need]:
            mask |= 1 << card
        del pool[:need]
        other.hands[seat] = mask
    return other


def seen_by(game: Game, seat: int) -> tuple[object, str]:
    view = game.view(seat)
    return view, json.dumps(view.to_json(), sort_keys=True)


@pytest.mark.parametrize("seed", range(150))
def test_a_view_is_the_same_whatever_the_hidden_cards(seed: int) -> None:
    game = random_position(seed)
    rng = random.Random(seed * 7 + 1)
    for viewer in range(4):
        pending = game.phase == BLIND and viewer in game.blind_queue
        before = seen_by(game, viewer)
        for _ in range(3):
            other = reshuffled(game, viewer, rng, own_too=pending)
            assert sum(h.bit_count() for h in other.hands) == sum(
                h.bit_count() for h in game.hands)
            assert seen_by(other, viewer) == before


def blind_round(seed: int) -> Game:
    game = Game("classic", seed=seed, totals=(0, 200), dealer=seed % 4)
    game.deal()
    assert game.phase == BLIND
    return game


@pytest.mark.parametrize("seed", range(20))
def test_no_cards_are_shown_while_the_blind_nil_decision_is_pending(seed: int) -> None:
    game = blind_round(seed)
    for seat in game.blind_queue:
        view = game.view(seat)
        assert view.cards_hidden and view.hand == 0
        shown = view.to_json()
        assert shown["hand"] == [] and shown["cards_hidden"] is True
        assert not any(card in json.dumps(shown) for card in _texts(game.hands[seat]))
    for seat in set(range(4)) - set(game.blind_queue):
        assert game.view(seat).hand == game.hands[seat]


def test_a_seat_sees_its_cards_once_it_looks_and_not_before() -> None:
    game = blind_round(3)
    seat = game.turn
    legal = game.view(seat).legal
    assert set(legal) == {BLIND_NIL, LOOK}
    game.apply(LOOK)
    assert game.view(seat).hand == game.hands[seat] and not game.view(seat).cards_hidden


def test_the_exchange_is_seen_only_by_the_two_partners() -> None:
    game = blind_round(1)
    game.apply(BLIND_NIL)
    while game.phase != EXCHANGE:
        game.apply(max(game.legal_actions()))
    giver = game.turn
    game.apply(game.legal_actions()[0])
    assert game.view(giver).passing and not game.view(giver ^ 2).passing
    assert not game.view(giver ^ 1).passing and not game.view(giver ^ 3).passing
    while game.phase == EXCHANGE:
        game.apply(game.legal_actions()[0])
    for seat in (giver ^ 1, giver ^ 3):
        assert game.view(seat).gave == 0 and game.view(seat).received == 0
    assert game.view(giver).gave == game.view(giver ^ 2).received != 0


def _texts(mask: int) -> list[str]:
    from varaq.cards import card_text, cards_of

    return [f'"{card_text(c)}"' for c in cards_of(mask)]
