"""Shared helpers for the engine's tests: building a deal from a few named cards, and playing
random legal actions.  A plain module with its own name, not conftest.py: tests/browser has a
conftest of its own, and two modules both named ``conftest`` cannot be imported side by side."""

from __future__ import annotations

import random

from varaq import Game
from varaq.cards import JOKER_DECK, STANDARD_DECK, cards_of, parse_hand
from varaq.engine import DEAL


def layout(jokers: bool = False, **given: str) -> list[int]:
    """Four 13-card hands: the seats named (``N="AS KS"``) hold those cards, and the rest of
    the deck is dealt round the table, lowest card first, to fill every hand to 13."""
    hands = [0, 0, 0, 0]
    for letter, text in given.items():
        hands["NESW".index(letter)] = parse_hand(text)
    used = hands[0] | hands[1] | hands[2] | hands[3]
    rest = list(cards_of((JOKER_DECK if jokers else STANDARD_DECK) & ~used))
    seat = 0
    for card in rest:
        while hands[seat].bit_count() >= 13:
            seat = (seat + 1) & 3
        hands[seat] |= 1 << card
        seat = (seat + 1) & 3
    assert all(h.bit_count() == 13 for h in hands), "a named hand has more than 13 cards"
    return hands


def step_random(game: Game, rng: random.Random) -> None:
    """One random legal step: a deal between hands, otherwise a random legal action."""
    if game.phase == DEAL:
        game.deal()
    else:
        game.apply(rng.choice(game.legal_actions()))


def play_hand(game: Game, rng: random.Random) -> None:
    """Play random legal actions until the current hand (dealt if need be) is over."""
    if game.phase == DEAL:
        game.deal()
    hand_no = game.hand_no
    while game.hand_no == hand_no and not game.is_over:
        game.apply(rng.choice(game.legal_actions()))


def random_holdings(
    rng: random.Random, cards: int, jokers: bool, in_trick: int | None = None,
) -> tuple[list[int], int, list[int]]:
    """(hands, leader, trick): ``cards`` cards a hand, minus one for each seat that has played
    to the trick in progress (``in_trick`` cards, random if not given)."""
    deck = list(cards_of(JOKER_DECK if jokers else STANDARD_DECK))
    rng.shuffle(deck)
    leader = rng.randrange(4)
    if in_trick is None:
        in_trick = rng.randrange(4)
    trick = deck[:in_trick]
    pos = in_trick
    hands = [0, 0, 0, 0]
    for i in range(4):
        seat = (leader + i) & 3
        n = cards - 1 if i < in_trick else cards
        for c in deck[pos:pos + n]:
            hands[seat] |= 1 << c
        pos += n
    return hands, leader, trick

