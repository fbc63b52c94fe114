"""Perft: the number of legal play sequences from a fixed endgame, as chess engines count moves.

The position: the default ``layout()`` deal (the deck dealt round the table, lowest card first),
dealer W, everyone bids 3, and the first nine tricks are played by always taking the lowest
legal card number.  Four tricks are left:

    N  JS 7S 3S QH      E  QS 8S 4S KH      S  KS 9S 5S AH      W  AS TS 6S 2S

Spades are not broken, yet W is to lead and holds only spades, so W may lead any of them
(the only-spades exception).  Each other seat then must follow with one of its three spades,
so the first trick alone has 4 x 3 x 3 x 3 = 108 sequences — counted by hand, and the depth-4
count below.  Deeper counts are checked against a second, independent enumerator written here
on plain sets of cards, and pinned.
"""

from __future__ import annotations

from deal_helpers import layout
from varaq import BID, Game
from varaq.engine import PLAY

PINNED_BY_DEPTH = [4, 12, 36, 108, 324, 720, 1428, 2808, 5616, 7776, 9696, 12096]
FOUR_TRICKS_LEFT = 12096
THREE_TRICKS_LEFT = 126


def endgame(tricks_played: int) -> Game:
    game = Game("classic", seed=0, dealer=3)
    game.deal(hands=layout(), dealer=3)
    while game.phase != PLAY:
        game.apply(BID + 3)
    while len(game.tricks) < tricks_played:
        game.apply(min(game.legal_actions()))
    return game


def perft(game: Game, depth: int) -> int:
    """Sequences of ``depth`` plays (or to the end of the hand) through the public API."""
    if depth == 0 or game.phase != PLAY:
        return 1
    total = 0
    for action in game.legal_actions():
        child = game.copy()
        child.apply(action)
        total += perft(child, depth - 1)
    return total


# -- a second enumerator, sharing nothing with the engine ------------------------------------


def suit(card: int) -> int:
    return card // 13


def count_sequences(hands: list[set[int]], leader: int, trick: list[int], broken: bool,
                    depth: int) -> int:
    if depth == 0 or not any(hands):
        return 1
    seat = (leader + len(trick)) % 4
    hand = hands[seat]
    if trick:
        options = {c for c in hand if suit(c) == suit(trick[0])} or hand
    elif broken:
        options = hand
    else:
        options = {c for c in hand if suit(c) != 3} or hand
    total = 0
    for card in sorted(options):
        hands[seat] = hand - {card}
        now = [*trick, card]
        if len(now) == 4:
            led = suit(now[0])
            strength = [100 + c % 13 if suit(c) == 3 else (c % 13 if suit(c) == led else -1)
                        for c in now]
            winner = (leader + strength.index(max(strength))) % 4
            total += count_sequences(hands, winner, [], broken or suit(card) == 3, depth - 1)
        else:
            total += count_sequences(hands, leader, now, broken or suit(card) == 3, depth - 1)
        hands[seat] = hand
    return total


def independent_count(game: Game, depth: int) -> int:
    hands = [{c for c in range(52) if game.hands[s] >> c & 1} for s in range(4)]
    return count_sequences(hands, game.leader, list(game.trick), game.broken, depth)


def test_the_first_trick_of_the_endgame_has_108_sequences_as_counted_by_hand() -> None:
    game = endgame(9)
    assert game.turn == 3 and not game.broken
    assert perft(game, 4) == 4 * 3 * 3 * 3


def test_perft_by_depth_is_pinned_and_agrees_with_an_independent_count() -> None:
    game = endgame(9)
    counts = [perft(game, depth) for depth in range(1, 13)]
    assert counts == [independent_count(game, depth) for depth in range(1, 13)]
    assert counts == PINNED_BY_DEPTH


def test_the_last_four_tricks_have_12096_play_sequences() -> None:
    game = endgame(9)
    assert perft(game, 16) == independent_count(game, 16) == FOUR_TRICKS_LEFT


def test_the_last_three_tricks_have_126_play_sequences() -> None:
    game = endgame(10)
    assert perft(game, 12) == independent_count(game, 12) == THREE_TRICKS_LEFT


def test_perft_leaves_the_position_untouched() -> None:
    game = endgame(9)
    before = (list(game.hands), list(game.trick), game.turn, len(game.tricks))
    perft(game, 8)
    assert (list(game.hands), list(game.trick), game.turn, len(game.tricks)) == before
